"""Contract cases of the strong search's and the AlphaZero agents' doors (docs/contract.md, "Strong search and
AlphaZero agents"): time budgets, the deepening search's arguments, the compiled vector env's opponent, the
``az`` agent's simulations and weights, and the batched search's states and evaluator.

The cases that read weights run on a temporary folder of their own holding tiny Kalah weights
(:mod:`support.alphazero_weights`); what must not change is the folder's content.
``tests/doors/test_alphazero_doors.py`` and ``tests/algorithms/test_deepening_search.py`` have the behaviours around
them.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

import mancala_envs
from mancala_envs.agents import AlphaBetaAgent, AlphaZeroAgent, make_agent
from mancala_envs.agents.alphazero import load_alphazero
from mancala_envs.agents.pretrained import MANIFEST, MissingWeightsError, PretrainedWeightsError
from mancala_envs.agents.search_agents import TranspositionTable, deepening_search
from mancala_envs.algorithms.batched_mcts import BatchedMCTS, uniform_evaluator
from mancala_envs.games.kalah import Kalah
from mancala_envs.games.ouril import Ouril
from mancala_envs.views.vector_env import MancalaVectorEnv

from support.alphazero_weights import write_tiny_weights
from support.contract import Case, Row

DOOR = "strength"
SECTION = "Strong search and AlphaZero agents:"
BUDGET = "an alphabeta time budget must be a number of seconds from 0.001 to 3600, as in 'alphabeta:t=0.1'"

CASES: list[Case] = []


def case(item: str, name: str, call: Any, error: Any, *words: str, **options: Any) -> None:
    CASES.append(Case(DOOR, Row(SECTION, item), name, call, error, words, **options))


def kalah_opening() -> tuple[Any, np.ndarray]:
    game = Kalah()
    return game, game.new_state(0)


def weights_folder() -> Path:
    """A new folder with tiny Kalah AlphaZero weights (and no Ouril ones)."""
    folder = Path(tempfile.mkdtemp(prefix="mancala-az-"))
    write_tiny_weights(folder, Kalah())
    return folder


def content(folder: Path) -> dict[str, bytes]:
    return {item.name: item.read_bytes() for item in sorted(folder.iterdir())}


def with_ouril_copy(folder: Path) -> Any:
    """Copies the Kalah weights as Ouril's, listed in the manifest, then loads them for Ouril."""
    shutil.copy(folder / "kalah_az.safetensors", folder / "ouril_az.safetensors")
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest["ouril_az.safetensors"] = manifest["kalah_az.safetensors"]
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return load_alphazero(Ouril(), folder)


IN_FOLDER = {"subject": weights_folder, "frozen": content}

row = "a time budget that is not a number of seconds from 0.001 to 3600"
for name in ("alphabeta:t=0", "alphabeta:t=abc", "alphabeta:t=nan", "alphabeta:t=inf", "alphabeta:t=4000"):
    case(row, f"make_agent({name!r})", lambda _, n=name: make_agent(n), ValueError, BUDGET, f"(got {name!r})")
case(row, "AlphaBetaAgent(budget=1e9)", lambda _: AlphaBetaAgent(budget=1e9), ValueError, BUDGET)
row = "a budget of another type"
case(row, "AlphaBetaAgent(budget='0.1')", lambda _: AlphaBetaAgent(budget="0.1"), TypeError,  # type: ignore[arg-type]
     "budget must be a number of seconds or None (got str).")  # fmt: skip
case(row, "deepening_search(budget=True)", lambda _: deepening_search(*kalah_opening(), budget=True), TypeError,
     "budget must be a number of seconds or None (got bool).")  # fmt: skip
case("`deepening_search` with neither a depth nor a budget", "deepening_search(game, state)",
     lambda _: deepening_search(*kalah_opening()), ValueError,
     "deepening_search needs a depth (plies), a budget (seconds) or both, e.g. budget=0.1.")  # fmt: skip
row = "`deepening_search(..., transpositions=x)`"
case(row, "transpositions=5", lambda _: deepening_search(*kalah_opening(), depth=2, transpositions=5), TypeError,
     "transpositions must be a TranspositionTable or None (got int).")  # fmt: skip
case(row, "TranspositionTable(5)", lambda _: TranspositionTable(5), ValueError,
     "transposition table bits must be an integer from 10 to 26")  # fmt: skip
case("a time budget as the compiled vector env's opponent", "opponent='alphabeta:t=0.1'",
     lambda _: MancalaVectorEnv("kalah_v0", 2, opponent="alphabeta:t=0.1"), ValueError,
     "opponent must be a compiled agent for the compiled vector env", "(got 'alphabeta:t=0.1')",
     "play one SingleAgentEnv per game")  # fmt: skip

row = "`az:N` / `AlphaZeroAgent(simulations)` with simulations outside 0 to 100,000"
case(row, "make_agent('az:x')", lambda _: make_agent("az:x"), ValueError,
     "az simulations must be an integer from 0 to 100000 as in 'az:100' (got 'az:x').")  # fmt: skip
case(row, "make_agent('az:100001')", lambda _: make_agent("az:100001"), ValueError, "az simulations")
case(row, "AlphaZeroAgent(-1)", lambda _: AlphaZeroAgent(-1), ValueError,
     "simulations must be from 0 to 100000, as in 'az:100' (got -1).")  # fmt: skip
case(row, "AlphaZeroAgent(1.5)", lambda _: AlphaZeroAgent(1.5), TypeError,  # type: ignore[arg-type]
     "simulations must be an integer from 0 to 100000 (got 1.5).")  # fmt: skip
row = "an `az` agent (at its first move) or `load_alphazero` where the weights folder has no"
case(row, "az agent, no ouril weights", lambda f: AlphaZeroAgent(5, folder=f).act_on_state(Ouril(),
     Ouril().new_state(0)), MissingWeightsError, "no AlphaZero weights for ouril in",
     "`mancala-envs train --alphazero --game ouril --export-pretrained", **IN_FOLDER)  # fmt: skip
case(row, "load_alphazero('ouril', folder)", lambda f: load_alphazero("ouril", f), MissingWeightsError,
     "no AlphaZero weights for ouril in", **IN_FOLDER)  # fmt: skip
case("AlphaZero weights that fail a check", "kalah weights listed as ouril's", with_ouril_copy,
     PretrainedWeightsError, "holds weights trained on kalah_v0, not ouril_v0",
     "`mancala-envs train --alphazero --game ouril --export-pretrained FOLDER`", subject=weights_folder)  # fmt: skip
row = "`BatchedMCTS.run` with states that are not"
case(row, "states of another game", lambda _: BatchedMCTS(Kalah(), 4).run(Ouril().new_state(0)[None],
     uniform_evaluator(Kalah())), ValueError, "states must be an (N, 44) int64 array of kalah_v0 states")  # fmt: skip
case(row, "an evaluator of the wrong shape", lambda _: BatchedMCTS(Kalah(), 4).run(Kalah().new_state(0)[None],
     lambda observations, masks: (np.ones((1, 5)), np.zeros(1))), ValueError,
     "the evaluator must return priors of shape (1, 6) and values of shape (1,)")  # fmt: skip

_ = mancala_envs  # the registry is loaded before the vector env is made
