"""Agents by name and agents' arguments (docs/contract.md, "Agents:"): an unknown name lists the names, a
bad seed or something else than an env is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import AGENT_NAMES, GreedyAgent, RandomAgent, make_agent

# --- agents by name ------------------------------------------------------------------------------------------------
NAMES = sorted(AGENT_NAMES)


@pytest.mark.parametrize("name", ["minimax", "Random", "", " greedy", "random_v0"])
def test_unknown_agent_name_lists_the_names(name: str) -> None:
    with pytest.raises(ValueError) as caught:
        make_agent(name)
    message = str(caught.value)
    assert repr(name) in message and str(NAMES) in message


@pytest.mark.parametrize("name", [None, 1, ["random"], RandomAgent, b"random"], ids=repr)
def test_agent_name_of_the_wrong_type_raises_type_error_listing_the_names(name: Any) -> None:
    with pytest.raises(TypeError) as caught:
        make_agent(name)
    message = str(caught.value)
    assert "agent name must be a string" in message and str(NAMES) in message


@pytest.mark.parametrize("build", [make_agent, lambda name, seed: AGENT_NAMES[name](seed)], ids=["make_agent", "class"])
@pytest.mark.parametrize(
    ("seed", "error", "text"),
    [
        ("7", TypeError, "got str '7'"),
        (1.5, TypeError, "got float 1.5"),
        (True, TypeError, "got bool True"),
        ([1, 2], TypeError, "got list"),
        (np.float64(2.0), TypeError, "got float64"),
        (-1, ValueError, "seed must be None or an integer >= 0 (got -1)"),
        (np.int64(-3), ValueError, "seed must be None or an integer >= 0 (got -3)"),
    ],
    ids=["str", "float", "bool", "list", "numpy float", "negative", "numpy negative"],
)
def test_bad_agent_seed(build: Any, seed: Any, error: type, text: str) -> None:
    for name in NAMES:
        with pytest.raises(error) as caught:
            build(name, seed)
        assert text in str(caught.value) and "None" in str(caught.value)


@pytest.mark.parametrize("seed", [None, 0, 2**70, np.int64(5), np.uint8(1)], ids=repr)
def test_accepted_agent_seeds(seed: Any) -> None:
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    for name in NAMES:
        agent = make_agent(name, seed)
        if name in ("perfect", "pretrained"):  # they need a table or weights (tests/agents/test_perfect_agent.py and
            continue  # tests/agents/test_pretrained.py play them)
        assert env.unwrapped.game.legal_mask(env.unwrapped.state_array)[agent.act(env)]


@pytest.mark.parametrize("agent_class", [RandomAgent, GreedyAgent])
@pytest.mark.parametrize("env", [None, "ouril_v0", {"player_0": 1}], ids=["None", "env id", "dict"])
def test_agent_given_something_else_than_an_env(agent_class: type, env: Any) -> None:
    with pytest.raises(TypeError, match=r"act\(\) needs a mancala_envs environment"):
        agent_class(seed=0).act(env)
