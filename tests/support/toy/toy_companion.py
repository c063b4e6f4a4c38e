"""The toy's companion: what people need around the rules of :mod:`support.toy.toy_rules` (the spec table);
the rest (positions, state checks, text) is every two-row game's
(:class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion`)."""

from __future__ import annotations

from mancala_envs.games.two_row_family.two_row_companion import TwoRowCompanion

__all__ = ["ToyCompanion"]


class ToyCompanion(TwoRowCompanion):
    """The people-facing side of :class:`~support.toy.Toy` (a mixin, before ``ToyRules``)."""

    env_doc = """Toy, the test suite's seventh game, as a PettingZoo environment; its page is ``toy.md`` here.

| Import      | ``from mancala_envs.envs import toy_v0`` (while the test suite registers it) |
|-------------|------------------------------------------------------------------------------|
| Ids         | ``mancala/toy-v0`` (2x3, 4 seeds per pit), ``mancala/toy-mini-v0`` (2x2)      |
| Actions     | Discrete(3): sow own local pit k                                             |
| Agents      | ``player_0``, ``player_1``                                                   |
| Rewards     | +1 win, -1 loss, 0 draw, at the end                                          |
"""
