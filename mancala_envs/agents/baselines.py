"""The baselines: :class:`RandomAgent` (``"random"``) and :class:`GreedyAgent` (``"greedy"``)."""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from mancala_envs.agents.agent import Agent
from mancala_envs.algorithms.greedy import greedy_action
from mancala_envs.games.game import Game

__all__ = ["GreedyAgent", "RandomAgent"]


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def act(self, env: AECEnv) -> int:
        legal = self.env_legal_actions(env)
        return int(legal[self.rng.integers(legal.size)])

    def act_on_engine_state(self, game: Game, state: np.ndarray) -> int:
        legal = game.legal_actions(state)
        return int(legal[self.rng.integers(legal.size)])


class GreedyAgent(Agent):
    """Plays the action that maximises its store minus the opponent's after the move.

    Each legal move is tried on a copy of the engine state; ties are broken by
    the agent's seeded generator.
    """

    name = "greedy"

    def act(self, env: AECEnv) -> int:
        self.env_legal_actions(env)
        raw = env.unwrapped
        return self._best(raw.game, raw.state_array)

    def act_on_engine_state(self, game: Game, state: np.ndarray) -> int:
        return self._best(game, state)

    def _best(self, game: Game, state: np.ndarray) -> int:
        # The compiled rule the vector envs' greedy opponent plays too; a uniform draw breaks ties.
        return int(game.compiled(greedy_action)(state, game.params, np.empty_like(state), self.rng.random()))
