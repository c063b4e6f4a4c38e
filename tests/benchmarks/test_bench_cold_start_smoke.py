"""Smoke tests of ``benchmarks/bench_cold_start.py``: it measures, writes complete JSON and prints the table.

No speed is asserted here (the benchmark measures it, as ratios to Pgx). One real measurement runs:
Ouril's PettingZoo env, once cold (an empty numba cache: numba compiles what it reaches, about 10-20 s
on 2 cores) and once warm, with the Pgx peer blocked in this process so that its "skipped" row is
checked whether or not pgx is installed (pgx and jax are not needed here). The rest replaces the
child processes with fixed figures: ratios, targets and every kind of row, in no time.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from support.benchmark_results import assert_positive

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_cold_start.py"
PHASES = ("import_s", "make_s", "reset_s", "first_step_s", "total_s", "process_s")
UNKNOWN_GAME = "no_such_game_v0"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_cold_start", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_script_runs_as_a_script() -> None:
    child = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert child.returncode == 0, child.stderr
    for option in ("--games", "--entry-points", "--repeats", "--out", "--quick", "--train"):
        assert option in child.stdout


def test_one_entry_point_cold_and_warm_without_pgx(
    tmp_path: Path, bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real cold and warm start of Ouril's PettingZoo env; the peer skipped as if pgx were not installed."""
    monkeypatch.setitem(sys.modules, "pgx", None)  # `import pgx` fails and find_spec("pgx") is None
    out = tmp_path / "cold.json"
    results = bench.main(
        ["--games", "ouril_v0", UNKNOWN_GAME, "--entry-points", "pettingzoo", "--repeats", "1", "--out", str(out)]
    )
    table = capsys.readouterr().out
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(results))

    for key in ("cpu_count", "python", "numba", "numpy", "gymnasium"):
        assert results["machine"][key], f"machine.{key} is missing"
    assert "pgx" in results["machine"] and "jax" in results["machine"]
    settings = results["settings"]
    assert settings["games"] == ["ouril_v0", UNKNOWN_GAME] and settings["entry_points"] == ["pettingzoo"]
    assert settings["repeats"] == 1 and settings["train"] is False
    assert results["targets"] == {"cold_ratio_vs_pgx": 4.0, "warm_s": 1.0}
    assert_positive(results["benchmark_seconds"], "benchmark_seconds")
    assert "ouril_v0" in results["registry"]["envs"]

    peer = results["peer"]
    assert peer["entry_point"] == bench.PEER and peer["status"] == "not available"
    assert "Pgx peer skipped" in peer["message"] and "pgx not installed" in peer["message"]
    assert 'pip install pgx "jax[cpu]"' in peer["message"]
    assert "cold" not in peer

    ouril, unknown = results["rows"]
    assert (ouril["entry_point"], ouril["game"], ouril["status"]) == ("pettingzoo", "ouril_v0", "ok")
    for which in ("cold", "warm"):
        for phase in PHASES:
            assert_positive(ouril[which][phase], f"{which}.{phase}")
        assert ouril[which]["total_s"] < ouril[which]["process_s"]
        expected_cpus = None if settings["cpu"] < 0 else [settings["cpu"]]
        assert ouril[which]["pinned_cpus"] == expected_cpus
    assert ouril["cold_s"] == ouril["cold"]["total_s"] and ouril["warm_s"] == ouril["warm"]["total_s"]
    assert ouril["cold_s"] > ouril["warm_s"]  # the cold start compiled into the empty cache, the warm one loaded it
    assert_positive(ouril["cache_bytes"], "cache_bytes")
    assert ouril["warm_recompiled"] == 0, "the warm start compiled again: did the sources change during the test?"
    (run,) = ouril["runs"]
    assert run["cache_files_after_cold"] == run["cache_files_after_warm"] > 0
    assert len(ouril["runs"]) == 1
    assert ouril["ratio_vs_pgx"] is None and ouril["target_ratio_met"] is None
    assert isinstance(ouril["target_warm_met"], bool)

    assert (unknown["game"], unknown["status"]) == (UNKNOWN_GAME, "not available")
    assert "mancala_envs.make does not know it" in unknown["message"]
    assert "cold" not in unknown

    assert "| entry point | game | cold s | warm s | cold / Pgx |" in table
    assert f"| PettingZoo `mancala_envs.make` | ouril_v0 | {ouril['cold_s']:.2f} | {ouril['warm_s']:.2f} | — |" in table
    assert f"| {UNKNOWN_GAME} | not available: " in table
    assert "Note: Pgx peer skipped" in table
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cold.json"]


# --- without child processes ----------------------------------------------------------------------------------

COLD = {"peer": 2.0, "pettingzoo": 8.0, "gymnasium": 9.0, "batch": 12.0, "train": 30.0}
WARM = {"peer": 1.5, "pettingzoo": 0.5, "gymnasium": 0.6, "batch": 1.2, "train": 4.0}


def _fake_child(kind: str, arg: str, n: int, cpu: int, environment: dict[str, str], timeout: float) -> dict[str, Any]:
    """Fixed figures: cold while the cache directory is empty (it gets a marker file), warm after."""
    variable = "JAX_COMPILATION_CACHE_DIR" if kind == "pgx/connect_four" else "NUMBA_CACHE_DIR"
    marker = Path(environment[variable]) / "compiled"
    cold = not marker.exists()
    marker.write_text("x")
    total = (COLD if cold else WARM)["peer" if kind == "pgx/connect_four" else kind]
    reset = None if kind == "train" else 0.1 * total
    figures = {
        "import_s": 0.1 * total,
        "make_s": 0.4 * total,
        "reset_s": reset,
        "first_step_s": 0.4 * total,
        "total_s": total,
        "process_s": total + 0.2,
        "pinned_cpus": [cpu],
    }
    return figures | ({"compile_s": 0.3 * total} if kind == "train" else {})


def _fake_registry(timeout: float = 0) -> dict[str, Any]:
    return {"envs": ["ouril_v0", "mancala/ouril-v0"], "gymnasium": ["mancala/Ouril-v0"]}


def test_ratios_targets_and_rows(tmp_path: Path, bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "run_child", _fake_child)
    monkeypatch.setattr(bench, "probe_registry", _fake_registry)
    monkeypatch.setattr(bench, "peer_missing", lambda: None)
    monkeypatch.setattr(bench, "train_missing", lambda: None)
    args = bench.Args(
        games=("ouril_v0", "kalah_v0"),
        entry_points=("pettingzoo", "gymnasium", "batch"),
        repeats=3,
        train=True,
        cpu=0,
        out=tmp_path / "cold.json",
    )
    results = bench.run_benchmark(args)

    peer = results["peer"]
    assert (peer["status"], peer["cold_s"], peer["warm_s"], peer["batch"]) == ("ok", 2.0, 1.5, bench.PEER_BATCH)
    assert len(peer["runs"]) == 3 and "ratio_vs_pgx" not in peer
    rows = {(row["entry_point"], row["game"]): row for row in results["rows"]}
    assert list(rows) == [
        ("pettingzoo", "ouril_v0"),
        ("gymnasium", "ouril_v0"),
        ("batch", "ouril_v0"),
        ("pettingzoo", "kalah_v0"),
        ("gymnasium", "kalah_v0"),
        ("batch", "kalah_v0"),
    ]
    pettingzoo, batch = rows["pettingzoo", "ouril_v0"], rows["batch", "ouril_v0"]
    assert (pettingzoo["cold_s"], pettingzoo["warm_s"], pettingzoo["ratio_vs_pgx"]) == (8.0, 0.5, 4.0)
    assert pettingzoo["ratios_vs_pgx"] == [4.0] * 3 and pettingzoo["warm_ratio_vs_pgx"] == pytest.approx(1 / 3)
    assert pettingzoo["target_ratio_met"] is True and pettingzoo["target_warm_met"] is True
    assert (batch["ratio_vs_pgx"], batch["target_ratio_met"], batch["target_warm_met"]) == (6.0, False, False)
    assert batch["num_envs"] == bench.NUM_ENVS
    assert rows["gymnasium", "ouril_v0"]["id"] == "mancala/Ouril-v0"
    for entry_point in ("pettingzoo", "gymnasium", "batch"):
        row = rows[entry_point, "kalah_v0"]
        assert row["status"] == "not available" and "'kalah_v0' is not registered" in row["message"]

    train = results["train"]
    assert (train["entry_point"], train["game"], train["status"]) == ("train", "ouril_v0", "ok")
    assert (train["cold_s"], train["ratio_vs_pgx"], train["cold"]["reset_s"]) == (30.0, 15.0, None)
    assert train["cold"]["compile_s"] == pytest.approx(9.0)

    table = bench.format_table(results)
    assert "| Pgx `connect_four`, 1024 games (peer) | connect_four | 2.00 | 1.50 | 1.00x | peer |" in table
    assert "| PettingZoo `mancala_envs.make` | ouril_v0 | 8.00 | 0.50 | 4.00x | yes | yes |" in table
    assert f"| `BatchedGames`, {bench.NUM_ENVS} games | ouril_v0 | 12.00 | 1.20 | 6.00x | NO | NO |" in table
    assert "| `mancala-envs train` to 1st step | ouril_v0 | 30.00 | 4.00 | 15.00x | NO | NO |" in table
    assert "| Gymnasium `gymnasium.make` | kalah_v0 | not available: 'kalah_v0' is not registered" in table
    assert not bench._failed(results) and pettingzoo["warm_recompiled"] == 0
    assert "Warning: the warm start compiled again" not in table


def test_failures_become_rows(bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A child that fails gives an "error" row, a peer that does not import a "not available" row, no train
    extra a "not available" training row; the run goes on."""

    def child(kind: str, arg: str, n: int, cpu: int, environment: dict[str, str], timeout: float) -> dict[str, Any]:
        if kind == "pgx/connect_four":
            return {"unavailable": "ImportError: cannot import name 'x' from 'jax'"}
        if kind == "batch":
            return {"error": "exit 1: RuntimeError: boom", "stderr": "Traceback ...\nRuntimeError: boom"}
        cache = Path(environment["NUMBA_CACHE_DIR"])
        if (cache / "compiled").exists():
            (cache / "compiled-again").write_text("x")  # the warm start compiled again
        return _fake_child(kind, arg, n, cpu, environment, timeout)

    monkeypatch.setattr(bench, "run_child", child)
    monkeypatch.setattr(bench, "probe_registry", _fake_registry)
    monkeypatch.setattr(bench, "peer_missing", lambda: None)
    monkeypatch.setattr(bench, "train_missing", lambda: "needs the train extra (sb3_contrib not installed)")
    results = bench.run_benchmark(
        bench.Args(
            games=("ouril_v0",),
            entry_points=("pettingzoo", "batch"),
            repeats=2,
            train=True,
            cpu=-1,
            out=tmp_path / "cold.json",
        )
    )
    assert results["peer"]["status"] == "not available"
    assert "does not import (ImportError: cannot import name 'x' from 'jax')" in results["peer"]["message"]
    pettingzoo, batch = results["rows"]
    assert pettingzoo["status"] == "ok" and pettingzoo["ratio_vs_pgx"] is None and len(pettingzoo["runs"]) == 2
    assert pettingzoo["warm_recompiled"] == 2
    assert batch["status"] == "error" and batch["message"] == "cold start failed: exit 1: RuntimeError: boom"
    assert batch["stderr"] == "Traceback ...\nRuntimeError: boom"
    assert results["train"]["status"] == "not available" and "train extra" in results["train"]["message"]
    assert bench._failed(results) == [batch]
    table = bench.format_table(results)
    assert "| `BatchedGames`, 8 games | ouril_v0 | error: cold start failed: exit 1: RuntimeError: boom |" in table
    assert (
        "Warning: the warm start compiled again (new cache files) for PettingZoo `mancala_envs.make` ouril_v0" in table
    )


def test_a_package_that_does_not_import_gives_error_rows(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(bench, "run_child", _fake_child)
    monkeypatch.setattr(bench, "probe_registry", lambda timeout=0: {"error": "mancala_envs does not import (exit 1)"})
    monkeypatch.setattr(bench, "peer_missing", lambda: None)
    results = bench.run_benchmark(
        bench.Args(games=("ouril_v0",), entry_points=("batch",), repeats=1, cpu=0, out=tmp_path / "cold.json")
    )
    assert results["peer"]["status"] == "ok"
    (row,) = results["rows"]
    assert (row["status"], row["message"]) == ("error", "mancala_envs does not import (exit 1)")
    assert bench._failed(results) == [row]


def test_gymnasium_ids_and_option_checks(bench: ModuleType) -> None:
    assert bench.gymnasium_id("ouril_v0") == "mancala/Ouril-v0"
    assert bench.gymnasium_id("kalah_v0") == "mancala/Kalah-v0"
    assert bench.gymnasium_id("rio_kadalis_v0") == "mancala/RioKadalis-v0"
    assert bench.gymnasium_id("mancala/Omweso-v0") == "mancala/Omweso-v0"
    quick = bench.parse_args(["--quick"]).resolved()
    assert (quick.games, quick.entry_points, quick.repeats) == (("ouril_v0",), ("pettingzoo",), 1)
    full = bench.parse_args([]).resolved()
    assert (full.games, full.entry_points, full.repeats) == (bench.GAMES, bench.ENTRY_POINTS, 3)
    with pytest.raises(SystemExit):
        bench.parse_args(["--entry-points", "rllib"])
    with pytest.raises(ValueError, match="--repeats"):
        bench.measure(bench.Args(repeats=0))
