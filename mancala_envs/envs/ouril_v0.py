"""Ouril as a PettingZoo environment; the full page is ``docs/rules/ouril.md``.

| Import      | ``from mancala_envs.envs import ouril_v0``                                |
|-------------|---------------------------------------------------------------------------|
| Ids         | ``mancala/ouril-v0`` (2x6), ``mancala/ouril-mini-v0`` (2x4)                |
| Actions     | Discrete(n): sow own local pit k (n = 6, or 4 on 2x4)                     |
| Agents      | ``player_0``, ``player_1``                                                |
| Observation | Dict(observation=Box(int32, (2n+5,)), action_mask=Box(0, 1, (n,), int8))  |
| Rewards     | +1 win, -1 loss, 0 draw, at the end                                       |
"""

from __future__ import annotations

from mancala_envs.envs._factory import bind
from mancala_envs.games.ouril import Ouril, OurilConfig

__all__ = ["OurilConfig", "env", "metadata", "raw_env"]

raw_env, env, metadata = bind(Ouril)
