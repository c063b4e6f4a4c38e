"""The Stable-Baselines3 ``VecEnv`` adapter (:class:`mancala_envs.views.sb3_vec_env.MancalaSB3VecEnv`).

Each game of the adapter is replayed by a reference: a :class:`~mancala_envs.envs.aec_env.MancalaEnv` with the
opponent's move rule (uniform over the legal moves, or the greedy baseline) drawing from its own copy
of the game's generator, in the order the compiled loop draws (the learner's seat, the first player,
then one draw per opponent ply). ``vec_env.seed(s)`` gives game ``i`` the generator of seed ``s + i``
(SB3's convention), so the reference knows every draw. After each step, SB3's conventions are checked
against it: observations, masks, rewards, dones, the same-step auto-reset, ``terminal_observation``,
``TimeLimit.truncated``, the ``episode`` record, and the ended episode's winner and learner seat.

The ``max_plies=4`` config ends every game by the cap after two learner steps, so that truncations and
auto-resets happen all the time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the SB3 adapter needs the train extra")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecEnv, VecMonitor, VecNormalize

import mancala_envs
from mancala_envs.algorithms.playouts import greedy_action, legal_action_at
from mancala_envs.engine.prng import new_words, uniform
from mancala_envs.engine.state import LEGAL, WINNER
from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

from support.actions import random_legal

AGENTS = ("player_0", "player_1")


class Replay:
    """One game of the adapter, played again by a MancalaEnv and a copy of the game's generator."""

    def __init__(self, env_id: str, seed: int, opponent: str, learner_seat: int | None, options: dict[str, Any]):
        self.env_id = env_id
        self.words = new_words(np.random.default_rng(seed), 1)[0]
        self.opponent = opponent
        self.learner_seat = learner_seat
        self.options = options
        self.start()

    def start(self) -> None:
        """A new episode: the seat, the first player, the opponent's opening plies (again if they end it)."""
        while True:
            if self.learner_seat is None:
                self.seat = 1 if uniform(self.words) < 0.5 else 0
            else:
                self.seat = self.learner_seat
            first = 1 if uniform(self.words) < 0.5 else 0
            self.env = mancala_envs.make(
                self.env_id, first_player=first, illegal_action="raise", **self.options
            ).unwrapped
            self.env.reset()
            self.opponent_plays()
            if self.env.agents:
                return

    def opponent_plays(self) -> None:
        env, opponent = self.env, AGENTS[1 - self.seat]
        while (
            env.agents
            and env.agent_selection == opponent
            and not env.terminations[opponent]
            and not env.truncations[opponent]
        ):
            state, draw = env.state_array, uniform(self.words)
            if self.opponent == "greedy":
                action = env.game.compiled(greedy_action)(state, env.game.params, np.empty_like(state), draw)
            else:
                action = legal_action_at(state[LEGAL], draw)
            env.step(int(action))

    def view(self) -> tuple[list[int], list[bool]]:
        observation, mask = self.env.game.observe_with_mask(self.env.state_array, self.seat)
        return observation.tolist(), mask.astype(bool).tolist()

    def learner_plays(self, action: int) -> tuple[float, bool, bool]:
        """The learner's action and the opponent's replies: (reward, terminated, truncated)."""
        env, learner = self.env, AGENTS[self.seat]
        env.step(int(action))
        self.opponent_plays()
        if env.agents and not env.terminations[learner] and not env.truncations[learner]:
            return 0.0, False, False
        return float(env.cumulative_reward(learner)), bool(env.terminations[learner]), bool(env.truncations[learner])


def play_against_replays(
    n_envs: int = 4,
    steps: int = 40,
    seed: int = 11,
    opponent: str = "random",
    learner_seat: int | None = None,
    **options: Any,
) -> dict[str, int]:
    """Seeded random learner actions in the adapter and in the replays; every SB3 output must be the replay's.

    Returns:
        Episodes ended by the rules and by the cap.
    """
    vec_env = MancalaSB3VecEnv("ouril_v0", n_envs, opponent=opponent, learner_seat=learner_seat, **options)
    assert vec_env.seed(seed) == [seed + i for i in range(n_envs)]
    observation = vec_env.reset()
    replays = [Replay("ouril_v0", seed + i, opponent, learner_seat, options) for i in range(n_envs)]
    returns, lengths = np.zeros(n_envs), np.zeros(n_envs, int)
    counts = {"terminated": 0, "truncated": 0}
    rng = np.random.default_rng(seed)

    def check(observation: np.ndarray) -> None:
        assert observation.dtype == vec_env.observation_space.dtype and observation.shape == (n_envs, 17)
        for i, replay in enumerate(replays):
            expected_observation, expected_mask = replay.view()
            assert observation[i].tolist() == expected_observation, f"game {i}: observation"
            assert vec_env.action_masks()[i].tolist() == expected_mask, f"game {i}: mask"

    check(observation)
    for _ in range(steps):
        actions = random_legal(vec_env.action_masks(), rng)
        vec_env.step_async(actions)
        observation, rewards, dones, infos = vec_env.step_wait()
        assert rewards.dtype == np.float32 and rewards.shape == (n_envs,)
        assert dones.dtype == np.bool_ and dones.shape == (n_envs,)
        assert isinstance(infos, list) and len(infos) == n_envs and all(isinstance(info, dict) for info in infos)
        for i, replay in enumerate(replays):
            reward, terminated, truncated = replay.learner_plays(int(actions[i]))
            returns[i] += reward
            lengths[i] += 1
            assert (float(rewards[i]), bool(dones[i])) == (reward, terminated or truncated), f"game {i}: step"
            if not dones[i]:
                assert infos[i] == {}, f"game {i}: a running game has no end record"
                continue
            final_observation = replay.view()[0]
            info = infos[i]
            assert info["terminal_observation"].dtype == np.int32
            assert info["terminal_observation"].tolist() == final_observation, f"game {i}: terminal_observation"
            assert info["TimeLimit.truncated"] is (truncated and not terminated), f"game {i}: TimeLimit.truncated"
            assert (info["episode"]["r"], info["episode"]["l"]) == (returns[i], lengths[i]), f"game {i}: episode"
            assert isinstance(info["episode"]["t"], float) and info["episode"]["t"] >= 0
            assert info["winner"] == replay.env.state_array[WINNER]
            assert info["learner_seat"] == replay.seat, f"game {i}: the ended episode's seat, not the next one's"
            counts["truncated" if truncated else "terminated"] += 1
            returns[i], lengths[i] = 0.0, 0
            replay.start()  # SB3 resets in the same step: the observation is the new episode's
        check(observation)
    vec_env.close()
    return counts


# --- spaces and reset --------------------------------------------------------------------------------------
def test_is_an_sb3_vec_env_with_the_single_envs_spaces() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", n_envs=3, seed=0)
    single = mancala_envs.views.single_agent_env.SingleAgentEnv("ouril_v0")
    assert isinstance(vec_env, VecEnv) and vec_env.num_envs == 3
    assert vec_env.observation_space == single.observation_space
    assert vec_env.action_space == single.action_space
    observation = vec_env.reset()
    assert observation.shape == (3, 17) and observation.dtype == np.int32
    assert all(vec_env.observation_space.contains(row) for row in observation)
    assert vec_env.action_masks().shape == (3, 6) and vec_env.action_masks().dtype == np.bool_
    assert repr(vec_env) == "MancalaSB3VecEnv('ouril_v0', n_envs=3, opponent='random')"


# --- stepping, against the replays -------------------------------------------------------------------------
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_steps_follow_the_replays(opponent: str) -> None:
    counts = play_against_replays(n_envs=4, steps=60, opponent=opponent)
    assert counts["terminated"] > 0


@pytest.mark.parametrize("learner_seat", [None, 0, 1])
def test_truncated_games_set_timelimit_truncated(learner_seat: int | None) -> None:
    """``max_plies=4``: each game hits the cap; SB3 must see ``TimeLimit.truncated`` on every one."""
    counts = play_against_replays(n_envs=5, steps=12, learner_seat=learner_seat, max_plies=4)
    assert counts == {"terminated": 0, "truncated": 30}


def test_step_wait_without_step_async_says_what_to_do() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", 2, seed=0)
    vec_env.reset()
    with pytest.raises(RuntimeError, match="step_async"):
        vec_env.step_wait()


# --- masks and the VecEnv methods --------------------------------------------------------------------------
def test_masks_reach_sb3_contrib() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", 4, seed=3, max_plies=6)
    vec_env.reset()
    rng = np.random.default_rng(0)
    assert is_masking_supported(vec_env)
    for _ in range(10):
        masks = vec_env.action_masks()
        rows = vec_env.env_method("action_masks")
        assert len(rows) == 4 and all(row.tolist() == mask.tolist() for row, mask in zip(rows, masks, strict=True))
        assert [row.tolist() for row in vec_env.env_method("action_masks", indices=[1, 3])] == masks[[1, 3]].tolist()
        assert [row.tolist() for row in vec_env.env_method("action_masks", indices=2)] == [masks[2].tolist()]
        assert get_action_masks(vec_env).tolist() == masks.tolist()
        vec_env.step(random_legal(masks, rng))


def test_attributes_and_wrappers() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", 3, opponent="greedy", seed=0)
    assert vec_env.get_attr("opponent") == ["greedy"] * 3
    assert vec_env.get_attr("opponent", indices=1) == ["greedy"]
    assert vec_env.env_is_wrapped(VecMonitor) == [False] * 3
    assert list(vec_env.get_images()) == [None] * 3
    vec_env.set_attr("learner_seat", 1)
    assert vec_env.get_attr("learner_seat") == [1] * 3
    with pytest.raises(ValueError, match="every game"):
        vec_env.set_attr("learner_seat", 0, indices=[0])


# --- seeding -----------------------------------------------------------------------------------------------
def trajectory(vec_env: MancalaSB3VecEnv, steps: int = 30) -> list:
    out = [vec_env.reset().tolist()]
    for _ in range(steps):
        observation, rewards, dones, _ = vec_env.step(np.array([np.flatnonzero(m)[-1] for m in vec_env.action_masks()]))
        out.append((observation.tolist(), rewards.tolist(), dones.tolist()))
    return out


def test_seeding_is_reproducible() -> None:
    seeded = MancalaSB3VecEnv("ouril_v0", 4)
    seeded.seed(5)
    first = trajectory(seeded)
    seeded.seed(5)
    assert trajectory(seeded) == first
    assert trajectory(MancalaSB3VecEnv("ouril_v0", 4, seed=5)) == first
    other = MancalaSB3VecEnv("ouril_v0", 4)
    other.seed(6)
    assert trajectory(other) != first
    # SB3's seeds are consumed by one reset: the next reset continues the generators.
    seeded.seed(5)
    seeded.reset()
    assert trajectory(seeded) != first


# --- training ----------------------------------------------------------------------------------------------
def test_maskable_ppo_learns_on_it() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", 8, seed=0, max_plies=10)
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps == 256
    assert len(model.ep_info_buffer) > 0 and {"r", "l", "t"} <= set(model.ep_info_buffer[0])
    observation = vec_env.reset()
    masks = vec_env.action_masks()
    actions, _ = model.predict(observation, action_masks=masks, deterministic=True)
    assert all(masks[i, action] for i, action in enumerate(actions))


def test_vec_monitor_counts_the_same_episodes() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", 4, seed=2, max_plies=6)
    monitored = VecMonitor(vec_env)
    monitored.reset()
    rng = np.random.default_rng(0)
    returns, lengths, ended = np.zeros(4), np.zeros(4, int), 0
    for _ in range(20):
        _, rewards, dones, infos = monitored.step(random_legal(get_action_masks(monitored), rng))
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(dones):
            assert infos[i]["episode"]["r"] == pytest.approx(returns[i]) and infos[i]["episode"]["l"] == lengths[i]
            assert "terminal_observation" in infos[i]
            returns[i], lengths[i] = 0.0, 0
            ended += 1
    assert ended >= 20
    model = MaskablePPO("MlpPolicy", monitored, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps == 128


def test_vec_normalize_wraps_it() -> None:
    vec_env = MancalaSB3VecEnv("ouril_v0", 4, seed=2, max_plies=6)
    normalized = VecNormalize(vec_env, norm_obs=True, norm_reward=True)
    observation = normalized.reset()
    assert observation.shape == (4, 17) and observation.dtype == np.float32
    rng = np.random.default_rng(0)
    for _ in range(12):
        observation, _, dones, infos = normalized.step(random_legal(get_action_masks(normalized), rng))
        raw = normalized.get_original_obs()
        assert raw.dtype == np.int32 and np.allclose(normalized.normalize_obs(raw), observation)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].dtype == np.float32
    model = MaskablePPO("MlpPolicy", normalized, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps == 128
