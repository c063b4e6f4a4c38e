"""Baseline agents, named by strings such as ``"random"`` and ``"greedy"``.

An agent looks at an environment whose turn it is and returns a legal action.
Agents are seeded and never touch a global random generator.

Example:
    >>> import mancala_envs
    >>> from mancala_envs.agents import make_agent
    >>> env = mancala_envs.make("ouril_v0", first_player=0)
    >>> env.reset(seed=0)
    >>> agent = make_agent("greedy", seed=0)
    >>> env.step(agent.act(env))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from mancala_envs.env import MancalaEnv
from mancala_envs.rollout import greedy_gains

__all__ = ["AGENT_NAMES", "Agent", "GreedyAgent", "RandomAgent", "make_agent"]


class Agent(ABC):
    """Chooses the action of the player to move.

    Args:
        seed: Seed of the agent's own generator (ties and random choices):
            ``None`` or a non-negative integer.

    Raises:
        TypeError: ``seed`` is neither ``None`` nor an integer.
        ValueError: ``seed`` is negative.
    """

    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
                raise TypeError(
                    f"agent seed must be None or a non-negative integer (got {type(seed).__name__} {seed!r})."
                )
            if seed < 0:
                raise ValueError(f"agent seed {seed} is negative; use None or an integer >= 0.")
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, env: Any) -> int:
        """Returns a legal action for ``env.agent_selection`` (the env is not changed).

        Raises:
            TypeError: ``env`` is not a mancala_envs environment (wrapped or raw).
            RuntimeError: ``env`` has not been reset.
            ValueError: the game is over (the player to move has no legal action).
        """

    @staticmethod
    def _legal_actions(env: Any) -> np.ndarray:
        raw = getattr(env, "unwrapped", None)
        if not isinstance(raw, MancalaEnv):
            raise TypeError(
                "act() needs a mancala_envs environment, e.g. mancala_envs.make('ouril_v0') "
                f"(got {type(env).__name__})."
            )
        if not raw._has_reset:
            raise RuntimeError("act() was called before reset(); call env.reset() first.")
        legal = raw.game.legal_actions(raw._state)
        if legal.size == 0:
            raise ValueError("the player to move has no legal action: the game is over; call reset().")
        return legal


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def act(self, env: Any) -> int:
        legal = self._legal_actions(env)
        return int(legal[self.rng.integers(legal.size)])


class GreedyAgent(Agent):
    """Plays the action that maximises its store minus the opponent's after the move.

    Each legal move is tried on a copy of the engine state; ties are broken by
    the agent's seeded generator.
    """

    name = "greedy"

    def act(self, env: Any) -> int:
        legal = self._legal_actions(env)
        raw = env.unwrapped
        gains = greedy_gains(raw.game.game_id, raw._state, raw._params, legal)
        best = np.flatnonzero(gains == gains.max())
        return int(legal[best[self.rng.integers(best.size)]])


AGENT_NAMES = {"random": RandomAgent, "greedy": GreedyAgent}


def make_agent(name: str, seed: int | None = None) -> Agent:
    """Builds an agent from its name.

    Args:
        name: One of ``AGENT_NAMES`` (``"random"``, ``"greedy"``).
        seed: ``None`` (fresh entropy) or a non-negative integer.

    Raises:
        TypeError: ``name`` is not a string, or ``seed`` is neither ``None`` nor an integer.
        ValueError: ``name`` is not one of ``AGENT_NAMES``, or ``seed`` is negative.
    """
    choices = sorted(AGENT_NAMES)
    if not isinstance(name, str):
        raise TypeError(f"agent name must be a string, one of {choices} (got {type(name).__name__} {name!r}).")
    if name not in AGENT_NAMES:
        raise ValueError(f"unknown agent {name!r}; choose one of {choices}.")
    return AGENT_NAMES[name](seed)
