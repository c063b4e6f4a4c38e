"""Smoke tests of ``benchmarks/bench_throughput.py``: it runs end to end and writes complete JSON.

No speed is asserted here (speed is measured, as ratios, by the benchmark itself). The quick run
with tiny budgets takes about 20-40 s on 2 cores; the cold start-up, which compiles the whole
engine into an empty numba cache (minutes), is left to the full run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from support.benchmark_results import assert_positive

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_throughput.py"
MACHINE_FIELDS = ("cpu_count", "python", "numpy", "numba", "pettingzoo", "gymnasium", "open-spiel")
SUMMARY_FIELDS = ("steps_per_s", "plies_per_s", "us_per_step", "plies_per_game", "steps_per_game", "cpu_share")
STARTUP_FIELDS = ("import_s", "construct_s", "reset_s", "first_step_s", "total_s", "process_s")
MEMORY_FIELDS = (
    "state_bytes_per_game",
    "state_bytes",
    "baseline_rss_bytes",
    "reset_bytes",
    "step_bytes",
    "setup_peak_bytes",
    "peak_play_bytes",
    "after_play_bytes",
    "play_plies",
    "target_bytes",
    "step_bytes_at_target_games",
    "peak_play_bytes_at_target_games",
)


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_quick_run_writes_every_field(tmp_path: Path, bench: ModuleType) -> None:
    out = tmp_path / "throughput.json"
    command = [
        sys.executable,
        str(SCRIPT),
        "--quick",
        "--repeats",
        "2",
        "--seconds",
        "0.05",
        "--memory-games",
        "20000",
        "--json",
        str(out),
    ]
    child = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ), check=False
    )
    if child.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed (exit {child.returncode}):\n{child.stderr[-4000:]}")
    for heading in ("1. Engine", "2. Every game", "3. Environments", "4. Vector env", "5. Memory", "6. Start-up"):
        assert heading in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))

    for field in MACHINE_FIELDS:
        assert results["machine"][field], f"machine.{field} is missing"
    settings = results["settings"]
    assert settings["quick"] is True and settings["cold_startup"] is False
    assert (settings["repeats"], settings["seconds"], settings["memory_games"]) == (2, 0.05, 20000)
    assert_positive(results["benchmark_seconds"], "benchmark_seconds")

    contenders = results["round_robin"]["contenders"]
    expected = {f"batched/{name}" for name in bench.GAMES} | {f"pettingzoo/{name}" for name in bench.GAMES}
    expected |= {f"pettingzoo/{peer}" for peer in bench.ENV_PEERS} | {"engine/ouril_v0", "openspiel/oware"}
    assert set(contenders) == expected
    for name, summary in contenders.items():
        for field in SUMMARY_FIELDS:
            assert_positive(summary[field], f"round_robin.{name}.{field}")
        assert len(summary["runs"]) == 2
        for run in summary["runs"]:
            for field in ("steps", "plies", "games", "seconds", "cpu_seconds", "plies_per_s"):
                assert_positive(run[field], f"round_robin.{name}.runs[].{field}")
            assert run["plies"] <= run["steps"]

    engine = results["engine"]
    assert (engine["game"], engine["peer"], engine["batch_size"]) == ("ouril_v0", "openspiel/oware", 1024)
    assert list(engine["contenders"]) == ["batched", "engine_loop", "pettingzoo_loop", "openspiel"]
    for key, entry in engine["contenders"].items():
        assert_positive(entry["plies_per_s"], f"engine.{key}.plies_per_s")
        if key != "openspiel":
            assert_positive(entry["ratio_vs_openspiel"], f"engine.{key}.ratio_vs_openspiel")
            assert len(entry["ratios_vs_openspiel"]) == 2
    for field in ("ratio_batched_vs_openspiel", "target_ratio", "batched_plies_per_s", "target_plies_per_s"):
        assert_positive(engine[field], f"engine.{field}")
    assert isinstance(engine["target_ratio_met"], bool) and isinstance(engine["target_plies_met"], bool)

    assert list(results["games"]) == list(bench.GAMES)
    for name, entry in results["games"].items():
        for field in ("batched_plies_per_s", "loop_plies_per_s", "ratio", "target_ratio"):
            assert_positive(entry[field], f"games.{name}.{field}")
        assert len(entry["ratios"]) == 2 and isinstance(entry["target_met"], bool)
        assert entry["batched_plies_per_s"] == contenders[f"batched/{name}"]["plies_per_s"]

    envs = results["envs"]
    assert envs["peers"] == ["connect_four_v3", "tictactoe_v3"]
    assert list(envs["envs"]) == [*envs["peers"], *bench.GAMES]
    for name, entry in envs["envs"].items():
        for field in ("steps_per_s", "plies_per_s", "us_per_step", "steps_per_game", "cpu_share"):
            assert_positive(entry[field], f"envs.{name}.{field}")
        for peer in envs["peers"]:
            if name in envs["peers"]:
                assert f"ratio_vs_{peer}" not in entry
            else:
                assert_positive(entry[f"ratio_vs_{peer}"], f"envs.{name}.ratio_vs_{peer}")
                assert len(entry[f"ratios_vs_{peer}"]) == 2

    vector = results["vector"]
    assert (vector["num_envs"], vector["opponent"], vector["autoreset_mode"]) == (64, "random", "same_step")
    assert list(vector["games"]) == list(bench.GAMES)
    for name, entry in vector["games"].items():
        assert entry["gymnasium_id"] == bench.GYMNASIUM_IDS[name]
        assert_positive(entry["ratio"], f"vector.{name}.ratio")
        assert len(entry["ratios"]) == 2
        for kind in ("vector", "make_vec"):
            for field in SUMMARY_FIELDS:
                assert_positive(entry[kind][field], f"vector.{name}.{kind}.{field}")
            for run in entry[kind]["runs"]:
                assert run["steps"] % 64 == 0 and run["steps"] == run["plies"] > 0

    memory = results["memory"]
    assert (memory["game"], memory["n_games"], memory["play_random_games"]) == ("ouril_v0", 20000, 20)
    for field in MEMORY_FIELDS:
        assert_positive(memory[field], f"memory.{field}")
    assert memory["state_bytes"] == memory["state_bytes_per_game"] * 20000
    assert memory["step_bytes_at_target_games"] == pytest.approx(memory["step_bytes"] * 50)
    for field in ("construct_s", "reset_s", "step_s", "play_s", "process_s"):
        assert_positive(memory["seconds"][field], f"memory.seconds.{field}")
    assert isinstance(memory["target_step_met"], bool) and isinstance(memory["target_peak_met"], bool)

    startup = results["startup"]
    assert startup["cold"] is None  # --quick: no cold start-up
    assert startup["warm_starts"] == 1 and len(startup["warm_runs"]) == 1
    for field in STARTUP_FIELDS:
        assert_positive(startup["warm"][field], f"startup.warm.{field}")


def test_masked_random_actions_picks_legal_actions(bench: ModuleType) -> None:
    rng = np.random.default_rng(0)
    only = np.array([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1]], dtype=np.int8)
    assert bench.masked_random_actions(only, rng).tolist() == [2, 0, 3]
    assert bench.masked_random_actions(only.astype(bool), rng).tolist() == [2, 0, 3]
    masks = np.tile(np.array([[1, 0, 1, 1, 0, 1]], dtype=bool), (4000, 1))
    picks = bench.masked_random_actions(masks, rng)
    assert sorted(set(picks.tolist())) == [0, 2, 3, 5]


def test_openspiel_loop_plays_one_block_of_legal_plies(bench: ModuleType) -> None:
    """A zero budget still plays one block; replaying the same draws by hand gives the same games."""
    pyspiel = pytest.importorskip("pyspiel", reason="the throughput benchmark needs the bench extra (open-spiel)")
    game = pyspiel.load_game("oware")
    run = bench.openspiel_random_play(game, 0.0, np.random.default_rng(5))
    assert run.plies == run.steps == bench.DRAW_BLOCK

    state, games = game.new_initial_state(), 0
    for draw in np.random.default_rng(5).random(bench.DRAW_BLOCK).tolist():
        legal = state.legal_actions()
        state.apply_action(legal[int(draw * len(legal))])
        if state.is_terminal():
            games, state = games + 1, game.new_initial_state()
    assert run.games == games


def test_both_env_peers_build(bench: ModuleType) -> None:
    for name in bench.ENV_PEERS:
        env = bench.make_peer(name)
        env.reset(seed=0)
        assert env.metadata["name"] == name and len(env.possible_agents) == 2
        env.close()
    with pytest.raises(ValueError, match="choose one of"):
        bench.make_peer("go_v5")


def test_make_vec_peer_plays_through_drawn_games(bench: ModuleType) -> None:
    """The make_vec peer batches the final infos of won and drawn games alike (a draw's winner is -1)."""
    import gymnasium

    envs = gymnasium.make_vec(
        "mancala/Ouril-v0",
        num_envs=16,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
    )
    rng = np.random.default_rng(0)
    _observations, infos = envs.reset(seed=0)
    winners: list[object] = []
    for _ in range(800):
        _observations, _rewards, _terminated, _truncated, infos = envs.step(
            bench.masked_random_actions(infos["action_mask"], rng)
        )
        if "final_info" in infos:
            final = infos["final_info"]
            won = final.get("_winner", np.zeros(16, bool))
            winners += [int(final["winner"][i]) if won[i] else None for i in np.flatnonzero(infos["_final_info"])]
    envs.close()
    assert None not in winners and {-1, 0, 1} <= set(winners)  # draws among wins: -1, stackable with ints
