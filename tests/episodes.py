"""Test helper: whole single-agent episodes with a random learner."""

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
        finals.append(env.unwrapped.aec_env.infos[env.unwrapped.learner])
    return finals
