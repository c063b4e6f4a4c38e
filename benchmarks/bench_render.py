"""Cost of the pictures, measured against a peer in the same process.

For each game's default env and for PettingZoo's ``connect_four_v3`` (also drawn with pygame),
a seeded random game is played with ``render_mode="rgb_array"`` and ``render()`` is timed after
every step (the steps themselves are not timed). Reported: pictures per second, milliseconds per
picture, the picture's size, and the ratio ours / connect_four. Also the first picture of a fresh
env (pygame import and fonts included in the first env of the run), and the bytes of one picture.

Speed is never asserted in the tests; this script is where it is measured.

Usage::

    python benchmarks/bench_render.py                 # ~30 s
    python benchmarks/bench_render.py --frames 50 --json /tmp/render.json

The table goes to stdout; the JSON to ``benchmarks/results/bench_render.json`` unless ``--json``
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

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info  # a sibling script module

import mancala_envs
from mancala_envs.envs.registration import game_names

#: the games measured: every game of the list (mancala_envs.games.GAME_MODULES), by its plain name
GAMES = tuple(game_names())
RESULTS = Path(__file__).resolve().parent / "results" / "bench_render.json"


def _peer(render_mode: str) -> Any:
    import pettingzoo

    return pettingzoo.make("aec", "classic/connect_four-v3", render_mode=render_mode)


def time_pictures(make_env: Any, frames: int, seed: int) -> dict[str, Any]:
    """Plays seeded random games and times ``render()`` after each step, ``frames`` pictures in all."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start = time.perf_counter()
    first = env.render()
    first_seconds = time.perf_counter() - start
    times = []
    while len(times) < frames:
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
            if not env.agents:
                break
            start = time.perf_counter()
            env.render()
            times.append(time.perf_counter() - start)
            if len(times) >= frames:
                break
        env.reset(seed=int(rng.integers(2**31)))
    env.close()
    median = statistics.median(times)
    return {
        "pictures_per_second": 1.0 / median,
        "ms_per_picture": 1000.0 * median,
        "first_picture_ms": 1000.0 * first_seconds,
        "shape": list(first.shape),
        "bytes_per_picture": int(first.nbytes),
        "frames": len(times),
    }


def run(frames: int = 200, seed: int = 0) -> dict[str, Any]:
    """Measures every game and the peer; returns the JSON-ready results."""
    peer = time_pictures(lambda: _peer("rgb_array"), frames, seed)
    games = {}
    for env_id in GAMES:
        games[env_id] = time_pictures(
            lambda env_id=env_id: mancala_envs.make(env_id, render_mode="rgb_array"), frames, seed
        )
        games[env_id]["ratio_to_connect_four"] = games[env_id]["pictures_per_second"] / peer["pictures_per_second"]
    return {"machine": machine_info(), "frames": frames, "connect_four_v3": peer, "games": games}


def format_table(results: dict[str, Any]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| Env | Pictures/s | ms/picture | First picture (ms) | Shape | vs connect_four |",
        "|---|---|---|---|---|---|",
    ]
    rows = [("connect_four_v3 (peer)", results["connect_four_v3"], None)]
    rows += [(env_id, row, row["ratio_to_connect_four"]) for env_id, row in results["games"].items()]
    for name, row, ratio in rows:
        shape = "x".join(map(str, row["shape"]))
        lines.append(
            f"| {name} | {row['pictures_per_second']:,.0f} | {row['ms_per_picture']:.2f} | "
            f"{row['first_picture_ms']:.1f} | {shape} | {'1.00x' if ratio is None else f'{ratio:.2f}x'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Pictures per second of every game against connect_four.")
    parser.add_argument("--frames", type=int, default=200, help="pictures timed per env (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(RESULTS), help="where the JSON goes")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    results = run(args.frames, args.seed)
    print(format_table(results))
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"JSON: {args.json}")


if __name__ == "__main__":
    main()
