"""Exact-position tests of Ouril (docs/rules/ouril.md), in the Pgx / OpenSpiel style.

Each test sets up a position, plays one or more moves and checks everything an
agent can see: the whole board, both stores, the mask of the player to move,
the next agent, the rewards and the end of the game. Every expected value was
worked out by hand from the rules; the seed totals (48 on 2x6, 32 on 2x4) are
checked in each position before it is used.

Board arrays are in global pit order (docs/architecture.md, common conventions)::

    top row (P1)    11 10  9  8  7  6
    bottom row (P0)  0  1  2  3  4  5

and action ``k`` sows the mover's own local pit ``k`` (global ``player * n + k``).
"""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.engine.trace import new_trace
from mancala_envs.games.ouril import Ouril, OurilConfig

from support.position_asserts import assert_over, assert_running
from support.position_asserts import start as start_position


# --- helpers ---------------------------------------------------------------------------------------
def start(board, stores, player, **options):
    """An Ouril env reset to the given position (the seed total is checked first)."""
    total = 2 * options.get("pits_per_row", 6) * 4
    return start_position("ouril_v0", board, stores, player, total, **options)


# --- O1-O5 (docs/rules/ouril.md) -------------------------------------------------------------------------
def test_o1_opening_move_without_capture():
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0)
    assert_running(env, [4] * 12, [0, 0], 0, [1, 1, 1, 1, 1, 1])
    # Local 2 holds 4 seeds: they go to 3, 4, 5 and 6; pit 6 ends with 5, not a capture count.
    env.step(2)
    assert_running(env, [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4], [0, 0], 1, [1, 1, 1, 1, 1, 1])
    info = env.unwrapped.facts()
    assert info["ply"] == 1
    assert info["last_move"] == {"player": 0, "action": 2, "sown": [3, 4, 5, 6], "captures": []}
    # Player 1 sees its own row (global 6..11) first, then player 0's row.
    observation = env.observe("player_1")["observation"].tolist()
    assert observation == [5, 4, 4, 4, 4, 4] + [4, 4, 0, 5, 5, 5] + [0, 0, 1, 0, 1]


def test_o2_capture_chain_stops_at_a_four():
    env = start([6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0], [10, 9], 0)
    # Local 5 (4 seeds): 6 3->4, 7 1->2, 8 1->2, 9 2->3. Pit 9 (3) triggers; 8 (2) and 7 (2)
    # follow; pit 6 now holds 4, which ends the chain. 3 + 2 + 2 = 7 seeds.
    env.step(5)
    assert_running(env, [6, 2, 0, 4, 1, 0, 4, 0, 0, 0, 5, 0], [17, 9], 1, [1, 0, 0, 0, 1, 0])
    assert env.unwrapped.facts()["last_move"]["sown"] == [6, 7, 8, 9]
    assert env.unwrapped.facts()["last_move"]["captures"] == [[9, 3], [8, 2], [7, 2]]


def test_o2_same_position_under_urim_rules_also_takes_the_four():
    # The note under O2: Urim chains through 2, 3 and 4, so pit 6 (4) is taken as well.
    # The position holds 48 seeds, which is Urim with 4 seeds per pit.
    env = mancala_envs.make("urim_v0", seeds_per_pit=4, first_player=0)
    env.reset(options={"board": [6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0], "stores": [10, 9], "player": 0})
    env.step(5)
    assert env.board.tolist() == [6, 2, 0, 4, 1, 0, 0, 0, 0, 0, 5, 0]
    assert env.stores.tolist() == [21, 9]
    assert env.unwrapped.facts()["last_move"]["captures"] == [[9, 3], [8, 2], [7, 2], [6, 4]]
    assert env.agent_selection == "player_1"
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0, 0, 0, 1, 0]


@pytest.mark.parametrize("skip_origin", ["always", "first_circuit_only"])
def test_o3_sixteen_seeds_skip_the_origin(skip_origin):
    # With 12..22 seeds the lap passes its origin once, so both skip rules agree.
    env = start([2, 16, 0, 1, 0, 3, 1, 0, 2, 0, 0, 4], [10, 9], 0, skip_origin=skip_origin)
    env.step(1)
    assert env.unwrapped.facts()["last_move"]["sown"] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 2, 3, 4, 5, 6]
    # The last seed makes pit 6 hold 3: captured; pit 5 is player 0's own, so the chain stops.
    assert env.unwrapped.facts()["last_move"]["captures"] == [[6, 3]]
    assert_running(env, [3, 0, 2, 3, 2, 5, 0, 1, 3, 1, 1, 5], [13, 9], 1, [0, 1, 1, 1, 1, 1])


@pytest.mark.parametrize(
    ("board", "stores", "player", "scores", "winner"),
    [
        # O4 as written: player 0 cannot reach player 1's empty row and keeps its 4 seeds.
        ([3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], [22, 22], 0, [26, 22], 0),
        # The mirror image: player 1 cannot feed and keeps its own 4 seeds.
        ([0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0], [22, 22], 1, [22, 26], 1),
    ],
)
def test_o4_no_feeding_move_ends_the_game(board, stores, player, scores, winner):
    env = start(board, stores, player)
    assert_over(env, [0] * 12, scores, "no_feeding_move", winner)


def test_no_feeding_move_after_a_move_gives_the_stuck_player_its_seeds():
    # Player 0 sows its last seed into pit 6 (0 -> 1, no capture). Player 1 must now feed, but its
    # two singletons only reach pits 7 and 10, so the game ends; player 1 keeps both seeds.
    env = start([0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0], [23, 23], 0)
    assert_running(env, [0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0], [23, 23], 0, [0, 0, 0, 0, 0, 1])
    env.step(5)
    assert_over(env, [0] * 12, [23, 25], "no_feeding_move", 1)


def test_o5_grand_slam_allowed_then_pass_then_forced_feeding():
    board = [3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0]
    env = start(board, [17, 18], 0)
    assert_running(env, board, [17, 18], 0, [1, 1, 0, 1, 1, 0])
    # Local 4: 5 0->1, 6 1->2, 7 1->2. Pit 7 (2) and pit 6 (2) are captured: player 1's row is empty.
    env.step(4)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[7, 2], [6, 2]]
    # Player 1 passes automatically, so player 0 is asked again and must feed: only local 5
    # (one seed into pit 6) reaches player 1's row.
    assert_running(env, [3, 3, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0], [21, 18], 0, [0, 0, 0, 0, 0, 1], passes=1)
    assert env.unwrapped.facts()["ply"] == 1
    mover = env.observe("player_0")["observation"].tolist()
    victim = env.observe("player_1")["observation"].tolist()
    #                own row              opponent row         stores  to_move must_feed ply
    assert mover == [3, 3, 0, 2, 0, 1] + [0, 0, 0, 0, 0, 0] + [21, 18, 1, 1, 1]
    assert victim == [0, 0, 0, 0, 0, 0] + [3, 3, 0, 2, 0, 1] + [18, 21, 0, 0, 1]
    env.step(5)
    assert_running(env, [3, 3, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0], [21, 18], 1, [1, 0, 0, 0, 0, 0], passes=0)
    assert env.unwrapped.facts()["ply"] == 2


def test_o5_with_grand_slam_forbidden_masks_the_move():
    env = start([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [17, 18], 0, grand_slam="forbidden")
    # Local 4 would empty player 1's row; the other non-empty pits end in player 0's own row.
    assert_running(env, [3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [17, 18], 0, [1, 1, 0, 1, 0, 0])


def test_o5_with_grand_slam_no_capture_leaves_the_seeds():
    env = start([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [17, 18], 0, grand_slam="no_capture")
    env.step(4)
    assert env.unwrapped.facts()["last_move"]["captures"] == []
    assert_running(env, [3, 3, 0, 2, 0, 1, 2, 2, 0, 0, 0, 0], [17, 18], 1, [1, 1, 0, 0, 0, 0])


def test_grand_slam_that_reaches_the_threshold_ends_the_game_instead_of_passing():
    # O5's move with player 0 holding 22: the 4 captured seeds make 26 >= 25, so the game ends at
    # once (no pass), and the seeds left on the board stay there (docs/architecture.md, common conventions).
    env = start([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [22, 13], 0)
    env.step(4)
    assert_over(env, [3, 3, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0], [26, 13], "threshold", 0)
    assert env.unwrapped.facts()["passes"] == 0


# --- skip_origin --------------------------------------------------------------------------------------
# Pit 5 holds 24 seeds: the lap comes round to its origin twice. Path of the first 22 seeds, for both
# rules: 6..11, 0..4, (5 skipped), 6..11, 0..4.
TWENTY_FOUR = [1, 0, 0, 0, 0, 24, 1, 0, 0, 0, 0, 0]
FIRST_22 = [6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4] * 2


def test_skip_origin_always_with_a_24_seed_lap():
    env = start(TWENTY_FOUR, [11, 11], 0, skip_origin="always")
    env.step(5)
    # Origin skipped again: seeds 23 and 24 go to 6 and 7. Pit 7 ends with 3 (captured); pit 6
    # ends with 1 + 3 = 4, which stops the chain.
    assert env.unwrapped.facts()["last_move"]["sown"] == FIRST_22 + [6, 7]
    assert env.unwrapped.facts()["last_move"]["captures"] == [[7, 3]]
    assert_running(env, [3, 2, 2, 2, 2, 0, 4, 0, 2, 2, 2, 2], [14, 11], 1, [1, 0, 1, 1, 1, 1])


def test_skip_origin_first_circuit_only_with_a_24_seed_lap():
    env = start(TWENTY_FOUR, [11, 11], 0, skip_origin="first_circuit_only")
    env.step(5)
    # On the second pass the origin is sown: seed 23 goes back into pit 5, seed 24 into pit 6,
    # which ends with 1 + 3 = 4: no capture.
    assert env.unwrapped.facts()["last_move"]["sown"] == FIRST_22 + [5, 6]
    assert env.unwrapped.facts()["last_move"]["captures"] == []
    assert_running(env, [3, 2, 2, 2, 2, 1, 4, 2, 2, 2, 2, 2], [11, 11], 1, [1, 1, 1, 1, 1, 1])


# --- singleton_rule ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("singleton_rule", "mask"),
    [("free", [1, 0, 1, 0, 1, 0]), ("only_if_all_singletons", [0, 0, 1, 0, 0, 0])],
)
def test_singleton_rule_with_a_larger_pit(singleton_rule, mask):
    board = [1, 0, 2, 0, 1, 0, 4, 4, 4, 4, 4, 4]
    env = start(board, [10, 10], 0, singleton_rule=singleton_rule)
    assert_running(env, board, [10, 10], 0, mask)


def test_singleton_rule_allows_singletons_when_all_pits_are_singletons():
    board = [1, 0, 1, 0, 0, 1, 4, 4, 4, 4, 4, 4]
    env = start(board, [10, 11], 0, singleton_rule="only_if_all_singletons")
    assert_running(env, board, [10, 11], 0, [1, 0, 1, 0, 0, 1])
    env.step(5)  # the singleton in pit 5 goes to pit 6 (4 -> 5), no capture
    assert_running(env, [1, 0, 1, 0, 0, 0, 5, 4, 4, 4, 4, 4], [10, 11], 1, [1, 1, 1, 1, 1, 1])


def test_singleton_rule_applies_before_the_feeding_filter():
    # Player 1's row is empty. Pit 0 (2 seeds) only reaches pits 1 and 2; the singleton in pit 5 would
    # feed pit 6 but is barred because pit 0 holds 2. No feeding move survives: rule 4 ends the game
    # and player 0 keeps its 3 seeds (23 + 3 = 26 against 22).
    board = [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    env = start(board, [23, 22], 0, singleton_rule="only_if_all_singletons")
    assert_over(env, [0] * 12, [26, 22], "no_feeding_move", 0)
    # With singletons free, the singleton is the one feeding move.
    env = start(board, [23, 22], 0)
    assert_running(env, board, [23, 22], 0, [0, 0, 0, 0, 0, 1])


# --- win_threshold and the threshold end ---------------------------------------------------------
# Player 0's singleton in pit 5 makes pit 6 hold 2: a capture of 2 seeds. Player 1 keeps pit 7 (3),
# so it is not a grand slam.
@pytest.mark.parametrize(
    ("store0", "ends"),
    [(23, True), (22, False)],  # 23 + 2 = 25 reaches the default threshold; 22 + 2 = 24 does not
)
def test_default_threshold_is_25_on_2x6(store0, ends):
    board = [2, 0, 0, 0, 0, 1, 1, 3, 0, 0, 0, 0]
    env = start(board, [store0, 41 - store0], 0)
    env.step(5)
    after = [2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0]
    stores = [store0 + 2, 41 - store0]
    if ends:
        # The board is not collected: the scores are the stores (docs/architecture.md, common conventions).
        assert_over(env, after, stores, "threshold", 0)
    else:
        assert_running(env, after, stores, 1, [0, 1, 0, 0, 0, 0])


@pytest.mark.parametrize(("store0", "ends"), [(15, True), (14, False)])  # 17 = more than 32 / 2
def test_default_threshold_is_17_on_2x4(store0, ends):
    # 2x4 board: player 0 owns 0..3, player 1 owns 4..7. The singleton in pit 3 makes pit 4 hold 2.
    board = [2, 0, 0, 1, 1, 3, 0, 0]
    env = start(board, [store0, 25 - store0], 0, pits_per_row=4)
    env.step(3)
    after = [2, 0, 0, 0, 0, 3, 0, 0]
    stores = [store0 + 2, 25 - store0]
    if ends:
        assert_over(env, after, stores, "threshold", 0)
    else:
        assert_running(env, after, stores, 1, [0, 1, 0, 0])


@pytest.mark.parametrize(("win_threshold", "ends"), [(None, False), (20, True), (21, False)])
def test_custom_win_threshold(win_threshold, ends):
    # Player 0 goes from 18 to 20 captured seeds.
    board = [2, 0, 0, 0, 0, 1, 1, 3, 0, 0, 11, 0]
    env = start(board, [18, 12], 0, win_threshold=win_threshold)
    env.step(5)
    after = [2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 11, 0]
    if ends:
        assert_over(env, after, [20, 12], "threshold", 0)
    else:
        assert_running(env, after, [20, 12], 1, [0, 1, 0, 0, 1, 0])


def test_threshold_reached_by_player_1():
    # Player 1's singleton in pit 11 makes pit 0 hold 3: captured; 22 + 3 = 25 ends the game.
    board = [2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 1]
    env = start(board, [19, 22], 1)
    env.step(5)
    assert_over(env, [0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0], [19, 25], "threshold", 1)
    assert env.unwrapped.facts()["last_move"]["captures"] == [[0, 3]]


# --- repetition and max_plies -------------------------------------------------------------------
def test_repetition_ends_a_forced_cycle_and_owners_collect():
    # One seed each. Every move is forced (a single non-empty pit, or the only feeding move at ply 7),
    # nothing is ever captured, and after 12 plies the start position recurs with player 0 to move.
    start_board = [0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0]
    env = start(start_board, [22, 24], 0)
    plies = [
        # (action, board after the ply, mask of the next player)
        (2, [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0]),
        (3, [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 1, 0, 0]),
        (3, [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 1, 0]),
        (4, [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 0]),
        (4, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]),
        # Player 1 sows into pit 0; its own row is now empty, so player 0 must feed: pit 5, not pit 0.
        (5, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]),
        (5, [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]),
        (0, [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]),
        (0, [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]),
        (1, [0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 0]),
        (1, [0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0]),
    ]
    for ply, (action, board, mask) in enumerate(plies, start=1):
        env.step(action)
        assert_running(env, board, [22, 24], ply % 2, mask)
        assert env.unwrapped.facts()["ply"] == ply
    env.step(2)  # ply 12: pit 8 -> 9, back to the start position
    assert_over(env, [0] * 12, [23, 25], "repetition", 1)
    assert env.unwrapped.facts()["ply"] == 12


def test_max_plies_truncates_and_owners_collect():
    env = mancala_envs.make("ouril_v0", first_player=0, max_plies=2)
    env.reset(seed=0)
    env.step(2)  # O1: [4,4,0,5,5,5, 5,4,4,4,4,4]
    assert_running(env, [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4], [0, 0], 1, [1, 1, 1, 1, 1, 1])
    env.step(0)  # pit 6 (5 seeds) -> 7..11, all player 1's own pits: no capture
    # Ply cap reached: player 0 collects 4+4+0+5+5+5 = 23, player 1 collects 0+5*5 = 25.
    assert_over(env, [0] * 12, [23, 25], "max_plies", 1, truncated=True)
    assert env.unwrapped.facts()["ply"] == 2


# --- 2x4 board -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "board", "sown"),
    [
        (2, [4, 4, 0, 5, 5, 5, 5, 4], [3, 4, 5, 6]),  # last seed in pit 6 makes 5: no capture
        (3, [4, 4, 4, 0, 5, 5, 5, 5], [4, 5, 6, 7]),
        (0, [0, 5, 5, 5, 5, 4, 4, 4], [1, 2, 3, 4]),
    ],
)
def test_2x4_opening(action, board, sown):
    env = mancala_envs.make("ouril_v0", pits_per_row=4, first_player=0)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 4
    assert env.observation_space("player_0")["observation"].shape == (13,)
    assert_running(env, [4] * 8, [0, 0], 0, [1, 1, 1, 1])
    env.step(action)
    assert env.unwrapped.facts()["last_move"]["sown"] == sown
    assert_running(env, board, [0, 0], 1, [1, 1, 1, 1])
    assert env.observe("player_1")["observation"].tolist() == board[4:] + board[:4] + [0, 0, 1, 0, 1]


# --- engine level ---------------------------------------------------------------------------------
def test_engine_o2_with_load_position_and_step():
    game = Ouril(OurilConfig())
    state = game.new_state(0)
    game.load_position(state, [6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0], [10, 9], 0)
    assert game.legal_mask(state).tolist() == [1, 1, 0, 1, 1, 1]
    assert game.step(state, 2, new_trace()) == 1  # empty pit: ILLEGAL, nothing changes
    assert game.board(state).tolist() == [6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0]
    assert game.step(state, 5, new_trace()) == 0
    assert game.board(state).tolist() == [6, 2, 0, 4, 1, 0, 4, 0, 0, 0, 5, 0]
    assert game.stores(state).tolist() == [17, 9]
    assert game.legal_mask(state).tolist() == [1, 0, 0, 0, 1, 0]
    assert np.sum(game.board(state)) + np.sum(game.stores(state)) == 48
