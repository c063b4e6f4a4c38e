"""Exact-position tests of Modiar (docs/rules/modiar.md), in the Pgx / OpenSpiel style.

Each test sets up a position, plays one or more moves and checks everything an
agent can see: the whole board, both stores, the mask of the player to move,
the next agent, the rewards and the end of the game. Every expected value was
worked out by hand from the rules; the stone total (42) is checked in each
position before it is used.

Board arrays are in global pit order (docs/architecture.md, common conventions, n = 3)::

    top row (P1)     5  4  3
    bottom row (P0)  0  1  2

and action ``k`` sows the mover's own local pit ``k`` (global ``player * 3 + k``).
Sowing is origin first: stone 1 goes back into the lifted pit, stones 2.. go
to ``o + 1, o + 2, ...`` (mod 6). The stores hold the captured stones.
"""

from __future__ import annotations

import numpy as np
import pytest

from mancala_envs.common.errors import IllegalActionError
from mancala_envs.envs import modiar_v0
from mancala_envs.games.modiar import Modiar, ModiarConfig

from support.position_asserts import assert_over as shared_assert_over
from support.position_asserts import assert_running as shared_assert_running
from support.position_asserts import start as start_position

TOTAL = 42


# --- helpers ---------------------------------------------------------------------------------------
def start(board, stores, player, **options):
    """A Modiar env reset to the given position (the stone total is checked first)."""
    return start_position("modiar_v0", board, stores, player, TOTAL, **options)


def opening(first_player, **options):
    env = modiar_v0.env(first_player=first_player, **options)
    env.reset(seed=0)
    return env


def assert_running(env, board, stores, to_move, mask):
    """The game goes on (see position_asserts); Modiar never passes."""
    shared_assert_running(env, board, stores, to_move, mask, passes=0)


def assert_over(env, scores, end_reason, winner, truncated=False):
    """The game is over: the board settled to the owners; a win is worth one match point."""
    assert sum(scores) == TOTAL
    match_points = [0, 0] if winner is None else [int(winner == 0), int(winner == 1)]
    shared_assert_over(env, [0] * 6, scores, end_reason, winner, match_points=match_points, truncated=truncated)


# --- M1-M7 (docs/rules/modiar.md) -------------------------------------------------------------------------
def test_m1_first_move_capture_is_forfeited():
    env = opening(0)
    assert_running(env, [7] * 6, [0, 0], 0, [1, 1, 1])
    assert env.observe("player_0")["observation"].tolist() == [7] * 6 + [0, 0, 1, 0, 0, 1]
    # Local 0 (7): stone 1 back into 0, stones 2-6 into 1..5, stone 7 into 0, which now holds 2.
    # A 2 would capture, but this is ply 0 of the game.
    env.step(0)
    assert_running(env, [2, 8, 8, 8, 8, 8], [0, 0], 1, [1, 1, 1])
    info = env.unwrapped.facts()
    assert info["ply"] == 1
    assert info["last_move"] == {"player": 0, "action": 0, "sown": [0, 1, 2, 3, 4, 5, 0], "captures": []}
    # Player 1 sees its own row (3, 4, 5) first; the first move is done.
    assert env.observe("player_1")["observation"].tolist() == [8, 8, 8, 2, 8, 8, 0, 0, 1, 0, 1, 0]


def test_m2_second_move_captures_across_rows():
    env = opening(0)
    env.step(0)  # M1
    # P1 local 2 (global 5, 8 stones): 5:1; 0:3, 1:9, 2:9, 3:9, 4:9; 5:2; 0:4 (last).
    # 0 (4) is captured, then 5 (2, P1's own pit); 4 (9) stops the chain. 6 stones.
    env.step(2)
    # P0 then: local 0 empty; local 1 (9) ends in 3 with 11, local 2 (9) in 4 with 11: no captures.
    assert_running(env, [0, 9, 9, 9, 9, 0], [0, 6], 0, [0, 1, 1])
    last = env.unwrapped.facts()["last_move"]
    assert last == {"player": 1, "action": 2, "sown": [5, 0, 1, 2, 3, 4, 5, 0], "captures": [[0, 4], [5, 2]]}


@pytest.mark.parametrize(
    ("action", "board"),
    [(0, [3, 9, 9, 2, 10, 9]), (1, [3, 9, 9, 9, 2, 10])],
)
def test_m2_other_replies_capture_nothing(action, board):
    env = opening(0)
    env.step(0)
    env.step(action)
    assert_running(env, board, [0, 0], 0, [1, 1, 1])


def test_m3_chain_takes_stones_from_both_rows():
    env = start([5, 3, 1, 3, 2, 1], [14, 13], 0)
    # A loaded position counts as after the first ply, so captures are on at ply 0.
    assert env.unwrapped.facts()["ply"] == 0
    assert env.observe("player_0")["observation"][-1] == 0  # first_move flag
    # Local 0 (5) ends in 4 with 3; local 1 is M3; local 2 is a singleton.
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1, 0]
    # Local 1 (3): 1:1, 2:2, 3:4. 3 (4) is captured, then 2 (2, P0's own); 1 (1) stops.
    env.step(1)
    # P1 [0, 2, 1]: local 1 (2) gives 4:1, 5:2 and captures its own 2 (not a grand slam).
    assert_running(env, [5, 1, 0, 0, 2, 1], [20, 13], 1, [0, 1, 0])
    assert env.unwrapped.facts()["last_move"]["captures"] == [[3, 4], [2, 2]]


def test_m4_grand_slam_move_is_masked():
    env = start([3, 0, 2, 1, 0, 0], [18, 18], 0)
    # Local 2: 2:1, 3:2, captures 2 and empties P1's row: banned. Local 1 is empty.
    assert_running(env, [3, 0, 2, 1, 0, 0], [18, 18], 0, [1, 0, 0])
    strict = start([3, 0, 2, 1, 0, 0], [18, 18], 0, illegal_action="raise")
    before = strict.unwrapped.state_array.copy()
    with pytest.raises(IllegalActionError):
        strict.step(2)
    assert np.array_equal(strict.unwrapped.state_array, before)
    # Local 0: 0:1, 1:1, 2:3, no capture. P1 is left with a single stone: no legal move, the end.
    # P0 18 + 5 = 23, P1 18 + 1 = 19.
    env.step(0)
    assert_over(env, [23, 19], "no_legal_move", 0)


def test_m5_all_around_chain_is_a_grand_slam():
    env = start([7, 1, 3, 5, 1, 3], [11, 11], 0)
    # Local 0 (7) -> [2,2,4 | 6,2,4], last stone in 0 (2); the chain 5,4,3,2,1 takes all 20. Banned.
    assert_running(env, [7, 1, 3, 5, 1, 3], [11, 11], 0, [0, 0, 1])
    # Local 2 (3): 2:1, 3:6, 4:2. 4 (2) and 3 (6) are captured; 2 (1) stops. 8 stones.
    env.step(2)
    # P1 [0, 0, 3]: local 2: 5:1, 0:8, 1:2 captures 1 (2), 0 (8) stops; P0 keeps [8,0,1]: legal.
    assert_running(env, [7, 1, 1, 0, 0, 3], [19, 11], 1, [0, 0, 1])
    assert env.unwrapped.facts()["last_move"]["captures"] == [[4, 2], [3, 6]]


def test_m6_feeding():
    env = start([2, 0, 3, 0, 0, 0], [20, 17], 0)
    assert env.observe("player_0")["observation"].tolist() == [2, 0, 3, 0, 0, 0, 20, 17, 1, 1, 0, 0]
    # Local 0 (2): 0:1, 1:1 does not reach P1. Local 2 (3): 2:1, 3:1, 4:1 does.
    assert_running(env, [2, 0, 3, 0, 0, 0], [20, 17], 0, [0, 0, 1])
    env.step(2)
    # P1 holds two singletons: no legal move. P0 20 + 3 = 23, P1 17 + 2 = 19.
    assert_over(env, [23, 19], "no_legal_move", 0)


def test_m6_without_the_end_shows_the_fed_board():
    env = start([2, 0, 3, 0, 0, 0], [20, 17], 0)
    env.step(2)
    # The board is settled at the end; the last move's record shows where the stones went.
    assert env.unwrapped.facts()["last_move"] == {"player": 0, "action": 2, "sown": [2, 3, 4], "captures": []}


def test_m7_only_singletons_ends_the_game_in_reset():
    env = start([1, 0, 1, 3, 2, 0], [17, 18], 0)
    # P0 17 + 2 = 19, P1 18 + 5 = 23.
    assert_over(env, [19, 23], "no_legal_move", 1)


# --- first-ply forfeiture ----------------------------------------------------------------------------
def test_forfeiture_applies_to_ply_zero_only_when_player_1_starts():
    env = opening(1)
    # P1 local 0 (global 3, 7): 3:1, 4..5, 0..2 to 8, stone 7 into 3 (2): forfeited.
    env.step(0)
    assert_running(env, [8, 8, 8, 2, 8, 8], [0, 0], 0, [1, 1, 1])
    # P0 local 2 (global 2, 8): 2:1, 3:3, 4:9, 5:9, 0:9, 1:9, 2:2, 3:4 (last). 3 (4) and 2 (2)
    # are captured, 1 (9) stops: P0's own first move, but ply 1 of the game, captures.
    env.step(2)
    assert_running(env, [9, 9, 0, 0, 9, 9], [6, 0], 1, [0, 1, 1])


def test_first_move_flag_in_the_observation():
    env = opening(0)
    assert env.unwrapped.game.observation_names()[-1] == "first_move"
    assert env.observe("player_1")["observation"][-1] == 1
    env.step(1)
    assert env.observe("player_0")["observation"][-1] == 0
    assert env.observe("player_1")["observation"][-1] == 0


# --- feeding and the grand-slam ban ------------------------------------------------------------------
def test_feeding_fallback_when_no_move_can_feed():
    env = start([2, 2, 0, 0, 0, 0], [19, 19], 0)
    # Local 0 (2): 0:1, 1:3. Local 1 (2): 1:1, 2:1. Neither reaches P1, so both stay legal.
    assert_running(env, [2, 2, 0, 0, 0, 0], [19, 19], 0, [1, 1, 0])
    env.step(1)
    # P1 has nothing: no legal move. P0 19 + 4 = 23, P1 19.
    assert_over(env, [23, 19], "no_legal_move", 0)


def test_feeding_with_a_capture_that_leaves_stones_is_legal():
    env = start([0, 2, 9, 0, 0, 0], [15, 16], 0)
    # Local 1 (2): 1:1, 2:10 does not feed. Local 2 (9): 2:1, 3:1, 4:1, 5:1, 0:1, 1:3, 2:2, 3:2, 4:2.
    # 4 (2), 3 (2), 2 (2) are captured, 1 (3) stops: P1 keeps 1 stone in 5, so it feeds.
    assert_running(env, [0, 2, 9, 0, 0, 0], [15, 16], 0, [0, 0, 1])
    env.step(2)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[4, 2], [3, 2], [2, 2]]
    # [1, 3, 0 | 0, 0, 1], stores [21, 16]; P1 has one singleton: the end. 21 + 4 = 25, 16 + 1 = 17.
    assert_over(env, [25, 17], "no_legal_move", 0)


def test_feeding_stones_and_capturing_them_all_is_a_banned_grand_slam():
    env = start([0, 2, 10, 0, 0, 0], [15, 15], 0)
    # Local 2 (10): 2:1, 3:1, 4:1, 5:1, 0:1, 1:3, 2:2, 3:2, 4:2, 5:2. 5, 4, 3 and 2 (2 each) are
    # captured, 1 (3) stops: the 6 stones fed to P1 are all taken back. Banned by rule 5, so
    # no move can feed and the non-feeding local 1 (1:1, 2:11) is the only legal move.
    assert_running(env, [0, 2, 10, 0, 0, 0], [15, 15], 0, [0, 1, 0])
    env.step(1)
    # P1 is empty: no legal move. P0 15 + 12 = 27, P1 15.
    assert_over(env, [27, 15], "no_legal_move", 0)


def test_player_1_must_feed_player_0():
    # P1 to move, P0 empty: the feeding rule; P1's local 0 (global 3, 4): 3:1, 4:2, 5:2, 0:1.
    # 0 ends with 1: no capture, P0 is fed. Local 1 (global 4, 1) is a singleton.
    env = start([0, 0, 0, 4, 1, 1], [18, 18], 1)
    assert_running(env, [0, 0, 0, 4, 1, 1], [18, 18], 1, [1, 0, 0])
    env.step(0)
    # P0 [1, 0, 0]: a single stone, no legal move. P0 18 + 1 = 19, P1 18 + 5 = 23.
    assert_over(env, [19, 23], "no_legal_move", 1)


def test_no_move_while_the_opponent_is_empty_reports_no_feeding_move():
    # P0 has only singletons and P1's row is empty: the shared check_end names it no_feeding_move.
    env = start([1, 1, 1, 0, 0, 0], [20, 19], 0)
    assert_over(env, [23, 19], "no_feeding_move", 0)


# --- singletons --------------------------------------------------------------------------------------
def test_singletons_are_never_movable():
    env = start([1, 1, 2, 1, 1, 1], [18, 17], 0, illegal_action="raise")
    # Local 2 (2): 2:1, 3:2 captures 3 (2); 2 (1) stops. P1 keeps 2 stones: legal.
    assert env.observe("player_0")["action_mask"].tolist() == [0, 0, 1]
    before = env.unwrapped.state_array.copy()
    for action in (0, 1):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert np.array_equal(env.unwrapped.state_array, before)


def test_singleton_under_the_penalty_policy_loses():
    env = start([1, 1, 2, 1, 1, 1], [18, 17], 0)
    with pytest.warns(UserWarning):
        env.step(0)
    assert env.unwrapped.facts()["end_reason"] == "illegal_action"
    assert env.rewards == {"player_0": -1, "player_1": 0}


# --- other ends --------------------------------------------------------------------------------------
CYCLE = [2, 2, 1, 1, 0, 0]


def test_repetition_ends_the_game_in_a_draw():
    env = start([1, 2, 3, 1, 2, 3], [15, 15], 0)
    # Local 1 (2): 1:1, 2:4 would capture 2 (4); local 2 (3) ends in 4 with 3. Both legal.
    assert_running(env, [1, 2, 3, 1, 2, 3], [15, 15], 0, [0, 1, 1])
    # Every move below sows 3 stones and ends on a 3: no capture.
    #   P0 2: [1,2,1 | 2,3,3]   P1 2: [2,3,1 | 2,3,1]   P0 1: [2,1,2 | 3,3,1]
    #   P1 1: [3,1,2 | 3,1,2]   P0 0: [1,2,3 | 3,1,2]   P1 0: [1,2,3 | 1,2,3], P0 to move again.
    boards = [
        [1, 2, 1, 2, 3, 3],
        [2, 3, 1, 2, 3, 1],
        [2, 1, 2, 3, 3, 1],
        [3, 1, 2, 3, 1, 2],
        [1, 2, 3, 3, 1, 2],
    ]
    for ply, action in enumerate(CYCLE[:-1]):
        env.step(action)
        assert env.board.tolist() == boards[ply]
        assert env.stores.tolist() == [15, 15]
        assert env.agents
    env.step(CYCLE[-1])
    # The start position recurs: owners collect 6 each, 21-21.
    assert_over(env, [21, 21], "repetition", None)
    assert env.unwrapped.facts()["ply"] == 6


def test_without_repetition_the_cycle_goes_on():
    env = start([1, 2, 3, 1, 2, 3], [16, 14], 0, repetition=False)
    for action in CYCLE:
        env.step(action)
    assert_running(env, [1, 2, 3, 1, 2, 3], [16, 14], 0, [0, 1, 1])


def test_cycle_until_the_ply_cap():
    env = start([1, 2, 3, 1, 2, 3], [16, 14], 0, repetition=False, max_plies=6)
    for action in CYCLE:
        env.step(action)
    # Truncated: P0 16 + 6 = 22, P1 14 + 6 = 20.
    assert_over(env, [22, 20], "max_plies", 0, truncated=True)


def test_max_plies_truncates_the_opening():
    env = opening(0, max_plies=2)
    env.step(0)  # M1
    env.step(0)  # P1 local 0: [3, 9, 9 | 2, 10, 9], no capture
    # Owners collect 21 each: a truncated draw.
    assert_over(env, [21, 21], "max_plies", None, truncated=True)


def test_third_ply_from_the_opening():
    env = opening(0)
    env.step(0)  # M1
    env.step(2)  # M2: [0, 9, 9 | 9, 9, 0], stores [0, 6]
    # P0 local 2 (9): 2:1, 3:10, 4:10, 5:1, 0:1, 1:10, 2:2, 3:11, 4:11 -> ends on 11, no capture.
    env.step(2)
    assert_running(env, [1, 10, 2, 11, 11, 1], [0, 6], 1, [1, 1, 0])


# --- configuration -----------------------------------------------------------------------------------
def test_config_is_checked():
    with pytest.raises(ValueError, match="max_plies"):
        ModiarConfig(max_plies=0)
    with pytest.raises(ValueError, match="repetition"):
        ModiarConfig(repetition=1)
    with pytest.raises(TypeError, match="no option"):
        modiar_v0.env(pits_per_row=6)
    with pytest.raises(ValueError, match="42"):
        start_env = modiar_v0.env()
        start_env.reset(options={"board": [7] * 6, "stores": [1, 0]})


def test_spaces_and_names():
    env = modiar_v0.env()
    game = env.unwrapped.game
    assert isinstance(game, Modiar)
    assert game.env_name == "modiar_v0"
    assert env.action_space("player_0").n == 3
    assert env.observation_space("player_0")["observation"].shape == (12,)
    assert len(game.observation_names()) == 12
    low, high = game.observation_bounds()
    assert low.tolist() == [0] * 12
    assert high.tolist() == [42] * 8 + [1, 1, 1000, 1]
