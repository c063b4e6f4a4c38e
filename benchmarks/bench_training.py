"""Training throughput and the environment's share of it (MaskablePPO, the recipe of ``mancala-envs train``).

Two measurements of the same thing, in the same process:

1. **Timers.** ``mancala-envs train`` times its own environment: against compiled opponents (the
   default pool) ``mancala_envs.training.trainer.VecStepTimer`` adds up the wall time of the batched VecEnv's
   ``reset``/``step_wait``/``env_method("action_masks")`` (every learner's action, the opponents'
   replies, the encoding, the infos); for other opponents ``StepTimer`` times each single-agent env.
   The share is that time over the wall time of ``model.learn``.
2. **A peer that costs nothing.** The same MaskablePPO config trains on an env of the same spaces
   that does no work (constant observation, all actions legal, episodes of the same mean length):
   ``NullVecEnv``, a batched SB3 VecEnv, when the training env is batched, else ``NullEnv`` in a
   ``DummyVecEnv``. The ratio of the two training speeds bounds the env's cost from the outside:
   ``1 - mancala_sps / null_sps`` is the share of the wall time our env adds.

Run::

    python benchmarks/bench_training.py --opponent random greedy        # mancala-envs train, 100k steps
    python benchmarks/bench_training.py                      # Ouril vs random
    python benchmarks/bench_training.py --game omweso_v0 --opponent greedy --timesteps 50000

Prints a table and writes ``benchmarks/results/bench_training.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_machine import machine_info
from stable_baselines3.common.vec_env import VecEnv

from mancala_envs.training.trainer import StepTimer, TrainConfig, VecStepTimer, set_torch_threads, train


@dataclass
class Args:
    game: str = "ouril_v0"
    """the game to train on"""
    opponent: tuple[str, ...] = ("random",)
    """the training opponent(s); several = one drawn per episode"""
    timesteps: int = 100_000
    """learner steps per run"""
    seed: int = 0
    """seed of both runs"""
    sb3_defaults: bool = False
    """also measure SB3's default PPO settings (n_steps=2048, batch_size=64, n_epochs=10)"""
    out: str = str(Path(__file__).resolve().parent / "results" / "bench_training.json")
    """where the JSON goes"""


class NullEnv(gymnasium.Env):
    """The peer: the spaces of a mancala env and a step that does nothing (episodes of fixed length)."""

    def __init__(self, observation_space: gymnasium.Space, n_actions: int, episode_length: int) -> None:
        self.observation_space = observation_space
        self.action_space = gymnasium.spaces.Discrete(n_actions)
        self._observation = np.zeros(observation_space.shape, dtype=observation_space.dtype)
        self._mask = np.ones(n_actions, dtype=bool)
        self._length = episode_length
        self._t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._t = 0
        return self._observation, {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        self._t += 1
        done = self._t >= self._length
        return self._observation, (1.0 if done else 0.0), done, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask


class NullVecEnv(VecEnv):
    """The batched peer: ``n_envs`` games of NullEnv's spaces in one SB3 VecEnv whose step does nothing but
    count (every episode ``episode_length`` steps, all actions legal), with SB3's ``episode`` infos."""

    def __init__(self, n_envs: int, observation_space: gymnasium.Space, n_actions: int, episode_length: int) -> None:
        self.render_mode = None
        super().__init__(n_envs, observation_space, gymnasium.spaces.Discrete(n_actions))
        self._observation = np.zeros((n_envs, *observation_space.shape), dtype=observation_space.dtype)
        self._masks = np.ones((n_envs, n_actions), dtype=bool)
        self._length = episode_length
        self._t = np.zeros(n_envs, np.int64)

    def reset(self) -> np.ndarray:
        self._t[:] = 0
        return self._observation.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._t += 1

    def step_wait(self) -> Any:
        dones = self._t >= self._length
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones).tolist():
            infos[game] = {
                "terminal_observation": self._observation[game],
                "episode": {"r": 1.0, "l": self._length, "t": 0.0},
            }
        self._t[dones] = 0
        return self._observation.copy(), dones.astype(np.float32), dones, infos

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list:
        return list(self._masks)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * self.num_envs

    def action_masks(self) -> np.ndarray:
        return self._masks

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(attr_name)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs

    def close(self) -> None:
        pass


def train_null(
    config: TrainConfig, observation_space: gymnasium.Space, n_actions: int, episode_length: int, batched: bool
) -> float:
    """Trains the same MaskablePPO config on the null peer (batched, as the training env was, or single envs);
    returns the learn wall time in seconds."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    if batched:
        vec_env = VecStepTimer(NullVecEnv(config.n_envs, observation_space, n_actions, episode_length))
    else:
        vec_env = make_vec_env(
            lambda: StepTimer(NullEnv(observation_space, n_actions, episode_length)),
            n_envs=config.n_envs,
            seed=config.seed,
        )
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        ent_coef=config.ent_coef,
        policy_kwargs={"net_arch": list(config.net_arch)},
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(config.timesteps)
    return time.perf_counter() - start


def measure(args: Args, label: str, **overrides: Any) -> dict[str, Any]:
    """One pair of runs (mancala env, then NullEnv) with the same PPO settings."""
    opponent = args.opponent[0] if len(args.opponent) == 1 else list(args.opponent)
    config = TrainConfig(
        game=args.game,
        opponent=opponent,
        timesteps=args.timesteps,
        seed=args.seed,
        progress_bar=False,
        save_path=str(Path(args.out).with_suffix(".model.zip")),
        **overrides,
    )
    result = train(config)
    Path(config.save_path).unlink()  # the model is not what is measured
    episodes = np.array([info["l"] for info in result.model.ep_info_buffer])  # SB3 keeps the last 100 episodes
    mean_length = max(1, round(float(episodes.mean()))) if episodes.size else 30
    observation_space = result.model.observation_space
    batched = isinstance(result.model.get_env(), VecStepTimer)
    null_seconds = train_null(config, observation_space, result.model.action_space.n, mean_length, batched)
    timesteps = result.timesteps
    row = {
        "label": label,
        "ppo": {k: getattr(config, k) for k in ("n_envs", "n_steps", "batch_size", "n_epochs", "net_arch")},
        "timesteps": timesteps,
        "mancala_seconds": result.seconds,
        "mancala_steps_per_s": timesteps / result.seconds,
        "env_seconds_timed": result.env_seconds,
        "env_share_timed": result.env_share,
        "env_us_per_step_timed": 1e6 * result.env_seconds / timesteps,
        "null_seconds": null_seconds,
        "null_steps_per_s": timesteps / null_seconds,
        "speed_ratio_vs_null": null_seconds / result.seconds,
        "env_share_vs_null": 1 - null_seconds / result.seconds,
        "mean_episode_length": mean_length,
        "batched": batched,
    }
    return row


def warm_up(args: Args) -> None:
    """Compiles the engine and initialises torch before anything is timed."""
    config = TrainConfig(
        game=args.game,
        opponent=list(args.opponent),
        timesteps=512,
        n_envs=2,
        n_steps=256,
        progress_bar=False,
        save_path=str(Path(args.out).with_suffix(".warmup.zip")),
    )
    result = train(config)
    train_null(config, result.model.observation_space, result.model.action_space.n, 30, batched=True)
    Path(config.save_path).unlink()


def main(args: Args) -> dict[str, Any]:
    set_torch_threads(1)
    warm_up(args)
    rows = [measure(args, "mancala-envs train defaults")]
    if args.sb3_defaults:
        rows.append(measure(args, "SB3 PPO defaults", n_steps=2048, batch_size=64, n_epochs=10))
    report = {"args": asdict(args), "machine": machine_info(), "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(f"{args.game} vs {' / '.join(args.opponent)}, {args.timesteps} steps, torch 1 thread")
    print(
        f"{'settings':<28} {'steps/s':>8} {'env us/step':>11} {'env share (timers)':>19} "
        f"{'null env steps/s':>16} {'env share (vs null)':>20}"
    )
    for row in rows:
        print(
            f"{row['label']:<28} {row['mancala_steps_per_s']:8.0f} {row['env_us_per_step_timed']:11.1f} "
            f"{100 * row['env_share_timed']:18.1f}% {row['null_steps_per_s']:16.0f} "
            f"{100 * row['env_share_vs_null']:19.1f}%"
        )
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=Args.game)
    parser.add_argument("--opponent", nargs="+", default=list(Args.opponent))
    parser.add_argument("--timesteps", type=int, default=Args.timesteps)
    parser.add_argument("--seed", type=int, default=Args.seed)
    parser.add_argument("--sb3-defaults", action="store_true")
    parser.add_argument("--out", default=Args.out)
    parsed = vars(parser.parse_args())
    parsed["opponent"] = tuple(parsed["opponent"])
    main(Args(**parsed))
