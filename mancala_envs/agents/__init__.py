"""Agents, named by strings: ``"random"``, ``"greedy"``, ``"perfect"``, ``"pretrained"``, ``"alphabeta:D"``,
``"mcts:N"``, ``"sb3:path"``.

The protocol is small: an agent returns a legal action for the player to move, either from an
environment (``act(env)``: a mancala_envs AEC environment, wrapped or raw, whose turn it is) or
from the engine state (``act_on_state(game, state)``: a ``Game`` and one of its state arrays).
Neither call changes the environment or the state. Agents are seeded (``seed=``) and draw only
from their own numpy generator, never from a global one. The names that :func:`make_agent`
takes are the ones the CLI, configs and the single-agent env's ``opponent=`` accept:

============================  ===========================================================
``"random"``                  :class:`RandomAgent`: a uniformly random legal action
``"greedy"``                  :class:`GreedyAgent`: the most seeds won by the move itself
``"perfect"``                 :class:`~mancala_envs.agents.perfect.PerfectAgent`: a best move
                              of the game's perfect-play table (``mancala-envs solve``)
``"pretrained"``              :class:`~mancala_envs.agents.pretrained.PretrainedAgent`: the
                              game's shipped policy (safetensors weights, numpy inference)
``"alphabeta:D"``             :class:`~mancala_envs.agents.search_agents.AlphaBetaAgent`: minimax
                              with alpha-beta pruning to ``D`` plies (1 to 64), deepened over a
                              transposition table
``"alphabeta:t=S"``           the same search for ``S`` seconds a move (0.001 to 3600), as deep as
                              it gets: ``"alphabeta:t=0.1"`` (the strong agent)
``"mcts:N"``                  :class:`~mancala_envs.agents.search_agents.MCTSAgent`: UCT with ``N``
                              simulations and random rollouts (1 to 1,000,000)
``"az:N"``                    :class:`~mancala_envs.agents.alphazero.AlphaZeroAgent`: the game's
                              AlphaZero network with ``N`` PUCT simulations (0: the raw network)
``"sb3:path/to/model.zip"``   :class:`~mancala_envs.agents.sb3.SB3Agent`: a saved
                              MaskablePPO or PPO model (the train extra)
============================  ===========================================================

A saved model is loaded without unpickling it (only its weights and plain JSON are read; see
:func:`mancala_envs.agents.sb3.load_policy`). A file that can only be loaded by unpickling it is
refused with :class:`~mancala_envs.agents.sb3.UntrustedModelError` unless ``make_agent`` is given
``trust_remote_code=True``, which lets Stable-Baselines3 run the code stored in the file: only for
files you trust.

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

import types

from mancala_envs.agents.agent import Agent
from mancala_envs.agents.alphazero import AlphaZeroAgent
from mancala_envs.agents.baselines import GreedyAgent, RandomAgent
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.agents.pretrained import MissingWeightsError, PretrainedAgent, PretrainedWeightsError
from mancala_envs.agents.sb3 import SB3Agent, UntrustedModelError
from mancala_envs.agents.search_agents import MAX_DEPTH, MAX_SIMULATIONS, AlphaBetaAgent, MCTSAgent, parse_budget
from mancala_envs.algorithms.batched_mcts import MAX_SIMULATIONS as MAX_AZ_SIMULATIONS
from mancala_envs.algorithms.tree_search import TIME_BUDGET_PREFIX
from mancala_envs.common.moved import moved_attribute

__all__ = [
    "AGENT_FORMS",
    "AGENT_NAMES",
    "Agent",
    "AlphaBetaAgent",
    "AlphaZeroAgent",
    "GreedyAgent",
    "MCTSAgent",
    "MissingWeightsError",
    "PerfectAgent",
    "PretrainedAgent",
    "PretrainedWeightsError",
    "RandomAgent",
    "SB3Agent",
    "UntrustedModelError",
    "make_agent",
]

#: The agents whose name is complete as it stands, by name (each built as ``AGENT_NAMES[name](seed)``).
AGENT_NAMES: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "perfect": PerfectAgent,
    "pretrained": PretrainedAgent,
}

#: The agents named with a parameter, by the form of the name: ``D`` plies, ``SECONDS`` a move, ``N`` simulations,
#: the ``PATH`` of a saved model (``"alphabeta:4"``, ``"alphabeta:t=0.1"``, ``"mcts:400"``, ``"az:100"``,
#: ``"sb3:models/ppo.zip"``).
AGENT_FORMS: dict[str, type[Agent]] = {
    "alphabeta:D": AlphaBetaAgent,
    "alphabeta:t=SECONDS": AlphaBetaAgent,
    "mcts:N": MCTSAgent,
    "az:N": AlphaZeroAgent,
    "sb3:PATH": SB3Agent,
}

#: the forms named by a count: (what it counts, its least and greatest value, an example, the class)
_COUNT_FORMS = {
    "alphabeta": ("depth", 1, MAX_DEPTH, 4, AlphaBetaAgent),
    "mcts": ("simulations", 1, MAX_SIMULATIONS, 400, MCTSAgent),
    "az": ("simulations", 0, MAX_AZ_SIMULATIONS, 100, AlphaZeroAgent),
}


def make_agent(name: str, seed: int | None = None, *, trust_remote_code: bool = False) -> Agent:
    """Builds an agent from its name.

    Args:
        name: ``"random"``, ``"greedy"``, ``"perfect"``, ``"pretrained"`` (``AGENT_NAMES``), ``"alphabeta:D"``
            (``D`` plies, 1 to 64), ``"alphabeta:t=S"`` (``S`` seconds a move, 0.001 to 3600),
            ``"mcts:N"`` (``N`` simulations, 1 to 1,000,000), ``"az:N"`` (``N`` simulations, 0 to 100,000) or
            ``"sb3:path/to/model.zip"`` (``AGENT_FORMS``).
        seed: ``None`` (fresh entropy) or a non-negative integer.
        trust_remote_code: For ``"sb3:"`` agents: load the file in full with Stable-Baselines3, which
            unpickles objects stored in it, so **a crafted file runs arbitrary code**. Only for files you
            trust. By default a model is loaded without unpickling (see
            :func:`mancala_envs.agents.sb3.load_policy`). Other agents ignore it.

    Raises:
        TypeError: ``name`` is not a string, or ``seed`` is neither ``None`` nor an integer.
        ValueError: ``name`` is none of these forms (or its number is out of range), or ``seed`` is negative.
        FileNotFoundError: an ``sb3:`` path that does not exist.
        ImportError: an ``sb3:`` agent without stable-baselines3 (``pip install 'mancala-envs[train]'``).
        UntrustedModelError: (a ``ValueError``) an ``sb3:`` file that can only be loaded by unpickling it,
            without ``trust_remote_code``; the message says how to opt in.

    ``"perfect"`` and ``"pretrained"`` load their table or weights at their first move in a game, so a
    missing table (``TableError``) or missing weights
    (:class:`~mancala_envs.agents.pretrained.MissingWeightsError`) are raised then, not here.

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
    if kind == "alphabeta" and parameter.startswith(TIME_BUDGET_PREFIX):
        return AlphaBetaAgent(seed=seed, budget=parse_budget(parameter[len(TIME_BUDGET_PREFIX) :], name))
    if kind in _COUNT_FORMS:
        what, low, high, example, agent_class = _COUNT_FORMS[kind]
        if not (parameter.isascii() and parameter.isdigit()) or not low <= int(parameter) <= high:
            raise ValueError(
                f"{kind} {what} must be an integer from {low} to {high} as in '{kind}:{example}' (got {name!r})."
            )
        return agent_class(int(parameter), seed)
    if kind == "sb3":
        if not parameter:
            raise ValueError(f"an sb3 agent needs the saved model's path, as in 'sb3:models/ppo.zip' (got {name!r}).")
        return SB3Agent(parameter, seed, trust_remote_code=trust_remote_code)
    raise ValueError(f"unknown agent {name!r}; choose one of {choices}.")


def __getattr__(name: str) -> types.ModuleType:
    # the submodules that moved in 0.2.0, as attributes: they warn (mancala_envs.common.moved)
    return moved_attribute(__name__, name)
