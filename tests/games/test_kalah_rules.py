"""Exact-position tests of Kalah (docs/rules/kalah.md), on the engine and the game object.

Each test sets up a position with ``Kalah.load_position``, plays moves with
``Kalah.step`` and checks everything the rules decide: the whole board, both
stores, the player to move, the legal mask (``state[LEGAL]``), and, at the end,
status, end reason, winner, scores and match points. Every expected value was
worked out by hand from the rules; each hand-made position's seed total is
checked before it is used. The environment layer is not used here.

Board arrays are in global pit order (``[P0 local 0..n-1 | P1 local 0..n-1]``)::

    top row (P1)    11 10  9  8  7  6      store of P1 on the left (after pit 11)
    bottom row (P0)  0  1  2  3  4  5      store of P0 on the right (after pit 5)

and action ``k`` sows the mover's own local pit ``k`` (global ``player * n + k``).
In the trace, a seed dropped into player ``p``'s store is pit ``2n + p``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from mancala_envs.engine.state import (
    END_REASON,
    GAME_OVER,
    HEADER_SIZE,
    ILLEGAL,
    LAST_ACTION,
    LEGAL,
    OK,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    TERMINATED,
    TRUNCATED,
    WINNER,
)
from mancala_envs.engine.trace import new_trace, read_trace
from mancala_envs.games import kalah
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.games.two_row_family.two_row_rules import HISTORY_START

START_6x4 = [4] * 12


# --- helpers ---------------------------------------------------------------------------------------
def position(board, stores, player, **options):
    """A Kalah game and a state loaded with the given position (the seed total is checked first)."""
    game = Kalah(KalahConfig(**options))
    assert sum(board) + sum(stores) == game.total_seeds, "hand-made position does not hold T seeds"
    state = game.new_state(player)
    game.load_position(state, board, stores, player)
    return game, state


def play(game, state, action):
    """Plays ``action``, which must be accepted; returns the decoded trace (sown pits, captures)."""
    trace = new_trace()
    assert game.step(state, action, trace) == OK
    return read_trace(trace)


def mask_of(state, n):
    return [(int(state[LEGAL]) >> k) & 1 for k in range(n)]


def observe(game, state, player):
    """The compiled observation and mask of ``player`` (the game's ``observe`` function)."""
    observation = np.empty(2 * game.row_size + 5, dtype=np.int32)
    mask = np.empty(game.n_actions, dtype=np.int8)
    kalah.observe(state, game.params, player, observation, mask)
    return observation.tolist(), mask.tolist()


def assert_running(game, state, board, stores, to_move, mask):
    """The game goes on: exact board, stores, player to move and its mask; the other player sees no moves."""
    n = game.row_size
    assert game.board(state).tolist() == board
    assert game.stores(state).tolist() == stores
    assert int(state[STATUS]) == RUNNING
    assert int(state[END_REASON]) == 0
    assert int(state[WINNER]) == -1
    assert int(state[PLAYER]) == to_move
    assert mask_of(state, n) == mask
    assert int(state[LEGAL]) == game.legal_bits(state)
    assert game.legal_mask(state).tolist() == mask
    assert observe(game, state, to_move)[1] == mask
    assert observe(game, state, 1 - to_move)[1] == [0] * n
    info = game.info(state)
    assert info["scores"] == stores
    assert info["player_to_move"] == to_move
    assert info["end_reason"] is None and info["winner"] is None
    assert sum(board) + sum(stores) == game.total_seeds


def assert_over(game, state, scores, end_reason, winner, truncated=False):
    """The game is over: the board is settled (every row collected), the result is recorded."""
    n = game.row_size
    assert game.board(state).tolist() == [0] * (2 * n)
    assert game.stores(state).tolist() == scores
    assert state[SCORE : SCORE + 2].tolist() == scores
    assert int(state[STATUS]) == (TRUNCATED if truncated else TERMINATED)
    assert game.end_reason_names[int(state[END_REASON])] == end_reason
    assert int(state[WINNER]) == (-1 if winner is None else winner)
    expected_points = [0, 0] if winner is None else [int(p == winner) for p in range(2)]
    assert state[POINTS : POINTS + 2].tolist() == expected_points
    assert int(state[LEGAL]) == 0
    for player in range(2):
        assert observe(game, state, player)[1] == [0] * n
    info = game.info(state)
    assert info["scores"] == scores
    assert info["end_reason"] == end_reason
    assert info["winner"] == winner
    assert info["player_to_move"] is None
    assert sum(scores) == game.total_seeds


# --- K1-K7 (docs/rules/kalah.md, worked examples) --------------------------------------------------
def test_k1_last_seed_in_own_store_gives_an_extra_turn():
    game = Kalah()
    state = game.new_state(0)
    assert_running(game, state, START_6x4, [0, 0], 0, [1] * 6)
    # Local 2 (4 seeds): pits 3, 4, 5, then P0's store.
    sown, captures = play(game, state, 2)
    assert (sown, captures) == ([3, 4, 5, 12], [])
    assert_running(game, state, [4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4], [1, 0], 0, [1, 1, 0, 1, 1, 1])
    assert int(state[PLY]) == 1 and int(state[LAST_ACTION]) == 2
    # Player 0 moves again: local 5 (5 seeds) goes to the store and pits 6..9.
    sown, _ = play(game, state, 5)
    assert sown == [12, 6, 7, 8, 9]
    assert_running(game, state, [4, 4, 0, 5, 5, 0, 5, 5, 5, 5, 4, 4], [2, 0], 1, [1] * 6)
    assert int(state[PLY]) == 2


def test_k1_observations_seen_from_each_side():
    game = Kalah()
    state = game.new_state(0)
    play(game, state, 2)
    observation, mask = observe(game, state, 0)
    assert observation == [4, 4, 0, 5, 5, 5] + [4] * 6 + [1, 0, 1, 0, 1]
    assert mask == [1, 1, 0, 1, 1, 1]
    observation, mask = observe(game, state, 1)
    assert observation == [4] * 6 + [4, 4, 0, 5, 5, 5] + [0, 1, 0, 0, 1]
    assert mask == [0] * 6


def test_k2_sowing_past_own_store():
    game = Kalah()
    state = game.new_state(0)
    sown, captures = play(game, state, 5)
    assert (sown, captures) == ([12, 6, 7, 8], [])
    assert_running(game, state, [4, 4, 4, 4, 4, 0, 5, 5, 5, 4, 4, 4], [1, 0], 1, [1] * 6)


def test_k3_capture_of_the_opposite_pit():
    game, state = position([1, 0, 3, 0, 0, 2, 4, 4, 4, 4, 4, 4], [10, 8], 0)
    assert_running(game, state, [1, 0, 3, 0, 0, 2, 4, 4, 4, 4, 4, 4], [10, 8], 0, [1, 0, 1, 0, 0, 1])
    # Local 0 (1 seed) lands in the empty pit 1; the opposite pit 10 holds 4: 4 + 1 stored.
    sown, captures = play(game, state, 0)
    assert sown == [1]
    assert captures == [[1, 1], [10, 4]]
    assert_running(game, state, [0, 0, 3, 0, 0, 2, 4, 4, 4, 4, 0, 4], [15, 8], 1, [1, 1, 1, 1, 0, 1])


def test_k4_no_capture_opposite_an_empty_pit():
    game, state = position([1, 0, 3, 0, 0, 2, 4, 4, 4, 4, 0, 4], [12, 10], 0)
    sown, captures = play(game, state, 0)
    assert (sown, captures) == ([1], [])
    assert_running(game, state, [0, 1, 3, 0, 0, 2, 4, 4, 4, 4, 0, 4], [12, 10], 1, [1, 1, 1, 1, 0, 1])


def test_k5_full_lap_into_the_emptied_origin_then_capture():
    game, state = position([13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], [20, 14], 0)
    # 13 seeds: pits 1-5, P0's store, pits 6-11 (P1's store skipped), then the emptied origin 0.
    sown, captures = play(game, state, 0)
    assert sown == [1, 2, 3, 4, 5, 12, 6, 7, 8, 9, 10, 11, 0]
    assert captures == [[0, 1], [11, 2]]
    assert_running(game, state, [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], [24, 14], 1, [1, 1, 1, 1, 1, 0])


def test_k6_an_extra_turn_move_that_empties_the_row_ends_the_game():
    game, state = position([0, 0, 0, 0, 0, 1, 2, 0, 3, 0, 1, 0], [20, 21], 0)
    sown, captures = play(game, state, 5)
    assert (sown, captures) == ([12], [])
    # P0's row is empty: P1 adds its 6 seeds. The extra turn was earned, so PLAYER stays 0.
    assert_over(game, state, [21, 27], "row_empty", 1)
    assert int(state[PLAYER]) == 0
    assert int(state[PLY]) == 1


def test_k7_capture_that_empties_both_rows_is_a_draw():
    game, state = position([0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0], [24, 21], 1)
    assert_running(game, state, [0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0], [24, 21], 1, [1, 0, 0, 0, 0, 0])
    sown, captures = play(game, state, 0)
    assert sown == [7]
    assert captures == [[7, 1], [4, 2]]
    assert_over(game, state, [24, 24], "row_empty", None)
    assert int(state[PLAYER]) == 0


# --- more rules ------------------------------------------------------------------------------------
def test_player_1_sows_its_own_store_skips_player_0s_and_captures():
    game, state = position([4, 4, 4, 4, 4, 4, 4, 0, 4, 4, 3, 9], [0, 0], 1)
    # Local 5 = global 11 (9 seeds): P1's store, pits 0-5, (P0's store skipped), 6, then the empty 7.
    sown, captures = play(game, state, 5)
    assert sown == [13, 0, 1, 2, 3, 4, 5, 6, 7]
    assert captures == [[7, 1], [4, 5]]
    assert_running(game, state, [5, 5, 5, 5, 0, 5, 5, 0, 4, 4, 3, 0], [0, 7], 0, [1, 1, 1, 1, 0, 1])


def test_player_1_extra_turn():
    game = Kalah()
    state = game.new_state(1)
    sown, _ = play(game, state, 2)  # global 8: 9, 10, 11, P1's store
    assert sown == [9, 10, 11, 13]
    assert_running(game, state, [4] * 6 + [4, 4, 0, 5, 5, 5], [0, 1], 1, [1, 1, 0, 1, 1, 1])


def test_no_capture_when_the_landing_pit_was_not_empty_or_is_the_opponents():
    # Landing in an own pit that already held a seed: it now holds 2, no capture.
    game, state = position([1, 1, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4], [12, 10], 0)
    assert play(game, state, 0) == ([1], [])
    assert_running(game, state, [0, 2, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4], [12, 10], 1, [1] * 6)
    # Landing in an empty pit of the opponent (it now holds 1): no capture either.
    game, state = position([1, 0, 0, 0, 0, 2, 0, 4, 4, 4, 4, 4], [12, 13], 0)
    assert play(game, state, 5) == ([12, 6], [])
    assert_running(game, state, [1, 0, 0, 0, 0, 0, 1, 4, 4, 4, 4, 4], [13, 13], 1, [1] * 6)


def test_a_second_lap_fills_the_landing_pit_twice_so_no_capture():
    # 14 seeds from pit 0: 1-5, store, 6-11, 0, 1: pit 1 was empty but now holds 2.
    game, state = position([14, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4], [6, 4], 0)
    sown, captures = play(game, state, 0)
    assert sown == [1, 2, 3, 4, 5, 12, 6, 7, 8, 9, 10, 11, 0, 1]
    assert captures == []
    assert_running(game, state, [1, 2, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5], [7, 4], 1, [1] * 6)


def test_empty_capture_stores_the_landing_seed_alone():
    game, state = position([1, 0, 3, 0, 0, 2, 4, 4, 4, 4, 0, 4], [12, 10], 0, empty_capture=True)
    sown, captures = play(game, state, 0)
    assert (sown, captures) == ([1], [[1, 1]])
    assert_running(game, state, [0, 0, 3, 0, 0, 2, 4, 4, 4, 4, 0, 4], [13, 10], 1, [1, 1, 1, 1, 0, 1])


def test_empty_capture_changes_nothing_when_the_opposite_pit_holds_seeds():
    game, state = position([1, 0, 3, 0, 0, 2, 4, 4, 4, 4, 4, 4], [10, 8], 0, empty_capture=True)
    assert play(game, state, 0) == ([1], [[1, 1], [10, 4]])
    assert_running(game, state, [0, 0, 3, 0, 0, 2, 4, 4, 4, 4, 0, 4], [15, 8], 1, [1, 1, 1, 1, 0, 1])


def test_empty_capture_that_empties_the_movers_row_ends_the_game():
    game, state = position([1, 0, 0, 0, 0, 0, 4, 4, 4, 4, 0, 4], [14, 13], 0, empty_capture=True)
    assert play(game, state, 0) == ([1], [[1, 1]])
    assert_over(game, state, [15, 33], "row_empty", 1)


def test_a_capture_of_the_opponents_last_seeds_ends_the_game():
    game, state = position([1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0], [20, 22], 0)
    # Local 0 lands in the empty pit 1 and takes pit 10, P1's last seeds: P0 then adds its pit 2.
    assert play(game, state, 0) == ([1], [[1, 1], [10, 3]])
    assert_over(game, state, [26, 22], "row_empty", 0)
    assert int(state[PLAYER]) == 1


def test_player_1_empties_its_own_row_on_an_extra_turn_move():
    game, state = position([0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1], [22, 23], 1)
    # Local 5 (global 11, 1 seed) reaches P1's store: an extra turn, but P1's row is empty.
    assert play(game, state, 5) == ([13], [])
    assert_over(game, state, [24, 24], "row_empty", None)
    assert int(state[PLAYER]) == 1


@pytest.mark.parametrize(
    ("action", "sown", "board", "stores", "to_move", "mask"),
    [
        # 2x4, 3 seeds: local 1 reaches 2, 3 and the store (pit 8): extra turn.
        (1, [2, 3, 8], [3, 0, 4, 4, 3, 3, 3, 3], [1, 0], 0, [1, 0, 1, 1]),
        # local 3: the store, then 4 and 5.
        (3, [8, 4, 5], [3, 3, 3, 0, 4, 4, 3, 3], [1, 0], 1, [1, 1, 1, 1]),
        # local 0: 1, 2, 3.
        (0, [1, 2, 3], [0, 4, 4, 4, 3, 3, 3, 3], [0, 0], 1, [1, 1, 1, 1]),
    ],
)
def test_2x4_board_with_3_seeds(action, sown, board, stores, to_move, mask):
    game = Kalah(KalahConfig(pits_per_row=4, seeds_per_pit=3))
    state = game.new_state(0)
    assert game.total_seeds == 24 and game.n_actions == 4
    assert_running(game, state, [3] * 8, [0, 0], 0, [1] * 4)
    assert play(game, state, action)[0] == sown
    assert_running(game, state, board, stores, to_move, mask)


def test_2x4_capture_and_player_1_ring():
    game, state = position([2, 0, 0, 1, 0, 0, 3, 7], [5, 6], 1, pits_per_row=4, seeds_per_pit=3)
    # P1 local 3 (global 7, 7 seeds): P1's store (pit 9), 0, 1, 2, 3, (P0's store skipped), 4, 5.
    # Pit 5 was empty and now holds 1; the opposite pit 2 now holds 1: 1 + 1 stored.
    sown, captures = play(game, state, 3)
    assert sown == [9, 0, 1, 2, 3, 4, 5]
    assert captures == [[5, 1], [2, 1]]
    assert_running(game, state, [3, 1, 0, 2, 1, 0, 3, 0], [5, 9], 0, [1, 1, 0, 1])


def test_2x8_board_with_6_seeds():
    game = Kalah(KalahConfig(pits_per_row=8, seeds_per_pit=6))
    state = game.new_state(0)
    assert game.total_seeds == 96
    # Local 2 (6 seeds): pits 3..7 and the store (pit 16): extra turn.
    assert play(game, state, 2)[0] == [3, 4, 5, 6, 7, 16]
    assert_running(game, state, [6, 6, 0, 7, 7, 7, 7, 7] + [6] * 8, [1, 0], 0, [1, 1, 0, 1, 1, 1, 1, 1])


# --- refusals --------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [2, -1, 6, 7, 100, -100])
def test_refused_actions_change_nothing(action):
    game, state = position([1, 0, 0, 0, 0, 2, 4, 4, 4, 4, 4, 4], [11, 10], 0)
    trace = new_trace()
    play_trace = new_trace()
    game.step(state.copy(), 5, play_trace)  # a record in the trace that a refusal must not touch
    trace[:] = play_trace
    before = state.copy()
    assert game.step(state, action, trace) == ILLEGAL
    assert np.array_equal(state, before)
    assert np.array_equal(trace, play_trace)


def test_actions_after_the_end_are_refused_with_game_over():
    game, state = position([0, 0, 0, 0, 0, 1, 2, 0, 3, 0, 1, 0], [20, 21], 0)
    play(game, state, 5)
    before = state.copy()
    for action in (0, 5, -1, 6):
        assert game.step(state, action, new_trace()) == GAME_OVER
        assert np.array_equal(state, before)


def test_a_zero_length_trace_turns_recording_off():
    game = Kalah()
    state = game.new_state(0)
    assert game.step(state, 2, np.empty(0, dtype=np.int64)) == OK
    assert game.board(state).tolist() == [4, 4, 0, 5, 5, 5] + [4] * 6


# --- ends -----------------------------------------------------------------------------------------
def test_ply_cap_truncates_and_the_owners_collect():
    game = Kalah(KalahConfig(max_plies=2))
    state = game.new_state(0)
    play(game, state, 2)  # K1: extra turn, ply 1
    play(game, state, 5)  # [4,4,0,5,5,0 | 5,5,5,5,4,4], stores [2, 0], ply 2: the cap
    assert int(state[PLY]) == 2
    assert_over(game, state, [20, 28], "max_plies", 1, truncated=True)


def test_an_empty_row_is_reported_before_the_ply_cap():
    game, state = position([0, 0, 0, 0, 0, 1, 2, 0, 3, 0, 1, 0], [20, 21], 0, max_plies=1)
    play(game, state, 5)
    assert_over(game, state, [21, 27], "row_empty", 1)


@pytest.mark.parametrize(
    ("board", "stores", "player", "scores", "winner"),
    [
        # the player to move has no seeds
        ([0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 1, 0], [21, 21], 0, [21, 27], 1),
        # the opponent has no seeds
        ([0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 1, 0], [21, 21], 1, [21, 27], 1),
        ([1, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0], [20, 22], 0, [26, 22], 0),
        # both rows empty
        ([0] * 12, [24, 24], 0, [24, 24], None),
    ],
)
def test_a_loaded_position_with_an_empty_row_is_over_at_once(board, stores, player, scores, winner):
    game, state = position(board, stores, player)
    assert_over(game, state, scores, "row_empty", winner)
    assert int(state[PLY]) == 0


def test_load_position_rejects_bad_positions_and_leaves_the_state():
    game = Kalah()
    state = game.new_state(0)
    play(game, state, 2)
    before = state.copy()
    with pytest.raises(ValueError, match="48"):
        game.load_position(state, [4] * 12, [1, 0], 0)
    with pytest.raises(ValueError, match="board"):
        game.load_position(state, [4] * 11, [4, 0], 0)
    with pytest.raises(ValueError, match="player"):
        game.load_position(state, [4] * 12, [0, 0], 2)
    with pytest.raises(TypeError, match="no flag"):
        game.load_position(state, [4] * 12, [0, 0], 0, first_move_done=False)
    assert np.array_equal(state, before)


def test_load_position_makes_a_consistent_state():
    game, state = position([1, 0, 3, 0, 0, 2, 4, 4, 4, 4, 4, 4], [10, 8], 1)
    game.check_state(state)
    assert int(state[PLY]) == 0
    assert game.position_string(state) == "1,0,3,0,0,2/4,4,4,4,4,4 10,8 1"


# --- config and game object -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pits_per_row": 0}, "pits_per_row=0 is out of range; use an integer >= 1 and <= 8"),
        ({"pits_per_row": 9}, "pits_per_row=9 is out of range"),
        ({"pits_per_row": 6.0}, "pits_per_row=6.0 must be an integer"),
        ({"pits_per_row": True}, "pits_per_row=True must be an integer"),
        ({"seeds_per_pit": 0}, "seeds_per_pit=0 is out of range; use an integer >= 1 and <= 6"),
        ({"seeds_per_pit": 7}, "seeds_per_pit=7 is out of range"),
        ({"empty_capture": 1}, "empty_capture=1 must be True or False"),
        ({"empty_capture": "yes"}, "empty_capture='yes' must be True or False"),
        ({"max_plies": 0}, "max_plies=0 is out of range; use an integer >= 1"),
    ],
)
def test_config_validation(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        KalahConfig(**options)


def test_game_requires_a_kalah_config():
    with pytest.raises(TypeError, match="KalahConfig"):
        Kalah({"pits_per_row": 6})


@pytest.mark.parametrize(("n", "s"), [(4, 3), (6, 4), (8, 6), (5, 5)])
def test_game_shape_follows_the_config(n, s):
    game = Kalah(KalahConfig(pits_per_row=n, seeds_per_pit=s, max_plies=77, empty_capture=True))
    assert game.env_name == "kalah_v0"
    assert (game.n_actions, game.n_pits, game.total_seeds) == (n, 2 * n, 2 * n * s)
    assert game.state_size == HEADER_SIZE + 2 * n  # no repetition history
    assert game.params.tolist() == [n, s, 2 * n * s, 77, 0, 1]
    assert int(game.params[HISTORY_START]) == 0
    assert game.board_rows() == [list(range(2 * n - 1, n - 1, -1)), list(range(n))]
    assert game.played_pit(1, 2) == n + 2
    names = game.observation_names()
    low, high = game.observation_bounds()
    assert len(names) == len(low) == len(high) == 2 * n + 5
    assert names[2 * n :] == ["own_store", "opponent_store", "is_to_move", "must_feed", "ply"]
    assert high[: 2 * n + 2].tolist() == [2 * n * s] * (2 * n + 2)
    assert high[2 * n + 4] == 77
    state = game.new_state(1)
    assert game.board(state).tolist() == [s] * (2 * n)
    assert int(state[PLAYER]) == 1 and int(state[LEGAL]) == (1 << n) - 1
    game.check_state(state)


def test_render_text_shows_both_stores():
    game = Kalah()
    state = game.new_state(0)
    play(game, state, 2)
    text = game.render_text(state)
    assert "kalah_v0  ply 1  player_0 to move, legal actions [0, 1, 3, 4, 5]" in text
    assert "player_1 [   4   4   4   4   4   4 ]  store 0" in text
    assert "player_0 [   4   4   0   5   5   5 ]  store 1" in text


# --- properties over random games ------------------------------------------------------------------
def reference_move(board, stores, player, local, n, empty_capture):
    """An independent reading of rules 1-4 on a ring of places (own pits, own store, opponent pits).

    Returns:
        ``(board, stores, next_player, over)``; on ``over`` the rows are already collected.
    """
    board, stores = list(board), list(stores)
    ring = [("pit", player * n + k) for k in range(n)] + [("store", player)]
    ring += [("pit", (1 - player) * n + k) for k in range(n)]
    seeds, board[player * n + local] = board[player * n + local], 0
    at = local
    for _ in range(seeds):
        at = (at + 1) % len(ring)
        kind, index = ring[at]
        if kind == "pit":
            board[index] += 1
        else:
            stores[index] += 1
    kind, index = ring[at]
    if kind == "pit" and index // n == player and board[index] == 1:
        opposite = 2 * n - 1 - index
        if board[opposite] > 0 or empty_capture:
            stores[player] += board[opposite] + 1
            board[index] = board[opposite] = 0
    next_player = player if kind == "store" else 1 - player
    over = sum(board[:n]) == 0 or sum(board[n:]) == 0
    if over:
        stores = [stores[0] + sum(board[:n]), stores[1] + sum(board[n:])]
        board = [0] * (2 * n)
    return board, stores, next_player, over


CONFIGS = [
    KalahConfig(),
    KalahConfig(empty_capture=True),
    KalahConfig(pits_per_row=4, seeds_per_pit=3),
    KalahConfig(pits_per_row=8, seeds_per_pit=6),
    KalahConfig(pits_per_row=5, seeds_per_pit=5, empty_capture=True),
    KalahConfig(pits_per_row=7, seeds_per_pit=3, max_plies=40),
]


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: f"{c.pits_per_row}x{c.seeds_per_pit}-ec{int(c.empty_capture)}-cap{c.max_plies}"
)
def test_random_games_follow_the_reference_and_keep_the_contract(config):
    """50 random games per config: every ply matches the reference; masks equal the accepted actions,
    refusals change nothing, seeds are conserved, no position recurs, the game ends in time."""
    game = Kalah(config)
    n, total = config.pits_per_row, game.total_seeds
    rng = np.random.default_rng(20240611 + n * 10 + config.seeds_per_pit)
    trace = new_trace()
    for _ in range(50):
        state = game.new_state(int(rng.integers(2)))
        seen = set()
        while state[STATUS] == RUNNING:
            board, stores, player = game.board(state).tolist(), game.stores(state).tolist(), int(state[PLAYER])
            key = (tuple(board), player)
            assert key not in seen, "a Kalah position recurred"
            seen.add(key)
            assert int(state[LEGAL]) == sum(1 << k for k in range(n) if board[player * n + k] > 0) != 0
            assert sum(board) + sum(stores) == total
            # The mask is exactly the set of actions step accepts; a refusal changes nothing.
            for action in range(-1, n + 1):
                scratch = state.copy()
                code = game.step(scratch, action, np.empty(0, dtype=np.int64))
                if 0 <= action < n and (int(state[LEGAL]) >> action) & 1:
                    assert code == OK
                else:
                    assert code == ILLEGAL
                    assert np.array_equal(scratch, state)
            action = int(rng.choice(np.flatnonzero(game.legal_mask(state))))
            expected = reference_move(board, stores, player, action, n, config.empty_capture)
            assert game.step(state, action, trace) == OK
            sown, captures = read_trace(trace)
            assert len(sown) == board[player * n + action]
            if captures:  # the landing pit, then the opposite pit if it held seeds
                landing = sown[-1]
                assert captures[0] == [landing, 1]
                taken = captures[1:]
                assert (taken == [] and config.empty_capture) or (
                    len(taken) == 1 and taken[0][0] == 2 * n - 1 - landing and taken[0][1] > 0
                )
            capped = not expected[3] and int(state[PLY]) >= config.max_plies
            if capped:
                rows = expected[0]
                expected = ([0] * (2 * n), [expected[1][0] + sum(rows[:n]), expected[1][1] + sum(rows[n:])], None, True)
            assert game.board(state).tolist() == expected[0]
            assert game.stores(state).tolist() == expected[1]
            assert sum(game.board(state)) + sum(game.stores(state)) == total
            if expected[3]:
                reason = "max_plies" if capped else "row_empty"
                scores = expected[1]
                winner = None if scores[0] == scores[1] else int(scores[1] > scores[0])
                assert_over(game, state, scores, reason, winner, truncated=capped)
            else:
                assert int(state[PLAYER]) == expected[2]
                game.check_state(state)
        assert int(state[PLY]) <= config.max_plies
        for action in range(n):
            assert game.step(state, action, trace) == GAME_OVER
