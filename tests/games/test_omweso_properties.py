"""Property tests of Omweso (docs/rules/omweso.md) against ``tests/support/omweso_reference.py``.

The referee there is a plain-Python Omweso written from the rules page alone.
Random games are played in lockstep in the PettingZoo env (or the engine) and
in the referee; after every ply the two must agree on the whole board, the
capture tallies, the legal set (== the mask of the agent to move), the agent to
move, the pending mid-turn choice, the seeds in hand, turns and laps, and at the
end on the end reason, winner, points and rewards. They also agree on what the
ply did (``infos["last_move"]``: the pits sown in order and the captures).

Starts: the ``outer4`` opening, ``two_each``, the placement phase, and
hypothesis-drawn arbitrary positions (64 seeds over 32 pits, any player, turn
and ``first_capture_done``), under many configs (no mid-turn reverse, re-sow
into the anchor, akakyala, no front-row clear, captures from turn 0, tiny lap
and turn caps, matches).

Properties checked on every ply besides the comparison:

* ``board.sum() + infos["seeds_in_hand"] == 64``;
* every clockwise lap ends in a capture (the referee refuses to sow one that
  does not, and the engine's sowing trace of every clockwise action is checked:
  its first lap goes clockwise from the chosen pit and captures at its end);
* a decision point leaves the same agent to move with exactly ``{k, 16 + k}``,
  ``k`` in ``{0, 1, 14, 15}``;
* ``infos["laps"] <= max_laps_per_turn`` (longer turns are annulled);
* observations lie in the observation space, and the agent not to move has an
  all-zero mask.

Each hypothesis property runs a small budget by default and a larger one
marked ``slow``. With ``NUMBA_DISABLE_JIT=1`` the default budgets shrink.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import note
from hypothesis import strategies as st

from mancala_envs.engine.state import ILLEGAL, OK, RUNNING, STATUS, TERMINATED, TRUNCATED
from mancala_envs.engine.trace import SOWN_CAPACITY, new_trace, read_trace
from mancala_envs.envs import omweso_v0
from mancala_envs.games.omweso import Omweso, OmwesoConfig

from support.omweso_reference import LEFT4, CWLapDidNotCapture, Referee, Rules
from support.properties import quick_and_slow

TOTAL = 64
RING = 16
AGENTS = ("player_0", "player_1")
STATUS_NAMES = {RUNNING: "running", TERMINATED: "terminated", TRUNCATED: "truncated"}
WIN_TYPES = {
    "no_legal_move": "bulijo",
    "emitwe_ebiri": "emitwe_ebiri",
    "front_row_clear": "front_row_clear",
    "akakyala": "akakyala",
    "akawumbi": "akawumbi",
}
JIT_OFF = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def budget(jit: int, no_jit: int) -> int:
    """Example counts: compiled engine vs the pure-Python engine of ``NUMBA_DISABLE_JIT=1``."""
    return no_jit if JIT_OFF else jit


# --- configs and positions --------------------------------------------------------------------------

NAMED_CONFIGS = {
    "default": {},
    "two_each": {"setup": "two_each"},
    "placement": {"setup": "placement"},
    "placement_cap_2": {"setup": "placement", "placement_cap": 2},
    "no_midturn_reverse": {"midturn_reverse": False},
    "resow_into_anchor": {"resow_into_anchor": True},
    "akakyala": {"akakyala_rule": True},
    "no_front_row_clear": {"front_row_clear_2pts": False},
    "captures_from_turn_0": {"no_capture_turns": 0, "setup": "two_each"},
    "no_three_seed": {"three_seed_opening": False, "setup": "placement"},
    "lap_cap_3": {"max_laps_per_turn": 3},
    "lap_cap_1": {"max_laps_per_turn": 1, "setup": "two_each"},
    "max_turns_7": {"max_turns": 7},
    "match_3": {"match_target": 3},
    "match_12_max_games_3": {"match_target": 12, "max_games": 3, "setup": "two_each"},
    "match_small_caps": {"match_target": 2, "max_laps_per_turn": 4, "max_turns": 30, "akakyala_rule": True},
}


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    """Any config; the defaults weigh more."""
    return {
        "setup": draw(st.sampled_from(["outer4", "outer4", "two_each", "placement"])),
        "placement_cap": draw(st.sampled_from([10, 10, 2, 3])),
        "midturn_reverse": draw(st.sampled_from([True, True, False])),
        "three_seed_opening": draw(st.sampled_from([True, True, False])),
        "no_capture_turns": draw(st.sampled_from([2, 2, 0, 1, 5])),
        "resow_into_anchor": draw(st.booleans()),
        "front_row_clear_2pts": draw(st.sampled_from([True, True, False])),
        "akakyala_rule": draw(st.booleans()),
        "match_target": draw(st.sampled_from([None, None, 1, 3, 12])),
        "max_games": draw(st.sampled_from([100, 2])),
        "max_laps_per_turn": draw(st.sampled_from([2000, 2000, 40, 4, 1])),
        "max_turns": draw(st.sampled_from([2000, 2000, 40, 3, 1])),
    }


@st.composite
def positions(draw: st.DrawFn, config: dict[str, Any]) -> dict[str, Any]:
    """Reset options for an arbitrary position: 64 seeds dropped into a random set of pits."""
    support = sorted(draw(st.sets(st.integers(0, 2 * RING - 1), min_size=1)))
    drops = draw(st.lists(st.sampled_from(support), min_size=TOTAL, max_size=TOTAL))
    board = [0] * (2 * RING)
    for pit in drops:
        board[pit] += 1
    max_turns = config.get("max_turns", 2000)
    no_capture_turns = config.get("no_capture_turns", 2)
    return {
        "board": board,
        "player": draw(st.integers(0, 1)),
        "turn": draw(st.integers(0, min(max_turns - 1, no_capture_turns + 2))),
        "first_capture_done": draw(st.booleans()),
        "stores": [draw(st.integers(0, 40)), draw(st.integers(0, 40))],
    }


def referee_for(config: dict[str, Any], start: dict[str, Any] | None, first_player: int) -> Referee:
    rules = Rules(**config)
    if start is None:
        return Referee.start(rules, first_player)
    return Referee.load(
        rules,
        start["board"],
        start["player"],
        start.get("turn"),
        start.get("first_capture_done", True),
        start.get("stores", (0, 0)),
    )


# --- the referee itself, on the rules page's worked examples (docs/rules/omweso.md) ------------------------

P1_OUTER4 = [4] * 8 + [0] * 8
W2 = [6, 2, 0, 2, 4, 1, 1, 2, 1, 2, 0, 1, 0, 2, 1, 0] + [3, 2, 2, 3, 6, 4, 3, 2, 2, 3, 0, 1, 2, 3, 1, 2]
W3 = [1, 3, 0, 2, 1, 2, 0, 3, 2, 1, 0, 2, 1, 0, 2, 2] + [3, 2, 2, 3, 3, 2, 3, 4, 4, 2, 3, 0, 3, 4, 2, 2]
W6 = [3, 5, 4, 4, 4, 4, 4, 4] + [0] * 8 + P1_OUTER4
W7 = [4, 4, 4, 4, 4, 4, 2, 3, 1, 0, 4, 4, 4, 4, 4, 7] + [1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2]
W8 = [3, 2, 2, 1, 4, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0, 1] + [6, 2, 2, 3, 2, 3, 3, 2, 2, 3, 3, 3, 3, 2, 2, 5]
W9 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2] + [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
W10 = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 1, 2] + [7, 7, 7, 7, 7, 6, 6, 6] + [0] * 8


def loaded(board: list[int], **extra: Any) -> dict[str, Any]:
    return {"board": board, "player": 0, **extra}


WORKED_EXAMPLES = [
    # (id, config, start (None: the opening, player 0 first), actions, expected facts afterwards)
    ("W1", {}, None, [0], {"board": [0, 5, 5, 5, 0, 5, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0] + P1_OUTER4, "player": 1}),
    ("W1 pit 1", {}, None, [1], {"board": [4, 0, 5, 5, 5, 0, 5, 5, 1, 1, 1, 0, 0, 0, 0, 0] + P1_OUTER4}),
    (
        "W2",
        {},
        loaded(W2),
        [4],
        {
            "board": [6, 2, 0, 2, 0, 4, 4, 0, 4, 4, 1, 2, 1, 2, 1, 0]
            + [0, 0, 2, 3, 6, 4, 3, 2, 2, 3, 0, 1, 2, 3, 0, 0],
            "captured": [8, 0],
            "laps": 4,
        },
    ),
    (
        "W3",
        {},
        loaded(W3),
        [17],
        {
            "board": [2, 0, 1, 3, 2, 3, 1, 3, 2, 1, 0, 2, 1, 0, 3, 3]
            + [3, 2, 2, 3, 3, 2, 0, 4, 4, 0, 3, 0, 3, 4, 2, 2],
            "captured": [5, 0],
            "cw_laps": [True],
        },
    ),
    ("W4", {}, loaded(W3), [], {"legal": {1, 3, 5, 7, 8, 11, 14, 15, 17}}),
    (
        "W4 before the first capture",
        {},
        loaded(W3, first_capture_done=False),
        [],
        {"legal": {1, 3, 5, 7, 8, 11, 14, 15, 17, 33, 39}},
    ),
    (
        "W5",
        {"setup": "two_each"},
        None,
        [6],
        {"board": [3, 0, 3, 3, 0, 3, 1, 0, 1, 4, 4, 1, 3, 3, 0, 3] + [2] * 16, "captured": [0, 0]},
    ),
    (
        "W5 captures enabled",
        {"setup": "two_each", "no_capture_turns": 0},
        None,
        [6],
        {
            "board": [3, 3, 0, 3, 3, 0, 1, 6, 0, 5, 1, 5, 5, 5, 1, 3]
            + [0, 2, 0, 2, 2, 2, 0, 2, 2, 0, 2, 2, 2, 0, 2, 0],
            "captured": [12, 0],
        },
    ),
    (
        "W6",
        {"setup": "placement"},
        loaded(W6, turn=0, first_capture_done=False),
        [32],
        {"board": [0, 7, 5, 4, 4, 4, 4, 4] + [0] * 8 + P1_OUTER4, "player": 1},
    ),
    (
        "W6 normal sowing",
        {"setup": "placement"},
        loaded(W6, turn=0, first_capture_done=False),
        [0],
        {"board": [0, 6, 5, 0, 5, 5, 5, 5, 1] + [0] * 7 + P1_OUTER4},
    ),
    (
        "W7",
        {},
        loaded(W7),
        [6],
        {
            "board": [4, 4, 4, 4, 4, 4, 0, 5, 3, 1, 4, 4, 4, 4, 4, 7]
            + [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
            "status": "terminated",
            "end_reason": "no_legal_move",
            "winner": 0,
            "points": [1, 0],
        },
    ),
    (
        "W8 decision point",
        {},
        loaded(W8),
        [4],
        {
            "captured": [32, 0],
            "player": 0,
            "legal": {14, 30},
            "pending": {"kind": "relay", "pit": 14, "seeds": 3, "anchor": 8, "actions": [14, 30]},
        },
    ),
    (
        "W8",
        {},
        loaded(W8),
        [4, 14],
        {
            "board": [4, 0, 3, 2, 1, 4, 4, 5, 0, 5, 5, 5, 5, 4, 0, 3]
            + [0, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 0],
            "captured": [32, 0],
            "end_reason": "emitwe_ebiri",
            "winner": 0,
            "points": [2, 0],
        },
    ),
    ("W8 clockwise", {}, loaded(W8), [4, 30], {"end_reason": "emitwe_ebiri", "winner": 0, "points": [2, 0]}),
    (
        "W8 no midturn reverse",
        {"midturn_reverse": False},
        loaded(W8),
        [4],
        {
            "board": [4, 0, 3, 2, 1, 4, 4, 5, 0, 5, 5, 5, 5, 4, 0, 3]
            + [0, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 0],
            "end_reason": "emitwe_ebiri",
        },
    ),
    (
        "W9 decision point",
        {},
        loaded(W9),
        [11],
        {
            "player": 0,
            "legal": {15, 31},
            "pending": {"kind": "relay", "pit": 15, "seeds": 3, "anchor": 11, "actions": [15, 31]},
        },
    ),
    (
        "W9 counter-clockwise",
        {},
        loaded(W9),
        [11, 15],
        {"board": [3, 3, 1, 3, 0, 2, 2, 2, 2, 1, 0, 0, 2, 2, 2, 0] + W9[16:], "player": 1},
    ),
    (
        "W9 clockwise",
        {},
        loaded(W9),
        [11, 31],
        {
            "board": [3, 3, 1, 4, 1, 2, 2, 2, 2, 1, 0, 0, 3, 3, 3, 0]
            + [4, 2, 2, 3, 0, 2, 2, 4, 0, 3, 2, 0, 3, 3, 2, 2],
            "captured": [5, 0],
            "player": 1,
            "cw_laps": [True],
        },
    ),
    (
        "W9 no midturn reverse",
        {"midturn_reverse": False},
        loaded(W9),
        [11],
        {"board": [3, 3, 1, 3, 0, 2, 2, 2, 2, 1, 0, 0, 2, 2, 2, 0] + W9[16:], "player": 1},
    ),
    (
        "W10",
        {},
        loaded(W10),
        [15],
        {
            "board": W10,
            "status": "terminated",
            "end_reason": "endless_move",
            "winner": None,
            "points": [0, 0],
            "laps": 128,
        },
    ),
]


def referee_facts(referee: Referee) -> dict[str, Any]:
    return {
        "board": referee.board,
        "captured": referee.captured,
        "player": referee.player,
        "legal": referee.legal(),
        "pending": referee.pending_view(),
        "status": referee.status,
        "end_reason": referee.end_reason,
        "winner": referee.winner,
        "points": referee.points,
        "laps": referee.laps,
        "cw_laps": referee.cw_laps,
    }


@pytest.mark.parametrize(
    ("config", "start", "actions", "expected"), [pytest.param(*case[1:], id=case[0]) for case in WORKED_EXAMPLES]
)
def test_referee_reproduces_the_worked_examples(config: dict, start: dict | None, actions: list, expected: dict):
    """The oracle is only worth trusting if it gets docs/rules/omweso.md right; the env is then checked beside it."""
    referee = referee_for(config, start, 0)
    env = make_env(config, start, 0)
    check_env(env, referee)
    for action in actions:
        step_both(env, referee, action)
    facts = referee_facts(referee)
    assert {key: facts[key] for key in expected} == expected


def test_referee_refuses_a_clockwise_lap_that_does_not_capture():
    """The guard behind "every clockwise lap captures": force W4's refused reverse 31 past the mask."""
    referee = Referee.load(Rules(), W3, 0)
    referee.legal = lambda: {31}  # type: ignore[method-assign]
    with pytest.raises(CWLapDidNotCapture):
        referee.play(31)


# --- the env beside the referee -------------------------------------------------------------------


def make_env(config: dict[str, Any], start: dict[str, Any] | None, seed: int, **env_options: Any) -> Any:
    first = start["player"] if start is not None else seed % 2
    env = omweso_v0.env(first_player=first, illegal_action="raise", **env_options, **config)
    env.reset(seed=seed, options=start)
    return env


def check_observations(env: Any, referee: Referee) -> None:
    """Observations inside their space, the mask of the mover == the referee's legal set, others all zero."""
    game = env.unwrapped.game
    names = game.observation_names()
    running = referee.status == "running"
    for p, agent in enumerate(AGENTS):
        seen = env.observe(agent)
        assert env.observation_space(agent).contains(seen), f"{agent}'s observation is outside its space"
        mask = seen["action_mask"]
        obs = dict(zip(names, seen["observation"].tolist(), strict=True))
        assert [obs[f"own_pit_{k}"] for k in range(RING)] == referee.pits[p]
        assert [obs[f"opponent_pit_{k}"] for k in range(RING)] == referee.pits[1 - p]
        to_move = running and referee.player == p
        assert obs["is_to_move"] == int(to_move)
        if to_move:
            assert set(np.flatnonzero(mask).tolist()) == referee.legal()
        else:
            assert not mask.any(), f"{agent} is not to move but has a non-zero mask"
        if running:
            assert obs["turn"] == referee.turn
            assert obs["captures_enabled"] == int(referee.captures_enabled)
            assert obs["first_capture_done"] == int(referee.first_capture_done)
            assert obs["placement_phase"] == int(referee.phase == "placement")
            if referee.phase == "placement" and to_move:
                assert obs["seeds_to_place"] == referee.seeds_to_place()
            assert obs["own_capturing_turns"] == min(referee.capture_turns[p], 2)
            assert obs["opponent_capturing_turns"] == min(referee.capture_turns[1 - p], 2)
            pending = referee.pending_view() if to_move else None  # only the mover sees the choice
            assert obs["pending_choice"] == int(pending is not None)
            if pending is not None:
                assert obs["pending_pit"] == pending["pit"]
                assert obs["pending_seeds"] == pending["seeds"]
                assert obs["pending_is_resow"] == int(pending["kind"] == "resow")
                assert obs["anchor"] == pending["anchor"]
                assert obs["captured_this_turn"] == int(referee.turn_captured)
                assert obs["captured_column_0_this_turn"] == int(15 in referee.captured_at)
                assert obs["captured_column_7_this_turn"] == int(8 in referee.captured_at)


def check_env(env: Any, referee: Referee) -> None:
    """Everything an agent can see agrees with the referee."""
    info = env.unwrapped.facts()
    assert env.infos["player_1"]["ply"] == env.infos["player_0"]["ply"] == info["ply"]
    running = referee.status == "running"
    rules = referee.rules
    board = env.board
    assert board.tolist() == referee.board
    assert env.stores.tolist() == referee.captured
    assert info["seeds_in_hand"] == referee.hand
    if running and referee.phase == "placement":  # the seeds not yet placed are the only ones off the board
        waiting = RING * 2 - sum(referee.pits[referee.player]) + (RING * 2 if referee.player == referee.starter else 0)
        assert int(board.sum()) + waiting == TOTAL
    else:
        assert int(board.sum()) + info["seeds_in_hand"] == TOTAL
    assert info["seeds_on_side"] == [sum(referee.pits[0]), sum(referee.pits[1])]
    assert info["pending"] == referee.pending_view()
    assert info["turn"] == referee.turn
    assert info["laps"] == referee.laps
    assert info["laps"] <= rules.max_laps_per_turn
    assert info["first_capture_done"] == referee.first_capture_done
    assert info["captures_enabled"] == referee.captures_enabled
    assert info["end_reason"] == referee.end_reason
    assert info["winner"] == (None if running else referee.winner)
    assert info["scores"] == (referee.captured if running else referee.game_scores)
    assert info["match_points"] == (referee.match if rules.match_target is not None else referee.points)
    assert info["games_played"] == referee.games_played
    assert info["last_game_end"] == referee.last_game_end
    assert info["annulled"] == (referee.last_game_end == "endless_move")
    assert info["win_type"] == WIN_TYPES.get(referee.last_game_end)
    assert env.terminations["player_0"] == (referee.status == "terminated")
    assert env.truncations["player_0"] == (referee.status == "truncated")
    if running:
        assert info["player_to_move"] == referee.player
        assert env.agent_selection == AGENTS[referee.player]
        assert info["phase"] == referee.phase
    check_observations(env, referee)


def check_clockwise_trace(before: Referee, action: int, last_move: dict[str, Any]) -> None:
    """A clockwise action's first lap runs clockwise from its pit and captures at its last pit."""
    p, q = before.player, 1 - before.player
    k = action - RING
    if before.pending is not None and before.pending["kind"] == "resow":
        hand = before.hand
        first = k if before.rules.resow_into_anchor else k - 1
    else:
        hand = before.pits[p][k]
        first = k - 1
    if not last_move["sown"]:  # the lap cap struck before the lap: the game is annulled, nothing was sown
        assert before.laps >= before.rules.max_laps_per_turn
        return
    path = [(first - i) % RING for i in range(hand)]
    assert last_move["sown"][:hand] == [RING * p + pit for pit in path]
    last = path[-1]
    assert last >= 8, "a clockwise lap ended outside the inner row"
    captured = last_move["captures"][:2]
    assert sorted(pit for pit, _ in captured) == sorted([RING * q + 23 - last, RING * q + last - 8])
    assert all(seeds > 0 for _, seeds in captured)


def step_both(env: Any, referee: Referee, action: int) -> None:
    """One ply in both, then the properties of the ply."""
    before = referee.clone()
    mover = env.agent_selection
    env.step(action)
    referee.play(action)
    last_move = env.unwrapped.facts()["last_move"]
    assert last_move == {
        "player": before.player,
        "action": action,
        "sown": referee.sown[:SOWN_CAPACITY],
        "captures": referee.captures,
    }
    assert all(referee.cw_laps)
    if before.phase == "sowing" and RING <= action < 2 * RING:
        check_clockwise_trace(before, action, last_move)
    check_env(env, referee)
    pending = env.unwrapped.facts()["pending"]
    if pending is not None:
        k = pending["pit"]
        assert k in LEFT4
        assert env.agent_selection == mover
        assert set(np.flatnonzero(env.observe(mover)["action_mask"]).tolist()) == {k, RING + k}


def final_rewards_agree(env: Any, referee: Referee, reward_mode: str) -> None:
    if reward_mode == "match_points":
        points = referee.match if referee.rules.match_target is not None else referee.points
        expected = {AGENTS[p]: points[p] - points[1 - p] for p in range(2)}
    elif referee.winner is None:
        expected = dict.fromkeys(AGENTS, 0)
    else:
        expected = {AGENTS[referee.winner]: 1, AGENTS[1 - referee.winner]: -1}
    assert env.rewards == expected


def play_lockstep(
    config: dict[str, Any],
    start: dict[str, Any] | None,
    seed: int,
    max_plies: int,
    reward_mode: str = "win_loss",
    log: Callable[[str], None] | None = None,
) -> Referee:
    """Random legal plies in the env and the referee, compared after each; returns the referee."""
    referee = referee_for(config, start, seed % 2)
    env = make_env(config, start, seed, reward_mode=reward_mode)
    check_env(env, referee)
    rng = random.Random(seed)
    for _ in range(max_plies):
        if referee.status != "running":
            final_rewards_agree(env, referee, reward_mode)
            break
        action = rng.choice(sorted(referee.legal()))
        if log is not None:
            log(
                f"board {referee.board} player {referee.player} turn {referee.turn} pending {referee.pending} "
                f"plays {action}"
            )
        step_both(env, referee, action)
    return referee


@pytest.mark.parametrize("name", sorted(NAMED_CONFIGS))
def test_random_games_match_the_referee(name: str):
    """Whole seeded random games under each named config (a match is cut after a few hundred plies)."""
    config = NAMED_CONFIGS[name]
    for seed in range(budget(10, 4)):
        play_lockstep(config, None, seed, 400, reward_mode=("win_loss", "match_points")[seed % 2])


def check_games_from_any_config(config: dict[str, Any], seed: int, reward_mode: str) -> None:
    play_lockstep(config, None, seed, 300, reward_mode, log=note)


test_games_from_any_config_match_the_referee, test_games_from_any_config_match_the_referee_longer = quick_and_slow(
    budget(150, 60),
    1000,
    config=configs(),
    seed=st.integers(0, 2**32 - 1),
    reward_mode=st.sampled_from(["win_loss", "match_points"]),
)(check_games_from_any_config)


def check_games_from_any_position(data: st.DataObject, seed: int) -> None:
    config = data.draw(configs(), label="config")
    start = data.draw(positions(config), label="position")
    play_lockstep(config, start, seed, 60, log=note)


test_games_from_any_position_match_the_referee, test_games_from_any_position_match_the_referee_longer = quick_and_slow(
    budget(300, 120), 2000, data=st.data(), seed=st.integers(0, 2**32 - 1)
)(check_games_from_any_position)


# --- the engine, every action of a position -----------------------------------------------------


def engine_facts(game: Omweso, state: np.ndarray) -> dict[str, Any]:
    info = game.info(state)
    return {
        "board": game.board(state).tolist(),
        "status": STATUS_NAMES[int(state[STATUS])],
        "legal": set(np.flatnonzero(game.legal_mask(state)).tolist()),
        "player": info["player_to_move"],
        "pending": info["pending"],
        "hand": info["seeds_in_hand"],
        "scores": info["scores"],
        "turn": info["turn"],
        "laps": info["laps"],
        "end_reason": info["end_reason"],
        "winner": info["winner"],
        "points": info["match_points"],
        "games_played": info["games_played"],
    }


def referee_view(referee: Referee) -> dict[str, Any]:
    running = referee.status == "running"
    return {
        "board": referee.board,
        "status": referee.status,
        "legal": referee.legal(),
        "player": referee.player if running else None,
        "pending": referee.pending_view(),
        "hand": referee.hand,
        "scores": referee.captured if running else referee.game_scores,
        "turn": referee.turn,
        "laps": referee.laps,
        "end_reason": referee.end_reason,
        "winner": None if running else referee.winner,
        "points": referee.match if referee.rules.match_target is not None else referee.points,
        "games_played": referee.games_played,
    }


def check_every_action(game: Omweso, state: np.ndarray, referee: Referee) -> None:
    """Each of the 48 actions: refused (state untouched) unless legal, else the referee's result."""
    assert engine_facts(game, state) == referee_view(referee)
    trace = new_trace()
    legal = referee.legal()
    for action in range(game.n_actions):
        trial = state.copy()
        code = game.step(trial, action, trace)
        if action not in legal:
            assert code != OK and np.array_equal(trial, state), f"action {action} should be refused"
            assert code == ILLEGAL or referee.status != "running"
            continue
        assert code == OK
        after = referee.clone()
        after.play(action)
        assert engine_facts(game, trial) == referee_view(after), f"after action {action}"
        sown, captures = read_trace(trace)
        assert (sown, captures) == (after.sown[:SOWN_CAPACITY], after.captures)


def check_every_action_of_reached_positions(data: st.DataObject, seed: int) -> None:
    config = data.draw(configs(), label="config")
    start = data.draw(positions(config), label="position")
    game = Omweso(OmwesoConfig(**config))
    state = np.zeros(game.state_size, np.int64)
    game.load_position(
        state,
        start["board"],
        start["stores"],
        start["player"],
        turn=start["turn"],
        first_capture_done=start["first_capture_done"],
    )
    referee = referee_for(config, start, 0)
    rng = random.Random(seed)
    for _ in range(8):
        check_every_action(game, state, referee)
        legal = sorted(referee.legal())
        if not legal:
            break
        action = rng.choice(legal)
        note(f"board {referee.board} player {referee.player} pending {referee.pending} plays {action}")
        assert game.step(state, action, np.empty(0, np.int64)) == OK
        referee.play(action)


test_every_action_matches_the_referee, test_every_action_matches_the_referee_longer = quick_and_slow(
    budget(120, 50), 600, data=st.data(), seed=st.integers(0, 2**32 - 1)
)(check_every_action_of_reached_positions)


# --- corners found while searching random positions with the referee ----------------------------------

CORNERS = [
    # (id, config, start, actions, expected referee facts afterwards); each is also played in the env
    (
        "the lap cap fires at a re-sow: seeds stay in hand",
        {"max_laps_per_turn": 1},
        {
            "board": [0, 0, 4, 2, 0, 0, 0, 0, 0, 10, 0, 0, 6, 0, 5, 0, 3, 0, 0, 0, 0, 9, 10, 5, 0, 0, 4, 4, 0, 0, 2, 0],
            "player": 1,
        },
        [0, 30],
        {"end_reason": "endless_move", "laps": 1, "hand": 3, "winner": None},
    ),
    (
        "no decision point once the lap cap is reached: the game is annulled",
        {"max_laps_per_turn": 1},
        {
            "board": [7, 0, 3, 2, 0, 2, 0, 0, 0, 4, 4, 0, 5, 2, 4, 2, 0, 3, 0, 1, 2, 0, 0, 2, 2, 5, 0, 2, 3, 0, 3, 6],
            "player": 0,
        },
        [10],
        {"pending_kind": None, "laps": 1, "status": "terminated", "end_reason": "endless_move"},
    ),
    (
        "a re-sow decision point after a clockwise capture",
        {},
        {
            "board": [0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 4, 4, 0, 8, 0, 0, 6, 6, 0, 0, 4, 0, 3, 5, 5, 0, 4, 1, 0, 5, 5],
            "player": 1,
        },
        [5, 14, 30],
        {"pending_kind": "resow", "hand": 2},
    ),
    (
        "akakyala on the second capturing turn",
        {"akakyala_rule": True},
        {
            "board": [6, 0, 0, 3, 0, 4, 7, 5, 1, 0, 0, 1, 2, 0, 4, 0, 1, 0, 0, 4, 0, 7, 0, 0, 0, 0, 5, 4, 0, 4, 4, 2],
            "player": 0,
        },
        [12, 13, 1],
        {"end_reason": "akakyala", "winner": 0, "points": [2, 0]},
    ),
    (
        "akawumbi, re-sowing into the anchor",
        {"resow_into_anchor": True},
        {
            "board": [0, 0, 0, 0, 5, 2, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 5, 0, 0, 6, 6, 0, 5, 0, 3, 2, 6, 0, 1, 6, 4, 7],
            "player": 1,
        },
        [8, 4, 9],
        {"end_reason": "akawumbi", "winner": 1, "points": [0, 12]},
    ),
    (
        "akawumbi ends a match at once",
        {"resow_into_anchor": True, "match_target": 20},
        {
            "board": [0, 0, 0, 0, 5, 2, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 5, 0, 0, 6, 6, 0, 5, 0, 3, 2, 6, 0, 1, 6, 4, 7],
            "player": 1,
        },
        [8, 4, 9],
        {"end_reason": "akawumbi", "winner": 1, "match": [0, 12], "games_played": 1},
    ),
    (
        "a loaded position without a move is lost at once",
        {},
        {"board": [1] * 16 + [16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16], "player": 0},
        [],
        {"end_reason": "no_legal_move", "winner": 1, "points": [0, 1]},
    ),
    (
        "in a match it counts and the other player starts the next game",
        {"match_target": 3},
        {"board": [1] * 16 + [16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16], "player": 0},
        [],
        {
            "status": "running",
            "match": [0, 1],
            "games_played": 1,
            "player": 1,
            "board": [4] * 8 + [0] * 8 + [4] * 8 + [0] * 8,
        },
    ),
]


@pytest.mark.parametrize(
    ("config", "start", "actions", "expected"), [pytest.param(*case[1:], id=case[0]) for case in CORNERS]
)
def test_corner_cases(config: dict, start: dict, actions: list, expected: dict):
    referee = referee_for(config, start, start["player"])
    env = make_env(config, start, 0)
    check_env(env, referee)
    for action in actions:
        step_both(env, referee, action)
    facts = {
        "board": referee.board,
        "status": referee.status,
        "end_reason": referee.end_reason,
        "winner": referee.winner,
        "points": referee.points,
        "match": referee.match,
        "games_played": referee.games_played,
        "player": referee.player,
        "laps": referee.laps,
        "hand": referee.hand,
        "pending_kind": referee.pending["kind"] if referee.pending else None,
    }
    assert {key: facts[key] for key in expected} == expected
    if referee.status != "running":
        final_rewards_agree(env, referee, "win_loss")
