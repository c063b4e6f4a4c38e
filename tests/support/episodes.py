"""Test helpers: whole episodes with a random learner, and the options that cap a game or a match."""

from __future__ import annotations

from typing import Any

import numpy as np


def play_random_learner(env: Any, seeds: range, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Plays one episode per seed of ``env`` (a single-agent env) with uniformly random legal learner
    actions; returns the AEC env's final infos of the learner, one per episode."""
    finals = []
    for seed in seeds:
        _, info = env.reset(seed=seed)
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
        finals.append(env.unwrapped.aec_env.facts())
    return finals


def one_game_per_episode(game: Any) -> tuple[dict[str, int], str]:
    """Options that cap a match at one game (or round), and the end reason that cap reports."""
    if not game.is_match:
        return {}, "max_plies"
    if hasattr(game.config, "max_games"):
        return {"max_games": 1}, "max_games"
    return {"max_rounds": 1}, "max_rounds"


def game_cap(game: Any) -> tuple[str, str]:
    """The option that caps one game's length and the counter it caps: plies, or turns (Omweso)."""
    if hasattr(game.config, "max_turns"):
        return "max_turns", "turn"
    return "max_plies", "ply"
