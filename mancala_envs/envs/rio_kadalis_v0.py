"""Rio Kadalis as a PettingZoo environment; the full page is ``docs/rules/rio_kadalis.md``.

| Import      | ``from mancala_envs.envs import rio_kadalis_v0``                                     |
|-------------|--------------------------------------------------------------------------------------|
| Ids         | ``mancala/rio-kadalis-v0`` (2x6), ``mancala/rio-kadalis5-v0`` (2x5),                  |
|             | ``mancala/rio-kadalis-cw-v0`` (clockwise), ``mancala/rio-kadalis-match-v0`` (match)   |
| Actions     | Discrete(n): sow own local pit k (n = 6, or 5 on 2x5)                                |
| Agents      | ``player_0``, ``player_1``                                                           |
| Observation | Dict(observation=Box(int32, (2n+5,)) (match: (4n+7,)), action_mask=Box(0, 1, (n,), int8)) |
| Rewards     | +1 win, -1 loss, 0 draw, at the end (of the round, or of the match)                  |
"""

from __future__ import annotations

from mancala_envs.envs._factory import bind
from mancala_envs.games.rio_kadalis import RioKadalis, RioKadalisConfig

__all__ = ["RioKadalisConfig", "env", "metadata", "raw_env"]

raw_env, env, metadata = bind(RioKadalis)
