"""Measuring agents: tournaments and ratings, and the perfect-play oracle that scores moves.

- :mod:`~mancala_envs.analysis.tournament`: round-robin tournaments and Bradley-Terry ratings.
- :mod:`~mancala_envs.analysis.oracle`: how often an agent's moves are perfect, against a solved table.
"""
