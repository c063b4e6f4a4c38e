"""Backward capture chains: the last seed triggers, preceding pits follow.

Counts are tested against *count sets* given as bit masks: bit ``c`` set means
"a pit holding exactly ``c`` seeds". :func:`count_set` builds one.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.jit import njit
from mancala_envs.engine.trace import trace_capture

__all__ = ["chain_length", "chain_seeds", "count_set", "in_count_set", "lift_chain"]


def count_set(*counts: int) -> int:
    """Returns the bit mask of a set of seed counts, e.g. ``count_set(2, 3)``."""
    mask = 0
    for count in counts:
        mask |= 1 << count
    return mask


@njit(cache=True, inline="always", error_model="numpy")
def in_count_set(count: int, mask: int) -> bool:
    """Tells whether ``count`` is in the count set ``mask``."""
    return 0 <= count < 63 and (mask >> count) & 1 == 1


@njit(cache=True, inline="always", error_model="numpy")
def chain_length(
    board: np.ndarray,
    landing: int,
    zone_start: int,
    zone_size: int,
    trigger: int,
    chain: int,
    wrap: bool,
) -> int:
    """Measures the capture chain that ends a lap in ``landing``.

    The landing pit must hold a count in ``trigger``; then each preceding pit
    (``i - 1``) is added while its count is in ``chain``. The chain stays inside
    the capture zone ``zone_start .. zone_start + zone_size - 1``: without
    ``wrap`` it stops at the zone's first pit (the edge of the opponent's row);
    with ``wrap`` it goes round the zone and stops before reaching ``landing``
    again.

    Returns:
        The number of pits captured: ``landing, landing - 1, ...``; 0 when the
        landing pit is outside the zone or does not trigger.
    """
    # Every way out is a ``return`` (no ``break``): it keeps the compiled code free of reference counting.
    if landing < zone_start or landing >= zone_start + zone_size:
        return 0
    if not in_count_set(board[np.uint64(landing)], trigger):
        return 0
    length = 1
    pit = landing
    while length < zone_size:
        if pit == zone_start:
            if not wrap:
                return length
            pit = zone_start + zone_size - 1
        else:
            pit -= 1
        if not in_count_set(board[np.uint64(pit)], chain):
            return length
        length += 1
    return length


@njit(cache=True, inline="always", error_model="numpy")
def _chain_pit(landing: int, step: int, zone_start: int, zone_size: int) -> int:
    """The ``step``-th pit of a chain ending in ``landing`` (``0 <= step < zone_size``), wrapping round the zone."""
    pit = landing - step
    return pit + zone_size if pit < zone_start else pit


@njit(cache=True, inline="always", error_model="numpy")
def chain_seeds(board: np.ndarray, landing: int, length: int, zone_start: int, zone_size: int) -> int:
    """Returns how many seeds a chain of ``length`` pits ending in ``landing`` holds."""
    seeds = 0
    for step in range(length):
        seeds += board[np.uint64(_chain_pit(landing, step, zone_start, zone_size))]
    return seeds


@njit(cache=True, inline="always", error_model="numpy")
def lift_chain(
    board: np.ndarray,
    board_start: int,
    landing: int,
    length: int,
    zone_start: int,
    zone_size: int,
    trace: np.ndarray,
) -> int:
    """Empties the pits of a chain (recording them in ``trace``); returns the seeds lifted.

    ``board`` holds the board from slot ``board_start`` (0 for a board,
    ``BOARD`` for a game state); ``landing`` and ``zone_start`` are slots of
    ``board`` and the trace records pit ``slot - board_start``.
    """
    captured = 0
    for step in range(length):
        pit = np.uint64(_chain_pit(landing, step, zone_start, zone_size))
        seeds = board[pit]
        board[pit] = 0
        captured += seeds
        trace_capture(trace, np.int64(pit) - board_start, seeds)
    return captured


# --- grand slam ----------------------------------------------------------------
# What a capture that would leave the opponent's row empty does:
GRAND_SLAM_ALLOWED = 0  # the capture stands (the victim then passes, Ouril rule 5)
GRAND_SLAM_FORBIDDEN = 1  # the move is illegal
GRAND_SLAM_NO_CAPTURE = 2  # the move is legal but captures nothing

__all__ += ["GRAND_SLAM_ALLOWED", "GRAND_SLAM_FORBIDDEN", "GRAND_SLAM_NO_CAPTURE", "chain_empties_zone"]


@njit(cache=True, inline="always", error_model="numpy")
def chain_empties_zone(board: np.ndarray, landing: int, length: int, zone_start: int, zone_size: int) -> bool:
    """Tells whether capturing the chain would leave the zone (the opponent's row) empty."""
    if length == 0:
        return False
    zone_seeds = 0
    for pit in range(zone_start, zone_start + zone_size):
        zone_seeds += board[np.uint64(pit)]
    return zone_seeds == chain_seeds(board, landing, length, zone_start, zone_size)
