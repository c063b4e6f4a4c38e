"""Perfect-play tables: every Modiar position solved, endgame tablebases for the two-row games with stores.

A table holds, for every board with at most ``max_seeds`` seeds and each player to move, the
**future margin** of that position under perfect play: the seeds the player to move will still
gain (captures, plus the seeds left in their own pits when the game ends) minus the seeds the
opponent will still gain. Seeds already captured never return to the board, so this number does
not depend on how the captured seeds are split, and the result of any position follows from it:
with ``D`` the mover's store minus the opponent's, the mover wins under perfect play if and only if
``D + margin > 0`` (a draw at 0).

How it is built (:func:`build_table`), layer by layer, from 0 seeds on the board up to
``max_seeds``: a move either takes seeds off the board (a capture, or a sowing into a store) and
lands in a layer already solved, or keeps every seed on the board and stays in the layer. Inside a
layer the moves that keep the seeds form a graph; its strongly connected components (Tarjan's
algorithm) are solved in reverse topological order, so every move leaving a component leads to a
value already known. Every move is played by the game's own compiled ``step`` and ``legal_bits``
(a per-game template, :mod:`mancala_envs.engine.kernels`): the tables use the rules the
environments use, with no second implementation.

**The repetition rule.** A game also ends when a ``(board, player to move)`` position repeats since
the last capture, each player then taking the seeds in their own pits. So a position's value may
depend on the positions seen before it. Where exactly:

- A position on no cycle of seed-keeping moves (a *trivial* component) can never be seen twice,
  and nor can any position seen before it in the same layer once the play has left it: its value
  follows from its successors' values whatever the history.
- Inside a *cycle class* (a component with a cycle), the value depends on which positions of the
  class the play has already visited, and an exact search over every history is out of reach (the
  largest Modiar class holds 362,714 positions). The table keeps two things there:

  * **bounds that hold for every history**: a move into the class either goes on (the bounds of
    the position it reaches) or, if that position was already seen, ends the game with each player
    taking the seeds in their own pits. Starting from ``[-seeds, seeds]``, each position's bounds
    are narrowed to the best of its moves' bounds until nothing changes; every round keeps them
    valid. Where the bounds meet, the value is **exact**: it is the same whatever the history
    (:attr:`TableValue.exact`).
  * **the value of the class-capped game**: the same game, except that a play that stays
    ``CLASS_PLIES`` (256) seed-keeping plies in one cycle class ends there as a repetition would,
    each player taking the seeds in their own pits. It is computed by value iteration from that
    settlement, ``value(p) = max(moves leaving the class, -value(next))``, one round per ply of the
    cap (most classes reach a fixed point within 50 rounds, and then the cap does not matter), then
    kept within the bounds.

  Both propagate: a position outside every class takes the value and the bounds of its best moves.
  ``docs/solved.md`` reports how many positions are exact and how often the other values agree with
  a search that keeps the whole history.

The ply cap (``max_plies``) is not part of the tables: they assume it is not reached. Nor is a
store threshold (Ouril's ``win_threshold``, 25 by default): the tables are built with empty stores,
so they hold the margin of the game played to its natural end, every seed collected. A threshold
only ends a game that is already decided (more than half the seeds), so who wins is the same; the
margin differs where a store is near the threshold.

What depends on the state you pass: :meth:`Table.value` reads the table, which knows the board and
the player to move only (its bounds hold for any history). :meth:`Table.move_values` plays each
move on your state, so a move that repeats a position of its memory, or reaches a store threshold,
is valued by the end it causes, and the table is read one ply later. :meth:`Table.search` is exact
for your state, history, stores and ply count included.

Files: :func:`save_table` writes the table (three bytes per position: the value, its lower and its
upper bound over every history, each plus 64, with bit 7 of the value set when the bounds meet) as a
``.npy`` file and a JSON description beside it holding the file's SHA-256, each written atomically;
:func:`load_table` reads the file once into memory (bounded by the size the description gives; a folder,
FIFO or device is refused) and checks the hash on those bytes, so a file changed on disk later changes
nothing loaded. The default folder is :func:`table_dir`; stray files in it are skipped.

Memory: before allocating a table, :func:`build_table` and :func:`load_table` compare its size
(:func:`build_memory`) with the memory available (:func:`available_memory`) and refuse with the largest
``max_seeds`` that fits (a whole Ouril table would need about 56 TiB).

**Unchecked.** The compiled functions here that read a state or a board (:func:`move_values`,
:func:`history_search`, :func:`solve_layer`, and :func:`board_index`, which the tables are ordered by) are the
tables' internals: they trust every argument (a state the engine made, a table, scratch arrays of the right sizes)
and check nothing, so a state that no game reaches can make them read or write outside their arrays and end the
process. They are not in ``__all__``. The checked doors are the :class:`Table` methods (:meth:`Table.value`,
:meth:`Table.move_values`, :meth:`Table.best_actions`, :meth:`Table.search`, :meth:`Table.covers`), which pass
every state through ``Game.check_state`` first; check a state of unknown origin the same way
(``game.check_state(state)``) before handing it to a compiled function.

Example:
    >>> from mancala_envs.algorithms.retrograde import build_table
    >>> from mancala_envs.envs.registration import make_game, resolve_env_id
    >>> table = build_table(make_game(resolve_env_id("modiar")), max_seeds=6)
    >>> table.positions
    1848
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.common.files import atomic_write, check_destination, read_bytes_bounded, read_json_bounded
from mancala_envs.engine.arrays import copy_slots
from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.boards import (
    EXACT_BIT,
    VALUE_OFFSET,
    binomials,
    board_index,
    next_board,
    table_margin,
)
from mancala_envs.engine.jit import njit
from mancala_envs.engine.kernels import game_legal_bits, game_step, per_game
from mancala_envs.engine.state import (
    BOARD,
    FIRST_MOVE_DONE,
    HISTORY_FILTER,
    HISTORY_LEN,
    LEGAL,
    PLAYER,
    PLY,
    RUNNING,
    STATUS,
    STORE,
)
from mancala_envs.games import game_classes
from mancala_envs.games.game import Game

__all__ = [
    "FORMAT",
    "SEARCH_ABORTED",
    "TABLE_ENV",
    "SearchResult",
    "Table",
    "TableError",
    "TableValue",
    "available_memory",
    "available_tables",
    "binomials",
    "build_memory",
    "build_table",
    "config_options",
    "largest_max_seeds",
    "load_table",
    "save_table",
    "solvable",
    "table_dir",
    "table_paths",
]  # board_index, move_values and history_search are unchecked internals (see the module docstring), not public API

#: version of the table files; a file of another format is refused
FORMAT = 2
#: environment variable naming the folder of the tables (default: :func:`table_dir`)
TABLE_ENV = "MANCALA_ENVS_TABLES"
#: config fields a table ignores (the tables assume no ply cap and handle repetition themselves)
IGNORED_FIELDS = ("max_plies", "repetition")
_NO_VALUE = -1_000
#: plies a play may stay in one cycle class before the table's reading of the repetition rule ends it
CLASS_PLIES = 256
#: bytes of work arrays per position of the layer being solved, beyond the table (its value, bounds, moves and
#: Tarjan's arrays, :func:`solve_layer`); plus this many per action for the moves kept in the layer
_LAYER_BYTES = 65
_LAYER_BYTES_PER_ACTION = 5
#: bytes an acyclic game's build needs beyond its table (the sweep's few states; the process itself not counted)
_ACYCLIC_WORK_BYTES = 1 << 20
#: the largest table description a load reads
_MAX_DESCRIPTION_BYTES = 2**20
#: the bytes a ``.npy`` header may take beyond the values
_MAX_NPY_HEADER = 2**16


class TableError(ValueError):
    """A table is missing, damaged, or does not fit the game or the position asked about."""


@njit(cache=True, inline="always", error_model="numpy")
def _set_up_position(state: np.ndarray, board: np.ndarray, n_pits: int, mover: int) -> int:
    """Makes ``state`` the running position of ``board`` with ``mover`` to move, stores empty and the first ply
    played; returns the settlement if it ended now: the mover's row less the opponent's."""
    row = n_pits // 2
    own = 0
    for pit in range(n_pits):
        state[BOARD + pit] = board[pit]
        own += board[pit] if pit // row == mover else -board[pit]
    state[PLAYER] = mover
    state[STORE] = 0
    state[STORE + 1] = 0
    state[FIRST_MOVE_DONE] = 1
    state[STATUS] = RUNNING
    state[PLY] = 0
    return own


# --- the solver ---------------------------------------------------------------------------------------------------
@per_game()
def solve_layer(
    template: np.ndarray,
    params: np.ndarray,
    seeds: int,
    n_pits: int,
    n_actions: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
    stats: np.ndarray,
) -> int:
    """Solves every position with ``seeds`` seeds on the board (every smaller layer is solved already).

    ``template`` is a running state of the game whose board, stores, player and first-move flag this
    overwrites; ``table`` holds the three rows of the whole table (value bytes, lower bounds, upper
    bounds; see :class:`Table`), written in place; ``stats`` gains ``[positions, positions in cycle
    classes, cycle classes, largest class, rounds, classes without a fixed point]``. Returns -1 (the return of
    :func:`solve_acyclic_layer`, which the builder calls the same way).
    """
    live = template.shape[0]
    boards = binom[seeds + n_pits - 1, n_pits - 1]
    first = binom[seeds + n_pits - 1, n_pits] if seeds > 0 else 0
    nodes = 2 * boards
    # per position: the best move that leaves the layer (or ends the game): its value and bounds
    exit_best = np.full(nodes, _NO_VALUE, dtype=np.int32)
    exit_low = np.full(nodes, _NO_VALUE, dtype=np.int32)
    exit_high = np.full(nodes, _NO_VALUE, dtype=np.int32)
    settle = np.zeros(nodes, dtype=np.int32)
    # the moves that stay in the layer
    child = np.empty(nodes * n_actions, dtype=np.int32)
    sign = np.empty(nodes * n_actions, dtype=np.int8)
    count = np.zeros(nodes, dtype=np.int32)
    state = template.copy()
    work = template.copy()
    board = np.zeros(n_pits, dtype=np.int64)
    board[n_pits - 1] = seeds
    rank = 0
    while True:
        for mover in range(2):
            node = 2 * rank + mover
            own = _set_up_position(state, board, n_pits, mover)
            settle[node] = own
            legal = game_legal_bits(state, params)
            state[LEGAL] = legal
            if legal == 0:  # no legal move: the game ends, each player taking their own pits
                exit_best[node] = own
                exit_low[node] = own
                exit_high[node] = own
                continue
            for action in range(n_actions):
                if not (legal >> action) & 1:
                    continue
                copy_slots(work, state, live)
                game_step(work, params, action, trace)
                gain = work[STORE + mover] - work[STORE + 1 - mover]
                if work[STATUS] != RUNNING:
                    value = gain
                    low = gain
                    high = gain
                else:
                    left = 0
                    for pit in range(n_pits):
                        left += work[BOARD + pit]
                    same = work[PLAYER] == mover
                    index = 2 * board_index(work, BOARD, n_pits, binom) + work[PLAYER]
                    if left == seeds:
                        slot = node * n_actions + count[node]
                        child[slot] = index - 2 * first
                        sign[slot] = 1 if same else -1
                        count[node] += 1
                        continue
                    later = table_margin(table[0, index])
                    later_low = table_margin(table[1, index])
                    later_high = table_margin(table[2, index])
                    value = gain + (later if same else -later)
                    low = gain + (later_low if same else -later_high)
                    high = gain + (later_high if same else -later_low)
                exit_best[node] = max(exit_best[node], value)
                exit_low[node] = max(exit_low[node], low)
                exit_high[node] = max(exit_high[node], high)
        rank += 1
        if not next_board(board, n_pits):
            break
    _components(
        nodes, n_actions, seeds, exit_best, exit_low, exit_high, settle, child, sign, count, table, 2 * first, stats
    )
    stats[0] += nodes
    return -1


@per_game()
def solve_acyclic_layer(
    template: np.ndarray,
    params: np.ndarray,
    seeds: int,
    n_pits: int,
    n_actions: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
    stats: np.ndarray,
) -> int:
    """Solves every position with ``seeds`` seeds on the board of an acyclic game (``Game.acyclic``), in one sweep.

    In an acyclic game a move that keeps every seed on the board leads to a board of smaller
    :func:`board_index` in the same layer, so sweeping the layer's boards in index order finds every successor
    already solved: each position is the best of its moves, with no work arrays. ``table`` has one row (value
    bytes, each exact); ``stats[0]`` gains the layer's positions.

    Returns:
        -1 when every move kept the claim, else the index of a position with a seed-keeping move to a board not
        below it (the game is not acyclic; the layer is left half-written).
    """
    board = np.zeros(n_pits, dtype=np.int64)
    board[n_pits - 1] = seeds
    first = binom[seeds + n_pits - 1, n_pits] if seeds > 0 else 0
    boards = binom[seeds + n_pits - 1, n_pits - 1]
    stats[0] += 2 * boards
    return _sweep_acyclic_layer(
        template.copy(), template.copy(), board, params, first, n_pits, n_actions, table, binom, trace
    )


@per_game()
def _sweep_acyclic_layer(
    state: np.ndarray,
    work: np.ndarray,
    board: np.ndarray,
    params: np.ndarray,
    first: int,
    n_pits: int,
    n_actions: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
) -> int:
    """The sweep of :func:`solve_acyclic_layer` from ``board`` (the layer's first), on the caller's arrays."""
    # borrowed (mancala_envs.engine.board_views): the rules' calls count no references; the caller holds the arrays
    state = borrowed_view(state)
    work = borrowed_view(work)
    board = borrowed_view(board)
    params = borrowed_view(params)
    table = borrowed_view(table)
    binom = borrowed_view(binom)
    trace = borrowed_view(trace)
    live = state.shape[0]
    rank = 0
    while True:
        for mover in range(2):
            node = 2 * (first + rank) + mover
            own = _set_up_position(state, board, n_pits, mover)
            legal = game_legal_bits(state, params)
            state[LEGAL] = legal
            best = own if legal == 0 else -_FAR  # no legal move: each player takes their own pits
            for action in range(n_actions):
                if not (legal >> action) & 1:
                    continue
                copy_slots(work, state, live)
                game_step(work, params, action, trace)
                value = work[STORE + mover] - work[STORE + 1 - mover]
                if work[STATUS] == RUNNING:
                    index = 2 * board_index(work, BOARD, n_pits, binom) + work[PLAYER]
                    if index >= node - mover:
                        return node
                    later = table_margin(table[0, index])
                    value += later if work[PLAYER] == mover else -later
                best = max(best, value)
            table[0, node] = _encode(best) + EXACT_BIT
        rank += 1
        if not next_board(board, n_pits):
            return -1


@njit(cache=True, error_model="numpy")
def _components(
    nodes: int,
    n_actions: int,
    seeds: int,
    exit_best: np.ndarray,
    exit_low: np.ndarray,
    exit_high: np.ndarray,
    settle: np.ndarray,
    child: np.ndarray,
    sign: np.ndarray,
    count: np.ndarray,
    table: np.ndarray,
    offset: int,
    stats: np.ndarray,
) -> None:
    """Tarjan's algorithm over the layer's seed-keeping moves, solving each component as it is found.

    Tarjan's algorithm finds a component only after every component it leads to, so each is solved
    with the values of its ways out already written into ``table`` (at ``offset + node``).
    """
    index = np.full(nodes, -1, dtype=np.int32)
    low = np.zeros(nodes, dtype=np.int32)
    on_stack = np.zeros(nodes, dtype=np.bool_)
    component = np.full(nodes, -1, dtype=np.int32)
    stack = np.empty(nodes, dtype=np.int32)
    calls = np.empty(nodes, dtype=np.int32)
    edges = np.empty(nodes, dtype=np.int32)
    scratch = np.zeros((5, 0), dtype=np.int32)  # the cycle classes' work rows, made at the first class
    depth = 0
    top = 0
    counter = 0
    found = 0
    for root in range(nodes):
        if index[root] != -1:
            continue
        opening = root  # the position to open next (-1: none), its moves then followed one by one
        while True:
            if opening >= 0:
                index[opening] = counter
                low[opening] = counter
                counter += 1
                stack[top] = opening
                top += 1
                on_stack[opening] = True
                calls[depth] = opening
                edges[depth] = 0
                depth += 1
                opening = -1
            if depth == 0:
                break
            node = calls[depth - 1]
            edge = edges[depth - 1]
            if edge < count[node]:
                edges[depth - 1] = edge + 1
                target = child[node * n_actions + edge]
                if index[target] == -1:
                    opening = target
                elif on_stack[target] and index[target] < low[node]:
                    low[node] = index[target]
                continue
            depth -= 1
            if depth > 0:
                parent = calls[depth - 1]
                low[parent] = min(low[parent], low[node])
            if low[node] != index[node]:
                continue
            end = top
            while True:
                top -= 1
                member = stack[top]
                on_stack[member] = False
                component[member] = found
                if member == node:
                    break
            if scratch.shape[1] == 0 and (end - top > 1 or _loops(node, n_actions, child, count)):
                scratch = np.zeros((5, nodes), dtype=np.int32)
            _solve_component(
                stack[top:end],
                found,
                n_actions,
                seeds,
                exit_best,
                exit_low,
                exit_high,
                settle,
                child,
                sign,
                count,
                component,
                scratch,
                table,
                offset,
                stats,
            )
            found += 1


@njit(cache=True, error_model="numpy")
def _loops(node: int, n_actions: int, child: np.ndarray, count: np.ndarray) -> bool:
    """Whether ``node`` has a seed-keeping move back to itself (a cycle class of one position)."""
    for slot in range(node * n_actions, node * n_actions + count[node]):  # noqa: SIM110  (compiled: no generators)
        if child[slot] == node:
            return True
    return False


@njit(cache=True, inline="always", error_model="numpy")
def _encode(value: int) -> int:
    return value + VALUE_OFFSET


@njit(cache=True, error_model="numpy")
def _solve_component(
    members: np.ndarray,
    label: int,
    n_actions: int,
    seeds: int,
    exit_best: np.ndarray,
    exit_low: np.ndarray,
    exit_high: np.ndarray,
    settle: np.ndarray,
    child: np.ndarray,
    sign: np.ndarray,
    count: np.ndarray,
    component: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    offset: int,
    stats: np.ndarray,
) -> None:
    """Writes the values and bounds of one component: a single position directly, a cycle class by iteration.

    ``scratch`` rows: the class-capped values (0, 1: this round and the next), the lower (2) and upper
    (3) bounds while they are being narrowed, each member's position in ``members`` (4).
    """
    size = members.shape[0]
    cyclic = size > 1 or _loops(members[0], n_actions, child, count)
    if not cyclic:  # no history can matter: the best move, and the bounds of the best move
        _solve_position(members[0], n_actions, exit_best, exit_low, exit_high, child, sign, count, table, offset)
        return
    stats[1] += size
    stats[2] += 1
    stats[3] = max(stats[3], size)
    current = scratch[0]
    lows = scratch[2]
    highs = scratch[3]
    where = scratch[4]
    for position in range(size):
        node = members[position]
        where[node] = position
        lows[node] = -seeds
        highs[node] = seeds
        current[node] = settle[node]
    starts, sources = _moves_into(members, label, n_actions, child, count, component, where)
    settled = _class_capped_values(
        members, label, n_actions, exit_best, child, sign, count, component, scratch, table, offset, starts, sources,
        stats,
    )  # fmt: skip
    if not settled:
        stats[5] += 1
    _history_bounds(
        members, label, n_actions, exit_low, exit_high, settle, child, sign, count, component, scratch, table, offset,
        starts, sources,
    )  # fmt: skip
    for node in members:
        _write(table, offset + node, current[node], lows[node], highs[node])


@njit(cache=True, inline="always", error_model="numpy")
def _solve_position(
    node: int,
    n_actions: int,
    exit_best: np.ndarray,
    exit_low: np.ndarray,
    exit_high: np.ndarray,
    child: np.ndarray,
    sign: np.ndarray,
    count: np.ndarray,
    table: np.ndarray,
    offset: int,
) -> None:
    """Writes a position outside every cycle class: its best move's value and bounds (no history can matter)."""
    best = exit_best[node]
    lowest = exit_low[node]
    highest = exit_high[node]
    for slot in range(node * n_actions, node * n_actions + count[node]):
        target = offset + child[slot]
        later = table_margin(table[0, target])
        later_low = table_margin(table[1, target])
        later_high = table_margin(table[2, target])
        if sign[slot] < 0:
            later, later_low, later_high = -later, -later_high, -later_low
        best = max(best, later)
        lowest = max(lowest, later_low)
        highest = max(highest, later_high)
    _write(table, offset + node, best, lowest, highest)


@njit(cache=True, error_model="numpy")
def _moves_into(
    members: np.ndarray,
    label: int,
    n_actions: int,
    child: np.ndarray,
    count: np.ndarray,
    component: np.ndarray,
    where: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The class's moves reversed: ``sources[starts[i]:starts[i + 1]]`` are the members with a move to
    ``members[i]`` (``where[node]`` is a member's position ``i``), so that only the positions whose move
    targets changed are computed again, in both iterations of :func:`_solve_component`."""
    size = members.shape[0]
    starts = np.zeros(size + 1, dtype=np.int32)
    for node in members:
        for slot in range(node * n_actions, node * n_actions + count[node]):
            if component[child[slot]] == label:
                starts[where[child[slot]] + 1] += 1
    for position in range(size):
        starts[position + 1] += starts[position]
    filled = starts[:size].copy()
    sources = np.empty(starts[size], dtype=np.int32)
    for node in members:
        for slot in range(node * n_actions, node * n_actions + count[node]):
            target = child[slot]
            if component[target] == label:
                sources[filled[where[target]]] = node
                filled[where[target]] += 1
    return starts, sources


@njit(cache=True, error_model="numpy")
def _class_capped_values(
    members: np.ndarray,
    label: int,
    n_actions: int,
    exit_best: np.ndarray,
    child: np.ndarray,
    sign: np.ndarray,
    count: np.ndarray,
    component: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    offset: int,
    starts: np.ndarray,
    sources: np.ndarray,
    stats: np.ndarray,
) -> bool:
    """The class-capped game's values into ``scratch[0]``: CLASS_PLIES rounds of value iteration from the settlement
    (fewer at a fixed point; True if it reached one). A round computes again only the positions with a move to one
    that changed in the round before (the others would get the same value), which gives the rounds over the whole
    class."""
    size = members.shape[0]
    current = scratch[0]
    following = scratch[1]
    where = scratch[4]
    pending = members.copy()
    waiting = size
    changed_nodes = np.empty(size, dtype=np.int32)
    stamp = np.full(size, -1, dtype=np.int32)
    for round_number in range(CLASS_PLIES):
        changes = 0
        for item in range(waiting):
            node = pending[item]
            best = exit_best[node]
            for slot in range(node * n_actions, node * n_actions + count[node]):
                target = child[slot]
                later = current[target] if component[target] == label else table_margin(table[0, offset + target])
                best = max(best, sign[slot] * later)
            following[node] = best
            if best != current[node]:
                changed_nodes[changes] = node
                changes += 1
        stats[4] += 1
        if changes == 0:
            return True
        waiting = 0
        for item in range(changes):
            node = changed_nodes[item]
            current[node] = following[node]
            position = where[node]
            for source in sources[starts[position] : starts[position + 1]]:
                if stamp[where[source]] != round_number:
                    stamp[where[source]] = round_number
                    pending[waiting] = source
                    waiting += 1
    return False


@njit(cache=True, error_model="numpy")
def _history_bounds(
    members: np.ndarray,
    label: int,
    n_actions: int,
    exit_low: np.ndarray,
    exit_high: np.ndarray,
    settle: np.ndarray,
    child: np.ndarray,
    sign: np.ndarray,
    count: np.ndarray,
    component: np.ndarray,
    scratch: np.ndarray,
    table: np.ndarray,
    offset: int,
    starts: np.ndarray,
    sources: np.ndarray,
) -> None:
    """Bounds that hold whatever the history, into ``scratch[2]`` and ``scratch[3]``: a move into the class either
    goes on (the bounds of the position reached) or, if that position was seen, ends the game with its settlement.
    Narrowed from [-seeds, seeds] until nothing changes (a work list: a position is computed again when a move's
    target changed); every step keeps them valid."""
    size = members.shape[0]
    lows = scratch[2]
    highs = scratch[3]
    where = scratch[4]
    queue = members.copy()  # a ring of positions to compute again, each at most once in it
    queued = np.ones(size, dtype=np.bool_)
    head = 0
    waiting = size
    while waiting > 0:
        node = queue[head]
        head = head + 1 if head + 1 < size else 0
        waiting -= 1
        queued[where[node]] = False
        lowest = exit_low[node]
        highest = exit_high[node]
        for slot in range(node * n_actions, node * n_actions + count[node]):
            target = child[slot]
            if component[target] == label:
                ending = sign[slot] * settle[target]  # the repetition rule's end, seen by this mover
                later_low = lows[target]
                later_high = highs[target]
                if sign[slot] < 0:
                    later_low, later_high = -later_high, -later_low
                lowest = max(lowest, min(ending, later_low))
                highest = max(highest, max(ending, later_high))
            else:
                later_low = table_margin(table[1, offset + target])
                later_high = table_margin(table[2, offset + target])
                if sign[slot] < 0:
                    later_low, later_high = -later_high, -later_low
                lowest = max(lowest, later_low)
                highest = max(highest, later_high)
        if lowest > lows[node] or highest < highs[node]:
            lows[node] = max(lows[node], lowest)
            highs[node] = min(highs[node], highest)
            position = where[node]
            for source in sources[starts[position] : starts[position + 1]]:
                if not queued[where[source]]:
                    queued[where[source]] = True
                    tail = head + waiting
                    queue[tail - size if tail >= size else tail] = source
                    waiting += 1


@njit(cache=True, inline="always", error_model="numpy")
def _write(table: np.ndarray, slot: int, value: int, low: int, high: int) -> None:
    """Stores a position: its value kept within its bounds (exactly the bound where they meet) and the bounds."""
    value = min(max(value, low), high)
    table[0, slot] = _encode(value) + (EXACT_BIT if low == high else 0)
    table[1, slot] = _encode(low)
    table[2, slot] = _encode(high)


@per_game()
def move_values(
    state: np.ndarray,
    params: np.ndarray,
    n_pits: int,
    n_actions: int,
    max_seeds: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
    work: np.ndarray,
    out: np.ndarray,
) -> int:
    """Each legal move's value for the player to move: its gain now plus the table's value after it.

    ``out[0, action]`` gets the future margin of ``state``'s mover after playing ``action`` under
    perfect play, ``out[1, action]`` and ``out[2, action]`` its lower and upper bounds over every
    history (all three ``-1000`` for an illegal action). A move that ends the game (a repetition
    included: the move is played on ``state``, history and all) is valued by its result. Returns the
    number of legal actions whose resulting position is outside the table (valued ``-1000`` too), so
    0 means every legal move was valued.

    Unchecked: ``state`` must have passed ``Game.check_state`` (see the module docstring); the checked door is
    :meth:`Table.move_values`.
    """
    mover = state[PLAYER]
    legal = state[LEGAL]
    missing = 0
    before = state[STORE + mover] - state[STORE + 1 - mover]
    live = min(work.shape[0], state.shape[0])
    for action in range(n_actions):
        out[0, action] = _NO_VALUE
        out[1, action] = _NO_VALUE
        out[2, action] = _NO_VALUE
        if not (legal >> action) & 1:
            continue
        copy_slots(work, state, live)
        game_step(work, params, action, trace)
        gain = work[STORE + mover] - work[STORE + 1 - mover] - before
        if work[STATUS] != RUNNING:
            out[0, action] = gain
            out[1, action] = gain
            out[2, action] = gain
            continue
        left = 0
        for pit in range(n_pits):
            left += work[BOARD + pit]
        if left > max_seeds:
            missing += 1
            continue
        index = 2 * board_index(work, BOARD, n_pits, binom) + work[PLAYER]
        later = table_margin(table[0, index])
        later_low = table_margin(table[_low_row(table), index])
        later_high = table_margin(table[_high_row(table), index])
        if work[PLAYER] != mover:
            later, later_low, later_high = -later, -later_high, -later_low
        out[0, action] = gain + later
        out[1, action] = gain + later_low
        out[2, action] = gain + later_high
    return missing


@njit(cache=True, inline="always", error_model="numpy")
def _low_row(table: np.ndarray) -> int:
    """The row of a table's lower bounds: 1 of three rows, or the exact values' row of a one-row table."""
    return (table.shape[0] - 1) // 2


@njit(cache=True, inline="always", error_model="numpy")
def _high_row(table: np.ndarray) -> int:
    """The row of a table's upper bounds: 2 of three rows, or the exact values' row of a one-row table."""
    return table.shape[0] - 1


#: what :func:`history_search` returns when it ran out of its node budget
SEARCH_ABORTED = -1_000_000
_FAR = 10_000


@per_game()
def history_search(
    root: np.ndarray,
    params: np.ndarray,
    n_pits: int,
    n_actions: int,
    max_seeds: int,
    history_start: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
    alpha: int,
    beta: int,
    budget: int,
    children: np.ndarray,
    frames: np.ndarray,
    memory: np.ndarray,
    key_binom: np.ndarray,
    out: np.ndarray,
) -> int:
    """Alpha-beta over the real game from ``root``, its repetition memory included, with the table at its leaves.

    The search plays every move with the game's ``step`` on copies of the state, so a repetition ends
    a line exactly as it ends a game. A position inside the table whose bounds meet is a leaf worth
    its exact value; otherwise its bounds (which hold for every history) cut the search where they
    already settle the comparison. So the result is the exact value of ``root`` *with its history*.

    With a transposition table (``memory`` of at least one row, for an acyclic game only: there a position's
    value is its board's and its mover's, whatever the history), each position searched leaves the bounds it
    proved and its best move there; a later visit whose window they settle returns at once, and any other tries
    that move first. The entries stay valid across calls and windows, which is what MTD(f) (:meth:`Table.search`)
    needs. A move that does not reach the table is bounded by the seeds left on the board (its gain, give or take
    all of them), and moves are tried in the order: the remembered best, the best estimate (the table's value,
    else the gain), an extra turn before a pass, the pit nearest the store first.

    Args:
        root: The position (running).
        alpha: The window's lower end, fail-soft: a result ``<= alpha`` is an upper bound of the value (anything
            strictly between ``alpha`` and ``beta`` is exact).
        beta: The window's upper end: a result ``>= beta`` is a lower bound of the value.
        budget: Positions to visit at most.
        children: Scratch, shape ``(depth, n_actions, state size)``: the children of each level.
        frames: Scratch, shape ``(depth, FRAME_HEAD + 6 * n_actions)`` ``int64``.
        memory: The transposition table, ``int64`` of shape ``(2**k, 2)`` (``(0, 2)``: none); see
            :func:`_remember`.
        key_binom: :func:`binomials` covering every board of the game (the transposition table's keys).
        out: ``out[0]`` gets the best root action, ``out[1]`` the positions visited.

    Returns:
        The root mover's future margin (in the window's sense), or ``SEARCH_ABORTED`` when the budget or the
        depth of ``children`` ran out.

    Unchecked: ``root`` must have passed ``Game.check_state`` (see the module docstring); the checked door is
    :meth:`Table.search`.
    """
    # the arguments are borrowed (mancala_envs.engine.board_views): the views taken of them at every node count no
    # references; the caller holds the arrays for the whole call
    root = borrowed_view(root)
    params = borrowed_view(params)
    table = borrowed_view(table)
    binom = borrowed_view(binom)
    trace = borrowed_view(trace)
    children = borrowed_view(children)
    frames = borrowed_view(frames)
    memory = borrowed_view(memory)
    key_binom = borrowed_view(key_binom)
    # frame slots: see _open_frame
    order_at = FRAME_HEAD
    kind_at = FRAME_HEAD + n_actions
    gain_at = FRAME_HEAD + 2 * n_actions
    low_at = FRAME_HEAD + 3 * n_actions
    high_at = FRAME_HEAD + 4 * n_actions
    depth_limit = children.shape[0]
    found = np.empty(3, dtype=np.int64)  # what the transposition table knows of a position
    visited = 1
    depth = 0
    source = root
    frames[0, 0] = alpha
    frames[0, 1] = beta
    returning = False
    result = 0
    while True:
        frame = frames[depth]
        if not returning:
            _open_frame(
                frame, source, children[depth], params, n_pits, n_actions, max_seeds, history_start, table, binom,
                trace, memory, key_binom, found, depth > 0,
            )  # fmt: skip
        else:
            action = frame[6]
            gain = frame[gain_at + action]
            _settle_move(frame, action, gain + result if frame[kind_at + action] == 1 else gain - result)
            returning = False
        # Go on with the next move of this frame, or close it.
        descended = False
        while frame[0] < frame[1] and (frame[5] < frame[4] or frame[10] > 0):
            if frame[5] == frame[4]:  # the remembered best move alone did not settle it: play the others
                _add_moves(
                    frame, root if depth == 0 else children[depth - 1, frames[depth - 1, 6]], children[depth], params,
                    n_pits, n_actions, max_seeds, history_start, table, binom, trace, -1, frame[10] - 1,
                )  # fmt: skip
                frame[10] = 0
                continue
            action = frame[order_at + frame[5]]
            frame[5] += 1
            kind = frame[kind_at + action]
            low = frame[low_at + action]
            high = frame[high_at + action]
            if kind == 0 or high <= frame[0] or low >= frame[1]:
                _settle_move(frame, action, low if kind == 0 or low >= frame[1] else high)
                continue
            if depth + 1 >= depth_limit or visited >= budget:
                out[1] = visited
                return SEARCH_ABORTED
            gain = frame[gain_at + action]
            frame[6] = action
            following = frames[depth + 1]
            if kind == 1:
                following[0] = frame[0] - gain
                following[1] = frame[1] - gain
            else:
                following[0] = gain - frame[1]
                following[1] = gain - frame[0]
            source = children[depth, action]
            depth += 1
            visited += 1
            descended = True
            break
        if descended:
            continue
        result = frame[2]
        if frame[9] > 0:
            _remember(memory, frame[9], result, frame[8], frame[1], frame[3], frame[7])
        if depth == 0:
            out[0] = frame[3]
            out[1] = visited
            return result
        depth -= 1
        returning = True


#: slots at the head of a :func:`history_search` frame, before its per-action slots (see :func:`_open_frame`)
FRAME_HEAD = 11
#: a transposition table entry packs its lower bound, upper bound and best action (each biased) into one int64
_BOUND_BIAS = 1 << 15
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15, Fibonacci hashing's multiplier, as a signed int64


@njit(cache=True, inline="always", error_model="numpy")
def _memory_slot(memory: np.ndarray, key: int) -> int:
    """The first of the two rows of ``memory`` (a power of two of rows) where ``key`` may live: Fibonacci hashing."""
    return ((key * _MIX) >> 24) & (memory.shape[0] - 2)


@njit(cache=True, error_model="numpy")
def _recall(memory: np.ndarray, key: int, found: np.ndarray) -> bool:
    """Whether ``memory`` knows position ``key``; if so ``found`` gets its ``[low, high, best action]``."""
    row = _memory_slot(memory, key)
    if memory[row, 0] != key:
        row += 1
        if memory[row, 0] != key:
            return False
    packed = memory[row, 1]
    found[0] = (packed & 0xFFFF) - _BOUND_BIAS
    found[1] = ((packed >> 16) & 0xFFFF) - _BOUND_BIAS
    found[2] = ((packed >> 32) & 0xFF) - 1
    return True


@njit(cache=True, error_model="numpy")
def _remember(memory: np.ndarray, key: int, result: int, alpha: int, beta: int, action: int, seeds: int) -> None:
    """Stores what a fail-soft search of position ``key`` in the window ``(alpha, beta)`` proved: ``result`` is an
    upper bound (``<= alpha``), a lower bound (``>= beta``) or the value; merged with what was known of it.

    Each key has two rows: the first keeps the position with the most ``seeds`` on the board (the larger
    search to redo), the second the latest other one.
    """
    row = _memory_slot(memory, key)
    low = -_FAR
    high = _FAR
    best = -1
    if memory[row, 0] == key or memory[row + 1, 0] == key:
        if memory[row, 0] != key:
            row += 1
        packed = memory[row, 1]
        low = (packed & 0xFFFF) - _BOUND_BIAS
        high = ((packed >> 16) & 0xFFFF) - _BOUND_BIAS
        best = ((packed >> 32) & 0xFF) - 1
    elif seeds >= memory[row, 1] >> 40:
        memory[row + 1, 0] = memory[row, 0]
        memory[row + 1, 1] = memory[row, 1]
    else:
        row += 1
    if result <= alpha:
        high = min(high, result)
    else:
        best = action
        if result >= beta:
            low = max(low, result)
        else:
            low = result
            high = result
    memory[row, 0] = key
    memory[row, 1] = (low + _BOUND_BIAS) | ((high + _BOUND_BIAS) << 16) | ((best + 1) << 32) | (seeds << 40)


@njit(cache=True, inline="always", error_model="numpy")
def _settle_move(frame: np.ndarray, action: int, value: int) -> None:
    """A move of :func:`history_search`'s ``frame`` is worth ``value``: it may be the best so far, and raises alpha."""
    if value > frame[2]:
        frame[2] = value
        frame[3] = action
    frame[0] = max(frame[0], value)


@per_game(inline="always")
def _open_frame(
    frame: np.ndarray,
    source: np.ndarray,
    children: np.ndarray,
    params: np.ndarray,
    n_pits: int,
    n_actions: int,
    max_seeds: int,
    history_start: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
    memory: np.ndarray,
    key_binom: np.ndarray,
    found: np.ndarray,
    cut: bool,
) -> None:
    """Opens a frame of :func:`history_search`: what the transposition table knows of ``source``, then its moves
    played into ``children[action]`` with each move's kind, gain, bounds and estimate (:func:`_add_moves`).

    When the transposition table remembers a best move of ``source``, that move alone is played first
    (``frame[10]`` says the others wait): the search plays the others only if it did not settle the window.

    Frame slots: 0 alpha, 1 beta, 2 best, 3 best action, 4 moves, 5 next, 6 current action, 7 seeds on the
    board, 8 alpha at the opening, 9 the transposition table's key of ``source`` (0: none), 10 the remembered
    move plus 1 while the other moves wait (else 0); then per action: order, kind (0 known, 1 same mover, 2 other
    mover), gain, low, high, estimate.
    """
    remembering = memory.shape[0] > 0
    frame[2] = -_FAR
    frame[3] = -1
    frame[4] = 0
    frame[5] = 0
    frame[8] = frame[0]
    frame[9] = 0
    frame[10] = 0
    favourite = -1
    if remembering:
        frame[9] = 2 * board_index(source, BOARD, n_pits, key_binom) + source[PLAYER] + 1
        seeds = 0
        for pit in range(n_pits):
            seeds += source[BOARD + pit]
        frame[7] = seeds
        if _recall(memory, frame[9], found):
            favourite = found[2]
            if cut and (found[0] >= frame[1] or found[1] <= frame[0] or found[0] == found[1]):
                # what is known settles the window: no move is searched
                frame[2] = found[0] if found[0] >= frame[1] or found[0] == found[1] else found[1]
                frame[3] = favourite
                frame[9] = 0
                return
    if favourite >= 0 and (source[LEGAL] >> favourite) & 1:
        # the remembered best move alone first: most frames it settles need no other move played
        _add_moves(
            frame, source, children, params, n_pits, n_actions, max_seeds, history_start, table, binom, trace,
            favourite, -1,
        )  # fmt: skip
        frame[10] = favourite + 1
    else:
        _add_moves(
            frame, source, children, params, n_pits, n_actions, max_seeds, history_start, table, binom, trace, -1, -1
        )


@per_game(inline="always")
def _add_moves(
    frame: np.ndarray,
    source: np.ndarray,
    children: np.ndarray,
    params: np.ndarray,
    n_pits: int,
    n_actions: int,
    max_seeds: int,
    history_start: int,
    table: np.ndarray,
    binom: np.ndarray,
    trace: np.ndarray,
    only: int,
    skip: int,
) -> None:
    """Plays legal moves of ``source`` into ``children[action]`` (``only`` that action if ``only >= 0``, every one
    but ``skip``) and appends them to ``frame``'s order, best estimate first among them (see :func:`_open_frame`)."""
    order_at = FRAME_HEAD
    kind_at = FRAME_HEAD + n_actions
    gain_at = FRAME_HEAD + 2 * n_actions
    low_at = FRAME_HEAD + 3 * n_actions
    high_at = FRAME_HEAD + 4 * n_actions
    estimate_at = FRAME_HEAD + 5 * n_actions
    size = children.shape[1]
    start = frame[4]
    mover = source[PLAYER]
    before = source[STORE + mover] - source[STORE + 1 - mover]
    legal = source[LEGAL]
    live = size
    if history_start > 0:
        live = min(history_start + source[HISTORY_LEN] + 1, size)
    moves = start
    for action in range(n_actions):
        if not (legal >> action) & 1 or action == skip or (only >= 0 and action != only):
            continue
        child = children[action]
        copy_slots(child, source, live)
        game_step(child, params, action, trace)
        gain = child[STORE + mover] - child[STORE + 1 - mover] - before
        frame[gain_at + action] = gain
        kind = 0
        low = gain
        high = gain
        middle = gain  # the move's estimated value, to try the best first
        if child[STATUS] == RUNNING:
            kind = 1 if child[PLAYER] == mover else 2
            left = 0
            for pit in range(n_pits):
                left += child[BOARD + pit]
            # seeds on the board are all that is left to win: the move is worth its gain give or take them
            low = gain - left
            high = gain + left
            middle = gain
            if left <= max_seeds and child[FIRST_MOVE_DONE] == 1:
                index = 2 * board_index(child, BOARD, n_pits, binom) + child[PLAYER]
                later_low = table_margin(table[_low_row(table), index])
                later_high = table_margin(table[_high_row(table), index])
                if kind == 2:
                    later_low, later_high = -later_high, -later_low
                low = gain + later_low
                high = gain + later_high
                estimate = table_margin(table[0, index])
                middle = gain + (estimate if kind == 1 else -estimate)
                if low == high:
                    kind = 0
        # the order: the best estimate (the table's value, else the gain), an extra turn before a pass, the pit
        # nearest the store first
        middle = 4 * n_actions * middle + (2 * n_actions if kind == 1 else 0) + action
        frame[kind_at + action] = kind
        frame[low_at + action] = low
        frame[high_at + action] = high
        frame[estimate_at + action] = middle
        slot = moves  # insertion by estimate, best first
        while slot > start:
            other = frame[order_at + slot - 1]
            if frame[estimate_at + other] >= middle:
                break
            frame[order_at + slot] = other
            slot -= 1
        frame[order_at + slot] = action
        moves += 1
    frame[4] = moves


# --- tables -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableValue:
    """A position's value under perfect play.

    Attributes:
        margin: Seeds the player to move will still gain minus those the opponent will still gain
            (where the repetition rule makes it depend on history, the class-capped value, see the
            module docstring).
        low: The least ``margin`` can be, whatever positions were seen before.
        high: The most ``margin`` can be, whatever positions were seen before.
    """

    margin: int
    low: int
    high: int

    @property
    def exact(self) -> bool:
        """Whether the value is the same whatever positions were seen before (``low == high``)."""
        return self.low == self.high


@dataclass(frozen=True)
class SearchResult:
    """What :meth:`Table.search` found.

    Attributes:
        margin: The position's future margin for its player to move, its history included (exact
            unless a window was given).
        action: A move that keeps it.
        positions: Positions the search visited.
    """

    margin: int
    action: int
    positions: int


def solvable(game: Game) -> str | None:
    """Why ``game`` cannot be tabled, or None if it can (a two-row game whose seeds leave only into stores)."""
    if not type(game).tables:
        solvable_names = [cls.name for cls in game_classes() if cls.tables]
        return (
            f"{game.name} cannot be tabled (its positions hold more than a board, stores and player to move, "
            f"or seeds return to the board); tables exist for {', '.join(solvable_names)}"
        )
    if game.is_match:
        return f"{game.name} here is played as a match; tables solve single games (drop the match options)"
    return None


class Table:
    """A solved table: the values of every position with at most ``max_seeds`` seeds on the board.

    Args:
        game: The game it solves (its config, apart from ``max_plies`` and ``repetition``).
        max_seeds: The largest number of seeds on the board it covers.
        table: ``uint8`` array of shape ``(3, positions)``, positions in :func:`board_index` order,
            two per board (player 0 to move, then player 1). Row 0 (:attr:`values`): the value plus
            64, with bit 7 set when it is exact; rows 1 and 2: the lower and upper bounds over every
            history, plus 64. An acyclic game's table (``Game.acyclic``) has row 0 alone, every value exact
            (:func:`table_rows`).
        info: What the build measured (seconds, positions, cycle classes...).
        memory_bits: The transposition table of :meth:`search` holds ``2**memory_bits`` positions (acyclic
            games only, 16 bytes each).

    Attributes:
        values: Row 0 of the table, one byte per position (what compiled code reads).
        table: The three rows.
    """

    def __init__(
        self,
        game: Game,
        max_seeds: int,
        table: np.ndarray,
        info: dict[str, Any] | None = None,
        memory_bits: int = 24,
    ) -> None:
        self.game = game
        self.max_seeds = int(max_seeds)
        self.table = table
        self.values = table[0]
        self.info = dict(info or {})
        #: the folder it was loaded from (None: built here, or the default folder)
        self.folder: str | os.PathLike[str] | None = None
        self.binom = binomials(self.max_seeds + game.n_pits + 2)
        self._work = np.zeros(game.state_size, dtype=np.int64)
        self._trace = np.zeros(0, dtype=np.int64)
        self._out = np.zeros((3, game.n_actions), dtype=np.int64)
        self._search_scratch: tuple[np.ndarray, np.ndarray] | None = None
        #: rows of the transposition table of :meth:`search`, as a power of two (acyclic games only)
        self.memory_bits = memory_bits
        self._memory: np.ndarray | None = None
        # the keys of the transposition table rank every board of the game (any seed count)
        self._key_binom = binomials(game.total_seeds + game.n_pits + 2, columns=game.n_pits)
        self._rules = _solver_game(game) if type(game).acyclic else game

    def view(self) -> Table:
        """A Table of its own over the same arrays (and folder): its work buffers are its own, so threads
        or agents that share a loaded table do not share them."""
        table = Table(self.game, self.max_seeds, self.table, self.info, self.memory_bits)
        table.folder = self.folder
        return table

    @property
    def positions(self) -> int:
        """Number of positions in the table (boards times the two players to move)."""
        return int(self.table.shape[1])

    @property
    def complete(self) -> bool:
        """Whether the table covers every position of the game (``max_seeds`` is all the seeds)."""
        return self.max_seeds >= self.game.total_seeds

    def covers(self, state: np.ndarray) -> bool:
        """Whether ``state``'s board holds at most ``max_seeds`` seeds.

        Raises:
            TypeError: ``state`` is not an array of the form of :attr:`game`'s states (``game.check_state``).
            ValueError: ``state`` is not a state that :attr:`game` reaches (the message names the part).
        """
        state = self._checked_state(state)
        return int(self.game.board(state).sum()) <= self.max_seeds

    def _checked_state(self, state: Any) -> np.ndarray:
        """``state`` after ``check_state`` of its game: :attr:`game`, or the same rules with the ``max_plies`` and
        ``repetition`` that the state's size gives (tables ignore both). A state of another config comes back
        copied into a state of :attr:`game` (its repetition memory kept when :attr:`game` keeps one), the form
        the table's compiled lookups read.

        Raises:
            TypeError: ``state`` is not an array of a state's form (the message names :attr:`game`'s).
            ValueError: it is not a state a game reaches, or its repetition memory is longer than :attr:`game`'s.
        """
        game = self.game
        if isinstance(state, np.ndarray) and state.ndim == 1 and state.shape[0] != game.state_size:
            games = self.__dict__.setdefault("_state_games", {})
            size = int(state.shape[0])
            if size not in games:
                games[size] = self._rules_of_size(game, size)
            game = games[size] or game
        game.check_state(state)
        if game is self.game:
            return state
        adopted = np.zeros(self.game.state_size, dtype=np.int64)
        live = game.history_start + int(state[HISTORY_LEN]) if game.history_start else game.state_size
        if not self.game.history_start:
            live = min(live, self.game.state_size)  # the table's game keeps no repetition memory: it is dropped
        elif live > self.game.state_size:
            raise ValueError(
                f"the state's repetition memory holds {int(state[HISTORY_LEN])} positions, more than this table's "
                f"{self.game.name} keeps ({self.game.state_size - self.game.history_start}); load the table with "
                "the state's game (load_table(game)) to read it."
            )
        adopted[:live] = state[:live]
        if not self.game.history_start:
            adopted[HISTORY_LEN] = adopted[HISTORY_FILTER] = 0
        return adopted

    @staticmethod
    def _rules_of_size(game: Game, size: int) -> Game | None:
        """``game``'s rules with the ``max_plies`` and ``repetition`` whose states have ``size`` entries, if any."""
        fields = {field.name for field in dataclasses.fields(game.config)}
        if not {"max_plies", "repetition"} <= fields:
            return None
        probe = type(game)(dataclasses.replace(game.config, repetition=True))
        # the history's length grows with the ply cap
        ply_cap = probe.max_plies + size - probe.state_size  # type: ignore[attr-defined]  # each game declares it
        for changes in ({"repetition": False}, {"repetition": True, "max_plies": ply_cap}):
            try:
                other = type(game)(dataclasses.replace(game.config, **changes))
            except (TypeError, ValueError):  # no config of that size (a ply cap below 1)
                continue
            if other.state_size == size:
                return other
        return None

    def value(self, state: np.ndarray) -> TableValue:
        """The table's value of ``state`` for its player to move (its first ply valued by playing it, see
        :meth:`move_values`).

        Only the board and the player to move are read: the margin is the table's (see the module
        docstring), and ``low``/``high`` bound the value over every history. With a repetition
        memory that matters here, ``max(move_values(state))`` can differ from it; :meth:`search`
        gives the exact value of ``state`` as it stands.

        ``state`` must be a state of :attr:`game` (the game the table was built or loaded with), or of the
        same game with another ``max_plies`` or ``repetition`` (tables ignore both), checked with that
        game's ``check_state`` before anything reads it.

        Raises:
            TypeError: ``state`` is not an array of the form of :attr:`game`'s states.
            ValueError: ``state`` is not a state that :attr:`game` reaches (the message names the part).
            TableError: the game is over, or the board holds more than ``max_seeds`` seeds.
        """
        state = self._checked_state(state)
        if state[STATUS] != RUNNING:
            raise TableError("the game is over: a finished position has no value to look up.")
        if state[FIRST_MOVE_DONE] == 0:  # the first ply may follow its own rules (Modiar rule 4): look one ply ahead
            moves = self._move_values(state).values()
            return TableValue(max(v.margin for v in moves), max(v.low for v in moves), max(v.high for v in moves))
        self._check_covered(state)
        board = np.asarray(self.game.board(state), dtype=np.int64)
        index = 2 * board_index(board, 0, self.game.n_pits, self.binom) + int(state[PLAYER])
        rows = self.table.shape[0]
        value, low, high = (table_margin(self.table[row, index]) for row in (0, (rows - 1) // 2, rows - 1))
        return TableValue(value, low, high)

    def move_values(self, state: np.ndarray, search_budget: int = 0) -> dict[int, TableValue]:
        """Every legal action of ``state`` with the mover's future margin after it under perfect play.

        Each move is played on ``state`` itself, so a move that ends the game (a repetition of its
        memory, a store threshold) is valued by its result; the others by the table's value of the
        position reached.

        Args:
            state: A running position.
            search_budget: With a positive budget, each move whose table value is not exact is valued
                instead by :meth:`search` from the position it reaches (the real game with its history),
                visiting at most this many positions; its value is then exact (``low == high``). A search
                that runs out of budget leaves the table's value.

        ``state`` must be a state of :attr:`game` (the game the table was built or loaded with), or of the
        same game with another ``max_plies`` or ``repetition`` (tables ignore both), checked with that
        game's ``check_state`` before anything reads it.

        Raises:
            TypeError: ``state`` is not an array of the form of :attr:`game`'s states.
            ValueError: ``state`` is not a state that :attr:`game` reaches (the message names the part).
            TableError: the game is over, or a move leads outside the table.
        """
        return self._move_values(self._checked_state(state), search_budget)

    def _move_values(self, state: np.ndarray, search_budget: int = 0) -> dict[int, TableValue]:
        """:meth:`move_values` of a state already checked (unchecked)."""
        if state[STATUS] != RUNNING:
            raise TableError("the game is over: a finished position has no moves to value.")
        missing = self.game.compiled(move_values)(
            state,
            self.game.params,
            self.game.n_pits,
            self.game.n_actions,
            self.max_seeds,
            self.table,
            self.binom,
            self._trace,
            self._work,
            self._out,
        )
        if missing:
            self._check_covered(state)  # names the position's seeds
            raise TableError(f"a move from this position leads outside the table (more than {self.max_seeds} seeds).")
        legal = int(state[LEGAL])
        out = self._out
        values = {
            a: TableValue(int(out[0, a]), int(out[1, a]), int(out[2, a]))
            for a in range(self.game.n_actions)
            if legal >> a & 1
        }
        if search_budget > 0:
            for action, value in values.items():
                if not value.exact:
                    values[action] = self._searched_move(state, action, value, search_budget)
        return values

    def _searched_move(self, state: np.ndarray, action: int, value: TableValue, budget: int) -> TableValue:
        """``action``'s value by a search of the real game from the position it reaches (``value`` if it runs out)."""
        margin = self._move_margin(state, action, budget)
        return value if margin is None else TableValue(margin, margin, margin)

    def move_margin(self, state: np.ndarray, action: int, budget: int = 10_000_000) -> int | None:
        """The mover's exact future margin after playing ``action`` on ``state``: the move's gain (the change of the
        mover's store lead) plus the :meth:`search` value of the position it reaches (or the gain alone when the move
        ends the game). With ``best`` the value of ``state``, ``best - move_margin(state, action)`` is the move's
        regret.

        Args:
            state: A running position (not changed), checked like :meth:`search`'s.
            action: A legal action of it.
            budget: Positions the search may visit.

        Returns:
            The margin, or None if the search ran out of ``budget``.

        Raises:
            TypeError, ValueError: as :meth:`search`; ValueError also for an action that is not legal.
            TableError: the game is over.
        """
        state = self._checked_state(state)
        if state[STATUS] != RUNNING:
            raise TableError("the game is over: a finished position has no moves to value.")
        legal = int(state[LEGAL])
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not legal >> int(action) & 1:
            moves = [a for a in range(self.game.n_actions) if legal >> a & 1]
            raise ValueError(f"action {action!r} is not a legal move of this position; the legal actions are {moves}.")
        return self._move_margin(state, int(action), budget)

    def _move_margin(self, state: np.ndarray, action: int, budget: int) -> int | None:
        """:meth:`move_margin` of a checked state and legal action (unchecked)."""
        mover = int(state[PLAYER])
        after = state.copy()
        self.game.step(after, action, self._trace)
        gain = int(after[STORE + mover] - after[STORE + 1 - mover] - (state[STORE + mover] - state[STORE + 1 - mover]))
        if after[STATUS] != RUNNING:
            return gain
        found = self._search(after, budget, None)
        if found is None:
            return None
        return gain + (found.margin if int(after[PLAYER]) == mover else -found.margin)

    def best_actions(self, state: np.ndarray) -> list[int]:
        """The legal actions of ``state`` that keep its perfect-play value (several when they tie).

        Raises:
            TypeError, ValueError, TableError: as :meth:`move_values`.
        """
        margins = self._move_values(self._checked_state(state))
        best = max(v.margin for v in margins.values())
        return [action for action, v in margins.items() if v.margin == best]

    def search(
        self, state: np.ndarray, budget: int = 10_000_000, window: tuple[int, int] | None = None
    ) -> SearchResult | None:
        """The exact value of ``state`` *with its history*: alpha-beta over the real game, the table at its leaves.

        Where :meth:`value` is not exact (a cycle class: the value depends on the positions seen since
        the last capture), this settles it for the game as it stands, repetition memory included
        (:func:`history_search`). The search visits few positions where the table's bounds are narrow.

        In an acyclic game (Kalah) it is MTD(f): null-window probes over the transposition table
        (:meth:`memory`), which the table keeps between calls, from the guess it holds of ``state`` (else 0);
        the game is searched to its natural end, as the tables are (the ply cap is ignored). This is the search
        that :func:`mancala_envs.solver.solve_position` and the ``perfect`` agent run.

        Args:
            state: A running position of the table's game (any number of seeds on the board).
            budget: Positions to visit at most.
            window: ``(alpha, beta)`` to test against instead of the exact value (fail-soft: a
                result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound).

        Returns:
            The value and a best action, or None if the budget ran out.

        ``state`` must be a state of :attr:`game` (the game the table was built or loaded with), or of the
        same game with another ``max_plies`` or ``repetition`` (tables ignore both), checked with that
        game's ``check_state`` before anything reads it.

        Raises:
            TypeError: ``state`` is not an array of the form of :attr:`game`'s states.
            ValueError: ``state`` is not a state that :attr:`game` reaches (the message names the part).
            TableError: the game is over.
        """
        return self._search(self._checked_state(state), budget, window)

    def _search(self, state: np.ndarray, budget: int, window: tuple[int, int] | None) -> SearchResult | None:
        """:meth:`search` of a state already checked (unchecked)."""
        if state[STATUS] != RUNNING:
            raise TableError("the game is over: a finished position has no value to search.")
        game = self.game
        seeds = game.total_seeds
        # an acyclic game is searched to its natural end, as its tables are (the ply cap ignored), so that a
        # position's value is its board's and its mover's and the transposition table may hold it
        rules = self._rules if type(game).acyclic else game
        depth = int(min(rules.max_episode_plies - int(state[PLY]), self._MAX_DEPTH)) + 2
        size = int(state.shape[0])
        scratch = self._search_scratch
        if scratch is None or scratch[0].shape[0] < depth or scratch[0].shape[2] != size:
            scratch = (
                np.zeros((depth, game.n_actions, size), dtype=np.int64),
                np.zeros((depth, FRAME_HEAD + 6 * game.n_actions), dtype=np.int64),
            )
            self._search_scratch = scratch
        memory = self.memory()
        out = np.zeros(2, dtype=np.int64)
        search = game.compiled(history_search)
        visited = 0

        def probe(alpha: int, beta: int) -> int:
            nonlocal visited
            margin = search(
                state, rules.params, game.n_pits, game.n_actions, self.max_seeds, game.history_start, self.table,
                self.binom, self._trace, alpha, beta, budget - visited, scratch[0], scratch[1], memory,
                self._key_binom, out,
            )  # fmt: skip
            visited += int(out[1])
            return int(margin)

        if window is not None or memory.shape[0] == 0:
            alpha, beta = window if window is not None else (-seeds - 1, seeds + 1)
            margin = probe(alpha, beta)
        else:  # MTD(f): null-window probes that close in on the value, the transposition table kept between them
            low, high = -seeds - 1, seeds + 1
            margin = self._guess(state)
            while low < high:
                beta = max(margin, low + 1)
                margin = probe(beta - 1, beta)
                if margin == SEARCH_ABORTED:
                    break
                if margin < beta:
                    high = margin
                else:
                    low = margin
        if margin == SEARCH_ABORTED:
            return None
        return SearchResult(margin, int(out[0]), visited)

    #: the deepest line :meth:`search` follows (plies from the position searched)
    _MAX_DEPTH = 2_000

    def _guess(self, state: np.ndarray) -> int:
        """MTD(f)'s first guess of ``state``'s margin: what the transposition table holds of it, else 0."""
        if self._memory is None or self._memory.shape[0] == 0:
            return 0
        board = np.asarray(self.game.board(state), dtype=np.int64)
        key = 2 * board_index(board, 0, self.game.n_pits, self._key_binom) + int(state[PLAYER]) + 1
        found = np.zeros(3, dtype=np.int64)
        if not _recall(self._memory, key, found):
            return 0
        return int(found[0]) if found[0] > -_FAR else int(found[1]) if found[1] < _FAR else 0

    def memory(self) -> np.ndarray:
        """The transposition table :meth:`search` keeps between calls (an acyclic game's only; else no rows).

        ``2**memory_bits`` rows of two ``int64`` (16 bytes a row, 256 MiB at the default 24 bits), made at the
        first search; a position's entry holds the bounds on its margin that searches proved and its best move.
        """
        if self._memory is None:
            rows = 1 << self.memory_bits if type(self.game).acyclic else 0
            self._memory = np.zeros((rows, 2), dtype=np.int64)
        return self._memory

    def _check_covered(self, state: np.ndarray) -> None:
        seeds = int(self.game.board(state).sum())
        if seeds > self.max_seeds:
            raise TableError(
                f"the board holds {seeds} seeds, more than this {self.game.name} table's {self.max_seeds}; "
                f"build a larger one with {_command(self.game, seeds, self.folder)}."
            )


def _solver_game(game: Game) -> Game:
    """The game the solver plays: the same rules, with no repetition memory and no ply cap."""
    reason = solvable(game)
    if reason is not None:
        raise TableError(reason + ".")
    changes: dict[str, Any] = {"max_plies": 1_000_000}
    if any(f.name == "repetition" for f in dataclasses.fields(game.config)):
        changes["repetition"] = False
    return type(game)(dataclasses.replace(game.config, **changes))


def build_table(
    game: Game, max_seeds: int | None = None, progress: Callable[[int, float], None] | None = None
) -> Table:
    """Solves every position of ``game`` with at most ``max_seeds`` seeds on the board.

    Args:
        game: A two-row game with stores, or Modiar (:func:`solvable`); the config's ``max_plies``
            and ``repetition`` are ignored (see the module docstring).
        max_seeds: The largest layer to solve (default: every seed of the game, the whole game).
        progress: Called after each layer with the layer's seed count and the seconds spent so far.

    Raises:
        TableError: the game cannot be tabled, ``max_seeds`` is out of range, or the build needs more memory
            than the machine has available (:func:`build_memory`, :func:`available_memory`); the message names
            both and the largest ``max_seeds`` that fits.
    """
    solver_game = _solver_game(game)
    total = game.total_seeds
    top = total if max_seeds is None else max_seeds
    if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= total:
        raise TableError(
            f"max_seeds (--max-seeds) must be an int from 0 to {total}, the seeds of {game.name}; got {max_seeds!r}."
        )
    _check_memory(game, top, build_memory(game, top), "building")
    n_pits = game.n_pits
    binom = binomials(top + n_pits + 2)
    size = 2 * int(binom[top + n_pits, n_pits])
    acyclic = type(game).acyclic
    table = np.zeros((table_rows(game), size), dtype=np.uint8)
    template = solver_game.new_state(0)
    trace = np.zeros(0, dtype=np.int64)
    stats = np.zeros(6, dtype=np.int64)
    solve = solver_game.compiled(solve_acyclic_layer if acyclic else solve_layer)
    started = time.perf_counter()
    for seeds in range(top + 1):
        broken = solve(template, solver_game.params, seeds, n_pits, game.n_actions, table, binom, trace, stats)
        if acyclic and broken >= 0:
            raise TableError(
                f"{game.name} declares acyclic = True, but a move that keeps every seed on the board leads from "
                f"position {broken} of layer {seeds} to a board that is not smaller (board_index); declare "
                "acyclic = False so the tables look for cycle classes."
            )
        if progress is not None:
            progress(seeds, time.perf_counter() - started)
    info = {
        "seconds": round(time.perf_counter() - started, 3),
        "positions": int(stats[0]),
        "cycle_positions": int(stats[1]),
        "cycle_classes": int(stats[2]),
        "largest_class": int(stats[3]),
        "sweeps": int(stats[4]),
        "unsettled_classes": int(stats[5]),
        "exact_positions": size if acyclic else int(np.count_nonzero(table[0] & EXACT_BIT)),  # acyclic: all exact
    }
    return Table(game, top, table, info)


# --- memory -------------------------------------------------------------------------------------------------------
def build_memory(game: Game, max_seeds: int | None = None) -> int:
    """The bytes :func:`build_table` allocates for ``game`` up to ``max_seeds`` seeds (default: every seed).

    The table (three bytes a position) and the work arrays of its largest layer, the last one solved
    (about ``65 + 5 * n_actions`` bytes a position of that layer; smaller layers are freed before it).
    An acyclic game's table (``Game.acyclic``, Kalah) is one byte a position and needs no work arrays.
    An upper estimate: the peak resident memory measured in ``docs/solved.md`` is below it.

    Example:
        >>> from mancala_envs.envs.registration import make_game, resolve_env_id
        >>> f"{build_memory(make_game(resolve_env_id('modiar'))) / 2**20:.0f} MiB"
        '304 MiB'
        >>> f"{build_memory(make_game(resolve_env_id('ouril'))) / 2**40:.0f} TiB"
        '56 TiB'
    """
    top = game.total_seeds if max_seeds is None else int(max_seeds)
    n_pits = game.n_pits
    positions = 2 * math.comb(top + n_pits, n_pits)
    if type(game).acyclic:  # one byte a position, solved in place
        return positions + _ACYCLIC_WORK_BYTES
    layer = 2 * math.comb(top + n_pits - 1, n_pits - 1)
    return 3 * positions + layer * (_LAYER_BYTES + _LAYER_BYTES_PER_ACTION * game.n_actions)


def table_rows(game: Game) -> int:
    """Rows of ``game``'s tables: 1 (exact values) for an acyclic game, else 3 (values and their bounds)."""
    return 1 if type(game).acyclic else 3


def _cgroup_memory() -> int | None:
    """The memory the process's cgroup (v2) may still use, or None without a limit."""
    try:
        with open("/sys/fs/cgroup/memory.max", "rb") as limit_file:
            limit = limit_file.read(64).strip()
        with open("/sys/fs/cgroup/memory.current", "rb") as used:
            current = used.read(64).strip()
        return None if limit == b"max" else max(int(limit) - int(current), 0)
    except (OSError, ValueError):
        return None


def available_memory() -> int | None:
    """The bytes of memory this machine has available now, or None when it cannot tell.

    Linux's ``MemAvailable`` (``/proc/meminfo``), lowered to what the process's cgroup may still use; else
    ``os.sysconf`` (free physical pages); else None, and no size check is made.
    """
    found: int | None = None
    try:
        with open("/proc/meminfo", "rb") as meminfo:
            for line in meminfo.read(1 << 16).splitlines():
                if line.startswith(b"MemAvailable:"):
                    found = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        found = None
    if found is None:
        try:
            found = int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, OSError, ValueError):
            return None
    limit = _cgroup_memory()
    return found if limit is None else min(found, limit)


def largest_max_seeds(game: Game, memory: int) -> int:
    """The largest ``max_seeds`` whose build (:func:`build_memory`) fits in ``memory`` bytes (-1 if none)."""
    top = -1
    while top < game.total_seeds and build_memory(game, top + 1) <= memory:
        top += 1
    return top


def _bytes_text(size: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.2f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _check_memory(game: Game, top: int, needed: int, doing: str) -> None:
    """Refuses, before anything is allocated, a table that needs more memory than is available."""
    memory = available_memory()
    if memory is None or needed <= memory:
        return
    fits = largest_max_seeds(game, memory)
    fix = (
        f"the largest that fits is --max-seeds {fits} (max_seeds={fits}): `mancala-envs solve {game.name} "
        f"--max-seeds {fits}`"
        if fits >= 0
        else "no table of it fits"
    )
    raise TableError(
        f"{doing} the {game.name} table of max_seeds={top} needs about {_bytes_text(needed)} of memory "
        f"and this machine has {_bytes_text(memory)} available; {fix}, or use a machine with more "
        "memory."
    )


# --- files --------------------------------------------------------------------------------------------------------
def table_dir() -> Path:
    """The folder of the tables: ``$MANCALA_ENVS_TABLES``, else ``$XDG_CACHE_HOME/mancala-envs/tables``
    (``~/.cache/mancala-envs/tables`` without ``XDG_CACHE_HOME``)."""
    chosen = os.environ.get(TABLE_ENV)
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "mancala-envs" / "tables"


def _config_fields(game: Game) -> dict[str, Any]:
    fields = dataclasses.asdict(game.config)
    for name in (*IGNORED_FIELDS, *type(game).table_ignores):
        fields.pop(name, None)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(fields.items())}


def _config_tag(game: Game) -> str:
    """A short tag of the config fields a table depends on (tables of other variants live side by side)."""
    text = json.dumps(_config_fields(game), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def table_paths(
    game: Game, max_seeds: int | None = None, folder: str | os.PathLike[str] | None = None
) -> tuple[Path, Path]:
    """The values file and its JSON description for ``game`` with ``max_seeds`` (default: the whole game)."""
    top = game.total_seeds if max_seeds is None else int(max_seeds)
    base = Path(folder) if folder is not None else table_dir()
    stem = f"{game.name}-v{game.version}-{_config_tag(game)}-s{top}"
    return base / f"{stem}.npy", base / f"{stem}.json"


class _HashingWriter:
    """A binary file that hashes what is written through it (``np.save`` writes to it in chunks)."""

    def __init__(self, file: Any) -> None:
        self.file = file
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.file.write(data)


def save_table(table: Table, folder: str | os.PathLike[str] | None = None) -> Path:
    """Writes ``table`` (values and description) into ``folder`` (default :func:`table_dir`); returns the values' path.

    Each file is written atomically (a temporary file in the folder, then renamed over the old one), so a
    reader or a second writer never sees half a file. A ``folder`` you name is created if missing, but not its
    parent (:func:`~mancala_envs.common.files.check_destination`); the default folder is created whole.

    Raises:
        ValueError: ``folder`` is a file, or its parent folder does not exist or cannot be written.
    """
    values_path, info_path = table_paths(table.game, table.max_seeds, folder)
    if folder is None:
        values_path.parent.mkdir(parents=True, exist_ok=True)
    else:  # only the folder named is created, never a missing parent
        check_destination(folder, "the table", folder=True).mkdir(exist_ok=True)
    hashing: list[_HashingWriter] = []

    def write_values(file: Any) -> None:
        hashing.append(_HashingWriter(file))
        np.save(hashing[0], np.asarray(table.table, dtype=np.uint8), allow_pickle=False)

    atomic_write(values_path, write_values)
    description = {
        "format": FORMAT,
        "game": table.game.name,
        "game_version": table.game.version,
        "config": _config_fields(table.game),
        "max_seeds": table.max_seeds,
        "positions": table.positions,
        "sha256": hashing[0].digest.hexdigest(),
        "build": table.info,
    }
    atomic_write(info_path, (json.dumps(description, indent=2) + "\n").encode("utf-8"))
    return values_path


def load_table(game: Game, max_seeds: int | None = None, folder: str | os.PathLike[str] | None = None) -> Table:
    """Loads a saved table of ``game`` into memory, after checking its description, size and SHA-256.

    The values file is read once, bounded by the size its description gives, into memory of the process
    (read-only); its SHA-256 is checked on those very bytes. A file changed on disk after the load changes
    nothing in the loaded table (it is not memory-mapped).

    Args:
        game: The game (its config must be the table's, apart from ``max_plies`` and ``repetition``).
        max_seeds: The table's size (default: the whole game). With ``max_seeds=-1``, the largest table
            of this game in the folder.
        folder: Where to look (default :func:`table_dir`).

    Raises:
        TableError: no such table (with the command that builds it), ``max_seeds`` out of range, a table
            larger than the available memory, or a file that fails its checks (not a regular file, too large,
            not a table description, another game, a changed SHA-256, another shape).
    """
    reason = solvable(game)
    if reason is not None:
        raise TableError(reason + ".")
    if max_seeds == -1:
        found = available_tables(game, folder)
        if not found:
            raise TableError(_missing(game, None, folder))
        max_seeds = max(found)
    total = game.total_seeds
    if max_seeds is not None and (
        isinstance(max_seeds, bool) or not isinstance(max_seeds, int) or not 0 <= max_seeds <= total
    ):
        raise TableError(
            f"max_seeds must be None (the whole game), -1 (the largest saved table) or an int from 0 "
            f"to {total}, the seeds of {game.name}; got {max_seeds!r}."
        )
    values_path, info_path = table_paths(game, max_seeds, folder)
    if not values_path.exists() or not info_path.exists():
        raise TableError(_missing(game, max_seeds, folder))
    rebuild = f"delete {values_path.name} and rebuild it with {_command(game, max_seeds, folder)}"
    try:
        description = read_json_bounded(
            info_path, _MAX_DESCRIPTION_BYTES, "the table description", TableError, expected="a table description"
        )
    except TableError as error:
        raise TableError(f"{error} ({rebuild})") from None
    if not isinstance(description, dict) or description.get("format") != FORMAT:
        raise TableError(f"{info_path} is not a format-{FORMAT} table description; {rebuild}.")
    expected = (game.name, game.version, _config_fields(game))
    found_as = (description.get("game"), description.get("game_version"), description.get("config"))
    if found_as != expected:
        raise TableError(f"{info_path} describes another game or config ({found_as[0]}, {found_as[2]}); {rebuild}.")
    recorded = description.get("sha256")
    build = description.get("build")
    if not isinstance(recorded, str) or not (build is None or isinstance(build, dict)):
        raise TableError(f"{info_path} has a malformed sha256 or build entry (a hex string and an object); {rebuild}.")
    top = total if max_seeds is None else max_seeds
    expected_shape = (table_rows(game), 2 * math.comb(top + game.n_pits, game.n_pits))
    size = expected_shape[0] * expected_shape[1]
    _check_memory(game, top, size, "loading")
    try:
        data = read_bytes_bounded(values_path, size + _MAX_NPY_HEADER, "the table file", TableError)
    except TableError as error:
        raise TableError(f"{error} ({rebuild})") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != recorded:
        raise TableError(
            f"{values_path} fails its integrity check (SHA-256 {digest[:12]}... is not the recorded one); {rebuild}."
        )
    values = _npy_values(data, values_path, expected_shape, rebuild)
    table = Table(game, top, values, build)
    table.folder = folder
    return table


def _npy_values(data: bytes, path: Path, shape: tuple[int, int], rebuild: str) -> np.ndarray:
    """The read-only ``uint8`` array of ``shape`` that the ``.npy`` bytes ``data`` hold (no copy, no pickle)."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            found, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        else:
            found, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    except (OSError, ValueError, TypeError, SyntaxError) as error:
        raise TableError(f"{path} is not a table ({error}); {rebuild}.") from None
    offset = stream.tell()
    if dtype != np.uint8 or tuple(found) != shape or fortran or len(data) - offset != shape[0] * shape[1]:
        raise TableError(
            f"{path} holds {tuple(found)} {dtype} values ({len(data) - offset} bytes), not {shape} bytes; {rebuild}."
        )
    return np.frombuffer(data, dtype=np.uint8, count=shape[0] * shape[1], offset=offset).reshape(shape)


#: the ``max_seeds`` part of a table file's name: ASCII digits only (``str.isdigit`` takes ``"²"`` too)
_SEEDS_TAIL = re.compile(r"[0-9]{1,4}")


def available_tables(game: Game, folder: str | os.PathLike[str] | None = None) -> list[int]:
    """The ``max_seeds`` of every saved table of ``game`` (its config) in ``folder``.

    Only regular files named as :func:`table_paths` names them, with their description beside them, count;
    any other file in the folder (a stray name, a folder, a FIFO) is skipped.
    """
    values_path, _ = table_paths(game, 0, folder)
    prefix = values_path.name[: -len("0.npy")]
    found = []
    for path in values_path.parent.glob(prefix + "*.npy"):
        tail = path.name[len(prefix) : -len(".npy")]
        if not _SEEDS_TAIL.fullmatch(tail) or int(tail) > game.total_seeds:
            continue
        if path.is_file() and path.with_suffix(".json").is_file():
            found.append(int(tail))
    return sorted(found)


def _command(game: Game, max_seeds: int | None, folder: Any) -> str:
    """The ``mancala-envs solve`` command that builds ``game``'s table of ``max_seeds`` (its config as ``--option``)."""
    top = game.total_seeds if max_seeds is None else max_seeds
    # a table that ignores part of the config (Kalah's seeds_per_pit) is named by its K, not by the whole game's
    whole = top >= game.total_seeds and not type(game).table_ignores
    size = "" if whole else f" --max-seeds {top}"
    where = f" --dir {folder}" if folder is not None else ""
    return f"`mancala-envs solve {game.name}{config_options(game)}{size}{where}`"


def config_options(game: Game) -> str:
    """The ``--option`` flags that give ``game``'s config where a table depends on it (its fields that differ from
    the defaults; empty for a default game), e.g. ``" --option pits_per_row=4 --option empty_capture=true"``."""
    default = _config_fields(type(game)())
    return "".join(
        f" --option {name}={json.dumps(value)}"
        for name, value in _config_fields(game).items()
        if default.get(name) != value
    )


def _missing(game: Game, max_seeds: int | None, folder: Any) -> str:
    """No table: the command that builds one, of a size that fits the available memory when the whole game does not."""
    where = Path(folder) if folder is not None else table_dir()
    memory = available_memory()
    if max_seeds is None and memory is not None and build_memory(game, game.total_seeds) > memory:
        fits = largest_max_seeds(game, memory)
        return (
            f"no {game.name} table in {where}; the whole game's table needs about "
            f"{_bytes_text(build_memory(game))} of memory and this machine has {_bytes_text(memory)} available, "
            f"so build an endgame table with {_command(game, max(fits, 0), folder)} (the largest that fits)."
        )
    return f"no {game.name} table in {where}; build it with {_command(game, max_seeds, folder)}."
