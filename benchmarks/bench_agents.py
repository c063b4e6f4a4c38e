"""Speed of the search agents: alpha-beta nodes per second and MCTS simulations per second, per game.

For each game's default env (``ouril_v0``, ``urim_v0``, ``modiar_v0``, ``rio_kadalis_v0``,
``omweso_v0``, ``kalah_v0``) the same positions are searched: the opening (player 0 to move) and positions
reached by seeded uniformly random play (``--positions`` of them, after 4 to 60 plies). For each:

1. **Alpha-beta** (``mancala_envs.agents.search_agents.alphabeta_search``) to each depth of ``--depths``:
   nodes (plies played by the search) divided by wall time, summed over the positions; the mean
   and the longest time per move.
2. **MCTS** (``mcts_search``) with ``--simulations`` simulations: simulations per second, and the
   rollout plies per second.
3. **Ouril's opening at depth 6**: the median of ``--repeats`` searches, in ms per move.
4. **The strong agent**: the deepening search (``deepening_search``, the search of ``alphabeta:D`` and
   ``alphabeta:t=S``) to the same depths on the same positions, with one transposition table carried from
   position to position as an agent carries it from move to move: nodes per second and time per move, and
   its time as a ratio to the plain search's; then under a ``--budget`` (default 0.1 s) a move: the depth
   of the deepest completed iteration (median, least, most) and nodes per second.

Compile time is excluded (one untimed search per game and kind first). Speed is never asserted in
the tests; this script is where it is measured.

Usage::

    python benchmarks/bench_agents.py                 # ~1-2 minutes on 2 cores
    python benchmarks/bench_agents.py --quick         # smoke run
    python benchmarks/bench_agents.py --depths 4 6 8 --simulations 1000 --json /tmp/agents.json

The table goes to stdout; the JSON to ``benchmarks/results/bench_agents.json`` unless ``--json``
says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info  # a sibling script module

import mancala_envs
from mancala_envs.agents.search_agents import (
    UCT_C,
    TranspositionTable,
    alphabeta_search,
    deepening_search,
    mcts_search,
)
from mancala_envs.engine.state import RUNNING, STATUS
from mancala_envs.envs.registration import game_names

__all__ = ["GAMES", "bench_alphabeta", "bench_budget", "bench_deepening", "bench_mcts", "main", "positions", "run_all"]

#: the games measured: every game of the list (mancala_envs.games.GAME_MODULES), by its plain name
GAMES = tuple(game_names())
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_agents.json"


def positions(env_id: str, count: int, seed: int) -> tuple[Any, list[np.ndarray]]:
    """The game and ``count + 1`` running states: the opening, then states reached by random play."""
    env = mancala_envs.make(env_id, first_player=0)
    env.reset(seed=seed)
    raw = env.unwrapped
    states = [raw.state_array]
    rng = np.random.default_rng(seed)
    attempt = 0
    while len(states) < count + 1 and attempt < 50 * (count + 1):
        env.reset(seed=seed + attempt)
        attempt += 1
        for _ in range(int(rng.integers(4, 61))):
            if raw._state[STATUS] != RUNNING:
                break
            env.step(int(rng.choice(raw.game.legal_actions(raw._state))))
        if raw._state[STATUS] == RUNNING and raw.game.legal_actions(raw._state).size > 1:
            states.append(raw.state_array)
    return raw.game, states


def bench_alphabeta(game: Any, states: list[np.ndarray], depth: int) -> dict[str, Any]:
    alphabeta_search(game, states[0], 1)  # compile or load the code, untimed
    nodes = 0
    times = []
    cpu_start = time.process_time()
    for state in states:
        start = time.perf_counter()
        nodes += alphabeta_search(game, state, depth)[2]
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu_start
    return {**search_figures(depth, nodes, times), "cpu_share": cpu / sum(times)}


def search_figures(depth: int, nodes: int, times: list[float]) -> dict[str, Any]:
    """The figures of a search timed over positions: ``times`` holds each position's seconds."""
    wall = sum(times)
    return {
        "depth": depth,
        "positions": len(times),
        "nodes": nodes,
        "seconds": wall,
        "nodes_per_s": nodes / wall,
        "mean_ms_per_move": 1000 * wall / len(times),
        "max_ms_per_move": 1000 * max(times),
    }


def bench_deepening(game: Any, states: list[np.ndarray], depth: int) -> dict[str, Any]:
    """The deepening search to ``depth`` on ``states``, one transposition table for all (an agent's)."""
    memory = TranspositionTable()
    deepening_search(game, states[0], depth=1, transpositions=TranspositionTable(10))  # compile or load, untimed
    memory.keys.fill(1)  # touch the table's pages now, as an agent's first move would (untimed)
    memory.clear()
    nodes = 0
    times = []
    for state in states:
        start = time.perf_counter()
        nodes += deepening_search(game, state, depth=depth, transpositions=memory).nodes
        times.append(time.perf_counter() - start)
    return search_figures(depth, nodes, times)


def bench_budget(game: Any, states: list[np.ndarray], budget: float) -> dict[str, Any]:
    """The deepening search under ``budget`` seconds a move on ``states``: the depths it completes."""
    memory = TranspositionTable()
    deepening_search(game, states[0], depth=1, transpositions=memory)  # compile or load, untimed
    memory.clear()
    depths = []
    nodes = 0
    wall = 0.0
    complete = 0
    for state in states:
        result = deepening_search(game, state, budget=budget, transpositions=memory)
        depths.append(result.depth)
        nodes += result.nodes
        wall += result.seconds
        complete += result.complete
    return {
        "budget_s": budget,
        "positions": len(states),
        "median_depth": statistics.median(depths),
        "min_depth": min(depths),
        "max_depth": max(depths),
        "complete": complete,
        "nodes_per_s": nodes / wall,
        "mean_ms_per_move": 1000 * wall / len(states),
    }


def bench_mcts(game: Any, states: list[np.ndarray], simulations: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    mcts_search(game, states[0], 2, rng.integers(1, 1 << 32, size=4))  # compile or load, untimed
    plies = 0
    times = []
    cpu_start = time.process_time()
    for state in states:
        words = rng.integers(1, 1 << 32, size=4)
        start = time.perf_counter()
        plies += mcts_search(game, state, simulations, words, c=UCT_C)[2]
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu_start
    wall = sum(times)
    return {
        "simulations": simulations,
        "positions": len(states),
        "seconds": wall,
        "simulations_per_s": simulations * len(states) / wall,
        "rollout_plies_per_s": plies / wall,
        "mean_ms_per_move": 1000 * wall / len(states),
        "cpu_share": cpu / wall,
    }


def ouril_opening_ms(depth: int, repeats: int) -> dict[str, Any]:
    game, states = positions("ouril_v0", 0, 0)
    alphabeta_search(game, states[0], 1)
    times = []
    nodes = 0
    for _ in range(repeats):
        start = time.perf_counter()
        nodes = alphabeta_search(game, states[0], depth)[2]
        times.append(time.perf_counter() - start)
    return {"depth": depth, "nodes": nodes, "median_ms": 1000 * statistics.median(times), "repeats": repeats}


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"alphabeta": {}, "deepening": {}, "budget": {}, "mcts": {}}
    for env_id in GAMES:
        game, states = positions(env_id, args.positions, args.seed)
        results["alphabeta"][env_id] = [bench_alphabeta(game, states, depth) for depth in args.depths]
        results["deepening"][env_id] = [bench_deepening(game, states, depth) for depth in args.depths]
        results["budget"][env_id] = bench_budget(game, states, args.budget)
        results["mcts"][env_id] = bench_mcts(game, states, args.simulations, args.seed)
    results["ouril_opening"] = ouril_opening_ms(6, args.repeats)
    return results


def print_table(results: dict[str, Any]) -> None:
    print("Alpha-beta (alphabeta_search), the opening and random-play positions of each default env")
    print(f"{'env':<16}{'depth':>6}{'positions':>10}{'nodes':>12}{'nodes/s':>12}{'mean ms':>10}{'max ms':>10}")
    for env_id, rows in results["alphabeta"].items():
        for row in rows:
            print(
                f"{env_id:<16}{row['depth']:>6}{row['positions']:>10}{row['nodes']:>12,}"
                f"{row['nodes_per_s']:>12,.0f}{row['mean_ms_per_move']:>10.2f}{row['max_ms_per_move']:>10.1f}"
            )
    print("\nThe deepening search (deepening_search: alphabeta:D), one transposition table over the positions")
    print(f"{'env':<16}{'depth':>6}{'nodes':>12}{'nodes/s':>12}{'mean ms':>10}{'max ms':>10}{'time / plain':>14}")
    for env_id, rows in results["deepening"].items():
        for row, plain in zip(rows, results["alphabeta"][env_id], strict=True):
            print(
                f"{env_id:<16}{row['depth']:>6}{row['nodes']:>12,}{row['nodes_per_s']:>12,.0f}"
                f"{row['mean_ms_per_move']:>10.2f}{row['max_ms_per_move']:>10.1f}"
                f"{row['seconds'] / plain['seconds']:>14.2f}"
            )
    print("\nThe strong agent's budget (alphabeta:t=S): the deepest completed iteration")
    print(f"{'env':<16}{'budget s':>9}{'median depth':>13}{'least':>7}{'most':>6}{'complete':>9}{'nodes/s':>12}")
    for env_id, row in results["budget"].items():
        print(
            f"{env_id:<16}{row['budget_s']:>9g}{row['median_depth']:>13g}{row['min_depth']:>7}{row['max_depth']:>6}"
            f"{row['complete']:>9}{row['nodes_per_s']:>12,.0f}"
        )
    print("\nMCTS (mcts_search, UCT with random rollouts)")
    print(f"{'env':<16}{'sims':>6}{'positions':>10}{'sims/s':>12}{'rollout plies/s':>17}{'mean ms':>10}")
    for env_id, row in results["mcts"].items():
        print(
            f"{env_id:<16}{row['simulations']:>6}{row['positions']:>10}{row['simulations_per_s']:>12,.0f}"
            f"{row['rollout_plies_per_s']:>17,.0f}{row['mean_ms_per_move']:>10.2f}"
        )
    opening = results["ouril_opening"]
    print(
        f"\nOuril opening, alphabeta:{opening['depth']}: {opening['median_ms']:.2f} ms per move "
        f"({opening['nodes']:,} nodes, median of {opening['repeats']})"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[4, 6, 8], help="alpha-beta depths (default 4 6 8)")
    parser.add_argument("--simulations", type=int, default=400, help="MCTS simulations per move (default 400)")
    parser.add_argument("--positions", type=int, default=40, help="random-play positions per game (default 40)")
    parser.add_argument("--repeats", type=int, default=7, help="repeats of Ouril's opening search (default 7)")
    parser.add_argument("--budget", type=float, default=0.1, help="the strong agent's seconds a move (default 0.1)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the positions and the MCTS generators")
    parser.add_argument("--quick", action="store_true", help="smoke run: depth 4, 50 simulations, 3 positions")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the results")
    args = parser.parse_args(argv)
    if args.quick:
        args.depths, args.simulations, args.positions, args.repeats, args.budget = [4], 50, 3, 3, 0.01
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    results = run_all(args)
    print_table(results)
    report = {
        "machine": machine_info(),
        "load_average_before_after": [load_before, os.getloadavg()[0]],
        "wall_seconds": time.perf_counter() - started,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        **results,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nJSON: {args.json}")
    return report


if __name__ == "__main__":
    main()
