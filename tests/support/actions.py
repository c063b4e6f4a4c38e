"""Test helpers: legal actions to play, and an env a few plies into a seeded game.

One copy of each small driver the tests share: the lowest legal action (a deterministic opponent), a random
legal action per game of a batch, an env part-way through a game, and the players unseeded resets draw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mancala_envs


def first_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """A deterministic opponent: the lowest legal action (the observation is not read)."""
    return int(np.flatnonzero(action_mask)[0])


def first_legal_per_game(masks: np.ndarray) -> np.ndarray:
    """The lowest legal action of each row of ``masks`` (0 for a row without one), as int64."""
    return np.asarray(masks).astype(bool).argmax(axis=-1).astype(np.int64)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game (0 for a game without one, whose episode is over: it is only reset)."""
    return np.array([rng.choice(np.flatnonzero(mask)) if np.any(mask) else 0 for mask in masks])


def legal_action(env: Any) -> int:
    """The lowest legal action of the agent to act in an AEC env."""
    return int(np.flatnonzero(env.last()[0]["action_mask"])[0])


def mid_game(env_id: str = "kalah_v0", plies: int = 3, seed: int = 11, **options: Any) -> Any:
    """An env (built by ``mancala_envs.make`` with ``options``) ``plies`` random legal plies into a game
    reset with ``seed``; the game must still be running."""
    env = mancala_envs.make(env_id, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    over = any(env.terminations.values()) or any(env.truncations.values())
    assert env.agents and not over, "the game ended too early for this test"
    return env


def first_players(env: Any, resets: int = 8) -> list[str]:
    """The players ``resets`` unseeded resets draw to start: the env's random generator's next draws."""
    drawn = []
    for _ in range(resets):
        env.reset()
        drawn.append(env.agent_selection)
    return drawn
