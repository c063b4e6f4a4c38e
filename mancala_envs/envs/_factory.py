"""Builds the ``raw_env`` / ``env`` pair and the metadata of a game's public module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mancala_envs.env import ENV_OPTIONS, RENDER_MODES, MancalaEnv
from mancala_envs.games.base import config_from_kwargs

__all__ = ["bind"]


def bind(game_class: type) -> tuple[Callable[..., MancalaEnv], Callable[..., Any], dict[str, Any]]:
    """Returns ``(raw_env, env, metadata)`` for a game class.

    ``raw_env(**kwargs)`` splits the keywords into environment options
    (``render_mode``, ``first_player``, ``illegal_action``, ``reward_mode``)
    and game options (the fields of the game's config dataclass, or a whole
    ``config=``) and builds a :class:`MancalaEnv`. ``env(**kwargs)`` returns
    the same environment: :class:`MancalaEnv` enforces the call order itself
    (reset before step, observe or render) and validates every action, so it
    needs none of PettingZoo classic's wrappers, whose attribute forwarding
    would cost more per step than the compiled rules (benchmarks/README.md).
    """
    config_name = game_class.config_class.__name__

    def raw_env(**kwargs: Any) -> MancalaEnv:
        env_options = {key: kwargs.pop(key) for key in list(kwargs) if key in ENV_OPTIONS}
        config = config_from_kwargs(game_class.config_class, kwargs.pop("config", None), **kwargs)
        return MancalaEnv(game_class(config), **env_options)

    def env(**kwargs: Any) -> Any:
        return raw_env(**kwargs)

    raw_env.__doc__ = (
        f"{game_class.name.capitalize()} without wrappers. Keywords: {config_name} fields and MancalaEnv options."
    )
    env.__doc__ = f"{game_class.name.capitalize()} as users should build it (order-checked); keywords as raw_env."
    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": f"{game_class.name}_v{game_class.version}",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    return raw_env, env, metadata
