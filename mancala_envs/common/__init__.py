"""The bottom layer: what every other layer may use and that uses nothing of the package.

- :mod:`~mancala_envs.common.errors`: the exceptions users catch (``IllegalActionError``, ``GameOverError``).
- :mod:`~mancala_envs.common.validation`: argument checks shared by every door (seeds, counts, action arrays).
- :mod:`~mancala_envs.common.files`: bounded reads, atomic writes and locked JSON updates of the files we keep.
- :mod:`~mancala_envs.common.stats`: win/draw/loss tallies and their confidence intervals.
- :mod:`~mancala_envs.common.moved`: the old import paths of the modules that moved in 0.2.0.
"""
