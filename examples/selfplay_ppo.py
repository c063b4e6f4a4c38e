"""Self-play: MaskablePPO against a pool of frozen copies of itself, refreshed as it learns.

The training opponents start as the anchors (the random baseline by default). Every
``refresh_every`` steps a frozen snapshot of the current policy joins the pool (the last
``pool_size`` snapshots are kept) and every training env draws its opponent from the pool at
each episode. At the end the learner is evaluated against the baselines, which it never
trained against directly except for the anchors::

    python examples/selfplay_ppo.py --env-id ouril_v0 --total-timesteps 200000

Needs the ``train`` extra: ``pip install 'mancala-envs[train]'``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import tyro

from mancala_envs.training.trainer import (
    SelfPlayCallback,
    TrainConfig,
    evaluate,
    format_table,
    set_torch_threads,
    train,
)


@dataclass
class Args:
    env_id: str = "ouril_v0"
    """the game or variant to train on"""
    total_timesteps: int = 200_000
    """learner decisions to train for"""
    num_envs: int = 8
    """environments stepped together"""
    seed: int = 0
    """seed of the envs, opponents, policy and evaluation"""
    refresh_every: int = 20_000
    """steps between snapshots of the learner"""
    pool_size: int = 5
    """snapshots kept in the opponent pool"""
    anchor: str = "random"
    """a baseline that stays in the pool ('none' for pure self-play)"""
    eval_games: int = 200
    """evaluation games per baseline"""
    save_path: str = "models/selfplay-maskable-ppo.zip"
    """where the model is saved"""


def run(args: Args) -> dict:
    """Trains by self-play, saves and evaluates; returns the figures and the callback's pool."""
    random.seed(args.seed)
    np.random.seed(args.seed)
    set_torch_threads(1)

    anchors = [] if args.anchor == "none" else [args.anchor]
    callback = SelfPlayCallback(refresh_every=args.refresh_every, pool_size=args.pool_size, anchors=anchors)
    config = TrainConfig(
        game=args.env_id,
        opponent=anchors[0] if anchors else "random",  # replaced by the pool when training starts
        timesteps=args.total_timesteps,
        n_envs=args.num_envs,
        seed=args.seed,
        save_path=args.save_path,
        progress_bar=False,
    )
    result = train(config, callbacks=[callback])
    print(
        f"self-play: {result.timesteps} steps in {result.seconds:.1f} s (SPS: {result.steps_per_second:.0f}); "
        f"pool at the end: {[getattr(o, 'name', o) for o in callback.anchors + callback.snapshots]}"
    )
    rows = evaluate(result.model, args.env_id, ("random", "greedy"), games=args.eval_games, seed=10_000 + args.seed)
    print(format_table(rows))
    return {"steps_per_second": result.steps_per_second, "rows": rows, "snapshots": len(callback.snapshots)}


if __name__ == "__main__":
    run(tyro.cli(Args))
