"""Flattens the default observation into one float32 vector, keeping the action mask."""

from __future__ import annotations

import gymnasium
from pettingzoo import AECEnv

from mancala_envs.wrappers.aec import EncodeObservation

__all__ = ["FlattenObservation"]


class FlattenObservation(EncodeObservation):
    """AEC wrapper: ``observation`` becomes a float32 vector, ``action_mask`` is kept.

    The vector is the game's observation cast to float32 (the same entries,
    in the order of the game's observation index table), optionally divided by
    the observation space's upper bounds so that every entry lies in [0, 1]
    (the ``flat`` encoding, :class:`~mancala_envs.wrappers.encodings.FlatEncoder`).

    Args:
        env: A mancala_envs AEC environment (raw, or under wrappers that keep its observation).
        normalize: Divide every entry by its upper bound. ``False`` by default here, as this
            wrapper always had it; ``apply_wrappers`` and ``GymFlattenObservation`` default to ``True``.

    Raises:
        TypeError: ``env`` is not a PettingZoo AEC environment, its observation
            space is not a Dict with an ``observation`` entry, its observation is already
            encoded or stacked, or ``normalize`` is not a bool.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers import FlattenObservation
        >>> env = FlattenObservation(mancala_envs.make("ouril_v0"))
        >>> env.reset(seed=0)
        >>> obs, *_ = env.last()
        >>> obs["observation"].dtype, obs["observation"].shape
        (dtype('float32'), (17,))
    """

    def __init__(self, env: AECEnv, normalize: bool = False) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, normalize=normalize)
        super().__init__(env, "flat", normalize=normalize)
        self.normalize = normalize
