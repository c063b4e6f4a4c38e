"""Batched self-play (``mancala_envs.training.selfplay``): the learner-vs-pool VecEnv against single-env replays, the
frozen policy's batched inference against one-at-a-time inference, the pool's draws and ratings, and a
short ``train(self_play=True)`` run that is reproducible under its seed."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("openskill")

import torch
from sb3_contrib import MaskablePPO

from mancala_envs.agents import make_agent
from mancala_envs.agents.agent import masked_choice
from mancala_envs.engine.state import PLAYER, RUNNING, STATUS
from mancala_envs.envs.batch import BatchedGames
from mancala_envs.envs.registration import game_names
from mancala_envs.training.selfplay import (
    SELF,
    AgentBatchOpponent,
    PoolRatings,
    RandomBatchOpponent,
    SelfPlayVecEnv,
    TorchPolicyOpponent,
    batch_opponent,
)
from mancala_envs.training.trainer import TrainConfig, pool_weights, train, train_command
from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv
from mancala_envs.wrappers.encodings import env_encoder

from support.batch_reference import new_env

#: every game of the list (mancala_envs.games.GAME_MODULES), by its plain name
GAMES = game_names()
AGENTS = ("player_0", "player_1")


class Recorder:
    """A pool member that plays another member's moves and keeps every batched call: ``(games, actions)``."""

    def __init__(self, inner: Any, name: str = "recorder") -> None:
        self.inner = inner
        self.name = name
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []

    def act_batch(
        self, games: Any, index: np.ndarray, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        actions = self.inner.act_batch(games, index, observations, masks, rng)
        assert masks[np.arange(index.size), actions].all(), "the member played an illegal move"
        self.calls.append((index.copy(), actions.copy()))
        return actions


class Replay:
    """One ``MancalaEnv`` per game of a :class:`SelfPlayVecEnv`, fed the same plies in the same order."""

    def __init__(self, env_id: str, n: int) -> None:
        self.env_id = env_id
        self.envs = [new_env(env_id, 0) for _ in range(n)]
        self.ended: dict[int, dict[str, float]] = {}

    def ply(self, game: int, action: int) -> None:
        env = self.envs[game]
        env.step(int(action))
        raw = env.unwrapped
        if raw.state_array[STATUS] != RUNNING:
            self.ended[game] = {agent: raw.rewards[agent] for agent in AGENTS}
            self.envs[game] = new_env(self.env_id, 0)

    def opponent_plies(self, recorder: Recorder) -> None:
        for index, actions in recorder.calls:
            for game, action in zip(index, actions, strict=True):
                self.ply(int(game), int(action))
        recorder.calls.clear()


@pytest.mark.parametrize("env_id", GAMES)
def test_learner_steps_are_the_single_env_replays(env_id: str) -> None:
    n = 6
    recorder = Recorder(AgentBatchOpponent(make_agent("greedy", seed=0), name="greedy"))
    env = SelfPlayVecEnv(env_id, n_envs=n, opponents=[recorder], encoding=None, seed=5, first_player=0)
    replay = Replay(env_id, n)
    observation = env.reset()
    replay.opponent_plies(recorder)
    rng = np.random.default_rng(1)
    episodes = 0
    for _ in range(150):
        seats = env.learner_seats()
        for game in range(n):  # every learner is to move, and sees its own view
            raw = replay.envs[game]
            assert raw.agent_selection == AGENTS[seats[game]]
            seen = raw.observe(raw.agent_selection)
            np.testing.assert_array_equal(observation[game], seen["observation"])
            np.testing.assert_array_equal(env.action_masks()[game], seen["action_mask"].astype(bool))
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks], np.int64)
        observation, rewards, dones, infos = env.step(actions)
        for game in range(n):
            replay.ply(game, actions[game])
        replay.opponent_plies(recorder)
        for game in range(n):
            if game in replay.ended:
                assert dones[game], f"game {game} ended in the replay, not in the env"
                seat = seats[game]
                assert rewards[game] == replay.ended[game][AGENTS[seat]]
                assert infos[game]["learner_seat"] == seat and infos[game]["opponent"] == "recorder"
                assert infos[game]["episode"]["r"] == rewards[game]
                assert infos[game]["terminal_observation"].shape == observation[game].shape
                episodes += 1
            else:
                assert not dones[game] and rewards[game] == 0.0 and infos[game] == {}
        replay.ended.clear()
    assert episodes >= 2
    assert len(env.pop_results()) == episodes and env.pop_results() == []


def test_kalah_extra_turns_and_omweso_choices_stay_with_their_mover() -> None:
    for env_id in ("kalah_v0", "omweso_v0"):
        env = SelfPlayVecEnv(env_id, n_envs=16, opponents=["random"], encoding=None, seed=0)
        env.reset()
        rng = np.random.default_rng(0)
        for _ in range(200):
            movers = [env.games.state(game)[PLAYER] for game in range(env.num_envs)]
            assert movers == env.learner_seats().tolist()  # every learner is to move after each step
            masks = env.action_masks()
            env.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in masks]))
    # Kalah's opening from pit 2 (4 seeds: pits 3, 4, 5 and the store) ends in the store: player 0 moves again.
    games = BatchedGames("kalah_v0", 1, first_player=0)
    step = games.reset(seed=0)
    step = games.step(np.array([2]))
    assert step.current_player.tolist() == [0]


def _model(env_id: str = "ouril_v0", encoding: str = "flat") -> MaskablePPO:
    torch.manual_seed(0)
    vec_env = MancalaSB3VecEnv(env_id, n_envs=2, encoding=encoding, seed=0)
    return MaskablePPO("MlpPolicy", vec_env, policy_kwargs={"net_arch": [16, 16]}, device="cpu", seed=0)


def test_frozen_policy_batched_moves_are_the_one_at_a_time_moves() -> None:
    model = _model()
    batched = TorchPolicyOpponent(model, encoding="flat", deterministic=True)
    encoder = env_encoder("flat", BatchedGames("ouril_v0", 1).game)
    games = BatchedGames("ouril_v0", 40, first_player=0)
    step = games.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):  # random positions
        step = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.action_mask]))
    index = np.arange(40)
    actions = batched.act_batch(games, index, step.observation, step.action_mask, np.random.default_rng(0))
    for game in index:
        one = batched.act_batch(
            games, np.array([game]), step.observation[[game]], step.action_mask[[game]], np.random.default_rng(0)
        )
        assert one.tolist() == [actions[game]]
        # SB3's own one-at-a-time inference of the masked policy
        features = encoder.encode(step.observation[[game]])[0]
        predicted, _ = model.predict(features, action_masks=step.action_mask[game], deterministic=True)
        assert int(predicted) == actions[game]
    # Sampled moves: one Gumbel-max draw from the env's generator, the same for the same seed.
    sampled = TorchPolicyOpponent(model, encoding="flat")
    first = sampled.act_batch(games, index, step.observation, step.action_mask, np.random.default_rng(9))
    again = sampled.act_batch(games, index, step.observation, step.action_mask, np.random.default_rng(9))
    np.testing.assert_array_equal(first, again)
    assert step.action_mask[index, first].all()


def test_snapshots_are_frozen() -> None:
    model = _model()
    env = SelfPlayVecEnv("ouril_v0", n_envs=4, learner=model, seed=0)
    snapshot = env.snapshot("self@0")
    before = [p.clone() for p in snapshot.policy.parameters()]
    with torch.no_grad():
        for parameter in model.policy.parameters():
            parameter.add_(1.0)
    for old, new in zip(before, snapshot.policy.parameters(), strict=True):
        assert torch.equal(old, new)
    assert snapshot.name == "self@0"


def test_masked_choice_takes_only_legal_actions() -> None:
    logits = np.array([[5.0, 1.0, 0.0], [0.0, 0.0, 9.0]])
    masks = np.array([[False, True, True], [True, True, False]])
    assert masked_choice(logits, masks, np.random.default_rng(0), deterministic=True).tolist() == [1, 0]
    draws = np.array([masked_choice(logits, masks, np.random.default_rng(s)) for s in range(200)])
    assert set(draws[:, 0]) == {1, 2} and set(draws[:, 1]) == {0, 1}
    with pytest.raises(ValueError, match="no legal action"):
        masked_choice(logits, np.zeros((2, 3), bool), np.random.default_rng(0))


def test_same_seed_same_episodes() -> None:
    def run() -> tuple[list, np.ndarray]:
        env = SelfPlayVecEnv("urim_v0", n_envs=8, opponents=["random", "greedy"], weights=[3, 1], seed=11)
        env.reset()
        rng = np.random.default_rng(0)
        observations = []
        for _ in range(60):
            observation, _, _, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
            observations.append(observation)
        return env.pop_results(), np.stack(observations)

    (results, observations), (results_again, observations_again) = run(), run()
    assert results == results_again and len(results) > 0
    np.testing.assert_array_equal(observations, observations_again)
    assert {name for name, _ in results} <= {"random", "greedy"}


def test_pool_errors_say_what_to_do() -> None:
    env = SelfPlayVecEnv("ouril_v0", n_envs=2, opponents=[SELF], seed=0, learner_seat=1)
    with pytest.raises(RuntimeError, match="call set_learner"):
        env.reset()  # the learner sits second: "self" must open every game
    with pytest.raises(ValueError, match="non-empty list"):
        SelfPlayVecEnv("ouril_v0", n_envs=2, opponents=[])
    with pytest.raises(ValueError, match="2 non-negative numbers"):
        SelfPlayVecEnv("ouril_v0", n_envs=2, opponents=["random", "greedy"], weights=[1.0])
    with pytest.raises(ValueError, match="unknown agent"):
        SelfPlayVecEnv("ouril_v0", n_envs=2, opponents=["grandmaster"])
    with pytest.raises(TypeError, match="cannot play batched games"):
        batch_opponent(3.5)
    with pytest.raises(ValueError, match="learner_seat must be"):
        SelfPlayVecEnv("ouril_v0", n_envs=2, learner_seat=2)
    fresh = SelfPlayVecEnv("ouril_v0", n_envs=2, opponents=["random"])
    with pytest.raises(RuntimeError, match="before reset"):
        fresh.step(np.zeros(2, np.int64))
    assert isinstance(batch_opponent("random"), RandomBatchOpponent)


def test_ratings_follow_the_results() -> None:
    ratings = PoolRatings()
    for _ in range(20):
        ratings.record("greedy", 1.0)
        ratings.record("alphabeta:4", 0.0)
        ratings.record(SELF, 1.0)  # not rated: the learner against itself
    table = ratings.table()
    assert table["alphabeta:4"][0] > table["learner"][0] > table["greedy"][0]
    assert SELF not in table
    assert ratings.score("greedy") == 1.0 and ratings.score("alphabeta:4") == 0.0
    assert np.isnan(ratings.score("random"))
    ratings.record("random", 0.5)
    assert ratings.score("random") == 0.5
    ratings.add_player("self@100", like="learner")
    assert ratings.table()["self@100"] == ratings.table()["learner"]


def test_pool_weights() -> None:
    assert pool_weights(0, 2, 0.2) == pytest.approx([0.8, 0.1, 0.1])
    assert pool_weights(2, 2, 0.2) == pytest.approx([0.4, 0.2, 0.2, 0.1, 0.1])
    assert pool_weights(3, 0, 0.2) == pytest.approx([0.5, 1 / 6, 1 / 6, 1 / 6])


def test_a_short_self_play_run_is_reproducible(tmp_path: Any) -> None:
    def run(name: str) -> Any:
        config = TrainConfig(
            game="ouril_v0",
            opponent=["greedy"],
            timesteps=1024,
            n_envs=16,
            n_steps=32,
            batch_size=128,
            n_epochs=1,
            seed=3,
            self_play=True,
            snapshot_every=512,
            pool_size=2,
            baseline_rate=0.5,
            progress_bar=False,
            save_path=str(tmp_path / f"{name}.zip"),
            net_arch=(16, 16),
        )
        return config, train(config)

    config, result = run("a")
    _, again = run("b")
    assert result.timesteps == again.timesteps == 1024
    for first, second in zip(result.model.policy.parameters(), again.model.policy.parameters(), strict=True):
        assert torch.equal(first, second)
    assert [point["timesteps"] for point in result.curve] == [512, 1024]
    last = result.curve[-1]
    assert {"rating/learner", "rating/greedy", "rating/self@512", "score/greedy", "env_share"} <= set(last)
    assert list(result.curve) == [
        p | {"seconds": q["seconds"], "env_share": q["env_share"]}
        for p, q in zip(again.curve, result.curve, strict=True)
    ]
    assert 0 < result.opponent_seconds < result.env_seconds < result.seconds
    assert (tmp_path / "a.zip").is_file()
    assert train_command(config) == (
        "mancala-envs train --game ouril_v0 --self-play --opponent greedy --n-envs 16 --snapshot-every 512 "
        "--pool-size 2 --baseline-rate 0.5 --timesteps 1024 --seed 3 --n-steps 32 --batch-size 128 --n-epochs 1 "
        "--net-arch 16 16"
    )


def test_cli_self_play_logs_ratings_and_exports_the_shipped_weights(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from mancala_envs.agents.pretrained import PretrainedAgent, load_pretrained
    from mancala_envs.cli import main

    status = main(
        [
            "train",
            "--game",
            "kalah",
            "--self-play",
            "--opponent",
            "greedy",
            "--baseline-rate",
            "0.5",
            "--timesteps",
            "1024",
            "--n-envs",
            "16",
            "--n-steps",
            "32",
            "--batch-size",
            "128",
            "--n-epochs",
            "1",
            "--snapshot-every",
            "512",
            "--net-arch",
            "16",
            "16",
            "--encoding",
            "one_hot",
            "--eval-games",
            "0",
            "--no-progress",
            "--save",
            str(tmp_path / "m.zip"),
            "--json",
            str(tmp_path / "f.json"),
            "--tensorboard",
            str(tmp_path / "tb"),
            "--export-pretrained",
            str(tmp_path / "weights"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith(
        "Training MaskablePPO on kalah_v0 against itself (batched self-play: snapshots every 512 "
        "steps, 8 kept) and greedy in 50% of the episodes: 1024 steps, 16 envs, seed 0"
    )
    assert "Ratings (openskill Bradley-Terry, mu): learner " in out and "greedy " in out
    assert f"Exported the policy as shipped-agent weights to {tmp_path / 'weights'}" in out
    figures = json.loads((tmp_path / "f.json").read_text())
    assert figures["command"] == (
        "mancala-envs train --game kalah_v0 --self-play --opponent greedy --n-envs 16 --snapshot-every 512 "
        "--baseline-rate 0.5 --timesteps 1024 --encoding one_hot --n-steps 32 --batch-size 128 --n-epochs 1 "
        "--net-arch 16 16"
    )
    assert [point["timesteps"] for point in figures["curve"]] == [512, 1024]
    events = EventAccumulator(str(next((tmp_path / "tb").glob("MaskablePPO_1")))).Reload()
    tags = set(events.Tags()["scalars"])
    assert {
        "selfplay/rating/learner",
        "selfplay/rating/greedy",
        "selfplay/score/greedy",
        "selfplay/env_share",
        "selfplay/pool",
    } <= tags
    # The exported actor plays the saved model's own deterministic moves, without torch, from its metadata.
    policy = load_pretrained("kalah", tmp_path / "weights")
    assert policy.metadata["command"] == figures["command"] and policy.metadata["seed"] == "0"
    model = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    games = BatchedGames("kalah_v0", 32)
    step = games.reset(seed=1)
    rng = np.random.default_rng(2)
    for _ in range(10):
        step = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.action_mask]))
    agent = PretrainedAgent(folder=tmp_path / "weights")
    encoder = env_encoder("one_hot", games.game)
    for game in range(32):
        expected, _ = model.predict(
            encoder.encode(step.observation[[game]])[0], action_masks=step.action_mask[game], deterministic=True
        )
        assert agent.act_on_state(games.game, games.state(game)) == int(expected)


def test_cli_self_play_bad_settings_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from mancala_envs.cli import main

    assert main(["train", "--self-play", "--baseline-rate", "1.5", "--timesteps", "64", "--eval-games", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala-envs: error: ") and "baseline_rate must be a number from 0 to 1" in err


@pytest.mark.parametrize("not_a_policy", [3, "MaskablePPO", object()])
def test_torch_policy_opponent_refuses_what_is_not_an_on_policy_model(not_a_policy: object) -> None:
    with pytest.raises(
        TypeError, match=r"^TorchPolicyOpponent needs a Stable-Baselines3 on-policy model or policy"
    ) as error:
        TorchPolicyOpponent(not_a_policy)
    assert str(error.value).endswith(f"(got {type(not_a_policy).__name__}).")
