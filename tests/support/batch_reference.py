"""Test helper: a plain-Python model of the batched games' random streams and of ``play_random``.

The batched games (:mod:`mancala_envs.envs.batch`) give every game its own xorshift128 generator, seeded by
``new_words(np.random.default_rng(seed), n_games)``; a game draws from it for its first player (when the
first player is not fixed) and, in ``play_random``, for its moves. This module redoes those draws in
Python, and the ``play_random`` loop with one :class:`~mancala_envs.envs.aec_env.MancalaEnv` per game, so the
tests can predict the batch exactly from its seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mancala_envs
from mancala_envs.algorithms.playouts import RolloutStats
from mancala_envs.engine.prng import new_words
from mancala_envs.engine.state import HISTORY_LEN, LEGAL, PLY, RUNNING, STATUS, TRUNCATED, WINNER
from mancala_envs.games.game import Game
from mancala_envs.games.two_row_family.two_row_rules import HISTORY_START, TwoRowGame

MASK32 = 0xFFFFFFFF


class XorShift:
    """One game's generator: Marsaglia's xorshift128 on four 32-bit words, in Python integers."""

    def __init__(self, words: np.ndarray) -> None:
        self.words = [int(w) for w in words]

    def uniform(self) -> float:
        """The next uniform number in [0, 1)."""
        t = self.words[0]
        t ^= (t << 11) & MASK32
        t ^= t >> 8
        w = self.words[3]
        w ^= w >> 19
        w ^= t
        self.words = [self.words[1], self.words[2], self.words[3], w]
        return w / 4294967296.0

    def first_player(self) -> int:
        """The first player a new game draws when none is fixed."""
        return 1 if self.uniform() < 0.5 else 0


def generators(seed: int, n_games: int) -> list[XorShift]:
    """The generators of a batch of ``n_games`` games reset with ``seed``."""
    return [XorShift(row) for row in new_words(np.random.default_rng(seed), n_games)]


def legal_action_at(legal: int, draw: float) -> int:
    """The ``int(draw * count)``-th legal action of the bit set ``legal`` (-1 if none is legal)."""
    actions = [a for a in range(legal.bit_length()) if (legal >> a) & 1]
    if not actions:
        return -1
    return actions[min(int(draw * len(actions)), len(actions) - 1)]


def history_start(game: Game) -> int:
    """The first state slot of the game's repetition memory (0 when it keeps none)."""
    return int(game.params[HISTORY_START]) if isinstance(game, TwoRowGame) else 0


def zeroed_history(state: np.ndarray, game: Game) -> np.ndarray:
    """A copy of ``state`` with the memory slots beyond ``HISTORY_LEN`` set to 0 (as ``BatchedGames.state``)."""
    state = state.copy()
    start = history_start(game)
    if start:
        state[start + int(state[HISTORY_LEN]) :] = 0
    return state


def new_env(env_id: str, first_player: int, **options: Any) -> Any:
    """A reset env of ``env_id`` whose game starts with ``first_player`` (illegal actions raise)."""
    env = mancala_envs.make(env_id, first_player=first_player, illegal_action="raise", **options)
    env.reset()
    return env


def play_random_reference(
    env_id: str, n_games: int, batch_size: int, seed: int, first_player: int | None = None, **options: Any
) -> tuple[RolloutStats, list[Any], list[XorShift]]:
    """``play_random(env_id, n_games, batch_size=batch_size, seed=seed)`` redone in Python.

    Returns:
        The statistics, the ``batch_size`` envs as the loop leaves them (each game's current game)
        and the generators after the loop.
    """
    rngs = generators(seed, batch_size)

    def start(game: int) -> Any:
        first = rngs[game].first_player() if first_player is None else first_player
        return new_env(env_id, first, **options)

    envs = [start(game) for game in range(batch_size)]
    plies = draws = truncated = longest = 0
    wins = [0, 0]
    for ended in range(n_games):
        game = ended % batch_size  # the rows take turns, each playing its game to the end
        raw = envs[game].unwrapped
        while raw.state_array[STATUS] == RUNNING:
            action = legal_action_at(int(raw.state_array[LEGAL]), rngs[game].uniform())
            envs[game].step(action)
            plies += 1
        state = raw.state_array
        if state[WINNER] >= 0:
            wins[int(state[WINNER])] += 1
        else:
            draws += 1
        truncated += int(state[STATUS] == TRUNCATED)
        longest = max(longest, int(state[PLY]))
        envs[game] = start(game)
    stats = RolloutStats(
        games=n_games, plies=plies, wins=(wins[0], wins[1]), draws=draws, truncated=truncated, longest=longest
    )
    return stats, envs, rngs
