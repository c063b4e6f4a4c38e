"""Build environments from a YAML experiment config with ``mancala_envs.make_from_config``.

Each entry under ``environments:`` is a plain dict (``id``, options, ``wrappers``), as a YAML
file or Hydra gives it. The script builds each environment, plays one seeded game with random
legal moves, and prints its spaces::

    python examples/build_from_config.py examples/configs/custom_config.yaml

Needs PyYAML (in the ``train`` and ``test`` extras).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import yaml

from mancala_envs import make_from_config


@dataclass
class Args:
    config: str = str(Path(__file__).with_name("configs") / "custom_config.yaml")
    """the YAML file with an ``environments:`` mapping"""
    seed: int = 0
    """seed of the games played"""


def load_configs(path: str | Path) -> dict[str, dict[str, Any]]:
    """The ``environments`` mapping of a YAML file.

    Raises:
        ValueError: the file has no ``environments`` mapping.
    """
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    if not isinstance(document, dict) or not isinstance(document.get("environments"), dict):
        raise ValueError(f"{path} needs a mapping 'environments: {{name: {{id: ..., ...}}}}'.")
    return document["environments"]


def play_one_game(env: Any, seed: int) -> int:
    """Plays one game with seeded random legal moves; returns the number of decisions."""
    rng = np.random.default_rng(seed)
    decisions = 0
    if isinstance(env, gymnasium.Env):
        _, info = env.reset(seed=seed)
        while True:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            decisions += 1
            if terminated or truncated:
                return decisions
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        decisions += 1
    return decisions


def run(args: Args) -> dict[str, Any]:
    """Builds every environment of the config and plays a game on each; returns them by name."""
    built = {}
    for name, config in load_configs(args.config).items():
        env = make_from_config(config)
        decisions = play_one_game(env, args.seed)
        space = env.observation_space if isinstance(env, gymnasium.Env) else env.observation_space("player_0")
        print(f"{name}: {type(env).__name__}, observation {space}, one game: {decisions} decisions")
        built[name] = env
    return built


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default=Args.config)
    parser.add_argument("--seed", type=int, default=0)
    run(Args(**vars(parser.parse_args())))
