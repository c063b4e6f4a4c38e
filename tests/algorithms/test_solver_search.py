"""``Table.search``: the exact value of a position with its history, the table at the leaves."""

from __future__ import annotations

import numpy as np
import pytest

from mancala_envs.algorithms.retrograde import TableError, build_table
from mancala_envs.envs.registration import make_game, resolve_env_id

MODIAR = resolve_env_id("modiar")
NO_TRACE = np.zeros(0, dtype=np.int64)


def position(game, board, stores, player):
    state = game.new_state(0)
    game.load_position(state, board, stores, player)
    return state


def test_search_of_an_exact_position_is_the_table_value_in_one_visit() -> None:
    game = make_game(MODIAR)
    table = build_table(game, 8)
    # [2, 3, 0 | 0, 1, 2] (8 seeds), P0 to move: inside the table, exact.
    state = position(game, [2, 3, 0, 0, 1, 2], [17, 17], 0)
    value = table.value(state)
    assert value.exact
    result = table.search(state)
    assert result is not None
    assert result.margin == value.margin
    assert result.action in table.best_actions(state)


def test_search_beyond_the_table_plays_down_to_it() -> None:
    """A position with more seeds than the table searches until every line reaches the table (or ends)."""
    game = make_game(MODIAR)
    small = build_table(game, 6)
    large = build_table(game, 9)
    # 9 seeds on the board: outside the small table, exact in the large one.
    state = position(game, [3, 0, 2, 0, 2, 2], [16, 17], 0)
    assert not small.covers(state)
    expected = large.value(state)
    assert expected.exact
    result = small.search(state)
    assert result is not None
    assert result.margin == expected.margin
    assert result.positions > 1
    assert result.action in large.best_actions(state)


def test_search_windows_are_fail_soft_and_the_budget_is_honoured() -> None:
    game = make_game(MODIAR)
    table = build_table(game, 4)
    state = position(game, [3, 0, 2, 0, 2, 2], [16, 17], 0)
    exact = table.search(state)
    assert exact is not None
    above = table.search(state, window=(exact.margin, exact.margin + 1))  # is it > margin? no: an upper bound
    assert above is not None and above.margin <= exact.margin
    below = table.search(state, window=(exact.margin - 1, exact.margin))  # is it >= margin? yes: a lower bound
    assert below is not None and below.margin >= exact.margin
    assert table.search(state, budget=1) is None


def test_search_refuses_a_finished_game() -> None:
    game = make_game(MODIAR)
    table = build_table(game, 2)
    state = position(game, [1, 0, 1, 3, 2, 0], [17, 18], 0)  # rules example M7: P0 has no legal move
    with pytest.raises(TableError, match="the game is over"):
        table.search(state)


@pytest.mark.slow
def test_modiar_start_is_lost_by_two_for_the_first_player(modiar_table) -> None:
    game = modiar_table.game
    for first in range(2):
        start = game.new_state(first)
        result = modiar_table.search(start)
        assert result is not None
        assert (result.margin, result.action) == (-2, 2)
        margins = {}
        for action in game.legal_actions(start):
            child = start.copy()
            game.step(child, int(action), NO_TRACE)
            margins[int(action)] = -modiar_table.search(child).margin
        assert margins == {0: -18, 1: -4, 2: -2}
        # the table's own reading agrees here, within bounds that hold for every history
        value = modiar_table.value(start)
        assert value.margin == -2
        assert value.low <= -2 <= value.high


@pytest.mark.slow
def test_search_agrees_with_the_table_where_it_is_exact_and_stays_within_its_bounds(modiar_table) -> None:
    """Positions reached by random play (so with a real repetition memory): the exact search value is the
    table's where the bounds meet, and always within them."""
    game = modiar_table.game
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(100):
        state = game.new_state(int(rng.integers(2)))
        for _ in range(int(rng.integers(1, 40))):
            game.step(state, int(rng.choice(game.legal_actions(state))), NO_TRACE)
            if state[2] != 0:
                break
        if state[2] != 0:
            continue
        value = modiar_table.value(state)
        result = modiar_table.search(state, budget=2_000_000)
        if result is None:
            continue
        checked += 1
        assert value.low <= result.margin <= value.high
        if value.exact:
            assert result.margin == value.margin
        moves = modiar_table.move_values(state)
        assert moves[result.action].low <= result.margin <= moves[result.action].high
    assert checked >= 45  # the others ended, or their search ran out of budget


@pytest.mark.slow
def test_search_sees_the_history_the_table_cannot(modiar_table) -> None:
    """The same position is worth +2 loaded fresh and 0 after a history in which its best move repeats the
    first position (the repetition ends the game 21-21); the table's bounds hold both."""
    game = modiar_table.game
    state = position(game, [2, 7, 1, 2, 7, 1], [11, 11], 0)
    for action in (0, 0, 1, 0, 2, 1, 2, 0, 1, 1, 0, 0, 2, 2, 0, 0, 2):
        game.step(state, action, NO_TRACE)
    assert game.board(state).tolist() == [1, 6, 1, 2, 7, 3] and int(state[0]) == 1
    value = modiar_table.value(state)
    assert (value.margin, value.low, value.high) == (2, 0, 2)
    after_history = modiar_table.search(state)
    assert (after_history.margin, after_history.action) == (0, 2)
    assert {a: v.margin for a, v in modiar_table.move_values(state).items()} == {0: -2, 1: -10, 2: 0}
    fresh = position(game, game.board(state).tolist(), game.stores(state).tolist(), 1)
    assert modiar_table.search(fresh).margin == 2
