"""Public game modules, one per game, in the PettingZoo style (``ouril_v0.env()``)."""

from mancala_envs.envs import modiar_v0, omweso_v0, ouril_v0, rio_kadalis_v0, urim_v0

__all__ = ["modiar_v0", "omweso_v0", "ouril_v0", "rio_kadalis_v0", "urim_v0"]
