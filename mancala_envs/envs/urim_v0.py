"""Urim as a PettingZoo environment; see ``docs/rules/urim.md`` for the full page.

| Import             | ``from mancala_envs.envs import urim_v0``            |
|--------------------|-------------------------------------------------------|
| Actions            | Discrete(6) (Discrete(7) on 2x7): sow own local pit k |
| Agents             | ``player_0``, ``player_1``                            |
| Observation        | Dict(observation=Box(int32, (17,) (+2 in match mode)), action_mask=Box(int8, (6,))) |
| Rewards            | +1 win, -1 loss, 0 draw, at the end                   |
"""

from __future__ import annotations

from typing import Any

from mancala_envs.env import MancalaEnv
from mancala_envs.envs._factory import make_env, make_raw_env
from mancala_envs.games.urim import Urim, UrimConfig

__all__ = ["env", "raw_env", "UrimConfig", "metadata"]

metadata = {"render_modes": ["ansi", "human"], "name": "urim_v0", "is_parallelizable": False, "render_fps": 2}


def raw_env(**kwargs: Any) -> MancalaEnv:
    """Urim without wrappers. Keywords are ``UrimConfig`` fields and ``MancalaEnv`` options."""
    return make_raw_env(Urim, **kwargs)


def env(**kwargs: Any):
    """Urim, wrapped in PettingZoo's order-enforcing wrapper. Same keywords as :func:`raw_env`."""
    return make_env(Urim, **kwargs)
