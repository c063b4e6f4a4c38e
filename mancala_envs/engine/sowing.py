"""Sowing one lap: lift the seeds of a pit and drop them one by one around a ring.

A *ring* is the run of board slots ``ring_start .. ring_start + ring_size - 1``
that a lap travels around (the whole 2n-pit board for the two-row games, one
player's 16 pits for Omweso). Moving "counter-clockwise" (``CCW``) is
``+1`` around the ring and clockwise (``CW``) is ``-1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.engine.trace import trace_sow

__all__ = [
    "CCW",
    "CW",
    "ORIGIN_FIRST",
    "ORIGIN_SKIPPED",
    "ORIGIN_SKIPPED_FIRST_CIRCUIT",
    "ORIGIN_SOWN",
    "next_pit",
    "seeds_sown_into",
    "sow_lap",
]

CCW = 1
CW = -1

# What a lap does with the pit it was lifted from (its *origin*):
ORIGIN_SOWN = 0  # the origin is an ordinary pit when the lap passes it again
ORIGIN_SKIPPED = 1  # the origin is skipped on every pass (Oware, Urim, Ouril)
ORIGIN_SKIPPED_FIRST_CIRCUIT = 2  # skipped on the first pass only (Ouril variant)
ORIGIN_FIRST = 3  # the first seed goes back into the origin (Modiar)


@njit(cache=True, inline="always", error_model="numpy")
def next_pit(pit: int, direction: int, ring_start: int, ring_size: int) -> int:
    """Returns the pit after ``pit`` in ``direction`` around the ring (no modulo: it is hot)."""
    pit += direction
    if pit >= ring_start + ring_size:
        return pit - ring_size
    if pit < ring_start:
        return pit + ring_size
    return pit


@njit(cache=True, error_model="numpy")
def sow_lap(
    board: np.ndarray,
    origin: int,
    direction: int,
    origin_rule: int,
    capacity: int,
    ring_start: int,
    ring_size: int,
    trace: np.ndarray,
) -> int:
    """Lifts every seed of ``origin`` and sows them one per pit around the ring.

    Args:
        board: The board slots, changed in place.
        origin: The pit whose seeds are lifted.
        direction: ``CCW`` or ``CW``.
        origin_rule: One of the ``ORIGIN_*`` constants.
        capacity: Pits already holding this many seeds are skipped (they take
            no seed and use none up); 0 means no limit.
        ring_start: First board slot of the ring.
        ring_size: Number of pits in the ring.
        trace: Buffer recording the sown pits (zero length: no record).

    Returns:
        The pit that received the last seed (``origin`` itself if the pit was
        empty, which callers never ask for).
    """
    seeds = board[origin]
    board[origin] = 0
    pit = origin
    if origin_rule == ORIGIN_FIRST and seeds > 0:
        board[origin] += 1
        trace_sow(trace, origin)
        seeds -= 1
    origin_passes = 0
    while seeds > 0:
        pit = next_pit(pit, direction, ring_start, ring_size)
        if pit == origin:
            origin_passes += 1
            if origin_rule == ORIGIN_SKIPPED:
                continue
            if origin_rule == ORIGIN_SKIPPED_FIRST_CIRCUIT and origin_passes == 1:
                continue
        if capacity > 0 and board[pit] >= capacity:
            continue
        board[pit] += 1
        trace_sow(trace, pit)
        seeds -= 1
    return pit


@njit(cache=True, error_model="numpy")
def seeds_sown_into(
    board: np.ndarray,
    origin: int,
    direction: int,
    origin_rule: int,
    capacity: int,
    ring_start: int,
    ring_size: int,
    row_start: int,
    row_size: int,
) -> int:
    """Counts the seeds a lap from ``origin`` would drop into a row, by simulating it.

    The board is not changed. The row must not contain ``origin``. This is the
    feeding test of the two-row games: a move feeds the opponent when it drops
    at least one seed into the opponent's row (capacity and origin skips
    included, because the lap is really played on a copy).
    """
    scratch = board.copy()
    sow_lap(scratch, origin, direction, origin_rule, capacity, ring_start, ring_size, np.empty(0, np.int64))
    dropped = 0
    for pit in range(row_start, row_start + row_size):
        dropped += scratch[pit] - board[pit]
    return dropped
