"""Cost of the pictures, measured against a peer in the same process.

For each game's default env and for PettingZoo's ``connect_four_v3`` (also drawn with pygame),
a seeded random game is played with ``render_mode="rgb_array"`` and ``render()`` is timed after
every step (the steps themselves are not timed). Reported: pictures per second, milliseconds per
picture, the picture's size, and the ratio ours / connect_four. Also the first picture of a fresh
env (pygame import and fonts included in the first env of the run), and the bytes of one picture.

The same games are timed again with ``render_mode="svg"`` (the SVG string of the browser pages, drawn without
pygame), reported against the peer and against our own PNG pictures, and the HTML replay of seeded random games
(``mancala_envs.envs.records.write_html``) is measured: bytes per ply of the one-file page and milliseconds to write
a ply.

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
        "shape": list(first.shape) if isinstance(first, np.ndarray) else None,
        "bytes_per_picture": int(first.nbytes) if isinstance(first, np.ndarray) else len(first.encode("utf-8")),
        "frames": len(times),
    }


def time_html_replay(env_id: str, games: int, seed: int, folder: Path) -> dict[str, Any]:
    """Writes the HTML replay of ``games`` seeded random games of ``env_id`` (one page) and measures it."""
    from mancala_envs.envs.records import write_html
    from mancala_envs.wrappers import RecordGames

    env = RecordGames(mancala_envs.make(env_id))
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=seed + game)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
    records = env.records
    plies = sum(len(record.moves) for record in records)
    path = folder / f"{env_id}.html"
    start = time.perf_counter()
    write_html(records, path)
    seconds = time.perf_counter() - start
    size = path.stat().st_size
    return {
        "games": games,
        "plies": plies,
        "bytes": size,
        "bytes_per_ply": size / plies,
        "ms_per_ply": 1000.0 * seconds / plies,
    }


def run(frames: int = 200, seed: int = 0, replay_games: int = 5) -> dict[str, Any]:
    """Measures every game and the peer; returns the JSON-ready results."""
    import tempfile

    peer = time_pictures(lambda: _peer("rgb_array"), frames, seed)
    games = {}
    svg = {}
    replays = {}
    with tempfile.TemporaryDirectory() as folder:
        for env_id in GAMES:
            games[env_id] = time_pictures(
                lambda env_id=env_id: mancala_envs.make(env_id, render_mode="rgb_array"), frames, seed
            )
            games[env_id]["ratio_to_connect_four"] = games[env_id]["pictures_per_second"] / peer["pictures_per_second"]
            svg[env_id] = time_pictures(
                lambda env_id=env_id: mancala_envs.make(env_id, render_mode="svg"), frames, seed
            )
            svg[env_id]["ratio_to_connect_four"] = svg[env_id]["pictures_per_second"] / peer["pictures_per_second"]
            svg[env_id]["ratio_to_png"] = svg[env_id]["pictures_per_second"] / games[env_id]["pictures_per_second"]
            replays[env_id] = time_html_replay(env_id, replay_games, seed, Path(folder))
    return {
        "machine": machine_info(),
        "frames": frames,
        "connect_four_v3": peer,
        "games": games,
        "svg": svg,
        "html_replay": replays,
    }


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
    lines += [
        "",
        '| Env (render_mode="svg") | SVGs/s | ms/SVG | kB/SVG | vs connect_four (PNG) | vs our PNG |',
        "|---|---|---|---|---|---|",
    ]
    for name, row in results["svg"].items():
        lines.append(
            f"| {name} | {row['pictures_per_second']:,.0f} | {row['ms_per_picture']:.2f} | "
            f"{row['bytes_per_picture'] / 1000:.1f} | {row['ratio_to_connect_four']:.2f}x | "
            f"{row['ratio_to_png']:.2f}x |"
        )
    lines += [
        "",
        "| Env | HTML replay: games | plies | kB | bytes/ply | ms to write a ply |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in results["html_replay"].items():
        lines.append(
            f"| {name} | {row['games']} | {row['plies']} | {row['bytes'] / 1000:.1f} | {row['bytes_per_ply']:.0f} | "
            f"{row['ms_per_ply']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Pictures per second of every game against connect_four.")
    parser.add_argument("--frames", type=int, default=200, help="pictures timed per env (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--replay-games", type=int, default=5, help="random games in each HTML replay (default 5)")
    parser.add_argument("--json", default=str(RESULTS), help="where the JSON goes")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    if args.replay_games < 1:
        parser.error("--replay-games must be at least 1")
    results = run(args.frames, args.seed, args.replay_games)
    print(format_table(results))
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"JSON: {args.json}")


if __name__ == "__main__":
    main()
