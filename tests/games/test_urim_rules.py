"""Exact-position tests of Urim (docs/rules/urim.md), in the Pgx / OpenSpiel style.

Each test sets up a position, plays one or more moves and checks everything an
agent can see: the whole board, both stores, the mask of the player to move,
the next agent, the rewards, the match points and the end of the game. Every
expected value was worked out by hand from the rules; the seed total T of each
hand-made position is checked before it is used.

Board arrays are in global pit order (docs/architecture.md, common conventions); on 2x6::

    top row (P1)    11 10  9  8  7  6
    bottom row (P0)  0  1  2  3  4  5

and action ``k`` sows the mover's own local pit ``k`` (global ``player * n + k``).
"""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.engine.state import OK
from mancala_envs.engine.trace import new_trace, read_trace
from mancala_envs.games.urim import Urim, UrimConfig

from support.position_asserts import AGENTS, assert_over, assert_running
from support.position_asserts import start as start_position


# --- helpers ---------------------------------------------------------------------------------------
def total_seeds(options):
    return 2 * options.get("pits_per_row", 6) * options.get("seeds_per_pit", 3)


def start(board, stores, player, **options):
    """A Urim env reset to the given position (the seed total is checked first)."""
    return start_position("urim_v0", board, stores, player, total_seeds(options), **options)


# --- U1-U8 (docs/rules/urim.md) -------------------------------------------------------------------------
def test_u1_opening_a_final_four_does_not_capture():
    env = mancala_envs.make("urim_v0", first_player=0)
    env.reset(seed=0)
    assert_running(env, [3] * 12, [0, 0], 0, [1, 1, 1, 1, 1, 1])
    env.step(5)
    assert env.unwrapped.facts()["last_move"] == {"player": 0, "action": 5, "sown": [6, 7, 8], "captures": []}
    assert_running(env, [3, 3, 3, 3, 3, 0, 4, 4, 4, 3, 3, 3], [0, 0], 1, [1, 1, 1, 1, 1, 1])
    observation = env.observe("player_1")["observation"].tolist()
    assert observation == [4, 4, 4, 3, 3, 3] + [3, 3, 3, 3, 3, 0] + [0, 0, 1, 0, 1]


def test_u2_trigger_on_three_then_chain_through_a_four():
    env = start([2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], [8, 7], 0)
    # Local 5 (4 seeds): 6 1->2, 7 3->4, 8 1->2, 9 2->3. Pit 9 triggers; 8 (2), 7 (4), 6 (2) follow;
    # pit 5 is player 0's own. 3 + 2 + 4 + 2 = 11, and pit 10 keeps player 1's row non-empty.
    env.step(5)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[9, 3], [8, 2], [7, 4], [6, 2]]
    assert_running(env, [2, 1, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0], [19, 7], 1, [0, 0, 0, 0, 1, 0])


def test_u3_full_pit_and_origin_skipped_then_capture():
    env = start([15, 0, 0, 17, 0, 0, 1, 0, 0, 1, 2, 0], [0, 0], 0)
    env.step(0)
    # 15 seeds: 1, 2, (3 full), 4..11, (0 origin), 1, 2, (3 full), 4, 5, 6. Pit 6 ends with 3.
    assert env.unwrapped.facts()["last_move"]["sown"] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2, 4, 5, 6]
    assert env.unwrapped.facts()["last_move"]["captures"] == [[6, 3]]
    assert_running(env, [0, 2, 2, 17, 2, 2, 0, 1, 1, 2, 3, 1], [3, 0], 1, [0, 1, 1, 1, 1, 1])


U4_BOARD = [3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0]


def test_u4_grand_slam_captures_nothing_by_default():
    env = start(U4_BOARD, [12, 11], 0)
    assert_running(env, U4_BOARD, [12, 11], 0, [1, 1, 0, 1, 1, 0])
    env.step(4)  # 5 0->1, 6 1->2, 7 1->2: pits 7 and 6 would empty player 1's row
    assert env.unwrapped.facts()["last_move"]["captures"] == []
    assert_running(env, [3, 3, 0, 2, 0, 1, 2, 2, 0, 0, 0, 0], [12, 11], 1, [1, 1, 0, 0, 0, 0])


def test_u4_with_grand_slam_forbidden_masks_the_move():
    env = start(U4_BOARD, [12, 11], 0, grand_slam="forbidden")
    assert_running(env, U4_BOARD, [12, 11], 0, [1, 1, 0, 1, 0, 0])


def test_u4_with_grand_slam_allowed_captures_then_the_victim_passes():
    env = start(U4_BOARD, [12, 11], 0, grand_slam="allowed")
    env.step(4)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[7, 2], [6, 2]]
    # Player 1 has no seeds and passes; player 0 moves again and must feed: only local 5 reaches pit 6.
    assert_running(env, [3, 3, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0], [16, 11], 0, [0, 0, 0, 0, 0, 1], passes=1)
    env.step(5)
    assert_running(env, [3, 3, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0], [16, 11], 1, [1, 0, 0, 0, 0, 0], passes=0)


def test_u5_feeding_mask():
    board = [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]
    env = start(board, [20, 13], 0)
    # Local 0 only reaches pit 1; local 4 reaches pits 5 and 6.
    assert_running(env, board, [20, 13], 0, [0, 0, 0, 0, 1, 0])
    assert env.observe("player_0")["observation"].tolist() == [1, 0, 0, 0, 2, 0] + [0] * 6 + [20, 13, 1, 1, 0]
    env.step(4)
    assert_running(env, [1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0], [20, 13], 1, [1, 0, 0, 0, 0, 0])


def test_u6_no_feeding_move_ends_the_game_with_two_points():
    # Local 0 reaches pit 1, local 3 reaches 4 and 5: no feed. Player 0 keeps its 3 seeds: 27 - 9.
    env = start([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [24, 9], 0)
    assert_over(env, [0] * 12, [27, 9], "no_feeding_move", 0, [2, 0])


def test_u6_with_match_point_rewards():
    env = start([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [24, 9], 0, reward_mode="match_points")
    assert_over(env, [0] * 12, [27, 9], "no_feeding_move", 0, [2, 0], rewards=[2, -2])


def test_u7_forced_cycle_ends_by_repetition_after_12_plies():
    env = start([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], [17, 17], 0)
    assert_running(env, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], [17, 17], 0, [0, 0, 0, 0, 0, 1])
    plies = [
        # (action, board after the ply, mask of the next player)
        # Player 0's row is now empty: player 1 must feed, with pit 11, not pit 6.
        (5, [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]),
        (5, [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]),
        (0, [0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]),
        (0, [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]),
        (1, [0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]),
        (1, [0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0]),
        (2, [0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0]),
        (2, [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0]),
        (3, [0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0]),
        (3, [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 1, 0]),
        (4, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 1, 0]),
    ]
    for ply, (action, board, mask) in enumerate(plies, start=1):
        env.step(action)
        assert_running(env, board, [17, 17], ply % 2, mask)
        assert env.unwrapped.facts()["ply"] == ply
    env.step(4)  # ply 12: pit 10 -> 11 recreates the start position with player 0 to move
    assert env.unwrapped.facts()["ply"] == 12
    assert_over(env, [0] * 12, [18, 18], "repetition", None, [0, 0])


def test_u8_opening_on_2x7():
    env = mancala_envs.make("urim_v0", pits_per_row=7, first_player=0)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 7
    assert env.observation_space("player_0")["observation"].shape == (19,)
    assert_running(env, [3] * 14, [0, 0], 0, [1] * 7)
    env.step(6)
    assert env.unwrapped.facts()["last_move"]["sown"] == [7, 8, 9]
    assert_running(env, [3, 3, 3, 3, 3, 3, 0, 4, 4, 4, 3, 3, 3, 3], [0, 0], 1, [1] * 7)


# --- pit capacity --------------------------------------------------------------------------------
CAPACITY_BOARD = [17, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 17]


def test_full_pit_is_skipped_on_every_pass():
    env = start(CAPACITY_BOARD, [0, 0], 1)
    # Player 1 sows its 17 seeds from pit 11: 1..10, (11 origin), (0 full), 1..7. Pit 0 stays at 17;
    # the last seed lands in player 1's own pit 7.
    env.step(5)
    assert env.unwrapped.facts()["last_move"]["sown"] == list(range(1, 11)) + list(range(1, 8))
    assert_running(env, [17, 3, 2, 2, 2, 2, 2, 2, 1, 1, 2, 0], [0, 0], 0, [1, 1, 1, 1, 1, 1])


def test_without_capacity_the_same_move_overfills_and_captures():
    env = start(CAPACITY_BOARD, [0, 0], 1, pit_capacity=None)
    # Now pit 0 takes seeds 1 and 12: 0..10, (11 origin), 0..5. Pit 5 ends with 2 and triggers;
    # 4, 3, 2 (2 each) and 1 (3) follow; pit 0 (19) stops the chain. 2+2+2+2+3 = 11 seeds.
    env.step(5)
    assert env.unwrapped.facts()["last_move"]["sown"] == list(range(11)) + list(range(6))
    assert env.unwrapped.facts()["last_move"]["captures"] == [[5, 2], [4, 2], [3, 2], [2, 2], [1, 3]]
    assert_running(env, [19, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 0], [0, 11], 0, [1, 0, 0, 0, 0, 0])


@pytest.mark.parametrize(
    ("seeds_per_pit", "board"),
    [
        (3, [17, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 17]),
        (4, [17, 17, 1, 0, 0, 0, 0, 0, 0, 0, 0, 13]),
    ],
)
def test_no_pit_ever_exceeds_17_in_long_random_games(seeds_per_pit, board):
    game = Urim(UrimConfig(seeds_per_pit=seeds_per_pit))
    total = 12 * seeds_per_pit
    rng = np.random.default_rng(1234)
    trace = new_trace()
    full_pits_skipped = 0
    for game_number in range(40):
        state = game.new_state(0)
        game.load_position(state, board, [0, 0], game_number % 2)
        while game.info(state)["end_reason"] is None:
            before = game.board(state)
            stores_before = game.stores(state)
            mover = game.info(state)["player_to_move"]
            action = int(rng.choice(np.flatnonzero(game.legal_mask(state))))
            assert game.step(state, action, trace) == OK
            after = game.board(state)
            assert after.max() <= 17
            assert after.sum() + game.stores(state).sum() == total
            # Replay the recorded lap: every pit it jumps over, other than its origin, holds 17 at
            # that moment; no pit goes past 17; the captures then give the board reported.
            origin = mover * 6 + action
            sown, captures = read_trace(trace)
            replay = before.copy()
            replay[origin] = 0
            pit = origin
            for target in sown:
                pit = (pit + 1) % 12
                while pit != target:
                    if pit != origin:
                        assert replay[pit] == 17
                        full_pits_skipped += 1
                    pit = (pit + 1) % 12
                replay[target] += 1
                assert replay[target] <= 17
            gained = [0, 0]
            for captured_pit, seeds in captures:
                assert replay[captured_pit] == seeds
                replay[captured_pit] = 0
                gained[mover] += seeds
            if game.info(state)["end_reason"] is None:
                assert replay.tolist() == after.tolist()
            else:  # the game ended after this ply: the owners collected the seeds on the board
                assert after.tolist() == [0] * 12
                gained[0] += int(replay[:6].sum())
                gained[1] += int(replay[6:].sum())
            assert (game.stores(state) - stores_before).tolist() == gained
    assert full_pits_skipped > 0  # the games really did meet full pits


# --- trigger and chain ----------------------------------------------------------------------------
# U2's move sows [2,1,0,3,0,0, 2,4,2,3,4,0]; what is then captured depends on the two count sets.
@pytest.mark.parametrize(
    ("options", "board", "stores", "mask"),
    [
        ({}, [2, 1, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0], [19, 7], [0, 0, 0, 0, 1, 0]),
        ({"trigger": (2, 3, 4), "chain": (2, 3, 4)}, [2, 1, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0], [19, 7], [0, 0, 0, 0, 1, 0]),
        # Ouril-like chain: pit 7 (4) stops it after 9 and 8.
        ({"chain": (2, 3)}, [2, 1, 0, 3, 0, 0, 2, 4, 0, 0, 4, 0], [13, 7], [1, 1, 0, 0, 1, 0]),
        # Only 4 triggers: pit 9 ends with 3, nothing is captured.
        ({"trigger": (4,)}, [2, 1, 0, 3, 0, 0, 2, 4, 2, 3, 4, 0], [8, 7], [1, 1, 1, 1, 1, 0]),
        # 3 triggers, but only 4s chain: pit 8 (2) stops the chain at once.
        ({"trigger": (3,), "chain": (4,)}, [2, 1, 0, 3, 0, 0, 2, 4, 2, 0, 4, 0], [11, 7], [1, 1, 1, 0, 1, 0]),
    ],
)
def test_trigger_and_chain_sets_on_u2(options, board, stores, mask):
    env = start([2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], [8, 7], 0, **options)
    env.step(5)
    assert_running(env, board, stores, 1, mask)


def test_trigger_on_four_captures_the_u1_opening():
    # With 4 in the trigger set, U1's last seed (pit 8 -> 4) triggers; 7 (4) and 6 (4) follow.
    env = mancala_envs.make("urim_v0", trigger=(2, 3, 4), first_player=0)
    env.reset(seed=0)
    env.step(5)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[8, 4], [7, 4], [6, 4]]
    assert_running(env, [3, 3, 3, 3, 3, 0, 0, 0, 0, 3, 3, 3], [12, 0], 1, [0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("field", ["trigger", "chain"])
@pytest.mark.parametrize("value", [(), (0,), "23"])
def test_bad_count_sets_are_rejected(field, value):
    with pytest.raises(ValueError):
        mancala_envs.make("urim_v0", **{field: value})


# --- final score and match points ------------------------------------------------------------------
# Player 0 to move with [1,0,0,2,0,0 | empty]: it cannot feed, keeps its 3 seeds, and the game ends.
@pytest.mark.parametrize(
    ("options", "store0", "scores", "points", "winner"),
    [
        # T = 36: 2 points from 27, 1 point for 19..26.
        ({}, 24, [27, 9], [2, 0], 0),
        ({}, 23, [26, 10], [1, 0], 0),
        ({}, 16, [19, 17], [1, 0], 0),
        ({}, 15, [18, 18], [0, 0], None),
        ({}, 7, [10, 26], [0, 1], 1),
        ({}, 0, [3, 33], [0, 2], 1),
        # T = 48: 2 points from 36, 1 point for 25..35.
        ({"seeds_per_pit": 4}, 33, [36, 12], [2, 0], 0),
        ({"seeds_per_pit": 4}, 32, [35, 13], [1, 0], 0),
        ({"seeds_per_pit": 4}, 22, [25, 23], [1, 0], 0),
        ({"seeds_per_pit": 4}, 21, [24, 24], [0, 0], None),
        ({"seeds_per_pit": 4}, 20, [23, 25], [0, 1], 1),
        ({"seeds_per_pit": 4}, 9, [12, 36], [0, 2], 1),
    ],
)
def test_match_points_thresholds_on_2x6(options, store0, scores, points, winner):
    total = total_seeds(options)
    env = start([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [store0, total - 3 - store0], 0, **options)
    assert_over(env, [0] * 12, scores, "no_feeding_move", winner, points)


@pytest.mark.parametrize(
    ("seeds_per_pit", "store0", "scores", "points", "winner"),
    [
        # T = 42: 2 points from 32, 1 point for 22..31.
        (3, 29, [32, 10], [2, 0], 0),
        (3, 28, [31, 11], [1, 0], 0),
        (3, 19, [22, 20], [1, 0], 0),
        (3, 18, [21, 21], [0, 0], None),
        # T = 56: 2 points from 42, 1 point for 29..41.
        (4, 39, [42, 14], [2, 0], 0),
        (4, 38, [41, 15], [1, 0], 0),
        (4, 25, [28, 28], [0, 0], None),
    ],
)
def test_match_points_thresholds_on_2x7(seeds_per_pit, store0, scores, points, winner):
    total = 14 * seeds_per_pit
    # Local 3 (2 seeds) reaches pits 4 and 5; pit 6 is still player 0's on 2x7.
    board = [1, 0, 0, 2, 0, 0, 0] + [0] * 7
    env = start(board, [store0, total - 3 - store0], 0, pits_per_row=7, seeds_per_pit=seeds_per_pit)
    assert_over(env, [0] * 14, scores, "no_feeding_move", winner, points)


@pytest.mark.parametrize(
    ("points_three_quarters", "store0", "points"),
    [(1, 24, [1, 0]), (2, 24, [2, 0]), (3, 24, [3, 0]), (3, 23, [1, 0])],
)
def test_points_three_quarters(points_three_quarters, store0, points):
    board = [1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]
    stores = [store0, 33 - store0]
    scores = [store0 + 3, 33 - store0]
    env = start(board, stores, 0, points_three_quarters=points_three_quarters)
    assert_over(env, [0] * 12, scores, "no_feeding_move", 0, points)
    env = start(board, stores, 0, points_three_quarters=points_three_quarters, reward_mode="match_points")
    assert_over(env, [0] * 12, scores, "no_feeding_move", 0, points, rewards=[points[0], -points[0]])


@pytest.mark.parametrize(
    ("store0", "rewards"),
    [(24, [2, -2]), (23, [1, -1]), (15, [0, 0]), (0, [-2, 2])],
)
def test_reward_mode_match_points(store0, rewards):
    env = start([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [store0, 33 - store0], 0, reward_mode="match_points")
    assert env.rewards == {"player_0": rewards[0], "player_1": rewards[1]}
    assert env.terminations == {"player_0": True, "player_1": True}


# --- match mode -----------------------------------------------------------------------------------
# With max_plies=1 every game of the match is one ply long, then settled (owners collect):
#   P0 local 5 -> [3,3,3,3,3,0 | 4,4,4,3,3,3]: 15 - 21, player 1 scores 1 point.
#   P1 local 5 -> [4,4,4,3,3,3 | 3,3,3,3,3,0]: 21 - 15, player 0 scores 1 point.
#   P0 local 0 -> [0,4,4,4,3,3 | 3,3,3,3,3,3]: 18 - 18, no points.
#   P1 local 0 -> [3,3,3,3,3,3 | 0,4,4,4,3,3]: 18 - 18, no points.
def assert_new_game(env, starter, match_points, games_played):
    assert_running(env, [3] * 12, [0, 0], starter, [1] * 6)
    info = env.unwrapped.facts()
    assert info["match_points"] == match_points
    assert info["games_played"] == games_played
    assert info["ply"] == 0
    own, other = match_points[starter], match_points[1 - starter]
    assert env.observe(AGENTS[starter])["observation"].tolist() == [3] * 12 + [0, 0, 1, 0, 0, own, other]


@pytest.mark.parametrize("reward_mode", ["win_loss", "match_points"])
def test_match_games_follow_one_another_until_the_target(reward_mode):
    env = mancala_envs.make("urim_v0", match_target=2, max_plies=1, first_player=0, reward_mode=reward_mode)
    env.reset(seed=0)
    assert env.observation_space("player_0")["observation"].shape == (19,)
    assert_new_game(env, 0, [0, 0], 0)
    env.step(5)  # game 1 (player 0 started): 15 - 21
    assert env.unwrapped.facts()["last_move"]["sown"] == [6, 7, 8]
    assert_new_game(env, 1, [0, 1], 1)
    env.step(5)  # game 2 (player 1 started): 21 - 15
    assert_new_game(env, 0, [1, 1], 2)
    env.step(0)  # game 3 (player 0 started): 18 - 18
    assert_new_game(env, 1, [1, 1], 3)
    env.step(5)  # game 4 (player 1 started): 21 - 15, player 0 reaches 2 match points
    rewards = [1, -1]  # 2 - 1 match points, or a plain win
    assert_over(env, [0] * 12, [21, 15], "match_target", 0, [2, 1], rewards=rewards)
    assert env.unwrapped.facts()["games_played"] == 4


def test_match_max_games_truncates():
    env = mancala_envs.make("urim_v0", match_target=10, max_games=2, max_plies=1, first_player=0)
    env.reset(seed=0)
    env.step(5)  # game 1: 15 - 21, player 1 scores 1
    assert_new_game(env, 1, [0, 1], 1)
    env.step(0)  # game 2: 18 - 18; two games played, nobody has 10: the match is truncated
    assert_over(env, [0] * 12, [18, 18], "max_games", 1, [0, 1], truncated=True)
    assert env.unwrapped.facts()["games_played"] == 2


def test_match_game_decided_by_play_scores_its_points():
    # First game from a position: player 0 sows its last seed into pit 6 (no capture); player 1 then
    # cannot feed (its singletons reach 7 and 10), keeps its 2 seeds: 20 - 16, 1 point to player 0.
    env = start([0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0], [20, 14], 0, match_target=3)
    env.step(5)
    assert_new_game(env, 1, [1, 0], 1)


def test_match_position_without_a_legal_move_counts_as_a_finished_game():
    # U6 in a one-point match: the loaded game is over at once (27 - 9, 2 points), so the match is won.
    env = start([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [24, 9], 0, match_target=1)
    assert_over(env, [0] * 12, [27, 9], "match_target", 0, [2, 0])
    assert env.unwrapped.facts()["games_played"] == 1
