"""Agents, named by strings: ``"random"``, ``"greedy"``, ``"alphabeta:D"``, ``"mcts:N"``, ``"sb3:path"``.

The protocol is small: an agent returns a legal action for the player to move, either from an
environment (``act(env)``: a mancala_envs AEC environment, wrapped or raw, whose turn it is) or
from the engine state (``act_on_state(game, state)``: a ``Game`` and one of its state arrays).
Neither call changes the environment or the state. Agents are seeded (``seed=``) and draw only
from their own numpy generator, never from a global one. The names that :func:`make_agent`
takes are the ones the CLI, configs and the single-agent env's ``opponent=`` accept:

============================  ===========================================================
``"random"``                  :class:`RandomAgent`: a uniformly random legal action
``"greedy"``                  :class:`GreedyAgent`: the most seeds won by the move itself
``"alphabeta:D"``             :class:`~mancala_envs.agents.search.AlphaBetaAgent`: minimax
                              with alpha-beta pruning to ``D`` plies (1 to 64)
``"mcts:N"``                  :class:`~mancala_envs.agents.search.MCTSAgent`: UCT with ``N``
                              simulations and random rollouts (1 to 1,000,000)
``"sb3:path/to/model.zip"``   :class:`~mancala_envs.agents.search.SB3Agent`: a saved
                              MaskablePPO or PPO model (the train extra)
============================  ===========================================================

Example:
    >>> import mancala_envs
    >>> from mancala_envs.agents import make_agent
    >>> env = mancala_envs.make("ouril_v0", first_player=0)
    >>> env.reset(seed=0)
    >>> agent = make_agent("greedy", seed=0)
    >>> env.step(agent.act(env))
    >>> searcher = make_agent("alphabeta:4", seed=0)
    >>> env.step(searcher.act(env))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from mancala_envs.engine.state import LEGAL, RUNNING, STATUS
from mancala_envs.env import MancalaEnv
from mancala_envs.games.base import Game
from mancala_envs.rollout import greedy_action

__all__ = [
    "AGENT_FORMS",
    "AGENT_NAMES",
    "Agent",
    "AlphaBetaAgent",
    "GreedyAgent",
    "MCTSAgent",
    "RandomAgent",
    "SB3Agent",
    "make_agent",
]


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

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        """Returns a legal action for the player to move in ``state``, a state array of ``game``
        (``env.unwrapped.state_array``); neither is changed.

        Raises:
            TypeError: ``game`` is not a mancala_envs Game, or ``state`` is not one of its states.
            ValueError: the game in ``state`` is over.
            NotImplementedError: the agent only acts on environments.
        """
        raise NotImplementedError(f"{type(self).__name__} only acts on environments; call act(env).")

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

    @staticmethod
    def _legal_actions_of_state(game: Game, state: np.ndarray) -> np.ndarray:
        if not isinstance(game, Game):
            raise TypeError(f"game must be a mancala_envs Game such as Ouril() (got {type(game).__name__}).")
        if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.shape != (game.state_size,):
            raise TypeError(
                f"state must be an int64 array of shape ({game.state_size},), a state of {game.env_name} "
                f"such as env.unwrapped.state_array (got {type(state).__name__})."
            )
        if state[STATUS] != RUNNING or state[LEGAL] == 0:
            raise ValueError("the player to move has no legal action: the game is over; call reset().")
        return game.legal_actions(state)


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def act(self, env: Any) -> int:
        legal = self._legal_actions(env)
        return int(legal[self.rng.integers(legal.size)])

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        legal = self._legal_actions_of_state(game, state)
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
        return self._best(raw.game, raw._state, legal)

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        return self._best(game, state, self._legal_actions_of_state(game, state))

    def _best(self, game: Game, state: np.ndarray, legal: np.ndarray) -> int:
        # The compiled rule the vector envs' greedy opponent plays too; a uniform draw breaks ties.
        return int(greedy_action(game.game_id, state, game.params, np.empty_like(state), self.rng.random()))


# The search agents subclass Agent, so they are imported once it exists.
from mancala_envs.agents.search import (
    MAX_DEPTH,
    MAX_SIMULATIONS,
    AlphaBetaAgent,
    MCTSAgent,
    SB3Agent,
)

#: The agents whose name is complete as it stands, by name (each built as ``AGENT_NAMES[name](seed)``).
AGENT_NAMES: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}

#: The agents named with a parameter, by the form of the name: ``D`` plies, ``N`` simulations, the
#: ``PATH`` of a saved model (``"alphabeta:4"``, ``"mcts:400"``, ``"sb3:models/ppo.zip"``).
AGENT_FORMS: dict[str, type[Agent]] = {"alphabeta:D": AlphaBetaAgent, "mcts:N": MCTSAgent, "sb3:PATH": SB3Agent}

_COUNT_FORMS = {
    "alphabeta": ("depth", MAX_DEPTH, 4, AlphaBetaAgent),
    "mcts": ("simulations", MAX_SIMULATIONS, 400, MCTSAgent),
}


def make_agent(name: str, seed: int | None = None) -> Agent:
    """Builds an agent from its name.

    Args:
        name: ``"random"``, ``"greedy"`` (``AGENT_NAMES``), ``"alphabeta:D"`` (``D`` plies, 1 to 64),
            ``"mcts:N"`` (``N`` simulations, 1 to 1,000,000) or ``"sb3:path/to/model.zip"``
            (``AGENT_FORMS``).
        seed: ``None`` (fresh entropy) or a non-negative integer.

    Raises:
        TypeError: ``name`` is not a string, or ``seed`` is neither ``None`` nor an integer.
        ValueError: ``name`` is none of these forms (or its number is out of range), or ``seed`` is negative.
        FileNotFoundError: an ``sb3:`` path that does not exist.
        ImportError: an ``sb3:`` agent without stable-baselines3 (``pip install 'mancala-envs[train]'``).

    Example:
        >>> make_agent("alphabeta:6", seed=1).depth
        6
        >>> make_agent("mcts:x")
        Traceback (most recent call last):
        ...
        ValueError: mcts simulations must be an integer from 1 to 1000000 as in 'mcts:400' (got 'mcts:x').
    """
    choices = f"{sorted(AGENT_NAMES)} or " + ", ".join(map(repr, AGENT_FORMS))
    if not isinstance(name, str):
        raise TypeError(f"agent name must be a string, one of {choices} (got {type(name).__name__} {name!r}).")
    if name in AGENT_NAMES:
        return AGENT_NAMES[name](seed)
    kind, _, parameter = name.partition(":")
    if kind in _COUNT_FORMS:
        what, high, example, agent_class = _COUNT_FORMS[kind]
        if not (parameter.isascii() and parameter.isdigit()) or not 1 <= int(parameter) <= high:
            raise ValueError(
                f"{kind} {what} must be an integer from 1 to {high} as in '{kind}:{example}' (got {name!r})."
            )
        return agent_class(int(parameter), seed)
    if kind == "sb3":
        if not parameter:
            raise ValueError(f"an sb3 agent needs the saved model's path, as in 'sb3:models/ppo.zip' (got {name!r}).")
        return SB3Agent(parameter, seed)
    raise ValueError(f"unknown agent {name!r}; choose one of {choices}.")
