"""Kalah's companion: what people need around the rules of :mod:`mancala_envs.games.kalah.kalah_rules`.

The rules (config, layout, legal moves, ``step``, ``observe`` and the ``KalahRules`` class binding
them to a config) are in ``kalah_rules.py``; the rules page is ``docs/rules/kalah.md``. This module
holds the mixin :class:`KalahCompanion`, which the game's class (``Kalah`` in this folder's
``__init__.py``) puts before ``KalahRules``: the spec table (``env_doc``) and position loading (an
empty row ends a loaded position as it would a move). What every two-row game shares (position
loading, state checks, the text picture) comes from
:class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion`.

The imports run one way: this module imports the rules module (as ``rules``), the
rules module imports nothing of this one, and the package's ``__init__`` binds the two into the game's
class. No import cycle, no import at the bottom of a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mancala_envs.engine.state import END_NO_FEEDING_MOVE, END_NO_LEGAL_MOVE, END_REASON, RUNNING, STATUS
from mancala_envs.games.kalah import kalah_rules as rules
from mancala_envs.games.two_row_family.two_row_companion import TwoRowCompanion

__all__ = ["KalahCompanion"]


class KalahCompanion(TwoRowCompanion):
    """The people-facing side of :class:`~mancala_envs.games.kalah.Kalah` (a mixin, see the module docstring)."""

    env_doc = """Kalah as a PettingZoo environment; the full page is ``docs/rules/kalah.md``.

| Import      | ``from mancala_envs.envs import kalah_v0``                                         |
|-------------|------------------------------------------------------------------------------------|
| Ids         | ``mancala/kalah-v0`` (2x6, 4 seeds), ``mancala/kalah-6x6-v0`` (6 seeds),            |
|             | ``mancala/kalah-empty-capture-v0``; ``pits_per_row`` 1-8, ``seeds_per_pit`` 1-6    |
| Actions     | Discrete(n): sow own local pit k (n = 6 by default)                                |
| Agents      | ``player_0``, ``player_1`` (the same agent acts again after a last seed in its store) |
| Observation | Dict(observation=Box(int32, (2n+5,)), action_mask=Box(0, 1, (n,), int8))           |
| Rewards     | +1 win, -1 loss, 0 draw, at the end                                                |
"""

    def load_position(
        self,
        state: np.ndarray,
        board: Sequence[int],
        stores: Sequence[int] = (0, 0),
        player: int = 0,
        **flags: Any,
    ) -> None:
        """Replaces the game in ``state`` by an arbitrary position (any board with stores adding up to T).

        A position with an empty row is over at once, as after a move (rule 4):
        each player adds their own row to their store and the end reason is
        ``"row_empty"``, whichever row is empty.

        Args:
            state: The state to overwrite (it is left untouched on error).
            board: Seeds per pit in global index order (``2 * pits_per_row`` values).
            stores: Seeds already in player 0's and player 1's store.
            player: The player to move, 0 or 1.
            **flags: None: Kalah positions have no flags.

        Raises:
            ValueError: wrong length, negative counts, a seed total other than T, a bad player.
            TypeError: a flag (Kalah has none).
        """
        super().load_position(state, board, stores, player, **flags)
        if state[STATUS] != RUNNING:
            # The mover's row was empty: the shared loader ended the game for want of a legal
            # move, with the owners collecting, which is rule 4's settlement under its own name.
            if state[END_REASON] in (END_NO_LEGAL_MOVE, END_NO_FEEDING_MOVE):
                state[END_REASON] = rules.END_ROW_EMPTY
            return
        rules.end_if_row_empty(state, self.row_size, self.total_seeds)  # the opponent's row may be empty
