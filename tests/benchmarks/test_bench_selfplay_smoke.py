"""A smoke run of ``benchmarks/bench_selfplay.py``: every field is written (speed is never asserted)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from support.benchmark_results import assert_positive

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_selfplay.py"
TINY = [
    "--n-envs",
    "2",
    "4",
    "--steps",
    "16",
    "--repeats",
    "2",
    "--snapshots",
    "2",
    "--timesteps",
    "128",
    "--rollout",
    "128",
    "--refresh-every",
    "64",
    "--pool-size",
    "2",
    "--net-arch",
    "16",
    "16",
]


def _share(value: object, where: str) -> None:
    assert_positive(value, where)
    assert value < 1, f"{where} is a share of a wall time, below 1 (got {value!r})"


def test_tiny_run_writes_every_field(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="the benchmark needs the train extra")
    pytest.importorskip("openskill", reason="batched self-play needs the train extra")
    spec = importlib.util.spec_from_file_location("bench_selfplay", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # dataclasses look their module up while the class is built
    spec.loader.exec_module(bench)
    out = tmp_path / "selfplay.json"
    returned = bench.main([*TINY, "--json", str(out)])
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["env_only"] == json.loads(json.dumps(returned["env_only"]))

    for field in ("cpu_count", "cpus_usable", "python", "numpy", "numba", "torch", "sb3-contrib", "openskill"):
        assert results["machine"][field], f"machine.{field} is missing"
    settings = results["settings"]
    assert (settings["game"], settings["n_envs"], settings["repeats"], settings["snapshots"]) == (
        "ouril_v0",
        [2, 4],
        2,
        2,
    )
    assert settings["net_arch"] == [16, 16] and settings["encoding"] == "flat" and settings["target_ratio"] == 10.0
    assert settings["n_steps"] == {"2": 64, "4": 32}

    for measure in ("env_only", "training"):
        assert list(results[measure]) == ["2", "4"]
        for n, entry in results[measure].items():
            where = f"{measure}[{n}]"
            for path in ("per_env", "batched"):
                assert_positive(entry[path]["steps_per_s"], f"{where}.{path}.steps_per_s")
                runs = entry[path]["runs"]
                assert len(runs) == (2 if measure == "env_only" else 1)
                for run in runs:
                    assert_positive(run["seconds"], f"{where}.{path}.seconds")
                    assert_positive(run["steps_per_s"], f"{where}.{path}.runs[].steps_per_s")
            assert_positive(entry["ratio"], f"{where}.ratio")
            assert len(entry["ratios_per_repeat"]) == len(entry["batched"]["runs"])
            assert entry["target_met"] == (entry["ratio"] >= 10.0)
        for n, entry in results["env_only"].items():
            for path in ("per_env", "batched"):
                assert all(run["steps"] == 16 and run["cpu_seconds"] >= 0 for run in entry[path]["runs"])
            _share(entry["batched"]["opponent_share"], f"env_only[{n}].batched.opponent_share")
        for n, entry in results["training"].items():
            for path in ("per_env", "batched"):
                _share(entry[path]["env_share"], f"training[{n}].{path}.env_share")
                for run in entry[path]["runs"]:
                    assert run["timesteps"] >= 128 and run["env_share"] == run["env_seconds"] / run["seconds"]
            batched = entry["batched"]
            _share(batched["opponent_share"], f"training[{n}].batched.opponent_share")
            assert batched["opponent_share"] <= batched["env_share"]  # the opponents' moves are part of the env's time
    assert_positive(results["benchmark_seconds"], "benchmark_seconds")
