"""A smoke run of ``benchmarks/bench_alphazero.py``: every field is written (speed is never asserted)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from support.benchmark_results import assert_positive

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_alphazero.py"


def test_tiny_run_writes_every_field(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_alphazero", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    out = tmp_path / "alphazero.json"
    argv = ["--batch", "3", "--simulations", "4", "--hidden", "8", "--repeats", "2", "--selfplay-games", "2"]
    returned = bench.main([*argv, "--json", str(out)])
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["settings"] == json.loads(json.dumps(returned["settings"]))
    for field in ("cpu_count", "cpus_usable", "python", "numpy", "numba"):
        assert results["machine"][field], f"machine.{field} is missing"
    settings = results["settings"]
    assert (settings["game"], settings["batch"], settings["simulations"], settings["hidden"]) == ("kalah_v0", 3, 4, [8])
    assert (settings["repeats"], settings["selfplay_games"], settings["encoding"]) == (2, 2, "one_hot")
    assert list(results["search"]) == ["batched", "one_at_a_time", "tree_only"]
    for name, entry in results["search"].items():
        assert_positive(entry["simulations_per_s"], f"search.{name}.simulations_per_s")
        assert len(entry["runs"]) == 2
        for run in entry["runs"]:
            assert_positive(run["seconds"], f"search.{name}.runs[].seconds")
            assert run["simulations_per_s"] == 3 * 4 / run["seconds"]
    assert len(results["ratios_per_repeat"]) == 2
    assert_positive(results["ratio_batched_over_one_at_a_time"], "ratio_batched_over_one_at_a_time")
    selfplay = results["selfplay"]
    assert selfplay["games"] == 2
    for field in ("seconds", "games_per_hour", "plies_per_game", "simulations_per_s"):
        assert_positive(selfplay[field], f"selfplay.{field}")
    assert selfplay["games_per_hour"] == 3600 * 2 / selfplay["seconds"]
    assert_positive(results["benchmark_seconds"], "benchmark_seconds")
