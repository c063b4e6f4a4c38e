"""Adapters to other libraries and tools.

- :mod:`~mancala_envs.integrations.experiment_config`: environments built from experiment configs
  (``make_from_config``: dicts, YAML, Hydra/OmegaConf).
- :mod:`~mancala_envs.integrations.openspiel`: every game as an OpenSpiel game (the ``openspiel`` extra).
"""
