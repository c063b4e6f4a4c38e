"""Boards as numbers, and margins as bytes: how a perfect-play table is laid out.

A perfect-play table (:mod:`mancala_envs.algorithms.retrograde`) stores its positions in the order of
:func:`board_index`, one byte per value (:func:`table_margin` reads it back); the compiled searches
(:mod:`mancala_envs.algorithms.tree_search`) read a table at their leaves with the same two functions.
"""

from __future__ import annotations

import math

import numpy as np

from mancala_envs.engine.jit import njit

__all__ = ["EXACT_BIT", "VALUE_BITS", "VALUE_OFFSET", "binomials", "board_index", "next_board", "table_margin"]

#: a table byte is ``margin + VALUE_OFFSET`` in its low 7 bits (``VALUE_BITS``), with ``EXACT_BIT`` set
#: in a value byte when the value holds whatever the history
VALUE_OFFSET = 64
EXACT_BIT = 128
VALUE_BITS = 127


@njit(cache=True, inline="always", error_model="numpy")
def table_margin(byte: int) -> int:
    """The margin held in a table byte (its low 7 bits, less the offset)."""
    return (int(byte) & VALUE_BITS) - VALUE_OFFSET


def binomials(size: int, columns: int | None = None) -> np.ndarray:
    """``C(n, k)`` for ``0 <= n, k < size`` as an ``int64`` table (0 where ``k > n``).

    Args:
        size: Rows and columns of the table.
        columns: Fill only ``k <= columns`` (the rest 0): all that :func:`board_index` reads for boards of
            ``columns`` pits, and small enough for ``int64`` where whole rows would not be.
    """
    table = np.zeros((size, size), dtype=np.int64)
    for n in range(size):
        for k in range(min(n, size - 1 if columns is None else columns) + 1):
            table[n, k] = math.comb(n, k)
    return table


@njit(cache=True, error_model="numpy")
def board_index(array: np.ndarray, start: int, n_pits: int, binom: np.ndarray) -> int:
    """Index of the board held at ``array[start : start + n_pits]`` among all boards (a table's order).

    The boards are ordered by their seed count, then lexicographically: boards with fewer seeds
    first (``C(s + n_pits - 1, n_pits)`` boards hold fewer than ``s`` seeds), then the rank of the
    board among the compositions of its count.
    """
    seeds = 0
    for pit in range(start, start + n_pits):
        seeds += array[pit]
    index = binom[seeds + n_pits - 1, n_pits] if seeds > 0 else 0
    left = seeds
    for j in range(n_pits - 1):
        rest = n_pits - 1 - j
        count = array[start + j]
        index += binom[left + rest, rest] - binom[left - count + rest, rest]
        left -= count
    return index


@njit(cache=True, error_model="numpy")
def next_board(board: np.ndarray, n_pits: int) -> bool:
    """Advances ``board`` to the next composition of its seed count in lexicographic order; False after the last."""
    tail = board[n_pits - 1]
    j = n_pits - 2
    while tail == 0:
        if j <= 0:
            return False  # every seed is in the first pit: the last board
        tail += board[j]
        j -= 1
    # tail = seeds after pit j, at least one
    board[j] += 1
    for pit in range(j + 1, n_pits):
        board[pit] = 0
    board[n_pits - 1] = tail - 1
    return True
