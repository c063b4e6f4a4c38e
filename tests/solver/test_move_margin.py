"""Table.move_margin: a move's exact value (its gain plus the searched value of where it leads), and its refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mancala_envs.engine.state import LEGAL, PLAYER, RUNNING, STATUS, STORE
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.solver import solve_position, solver_table

NO_TRACE = np.zeros(0, dtype=np.int64)


def test_every_move_of_the_start_and_the_best_one_equals_the_value(tmp_path: Path) -> None:
    game = Kalah(KalahConfig(pits_per_row=4, seeds_per_pit=3, empty_capture=True))
    table = solver_table(game, max_seeds=6, folder=tmp_path)
    state = game.new_state(0)
    margins = {action: table.move_margin(state, action) for action in range(4)}
    # Irving, Donkers & Uiterwijk (2000): Kalah(4,3) is +8 for the first player, and pit 1 keeps it
    assert max(margins.values()) == 8 == solve_position(game, state, max_seeds=6, folder=tmp_path).margin
    assert margins[1] == 8
    for action, margin in margins.items():  # each equals the move's gain plus the solved value of where it leads
        after = state.copy()
        game.step(after, action, NO_TRACE)
        gain = int(after[STORE] - after[STORE + 1])
        later = solve_position(game, after, max_seeds=6, folder=tmp_path).margin
        assert margin == gain + (later if after[PLAYER] == 0 else -later)


def test_a_move_that_ends_the_game_is_worth_its_gain(tmp_path: Path) -> None:
    game = Kalah(KalahConfig(pits_per_row=1, seeds_per_pit=1))
    table = solver_table(game, folder=tmp_path)
    state = game.new_state(0)
    after = state.copy()
    game.step(after, 0, NO_TRACE)
    assert after[STATUS] != RUNNING  # the one seed goes into the store and the row is empty
    assert table.move_margin(state, 0) == int(after[STORE] - after[STORE + 1]) == 0  # 1-1: each takes a seed


def test_an_illegal_action_is_refused_naming_the_legal_ones(tmp_path: Path) -> None:
    game = Kalah(KalahConfig(pits_per_row=4, seeds_per_pit=3))
    table = solver_table(game, max_seeds=4, folder=tmp_path)
    state = game.new_state(0)
    game.step(state, 1, NO_TRACE)  # pit 1's 3 seeds: pits 2, 3, then the store: the same player moves again
    assert int(state[PLAYER]) == 0 and int(state[LEGAL]) == 0b1101
    with pytest.raises(ValueError) as raised:
        table.move_margin(state, 1)
    assert str(raised.value) == "action 1 is not a legal move of this position; the legal actions are [0, 2, 3]."
    before = state.copy()
    with pytest.raises(ValueError):
        table.move_margin(state, True)
    np.testing.assert_array_equal(state, before)
