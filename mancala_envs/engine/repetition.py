"""Game-level repetition detection for the two-row games (``docs/architecture.md``, Common conventions).

Every position ``(board, player to move)`` reached since the last capture is
remembered; reaching one again ends the game. Captured seeds never return to the
board, so the memory is cleared on each capture.

Positions are stored as exact integer keys, not hashes: between two captures
the number of seeds on the board is fixed, so a board is a *composition* of that
number into ``n_pits`` parts, and compositions have an exact rank in the
combinatorial number system ("stars and bars"). For every supported
configuration the rank fits comfortably in 63 bits (checked by
:func:`key_fits`), so two different positions never share a key.
"""

from __future__ import annotations

from math import comb

import numpy as np

from mancala_envs.engine.jit import njit
from mancala_envs.engine.state import HISTORY_FILTER, HISTORY_LEN

__all__ = ["NO_HISTORY", "history_clear", "history_repeats", "key_fits", "position_key", "position_key_at"]

#: ``history_start`` of a game that keeps no repetition history (``repetition=False``, or no repetition rule)
NO_HISTORY = 0

_MAX_N = 128
_MAX_K = 32


def _binomial_table() -> np.ndarray:
    table = np.zeros((_MAX_N, _MAX_K), dtype=np.int64)
    for n in range(_MAX_N):
        for k in range(min(n + 1, _MAX_K)):
            value = comb(n, k)
            table[n, k] = min(2**62, value)
    return table


_BINOMIAL = _binomial_table()
#: the same table column by column (``C(n, k)`` at ``k * _MAX_N + n``): the key's lookups for one pit
#: lie at a fixed offset from the running seed count, so each costs one add and one load
_BINOMIAL_COLUMNS = np.ascontiguousarray(_BINOMIAL.T).ravel()


def key_fits(total_seeds: int, n_pits: int) -> bool:
    """Tells whether exact position keys exist for this board size and seed total."""
    n = total_seeds + n_pits - 1
    k = n_pits - 1
    return n < _MAX_N and k < _MAX_K and 2 * comb(n, k) + 1 < 2**62


@njit(cache=True, inline="always", error_model="numpy")
def position_key_at(array: np.ndarray, board_start: int, n_pits: int, player: int) -> int:
    """Returns the exact key of ``(board, player)`` for the board held in ``array[board_start : board_start + n_pits]``.

    Reading the board in place (for example straight from a game state) spares
    the compiled engine an array view per call.
    """
    rank = 0
    prefix = 0
    for pit in range(n_pits - 1):
        prefix += array[board_start + pit]
        # C(prefix + pit, pit + 1). The index is never negative (seed counts are not), and an unsigned one
        # spares numba's negative-index wraparound: with the column layout this halves the key's
        # instructions, and the key is computed on every ply of a game with the repetition rule.
        rank += _BINOMIAL_COLUMNS[np.uint64((pit + 1) * _MAX_N + prefix + pit)]
    return rank * 2 + player


@njit(cache=True, inline="always", error_model="numpy")
def position_key(board: np.ndarray, player: int) -> int:
    """Returns the exact key of ``(board, player)`` among boards with the same seed total."""
    return position_key_at(board, 0, board.shape[0], player)


@njit(cache=True, inline="always", error_model="numpy")
def history_clear(state: np.ndarray) -> None:
    """Forgets every remembered position (called on each capture)."""
    state[HISTORY_LEN] = 0
    state[HISTORY_FILTER] = 0


@njit(cache=True, inline="always", error_model="numpy")
def history_repeats(state: np.ndarray, history_start: int, key: int) -> bool:
    """Remembers ``key`` and tells whether it had been seen since the last capture.

    A 61-bit filter (bit ``key % 61``) answers "certainly new" for most keys
    without scanning the stored keys; only a set bit leads to the exact scan.
    A key already seen is not stored again.
    """
    length = state[HISTORY_LEN]
    # keys are never negative: an unsigned remainder is a multiplication, a signed one needs sign fixes
    bit = np.int64(1) << np.int64(np.uint64(key) % np.uint64(61))
    seen = False
    if state[HISTORY_FILTER] & bit:
        for i in range(length):
            if state[np.uint64(history_start + i)] == key:
                seen = True
                break
    stored = not seen and history_start + length < state.shape[0]
    if stored:
        state[np.uint64(history_start + length)] = key
    # Unconditional writes (unchanged values when nothing is stored) keep the compiled code
    # free of reference counting.
    state[HISTORY_LEN] = length + 1 if stored else length
    state[HISTORY_FILTER] |= bit if stored else 0
    return seen
