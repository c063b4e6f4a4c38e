"""Train MaskablePPO on any mancala game against a baseline, then evaluate it: the recipe behind
``mancala-envs train``, spelled out step by step.

Run it with the defaults (Ouril against the random and greedy baselines, 100k steps, about a minute on a
laptop CPU)::

    python examples/train_maskable_ppo.py
    python examples/train_maskable_ppo.py --env-id mancala/urim-v0 --opponent greedy --total-timesteps 300000

Needs the ``train`` extra: ``pip install 'mancala-envs[train]'``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np
import tyro

from mancala_envs.training.trainer import TrainConfig, evaluate, format_table, set_torch_threads, train


@dataclass
class Args:
    env_id: str = "ouril_v0"
    """the game or variant to train on (``mancala-envs list`` shows them)"""
    opponent: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """the training opponents (one drawn per episode): baseline names or ``model:path.zip``"""
    total_timesteps: int = 100_000
    """learner decisions to train for"""
    num_envs: int = 8
    """environments stepped together"""
    seed: int = 0
    """seed of the envs, opponents, policy and evaluation"""
    encoding: str = "flat"
    """observation encoding (flat, one_hot, thermometer)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    num_steps: int = 256
    """steps per env in each rollout"""
    batch_size: int = 256
    """minibatch size"""
    update_epochs: int = 4
    """epochs over each rollout"""
    ent_coef: float = 0.01
    """entropy bonus"""
    eval_games: int = 200
    """evaluation games per baseline (half with each seat)"""
    save_path: str = "models/example-maskable-ppo.zip"
    """where the model is saved"""
    tensorboard_log: str | None = None
    """a TensorBoard folder, or None"""
    progress_bar: bool = False
    """show SB3's progress bar"""


def run(args: Args) -> dict:
    """Trains, saves and evaluates; returns the throughput and the evaluation rows."""
    # Seeding: Python's and NumPy's global generators (SB3 seeds torch itself from ``seed``);
    # the environments, opponents and evaluation games are seeded explicitly below.
    random.seed(args.seed)
    np.random.seed(args.seed)
    set_torch_threads(1)  # a small MLP on a CPU: one thread is fastest, and steady when cores are shared

    config = TrainConfig(
        game=args.env_id,
        opponent=args.opponent,
        timesteps=args.total_timesteps,
        n_envs=args.num_envs,
        seed=args.seed,
        encoding=args.encoding,
        learning_rate=args.learning_rate,
        n_steps=args.num_steps,
        batch_size=args.batch_size,
        n_epochs=args.update_epochs,
        ent_coef=args.ent_coef,
        save_path=args.save_path,
        tensorboard_log=args.tensorboard_log,
        progress_bar=args.progress_bar,
    )
    start = time.perf_counter()
    result = train(config)
    print(
        f"trained {result.timesteps} steps in {result.seconds:.1f} s "
        f"(SPS: {result.steps_per_second:.0f}; {100 * result.env_share:.1f}% of it inside the envs)"
    )
    rows = evaluate(
        result.model,
        args.env_id,
        ("random", "greedy"),
        games=args.eval_games,
        seed=10_000 + args.seed,
        encoding=args.encoding,
    )
    print(format_table(rows))
    print(f"total {time.perf_counter() - start:.1f} s; model saved to {config.model_path}")
    return {
        "steps_per_second": result.steps_per_second,
        "env_share": result.env_share,
        "rows": rows,
        "model_path": str(config.model_path),
    }


if __name__ == "__main__":
    run(tyro.cli(Args))
