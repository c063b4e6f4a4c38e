"""Modiar: the Moroccan children's game of 2x3 pits (RULES.md §4).

The rules, in the order of the rules page:

1. **Legal pits.** The player to move picks one of their own pits holding at
   least 2 stones; a pit holding a single stone may never be moved.
2. **Sowing (origin first).** All stones of the pit are lifted; the first goes
   back into the emptied pit and the others follow counter-clockwise, one per
   pit, round the ring of 6 pits without skipping (a lap of 7 or more stones
   sows the origin again).
3. **Capture.** If the last stone makes its pit, on either side, hold 2, 4 or
   6, that pit is captured; then each preceding pit (``i - 1 mod 6``, crossing
   into the other row) holding 2, 4 or 6, stopping at any other count or before
   coming back to the landing pit. The mover keeps everything, stones from
   their own row included.
4. **First move.** The very first ply of the game captures nothing.
5. **Grand-slam ban.** A move that captures at least one stone from the
   opponent's row and leaves that row empty is illegal (decided by playing the
   move on a copy of the board).
6. **Feeding.** If the opponent's row is empty when the turn starts, only moves
   after which it is no longer empty are legal, if there is any; otherwise
   every move allowed by rules 1 and 5 is legal.
7. **End.** The game ends when the player to move has no legal move, when a
   ``(board, player to move)`` position repeats since the last capture, or at
   the ply cap; each player then adds the stones in their own pits to their
   captures.
8. **Winner.** The larger total wins (a win is worth 1 match point); 21-21 is a
   draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numba import njit

from mancala_envs.engine.capture import chain_length, count_set, lift_chain, take_chain
from mancala_envs.engine.ending import PLAIN_WIN, check_end, end_ply, row_seeds
from mancala_envs.engine.setup import refusal, start_game, start_match
from mancala_envs.engine.sowing import CCW, ORIGIN_FIRST, sow_lap
from mancala_envs.engine.state import (
    BOARD,
    FIRST_MOVE_DONE,
    LEGAL,
    OK,
    PLAYER,
)
from mancala_envs.engine.trace import trace_clear
from mancala_envs.games.base import check_bool, check_int
from mancala_envs.games.two_row import (
    HISTORY_START,
    MAX_PLIES,
    ROW_SIZE,
    SEEDS_PER_PIT,
    TOTAL_SEEDS,
    TwoRowGame,
)

__all__ = ["Modiar", "ModiarConfig", "legal_bits", "reset_state", "step"]

GAME_ID = 3  # the branch of the compiled game switch (mancala_envs.rollout)
PITS_PER_ROW = 3
STONES_PER_PIT = 7
SMALLEST_MOVE = 2  # rule 1: singletons never move
CAPTURE_COUNTS = count_set(2, 4, 6)  # rule 3: both the trigger and the chain


@dataclass(frozen=True)
class ModiarConfig:
    """Options of Modiar; every field is checked when the config is built.

    The rules page offers no variants of the rules themselves: 2x3 pits, 7
    stones each, are fixed.

    Attributes:
        max_plies: Ply cap; reaching it truncates the game and each player
            adds the stones in their own pits.
        repetition: End the game when a ``(board, player to move)`` position
            repeats since the last capture.
    """

    max_plies: int = 1000
    repetition: bool = True

    def __post_init__(self) -> None:
        check_int("max_plies", self.max_plies, 1, 1_000_000)
        check_bool("repetition", self.repetition)

    @property
    def total_seeds(self) -> int:
        """Stones in the game: 42."""
        return 2 * PITS_PER_ROW * STONES_PER_PIT


@njit(cache=True, error_model="numpy")
def _sow(board: np.ndarray, player: int, local: int, row_size: int, trace: np.ndarray) -> int:
    """Rule 2: one origin-first lap from ``player``'s local pit; returns the landing pit."""
    return sow_lap(board, player * row_size + local, CCW, ORIGIN_FIRST, 0, 0, 2 * row_size, trace)


@njit(cache=True, error_model="numpy")
def _capture_length(board: np.ndarray, landing: int, row_size: int) -> int:
    """Rule 3: the chain of 2s, 4s and 6s ending in ``landing``, round the whole ring."""
    return chain_length(board, landing, 0, 2 * row_size, CAPTURE_COUNTS, CAPTURE_COUNTS, True)


@njit(cache=True, error_model="numpy")
def _opponent_row_after(board: np.ndarray, player: int, local: int, row_size: int, captures: bool) -> tuple:
    """Plays a move on a copy; returns the opponent's row total after the sowing and after the capture."""
    scratch = board.copy()
    no_trace = np.empty(0, np.int64)
    landing = _sow(scratch, player, local, row_size, no_trace)
    after_sowing = row_seeds(scratch, 1 - player, row_size)
    if captures:
        lift_chain(scratch, landing, _capture_length(scratch, landing, row_size), 0, 2 * row_size, no_trace)
    return after_sowing, row_seeds(scratch, 1 - player, row_size)


@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move: rules 1, 5 and 6, as a bit mask."""
    row_size = params[ROW_SIZE]
    board = state[BOARD : BOARD + 2 * row_size]
    player = state[PLAYER]
    captures = state[FIRST_MOVE_DONE] == 1  # rule 4: the first ply captures nothing
    starving = row_seeds(board, 1 - player, row_size) == 0
    allowed = 0
    feeding = 0
    for local in range(row_size):
        if board[player * row_size + local] < SMALLEST_MOVE:  # rule 1
            continue
        after_sowing, after_capture = _opponent_row_after(board, player, local, row_size, captures)
        if after_sowing > 0 and after_capture == 0:  # rule 5: a grand slam
            continue
        allowed |= 1 << local
        if after_capture > 0:
            feeding |= 1 << local
    if starving and feeding != 0:  # rule 6; with no feeding move, every allowed move stays
        return feeding
    return allowed


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position: 7 stones in every pit, ``first_player`` to move."""
    start_match(state)
    start_game(state, 2 * params[ROW_SIZE], params[SEEDS_PER_PIT], first_player, params[HISTORY_START])
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, error_model="numpy")
def step(state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """Plays ``action`` (the mover's local pit) and advances the game.

    Returns:
        ``OK``, or ``ILLEGAL`` / ``GAME_OVER`` with the state unchanged.
    """
    refused = refusal(state, action, params[ROW_SIZE])
    if refused != OK:
        return refused
    row_size = params[ROW_SIZE]
    board = state[BOARD : BOARD + 2 * row_size]
    total = params[TOTAL_SEEDS]
    player = state[PLAYER]
    trace_clear(trace)
    # Rule 2: sow, origin first.
    landing = _sow(board, player, action, row_size, trace)
    # Rules 3 and 4: capture, except on the very first ply of the game.
    captured = 0
    if state[FIRST_MOVE_DONE] == 1:
        length = _capture_length(board, landing, row_size)
        captured = take_chain(state, board, player, landing, length, 0, 2 * row_size, trace)
    end_ply(state, board, row_size, action, captured, 0, False, total, PLAIN_WIN)
    # Rules 5-8: the next player's legal moves, then no legal move, repetition, ply cap.
    state[LEGAL] = legal_bits(state, params)
    check_end(state, board, row_size, params[HISTORY_START], params[MAX_PLIES], total, PLAIN_WIN)
    return OK


class Modiar(TwoRowGame):
    """Modiar, 2x3 pits, 7 stones per pit, origin-first sowing, captures on 2, 4 and 6.

    The stores hold the stones each player has captured (the game keeps them
    off the board). The observation adds a ``first_move`` flag to the two-row
    observation, since the first ply of a game captures nothing (rule 4).

    Args:
        config: The game's options.
    """

    name = "modiar"
    version = 0
    config_class = ModiarConfig
    game_id = GAME_ID
    reset_function = staticmethod(reset_state)
    step_function = staticmethod(step)
    legal_bits_function = staticmethod(legal_bits)

    def __init__(self, config: ModiarConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        # "forbidden": no automatic pass; a player without a legal move ends the game (rule 7).
        common = self._common_params(PITS_PER_ROW, STONES_PER_PIT, c.max_plies, c.repetition, False)
        self.params = np.array(common, dtype=np.int64)

    #: ``first_move_done=0`` loads a position in which the next ply is the game's first (rule 4)
    position_options: ClassVar[dict[str, str]] = {"first_move_done": "bool"}

    def check_position_flags(self, board: list[int], flags: dict[str, Any]) -> int:
        if "first_move_done" in flags:
            check_bool("first_move_done", flags["first_move_done"])
        return 0

    def apply_position_flags(self, state: np.ndarray, flags: dict[str, Any]) -> None:
        state[FIRST_MOVE_DONE] = int(flags.get("first_move_done", True))

    def position_flags(self, state: np.ndarray) -> dict[str, Any]:
        return {} if state[FIRST_MOVE_DONE] == 1 else {"first_move_done": False}

    def extra_features(self) -> list[tuple[str, int]]:
        return [("first_move", 1)]
