"""Verification of the perfect-play tables (:mod:`mancala_envs.algorithms.retrograde`).

- the board ranking is a bijection;
- Modiar positions solved by hand;
- the tables against an independent exhaustive search that keeps the whole history
  (``tests/support/solver_reference.py``): exactly equal wherever the table says its value is exact, and
  always within the table's bounds, also after a history of moves inside a cycle class;
- the rules examples of ``docs/rules/modiar.md`` and Bellman consistency (value against move values);
- the file checks (integrity, missing tables, other configs, ``MANCALA_ENVS_TABLES``).

Tests that build big tables or search long are marked ``slow``; the others build tables of at most
6 seeds and also run with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from mancala_envs.algorithms.retrograde import (
    TABLE_ENV,
    TableError,
    binomials,
    board_index,
    build_table,
    load_table,
    save_table,
    table_dir,
    table_paths,
)
from mancala_envs.engine.state import (
    END_NO_LEGAL_MOVE,
    END_REASON,
    END_REPETITION,
    END_THRESHOLD,
    HISTORY_LEN,
    PLAYER,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
)
from mancala_envs.envs.registration import make_game, resolve_env_id

from support.solver_reference import ReferenceSearch, sample_non_exact

TRACE = np.zeros(0, dtype=np.int64)


def game_of(name: str, **options):
    return make_game(resolve_env_id(name), **options)


@pytest.fixture(scope="module")
def modiar():
    return game_of("modiar")


@pytest.fixture(scope="module")
def small_modiar_table(modiar):
    """Every Modiar position with at most 6 seeds on the board (1,848 positions)."""
    return build_table(modiar, max_seeds=6)


@pytest.fixture(scope="module")
def reference(modiar):
    return ReferenceSearch(modiar)


def compositions(seeds: int, parts: int):
    """Every board of ``parts`` pits holding ``seeds`` seeds."""
    for bars in itertools.combinations(range(seeds + parts - 1), parts - 1):
        edges = (-1, *bars, seeds + parts - 1)
        yield [edges[i + 1] - edges[i] - 1 for i in range(parts)]


def load(game, board, stores, player, **flags) -> np.ndarray:
    state = game.new_state(0)
    game.load_position(state, list(board), list(stores), player, **flags)
    return state


def margins(moves: dict) -> dict[int, int]:
    return {action: value.margin for action, value in moves.items()}


# --- the board ranking ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n_pits", "top"), [(2, 6), (4, 5), (6, 5), (12, 3)])
def test_board_index_is_a_bijection_onto_the_table(n_pits, top):
    binom = binomials(top + n_pits + 2)
    seen = []
    for seeds in range(top + 1):
        layer = [
            board_index(np.array(board, dtype=np.int64), 0, n_pits, binom) for board in compositions(seeds, n_pits)
        ]
        # a layer takes the indexes right after the smaller layers, in lexicographic order of the boards
        assert layer == list(range(math.comb(seeds - 1 + n_pits, n_pits), math.comb(seeds + n_pits, n_pits)))
        seen += layer
    assert sorted(seen) == list(range(math.comb(top + n_pits, n_pits)))
    # the board may sit anywhere in a larger array (a game state)
    state = np.array([7, 7, 0, 2, 1, 0, 0, 0, 9], dtype=np.int64)
    assert board_index(state, 2, 6, binomials(12)) == board_index(np.array([0, 2, 1, 0, 0, 0]), 0, 6, binomials(12))


# --- Modiar positions solved by hand ----------------------------------------------------------------------------------
# Pits 0-2 are player 0's, 3-5 player 1's; a move lifts a pit of at least 2 stones, puts the first back in it and
# sows the others counter-clockwise; a last stone making its pit 2, 4 or 6 captures it and the chain backwards.
HAND_SOLVED = [
    # [2,0,0|0,0,0], P0: local 0 gives [1,1,0|0,0,0]; it cannot feed, and no move can, so it stays legal. P1 then has
    # no move: P0 keeps 2. Margin +2.
    ([2, 0, 0, 0, 0, 0], 0, {0: 2}),
    # [3,0,0|0,0,0], P0: local 0 gives [1,1,1|0,0,0] (no feeding possible), P1 has no move: +3.
    ([3, 0, 0, 0, 0, 0], 0, {0: 3}),
    # [0,0,3|0,0,0], P0: local 2 sows 2, 3, 4 and must (it is the only move): [0,0,1|1,1,0]; P1 holds two singletons
    # and cannot move: P0 keeps 1, P1 keeps 2. Margin -1: forced to feed, P0 loses a seed.
    ([0, 0, 3, 0, 0, 0], 0, {2: -1}),
    # [0,2,2|0,0,0], P0 must feed: local 1 gives [0,1,3|0,0,0] (does not feed), local 2 gives [0,2,1|1,0,0] (feeds),
    # so local 2 alone is legal. P1 then has a singleton only: P0 keeps 3, P1 keeps 1. Margin +2.
    ([0, 2, 2, 0, 0, 0], 0, {2: 2}),
    # [0,2,0|1,1,0], P0: local 1 gives [0,1,1|1,1,0], no capture (the last stone makes 1); P1 has only singletons:
    # 2 seeds each. Margin 0.
    ([0, 2, 0, 1, 1, 0], 0, {1: 0}),
    # [0,3,0|1,1,0], P0: local 1 sows 1, 2, 3; pit 3 makes 2 and is captured (+2); the chain stops at pit 2 (1).
    # P1's row keeps pit 4, so no grand slam. P1 has a singleton only: P0 keeps 2, P1 keeps 1. Margin 2 + 2 - 1 = +3.
    ([0, 3, 0, 1, 1, 0], 0, {1: 3}),
    # The same position mirrored, player 1 to move: local 1 is pit 4, sowing 4, 5, 0 and capturing pit 0 (2). +3.
    ([1, 1, 0, 0, 3, 0], 1, {1: 3}),
    # [2,0,2|1,1,0], P0: local 0 gives [1,1,2|1,1,0] (no capture); P1 has singletons only: 4 against 2, margin +2.
    # Local 2 sows 2, 3: pit 3 makes 2, captured (+2), chain stops at pit 2 (1); pit 4 keeps P1's row non-empty.
    # P1 cannot move: P0 keeps 3, P1 keeps 1, margin 2 + 3 - 1 = +4. Best: local 2.
    ([2, 0, 2, 1, 1, 0], 0, {0: 2, 2: 4}),
    # [2,2,0|0,1,0], P0: local 0 gives [1,3,0|0,1,0], local 1 gives [2,1,1|0,1,0]; neither captures and P1's single
    # stone cannot move: 4 against 1 either way. Both +3, a tie.
    ([2, 2, 0, 0, 1, 0], 0, {0: 3, 1: 3}),
    # [2,0,2|1,0,0], P0: local 2 would capture pit 3 (2) and empty P1's row, a grand slam: banned. Local 0 gives
    # [1,1,2|1,0,0]; P1's singleton cannot move: 4 against 1, +3.
    ([2, 0, 2, 1, 0, 0], 0, {0: 3}),
]


@pytest.mark.parametrize(("board", "player", "expected"), HAND_SOLVED)
def test_positions_solved_by_hand(small_modiar_table, modiar, board, player, expected):
    stores = [21 - sum(board) // 2, 21 - sum(board) + sum(board) // 2]
    state = load(modiar, board, stores, player)
    assert state[STATUS] == RUNNING
    moves = small_modiar_table.move_values(state)
    assert margins(moves) == expected
    assert all(value.exact and value.low == value.high == value.margin for value in moves.values())
    best = max(expected.values())
    value = small_modiar_table.value(state)
    assert (value.margin, value.low, value.high, value.exact) == (best, best, best, True)
    assert small_modiar_table.best_actions(state) == [a for a, m in sorted(expected.items()) if m == best]
    # the engine agrees: playing the best move then perfect play ends with this margin
    assert ReferenceSearch(modiar).margin(state) == best


def test_a_position_without_moves_is_over_and_has_no_value(small_modiar_table, modiar):
    # [0,0,2|1,0,0], P0: local 2 would capture pit 3 and empty P1's row (grand slam): no legal move, the game ends
    state = load(modiar, [0, 0, 2, 1, 0, 0], [20, 19], 0)
    assert state[STATUS] != RUNNING and state[END_REASON] == END_NO_LEGAL_MOVE
    with pytest.raises(TableError, match="game is over"):
        small_modiar_table.value(state)
    with pytest.raises(TableError, match="game is over"):
        small_modiar_table.move_values(state)


def test_a_position_outside_the_table_is_refused_with_the_command(small_modiar_table, modiar):
    state = load(modiar, [3, 2, 2, 0, 0, 0], [18, 17], 0)
    assert not small_modiar_table.covers(state)
    with pytest.raises(TableError, match=r"7 seeds.*`mancala-envs solve modiar --max-seeds 7`"):
        small_modiar_table.value(state)


# --- tables against the exhaustive search -----------------------------------------------------------------------------
def check_against_reference(table, search: ReferenceSearch, state: np.ndarray, budget: int = 50_000_000) -> bool:
    """Asserts the table's value and move values of ``state`` against the search; False if the search gave up.

    Exact values must equal the search; every value must lie within its bounds.
    """
    value = table.value(state)
    found = search.margin(state, budget)
    if found is None:
        return False
    assert value.low <= found <= value.high, (table.game.position_string(state), value, found)
    if value.exact:
        assert value.margin == found, (table.game.position_string(state), value, found)
    moves = table.move_values(state)
    searched = search.move_margins(state, budget)
    assert set(moves) == set(searched)
    for action, move in moves.items():
        if searched[action] is None:
            continue
        assert move.low <= searched[action] <= move.high, (table.game.position_string(state), action, move)
        if move.exact:
            assert move.margin == searched[action], (table.game.position_string(state), action, move)
    return True


def random_position(
    game, search: ReferenceSearch, rng: np.random.Generator, low: int, high: int, store_spread: int | None = None
) -> np.ndarray:
    """A running position of ``search``'s game with ``low..high`` seeds on a random board, a random mover and
    random stores (within ``store_spread`` of an even split, if given)."""
    while True:
        seeds = int(rng.integers(low, high + 1))
        board = rng.multinomial(seeds, np.full(game.n_pits, 1 / game.n_pits))
        rest = game.total_seeds - seeds
        if store_spread is None:
            first = int(rng.integers(0, rest + 1))
        else:
            first = int(rng.integers(max(0, rest // 2 - store_spread), min(rest, rest // 2 + store_spread) + 1))
        state = search.position(board, [first, rest - first], int(rng.integers(2)))
        if state[STATUS] == RUNNING:
            return state


def test_every_small_modiar_position_matches_the_search(small_modiar_table, modiar, reference):
    """Every running Modiar position with at most 4 seeds, both movers: value and move values are exact and equal
    to the exhaustive search."""
    checked = 0
    for seeds in range(1, 5):
        for board in compositions(seeds, 6):
            for player in range(2):
                state = reference.position(board, [21, 21 - seeds], player)
                if state[STATUS] != RUNNING:
                    continue
                assert small_modiar_table.value(state).exact
                assert all(v.exact for v in small_modiar_table.move_values(state).values())
                assert check_against_reference(small_modiar_table, reference, state)
                checked += 1
    assert checked == 154  # the running positions among the 2 x 209 boards


@pytest.mark.slow
def test_modiar_table_matches_the_search_with_few_seeds(modiar_table, modiar, reference):
    """10,000 random Modiar positions with 2..9 seeds: every value and move value exact and equal to the search."""
    rng = np.random.default_rng(20261201)
    for _ in range(10_000):
        state = random_position(modiar, reference, rng, 2, 9)
        assert modiar_table.value(state).exact
        assert all(v.exact for v in modiar_table.move_values(state).values())
        assert check_against_reference(modiar_table, reference, state)


@pytest.mark.slow
def test_modiar_table_matches_the_search_with_more_seeds(modiar_table, modiar, reference):
    """Random positions with 10..19 seeds (every one of them is exact, see the layer census below) equal the
    search; the values of their moves are within their bounds, and equal where exact."""
    rng = np.random.default_rng(7)
    for _ in range(1_000):
        state = random_position(modiar, reference, rng, 10, 19)
        assert modiar_table.value(state).exact
        assert check_against_reference(modiar_table, reference, state)


@pytest.mark.slow
def test_modiar_exact_positions_by_layer(modiar_table):
    """Every position with at most 19 seeds on the board is exact; the first values that depend on history are at 20."""
    rows = np.asarray(modiar_table.table)
    for seeds in range(20):
        start, stop = 2 * math.comb(seeds - 1 + 6, 6), 2 * math.comb(seeds + 6, 6)
        assert (rows[1, start:stop] == rows[2, start:stop]).all(), seeds
    start, stop = 2 * math.comb(19 + 6, 6), 2 * math.comb(20 + 6, 6)
    assert 0 < int((rows[1, start:stop] != rows[2, start:stop]).sum()) < stop - start


@pytest.mark.slow
def test_modiar_values_that_depend_on_history(modiar_table, modiar, reference):
    """Positions whose value is not exact (20..26 seeds): the search stays within the table's bounds; how often it
    equals the table's value is printed (see ``docs/solved.md``), not asserted."""
    figures = sample_non_exact(modiar_table, reference, range(20, 27), per_layer=40, seed=3, budget=3_000_000)
    for seeds, (agree, disagree, gave_up) in figures.items():
        print(f"modiar {seeds} seeds, not exact: {agree} agree, {disagree} disagree, {gave_up} searches gave up")
    assert sum(agree + disagree for agree, disagree, _ in figures.values()) >= 200


@pytest.mark.slow
def test_modiar_bounds_hold_after_a_history_in_a_cycle_class(modiar_table, modiar, reference):
    """Starting from positions that depend on history, a few random seed-keeping plies are played with the
    repetition memory on; the search from there (which knows the positions seen) stays within the bounds of the
    position reached, and equals the value where it is exact."""
    rng = np.random.default_rng(11)
    game = reference.game
    searched = agree = disagree = 0
    for start_seeds in range(20, 25):
        for board, player in _non_exact_positions(modiar_table, start_seeds, rng, 12):
            rest = 42 - start_seeds
            state = reference.position(board, [rest - rest // 2, rest // 2], player)
            for _ in range(int(rng.integers(1, 8))):
                if state[STATUS] != RUNNING:
                    break
                keeping = []
                for action in game.legal_actions(state):
                    child = state.copy()
                    game.step(child, int(action), TRACE)
                    if child[STATUS] == RUNNING and game.board(child).sum() == start_seeds:
                        keeping.append(child)
                if not keeping:
                    break
                state = keeping[int(rng.integers(len(keeping)))]
            if state[STATUS] != RUNNING:
                continue
            value = modiar_table.value(state)
            found = reference.margin(state, 3_000_000)
            if found is None:
                continue
            searched += 1
            assert value.low <= found <= value.high, (modiar.position_string(state), value, found)
            if value.exact:
                assert found == value.margin
            else:
                agree += found == value.margin
                disagree += found != value.margin
    print(f"modiar after a history in a cycle class, not exact: {agree} agree, {disagree} disagree")
    assert searched >= 40


@pytest.mark.slow
def test_a_value_that_depends_on_history(modiar_table, modiar, reference):
    """A Modiar position of a cycle class (20 seeds) whose value with a history differs from its value fresh; the
    search sees the difference (it honours the repetition memory), the table's bounds hold both values.

    From [2,7,1|2,7,1], player 0 to move, 17 seed-keeping plies reach [1,6,1|2,7,3] with player 1 to move. Loaded
    fresh, player 1's best move is local 2 (+2), which leads back to [2,7,1|2,7,1] with player 0 to move; after the 17
    plies that position was seen, so the same move ends the game by repetition, 10 seeds each: 0. The other moves
    give -2 and -10, so the value is 0 with this history and +2 without one.
    """
    game = reference.game
    state = reference.position([2, 7, 1, 2, 7, 1], [11, 11], 0)
    for action in [0, 0, 1, 0, 2, 1, 2, 0, 1, 1, 0, 0, 2, 2, 0, 0, 2]:
        assert game.step(state, action, TRACE) == 0 and state[STATUS] == RUNNING
    assert game.board(state).tolist() == [1, 6, 1, 2, 7, 3] and state[PLAYER] == 1
    assert state[HISTORY_LEN] == 18  # the start and the 17 positions reached, all different
    fresh = reference.position([1, 6, 1, 2, 7, 3], [11, 11], 1)
    assert reference.move_margins(fresh) == {0: -2, 1: -10, 2: 2} and reference.margin(fresh) == 2
    assert reference.move_margins(state) == {0: -2, 1: -10, 2: 0} and reference.margin(state) == 0
    back = state.copy()
    game.step(back, 2, TRACE)
    assert back[END_REASON] == END_REPETITION and back[SCORE : SCORE + 2].tolist() == [21, 21]
    value = modiar_table.value(state)
    assert (value.margin, value.low, value.high, value.exact) == (2, 0, 2, False)
    # move_values plays each move on the state itself, repetition memory included: it sees the repetition one ply
    # ahead (the value, read from the table, does not), so here the value is not the best of the move values
    assert margins(modiar_table.move_values(state)) == {0: -2, 1: -10, 2: 0}
    assert margins(modiar_table.move_values(fresh)) == {0: -2, 1: -10, 2: 2}
    assert modiar_table.value(fresh) == value


def _non_exact_positions(table, seeds: int, rng: np.random.Generator, count: int) -> list[tuple[list[int], int]]:
    found = []
    for board in compositions(seeds, table.game.n_pits):
        for player in range(2):
            index = 2 * board_index(np.array(board, dtype=np.int64), 0, table.game.n_pits, table.binom) + player
            if table.table[1, index] != table.table[2, index]:
                found.append((board, player))
    picked = rng.permutation(len(found))[:count]
    return [found[i] for i in picked]


@pytest.mark.slow
def test_a_smaller_table_holds_the_same_values(modiar_table, modiar):
    """Layers do not depend on the table's size: a 12-seed table is the start of the whole one."""
    small = build_table(modiar, max_seeds=12)
    assert np.array_equal(np.asarray(small.table), np.asarray(modiar_table.table)[:, : small.positions])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "max_seeds", "samples"), [("kalah", 6, 1_500), ("urim", 5, 150)])
def test_other_games_tables_match_the_search(name, max_seeds, samples):
    """Kalah and Urim tables of a few seeds against the search, random stores: exact values equal the search,
    every value lies within its bounds."""
    game = game_of(name)
    table = build_table(game, max_seeds=max_seeds)
    search = ReferenceSearch(game)
    rng = np.random.default_rng(5)
    checked = exact = 0
    for _ in range(samples):
        state = random_position(game, search, rng, 1, max_seeds)
        if check_against_reference(table, search, state, budget=300_000):
            checked += 1
            exact += table.value(state).exact
    assert checked >= samples // 2 and exact >= checked // 3, (checked, exact)


@pytest.mark.slow
def test_ouril_tables_hold_the_game_without_its_threshold():
    """Ouril's tables are built with empty stores, so no store reaches the threshold (25) within a table of a few
    seeds: they hold the margins of the game played to its natural end. The table of the default config is the table
    of ``win_threshold=48`` (a threshold no capture reaches before the game ends), and against the search of that
    game exact values are equal and every value lies within its bounds."""
    default = build_table(game_of("ouril"), max_seeds=5)
    natural_game = game_of("ouril", win_threshold=48)
    natural = build_table(natural_game, max_seeds=5)
    assert np.array_equal(np.asarray(default.table), np.asarray(natural.table))
    search = ReferenceSearch(natural_game)
    rng = np.random.default_rng(5)
    checked = exact = 0
    for _ in range(150):
        state = random_position(natural_game, search, rng, 1, 5, store_spread=6)
        if check_against_reference(natural, search, state, budget=100_000):
            checked += 1
            exact += natural.value(state).exact
    assert checked >= 50 and exact >= 15, (checked, exact)


@pytest.mark.slow
def test_ouril_threshold_changes_margins_not_results():
    """In the default game a store reaching 25 ends it at once, the board left uncollected: where a store is
    near the threshold, the search's margin differs from the table's exact value, and ``move_values``, which plays
    each move on the real stores, sees the threshold, so the value is not the best of the move values there. Who
    wins is the same: with D the mover's store difference, D + margin has the sign of D + the search's margin."""
    game = game_of("ouril")
    table = build_table(game, max_seeds=4)
    search = ReferenceSearch(game)
    # [1,0,1,0,0,0 | 0,0,0,0,0,1], stores [22, 23], player 1 to move. Local 5 (pit 11) sows into pit 0, which makes
    # 2: player 1 captures it and reaches 25, the game ends there, margin +2. Played on to the natural end, player 0
    # is to move facing an empty row and cannot feed it (pit 2's seed only reaches pit 3): the game ends and player
    # 0 keeps that seed, margin 2 - 1 = +1, the table's exact value.
    state = search.position([1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1], [22, 23], 1)
    assert search.margin(state) == 2
    value = table.value(state)
    assert (value.margin, value.exact) == (1, True)
    moves = table.move_values(state)
    assert margins(moves) == {5: 2} and moves[5].exact
    after = state.copy()
    game.step(after, 5, TRACE)
    assert after[END_REASON] == END_THRESHOLD and after[SCORE : SCORE + 2].tolist() == [22, 25]
    # over random positions whose stores are near the threshold: exact values give the search's result
    rng = np.random.default_rng(8)
    differ = 0
    for _ in range(300):
        state = random_position(game, search, rng, 2, 4, store_spread=2)
        value = table.value(state)
        found = search.margin(state, 200_000)
        if found is None or not value.exact:
            continue
        mover = int(state[PLAYER])
        before = int(state[STORE + mover] - state[STORE + 1 - mover])
        assert np.sign(before + value.margin) == np.sign(before + found), game.position_string(state)
        differ += found != value.margin
    assert differ > 0


# --- the rules examples of Modiar ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_modiar_rules_examples_m1_m3(modiar_table, modiar):
    # M1: the opening, player 0 plays local 0; rule 4: nothing captured
    opening = modiar.new_state(0)
    after = opening.copy()
    modiar.step(after, 0, TRACE)
    assert modiar.board(after).tolist() == [2, 8, 8, 8, 8, 8] and modiar.stores(after).tolist() == [0, 0]
    moves = modiar_table.move_values(opening)
    assert set(moves) == {0, 1, 2}
    assert moves[0].margin == -modiar_table.value(after).margin  # no gain, then player 1 to move
    assert modiar_table.value(opening).margin == max(margins(moves).values())
    # M2: from M1's result player 1 plays local 2, capturing 4 + 2; player 0's mask [0, 1, 1]
    m2 = after.copy()
    modiar.step(m2, 2, TRACE)
    assert modiar.board(m2).tolist() == [0, 9, 9, 9, 9, 0] and modiar.stores(m2).tolist() == [0, 6]
    assert sorted(modiar_table.move_values(m2)) == [1, 2]
    assert modiar_table.move_values(after)[2].margin == 6 - modiar_table.value(m2).margin
    assert modiar_table.value(after).margin == max(margins(modiar_table.move_values(after)).values())
    # M3: [5,3,1|3,2,1], P0 local 1 captures 4 + 2; player 1's mask [0, 1, 0]
    m3 = load(modiar, [5, 3, 1, 3, 2, 1], [14, 13], 0)
    m3_after = m3.copy()
    modiar.step(m3_after, 1, TRACE)
    assert modiar.board(m3_after).tolist() == [5, 1, 0, 0, 2, 1] and modiar.stores(m3_after).tolist() == [20, 13]
    assert sorted(modiar_table.move_values(m3_after)) == [1]
    assert modiar_table.move_values(m3)[1].margin == 6 - modiar_table.value(m3_after).margin
    assert modiar_table.value(m3).margin == max(margins(modiar_table.move_values(m3)).values())


def test_modiar_rules_examples_m4_m7(small_modiar_table, modiar):
    table = small_modiar_table
    # M4: [3,0,2|1,0,0], [18, 18]: mask [1,0,0] (local 2 is a banned grand slam); local 0 ends the game 23-19
    m4 = load(modiar, [3, 0, 2, 1, 0, 0], [18, 18], 0)
    moves = table.move_values(m4)
    assert margins(moves) == {0: 4} and moves[0].exact
    assert (table.value(m4).margin, table.value(m4).exact) == (4, True)
    assert 18 - 18 + table.value(m4).margin > 0  # player 0 wins
    # M6: [2,0,3|0,0,0], [20, 17]: mask [0,0,1] (feeding); the game ends 23-19
    m6 = load(modiar, [2, 0, 3, 0, 0, 0], [20, 17], 0)
    assert margins(table.move_values(m6)) == {2: (23 - 19) - (20 - 17)}
    assert table.best_actions(m6) == [2]
    # M7: [1,0,1|3,2,0], [17, 18]: only singletons, the game is over on loading; 19-23
    m7 = load(modiar, [1, 0, 1, 3, 2, 0], [17, 18], 0)
    assert m7[STATUS] != RUNNING and m7[SCORE : SCORE + 2].tolist() == [19, 23]
    with pytest.raises(TableError):
        table.value(m7)


@pytest.mark.slow
def test_modiar_rules_example_m5(modiar_table, modiar):
    # M5: [7,1,3|5,1,3], [11, 11]: mask [0,0,1] (local 0 is a grand slam); local 2 captures 2 + 6; P1's mask [0,0,1]
    m5 = load(modiar, [7, 1, 3, 5, 1, 3], [11, 11], 0)
    moves = modiar_table.move_values(m5)
    assert sorted(moves) == [2]
    after = m5.copy()
    modiar.step(after, 2, TRACE)
    assert modiar.board(after).tolist() == [7, 1, 1, 0, 0, 3] and modiar.stores(after).tolist() == [19, 11]
    assert sorted(modiar_table.move_values(after)) == [2]
    assert moves[2].margin == 8 - modiar_table.value(after).margin
    assert modiar_table.value(m5).margin == moves[2].margin


@pytest.mark.slow
def test_bellman_consistency(modiar_table, modiar):
    """On 5,000 random running Modiar positions (2..42 seeds): the value is the best of the move values; an exact
    value's bounds are those of its best moves; in general the lower bound is at most the best move's lower bound
    and the upper bound at least the best move's upper bound (a move inside a cycle class may also meet a
    repetition)."""
    rng = np.random.default_rng(99)
    state = modiar.new_state(0)
    for _ in range(5_000):
        seeds = int(rng.integers(2, 43))
        board = rng.multinomial(seeds, np.full(6, 1 / 6)).tolist()
        modiar.load_position(state, board, [42 - seeds, 0], int(rng.integers(2)))
        if state[STATUS] != RUNNING:
            continue
        value = modiar_table.value(state)
        moves = list(modiar_table.move_values(state).values())
        where = modiar.position_string(state)
        assert value.margin == max(m.margin for m in moves), where
        assert value.low <= value.margin <= value.high, where
        assert value.low <= max(m.low for m in moves) and value.high >= max(m.high for m in moves), where
        if value.exact:
            assert value.low == max(m.low for m in moves) and value.high == max(m.high for m in moves), where


# --- files ------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_table(modiar):
    return build_table(modiar, max_seeds=3)


def test_saved_table_loads_with_the_same_values(tiny_table, modiar, tmp_path):
    path = save_table(tiny_table, tmp_path)
    assert path == table_paths(modiar, 3, tmp_path)[0]
    loaded = load_table(modiar, 3, folder=tmp_path)
    assert np.array_equal(np.asarray(loaded.table), np.asarray(tiny_table.table))
    state = load(modiar, [0, 3, 0, 0, 0, 0], [20, 19], 0)
    assert loaded.value(state) == tiny_table.value(state)
    # the config fields a table ignores do not matter
    other = game_of("modiar", max_plies=50, repetition=False)
    assert load_table(other, 3, folder=tmp_path).positions == tiny_table.positions


def test_a_tampered_table_is_refused(tiny_table, modiar, tmp_path):
    path = save_table(tiny_table, tmp_path)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # one byte of the values
    path.write_bytes(bytes(data))
    with pytest.raises(TableError, match="fails its integrity check"):
        load_table(modiar, 3, folder=tmp_path)


def test_a_missing_table_names_the_command(modiar, tmp_path):
    with pytest.raises(TableError, match=r"`mancala-envs solve modiar --max-seeds 3 --dir "):
        load_table(modiar, 3, folder=tmp_path)
    with pytest.raises(TableError, match=r"`mancala-envs solve modiar --dir "):
        load_table(modiar, folder=tmp_path)


def test_a_table_of_another_config_is_refused(tmp_path):
    kalah = game_of("kalah")
    table = build_table(kalah, max_seeds=2)
    save_table(table, tmp_path)
    variant = game_of("kalah", empty_capture=True)
    # another config is another file name: not found, with the command to build it
    with pytest.raises(TableError, match="mancala-envs solve kalah"):
        load_table(variant, 2, folder=tmp_path)
    # a description claiming the file for another config is refused by the check of its contents
    values_path, info_path = table_paths(kalah, 2, tmp_path)
    other_values, other_info = table_paths(variant, 2, tmp_path)
    other_values.write_bytes(values_path.read_bytes())
    other_info.write_text(info_path.read_text())
    with pytest.raises(TableError, match="describes another game or config"):
        load_table(variant, 2, folder=tmp_path)
    description = json.loads(info_path.read_text())
    description["game_version"] = 99
    info_path.write_text(json.dumps(description))
    with pytest.raises(TableError, match="describes another game or config"):
        load_table(kalah, 2, folder=tmp_path)


def test_the_environment_variable_names_the_folder(tiny_table, modiar, tmp_path, monkeypatch):
    monkeypatch.setenv(TABLE_ENV, str(tmp_path / "chosen"))
    assert table_dir() == tmp_path / "chosen"
    path = save_table(tiny_table)
    assert path.parent == tmp_path / "chosen"
    assert load_table(modiar, 3).positions == tiny_table.positions
    monkeypatch.setenv(TABLE_ENV, str(tmp_path / "elsewhere"))
    with pytest.raises(TableError, match="elsewhere"):
        load_table(modiar, 3)


@pytest.mark.slow
def test_the_session_table_is_the_whole_game(modiar_table, tables_dir, monkeypatch):
    monkeypatch.setenv(TABLE_ENV, str(tables_dir))
    table = load_table(game_of("modiar"))
    assert table.complete and table.positions == 2 * math.comb(42 + 6, 6) == modiar_table.positions


def test_table_files_depend_on_the_config_but_max_plies_and_repetition(modiar):
    kalah = game_of("kalah")
    assert table_paths(kalah, 2)[0] != table_paths(game_of("kalah", empty_capture=True), 2)[0]
    assert table_paths(modiar, 2)[0] == table_paths(game_of("modiar", max_plies=7, repetition=False), 2)[0]
    assert table_paths(modiar, 2)[0] != table_paths(modiar, 3)[0]
