"""Array copies and fills for compiled code, written as loops.

A numpy slice assignment (``target[:n] = source[:n]``) compiles numpy's shape checks with their
error messages (string formatting, about a second of compile time per kernel that uses one); these
loops compile to the same copy without them. Each is inlined into its caller.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.jit import njit

__all__ = ["copy_rows", "copy_slots", "fill_slots"]


@njit(cache=True, inline="always", error_model="numpy")
def copy_slots(target: np.ndarray, source: np.ndarray, count: int) -> None:
    """``target[:count] = source[:count]`` for 1-d arrays."""
    for slot in range(count):
        target[slot] = source[slot]


@njit(cache=True, inline="always", error_model="numpy")
def fill_slots(target: np.ndarray, start: int, stop: int, value: int) -> None:
    """``target[start:stop] = value`` for a 1-d array."""
    for slot in range(start, stop):
        target[slot] = value


@njit(cache=True, inline="always", error_model="numpy")
def copy_rows(target: np.ndarray, source: np.ndarray, rows: int) -> None:
    """``target[:rows] = source[:rows]`` for 2-d arrays of the same width."""
    for row in range(rows):
        for column in range(source.shape[1]):
            target[row, column] = source[row, column]
