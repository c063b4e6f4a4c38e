"""Modiar as a PettingZoo environment; the full page is ``docs/rules/modiar.md``.

| Import      | ``from mancala_envs.envs import modiar_v0``                               |
|-------------|---------------------------------------------------------------------------|
| Ids         | ``mancala/modiar-v0`` (2x3, 7 stones per pit, T = 42)                     |
| Actions     | Discrete(3): sow own local pit k                                          |
| Agents      | ``player_0``, ``player_1``                                                |
| Observation | Dict(observation=Box(int32, (12,)), action_mask=Box(0, 1, (3,), int8))    |
| Rewards     | +1 win, -1 loss, 0 draw, at the end                                       |
"""

from __future__ import annotations

from mancala_envs.envs._factory import bind
from mancala_envs.games.modiar import Modiar, ModiarConfig

__all__ = ["ModiarConfig", "env", "metadata", "raw_env"]

raw_env, env, metadata = bind(Modiar)
