"""Smoke test of ``benchmarks/bench_perfect_kalah.py``: its quick run (Kalah(4,3), 2 games against each of two
opponents, the whole table built into an empty folder) plays every game to its end and writes every field.

No time is asserted (the figures of issue 32 come from the full run on Kalah(6,4)); the bookkeeping is: every game
and every one of ``perfect``'s moves is counted once, and perfect, first or second, never loses Kalah(4,3) by more
than its value (+6 for the first player) against these opponents.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_perfect_kalah.py"


def test_quick_run_plays_every_game_and_writes_every_field(tmp_path: Path) -> None:
    out = tmp_path / "quick.json"
    environment = dict(os.environ, MANCALA_ENVS_TABLES=str(tmp_path / "unused"))
    command = [sys.executable, str(SCRIPT), "--quick", "--tables", str(tmp_path / "tables"), "--json", str(out)]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=environment)
    assert child.returncode == 0, child.stderr[-4000:]
    results = json.loads(out.read_text())
    assert results["config"]["pits_per_row"] == 4 and results["config"]["seeds_per_pit"] == 3
    assert results["table"]["max_seeds"] == 24  # Kalah(4,3)'s whole table, built into the folder given
    assert sorted(path.suffix for path in (tmp_path / "tables").iterdir()) == [".json", ".npy"]
    assert not (tmp_path / "unused").exists()
    games = results["games"]
    assert [(g["opponent"], g["game"], g["seat"]) for g in games] == [
        ("alphabeta:2", 0, 0), ("greedy", 0, 0), ("alphabeta:2", 1, 1), ("greedy", 1, 1)
    ]  # fmt: skip
    moves = sum(len(g["move_seconds"]) for g in games)
    assert moves > 0 and results["moves"]["moves"] == moves
    assert results["moves"]["median_s"] <= results["moves"]["p90_s"] <= results["moves"]["max_s"]
    for name, row in results["by_opponent"].items():
        assert row["games"] == 2 and row["win"] + row["draw"] + row["loss"] == 2, name
    for game in games:
        lead = game["scores"][0] - game["scores"][1]
        assert lead >= (6 if game["seat"] == 0 else -6) and sum(game["scores"]) == 24
    assert "median s" in child.stdout and "alphabeta:2" in child.stdout
