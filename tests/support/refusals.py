"""Test helpers: what a refused call must leave as it was (docs/contract.md, "Nothing half-applied").

Two views of an env's state, for the validation tests in ``tests/doors``: :func:`snapshot` (the public
attributes, observations included) compared by :func:`assert_unchanged`, and :func:`frozen` (the env's
``state_dict()``, position and infos) compared by :func:`assert_rejected`, which also checks the random
generator against a twin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from support.actions import first_players
from support.contract import plain

AGENTS = ("player_0", "player_1")


def snapshot(env: Any) -> dict[str, Any]:
    """Everything a bad input must leave untouched, read through the env's public attributes."""
    raw = env.unwrapped
    return {
        "state": raw.state_array,
        "board": raw.board,
        "stores": raw.stores,
        "agent_selection": raw.agent_selection,
        "agents": list(raw.agents),
        "infos": plain(raw.infos),
        "facts": raw.facts(),
        "rewards": dict(raw.rewards),
        "cumulative_rewards": {agent: raw.cumulative_reward(agent) for agent in AGENTS},
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "observations": {agent: raw.observe(agent) for agent in AGENTS},
    }


def assert_unchanged(before: dict[str, Any], env: Any) -> None:
    """``env``'s :func:`snapshot` equals ``before``."""
    after = snapshot(env)
    for key in ("state", "board", "stores"):
        assert np.array_equal(before[key], after[key]), f"{key} changed"
    for agent in AGENTS:
        for part in ("observation", "action_mask"):
            assert np.array_equal(before["observations"][agent][part], after["observations"][agent][part])
    for key in (
        "agent_selection",
        "agents",
        "infos",
        "facts",
        "rewards",
        "cumulative_rewards",
        "terminations",
        "truncations",
    ):
        assert before[key] == after[key], f"{key} changed"


def frozen(env: Any) -> dict[str, Any]:
    """What a rejected call must leave as it was: the snapshot (state, RNG, agents, tallies), the position
    the infos and the facts (the decoded last move included)."""
    raw = env.unwrapped
    return {"snapshot": raw.state_dict(), "position": raw.position(), "infos": plain(raw.infos), "facts": raw.facts()}


def assert_rejected(build: Callable[[], Any], call: Callable[[Any], Any], error: type, *texts: str) -> BaseException:
    """``call`` raises ``error`` whose message holds every ``texts``, and leaves the env built by ``build``
    exactly as it was, its random generator included (compared with a twin nobody called)."""
    env, twin = build(), build()
    before = frozen(env)
    with pytest.raises(error) as caught:
        call(env)
    message = str(caught.value)
    for text in texts:
        assert text in message, f"the message should contain {text!r}: {message}"
    assert frozen(env) == before, "the rejected call changed the env"
    assert first_players(env) == first_players(twin), "the rejected call moved the random generator"
    return caught.value


def position_with_an_empty_pit(env: Any) -> dict[str, Any]:
    """The opening position with player 0's local pit 0 emptied into pit 1: action 0 is illegal."""
    board = env.unwrapped.board.tolist()
    if sum(board) == 0:  # Omweso's placement setup starts empty: use its outer-row opening
        board = ([4] * 8 + [0] * 8) * 2
    board[1] += board[0]
    board[0] = 0
    return {"board": board, "stores": [0, 0], "player": 0}
