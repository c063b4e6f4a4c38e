"""Smoke test of ``benchmarks/bench_kalah_solve.py``: its quick run solves the small published Kalah cells, each
in its own process from an empty tables folder, builds a small table layer by layer, and writes every field.

No time is asserted (the figures in ``docs/solved.md`` come from the full runs); the values are: every quick cell
agrees with Irving, Donkers & Uiterwijk (2000), and the layers add up to the table.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_kalah_solve.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_kalah_solve", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_published_grid_and_agreement(bench: ModuleType) -> None:
    assert bench.PUBLISHED[(4, 3, "empty")][0] == 8
    assert bench.PUBLISHED[(4, 3, "standard")][0] == 6
    assert bench.PUBLISHED[(6, 4, "empty")][0] == 10
    assert bench.PUBLISHED[(6, 5, "standard")][0] == 10
    assert bench.PUBLISHED[(3, 6, "empty")][0] == "L"
    assert sum(1 for key in bench.PUBLISHED if key[2] == "empty") == 36
    assert bench.agrees(3, "W") and not bench.agrees(0, "W") and bench.agrees(-1, "L") and not bench.agrees(1, "L")
    assert bench.agrees(0, 0) and not bench.agrees(2, 0)
    assert bench.grid_cells(12, 3)[:3] == [(1, 1, "empty"), (1, 2, "empty"), (2, 1, "empty")]
    assert (6, 4, "standard") in bench.grid_cells(48, 6) and (6, 5, "empty") not in bench.grid_cells(48, 6)


def test_quick_run_agrees_with_the_literature_and_writes_every_field(tmp_path: Path, bench: ModuleType) -> None:
    out = tmp_path / "quick.json"
    environment = dict(os.environ, MANCALA_ENVS_TABLES=str(tmp_path / "unused"))
    command = [sys.executable, str(SCRIPT), "--quick", "--json", str(out)]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=environment, check=False)
    assert child.returncode == 0, f"`{' '.join(command)}` failed (exit {child.returncode}):\n{child.stderr[-4000:]}"
    assert "| Kalah(m, n) | Rule | Margin |" in child.stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    cells = report["cells"]
    assert [(c["pits"], c["seeds"], c["rule"]) for c in cells] == bench.grid_cells(*bench.QUICK_CELLS)
    assert len(cells) == 11
    for cell in cells:
        assert cell["agrees"] is True, cell
        assert cell["positions"] >= 1 and cell["peak_memory_bytes"] > 0
        assert cell["seconds"] == pytest.approx(cell["table_seconds"] + cell["search_seconds"])
    assert {(c["pits"], c["seeds"]): c["margin"] for c in cells}[(2, 2)] == -2
    layers = report["layers"]
    pits, max_seeds = bench.QUICK_TABLE
    assert layers["positions"] == 2 * math.comb(max_seeds + 2 * pits, 2 * pits) == layers["bytes"]
    assert [layer["seeds"] for layer in layers["layers"]] == list(range(max_seeds + 1))
    assert sum(layer["positions"] for layer in layers["layers"]) == layers["positions"]
    assert not (tmp_path / "unused").exists()  # every cell used its own temporary folder
