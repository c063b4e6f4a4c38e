"""Omweso, one folder: its rules and its companion, bound into the game's class :class:`Omweso`.

- ``omweso_rules.py``: the rules, read top to bottom: the config, the layout, the compiled ``legal_bits``,
  ``reset_state``, ``step``, ``observe``, and :class:`OmwesoRules`, which binds a config to them
  (the game's declarations and its ``params``). It imports nothing of the companion.
- ``omweso_companion.py``: what people need around the rules, the mixin :class:`OmwesoCompanion` (the spec
  table, positions, state checks, text). It imports the rules module.

This package imports both and binds them: ``class Omweso(OmwesoCompanion, OmwesoRules)``, exposed as ``GAME``
(the convention of :data:`mancala_envs.games.GAME_MODULES`). The imports run one way, rules <-
companion <- this package, so there is no cycle. The rules module's public names are re-exported here,
so ``from mancala_envs.games.omweso import Omweso, OmwesoConfig`` works as before the folder.
"""

from __future__ import annotations

from mancala_envs.games.omweso.omweso_companion import OmwesoCompanion
from mancala_envs.games.omweso.omweso_rules import (
    END_COLUMN_PITS,
    LAYOUT,
    LEFT4,
    OmwesoConfig,
    OmwesoRules,
    game_over,
    legal_bits,
    observe,
    reset_state,
    step,
)

__all__ = [
    "END_COLUMN_PITS",
    "GAME",
    "LAYOUT",
    "LEFT4",
    "Omweso",
    "OmwesoConfig",
    "game_over",
    "legal_bits",
    "observe",
    "reset_state",
    "step",
]


class Omweso(OmwesoCompanion, OmwesoRules):
    """Omweso, 4 x 8 pits, 64 seeds, relay sowing with captures re-sown by the captor.

    Args:
        config: The game's options.
    """


GAME = Omweso  # the game's class, by the convention of mancala_envs.games
