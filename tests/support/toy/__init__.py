"""Toy, one folder, in the test suite only: its rules and its companion, bound into the game's class :class:`Toy`.

- ``toy_rules.py``: the rules (config, layout, compiled ``legal_bits``, ``reset_state``, ``step``, ``observe``)
  and :class:`ToyRules`, which binds a config to them. It imports nothing of the companion.
- ``toy_companion.py``: the people side, :class:`ToyCompanion`. It imports nothing of the rules.
- ``toy.md``: the rules page, with the tables ``docs/update_tables.py`` writes from the layout.

Adding the line ``"support.toy"`` to :data:`mancala_envs.games.GAME_MODULES` and calling
:func:`mancala_envs.envs.registration.register_all` registers it (the fixture ``toy_game`` in
``tests/games/test_toy_game.py`` does both, and undoes them).
"""

from __future__ import annotations

from support.toy.toy_companion import ToyCompanion
from support.toy.toy_rules import LAYOUT, ToyConfig, ToyRules, legal_bits, observe, reset_state, step

__all__ = ["GAME", "LAYOUT", "Toy", "ToyConfig", "legal_bits", "observe", "reset_state", "step"]


class Toy(ToyCompanion, ToyRules):
    """Toy, 2x3 (or 2x2, 2x4) pits, 4 seeds per pit, single captures on 2 and 3.

    Args:
        config: The game's options.
    """


GAME = Toy  # the game's class, by the convention of mancala_envs.games
