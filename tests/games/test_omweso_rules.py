"""Exact-position tests of Omweso (docs/rules/omweso.md), in the Pgx / OpenSpiel style.

Every test loads a position (or starts a fresh game), plays one or more plies
through the PettingZoo env and then checks what an agent can see: all 32 pits,
the capture tallies (``stores``), the 48-entry mask of the agent to move and
the empty mask of the other one, the next agent, the rewards, the end flags
and the Omweso entries of ``infos``. The tests ``test_w1_*`` .. ``test_w10_*``
replay the rules page's worked examples; the other positions were worked out
by hand, and the seed total (64, never leaving the board) is checked in each.

Boards are given as two own-frame lists, ``P0`` then ``P1`` (board index
``16 * p + k``). Each player sees their own pits as::

    inner row:  15 14 13 12 11 10  9  8
    outer row:   0  1  2  3  4  5  6  7

so counter-clockwise is ``k + 1`` and clockwise ``k - 1`` (mod 16). The pits
facing own inner pit ``k`` are the opponent's ``23 - k`` (inner) and ``k - 8``
(outer). Action ``mode * 16 + k``: mode 0 counter-clockwise, 1 clockwise,
2 the three-seed special; while placing, ``k`` adds one seed to pit ``k``.
"""

from __future__ import annotations

import pytest

from mancala_envs.common.errors import IllegalActionError
from mancala_envs.envs import omweso_v0

from support.position_asserts import AGENTS
from support.position_asserts import assert_over as shared_assert_over
from support.position_asserts import assert_running as shared_assert_running

TOTAL = 64
OUTER4 = [4] * 8 + [0] * 8


# --- helpers ---------------------------------------------------------------------------------------
def start(p0, p1, player=0, turn=None, first_capture_done=None, stores=(0, 0), **config):
    """An Omweso env reset to the position ``P0 = p0``, ``P1 = p1`` (64 seeds checked first).

    ``turn`` and ``first_capture_done`` are passed only when given (the defaults are the
    first turn with captures enabled and "a capture has happened").
    """
    assert len(p0) == len(p1) == 16
    assert sum(p0) + sum(p1) == TOTAL, "hand-made position does not hold 64 seeds"
    env = omweso_v0.env(first_player=player, illegal_action="raise", **config)
    options = {"board": list(p0) + list(p1), "player": player, "stores": list(stores)}
    if turn is not None:
        options["turn"] = turn
    if first_capture_done is not None:
        options["first_capture_done"] = first_capture_done
    env.reset(seed=0, options=options)
    return env


def fresh(first_player=0, **config):
    """An Omweso env at the start of a new game (the configured setup)."""
    env = omweso_v0.env(first_player=first_player, illegal_action="raise", **config)
    env.reset(seed=0)
    return env


def mask(*actions):
    """The 48-entry mask with exactly ``actions`` legal."""
    bits = [0] * 48
    for action in actions:
        bits[action] = 1
    return bits


def assert_running(env, p0, p1, stores, to_move, legal, **info):
    """The game goes on with no pending choice: exact board, stores, agent, masks and infos.

    While placing, the board holds only the seeds placed so far.
    """
    if info.get("phase", "sowing") == "sowing":
        assert sum(p0) + sum(p1) == TOTAL
    info.setdefault("pending", None)
    info.setdefault("seeds_in_hand", 0)
    info.setdefault("annulled", False)
    info.setdefault("win_type", None)
    info.setdefault("phase", "sowing")
    info["seeds_on_side"] = [sum(p0), sum(p1)]
    shared_assert_running(env, list(p0) + list(p1), list(stores), to_move, mask(*legal), **info)


def assert_decision(env, p0, p1, stores, to_move, kind, pit, seeds, anchor, **info):
    """A mid-turn decision point: the same agent chooses between ``pit`` and ``16 + pit``."""
    in_hand = seeds if kind == "resow" else 0
    assert sum(p0) + sum(p1) + in_hand == TOTAL
    pending = {"kind": kind, "pit": pit, "seeds": seeds, "anchor": anchor, "actions": [pit, 16 + pit]}
    shared_assert_running(
        env,
        list(p0) + list(p1),
        list(stores),
        to_move,
        mask(pit, 16 + pit),
        pending=pending,
        seeds_in_hand=in_hand,
        annulled=False,
        win_type=None,
        phase="sowing",
        **info,
    )
    assert int(env.board.sum()) + env.unwrapped.facts()["seeds_in_hand"] == TOTAL


def assert_over(
    env, p0, p1, scores, end_reason, winner, points, win_type, next_agent, rewards=None, truncated=False, **info
):
    """The game is over: exact board, tallies, reason, winner, match points, rewards, flags."""
    assert sum(p0) + sum(p1) == TOTAL
    shared_assert_over(
        env, list(p0) + list(p1), list(scores), end_reason, winner, points, rewards=rewards, truncated=truncated
    )
    assert env.agent_selection == next_agent
    got = env.unwrapped.facts()
    assert got["win_type"] == win_type
    assert got["annulled"] is (end_reason == "endless_move")
    assert got["pending"] is None
    assert got["seeds_in_hand"] == 0
    for key, value in info.items():
        assert got[key] == value, key


def last_move(env):
    return env.unwrapped.facts()["last_move"]


def assert_refused(env, *actions):
    """Each action raises IllegalActionError and leaves the position as it was."""
    board = env.board.tolist()
    agent = env.agent_selection
    legal = env.observe(agent)["action_mask"].tolist()
    for action in actions:
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert env.board.tolist() == board
        assert env.agent_selection == agent
        assert env.observe(agent)["action_mask"].tolist() == legal


# --- W1: the opening relay ---------------------------------------------------------------------------
def test_w1_opening_relay_from_pit_0():
    env = fresh()
    assert_running(
        env, OUTER4, OUTER4, [0, 0], 0, range(8), turn=0, laps=0, captures_enabled=False, first_capture_done=False
    )
    env.step(0)
    # 1, 2, 3, 4 (4 -> 5, outer): relay 5 from 4: 5, 6, 7, 8, 9 (empty): the turn ends.
    assert last_move(env) == {"player": 0, "action": 0, "sown": [1, 2, 3, 4, 5, 6, 7, 8, 9], "captures": []}
    assert_running(
        env,
        [0, 5, 5, 5, 0, 5, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0],
        OUTER4,
        [0, 0],
        1,
        range(8),
        turn=1,
        laps=2,
        ply=1,
        captures_enabled=False,
        first_capture_done=False,
    )


def test_w1_pit_1_variant():
    env = fresh()
    env.step(1)
    # 2, 3, 4, 5 (4 -> 5): relay 5 from 5: 6, 7, 8, 9, 10 (empty): the turn ends.
    assert last_move(env)["sown"] == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert_running(env, [4, 0, 5, 5, 5, 0, 5, 5, 1, 1, 1, 0, 0, 0, 0, 0], OUTER4, [0, 0], 1, range(8), turn=1, laps=2)


def test_w1_same_result_from_a_loaded_start_position():
    env = start(OUTER4, OUTER4, turn=0, first_capture_done=False)
    env.step(0)
    assert_running(env, [0, 5, 5, 5, 0, 5, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0], OUTER4, [0, 0], 1, range(8), turn=1)


# --- W2: frontal capture, two re-sows from the same anchor, then a relay -------------------------------
W2 = ([6, 2, 0, 2, 4, 1, 1, 2, 1, 2, 0, 1, 0, 2, 1, 0], [3, 2, 2, 3, 6, 4, 3, 2, 2, 3, 0, 1, 2, 3, 1, 2])


def test_w2_frontal_captures_resown_from_the_anchor():
    env = start(*W2)
    # Pits 0 (6 CW: ends in empty 10) and 1 (2 CW: ends in empty 15) cannot reverse.
    assert_running(env, *W2, [0, 0], 0, [0, 1, 3, 4, 7, 9, 13], turn=2, captures_enabled=True)
    env.step(4)
    # 5, 6, 7, 8: capture P1[15] = 2 and P1[0] = 3; re-sow 5 from after 4: 5..9: capture P1[14] = 1,
    # P1[1] = 2; re-sow 3: 5, 6, 7 (outer): relay 5 from 7: 8..12, and 12 was empty.
    assert last_move(env) == {
        "player": 0,
        "action": 4,
        "sown": [5, 6, 7, 8, 5, 6, 7, 8, 9, 5, 6, 7, 8, 9, 10, 11, 12],
        "captures": [[31, 2], [16, 3], [30, 1], [17, 2]],
    }
    # P1 has no Left4 pit with seeds, and a capture has happened: only counter-clockwise moves.
    assert_running(
        env,
        [6, 2, 0, 2, 0, 4, 4, 0, 4, 4, 1, 2, 1, 2, 1, 0],
        [0, 0, 2, 3, 6, 4, 3, 2, 2, 3, 0, 1, 2, 3, 0, 0],
        [8, 0],
        1,
        [2, 3, 4, 5, 6, 7, 8, 9, 12, 13],
        turn=3,
        laps=4,
    )


def test_resow_into_anchor_changes_w2():
    env = start(*W2, resow_into_anchor=True)
    env.step(4)
    # 5, 6, 7, 8: capture 5 (anchor 4). Re-sow 5 into 4, 5, 6, 7, 8: 8 is occupied but P1[15] is now
    # empty: relay 3 from 8: 9, 10, 11 (1 -> 2), P1[12] = 2 and P1[3] = 3: capture 5 (anchor 8).
    # Re-sow 5 into 8, 9, 10, 11, 12 (empty): the turn ends.
    assert last_move(env) == {
        "player": 0,
        "action": 4,
        "sown": [5, 6, 7, 8, 4, 5, 6, 7, 8, 9, 10, 11, 8, 9, 10, 11, 12],
        "captures": [[31, 2], [16, 3], [28, 2], [19, 3]],
    }
    # P1: pit 1 (2 CW) -> 0, 15: 15 is empty; no other Left4 pit holds 2.
    assert_running(
        env,
        [6, 2, 0, 2, 1, 3, 3, 4, 1, 4, 2, 3, 1, 2, 1, 0],
        [0, 2, 2, 0, 6, 4, 3, 2, 2, 3, 0, 1, 0, 3, 1, 0],
        [10, 0],
        1,
        [1, 2, 4, 5, 6, 7, 8, 9, 13],
        turn=3,
        laps=4,
    )


# --- W3 / W4: reverse moves --------------------------------------------------------------------------------
W3 = ([1, 3, 0, 2, 1, 2, 0, 3, 2, 1, 0, 2, 1, 0, 2, 2], [3, 2, 2, 3, 3, 2, 3, 4, 4, 2, 3, 0, 3, 4, 2, 2])
W4_MASK = [1, 3, 5, 7, 8, 11, 14, 15, 17]


def test_w3_reverse_capture_then_counter_clockwise_resow():
    env = start(*W3)
    env.step(17)
    # CW 0, 15, 14 (2 -> 3): capture P1[9] = 2 and P1[6] = 3. A CW re-sow of 5 from 1 would end in 12
    # with P1[11] empty, so there is no choice: CCW 2, 3, 4, 5, 6 (empty).
    assert last_move(env) == {
        "player": 0,
        "action": 17,
        "sown": [0, 15, 14, 2, 3, 4, 5, 6],
        "captures": [[25, 2], [22, 3]],
    }
    # P1 may reverse from 1 (0, 15: P0[8] = 2, P0[7] = 3) and from 14 (13, 12: P0[11] = 2, P0[4] = 2);
    # not from 0 (ends in 13, P0[10] = 0) nor from 15 (ends in 13 too).
    assert_running(
        env,
        [2, 0, 1, 3, 2, 3, 1, 3, 2, 1, 0, 2, 1, 0, 3, 3],
        [3, 2, 2, 3, 3, 2, 0, 4, 4, 0, 3, 0, 3, 4, 2, 2],
        [5, 0],
        1,
        [0, 1, 2, 3, 4, 5, 7, 8, 10, 12, 13, 14, 15, 17, 30],
        turn=3,
        laps=2,
    )


def test_w4_full_mask_and_the_refused_reverse_moves():
    env = start(*W3)
    assert_running(env, *W3, [0, 0], 0, W4_MASK, turn=2)
    # 16: a singleton; 31: 14, 13 and 13 was empty; 30: 13, 12 but P1[11] = 0; 19: pit 3 is not in Left4.
    assert_refused(env, 16, 31, 30, 19, 33, 39)
    assert_running(env, *W3, [0, 0], 0, W4_MASK, turn=2, ply=0)


def test_w4_three_seed_specials_before_the_first_capture():
    env = start(*W3, first_capture_done=False)
    # Pits 1 and 7 hold exactly 3.
    assert_running(env, *W3, [0, 0], 0, W4_MASK + [33, 39], first_capture_done=False)


def test_three_seed_special_never_relays_or_captures():
    env = start(*W3, first_capture_done=False)
    env.step(39)
    # Pit 7 (3): 2 into 8 (2 -> 4) and 1 into 9 (1 -> 2), which faces P1[14] = 2 and P1[1] = 2: no capture.
    assert last_move(env) == {"player": 0, "action": 39, "sown": [8, 8, 9], "captures": []}
    # P1: pit 14 reverses (13, 12 faces P0[11] = 2, P0[4] = 1); pit 1 no longer (0, 15 faces the emptied
    # P0[7]). Nobody has captured, so P1's pits holding 3 (0, 3, 4, 6, 10, 12) offer the special.
    assert_running(
        env,
        [1, 3, 0, 2, 1, 2, 0, 0, 4, 2, 0, 2, 1, 0, 2, 2],
        W3[1],
        [0, 0],
        1,
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 30, 32, 35, 36, 38, 42, 44],
        turn=3,
        laps=1,
        first_capture_done=False,
    )


def test_reverse_is_not_legal_while_captures_are_disabled():
    env = start(*W3, turn=1)
    assert_running(env, *W3, [0, 0], 0, [1, 3, 5, 7, 8, 11, 14, 15], turn=1, captures_enabled=False)
    assert_refused(env, 17)


# --- W5: the first-round capture ban ------------------------------------------------------------------------
def test_w5_captures_disabled_on_the_first_turn():
    env = fresh(setup="two_each")
    assert_running(env, [2] * 16, [2] * 16, [0, 0], 0, range(16), turn=0, captures_enabled=False)
    env.step(6)
    # 7, 8 would capture but relays: 9-11, 12-14, 15-1, 2-4, 5-7, then 8-11 (11 was emptied). The relays
    # from 14 and 1 offer no clockwise choice either: captures are off.
    assert last_move(env)["sown"] == list(range(7, 16)) + list(range(12))
    assert last_move(env)["captures"] == []
    assert_running(
        env,
        [3, 0, 3, 3, 0, 3, 1, 0, 1, 4, 4, 1, 3, 3, 0, 3],
        [2] * 16,
        [0, 0],
        1,
        range(16),
        turn=1,
        laps=7,
        captures_enabled=False,
        first_capture_done=False,
    )


def test_w5_captures_enabled_from_the_first_turn():
    env = fresh(setup="two_each", no_capture_turns=0)
    env.step(6)
    # Capture 4 at 8, re-sow 7-10: capture 4 at 10, re-sow 7-10: relay 4 from 10: 11-14: capture 4 at 14,
    # re-sow 11-14 from anchor 10: relay 15-2, relay 3-5, relay 6-8, relay 9-14 (14 was emptied).
    assert last_move(env)["captures"] == [[31, 2], [16, 2], [29, 2], [18, 2], [25, 2], [22, 2]]
    # P1 reverses from 14 (13, 12: P0[11] = 5, P0[4] = 3); the capture ends the three-seed special.
    assert_running(
        env,
        [3, 3, 0, 3, 3, 0, 1, 6, 0, 5, 1, 5, 5, 5, 1, 3],
        [0, 2, 0, 2, 2, 2, 0, 2, 2, 0, 2, 2, 2, 0, 2, 0],
        [12, 0],
        1,
        [1, 3, 4, 5, 7, 8, 10, 11, 12, 14, 30],
        turn=1,
        laps=9,
        captures_enabled=True,
        first_capture_done=True,
    )


# --- W6: the three-seed special --------------------------------------------------------------------------------
W6 = ([3, 5, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0], OUTER4)
W6_SPECIAL = [0, 7, 5, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0]
W6_NORMAL = [0, 6, 5, 0, 5, 5, 5, 5, 1, 0, 0, 0, 0, 0, 0, 0]


def test_w6_three_seed_special():
    env = start(*W6, turn=0, first_capture_done=False)
    assert_running(env, *W6, [0, 0], 0, list(range(8)) + [32], turn=0, first_capture_done=False)
    env.step(32)
    assert last_move(env) == {"player": 0, "action": 32, "sown": [1, 1, 2], "captures": []}
    assert_running(env, W6_SPECIAL, OUTER4, [0, 0], 1, range(8), turn=1, laps=1, first_capture_done=False)


def test_w6_normal_sowing_of_the_same_pit():
    env = start(*W6, turn=0, first_capture_done=False)
    env.step(0)
    # 1, 2, 3 (4 -> 5): relay 5 from 3: 4, 5, 6, 7, 8 (empty).
    assert last_move(env)["sown"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert_running(env, W6_NORMAL, OUTER4, [0, 0], 1, range(8), turn=1, laps=2)


def test_w6_reached_through_the_placement_phase():
    env = fresh(setup="placement")
    placements = [0] * 3 + [1] * 5 + [k for k in range(2, 8) for _ in range(4)]
    for i, k in enumerate(placements):
        assert env.agent_selection == "player_0"
        assert env.unwrapped.facts()["phase"] == "placement"
        assert env.observe("player_0")["observation"][34] == 32 - i
        env.step(k)
    assert env.agent_selection == "player_1"
    for k in [k for k in range(8) for _ in range(4)]:
        env.step(k)
    # Placing is over: player_0 sows first; turn 0, captures disabled, no capture yet.
    assert_running(
        env, *W6, [0, 0], 0, list(range(8)) + [32], turn=0, ply=64, captures_enabled=False, first_capture_done=False
    )
    env.step(32)
    assert_running(env, W6_SPECIAL, OUTER4, [0, 0], 1, range(8), turn=1, ply=65, laps=1)


# --- W7: the ordinary win ----------------------------------------------------------------------------------
W7 = ([4, 4, 4, 4, 4, 4, 2, 3, 1, 0, 4, 4, 4, 4, 4, 7], [1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2])
W7_END = ([4, 4, 4, 4, 4, 4, 0, 5, 3, 1, 4, 4, 4, 4, 4, 7], [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0])


def test_w7_bulijo():
    env = start(*W7)
    # Pit 15 (7 CW) ends in 8 (1 -> 2) facing P1[15] = 2 and P1[0] = 1: a reverse capture.
    assert_running(env, *W7, [0, 0], 0, [0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 31])
    env.step(6)
    # 7, 8 (1 -> 2): capture 3; re-sow from after 6: 7, 8, 9 (empty). P1 is left with singletons.
    assert last_move(env) == {"player": 0, "action": 6, "sown": [7, 8, 7, 8, 9], "captures": [[31, 2], [16, 1]]}
    assert_over(env, *W7_END, [3, 0], "no_legal_move", 0, [1, 0], "bulijo", "player_1", laps=2, turn=3)


# --- W8: emitwe-ebiri -------------------------------------------------------------------------------------------
W8 = ([3, 2, 2, 1, 4, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0, 1], [6, 2, 2, 3, 2, 3, 3, 2, 2, 3, 3, 3, 3, 2, 2, 5])
# After captures at 8 (11), 15 (4), 12 (5), 13 (6), 14 (6), the relay from 14 (3 seeds) is a choice.
W8_CHOICE = ([3, 2, 2, 1, 0, 4, 4, 5, 0, 5, 5, 5, 5, 4, 3, 2], [0, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 0])
W8_CCW_END = ([4, 0, 3, 2, 1, 4, 4, 5, 0, 5, 5, 5, 5, 4, 0, 3], [0, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 0])


def test_w8_decision_point_then_counter_clockwise():
    env = start(*W8)
    assert_running(env, *W8, [0, 0], 0, [0, 1, 2, 4, 7, 17])
    env.step(4)
    assert last_move(env)["captures"] == [[31, 5], [16, 6], [24, 2], [23, 2], [27, 3], [20, 2]] + [
        [26, 3],
        [21, 3],
        [25, 3],
        [22, 3],
    ]
    # CW 13, 12, 11 would end in 12 (occupied) facing P1[12] = 3 and P1[3] = 3.
    assert_decision(env, *W8_CHOICE, [32, 0], 0, "relay", 14, 3, 8, laps=7, turn=2, ply=1)
    obs = env.observe("player_0")["observation"].tolist()
    # to move, no placing, pending relay at 14 (3 seeds, anchor 8), captures on, captured at both ends.
    assert obs[32:] == [1, 0, 0, 1, 14, 3, 0, 8, 1, 1, 1, 1, 1, 0, 0, 2]
    env.step(14)
    # 15, 0, 1 (2 -> 3): relay 3 from 1: 2, 3, 4 (empty). Both end columns were captured: 2 points.
    assert last_move(env) == {"player": 0, "action": 14, "sown": [15, 0, 1, 2, 3, 4], "captures": []}
    assert_over(env, *W8_CCW_END, [32, 0], "emitwe_ebiri", 0, [2, 0], "emitwe_ebiri", "player_1", laps=9, turn=3)


def test_w8_decision_point_then_clockwise_with_match_point_rewards():
    env = start(*W8, reward_mode="match_points")
    env.step(4)
    assert_decision(env, *W8_CHOICE, [32, 0], 0, "relay", 14, 3, 8, laps=7)
    env.step(30)
    # CW 13, 12, 11 (5 -> 6): capture P1[12] = 3 and P1[3] = 3 (anchor 14). A CW re-sow of 6 would end
    # in empty 8, so it goes CCW: 15, 0, 1, 2, 3, 4 (empty).
    assert last_move(env) == {
        "player": 0,
        "action": 30,
        "sown": [13, 12, 11, 15, 0, 1, 2, 3, 4],
        "captures": [[28, 3], [19, 3]],
    }
    assert_over(
        env,
        [4, 3, 3, 2, 1, 4, 4, 5, 0, 5, 5, 6, 6, 5, 0, 3],
        [0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0],
        [38, 0],
        "emitwe_ebiri",
        0,
        [2, 0],
        "emitwe_ebiri",
        "player_1",
        rewards=[2, -2],
        laps=9,
    )


def test_w8_without_midturn_reverse():
    env = start(*W8, midturn_reverse=False)
    env.step(4)
    # No decision point: the relay from 14 goes counter-clockwise in the same ply.
    assert last_move(env)["sown"][-6:] == [15, 0, 1, 2, 3, 4]
    assert_over(env, *W8_CCW_END, [32, 0], "emitwe_ebiri", 0, [2, 0], "emitwe_ebiri", "player_1", laps=9, ply=1)


def test_w8_match_point_rewards_after_the_counter_clockwise_choice():
    env = start(*W8, reward_mode="match_points")
    env.step(4)
    env.step(14)
    assert_over(env, *W8_CCW_END, [32, 0], "emitwe_ebiri", 0, [2, 0], "emitwe_ebiri", "player_1", rewards=[2, -2])


# --- W9: the mid-turn reverse choice ------------------------------------------------------------------------------
W9 = ([2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2], [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2])
W9_CHOICE = ([2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 0, 2, 2, 2, 3], W9[1])
W9_CCW = [3, 3, 1, 3, 0, 2, 2, 2, 2, 1, 0, 0, 2, 2, 2, 0]
# P1 after the CCW line: only pit 1 may reverse (0, 15: P0[8] = 2 and P0[7] = 2).
W9_CCW_P1_MASK = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17]


def test_w9_decision_point_then_counter_clockwise():
    env = start(*W9)
    # 16: pit 0 CW 15, 14 (1 -> 2) faces P1[9] = 3 and P1[6] = 2; 31: 14, 13, 12 (1 -> 2) faces 2 and 3.
    assert_running(env, *W9, [0, 0], 0, [0, 1, 3, 5, 6, 7, 8, 11, 15, 16, 31])
    env.step(11)
    # 12, 13, 14, 15 (2 -> 3): P1[8] = 0, so a relay from 15, which could go CW 14, 13, 12 and capture.
    assert last_move(env) == {"player": 0, "action": 11, "sown": [12, 13, 14, 15], "captures": []}
    assert_decision(env, *W9_CHOICE, [0, 0], 0, "relay", 15, 3, 11, laps=1, turn=2)
    assert_refused(env, 0, 11, 14, 16, 47)
    env.step(15)
    assert last_move(env)["sown"] == [0, 1, 2]
    assert_running(env, W9_CCW, W9[1], [0, 0], 1, W9_CCW_P1_MASK, laps=2, turn=3, ply=2)


def test_w9_decision_point_then_clockwise():
    env = start(*W9)
    env.step(11)
    env.step(31)
    # 14, 13, 12 (2 -> 3): capture P1[11] = 2 and P1[4] = 3 (anchor 15). A CW re-sow would end in empty
    # 10: CCW 0, 1, 2, 3, 4 (empty).
    assert last_move(env) == {
        "player": 0,
        "action": 31,
        "sown": [14, 13, 12, 0, 1, 2, 3, 4],
        "captures": [[27, 2], [20, 3]],
    }
    assert_running(
        env,
        [3, 3, 1, 4, 1, 2, 2, 2, 2, 1, 0, 0, 3, 3, 3, 0],
        [4, 2, 2, 3, 0, 2, 2, 4, 0, 3, 2, 0, 3, 3, 2, 2],
        [5, 0],
        1,
        [0, 1, 2, 3, 5, 6, 7, 9, 10, 12, 13, 14, 15, 17],
        laps=3,
        turn=3,
    )


def test_w9_without_midturn_reverse():
    env = start(*W9, midturn_reverse=False)
    env.step(11)
    assert last_move(env)["sown"] == [12, 13, 14, 15, 0, 1, 2]
    assert_running(env, W9_CCW, W9[1], [0, 0], 1, W9_CCW_P1_MASK, laps=2, turn=3, ply=1)


# --- W10: an endless turn --------------------------------------------------------------------------------------------
W10 = ([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 1, 2], [7, 7, 7, 7, 7, 6, 6, 6, 0, 0, 0, 0, 0, 0, 0, 0])


def test_w10_endless_turn_is_annulled():
    env = start(*W10)
    assert_running(env, *W10, [0, 0], 0, [13, 15])
    env.step(15)
    # After 128 laps the board and the pit to lift (15) are back: the game is annulled.
    assert_over(
        env, *W10, [0, 0], "endless_move", None, [0, 0], None, "player_1", laps=128, last_game_end="endless_move"
    )
    assert last_move(env)["captures"] == []


def test_w10_lap_cap_annuls_too():
    env = start(*W10, max_laps_per_turn=10)
    env.step(15)
    # Laps from 15, 1, 3, 5, 7, 9, 11, 13 (3 seeds: 14, 15, 0), 0 and 2; the 11th lap is refused.
    assert last_move(env)["sown"] == list(range(16)) + [0, 1, 2, 3, 4]
    assert_over(
        env,
        [0, 1, 0, 1, 2, 0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 1],
        W10[1],
        [0, 0],
        "endless_move",
        None,
        [0, 0],
        None,
        "player_1",
        laps=10,
    )


# --- placement ------------------------------------------------------------------------------------------------------
def test_placement_phase_cap_order_and_observation_flags():
    env = fresh(first_player=1, setup="placement")
    zero = [0] * 16
    assert_running(env, zero, zero, [0, 0], 1, range(16), phase="placement", turn=0)
    obs = env.observe("player_1")["observation"].tolist()
    assert obs[32:35] == [1, 1, 32]  # to move, placing, 32 seeds to place
    assert env.observe("player_0")["observation"].tolist()[32:35] == [0, 1, 0]
    assert_refused(env, 16, 32)  # only "add a seed to pit k" while placing
    # player_1 fills pit 5 up to the cap (10), then pits 6 and 7 (10 each) and 2 seeds into pit 8.
    for _n in range(10):
        env.step(5)
        assert env.agent_selection == "player_1"
    legal = [k for k in range(16) if k != 5]
    assert_running(env, zero, zero[:5] + [10] + zero[6:], [0, 0], 1, legal, phase="placement", ply=10)
    assert_refused(env, 5)
    for k in [6] * 10 + [7] * 10 + [8]:
        env.step(k)
    p1 = [0, 0, 0, 0, 0, 10, 10, 10, 1, 0, 0, 0, 0, 0, 0, 0]
    assert_running(env, zero, p1, [0, 0], 1, [k for k in range(16) if k not in (5, 6, 7)], phase="placement")
    assert env.observe("player_1")["observation"].tolist()[34] == 1
    env.step(8)
    p1[8] = 2
    # 32 placed: player_0 places next.
    assert_running(env, zero, p1, [0, 0], 0, range(16), phase="placement", ply=32)
    assert env.observe("player_0")["observation"].tolist()[32:35] == [1, 1, 32]
    for k in range(16):
        env.step(k)
        env.step(k)
    # 64 placed: the first player (player_1) makes the first move; 2 seeds in every pit of player_0.
    # player_1 may sow 5, 6, 7 and 8; captures are disabled and nobody holds exactly 3.
    assert_running(env, [2] * 16, p1, [0, 0], 1, [5, 6, 7, 8], phase="sowing", turn=0, ply=64, captures_enabled=False)
    assert env.observe("player_1")["observation"].tolist()[32:35] == [1, 0, 0]


def test_placement_cap_option():
    env = fresh(setup="placement", placement_cap=2)
    env.step(3)
    assert_running(env, [0, 0, 0, 1] + [0] * 12, [0] * 16, [0, 0], 0, range(16), phase="placement")
    env.step(3)
    assert_running(env, [0, 0, 0, 2] + [0] * 12, [0] * 16, [0, 0], 0, [0, 1, 2] + list(range(4, 16)), phase="placement")
    assert_refused(env, 3)


# --- a re-sow decision point after a reverse capture -----------------------------------------------------------------
RS = ([1, 2, 1, 1, 0, 0, 2, 2, 2, 2, 2, 2, 2, 0, 1, 1], [3, 3, 3, 3, 3, 3, 2, 2, 1, 2, 3, 3, 3, 3, 3, 3])
# After 17 (CW 0, 15 (1 -> 2), capture P1[8] = 1 + P1[7] = 2): 3 seeds in hand, anchor 1. A CW re-sow
# 0, 15, 14 would end in 14 (1 -> 2) facing P1[9] = 2 and P1[6] = 2: a choice.
RS_CHOICE = ([2, 0, 1, 1, 0, 0, 2, 2, 2, 2, 2, 2, 2, 0, 1, 2], [3, 3, 3, 3, 3, 3, 2, 0, 0, 2, 3, 3, 3, 3, 3, 3])


def test_resow_decision_point_after_a_reverse_capture():
    env = start(*RS)
    assert_running(env, *RS, [0, 0], 0, [1, 6, 7, 8, 9, 10, 11, 12, 17])
    # Clockwise laps from 10 (ends in 8), 11 (in 9) and 12 (in 10) would capture directly, but these
    # pits are not in Left4.
    assert_refused(env, 26, 27, 28)
    env.step(17)
    assert last_move(env) == {"player": 0, "action": 17, "sown": [0, 15], "captures": [[24, 1], [23, 2]]}
    assert_decision(env, *RS_CHOICE, [3, 0], 0, "resow", 1, 3, 1, laps=1, turn=2, ply=1)
    assert int(env.board.sum()) == 61
    obs = env.observe("player_0")["observation"].tolist()
    # pending re-sow at 1 (3 seeds, anchor 1), captured this turn at column 0 (own pit 15).
    assert obs[32:] == [1, 0, 0, 1, 1, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 2]
    assert env.observe("player_1")["observation"].tolist()[32:] == [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 2]


def test_resow_decision_point_clockwise():
    env = start(*RS)
    env.step(17)
    env.step(17)
    # CW 0, 15, 14 (1 -> 2): capture P1[9] = 2 and P1[6] = 2. A CW re-sow of 4 would end in empty 13:
    # CCW 2, 3, 4, 5 (empty).
    assert last_move(env) == {
        "player": 0,
        "action": 17,
        "sown": [0, 15, 14, 2, 3, 4, 5],
        "captures": [[25, 2], [22, 2]],
    }
    assert_running(
        env,
        [3, 0, 2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 0, 2, 3],
        [3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3],
        [7, 0],
        1,
        # P1 may reverse from every Left4 pit: 0 -> 13 (faces P0[10], P0[5]), 1 -> 14 (P0[9], P0[6]),
        # 14 -> 11 (P0[12], P0[3]), 15 -> 12 (P0[11], P0[4]).
        [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 30, 31],
        laps=3,
        turn=3,
        ply=2,
    )


def test_resow_decision_point_counter_clockwise():
    env = start(*RS)
    env.step(17)
    env.step(1)
    # CCW 2, 3, 4 (empty).
    assert last_move(env) == {"player": 0, "action": 1, "sown": [2, 3, 4], "captures": []}
    assert_running(
        env,
        [2, 0, 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 0, 1, 2],
        [3, 3, 3, 3, 3, 3, 2, 0, 0, 2, 3, 3, 3, 3, 3, 3],
        [3, 0],
        1,
        # 0 -> 13 faces P0[10] = 2 but P0[5] = 0; 1 -> 14, 14 -> 11, 15 -> 12 capture.
        [0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 17, 30, 31],
        laps=2,
        turn=3,
    )


def test_resow_without_midturn_reverse_is_counter_clockwise():
    env = start(*RS, midturn_reverse=False)
    env.step(17)
    assert last_move(env)["sown"] == [0, 15, 2, 3, 4]
    assert env.agent_selection == "player_1"
    assert env.board.tolist() == [2, 0, 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 0, 1, 2] + RS_CHOICE[1]


# --- 2-point and 12-point wins ---------------------------------------------------------------------------------------
def test_front_row_clear_wins_two_points():
    p0 = [4, 4, 4, 4, 4, 4, 4, 1, 0, 2, 1, 1, 0, 0, 0, 0]
    p1 = [4, 4, 4, 2, 4, 4, 4, 4, 0, 0, 0, 0, 1, 0, 0, 0]
    env = start(p0, p1)
    env.step(9)
    # 10, 11 (1 -> 2): capture P1[12] = 1 and P1[3] = 2; re-sow 10, 11, 12 (empty). P1's inner row is empty.
    assert last_move(env) == {"player": 0, "action": 9, "sown": [10, 11, 10, 11, 12], "captures": [[28, 1], [19, 2]]}
    end = ([4, 4, 4, 4, 4, 4, 4, 1, 0, 0, 3, 3, 1, 0, 0, 0], [4, 4, 4, 0, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0])
    assert_over(env, *end, [3, 0], "front_row_clear", 0, [2, 0], "front_row_clear", "player_1")

    env = start(p0, p1, front_row_clear_2pts=False)
    env.step(9)
    # Without the option the game goes on; P1's reverse laps from 0 and 1 end in empty pits.
    assert_running(env, *end, [3, 0], 1, [0, 1, 2, 4, 5, 6, 7], turn=3)


def test_front_row_clear_comes_before_bulijo():
    p0 = [7, 7, 7, 7, 7, 7, 7, 1, 0, 2, 1, 1, 0, 0, 0, 0]
    p1 = [1, 1, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0]
    end = ([7, 7, 7, 7, 7, 7, 7, 1, 0, 0, 3, 3, 1, 0, 0, 0], [1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    env = start(p0, p1)
    env.step(9)
    assert_over(env, *end, [3, 0], "front_row_clear", 0, [2, 0], "front_row_clear", "player_1")
    env = start(p0, p1, front_row_clear_2pts=False)
    env.step(9)
    # P1 keeps only singletons: an ordinary win.
    assert_over(env, *end, [3, 0], "no_legal_move", 0, [1, 0], "bulijo", "player_1")


def test_akawumbi_twelve_points():
    p0 = [7, 7, 7, 7, 7, 7, 2, 1, 1, 0, 1, 1, 1, 1, 1, 10]
    p1 = [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    end = ([7, 7, 7, 7, 7, 7, 0, 3, 3, 1, 1, 1, 1, 1, 1, 10], [0] * 16)
    env = start(p0, p1)
    env.step(6)
    # 7, 8 (1 -> 2): capture P1[15] = 1 and P1[0] = 2 at the end column 7 (own pit 8); P1 is empty.
    # Re-sow 7, 8, 9 (empty).
    assert last_move(env) == {"player": 0, "action": 6, "sown": [7, 8, 7, 8, 9], "captures": [[31, 1], [16, 2]]}
    assert_over(env, *end, [3, 0], "akawumbi", 0, [12, 0], "akawumbi", "player_1")
    env = start(p0, p1, reward_mode="match_points")
    env.step(6)
    assert_over(env, *end, [3, 0], "akawumbi", 0, [12, 0], "akawumbi", "player_1", rewards=[12, -12])


def test_emptying_the_opponent_away_from_an_end_column_is_not_akawumbi():
    p0 = [7, 7, 7, 7, 7, 7, 7, 1, 0, 2, 1, 1, 0, 0, 0, 7]
    p1 = [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    end = ([7, 7, 7, 7, 7, 7, 7, 1, 0, 0, 3, 3, 1, 0, 0, 7], [0] * 16)
    env = start(p0, p1)
    env.step(9)  # the last (only) capture is at own pit 11: the front-row clear is the best result
    assert_over(env, *end, [3, 0], "front_row_clear", 0, [2, 0], "front_row_clear", "player_1")
    env = start(p0, p1, front_row_clear_2pts=False)
    env.step(9)
    assert_over(env, *end, [3, 0], "no_legal_move", 0, [1, 0], "bulijo", "player_1")


AK = ([5, 5, 0, 5, 5, 5, 5, 5, 0, 2, 0, 1, 0, 2, 0, 1], [2, 0, 0, 2, 0, 7, 7, 1, 1, 0, 2, 0, 1, 0, 0, 0])
AK_1 = ([5, 5, 0, 5, 5, 5, 5, 5, 0, 0, 2, 3, 1, 2, 0, 1], [2, 0, 0, 0, 0, 7, 7, 1, 1, 0, 2, 0, 0, 0, 0, 0])
AK_2 = (AK_1[0], [0, 1, 1, 0, 0, 7, 7, 1, 1, 0, 2, 0, 0, 0, 0, 0])
AK_3 = ([6, 6, 1, 5, 5, 5, 5, 5, 0, 0, 2, 3, 1, 0, 2, 0], [0, 1, 1, 0, 0, 7, 7, 0, 0, 0, 2, 0, 0, 0, 0, 0])


def play_akakyala_line(env):
    # P0 9: 10, 11 (1 -> 2): capture P1[12] = 1 + P1[3] = 2; re-sow 10, 11, 12 (empty).
    # Pit 0 may reverse (15..11 ends in 11, facing P1[12] and P1[3]).
    assert_running(env, *AK, [0, 0], 0, [0, 1, 3, 4, 5, 6, 7, 9, 13, 16])
    env.step(9)
    assert_running(env, *AK_1, [3, 0], 1, [0, 5, 6, 10], turn=3)
    # P1 0: 1, 2 (empty): no capture.
    env.step(0)
    assert_running(env, *AK_2, [3, 0], 0, [0, 1, 3, 4, 5, 6, 7, 10, 11, 13], turn=4)
    # P0 13: 14, 15 (1 -> 2): capture P1[8] = 1 + P1[7] = 1; re-sow 14, 15 (2 -> 3): relay 3 from 15
    # (CW 14, 13, 12 faces empty P1[11]: no choice): 0, 1, 2 (empty).
    env.step(13)
    assert last_move(env)["sown"] == [14, 15, 14, 15, 0, 1, 2]


def test_akakyala_rule_second_capturing_turn_wins_two_points():
    env = start(*AK, akakyala_rule=True)
    play_akakyala_line(env)
    assert_over(env, *AK_3, [5, 0], "akakyala", 0, [2, 0], "akakyala", "player_1", turn=5)


def test_akakyala_counts_capturing_turns_given_with_a_position():
    # The position says P0 already captured in an earlier turn: the first capture here is the second.
    env = omweso_v0.env(first_player=0, illegal_action="raise", akakyala_rule=True)
    env.reset(seed=0, options={"board": AK[0] + AK[1], "player": 0, "capturing_turns": [1, 0]})
    env.step(9)
    assert_over(env, *AK_1, [3, 0], "akakyala", 0, [2, 0], "akakyala", "player_1", turn=3)
    # Had P1 captured before, akakyala is out of reach and the game goes on.
    env.reset(seed=0, options={"board": AK[0] + AK[1], "player": 0, "capturing_turns": [1, 1]})
    env.step(9)
    assert_running(env, *AK_1, [3, 0], 1, [0, 5, 6, 10], turn=3)


def test_akakyala_is_off_by_default():
    env = start(*AK)
    play_akakyala_line(env)
    assert_running(env, *AK_3, [5, 0], 1, [5, 6, 10], turn=5)


# --- the end of a game without a result -------------------------------------------------------------------------------
def test_max_turns_truncates_as_a_draw():
    env = fresh(max_turns=1)
    env.step(0)
    assert_over(
        env,
        [0, 5, 5, 5, 0, 5, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0],
        OUTER4,
        [0, 0],
        "max_turns",
        None,
        [0, 0],
        None,
        "player_1",
        truncated=True,
        turn=1,
    )


@pytest.mark.parametrize("player", [0, 1])
def test_loaded_position_where_the_mover_cannot_move_is_over_at_once(player):
    stuck, other = [1] * 16, [3] * 16
    p0, p1 = (stuck, other) if player == 0 else (other, stuck)
    env = start(p0, p1, player=player)
    points = [0, 0]
    points[1 - player] = 1
    assert_over(env, p0, p1, [0, 0], "no_legal_move", 1 - player, points, "bulijo", AGENTS[player], ply=0)
    assert last_move(env) is None


# --- match play -------------------------------------------------------------------------------------------------------
def test_match_points_accumulate_and_the_match_ends_at_the_target():
    env = start(*W7, match_target=2, setup="placement", no_capture_turns=0)
    env.step(6)
    # Game 1 (W7): player_0 wins 1 point. Game 2 starts with player_1 placing.
    zero = [0] * 16
    assert_running(
        env,
        zero,
        zero,
        [0, 0],
        1,
        range(16),
        phase="placement",
        turn=0,
        ply=0,
        match_points=[1, 0],
        games_played=1,
        last_game_end="no_legal_move",
        win_type="bulijo",
    )
    assert env.observe("player_1")["observation"].tolist()[-2:] == [0, 1]
    assert env.observe("player_0")["observation"].tolist()[-2:] == [1, 0]
    p1 = [4, 4, 4, 4, 4, 4, 4, 1, 0, 2, 0, 1, 0, 0, 0, 0]
    p0 = [5, 5, 5, 2, 5, 5, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    for player, pits in ((1, p1), (0, p0)):
        for k in range(16):
            for _ in range(pits[k]):
                assert env.agent_selection == AGENTS[player]
                env.step(k)
    # Captures are enabled from turn 0 (no_capture_turns=0); P1's reverse laps end in empty pits.
    assert_running(
        env, p0, p1, [0, 0], 1, [0, 1, 2, 3, 4, 5, 6, 9], turn=0, ply=64, match_points=[1, 0], win_type="bulijo"
    )
    env.step(9)
    # 10, 11 (1 -> 2): capture P0[12] = 1 + P0[3] = 2; re-sow 10, 11, 12 (empty): P0's inner row is
    # empty, 2 points; player_1 has 2 points and wins the match.
    assert last_move(env)["captures"] == [[12, 1], [3, 2]]
    assert_over(
        env,
        [5, 5, 5, 0, 5, 5, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [4, 4, 4, 4, 4, 4, 4, 1, 0, 0, 2, 3, 1, 0, 0, 0],
        [0, 3],
        "match_target",
        1,
        [1, 2],
        "front_row_clear",
        "player_0",
        games_played=2,
        last_game_end="front_row_clear",
    )


def test_akawumbi_ends_a_match_at_once():
    p0 = [7, 7, 7, 7, 7, 7, 2, 1, 1, 0, 1, 1, 1, 1, 1, 10]
    p1 = [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    env = start(p0, p1, match_target=100)
    env.step(6)
    end = ([7, 7, 7, 7, 7, 7, 0, 3, 3, 1, 1, 1, 1, 1, 1, 10], [0] * 16)
    assert_over(env, *end, [3, 0], "akawumbi", 0, [12, 0], "akawumbi", "player_1", games_played=1)


# --- the text picture -------------------------------------------------------------------------------------------------
def test_ansi_render_from_player_0s_seat_whoever_moves():
    env = start(*W9, render_mode="ansi")
    assert env.render().splitlines() == [
        "omweso_v0  turn 2  ply 0  player_0 to move, legal actions [0, 1, 3, 5, 6, 7, 8, 11, 15, 16, 31]",
        "  player_1 outer  [   4   2   2   3   3   2   2   4 ]  pits   7   6   5   4   3   2   1   0",
        "  player_1 inner  [   0   3   2   2   3   3   2   2 ]  pits   8   9  10  11  12  13  14  15",
        "  player_0 inner  [   2   1   1   1   4   0   1   2 ]  pits  15  14  13  12  11  10   9   8",
        "  player_0 outer  [   2   2   0   3   0   2   2   2 ]  pits   0   1   2   3   4   5   6   7",
        "  captured so far: player_0 0, player_1 0",
    ]
    env.step(11)
    text = env.render().splitlines()
    assert text[0] == (
        "omweso_v0  turn 2  ply 1  player_0 to choose mid-turn: relay from pit 15: 15 counter-clockwise or 31 clockwise"
    )
    assert text[3] == "  player_0 inner  [   3   2   2   2   0   0   1   2 ]  pits  15  14  13  12  11  10   9   8"
    env.step(15)
    # player_1 to move: the board does not turn; player_0's rows stay at the bottom.
    assert env.render().splitlines()[1:5] == [
        "  player_1 outer  [   4   2   2   3   3   2   2   4 ]  pits   7   6   5   4   3   2   1   0",
        "  player_1 inner  [   0   3   2   2   3   3   2   2 ]  pits   8   9  10  11  12  13  14  15",
        "  player_0 inner  [   0   2   2   2   0   0   1   2 ]  pits  15  14  13  12  11  10   9   8",
        "  player_0 outer  [   3   3   1   3   0   2   2   2 ]  pits   0   1   2   3   4   5   6   7",
    ]
    assert env.render().splitlines()[0].startswith("omweso_v0  turn 3  ply 2  player_1 to move")


def test_ansi_render_of_a_resow_choice():
    env = start(*RS, render_mode="ansi")
    env.step(17)
    text = env.render().splitlines()
    assert text[0] == (
        "omweso_v0  turn 2  ply 1  player_0 to choose mid-turn: re-sow the captured seeds from pit 1: "
        "1 counter-clockwise or 17 clockwise"
    )
    assert text[-1] == "  captured so far: player_0 3, player_1 0"
