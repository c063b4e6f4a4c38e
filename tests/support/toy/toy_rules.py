"""Toy: a small two-row sowing game that lives only in the test suite (``toy.md`` in this folder).

It is the seventh game of the proof that adding a game is one folder plus one line in the list
(:data:`mancala_envs.games.GAME_MODULES`): the test suite adds ``"support.toy"`` to the list, and the
parametrised env, batch, vector, agent, layout and docs-table checks run on it unchanged.

The rules, in the order of the rules page:

1. **Turn.** The player to move picks a non-empty pit of their own row and sows its seeds
   counter-clockwise, one per pit, skipping the emptied pit on every pass.
2. **Capture.** If the last seed lands in an opponent pit that now holds 2 or 3 seeds, that pit alone
   is captured into the mover's store.
3. **End.** A player to move with no seeds in their row, a repeated position or the ply cap ends the
   game, every seed on the board going to the owner of its row. The larger store wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mancala_envs.engine.capture import count_set, in_count_set, lift_chain
from mancala_envs.engine.ending import PLAIN_WIN, check_end, end_ply
from mancala_envs.engine.jit import njit
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.sowing import CCW, ORIGIN_SKIPPED, sow_lap
from mancala_envs.engine.state import BOARD, LEGAL, OK, PLAYER, STATUS, STORE
from mancala_envs.engine.trace import trace_clear
from mancala_envs.games.game import Variant, check_bool, check_int
from mancala_envs.games.two_row_family.two_row_rules import (
    HISTORY_START,
    MAX_PLIES,
    ROW_SIZE,
    SEEDS_PER_PIT,
    TOTAL_SEEDS,
    TWO_ROW_LAYOUT,
    TwoRowGame,
    observe_two_row,
)

__all__ = ["LAYOUT", "ToyConfig", "ToyRules", "legal_bits", "observe", "reset_state", "step"]

SEEDS_PER_PIT_TOY = 4
CAPTURE_COUNTS = count_set(2, 3)  # rule 2
#: a single pit is captured, never a chain (rule 2)
ONE_PIT = 1
#: the toy has no store threshold: the game ends only as rule 3 says
NO_THRESHOLD = 0
#: a player without seeds never passes: the game ends (rule 3)
NO_PASSING = False

#: the toy's layout: the two-row one, nothing added
LAYOUT = TWO_ROW_LAYOUT.extended()


@dataclass(frozen=True)
class ToyConfig:
    """Options of the toy game; every field is checked when the config is built.

    Attributes:
        pits_per_row: Pits in each row, 2 to 4.
        max_plies: Ply cap; reaching it truncates the game.
        repetition: End the game when a ``(board, player to move)`` position repeats since the last capture.
    """

    pits_per_row: int = 3
    max_plies: int = 200
    repetition: bool = True

    def __post_init__(self) -> None:
        check_int("pits_per_row", self.pits_per_row, 2, 4)
        check_int("max_plies", self.max_plies, 1, 1_000_000)
        check_bool("repetition", self.repetition)

    @property
    def total_seeds(self) -> int:
        """Seeds in the game: 4 in each pit."""
        return 2 * self.pits_per_row * SEEDS_PER_PIT_TOY


@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move (rule 1: any non-empty own pit), as a bit mask."""
    return _legal_bits(state, params[ROW_SIZE])


@njit(cache=True, inline="always", error_model="numpy")
def _legal_bits(state: np.ndarray, row_size: int) -> int:
    first = BOARD + state[PLAYER] * row_size
    legal = 0
    for local in range(row_size):
        if state[first + local] > 0:
            legal |= 1 << local
    return legal


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position: 4 seeds in every pit, ``first_player`` to move."""
    start_match(state)
    start_game(state, 2 * params[ROW_SIZE], params[SEEDS_PER_PIT], first_player, params[HISTORY_START])
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, inline="always", error_model="numpy")
def step(state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """Plays ``action`` (the mover's local pit) and advances the game.

    Returns:
        ``OK``, or ``ILLEGAL`` / ``GAME_OVER`` with the state unchanged.
    """
    row_size = params[ROW_SIZE]
    history_start = params[HISTORY_START]
    max_plies = params[MAX_PLIES]
    total = params[TOTAL_SEEDS]
    refused = refusal_code(state[STATUS], state[LEGAL], action, row_size)
    if refused != OK:
        return refused
    n_pits = 2 * row_size
    player = state[PLAYER]
    trace_clear(trace)
    # Rule 1: sow, skipping the origin.
    landing = sow_lap(state, BOARD, BOARD + player * row_size + action, CCW, ORIGIN_SKIPPED, 0, BOARD, n_pits, trace)
    # Rule 2: the landing pit alone, on the opponent's side, holding 2 or 3.
    captured = 0
    opponent_row = BOARD + (1 - player) * row_size
    if opponent_row <= landing < opponent_row + row_size and in_count_set(state[landing], CAPTURE_COUNTS):
        captured = lift_chain(state, BOARD, landing, ONE_PIT, opponent_row, row_size, trace)
        state[STORE + player] += captured
    end_ply(state, row_size, action, captured, NO_THRESHOLD, NO_PASSING, total, PLAIN_WIN)
    # Rule 3: the next player's legal moves, then no legal move, repetition, ply cap.
    state[LEGAL] = _legal_bits(state, row_size)
    check_end(state, row_size, history_start, max_plies, total, PLAIN_WIN)
    return OK


@njit(cache=True, error_model="numpy")
def observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """Writes ``player``'s egocentric observation (the two-row one) and action mask."""
    observe_two_row(state, player, params[ROW_SIZE], params[MAX_PLIES], observation, mask)


class ToyRules(TwoRowGame):
    """The toy's rules bound to a config: the game's declarations and its ``params``.

    Args:
        config: The game's options.
    """

    name = "toy"
    version = 0
    config_class = ToyConfig
    variants = (
        Variant("toy", {}, "Toy, 2x3, 4 seeds per pit (T = 24): the test suite's seventh game"),
        Variant("toy-mini", {"pits_per_row": 2}, "Toy on the 2x2 board (T = 16)"),
    )

    def __init__(self, config: ToyConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        common = self._common_params(c.pits_per_row, SEEDS_PER_PIT_TOY, c.max_plies, c.repetition, NO_PASSING)
        self.params = LAYOUT.pack_params(**common)
