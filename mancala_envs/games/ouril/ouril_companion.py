"""Ouril's companion: what people need around the rules of :mod:`mancala_envs.games.ouril.ouril_rules`.

The rules (config, layout, legal moves, ``step``, ``observe`` and the ``OurilRules`` class binding
them to a config) are in ``ouril_rules.py``; the rules page is ``docs/rules/ouril.md``. This module
holds the mixin :class:`OurilCompanion`, which the game's class (``Ouril`` in this folder's
``__init__.py``) puts before ``OurilRules``: the spec table (``env_doc``); the rest of its people
side is the shared two-row one. What every two-row game shares (position loading, state checks, the
text picture) comes from
:class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion`."""

from __future__ import annotations

from mancala_envs.games.two_row_family.two_row_companion import TwoRowCompanion

__all__ = ["OurilCompanion"]


class OurilCompanion(TwoRowCompanion):
    """The people-facing side of :class:`~mancala_envs.games.ouril.Ouril` (a mixin, see the module docstring)."""

    env_doc = """Ouril as a PettingZoo environment; the full page is ``docs/rules/ouril.md``.

| Import      | ``from mancala_envs.envs import ouril_v0``                                |
|-------------|---------------------------------------------------------------------------|
| Ids         | ``mancala/ouril-v0`` (2x6), ``mancala/ouril-mini-v0`` (2x4)                |
| Actions     | Discrete(n): sow own local pit k (n = 6, or 4 on 2x4)                     |
| Agents      | ``player_0``, ``player_1``                                                |
| Observation | Dict(observation=Box(int32, (2n+5,)), action_mask=Box(0, 1, (n,), int8))  |
| Rewards     | +1 win, -1 loss, 0 draw, at the end                                       |

The rules module imports nothing of this one; the package's ``__init__`` binds the two into the
game's class.
"""
