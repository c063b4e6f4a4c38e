"""The greedy baseline's rule, compiled: the move that leaves the mover's store furthest ahead of the opponent's.

:func:`greedy_action` and :func:`greedy_gains` are templates (:mod:`mancala_envs.engine.kernels`): they
play "the game" through ``game_step``, and ``game.compiled(greedy_action)`` compiles them for one game::

    greedy = game.compiled(greedy_action)
    action = greedy(state, game.params, np.empty_like(state), draw)

The greedy agent (:class:`~mancala_envs.agents.baselines.GreedyAgent`), the vector envs' compiled ``greedy``
opponent and the playouts of :mod:`mancala_envs.algorithms.tree_search` all play this one rule.

**Unchecked.** :func:`greedy_action` and :func:`greedy_gains` are the engine's per-ply internals: they trust every
argument (a state the engine made, a ``trial`` the size of the state, legal ``actions``) and check nothing, so a
state that no game reaches can make them read or write outside their arrays and end the process. They are not in
``__all__``. The checked door to the greedy move of a state is ``GreedyAgent(seed).act_on_state(game, state)``
(:mod:`mancala_envs.agents`), which passes the state through ``Game.check_state`` first; check a state of unknown
origin the same way (``game.check_state(state)``) before handing it to a template.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.kernels import game_step, per_game
from mancala_envs.engine.state import LEGAL, PLAYER, STORE

__all__: list[str] = []  # greedy_action and greedy_gains are unchecked internals (see the module docstring)


@per_game(inline="always")
def _gain(state: np.ndarray, params: np.ndarray, trial: np.ndarray, action: int) -> int:
    """The mover's store minus the opponent's after ``action``, played on ``trial`` (a copy of ``state``)."""
    player = state[PLAYER]
    for slot in range(state.shape[0]):  # a plain copy: slice assignment compiles numpy's shape checks
        trial[slot] = state[slot]
    game_step(trial, params, action, np.empty(0, np.int64))
    return trial[STORE + player] - trial[STORE + 1 - player]


@per_game()
def greedy_gains(state: np.ndarray, params: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """For each of ``actions`` (legal ones), the mover's store minus the opponent's after playing it
    on a copy of ``state`` (the greedy baseline's score of a move).

    Unchecked: ``state`` must have passed ``Game.check_state`` (see the module docstring)."""
    trial = np.empty_like(state)
    gains = np.empty(actions.shape[0], np.int64)
    for i in range(actions.shape[0]):
        gains[i] = _gain(state, params, trial, actions[i])
    return gains


@per_game()
def greedy_action(state: np.ndarray, params: np.ndarray, trial: np.ndarray, draw: float) -> int:
    """The greedy baseline's move: the legal action with the best :func:`greedy_gains` score, ties
    broken by the uniform ``draw`` in [0, 1) (the ``int(draw * ties)``-th best, in action order).

    ``trial`` is scratch space the size of ``state``; -1 if no action is legal.

    Unchecked: ``state`` must have passed ``Game.check_state`` (see the module docstring); the checked door is
    ``GreedyAgent(seed).act_on_state(game, state)``.
    """
    legal = state[LEGAL]
    gains = np.empty(64, np.int64)
    best = np.iinfo(np.int64).min
    ties = 0
    action = 0
    while legal >> action:
        if (legal >> action) & 1:
            gain = _gain(state, params, trial, action)
            gains[action] = gain
            if gain > best:
                best = gain
                ties = 1
            elif gain == best:
                ties += 1
        action += 1
    if ties == 0:
        return -1
    pick = min(int(draw * ties), ties - 1)
    action = 0
    while True:
        if (legal >> action) & 1 and gains[action] == best:
            if pick == 0:
                return action
            pick -= 1
        action += 1
