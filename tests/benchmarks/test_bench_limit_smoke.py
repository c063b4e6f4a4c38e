"""Smoke test of ``benchmarks/bench_limit.py``: it compiles the C reference engines, checks them
against ours and writes every field. No speed is asserted (the benchmark measures it, as ratios)."""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_limit.py"
RATES = (
    "ours_batched_ouril",
    "ours_batched_ouril_no_repetition",
    "ours_batched_kalah",
    "c_ouril",
    "c_kalah",
    "ours_loop_kalah",
    "loop_floor",
    "pyspiel_loop_mancala",
)
RATIOS = (
    "ouril_vs_c",
    "ouril_no_repetition_vs_c",
    "kalah_vs_c",
    "kalah_loop_vs_pyspiel",
    "kalah_batched_vs_pyspiel",
    "loop_floor_vs_pyspiel",
)


def test_quick_run_validates_the_c_engines_and_writes_every_field(tmp_path: Path) -> None:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (`cc`): bench_limit.py skips its comparison against C")
    pytest.importorskip("pyspiel", reason="open-spiel is not installed: bench_limit.py skips its comparison against it")
    out = tmp_path / "limit.json"
    command = [
        sys.executable,
        str(SCRIPT),
        "--repeats",
        "2",
        "--seconds",
        "0.05",
        "--validate-games",
        "50",
        "--length-games",
        "20000",
        "--json",
        str(out),
    ]
    child = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ), check=False
    )
    assert child.returncode == 0, f"`{' '.join(command)}` failed (exit {child.returncode}):\n{child.stderr[-4000:]}"
    assert "Against the limit and against OpenSpiel" in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))
    for name in ("ouril", "kalah"):
        check = results["validation"][name]
        assert check["replayed"] == 50 and check["mismatches"] == 0, check["examples"]
        assert check["length_ok"], check
    for key in RATES:
        assert math.isfinite(results["plies_per_s"][key]) and results["plies_per_s"][key] > 0, key
        assert len(results["runs"]["plies_per_s"][key]) == 2, key
    for key in RATIOS:
        assert math.isfinite(results["ratios"][key]) and results["ratios"][key] > 0, key
    assert results["targets"] == {"vs_c": 0.8, "loop_vs_pyspiel": 1.5, "batched_vs_pyspiel": 20.0}
    assert "cpu_count" in results["machine"]
    if results["threads_every_core"] > 1:  # batched Kalah on every core, against the same pyspiel loop
        every = results["runs"]["plies_per_s"]["ours_batched_kalah_every_core"]
        assert len(every) == 2 and all(rate > 0 for rate in every)
        assert results["ratios"]["kalah_batched_every_core_vs_pyspiel"] == pytest.approx(
            statistics.median(
                r / p for r, p in zip(every, results["runs"]["plies_per_s"]["pyspiel_loop_mancala"], strict=True)
            )
        )
