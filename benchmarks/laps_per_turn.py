"""Distribution of laps per turn in random Rio Kadalis play (relay sowing).

Plays seeded random games through the environment and reads ``infos["laps"]``
after every turn. Prints a table per configuration and writes JSON. For Omweso
(laps, mid-turn decision points, annulments, results) see ``omweso_turns.py``.

    python benchmarks/laps_per_turn.py --games 2000
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

import mancala_envs

CONFIGS = {
    "2x6 ccw immediate": {},
    "2x6 end_of_lap": {"four_timing": "end_of_lap"},
    "2x5": {"pits_per_row": 5},
    "2x6 cw": {"direction": "cw"},
}


def laps_distribution(options: dict, games: int, seed: int) -> dict:
    """Plays ``games`` random games; returns turns, mean, median, p99, max laps and the end reasons."""
    env = mancala_envs.make("rio_kadalis_v0", **options)
    rng = np.random.default_rng(seed)
    laps: list[int] = []
    reasons: Counter[str] = Counter()
    for game in range(games):
        env.reset(seed=seed + game)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _info = env.last()
            if terminated or truncated:
                reasons[env.facts()["end_reason"]] += agent == "player_0"
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            laps.append(env.infos[agent]["laps"])
    values = np.array(laps)
    return {
        "turns": int(values.size),
        "mean": float(values.mean()),
        "median": float(np.median(values)),
        "p99": float(np.percentile(values, 99)),
        "max": int(values.max()),
        "end_reasons": dict(reasons),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=Path(__file__).parent / "results" / "laps_per_turn.json")
    args = parser.parse_args()
    results = {name: laps_distribution(options, args.games, args.seed) for name, options in CONFIGS.items()}
    print(f"{'config':22s} {'turns':>8s} {'mean':>6s} {'median':>6s} {'p99':>5s} {'max':>5s}  end reasons")
    for name, r in results.items():
        print(
            f"{name:22s} {r['turns']:8d} {r['mean']:6.2f} {r['median']:6.1f} {r['p99']:5.1f} {r['max']:5d}  "
            f"{r['end_reasons']}"
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"games": args.games, "seed": args.seed, "results": results}, indent=2))


if __name__ == "__main__":
    main()
