"""Positions in the games' notation, and snapshots that restore a game exactly.

The notation tests pin the exact strings (they are a file format users keep in experiment logs);
the snapshot tests play on from a restored env and demand the same trajectory, random draws
included.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.envs.registration import VARIANTS

from support.contract import plain

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")


def legal(env: Any) -> list[int]:
    return np.flatnonzero(env.last()[0]["action_mask"]).tolist()


def play(env: Any, rng: np.random.Generator, plies: int) -> list[int]:
    """Plays up to ``plies`` random legal actions; returns them."""
    actions = []
    for _ in range(plies):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        action = int(rng.choice(legal(env)))
        env.step(action)
        actions.append(action)
    return actions


# --- the notation ------------------------------------------------------------------------------------------
OPENINGS = [
    ("ouril_v0", {}, "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"),
    ("mancala/ouril-mini-v0", {}, "4,4,4,4/4,4,4,4 0,0 0"),
    ("urim_v0", {}, "3,3,3,3,3,3/3,3,3,3,3,3 0,0 0"),
    ("mancala/urim7-v0", {}, "3,3,3,3,3,3,3/3,3,3,3,3,3,3 0,0 0"),
    ("modiar_v0", {}, "7,7,7/7,7,7 0,0 0 first_move_done=0"),
    ("rio_kadalis_v0", {}, "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"),
    (
        "omweso_v0",
        {},
        "4,4,4,4,4,4,4,4,0,0,0,0,0,0,0,0/4,4,4,4,4,4,4,4,0,0,0,0,0,0,0,0 0,0 0 turn=0 first_capture_done=0",
    ),
    (
        "omweso_v0",
        {"setup": "placement"},
        "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 0,0 0 turn=0 first_capture_done=0 "
        "phase=placement",
    ),
]


@pytest.mark.parametrize(("env_id", "options", "expected"), OPENINGS)
def test_opening_notation(env_id: str, options: dict, expected: str) -> None:
    env = mancala_envs.make(env_id, first_player=0, **options)
    env.reset(seed=0)
    assert env.position() == expected
    fresh = mancala_envs.make(env_id, **options)
    fresh.reset(options={"position": expected})
    assert fresh.position() == expected
    assert fresh.agent_selection == "player_0"
    assert legal(fresh) == legal(env)
    assert np.array_equal(fresh.observe("player_0")["observation"], env.observe("player_0")["observation"])


def test_notation_reads_board_stores_and_player() -> None:
    env = mancala_envs.make("urim_v0", illegal_action="raise")
    env.reset(options={"position": "2,1,0,3,0,4/1,3,1,2,4,0 8,7 0"})
    assert env.board.tolist() == [2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0]
    assert env.stores.tolist() == [8, 7] and env.agent_selection == "player_0"
    env.step(5)  # the Urim example of the README: a chain of three captures
    assert env.position() == "2,1,0,3,0,0/0,0,0,0,4,0 19,7 1"


@pytest.mark.parametrize("env_id", IDS)
def test_every_position_of_a_game_round_trips(env_id: str) -> None:
    """Along a random game, position() loads back to the same notation, mask and agent to move."""
    env = mancala_envs.make(env_id)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(60):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        text = env.position()
        copy = mancala_envs.make(env_id)
        copy.reset(options={"position": text})
        assert copy.position() == text
        assert copy.agent_selection == env.agent_selection
        assert legal(copy) == legal(env)
        play(env, rng, 1)


def test_omweso_mid_turn_choice_is_part_of_the_position() -> None:
    """W9 of the rules: after pit 11 the mover chooses at pit 15; the notation carries that choice."""
    p0 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2]
    p1 = [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
    env = mancala_envs.make("omweso_v0", illegal_action="raise")
    env.reset(options={"board": p0 + p1, "player": 0})
    env.step(11)
    text = env.position()
    assert text == (
        "2,2,0,3,0,2,2,2,2,1,0,0,2,2,2,3/4,2,2,3,3,2,2,4,0,3,2,2,3,3,2,2 0,0 0 "
        "turn=2 first_capture_done=1 pending=relay:15:11 turn_captures=0 laps=1"
    )
    resumed = mancala_envs.make("omweso_v0", illegal_action="raise")
    resumed.reset(options={"position": text})
    assert resumed.agent_selection == "player_0" and legal(resumed) == [15, 31]
    assert resumed.unwrapped.facts()["pending"] == env.unwrapped.facts()["pending"]
    for each in (env, resumed):
        each.step(31)  # the clockwise branch: capture 5, re-sown counter-clockwise
        assert each.board.tolist()[:16] == [3, 3, 1, 4, 1, 2, 2, 2, 2, 1, 0, 0, 3, 3, 3, 0]
        assert each.board.tolist()[16:] == [4, 2, 2, 3, 0, 2, 2, 4, 0, 3, 2, 0, 3, 3, 2, 2]
        assert each.agent_selection == "player_1"


def test_omweso_resow_choice_with_seeds_in_hand_round_trips() -> None:
    """A re-sow choice keeps the captured seeds in hand: board 64 - hand, restored with the pending flag."""
    env = mancala_envs.make("omweso_v0")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20_000):  # random games until a re-sow choice turns up (about one game in ten has one)
        if not env.agents:
            env.reset()
        observation, _, terminated, truncated, _ = env.last()
        info = env.unwrapped.facts()
        if terminated or truncated:
            env.step(None)
            continue
        if info["pending"] is not None and info["pending"]["kind"] == "resow":
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    info = env.unwrapped.facts()
    assert info["pending"]["kind"] == "resow"
    hand = info["seeds_in_hand"]
    assert hand >= 2 and sum(env.board) + hand == 64
    text = env.position()
    assert f"pending=resow:{info['pending']['pit']}:{hand}" in text
    resumed = mancala_envs.make("omweso_v0")
    resumed.reset(options={"position": text})
    assert resumed.unwrapped.facts()["seeds_in_hand"] == hand
    assert resumed.position() == text and legal(resumed) == legal(env)


def test_omweso_placement_phase_round_trips() -> None:
    env = mancala_envs.make("mancala/omweso-placement-v0", first_player=1, illegal_action="raise")
    env.reset(seed=0)
    for pit in [3, 3, 3, 15, 0]:
        env.step(pit)
    text = env.position()
    assert text.endswith(" 0,0 1 turn=0 first_capture_done=0 phase=placement")
    resumed = mancala_envs.make("mancala/omweso-placement-v0", illegal_action="raise")
    resumed.reset(options={"position": text})
    assert resumed.agent_selection == "player_1"
    assert resumed.observe("player_1")["observation"][34] == 27  # seeds_to_place
    for each in (env, resumed):
        for _ in range(27):
            each.step(7)  # pit 7 takes 10 at most: the mask moves on to the other pits
            if legal(each)[-1] != 7 and each.agent_selection == "player_1":
                each.step(legal(each)[0])
                break
    assert resumed.position() == env.position()
    with pytest.raises(ValueError, match="setup='placement'"):
        mancala_envs.make("omweso_v0").reset(options={"position": text})


def test_rio_kadalis_match_position_carries_closed_pits_and_reserves() -> None:
    env = mancala_envs.make("mancala/rio-kadalis-match-v0", illegal_action="raise")
    text = "0,0,4,4,4,4/4,4,4,4,4,4 0,0 0 closed=0,1 reserves=3,5"
    env.reset(options={"position": text})
    assert env.position() == text
    assert legal(env) == [2, 3, 4, 5]
    assert env.unwrapped.facts()["closed_pits"] == [0, 1] and env.unwrapped.facts()["reserves"] == [3, 5]
    with pytest.raises(ValueError, match="only in a match"):
        mancala_envs.make("rio_kadalis_v0").reset(options={"position": text})
    with pytest.raises(ValueError, match="closed pit 2 holds 4 seeds"):
        env.reset(options={"position": "0,0,4,4,4,4/4,4,4,4,4,4 0,0 0 closed=2 reserves=3,5"})


def test_modiar_first_move_flag_restores_the_first_move_rule() -> None:
    opening = mancala_envs.make("modiar_v0", first_player=0)
    opening.reset(seed=0)
    loaded = mancala_envs.make("modiar_v0")
    loaded.reset(options={"position": "7,7,7/7,7,7 0,0 0 first_move_done=0"})
    later = mancala_envs.make("modiar_v0")
    later.reset(options={"position": "7,7,7/7,7,7 0,0 0"})
    first_move = loaded.unwrapped.game.observation_names().index("first_move")
    assert loaded.observe("player_0")["observation"][first_move] == 1
    assert later.observe("player_0")["observation"][first_move] == 0
    assert np.array_equal(loaded.observe("player_0")["observation"], opening.observe("player_0")["observation"])


# --- snapshots ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_snapshot_through_json_continues_identically(env_id: str) -> None:
    env = mancala_envs.make(env_id)
    env.reset(seed=4)
    play(env, np.random.default_rng(4), 7)
    snapshot = json.loads(json.dumps(env.state_dict()))
    restored = mancala_envs.make(env_id)
    restored.reset(seed=99)  # whatever it held before is replaced
    restored.load_state_dict(snapshot)
    assert np.array_equal(restored.unwrapped.state_array, env.unwrapped.state_array)
    assert plain(restored.infos) == plain(env.infos) and restored.facts() == env.facts()
    assert restored.agent_selection == env.agent_selection
    for _ in range(3):  # the rest of the game, then fresh games drawn by the snapshot's generator
        rngs = [np.random.default_rng(5), np.random.default_rng(5)]
        trajectories = []
        for each, rng in zip((env, restored), rngs, strict=True):
            steps = []
            for agent in each.agent_iter(each.unwrapped.game.max_episode_plies + 10):
                observation, reward, terminated, truncated, _info = each.last()
                action = (
                    None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
                )
                each.step(action)
                steps.append((agent, action, reward, terminated, truncated, each.position()))
            trajectories.append(steps)
            each.reset()  # unseeded: the first player comes from the restored generator
            trajectories.append(each.agent_selection)
        assert trajectories[0] == trajectories[2] and trajectories[1] == trajectories[3]


def test_snapshot_before_reset_is_refused() -> None:
    env = mancala_envs.make("ouril_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.state_dict()
    with pytest.raises(RuntimeError, match="reset"):
        env.position()


def test_omweso_position_at_the_turn_cap_is_not_a_starting_position() -> None:
    """A game the turn cap ended prints turn=max_turns; reset refuses it (turn is 0 .. max_turns - 1),
    while its snapshot, a state the game reached, loads."""
    env = mancala_envs.make("omweso_v0", max_turns=1, first_player=0)
    env.reset(seed=0)
    env.step(0)
    assert env.truncations == {"player_0": True, "player_1": True}
    text = env.position()
    assert " turn=1 " in text
    loaded = mancala_envs.make("omweso_v0", max_turns=1)
    loaded.reset(seed=0)
    with pytest.raises(ValueError, match=r"turn=1 is out of range; use an integer >= 0 and <= 0"):
        loaded.reset(options={"position": text})
    loaded.load_state_dict(env.state_dict())
    assert loaded.truncations == {"player_0": True, "player_1": True}
    assert loaded.unwrapped.facts()["end_reason"] == "max_turns" and loaded.position() == text
