"""Draws the shipped agents' learning curves from the ``--json`` files of their training runs.

Each ``mancala-envs train --self-play --json PATH`` run keeps, after every rollout, the learner's mean
score in its last 200 games against each baseline of its pool and the pool's ratings (``"curve"``). This
script prints a Markdown table of those points at a few step counts and draws the scores against
``alphabeta:2`` over training time, one line per game.

Usage::

    python docs/selfplay_curves.py ouril.json urim.json ... --plot docs/img/selfplay-curves.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

MILESTONES = (1_000_000, 2_000_000, 4_000_000, 8_000_000, 12_000_000, 16_000_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="the --json files of the training runs")
    parser.add_argument("--plot", default=None, help="write the PNG here")
    parser.add_argument("--baseline", default="alphabeta:2", help="the baseline of the plot (default: alphabeta:2)")
    args = parser.parse_args()
    runs = [json.loads(Path(path).read_text(encoding="utf-8")) for path in args.runs]
    print("| Game | Steps | Minutes | Score vs greedy | Score vs alphabeta:2 | Rating: learner / alphabeta:2 |")
    print("|---|---:|---:|---:|---:|---|")
    for run in runs:
        curve = run["curve"]
        points = [next((p for p in curve if p["timesteps"] >= m), None) for m in MILESTONES] + [curve[-1]]
        seen = set()
        for point in points:
            if point is None or point["timesteps"] in seen:
                continue
            seen.add(point["timesteps"])
            learner = point["rating/learner"][0]
            searcher = point.get("rating/alphabeta:2", [float("nan")])[0]
            print(
                f"| {run['game']} | {point['timesteps'] / 1e6:.1f}M | {point['seconds'] / 60:.1f} | "
                f"{100 * (point.get('score/greedy') or 0):.0f}% | {100 * (point.get('score/alphabeta:2') or 0):.0f}% | "
                f"{learner:.1f} / {searcher:.1f} |"
            )
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axis = plt.subplots(figsize=(7, 4), dpi=120)
        for run in runs:
            curve = [p for p in run["curve"] if p.get(f"score/{args.baseline}") is not None]
            axis.plot(
                [p["seconds"] / 60 for p in curve],
                [100 * p[f"score/{args.baseline}"] for p in curve],
                label=run["game"],
            )
        axis.axhline(55, color="grey", linestyle="--", linewidth=1)
        axis.set_xlabel("training time (minutes, one core)")
        axis.set_ylabel(f"score vs {args.baseline}, last 200 games (%)")
        axis.set_ylim(0, 100)
        axis.legend()
        axis.grid(alpha=0.3)
        figure.tight_layout()
        figure.savefig(args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
