"""The env's ``step(action)`` door (docs/contract.md, "`step(action)`" and "before the first `reset()`").

Every bad action (wrong type, out of range, illegal under each policy, after the end, for a done agent, a
one-element array) raises the documented error, says how to fix it and changes nothing: checked on the
env's public attributes (``assert_unchanged``) and on ``state_dict()``, position, infos and the random
generator (``assert_rejected``); calls before the first ``reset()`` raise ``RuntimeError``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pettingzoo
import pytest

import mancala_envs
from mancala_envs import GameOverError, IllegalActionError
from mancala_envs.agents import RandomAgent
from mancala_envs.common.validation import check_action
from mancala_envs.engine.state import END_ILLEGAL_ACTION
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.wrappers import FlattenObservation

from support.actions import legal_action, mid_game
from support.contract import plain
from support.episodes import game_cap, one_game_per_episode
from support.refusals import assert_rejected, assert_unchanged, frozen, position_with_an_empty_pit, snapshot

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")

# --- actions ------------------------------------------------------------------------------------
WRONG_TYPES = {
    "float": 1.0,
    "numpy float": np.float64(1.0),
    "str": "1",
    "None for a live agent": None,
    "bool": True,
    "numpy bool": np.bool_(False),
    "1-d array": np.array([1]),
    "float 0-d array": np.array(1.0),
    "list": [1],
}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("action", list(WRONG_TYPES.values()), ids=list(WRONG_TYPES))
def test_action_of_wrong_type_raises_type_error(env_id: str, action: Any) -> None:
    env = mid_game(env_id)
    before = snapshot(env)
    n_actions = env.unwrapped.game.n_actions
    with pytest.raises(TypeError) as error:
        env.step(action)
    message = str(error.value)
    assert f"0..{n_actions - 1}" in message, f"the message should give the valid actions: {message}"
    assert_unchanged(before, env)
    env.step(legal_action(env))  # the env still works


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("where", ["negative", "n_actions", "far above", "numpy negative"])
def test_action_out_of_range_raises_value_error(env_id: str, where: str) -> None:
    env = mid_game(env_id)
    n_actions = env.unwrapped.game.n_actions
    action = {"negative": -1, "n_actions": n_actions, "far above": 10**9, "numpy negative": np.int64(-2)}[where]
    before = snapshot(env)
    with pytest.raises(ValueError) as error:
        env.step(action)
    assert not isinstance(error.value, IllegalActionError)
    message = str(error.value)
    assert "out of range" in message and f"0..{n_actions - 1}" in message
    legal = np.flatnonzero(env.last()[0]["action_mask"]).tolist()
    assert str(legal) in message, "the message should list the legal actions"
    assert_unchanged(before, env)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(
    "convert",
    [int, np.int8, np.int32, np.int64, np.uint8, lambda a: np.array(a), lambda a: np.array(a, dtype=np.uint16)],
    ids=["int", "int8", "int32", "int64", "uint8", "0-d int64 array", "0-d uint16 array"],
)
def test_accepted_action_forms(env_id: str, convert: Any) -> None:
    reference, env = mid_game(env_id), mid_game(env_id)
    action = legal_action(env)
    reference.step(action)
    env.step(convert(action))
    assert np.array_equal(env.unwrapped.state_array, reference.unwrapped.state_array)
    assert env.agent_selection == reference.agent_selection
    assert plain(env.infos) == plain(reference.infos)
    assert env.unwrapped.facts() == reference.unwrapped.facts()
    assert type(env.infos[AGENTS[0]]["last_action"]) is int and type(env.unwrapped.last_move["action"]) is int


@pytest.mark.parametrize("env_id", IDS)
def test_illegal_action_raises_when_asked(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id, illegal_action="raise")
    env.reset(seed=0)
    env.reset(options=position_with_an_empty_pit(env))
    assert env.agent_selection == "player_0" and env.last()[0]["action_mask"][0] == 0
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as error:
        env.step(0)
    assert isinstance(error.value, ValueError)
    message = str(error.value)
    legal = np.flatnonzero(env.last()[0]["action_mask"]).tolist()
    assert "illegal" in message and str(legal) in message and "action_mask" in message
    assert_unchanged(before, env)
    env.step(legal[0])  # the env still works
    assert env.agent_selection == "player_1"


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("offender", [0, 1])
def test_illegal_action_penalty_by_default(env_id: str, offender: int) -> None:
    env = pettingzoo.make("aec", env_id)
    env.reset(seed=0)
    position = position_with_an_empty_pit(env)
    if offender == 1:  # mirror the position: player 1's local pit 0 is empty
        half = env.unwrapped.game.n_pits // 2
        position["board"] = position["board"][half:] + position["board"][:half]
    position["player"] = offender
    env.reset(options=position)
    bad, other = AGENTS[offender], AGENTS[1 - offender]
    assert env.agent_selection == bad and env.last()[0]["action_mask"][0] == 0
    board = env.unwrapped.board
    with pytest.warns(UserWarning, match=f"illegal action 0 by {bad}"):
        env.step(0)
    assert np.array_equal(env.unwrapped.board, board), "an illegal action must not move seeds"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {bad: -1, other: 0}
    for agent in AGENTS:
        assert env.infos[agent]["end_reason"] == END_ILLEGAL_ACTION
        assert env.infos[agent]["winner"] == 1 - offender
    assert env.unwrapped.facts()["end_reason"] == "illegal_action"
    rewards = {}
    for agent in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        assert terminated and not observation["action_mask"].any()
        rewards[agent] = reward
        env.step(None)
    assert rewards == {bad: -1, other: 0}


@pytest.mark.parametrize("env_id", IDS)
def test_step_after_the_game_ended_raises_game_over(env_id: str) -> None:
    game = mancala_envs.make(env_id).unwrapped.game
    env = pettingzoo.make("aec", env_id, **{game_cap(game)[0]: 2}, **one_game_per_episode(game)[0])
    env.reset(seed=0)
    for _agent in env.agent_iter():
        _observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else legal_action(env))
    assert env.agents == []
    before = env.unwrapped.state_array
    for action in (0, None):
        with pytest.raises(GameOverError, match=r"reset\(\)"):
            env.step(action)
    assert np.array_equal(env.unwrapped.state_array, before)
    env.reset(seed=0)  # reset starts a new game
    env.step(legal_action(env))


# --- calls before reset ----------------------------------------------------------------------------------------
BEFORE_RESET_CALLS: dict[str, Callable[[Any], Any]] = {
    "position": lambda env: env.unwrapped.position(),
    "state_dict": lambda env: env.unwrapped.state_dict(),
    "step": lambda env: env.step(0),
    "step(None)": lambda env: env.step(None),
    "observe": lambda env: env.observe("player_0"),
    "render": lambda env: env.render(),
    "agent act": lambda env: RandomAgent(seed=0).act(env),
    "wrapped step": lambda env: FlattenObservation(env).step(0),
    "wrapped observe": lambda env: FlattenObservation(env).observe("player_0"),
    "last": lambda env: env.last(),
}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(
    "call",
    list(BEFORE_RESET_CALLS),
)
def test_call_before_reset_raises_runtime_error(env_id: str, call: str) -> None:
    env = mancala_envs.make(env_id, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        BEFORE_RESET_CALLS[call](env)
    env.reset(seed=0)  # the env works once reset
    env.step(legal_action(env))


# --- rejected steps, measured by state_dict ------------------------------------------------------------------
def ended_by_penalty(env_id: str, steps_after: int) -> Any:
    """An env whose game ended by an illegal action under the default "penalty" policy, followed by
    ``steps_after`` ``step(None)`` calls (2 removes both agents)."""
    env = mancala_envs.make(env_id)
    env.reset(seed=0)
    env.reset(options=position_with_an_empty_pit(env))
    with pytest.warns(UserWarning, match="illegal action 0 by player_0"):
        env.step(0)
    for _ in range(steps_after):
        env.step(None)
    return env


def with_an_illegal_action(env_id: str) -> Any:
    env = mancala_envs.make(env_id, illegal_action="raise")
    env.reset(seed=0)
    env.reset(options=position_with_an_empty_pit(env))
    return env


# kind -> (build the env, the action, exception, texts of the message)
def rejected_step(env_id: str, kind: str) -> tuple[Callable[[], Any], Any, type, tuple[str, ...]]:
    n_actions = mancala_envs.make(env_id).unwrapped.game.n_actions
    return {
        "float": (lambda: mid_game(env_id), 1.0, TypeError, ("not an integer", f"0..{n_actions - 1}")),
        "out of range": (lambda: mid_game(env_id), n_actions, ValueError, ("out of range", f"0..{n_actions - 1}")),
        "illegal, raise policy": (
            lambda: with_an_illegal_action(env_id),
            0,
            IllegalActionError,
            ("illegal", "action_mask", "illegal_action='penalty'"),
        ),
        "action for a done agent": (lambda: ended_by_penalty(env_id, 0), 0, ValueError, ("None",)),
        "after the end": (lambda: ended_by_penalty(env_id, 2), 0, GameOverError, ("reset()",)),
    }[kind]


STEP_KINDS = ["float", "out of range", "illegal, raise policy", "action for a done agent", "after the end"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kind", STEP_KINDS)
def test_rejected_step_changes_nothing_raw_or_wrapped(env_id: str, kind: str) -> None:
    """Each kind of bad action is refused with the same error through FlattenObservation, and neither the
    env's snapshot nor its random generator moves."""
    build, action, error, texts = rejected_step(env_id, kind)
    raw = assert_rejected(build, lambda env: env.step(action), error, *texts)
    wrapped = assert_rejected(lambda: FlattenObservation(build()), lambda env: env.step(action), error, *texts)
    assert type(wrapped) is type(raw) and str(wrapped) == str(raw)


@pytest.mark.parametrize("env_id", IDS)
def test_penalty_policy_through_the_wrapper_ends_the_game_as_unwrapped(env_id: str) -> None:
    raw, wrapped = mancala_envs.make(env_id), FlattenObservation(mancala_envs.make(env_id))
    for env in (raw, wrapped):
        env.reset(seed=0)
        env.reset(options=position_with_an_empty_pit(env))
        with pytest.warns(UserWarning, match="illegal_action='penalty'"):
            env.step(0)
    assert frozen(wrapped) == frozen(raw)
    assert wrapped.rewards == {"player_0": -1, "player_1": 0}


# --- strict parsing: a one-element array is not an action (the AEC env and the single-agent view say the same)
OURIL = "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"

STEP_CASES: dict[str, Any] = {
    "one-element int array": np.array([1]),
    "one-element int32 array": np.array([1], dtype=np.int32),
    "1x1 int array": np.array([[1]]),
}


@pytest.mark.parametrize("case", list(STEP_CASES))
def test_one_element_array_is_refused_by_every_step(case: str) -> None:
    action = STEP_CASES[case]
    assert_rejected(
        lambda: mid_game("mancala/ouril-v0"), lambda env: env.step(action), TypeError, "not an integer action"
    )
    with pytest.raises(TypeError, match="not an integer action"):
        check_action(action, 6)  # what SingleAgentEnv.step calls
    env = SingleAgentEnv("mancala/ouril-v0", learner_seat=0, first_player=0)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="not an integer action"):
        env.step(action)
    assert env.aec_env.position() == OURIL


def test_strict_step_case_count() -> None:
    """The one-element-array cases (reported with the issue "Untrusted files", item 5)."""
    assert len(STEP_CASES) == 3
