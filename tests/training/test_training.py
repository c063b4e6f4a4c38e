"""Training, evaluation, self-play and ``mancala-envs train`` (the ``train`` extra), with tiny budgets."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the training tests need the train extra: pip install -e '.[train]'")

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from mancala_envs.cli import main
from mancala_envs.envs.registration import game_names
from mancala_envs.training.trainer import (
    EvalRow,
    SelfPlayCallback,
    TrainConfig,
    VecStepTimer,
    batched_opponents,
    env_seconds_of,
    evaluate,
    format_table,
    make_training_env,
    train,
    wilson_interval,
)
from mancala_envs.views.opponents import OpponentPool, PolicyOpponent
from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv
from mancala_envs.views.single_agent_env import SingleAgentEnv

TINY = {
    "opponent": "random",
    "timesteps": 256,
    "n_envs": 2,
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "progress_bar": False,
}


# --- Wilson intervals and the table -----------------------------------------------------
@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [(0, 10, 0.0, 0.27754), (5, 10, 0.236585, 0.763415), (10, 10, 0.72246, 1.0), (90, 100, 0.825634, 0.944774)],
)
def test_wilson_interval_matches_the_formula(successes: int, trials: int, low: float, high: float) -> None:
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=1e-5)


def test_wilson_interval_without_trials_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_eval_row_rates_and_table() -> None:
    row = EvalRow("random", "both", wins=9, draws=0, losses=1)
    assert row.games == 10 and row.rate("wins") == 0.9 and row.rate("losses") == 0.1
    assert row.as_dict()["wins_ci95"] == pytest.approx(list(wilson_interval(9, 10)))
    table = format_table([row])
    assert table.splitlines()[2].split()[:3] == ["random", "both", "10"]
    assert " 90.0% [59.6, " in table


def test_train_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="timesteps must be a positive integer"):
        TrainConfig(timesteps=0)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        TrainConfig(seed=-1)
    with pytest.raises(ValueError, match="eval_games"):
        TrainConfig(eval_games=-5)
    assert TrainConfig(game="mancala/urim-v0").model_path == Path("models/mancala_urim-v0-maskable-ppo.zip")


# --- training ------------------------------------------------------------------------------
def test_training_env_is_masked_timed_and_encoded() -> None:
    """Compiled opponents (the default pool): one batched VecEnv, timed as a whole."""
    vec_env = make_training_env(TrainConfig(n_envs=2, seed=3))
    assert isinstance(vec_env, VecStepTimer) and isinstance(vec_env.venv, MancalaSB3VecEnv)
    assert vec_env.get_attr("opponent") == [["random", "greedy"]] * 2
    observations = vec_env.reset()
    assert observations.shape == (2, 17) and observations.dtype == np.float32
    assert observations.min() >= 0.0 and observations.max() <= 1.0
    masks = np.stack(vec_env.env_method("action_masks"))
    assert masks.shape == (2, 6) and masks.dtype == bool and masks.all()
    before = env_seconds_of(vec_env)
    vec_env.step(np.array([0, 1]))
    assert env_seconds_of(vec_env) > before > 0
    vec_env.close()


def test_training_env_of_saved_model_opponents_is_single_agent_envs(model_path: Path) -> None:
    """An opponent that is not a compiled agent: single-agent views in a DummyVecEnv, each timed."""
    config = TrainConfig(n_envs=2, seed=3, opponent=["random", f"model:{model_path}"])
    assert batched_opponents(config) is None and batched_opponents(TrainConfig(opponent="alphabeta:2")) == [
        "alphabeta:2"
    ]
    vec_env = make_training_env(config)
    assert isinstance(vec_env, DummyVecEnv)
    vec_env.reset()
    vec_env.step(np.array([np.flatnonzero(mask)[0] for mask in vec_env.env_method("action_masks")]))
    assert all(seconds > 0 for seconds in vec_env.get_attr("seconds")) and env_seconds_of(vec_env) > 0
    vec_env.close()


def test_batched_training_env_plays_as_the_vector_env() -> None:
    """The batched training env is MancalaSB3VecEnv with the list of opponents: same observations and rewards."""
    config = TrainConfig(n_envs=4, seed=9, opponent=["random", "greedy"])
    vec_env = make_training_env(config)
    twin = MancalaSB3VecEnv("ouril_v0", 4, opponent=["random", "greedy"], seed=9, encoding="flat")
    assert np.array_equal(vec_env.reset(), twin.reset())
    for _ in range(60):
        actions = np.array([np.flatnonzero(mask)[-1] for mask in vec_env.env_method("action_masks")])
        observation, rewards, dones, infos = vec_env.step(actions)
        expected = twin.step(actions)
        assert np.array_equal(observation, expected[0]) and np.array_equal(rewards, expected[1])
        assert np.array_equal(dones, expected[2])
        for info in infos:
            if "episode" in info:
                assert info["opponent"] in ("random", "greedy")


def test_train_saves_a_model_and_times_the_envs(tmp_path: Path) -> None:
    config = TrainConfig(save_path=str(tmp_path / "m.zip"), seed=1, **TINY)
    result = train(config)
    assert result.timesteps == 256
    assert (tmp_path / "m.zip").is_file()
    assert 0 < result.env_seconds < result.seconds
    assert 0 < result.env_share < 1 and result.steps_per_second > 0
    assert torch.get_num_threads() == 1
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    observation = np.zeros(17, dtype=np.float32)
    assert (
        loaded.predict(observation, deterministic=True)[0] == result.model.predict(observation, deterministic=True)[0]
    )


def test_evaluate_plays_both_seats_and_is_seeded(tmp_path: Path) -> None:
    result = train(TrainConfig(save_path=str(tmp_path / "m.zip"), **TINY))
    rows = evaluate(result.model, "ouril_v0", ("random",), games=6, seed=5)
    assert [(r.opponent, r.seat, r.games) for r in rows] == [
        ("random", "first", 3),
        ("random", "second", 3),
        ("random", "both", 6),
    ]
    both = rows[2]
    assert (both.wins, both.draws, both.losses) == tuple(
        a + b
        for a, b in zip(
            (rows[0].wins, rows[0].draws, rows[0].losses), (rows[1].wins, rows[1].draws, rows[1].losses), strict=True
        )
    )
    assert evaluate(result.model, "ouril_v0", ("random",), games=6, seed=5) == rows


def test_evaluate_tallies_exactly_what_the_games_give() -> None:
    # A policy whose logits are its bias (3, 2, 1): it always plays its lowest legal pit. Replaying the
    # same seeded games by hand with that rule must give the same tally, seat by seat.
    model = MaskablePPO("MlpPolicy", SingleAgentEnv("modiar_v0"), n_steps=16, batch_size=16, seed=0, device="cpu")
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.copy_(torch.tensor([3.0, 2.0, 1.0]))
    rows = evaluate(model, "modiar_v0", ("greedy",), games=8, seed=40, encoding="raw")
    expected = {"first": [0, 0, 0], "second": [0, 0, 0]}
    for i in range(8):
        env = SingleAgentEnv("modiar_v0", opponent="greedy", first_player=0, learner_seat=i % 2)
        env.reset(seed=40 + i)
        while True:
            _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if terminated or truncated:
                break
        expected["first" if i % 2 == 0 else "second"][{1.0: 0, 0.0: 1, -1.0: 2}[reward]] += 1
    assert [(r.wins, r.draws, r.losses) for r in rows[:2]] == [tuple(expected["first"]), tuple(expected["second"])]


# --- self-play -----------------------------------------------------------------------------
def test_selfplay_refreshes_a_pool_of_frozen_snapshots(tmp_path: Path) -> None:
    callback = SelfPlayCallback(refresh_every=128, pool_size=2, anchors=["random"])
    result = train(
        TrainConfig(
            save_path=str(tmp_path / "s.zip"),
            timesteps=512,
            n_envs=2,
            n_steps=64,
            batch_size=64,
            n_epochs=1,
            progress_bar=False,
        ),
        callbacks=[callback],
    )
    # Refreshed at 0, 128, 256, 384 and 512 (the last step reaches 512): the last two are kept.
    assert [s.name for s in callback.snapshots] == ["self@384", "self@512"]
    pools = result.model.get_env().get_attr("_opponents")
    for pool in pools:
        assert isinstance(pool, OpponentPool)
        assert [getattr(m, "name", None) for m in pool.members] == ["random", "self@384", "self@512"]
    live = dict(result.model.policy.state_dict())
    frozen = dict(callback.snapshots[0].policy.state_dict())
    assert any(not torch.equal(live[key], frozen[key]) for key in live)  # training went on after the snapshot


def test_selfplay_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="refresh_every must be a positive integer"):
        SelfPlayCallback(refresh_every=0)
    with pytest.raises(ValueError, match="pool_size"):
        SelfPlayCallback(pool_size=-1)


def test_policy_opponent_plays_a_saved_model(tmp_path: Path) -> None:
    result = train(TrainConfig(save_path=str(tmp_path / "m.zip"), **TINY))
    env = SingleAgentEnv("ouril_v0", opponent=f"model:{tmp_path / 'm.zip'}", illegal_action="raise")
    assert isinstance(env.opponent, PolicyOpponent) and env.opponent.name == "m"
    for seed in range(3):
        env.reset(seed=seed)
        while True:
            _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            if terminated or truncated:
                break
    assert result.model.num_timesteps == 256


# --- the command line ---------------------------------------------------------------------
def test_cli_train_prints_the_table_and_writes_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "train",
            "--game",
            "ouril",
            "--timesteps",
            "256",
            "--n-envs",
            "2",
            "--eval-games",
            "4",
            "--no-progress",
            "--save",
            str(tmp_path / "m.zip"),
            "--json",
            str(tmp_path / "f.json"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith(
        "Training MaskablePPO on ouril_v0 against random / greedy (one drawn per episode): 256 steps, 2 envs "
        "(batched: one compiled call a step), seed 0"
    )
    assert "% of the time inside the environments and wrappers (timed)" in out
    assert "win/draw/loss rates with 95% Wilson confidence intervals" in out
    figures = json.loads((tmp_path / "f.json").read_text())
    assert figures["timesteps"] >= 256 and [r["seat"] for r in figures["evaluation"]] == ["first", "second", "both"] * 2
    assert [r["games"] for r in figures["evaluation"]] == [2, 2, 4, 2, 2, 4]
    wins = figures["evaluation"][2]["wins_rate"]
    assert f"Result: {100 * wins:.1f}% wins vs random" in out.splitlines()[-1]
    assert math.isclose(sum(figures["evaluation"][2][f"{k}_rate"] for k in ("wins", "draws", "losses")), 1.0)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["train", "--timesteps", "0"], "invalid value '0' (use an integer >= 1)"),
        (["train", "--game", "chess"], "unknown environment 'chess'"),
        (["train", "--encoding", "jpeg"], "invalid choice: 'jpeg'"),
        (["train", "--opponent", "wizard", "--timesteps", "64", "--eval-games", "0"], "unknown agent 'wizard'"),
    ],
)
def test_cli_train_bad_input_is_one_line(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala-envs: error: ") and fragment in err and err.count("\n") == 1


def test_python_dash_m_runs_the_command_line() -> None:
    result = subprocess.run([sys.executable, "-m", "mancala_envs", "list"], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[0] == "games (mancala_envs.make): " + " ".join(game_names())
    assert result.stdout.splitlines()[0].startswith("games (mancala_envs.make): ouril_v0 urim_v0 modiar_v0 ")


def test_train_logs_to_tensorboard_when_asked(tmp_path: Path) -> None:
    pytest.importorskip("tensorboard", reason="needs the train extra")
    train(TrainConfig(save_path=str(tmp_path / "m.zip"), tensorboard_log=str(tmp_path / "tb"), **TINY))
    runs = sorted(p.name for p in (tmp_path / "tb").iterdir())
    assert runs == ["MaskablePPO_1"]
    events = list((tmp_path / "tb" / "MaskablePPO_1").glob("events.out.tfevents.*"))
    assert len(events) == 1 and events[0].stat().st_size > 0


def test_warm_up_plays_a_game_per_opponent_and_leaves_training_unchanged(tmp_path: Path) -> None:
    from mancala_envs.training.trainer import warm_up

    config = TrainConfig(save_path=str(tmp_path / "m.zip"), **TINY)
    assert warm_up(config) > 0
    first = train(config).model.policy.state_dict()
    second = train(TrainConfig(save_path=str(tmp_path / "n.zip"), **TINY)).model.policy.state_dict()
    assert all(torch.equal(first[key], second[key]) for key in first)  # seeded training is reproducible
