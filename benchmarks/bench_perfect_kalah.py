"""``perfect`` playing whole Kalah games from the first move (issue 32, item 4): the time of each of its moves.

The ``perfect`` agent (:class:`mancala_envs.agents.PerfectAgent`) plays Kalah (default ``kalah_v0``: 6 pits, 4 seeds,
standard capture rule) against each opponent, seats alternated (game ``g`` against each opponent: ``perfect`` moves
first when ``g`` is even; the games against the opponents are interleaved, so that a run cut short has some of
each). Inside its table it reads the table; outside, :meth:`mancala_envs.algorithms.retrograde.Table.search` (MTD(f)
with the transposition table the process keeps between moves and games) chooses. Each ``act`` call is timed
(wall clock, the search included; the table's load is timed apart, before the first game). **Targets: median <= 2 s,
worst <= 60 s a move.** The JSON is written again after every game: a run cut short keeps what it measured.

The tables come from ``--tables`` (default ``$MANCALA_ENVS_TABLES``); without a saved table ``perfect`` builds the
default one there (Kalah on 6 pits: 16 seeds, about 25-40 s), so build it first for a clean timing::

    MANCALA_ENVS_TABLES=/tmp/tables mancala-envs solve kalah --max-seeds 16

Usage::

    python benchmarks/bench_perfect_kalah.py --tables /tmp/tables                    # 10 games x 2 opponents
    python benchmarks/bench_perfect_kalah.py --quick --tables /tmp/t --json /tmp/p.json   # Kalah(4,3), seconds
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
from bench_machine import machine_info, write_report  # a sibling script module

#: what ``--quick`` plays: a small board whose whole table builds in a second
QUICK = {"pits": 4, "seeds": 3, "games": 2, "opponents": ["alphabeta:2", "greedy"]}


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (linear interpolation, numpy's default)."""
    return float(np.quantile(np.asarray(values, dtype=float), share))


def play_game(env: Any, players: dict[int, Any], seat: int, env_seed: int) -> dict[str, Any]:
    """One game; returns the seconds of each of ``perfect``'s moves (at ``seat``) and the result for it."""
    env.reset(seed=env_seed)
    seconds: list[float] = []
    while True:
        mover = env.agent_selection
        if env.terminations[mover] or env.truncations[mover]:
            break
        player = env.possible_agents.index(mover)
        started = time.perf_counter()
        action = int(players[player].act(env))
        if player == seat:
            seconds.append(time.perf_counter() - started)
        env.step(action)
    info = env.facts()
    winner = info["winner"]
    scores = info["scores"]
    return {
        "seat": seat,
        "result": "draw" if winner is None else ("win" if winner == seat else "loss"),
        "scores": [int(scores[seat]), int(scores[1 - seat])],
        "plies": int(info["ply"]),
        "move_seconds": [round(s, 4) for s in seconds],
    }


def summary(seconds: list[float]) -> dict[str, float]:
    """Median, 90th percentile and max of the move times."""
    if not seconds:
        return {"moves": 0}
    return {
        "moves": len(seconds),
        "median_s": round(statistics.median(seconds), 4),
        "p90_s": round(percentile(seconds, 0.9), 4),
        "max_s": round(max(seconds), 4),
        "total_s": round(sum(seconds), 2),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pits", type=int, default=6, help="pits a side (default 6)")
    parser.add_argument("--seeds", type=int, default=4, help="seeds a pit (default 4)")
    parser.add_argument("--empty-capture", action="store_true", help="the empty-capture rule (default: standard)")
    parser.add_argument("--games", type=int, default=10, help="games against each opponent (default 10)")
    parser.add_argument("--opponents", nargs="+", default=["alphabeta:4", "pretrained"], help="the opponents")
    parser.add_argument("--seed", type=int, default=0, help="seeds every game (default 0)")
    parser.add_argument("--tables", default=None, help="the tables folder (default: $MANCALA_ENVS_TABLES)")
    parser.add_argument("--quick", action="store_true", help="Kalah(4,3), 2 games against alphabeta:2 and greedy")
    parser.add_argument("--json", default="benchmarks/results/perfect_kalah.json", help="where the JSON goes")
    args = parser.parse_args(argv)
    if args.quick:
        args.pits, args.seeds, args.games = QUICK["pits"], QUICK["seeds"], QUICK["games"]
        args.opponents = list(QUICK["opponents"])
    if args.tables is not None:
        os.environ["MANCALA_ENVS_TABLES"] = str(args.tables)

    import mancala_envs
    from mancala_envs.agents import PerfectAgent, make_agent
    from mancala_envs.solver import solver_table

    options = {"pits_per_row": args.pits, "seeds_per_pit": args.seeds, "empty_capture": args.empty_capture}
    env = mancala_envs.make("kalah_v0", first_player=0, **options)
    started = time.perf_counter()
    table = solver_table(env.unwrapped.game)  # loaded (or built and saved) once, outside the moves' times
    table_seconds = time.perf_counter() - started
    results: dict[str, Any] = {
        "benchmark": "perfect_kalah",
        "machine": machine_info(),
        "config": {**options, "games_per_opponent": args.games, "opponents": args.opponents, "seed": args.seed},
        "table": {"max_seeds": table.max_seeds, "positions": table.positions, "load_seconds": round(table_seconds, 2)},
        "games": [],
    }
    json_path = Path(args.json)
    perfect = PerfectAgent(seed=args.seed)  # one agent: its table and transposition table stay between games
    for number in range(args.games):
        for index, name in enumerate(args.opponents):
            seeds = np.random.SeedSequence([args.seed, index, number]).generate_state(2)
            seat = number % 2
            opponent = make_agent(name, seed=int(seeds[1]))
            game = play_game(env, {seat: perfect, 1 - seat: opponent}, seat, int(seeds[0]))
            game.update(opponent=name, game=number)
            results["games"].append(game)
            moves = game["move_seconds"]
            print(
                f"game {number} vs {name} (perfect {'first' if seat == 0 else 'second'}): {game['result']} "
                f"{game['scores'][0]}-{game['scores'][1]}, {len(moves)} moves, max {max(moves, default=0):.2f} s",
                flush=True,
            )
            _summarise(results)
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    _summarise(results)
    write_report(results, json_path, _table(results))
    return results


def _summarise(results: dict[str, Any]) -> None:
    games = results["games"]
    every = [s for g in games for s in g["move_seconds"]]
    results["moves"] = summary(every)
    results["by_opponent"] = {}
    for name in results["config"]["opponents"]:
        mine = [g for g in games if g["opponent"] == name]
        results["by_opponent"][name] = {
            **summary([s for g in mine for s in g["move_seconds"]]),
            "games": len(mine),
            **{r: sum(g["result"] == r for g in mine) for r in ("win", "draw", "loss")},
        }


def _table(results: dict[str, Any]) -> str:
    lines = [f"{'opponent':<14} {'games':>5} {'W-D-L':>8} {'moves':>6} {'median s':>9} {'p90 s':>8} {'max s':>8}"]
    rows = [*results["by_opponent"].items(), ("all", {**results["moves"], "games": len(results["games"])})]
    for name, row in rows:
        wdl = f"{row['win']}-{row['draw']}-{row['loss']}" if "win" in row else ""
        if not row.get("moves"):
            lines.append(f"{name:<14} {row['games']:>5} {wdl:>8} {0:>6}")
            continue
        lines.append(
            f"{name:<14} {row['games']:>5} {wdl:>8} {row['moves']:>6} {row['median_s']:>9.3f} {row['p90_s']:>8.3f} "
            f"{row['max_s']:>8.2f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
