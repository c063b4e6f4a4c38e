"""The two-row family: what the two-row store games share. Not a game (it is not in ``GAME_MODULES``).

Ouril, Urim, Modiar, Rio Kadalis and Kalah are two-row games with a store per player; each game's folder
builds on this one, the same way round as a game's own two modules:

- ``two_row_rules.py``: the shared rules side: board indexing, ``TWO_ROW_LAYOUT`` (the first header
  slots, ``params`` and observation entries of every two-row game), ``observe_two_row`` and
  :class:`~mancala_envs.games.two_row_family.two_row_rules.TwoRowGame`, the base of each game's rules class.
- ``two_row_companion.py``: the shared people side (positions, state checks, the text picture), the mixin
  :class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion` that each game's companion
  extends. It imports the rules module; the rules module imports nothing of it.
"""
