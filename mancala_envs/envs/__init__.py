"""Public game modules in the PettingZoo style, one per game: ``from mancala_envs.envs import ouril_v0``.

The modules are made here from the list of games (:data:`mancala_envs.games.GAME_MODULES`), so a game
needs no file of its own in this package: ``mancala_envs.envs.<name>_v<version>`` has ``env``,
``raw_env``, ``metadata``, the game's config class, ``GAME`` and, as its docstring, the game's spec
table (``Game.env_doc``). ``import mancala_envs.envs.ouril_v0`` and PettingZoo's registry entry
points (``mancala_envs.envs.ouril_v0:env``) import them like any module.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

from mancala_envs.envs.aec_env import ENV_OPTIONS, RENDER_MODES, MancalaEnv
from mancala_envs.games import game_classes
from mancala_envs.games.game import Game, config_from_kwargs

__all__ = ["bind", "public_modules", "sync_public_modules"]


def bind(game_class: type[Game]) -> tuple[Callable[..., MancalaEnv], Callable[..., MancalaEnv], dict[str, Any]]:
    """Returns ``(raw_env, env, metadata)`` for a game class.

    ``raw_env(**kwargs)`` splits the keywords into environment options (``render_mode``,
    ``first_player``, ``illegal_action``, ``reward_mode``, ``infos``) and game options (the fields of the game's
    config dataclass, or a whole ``config=``) and builds a :class:`MancalaEnv`. ``env(**kwargs)``
    returns the same environment: :class:`MancalaEnv` enforces the call order itself (reset before
    step, observe or render) and validates every action, so it needs none of PettingZoo classic's
    wrappers, whose attribute forwarding would cost more per step than the compiled rules.
    """
    config_name = game_class.config_class.__name__
    title = game_class.name.replace("_", " ").title()

    def raw_env(**kwargs: Any) -> MancalaEnv:
        env_options = {key: kwargs.pop(key) for key in list(kwargs) if key in ENV_OPTIONS}
        config = config_from_kwargs(game_class.config_class, kwargs.pop("config", None), **kwargs)
        return MancalaEnv(game_class(config), **env_options)

    def env(**kwargs: Any) -> MancalaEnv:
        return raw_env(**kwargs)

    raw_env.__doc__ = f"{title} without wrappers. Keywords: {config_name} fields and MancalaEnv options."
    env.__doc__ = f"{title} as users should build it (order-checked); keywords as raw_env."
    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": f"{game_class.name}_v{game_class.version}",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    return raw_env, env, metadata


def _public_module(game_class: type[Game]) -> types.ModuleType:
    name = f"{game_class.name}_v{game_class.version}"
    module = types.ModuleType(f"{__name__}.{name}", game_class.env_doc or None)
    raw_env, env, metadata = bind(game_class)
    config_name = game_class.config_class.__name__
    vars(module).update(
        {
            "raw_env": raw_env,
            "env": env,
            "metadata": metadata,
            "GAME": game_class,
            config_name: game_class.config_class,
            "__all__": [config_name, "GAME", "env", "metadata", "raw_env"],
        }
    )
    return module


def public_modules() -> dict[str, types.ModuleType]:
    """The public game modules by name (``{"ouril_v0": <module>, ...}``), in the order of the games."""
    return dict(_MODULES)


def sync_public_modules() -> dict[str, types.ModuleType]:
    """Makes the public modules follow the list of games (:data:`mancala_envs.games.GAME_MODULES`) as it is
    now: a module for each game (made once; importable as ``mancala_envs.envs.<name>_v<version>``), none for a
    game no longer in the list. :func:`mancala_envs.envs.registration.register_all` calls it.

    Returns:
        :func:`public_modules`.
    """
    wanted = {f"{cls.name}_v{cls.version}": cls for cls in game_classes()}
    for name in [name for name in _MODULES if name not in wanted]:
        sys.modules.pop(f"{__name__}.{name}", None)
        globals().pop(name, None)
        __all__.remove(name)
        del _MODULES[name]
    for name, game_class in wanted.items():
        if name not in _MODULES:
            _MODULES[name] = sys.modules.setdefault(f"{__name__}.{name}", _public_module(game_class))
            globals()[name] = _MODULES[name]
            __all__.append(name)
    for name in wanted:  # in the order of the list
        _MODULES[name] = _MODULES.pop(name)
    return public_modules()


#: the public modules by name, in the order of the games
_MODULES: dict[str, types.ModuleType] = {}
sync_public_modules()
