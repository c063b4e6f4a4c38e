"""Relay sowing: laps that go on from the pit where the last seed fell (``docs/architecture.md``, Common conventions).

A *relay* (multi-lap) turn sows a lap; if the last seed lands in a pit that was
already occupied, that pit is lifted and sown as the next lap, and so on. Rio
Kadalis plays exactly that; Omweso adds captures and anchors between laps and
builds its own turn loop from the same pieces.

The pieces:

* :func:`relay_lap` lifts a pit and sows one lap around a ring (``ring_start
  .. ring_start + ring_size - 1``, slots of the game state: every function
  here works on the state in place, see :mod:`mancala_envs.engine.sowing`);
  :func:`sow_from` sows a hand of seeds that
  were never lifted (Omweso's captured seeds). A lap drops one seed per pit
  in a direction, **without** an origin skip, skipping *closed* pits (a bit
  mask), and optionally taking *en-passant*
  groups: a non-last seed that makes a pit hold exactly ``group_size`` seeds
  gives those seeds to the store of the owner of the row the pit is in
  (``state[STORE + owner]``), either at once
  (``GROUPS_IMMEDIATE``) or when the lap is over (``GROUPS_END_OF_LAP``, among
  the pits the lap sowed, the last pit excepted).
* The **in-turn memory** (:func:`new_turn_memory`, :func:`turn_memory_clear`,
  :func:`turn_memory_repeats`) remembers the exact in-turn states seen during a
  turn. A state is a tuple of ``key_words`` integers chosen by the caller, for
  example ``(position_key(board), pit about to be lifted, direction)``; keys are
  compared exactly (a hash only skips most comparisons). The caller checks the state at the start of
  every lap, **before** the relay pit is lifted, so a turn found endless has all
  its seeds on the board. :func:`mancala_envs.engine.repetition.position_key`
  is exact only among boards with the same seed total, so the memory must be
  cleared whenever seeds leave the board.
* :func:`relay_turn` is the whole turn of the plain relay games (Rio Kadalis):
  laps until the last seed falls into an empty pit or makes a *binikh* count,
  with the in-turn repetition test and the ``max_laps`` cap.

Ring and direction conventions are those of :mod:`mancala_envs.engine.sowing`
(``CCW = +1``, ``CW = -1`` around the ring).
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.arrays import copy_rows
from mancala_envs.engine.jit import njit
from mancala_envs.engine.repetition import position_key_at
from mancala_envs.engine.sowing import CW, next_pit
from mancala_envs.engine.state import STORE
from mancala_envs.engine.trace import trace_capture, trace_sow

__all__ = [
    "GROUPS_END_OF_LAP",
    "GROUPS_IMMEDIATE",
    "GROUPS_OFF",
    "NO_CLOSED_PITS",
    "NO_GROUPS",
    "TURN_ENDED_BINIKH",
    "TURN_ENDED_EMPTY",
    "TURN_ENDLESS",
    "new_turn_memory",
    "relay_lap",
    "relay_turn",
    "sow_from",
    "turn_memory_clear",
    "turn_memory_repeats",
    "turn_memory_with_room",
]

# When a lap takes the en-passant groups its non-last seeds form:
GROUPS_OFF = 0  # never (no en-passant captures)
GROUPS_IMMEDIATE = 1  # as soon as the seed makes the group (StoneShark)
GROUPS_END_OF_LAP = 2  # when the lap is over, among the pits it sowed (Ludii)
#: ``group_size`` of a game without en-passant groups (with ``GROUPS_OFF``)
NO_GROUPS = 0
#: ``closed`` of a ring with every pit open (the bit mask of closed pits is empty)
NO_CLOSED_PITS = 0

# How relay_turn ended:
TURN_ENDED_EMPTY = 0  # the last seed fell into an empty pit
TURN_ENDED_BINIKH = 1  # the last seed made the binikh count; the mover took the pit
TURN_ENDLESS = 2  # an in-turn state repeated, or the lap cap was reached
_RELAYS = 3  # (internal) the lap ended in an occupied pit: the turn goes on

# Layout of a turn memory: row 0 holds [stored rows, 61-bit filter, ...]; rows 1.. hold keys.
_COUNT = 0
_FILTER = 1


@njit(cache=True, error_model="numpy")
def new_turn_memory(max_laps: int, key_words: int) -> np.ndarray:
    """Returns an empty in-turn memory for up to ``max_laps + 1`` keys of ``key_words`` integers."""
    memory = np.empty((max_laps + 2, max(key_words, 2)), np.int64)
    memory[0, _COUNT] = 0
    memory[0, _FILTER] = 0
    return memory


@njit(cache=True, inline="always", error_model="numpy")
def turn_memory_with_room(memory: np.ndarray, max_laps: int) -> np.ndarray:
    """Returns ``memory``, or a copy twice as large when it is full and may still grow.

    Most turns last one or two laps, so a turn starts with a small memory and
    grows it only as laps accumulate, up to ``max_laps + 1`` keys.
    """
    rows = memory.shape[0]
    if memory[0, _COUNT] + 1 < rows or rows >= max_laps + 2:
        return memory
    larger = np.empty((min(2 * rows, max_laps + 2), memory.shape[1]), np.int64)
    copy_rows(larger, memory, rows)
    return larger


@njit(cache=True, inline="always", error_model="numpy")
def turn_memory_clear(memory: np.ndarray) -> None:
    """Forgets every remembered in-turn state (call it whenever seeds leave the board)."""
    memory[0, _COUNT] = 0
    memory[0, _FILTER] = 0


@njit(cache=True, inline="always", error_model="numpy")
def turn_memory_repeats(memory: np.ndarray, key: tuple) -> bool:
    """Remembers the exact in-turn state ``key`` (a tuple of non-negative integers) and tells whether
    it was seen before.

    The comparison is exact over every word of ``key``. A 61-bit filter over a
    mix of the words skips the scan for most new keys. When the memory is full
    the key is only compared, not stored (the caller's lap cap ends the turn
    first).
    """
    words = len(key)
    mix = np.int64(0)
    for w in range(words):
        # Shifts and exclusive ors of non-negative words: cheap, and no overflow (plain Python runs it too).
        mix ^= key[w] ^ (key[w] >> 29) ^ (mix >> 7)
    bit = np.int64(1) << (mix % 61)
    count = memory[0, _COUNT]
    seen = False
    if memory[0, _FILTER] & bit:
        for row in range(1, count + 1):
            same = True
            for w in range(words):
                if memory[row, w] != key[w]:
                    same = False
                    break
            if same:
                seen = True
                break
    stored = not seen and count + 1 < memory.shape[0]
    if stored:
        for w in range(words):
            memory[count + 1, w] = key[w]
    # Unconditional writes (unchanged values when nothing is stored) keep the compiled code free of
    # reference counting.
    memory[0, _COUNT] = count + 1 if stored else count
    memory[0, _FILTER] |= bit if stored else 0
    return seen


@njit(cache=True, inline="always", error_model="numpy")
def sow_from(
    state: np.ndarray,
    board_start: int,
    start: int,
    seeds: int,
    direction: int,
    ring_start: int,
    ring_size: int,
    closed: int,
    group_size: int,
    group_timing: int,
    row_size: int,
    trace: np.ndarray,
) -> int:
    """Sows ``seeds`` seeds from a hand one per open pit, starting with the pit after ``start``.

    This is a lap without the lifting: :func:`relay_lap` lifts a pit and calls
    it, and Omweso calls it directly to re-sow captured seeds from its anchor.

    Args:
        state: The game state, changed in place.
        board_start: The slot of the state holding pit 0 (``BOARD``): the trace
            records pit ``slot - board_start``.
        start: The slot before the first one sown (a lap's origin, or an anchor).
        seeds: Seeds in hand (at least one).
        direction: ``CCW`` or ``CW``.
        ring_start: First slot of the ring.
        ring_size: Number of pits in the ring.
        closed: Bit ``i`` set: ring pit ``ring_start + i`` is closed; it takes no
            seed and uses none up.
        group_size: A non-last seed making a pit hold exactly this many seeds
            forms an en-passant group (0: never).
        group_timing: ``GROUPS_OFF``, ``GROUPS_IMMEDIATE`` or ``GROUPS_END_OF_LAP``.
        row_size: Pits per row; the group in ring pit ``p`` goes to the store of
            the owner of row ``(p - ring_start) // row_size``.
        trace: Buffer recording sown pits and captures (zero length: no record).

    Returns:
        The slot that received the last seed.
    """
    pit = start
    sown = np.int64(0)  # bit i: ring pit ring_start + i received a seed in this lap
    while seeds > 0:
        pit = next_pit(pit, direction, ring_start, ring_size)
        if (closed >> (pit - ring_start)) & 1:
            continue
        state[pit] += 1
        trace_sow(trace, pit - board_start)
        seeds -= 1
        sown |= np.int64(1) << (pit - ring_start)
        if seeds > 0 and group_timing == GROUPS_IMMEDIATE and state[pit] == group_size:
            state[STORE + (pit - ring_start) // row_size] += group_size
            trace_capture(trace, pit - board_start, group_size)
            state[pit] = 0
    if group_timing == GROUPS_END_OF_LAP and group_size > 0:
        # In the order the lap first reached them, every sown pit but the last.
        scan = start
        for _ in range(ring_size):
            scan = next_pit(scan, direction, ring_start, ring_size)
            if scan != pit and (sown >> (scan - ring_start)) & 1 and state[scan] == group_size:
                state[STORE + (scan - ring_start) // row_size] += group_size
                trace_capture(trace, scan - board_start, group_size)
                state[scan] = 0
    return pit


@njit(cache=True, inline="always", error_model="numpy")
def relay_lap(
    state: np.ndarray,
    board_start: int,
    origin: int,
    direction: int,
    ring_start: int,
    ring_size: int,
    closed: int,
    group_size: int,
    group_timing: int,
    row_size: int,
    trace: np.ndarray,
) -> int:
    """Lifts every seed of ``origin`` and sows them one per open pit, with no origin skip.

    Args:
        state: The game state, changed in place.
        board_start: As for :func:`sow_from`.
        origin: The slot whose seeds are lifted (it must hold at least one; it
            is never closed).
        direction, ring_start, ring_size, closed, group_size, group_timing,
            row_size, trace: As for :func:`sow_from`.

    Returns:
        The slot that received the last seed.
    """
    seeds = state[origin]
    state[origin] = 0
    return sow_from(
        state,
        board_start,
        origin,
        seeds,
        direction,
        ring_start,
        ring_size,
        closed,
        group_size,
        group_timing,
        row_size,
        trace,
    )


@njit(cache=True, inline="always", error_model="numpy")
def _relay_lap_and_land(
    state: np.ndarray,
    board_start: int,
    pit: int,
    direction: int,
    ring_start: int,
    ring_size: int,
    closed: int,
    group_size: int,
    group_timing: int,
    row_size: int,
    mover: int,
    binikh: int,
    trace: np.ndarray,
) -> tuple[int, int, bool]:
    """One lap of :func:`relay_turn` and where its last seed leaves the turn.

    Returns:
        The landing slot, ``TURN_ENDED_EMPTY``, ``TURN_ENDED_BINIKH`` (the mover
        took the pit) or ``_RELAYS``, and whether seeds left the board.
    """
    taken_before = state[STORE] + state[STORE + 1]
    landing = relay_lap(
        state, board_start, pit, direction, ring_start, ring_size, closed, group_size, group_timing, row_size, trace
    )
    groups_taken = state[STORE] + state[STORE + 1] != taken_before
    if state[landing] == 1:
        return landing, TURN_ENDED_EMPTY, groups_taken
    if binikh > 0 and state[landing] == binikh:
        state[STORE + mover] += binikh
        trace_capture(trace, landing - board_start, binikh)
        state[landing] = 0
        return landing, TURN_ENDED_BINIKH, groups_taken
    return landing, _RELAYS, groups_taken


@njit(cache=True, inline="always", error_model="numpy")
def relay_turn(
    state: np.ndarray,
    board_start: int,
    origin: int,
    direction: int,
    ring_start: int,
    ring_size: int,
    closed: int,
    group_size: int,
    group_timing: int,
    row_size: int,
    mover: int,
    binikh: int,
    max_laps: int,
    trace: np.ndarray,
) -> tuple[int, int]:
    """Plays a whole relay turn from ``origin`` (``docs/rules/rio_kadalis.md``, rules 2-5).

    Laps follow one another until the last seed of a lap falls into a pit that
    was empty (it now holds 1) or makes it hold ``binikh`` seeds (the mover
    takes them; 0: no such rule); any other count relays. Before every lap,
    before its pit is lifted, the exact in-turn state ``(ring, pit, direction)``
    is checked against the states seen since seeds last left the board; a
    repeat, or a lap beyond ``max_laps``, makes the turn endless, with every
    seed on the board.

    Args:
        state: The game state, changed in place; the ring holds the whole board.
        board_start: As for :func:`sow_from`.
        origin: The slot the turn starts from.
        direction, ring_start, ring_size, closed, group_size, group_timing,
            row_size, trace: As for :func:`relay_lap`.
        mover: The player making the turn (takes a binikh).
        binikh: Count that the last seed must make for the mover to capture.
        max_laps: Lap cap of a turn.

    Returns:
        ``(laps, outcome)``: laps sown, and ``TURN_ENDED_EMPTY``,
        ``TURN_ENDED_BINIKH`` or ``TURN_ENDLESS``. Groups and binikhs are added
        to the players' ``STORE`` slots.
    """
    if max_laps <= 0:
        return 0, TURN_ENDLESS
    # The first lap: nothing is remembered yet, so its in-turn state cannot repeat. Its key is kept
    # aside, and most turns (a single lap) end without making a memory at all.
    direction_flag = 1 if direction == CW else 0
    first_key = (position_key_at(state, ring_start, ring_size, 0), (origin - board_start) * 2 + direction_flag)
    pit, outcome, groups_taken = _relay_lap_and_land(
        state,
        board_start,
        origin,
        direction,
        ring_start,
        ring_size,
        closed,
        group_size,
        group_timing,
        row_size,
        mover,
        binikh,
        trace,
    )
    if outcome != _RELAYS:
        return 1, outcome
    return _relay_turn_on(
        state,
        board_start,
        pit,
        direction,
        ring_start,
        ring_size,
        closed,
        group_size,
        group_timing,
        row_size,
        mover,
        binikh,
        max_laps,
        trace,
        first_key,
        groups_taken,
    )


@njit(cache=True, error_model="numpy")
def _relay_turn_on(
    state: np.ndarray,
    board_start: int,
    pit: int,
    direction: int,
    ring_start: int,
    ring_size: int,
    closed: int,
    group_size: int,
    group_timing: int,
    row_size: int,
    mover: int,
    binikh: int,
    max_laps: int,
    trace: np.ndarray,
    first_key: tuple,
    first_key_forgotten: bool,
) -> tuple[int, int]:
    """:func:`relay_turn` from its second lap (``pit``): the first lap's key is remembered unless seeds left
    the board during that lap."""
    memory = new_turn_memory(min(max_laps, 14), 2)  # grows as laps accumulate
    if not first_key_forgotten:
        turn_memory_repeats(memory, first_key)
    direction_flag = 1 if direction == CW else 0
    laps = 1
    while True:
        key = (position_key_at(state, ring_start, ring_size, 0), (pit - board_start) * 2 + direction_flag)
        memory = turn_memory_with_room(memory, max_laps)
        if laps >= max_laps or turn_memory_repeats(memory, key):
            return laps, TURN_ENDLESS
        pit, outcome, groups_taken = _relay_lap_and_land(
            state,
            board_start,
            pit,
            direction,
            ring_start,
            ring_size,
            closed,
            group_size,
            group_timing,
            row_size,
            mover,
            binikh,
            trace,
        )
        laps += 1
        if groups_taken:
            turn_memory_clear(memory)  # seeds left the board: earlier keys no longer compare
        if outcome != _RELAYS:
            return laps, outcome
