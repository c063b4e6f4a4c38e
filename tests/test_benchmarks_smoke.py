"""Smoke test of ``benchmarks/bench_env.py``: it runs end to end and writes complete JSON.

No speed is asserted here (speed is measured, as ratios, by the benchmark
itself). The run takes about 40 s on 2 cores, nearly all of it the two cold start-ups
that compile the engine into an empty numba cache.
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

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_env.py"
STARTUP_FIELDS = ("import_s", "make_s", "reset_s", "first_step_s", "total_s", "process_s")
MACHINE_FIELDS = ("cpu_count", "python", "numpy", "numba", "pettingzoo")


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_env", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _positive(value: object, where: str) -> None:
    assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where} is not a number: {value!r}"
    assert math.isfinite(value) and value > 0, f"{where} must be a positive number (got {value!r})"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load_bench()


def test_connect_four_is_available(bench: ModuleType) -> None:
    """The peer env must build; a missing pygame-ce is a failure, not a skip."""
    try:
        env = bench.make_env(bench.PEER)
    except RuntimeError as error:
        pytest.fail(f"the benchmark's peer cannot be built: {error}")
    env.close()


def test_missing_pygame_gives_install_hint() -> None:
    """Without pygame the benchmark stops with a message naming the fix."""
    probe = (
        "import sys; sys.modules['pygame'] = None\n"
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('bench_env', {str(SCRIPT)!r})\n"
        "bench = sys.modules['bench_env'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(bench)\n"
        "try:\n"
        "    bench.make_env(bench.PEER)\n"
        "except RuntimeError as error:\n"
        "    print(error)\n"
        "else:\n"
        "    print('built without pygame')\n"
    )
    child = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    assert "pip install -e '.[bench]'" in child.stdout, child.stdout


def test_quick_run_writes_every_field(tmp_path: Path, bench: ModuleType) -> None:
    out = tmp_path / "bench.json"
    command = [sys.executable, str(SCRIPT), "--quick", "--repeats", "2", "--seconds", "0.05", "--json", str(out)]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    if child.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed (exit {child.returncode}):\n{child.stderr[-4000:]}")
    assert "PettingZoo AEC loop" in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))

    for field in MACHINE_FIELDS:
        assert results["machine"][field], f"machine.{field} is missing"
    _positive(results["machine"]["cpu_count"], "machine.cpu_count")
    assert results["settings"]["quick"] is True
    _positive(results["benchmark_seconds"], "benchmark_seconds")

    loop = results["pettingzoo_loop"]
    assert loop["peer"] == bench.PEER
    assert set(loop["envs"]) == {bench.PEER, *bench.GAMES}
    for field in ("steps_per_s", "us_per_step", "max_ratio_vs_peer"):
        _positive(loop["loop_only"][field], f"pettingzoo_loop.loop_only.{field}")
    for name, entry in loop["envs"].items():
        for field in ("steps_per_s", "us_per_step", "plies_per_s", "steps_per_episode", "cpu_share"):
            _positive(entry[field], f"pettingzoo_loop.{name}.{field}")
        assert len(entry["runs"]) == 2
        if name != bench.PEER:
            _positive(entry["ratio_vs_peer"], f"pettingzoo_loop.{name}.ratio_vs_peer")
            _positive(entry["plies_ratio_vs_peer"], f"pettingzoo_loop.{name}.plies_ratio_vs_peer")
            assert len(entry["ratios_vs_peer"]) == 2
            assert isinstance(entry["target_met"], bool)

    for measure in ("engine", "rollout"):
        assert set(results[measure]["games"]) == set(bench.GAMES)
        for name, entry in results[measure]["games"].items():
            _positive(entry["plies_per_s"], f"{measure}.{name}.plies_per_s")
            _positive(entry["target_plies_per_s"], f"{measure}.{name}.target_plies_per_s")
            assert isinstance(entry["target_met"], bool)
            for run in entry["runs"]:
                _positive(run["plies"], f"{measure}.{name}.runs[].plies")
                _positive(run["seconds"], f"{measure}.{name}.runs[].seconds")

    assert set(results["startup"]["games"]) == set(bench.GAMES[:1])  # --quick: the first game only
    for name, entry in results["startup"]["games"].items():
        for kind in ("cold", "warm"):
            for field in STARTUP_FIELDS:
                _positive(entry[kind][field], f"startup.{name}.{kind}.{field}")
