"""Measuring agents: tournaments and ratings, and the perfect-play oracle that scores moves.

- :mod:`~mancala_envs.analysis.tournament`: round-robin tournaments, their tables and files.
- :mod:`~mancala_envs.analysis.ratings`: Bradley-Terry ratings on the Elo scale, fitted to results.
- :mod:`~mancala_envs.analysis.oracle`: how often an agent's moves are perfect, against a solved table.
- :mod:`~mancala_envs.analysis.oracle_callback`: the same figures logged while Stable-Baselines3 trains.
- :mod:`~mancala_envs.analysis.text_arena`: text agents (``prompt -> reply``) against the ladder's agents.
"""
