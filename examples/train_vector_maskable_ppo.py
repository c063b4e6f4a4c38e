"""Train MaskablePPO on 64 batched games (one compiled call steps them all), then evaluate it.

``MancalaSB3VecEnv`` is an SB3 ``VecEnv`` of ``n_envs`` games against a compiled opponent (``random`` or
``greedy``): it replaces ``DummyVecEnv``/``SubprocVecEnv`` of single envs, and MaskablePPO reads its
action masks as usual. The policy sees the observation encoded by ``--encoding``: ``flat`` (default, each
entry scaled to [0, 1], as ``mancala-envs train`` encodes it), ``one_hot``, ``thermometer``, ``planes``,
or ``raw`` (the int32 vector as it is). Each rollout is ``n_envs x n_steps`` = 64 x 32 = 2048 steps, as in
``mancala-envs train``.

Run it with the defaults (Ouril against the random opponent, 100k steps)::

    python examples/train_vector_maskable_ppo.py
    python examples/train_vector_maskable_ppo.py --env-id urim_v0 --opponent greedy --steps 300000 --out models/u.zip
    python examples/train_vector_maskable_ppo.py --encoding one_hot

The saved model is loaded back and evaluated with ``mancala_envs.training.trainer.evaluate``: games against the
random and greedy baselines in the single-agent env, half with the learner moving first. ``evaluate``
finds the encoding from the policy's observation space, so it is not passed again.

Needs the ``train`` extra: ``pip install 'mancala-envs[train]'``.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO

from mancala_envs.training.trainer import TrainConfig, evaluate, format_table, set_torch_threads
from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv
from mancala_envs.wrappers.encodings import ENCODINGS, RAW

#: Steps per rollout, all envs together (``n_envs * n_steps``), as in ``mancala-envs train``.
ROLLOUT_STEPS = 2048


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Reads the options from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="ouril_v0", help="the game or variant (`mancala-envs list` shows them)")
    parser.add_argument("--n-envs", type=int, default=64, help="games stepped together (default 64)")
    parser.add_argument(
        "--opponent",
        default="random",
        choices=["random", "greedy"],
        help="the compiled training opponent (default random)",
    )
    parser.add_argument(
        "--encoding",
        default="flat",
        choices=[*ENCODINGS, RAW],
        help="the observation encoding the policy sees (default flat)",
    )
    parser.add_argument("--steps", type=int, default=100_000, help="learner steps to train for (default 100000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games, the policy and the evaluation")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("models/vector-maskable-ppo.zip"),
        help="where the model is saved (default models/vector-maskable-ppo.zip)",
    )
    parser.add_argument(
        "--eval-games", type=int, default=200, help="evaluation games per baseline, half with each seat (default 200)"
    )
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Trains, saves, loads back and evaluates; returns the throughput, the model path and the evaluation rows."""
    random.seed(args.seed)
    np.random.seed(args.seed)
    set_torch_threads(1)  # a small MLP on a CPU: one thread is fastest

    defaults = TrainConfig()  # the PPO settings of `mancala-envs train`
    vec_env = MancalaSB3VecEnv(
        args.env_id, n_envs=args.n_envs, opponent=args.opponent, seed=args.seed, encoding=args.encoding
    )
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=defaults.learning_rate,
        n_steps=max(1, ROLLOUT_STEPS // args.n_envs),
        batch_size=defaults.batch_size,
        n_epochs=defaults.n_epochs,
        gamma=defaults.gamma,
        ent_coef=defaults.ent_coef,
        policy_kwargs={"net_arch": list(defaults.net_arch)},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(args.steps)
    seconds = time.perf_counter() - start
    steps_per_second = model.num_timesteps / seconds
    print(
        f"trained {model.num_timesteps} steps on {args.n_envs} batched {args.env_id} games vs {args.opponent} "
        f"in {seconds:.1f} s (SPS: {steps_per_second:.0f}), observations encoded {args.encoding}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    vec_env.close()

    loaded = MaskablePPO.load(args.out, device="cpu")
    # the policy's observation space tells evaluate the encoding (default caps: one encoding has that space)
    rows = evaluate(loaded, args.env_id, ("random", "greedy"), games=args.eval_games, seed=10_000 + args.seed)
    print(format_table(rows))
    both = {row.opponent: row for row in rows if row.seat == "both"}
    print(
        "evaluation: "
        + ", ".join(
            f"vs {name} {100 * row.rate('wins'):.1f}% wins / {100 * row.rate('draws'):.1f}% draws of {row.games}"
            for name, row in both.items()
        )
    )
    print(f"model saved to {args.out}")
    return {
        "steps_per_second": steps_per_second,
        "timesteps": int(model.num_timesteps),
        "rows": rows,
        "model_path": str(args.out),
    }


if __name__ == "__main__":
    run(parse_args())
