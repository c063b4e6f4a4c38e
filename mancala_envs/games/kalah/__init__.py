"""Kalah, one folder: its rules and its companion, bound into the game's class :class:`Kalah`.

- ``kalah_rules.py``: the rules, read top to bottom: the config, the layout, the compiled ``legal_bits``,
  ``reset_state``, ``step``, ``observe``, and :class:`KalahRules`, which binds a config to them
  (the game's declarations and its ``params``). It imports nothing of the companion.
- ``kalah_companion.py``: what people need around the rules, the mixin :class:`KalahCompanion` (the spec
  table, positions, state checks, text). It imports the rules module.

This package imports both and binds them: ``class Kalah(KalahCompanion, KalahRules)``, exposed as ``GAME``
(the convention of :data:`mancala_envs.games.GAME_MODULES`). The imports run one way, rules <-
companion <- this package, so there is no cycle. The rules module's public names are re-exported here,
so ``from mancala_envs.games.kalah import Kalah, KalahConfig`` works as before the folder.
"""

from __future__ import annotations

from mancala_envs.games.kalah.kalah_companion import KalahCompanion
from mancala_envs.games.kalah.kalah_rules import (
    EMPTY_CAPTURE,
    LAYOUT,
    KalahConfig,
    KalahRules,
    capture_opposite,
    end_if_row_empty,
    legal_bits,
    observe,
    reset_state,
    sow_with_store,
    step,
    store_pit,
)

__all__ = [
    "EMPTY_CAPTURE",
    "GAME",
    "LAYOUT",
    "Kalah",
    "KalahConfig",
    "capture_opposite",
    "end_if_row_empty",
    "legal_bits",
    "observe",
    "reset_state",
    "sow_with_store",
    "step",
    "store_pit",
]


class Kalah(KalahCompanion, KalahRules):
    """Kalah, 2x1 to 2x8 pits, 1 to 6 seeds per pit, stores sown into, extra turns, captures opposite.

    The observation is the shared two-row one; its ``must_feed`` flag is always
    0 in Kalah, since a game with an empty row is already over.

    Args:
        config: The game's options.
    """


GAME = Kalah  # the game's class, by the convention of mancala_envs.games
