"""Kalah's lean tables (issue 32): one exact byte a position, solved in one sweep, equal to the generic solver's.

An acyclic game (``Game.acyclic``: no position recurs, seeds only move forward) is tabled by
``solve_acyclic_layer`` with one row of values; every other game by Tarjan's strongly connected components with
three rows (value and bounds). Here the two builders meet on the same Kalah boards: a subclass of Kalah that
declares ``acyclic = False`` is tabled the generic way, and both tables must hold the same byte for every
position. A game that claims ``acyclic`` wrongly is refused by the sweep, and one Kalah table serves every
``seeds_per_pit``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mancala_envs.engine.boards import EXACT_BIT, VALUE_BITS
from mancala_envs.engine.state import RUNNING, STATUS
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.games.modiar import Modiar
from mancala_envs.games.urim import Urim
from mancala_envs.solver import TableError, build_memory, build_table, load_table, save_table, table_paths


class CyclicKalah(Kalah):
    """Kalah's rules, tabled by the generic solver (cycle classes looked for, three rows)."""

    acyclic = False


class AcyclicModiar(Modiar):
    """Modiar claiming, wrongly, that no position recurs."""

    acyclic = True


class AcyclicUrim(Urim):
    """Urim claiming, wrongly, that no position recurs."""

    acyclic = True


def kalah(pits: int, seeds: int, empty_capture: bool) -> Kalah:
    return Kalah(KalahConfig(pits_per_row=pits, seeds_per_pit=seeds, empty_capture=empty_capture))


@pytest.mark.parametrize("empty_capture", [False, True])
@pytest.mark.parametrize(("pits", "max_seeds", "positions"), [(3, 10, 16_016), (4, 10, 87_516)])
def test_the_one_row_table_holds_the_generic_solvers_values(
    pits: int, max_seeds: int, positions: int, empty_capture: bool
) -> None:
    game = kalah(pits, 2, empty_capture)
    lean = build_table(game, max_seeds)
    generic = build_table(CyclicKalah(game.config), max_seeds)
    assert lean.table.shape == (1, positions)
    assert generic.table.shape == (3, positions)
    assert lean.table.dtype == np.uint8
    # Tarjan finds no cycle class in Kalah: every value of the generic table is exact, its bounds meet
    assert generic.info["cycle_positions"] == 0
    assert generic.info["exact_positions"] == positions
    assert np.array_equal(generic.table[1], generic.table[2])
    assert np.array_equal(generic.table[0] & VALUE_BITS, generic.table[1])
    # the lean table: the same byte for every position, exact bit included
    assert np.array_equal(lean.table[0], generic.table[0])
    assert np.all(lean.table[0] & EXACT_BIT)
    assert lean.info["exact_positions"] == positions
    assert lean.info["positions"] == positions
    assert build_memory(game, max_seeds) == positions + 2**20


@pytest.mark.parametrize("empty_capture", [False, True])
def test_the_lean_tables_values_agree_with_the_generic_tables_lookups(empty_capture: bool) -> None:
    """Both tables read back the same TableValue through Table.value (lean: low == high == margin)."""
    game = kalah(3, 2, empty_capture)
    lean = build_table(game, 12)
    generic = build_table(CyclicKalah(game.config), 12)
    rng = np.random.default_rng(32)
    trace = np.zeros(0, dtype=np.int64)
    checked = 0
    while checked < 200:
        state = game.new_state(int(rng.integers(2)))
        for _ in range(int(rng.integers(0, 12))):
            if state[STATUS] != RUNNING:
                break
            game.step(state, int(rng.choice(game.legal_actions(state))), trace)
        if state[STATUS] != RUNNING:
            continue
        value = lean.value(state)
        assert value == generic.value(state)
        assert value.exact and value.low == value.margin == value.high
        checked += 1


@pytest.mark.parametrize(
    ("wrong", "max_seeds", "words"),
    [
        (AcyclicModiar, 6, "modiar declares acyclic = True, but a move that keeps every seed on the board leads from "),
        (AcyclicUrim, 4, "urim declares acyclic = True, but a move that keeps every seed on the board leads from "),
    ],
)
def test_a_game_that_wrongly_claims_acyclic_is_refused(wrong: type, max_seeds: int, words: str) -> None:
    with pytest.raises(TableError) as raised:
        build_table(wrong(), max_seeds)
    message = str(raised.value)
    assert message.startswith(words)
    assert "to a board that is not smaller (board_index)" in message
    assert message.endswith("declare acyclic = False so the tables look for cycle classes.")


def test_one_table_serves_every_seeds_per_pit(tmp_path: Path) -> None:
    two, five = kalah(4, 2, True), kalah(4, 5, True)
    assert (two.total_seeds, five.total_seeds) == (16, 40)
    assert table_paths(two, 10, tmp_path) == table_paths(five, 10, tmp_path)
    # the capture rule is part of the table: the standard rule's file is another
    assert table_paths(kalah(4, 2, False), 10, tmp_path) != table_paths(two, 10, tmp_path)
    built = build_table(two, 10)
    save_table(built, tmp_path)
    loaded = load_table(five, 10, tmp_path)
    assert loaded.game is five
    assert loaded.max_seeds == 10
    assert np.array_equal(loaded.table, built.table)
    # and the other way round: a table built with five seeds a pit loads for two
    other = tmp_path / "other"
    save_table(build_table(five, 10), other)
    assert np.array_equal(load_table(two, 10, other).table, built.table)
