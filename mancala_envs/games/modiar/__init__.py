"""Modiar, one folder: its rules and its companion, bound into the game's class :class:`Modiar`.

- ``modiar_rules.py``: the rules, read top to bottom: the config, the layout, the compiled ``legal_bits``,
  ``reset_state``, ``step``, ``observe``, and :class:`ModiarRules`, which binds a config to them
  (the game's declarations and its ``params``). It imports nothing of the companion.
- ``modiar_companion.py``: what people need around the rules, the mixin :class:`ModiarCompanion` (the spec
  table, positions, state checks, text). It imports the rules module.

This package imports both and binds them: ``class Modiar(ModiarCompanion, ModiarRules)``, exposed as ``GAME``
(the convention of :data:`mancala_envs.games.GAME_MODULES`). The imports run one way, rules <-
companion <- this package, so there is no cycle. The rules module's public names are re-exported here,
so ``from mancala_envs.games.modiar import Modiar, ModiarConfig`` works as before the folder.
"""

from __future__ import annotations

from mancala_envs.games.modiar.modiar_companion import ModiarCompanion
from mancala_envs.games.modiar.modiar_rules import (
    LAYOUT,
    ModiarConfig,
    ModiarRules,
    legal_bits,
    observe,
    reset_state,
    step,
)

__all__ = ["GAME", "LAYOUT", "Modiar", "ModiarConfig", "legal_bits", "observe", "reset_state", "step"]


class Modiar(ModiarCompanion, ModiarRules):
    """Modiar, 2x3 pits, 7 stones per pit, origin-first sowing, captures on 2, 4 and 6.

    The stores hold the stones each player has captured (the game keeps them
    off the board). The observation adds a ``first_move`` flag to the two-row
    observation, since the first ply of a game captures nothing (rule 4).

    Args:
        config: The game's options.
    """


GAME = Modiar  # the game's class, by the convention of mancala_envs.games
