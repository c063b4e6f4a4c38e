"""The toy game (``tests/support/toy/``) as a seventh game of the list, for the proof that a game is one folder
plus one line in the list of games.

:func:`add_toy_game` is that line: it adds ``"support.toy"`` to :data:`mancala_envs.games.GAME_MODULES`, then
registers the list as it now is (:func:`mancala_envs.envs.registration.register_all`); :func:`remove_toy_game`
undoes both. As a pytest plugin (``python -m pytest -p support.seventh_game ...``) it adds the toy before the
test modules are collected, so every test parametrised over the list (``VARIANTS``, ``game_names()``,
``game_classes()``) runs on the toy too, with no edit anywhere else: ``tests/games/test_toy_game.py`` runs the
env, batch, vector, agent, layout and docs-table tests that way.
"""

from __future__ import annotations

from typing import Any

import mancala_envs.games
from mancala_envs.envs.registration import register_all

__all__ = ["TOY", "add_toy_game", "pytest_configure", "remove_toy_game"]

#: the toy game's entry in the list of games: its package, by its full name
TOY = "support.toy"


def add_toy_game() -> None:
    """Adds the toy to the list of games and registers it everywhere (idempotent)."""
    if TOY not in mancala_envs.games.GAME_MODULES:
        mancala_envs.games.GAME_MODULES = (*mancala_envs.games.GAME_MODULES, TOY)  # the one line a game needs
    register_all()


def remove_toy_game() -> None:
    """Takes the toy out of the list of games and out of every registry."""
    mancala_envs.games.GAME_MODULES = tuple(entry for entry in mancala_envs.games.GAME_MODULES if entry != TOY)
    register_all()


def pytest_configure(config: Any) -> None:
    """Adds the toy before any test module is collected (when loaded with ``-p support.seventh_game``)."""
    add_toy_game()
