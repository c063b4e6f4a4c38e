"""Compiled algorithms over any game: they take a game's rules module and compile one copy for it.

- :mod:`~mancala_envs.algorithms.greedy`: the greedy baseline's rule, compiled.
- :mod:`~mancala_envs.algorithms.playouts`: the pieces of random play (the random legal action, its statistics).
- :mod:`~mancala_envs.algorithms.tree_search`: alpha-beta and Monte Carlo tree search on engine states.
- :mod:`~mancala_envs.algorithms.retrograde`: the retrograde solver behind the perfect-play tables.

They know the engine and the games, and nothing of the environments above them.
"""
