"""examples/cleanrl_ppo_masked.py: CleanRL-style masked PPO on ``gymnasium.make_vec`` with ``encoding=``,
under Gymnasium's ``RecordEpisodeStatistics`` (needs torch and tyro, the train extra).

A few thousand steps must complete episodes (the wrapper's statistics reach the script), give finite
losses, never play an illegal move (the compiled env raises ``IllegalActionError`` on one), and be
reproducible from the seed.
"""

from __future__ import annotations

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("tyro", reason="needs the train extra")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cleanrl_ppo_masked.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_cleanrl_ppo_masked", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_trains_with_a_tiny_budget_and_reports_its_episodes(capsys: pytest.CaptureFixture[str]) -> None:
    example = load()
    args = example.Args(
        env_id="mancala/Urim-v0",
        encoding="one_hot",
        num_envs=8,
        num_steps=64,
        total_timesteps=3072,
        update_epochs=2,
        eval_episodes=20,
        seed=3,
    )
    figures = example.run(args)
    assert figures["global_step"] == 3072 and len(figures["updates"]) == 6
    assert figures["episodes"] > 0 and figures["updates"][-1]["episodes"] == figures["episodes"]
    assert -1.0 <= figures["mean_return"] <= 1.0 and 0.0 <= figures["win_rate"] <= 1.0
    for update in figures["updates"]:
        for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"):
            assert math.isfinite(update[key]), f"{key} at step {update['global_step']}"
    assert figures["updates"][0]["entropy"] > 0
    evaluation = figures["evaluation"]
    assert evaluation["episodes"] == 20
    assert math.isclose(evaluation["wins"] + evaluation["draws"] + evaluation["losses"], 1.0)
    assert figures["steps_per_second"] > 0

    lines = capsys.readouterr().out.splitlines()
    update_lines = [line for line in lines if line.startswith("update ")]
    assert len(update_lines) == 6 and update_lines[-1].startswith("update 6/6 step 3072: episodes ")
    assert f"trained 3072 steps in {figures['episodes']} episodes" in lines[-2]
    assert re.fullmatch(r"evaluation vs random: [\d.]+% wins, [\d.]+% draws, [\d.]+% losses of 20 games", lines[-1])


def test_the_seed_fixes_the_run() -> None:
    example = load()
    args = example.Args(num_envs=4, num_steps=64, total_timesteps=512, update_epochs=1, eval_episodes=0, seed=5)
    first, second = example.train(args), example.train(args)
    assert first["updates"] == second["updates"] and first["episodes"] == second["episodes"]


def test_runs_as_a_script_with_a_plain_game_name(tmp_path: Path) -> None:
    saved = tmp_path / "agent.pt"
    command = [
        sys.executable,
        str(EXAMPLE),
        "--env-id",
        "ouril_v0",
        "--opponent",
        "greedy",
        "--num-envs",
        "16",
        "--num-steps",
        "64",
        "--total-timesteps",
        "2048",
        "--eval-episodes",
        "8",
        "--save-path",
        str(saved),
    ]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert child.returncode == 0, child.stderr[-4000:]
    lines = child.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["update 1/2 step 1024", "update 2/2 step 2048"], child.stdout
    assert re.fullmatch(
        r"trained 2048 steps in \d+ episodes \(SPS \d+\); last 100: mean return [+-][\d.]+, "
        r"win rate [\d.]+%",
        lines[2],
    ), child.stdout
    assert lines[3].startswith("evaluation vs greedy: ") and lines[3].endswith("of 8 games"), child.stdout
    assert saved.is_file()
