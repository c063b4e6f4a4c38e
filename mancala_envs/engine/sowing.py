"""Sowing one lap: lift the seeds of a pit and drop them one by one around a ring.

A *ring* is the run of board slots ``ring_start .. ring_start + ring_size - 1``
that a lap travels around (the whole 2n-pit board for the two-row games, one
player's 16 pits for Omweso). Moving "counter-clockwise" (``CCW``) is
``+1`` around the ring and clockwise (``CW``) is ``-1``.

Writing fast compiled rules (this module and the rest of the engine): every
call of a compiled function that receives arrays (the state, ``params``, the
trace) or creates them (a board view, a scratch copy) costs an atomic
reference-count increment and decrement per array, unless numba can prove
them unneeded; they were most of the per-ply time. The per-ply code therefore

* works on the game state in place (slots ``BOARD ..``), with no board views
  and no scratch copies (a lap or a capture is simulated in closed form
  where a legality test needs one);
* reads every option out of ``params`` at the top of ``step``, before the
  first call, and passes plain integers on;
* is inlined (``inline="always"``) from each game's ``step`` down, so that a
  ply is one call (the game's ``step``) however many helpers it uses; what
  runs only at the end of a game or a turn (scoring, a new round, the
  in-turn memory of relay games) stays a call, and so do Omweso's lap loop
  and turn end, whose size made inlining them cost more compile time
  (about 25 s) than it saved;
* gives every helper that takes arrays a single way to reach each of its
  ``return`` statements without an array dying on only some of the paths
  into it (``return`` inside the loop rather than ``break`` then ``return``;
  unconditional final writes), which numba's reference-count pruning needs.

A loop of plies keeps the same arrays throughout and lives in a function of
its own (``batch._play_out``), so that reassigning a row does not count
references on every ply. Each game's ``step`` (and each compiled function it
calls with the state) starts by borrowing its array arguments
(:func:`~mancala_envs.engine.board_views.borrowed_view`), and a scratch board
lives on the stack (:func:`~mancala_envs.engine.board_views.stack_board`):
the compiled ply holds no reference counting at all, whoever calls it
(``tests/engine/test_no_refcount.py`` reads the LLVM IR of every game's step).

The hot loops index the state with unsigned integers (``state[np.uint64(slot)]``)
where the slot is computed: numba adds a negative-index wraparound (a shift,
a mask and an add) to every access through a signed index it cannot prove
non-negative, and slots never are negative. Only for the index itself:
arithmetic mixing ``uint64`` and ``int64`` gives ``float64`` in numba.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.jit import njit
from mancala_envs.engine.trace import trace_sow

__all__ = [
    "CCW",
    "CW",
    "NO_CAPACITY",
    "ORIGIN_FIRST",
    "ORIGIN_SKIPPED",
    "ORIGIN_SKIPPED_FIRST_CIRCUIT",
    "ORIGIN_SOWN",
    "next_pit",
    "sow_lap",
]

CCW = 1
CW = -1

# What a lap does with the pit it was lifted from (its *origin*):
ORIGIN_SOWN = 0  # the origin is an ordinary pit when the lap passes it again
ORIGIN_SKIPPED = 1  # the origin is skipped on every pass (Oware, Urim, Ouril)
ORIGIN_SKIPPED_FIRST_CIRCUIT = 2  # skipped on the first pass only (Ouril variant)
ORIGIN_FIRST = 3  # the first seed goes back into the origin (Modiar)

#: ``capacity`` of a game whose pits take any number of seeds (no pit is ever skipped as full)
NO_CAPACITY = 0


@njit(cache=True, inline="always", error_model="numpy")
def next_pit(pit: int, direction: int, ring_start: int, ring_size: int) -> int:
    """Returns the pit after ``pit`` in ``direction`` around the ring (no modulo: it is hot).

    One bound is tested, the one ``direction`` moves towards (callers pass it as a constant).
    """
    pit += direction
    if direction > 0:
        return pit - ring_size if pit >= ring_start + ring_size else pit
    return pit + ring_size if pit < ring_start else pit


@njit(cache=True, inline="always", error_model="numpy")
def sow_lap(
    board: np.ndarray,
    board_start: int,
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
        board: The array holding the board (a board, or a whole game state),
            changed in place.
        board_start: The slot of ``board`` holding pit 0: the trace records
            pit ``slot - board_start`` (0 for a board, ``BOARD`` for a state).
        origin: The slot whose seeds are lifted.
        direction: ``CCW`` or ``CW``.
        origin_rule: One of the ``ORIGIN_*`` constants.
        capacity: Pits already holding this many seeds are skipped (they take
            no seed and use none up); 0 means no limit.
        ring_start: First slot of the ring.
        ring_size: Number of pits in the ring.
        trace: Buffer recording the sown pits (zero length: no record).

    Returns:
        The slot that received the last seed (``origin`` itself if the pit was
        empty, which callers never ask for).
    """
    seeds = board[np.uint64(origin)]
    board[np.uint64(origin)] = 0
    pit = origin
    if origin_rule == ORIGIN_FIRST and seeds > 0:
        board[np.uint64(origin)] += 1
        trace_sow(trace, origin - board_start)
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
        if capacity > 0 and board[np.uint64(pit)] >= capacity:
            continue
        board[np.uint64(pit)] += 1
        trace_sow(trace, pit - board_start)
        seeds -= 1
    return pit
