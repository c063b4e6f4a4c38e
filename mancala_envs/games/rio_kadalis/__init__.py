"""Rio Kadalis, one folder: its rules and its companion, bound into the game's class :class:`RioKadalis`.

- ``rio_kadalis_rules.py``: the rules, read top to bottom: the config, the layout, the compiled ``legal_bits``,
  ``reset_state``, ``step``, ``observe``, and :class:`RioKadalisRules`, which binds a config to them
  (the game's declarations and its ``params``). It imports nothing of the companion.
- ``rio_kadalis_companion.py``: what people need around the rules, the mixin :class:`RioKadalisCompanion` (the spec
  table, positions, state checks, text). It imports the rules module.

This package imports both and binds them: ``class RioKadalis(RioKadalisCompanion, RioKadalisRules)``,
exposed as ``GAME`` (the convention of :data:`mancala_envs.games.GAME_MODULES`). The imports run one way, rules <-
companion <- this package, so there is no cycle. The rules module's public names are re-exported here,
so ``from mancala_envs.games.rio_kadalis import RioKadalis, RioKadalisConfig`` works as before the folder.
"""

from __future__ import annotations

from mancala_envs.games.rio_kadalis.rio_kadalis_companion import RioKadalisCompanion
from mancala_envs.games.rio_kadalis.rio_kadalis_rules import (
    CLOSED,
    FOURS,
    LAYOUT,
    RESERVE,
    ROUND,
    RioKadalisConfig,
    RioKadalisRules,
    game_over,
    legal_bits,
    observe,
    reset_state,
    step,
)

__all__ = [
    "CLOSED",
    "FOURS",
    "GAME",
    "LAYOUT",
    "RESERVE",
    "ROUND",
    "RioKadalis",
    "RioKadalisConfig",
    "game_over",
    "legal_bits",
    "observe",
    "reset_state",
    "step",
]


class RioKadalis(RioKadalisCompanion, RioKadalisRules):
    """Rio Kadalis, 2x6 (or 2x5) pits, 4 seeds per pit, relay sowing, fours.

    Args:
        config: The game's options.
    """


GAME = RioKadalis  # the game's class, by the convention of mancala_envs.games
