"""Scaling with threads: ``play_random`` and the vector env at 1 and N threads, in the same process.

Measures, with uniformly random legal play:

1. **play_random**: ``BatchedGames(game, batch_size, threads=t).play_random`` plies/s for Ouril, Kalah and
   Omweso at each thread count. Each repetition times every thread count once, one after the other, so a
   ratio is taken from runs seconds apart; the median rate and the median of the per-repetition ratios
   (t threads over 1) are reported.
2. **Vector env**: ``MancalaVectorEnv(game, num_envs, threads=t)`` env steps/s against the random opponent
   (same-step auto-reset), the learner's actions drawn from the masks with numpy (serial work the threads
   do not share, as in training).
   Each rate also comes per CPU-second of the process (rate over the cores it got): on a machine that other
   work shares, the wall-clock ratio says what the threads got, the CPU ratio what they cost (1.0: a second
   thread adds no work per ply, so on free cores the wall ratio would be the thread count).
3. **Model inputs**: the per-ply cost at one thread (ns), the bytes of a game's row and the plies per game
   (what play_random moves between memory and the cores per ply), and this machine's memory copy rate
   (one numpy copy of 256 MB, read + write counted), for the 8- and 64-core model of ``docs/throughput.md``.

Usage::

    python benchmarks/bench_threads.py                   # ~2 minutes on 2 cores
    python benchmarks/bench_threads.py --quick           # smoke run
    python benchmarks/bench_threads.py --threads 1 2 4 --repeats 7

The table goes to stdout; the JSON to ``benchmarks/results/bench_threads.json`` unless ``--json`` says otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, write_report  # sibling script module

__all__ = ["Args", "bench_play_random", "bench_vector", "main", "memory_copy_rate", "parse_args"]

GAMES = ("ouril_v0", "kalah_v0", "omweso_v0")
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_threads.json"


@dataclass
class Args:
    """Options of the benchmark run."""

    quick: bool = False
    """Small budgets for a smoke run (repeats 2, 0.2 s)."""
    threads: list[int] = field(default_factory=lambda: [1, 2])
    """Thread counts to compare (the first is the reference of the ratios)."""
    repeats: int = 5
    """Repetitions; medians are reported."""
    seconds: float = 1.0
    """Time budget of one thread count in one repetition."""
    batch_size: int = 1024
    """Rows of the batch in play_random."""
    num_envs: int = 1024
    """Envs of the vector env."""
    seed: int = 0
    """Seed of the batches, the envs and the action sampler."""
    json: Path = DEFAULT_JSON
    """Where the JSON results are written."""


def _timed(run: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Calls ``run`` (which returns the units it did) until ``seconds`` have passed.

    Returns:
        Units per second, and the cores the process got meanwhile (its CPU time over the wall time: below
        the thread count when other processes share the cores).
    """
    units = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while units == 0 or time.perf_counter() - start < seconds:
        units += run()
    wall = time.perf_counter() - start
    return units / wall, (time.process_time() - cpu) / wall


def _round_robin(runs: dict[int, Callable[[], int]], repeats: int, seconds: float) -> dict[str, Any]:
    """Times each thread count's ``run`` once per repetition; medians of the rates and of the ratios to the first."""
    for run in runs.values():
        _timed(run, min(0.1, seconds))
    timed: dict[int, list[tuple[float, float]]] = {threads: [] for threads in runs}
    for _ in range(repeats):
        for threads, run in runs.items():
            timed[threads].append(_timed(run, seconds))
    first = next(iter(runs))
    return {
        str(threads): {
            "per_s": statistics.median(rate for rate, _cores in values),
            "runs": [rate for rate, _cores in values],
            "cores_used": statistics.median(cores for _rate, cores in values),
            "ratio": statistics.median(
                rate / reference[0] for (rate, _cores), reference in zip(values, timed[first], strict=True)
            ),
            # per CPU-second: the work a core does, whatever share of the cores the process got
            "per_cpu_s": statistics.median(rate / cores for rate, cores in values),
            "cpu_ratio": statistics.median(
                rate / cores / (reference[0] / reference[1])
                for (rate, cores), reference in zip(values, timed[first], strict=True)
            ),
        }
        for threads, values in timed.items()
    }


def bench_play_random(args: Args) -> dict[str, Any]:
    """Measure 1: play_random plies/s per game and thread count, with the model's inputs at one thread."""
    from mancala_envs.envs.batch import BatchedGames

    results: dict[str, Any] = {}
    for index, game in enumerate(GAMES):
        runs = {}
        batches = []
        for threads in args.threads:
            batch = BatchedGames(game, args.batch_size, threads=threads)
            batch.reset(seed=args.seed + index)
            batches.append(batch)
            per_call = 2 * args.batch_size  # two games per row per call: every thread has whole rows to play

            def run(batch: BatchedGames = batch, per_call: int = per_call) -> int:
                return batch.play_random(per_call).plies

            runs[threads] = run
        rates = _round_robin(runs, args.repeats, args.seconds)
        stats = batches[0].play_random(4 * args.batch_size)
        results[game] = {
            "plies_per_s": rates,
            "ns_per_ply_1_thread": 1e9 / rates[str(args.threads[0])]["per_s"],
            "row_bytes": batches[0].state_bytes_per_game,
            "plies_per_game": stats.plies / stats.games,
        }
        for batch in batches:
            batch.close()
    return results


def bench_vector(args: Args) -> dict[str, Any]:
    """Measure 2: vector env steps/s (``num_envs`` per call) per game and thread count, random opponent."""
    from mancala_envs.views.vector_env import MancalaVectorEnv

    results: dict[str, Any] = {}
    for index, game in enumerate(GAMES):
        runs = {}
        for threads in args.threads:
            env = MancalaVectorEnv(game, num_envs=args.num_envs, autoreset_mode="same_step", threads=threads)
            env.reset(seed=args.seed + index)
            rng = np.random.default_rng([args.seed, index, threads])

            def run(env: MancalaVectorEnv = env, rng: np.random.Generator = rng) -> int:
                masks = env.action_masks()
                env.step((rng.random(masks.shape) * masks).argmax(axis=1))
                return env.num_envs

            runs[threads] = run
        results[game] = {
            "steps_per_s": _round_robin(runs, args.repeats, args.seconds),
            "compiled_share_1_thread": _compiled_share(game, args),
        }
    return results


def _compiled_share(game: str, args: Args) -> float:
    """The share of a vector env step (one thread, with the numpy action draw) spent in the compiled call:
    what threads can divide; the rest (checks, outputs, infos, the draw) stays serial (Amdahl's law)."""
    from mancala_envs.views.vector_env import MancalaVectorEnv

    env = MancalaVectorEnv(game, num_envs=args.num_envs, autoreset_mode="same_step", threads=1)
    env.reset(seed=args.seed)
    rows = env._rows  # the batch's rows: its in_parts runs the compiled call
    inside = [0.0]
    in_parts = rows.in_parts

    def timed_in_parts(call: Callable[..., Any]) -> Any:
        start = time.perf_counter()
        try:
            return in_parts(call)
        finally:
            inside[0] += time.perf_counter() - start

    rows.in_parts = timed_in_parts
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        masks = env.action_masks()
        env.step((rng.random(masks.shape) * masks).argmax(axis=1))
    return inside[0] / (time.perf_counter() - start)


def memory_copy_rate(megabytes: int = 256, repeats: int = 5) -> float:
    """Bytes per second one thread moves in a numpy copy of ``megabytes`` (read and write both counted)."""
    source = np.ones(megabytes * 2**20 // 8, np.int64)
    target = np.empty_like(source)
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(target, source)
        best = max(best, 2 * source.nbytes / (time.perf_counter() - start))
    return best


def format_table(results: dict[str, Any], args: Args) -> str:
    last = str(args.threads[-1])
    heading = (
        f"Threads: {args.threads} (ratios: {last} threads over {args.threads[0]}), "
        f"{args.repeats} repetitions of {args.seconds} s"
    )
    lines = [
        heading,
        "",
        f"1. play_random, batch of {args.batch_size}: plies/s",
        f"{'game':12} " + " ".join(f"{t:>12}" for t in args.threads) + f" {'ratio':>7} {'ns/ply':>7} "
        f"{'row B':>6} {'plies/game':>10}",
    ]
    for game, entry in results["play_random"].items():
        rates = entry["plies_per_s"]
        lines.append(
            f"{game:12} "
            + " ".join(f"{rates[str(t)]['per_s']:12,.0f}" for t in args.threads)
            + f" {rates[last]['ratio']:7.2f} {entry['ns_per_ply_1_thread']:7.1f} {entry['row_bytes']:6d}"
            f" {entry['plies_per_game']:10.1f}  cores used "
            + "/".join(f"{rates[str(t)]['cores_used']:.2f}" for t in args.threads)
            + f"  per CPU-s ratio {rates[last]['cpu_ratio']:.2f}"
        )
    lines += [
        "",
        f"2. MancalaVectorEnv, {args.num_envs} envs, random opponent: env steps/s",
        f"{'game':12} " + " ".join(f"{t:>12}" for t in args.threads) + f" {'ratio':>7}",
    ]
    for game, entry in results["vector"].items():
        rates = entry["steps_per_s"]
        lines.append(
            f"{game:12} "
            + " ".join(f"{rates[str(t)]['per_s']:12,.0f}" for t in args.threads)
            + f" {rates[last]['ratio']:7.2f}  cores used "
            + "/".join(f"{rates[str(t)]['cores_used']:.2f}" for t in args.threads)
            + f"  per CPU-s ratio {rates[last]['cpu_ratio']:.2f}"
            + f"  compiled share {entry['compiled_share_1_thread']:.2f}"
        )
    lines += ["", f"3. memory copy, one thread: {results['memory_copy_bytes_per_s'] / 1e9:.1f} GB/s (read + write)"]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parsed = parser.parse_args(argv)
    repeats = parsed.repeats or (2 if parsed.quick else 5)
    seconds = parsed.seconds or (0.2 if parsed.quick else 1.0)
    return Args(
        parsed.quick, parsed.threads, repeats, seconds, parsed.batch_size, parsed.num_envs, parsed.seed, parsed.json
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    start = time.perf_counter()
    results: dict[str, Any] = {"machine": machine_info(), "settings": asdict(args) | {"json": str(args.json)}}
    results["play_random"] = bench_play_random(args)
    results["vector"] = bench_vector(args)
    results["memory_copy_bytes_per_s"] = memory_copy_rate()
    results["benchmark_seconds"] = time.perf_counter() - start
    write_report(results, args.json, format_table(results, args))
    return results


if __name__ == "__main__":
    main()
