"""The sow-and-capture ply shared by the Oware-family games (Ouril, Urim).

One lap counter-clockwise over the whole board; if the last seed lands in the
opponent's row and makes a *trigger* count, that pit and the preceding
opponent pits holding a *chain* count are captured. A capture that would empty
the opponent's row is a grand slam, handled by the game's grand-slam rule.
Both games call :func:`legal_bits` (or its parts :func:`playable_bits` and
:func:`remove_grand_slams`) and :func:`play_move` with their own rules.

Every function here reads and changes the board in place, in the game state
itself (``state[BOARD : BOARD + 2 * row_size]``): see
:mod:`mancala_envs.engine.sowing` for why the per-ply code takes no board view.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.board_views import STACK_BOARD_SLOTS, borrowed_view, stack_board
from mancala_envs.engine.capture import (
    GRAND_SLAM_FORBIDDEN,
    GRAND_SLAM_NO_CAPTURE,
    chain_empties_zone,
    chain_length,
    lift_chain,
)
from mancala_envs.engine.ending import row_is_empty_at
from mancala_envs.engine.jit import njit
from mancala_envs.engine.sowing import CCW, sow_lap
from mancala_envs.engine.state import BOARD, STORE

__all__ = ["legal_bits", "play_move", "playable_bits", "remove_grand_slams"]


@njit(cache=True, error_model="numpy")
def legal_bits(
    state: np.ndarray,
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

    A move is legal when its pit is not empty and it passes the singleton rule
    (a single seed may move only if every non-empty own pit is a singleton),
    the feeding rule (when the opponent's row is empty the move must drop a
    seed into it) and the grand-slam rule (``GRAND_SLAM_FORBIDDEN`` bans a move
    whose capture would empty the opponent's row): :func:`playable_bits`, then
    :func:`remove_grand_slams`. Each rule only removes moves, so their order
    does not matter.
    """
    state = borrowed_view(state)  # no reference counting (mancala_envs.engine.board_views)
    bits = playable_bits(state, player, row_size, capacity, singletons_only_if_all)
    if grand_slam == GRAND_SLAM_FORBIDDEN:
        return remove_grand_slams(state, player, bits, row_size, origin_rule, capacity, trigger, chain)
    return bits


@njit(cache=True, inline="always", error_model="numpy")
def playable_bits(state: np.ndarray, player: int, row_size: int, capacity: int, singletons_only_if_all: bool) -> int:
    """The moves of ``player`` allowed by the singleton and feeding rules (all of :func:`legal_bits` but the
    grand-slam rule), as a bit mask.

    The feeding test needs no simulation: when the opponent's row is empty, a
    lap from own pit ``k`` first passes the own pits after ``k``, each taking a
    seed unless it is full (``capacity``), and its next seed falls into the
    opponent's first pit (empty, so never full). The move feeds exactly when it
    has more seeds than those own pits can take.
    """
    row_start = BOARD + player * row_size
    opponent_starving = row_is_empty_at(state, BOARD, 1 - player, row_size)
    bits = 0
    if not opponent_starving and not singletons_only_if_all:
        # The common case: every non-empty pit is legal.
        for local in range(row_size):
            if state[np.uint64(row_start + local)] > 0:
                bits |= 1 << local
        return bits
    largest_pit = 0
    for pit in range(row_start, row_start + row_size):
        largest_pit = max(largest_pit, state[np.uint64(pit)])
    open_pits_after = 0  # own pits after the current one that would take a seed
    for local in range(row_size - 1, -1, -1):
        seeds = state[np.uint64(row_start + local)]
        singleton_barred = singletons_only_if_all and seeds == 1 and largest_pit > 1
        starves = opponent_starving and seeds <= open_pits_after
        if seeds > 0 and not singleton_barred and not starves:
            bits |= 1 << local
        if capacity == 0 or seeds < capacity:
            open_pits_after += 1
    return bits


@njit(cache=True, inline="always", error_model="numpy")
def remove_grand_slams(
    state: np.ndarray,
    player: int,
    bits: int,
    row_size: int,
    origin_rule: int,
    capacity: int,
    trigger: int,
    chain: int,
) -> int:
    """Clears from ``bits`` (moves of ``player``) those whose capture would leave the opponent's row empty.

    Each move is played on one scratch copy of the board on the stack
    (:func:`~mancala_envs.engine.board_views.stack_board`, for boards of up to
    ``STACK_BOARD_SLOTS`` pits), reused for every move.
    """
    n_pits = 2 * row_size
    opponent_zone = (1 - player) * row_size  # the opponent's row in scratch indices
    scratch = stack_board(STACK_BOARD_SLOTS)
    for local in range(row_size):
        if (bits >> local) & 1 == 0:
            continue
        for pit in range(n_pits):
            scratch[pit] = state[BOARD + pit]
        landing = sow_lap(scratch, 0, player * row_size + local, CCW, origin_rule, capacity, 0, n_pits, scratch[:0])
        length = chain_length(scratch, landing, opponent_zone, row_size, trigger, chain, False)
        if chain_empties_zone(scratch, landing, length, opponent_zone, row_size):
            bits &= ~(1 << local)
    return bits


@njit(cache=True, inline="always", error_model="numpy")
def play_move(
    state: np.ndarray,
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
    """Sows ``player``'s local pit and makes the capture it triggers (on the state's board, in place).

    Returns:
        The number of seeds captured (added to ``player``'s store).
    """
    origin = BOARD + player * row_size + local
    landing = sow_lap(state, BOARD, origin, CCW, origin_rule, capacity, BOARD, 2 * row_size, trace)
    zone_start = BOARD + (1 - player) * row_size
    length = chain_length(state, landing, zone_start, row_size, trigger, chain, False)
    if grand_slam == GRAND_SLAM_NO_CAPTURE and chain_empties_zone(state, landing, length, zone_start, row_size):
        length = 0  # the capture would leave the opponent's row empty: it captures nothing
    captured = lift_chain(state, BOARD, landing, length, zone_start, row_size, trace)
    state[np.uint64(STORE + player)] += captured
    return captured
