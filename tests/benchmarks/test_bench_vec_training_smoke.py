"""Smoke test of ``benchmarks/bench_vec_training.py``: ``--quick`` runs end to end and writes complete JSON.

No speed is asserted (the benchmark measures it). The run takes 15-60 s on 2 cores: four vector envs,
eight worker processes, a warm-up and two timed rollouts of MaskablePPO each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.benchmark_results import assert_positive

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_vec_training.py"
KINDS = {
    "batched_64": ("batched", 64, 32),
    "subproc_8": ("subproc", 8, 256),
    "dummy_8": ("dummy", 8, 256),
    "dummy_64": ("dummy", 64, 32),
}


def test_quick_run_writes_every_field(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="the benchmark needs the train extra")
    out = tmp_path / "vec.json"
    command = [sys.executable, str(SCRIPT), "--quick", "--json", str(out)]
    child = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ), check=False
    )
    if child.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed (exit {child.returncode}):\n{child.stderr[-4000:]}")
    assert "batched / SubprocVecEnv(8), training:" in child.stdout
    assert "SubprocVecEnv runs 8 worker processes" in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))

    for field in ("cpu_count", "cpus_usable", "python", "numpy", "numba", "torch", "stable-baselines3", "sb3-contrib"):
        assert results["machine"][field], f"machine.{field} is missing"
    settings = results["settings"]
    assert settings["quick"] is True and settings["repeats"] == 2 and settings["timesteps"] == 2048
    assert (settings["env_id"], settings["opponent"], settings["rollout_steps"]) == ("ouril_v0", "random", 2048)
    assert settings["ppo"] == {
        "learning_rate": 3e-4,
        "batch_size": 256,
        "n_epochs": 4,
        "gamma": 0.99,
        "ent_coef": 0.01,
        "net_arch": [64, 64],
    }
    assert "8 worker processes" in results["note"]

    assert set(results["kinds"]) == set(KINDS)
    for name, (vec_env, n_envs, n_steps) in KINDS.items():
        entry = results["kinds"][name]
        assert (entry["vec_env"], entry["n_envs"], entry["n_steps"]) == (vec_env, n_envs, n_steps)
        for measure in ("training", "env_only"):
            assert_positive(entry[measure]["steps_per_s"], f"{name}.{measure}.steps_per_s")
            assert_positive(entry[measure]["us_per_step"], f"{name}.{measure}.us_per_step")
            assert len(entry[measure]["runs"]) == 2
            for run in entry[measure]["runs"]:
                assert_positive(run["seconds"], f"{name}.{measure}.runs[].seconds")
                assert_positive(run["steps_per_s"], f"{name}.{measure}.runs[].steps_per_s")
        assert [run["timesteps"] for run in entry["training"]["runs"]] == [2048, 2048]
        for run in entry["training"]["runs"]:
            assert_positive(run["env_seconds"], f"{name}.training.runs[].env_seconds")
            assert run["env_share"] == run["env_seconds"] / run["seconds"] and 0 < run["env_share"] < 1
        assert 0 < entry["env_share_timed"] < 1
        assert all(run["steps"] % n_envs == 0 for run in entry["env_only"]["runs"])
        assert_positive(entry["env_share_estimate"], f"{name}.env_share_estimate")

    for field in (
        "training_ratio_vs_subproc",
        "env_only_ratio_vs_subproc",
        "training_ratio_vs_same_shape",
        "env_only_ratio_vs_same_shape",
        "benchmark_seconds",
    ):
        assert_positive(results[field], field)
    assert len(results["training_ratios_per_repeat"]) == 2
    assert isinstance(results["target_met"], bool)
    assert results["target_met"] == (results["training_ratio_vs_subproc"] >= 3.0)
