"""Starting a game (and a match) on the shared state layout."""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.jit import njit
from mancala_envs.engine.repetition import history_clear, history_repeats, position_key_at
from mancala_envs.engine.state import (
    BOARD,
    END_NONE,
    END_REASON,
    FIRST_MOVE_DONE,
    GAME_OVER,
    GAMES_PLAYED,
    ILLEGAL,
    LAST_ACTION,
    LEGAL,
    MATCH,
    OK,
    PASSES,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STARTER,
    STATUS,
    STORE,
    TURN,
    WINNER,
)

__all__ = ["refusal_code", "start_game", "start_match"]


@njit(cache=True, error_model="numpy")
def start_match(state: np.ndarray) -> None:
    """Clears the match tallies (match points and games played)."""
    state[MATCH] = 0
    state[MATCH + 1] = 0
    state[GAMES_PLAYED] = 0


@njit(cache=True, error_model="numpy")
def start_game(state: np.ndarray, n_pits: int, seeds_per_pit: int, first_player: int, history_start: int) -> None:
    """Sets up a new game: every pit holds ``seeds_per_pit``, stores are empty.

    The match tallies are kept. ``LEGAL`` is left at 0 for the game's rules to
    fill in. With ``history_start > 0`` the start position is remembered for
    the repetition rule.
    """
    state = borrowed_view(state)  # no reference counting (mancala_envs.engine.board_views)
    state[PLAYER] = first_player
    state[STARTER] = first_player
    state[PLY] = 0
    state[TURN] = 0
    state[STATUS] = RUNNING
    state[END_REASON] = END_NONE
    state[WINNER] = -1
    state[LEGAL] = 0
    state[LAST_ACTION] = -1
    state[PASSES] = 0
    state[FIRST_MOVE_DONE] = 0
    history_clear(state)
    for player in range(2):
        state[STORE + player] = 0
        state[SCORE + player] = 0
        state[POINTS + player] = 0
    for pit in range(n_pits):
        state[BOARD + pit] = seeds_per_pit
    if history_start > 0:
        history_repeats(state, history_start, position_key_at(state, BOARD, n_pits, first_player))


@njit(cache=True, inline="always", error_model="numpy")
def refusal_code(status: int, legal: int, action: int, n_actions: int) -> int:
    """The first check of every compiled ``step``: may ``action`` be played now?

    ``GAME_OVER`` if the game is over (``status`` is not ``RUNNING``), ``ILLEGAL`` if the action is out
    of range or not in ``legal`` (the ``LEGAL`` slot), else ``OK``.

    It takes plain integers, so that a compiled ``step`` can make its checks
    before touching any array helper (which keeps reference counting out of
    the compiled code).
    """
    if status != RUNNING:
        return GAME_OVER
    if action < 0 or action >= n_actions or (legal >> action) & 1 == 0:
        return ILLEGAL
    return OK
