"""The Gymnasium vector env of the single-agent view (:class:`mancala_envs.views.vector_env.MancalaVectorEnv`).

Each game of the vector is replayed by a reference built from the pieces the single-agent view uses:
a :class:`~mancala_envs.envs.aec_env.MancalaEnv` and the opponent's move rule (uniform over the legal moves,
or the greedy baseline), drawing from a copy of the game's own generator in the same order as the
compiled loop (the learner's seat, the first player, then the opponent's moves). After every step
the learner's observation, mask, reward, end flags and the whole engine state must be the
reference's.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import mancala_envs
from mancala_envs.algorithms.playouts import greedy_action, legal_action_at
from mancala_envs.common.errors import IllegalActionError
from mancala_envs.engine.prng import new_words, uniform
from mancala_envs.engine.state import HISTORY_LEN, LEGAL, RUNNING, STATUS
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.games.two_row_family.two_row_rules import HISTORY_START, TwoRowGame
from mancala_envs.views.vector_env import MancalaVectorEnv

AGENTS = ("player_0", "player_1")
ALL_IDS = [variant.id for variant in VARIANTS]


class ReferenceGame:
    """One game of the vector, replayed with a MancalaEnv and a copy of the game's generator."""

    def __init__(
        self,
        env_id: str,
        words: np.ndarray,
        opponent: str | list[str],
        learner_seat: int | None,
        options: dict[str, Any],
    ) -> None:
        self.env_id = env_id
        self.words = words.copy()
        self.pool = opponent if isinstance(opponent, list) else [opponent]
        self.member = 0
        self.opponent = self.pool[0]
        self.learner_seat = learner_seat
        self.options = options
        self.new_episode()

    def draw(self) -> float:
        return uniform(self.words)

    def new_episode(self) -> None:
        while True:
            self.seat = (1 if self.draw() < 0.5 else 0) if self.learner_seat is None else self.learner_seat
            if len(self.pool) > 1:  # a list of opponents: one drawn uniformly after the seat
                self.member = min(int(self.draw() * len(self.pool)), len(self.pool) - 1)
                self.opponent = self.pool[self.member]
            first = self.options.get("first_player")
            if first is None:
                first = 1 if self.draw() < 0.5 else 0
            options = {key: value for key, value in self.options.items() if key != "first_player"}
            self.env = mancala_envs.make(self.env_id, first_player=first, illegal_action="raise", **options).unwrapped
            self.env.reset()
            self.opponent_moves()
            if self.env.state_array[STATUS] == RUNNING:
                return

    def opponent_moves(self) -> None:
        env = self.env
        other = AGENTS[1 - self.seat]
        while env.agents and env.agent_selection == other and env.state_array[STATUS] == RUNNING:
            state = env.state_array
            if self.opponent == "greedy":
                action = env.game.compiled(greedy_action)(state, env.game.params, np.empty_like(state), self.draw())
            else:
                action = legal_action_at(state[LEGAL], self.draw())
            env.step(int(action))

    def learner_step(self, action: int) -> tuple[float, bool, bool]:
        env = self.env
        learner = AGENTS[self.seat]
        env.step(int(action))
        self.opponent_moves()
        over = not env.agents or env.terminations[learner] or env.truncations[learner]
        if not over:
            return 0.0, False, False
        return float(env.cumulative_reward(learner)), bool(env.terminations[learner]), bool(env.truncations[learner])

    def view(self) -> tuple[np.ndarray, np.ndarray]:
        return self.env.game.observe_with_mask(self.env.state_array, self.seat)


def comparable(game: Any, state: np.ndarray) -> np.ndarray:
    """The engine state without the unused repetition slots (beyond ``HISTORY_LEN``)."""
    state = state.copy()
    if isinstance(game, TwoRowGame) and game.params[HISTORY_START]:
        state[int(game.params[HISTORY_START]) + int(state[HISTORY_LEN]) :] = 0
    return state


def run_against_reference(
    env_id: str,
    *,
    opponent: str | list[str] = "random",
    mode: str = "same_step",
    steps: int = 60,
    num_envs: int = 4,
    seed: int = 3,
    learner_seat: int | None = None,
    history_capacity: int = 24,
    **options: Any,
) -> int:
    """Plays seeded random learner actions in the vector and in the references; returns the episodes ended."""
    envs = MancalaVectorEnv(
        env_id,
        num_envs,
        opponent=opponent,
        learner_seat=learner_seat,
        autoreset_mode=mode,
        history_capacity=history_capacity,
        **options,
    )
    observation, infos = envs.reset(seed=seed)
    words = new_words(np.random.default_rng(seed), num_envs)
    references = [ReferenceGame(env_id, words[i], opponent, learner_seat, options) for i in range(num_envs)]
    rng = np.random.default_rng(seed + 100)
    waiting = np.zeros(num_envs, bool)
    ended_episodes = 0

    def check(observation: np.ndarray, masks: np.ndarray) -> None:
        for i, reference in enumerate(references):
            expected_observation, expected_mask = reference.view()
            assert observation[i].tolist() == expected_observation.tolist(), f"game {i}: observation"
            if waiting[i]:
                assert masks[i].all(), f"game {i}: a game waiting for its reset accepts every action"
            else:
                assert masks[i].tolist() == expected_mask.astype(bool).tolist(), f"game {i}: mask"
            assert infos["learner_seat"][i] == reference.seat
            assert envs.learner_seats[i] == reference.seat
            assert envs.learner_opponents[i] == reference.member
            game = reference.env.game
            assert comparable(game, envs.state(i)).tolist() == comparable(game, reference.env.state_array).tolist()

    check(observation, envs.action_masks())
    for _ in range(steps):
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observation, rewards, terminated, truncated, infos = envs.step(actions)
        for i, reference in enumerate(references):
            if waiting[i]:  # next-step reset: the action is ignored
                reference.new_episode()
                assert (rewards[i], terminated[i], truncated[i]) == (0.0, False, False)
                waiting[i] = False
                continue
            final_observation = None
            reward, term, trunc = reference.learner_step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc), f"game {i}: end"
            if term or trunc:
                ended_episodes += 1
                final_observation, _ = reference.view()
                state = reference.env.state_array
                assert "episode" not in infos  # RecordEpisodeStatistics's key (tests/views/test_vector_integration.py)
                if mode == "same_step":
                    assert infos["final_obs"][i].tolist() == final_observation.tolist()
                    final = infos["final_info"]
                    assert final["_winner"][i] and final["episode_return"][i] == reward
                    assert final["winner"][i] == state[mancala_envs.engine.state.WINNER]
                    assert final["end_reason"][i] == state[mancala_envs.engine.state.END_REASON]
                    assert final["learner_seat"][i] == reference.seat
                    assert final["opponent"][i] == reference.member
                    reference.new_episode()
                else:
                    waiting[i] = True
        check(observation, envs.action_masks())
    return ended_episodes


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_variant_plays_as_the_reference_against_random(env_id: str) -> None:
    run_against_reference(env_id, opponent="random", mode="same_step", steps=40)


@pytest.mark.parametrize("env_id", mancala_envs.envs.registration.game_names())
@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_greedy_opponent_and_both_reset_modes(env_id: str, mode: str) -> None:
    ended = run_against_reference(env_id, opponent="greedy", mode=mode, steps=80, num_envs=3)
    assert ended > 0, "the run should see episodes end"


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_short_games_end_and_reset_many_times(mode: str) -> None:
    """A ply cap of 6 ends every game quickly: truncations, both reset modes, many episodes."""
    ended = run_against_reference("ouril_v0", mode=mode, steps=40, num_envs=5, max_plies=6)
    assert ended >= 20


def test_spill_area_and_fixed_seat_and_first_player() -> None:
    """A repetition memory of 3 keys in each row sends games to the spill area all the time."""
    run_against_reference("rio_kadalis_v0", steps=120, num_envs=4, history_capacity=3, learner_seat=1)
    run_against_reference("ouril_v0", steps=60, num_envs=4, history_capacity=3, learner_seat=0, first_player=1)


def test_match_points_rewards() -> None:
    """Short games (a ply cap of 8) make a match of several games end within the run."""
    ended = run_against_reference(
        "mancala/urim-match-v0", steps=150, num_envs=3, reward_mode="match_points", opponent="greedy", max_plies=8
    )
    assert ended > 0


def test_spaces_and_gymnasium_registration() -> None:
    envs = gymnasium.make_vec("mancala/Omweso-v0", num_envs=3)
    assert isinstance(envs.unwrapped, MancalaVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    observation, infos = envs.reset(seed=0)
    assert observation.dtype == np.int32 and observation.shape == (3, 48)
    assert envs.observation_space.contains(observation)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([48, 48, 48])
    assert infos["action_mask"].shape == (3, 48)
    single = gymnasium.make("mancala/Omweso-v0")
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    sync = gymnasium.make_vec("mancala/Omweso-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync.unwrapped, gymnasium.vector.SyncVectorEnv)
    same = gymnasium.make_vec("mancala/Ouril-v0", num_envs=2, autoreset_mode="same_step", opponent="greedy")
    assert same.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert same.unwrapped.opponent == "greedy"
    for _ in range(50):
        observation, *_ = envs.step(np.array([np.flatnonzero(mask)[0] for mask in envs.unwrapped.action_masks()]))
        assert envs.observation_space.contains(observation)


def test_seeding_is_reproducible_and_per_game() -> None:
    def run(seed: Any, num_envs: int) -> list[list[int]]:
        envs = MancalaVectorEnv("urim_v0", num_envs)
        observation, _ = envs.reset(seed=seed)
        out = [observation.tolist()]
        for _ in range(30):
            observation, *_ = envs.step(np.array([np.flatnonzero(mask)[-1] for mask in envs.action_masks()]))
            out.append(observation.tolist())
        return out

    assert run(7, 4) == run(7, 4)
    assert run(7, 4) != run(8, 4)
    four, eight = run(7, 4), run(7, 8)
    assert [step[:4] for step in eight] == four, "game i's stream does not depend on the vector's size"
    listed = run([11, 12, 13], 3)
    assert [step[1] for step in listed] == [step[0] for step in run([12], 1)]


def test_bad_input_is_rejected_and_changes_nothing() -> None:
    envs = MancalaVectorEnv("ouril_v0", 3)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(3, int))
    envs.reset(seed=0)
    before = [envs.state(i) for i in range(3)]
    masks = envs.action_masks()
    illegal = np.array([np.flatnonzero(mask)[0] for mask in masks])
    # Make game 1's action illegal: find an action not in its mask, emptying a pit first if needed.
    for _ in range(20):
        if not masks[1].all():
            break
        envs.step(np.array([np.flatnonzero(mask)[0] for mask in masks]))
        masks = envs.action_masks()
        before = [envs.state(i) for i in range(3)]
    assert not masks[1].all()
    illegal = np.array([np.flatnonzero(mask)[0] for mask in masks])
    illegal[1] = np.flatnonzero(~masks[1])[0]
    with pytest.raises(IllegalActionError, match=r"games \[1\]"):
        envs.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        envs.step(np.array([0, 6, 0]))
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.zeros(2, int))
    with pytest.raises(TypeError, match="integers"):
        envs.step(np.zeros(3))
    assert all((envs.state(i) == before[i]).all() for i in range(3)), "a rejected step changed a game"
    assert (envs.action_masks() == masks).all()
    envs.step(np.array([np.flatnonzero(mask)[0] for mask in masks]))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"opponent": "sb3:model.zip"}, ValueError, "opponent must be a compiled agent"),
        ({"opponent": "alphabeta:0"}, ValueError, "alphabeta depth must be an integer from 1 to 64"),
        ({"learner_seat": 2}, ValueError, "learner_seat"),
        ({"autoreset_mode": "sometimes"}, ValueError, "autoreset_mode"),
        ({"num_envs": 0}, ValueError, "num_envs must be an integer >= 1"),
        ({"history_capacity": 1}, ValueError, "history_capacity"),
        ({"pits_per_row": 5}, ValueError, "pits_per_row"),
        ({"env_id": "oware_v0"}, ValueError, "unknown environment"),
    ],
)
def test_bad_construction(kwargs: dict[str, Any], error: type, match: str) -> None:
    arguments = {"env_id": "ouril_v0", **kwargs}
    with pytest.raises(error, match=match):
        MancalaVectorEnv(**arguments)


def test_win_rates_follow_the_opponents_strength() -> None:
    """A random learner scores about 0 against random and clearly below 0 against greedy."""
    means = {}
    for opponent in ("random", "greedy"):
        envs = MancalaVectorEnv("ouril_v0", 32, opponent=opponent, autoreset_mode="same_step")
        envs.reset(seed=1)
        rng = np.random.default_rng(1)
        total, episodes = 0.0, 0
        while episodes < 400:
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in envs.action_masks()])
            _, rewards, terminated, truncated, _ = envs.step(actions)
            total += rewards.sum()
            episodes += int((terminated | truncated).sum())
        means[opponent] = total / episodes
    assert abs(means["random"]) < 0.15
    assert means["greedy"] < -0.5


def test_running_state_is_consistent() -> None:
    envs = MancalaVectorEnv("omweso_v0", 4, learner_seat=0)
    envs.reset(seed=2)
    for i in range(4):
        state = envs.state(i)
        assert state[STATUS] == RUNNING and state[mancala_envs.engine.state.PLAYER] == 0


@pytest.mark.parametrize(
    ("opponent", "best_learner_mean"), [("random", None), ("alphabeta:2", -0.5), ("mcts:40", -0.5)]
)
def test_search_opponents_play_inside_the_compiled_loop(opponent: str, best_learner_mean: float | None) -> None:
    """Every compiled agent can hold the opponent's seat: a learner playing at random scores about 0
    against the random opponent and loses nearly every game against the searches (the games are
    seeded, so the figures are exact for this seed)."""
    envs = MancalaVectorEnv("ouril_v0", num_envs=16, opponent=opponent)
    rng = np.random.default_rng(0)
    observation, _infos = envs.reset(seed=3)
    returns = []
    while len(returns) < 48:
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observation, rewards, terminated, truncated, _infos = envs.step(actions)
        assert (observation[:, :12] >= 0).all()
        returns.extend(rewards[terminated | truncated].tolist())
    mean = float(np.mean(returns))
    if best_learner_mean is None:
        assert -0.5 < mean < 0.5
    else:
        assert mean < best_learner_mean, f"a random learner scored {mean} against {opponent}"


@pytest.mark.parametrize("env_id", mancala_envs.envs.registration.game_names())
@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_a_list_of_opponents_draws_one_per_episode(env_id: str, mode: str) -> None:
    """Each episode plays the member drawn from the game's generator after the seat, in one compiled call."""
    ended = run_against_reference(env_id, opponent=["random", "greedy"], mode=mode, steps=80, num_envs=3)
    assert ended > 0
    run_against_reference(env_id, opponent=["greedy", "random", "random"], mode=mode, steps=40, num_envs=3, seed=5)


def test_a_list_of_opponents_is_reported_and_draws_every_member() -> None:
    envs = MancalaVectorEnv("ouril_v0", 16, opponent=["random", "greedy"], autoreset_mode="same_step", max_plies=10)
    assert envs.opponent == ["random", "greedy"] and "opponent=['random', 'greedy']" in repr(envs)
    envs.reset(seed=0)
    seen: set[int] = set()
    for _ in range(30):
        actions = np.array([np.flatnonzero(mask)[0] for mask in envs.action_masks()])
        *_, infos = envs.step(actions)
        if "final_info" in infos:
            seen.update(infos["final_info"]["opponent"][infos["_final_info"]].tolist())
    assert seen == {0, 1}
    assert (
        set(envs.learner_opponents.tolist()) <= {0, 1}
        and envs.get_attr("learner_opponents")[3] == envs.learner_opponents[3]
    )


def test_one_opponent_in_a_list_plays_as_the_name_alone() -> None:
    """A list of one member draws nothing more: the games are those of the name alone."""
    runs = []
    for opponent in ("greedy", ["greedy"]):
        envs = MancalaVectorEnv("kalah_v0", 4, opponent=opponent)
        observation, _ = envs.reset(seed=7)
        trail = [observation.copy()]
        for _ in range(40):
            actions = np.array([np.flatnonzero(mask)[-1] for mask in envs.action_masks()])
            observation, rewards, *_ = envs.step(actions)
            trail += [observation.copy(), rewards.copy()]
        runs.append(trail)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))


def test_set_opponent_to_a_list_and_bad_lists() -> None:
    envs = MancalaVectorEnv("urim_v0", 3, opponent="random")
    envs.reset(seed=1)
    envs.set_attr("opponent", [["random", "greedy"]] * 3)
    assert envs.opponent == ["random", "greedy"] and envs.get_attr("opponent")[0] == ["random", "greedy"]
    with pytest.raises(ValueError, match="empty list"):
        envs.set_opponent([])
    with pytest.raises(ValueError, match="compiled agent"):
        envs.set_opponent(["random", "model:foo.zip"])
    assert envs.opponent == ["random", "greedy"], "a rejected list changes nothing"
    envs.set_opponent("greedy")
    assert envs.learner_opponents.tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="empty list"):
        MancalaVectorEnv("urim_v0", 3, opponent=[])
