"""MaskablePPO training speed on the batched SB3 VecEnv against SB3's vectorisation of the single env.

Four vector envs of Ouril against the random opponent, each trained with the same MaskablePPO settings
(those of ``mancala-envs train``: learning rate, batch size, epochs, gamma, entropy bonus, a 64x64 MLP,
``"MlpPolicy"`` on the raw int32 observation, torch on one thread) and the same rollout of 2048 steps
(``n_envs x n_steps``):

- ``MancalaSB3VecEnv("ouril_v0", n_envs=64)``: 64 games, one compiled call per step (``n_steps=32``);
- ``SubprocVecEnv`` of 8 ``SingleAgentEnv("ouril_v0", opponent="random")`` worker processes (``n_steps=256``),
  built with SB3's ``make_vec_env`` as ``mancala-envs train`` builds its envs;
- ``DummyVecEnv`` of 8 of them (``n_steps=256``), the vectorisation ``mancala-envs train`` uses;
- ``DummyVecEnv`` of 64 of them (``n_steps=32``), the same batch shape as the batched env.

Two measures per vector env:

1. **Training**: env steps per second of ``model.learn(timesteps)``: the wall time of ``learn`` only,
   after the vector env and the model are built and a one-rollout warm-up ``learn`` has run. Each
   repetition trains every env in turn (so the ratios compare runs seconds apart); the median is
   reported, and the ratio batched / ``SubprocVecEnv(8)`` (the issue's target: at least 3x) is the
   median of the per-repetition ratios.
2. **Env only**: no PPO, uniformly random legal actions drawn from the masks that sb3-contrib reads
   (``get_action_masks(vec_env)``, then ``vec_env.step``) for a time budget: what an env step costs.

Where the training time goes: during each timed ``learn``,
:class:`~mancala_envs.training.trainer.VecStepTimer` adds up the wall time spent in the vector env
(``reset``, ``step_async``/``step_wait`` and ``env_method``, which carries the masks); that over the
``learn`` time is the env's share, the rest is the policy's forward passes, the rollout buffer and the
updates. ``learn steps/s / env-only steps/s`` estimates the same share from the outside.

The machine this runs on may have fewer cores than ``SubprocVecEnv`` has workers: the issue asks for 8
workers, and on 2 cores they share them with the trainer process; the output says how many cores there
were. Worker start-up is not timed; workers start with ``fork`` by default (after the engine is compiled
in the parent, before torch runs anything), ``--start-method forkserver`` gives SB3's own default.

Speed is never asserted in the tests; this script is where it is measured.

Usage::

    python benchmarks/bench_vec_training.py             # full run: 7 repeats x 8192 steps, 2-4 minutes on 2 cores
    python benchmarks/bench_vec_training.py --quick     # CI smoke run: 2 repeats x 2048 steps, under a minute
    python benchmarks/bench_vec_training.py --repeats 5 --timesteps 20480 --seconds 2 --json /tmp/vec.json

The table goes to stdout; the JSON to ``benchmarks/results/bench_vec_training.json`` unless ``--json``
says otherwise.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, rate, write_report  # a sibling script module

from mancala_envs.training.trainer import TrainConfig, VecStepTimer, set_torch_threads
from mancala_envs.views.single_agent_env import SingleAgentEnv

__all__ = [
    "KINDS",
    "ROLLOUT_STEPS",
    "Args",
    "VecKind",
    "bench_env_only",
    "bench_training",
    "build_vec_env",
    "format_table",
    "main",
    "parse_args",
    "run_all",
]

ENV_ID = "ouril_v0"
OPPONENT = "random"
#: Steps collected per rollout by every vector env (``n_envs * n_steps``), as in ``mancala-envs train``.
ROLLOUT_STEPS = TrainConfig().n_envs * TrainConfig().n_steps
#: The issue's target for the batched env's training speed over ``SubprocVecEnv`` with 8 workers.
TARGET_RATIO = 3.0
BATCHED = "batched_64"
SUBPROC = "subproc_8"
#: The single env in the batched env's batch shape (64 envs, 32 steps each).
SAME_SHAPE = "dummy_64"
START_METHODS = ("fork", "forkserver", "spawn")

DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_vec_training.json"
FULL_BUDGET = {"repeats": 7, "timesteps": 4 * ROLLOUT_STEPS, "seconds": 1.0}
QUICK_BUDGET = {"repeats": 2, "timesteps": ROLLOUT_STEPS, "seconds": 0.25}


@dataclass(frozen=True)
class VecKind:
    """One vector env of the comparison.

    Attributes:
        name: Key in the JSON.
        label: Name in the table.
        vec_env: ``"batched"``, ``"subproc"`` or ``"dummy"``.
        n_envs: Envs stepped together.
    """

    name: str
    label: str
    vec_env: str
    n_envs: int

    @property
    def n_steps(self) -> int:
        """PPO's steps per env per rollout, so that every rollout has :data:`ROLLOUT_STEPS` steps."""
        return ROLLOUT_STEPS // self.n_envs


KINDS = (
    VecKind(BATCHED, "MancalaSB3VecEnv (batched)", "batched", 64),
    VecKind(SUBPROC, "SubprocVecEnv", "subproc", 8),
    VecKind("dummy_8", "DummyVecEnv", "dummy", 8),
    VecKind("dummy_64", "DummyVecEnv", "dummy", 64),
)


@dataclass
class Args:
    """Options of the benchmark run."""

    quick: bool = False
    """Small budgets for a CI smoke run (2 repeats of one rollout, 0.25 s env-only)."""
    repeats: int | None = None
    """Repetitions of each measure; the median is reported (default 7, quick 2)."""
    timesteps: int | None = None
    """Env steps of each timed ``learn``, a multiple of the 2048-step rollout (default 8192, quick 2048)."""
    seconds: float | None = None
    """Time budget of one env-only repetition, in seconds (default 1.0, quick 0.25)."""
    start_method: str = "fork"
    """How SubprocVecEnv starts its workers (``fork``, ``forkserver``: SB3's default, ``spawn``)."""
    seed: int = 0
    """Seed of the envs, the policies and the env-only action samplers."""
    json: Path = DEFAULT_JSON
    """Where the JSON results are written."""

    def resolved(self) -> Args:
        """Returns a copy with the budget fields filled from the full or quick defaults."""
        budget = QUICK_BUDGET if self.quick else FULL_BUDGET
        return Args(
            quick=self.quick,
            repeats=self.repeats if self.repeats is not None else budget["repeats"],
            timesteps=self.timesteps if self.timesteps is not None else budget["timesteps"],
            seconds=self.seconds if self.seconds is not None else budget["seconds"],
            start_method=self.start_method,
            seed=self.seed,
            json=self.json,
        )


# --- building ----------------------------------------------------------------------------------------------


def build_vec_env(kind: VecKind, seed: int, start_method: str = "fork") -> Any:
    """The SB3 ``VecEnv`` of ``kind``: the batched adapter, or ``make_vec_env`` over ``SingleAgentEnv``."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if kind.vec_env == "batched":
        from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

        return MancalaSB3VecEnv(ENV_ID, n_envs=kind.n_envs, opponent=OPPONENT, seed=seed)
    single = functools.partial(SingleAgentEnv, ENV_ID, opponent=OPPONENT)
    if kind.vec_env == "subproc":
        return make_vec_env(
            single,
            n_envs=kind.n_envs,
            seed=seed,
            vec_env_cls=SubprocVecEnv,
            vec_env_kwargs={"start_method": start_method},
        )
    return make_vec_env(single, n_envs=kind.n_envs, seed=seed, vec_env_cls=DummyVecEnv)


def ppo_settings() -> dict[str, Any]:
    """The MaskablePPO settings of ``mancala-envs train`` (all but ``n_steps``, which each kind sets)."""
    config = TrainConfig()
    return {
        "learning_rate": config.learning_rate,
        "batch_size": config.batch_size,
        "n_epochs": config.n_epochs,
        "gamma": config.gamma,
        "ent_coef": config.ent_coef,
        "net_arch": list(config.net_arch),
    }


def build_model(vec_env: Any, kind: VecKind, seed: int) -> Any:
    """A MaskablePPO ``"MlpPolicy"`` on ``vec_env`` with :func:`ppo_settings` and ``kind``'s ``n_steps``."""
    from sb3_contrib import MaskablePPO

    settings = ppo_settings()
    net_arch = settings.pop("net_arch")
    return MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=kind.n_steps,
        policy_kwargs={"net_arch": net_arch},
        seed=seed,
        device="cpu",
        verbose=0,
        **settings,
    )


def warm_engine(seed: int) -> None:
    """Compiles (or loads from numba's cache) the single env's and the batched env's engine code."""
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    rng = np.random.default_rng(seed)
    env = SingleAgentEnv(ENV_ID, opponent=OPPONENT)
    env.reset(seed=seed)
    for _ in range(200):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            env.reset()
    vec_env = MancalaSB3VecEnv(ENV_ID, n_envs=4, opponent=OPPONENT, seed=seed)
    vec_env.reset()
    for _ in range(50):
        vec_env.step(_random_legal(vec_env.action_masks(), rng))
    vec_env.close()


# --- measures ----------------------------------------------------------------------------------------------


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


def bench_env_only(vec_env: Any, kind: VecKind, seconds: float, rng: np.random.Generator) -> dict[str, Any]:
    """Steps ``vec_env`` with random legal actions from ``get_action_masks`` for ``seconds``."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    vec_env.reset()
    steps = calls = 0
    clock = time.perf_counter
    cpu_start = time.process_time()
    start = clock()
    deadline = start + seconds
    while calls == 0 or clock() < deadline:
        vec_env.step(_random_legal(get_action_masks(vec_env), rng))
        steps += kind.n_envs
        calls += 1
    elapsed = clock() - start
    return {
        "steps": steps,
        "calls": calls,
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu_start,
        "steps_per_s": steps / elapsed,
    }


def bench_training(model: Any, timesteps: int) -> dict[str, Any]:
    """Times ``model.learn(timesteps)`` on a :class:`~mancala_envs.training.trainer.VecStepTimer`.

    Returns the steps it took, the wall and CPU seconds and the wall seconds spent in the env."""
    timed = model.get_env()
    timed.seconds = 0.0
    cpu_start = time.process_time()
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=True, progress_bar=False)
    elapsed = time.perf_counter() - start
    steps = int(model.num_timesteps)
    return {
        "timesteps": steps,
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu_start,
        "env_seconds": timed.seconds,
        "env_share": timed.seconds / elapsed,
        "steps_per_s": steps / elapsed,
    }


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    rate = statistics.median(run["steps_per_s"] for run in runs)
    return {"steps_per_s": rate, "us_per_step": 1e6 / rate, "runs": runs}


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for distribution in ("stable-baselines3", "sb3-contrib", "torch"):
        try:
            versions[distribution] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[distribution] = None
    return versions


def run_all(args: Args, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Builds every vector env and model, runs both measures with ``args``' budgets, returns the results.

    Raises:
        ValueError: a budget out of range, or ``timesteps`` not a multiple of the 2048-step rollout.
    """
    args = args.resolved()
    if args.repeats < 1 or args.seconds <= 0:
        raise ValueError(f"--repeats must be >= 1 and --seconds > 0 (got {args.repeats}, {args.seconds}).")
    if args.timesteps < ROLLOUT_STEPS or args.timesteps % ROLLOUT_STEPS:
        raise ValueError(
            f"--timesteps must be a positive multiple of the rollout, {ROLLOUT_STEPS} steps "
            f"(got {args.timesteps}); e.g. --timesteps {5 * ROLLOUT_STEPS}."
        )
    if args.start_method not in START_METHODS:
        raise ValueError(f"--start-method must be one of {list(START_METHODS)} (got {args.start_method!r}).")
    started = time.perf_counter()
    set_torch_threads(1)
    machine = machine_info() | _versions()
    results: dict[str, Any] = {
        "machine": machine,
        "settings": asdict(args)
        | {
            "json": str(args.json),
            "env_id": ENV_ID,
            "opponent": OPPONENT,
            "rollout_steps": ROLLOUT_STEPS,
            "ppo": ppo_settings(),
            "torch_threads": 1,
            "policy": "MlpPolicy",
            "target_ratio": TARGET_RATIO,
        },
        "note": f"{SUBPROC}: SubprocVecEnv runs 8 worker processes on this machine's {machine['cpus_usable']} "
        "usable cores, as the issue asks",
    }
    log(f"warming up the engine; building {len(KINDS)} vector envs ...")
    warm_engine(args.seed)
    # The worker processes first: with fork they copy the compiled engine, and no torch work has run yet.
    vec_envs = {
        kind.name: build_vec_env(kind, args.seed, args.start_method)
        for kind in sorted(KINDS, key=lambda kind: kind.vec_env != "subproc")
    }
    try:
        models = {}
        for kind in KINDS:
            models[kind.name] = model = build_model(VecStepTimer(vec_envs[kind.name]), kind, args.seed)
            model.learn(ROLLOUT_STEPS, progress_bar=False)  # warm-up: one rollout and one update
        training: dict[str, list[dict[str, Any]]] = {kind.name: [] for kind in KINDS}
        env_only: dict[str, list[dict[str, Any]]] = {kind.name: [] for kind in KINDS}
        rng = np.random.default_rng(args.seed)
        for repeat in range(args.repeats):
            for kind in KINDS:
                training[kind.name].append(bench_training(models[kind.name], args.timesteps))
            for kind in KINDS:
                env_only[kind.name].append(bench_env_only(vec_envs[kind.name], kind, args.seconds, rng))
            log(
                f"repeat {repeat + 1}/{args.repeats}: "
                + ", ".join(f"{kind.name} {training[kind.name][-1]['steps_per_s']:.0f} steps/s" for kind in KINDS)
            )
    finally:
        for vec_env in vec_envs.values():
            vec_env.close()

    kinds: dict[str, Any] = {}
    for kind in KINDS:
        learn = _summary(training[kind.name])
        raw = _summary(env_only[kind.name])
        kinds[kind.name] = {
            "label": kind.label,
            "vec_env": kind.vec_env,
            "n_envs": kind.n_envs,
            "n_steps": kind.n_steps,
            "training": learn,
            "env_only": raw,
            "env_share_timed": statistics.median(run["env_share"] for run in learn["runs"]),
            "env_share_estimate": learn["steps_per_s"] / raw["steps_per_s"],
        }

    def ratios(runs: dict[str, list[dict[str, Any]]], peer: str) -> list[float]:
        return [
            mine["steps_per_s"] / theirs["steps_per_s"] for mine, theirs in zip(runs[BATCHED], runs[peer], strict=True)
        ]

    per_repeat = ratios(training, SUBPROC)
    ratio = statistics.median(per_repeat)
    results["kinds"] = kinds
    results["training_ratio_vs_subproc"] = ratio
    results["training_ratios_per_repeat"] = per_repeat
    results["env_only_ratio_vs_subproc"] = statistics.median(ratios(env_only, SUBPROC))
    results["training_ratio_vs_same_shape"] = statistics.median(ratios(training, SAME_SHAPE))
    results["env_only_ratio_vs_same_shape"] = statistics.median(ratios(env_only, SAME_SHAPE))
    results["target_met"] = ratio >= TARGET_RATIO
    results["benchmark_seconds"] = time.perf_counter() - started
    results["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return results


# --- report ------------------------------------------------------------------------------------------------


def _loads(loads: list[float] | None) -> str:
    return "n/a" if loads is None else " ".join(f"{load:.2f}" for load in loads)


def format_table(results: dict[str, Any]) -> str:
    """Renders the results as the plain-text table the script prints."""
    machine = results["machine"]
    settings = results["settings"]
    ppo = settings["ppo"]
    kinds = results["kinds"]
    subproc = kinds[SUBPROC]
    lines = [
        f"MaskablePPO training speed by vector env: {settings['env_id']} vs {settings['opponent']}",
        (
            f"  machine: {machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), {machine['cpu_model']}, "
            f"{machine['platform']}"
        ),
        (
            f"  python {machine['python']}, numpy {machine['numpy']}, numba {machine['numba']}, "
            f"torch {machine['torch']}, stable-baselines3 {machine['stable-baselines3']}, "
            f"sb3-contrib {machine['sb3-contrib']}, mancala-envs {machine['mancala_envs']} ({machine['git_commit']})"
        ),
        (
            f"  PPO: MlpPolicy {ppo['net_arch']}, rollout {settings['rollout_steps']} steps (n_envs x n_steps), "
            f"batch {ppo['batch_size']}, {ppo['n_epochs']} epochs, lr {ppo['learning_rate']}, torch 1 thread"
        ),
        f"  budget: {settings['repeats']} repeats x learn({settings['timesteps']}) and x {settings['seconds']} s "
        "env-only, median reported" + (" (--quick)" if settings["quick"] else ""),
        (
            f"  note: SubprocVecEnv runs 8 worker processes ({settings['start_method']}) on "
            f"{machine['cpus_usable']} usable cores, as the issue asks"
        ),
        (f"  load average before / after: {_loads(machine['load_average'])} / {_loads(results['load_average_after'])}"),
        "",
        (
            f"   {'vec env':<28}{'n_envs':>7}{'n_steps':>8}{'learn steps/s':>15}{'vs subproc':>11}"
            f"{'env-only steps/s':>18}{'env us/step':>12}{'env share':>10}{'(est.)':>7}"
        ),
    ]
    for entry in kinds.values():
        learn, raw = entry["training"], entry["env_only"]
        lines.append(
            f"   {entry['label']:<28}{entry['n_envs']:>7}{entry['n_steps']:>8}{rate(learn['steps_per_s']):>15}"
            f"{learn['steps_per_s'] / subproc['training']['steps_per_s']:>10.2f}x{rate(raw['steps_per_s']):>18}"
            f"{raw['us_per_step']:>12.1f}{100 * entry['env_share_timed']:>9.0f}%"
            f"{100 * entry['env_share_estimate']:>6.0f}%"
        )
    met = "met" if results["target_met"] else "NOT met"
    lines += [
        "",
        (
            f"   batched / SubprocVecEnv(8), training: {results['training_ratio_vs_subproc']:.2f}x "
            f"(median of per-repeat ratios; target >= {settings['target_ratio']:.0f}x: {met})"
        ),
        f"   batched / SubprocVecEnv(8), env only: {results['env_only_ratio_vs_subproc']:.2f}x",
        (
            f"   batched / DummyVecEnv(64) (the same batch shape): training "
            f"{results['training_ratio_vs_same_shape']:.2f}x, env only {results['env_only_ratio_vs_same_shape']:.2f}x"
        ),
        "   env share: the part of the learn time spent in the vector env (steps, resets, masks), timed during",
        "   learn; (est.) = learn steps/s / env-only steps/s. The rest is the policy, the rollout buffer, the updates",
        "",
        f"benchmark wall time {results['benchmark_seconds']:.1f} s",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> Args:
    """Reads :class:`Args` from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small budgets for a CI smoke run (under a minute)")
    parser.add_argument("--repeats", type=int, help="repetitions per measure, median reported (default 7, quick 2)")
    parser.add_argument(
        "--timesteps", type=int, help=f"steps per timed learn, a multiple of {ROLLOUT_STEPS} (default 8192, quick 2048)"
    )
    parser.add_argument("--seconds", type=float, help="env-only budget per repetition (default 1.0, quick 0.25)")
    parser.add_argument(
        "--start-method",
        default="fork",
        choices=START_METHODS,
        help="how SubprocVecEnv starts its workers (default fork; SB3's own default is forkserver)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the envs, policies and samplers (default 0)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"results file (default {DEFAULT_JSON})")
    options = parser.parse_args(argv)
    return Args(
        quick=options.quick,
        repeats=options.repeats,
        timesteps=options.timesteps,
        seconds=options.seconds,
        start_method=options.start_method,
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
