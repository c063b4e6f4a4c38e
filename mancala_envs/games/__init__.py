"""The games. This is the one place where a game is registered.

:data:`GAME_MODULES` names each game's folder (``mancala_envs/games/<module>/``), and every
other list of games derives from it: the ids and variants of both registries
(:mod:`mancala_envs.envs.registration`), ``list_envs``, the public modules ``mancala_envs.envs.<name>_v0``,
the CLI's game names and the tests' parametrisation over ``VARIANTS``. A game is one folder: its rules
module ``<module>_rules.py``, its companion ``<module>_companion.py`` (the people side), and an
``__init__.py`` that binds the two into the game's :class:`~mancala_envs.games.game.Game` subclass and
exposes it as ``GAME``; ``docs/architecture.md`` ("Adding a game") lists what that class declares.
What the two-row games share is in :mod:`mancala_envs.games.two_row_family`, which is not a game.
"""

from __future__ import annotations

import importlib
import types
from functools import cache
from typing import TYPE_CHECKING

from mancala_envs.common.moved import moved_attribute

if TYPE_CHECKING:
    from mancala_envs.games.game import Game

__all__ = ["GAME_MODULES", "game_class", "game_classes"]

#: the games' folders (packages), in the order the docs and ``list_envs`` show them
GAME_MODULES: tuple[str, ...] = ("ouril", "urim", "modiar", "rio_kadalis", "omweso", "kalah")


@cache
def game_classes() -> tuple[type[Game], ...]:
    """The Game class of every game, in :data:`GAME_MODULES` order (imports the rules modules; compiles nothing)."""
    return tuple(importlib.import_module(f"{__name__}.{module}").GAME for module in GAME_MODULES)


def game_class(name: str) -> type[Game]:
    """The Game class of the game called ``name`` (``"ouril"``, ``"rio_kadalis"``...).

    Raises:
        ValueError: no game has that name; the message lists the names.
    """
    for cls in game_classes():
        if cls.name == name:
            return cls
    raise ValueError(f"unknown game {name!r}; choose one of {[cls.name for cls in game_classes()]}.")


def __getattr__(name: str) -> types.ModuleType:
    # the submodules that moved in 0.2.0, as attributes: they warn (mancala_envs.common.moved)
    return moved_attribute(__name__, name)
