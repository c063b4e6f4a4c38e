"""Batched random play of two source trees of mancala-envs, back to back on one core.

Checks that a change does not slow the engine: each tree's ``BatchedGames(name, 1024).play_random`` is
timed in a child process whose ``PYTHONPATH`` puts that tree first, best of ``--repeats`` x 1 s per game::

    git worktree add /tmp/before <commit>
    python benchmarks/compare_trees.py /tmp/before .

Prints plies/s per game for each tree and the change. The games are the second tree's list of games
(:data:`GAMES_OF_TREE` asks it; ``--games`` names others). A game the first tree does not have is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: prints a tree's games (its list, mancala_envs.games.GAME_MODULES) as JSON, by their plain names
GAMES_OF_TREE = """
import json
from mancala_envs.envs.registration import game_names
print(json.dumps(game_names()))
"""

CHILD = """
import json, os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
from mancala_envs.envs.batch import BatchedGames
repeats, out = int(sys.argv[2]), {}
for name in sys.argv[3:]:
    try:
        games = BatchedGames(name, 1024)
    except ValueError:
        continue  # a game this tree does not have
    games.reset(seed=0)
    games.play_random(200)  # loads or compiles the kernel
    best = 0.0
    for _ in range(repeats):
        plies, start = 0, time.perf_counter()
        while time.perf_counter() - start < 1.0:
            plies += games.play_random(2000).plies
        best = max(best, plies / (time.perf_counter() - start))
    out[name] = best
print(json.dumps(out))
"""


def run_in_tree(tree: Path, code: str, *args: str) -> Any:
    """Runs ``code`` in a fresh child process that imports ``tree``'s mancala_envs; returns its last line, as JSON."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    result = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True, cwd=tree
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def tree_games(tree: Path) -> list[str]:
    """The games of ``tree``'s list, by their plain names (``"ouril_v0"``...)."""
    return run_in_tree(tree, GAMES_OF_TREE)


def measure(tree: Path, games: list[str], repeats: int, cpu: int) -> dict[str, float]:
    """Best plies/s of each game in ``tree``, measured in a fresh child process."""
    return run_in_tree(tree, CHILD, str(cpu), str(repeats), *games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the source tree measured first (e.g. a git worktree)")
    parser.add_argument("after", type=Path, help="the source tree measured second")
    parser.add_argument("--games", nargs="+", help="the games measured (default: every game of the second tree)")
    parser.add_argument("--repeats", type=int, default=5, help="1 s timings per game, best reported (default 5)")
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)), help="the core to pin to")
    args = parser.parse_args()
    args.games = args.games or tree_games(args.after)
    before = measure(args.before, args.games, args.repeats, args.cpu)
    after = measure(args.after, args.games, args.repeats, args.cpu)
    print(f"{'game':<16}{'before':>12}{'after':>12}{'change':>9}")
    for name in args.games:
        old, new = before.get(name), after.get(name)
        change = f"{new / old - 1:+.0%}" if old and new else ""
        cells = [f"{value / 1e6:.2f}M" if value else "-" for value in (old, new)]
        print(f"{name:<16}{cells[0]:>12}{cells[1]:>12}{change:>9}")


if __name__ == "__main__":
    main()
