"""Urim's companion: what people need around the rules of :mod:`mancala_envs.games.urim.urim_rules`.

The rules (config, layout, legal moves, ``step``, ``observe`` and the ``UrimRules`` class binding
them to a config) are in ``urim_rules.py``; the rules page is ``docs/rules/urim.md``. This module
holds the mixin :class:`UrimCompanion`, which the game's class (``Urim`` in this folder's
``__init__.py``) puts before ``UrimRules``: the spec table (``env_doc``) and the values of the
layout's symbols (the match points' bound). What every two-row game shares (position loading, state
checks, the text picture) comes from
:class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion`."""

from __future__ import annotations

from typing import Any

from mancala_envs.games.two_row_family.two_row_companion import TwoRowCompanion

__all__ = ["UrimCompanion"]


class UrimCompanion(TwoRowCompanion):
    """The people-facing side of :class:`~mancala_envs.games.urim.Urim` (a mixin, see the module docstring)."""

    env_doc = """Urim as a PettingZoo environment; the full page is ``docs/rules/urim.md``.

| Import      | ``from mancala_envs.envs import urim_v0``                                         |
|-------------|-----------------------------------------------------------------------------------|
| Ids         | ``mancala/urim-v0``, ``urim7-v0`` (2x7), ``urim48-v0`` (4 seeds), ``urim-match-v0`` |
| Actions     | Discrete(n): sow own local pit k (n = 6, or 7 on 2x7)                             |
| Agents      | ``player_0``, ``player_1``                                                        |
| Observation | Dict(observation=Box(int32, (2n+5,) or (2n+7,) in a match), action_mask=(n,) int8) |
| Rewards     | +1 win, -1 loss, 0 draw at the end; or match points (``reward_mode``)             |

The rules module imports nothing of this one; the package's ``__init__`` binds the two into the
game's class.
"""

    def layout_values(self) -> dict[str, Any]:
        """Adds ``match_top``, the most match points a player can hold: a game's points can take a
        player past the target by at most the largest award."""
        values = super().layout_values()
        if self.is_match:
            values["match_top"] = self.config.match_target + max(self.config.points_three_quarters, 1) - 1
        return values
