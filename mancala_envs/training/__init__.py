"""Training: MaskablePPO runs, self-play, and compiling ahead of use.

- :mod:`~mancala_envs.training.trainer`: ``TrainConfig``, ``train`` and ``evaluate`` (``mancala-envs train``).
- :mod:`~mancala_envs.training.selfplay`: self-play against a pool of the learner's own snapshots.
- :mod:`~mancala_envs.training.warm_up`: ``warm_up``, compiling games before a job needs them.

Until 0.2.0 ``mancala_envs.training`` was the module that is now :mod:`~mancala_envs.training.trainer`; its
names still resolve here, with a :class:`DeprecationWarning`, until 0.3.0. Nothing here is imported eagerly:
``trainer`` needs the ``train`` extra (Stable-Baselines3 and torch).
"""

from __future__ import annotations

from typing import Any

from mancala_envs.common.moved import moved_name


def __getattr__(name: str) -> Any:
    # the names of the old module mancala_envs.training, now mancala_envs.training.trainer: they warn
    return moved_name(__name__, name, "mancala_envs.training.trainer")
