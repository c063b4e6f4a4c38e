"""The sow-and-capture ply shared by the Oware-family games (Ouril, Urim).

One lap counter-clockwise over the whole board; if the last seed lands in the
opponent's row and makes a *trigger* count, that pit and the preceding
opponent pits holding a *chain* count are captured. A capture that would empty
the opponent's row is a grand slam, handled by the game's grand-slam rule.
Both games call :func:`legal_bits` and :func:`play_move` with their own rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.engine.capture import (
    GRAND_SLAM_FORBIDDEN,
    GRAND_SLAM_NO_CAPTURE,
    chain_empties_zone,
    chain_length,
    take_chain,
)
from mancala_envs.engine.ending import row_seeds
from mancala_envs.engine.sowing import CCW, seeds_sown_into, sow_lap

__all__ = ["legal_bits", "move_is_grand_slam", "play_move"]


@njit(cache=True, error_model="numpy")
def move_is_grand_slam(
    board: np.ndarray,
    player: int,
    origin: int,
    row_size: int,
    origin_rule: int,
    capacity: int,
    trigger: int,
    chain: int,
) -> bool:
    """Simulates a move on a copy and tells whether its capture would empty the opponent's row."""
    scratch = board.copy()
    landing = sow_lap(scratch, origin, CCW, origin_rule, capacity, 0, 2 * row_size, np.empty(0, np.int64))
    zone_start = (1 - player) * row_size
    length = chain_length(scratch, landing, zone_start, row_size, trigger, chain, False)
    return chain_empties_zone(scratch, landing, length, zone_start, row_size)


@njit(cache=True, error_model="numpy")
def legal_bits(
    board: np.ndarray,
    player: int,
    row_size: int,
    origin_rule: int,
    capacity: int,
    trigger: int,
    chain: int,
    grand_slam: int,
    singletons_only_if_all: bool,
) -> int:
    """Returns the legal actions of ``player`` as a bit mask (bit k = own pit k).

    A move is legal when its pit is not empty and it passes, in this order:
    the singleton rule (a single seed may move only if every non-empty own pit
    is a singleton), the feeding rule (when the opponent's row is empty the
    move must drop a seed into it, checked by simulation), and the grand-slam
    rule (``GRAND_SLAM_FORBIDDEN`` bans a move whose capture would empty the
    opponent's row).
    """
    row_start = player * row_size
    opponent_start = (1 - player) * row_size
    opponent_starving = row_seeds(board, 1 - player, row_size) == 0
    if not opponent_starving and grand_slam != GRAND_SLAM_FORBIDDEN and not singletons_only_if_all:
        # The common case: every non-empty pit is legal, no simulation needed.
        bits = 0
        for local in range(row_size):
            if board[row_start + local] > 0:
                bits |= 1 << local
        return bits
    largest_pit = 0
    for pit in range(row_start, row_start + row_size):
        largest_pit = max(largest_pit, board[pit])
    bits = 0
    for local in range(row_size):
        origin = row_start + local
        seeds = board[origin]
        if seeds == 0:
            continue
        if singletons_only_if_all and seeds == 1 and largest_pit > 1:
            continue
        if opponent_starving and (
            seeds_sown_into(board, origin, CCW, origin_rule, capacity, 0, 2 * row_size, opponent_start, row_size)
            == 0
        ):
            continue
        if grand_slam == GRAND_SLAM_FORBIDDEN and move_is_grand_slam(
            board, player, origin, row_size, origin_rule, capacity, trigger, chain
        ):
            continue
        bits |= 1 << local
    return bits


@njit(cache=True, error_model="numpy")
def play_move(
    state: np.ndarray,
    board: np.ndarray,
    player: int,
    local: int,
    row_size: int,
    origin_rule: int,
    capacity: int,
    trigger: int,
    chain: int,
    grand_slam: int,
    trace: np.ndarray,
) -> int:
    """Sows ``player``'s local pit and makes the capture it triggers.

    Returns:
        The number of seeds captured.
    """
    landing = sow_lap(board, player * row_size + local, CCW, origin_rule, capacity, 0, 2 * row_size, trace)
    zone_start = (1 - player) * row_size
    length = chain_length(board, landing, zone_start, row_size, trigger, chain, False)
    if length == 0:
        return 0
    if grand_slam == GRAND_SLAM_NO_CAPTURE and chain_empties_zone(board, landing, length, zone_start, row_size):
        return 0
    return take_chain(state, board, player, landing, length, zone_start, row_size, trace)
