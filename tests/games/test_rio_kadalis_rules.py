"""Exact-position tests of Rio Kadalis (docs/rules/rio_kadalis.md), in the Pgx / OpenSpiel style.

Each test sets up a position, plays one or more turns and checks what an agent
can see: the whole board, the captured seeds (``stores``), the mask of the
player to move, the next agent, the rewards and the end of the round or match.
The examples R1-R6 are the rules page's test vectors; the other expected values
were worked out by hand, with the seed totals checked in each position.

Board arrays are in global pit order (docs/architecture.md, common conventions)::

    top row (P1)    11 10  9  8  7  6
    bottom row (P0)  0  1  2  3  4  5

and action ``k`` sows the mover's own local pit ``k`` (global ``player * n + k``).
"""

from __future__ import annotations

import time

import pytest

from mancala_envs.envs import rio_kadalis_v0
from mancala_envs.games.rio_kadalis import RioKadalisConfig

from support.position_asserts import assert_over as shared_assert_over
from support.position_asserts import assert_running as shared_assert_running


# --- helpers ---------------------------------------------------------------------------------------
def start(board, stores, player, **options):
    """A Rio Kadalis env reset to the given position (the seed total is checked first)."""
    n = len(board) // 2
    assert sum(board) + sum(stores) == 8 * n, "hand-made position does not hold T seeds"
    env = rio_kadalis_v0.env(first_player=player, illegal_action="raise", **options)
    env.reset(seed=0, options={"board": list(board), "stores": list(stores), "player": player})
    return env


def assert_running(env, board, stores, to_move, mask):
    """The round goes on (see position_asserts); no endless move was seen."""
    shared_assert_running(env, board, stores, to_move, mask, endless_move=False)


def assert_over(env, scores, end_reason, winner, truncated=False):
    """The episode is over (see position_asserts); the board is not checked here."""
    shared_assert_over(env, None, scores, end_reason, winner, truncated=truncated, stores_are_scores=False)


# --- R1-R3: relay, en-passant fours, binikh --------------------------------------------------------
def test_r1_opening_relay_without_fours():
    env = start([4] * 12, [0, 0], 0)
    env.step(0)
    # Laps from 0, 4, 9, 2, 8; the fifth lap ends in pit 2, which lap 4 had emptied.
    assert env.unwrapped.facts()["last_move"]["sown"] == [
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        0,
        1,
        2,
    ]
    assert env.unwrapped.facts()["laps"] == 5
    assert env.unwrapped.facts()["last_move"]["captures"] == []
    assert_running(env, [2, 7, 1, 6, 1, 6, 6, 6, 0, 1, 6, 6], [0, 0], 1, [1, 1, 0, 1, 1, 1])


def test_r2_four_for_the_row_owner_then_binikh_for_the_mover():
    env = start([2, 0, 1, 0, 5, 3, 3, 0, 3, 2, 1, 0], [14, 14], 0)
    env.step(5)
    # Pit 6 (P1's row) makes 4 with a non-last seed: P1 takes it. Pit 8 makes 4 with the last: P0.
    assert env.unwrapped.facts()["last_move"]["captures"] == [[6, 4], [8, 4]]
    assert env.unwrapped.facts()["laps"] == 1
    assert_running(env, [2, 0, 1, 0, 5, 0, 0, 1, 0, 2, 1, 0], [18, 18], 1, [0, 1, 0, 1, 1, 0])


def test_r3_own_row_fours_two_relays_then_an_empty_pit():
    env = start([2, 3, 2, 0, 3, 1, 2, 0, 5, 1, 0, 4], [13, 12], 0)
    env.step(0)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[1, 4], [4, 4]]
    assert env.unwrapped.facts()["laps"] == 3
    assert_running(env, [0, 0, 0, 1, 0, 0, 3, 1, 5, 1, 0, 4], [21, 12], 1, [1, 1, 1, 1, 0, 1])


# --- R4: end of the round, leftovers ----------------------------------------------------------------
def test_r4_player_without_seeds_ends_the_round_and_owners_collect():
    env = start([0, 2, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0], [20, 22], 1)
    assert env.board.tolist() == [0] * 12
    assert_over(env, [26, 22], "no_legal_move", 0)
    assert env.unwrapped.facts()["fours"] == [6, 5]


def test_draw_at_24_each():
    env = start([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [24, 24], 0)
    assert_over(env, [24, 24], "no_legal_move", None)


def test_a_turn_that_empties_the_next_players_row_ends_the_round():
    # P0's single seed in pit 5 makes pit 6 hold 4 with the last seed (binikh): P1's row is empty.
    env = start([0, 0, 0, 0, 1, 1, 3, 0, 0, 0, 0, 0], [20, 23], 0)
    env.step(5)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[6, 4]]
    assert env.board.tolist() == [0] * 12
    assert_over(env, [25, 23], "no_legal_move", 0)


# --- R5: the two timings of en-passant fours ---------------------------------------------------------
def test_r5_immediate_timing():
    env = start([15, 0, 0, 3, 0, 0, 1, 1, 1, 1, 1, 1], [12, 12], 0)
    env.step(0)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[3, 4]]
    assert env.unwrapped.facts()["laps"] == 1
    assert_running(env, [1, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2], [16, 12], 1, [1, 1, 1, 1, 1, 1])


def test_r5_end_of_lap_timing():
    env = start([15, 0, 0, 3, 0, 0, 1, 1, 1, 1, 1, 1], [12, 12], 0, four_timing="end_of_lap")
    env.step(0)
    # Pit 3 reaches 4 and then 5 in the first lap and takes the last seed: relay (five relays).
    assert env.unwrapped.facts()["laps"] == 6
    assert env.unwrapped.facts()["last_move"]["captures"] == [[6, 4], [7, 4]]
    assert_running(env, [2, 3, 0, 1, 3, 0, 0, 0, 1, 3, 3, 0], [12, 20], 1, [0, 0, 1, 1, 1, 0])


# --- R6: an endless turn -------------------------------------------------------------------------------
def test_r6_endless_turn_is_detected_after_72_laps_and_quickly():
    env = start([0, 2, 1, 2, 0, 1, 0, 1, 0, 1, 0, 1], [20, 19], 0)
    began = time.perf_counter()
    env.step(3)
    assert time.perf_counter() - began < 1.0
    info = env.unwrapped.facts()
    assert info["endless_move"] is True
    assert info["laps"] == 72
    assert info["last_move"]["captures"] == []
    # Every seed was still on the board; the owners collect: P0 6, P1 3.
    assert env.board.tolist() == [0] * 12
    assert_over(env, [26, 22], "endless_move", 0)
    assert info["ply"] == 1


def test_r6_the_lap_cap_is_a_backstop():
    env = start([0, 2, 1, 2, 0, 1, 0, 1, 0, 1, 0, 1], [20, 19], 0, max_laps_per_turn=10)
    env.step(3)
    assert env.unwrapped.facts()["laps"] == 10
    assert env.unwrapped.facts()["endless_move"] is True
    # The owners collect the seeds as they lie after 10 laps.
    assert env.unwrapped.facts()["end_reason"] == "endless_move"
    assert sum(env.unwrapped.facts()["scores"]) == 48


# --- options: direction and board size -------------------------------------------------------------------
def test_clockwise_opening_mirrors_r1():
    env = start([4] * 12, [0, 0], 0, direction="cw")
    env.step(5)
    # Laps from 5, 1, 8, 3, 9; the mirror image of R1.
    assert env.unwrapped.facts()["laps"] == 5
    assert_running(env, [6, 1, 6, 1, 7, 2, 6, 6, 1, 0, 6, 6], [0, 0], 1, [1, 1, 1, 0, 1, 1])


def test_2x5_opening():
    env = start([4] * 10, [0, 0], 0, pits_per_row=5)
    env.step(0)
    # Laps from 0 (to 4), 4 (to 9), 9 (to 4, which lap 2 emptied).
    assert env.unwrapped.facts()["laps"] == 3
    assert_running(env, [1, 6, 6, 6, 1, 5, 5, 5, 5, 0], [0, 0], 1, [1, 1, 1, 1, 0])
    assert env.observe("player_1")["observation"].tolist() == [5, 5, 5, 5, 0, 1, 6, 6, 6, 1, 0, 0, 1, 0, 1]


def test_fresh_game_and_observation_layout():
    env = rio_kadalis_v0.env(first_player=0)
    env.reset(seed=0)
    assert env.board.tolist() == [4] * 12
    assert env.observe("player_0")["observation"].tolist() == [4] * 12 + [0, 0, 1, 0, 0]
    assert env.unwrapped.game.observation_names()[-5:] == [
        "own_store",
        "opponent_store",
        "is_to_move",
        "must_feed",
        "ply",
    ]


def test_game_level_repetition_ends_the_round():
    # Two single seeds run round the board, one pit per turn, each into an empty pit:
    # P0 1->2, P1 8->9, P0 2->3, P1 9->10, P0 3->4, P1 10->11, P0 4->5, P1 11->0,
    # P0 5->6, P1 6->7, P0 0->1, P1 7->8: the start position recurs with P0 to move.
    board = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    env = start(board, [23, 23], 0)
    for action in [1, 2, 2, 3, 3, 4, 4, 5, 5, 0, 0]:
        env.step(action)
    assert_running(env, [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], [23, 23], 1, [0, 1, 0, 0, 0, 0])
    env.step(1)
    assert env.board.tolist() == [0] * 12
    assert_over(env, [24, 24], "repetition", None)


def test_max_plies_truncates_the_round():
    env = start([4] * 12, [0, 0], 0, max_plies=1)
    env.step(0)
    assert env.board.tolist() == [0] * 12
    assert_over(env, [23, 25], "max_plies", 1, truncated=True)


# --- match mode -------------------------------------------------------------------------------------------
def match_info(env):
    info = env.unwrapped.facts()
    return info["round"], info["reserves"], info["closed_pits"], info["match_points"]


def test_r4_in_match_mode_refills_closes_a_pit_and_keeps_reserves():
    env = start([0, 2, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0], [20, 22], 1, match=True)
    # Round 1 ended inside reset (26-22 for P0); round 2 starts with the other player (P0).
    assert match_info(env) == (1, [2, 2], [6], [1, 0])
    assert env.unwrapped.facts()["fours"] == [6, 5]
    assert_running(env, [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4], [0, 0], 0, [1, 1, 1, 1, 1, 1])
    own_obs = env.observe("player_1")["observation"].tolist()
    #          own row            opponent row         stores to_move feed ply  own closed        opp closed    reserves
    assert own_obs == [0, 4, 4, 4, 4, 4] + [4] * 6 + [0, 0, 0, 0, 0] + [1, 0, 0, 0, 0, 0] + [0] * 6 + [2, 2]
    names = env.unwrapped.game.observation_names()
    assert len(names) == len(own_obs) and names[-2:] == ["own_reserve", "opponent_reserve"]


def test_scripted_match_over_three_rounds():
    # max_plies=1: every round after the first is one turn long, then truncated and settled.
    env = start([0, 2, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0], [20, 22], 1, match=True, max_plies=1)
    # Round 2, P0 starts; pit 6 is closed and skipped: laps 5 -> 10 -> 3 -> 9 -> 3 (was emptied).
    env.step(5)
    assert env.unwrapped.facts()["last_move"]["sown"][:4] == [7, 8, 9, 10]
    # Settled 25 + 2 (reserve) = 27 vs 19 + 2 = 21: P0 fills 6 pits, keeps 3; P1 fills 5, keeps 1.
    assert match_info(env) == (2, [3, 1], [6], [2, 0])
    assert env.unwrapped.facts()["fours"] == [6, 5]
    assert_running(env, [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4], [0, 0], 1, [0, 1, 1, 1, 1, 1])
    # Round 3, P1 starts (alternation). Closed pit 6 is not playable: action 0 is refused.
    with pytest.raises(ValueError):
        env.step(0)
    env.step(5)  # laps 11 -> 3 -> 9 -> 2 -> 9 (was emptied): P0 25 + 3 = 28, P1 19 + 1 = 20
    assert match_info(env) == (3, [4, 0], [6], [3, 0])
    assert_running(env, [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4], [0, 0], 0, [1, 1, 1, 1, 1, 1])


def test_match_lost_by_the_player_who_cannot_fill_a_pit():
    env = start([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3], [45, 0], 0, match=True)
    assert env.board.tolist() == [0] * 12
    assert_over(env, [45, 3], "cannot_refill", 0)
    assert env.unwrapped.facts()["round"] == 1


def test_match_truncated_by_max_rounds():
    env = start([4] * 12, [0, 0], 0, match=True, max_plies=1, max_rounds=2)
    env.step(0)  # R1's turn; settled 23 - 25, P1 wins round 1
    assert match_info(env) == (1, [3, 1], [0], [0, 1])
    assert_running(env, [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], [0, 0], 1, [1, 1, 1, 1, 1, 1])
    env.step(0)  # pit 6: laps 6 -> 10 -> 4 -> 9 -> 4 (was emptied), skipping closed pit 0
    # Settled 24 + 3 = 27 vs 20 + 1 = 21: P0 holds more seeds when the cap truncates the match.
    assert env.board.tolist() == [0] * 12
    assert_over(env, [27, 21], "max_rounds", 0, truncated=True)
    assert env.unwrapped.facts()["match_points"] == [1, 1]


def test_closed_pit_reopens_when_its_owner_can_fill_it_again():
    # Round 2 of R4 (P1's pit 6 closed, reserves [2, 2]); P0 plays local 0 and the ply cap ends
    # the round. P0 holds 20 + 2 (reserve) = 22: fills 5 pits, pit 0 closes, keeps 2.
    # P1 holds 24 + 2 = 26: fills all six pits, so pit 6 reopens, and keeps 2.
    env = start([0, 2, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0], [20, 22], 1, match=True, max_plies=1)
    env.step(0)
    assert match_info(env) == (2, [2, 2], [0], [1, 1])
    assert_running(env, [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], [0, 0], 1, [1, 1, 1, 1, 1, 1])


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="pits_per_row"):
        RioKadalisConfig(pits_per_row=4)
    with pytest.raises(ValueError, match="direction"):
        RioKadalisConfig(direction="left")
    with pytest.raises(ValueError, match="four_timing"):
        RioKadalisConfig(four_timing="later")
    with pytest.raises(ValueError, match="round_starter"):
        RioKadalisConfig(round_starter="loser")
    with pytest.raises(ValueError, match="max_laps_per_turn"):
        RioKadalisConfig(max_laps_per_turn=0)
    with pytest.raises(ValueError, match="match"):
        RioKadalisConfig(match=1)
