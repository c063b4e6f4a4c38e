"""Smoke test of examples/train_vector_maskable_ppo.py: a tiny run as a script, then its saved model (train extra).

The example trains on ``MancalaSB3VecEnv(..., encoding=...)`` ("flat" by default) and evaluates without naming
the encoding: ``evaluate`` reads it off the policy's observation space."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "train_vector_maskable_ppo.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_train_vector_maskable_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_trains_saves_and_evaluates_as_a_script(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    out = tmp_path / "vector.zip"
    command = [
        sys.executable,
        str(EXAMPLE),
        "--env-id",
        "urim_v0",
        "--n-envs",
        "8",
        "--opponent",
        "greedy",
        "--steps",
        "256",
        "--seed",
        "3",
        "--eval-games",
        "4",
        "--out",
        str(out),
    ]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert child.returncode == 0, child.stderr[-4000:]
    lines = child.stdout.splitlines()
    output = f"stdout:\n{child.stdout}\nstderr:\n{child.stderr[-2000:]}"

    # One rollout of 8 envs x 256 steps (2048 // 8) covers the 256 steps asked for.
    (trained,) = [line for line in lines if line.startswith("trained ")]
    expected = (
        r"trained 2048 steps on 8 batched urim_v0 games vs greedy in [\d.]+ s \(SPS: \d+\), "
        r"observations encoded flat"
    )
    assert re.fullmatch(expected, trained), output
    table = [line.split()[:3] for line in lines if line.startswith(("random ", "greedy "))]
    assert table == [
        ["random", "first", "2"],
        ["random", "second", "2"],
        ["random", "both", "4"],
        ["greedy", "first", "2"],
        ["greedy", "second", "2"],
        ["greedy", "both", "4"],
    ], output
    (evaluation,) = [line for line in lines if line.startswith("evaluation: ")]
    assert re.fullmatch(
        r"evaluation: vs random [\d.]+% wins / [\d.]+% draws of 4, "
        r"vs greedy [\d.]+% wins / [\d.]+% draws of 4",
        evaluation,
    ), output
    assert lines[-1] == f"model saved to {out}", output

    model = MaskablePPO.load(out, device="cpu")
    vec_env = MancalaSB3VecEnv("urim_v0", n_envs=4, seed=0, encoding="flat")  # the example's default encoding
    assert model.observation_space == vec_env.observation_space and model.action_space == vec_env.action_space
    observation = vec_env.reset()
    masks = vec_env.action_masks()
    actions, _ = model.predict(observation, action_masks=masks, deterministic=True)
    assert actions.shape == (4,) and all(masks[i, action] for i, action in enumerate(actions))
    assert np.array_equal(model.predict(observation, action_masks=masks, deterministic=True)[0], actions)


@pytest.mark.parametrize("encoding", ["raw", "planes"])
def test_another_encoding_is_trained_on_and_found_again_by_evaluate(tmp_path: Path, encoding: str) -> None:
    """``--encoding`` reaches the vector env; the evaluation, which is not told the encoding, plays the model."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    example = load_example()
    args = example.parse_args(
        [
            "--env-id",
            "ouril_v0",
            "--n-envs",
            "16",
            "--steps",
            "64",
            "--seed",
            "1",
            "--eval-games",
            "2",
            "--encoding",
            encoding,
            "--out",
            str(tmp_path / "m.zip"),
        ]
    )
    result = example.run(args)
    assert result["timesteps"] == 2048 and [row.games for row in result["rows"] if row.seat == "both"] == [2, 2]
    model = MaskablePPO.load(result["model_path"], device="cpu")
    assert model.observation_space == MancalaSB3VecEnv("ouril_v0", n_envs=2, encoding=encoding).observation_space
    assert example.parse_args([]).encoding == "flat"


def test_rejects_an_unknown_encoding() -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    with pytest.raises(SystemExit) as exited:
        load_example().parse_args(["--encoding", "stack"])
    assert exited.value.code == 2


def test_rejects_an_opponent_that_is_not_compiled() -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    child = subprocess.run(
        [sys.executable, str(EXAMPLE), "--opponent", "minimax"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 2 and "invalid choice: 'minimax'" in child.stderr
