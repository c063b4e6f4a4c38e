"""Ouril as a PettingZoo environment; see ``docs/rules/ouril.md`` for the full page.

| Import             | ``from mancala_envs.envs import ouril_v0``            |
|--------------------|-------------------------------------------------------|
| Actions            | Discrete(6) (Discrete(4) on 2x4): sow own local pit k |
| Agents             | ``player_0``, ``player_1``                            |
| Observation        | Dict(observation=Box(int32, (17,)), action_mask=Box(int8, (6,))) |
| Rewards            | +1 win, -1 loss, 0 draw, at the end                   |
"""

from __future__ import annotations

from typing import Any

from mancala_envs.env import MancalaEnv
from mancala_envs.envs._factory import make_env, make_raw_env
from mancala_envs.games.ouril import Ouril, OurilConfig

__all__ = ["env", "raw_env", "OurilConfig", "metadata"]

metadata = {"render_modes": ["ansi", "human"], "name": "ouril_v0", "is_parallelizable": False, "render_fps": 2}


def raw_env(**kwargs: Any) -> MancalaEnv:
    """Ouril without wrappers. Keywords are ``OurilConfig`` fields and ``MancalaEnv`` options."""
    return make_raw_env(Ouril, **kwargs)


def env(**kwargs: Any):
    """Ouril, wrapped in PettingZoo's order-enforcing wrapper. Same keywords as :func:`raw_env`."""
    return make_env(Ouril, **kwargs)
