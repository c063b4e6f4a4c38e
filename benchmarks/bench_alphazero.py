"""Batched PUCT search with a policy-value network: simulations per second batched against one game at a time,
and self-play games per hour.

Issue 33, "Measure and report": "MCTS simulations per second with the network (batched vs one game at a time,
same run); self-play games per hour." In one process, for ``--batch`` root positions (reached by seeded random
openings of 0 to 20 plies):

1. **batched**: :class:`~mancala_envs.algorithms.batched_mcts.BatchedMCTS` over all the roots at once, the
   network evaluating each simulation wave's leaves in one numpy forward pass;
2. **one at a time**: the same search, one root after the other (``N = 1``: a forward pass per leaf);
3. **tree only**: batched, with the uniform evaluator (no network): what the compiled tree work costs.

Simulations per second is ``roots x simulations / seconds``; each repetition runs the three back to back and
the table shows medians and the median per-repetition ratio batched / one at a time. Then **self-play**:
:func:`mancala_envs.training.alphazero_training.self_play` plays ``--selfplay-games`` games at once with Dirichlet noise
and the temperature schedule, as the training loop does (no updates): games per hour and plies per game.

The network is an untrained MLP with seeded random weights (its speed is that of a trained one of the same
shape: ``--hidden``, default 128 128, on the ``one_hot`` encoding). numpy's BLAS is held to one thread
(``OPENBLAS_NUM_THREADS=1`` unless set): on this 2-core shared machine two BLAS threads made the batched
forward pass ~50x slower.

Usage::

    python benchmarks/bench_alphazero.py                      # Kalah, 64 roots, 100 simulations, ~1 minute
    python benchmarks/bench_alphazero.py --game ouril_v0 --batch 32 --simulations 50

The table goes to stdout; the JSON (machine, settings, every repetition, medians) to
``benchmarks/results/bench_alphazero.json`` unless ``--json`` says otherwise.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported (see the docstring)
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, rate, write_report  # a sibling script module

from mancala_envs.agents.alphazero import AlphaZeroNetwork, encoded_width
from mancala_envs.algorithms.batched_mcts import BatchedMCTS, uniform_evaluator
from mancala_envs.engine.state import RUNNING, STATUS
from mancala_envs.envs.registration import make_game, resolve_env_id

DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_alphazero.json"


def _network(game: Any, hidden: Sequence[int], seed: int) -> AlphaZeroNetwork:
    rng = np.random.default_rng(seed)
    widths = [encoded_width("one_hot", game), *hidden]
    trunk = [
        (rng.normal(0, 1 / np.sqrt(w), (o, w)).astype(np.float32), np.zeros(o, np.float32))
        for w, o in itertools.pairwise(widths)
    ]
    policy = (rng.normal(0, 0.1, (game.n_actions, widths[-1])).astype(np.float32), np.zeros(game.n_actions, np.float32))
    value = (rng.normal(0, 0.1, (1, widths[-1])).astype(np.float32), np.zeros(1, np.float32))
    return AlphaZeroNetwork(trunk, policy, value, "ReLU", game, "one_hot")


def _roots(game: Any, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    trace = np.empty(0, np.int64)
    roots = []
    while len(roots) < count:
        state = game.new_state(len(roots) % 2)
        for _ in range(int(rng.integers(0, 21))):
            game.step(state, int(rng.choice(game.legal_actions(state))), trace)
            if state[STATUS] != RUNNING:
                break
        if state[STATUS] == RUNNING:
            roots.append(state)
    return np.stack(roots)


def _timed(function: Any) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="kalah_v0")
    parser.add_argument("--batch", type=int, default=64, help="root positions searched (default: 64)")
    parser.add_argument("--simulations", type=int, default=100, help="simulations per search (default: 100)")
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 128], help="the MLP's widths (default: 128 128)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--selfplay-games", type=int, default=64, help="self-play games at once (default: 64)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    game = make_game(resolve_env_id(args.game))
    network = _network(game, args.hidden, args.seed)
    roots = _roots(game, args.batch, args.seed)
    search = BatchedMCTS(game, args.simulations)
    single = BatchedMCTS(game, args.simulations)
    search.run(roots[:2], network.evaluate)  # load the compiled code before timing
    uniform = uniform_evaluator(game)
    total = args.batch * args.simulations
    runs: dict[str, list[dict[str, float]]] = {"batched": [], "one_at_a_time": [], "tree_only": []}
    for _ in range(args.repeats):
        for name, work in (
            ("batched", lambda: search.run(roots, network.evaluate)),
            ("one_at_a_time", lambda: [single.run(roots[i : i + 1], network.evaluate) for i in range(len(roots))]),
            ("tree_only", lambda: search.run(roots, uniform)),
        ):
            seconds, cpu = _timed(work)
            runs[name].append({"seconds": seconds, "cpu_seconds": cpu, "simulations_per_s": total / seconds})
    medians = {name: statistics.median(run["simulations_per_s"] for run in entries) for name, entries in runs.items()}
    pairs = zip(runs["batched"], runs["one_at_a_time"], strict=True)
    ratios = [alone["seconds"] / batched["seconds"] for batched, alone in pairs]

    from mancala_envs.training.alphazero_training import AlphaZeroConfig, self_play

    config = AlphaZeroConfig(
        game=args.game, games_per_iteration=args.selfplay_games, simulations=args.simulations, hidden=tuple(args.hidden)
    )
    rng = np.random.default_rng(args.seed)
    plies_box: list[int] = []
    seconds, cpu = _timed(lambda: plies_box.append(self_play(game, network, config, rng)[1]))
    selfplay = {
        "games": args.selfplay_games,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "games_per_hour": 3600 * args.selfplay_games / seconds,
        "plies_per_game": plies_box[0] / args.selfplay_games,
        "simulations_per_s": plies_box[0] * args.simulations / seconds,
    }
    results = {
        "machine": machine_info(),
        "settings": {
            "game": game.env_name,
            "batch": args.batch,
            "simulations": args.simulations,
            "hidden": list(args.hidden),
            "encoding": "one_hot",
            "repeats": args.repeats,
            "selfplay_games": args.selfplay_games,
            "seed": args.seed,
            "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        },
        "search": {name: {"simulations_per_s": medians[name], "runs": entries} for name, entries in runs.items()},
        "ratio_batched_over_one_at_a_time": statistics.median(ratios),
        "ratios_per_repeat": ratios,
        "selfplay": selfplay,
        "benchmark_seconds": time.perf_counter() - started,
    }
    table = "\n".join(
        [
            f"{game.env_name}: {args.batch} roots x {args.simulations} simulations, MLP {args.hidden} (one_hot)",
            f"  batched (one forward pass a wave): {rate(medians['batched'])} simulations/s",
            f"  one game at a time:                {rate(medians['one_at_a_time'])} simulations/s",
            f"  batched / one at a time:           {results['ratio_batched_over_one_at_a_time']:.1f}x",
            f"  tree only (uniform evaluator):     {rate(medians['tree_only'])} simulations/s",
            f"  self-play, {args.selfplay_games} games at once:     {rate(selfplay['games_per_hour'])} games/hour "
            f"({selfplay['plies_per_game']:.1f} plies a game, {rate(selfplay['simulations_per_s'])} simulations/s)",
        ]
    )
    write_report(results, args.json, table)
    return results


if __name__ == "__main__":
    main()
