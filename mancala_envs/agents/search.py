"""Search agents: alpha-beta (``"alphabeta:D"``) and UCT Monte Carlo tree search (``"mcts:N"``).

The compiled searches and their evaluation are in :mod:`mancala_envs.search`; this module checks the
input of the public :func:`alphabeta_search` and :func:`mcts_search` and wraps them as agents.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mancala_envs.agents.base import Agent
from mancala_envs.engine.prng import MASK32
from mancala_envs.games.base import Game
from mancala_envs.search import (
    DEPTH_BONUS,
    GAME_POINT,
    MAX_DEPTH,
    MAX_SIMULATIONS,
    UCT_C,
    WIN,
    alphabeta_move,
    mcts_root,
)
from mancala_envs.validation import check_integer

__all__ = [
    "DEPTH_BONUS",
    "GAME_POINT",
    "MAX_DEPTH",
    "MAX_SIMULATIONS",
    "UCT_C",
    "WIN",
    "AlphaBetaAgent",
    "MCTSAgent",
    "alphabeta_search",
    "mcts_search",
]


def alphabeta_search(
    game: Game, state: np.ndarray, depth: int, draw: float = 0.0
) -> tuple[int, int, int]:
    """Minimax with alpha-beta pruning to ``depth`` plies from ``state``, in compiled code.

    Children are searched best first by the value of the position right after the ply (captures
    first). Among root moves of equal value the one that ``draw`` selects is returned (the
    ``int(draw * ties)``-th in action order).

    Args:
        game: The game whose state it is (its compiled rules and ``params``).
        state: A running state of ``game`` (not changed).
        depth: Plies to search, 1 to ``MAX_DEPTH``.
        draw: A uniform number in [0, 1) that breaks ties between root moves.

    Returns:
        The action, its value for the player to move (see the module docstring) and the number of
        nodes searched (plies played).

    Raises:
        TypeError: ``game`` is not a Game, ``state`` not one of its states, or ``depth`` not an integer.
        ValueError: the game in ``state`` is over, or ``depth`` is out of range.

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("urim_v0")
        >>> env.reset(options={"board": [2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], "stores": [8, 7], "player": 0})
        >>> action, value, nodes = alphabeta_search(env.unwrapped.game, env.unwrapped.state_array, 1)
        >>> action, value
        (5, 12)
    """
    Agent.state_legal_actions(game, state)
    depth = check_integer("alphabeta depth", depth, 1, MAX_DEPTH)
    action, value, nodes = game.compiled(alphabeta_move)(
        game.history_start, state, game.params, game.n_actions, int(depth), float(draw)
    )
    return int(action), int(value), int(nodes)


def mcts_search(
    game: Game,
    state: np.ndarray,
    simulations: int,
    words: np.ndarray,
    draw: float = 0.0,
    c: float = UCT_C,
    rollout_cap: int | None = None,
) -> tuple[int, np.ndarray, int]:
    """UCT Monte Carlo tree search with random rollouts from ``state``, in compiled code.

    Each simulation walks down the tree by UCB1 (``wins / visits + c * sqrt(ln N / visits)``, for the
    player to move at each node: the tree stores who moved into every node, so an Omweso mid-turn
    choice keeps the side), expands one untried action, plays uniformly random plies to the end of
    the game (``rollout_cap`` plies at most; a game of a match ends the rollout) and adds the result
    (1 win, 0.5 draw, 0 loss) along the path. The tree lives in arrays of ``simulations + 1`` nodes.

    Args:
        game: The game whose state it is.
        state: A running state of ``game`` (not changed).
        simulations: Number of simulations, 1 to ``MAX_SIMULATIONS``.
        words: An int64 array of four numbers in ``0 .. 2**32 - 1``, not all 0: the state of the
            xorshift128 generator of the expansions and rollouts (changed in place).
        draw: A uniform number in [0, 1) that breaks ties between equally visited root moves.
        c: The exploration constant (``sqrt(2)``).
        rollout_cap: Most plies in one rollout (default: ``game.max_episode_plies``).

    Returns:
        The most visited root action, the visit count of every action (0 for illegal ones) and the
        plies played in rollouts.

    Raises:
        TypeError: ``game`` is not a Game, ``state`` not one of its states, or a count not an integer.
        ValueError: the game in ``state`` is over, a count is out of range, or ``words`` is unusable.
    """
    Agent.state_legal_actions(game, state)
    simulations = check_integer("mcts simulations", simulations, 1, MAX_SIMULATIONS)
    if (
        not isinstance(words, np.ndarray) or words.dtype != np.int64 or words.shape != (4,)
        or (words < 0).any() or (words > MASK32).any() or not words.any()
    ):
        raise ValueError(
            "words must be an int64 array of 4 numbers in 0 .. 2**32 - 1, not all 0, "
            "e.g. rng.integers(1, 2**32, size=4)."
        )
    if rollout_cap is None:
        rollout_cap = game.max_episode_plies
    rollout_cap = check_integer("rollout_cap", rollout_cap, 1, 2**62)
    visits = np.zeros(game.n_actions, np.int64)
    action, plies = game.compiled(mcts_root)(
        game.history_start, state, game.params, game.n_actions, int(simulations), float(c), int(rollout_cap),
        words, float(draw), visits,
    )
    return int(action), visits, int(plies)


# --- agents --------------------------------------------------------------------------------------------------------
class _StateSearchAgent(Agent):
    """An agent whose choice is a compiled search on the engine state (``act`` and ``act_on_state``)."""

    def act(self, env: Any) -> int:
        legal = self.env_legal_actions(env)
        raw = env.unwrapped
        if legal.size == 1:
            self._record_trivial()
            return int(legal[0])
        return self._choose(raw.game, raw.state_array)

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        legal = self.state_legal_actions(game, state)
        if legal.size == 1:
            self._record_trivial()
            return int(legal[0])
        return self._choose(game, state)

    def _record_trivial(self) -> None:
        """Notes a move with one legal action (nothing was searched)."""

    def _choose(self, game: Game, state: np.ndarray) -> int:
        raise NotImplementedError


class AlphaBetaAgent(_StateSearchAgent):
    """Minimax with alpha-beta pruning to ``depth`` plies (``"alphabeta:D"``).

    The evaluation is the score difference for the player to move (a finished game: a win or loss
    above any score, quicker wins first); see :mod:`mancala_envs.agents.search`. Equally good moves
    are chosen between with the agent's generator. With one legal action nothing is searched.

    Args:
        depth: Plies to search, 1 to 64. An Omweso mid-turn choice counts as a ply of the same player.
        seed: Seed of the agent's generator (ties).

    Attributes:
        last_nodes: Nodes searched (plies played) for the last move.
        last_value: The last move's value for the player who made it (``None`` without a search).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> agent = AlphaBetaAgent(depth=4, seed=0)
        >>> action = agent.act(env)
        >>> bool(env.observe("player_0")["action_mask"][action]), agent.last_nodes > 0
        (True, True)
    """

    def __init__(self, depth: int = 4, seed: int | None = None) -> None:
        self.depth = check_integer("alphabeta depth", depth, 1, MAX_DEPTH)
        super().__init__(seed)
        self.name = f"alphabeta:{self.depth}"
        self.last_nodes = 0
        self.last_value: int | None = None

    def _record_trivial(self) -> None:
        self.last_nodes = 0
        self.last_value = None

    def _choose(self, game: Game, state: np.ndarray) -> int:
        action, value, nodes = alphabeta_search(game, state, self.depth, float(self.rng.random()))
        self.last_nodes = nodes
        self.last_value = value
        return action

    def __repr__(self) -> str:
        return f"AlphaBetaAgent(depth={self.depth})"


class MCTSAgent(_StateSearchAgent):
    """UCT Monte Carlo tree search with ``simulations`` random rollouts per move (``"mcts:N"``).

    Plays the most visited root move (ties broken by the agent's generator). The rollouts' generator
    is seeded from the agent's generator at every move. With one legal action nothing is searched.

    Args:
        simulations: Simulations per move, 1 to 1,000,000.
        seed: Seed of the agent's generator.
        c: UCB1's exploration constant (default ``sqrt(2)``).

    Attributes:
        last_simulations: Simulations run for the last move (0 without a search).
        last_rollout_plies: Plies played in the last move's rollouts.
        last_visits: Visits of each action at the root for the last move (``None`` without a search).
    """

    def __init__(self, simulations: int = 400, seed: int | None = None, c: float = UCT_C) -> None:
        self.simulations = check_integer("mcts simulations", simulations, 1, MAX_SIMULATIONS)
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
            raise ValueError(f"the exploration constant c must be a finite number >= 0 (got {c!r}).")
        super().__init__(seed)
        self.c = float(c)
        self.name = f"mcts:{self.simulations}"
        self.last_simulations = 0
        self.last_rollout_plies = 0
        self.last_visits: np.ndarray | None = None

    def _record_trivial(self) -> None:
        self.last_simulations = 0
        self.last_rollout_plies = 0
        self.last_visits = None

    def _choose(self, game: Game, state: np.ndarray) -> int:
        words = self.rng.integers(1, 1 << 32, size=4, dtype=np.int64)
        action, visits, plies = mcts_search(game, state, self.simulations, words, float(self.rng.random()), self.c)
        self.last_simulations = self.simulations
        self.last_rollout_plies = plies
        self.last_visits = visits
        return action

    def __repr__(self) -> str:
        return f"MCTSAgent(simulations={self.simulations})"
