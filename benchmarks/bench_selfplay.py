"""Batched self-play against the per-env self-play path: env steps per second and where training time goes.

Issue 20, part 5: "Report self-play env steps per second against the per-env ``SelfPlayCallback`` path in
the same run (target >= 10x), and the share of time spent in the environment." Both paths play the same
game with the same policy network (a MaskablePPO ``"MlpPolicy"``, 64x64 by default, on the ``flat``
encoding), in one process:

- **per-env**: ``n_envs`` encoded ``SingleAgentEnv`` in SB3's ``DummyVecEnv``, built by
  :func:`mancala_envs.training.trainer.make_training_env`; the opponent pool is sent to every env with
  ``env_method("set_opponent", pool)`` as :meth:`SelfPlayCallback.refresh` sends it, and each opponent
  ply is one forward pass of a :class:`~mancala_envs.views.opponents.PolicyOpponent` for one game;
- **batched**: :class:`~mancala_envs.training.selfplay.SelfPlayVecEnv` of ``n_envs`` games, where each pool member
  plays all the games it is to move in with one forward pass (a
  :class:`~mancala_envs.training.selfplay.TorchPolicyOpponent`).

Two measures:

1. **Env only** (no learning): the learner's actions are uniformly random legal moves drawn with numpy
   from the masks sb3-contrib reads (``get_action_masks``); the opponents are ``--snapshots`` frozen
   snapshots of the (untrained) policy, the same ones on both paths, one drawn per episode. Learner
   steps per second of each path, for each ``--n-envs`` (both paths with the same ``n_envs``); each
   repetition runs both paths back to back, the table shows medians and the median of the per-repetition
   ratios batched / per-env.
2. **Training**: ``train(TrainConfig(...))`` for ``--timesteps`` learner steps with the PPO settings of
   ``mancala-envs train`` (the rollout of ``n_envs x n_steps`` kept at ``--rollout`` steps):
   (a) the per-env path with :class:`~mancala_envs.training.trainer.SelfPlayCallback` (anchor ``"random"``,
   a snapshot every ``--refresh-every`` steps, ``--pool-size`` kept), and (b) ``self_play=True`` (the
   learner itself, its snapshots taken at the same interval and kept in the same number, and
   ``"random"``). Steps per second of ``learn`` (compiling and building are not timed), the env's share
   of that time (``env_seconds / seconds``: for (a) the single-agent envs' ``step``/``reset``/mask, the
   opponents' forward passes included; for (b) the batched env's ``reset``/``step``) and, for (b), the
   opponents' share (``opponent_seconds / seconds``).

Speed is never asserted in the tests; this script is where it is measured
(``tests/benchmarks/test_bench_selfplay_smoke.py`` runs it with tiny sizes and checks the fields).

Usage::

    python benchmarks/bench_selfplay.py                         # Ouril, n_envs 8 and 64, about 2 minutes
    python benchmarks/bench_selfplay.py --game kalah_v0 --n-envs 64 --timesteps 20000
    taskset -c 1 python benchmarks/bench_selfplay.py            # on one core of a shared machine

The table goes to stdout; the JSON (machine, settings, every repetition, medians, ratios) to
``benchmarks/results/bench_selfplay.json`` unless ``--json`` says otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, rate, write_report  # a sibling script module

from mancala_envs.training.selfplay import SelfPlayVecEnv, TorchPolicyOpponent
from mancala_envs.training.trainer import (
    SelfPlayCallback,
    TrainConfig,
    make_training_env,
    set_torch_threads,
    train,
    warm_up,
)
from mancala_envs.views.opponents import PolicyOpponent

__all__ = [
    "Args",
    "batched_env",
    "env_only",
    "format_table",
    "main",
    "parse_args",
    "per_env_env",
    "policy_model",
    "run_all",
    "train_path",
]

#: The issue's target for batched self-play over the per-env path.
TARGET_RATIO = 10.0
#: The rollout of ``mancala-envs train`` (``n_envs x n_steps``).
DEFAULT_ROLLOUT = TrainConfig().n_envs * TrainConfig().n_steps
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_selfplay.json"
PATHS = ("per_env", "batched")


@dataclass
class Args:
    """Options of the benchmark run."""

    game: str = "ouril_v0"
    """The registered game or variant id both paths play."""
    n_envs: tuple[int, ...] = (8, 64)
    """Envs (games) stepped together; both paths run with each."""
    steps: int = 8192
    """Learner steps of one env-only repetition of one path (rounded up to a multiple of ``n_envs``)."""
    repeats: int = 3
    """Env-only repetitions (each runs both paths back to back); medians are reported."""
    snapshots: int = 4
    """Frozen snapshots of the policy in the env-only opponent pool (one drawn per episode)."""
    timesteps: int = 50_000
    """Learner steps of each timed training run."""
    train_repeats: int = 1
    """Training runs of each path for each ``n_envs`` (interleaved); medians are reported."""
    rollout: int = DEFAULT_ROLLOUT
    """PPO's rollout, ``n_envs x n_steps``, kept the same for every ``n_envs`` (a multiple of each)."""
    refresh_every: int = 10_000
    """Training: timesteps between snapshots of the learner joining the pool (both paths)."""
    pool_size: int = 5
    """Training: snapshots kept in the pool (both paths)."""
    net_arch: tuple[int, ...] = (64, 64)
    """The policy's hidden layers."""
    encoding: str = "flat"
    """The observation encoding of the policy."""
    seed: int = 0
    """Seeds the envs, the policy and the env-only action sampler."""
    json: Path = DEFAULT_JSON
    """Where the JSON results are written."""

    def check(self) -> None:
        """Raises ``ValueError`` with the option to fix when a setting is out of range."""
        for name in (
            "steps",
            "repeats",
            "snapshots",
            "timesteps",
            "train_repeats",
            "rollout",
            "refresh_every",
            "pool_size",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be a positive integer (got {value!r}).")
        if not self.n_envs or any(n < 1 for n in self.n_envs):
            raise ValueError(f"--n-envs must be one or more positive integers (got {list(self.n_envs)}).")
        uneven = [n for n in self.n_envs if self.rollout % n]
        if uneven:
            raise ValueError(f"--rollout {self.rollout} must be a multiple of every --n-envs (not of {uneven}).")


# --- building ----------------------------------------------------------------------------------------------


def _config(args: Args, n_envs: int, **overrides: Any) -> TrainConfig:
    """The training config of both paths: ``mancala-envs train``'s PPO settings, ``args``' game, network and
    rollout, no progress bar."""
    fields = {
        "game": args.game,
        "opponent": "random",
        "timesteps": args.timesteps,
        "n_envs": n_envs,
        "n_steps": args.rollout // n_envs,
        "seed": args.seed,
        "encoding": args.encoding,
        "net_arch": tuple(args.net_arch),
        "progress_bar": False,
    }
    return TrainConfig(**(fields | overrides))


def policy_model(args: Args) -> Any:
    """A fresh MaskablePPO ``"MlpPolicy"`` with ``args``' network on the encoded single-agent env: the policy
    whose snapshots play the env-only measure."""
    from sb3_contrib import MaskablePPO

    vec_env = make_training_env(_config(args, 1))
    return MaskablePPO(
        "MlpPolicy", vec_env, policy_kwargs={"net_arch": list(args.net_arch)}, seed=args.seed, device="cpu", verbose=0
    )


def per_env_env(args: Args, n_envs: int, model: Any) -> Any:
    """``n_envs`` encoded single-agent envs in a ``DummyVecEnv`` (``make_training_env``), playing a pool of
    ``args.snapshots`` frozen :class:`PolicyOpponent` snapshots sent as ``SelfPlayCallback.refresh`` sends
    them."""
    vec_env = make_training_env(_config(args, n_envs), batched=False)
    pool = [
        PolicyOpponent(model.policy, observation=args.encoding, name=f"snapshot{i}").frozen()
        for i in range(args.snapshots)
    ]
    vec_env.env_method("set_opponent", pool)
    return vec_env


def batched_env(args: Args, n_envs: int, model: Any) -> SelfPlayVecEnv:
    """``n_envs`` batched games against ``args.snapshots`` frozen :class:`TorchPolicyOpponent` snapshots of
    the same policy."""
    pool = [
        TorchPolicyOpponent(model, encoding=args.encoding, name=f"snapshot{i}").frozen() for i in range(args.snapshots)
    ]
    return SelfPlayVecEnv(args.game, n_envs, opponents=pool, encoding=args.encoding, seed=args.seed)


# --- measures ----------------------------------------------------------------------------------------------


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


def env_only(vec_env: Any, n_envs: int, steps: int, rng: np.random.Generator) -> dict[str, Any]:
    """Steps ``vec_env`` from a reset with random legal learner actions until ``steps`` learner steps are
    taken; returns the steps, wall and CPU seconds and steps per second (and, for the batched env, the
    opponents' seconds)."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    calls = -(-steps // n_envs)
    opponent_start = getattr(vec_env, "opponent_seconds", None)
    cpu_start = time.process_time()
    start = time.perf_counter()
    vec_env.reset()
    for _ in range(calls):
        vec_env.step(_random_legal(get_action_masks(vec_env), rng))
    elapsed = time.perf_counter() - start
    run = {
        "steps": calls * n_envs,
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu_start,
        "steps_per_s": calls * n_envs / elapsed,
    }
    if opponent_start is not None:
        run["opponent_seconds"] = vec_env.opponent_seconds - opponent_start
        run["opponent_share"] = run["opponent_seconds"] / elapsed
    return run


def train_path(args: Args, n_envs: int, path: str, folder: Path, timesteps: int | None = None) -> dict[str, Any]:
    """One timed ``train`` of ``path`` (``"per_env"`` with ``SelfPlayCallback``, or ``"batched"``:
    ``self_play=True``); returns its steps, seconds, steps per second and shares."""
    budget = args.timesteps if timesteps is None else timesteps
    save_path = str(folder / f"{path}_{n_envs}.zip")
    if path == "per_env":
        callback = SelfPlayCallback(
            refresh_every=args.refresh_every, pool_size=args.pool_size, anchors=["random"], encoding=args.encoding
        )
        result = train(_config(args, n_envs, timesteps=budget, save_path=save_path), callbacks=[callback])
    else:
        result = train(
            _config(
                args,
                n_envs,
                timesteps=budget,
                save_path=save_path,
                self_play=True,
                snapshot_every=args.refresh_every,
                pool_size=args.pool_size,
            )
        )
    Path(save_path).unlink(missing_ok=True)  # the model is not what is measured
    run = {
        "timesteps": result.timesteps,
        "seconds": result.seconds,
        "steps_per_s": result.steps_per_second,
        "env_seconds": result.env_seconds,
        "env_share": result.env_share,
    }
    if path == "batched":
        run["opponent_seconds"] = result.opponent_seconds
        run["opponent_share"] = result.opponent_seconds / result.seconds
    return run


def _median(runs: list[dict[str, Any]], field: str) -> float:
    return statistics.median(run[field] for run in runs)


def _compare(runs: dict[str, list[dict[str, Any]]], shares: Sequence[str]) -> dict[str, Any]:
    """Medians of both paths and the median of the per-repetition ratios batched / per-env."""
    per_repeat = [
        mine["steps_per_s"] / theirs["steps_per_s"]
        for mine, theirs in zip(runs["batched"], runs["per_env"], strict=True)
    ]
    entry: dict[str, Any] = {}
    for path in PATHS:
        entry[path] = {"steps_per_s": _median(runs[path], "steps_per_s"), "runs": runs[path]}
        for share in shares:
            if share in runs[path][0]:
                entry[path][share] = _median(runs[path], share)
    ratio = statistics.median(per_repeat)
    entry |= {"ratio": ratio, "ratios_per_repeat": per_repeat, "target_met": ratio >= TARGET_RATIO}
    return entry


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for distribution in ("stable-baselines3", "sb3-contrib", "torch", "openskill"):
        try:
            versions[distribution] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[distribution] = None
    return versions


def run_all(args: Args, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs both measures for every ``n_envs`` of ``args`` and returns the results.

    Raises:
        ValueError: a setting out of range (the message names the option).
    """
    args.check()
    started = time.perf_counter()
    set_torch_threads(1)
    config = _config(args, args.n_envs[0])
    results: dict[str, Any] = {
        "machine": machine_info() | _versions(),
        "settings": asdict(args)
        | {
            "json": str(args.json),
            "n_envs": list(args.n_envs),
            "net_arch": list(args.net_arch),
            "policy": "MlpPolicy",
            "torch_threads": 1,
            "target_ratio": TARGET_RATIO,
            "ppo": {
                name: getattr(config, name) for name in ("learning_rate", "batch_size", "n_epochs", "gamma", "ent_coef")
            },
            "n_steps": {str(n): args.rollout // n for n in args.n_envs},
        },
    }
    log(f"warming up the engine for {args.game} ...")
    warm_up(_config(args, 2, opponent=["random"], self_play=True))
    model = policy_model(args)

    vec_envs = {
        n: {"per_env": per_env_env(args, n, model), "batched": batched_env(args, n, model)} for n in args.n_envs
    }
    rng = np.random.default_rng(args.seed)
    try:
        for n in args.n_envs:  # one short untimed pass each: first forward passes, first resets
            for vec_env in vec_envs[n].values():
                env_only(vec_env, n, 4 * n, rng)
        measured: dict[int, dict[str, list[dict[str, Any]]]] = {n: {path: [] for path in PATHS} for n in args.n_envs}
        for repeat in range(args.repeats):
            for n in args.n_envs:
                for path in PATHS:
                    measured[n][path].append(env_only(vec_envs[n][path], n, args.steps, rng))
            log(
                f"env only, repeat {repeat + 1}/{args.repeats}: "
                + ", ".join(
                    f"n_envs {n}: per-env {measured[n]['per_env'][-1]['steps_per_s']:.0f}, "
                    f"batched {measured[n]['batched'][-1]['steps_per_s']:.0f} steps/s"
                    for n in args.n_envs
                )
            )
    finally:
        for pair in vec_envs.values():
            for vec_env in pair.values():
                vec_env.close()
    results["env_only"] = {str(n): _compare(measured[n], ("opponent_share",)) for n in args.n_envs}

    with tempfile.TemporaryDirectory(prefix="bench_selfplay_") as folder:
        log("training warm-up (one rollout of each path) ...")
        for path in PATHS:
            train_path(args, args.n_envs[0], path, Path(folder), timesteps=args.rollout)
        trained: dict[int, dict[str, list[dict[str, Any]]]] = {n: {path: [] for path in PATHS} for n in args.n_envs}
        for repeat in range(args.train_repeats):
            for n in args.n_envs:
                for path in PATHS:
                    trained[n][path].append(train_path(args, n, path, Path(folder)))
                    log(
                        f"training, repeat {repeat + 1}/{args.train_repeats}, n_envs {n}, {path}: "
                        f"{trained[n][path][-1]['steps_per_s']:.0f} steps/s"
                    )
    results["training"] = {str(n): _compare(trained[n], ("env_share", "opponent_share")) for n in args.n_envs}
    results["benchmark_seconds"] = time.perf_counter() - started
    results["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return results


# --- report ------------------------------------------------------------------------------------------------


def _share(entry: dict[str, Any], field: str) -> str:
    return f"{100 * entry[field]:.0f}%" if field in entry else "-"


def _loads(loads: list[float] | None) -> str:
    return "n/a" if loads is None else " ".join(f"{load:.2f}" for load in loads)


def format_table(results: dict[str, Any]) -> str:
    """Renders the results as the plain-text table the script prints."""
    machine, settings = results["machine"], results["settings"]
    lines = [
        f"Self-play, batched (SelfPlayVecEnv) / per-env (DummyVecEnv of SingleAgentEnv): {settings['game']}",
        (
            f"  machine: {machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), {machine['cpu_model']}; "
            f"python {machine['python']}, numba {machine['numba']}, torch {machine['torch']}, "
            f"sb3-contrib {machine['sb3-contrib']}, mancala-envs {machine['mancala_envs']} ({machine['git_commit']})"
        ),
        (
            f"  policy: MlpPolicy {settings['net_arch']} on {settings['encoding']!r}, torch 1 thread; "
            f"load average before / after: {_loads(machine['load_average'])} / {_loads(results['load_average_after'])}"
        ),
        "",
        (
            f"  env only: random legal learner moves, {settings['snapshots']} frozen snapshots as opponents, "
            f"{settings['steps']} learner steps x {settings['repeats']} repeats, medians"
        ),
        f"   {'n_envs':>6}{'per-env steps/s':>17}{'batched steps/s':>17}{'ratio':>9}{'batched: opponents':>20}",
    ]
    for n, entry in results["env_only"].items():
        lines.append(
            f"   {n:>6}{rate(entry['per_env']['steps_per_s']):>17}{rate(entry['batched']['steps_per_s']):>17}"
            f"{entry['ratio']:>8.2f}x{_share(entry['batched'], 'opponent_share'):>20}"
        )
    lines += [
        "",
        (
            f"  training: train() for {settings['timesteps']} steps, rollout {settings['rollout']}, snapshot every "
            f"{settings['refresh_every']}, {settings['pool_size']} kept; per-env: SelfPlayCallback + 'random'; "
            "batched: self_play=True"
        ),
        (
            f"   {'n_envs':>6}{'per-env steps/s':>17}{'env share':>11}{'batched steps/s':>17}{'env share':>11}"
            f"{'opponents':>11}{'ratio':>9}"
        ),
    ]
    for n, entry in results["training"].items():
        per_env, batched = entry["per_env"], entry["batched"]
        lines.append(
            f"   {n:>6}{rate(per_env['steps_per_s']):>17}{_share(per_env, 'env_share'):>11}"
            f"{rate(batched['steps_per_s']):>17}{_share(batched, 'env_share'):>11}"
            f"{_share(batched, 'opponent_share'):>11}{entry['ratio']:>8.2f}x"
        )
    lines += [
        "",
        (
            f"  ratio: median of per-repetition ratios batched / per-env (target >= {settings['target_ratio']:.0f}x); "
            "env share: the env's part of learn's wall time, opponents' forward passes included;"
        ),
        "  opponents: the batched env's part spent choosing the opponents' moves",
        f"benchmark wall time {results['benchmark_seconds']:.1f} s",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> Args:
    """Reads :class:`Args` from the command line."""
    default = Args()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default=default.game, help=f"game or variant id (default {default.game})")
    parser.add_argument(
        "--n-envs",
        type=int,
        nargs="+",
        default=list(default.n_envs),
        help="envs stepped together, each measured on both paths (default 8 64)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=default.steps,
        help=f"learner steps per env-only repetition and path (default {default.steps})",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=default.repeats,
        help=f"env-only repetitions, medians reported (default {default.repeats})",
    )
    parser.add_argument(
        "--snapshots",
        type=int,
        default=default.snapshots,
        help=f"frozen snapshots in the env-only pool (default {default.snapshots})",
    )
    parser.add_argument(
        "--timesteps",
        type=int,
        default=default.timesteps,
        help=f"learner steps per training run (default {default.timesteps})",
    )
    parser.add_argument(
        "--train-repeats",
        type=int,
        default=default.train_repeats,
        help=f"training runs per path and n_envs (default {default.train_repeats})",
    )
    parser.add_argument(
        "--rollout",
        type=int,
        default=default.rollout,
        help=f"PPO rollout n_envs x n_steps, a multiple of every n_envs (default {default.rollout})",
    )
    parser.add_argument(
        "--refresh-every",
        type=int,
        default=default.refresh_every,
        help=f"training: steps between snapshots (default {default.refresh_every})",
    )
    parser.add_argument(
        "--pool-size",
        type=int,
        default=default.pool_size,
        help=f"training: snapshots kept (default {default.pool_size})",
    )
    parser.add_argument(
        "--net-arch",
        type=int,
        nargs="+",
        default=list(default.net_arch),
        help="the policy's hidden layers (default 64 64)",
    )
    parser.add_argument(
        "--encoding", default=default.encoding, help=f"observation encoding (default {default.encoding})"
    )
    parser.add_argument("--seed", type=int, default=default.seed, help=f"seed (default {default.seed})")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"results file (default {DEFAULT_JSON})")
    options = parser.parse_args(argv)
    return Args(
        game=options.game,
        n_envs=tuple(options.n_envs),
        steps=options.steps,
        repeats=options.repeats,
        snapshots=options.snapshots,
        timesteps=options.timesteps,
        train_repeats=options.train_repeats,
        rollout=options.rollout,
        refresh_every=options.refresh_every,
        pool_size=options.pool_size,
        net_arch=tuple(options.net_arch),
        encoding=options.encoding,
        seed=options.seed,
        json=options.json,
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Runs the benchmark, prints the table and writes the JSON; returns the results."""
    args = parse_args(argv)
    results = run_all(args)
    write_report(results, args.json, format_table(results))
    return results


if __name__ == "__main__":
    main()
