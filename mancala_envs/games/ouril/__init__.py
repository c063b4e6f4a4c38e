"""Ouril, one folder: its rules and its companion, bound into the game's class :class:`Ouril`.

- ``ouril_rules.py``: the rules, read top to bottom: the config, the layout, the compiled ``legal_bits``,
  ``reset_state``, ``step``, ``observe``, and :class:`OurilRules`, which binds a config to them
  (the game's declarations and its ``params``). It imports nothing of the companion.
- ``ouril_companion.py``: what people need around the rules, the mixin :class:`OurilCompanion` (the spec
  table, positions, state checks, text). It imports the rules module.

This package imports both and binds them: ``class Ouril(OurilCompanion, OurilRules)``, exposed as ``GAME``
(the convention of :data:`mancala_envs.games.GAME_MODULES`). The imports run one way, rules <-
companion <- this package, so there is no cycle. The rules module's public names are re-exported here,
so ``from mancala_envs.games.ouril import Ouril, OurilConfig`` works as before the folder.
"""

from __future__ import annotations

from mancala_envs.games.ouril.ouril_companion import OurilCompanion
from mancala_envs.games.ouril.ouril_rules import (
    LAYOUT,
    OurilConfig,
    OurilRules,
    legal_bits,
    observe,
    reset_state,
    step,
)

__all__ = ["GAME", "LAYOUT", "Ouril", "OurilConfig", "legal_bits", "observe", "reset_state", "step"]


class Ouril(OurilCompanion, OurilRules):
    """Ouril, 2x6 (or 2x4) pits, 4 seeds per pit, stores, captures on 2 and 3.

    Args:
        config: The game's options.
    """


GAME = Ouril  # the game's class, by the convention of mancala_envs.games
