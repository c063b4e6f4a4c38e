"""docs/contract.md as one table of cases (issue "Untrusted files", item 6).

Every row of the contract's "Bad input" tables, every bullet of its position-notation list and the
prose rules between them have at least one :class:`Case` in :data:`CASES`: the door (the entry point),
the contract row it covers, a callable that makes the bad call on a freshly built subject, the
expected exception and the words its message must contain. One test runs them all:

- the call raises the documented exception (a subclass where the contract names a base class; the
  exact class where a narrower one would be wrong, such as ``ValueError`` but not
  ``IllegalActionError`` for an action out of range), whose message holds every word;
- whatever the subject holds (an env's ``state_dict()``, position and infos, a single-agent env's
  snapshot and opponent, a batch's state arrays, a folder's files) is equal before and after;
- on the command line, ``main(argv)`` returns 2 and prints exactly one line ``mancala-envs...: error:
  ...`` on stderr, without a traceback.

:func:`test_every_contract_row_has_a_case` parses docs/contract.md, so a new row or bullet without a
case fails; :func:`test_every_case_cites_the_contract` checks the other way, that each case cites a row
or a phrase that the contract holds. A case whose behaviour contradicts the contract is marked
``xfail(strict=True)`` with the reason.

The subjects are small games (Kalah, Modiar) except where a row is about a game (Ouril's repetition
memory, Omweso's flags, Rio Kadalis's match flags).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

import mancala_envs
from mancala_envs import GameOverError, IllegalActionError, MancalaEnv, SingleAgentEnv, make_from_config
from mancala_envs.agents import GreedyAgent, RandomAgent, make_agent
from mancala_envs.algorithms import retrograde
from mancala_envs.cli import main, play_demo
from mancala_envs.engine.state import (
    BOARD,
    END_ILLEGAL_ACTION,
    END_REASON,
    HISTORY_LEN,
    LAST_ACTION,
    LEGAL,
    MATCH,
    PLAYER,
    PLY,
    TURN,
    WINNER,
)
from mancala_envs.envs import kalah_v0, ouril_v0, urim_v0
from mancala_envs.envs.batch import BatchedGames
from mancala_envs.envs.records import RECORD_FORMAT, GameRecord, replay, write_animation
from mancala_envs.games.omweso import omweso_rules as omweso
from mancala_envs.rendering import BoardPicture
from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv
from mancala_envs.views.vector_env import MancalaVectorEnv
from mancala_envs.wrappers import FlattenObservation, GymFlattenObservation, apply_wrappers

from support.actions import mid_game
from support.contract import EXIT_2, Case, Row, door_cases, plain

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "contract.md"
AGENTS = ("player_0", "player_1")
KALAH_OPENING = "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"

# --- the contract's sections (a phrase of each heading) -------------------------------------------------------------
MAKE = "Building an environment"
RESET = "`reset(seed=None, options=None)`"
STEP = "`step(action)`"
BEFORE_RESET = "before the first `reset()`"
BATCH = "Batched games and vector envs"
SNAPSHOT = "`load_state_dict(snapshot)`"
WRAPPER = "`mancala_envs.wrappers.FlattenObservation"
SINGLE = "The single-agent view"
CONFIG = "Experiment configs"
TRAINING = "Training:"
SELF_PLAY = "Self-play:"
AGENT = "Agents:"
RECORDS = "Game records"
TABLES = "Perfect-play tables"
CLI = "The command line"


# --- subjects and what must not change ------------------------------------------------------------------------------
def fresh(env_id: str = "kalah_v0", **options: Any) -> MancalaEnv:
    """An env that was never reset."""
    return mancala_envs.make(env_id, **options)


def kalah_pit_2_emptied(**options: Any) -> MancalaEnv:
    """Kalah after player 0 sowed pit 2 into its store: player 0 moves again and action 2 is illegal."""
    env = mancala_envs.make("kalah_v0", first_player=0, **options)
    env.reset(seed=0)
    env.step(2)
    assert env.agent_selection == "player_0" and not env.observe("player_0")["action_mask"][2]
    return env


def ended_by_penalty(steps_after: int) -> MancalaEnv:
    """Kalah ended by an illegal action under the default policy, then ``steps_after`` ``step(None)``."""
    env = kalah_pit_2_emptied()
    with pytest.warns(UserWarning):
        env.step(2)
    for _ in range(steps_after):
        env.step(None)
    return env


def env_frozen(env: Any) -> Any:
    """What a rejected call leaves as it was: snapshot (state, generator, agents, tallies, last move),
    position and infos (docs/contract.md, "Nothing half-applied")."""
    raw = env.unwrapped
    if not raw.has_reset:
        return {"has_reset": False}
    return {"snapshot": raw.state_dict(), "position": raw.position(), "infos": plain(copy.deepcopy(raw.infos))}


def single(env_id: str = "kalah_v0", reset: bool = True, **kwargs: Any) -> SingleAgentEnv:
    kwargs.setdefault("learner_seat", 0)
    kwargs.setdefault("first_player", 0)
    env = SingleAgentEnv(env_id, **kwargs)
    if reset:
        env.reset(seed=3)
    return env


def single_frozen(env: SingleAgentEnv) -> Any:
    """The single-agent env's state: its AEC env's snapshot, the seat, the episode flag, the opponent and
    the generator (read without creating one)."""
    return {
        "aec": env_frozen(env.aec_env),
        "seat": env.seat,
        "over": env.episode_over,
        "has_reset": env.has_reset,
        "opponent spec": env.opponent_spec,
        "opponents": id(env.opponents),
        "rng": env.generator_state,  # None while the env has no generator (np_random would create one)
    }


def batch(reset: bool = True, steps: int = 0) -> BatchedGames:
    """Four Kalah games, player 0 first; ``steps`` times action 2 (sown into the store: player 0 again)."""
    games = BatchedGames("kalah_v0", 4, first_player=0)
    if reset:
        games.reset(seed=0)
    for _ in range(steps):
        games.step(np.full(4, 2))
    return games


def batch_frozen(games: BatchedGames) -> Any:
    return plain(
        {
            "states": games.states,
            "words": games.generator_words,
            "spilled": games.spill_slots,
            "has_reset": games.has_reset,
        }
    )


def vector(reset: bool = True, steps: int = 0) -> MancalaVectorEnv:
    """Four Kalah games against the random opponent, the learner in seat 0 and first."""
    env = MancalaVectorEnv("kalah_v0", num_envs=4, learner_seat=0, first_player=0)
    if reset:
        env.reset(seed=0)
    for _ in range(steps):
        env.step(np.full(4, 2))
    return env


def vector_frozen(env: MancalaVectorEnv) -> Any:
    rows = env.games
    return plain(
        {
            "states": rows.states,
            "words": rows.generator_words,
            "waiting": env.waiting_for_reset,
            "seats": env.learner_seats,
            "mask": env.action_masks(),
            "has_reset": env.has_reset,
        }
    )


def folder() -> Path:
    """A new empty folder with a good Kalah record in it (``game.json``)."""
    path = Path(tempfile.mkdtemp(prefix="contract-matrix-"))
    (path / "game.json").write_text(json.dumps(record_data()), encoding="utf-8")
    return path


def files(path: Path) -> list[str]:
    return sorted(str(item.relative_to(path)) for item in path.rglob("*"))


# --- small builders of bad values -----------------------------------------------------------------------------------
def record_data(**changes: Any) -> dict[str, Any]:
    """A good Kalah record (one move) with ``changes``."""
    data = {
        "format": RECORD_FORMAT,
        "env": "kalah_v0",
        "options": {},
        "start": KALAH_OPENING,
        "moves": [{"player": 0, "action": 2}],
    }
    data.update(changes)
    return data


def spoiled(env: MancalaEnv, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """The env's own snapshot, changed in place by ``change``."""
    snapshot = copy.deepcopy(env.state_dict())
    change(snapshot)
    return snapshot


def with_state(**slots: int) -> Callable[[dict[str, Any]], None]:
    """A snapshot change: header slots (by index) set to values; ``s<index>=value``."""

    def change(snapshot: dict[str, Any]) -> None:
        for name, value in slots.items():
            snapshot["state"][int(name[1:])] = value

    return change


def load(change: Callable[[dict[str, Any]], Any]) -> Callable[[MancalaEnv], Any]:
    """The call: load the env's own snapshot spoiled (in place) by ``change``."""
    return lambda env: env.load_state_dict(spoiled(env, change))


def load_instead(make_bad: Callable[[dict[str, Any]], Any]) -> Callable[[MancalaEnv], Any]:
    """The call: load what ``make_bad`` makes of the env's own snapshot."""
    return lambda env: env.load_state_dict(make_bad(copy.deepcopy(env.state_dict())))


def update(**entries: Any) -> Callable[[dict[str, Any]], None]:
    return lambda snapshot: snapshot.update(copy.deepcopy(entries))


def rng_change(**entries: Any) -> Callable[[dict[str, Any]], None]:
    def change(snapshot: dict[str, Any]) -> None:
        for key, value in entries.items():
            if key in ("state", "inc"):
                snapshot["rng"]["state"][key] = value
            else:
                snapshot["rng"][key] = value

    return change


def position(text: str) -> Callable[[Any], Any]:
    return lambda env: env.reset(options={"position": text})


def options(**entries: Any) -> Callable[[Any], Any]:
    return lambda env: env.reset(options=entries)


def kalah_board(**changes: int) -> list[int]:
    board = [4] * 12
    for name, value in changes.items():
        board[int(name[1:])] = value
    return board


class NotDictObservations(AECEnv):
    """An AEC env whose observations are a Box, not a Dict with an ``observation`` entry."""

    metadata: ClassVar[dict[str, Any]] = {"name": "box_v0"}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["player_0"]

    def observation_space(self, agent: str) -> spaces.Space:
        return spaces.Box(0, 1, (3,), np.float32)

    def action_space(self, agent: str) -> spaces.Space:
        return spaces.Discrete(2)


class AParallelEnv(ParallelEnv):
    def __init__(self) -> None:
        self.possible_agents = ["player_0"]


# --- the cases, door by door ---------------------------------------------------------------------------------------
CASES: list[Case] = []


def case(
    door: str, section: str, item: str, name: str, call: Callable[[Any], Any], error: Any, *words: str, **more: Any
) -> None:
    CASES.append(Case(door, Row(section, item), name, call, error, words, **more))


def on_env(build: Callable[[], Any] = mid_game) -> dict[str, Any]:
    return {"subject": build, "frozen": env_frozen}


IDS_WORDS = ("'ouril_v0'", "'mancala/kalah-empty-capture-v0'", "'mancala/omweso-placement-v0'")

# mancala_envs.make, <game>_v0.env, the config classes
door = "make"
row = "an env id that is not registered"
case(door, MAKE, row, "make('chess_v0')", lambda _: mancala_envs.make("chess_v0"), ValueError, "'chess_v0'", *IDS_WORDS)
case(door, MAKE, row, "make('')", lambda _: mancala_envs.make(""), ValueError, "''", *IDS_WORDS)
case(
    door, MAKE, row, "make('ouril')", lambda _: mancala_envs.make("mancala/ouril-v9"), ValueError, "'mancala/ouril-v9'"
)
row = "an env id that is not a string"
for bad in (0, None, ("kalah_v0",)):
    case(
        door,
        MAKE,
        row,
        f"make({bad!r})",
        lambda _, bad=bad: mancala_envs.make(bad),
        TypeError,
        "env id must be a string such as 'ouril_v0'",
    )
row = 'a game option with a bad value (`pits_per_row=5`, `win_threshold="25"`)'
for build, where in (
    (mancala_envs.make, "make"),
    (lambda _, **kw: ouril_v0.env(**kw), "ouril_v0.env"),
    (lambda _, **kw: ouril_v0.OurilConfig(**kw), "OurilConfig"),
):
    for option, value, allowed in (
        ("pits_per_row", 5, "use one of [6, 4]"),
        ("win_threshold", 49, ">= 1 and <= 48"),
        ("win_threshold", "25", "must be an integer"),
        ("repetition", 1, "True or False"),
    ):
        case(
            door,
            MAKE,
            row,
            f"{where} {option}={value!r}",
            lambda _, build=build, option=option, value=value: build("ouril_v0", **{option: value}),
            ValueError,
            option,
            repr(value),
            allowed,
        )
case(
    door,
    MAKE,
    row,
    "kalah seeds_per_pit=0",
    lambda _: mancala_envs.make("kalah_v0", seeds_per_pit=0),
    ValueError,
    "seeds_per_pit",
    "0",
)
case(
    door,
    MAKE,
    row,
    "KalahConfig pits_per_row=2.0",
    lambda _: kalah_v0.env(pits_per_row=2.0),
    ValueError,
    "pits_per_row",
    "2.0",
)
row = "an option the game does not have"
case(
    door,
    MAKE,
    row,
    "make pits_per_rows",
    lambda _: mancala_envs.make("kalah_v0", pits_per_rows=6),
    TypeError,
    "'pits_per_rows'",
    "seeds_per_pit",
    "empty_capture",
    "max_plies",
)
case(door, MAKE, row, "ouril_v0.env colour", lambda _: ouril_v0.env(colour="red"), TypeError, "'colour'", "grand_slam")
row = "`config=` of another game's class"
case(
    door,
    MAKE,
    row,
    "ouril_v0.env(config=UrimConfig())",
    lambda _: ouril_v0.env(config=urim_v0.UrimConfig()),
    TypeError,
    "config must be a OurilConfig (got UrimConfig)",
)
case(
    door,
    MAKE,
    row,
    "make(kalah, config=OurilConfig())",
    lambda _: mancala_envs.make("kalah_v0", config=ouril_v0.OurilConfig()),
    TypeError,
    "config must be a KalahConfig",
)
row = "`render_mode`, `first_player`, `illegal_action`, `reward_mode`, `infos` not allowed"
for option, value, allowed in (
    ("render_mode", "rgb", "'rgb_array'"),
    ("first_player", 2, "[0, 1, None]"),
    ("first_player", True, "[0, 1, None]"),
    ("illegal_action", "ignore", "['penalty', 'raise']"),
    ("reward_mode", "points", "['win_loss', 'match_points']"),
    ("infos", "numpy", "['lean', 'full']"),
):
    case(
        door,
        MAKE,
        row,
        f"{option}={value!r}",
        lambda _, o=option, v=value: mancala_envs.make("kalah_v0", **{o: v}),
        ValueError,
        option,
        repr(value),
        allowed,
    )
row = "A count-set option"
for value in ({2: 1}, {2, 3}, "23", b"23", (n for n in (2, 3))):
    case(
        door,
        MAKE,
        row,
        f"urim trigger={type(value).__name__}",
        lambda _, v=value: mancala_envs.make("urim_v0", trigger=v),
        ValueError,
        "trigger",
        "must be a list of seed counts such as [2, 3]",
    )
for value in ([True, False], (), (0,), [2.0]):
    case(
        door,
        MAKE,
        row,
        f"urim trigger={value!r}",
        lambda _, v=value: mancala_envs.make("urim_v0", trigger=v),
        ValueError,
        "trigger",
        "must be a non-empty list of seed counts between 1 and 62",
    )
case(
    door,
    MAKE,
    row,
    "UrimConfig chain=(2, 63)",
    lambda _: urim_v0.UrimConfig(chain=(2, 63)),
    ValueError,
    "chain",
    "between 1 and 62",
)
row = "`render()` before `reset()` raises `RuntimeError`"
case(
    door,
    MAKE,
    row,
    "render before reset",
    lambda env: env.render(),
    RuntimeError,
    "render() was called before reset()",
    "call env.reset() first",
    subject=lambda: fresh(render_mode="ansi"),
    frozen=env_frozen,
)
case(
    door,
    MAKE,
    "without a `render_mode` it warns and returns `None`",
    "render without a render_mode",
    lambda env: env.render(),
    UserWarning,
    "render_mode",
    **on_env(),
)
row = "`BoardPicture(game, cell)`"
for value in (47, 88.0, True, "88"):
    case(
        door,
        MAKE,
        row,
        f"BoardPicture cell={value!r}",
        lambda _, v=value: BoardPicture(fresh().game, cell=v),
        ValueError,
        "cell must be an int >= 48 pixels",
        repr(value),
    )

# reset(seed=None, options=None)
door = "reset"
case(
    door,
    RESET,
    "`options` that is not a dict",
    "options=[('board', ...)]",
    lambda env: env.reset(options=[("board", [4] * 12)]),
    TypeError,
    "options must be a dict or None",
    **on_env(),
)
case(
    door,
    RESET,
    "`options` that is not a dict",
    "options='position'",
    lambda env: env.reset(options=KALAH_OPENING),
    TypeError,
    "options must be a dict or None (got str)",
    **on_env(),
)
case(
    door,
    RESET,
    'both `"position"` and `"board"` in `options`',
    "position and board",
    options(position=KALAH_OPENING, board=[4] * 12),
    ValueError,
    "both 'position' and 'board'",
    "give one of them",
    **on_env(),
)
case(
    door,
    RESET,
    "a malformed position (see below)",
    "player 2",
    position("4,4,4,4,4,4/4,4,4,4,4,4 0,0 2"),
    ValueError,
    "position player '2' must be 0 or 1",
    **on_env(),
)
case(
    door,
    RESET,
    "a malformed position (see below)",
    "player 2 with a seed",
    lambda env: env.reset(seed=5, options={"position": "4,4,4,4,4,4/4,4,4,4,4,4 0,0 2"}),
    ValueError,
    "position player '2'",
    **on_env(),
)
row = 'a seed that is not an int (`"7"`, `1.5`, `True`)'
for value, shown in (
    ("7", "got str '7'"),
    (1.5, "got float 1.5"),
    (True, "got bool True"),
    (np.float64(2.0), "float64"),
):
    case(
        door,
        RESET,
        row,
        f"seed={value!r}",
        lambda env, v=value: env.reset(seed=v),
        TypeError,
        "seed must be None or an integer >= 0",
        shown,
        **on_env(),
    )
case(
    door,
    RESET,
    "a negative seed",
    "seed=-1",
    lambda env: env.reset(seed=-1),
    ValueError,
    "seed must be None or an integer >= 0 (got -1)",
    **on_env(),
)
case(
    door,
    RESET,
    "a negative seed",
    "seed=np.int64(-3)",
    lambda env: env.reset(seed=np.int64(-3)),
    ValueError,
    "(got -3)",
    **on_env(),
)

# the position notation: every bullet
door = "position"
FORM = "'<6 pits>/<6 pits> <store>,<store> <player> [key=value ...]'"
row = "not a string"
for value in (KALAH_OPENING.split(), 42, None, KALAH_OPENING.encode()):
    case(
        door,
        RESET,
        row,
        f"position {type(value).__name__}",
        options(position=value),
        ValueError,
        "must be a string in the form",
        FORM,
        **on_env(),
    )
row = "whitespace other than the space between fields"
for where, text, shown in (
    ("a tab", KALAH_OPENING.replace(" ", "\t", 1), r"(found '\t')"),
    ("a trailing newline", KALAH_OPENING + "\n", r"(found '\n')"),
    ("a newline", KALAH_OPENING.replace(" 0,0", "\n0,0"), r"(found '\n')"),
    ("a non-breaking space", KALAH_OPENING.replace(" ", "\u00a0", 1), r"(found '\xa0')"),
):
    case(
        door,
        RESET,
        row,
        f"position with {where}",
        position(text),
        ValueError,
        "must separate its fields with spaces only",
        shown,
        **on_env(),
    )
case(
    door,
    RESET,
    row,
    "runs of spaces are accepted",
    lambda env: (env.reset(options={"position": KALAH_OPENING.replace(" ", "   ")}), env.position() == KALAH_OPENING),
    None,
    subject=mid_game,
)
row = "fewer than three fields"
for text, count in (("", 0), ("4,4,4,4,4,4/4,4,4,4,4,4", 1), ("4,4,4,4,4,4/4,4,4,4,4,4 0,0", 2)):
    case(
        door,
        RESET,
        row,
        f"{count} fields",
        position(text),
        ValueError,
        f"has {count} fields; write it as",
        FORM,
        **on_env(),
    )
row = "a board that is not two halves around one `/`"
for text in ("4,4,4,4,4,4,4,4,4,4,4,4 0,0 0", "4,4,4,4,4,4/4,4,4/4,4,4 0,0 0"):
    case(door, RESET, row, f"board {text.split()[0]}", position(text), ValueError, "two halves", "'/'", **on_env())
row = "a pit or store that is not a whole number written with the ASCII digits `0`-`9` alone"
DIGITS_ONLY = "must be comma-separated non-negative whole numbers (digits 0-9 only)"
for pit in ("+4", "-1", "4.0", "4_0", "\u0664", "\uff14", "\u00b9", "x", ""):
    case(
        door,
        RESET,
        row,
        f"pit {pit!r}",
        position(f"{pit},4,4,4,4,4/4,4,4,4,4,4 0,0 0"),
        ValueError,
        "board",
        DIGITS_ONLY,
        **on_env(),
    )
for store in ("+0", "\u0660", "0.0"):
    case(
        door,
        RESET,
        row,
        f"store {store!r}",
        position(f"4,4,4,4,4,4/4,4,4,4,4,4 {store},0 0"),
        ValueError,
        "stores",
        DIGITS_ONLY,
        **on_env(),
    )
row = "a half with the wrong number of pits"
case(
    door,
    RESET,
    row,
    "first half of 5",
    position("4,4,4,4,4/4,4,4,4,4,4,4 0,0 0"),
    ValueError,
    "the first half '4,4,4,4,4' must hold 6 counts (5 given)",
    **on_env(),
)
case(
    door,
    RESET,
    row,
    "second half of 7",
    position("4,4,4,4,4,4/4,4,4,4,4,4,0 0,0 0"),
    ValueError,
    "second half",
    "must hold 6 counts (7 given)",
    **on_env(),
)
for stores in ("0", "0,0,0"):
    case(
        door,
        RESET,
        row,
        f"stores {stores}",
        position(f"4,4,4,4,4,4/4,4,4,4,4,4 {stores} 0"),
        ValueError,
        "stores",
        "2 entries",
        **on_env(),
    )
row = "a negative store, a player other than `0` or `1`"
case(
    door,
    RESET,
    row,
    "player 2",
    position("4,4,4,4,4,4/4,4,4,4,4,4 0,0 2"),
    ValueError,
    "position player '2' must be 0 or 1",
    **on_env(),
)
case(
    door, RESET, row, "player -1", position("4,4,4,4,4,4/4,4,4,4,4,4 0,0 -1"), ValueError, "player", "'-1'", **on_env()
)
case(
    door,
    RESET,
    row,
    "negative store",
    position("5,4,4,4,4,4/4,4,4,4,4,4 -1,0 0"),
    ValueError,
    "stores",
    "non-negative",
    **on_env(),
)
row = "a seed total that differs from the config's"
case(
    door,
    RESET,
    row,
    "49 seeds",
    position("5,4,4,4,4,4/4,4,4,4,4,4 0,0 0"),
    ValueError,
    "the position holds 49 seeds but this config has 48",
    **on_env(),
)
case(
    door,
    RESET,
    row,
    "47 seeds in Modiar",
    position("7,7,7/7,7,7 0,1 0 first_move_done=0"),
    ValueError,
    "43 seeds",
    "42",
    **on_env(lambda: mid_game("modiar_v0")),
)
row = "a flag that is not `key=value` with a key of this game"
case(
    door,
    RESET,
    row,
    "Kalah flag",
    position(KALAH_OPENING + " colour=red"),
    ValueError,
    "'colour=red'",
    "none",
    **on_env(),
)
case(
    door,
    RESET,
    row,
    "Modiar unknown flag",
    position("7,7,7/7,7,7 0,0 0 colour=red"),
    ValueError,
    "'colour=red'",
    "first_move_done",
    **on_env(lambda: mid_game("modiar_v0")),
)
case(
    door,
    RESET,
    row,
    "flag without a value",
    position("7,7,7/7,7,7 0,0 0 first_move_done"),
    ValueError,
    "'first_move_done'",
    "key=value",
    **on_env(lambda: mid_game("modiar_v0")),
)
case(
    door,
    RESET,
    row,
    "flag given twice",
    position("7,7,7/7,7,7 0,0 0 first_move_done=0 first_move_done=0"),
    ValueError,
    "'first_move_done'",
    "twice",
    **on_env(lambda: mid_game("modiar_v0")),
)
case(
    door,
    RESET,
    row,
    "first_move_done='2'",
    position("7,7,7/7,7,7 0,0 0 first_move_done=2"),
    ValueError,
    "position flag first_move_done='2' must be 0 or 1",
    **on_env(lambda: mid_game("modiar_v0")),
)
OMWESO_CORE = (
    "0,1,0,0,1,0,0,0,1,1,1,3,0,1,1,1/3,2,0,3,4,3,0,3,2,9,9,3,3,5,1,3 0,21 1 "
    "turn=14 first_capture_done=1 capturing_turns=0,1"
)
OMWESO_RELAY = OMWESO_CORE + " pending=relay:15:6 turn_captures=1 laps=4"
on_omweso = on_env(lambda: mid_game("mancala/omweso-v0", plies=2))
for value, shown in (
    ("+3", "position flag turn='+3' must be a whole number"),
    ("3.0", "turn='3.0'"),
    ("\u0663", "must be a whole number"),
):
    case(
        door,
        RESET,
        row,
        f"Omweso turn={value!r}",
        position(OMWESO_CORE.replace("turn=14", f"turn={value}")),
        ValueError,
        shown,
        **on_omweso,
    )
for value in ("relay:15", "sow:15:6", "relay:+15:6", "resow:\u0661:7"):
    case(
        door,
        RESET,
        row,
        f"Omweso pending={value!r}",
        position(OMWESO_CORE + f" pending={value}"),
        ValueError,
        "pending",
        **on_omweso,
    )
row = "a combination of flags that no game reaches"
OMWESO_COMBINATIONS = {
    "pending not a decision point": (OMWESO_RELAY.replace("relay:15:6", "relay:3:6"), ("not a decision point",)),
    "phase=placement without the setup": (OMWESO_CORE + " phase=placement", ("phase='placement'", "setup='placement'")),
    "turn_captures without pending": (OMWESO_CORE + " turn_captures=1", ("turn_captures", "only with pending")),
    "laps without pending": (OMWESO_CORE + " laps=3", ("laps", "only with pending")),
    "laps=0": (OMWESO_RELAY.replace("laps=4", "laps=0"), ("laps=0", "out of range")),
    "laps at the cap": (OMWESO_RELAY.replace("laps=4", "laps=1000000"), ("laps=1000000", "out of range")),
    "turn=max_turns": (OMWESO_CORE.replace("turn=14", "turn={max_turns}"), ("turn={max_turns}", "out of range")),
    "turn=-1": (OMWESO_CORE.replace("turn=14", "turn=-1"), ("turn=-1", "out of range")),
    "turn_captures bit 8 alone": (OMWESO_RELAY.replace("turn_captures=1", "turn_captures=9"), ("turn_captures=9",)),
    "more capturing turns than turns": (OMWESO_CORE.replace("turn=14", "turn=0"), ("capturing",)),
}
MAX_TURNS = omweso.OmwesoConfig().max_turns
for name, (text, words) in OMWESO_COMBINATIONS.items():
    case(
        door,
        RESET,
        row,
        f"Omweso {name}",
        position(text.format(max_turns=MAX_TURNS)),
        ValueError,
        *(word.format(max_turns=MAX_TURNS) for word in words),
        **on_omweso,
    )
for flag in ("closed=0", "reserves=1,0", "reserves=48,0"):
    case(
        door,
        RESET,
        row,
        f"Rio Kadalis {flag} outside a match",
        position(KALAH_OPENING + f" {flag}"),
        ValueError,
        flag.split("=")[0],
        "match",
        **on_env(lambda: mid_game("rio_kadalis_v0")),
    )

# the structured form
row = "**Structured form**"
for name, value in (
    ("board string", "444444444444"),
    ("board dict", dict(enumerate([4] * 12))),
    ("board set", {4}),
    ("board 2-d array", np.full((2, 6), 4)),
):
    case(
        "reset",
        RESET,
        row,
        name,
        options(board=value),
        ValueError,
        "board",
        "must be a list of 12 seed counts",
        **on_env(),
    )
case(
    "reset",
    RESET,
    row,
    "stores string",
    options(board=[4] * 12, stores="00"),
    ValueError,
    "stores",
    "must be a list",
    **on_env(),
)
for name, value in (
    ("entries strings", ["4"] * 12),
    ("entry bool", [True] + [4] * 11),
    ("entry 4.0", [4.0] * 12),
    ("entry inf", [float("inf")] + [4] * 11),
    ("entry nan", [float("nan")] + [4] * 11),
    ("entry numpy float", [np.float64(4)] * 12),
    ("negative entry", kalah_board(p0=-1, p1=9)),
):
    case(
        "reset",
        RESET,
        row,
        name,
        options(board=value),
        ValueError,
        "board",
        "must hold non-negative whole seed counts",
        **on_env(),
    )
for value in (10**30, 10**400):
    case(
        "reset",
        RESET,
        row,
        f"entry {len(str(value)) - 1} digits",
        options(board=kalah_board(p0=value)),
        ValueError,
        "board holds",
        "seeds in one entry, more than the 48 seeds of this config",
        exact=True,
        **on_env(),
    )
case("reset", RESET, row, "wrong total", options(board=kalah_board(p0=5)), ValueError, "48", **on_env())
case("reset", RESET, row, "player '0'", options(board=[4] * 12, player="0"), ValueError, "player", **on_env())
case(
    "reset",
    RESET,
    row,
    "first_move_done=1",
    options(board=[7] * 6, first_move_done=1),
    ValueError,
    "first_move_done=1 must be True or False",
    **on_env(lambda: mid_game("modiar_v0")),
)
case(
    "reset",
    RESET,
    row,
    "Omweso capturing_turns string",
    options(board=([4] * 8 + [0] * 8) * 2, capturing_turns="00"),
    ValueError,
    "capturing_turns",
    **on_omweso,
)
row = "**Game level.**"
case(
    door,
    RESET,
    row,
    "parse_position('x')",
    lambda env: env.game.parse_position("x"),
    ValueError,
    "has 1 fields",
    **on_env(),
)
case(
    door,
    RESET,
    row,
    "load_position with a flag the game lacks",
    lambda env: env.game.load_position(env.state_array, board=[4] * 12, stores=[0, 0], player=0, colour="red"),
    TypeError,
    "'colour'",
    **on_env(),
)


def load_bad_position(state: np.ndarray) -> None:
    mid_game().game.load_position(state, board=kalah_board(p0=5), stores=[0, 0], player=0)


case(
    door,
    RESET,
    row,
    "load_position leaves the state untouched",
    load_bad_position,
    ValueError,
    "49",
    subject=lambda: mid_game().state_array.copy(),
    frozen=plain,
)

# step(action)
door = "step"
row = 'an action that is not an integer (`1.0`, `"1"`, `True`, `[1]`, a 1-d array, `None` for a live agent)'
for value in (
    1.0,
    "1",
    True,
    np.bool_(False),
    [1],
    np.array([1]),
    np.array([1, 2]),
    None,
    np.float64(1.0),
    np.array(1.0),
):
    case(
        door,
        STEP,
        row,
        f"step({value!r})",
        lambda env, v=value: env.step(v),
        TypeError,
        "not an integer",
        "0..5",
        **on_env(),
    )
row = "an integer outside `0 .. n_actions - 1`"
for value in (-1, 6, 10**9, np.int64(-2), 2**70):
    case(
        door,
        STEP,
        row,
        f"step({value!r})",
        lambda env, v=value: env.step(v),
        ValueError,
        "out of range",
        "0..5",
        "re:Legal now: \\[[0-9, ]+\\]",
        exact=True,
        **on_env(),
    )
row = 'an illegal action, `illegal_action="raise"`'
case(
    door,
    STEP,
    row,
    "step(2) on an empty pit",
    lambda env: env.step(2),
    IllegalActionError,
    "legal actions are",
    "observation['action_mask']",
    "illegal_action='penalty'",
    **on_env(lambda: kalah_pit_2_emptied(illegal_action="raise")),
)


def penalised(env: MancalaEnv) -> None:
    board = env.board
    env.step(2)
    assert np.array_equal(env.board, board) and all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}
    assert [env.infos[agent]["end_reason"] for agent in AGENTS] == [END_ILLEGAL_ACTION] * 2
    assert [env.infos[agent]["winner"] for agent in AGENTS] == [1, 1]
    assert env.facts()["end_reason"] == "illegal_action" and env.facts()["winner"] == 1


case(
    door,
    STEP,
    'an illegal action, `illegal_action="penalty"` (default)',
    "step(2) on an empty pit, penalty",
    penalised,
    UserWarning,
    "illegal action 2 by player_0 (legal: [0, 1, 3, 4, 5]); the game ends and player_0 loses "
    "(illegal_action='penalty')",
    subject=kalah_pit_2_emptied,
)
row = "an action other than `None` for an agent that is done"
for value in (0, 1.5):
    case(
        door,
        STEP,
        row,
        f"step({value!r}) by a done agent",
        lambda env, v=value: env.step(v),
        ValueError,
        "when an agent is dead, the only valid action is None",
        **on_env(lambda: ended_by_penalty(0)),
    )
row = "any action after every agent was removed"
for value in (0, None, "x"):
    case(
        door,
        STEP,
        row,
        f"step({value!r}) after the end",
        lambda env, v=value: env.step(v),
        GameOverError,
        "call reset() to start a new game",
        **on_env(lambda: ended_by_penalty(2)),
    )
row = "Integers of any numpy integer type and 0-d integer arrays are accepted"
case(
    door,
    STEP,
    row,
    "np.array([1]) through the wrapper",
    lambda env: env.step(np.array([1])),
    TypeError,
    "0..5",
    **on_env(lambda: FlattenObservation(mid_game())),
)
case(
    door,
    STEP,
    row,
    "np.array([1]) through the single-agent view",
    lambda env: env.step(np.array([1])),
    TypeError,
    "0..5",
    subject=single,
    frozen=single_frozen,
)


def accepts_integer_forms(env: MancalaEnv) -> None:
    reference = mid_game()
    action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    reference.step(action)
    env.step(np.array(action, dtype=np.uint16))
    assert env.state_dict() == reference.state_dict()


case(door, STEP, row, "0-d uint16 array accepted", accepts_integer_forms, None, subject=mid_game)

# calls before the first reset
door = "before reset"
row = "was called before reset(); call env.reset() first."
for name, call in (
    ("position", lambda env: env.position()),
    ("state_dict", lambda env: env.state_dict()),
    ("observe", lambda env: env.observe("player_0")),
    ("render", lambda env: env.render()),
    ("step", lambda env: env.step(0)),
    ("step(None)", lambda env: env.step(None)),
    ("last", lambda env: env.last()),
):
    case(
        door,
        BEFORE_RESET,
        row,
        f"{name}() before reset",
        call,
        RuntimeError,
        f"{name.split('(')[0]}() was called before reset(); call env.reset() first.",
        subject=lambda: fresh(render_mode="ansi"),
        frozen=env_frozen,
    )
case(
    door,
    BEFORE_RESET,
    row,
    "wrapped step before reset",
    lambda env: env.step(0),
    RuntimeError,
    "call env.reset() first",
    subject=lambda: FlattenObservation(fresh()),
    frozen=env_frozen,
)

# batched games and vector envs
door = "batch"
row = "`step` before `reset`"
case(
    door,
    BATCH,
    row,
    "BatchedGames.step before reset",
    lambda games: games.step(np.zeros(4, np.int64)),
    RuntimeError,
    "call reset() first",
    subject=lambda: batch(reset=False),
    frozen=batch_frozen,
)
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv.step before reset",
    lambda env: env.step(np.zeros(4, np.int64)),
    RuntimeError,
    "call reset() first",
    subject=lambda: vector(reset=False),
    frozen=vector_frozen,
)
on_batch = {"subject": batch, "frozen": batch_frozen}
on_vector = {"subject": vector, "frozen": vector_frozen}
row = "actions of the wrong shape"
for value, shape in (
    (np.zeros(3, np.int64), "(3,)"),
    (np.zeros((4, 1), np.int64), "(4, 1)"),
    (0, "()"),
    ([[0, 0], [0, 0]], "(2, 2)"),
):
    case(
        door,
        BATCH,
        row,
        f"BatchedGames actions of shape {shape}",
        lambda games, v=value: games.step(v),
        ValueError,
        "shape (4,), one per game",
        f"got {shape}",
        **on_batch,
    )
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv actions of shape (5,)",
    lambda env: env.step(np.zeros(5, np.int64)),
    ValueError,
    "shape (4,)",
    "got (5,)",
    **on_vector,
)
row = "actions that are not integers (floats, bools, strings)"
for value, dtype in (
    (np.zeros(4), "float64"),
    (np.zeros(4, bool), "bool"),
    (np.array(["0"] * 4), "<U1"),
    ([0.0] * 4, "float64"),
):
    case(
        door,
        BATCH,
        row,
        f"BatchedGames actions {value!r}",
        lambda games, v=value: games.step(v),
        TypeError,
        f"dtype {dtype}",
        "np.zeros(4, dtype=np.int64)",
        **on_batch,
    )
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv float actions",
    lambda env: env.step(np.zeros(4)),
    TypeError,
    "dtype float64",
    **on_vector,
)
row = "an action outside `0 .. n_actions - 1`"
case(
    door,
    BATCH,
    row,
    "BatchedGames action 6",
    lambda games: games.step(np.array([0, 6, 0, -1])),
    ValueError,
    "out of range in games [1, 3]",
    "0..5",
    exact=True,
    **on_batch,
)
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv action -1",
    lambda env: env.step(np.array([-1, 0, 0, 0])),
    ValueError,
    "out of range in games [0]",
    "0..5",
    exact=True,
    **on_vector,
)
row = "an action its game does not allow now"
case(
    door,
    BATCH,
    row,
    "BatchedGames illegal action",
    lambda games: games.step(np.array([0, 2, 2, 0])),
    IllegalActionError,
    "illegal actions in games [1, 2]",
    "game 1 got 2, its legal actions are [0, 1, 3, 4, 5]",
    "action masks",
    subject=lambda: batch(steps=1),
    frozen=batch_frozen,
)
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv illegal action",
    lambda env: env.step(np.array([2, 0, 0, 0])),
    IllegalActionError,
    "illegal actions in games [0]",
    "legal actions are [0, 1, 3, 4, 5]",
    subject=lambda: vector(steps=1),
    frozen=vector_frozen,
)
row = "`n_games`/`num_envs` below 1, `history_capacity` below 3, a bool count"
case(door, BATCH, row, "n_games=0", lambda _: BatchedGames("kalah_v0", 0), ValueError, "n_games", ">= 1", "got 0")
case(door, BATCH, row, "n_games=True", lambda _: BatchedGames("kalah_v0", True), TypeError, "n_games", "bool")
case(door, BATCH, row, "n_games=2.0", lambda _: BatchedGames("kalah_v0", 2.0), TypeError, "n_games", "float")
case(
    door,
    BATCH,
    row,
    "history_capacity=2",
    lambda _: BatchedGames("ouril_v0", 2, history_capacity=2),
    ValueError,
    "history_capacity",
    ">= 3",
)
case(door, BATCH, row, "num_envs=0", lambda _: MancalaVectorEnv("kalah_v0", num_envs=0), ValueError, "num_envs", ">= 1")
case(
    door,
    BATCH,
    row,
    "num_envs=False",
    lambda _: MancalaVectorEnv("kalah_v0", num_envs=False),
    TypeError,
    "num_envs",
    "bool",
)
case(
    door,
    BATCH,
    row,
    "n_envs=0 (SB3 adapter)",
    lambda _: MancalaSB3VecEnv("kalah_v0", n_envs=0),
    ValueError,
    "n_envs",
    ">= 1",
)
row = (
    'an opponent other than `"random"`, `"greedy"`, `"alphabeta:D"` or `"mcts:N"` (or with a number out of '
    "range, or a list holding one, or an empty list), a bad `learner_seat` or `autoreset_mode`"
)
case(
    door,
    BATCH,
    row,
    "opponent=['random', 'wizard']",
    lambda _: MancalaVectorEnv("kalah_v0", 2, opponent=["random", "wizard"]),
    ValueError,
    "'wizard'",
    "SingleAgentEnv",
)
case(
    door,
    BATCH,
    row,
    "opponent=[]",
    lambda _: MancalaVectorEnv("kalah_v0", 2, opponent=[]),
    ValueError,
    "empty list",
    "['random', 'greedy']",
)
case(
    door,
    BATCH,
    row,
    "opponent='wizard'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, opponent="wizard"),
    ValueError,
    "'random', 'greedy', 'alphabeta:D' or 'mcts:N'",
    "'wizard'",
    "SingleAgentEnv",
)
case(
    door,
    BATCH,
    row,
    "opponent='model:m.zip'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, opponent="model:m.zip"),
    ValueError,
    "'alphabeta:D' or 'mcts:N'",
    "SubprocVecEnv",
)
case(
    door,
    BATCH,
    row,
    "opponent='alphabeta:0'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, opponent="alphabeta:0"),
    ValueError,
    "alphabeta depth must be an integer from 1 to 64",
)
case(
    door,
    BATCH,
    row,
    "opponent='mcts:-5'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, opponent="mcts:-5"),
    ValueError,
    "mcts simulations",
)
case(
    door,
    BATCH,
    row,
    "learner_seat=2",
    lambda _: MancalaVectorEnv("kalah_v0", 2, learner_seat=2),
    ValueError,
    "learner_seat must be 0, 1 or None",
)
case(
    door,
    BATCH,
    row,
    "learner_seat=True",
    lambda _: MancalaVectorEnv("kalah_v0", 2, learner_seat=True),
    ValueError,
    "learner_seat",
)
case(
    door,
    BATCH,
    row,
    "autoreset_mode='never'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, autoreset_mode="never"),
    ValueError,
    "autoreset_mode must be one of",
    "'next_step'",
    "'same_step'",
)
row = "game options, ids, `first_player`, `reward_mode`"
case(door, BATCH, row, "BatchedGames('chess')", lambda _: BatchedGames("chess", 2), ValueError, "'chess'", *IDS_WORDS)
case(door, BATCH, row, "BatchedGames(0)", lambda _: BatchedGames(0, 2), TypeError, "env id must be a string")
case(
    door,
    BATCH,
    row,
    "BatchedGames pits_per_row=5",
    lambda _: BatchedGames("ouril_v0", 2, pits_per_row=5),
    ValueError,
    "pits_per_row",
    "use one of [6, 4]",
)
case(
    door, BATCH, row, "BatchedGames colour", lambda _: BatchedGames("kalah_v0", 2, colour="red"), TypeError, "'colour'"
)
case(
    door,
    BATCH,
    row,
    "BatchedGames first_player=2",
    lambda _: BatchedGames("kalah_v0", 2, first_player=2),
    ValueError,
    "first_player",
    "0, 1 or None",
)
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv reward_mode",
    lambda _: MancalaVectorEnv("kalah_v0", 2, reward_mode="x"),
    ValueError,
    "reward_mode",
    "['win_loss', 'match_points']",
)
case(
    door,
    BATCH,
    row,
    "MancalaVectorEnv seeds_per_pit=-1",
    lambda _: MancalaVectorEnv("kalah_v0", 2, seeds_per_pit=-1),
    ValueError,
    "seeds_per_pit",
)
row = "an `encoding` that is not one"
case(
    door,
    BATCH,
    row,
    "encoding='bogus'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, encoding="bogus"),
    ValueError,
    "unknown encoding 'bogus'",
    "['flat', 'one_hot', 'thermometer', 'planes']",
)
case(
    door,
    BATCH,
    row,
    "encoding='stack'",
    lambda _: MancalaVectorEnv("kalah_v0", 2, encoding="stack"),
    ValueError,
    "does not stack",
    "vectorization_mode='sync'",
)
case(
    door,
    BATCH,
    row,
    "encoding without a name",
    lambda _: MancalaVectorEnv("kalah_v0", 2, encoding={"cap": 8}),
    TypeError,
    "has no 'name'",
    "{'name': 'one_hot', 'cap': 8}",
)
case(
    door,
    BATCH,
    row,
    "one_hot cap=0 (SB3 adapter)",
    lambda _: MancalaSB3VecEnv("kalah_v0", 2, encoding={"name": "one_hot", "cap": 0}),
    ValueError,
    "cap=0 is too small",
)
row = "`set_attr` with values that differ between games"
case(
    door,
    BATCH,
    row,
    "set_attr learner_seat per game",
    lambda env: env.set_attr("learner_seat", [0, 1, 0, 1]),
    ValueError,
    "shared by every game of the batch",
    subject=vector,
    frozen=vector_frozen,
)
case(
    door,
    BATCH,
    row,
    "set_attr with 2 values for 4 games",
    lambda env: env.set_attr("learner_seat", [0, 0]),
    ValueError,
    "Got `2` values",
    subject=vector,
    frozen=vector_frozen,
)
case(
    door,
    BATCH,
    row,
    "get_attr of an unknown name",
    lambda env: env.get_attr("seat"),
    AttributeError,
    "has no attribute 'seat'",
    "vectorization_mode='sync'",
    subject=vector,
    frozen=vector_frozen,
)
case(
    door,
    BATCH,
    row,
    "call of an unknown method",
    lambda env: env.call("nothing_here"),
    AttributeError,
    "has no attribute 'nothing_here'",
    subject=vector,
    frozen=vector_frozen,
)
case(
    door,
    BATCH,
    row,
    "set_attr encoding",
    lambda env: env.set_attr("encoding", "flat"),
    AttributeError,
    "cannot be set: the settings of the batch are ['learner_seat', 'opponent']",
    subject=vector,
    frozen=vector_frozen,
)
case(
    door,
    BATCH,
    row,
    "set_attr opponent to a model",
    lambda env: env.set_attr("opponent", "sb3:x.zip"),
    ValueError,
    "opponent must be a compiled agent",
    "vectorization_mode='sync'",
    subject=vector,
    frozen=vector_frozen,
)
row = "take no `illegal_action` or `render_mode`"
for option, value in (("illegal_action", "raise"), ("render_mode", "ansi")):
    case(
        door,
        BATCH,
        row,
        f"BatchedGames {option}",
        lambda _, o=option, v=value: BatchedGames("kalah_v0", 2, **{o: v}),
        TypeError,
        f"batched games take no {option} option",
        "IllegalActionError",
    )
row = "a game that ended on the last step accepts any action in range"


def next_step_accepts_any_action(env: MancalaVectorEnv) -> None:
    for _ in range(500):
        _, _, terminated, truncated, _ = env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
        ended = terminated | truncated
        if ended.any():
            break
    assert ended.any(), "no game ended"
    actions = np.array(
        [0 if done else int(np.flatnonzero(m)[0]) for done, m in zip(ended, env.action_masks(), strict=True)]
    )
    env.step(actions)  # the ended games' actions are ignored


case(
    door, BATCH, row, "next_step: an ended game ignores its action", next_step_accepts_any_action, None, subject=vector
)

# load_state_dict(snapshot)
door = "snapshot"
row = "not a dict (a list, `None`, the JSON text itself)"
for name, make_bad in (
    ("a list", lambda s: [s]),
    ("None", lambda s: None),
    ("JSON text", json.dumps),
    ("a tuple of items", lambda s: tuple(s.items())),
):
    case(
        door,
        SNAPSHOT,
        row,
        name,
        load_instead(make_bad),
        TypeError,
        "snapshot must be the dict state_dict() returned",
        **on_env(),
    )
row = "missing keys or another `format`"
case(
    door,
    SNAPSHOT,
    row,
    "missing rng",
    load(lambda s: s.pop("rng")),
    ValueError,
    "not a mancala-envs snapshot",
    "missing ['rng']",
    **on_env(),
)
case(
    door,
    SNAPSHOT,
    row,
    "empty dict",
    load_instead(lambda s: {}),
    ValueError,
    "not a mancala-envs snapshot",
    "format None",
    **on_env(),
)
case(
    door,
    SNAPSHOT,
    row,
    "other format",
    load(update(format="mancala-envs-snapshot-0")),
    ValueError,
    "not a mancala-envs snapshot",
    "'mancala-envs-snapshot-0'",
    **on_env(),
)
row = "a snapshot of another game"
case(
    door,
    SNAPSHOT,
    row,
    "Modiar snapshot into Kalah",
    lambda env: env.load_state_dict(mid_game("modiar_v0").state_dict()),
    ValueError,
    "the snapshot is of 'modiar_v0', this env is 'kalah_v0'",
    **on_env(),
)
row = "another config of the same game"
case(
    door,
    SNAPSHOT,
    row,
    "max_plies 77",
    lambda env: env.load_state_dict(mid_game("kalah_v0", max_plies=77).state_dict()),
    ValueError,
    "77",
    "differs",
    "build the env with the snapshot's config",
    **on_env(),
)
row = "a state of the wrong length, or not a list"
for name, change in (
    ("too short", lambda s: s["state"].pop()),
    ("too long", lambda s: s["state"].append(0)),
    ("a string", lambda s: s.update(state=",".join(map(str, s["state"])))),
    ("a numpy array", lambda s: s.update(state=np.array(s["state"]))),
    ("None", update(state=None)),
):
    case(
        door, SNAPSHOT, row, f"state {name}", load(change), ValueError, "re:must be a list of \\d+ integers", **on_env()
    )
row = "a state entry that is not an int (float, str, bool, `None`), or beyond 64 bits"
for name, value in (("float", 4.0), ("str", "4"), ("bool", True), ("None", None)):
    case(
        door,
        SNAPSHOT,
        row,
        f"state entry {name}",
        load(with_state(**{f"s{BOARD}": value})),
        ValueError,
        "must hold integers only",
        **on_env(),
    )
case(
    door,
    SNAPSHOT,
    row,
    "state entry 2**70",
    load(with_state(**{f"s{BOARD}": 2**70})),
    ValueError,
    "beyond 64 bits",
    **on_env(),
)
row = "an inconsistent state"


def negative_pit(snapshot: dict[str, Any]) -> None:
    state = snapshot["state"]
    state[BOARD + 1] += state[BOARD] + 1
    state[BOARD] = -1


for name, change, words in (
    ("one seed too many", with_state(**{f"s{BOARD}": 99}), ("seeds", "this config has 48")),
    ("a negative pit", negative_pit, ("negative",)),
    ("legal-move mask off", lambda s: s["state"].__setitem__(LEGAL, s["state"][LEGAL] ^ 1), ("legal-move mask",)),
    ("an end reason while running", with_state(**{f"s{END_REASON}": 1}), ("end",)),
):
    case(door, SNAPSHOT, row, name, load(change), ValueError, *words, **on_env())
case(
    door,
    SNAPSHOT,
    row,
    "Ouril repetition history length off",
    load(with_state(**{f"s{HISTORY_LEN}": 5})),
    ValueError,
    "re:(?i)histor|repetition",
    **on_env(lambda: mid_game("ouril_v0")),
)
row = "a header the game cannot reach (see below)"
for name, change, words in (
    ("PLY above max_plies", with_state(**{f"s{PLY}": 10**6}), ("ply counter slot holds 1000000, out of range",)),
    ("a winner while running", with_state(**{f"s{WINNER}": 0}), ("winner slot holds 0 while the game runs",)),
    ("last action out of range", with_state(**{f"s{LAST_ACTION}": 6}), ("last action slot holds 6",)),
    ("match tallies outside a match", with_state(**{f"s{MATCH}": 3}), ("match points", "single games")),
    ("unused slot 24", with_state(s24=-7), ("slot 24 (free) holds -7; kalah does not use it, so it must be 0",)),
):
    case(door, SNAPSHOT, row, name, load(change), ValueError, *words, **on_env())
case(
    door,
    SNAPSHOT,
    row,
    "Ouril FOURS=-7",
    load(with_state(s24=-7)),
    ValueError,
    "slot 24 (free) holds -7; ouril does not use it, so it must be 0",
    **on_env(lambda: mid_game("ouril_v0")),
)
case(
    door,
    SNAPSHOT,
    row,
    "Omweso TURN above max_turns",
    load(with_state(**{f"s{TURN}": MAX_TURNS + 1})),
    ValueError,
    f"turn counter slot holds {MAX_TURNS + 1}, out of range",
    **on_omweso,
)
row = (
    "a position that `reset(options=...)` refuses, or, for a running game, one that does not load back to the same "
    "state (see below)"
)
case(
    door,
    SNAPSHOT,
    row,
    "Omweso placement phase on another setup",
    load(with_state(**{f"s{omweso.PHASE}": omweso.PHASE_PLACEMENT})),
    ValueError,
    "re:position|PHASE|phase",
    **on_omweso,
)
row = "a random-generator state that numpy's PCG64 cannot hold"
for name, change, words in (
    ("another key", rng_change(extra=1), ()),
    ("another bit generator", update(rng=np.random.MT19937(0).state), ("PCG64",)),
    ("state 2**128", rng_change(state=2**128), ("state",)),
    ("state -1", rng_change(state=-1), ("state",)),
    ("an even inc", rng_change(inc=2), ("inc=2", "odd")),
    ("has_uint32=2", rng_change(has_uint32=2), ("has_uint32",)),
    ("uinteger=2**32", rng_change(uinteger=2**32), ("uinteger",)),
    ("not a dict", update(rng="PCG64"), ()),
):
    case(
        door,
        SNAPSHOT,
        row,
        f"rng {name}",
        load(change),
        ValueError,
        "the snapshot's rng state is malformed",
        *words,
        **on_env(),
    )
row = "`agents` other than a list of live agents, an unknown `agent_selection`"
for name, change, words in (
    ("agents reversed", update(agents=["player_1", "player_0"]), ("agents",)),
    ("agents a tuple", lambda s: s.update(agents=tuple(s["agents"])), ("agents",)),
    ("agent_selection player_2", update(agent_selection="player_2"), ("agent_selection",)),
):
    case(door, SNAPSHOT, row, name, load(change), ValueError, *words, **on_env())
row = "`rewards`, `cumulative_rewards`, `terminations`, `truncations` not a dict of the live agents"
for name, change, words in (
    ("rewards a list", update(rewards=[0, 0]), ("rewards",)),
    ("cumulative_rewards for one agent", update(cumulative_rewards={"player_0": 0}), ("cumulative_rewards",)),
    ("terminations None", update(terminations=None), ("terminations",)),
    ("reward a string", update(rewards={"player_0": "one", "player_1": 0}), ("must be finite numbers",)),
    ("reward a bool", update(rewards={"player_0": True, "player_1": 0}), ("must be finite numbers",)),
    ("reward NaN", update(rewards={"player_0": float("nan"), "player_1": 0}), ("must be finite numbers",)),
    ("reward inf", update(cumulative_rewards={"player_0": float("inf"), "player_1": 0}), ("must be finite numbers",)),
    ("reward 10**400", update(rewards={"player_0": 10**400, "player_1": 0}), ("must be finite numbers",)),
    ("termination not a bool", update(terminations={"player_0": 0, "player_1": False}), ("terminations",)),
    ("terminated while running", update(terminations={"player_0": True, "player_1": True}), ("game status",)),
):
    case(door, SNAPSHOT, row, name, load(change), ValueError, *words, **on_env())
row = "a malformed `last_move`"


def last_move(**entries: Any) -> Callable[[dict[str, Any]], None]:
    def change(snapshot: dict[str, Any]) -> None:
        assert snapshot["last_move"] is not None
        snapshot["last_move"].update(entries)

    return change


for name, change, words in (
    ("a string", update(last_move="x"), ("last_move is malformed",)),
    ("a dict without captures", lambda s: s["last_move"].pop("captures"), ("last_move",)),
    ("player 2", last_move(player=2), ("last_move player 2 must be 0 or 1",)),
    ("player True", last_move(player=True), ("last_move player",)),
    ("action 6", last_move(action=6), ("last_move action 6 must be an integer in 0..5",)),
    ("sown off the board", last_move(sown=[99]), ("last_move sown",)),
    ("capture of 999 seeds", last_move(captures=[[0, 999]]), ("last_move captures",)),
):
    case(door, SNAPSHOT, row, f"last_move {name}", load(change), ValueError, *words, **on_env())
row = "an `agent_selection` that is not the engine's player to move"
case(
    door,
    SNAPSHOT,
    row,
    "agent_selection of the other player",
    load(lambda s: s.update(agent_selection=AGENTS[1 - AGENTS.index(s["agent_selection"])])),
    ValueError,
    "is not the engine's player to move",
    **on_env(),
)
case(
    door,
    BEFORE_RESET,
    "`load_state_dict` is allowed before `reset`",
    "bad snapshot leaves a fresh env unreset",
    lambda env: env.load_state_dict(spoiled(mid_game(), with_state(**{f"s{PLAYER}": 2}))),
    ValueError,
    "player",
    subject=fresh,
    frozen=env_frozen,
)

# FlattenObservation
door = "wrapper"
row = "anything but a PettingZoo AEC environment (an id string, the env class, a module, a Gymnasium env, `None`)"
for name, value in (
    ("an id", "ouril_v0"),
    ("the env class", MancalaEnv),
    ("a module", ouril_v0),
    ("None", None),
    ("an int", 42),
):
    case(
        door,
        WRAPPER,
        row,
        f"FlattenObservation({name})",
        lambda _, v=value: FlattenObservation(v),
        TypeError,
        "AEC environment",
        "mancala_envs.make('ouril_v0')",
        type(value).__name__,
    )
case(
    door,
    WRAPPER,
    row,
    "FlattenObservation(a Gymnasium env)",
    lambda _: FlattenObservation(gymnasium.make("CartPole-v1")),
    TypeError,
    "AEC environment",
)
case(
    door,
    WRAPPER,
    row,
    "FlattenObservation(SingleAgentEnv)",
    lambda env: FlattenObservation(env),
    TypeError,
    "AEC environment",
    subject=lambda: single(reset=False),
    frozen=single_frozen,
)
case(
    door,
    WRAPPER,
    "a parallel environment",
    "FlattenObservation(a parallel env)",
    lambda _: FlattenObservation(AParallelEnv()),
    TypeError,
    "turn_based_aec_to_parallel",
)
case(
    door,
    WRAPPER,
    "an AEC env whose observations are not a Dict with an `observation` entry",
    "Box observations",
    lambda _: FlattenObservation(NotDictObservations()),
    TypeError,
    "observation",
)
for value in ("yes", None, 1):
    case(
        door,
        WRAPPER,
        "`normalize` that is not a bool",
        f"normalize={value!r}",
        lambda env, v=value: FlattenObservation(env, normalize=v),
        TypeError,
        "normalize must be True or False",
        **on_env(),
    )
row = "Calls through the wrapper reach the environment's own checks"
for name, action, error, words, build in (
    ("float", 1.0, TypeError, ("not an integer", "0..5"), mid_game),
    ("out of range", 6, ValueError, ("out of range", "0..5"), mid_game),
    (
        "illegal, raise",
        2,
        IllegalActionError,
        ("legal actions are",),
        lambda: kalah_pit_2_emptied(illegal_action="raise"),
    ),
    ("after the end", 0, GameOverError, ("call reset()",), lambda: ended_by_penalty(2)),
):
    case(
        door,
        WRAPPER,
        row,
        f"wrapped step {name}",
        lambda env, a=action: env.step(a),
        error,
        *words,
        **on_env(lambda build=build: FlattenObservation(build())),
    )

# SingleAgentEnv
door = "single-agent"
row = "an `encoding` that is not one"
case(
    door,
    SINGLE,
    row,
    "SingleAgentEnv encoding='bogus'",
    lambda _: SingleAgentEnv("kalah_v0", encoding="bogus"),
    ValueError,
    "unknown encoding 'bogus'; choose 'raw'",
    "['flat', 'one_hot', 'thermometer', 'planes']",
)
case(
    door,
    SINGLE,
    row,
    "SingleAgentEnv encoding='stack'",
    lambda _: SingleAgentEnv("kalah_v0", encoding="stack"),
    ValueError,
    "does not stack",
    "GymStackObservation",
)
row = "a vector env (`gymnasium.make_vec(...)`, `MancalaVectorEnv`, `MancalaSB3VecEnv`) given to `apply_wrappers`"
case(
    door,
    SINGLE,
    row,
    "apply_wrappers(make_vec(...))",
    lambda _: apply_wrappers(gymnasium.make_vec("mancala/Kalah-v0", num_envs=2), ["flat"]),
    TypeError,
    "not a vector env",
    "encoding='flat'",
)
case(
    door,
    SINGLE,
    row,
    "GymFlattenObservation(make_vec(...))",
    lambda _: GymFlattenObservation(gymnasium.make_vec("mancala/Kalah-v0", num_envs=2)),
    TypeError,
    "not a vector env",
    "MancalaSB3VecEnv(..., encoding='flat')",
)
row = "an unknown id, game option or option value"
case(door, SINGLE, row, "SingleAgentEnv('chess')", lambda _: SingleAgentEnv("chess"), ValueError, "'chess'", *IDS_WORDS)
case(
    door,
    SINGLE,
    row,
    "SingleAgentEnv colour",
    lambda _: SingleAgentEnv("kalah_v0", colour="red"),
    TypeError,
    "'colour'",
)
case(
    door,
    SINGLE,
    row,
    "SingleAgentEnv pits_per_row=5",
    lambda _: SingleAgentEnv("ouril_v0", pits_per_row=5),
    ValueError,
    "pits_per_row",
    "[6, 4]",
)
case(
    door,
    SINGLE,
    row,
    "SingleAgentEnv first_player=2",
    lambda _: SingleAgentEnv("kalah_v0", first_player=2),
    ValueError,
    "first_player",
)
row = (
    '`learner_seat` other than 0, 1 or `None`; `illegal_action` other than `"penalty"`/`"raise"`; an unknown '
    "`render_mode`"
)
for option, value, words in (
    ("learner_seat", 2, ("learner_seat must be 0, 1 or None",)),
    ("learner_seat", True, ("learner_seat",)),
    ("illegal_action", "ignore", ("illegal_action must be one of ['penalty', 'raise']",)),
    ("render_mode", "rgb", ("render_mode must be None or one of", "'rgb_array'")),
):
    case(
        door,
        SINGLE,
        row,
        f"{option}={value!r}",
        lambda _, o=option, v=value: SingleAgentEnv("kalah_v0", **{o: v}),
        ValueError,
        *words,
    )
row = "an opponent of no usable kind (`42`)"
case(
    door,
    SINGLE,
    row,
    "opponent=42",
    lambda _: SingleAgentEnv("kalah_v0", opponent=42),
    TypeError,
    "is not usable; pass a baseline name such as 'random', 'model:path.zip'",
)
case(
    door, SINGLE, row, "opponent=None", lambda _: SingleAgentEnv("kalah_v0", opponent=None), TypeError, "is not usable"
)
row = "an unknown baseline name"
case(
    door,
    SINGLE,
    row,
    "opponent='wizard'",
    lambda _: SingleAgentEnv("kalah_v0", opponent="wizard"),
    ValueError,
    "unknown agent 'wizard'; choose one of [",
)
case(
    door,
    SINGLE,
    row,
    "opponent=['random', 'wizard']",
    lambda _: SingleAgentEnv("kalah_v0", opponent=["random", "wizard"]),
    ValueError,
    "unknown agent 'wizard'",
)
case(
    door,
    SINGLE,
    '`"model:missing.zip"`',
    "opponent='model:missing.zip'",
    lambda _: SingleAgentEnv("kalah_v0", opponent="model:missing.zip"),
    FileNotFoundError,
    "no saved model at 'missing.zip'",
)
case(
    door,
    SINGLE,
    "`step` before `reset`",
    "step before reset",
    lambda env: env.step(0),
    RuntimeError,
    "call env.reset() first",
    subject=lambda: single(reset=False),
    frozen=single_frozen,
)


def episode_ended_by_penalty() -> SingleAgentEnv:
    env = single()
    env.reset(options={"board": kalah_board(p2=0, p3=8), "player": 0})
    _, reward, terminated, _, info = env.step(2)
    assert terminated and reward == -1 and info["illegal_action"]
    return env


for value in (0, None):
    case(
        door,
        SINGLE,
        "`step` after the episode ended",
        f"step({value!r}) after the end",
        lambda env, v=value: env.step(v),
        GameOverError,
        "call reset() to start a new one",
        subject=episode_ended_by_penalty,
        frozen=single_frozen,
    )
row = "an action that is not an integer, or out of range"
for value, error in (
    (1.0, TypeError),
    ("1", TypeError),
    (True, TypeError),
    (None, TypeError),
    (6, ValueError),
    (-1, ValueError),
):
    case(
        door,
        SINGLE,
        row,
        f"step({value!r})",
        lambda env, v=value: env.step(v),
        error,
        "0..5",
        subject=single,
        frozen=single_frozen,
    )
row = "an illegal action"


def single_with_pit_2_empty(**kwargs: Any) -> SingleAgentEnv:
    env = single(**kwargs)
    env.reset(options={"board": kalah_board(p2=0, p3=8), "player": 0})
    return env


case(
    door,
    SINGLE,
    row,
    "illegal action with 'raise'",
    lambda env: env.step(2),
    IllegalActionError,
    "legal actions are [0, 1, 3, 4, 5]",
    subject=lambda: single_with_pit_2_empty(illegal_action="raise"),
    frozen=single_frozen,
)


def single_penalty(env: SingleAgentEnv) -> None:
    board = env.aec_env.board
    _, reward, terminated, truncated, info = env.step(2)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert np.array_equal(env.aec_env.board, board)


case(door, SINGLE, row, "illegal action with 'penalty'", single_penalty, None, subject=single_with_pit_2_empty)
row = "a callable opponent answering an illegal action or a non-integer"


def callable_opponent(answer: Any) -> Callable[[], SingleAgentEnv]:
    return lambda: single(opponent=lambda observation, mask: answer)


def the_episode_is_over(env: SingleAgentEnv) -> None:
    try:
        env.step(0)  # learner's sowing from pit 0 ends on the opponent's side: the opponent answers
    finally:
        with pytest.raises(GameOverError):
            env.step(1)


for answer, error, words in (
    (2.5, TypeError, ("returned 2.5", "it must return an int action")),
    ("x", TypeError, ("returned 'x'",)),
    (99, ValueError, ("returned action 99, which is illegal here", "legal: [")),
):
    case(
        door,
        SINGLE,
        row,
        f"callable opponent answering {answer!r}",
        the_episode_is_over,
        error,
        "opponent",
        *words,
        subject=callable_opponent(answer),
    )
row = "`set_opponent` with a bad opponent"
for value, error in (
    (42, TypeError),
    ("wizard", ValueError),
    (["random", 42], TypeError),
    ([], ValueError),
    ("model:missing.zip", FileNotFoundError),
):
    case(
        door,
        SINGLE,
        row,
        f"set_opponent({value!r})",
        lambda env, v=value: env.set_opponent(v),
        error,
        subject=single,
        frozen=single_frozen,
    )

# make_from_config
door = "config"
for value in (None, "mancala/ouril-v0", [("id", "kalah_v0")]):
    case(
        door,
        CONFIG,
        "not a mapping",
        f"config {type(value).__name__}",
        lambda _, v=value: make_from_config(v),
        TypeError,
        "config must be a mapping such as {'id': 'mancala/ouril-v0'}",
    )
row = "no `id`, or an id that is not registered"
for value in ({}, {"id": "chess"}, {"id": 3}, {"id": "mancala/Chess-v0"}):
    case(
        door,
        CONFIG,
        row,
        f"config {value}",
        lambda _, v=value: make_from_config(v),
        ValueError,
        "mancala/ouril-v0",
        "mancala/Ouril-v0",
    )
row = "keys the id does not take"
case(
    door,
    CONFIG,
    row,
    "colour for kalah_v0",
    lambda _: make_from_config({"id": "kalah_v0", "colour": "red"}),
    ValueError,
    "config has unknown keys ['colour'] for 'kalah_v0'; the keys it takes are [",
)
case(
    door,
    CONFIG,
    row,
    "opponent for a PettingZoo id",
    lambda _: make_from_config({"id": "kalah_v0", "opponent": "x"}),
    ValueError,
    "unknown keys ['opponent']",
)
row = "`wrappers` that is not a list; an unknown wrapper; an unknown wrapper option"
for value, error, words in (
    ("flat", TypeError, ("'wrappers' must be a list",)),
    ({"name": "flat"}, TypeError, ("must be a list",)),
    (["sepia"], ValueError, ("unknown wrapper 'sepia'; choose one of [", "'flat'")),
    ([{"k": 4}], TypeError, ("has no 'name'",)),
    ([3], TypeError, ("wrapper spec",)),
    ([{"name": "flat", "scale": 2}], TypeError, ("takes no option 'scale'", "normalize")),
):
    case(
        door,
        CONFIG,
        row,
        f"wrappers={value!r}",
        lambda _, v=value: make_from_config({"id": "kalah_v0", "wrappers": v}),
        error,
        *words,
    )
row = "bad option values"
case(
    door,
    CONFIG,
    row,
    "first_player=2",
    lambda _: make_from_config({"id": "kalah_v0", "first_player": 2}),
    ValueError,
    "first_player",
)
case(
    door,
    CONFIG,
    row,
    "Gymnasium id, opponent='wizard'",
    lambda _: make_from_config({"id": "mancala/Kalah-v0", "opponent": "wizard"}),
    ValueError,
    "unknown agent 'wizard'",
)
case(
    door,
    CONFIG,
    row,
    "Gymnasium id, learner_seat=3",
    lambda _: make_from_config({"id": "mancala/Kalah-v0", "learner_seat": 3}),
    ValueError,
    "learner_seat",
)


# training
def train_config(**fields: Any) -> Any:
    from mancala_envs.training.trainer import TrainConfig

    return TrainConfig(**fields)


def self_play(**arguments: Any) -> Any:
    from mancala_envs.training.trainer import SelfPlayCallback

    return SelfPlayCallback(**arguments)


def batched_training_env() -> Any:
    from mancala_envs.training.trainer import TrainConfig, make_training_env

    return make_training_env(TrainConfig(opponent="model:m.zip", n_envs=2), batched=True)


door = "training"
row = (
    "`timesteps`, `n_envs`, `n_steps`, `batch_size`, `n_epochs`, `torch_threads` not a positive integer; a negative "
    "`seed` or `eval_games`"
)
for name, value in (
    ("timesteps", 0),
    ("n_envs", -1),
    ("n_steps", True),
    ("batch_size", 1.5),
    ("n_epochs", "4"),
    ("torch_threads", 0),
    ("seed", -1),
    ("eval_games", -1),
    ("seed", 1.0),
):
    case(
        door,
        TRAINING,
        row,
        f"TrainConfig {name}={value!r}",
        lambda _, n=name, v=value: train_config(**{n: v}),
        ValueError,
        f"{name} must be",
        repr(value),
    )
row = "`refresh_every` or `pool_size` not a positive integer"
for name, value in (("refresh_every", 0), ("pool_size", True), ("pool_size", 2.0)):
    case(
        door,
        TRAINING,
        row,
        f"SelfPlayCallback {name}={value!r}",
        lambda _, n=name, v=value: self_play(**{n: v}),
        ValueError,
        f"{name} must be a positive integer",
    )
row = "`make_training_env(config, batched=True)` with an opponent that is not a compiled agent"
case(
    door,
    TRAINING,
    row,
    "batched=True, opponent='model:m.zip'",
    lambda _: batched_training_env(),
    ValueError,
    "batched=True needs compiled opponents",
    "'model:m.zip'",
    "batched=None",
)
row = "`mancala-envs train --timesteps 0`, an unknown `--game`, `--encoding`, or `--opponent`"
for argv, words in (
    (["train", "--timesteps", "0"], ("argument --timesteps", "'0'")),
    (["train", "--game", "chess"], ("unknown environment 'chess'",)),
    (["train", "--encoding", "sepia"], ("argument --encoding", "'sepia'")),
):
    case(door, TRAINING, row, " ".join(argv), lambda _, a=argv: main(a), EXIT_2, "mancala-envs: error: ", *words)
case(
    door,
    TRAINING,
    row,
    "train --opponent wizard",
    lambda _: main(["train", "--opponent", "wizard", "--timesteps", "16", "--eval-games", "0", "--no-progress"]),
    EXIT_2,
    "mancala-envs: error: ",
    "unknown agent 'wizard'",
)
case(
    door,
    TRAINING,
    row,
    "train --eval-opponents wizard",
    lambda _: main(["train", "--eval-opponents", "wizard", "--timesteps", "16", "--no-progress"]),
    EXIT_2,
    "mancala-envs: error: ",
    "unknown agent 'wizard'",
)

row = "self-play: `snapshot_every` or `pool_size` not a positive integer; `baseline_rate` outside 0..1"
for name, value, words in (
    ("snapshot_every", 0, "snapshot_every must be a positive integer"),
    ("pool_size", True, "pool_size must be a positive integer"),
    ("baseline_rate", 1.5, "baseline_rate must be a number from 0 to 1 (got 1.5)"),
    ("baseline_rate", "0.2", "baseline_rate must be a number from 0 to 1 (got '0.2')"),
):
    case(
        door,
        TRAINING,
        row,
        f"TrainConfig {name}={value!r}",
        lambda _, n=name, v=value: train_config(**{n: v}),
        ValueError,
        words,
    )
case(
    door,
    TRAINING,
    "`mancala-envs train --timesteps 0`",
    "train --self-play --baseline-rate 1.5",
    lambda _: main(["train", "--self-play", "--baseline-rate", "1.5", "--timesteps", "16", "--no-progress"]),
    EXIT_2,
    "mancala-envs: error: ",
    "baseline_rate must be a number from 0 to 1",
)


def self_play_env(**arguments: Any) -> Any:
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    return SelfPlayVecEnv("kalah_v0", 4, **arguments)


def two_seat_env(reset: bool = True) -> Any:
    from mancala_envs.views.two_seat_env import TwoSeatVectorEnv

    env = TwoSeatVectorEnv("kalah_v0", 4, first_player=0)
    if reset:
        env.reset(seed=0)
    return env


def two_seat_frozen(env: Any) -> Any:
    return plain(
        {
            "states": [env.state(game) for game in range(env.num_envs)],
            "mask": env.action_masks(),
            "to_play": env.to_play,
        }
    )


row = "an empty pool; `weights` of another length, negative or all zero"
case(
    door,
    SELF_PLAY,
    row,
    "SelfPlayVecEnv opponents=[]",
    lambda _: self_play_env(opponents=[]),
    ValueError,
    "opponents must be a non-empty list of pool members, e.g. ['self', 'greedy']",
)
for weights in ([1.0], [1.0, -1.0], [0, 0]):
    case(
        door,
        SELF_PLAY,
        row,
        f"SelfPlayVecEnv weights={weights!r}",
        lambda _, w=weights: self_play_env(opponents=["random", "greedy"], weights=w),
        ValueError,
        "weights must be 2 non-negative numbers, not all zero",
    )
row = "an unknown agent name in the pool; a member that cannot play batched games"
case(
    door,
    SELF_PLAY,
    row,
    "SelfPlayVecEnv opponents=['wizard']",
    lambda _: self_play_env(opponents=["wizard"]),
    ValueError,
    "unknown agent 'wizard'",
)
case(
    door,
    SELF_PLAY,
    row,
    "SelfPlayVecEnv opponents=[3.5]",
    lambda _: self_play_env(opponents=[3.5]),
    TypeError,
    "opponent 3.5 cannot play batched games; pass an agent name ('greedy', 'alphabeta:2', 'pretrained'), 'self'",
)
case(
    door,
    SELF_PLAY,
    '`"self"` in the pool before `set_learner(model)`',
    "SelfPlayVecEnv reset with 'self' unset",
    lambda _: self_play_env(opponents=["self"], learner_seat=1, seed=0).reset(),
    RuntimeError,
    "the pool holds 'self' (the learner) but no learner is set; call set_learner(model)",
)
case(
    door,
    SELF_PLAY,
    "`learner_seat` other than 0, 1, `None`",
    "SelfPlayVecEnv learner_seat=2",
    lambda _: self_play_env(learner_seat=2),
    ValueError,
    "learner_seat must be 0, 1 or None (drawn for each episode); got 2.",
)
row = "`step` before `reset`; an illegal, out-of-range or non-integer action"
case(
    door,
    SELF_PLAY,
    row,
    "SelfPlayVecEnv.step before reset",
    lambda _: self_play_env(opponents=["random"]).step(np.zeros(4, np.int64)),
    RuntimeError,
    "call reset() first",
)
case(
    door,
    SELF_PLAY,
    row,
    "TwoSeatVectorEnv.step before reset",
    lambda env: env.step(np.zeros(4, np.int64)),
    RuntimeError,
    "call reset() first",
    subject=lambda: two_seat_env(reset=False),
)
for actions, error, words in (
    (np.array([6, 0, 0, 0]), ValueError, "out of range in games [0]"),
    (np.zeros(4), TypeError, "dtype float64"),
    (np.array([2, 2, 2, 2]), IllegalActionError, "game 0 got 2, its legal actions are"),
):
    case(
        door,
        SELF_PLAY,
        row,
        f"TwoSeatVectorEnv.step({actions.tolist()!r}, {actions.dtype})",
        lambda env, a=actions: env.step(a),
        error,
        words,
        subject=lambda: _two_seat_after_a_move(),
        frozen=two_seat_frozen,
    )
case(
    door,
    SELF_PLAY,
    "`BatchedGames.step(actions, playing=...)` with `playing` not a bool array",
    "BatchedGames.step playing=float",
    lambda games: games.step(np.zeros(4, np.int64), playing=np.ones(4)),
    ValueError,
    "playing must be a bool array of shape (4,), one flag per game (got float64 (4,))",
    **on_batch,
)


def _two_seat_after_a_move() -> Any:
    """Four Kalah games after pit 2 in each: its seeds ended in the store, so player 0 moves again, and pit 2 is
    empty (action 2 illegal)."""
    env = two_seat_env()
    env.step(np.full(4, 2, np.int64))  # pit 2 ends in the store: player 0 moves again
    return env


# agents
door = "agents"
CHOICES = (
    "choose one of ['greedy', 'perfect', 'pretrained', 'random'] or "
    "'alphabeta:D', 'alphabeta:t=SECONDS', 'mcts:N', 'az:N', 'sb3:PATH'"
)
for name in ("minimax", "Random", "", " greedy", "random_v0"):
    case(
        door,
        AGENT,
        'an unknown name (`"minimax"`, `"Random"`)',
        f"make_agent({name!r})",
        lambda _, n=name: make_agent(n),
        ValueError,
        f"unknown agent {name!r}; {CHOICES}",
    )
row = 'a malformed parametrised name (`"alphabeta:x"`, `"alphabeta:0"`, `"mcts:-5"`, `"sb3:"`)'
for name, words in (
    ("alphabeta:x", ("alphabeta depth must be an integer from 1 to 64 as in 'alphabeta:4'",)),
    ("alphabeta:0", ("alphabeta depth",)),
    ("alphabeta:65", ("alphabeta depth",)),
    ("alphabeta:\u0664", ("alphabeta depth",)),
    ("mcts:-5", ("mcts simulations",)),
    ("mcts:1.5", ("mcts simulations",)),
    ("sb3:", ("sb3 agent needs the saved model's path",)),
):
    case(door, AGENT, row, f"make_agent({name!r})", lambda _, n=name: make_agent(n), ValueError, *words)
for value in (None, 1, ["random"], RandomAgent, b"random"):
    case(
        door,
        AGENT,
        "a name that is not a string",
        f"make_agent({value!r})",
        lambda _, v=value: make_agent(v),
        TypeError,
        f"agent name must be a string, one of {CHOICES.removeprefix('choose one of ')}",
    )
row = 'a seed that is not `None` or an integer (`"7"`, `1.5`, `True`)'
for value, shown in (("7", "(got str '7')"), (1.5, "(got float 1.5)"), (True, "(got bool True)")):
    case(
        door,
        AGENT,
        row,
        f"make_agent('random', seed={value!r})",
        lambda _, v=value: make_agent("random", v),
        TypeError,
        f"agent seed must be None or an integer >= 0 {shown}",
    )
    case(door, AGENT, row, f"GreedyAgent({value!r})", lambda _, v=value: GreedyAgent(v), TypeError, shown)
for value in (-1, np.int64(-1)):
    case(
        door,
        AGENT,
        "a negative seed",
        f"make_agent('alphabeta:2', seed={value!r})",
        lambda _, v=value: make_agent("alphabeta:2", v),
        ValueError,
        "agent seed must be None or an integer >= 0 (got -1)",
    )
row = "`agent.act(x)` where `x` is not a mancala_envs environment"
for value in (None, "kalah_v0", {"player_0": 1}):
    case(
        door,
        AGENT,
        row,
        f"act({value!r})",
        lambda _, v=value: RandomAgent(0).act(v),
        TypeError,
        "act() needs a mancala_envs environment",
    )
case(
    door,
    AGENT,
    row,
    "act(SingleAgentEnv)",
    lambda env: GreedyAgent(0).act(env),
    TypeError,
    "act() needs a mancala_envs environment",
    subject=single,
    frozen=single_frozen,
)
case(
    door,
    AGENT,
    "`agent.act(env)` before `env.reset()`",
    "act before reset",
    lambda env: RandomAgent(0).act(env),
    RuntimeError,
    "call env.reset() first",
    subject=fresh,
    frozen=env_frozen,
)
for agent in ("random", "greedy", "alphabeta:2", "mcts:4"):
    case(
        door,
        AGENT,
        "`agent.act(env)` when the game is over",
        f"{agent} acts after the end",
        lambda env, a=agent: make_agent(a, 0).act(env),
        ValueError,
        "the player to move has no legal action",
        **on_env(lambda: ended_by_penalty(0)),
    )

# game records
door = "records"
row = "data that is not a JSON object"
for value in ([], "record", None, 3):
    case(
        door,
        RECORDS,
        row,
        f"from_dict({value!r})",
        lambda _, v=value: GameRecord.from_dict(v),
        ValueError,
        "a game record must be a JSON object with the keys [",
    )
row = "another `format`, a missing or an unknown field"
for name, data, words in (
    (
        "format 0",
        record_data(format="mancala-envs-game-0"),
        ("game record field 'format' must be 'mancala-envs-game-1'",),
    ),
    ("no format", {key: value for key, value in record_data().items() if key != "format"}, ("'format'",)),
    (
        "no moves",
        {key: value for key, value in record_data().items() if key != "moves"},
        ("game record has no field 'moves'",),
    ),
    ("an unknown field", record_data(colour="red"), ("game record has an unknown field 'colour'",)),
):
    case(door, RECORDS, row, name, lambda _, d=data: GameRecord.from_dict(d), ValueError, *words)
row = "an `env` that is not registered, `options` that do not configure it"
for name, data, words in (
    ("env chess", record_data(env="chess"), ("game record field 'env' is not a registered environment",)),
    ("env 3", record_data(env=3), ("game record field 'env' must be",)),
    ("an unknown option", record_data(options={"colour": "red"}), ("game record field 'options' does not configure",)),
    ("a bad option value", record_data(options={"seeds_per_pit": 0}), ("'options'", "seeds_per_pit")),
    ("an environment option", record_data(options={"render_mode": "ansi"}), ("'options'", "render_mode")),
    ("a nested list", record_data(options={"max_plies": [[1]]}), ("options.max_plies",)),
    ("options a list", record_data(options=[]), ("game record field 'options'",)),
):
    case(door, RECORDS, row, name, lambda _, d=data: GameRecord.from_dict(d), ValueError, *words)
row = "a `start` that is not a position of the game"
for name, start, words in (
    ("a Modiar position", "7,7,7/7,7,7 0,0 0", ("is not a position of kalah_v0",)),
    ("player 2", "4,4,4,4,4,4/4,4,4,4,4,4 0,0 2", ("position player '2'",)),
    ("not a string", 7, ("game record field 'start' must be",)),
):
    case(
        door,
        RECORDS,
        row,
        f"start {name}",
        lambda _, s=start: GameRecord.from_dict(record_data(start=s)),
        ValueError,
        "game record field 'start'",
        *words,
    )
row = "a malformed move"
for name, moves, words in (
    ("player 2", [{"player": 2, "action": 0}], ("game record field 'moves[0].player' must be 0 or 1 (got 2)",)),
    ("player True", [{"player": True, "action": 0}], ("'moves[0].player'",)),
    ("action -1", [{"player": 0, "action": -1}], ("'moves[0].action' must be an integer >= 0",)),
    ("action 6", [{"player": 0, "action": 6}], ("'moves[0].action' must be an action of kalah_v0, 0..5",)),
    ("action 2.0", [{"player": 0, "action": 2.0}], ("'moves[0].action'",)),
    ("no action", [{"player": 0}], ("'moves[0]' must be an object with 'player' and 'action'",)),
    ("an unknown key", [{"player": 0, "action": 2, "why": "x"}], ("'moves[0]'",)),
    ("illegal false", [{"player": 0, "action": 2, "illegal": False}], ("'moves[0].illegal'",)),
    (
        "illegal not last",
        [{"player": 0, "action": 2, "illegal": True}, {"player": 1, "action": 0}],
        ("'moves[0].illegal' must be only on the last move",),
    ),
    ("moves a dict", {"player": 0, "action": 2}, ("'moves' must be a list",)),
):
    case(
        door,
        RECORDS,
        row,
        f"move {name}",
        lambda _, m=moves: GameRecord.from_dict(record_data(moves=m)),
        ValueError,
        *words,
    )
row = "a malformed `result`, `players` or `seed`"
RESULT = {"winner": 0, "scores": [30, 18], "match_points": [0, 0], "end_reason": "no_legal_move"}
for name, changes, words in (
    ("result without end_reason", {"result": {**RESULT, "end_reason": None}}, ("'result.end_reason'",)),
    ("result keys", {"result": {"winner": 0}}, ("'result' must be null or an object with exactly the keys",)),
    ("result winner 2", {"result": {**RESULT, "winner": 2}}, ("'result.winner' must be 0, 1 or null",)),
    ("result scores negative", {"result": {**RESULT, "scores": [-1, 49]}}, ("'result.scores'",)),
    ("players one name", {"players": ["random"]}, ("'players' must be null or a list of two names",)),
    ("players a string", {"players": "ab"}, ("'players'",)),
    ("seed -1", {"seed": -1}, ("game record field 'seed' must be null or an integer >= 0 (got -1)",)),
    ("seed True", {"seed": True}, ("'seed'",)),
):
    case(door, RECORDS, row, name, lambda _, c=changes: GameRecord.from_dict(record_data(**c)), ValueError, *words)
case(
    door,
    RECORDS,
    "`load` of a missing file",
    "load a missing file",
    lambda path: GameRecord.load(path / "missing.json"),
    FileNotFoundError,
    "missing.json",
    subject=folder,
    frozen=files,
)
row = "`load` of a file that is not JSON, or JSON nested too deeply"


def load_text(text: str) -> Callable[[Path], Any]:
    def call(path: Path) -> Any:
        (path / "bad.json").write_text(text, encoding="utf-8")
        return GameRecord.load(path / "bad.json")

    return call


for name, text, words in (
    ("not JSON", "{'env': 'kalah_v0'}", ("is not a JSON game record",)),
    ("empty", "", ("is not a JSON game record",)),
    ("a JSON list", "[1, 2]", ("must be a JSON object",)),
    ("nested too deeply", "[" * 100_000 + "]" * 100_000, ("nested too deeply",)),
):
    case(door, RECORDS, row, f"load {name}", load_text(text), ValueError, *words, subject=folder)
row = "a move that does not replay"
for name, changes, words in (
    (
        "by the player not to move",
        {"moves": [{"player": 1, "action": 0}]},
        ("move 1 (player 1, action 0) is by player_1, but player_0 is to move after the start",),
    ),
    (
        "illegal in the replay",
        {"moves": [{"player": 0, "action": 2}, {"player": 0, "action": 2}]},
        ("move 2 (player 0, action 2) is illegal in the replay after move 1; the legal actions are [0, 1, 3, 4, 5]",),
    ),
    (
        "marked illegal but legal",
        {"moves": [{"player": 0, "action": 2, "illegal": True}], "result": {**RESULT, "end_reason": "illegal_action"}},
        ("is marked illegal, but it is legal",),
    ),
    ("a result the replay does not reach", {"result": RESULT}, ("end before the game does",)),
):
    case(
        door,
        RECORDS,
        row,
        name,
        lambda _, c=changes: list(replay(GameRecord.from_dict(record_data(**c)))),
        ValueError,
        *words,
    )
case(
    door,
    RECORDS,
    "`write_animation`: a record that is neither a `GameRecord` nor a path",
    "record a dict",
    lambda path: write_animation(record_data(), path / "game.gif"),
    TypeError,
    "record must be a GameRecord or the path of a saved one (got dict)",
    subject=folder,
    frozen=files,
)
row = "`write_animation`: an empty `out`, an `out` that is not `.gif`, `.mp4`, `.png` or a directory"
for name, out, fps, pause, words in (
    ("fps 0", "game.gif", 0, 2.0, ("fps must be an integer between 1 and 60 (got 0)",)),
    ("fps 61", "game.gif", 61, 2.0, ("fps must be an integer between 1 and 60",)),
    ("fps 2.5", "game.gif", 2.5, 2.0, ("fps",)),
    ("fps True", "game.gif", True, 2.0, ("fps",)),
    ("end_pause -1", "game.gif", 2, -1, ("end_pause must be a number of seconds between 0 and 3600",)),
    ("end_pause nan", "game.gif", 2, float("nan"), ("end_pause",)),
    ("end_pause '2'", "game.gif", 2, "2", ("end_pause",)),
    ("an empty out", "", 2, 2.0, ("the output path is empty",)),
    ("out game.avi", "game.avi", 2, 2.0, ("the output must end in .gif, .mp4 or .png",)),
):
    case(
        door,
        RECORDS,
        row,
        f"write_animation {name}",
        lambda path, o=out, f=fps, p=pause: write_animation(
            path / "game.json", path / o if o else o, fps=f, end_pause=p
        ),
        ValueError,
        *words,
        subject=folder,
        frozen=files,
    )
case(
    door,
    RECORDS,
    row,
    "write_animation of a record that does not replay",
    lambda path: write_animation(
        GameRecord.from_dict(record_data(moves=[{"player": 1, "action": 0}])), path / "game.gif"
    ),
    ValueError,
    "is by player_1",
    subject=folder,
    frozen=files,
)

# the command line
# perfect-play tables
door = "tables"


def table_folder() -> Path:
    """A new folder holding a saved Kalah table of at most 2 seeds on the board (and its description)."""
    from mancala_envs.algorithms.retrograde import build_table, save_table

    path = Path(tempfile.mkdtemp(prefix="contract-tables-"))
    save_table(build_table(mancala_envs.envs.registration.make_game("kalah_v0"), 2), path)
    return path


def table_files(path: Path) -> tuple[Path, Path]:
    from mancala_envs.algorithms.retrograde import table_paths

    return table_paths(mancala_envs.envs.registration.make_game("kalah_v0"), 2, path)


def load_kalah_table(path: Path) -> Any:
    from mancala_envs.algorithms.retrograde import load_table

    return load_table(mancala_envs.envs.registration.make_game("kalah_v0"), 2, path)


def spoil_table(change: Callable[[Path, Path], Any]) -> Callable[[Path], Any]:
    def call(path: Path) -> Any:
        change(*table_files(path))
        return load_kalah_table(path)

    return call


def flip_last_byte(values: Path, _info: Path) -> None:
    data = bytearray(values.read_bytes())
    data[-1] ^= 1
    values.write_bytes(bytes(data))


def rewrite_description(**changes: Any) -> Callable[[Path, Path], None]:
    def change(_values: Path, info: Path) -> None:
        info.write_text(json.dumps({**json.loads(info.read_text()), **changes}))

    return change


def table_error() -> type:
    from mancala_envs.algorithms.retrograde import TableError

    return TableError


TABLE_SUBJECT = {"subject": table_folder, "frozen": files}
row = "no table saved for the game, config and size"
case(
    door,
    TABLES,
    row,
    "load_table of a Kalah table never built",
    lambda path: retrograde.load_table(mancala_envs.envs.registration.make_game("kalah_v0"), 3, path),
    table_error(),
    "no kalah table in ",
    "build it with `mancala-envs solve kalah --max-seeds 3 --dir ",
    **TABLE_SUBJECT,
)
row = "a values file whose SHA-256 is not the recorded one"
for name, change in (
    ("a flipped byte", flip_last_byte),
    ("a truncated file", lambda values, _info: values.write_bytes(values.read_bytes()[:-7])),
    ("a replaced file", lambda values, _info: values.write_bytes(b"not a table")),
):
    case(
        door,
        TABLES,
        row,
        name,
        spoil_table(change),
        table_error(),
        "fails its integrity check",
        "is not the recorded one",
        "rebuild it with `mancala-envs solve kalah --max-seeds 2",
        subject=table_folder,
    )
row = "a description that is not JSON, of another format, or of another game or config"
for name, change, words in (
    ("not JSON", lambda _values, info: info.write_text("{"), ("is not a table description",)),
    ("a JSON list", lambda _values, info: info.write_text("[]"), ("is not a format-2 table description",)),
    ("format 1", rewrite_description(format=1), ("is not a format-2 table description",)),
    ("another game", rewrite_description(game="ouril"), ("describes another game or config",)),
    (
        "another config",
        rewrite_description(config={"pits_per_row": 6, "seeds_per_pit": 3, "empty_capture": False}),
        ("describes another game or config",),
    ),
):
    case(door, TABLES, row, name, spoil_table(change), table_error(), *words, subject=table_folder)
row = "`build_table` of a game that cannot be tabled"
for name, game_id, size, words in (
    ("Omweso", "omweso_v0", 1, ("omweso cannot be tabled", "tables exist for ")),
    ("Rio Kadalis", "rio_kadalis_v0", 1, ("rio_kadalis cannot be tabled",)),
    ("a Urim match", "mancala/urim-match-v0", 1, ("played as a match; tables solve single games",)),
    ("max_seeds 43 in Modiar", "modiar_v0", 43, ("max_seeds (--max-seeds) must be an int from 0 to 42",)),
    ("max_seeds -1", "modiar_v0", -1, ("max_seeds (--max-seeds) must be an int from 0 to 42",)),
    ("max_seeds 2.0", "modiar_v0", 2.0, ("got 2.0",)),
):
    case(
        door,
        TABLES,
        row,
        name,
        lambda _, g=game_id, k=size: retrograde.build_table(mancala_envs.envs.registration.make_game(g), k),
        table_error(),
        *words,
    )


def small_modiar_table() -> Any:
    from mancala_envs.algorithms.retrograde import build_table

    return build_table(mancala_envs.envs.registration.make_game("modiar_v0"), 6)


def modiar_position(board: list[int], stores: list[int], player: int) -> np.ndarray:
    game = mancala_envs.envs.registration.make_game("modiar_v0")
    state = game.new_state(0)
    game.load_position(state, board, stores, player)
    return state


row = "`value`, `move_values` or `search` of a finished game"
OVER = ([1, 0, 1, 3, 2, 0], [17, 18], 0)  # rules example M7: player 0 cannot move, the game is over
for method in ("value", "move_values", "search"):
    case(
        door,
        TABLES,
        row,
        f"{method} of M7",
        lambda table, m=method: getattr(table, m)(modiar_position(*OVER)),
        table_error(),
        "the game is over",
        subject=small_modiar_table,
    )
row = "`value` of a position with more seeds on the board than the table holds"
case(
    door,
    TABLES,
    row,
    "value with 9 seeds in a 6-seed table",
    lambda table: table.value(modiar_position([3, 0, 2, 0, 2, 2], [16, 17], 0)),
    table_error(),
    "the board holds 9 seeds, more than this modiar table's 6",
    "build a larger one with `mancala-envs solve modiar --max-seeds 9`",
    subject=small_modiar_table,
)
row = "`mancala-envs solve` with any of the above"
for argv, words in (
    (["solve", "omweso"], ("omweso cannot be tabled",)),
    (["solve", "kalah", "--max-seeds", "49"], ("max_seeds (--max-seeds) must be an int from 0 to 48",)),
    (["solve", "kalah", "--max-seeds", "x"], ("argument --max-seeds: invalid seed count 'x'",)),
    (["solve"], ("the following arguments are required: game",)),
):
    case(door, TABLES, row, " ".join(argv), lambda _, a=argv: main(a), EXIT_2, "mancala-envs: error: ", *words)

door = "cli"
for example, argv, words in (
    (
        "$ mancala-envs demo --game chess",
        ["demo", "--game", "chess"],
        ("mancala-envs: error: unknown environment 'chess'; choose one of ['ouril_v0', ",),
    ),
    (
        "$ mancala-envs demo --seed x",
        ["demo", "--seed", "x"],
        (
            "mancala-envs: error: argument --seed: invalid seed 'x' (use an integer >= 0); "
            "see 'mancala-envs demo --help'.",
        ),
    ),
    (
        "$ mancala-envs frobnicate",
        ["frobnicate"],
        (
            "mancala-envs: error: argument command: invalid choice: 'frobnicate' (choose from ",
            "see 'mancala-envs --help'.",
        ),
    ),
    (
        "$ mancala-envs replay missing.json",
        ["replay", "/nonexistent-contract-dir/missing.json"],
        (
            (
                "mancala-envs: error: cannot read the game record '/nonexistent-contract-dir/missing.json': "
                "No such file or directory"
            ),
        ),
    ),
    (
        "$ mancala-envs play ouril --seat 2",
        ["play", "ouril", "--seat", "2"],
        (
            (
                "mancala-envs play: error: argument --seat: invalid seat '2' (use 0, 1 or random); "
                "see 'mancala-envs play --help'."
            ),
        ),
    ),
    (
        "$ mancala-envs tournament --agents random",
        ["tournament", "--agents", "random"],
        ("mancala-envs tournament: error: a tournament needs at least two agents (got ['random']).",),
    ),
):
    case(door, CLI, example, " ".join(argv), lambda _, a=argv: main(a), EXIT_2, *words)
row = "Any bad input, whether argparse rejects it"
for argv, words in (
    ([], ("the following arguments are required: command",)),
    (["demo", "--game"], ("argument --game: expected one argument",)),
    (["demo", "--agents", "random"], ("argument --agents: expected 2 arguments",)),
    (["list", "extra"], ("unrecognized arguments: extra",)),
    (["demo", "--seed", "-1"], ("invalid seed '-1'",)),
    (["demo", "--agents", "random", "minimax"], (f"unknown agent 'minimax'; {CHOICES}",)),
    (["play", "chess"], ("mancala-envs play: error: ", "'chess'")),
    (["play", "kalah", "--opponent", "wizard"], ("mancala-envs play: error: ", "'wizard'")),
    (
        ["tournament", "--game", "kalah", "--agents", "random", "wizard"],
        ("mancala-envs tournament: error: ", "'wizard'"),
    ),
):
    case(door, CLI, row, " ".join(argv) or "(no arguments)", lambda _, a=argv: main(a), EXIT_2, *words)
for name, argv, words in (
    ("replay a malformed record", ["replay", "{folder}/bad.json"], ("game record field 'seed'",)),
    ("replay --fps 0", ["replay", "{folder}/game.json", "--out", "{folder}/game.gif", "--fps", "0"], ("--fps",)),
    (
        "replay --fps 61",
        ["replay", "{folder}/game.json", "--out", "{folder}/game.gif", "--fps", "61"],
        ("fps must be an integer between 1 and 60",),
    ),
    ("replay --out game.avi", ["replay", "{folder}/game.json", "--out", "{folder}/game.avi"], (".gif, .mp4 or .png",)),
):

    def run(path: Path, argv: list[str] = argv) -> int:
        (path / "bad.json").write_text(json.dumps(record_data(seed=-1)), encoding="utf-8")
        return main([part.format(folder=path) for part in argv])

    case(
        door,
        CLI,
        "Any bad input, whether argparse rejects it",
        name,
        run,
        EXIT_2,
        "mancala-envs: error: ",
        *words,
        subject=folder,
    )
row = "`play_demo(env_id, agent_names, seed)` checks"
for name, arguments, error, words in (
    ("one agent", (["random"], 0), ValueError, ("give two agent names",)),
    ("a string of names", ("random", 0), ValueError, ("give two agent names",)),
    ("seed '0'", (["random", "greedy"], "0"), TypeError, ("seed must be an integer",)),
    ("seed -2", (["random", "greedy"], -2), ValueError, ("seed must be an integer >= 0 (got -2)",)),
    ("agent None", (["random", None], 0), TypeError, ("agent name must be a string",)),
):

    def demo(_: Any, arguments: tuple = arguments) -> None:
        from io import StringIO

        out = StringIO()
        try:
            play_demo("kalah", *arguments, out=out)
        finally:
            assert out.getvalue() == "", "play_demo printed before it checked its arguments"

    case(door, CLI, row, f"play_demo {name}", demo, error, *words)


# --- the doors with a module of their own (tests/support/contract_doors/) -----------------------------------------
CASES.extend(door_cases())


# --- the test ------------------------------------------------------------------------------------------------------
def param(item: Case) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=item.xfail)] if item.xfail else []
    return pytest.param(item, id=f"{item.door}: {item.name}", marks=marks)


def check_words(message: str, words: tuple[str, ...]) -> None:
    for word in words:
        if word.startswith("re:"):
            assert re.search(word[3:], message), f"the message should match {word[3:]!r}: {message}"
        else:
            assert word in message, f"the message should contain {word!r}: {message}"


@pytest.mark.parametrize("item", [param(item) for item in CASES])
def test_bad_input_is_refused_as_the_contract_says(item: Case, capsys: pytest.CaptureFixture[str]) -> None:
    subject = item.subject()
    try:
        check_case(item, subject, capsys)
    finally:
        if isinstance(subject, Path):  # a folder() of this test
            shutil.rmtree(subject, ignore_errors=True)


def check_case(item: Case, subject: Any, capsys: pytest.CaptureFixture[str]) -> None:
    before = None if item.frozen is None else copy.deepcopy(item.frozen(subject))
    if item.error == EXIT_2 and not isinstance(item.error, type):
        capsys.readouterr()
        status = item.call(subject)
        out, err = capsys.readouterr()
        assert status == 2, f"exit status {status}, stderr {err!r}"
        assert err.endswith("\n") and err.count("\n") == 1, f"one line expected on stderr: {err!r}"
        assert re.match(r"mancala-envs( [a-z-]+)?: error: \S", err), err
        assert "Traceback" not in err
        if item.stdout_empty:
            assert out == "", f"nothing expected on stdout: {out!r}"
        message = err
    elif item.error is None:
        item.call(subject)  # documented as accepted: the call checks the outcome itself
        message = ""
    elif issubclass(item.error, Warning):
        with pytest.warns(item.error) as caught:
            item.call(subject)
        message = " ".join(str(warning.message) for warning in caught)
    else:
        with pytest.raises(item.error) as raised:
            item.call(subject)
        if item.exact:
            assert type(raised.value) is item.error, f"{type(raised.value).__name__} instead of {item.error.__name__}"
        message = str(raised.value)
    check_words(message, item.words)
    if item.frozen is not None:
        assert item.frozen(subject) == before, "the rejected call changed its subject"


# --- completeness: every row of the contract has a case, every case cites the contract ------------------------------
#: Rows that a unit test cannot exercise, with the reason.
NOT_EXERCISED = {
    # Uninstalling sb3-contrib / torch from the test environment is outside a unit test; the message is built in
    # mancala_envs.cli.run_train from the ImportError.
    Row(TRAINING, "the `train` extra is not installed"),
}


def section_of(heading: str, section: str) -> bool:
    return section in heading


def contract_sections() -> dict[str, str]:
    """The contract's ``###`` sections: heading -> body."""
    sections: dict[str, str] = {}
    heading = ""
    for line in CONTRACT.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            sections[heading] = ""
        elif heading:
            sections[heading] += line + "\n"
    return sections


def contract_rows() -> set[tuple[str, str]]:
    """(heading, first cell) of every "Bad input" table row, (heading, opening) of every bullet of the
    position-notation list, (heading, command) of every example of the command line."""
    rows: set[tuple[str, str]] = set()
    for heading, body in contract_sections().items():
        lines = body.splitlines()
        in_table = False
        for line in lines:
            if line.startswith("| Bad input |"):
                in_table = True
            elif in_table and line.startswith("|"):
                if not line.startswith("|---"):
                    rows.add((heading, line.strip("|").split(" | ")[0].strip()))
            else:
                in_table = False
        notation = body.find("**Position notation**")
        if notation >= 0:
            listed = body[notation : body.index("**Structured form**")]
            for bullet in re.split(r"\n- ", listed)[1:]:
                text = " ".join(bullet.split())
                rows.add((heading, re.split(r" \(|:|;", text)[0]))
        rows |= {(heading, line) for line in lines if line.startswith("$ mancala-envs")}
    return rows


def covers(row: Row, heading: str, item: str) -> bool:
    """Whether ``row`` cites the contract row ``(heading, item)``: same section, and the row's text is the
    item or its beginning (long first cells are cited by their opening words)."""
    return section_of(heading, row.section) and item.startswith(row.item)


def test_every_contract_row_has_a_case() -> None:
    rows = contract_rows()
    assert len(rows) > 80, "the contract's tables were not found"
    cited = {item.row for item in CASES} | NOT_EXERCISED
    missing = [
        f"{heading} :: {item}" for heading, item in sorted(rows) if not any(covers(row, heading, item) for row in cited)
    ]
    assert not missing, "contract rows without a case in tests/doors/test_contract_matrix.py:\n" + "\n".join(missing)


def test_every_case_cites_the_contract() -> None:
    """Each case's row is (the beginning of) exactly one table row, bullet or example of its section, or else
    a phrase of the section's text (so a case cannot cite a row that was reworded or removed)."""
    sections = contract_sections()
    rows = contract_rows()
    stale = []
    for row in {item.row for item in CASES} | NOT_EXERCISED:
        headings = [heading for heading in sections if section_of(heading, row.section)]
        assert len(headings) == 1, f"{row.section!r} should name one section of the contract: {headings}"
        (heading,) = headings
        cited = [item for section, item in rows if covers(row, section, item)]
        assert len(cited) <= 1, f"{row.item!r} begins several rows of {heading!r}: {cited}"
        if not cited and " ".join(row.item.split()) not in " ".join(sections[heading].split()):
            stale.append(f"{heading} :: {row.item}")
    assert not stale, "cases cite text the contract does not hold:\n" + "\n".join(stale)


def test_the_matrix_covers_every_door() -> None:
    doors = {item.door for item in CASES}
    assert doors >= {
        "make",
        "reset",
        "position",
        "step",
        "before reset",
        "batch",
        "snapshot",
        "wrapper",
        "single-agent",
        "config",
        "training",
        "agents",
        "records",
        "tables",
        "cli",
        # the hostile doors (tests/support/contract_doors/); the cache and the shared arrays refuse nothing, their
        # tables are tests/doors/test_door_cache.py and tests/doors/test_door_shared_arrays.py
        "openspiel",
        "raw states",
        "sizes",
        "weights",
        "types",
        "human window",
        "cli_work",
    }
    names = [f"{item.door}: {item.name}" for item in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
