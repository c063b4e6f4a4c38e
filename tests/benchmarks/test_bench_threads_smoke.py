"""A smoke run of ``benchmarks/bench_threads.py``: every field is written (speed is never asserted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_threads.py"


def test_tiny_run_writes_every_field(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_threads", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # dataclasses look their module up while the class is built
    spec.loader.exec_module(bench)
    out = tmp_path / "threads.json"
    results = bench.main(
        [
            "--quick",
            "--repeats",
            "1",
            "--seconds",
            "0.02",
            "--batch-size",
            "16",
            "--num-envs",
            "16",
            "--threads",
            "1",
            "2",
            "--json",
            str(out),
        ]
    )
    assert out.exists()
    assert list(results["play_random"]) == list(bench.GAMES) == list(results["vector"])
    for entry in results["play_random"].values():
        assert set(entry["plies_per_s"]) == {"1", "2"} and entry["plies_per_s"]["1"]["ratio"] == 1.0
        assert entry["ns_per_ply_1_thread"] > 0 and entry["row_bytes"] > 0 and entry["plies_per_game"] > 0
    for entry in results["vector"].values():
        assert entry["steps_per_s"]["2"]["per_s"] > 0 and 0 < entry["compiled_share_1_thread"] <= 1
    assert results["memory_copy_bytes_per_s"] > 0
