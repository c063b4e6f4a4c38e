"""The games. This is the one place where a game is registered.

:data:`GAME_MODULES` names each game's folder (``mancala_envs/games/<module>/``), and every
other list of games derives from it: the ids and variants of both registries
(:mod:`mancala_envs.envs.registration`), ``list_envs``, the public modules ``mancala_envs.envs.<name>_v0``,
the CLI's game names and the tests' parametrisation over ``VARIANTS``. A game is one folder: its rules
module ``<module>_rules.py``, its companion ``<module>_companion.py`` (the people side), and an
``__init__.py`` that binds the two into the game's :class:`~mancala_envs.games.game.Game` subclass and
exposes it as ``GAME``; ``docs/architecture.md`` ("Adding a game") lists what that class declares.
What the two-row games share is in :mod:`mancala_envs.games.two_row_family`, which is not a game.

A name with a dot is a game from elsewhere, imported by that full name (a plugin's game, or the test suite's
toy game ``support.toy_game``): adding it to the list, then calling
:func:`mancala_envs.envs.registration.register_all`, registers it like the package's own games.
"""

from __future__ import annotations

import importlib
import types
from functools import cache
from typing import TYPE_CHECKING

from mancala_envs.common.moved import moved_attribute

if TYPE_CHECKING:
    from mancala_envs.games.game import Game

__all__ = ["GAME_MODULES", "game_class", "game_classes", "game_module_name"]

#: the games' folders (packages), in the order the docs and ``list_envs`` show them; a name with a dot is a
#: game's package outside this one, by its full name
GAME_MODULES: tuple[str, ...] = ("ouril", "urim", "modiar", "rio_kadalis", "omweso", "kalah")


def game_module_name(entry: str) -> str:
    """The full name of the package of a :data:`GAME_MODULES` entry: ``"ouril"`` -> ``"mancala_envs.games.ouril"``;
    a name with a dot is already full (``"support.toy_game"``)."""
    return entry if "." in entry else f"{__name__}.{entry}"


def game_classes() -> tuple[type[Game], ...]:
    """The Game class of every game, in :data:`GAME_MODULES` order (imports the rules modules; compiles nothing).

    Read from the list as it is now, so a game added to :data:`GAME_MODULES` is in it (each list's classes are
    imported once).
    """
    return _game_classes_of(GAME_MODULES)


@cache
def _game_classes_of(entries: tuple[str, ...]) -> tuple[type[Game], ...]:
    return tuple(importlib.import_module(game_module_name(entry)).GAME for entry in entries)


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
