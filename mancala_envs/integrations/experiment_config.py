"""Environments from plain experiment configs (a dict, as a YAML file or Hydra gives it).

A config names a registered id and may add options and a list of wrappers::

    {"id": "mancala/omweso-v0", "setup": "two_each", "wrappers": ["flat"]}
    {"id": "mancala/Ouril-v0", "opponent": "greedy", "wrappers": [{"name": "one_hot", "cap": 8}]}

A PettingZoo id (``mancala/ouril-v0``, or a game name such as ``ouril_v0``) gives the
AEC environment with the AEC form of each wrapper; a Gymnasium id (``mancala/Ouril-v0``,
see :func:`mancala_envs.envs.registration.list_gymnasium_envs`) gives the single-agent view
with the Gymnasium form. Every other key is an option of the game or the environment;
unknown keys and bad values raise errors that name them.

Any mapping and any sequence will do where a dict or a list is expected, at every level (an
OmegaConf ``DictConfig`` / ``ListConfig`` as Hydra passes it, a tuple, a ``MappingProxyType``...):
the config is turned into plain dicts and lists, as ``yaml.safe_load`` gives it, before anything
reads it. A string is never taken for a sequence.

Example:
    >>> from mancala_envs import make_from_config
    >>> env = make_from_config({"id": "mancala/Ouril-v0", "opponent": "greedy", "wrappers": ["flat"]})
    >>> observation, info = env.reset(seed=0)
    >>> observation.dtype, observation.shape
    (dtype('float32'), (17,))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium

from mancala_envs.envs.registration import VARIANTS, list_envs, list_gymnasium_envs, make

__all__ = ["CONFIG_KEYS", "make_from_config"]

#: Keys that ``make_from_config`` reads itself; all others are environment and game options.
CONFIG_KEYS = ("id", "wrappers")


def _plain(value: Any) -> Any:
    """``value`` with every mapping turned into a dict and every sequence (not a string) into a list.

    Other values are returned as they are, so the checks further down see them and name them.
    """
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        return [_plain(item) for item in value]
    return value


def _option_names(env_id: str, gymnasium_form: bool) -> set[str]:
    """Every option an id accepts (its game config's fields and the environment's keywords)."""
    import dataclasses
    import inspect

    from mancala_envs.envs.aec_env import ENV_OPTIONS
    from mancala_envs.views.single_agent_env import SingleAgentEnv

    aec_env = make(env_id)
    names = {field.name for field in dataclasses.fields(aec_env.game.config)} | set(ENV_OPTIONS)
    if gymnasium_form:
        names |= set(inspect.signature(SingleAgentEnv).parameters) - {"options", "env_id"}
    return names


def make_from_config(config: Mapping[str, Any]) -> Any:
    """Builds the environment a config describes.

    Args:
        config: A mapping with ``id`` (required), optional ``wrappers`` (a list of encoding
            names or ``{"name": ..., **options}`` dicts, applied in order) and any options of
            the game or environment. Any ``Mapping`` stands for a dict and any ``Sequence`` other
            than a string for a list, at every level (an OmegaConf ``DictConfig`` from Hydra, for
            one); they reach the environment as plain dicts and lists.

    Returns:
        A PettingZoo AEC environment for a PettingZoo id, a Gymnasium environment for a Gymnasium id.

    Raises:
        TypeError: ``config`` is not a mapping, or ``wrappers`` is not a sequence (a string is not).
        ValueError: no ``id``, an unknown id, an unknown option (named), a bad value, or a bad wrapper.
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping such as {{'id': 'mancala/ouril-v0'}} (got {type(config).__name__}).")
    settings: dict[str, Any] = _plain(config)  # a dict: the entries are taken out one by one
    if "id" not in settings:
        raise ValueError(f"config has no 'id'; add one of {list_envs()} or {list_gymnasium_envs()}.")
    env_id = settings.pop("id")
    wrappers = settings.pop("wrappers", [])
    if wrappers is None:
        wrappers = []
    if not isinstance(wrappers, list):
        raise TypeError(
            f"config 'wrappers' must be a list, such as ['flat'] (got {type(wrappers).__name__} {wrappers!r})."
        )
    gymnasium_ids = {variant.gymnasium_id: variant.id for variant in VARIANTS}
    gymnasium_form = env_id in gymnasium_ids
    pettingzoo_id = gymnasium_ids.get(env_id, env_id)
    if not isinstance(env_id, str) or (not gymnasium_form and env_id not in list_envs()):
        raise ValueError(
            f"config 'id' {env_id!r} is not registered; choose a PettingZoo id {list_envs()} "
            f"or a Gymnasium id {list_gymnasium_envs()}."
        )
    accepted = _option_names(pettingzoo_id, gymnasium_form)
    unknown = sorted(set(settings) - accepted)
    if unknown:
        allowed = sorted(accepted | set(CONFIG_KEYS))
        raise ValueError(f"config has unknown keys {unknown} for {env_id!r}; the keys it takes are {allowed}.")
    env = gymnasium.make(env_id, **settings) if gymnasium_form else make(pettingzoo_id, **settings)
    from mancala_envs.wrappers import apply_wrappers

    return apply_wrappers(env, wrappers)
