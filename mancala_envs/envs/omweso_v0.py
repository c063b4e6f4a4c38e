"""Omweso as a PettingZoo environment; the full page is ``docs/rules/omweso.md``.

| Import      | ``from mancala_envs.envs import omweso_v0``                                               |
|-------------|-------------------------------------------------------------------------------------------|
| Ids         | ``mancala/omweso-v0``, ``mancala/omweso-two-each-v0``, ``mancala/omweso-placement-v0``,    |
|             | ``mancala/omweso-no-midturn-reverse-v0``, ``mancala/omweso-match-v0`` (to 12 points)       |
| Actions     | Discrete(48): ``mode * 16 + k``; mode 0 sow own pit k counter-clockwise, 1 clockwise,      |
|             | 2 the three-seed special; while placing, action k adds a seed to own pit k                 |
| Agents      | ``player_0``, ``player_1`` (the same agent acts again at a mid-turn decision point)        |
| Observation | Dict(observation=Box(int32, (48,)) (match: (50,)), action_mask=Box(0, 1, (48,), int8))    |
| Rewards     | +1 win, -1 loss, 0 draw or annulled, at the end (``reward_mode="match_points"``: points)   |
"""

from __future__ import annotations

from mancala_envs.envs._factory import bind
from mancala_envs.games.omweso import Omweso, OmwesoConfig

__all__ = ["OmwesoConfig", "env", "metadata", "raw_env"]

raw_env, env, metadata = bind(Omweso)
