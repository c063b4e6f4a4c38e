"""The contract's "Raw states" refusals (issue 30, item 9): every public door that takes an engine state array
(``act_on_state`` of the agents, ``alphabeta_search``, ``mcts_search``, the perfect-play ``Table``'s lookups,
``BoardPicture.draw``/``surface``, ``openspiel.MancalaState(game, state)``, ``Game.check_state`` itself) checks
it with ``Game.check_state`` before anything reads it. A refused call changes neither the state nor the agent. The
table-driven test over every game, corruption and door is ``tests/doors/test_door_raw_states.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mancala_envs.agents import GreedyAgent, RandomAgent, make_agent
from mancala_envs.agents.search_agents import alphabeta_search, mcts_search
from mancala_envs.algorithms.retrograde import build_table
from mancala_envs.engine.state import BOARD, HISTORY_LEN, LEGAL, PLAYER, STORE
from mancala_envs.envs.registration import make_game
from mancala_envs.integrations.openspiel import MancalaState, load_game
from mancala_envs.rendering.picture import BoardPicture

from support.contract import Case, Row

SECTION = "Raw states"
NOT_SPIEL = "`openspiel.MancalaState(game, state)` with a `game` that is not"
FORM = "a state that is not a numpy array"
LAYOUT = "a non-contiguous view"
CONTENT = "a state no game reaches"
OVER = "`act_on_state`, `alphabeta_search` or `mcts_search` of a finished game"
DRAW = "`alphabeta_search` or `mcts_search` with a `draw`"
KALAH_FORM = "state must be a writable, C-contiguous int64 array of shape (44,), a state of kalah_v0"
NO_GAME = "No kalah_v0 game reaches this state: take states from the engine (env.unwrapped.state_array"
WORDS = np.array([1, 2, 3, 4], np.int64)

CASES: list[Case] = []


def subject() -> dict[str, Any]:
    """Kalah a few plies in, and a seeded agent."""
    game = make_game("kalah_v0")
    state = game.new_state(0)
    for action in (2, 0, 4):  # sown into the store (player 0 again), then two ordinary moves
        game.step(state, action, np.zeros(0, np.int64))
    return {"game": game, "state": state, "agent": make_agent("alphabeta:2", seed=3)}


def frozen(held: dict[str, Any]) -> Any:
    return held["state"].tobytes(), held["agent"].rng.bit_generator.state


def case(item: str, name: str, call: Callable[[dict[str, Any]], Any], error: type[Exception], *words: str) -> None:
    CASES.append(
        Case("raw states", Row(SECTION, item), name, call, error, words, subject=subject, frozen=frozen, exact=True)
    )


def corrupted(change: Callable[[np.ndarray], Any]) -> Callable[[dict[str, Any]], np.ndarray]:
    def make(held: dict[str, Any]) -> np.ndarray:
        bad = held["state"].copy()
        change(bad)
        return bad

    return make


def negative_pit(state: np.ndarray) -> None:
    state[BOARD + 1] += state[BOARD] + 1
    state[BOARD] = -1


def read_only(held: dict[str, Any]) -> np.ndarray:
    view = held["state"].view()
    view.flags.writeable = False
    return view


# --- the array's form ------------------------------------------------------------------------------------------------
case(
    FORM,
    "act_on_state(a list)",
    lambda h: h["agent"].act_on_state(h["game"], h["state"].tolist()),
    TypeError,
    KALAH_FORM,
    "(got list)",
)
case(
    FORM,
    "act_on_state(float64 of whole numbers)",
    lambda h: RandomAgent(0).act_on_state(h["game"], h["state"].astype(np.float64)),
    TypeError,
    KALAH_FORM,
    "(got dtype float64; values are not converted)",
)
case(
    FORM,
    "alphabeta_search(int32)",
    lambda h: alphabeta_search(h["game"], h["state"].astype(np.int32), 2),
    TypeError,
    KALAH_FORM,
    "(got dtype int32",
)
case(
    FORM,
    "mcts_search(2-d)",
    lambda h: mcts_search(h["game"], h["state"].reshape(1, -1), 4, WORDS.copy()),
    TypeError,
    KALAH_FORM,
    "(got shape (1, 44))",
)
case(
    FORM,
    "act_on_state(another game's state)",
    lambda h: h["agent"].act_on_state(h["game"], make_game("ouril_v0").new_state(0)),
    TypeError,
    KALAH_FORM,
    "(got shape (1046,))",
)
case(
    FORM,
    "Table.value(one entry short)",
    lambda h: build_table(h["game"], 1).value(h["state"][:-1].copy()),
    TypeError,
    KALAH_FORM,
    "(got shape (43,))",
)
case(
    FORM,
    "BoardPicture.draw(a list)",
    lambda h: BoardPicture(h["game"]).draw(h["state"].tolist()),
    TypeError,
    KALAH_FORM,
    "(got list)",
)
case(
    FORM,
    "openspiel.MancalaState(int32)",
    lambda h: MancalaState(load_game("kalah_v0"), h["state"].astype(np.int32)),
    TypeError,
    KALAH_FORM,
    "(got dtype int32",
)
case(
    LAYOUT,
    "act_on_state(a non-contiguous view)",
    lambda h: GreedyAgent(0).act_on_state(h["game"], np.repeat(h["state"], 2)[::2]),
    TypeError,
    KALAH_FORM,
    "(got a non-contiguous view; pass np.array(state) for a writable copy)",
)
case(
    LAYOUT,
    "check_state(a read-only array)",
    lambda h: h["game"].check_state(read_only(h)),
    TypeError,
    KALAH_FORM,
    "(got a read-only array; pass np.array(state) for a writable copy)",
)

# --- the content -----------------------------------------------------------------------------------------------------
case(
    CONTENT,
    "act_on_state(a negative pit)",
    lambda h: h["agent"].act_on_state(h["game"], corrupted(negative_pit)(h)),
    ValueError,
    "the state's board has a negative count.",
    NO_GAME,
)
case(
    CONTENT,
    "alphabeta_search(player 2)",
    lambda h: alphabeta_search(h["game"], corrupted(lambda s: s.__setitem__(PLAYER, 2))(h), 2),
    ValueError,
    "the state's player slot holds 2, out of range (0..1).",
    NO_GAME,
)
case(
    CONTENT,
    "mcts_search(a history length)",
    lambda h: mcts_search(h["game"], corrupted(lambda s: s.__setitem__(HISTORY_LEN, 10**9))(h), 4, WORDS.copy()),
    ValueError,
    "repetition history length 1000000000",
    NO_GAME,
)
case(
    CONTENT,
    "Table.value(a legal-move mask)",
    lambda h: build_table(h["game"], 1).value(corrupted(lambda s: s.__setitem__(LEGAL, 1 << 62))(h)),
    ValueError,
    "the state's legal-move mask does not match its position.",
    NO_GAME,
)
case(
    CONTENT,
    "BoardPicture.draw(a negative pit)",
    lambda h: BoardPicture(h["game"]).draw(corrupted(negative_pit)(h)),
    ValueError,
    "the state's board has a negative count.",
    NO_GAME,
)
case(
    CONTENT,
    "BoardPicture.surface(a negative store)",
    lambda h: BoardPicture(h["game"]).surface(corrupted(lambda s: s.__setitem__(STORE, -1))(h)),
    ValueError,
    "the state's stores are negative",
    NO_GAME,
)
case(
    CONTENT,
    "openspiel.MancalaState(player 2)",
    lambda h: MancalaState(load_game("kalah_v0"), corrupted(lambda s: s.__setitem__(PLAYER, 2))(h)),
    ValueError,
    "the state's player slot holds 2, out of range (0..1).",
    NO_GAME,
)
case(
    NOT_SPIEL,
    "openspiel.MancalaState(the engine game, state)",
    lambda h: MancalaState(h["game"], h["state"]),
    TypeError,
    "game must be a mancala-envs OpenSpiel game such as load_game('kalah_v0') (got Kalah).",
)
case(
    CONTENT,
    "check_state(seeds over the total)",
    lambda h: h["game"].check_state(corrupted(lambda s: s.__setitem__(BOARD, s[BOARD] + 1000))(h)),
    ValueError,
    "seeds; this config has 48.",
    NO_GAME,
)


# --- a finished game, the searches' numbers --------------------------------------------------------------------------
def finished(held: dict[str, Any]) -> np.ndarray:
    game = held["game"]
    state = game.new_state(0)
    game.load_position(state, [1] + [0] * 11, [40, 7], 0)  # player 0's last seed: the game ends after it
    game.step(state, 0, np.zeros(0, np.int64))
    return state


case(
    OVER,
    "act_on_state(a finished game)",
    lambda h: h["agent"].act_on_state(h["game"], finished(h)),
    ValueError,
    "the player to move has no legal action: the game is over",
)
case(
    DRAW,
    "alphabeta_search(draw=nan)",
    lambda h: alphabeta_search(h["game"], h["state"], 2, float("nan")),
    ValueError,
    "draw must be a number in [0, 1), e.g. rng.random() (got nan)",
)
case(
    DRAW,
    "mcts_search(draw=1.0)",
    lambda h: mcts_search(h["game"], h["state"], 4, WORDS.copy(), 1.0),
    ValueError,
    "draw must be a number in [0, 1)",
)
case(
    DRAW,
    "mcts_search(c=-1)",
    lambda h: mcts_search(h["game"], h["state"], 4, WORDS.copy(), 0.5, -1.0),
    ValueError,
    "the exploration constant c must be a finite number >= 0 (got -1.0)",
)
