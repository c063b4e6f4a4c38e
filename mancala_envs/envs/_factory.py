"""Builds the ``env`` / ``raw_env`` pair of a game's public module."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from mancala_envs.env import ENV_OPTIONS, MancalaEnv
from mancala_envs.games.base import config_from_kwargs

__all__ = ["make_raw_env", "make_env"]


def make_raw_env(game_class: type, **kwargs: Any) -> MancalaEnv:
    """Splits ``kwargs`` into environment and game options and builds the raw env."""
    env_options = {key: kwargs.pop(key) for key in list(kwargs) if key in ENV_OPTIONS}
    config = config_from_kwargs(game_class.config_class, kwargs.pop("config", None), **kwargs)
    return MancalaEnv(game_class(config), **env_options)


def make_env(game_class: type, **kwargs: Any):
    """The raw env inside PettingZoo's ``OrderEnforcingWrapper`` (reset before step, etc.)."""
    return wrappers.OrderEnforcingWrapper(make_raw_env(game_class, **kwargs))
