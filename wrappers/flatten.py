"""Flattens the default observation into one float32 vector, keeping the action mask."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseWrapper

__all__ = ["FlattenObservation"]


class FlattenObservation(BaseWrapper, gymnasium.utils.RecordConstructorArgs):
    """AEC wrapper: ``observation`` becomes a float32 vector, ``action_mask`` is kept.

    The vector is the game's observation cast to float32 (the same entries,
    in the order of the game's observation index table), optionally divided by
    the observation space's upper bounds so that every entry lies in [0, 1].

    Args:
        env: A mancala_envs AEC environment (wrapped or raw).
        normalize: Divide every entry by its upper bound.

    Raises:
        TypeError: ``env`` is not a PettingZoo AEC environment, its observation
            space is not a Dict with an ``observation`` entry, or ``normalize``
            is not a bool.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers import FlattenObservation
        >>> env = FlattenObservation(mancala_envs.make("ouril_v0"))
        >>> env.reset(seed=0)
        >>> obs, *_ = env.last()
        >>> obs["observation"].dtype, obs["observation"].shape
        (dtype('float32'), (17,))
    """

    def __init__(self, env: Any, normalize: bool = False) -> None:
        if isinstance(env, ParallelEnv):
            raise TypeError(
                "FlattenObservation wraps an AEC environment, not a parallel one; wrap the AEC env first, "
                "then convert it (pettingzoo.utils.conversions.aec_to_parallel(FlattenObservation(env)))."
            )
        if not isinstance(env, AECEnv):
            raise TypeError(
                f"FlattenObservation wraps a PettingZoo AEC environment (got {type(env).__name__}); "
                "pass one such as mancala_envs.make('ouril_v0')."
            )
        if not isinstance(normalize, bool):
            raise TypeError(f"normalize must be True or False (got {normalize!r}).")
        gymnasium.utils.RecordConstructorArgs.__init__(self, normalize=normalize)
        BaseWrapper.__init__(self, env)
        self.normalize = normalize
        self._observation_spaces: dict[str, spaces.Dict] = {}
        self._scales: dict[str, np.ndarray] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            if not isinstance(inner, spaces.Dict) or "observation" not in inner.spaces:
                raise TypeError(
                    "FlattenObservation needs a Dict observation space with an 'observation' entry "
                    f"(got {inner!r}); apply it to a mancala_envs environment."
                )
            box = inner["observation"]
            low = box.low.astype(np.float32).ravel()
            high = box.high.astype(np.float32).ravel()
            scale = np.where(high > 0, high, 1.0).astype(np.float32) if normalize else np.ones_like(high)
            self._scales[agent] = scale
            self._observation_spaces[agent] = spaces.Dict(
                {
                    "observation": spaces.Box(low / scale, high / scale, dtype=np.float32),
                    "action_mask": inner["action_mask"],
                }
            )

    def observation_space(self, agent: str) -> spaces.Space:
        """The flattened observation space of ``agent`` (built once)."""
        return self._observation_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        """The wrapped env's observation with a flat float32 ``observation``."""
        observation = super().observe(agent)
        if observation is None:
            return None
        flat = observation["observation"].astype(np.float32).ravel() / self._scales[agent]
        return {"observation": flat, "action_mask": observation["action_mask"]}
