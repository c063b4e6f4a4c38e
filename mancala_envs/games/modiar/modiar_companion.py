"""Modiar's companion: what people need around the rules of :mod:`mancala_envs.games.modiar.modiar_rules`.

The rules (config, layout, legal moves, ``step``, ``observe`` and the ``ModiarRules`` class binding
them to a config) are in ``modiar_rules.py``; the rules page is ``docs/rules/modiar.md``. This
module holds the mixin :class:`ModiarCompanion`, which the game's class (``Modiar`` in this folder's
``__init__.py``) puts before ``ModiarRules``: the spec table (``env_doc``) and the position flag
``first_move_done``. What every two-row game shares (position loading, state checks, the text
picture) comes from :class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion`."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mancala_envs.engine.state import FIRST_MOVE_DONE
from mancala_envs.games.game import check_bool
from mancala_envs.games.two_row_family.two_row_companion import TwoRowCompanion

__all__ = ["ModiarCompanion"]


class ModiarCompanion(TwoRowCompanion):
    """The people-facing side of :class:`~mancala_envs.games.modiar.Modiar` (a mixin, see the module docstring)."""

    env_doc = """Modiar as a PettingZoo environment; the full page is ``docs/rules/modiar.md``.

| Import      | ``from mancala_envs.envs import modiar_v0``                               |
|-------------|---------------------------------------------------------------------------|
| Ids         | ``mancala/modiar-v0`` (2x3, 7 stones per pit, T = 42)                     |
| Actions     | Discrete(3): sow own local pit k                                          |
| Agents      | ``player_0``, ``player_1``                                                |
| Observation | Dict(observation=Box(int32, (12,)), action_mask=Box(0, 1, (3,), int8))    |
| Rewards     | +1 win, -1 loss, 0 draw, at the end                                       |

The rules module imports nothing of this one; the package's ``__init__`` binds the two into the
game's class.
"""

    #: ``first_move_done=0`` loads a position in which the next ply is the game's first (rule 4)
    position_options: ClassVar[dict[str, str]] = {"first_move_done": "bool"}

    def check_position_flags(self, board: list[int], flags: dict[str, Any]) -> int:
        if "first_move_done" in flags:
            check_bool("first_move_done", flags["first_move_done"])
        return 0

    def apply_position_flags(self, state: np.ndarray, flags: dict[str, Any]) -> None:
        state[FIRST_MOVE_DONE] = int(flags.get("first_move_done", True))

    def position_flags(self, state: np.ndarray) -> dict[str, Any]:
        return {} if state[FIRST_MOVE_DONE] == 1 else {"first_move_done": False}
