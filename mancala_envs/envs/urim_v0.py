"""Urim as a PettingZoo environment; the full page is ``docs/rules/urim.md``.

| Import      | ``from mancala_envs.envs import urim_v0``                                         |
|-------------|-----------------------------------------------------------------------------------|
| Ids         | ``mancala/urim-v0``, ``urim7-v0`` (2x7), ``urim48-v0`` (4 seeds), ``urim-match-v0`` |
| Actions     | Discrete(n): sow own local pit k (n = 6, or 7 on 2x7)                             |
| Agents      | ``player_0``, ``player_1``                                                        |
| Observation | Dict(observation=Box(int32, (2n+5,) or (2n+7,) in a match), action_mask=(n,) int8) |
| Rewards     | +1 win, -1 loss, 0 draw at the end; or match points (``reward_mode``)             |
"""

from __future__ import annotations

from mancala_envs.envs._factory import bind
from mancala_envs.games.urim import Urim, UrimConfig

__all__ = ["UrimConfig", "env", "metadata", "raw_env"]

raw_env, env, metadata = bind(Urim)
