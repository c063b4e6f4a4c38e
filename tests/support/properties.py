"""Test helpers for the property tests of the games (tests/games/test_*properties.py).

A property runs twice (:func:`quick_and_slow`); random masked play (:func:`random_action`, :func:`play_out`),
what an agent sees after a step (:func:`trajectory_step`), the actions ``step`` accepts
(:func:`accepted_actions`) and the check that clones of an env continue as it does
(:func:`assert_clones_continue_identically`).
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala_envs.common.errors import IllegalActionError

from support.contract import plain


def quick_and_slow(quick: int, slow: int, **strategies: st.SearchStrategy) -> Callable:
    """Turns a property into two tests: ``quick`` examples by default, ``slow`` examples marked slow."""

    def decorate(body: Callable) -> tuple[Callable, Callable]:
        default = settings(max_examples=quick, deadline=None)(given(**strategies)(body))
        longer = settings(max_examples=slow, deadline=None)(given(**strategies)(body))
        return default, pytest.mark.slow(longer)

    return decorate


def random_action(env: Any, rng: random.Random) -> int | None:
    """A random masked action for ``agent_selection``; ``None`` once it is done."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return None
    mask = env.observe(agent)["action_mask"]
    return rng.choice(np.flatnonzero(mask).tolist())


def accepted_actions(env: Any) -> list[int]:
    """The actions that ``step`` accepts (``illegal_action="raise"``), each tried on a deep copy.

    A refused action must leave the copy exactly as it was.
    """
    accepted = []
    n_actions = env.action_space(env.agent_selection).n
    trial = copy.deepcopy(env)
    for action in range(n_actions):
        try:
            trial.step(action)
        except IllegalActionError:
            assert np.array_equal(trial.unwrapped.state_array, env.unwrapped.state_array)
            continue
        accepted.append(action)
        trial = copy.deepcopy(env)
    return accepted


def trajectory_step(env: Any) -> tuple:
    """Everything an agent can see after a step, in comparable form."""
    observations = {
        agent: {key: value.tolist() for key, value in env.observe(agent).items()} for agent in env.possible_agents
    }
    return (
        env.agent_selection,
        list(env.agents),
        observations,
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        plain(env.infos),
        env.unwrapped.facts(),
    )


def play_out(env: Any, rng: random.Random, steps: int) -> list[tuple]:
    """Up to ``steps`` random masked steps (``None`` for a done agent); what each one left (:func:`trajectory_step`)."""
    record = []
    for _ in range(steps):
        if not env.agents:
            break
        env.step(random_action(env, rng))
        record.append(trajectory_step(env))
    return record


def assert_clones_continue_identically(env: Any, seed: int, before: int) -> None:
    """After ``before`` random steps of ``env`` (reset here with ``seed``), a pickled and a deep-copied clone
    play the rest of the game exactly as ``env`` does with the same random draws."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    play_out(env, rng, before)
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    assert all(type(clone) is type(env) for clone in clones)
    rng_state = rng.getstate()
    records = []
    for each in [env, *clones]:
        rng.setstate(rng_state)
        records.append([trajectory_step(each), *play_out(each, rng, 3000)])
    assert records[0] == records[1] == records[2]
