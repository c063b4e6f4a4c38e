"""Urim, one folder: its rules and its companion, bound into the game's class :class:`Urim`.

- ``urim_rules.py``: the rules, read top to bottom: the config, the layout, the compiled ``legal_bits``,
  ``reset_state``, ``step``, ``observe``, and :class:`UrimRules`, which binds a config to them
  (the game's declarations and its ``params``). It imports nothing of the companion.
- ``urim_companion.py``: what people need around the rules, the mixin :class:`UrimCompanion` (the spec
  table, positions, state checks, text). It imports the rules module.

This package imports both and binds them: ``class Urim(UrimCompanion, UrimRules)``, exposed as ``GAME``
(the convention of :data:`mancala_envs.games.GAME_MODULES`). The imports run one way, rules <-
companion <- this package, so there is no cycle. The rules module's public names are re-exported here,
so ``from mancala_envs.games.urim import Urim, UrimConfig`` works as before the folder.
"""

from __future__ import annotations

from mancala_envs.games.urim.urim_companion import UrimCompanion
from mancala_envs.games.urim.urim_rules import (
    LAYOUT,
    UrimConfig,
    UrimRules,
    game_over,
    legal_bits,
    observe,
    reset_state,
    step,
)

__all__ = ["GAME", "LAYOUT", "Urim", "UrimConfig", "game_over", "legal_bits", "observe", "reset_state", "step"]


class Urim(UrimCompanion, UrimRules):
    """Urim, 2x6 (or 2x7) pits, 3 (or 4) seeds per pit, stores, 17-seed pits.

    Args:
        config: The game's options.
    """


GAME = Urim  # the game's class, by the convention of mancala_envs.games
