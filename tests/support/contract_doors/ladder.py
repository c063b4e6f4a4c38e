"""Contract cases of the ladder's doors (docs/contract.md, "Ladders"): the agent to place, the games, the workers, the
ladder files (damaged, forged, of another game), the anchors of a build and the command line's flags.

Each case that reads a ladder runs on a folder of its own holding the tiny Kalah ladder (``ladder.json``,
:mod:`support.ladder_files`); what must not change is the folder's content: a refused call writes nothing.
``tests/doors/test_ladder_doors.py`` has the full messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mancala_envs.analysis.ladder import CallableAgent, build_ladder, place_agent
from mancala_envs.cli import main

from support.contract import EXIT_2, Case, Row
from support.ladder_files import TINY, TINY_OPTIONS, ladder_folder, tiny_data

DOOR = "ladder"
LADDERS = "Ladders:"
REBUILD = "rebuild it with `mancala-envs ladder --build --game GAME --out PATH`."

CASES: list[Case] = []


def case(item: str, name: str, call: Any, error: Any, *words: str, **options: Any) -> None:
    CASES.append(Case(DOOR, Row(LADDERS, item), name, call, error, words, **options))


def content(folder: Path) -> dict[str, bytes]:
    return {item.name: item.read_bytes() for item in sorted(folder.iterdir())}


def place(folder: Path, agent: Any = "greedy", **arguments: Any) -> Any:
    settings = {"games_per_anchor": 2, "ladder": str(folder / "ladder.json"), "regret": False, **TINY, **arguments}
    return place_agent(agent, "kalah", **settings)


def forge(folder: Path, **changes: Any) -> Any:
    """Places an agent on the folder's ladder after rewriting it with ``changes``."""
    (folder / "ladder.json").write_text(json.dumps(tiny_data(**changes)), encoding="utf-8")
    return place(folder)


ON_LADDER = {"subject": ladder_folder, "frozen": content}

row = "an agent that is no agent name"
case(row, "agent=3.5", lambda f: place(f, 3.5), TypeError, "agent must be an agent name such as 'alphabeta:3'",
     "a callable (game, state) -> action (got float)", exact=True, **ON_LADDER)  # fmt: skip
case(row, "agent='wizard'", lambda f: place(f, "wizard"), ValueError, "unknown agent 'wizard'", **ON_LADDER)
case(row, "mancala-envs ladder wizard", lambda f: main(["ladder", "wizard", "--game", "kalah", "--ladder",
     str(f / "ladder.json"), *TINY_OPTIONS]), EXIT_2, "mancala-envs: error: unknown agent 'wizard'",
     **ON_LADDER)  # fmt: skip

case("a callable agent that returns no legal action", "returns 9",
     lambda f: place(f, CallableAgent(lambda game, state: 9, name="nine")), ValueError,
     "the agent 'nine' returned 9, which is not a legal action of the position (legal: [",
     "return one of game.legal_actions(state).", **ON_LADDER)  # fmt: skip

row = "`games_per_anchor` (`--games`) below 1"
case(row, "games_per_anchor=0", lambda f: place(f, games_per_anchor=0), ValueError,
     "games_per_anchor must be an integer >= 1 (got 0).", **ON_LADDER)  # fmt: skip
case(row, "games_per_anchor=500000 x 2 anchors", lambda f: place(f, games_per_anchor=500_001), ValueError,
     "a placement plays at most 1000000 games (MAX_GAMES); 2 anchor(s) x 500001 games per anchor is 1000002.",
     "Play fewer games per anchor (--games).", **ON_LADDER)  # fmt: skip
case(row, "mancala-envs ladder greedy --games 0", lambda f: main(["ladder", "greedy", "--game", "kalah", "--games",
     "0", "--ladder", str(f / "ladder.json"), *TINY_OPTIONS]), EXIT_2, "argument --games: invalid value '0'",
     **ON_LADDER)  # fmt: skip

case("an agent object (an `Agent`, a callable) with `workers` above 1", "a callable with workers=2",
     lambda f: place(f, lambda game, state: 0, workers=2), ValueError,
     "an agent object plays in this process only: pass workers=1 (got 2)", **ON_LADDER)  # fmt: skip

row = "a ladder file that is not JSON"
FILE = {"subject": ladder_folder}


def not_json(folder: Path) -> Any:
    (folder / "ladder.json").write_text("{oops", encoding="utf-8")
    return place(folder)


case(row, "not JSON", not_json, ValueError, "ladder.json is not a ladder file (", "pass a file this library wrote",
     **FILE)  # fmt: skip
case(row, "random rated 5", lambda f: forge(f, anchors=[{"name": "random", "elo": 5.0, "low": 0.0, "high": 10.0},
     {"name": "greedy", "elo": 100.0, "low": 20.0, "high": 180.0}]), ValueError,
     "has 'random' rated 5.0, not 0 with interval [0, 0]", REBUILD, **FILE)  # fmt: skip
case(row, "another version", lambda f: forge(f, version=2), ValueError,
     "is not a ladder of format 'mancala-envs-ladder' version 1 (it says 'mancala-envs-ladder' version 2)",
     **FILE)  # fmt: skip
case(row, "counts that are not the games", lambda f: forge(f, games_per_pair=9), ValueError,
     "has 'random' against 'greedy' at (2, 1, 5) wins, draws and losses, which are not 9 games", REBUILD,
     **FILE)  # fmt: skip

row = "a ladder of another game or config"
case(row, "a Kalah ladder for Ouril", lambda f: place_agent("greedy", "ouril", ladder=str(f / "ladder.json")),
     ValueError, "rates kalah_v0 with", "not ouril_v0 with",
     "build a ladder of this game and config (`mancala-envs ladder --build --game ouril", **ON_LADDER)  # fmt: skip
case(row, "no shipped ladder for the variant", lambda f: place_agent("greedy", "kalah", **TINY), ValueError,
     "the shipped kalah ladder rates kalah_v0 as registered, and kalah_v0 here differs in",
     "build a ladder of this config elsewhere (`mancala-envs ladder --build --game kalah --option "
     "pits_per_row=VALUE")  # fmt: skip

case("`build_ladder` anchors (`--anchors`) without `random`", "anchors=['greedy', 'alphabeta:2']",
     lambda f: build_ladder("kalah", ["greedy", "alphabeta:2"], games_per_pair=2, workers=1, **TINY), ValueError,
     "a ladder is pinned to 'random' = 0: put 'random' among the anchors (got ['greedy', 'alphabeta:2']).")  # fmt: skip

row = "`mancala-envs ladder --build` with an agent"
case(row, "--build with an agent", lambda f: main(["ladder", "greedy", "--build", "--game", "kalah", "--out",
     str(f / "new.json")]), EXIT_2, "mancala-envs: error: --build rebuilds the ladder and places no agent: leave out "
     "AGENT", **ON_LADDER)  # fmt: skip
case(row, "--out without --build", lambda f: main(["ladder", "greedy", "--game", "kalah", "--out",
     str(f / "new.json")]), EXIT_2, "mancala-envs: error: --out goes with --build", **ON_LADDER)  # fmt: skip
case(row, "--build of a variant without --out", lambda f: main(["ladder", "--build", "--game", "kalah",
     *TINY_OPTIONS]), EXIT_2, "the shipped kalah ladder rates kalah_v0 as registered, and kalah_v0 here differs in",
     "place agents on it with --ladder PATH", **ON_LADDER)  # fmt: skip
