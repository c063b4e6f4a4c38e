"""Smoke tests of ``benchmarks/bench_env.py`` and ``benchmarks/omweso_turns.py``: they run end to end
and write complete JSON.

No speed is asserted here (speed is measured, as ratios, by the benchmark
itself). The bench_env run takes about 45 s on 2 cores, nearly all of it the two cold start-ups
that compile the engine into an empty numba cache. The Omweso turn statistics are checked
for their own bookkeeping (every ply, turn and game accounted for exactly) and for playing
the same games as ``mancala_envs.envs.batch.play_random``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from support.benchmark_results import assert_positive

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_env.py"
TURNS_SCRIPT = ROOT / "benchmarks" / "omweso_turns.py"
STARTUP_FIELDS = ("import_s", "make_s", "reset_s", "first_step_s", "total_s", "process_s")
MACHINE_FIELDS = ("cpu_count", "python", "numpy", "numba", "pettingzoo")


def _load_script(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _run(command: list[str]) -> subprocess.CompletedProcess:
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    if child.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed (exit {child.returncode}):\n{child.stderr[-4000:]}")
    return child


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load_script("bench_env", SCRIPT)


@pytest.fixture(scope="module")
def omweso_turns() -> ModuleType:
    return _load_script("omweso_turns", TURNS_SCRIPT)


def test_omweso_is_benchmarked(bench: ModuleType) -> None:
    assert "omweso_v0" in bench.GAMES
    assert bench.TURN_GAMES == ("omweso_v0",)


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
    child = _run([sys.executable, str(SCRIPT), "--quick", "--repeats", "2", "--seconds", "0.05", "--json", str(out)])
    assert "PettingZoo AEC loop" in child.stdout
    assert "omweso_v0" in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))

    for field in MACHINE_FIELDS:
        assert results["machine"][field], f"machine.{field} is missing"
    assert_positive(results["machine"]["cpu_count"], "machine.cpu_count")
    assert results["settings"]["quick"] is True
    assert_positive(results["benchmark_seconds"], "benchmark_seconds")

    loop = results["pettingzoo_loop"]
    assert loop["peer"] == bench.PEER
    assert set(loop["envs"]) == {bench.PEER, *bench.GAMES}
    for field in ("steps_per_s", "us_per_step", "max_ratio_vs_peer"):
        assert_positive(loop["loop_only"][field], f"pettingzoo_loop.loop_only.{field}")
    for name, entry in loop["envs"].items():
        for field in ("steps_per_s", "us_per_step", "plies_per_s", "steps_per_episode", "cpu_share"):
            assert_positive(entry[field], f"pettingzoo_loop.{name}.{field}")
        assert len(entry["runs"]) == 2
        if name != bench.PEER:
            assert_positive(entry["ratio_vs_peer"], f"pettingzoo_loop.{name}.ratio_vs_peer")
            assert_positive(entry["plies_ratio_vs_peer"], f"pettingzoo_loop.{name}.plies_ratio_vs_peer")
            assert len(entry["ratios_vs_peer"]) == 2
            assert isinstance(entry["target_met"], bool)
        if name in bench.TURN_GAMES:
            for field in ("turns_per_s", "turns_ratio_vs_peer"):
                assert_positive(entry[field], f"pettingzoo_loop.{name}.{field}")
            assert entry["plies_per_turn"] >= 1
            for run in entry["runs"]:
                assert 0 < run["turns"] <= run["plies"], f"pettingzoo_loop.{name}.runs[]: {run}"
        else:
            assert "turns_per_s" not in entry
            assert all(run["turns"] is None for run in entry["runs"])

    for measure in ("engine", "rollout"):
        assert set(results[measure]["games"]) == set(bench.GAMES)
        for name, entry in results[measure]["games"].items():
            assert_positive(entry["plies_per_s"], f"{measure}.{name}.plies_per_s")
            assert_positive(entry["target_plies_per_s"], f"{measure}.{name}.target_plies_per_s")
            assert isinstance(entry["target_met"], bool)
            for run in entry["runs"]:
                assert_positive(run["plies"], f"{measure}.{name}.runs[].plies")
                assert_positive(run["seconds"], f"{measure}.{name}.runs[].seconds")
            if name in bench.TURN_GAMES:
                assert_positive(entry["turns_per_s"], f"{measure}.{name}.turns_per_s")
                assert entry["plies_per_turn"] >= 1
                for run in entry["runs"]:
                    assert 0 < run["turns"] <= run["plies"], f"{measure}.{name}.runs[]: {run}"
                    assert_positive(run["turns_per_s"], f"{measure}.{name}.runs[].turns_per_s")
            else:
                assert "turns_per_s" not in entry

    assert set(results["startup"]["games"]) == set(bench.GAMES[:1])  # --quick: the first game only
    for name, entry in results["startup"]["games"].items():
        for kind in ("cold", "warm"):
            for field in STARTUP_FIELDS:
                assert_positive(entry[kind][field], f"startup.{name}.{kind}.{field}")


def test_measures_runs_only_the_measures_named(tmp_path: Path, bench: ModuleType) -> None:
    out = tmp_path / "engine.json"
    results = bench.main(["--quick", "--measures", "engine", "--repeats", "1", "--seconds", "0.02", "--json", str(out)])
    assert set(results) & {"pettingzoo_loop", "engine", "rollout", "startup"} == {"engine"}
    assert set(results["engine"]["games"]) == set(bench.GAMES)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["settings"]["measures"] == ["engine"] and "pettingzoo_loop" not in written
    with pytest.raises(SystemExit):
        bench.parse_args(["--measures", "speed"])


def test_engine_loop_decodes_every_legal_action(bench: ModuleType) -> None:
    """The Omweso engine loop reads 48-bit masks 16 bits at a time; the tables list the set bits."""
    low = bench._legal_action_table(16)
    high = bench._legal_action_table(16, 32)
    assert low[0] == ()
    assert low[0b1010_0000_0000_0001] == (0, 13, 15)
    assert high[0b11] == (32, 33)
    assert bench._legal_action_table(3) == [(), (0,), (1,), (0, 1), (2,), (0, 2), (1, 2), (0, 1, 2)]


def test_omweso_turns_plays_the_rollout_games(omweso_turns: ModuleType) -> None:
    """Same seed, same games: the plies and winners equal batch.play_random's."""
    import numpy as np

    from mancala_envs.envs.batch import play_random
    from mancala_envs.games.omweso import Omweso, OmwesoConfig

    for setup in ("outer4", "placement"):
        game = Omweso(OmwesoConfig(setup=setup))
        stats = play_random(game, 40, seed=3)
        games = omweso_turns.play_counting_turns(game, 40, seed=3)["games"]
        winners = games[:, omweso_turns.G_WINNER]
        assert int(games[:, omweso_turns.G_PLIES].sum()) == stats.plies
        assert (int(np.sum(winners == 0)), int(np.sum(winners == 1))) == stats.wins
        assert int(np.sum(winners == -1)) == stats.draws
        assert int(games[:, omweso_turns.G_PLIES].max()) == stats.longest
        assert omweso_turns.count_turns(game, 40, seed=3) == (stats.plies, int(games[:, omweso_turns.G_TURNS].sum()))
        # A batch with fewer rows than games (rows playing several games each) is replayed too.
        small = play_random(game, 40, seed=3, batch_size=7)
        assert omweso_turns.count_turns(game, 40, seed=3, batch_size=7)[0] == small.plies


def test_omweso_turns_rejects_matches(omweso_turns: ModuleType) -> None:
    from mancala_envs.games.omweso import Omweso, OmwesoConfig

    with pytest.raises(ValueError, match="match_target"):
        omweso_turns.play_counting_turns(Omweso(OmwesoConfig(match_target=12)), 1)


def test_omweso_turns_script_writes_every_field(tmp_path: Path, omweso_turns: ModuleType) -> None:
    out = tmp_path / "turns.json"
    games = 25
    child = _run([sys.executable, str(TURNS_SCRIPT), "--games", str(games), "--seed", "2", "--json", str(out)])
    for heading in ("Laps per turn", "Decision points", "Results"):
        assert heading in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["games_per_setup"] == games and results["seed"] == 2
    assert list(results["setups"]) == ["outer4", "two_each", "placement"]
    buckets = [omweso_turns._bucket_name(low, high) for low, high in omweso_turns.LAP_BUCKETS]
    assert buckets[:4] == ["1", "2", "3", "4-5"] and buckets[-1] == ">=501"
    for name, r in results["setups"].items():
        assert r["games"] == games, name
        laps, decisions, annulment = r["laps_per_turn"], r["decision_points"], r["annulment"]
        # Every ply is a placement, the first ply of a turn, or a decision ply.
        annulled_turns = annulment["games"]
        assert r["plies"] == r["placement_plies"] + r["turns"] + annulled_turns + decisions["total"], name
        assert r["placement_plies"] == (64 * games if name == "placement" else 0), name
        assert laps["turns"] == r["turns"] and sum(laps["histogram"].values()) == r["turns"], name
        assert list(laps["histogram"]) == buckets
        assert 1 <= laps["p50"] <= laps["p90"] <= laps["p99"] <= laps["p99.9"] <= laps["max"], name
        assert 1 <= laps["mean"] <= laps["max"]
        for field in ("mean", "p50", "p90", "p99", "p99.9", "max"):
            assert field in r["turns_per_game"] and field in r["plies_per_game"], (name, field)
        assert r["turns_per_game"]["mean"] == pytest.approx(r["turns"] / games)
        assert r["plies_per_game"]["mean"] == pytest.approx(r["plies"] / games)
        assert decisions["relay"] + decisions["resow"] == decisions["total"], name
        assert sum(decisions["turns_by_count"].values()) == r["turns"], name
        assert decisions["turns_with_any"] == r["turns"] - decisions["turns_by_count"]["0"]
        assert decisions["per_game"] == pytest.approx(decisions["total"] / games)
        assert 0 <= decisions["games_with_any_fraction"] <= 1
        assert annulment["by_lap_cap"] + annulment["by_repetition"] == annulled_turns
        assert len(annulment["repetition_laps"]) == annulment["by_repetition"]
        assert annulment["rate"] == pytest.approx(annulled_turns / games)
        assert sum(r["end_reasons"].values()) == games, name
        assert r["end_reasons"].get("endless_move", 0) == annulled_turns
        assert set(r["win_types"]) <= {"bulijo", "emitwe_ebiri", "front_row_clear", "akakyala", "akawumbi"}
        assert sum(r["win_types"].values()) == r["results"]["decided"], name
        assert r["results"]["decided"] + annulled_turns + r["results"]["truncated"] == games, name
        assert 0 <= r["results"]["first_mover_wins"] <= r["results"]["decided"]
        assert_positive(r["seconds"], f"{name}.seconds")


def test_bench_training_measures_both_runs_and_writes_json(tmp_path: Path) -> None:
    """benchmarks/bench_training.py with a tiny budget: both runs happen and every figure is written."""
    pytest.importorskip("sb3_contrib", reason="the training benchmark needs the train extra")
    script = _load_script("bench_training", ROOT / "benchmarks" / "bench_training.py")
    out = tmp_path / "bench_training.json"
    report = script.main(script.Args(timesteps=512, opponent=("random", "greedy"), out=str(out)))
    assert json.loads(out.read_text()) == json.loads(json.dumps(report))
    (row,) = report["rows"]
    assert row["timesteps"] == 2048  # one rollout: 128 games x 16 steps
    assert row["batched"] is True and row["ppo"]["n_envs"] == 128
    for key in ("mancala_steps_per_s", "env_us_per_step_timed", "null_steps_per_s", "speed_ratio_vs_null"):
        assert_positive(row[key], key)
    assert 0 < row["env_share_timed"] < 1
    assert row["env_share_vs_null"] == pytest.approx(1 - row["null_seconds"] / row["mancala_seconds"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench_training.json"]  # no model left behind


def test_bench_render_times_every_game_and_the_peer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/bench_render.py with a few pictures: every game and connect_four are timed, the JSON is written."""
    script = _load_script("bench_render", ROOT / "benchmarks" / "bench_render.py")
    out = tmp_path / "bench_render.json"
    script.main(["--frames", "3", "--replay-games", "1", "--json", str(out)])
    report = json.loads(out.read_text())
    assert sorted(report["games"]) == sorted(script.GAMES)
    assert sorted(report["svg"]) == sorted(report["html_replay"]) == sorted(script.GAMES)
    for env_id, row in report["svg"].items():
        assert row["frames"] == 3 and row["shape"] is None, env_id
        assert row["ratio_to_png"] == pytest.approx(
            row["pictures_per_second"] / report["games"][env_id]["pictures_per_second"]
        )
        assert row["bytes_per_picture"] > 1000, env_id  # the SVG string's UTF-8 bytes
    for env_id, row in report["html_replay"].items():
        assert row["games"] == 1 and row["plies"] > 0, env_id
        assert row["bytes_per_ply"] == pytest.approx(row["bytes"] / row["plies"])
    peer = report["connect_four_v3"]["pictures_per_second"]
    for env_id, row in report["games"].items():
        assert row["frames"] == 3, env_id
        assert row["ratio_to_connect_four"] == pytest.approx(row["pictures_per_second"] / peer)
        assert row["shape"][2] == 3 and row["bytes_per_picture"] == row["shape"][0] * row["shape"][1] * 3
        assert_positive(row["ms_per_picture"], f"{env_id}.ms_per_picture")
    table = capsys.readouterr().out
    assert all(env_id in table for env_id in script.GAMES) and "connect_four_v3 (peer)" in table
    assert '| Env (render_mode="svg") |' in table and "| Env | HTML replay: games |" in table
