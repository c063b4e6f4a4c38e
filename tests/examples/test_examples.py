"""Smoke tests of examples/: each runs with a tiny budget (the SB3 ones need the train extra)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_train_maskable_ppo_runs_with_a_tiny_budget(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    example = load("train_maskable_ppo")
    args = example.Args(
        env_id="mancala/urim-v0",
        total_timesteps=256,
        num_envs=2,
        num_steps=64,
        batch_size=64,
        update_epochs=1,
        eval_games=4,
        save_path=str(tmp_path / "m.zip"),
    )
    figures = example.run(args)
    assert (tmp_path / "m.zip").is_file()
    assert [(row.opponent, row.seat, row.games) for row in figures["rows"]] == [
        ("random", "first", 2),
        ("random", "second", 2),
        ("random", "both", 4),
        ("greedy", "first", 2),
        ("greedy", "second", 2),
        ("greedy", "both", 4),
    ]
    assert figures["steps_per_second"] > 0 and 0 < figures["env_share"] < 1


def test_train_maskable_ppo_reads_its_args_from_the_command_line() -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    tyro = pytest.importorskip("tyro", reason="needs the train extra")
    example = load("train_maskable_ppo")
    args = tyro.cli(
        example.Args,
        args=[
            "--env-id",
            "mancala/omweso-v0",
            "--total-timesteps",
            "5000",
            "--learning-rate",
            "0.001",
            "--progress-bar",
        ],
    )
    assert (args.env_id, args.total_timesteps, args.learning_rate, args.progress_bar) == (
        "mancala/omweso-v0",
        5000,
        0.001,
        True,
    )
    assert args.tensorboard_log is None


def test_selfplay_ppo_fills_its_pool(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    example = load("selfplay_ppo")
    args = example.Args(
        total_timesteps=1024,
        num_envs=2,
        refresh_every=256,
        pool_size=2,
        eval_games=2,
        save_path=str(tmp_path / "s.zip"),
    )
    figures = example.run(args)
    assert figures["snapshots"] == 2
    assert [row.games for row in figures["rows"]] == [1, 1, 2, 1, 1, 2]


def test_build_from_config_builds_every_environment_of_the_yaml() -> None:
    pytest.importorskip("yaml", reason="needs PyYAML (test extra)")
    example = load("build_from_config")
    built = example.run(example.Args())
    assert sorted(built) == ["omweso_selfplay", "ouril_vs_greedy", "urim_vs_pool"]
    assert built["omweso_selfplay"].observation_space("player_0")["observation"].shape[1:] == (4, 8)


def test_build_from_config_runs_as_a_script() -> None:
    pytest.importorskip("yaml", reason="needs PyYAML (test extra)")
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "build_from_config.py")], capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["omweso_selfplay", "ouril_vs_greedy", "urim_vs_pool"]
    assert all("one game:" in line for line in lines)


def test_draw_boards_writes_one_picture_per_game_after_a_capture(tmp_path: Path) -> None:
    import numpy as np
    from PIL import Image

    from mancala_envs.games import game_classes

    example = load("draw_boards")
    paths = example.draw_boards(tmp_path)
    assert [p.name for p in paths] == [f"{game_class.name}.png" for game_class in game_classes()]  # every game
    for env_id, path in zip(example.GAMES, paths, strict=True):
        env = example.play_pictured_moves(env_id)
        move = env.last_move
        assert move["captures"], f"{env_id}: the pictured move captured nothing"
        if not env_id.startswith("omweso"):
            assert env.infos[env.agent_selection]["ply"] >= 6
        np.testing.assert_array_equal(np.asarray(Image.open(path).convert("RGB")), env.render())
    # Omweso's picture is worked example W2: action 4 captures 5 at pit 8 and 3 at pit 9 (8 seeds).
    omweso = example.play_pictured_moves("omweso_v0")
    assert omweso.board.tolist()[:16] == [6, 2, 0, 2, 0, 4, 4, 0, 4, 4, 1, 2, 1, 2, 1, 0]
    assert omweso.stores.tolist() == [8, 0]
