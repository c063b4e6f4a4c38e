"""The single-agent Gymnasium view (:class:`mancala_envs.views.single_agent_env.SingleAgentEnv`).

The view is checked against the AEC environment it wraps (``env.aec_env``): after every reset and
step the learner is the agent to move, and its observation, mask and reward are the AEC env's for
the learner's seat. Exact positions are worked out by hand from docs/rules/ouril.md and from the
worked examples of docs/rules/omweso.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import mancala_envs
from mancala_envs.agents import RandomAgent
from mancala_envs.common.errors import GameOverError, IllegalActionError
from mancala_envs.engine.state import END_ILLEGAL_ACTION, END_MAX_PLIES, END_THRESHOLD
from mancala_envs.envs.registration import VARIANTS, list_gymnasium_envs
from mancala_envs.views.single_agent_env import SingleAgentEnv

from support.actions import first_legal

GYMNASIUM_IDS = list_gymnasium_envs()
AGENTS = ("player_0", "player_1")
# Random masked play covers a plain two-row game, its small board, Modiar, the Rio Kadalis match
# (refills, closed pits), Omweso (mid-turn choices) and Omweso's placement phase (the opponent
# places 32 seeds inside one step).
PLAYED_IDS = [
    "mancala/ouril-v0",
    "mancala/ouril-mini-v0",
    "mancala/modiar-v0",
    "mancala/rio-kadalis-match-v0",
    "mancala/omweso-v0",
    "mancala/omweso-placement-v0",
]
MATCH_IDS = ["mancala/urim-match-v0", "mancala/rio-kadalis-match-v0", "mancala/omweso-match-v0"]


class Recorder:
    """A callable opponent that plays the lowest legal action and keeps what it was shown."""

    def __init__(self, name: str = "recorder") -> None:
        self.__name__ = name
        self.seen: list[tuple[list[int], list[int]]] = []

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.seen.append((observation.tolist(), np.flatnonzero(action_mask).tolist()))
        return first_legal(observation, action_mask)


def play_masked(
    env: SingleAgentEnv,
    seed: int,
    rng: np.random.Generator,
    check: Callable[[np.ndarray, float, bool, bool, dict[str, Any]], None],
) -> tuple[float, bool, bool, dict[str, Any]]:
    """Plays one episode of uniformly random legal learner actions, calling ``check`` after reset and every step."""
    observation, info = env.reset(seed=seed)
    check(observation, 0.0, False, False, info)
    terminated = truncated = False
    reward = 0.0
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        check(observation, reward, terminated, truncated, info)
    return reward, terminated, truncated, info


# --- 1. checkers ---------------------------------------------------------------------------------


def test_every_variant_has_a_gymnasium_id() -> None:
    assert len(GYMNASIUM_IDS) == len(VARIANTS) == 19
    assert GYMNASIUM_IDS[:3] == ["mancala/Ouril-v0", "mancala/OurilMini-v0", "mancala/Urim-v0"]
    assert "mancala/RioKadalisMatch-v0" in GYMNASIUM_IDS
    assert "mancala/OmwesoNoMidturnReverse-v0" in GYMNASIUM_IDS
    assert "mancala/Kalah6x6-v0" in GYMNASIUM_IDS
    for gym_id, variant in zip(GYMNASIUM_IDS, VARIANTS, strict=True):
        spec = gymnasium.spec(gym_id)
        assert spec.entry_point == "mancala_envs.views.single_agent_env:SingleAgentEnv"
        assert spec.kwargs == {"env_id": variant.id, "opponent": "random"}


@pytest.mark.parametrize("gym_id", GYMNASIUM_IDS)
def test_gymnasium_and_sb3_checkers_pass(gym_id: str) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = gymnasium.make(gym_id).unwrapped
    assert isinstance(env, SingleAgentEnv)
    gymnasium_check_env(env, skip_render_check=True)  # a warning fails the test (filterwarnings=error)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(gymnasium.make(gym_id).unwrapped, warn=True)
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []


# --- 2. registration --------------------------------------------------------------------------------


def test_gymnasium_make_in_a_fresh_interpreter() -> None:
    code = (
        "import sys, gymnasium\n"
        "assert 'mancala_envs' not in sys.modules\n"
        "env = gymnasium.make('mancala_envs:mancala/Ouril-v0', opponent='greedy')\n"
        "observation, info = env.reset(seed=0)\n"
        "raw = env.unwrapped\n"
        "print(type(raw).__name__, raw.opponent.name, raw.env_id, observation.shape, sorted(info))\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "SingleAgentEnv greedy mancala/ouril-v0 (17,) ['action_mask', 'learner_seat']"


@pytest.mark.parametrize("gym_id", GYMNASIUM_IDS)
def test_spec_round_trips_through_json(gym_id: str) -> None:
    env = gymnasium.make(gym_id)
    text = env.spec.to_json()
    assert json.loads(text)["kwargs"]["opponent"] == "random"
    rebuilt_spec = EnvSpec.from_json(text)
    assert rebuilt_spec == env.spec
    rebuilt = gymnasium.make(rebuilt_spec)
    for seed in (0, 7):
        observation, info = env.reset(seed=seed)
        rebuilt_observation, rebuilt_info = rebuilt.reset(seed=seed)
        assert rebuilt_observation.tolist() == observation.tolist()
        assert rebuilt_info["learner_seat"] == info["learner_seat"]
        assert rebuilt_info["action_mask"].tolist() == info["action_mask"].tolist()


def test_spec_keeps_keywords_given_to_make() -> None:
    env = gymnasium.make("mancala/OurilMini-v0", opponent="greedy", learner_seat=1, max_plies=50)
    rebuilt = gymnasium.make(EnvSpec.from_json(env.spec.to_json())).unwrapped
    assert rebuilt.opponent.name == "greedy"
    assert rebuilt.learner_seat == 1
    assert rebuilt.game.config.max_plies == 50
    assert rebuilt.game.config.pits_per_row == 4


# --- 3. seat -----------------------------------------------------------------------------------------


def test_seat_is_drawn_from_the_seeded_generator() -> None:
    env, twin = SingleAgentEnv("ouril_v0"), SingleAgentEnv("ouril_v0")
    ply = env.game.observation_names().index("ply")
    seats, opponent_started = set(), set()
    for seed in range(40):
        observation, info = env.reset(seed=seed)
        twin_observation, twin_info = twin.reset(seed=seed)
        assert env.seat == twin.seat == info["learner_seat"] == twin_info["learner_seat"]
        assert env.learner == AGENTS[env.seat]
        assert observation.tolist() == twin_observation.tolist()
        again, again_info = env.reset(seed=seed)
        assert again_info["learner_seat"] == info["learner_seat"]
        assert again.tolist() == observation.tolist()
        seats.add(env.seat)
        # The opponent moves first whenever the AEC env's drawn first player is its seat.
        last_move = env.aec_env.last_move
        if observation[ply] == 1:
            assert last_move["player"] == 1 - env.seat
        else:
            assert observation[ply] == 0 and last_move is None
        opponent_started.add(int(observation[ply]))
    assert seats == {0, 1}
    assert opponent_started == {0, 1}


@pytest.mark.parametrize("seat", [0, 1])
def test_learner_seat_fixes_the_seat(seat: int) -> None:
    env = SingleAgentEnv("omweso_v0", learner_seat=seat)
    for seed in range(12):
        observation, info = env.reset(seed=seed)
        assert env.seat == info["learner_seat"] == seat
        assert env.learner == AGENTS[seat]
        assert env.aec_env.agent_selection == AGENTS[seat]
        assert observation.tolist() == env.aec_env.observe(AGENTS[seat])["observation"].tolist()


def test_same_seed_same_episode() -> None:
    def episode(seed: int) -> list[Any]:
        env = SingleAgentEnv("ouril_v0", opponent="random")
        observation, info = env.reset(seed=seed)
        record: list[Any] = [observation.tolist(), info["learner_seat"]]
        terminated = truncated = False
        while not (terminated or truncated):
            observation, reward, terminated, truncated, info = env.step(first_legal(observation, info["action_mask"]))
            record.append((observation.tolist(), reward))
        return record

    assert episode(3) == episode(3)
    assert len({json.dumps(episode(seed)) for seed in range(4)}) > 1


# --- 4. the learner's view ---------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", PLAYED_IDS)
def test_learner_view_is_the_aec_view(env_id: str) -> None:
    env = SingleAgentEnv(env_id)
    names = env.game.observation_names()
    is_to_move = names.index("is_to_move")
    rng = np.random.default_rng(11)

    def check(observation: np.ndarray, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]) -> None:
        raw = env.aec_env
        view = raw.observe(env.learner)
        assert observation.dtype == np.int32 and env.observation_space.contains(observation)
        assert observation.tolist() == view["observation"].tolist()
        assert info["action_mask"].dtype == np.int8
        assert info["action_mask"].tolist() == view["action_mask"].tolist()
        assert env.action_masks().dtype == np.bool_
        assert env.action_masks().tolist() == view["action_mask"].astype(bool).tolist()
        assert info["learner_seat"] == env.seat
        assert isinstance(reward, float)
        if terminated or truncated:
            assert not info["action_mask"].any() and not env.action_masks().any()
            assert observation[is_to_move] == 0
        else:
            assert reward == 0.0
            assert raw.agent_selection == env.learner
            assert observation[is_to_move] == 1
            assert info["action_mask"].any()

    for seed in range(4):
        play_masked(env, seed, rng, check)


# --- 5. rewards ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ["mancala/ouril-v0", "mancala/urim-v0", "mancala/modiar-v0", "mancala/omweso-v0"])
def test_terminal_reward_is_the_learners_own(env_id: str) -> None:
    env = SingleAgentEnv(env_id)
    rng = np.random.default_rng(5)
    enders = []
    for seed in range(12):
        reward, terminated, truncated, info = play_masked(env, seed, rng, lambda *step: None)
        facts = env.aec_env.facts()
        winner = facts["winner"]
        expected = 0.0 if winner is None else (1.0 if winner == env.seat else -1.0)
        assert reward == expected
        assert info["winner"] == (-1 if winner is None else winner), "a draw is -1 in the Gymnasium info"
        assert env.aec_env.game.end_reason_names[info["end_reason"]] == facts["end_reason"]  # a code, by default
        assert terminated == env.aec_env.terminations[env.learner]
        assert truncated == env.aec_env.truncations[env.learner]
        enders.append("learner" if facts["last_move"]["player"] == env.seat else "opponent")
    # Both kinds of end occur: the learner's move ended the game, and the opponent's did.
    assert set(enders) == {"learner", "opponent"}


@pytest.mark.parametrize("env_id", MATCH_IDS)
def test_match_points_reward(env_id: str) -> None:
    env = SingleAgentEnv(env_id, reward_mode="match_points")
    rng = np.random.default_rng(9)
    rewards, enders = [], set()
    for seed in range(12):
        reward, _, _, _ = play_masked(env, seed, rng, lambda *step: None)
        facts = env.aec_env.facts()
        points = facts["match_points"]
        assert reward == float(points[env.seat] - points[1 - env.seat])
        rewards.append(reward)
        enders.add(facts["last_move"]["player"] == env.seat)
    assert any(abs(reward) > 1 for reward in rewards)  # points, not +1 / -1
    assert enders == {True, False}


def test_opponent_move_that_truncates_gives_the_learner_its_loss() -> None:
    # docs/rules/ouril.md O14: max_plies=2; P0 local 2, then P1 local 0 (5 seeds: 7..11).
    # Rows: P0 [4,4,0,5,5,5] = 23, P1 [0,5,5,5,5,5] = 25: P1 wins, the cap truncates.
    env = SingleAgentEnv("ouril_v0", opponent=first_legal, learner_seat=0, first_player=0, max_plies=2)
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(2)
    assert (reward, terminated, truncated) == (-1.0, False, True)
    assert (info["end_reason"], info["scores"].tolist(), info["winner"]) == (END_MAX_PLIES, [23, 25], 1)
    assert (info["last_player"], info["last_action"]) == (1, 0)
    assert env.aec_env.facts()["end_reason"] == "max_plies"
    assert env.aec_env.last_move == {"player": 1, "action": 0, "sown": [7, 8, 9, 10, 11], "captures": []}
    assert observation.tolist() == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 25, 0, 0, 2]
    assert info["action_mask"].tolist() == [0] * 6


def test_learner_move_that_reaches_the_threshold_wins() -> None:
    # docs/rules/ouril.md O6: local 4 (3 seeds) sows 5, 6, 7; pit 7 -> 2 and pit 6 -> 2 are captured:
    # 22 + 4 = 26 >= 25. The board stays as it is.
    env = SingleAgentEnv("ouril_v0", opponent=first_legal, learner_seat=0, first_player=0)
    env.reset(options={"board": [3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], "stores": [22, 13], "player": 0})
    observation, reward, terminated, truncated, info = env.step(4)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert env.aec_env.board.tolist() == [3, 3, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0]
    assert (info["end_reason"], info["scores"].tolist(), info["winner"]) == (END_THRESHOLD, [26, 13], 0)
    assert env.aec_env.facts()["end_reason"] == "threshold"
    assert observation.tolist() == [3, 3, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 26, 13, 0, 0, 1]
    assert info["action_mask"].tolist() == [0] * 6 and not env.action_masks().any()


# --- 6. an exact scenario --------------------------------------------------------------------------------


def test_exact_ouril_exchange() -> None:
    env = SingleAgentEnv("ouril_v0", opponent=first_legal, learner_seat=0, first_player=0)
    board = [1, 0, 2, 0, 0, 2, 1, 1, 4, 2, 0, 1]  # 14 seeds on the board, 34 in the stores
    observation, info = env.reset(options={"board": board, "stores": [17, 17], "player": 0})
    assert observation.tolist() == [*board, 17, 17, 1, 0, 0]
    assert set(info) == {"action_mask", "learner_seat"} and info["learner_seat"] == 0
    assert info["action_mask"].tolist() == [1, 0, 1, 0, 0, 1]

    # Learner local 5 (2 seeds): 6 -> 2, 7 -> 2; pit 7 (2) and pit 6 (2) are captured, the row edge stops
    # the chain: stores [21, 17]. Opponent (P1 local [0,0,4,2,0,1], mask [0,0,1,1,0,1]) plays local 2 =
    # pit 8 (4 seeds): 9 -> 3, 10 -> 1, 11 -> 2, 0 -> 2; pit 0 (2) is captured, pit 11 is its own: [21, 19].
    observation, reward, terminated, truncated, info = env.step(5)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.aec_env.board.tolist() == [0, 0, 2, 0, 0, 0, 0, 0, 0, 3, 1, 2]
    assert env.aec_env.stores.tolist() == [21, 19]
    assert env.aec_env.agent_selection == "player_0"
    assert env.aec_env.last_move == {
        "player": 1,
        "action": 2,
        "sown": [9, 10, 11, 0],
        "captures": [[0, 2]],
    }
    assert observation.tolist() == [0, 0, 2, 0, 0, 0, 0, 0, 0, 3, 1, 2, 21, 19, 1, 0, 2]
    assert info["action_mask"].tolist() == [0, 0, 1, 0, 0, 0]
    assert env.action_masks().tolist() == [False, False, True, False, False, False]

    # Learner local 2 (2 seeds): 3, 4, its own row. Opponent (P1 local [0,0,0,3,1,2]) plays local 3 =
    # pit 9 (3 seeds): 10 -> 2, 11 -> 3, 0 -> 1: no capture.
    observation, reward, terminated, truncated, info = env.step(2)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.aec_env.board.tolist() == [1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 2, 3]
    assert env.aec_env.stores.tolist() == [21, 19]
    assert observation.tolist() == [1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 2, 3, 21, 19, 1, 0, 4]
    assert info["action_mask"].tolist() == [1, 0, 0, 1, 1, 0]


def test_exact_opening_when_the_opponent_starts() -> None:
    # The learner sits at seat 1, player 0 starts: the opponent's local 0 (4 seeds) sows pits 1..4 inside
    # reset. The learner sees its own row (pits 6..11) first, then player 0's row.
    env = SingleAgentEnv("ouril_v0", opponent=first_legal, learner_seat=1, first_player=0)
    observation, info = env.reset(seed=0)
    assert env.aec_env.board.tolist() == [0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4]
    assert observation.tolist() == [4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 0, 0, 1, 0, 1]
    assert info["action_mask"].tolist() == [1] * 6 and info["learner_seat"] == 1
    assert env.aec_env.agent_selection == "player_1"


# --- 7. Omweso's mid-turn choices ----------------------------------------------------------------------------


class RecordingRandomAgent(RandomAgent):
    """The random baseline, counting the decision points it faced."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.decision_points = 0

    def act(self, env: Any) -> int:
        raw = env.unwrapped
        view = raw.observe(raw.agent_selection)
        pending = raw.game.observation_names().index("pending_choice")
        if view["observation"][pending] == 1:
            k = int(np.flatnonzero(view["action_mask"])[0])
            assert np.flatnonzero(view["action_mask"]).tolist() == [k, 16 + k]
            self.decision_points += 1
        return super().act(env)


@pytest.mark.parametrize("opponent_kind", ["random", "recording"])
def test_omweso_decision_points_stay_with_who_faces_them(opponent_kind: str) -> None:
    # "random" is the plain baseline (which the view may play in compiled code); "recording" is the same
    # baseline through Python, counting the decision points it is asked about.
    recording = RecordingRandomAgent(seed=2)
    env = SingleAgentEnv("mancala/omweso-v0", opponent="random" if opponent_kind == "random" else recording)
    names = env.game.observation_names()
    is_to_move, pending, pending_pit = (names.index(n) for n in ("is_to_move", "pending_choice", "pending_pit"))
    rng = np.random.default_rng(4)
    learner_decisions = opponent_decisions = unchecked = 0

    def check_view(observation: np.ndarray, info: dict[str, Any]) -> None:
        nonlocal learner_decisions
        assert observation[is_to_move] == 1
        facts = env.aec_env.facts()
        if observation[pending] == 1:
            k = int(observation[pending_pit])
            assert np.flatnonzero(info["action_mask"]).tolist() == [k, 16 + k]
            assert facts["pending"]["actions"] == [k, 16 + k]
            learner_decisions += 1
        else:
            assert facts["pending"] is None

    for seed in range(16):
        observation, info = env.reset(seed=seed)
        check_view(observation, info)
        # The opponent's decision points are the plies it played beyond one per completed turn: inside
        # reset only the opponent can have moved.
        facts = env.aec_env.facts()
        ply, turn = facts["ply"], facts["turn"]
        opponent_decisions += ply - turn
        while True:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            recorded = recording.decision_points
            observation, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:  # the turn count of a finished game is not compared
                unchecked += recording.decision_points - recorded
                assert reward in (-1.0, 0.0, 1.0)
                break
            check_view(observation, info)
            facts = env.aec_env.facts()
            learner_turns = 0 if observation[pending] == 1 else 1  # a learner decision point: its turn goes on
            opponent_plies, opponent_turns = facts["ply"] - ply - 1, facts["turn"] - turn - learner_turns
            opponent_decisions += opponent_plies - opponent_turns
            ply, turn = facts["ply"], facts["turn"]
    assert learner_decisions > 0
    assert opponent_decisions > 0
    if opponent_kind == "recording":
        assert opponent_decisions == recording.decision_points - unchecked


W9_P0 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2]
W9_P1 = [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
# W9 after action 11 then 31 (docs/rules/omweso.md): capture 5 at pit 12, counter-clockwise re-sow.
W9_AFTER_31_P0 = [3, 3, 1, 4, 1, 2, 2, 2, 2, 1, 0, 0, 3, 3, 3, 0]
W9_AFTER_31_P1 = [4, 2, 2, 3, 0, 2, 2, 4, 0, 3, 2, 0, 3, 3, 2, 2]


def test_omweso_learner_decision_point_w9() -> None:
    recorder = Recorder()
    env = SingleAgentEnv("omweso_v0", opponent=recorder, learner_seat=0, first_player=0)
    env.reset(options={"board": W9_P0 + W9_P1, "player": 0})
    observation, reward, terminated, truncated, info = env.step(11)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert recorder.seen == []  # the decision point is the learner's: the opponent has not been asked
    assert observation[32:].tolist() == [1, 0, 0, 1, 15, 3, 0, 11, 1, 1, 0, 0, 0, 0, 0, 2]
    assert np.flatnonzero(info["action_mask"]).tolist() == [15, 31]
    env.step(31)
    # The opponent's first view is the board after the learner's whole turn, in its own frame.
    opponent_observation = recorder.seen[0][0]
    assert opponent_observation[:32] == W9_AFTER_31_P1 + W9_AFTER_31_P0
    assert opponent_observation[32] == 1 and opponent_observation[35] == 0
    assert env.aec_env.agent_selection == "player_0"


def test_omweso_opponent_decision_point_w9_is_answered_by_the_opponent() -> None:
    script = iter([11, 31])
    seen = []

    def scripted(observation: np.ndarray, action_mask: np.ndarray) -> int:
        seen.append((int(observation[35]), np.flatnonzero(action_mask).tolist()))
        return next(script)

    env = SingleAgentEnv("omweso_v0", opponent=scripted, learner_seat=1, first_player=0)
    observation, _ = env.reset(options={"board": W9_P0 + W9_P1, "player": 0})
    assert seen[1] == (1, [15, 31])  # the opponent's decision point went to the opponent
    assert len(seen) == 2
    assert env.aec_env.board.tolist() == W9_AFTER_31_P0 + W9_AFTER_31_P1
    assert observation[:32].tolist() == W9_AFTER_31_P1 + W9_AFTER_31_P0
    assert observation[32] == 1 and observation[35] == 0
    assert env.aec_env.agent_selection == "player_1"


# --- 8. illegal actions -----------------------------------------------------------------------------------------

# Player 0 holds a single seed in pit 1: only action 1 is legal.
LONE_SEED = {"board": [0, 1, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4], "stores": [12, 11], "player": 0}


def test_illegal_action_penalty_ends_the_episode_and_changes_nothing() -> None:
    recorder = Recorder()
    env = SingleAgentEnv("ouril_v0", opponent=recorder, learner_seat=0, first_player=0)
    env.reset(seed=0, options=LONE_SEED)
    position = env.aec_env.position()
    observation, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True
    # The ended game's facts, as at every end (docs/training.md): the opponent wins for the illegal action.
    assert (info["winner"], info["end_reason"], info["scores"].tolist()) == (1, END_ILLEGAL_ACTION, [12, 11])
    assert env.aec_env.facts()["end_reason"] == "illegal_action"
    assert env.aec_env.rewards == {"player_0": -1, "player_1": 0}
    assert env.aec_env.terminations == {"player_0": True, "player_1": True}
    assert info["action_mask"].tolist() == [0] * 6 and not env.action_masks().any()
    assert env.aec_env.board.tolist() == LONE_SEED["board"]
    assert env.aec_env.stores.tolist() == [12, 11]
    assert env.aec_env.position() == position == "0,1,0,0,0,0/4,4,4,4,4,4 12,11 0"
    # The board and stores as they were; the to-move flag is down, as in every final observation.
    assert observation.tolist() == LONE_SEED["board"] + [12, 11, 0, 0, 0]
    assert recorder.seen == []
    with pytest.raises(GameOverError, match="reset"):
        env.step(1)
    assert env.aec_env.position() == position
    observation, info = env.reset(seed=1)  # a new episode starts normally
    assert info["action_mask"].tolist() == [1] * 6


def test_illegal_action_raise_changes_nothing_and_play_continues() -> None:
    env = SingleAgentEnv("ouril_v0", opponent=first_legal, learner_seat=0, first_player=0, illegal_action="raise")
    env.reset(seed=0, options=LONE_SEED)
    position = env.aec_env.position()
    for action in (0, 2, 5):
        with pytest.raises(IllegalActionError, match=r"legal actions are \[1\]"):
            env.step(action)
        assert env.aec_env.position() == position
        assert env.aec_env.agent_selection == "player_0"
        assert env.action_masks().tolist() == [False, True, False, False, False, False]
    # Learner pit 1 -> pit 2; opponent local 0 = pit 6 (4 seeds): 7..10, ending in its own row.
    observation, reward, terminated, truncated, info = env.step(1)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.aec_env.board.tolist() == [0, 0, 1, 0, 0, 0, 0, 5, 5, 5, 5, 4]
    assert observation.tolist() == [0, 0, 1, 0, 0, 0, 0, 5, 5, 5, 5, 4, 12, 11, 1, 0, 2]
    assert info["action_mask"].tolist() == [0, 0, 1, 0, 0, 0]


def test_out_of_range_is_not_an_illegal_move() -> None:
    env = SingleAgentEnv("ouril_v0", learner_seat=0, first_player=0)
    env.reset(seed=0, options=LONE_SEED)
    with pytest.raises(ValueError, match="out of range"):
        env.step(6)
    assert env.aec_env.position() == "0,1,0,0,0,0/4,4,4,4,4,4 12,11 0"
    _, reward, terminated, truncated, info = env.step(1)  # the episode is still running
    assert (reward, terminated, truncated) == (0.0, False, False) and "illegal_action" not in info


# --- 9. bad input ------------------------------------------------------------------------------------------------


def test_step_before_reset() -> None:
    env = SingleAgentEnv("ouril_v0")
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    assert not env.action_masks().any()


@pytest.mark.parametrize(
    "action", [1.0, np.float64(1.0), None, True, np.bool_(True), "1", np.array([1.0]), np.array([1])]
)
def test_actions_of_the_wrong_type(action: Any) -> None:
    env = SingleAgentEnv("ouril_v0", learner_seat=0, first_player=0)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="not an integer"):
        env.step(action)
    assert env.aec_env.position() == "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"


@pytest.mark.parametrize("action", [-1, 6, np.int64(7), 10**20])
def test_actions_out_of_range(action: Any) -> None:
    env = SingleAgentEnv("ouril_v0", learner_seat=0, first_player=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"out of range; actions are 0\.\.5"):
        env.step(action)
    assert env.aec_env.position() == "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"


@pytest.mark.parametrize("action", [np.int64(2), np.int32(2), np.array(2)])
def test_numpy_integer_actions_are_accepted(action: Any) -> None:
    env = SingleAgentEnv("ouril_v0", opponent=first_legal, learner_seat=0, first_player=0)
    env.reset(seed=0)
    env.step(action)
    # Learner local 2 (4 seeds): 3..6; opponent local 0 = pit 6 (now 5 seeds): 7..11.
    assert env.aec_env.board.tolist() == [4, 4, 0, 5, 5, 5, 0, 5, 5, 5, 5, 5]


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"learner_seat": 2}, ValueError, "learner_seat must be 0, 1 or None"),
        ({"learner_seat": True}, ValueError, "learner_seat must be 0, 1 or None"),
        ({"learner_seat": "0"}, ValueError, "learner_seat must be 0, 1 or None"),
        ({"illegal_action": "ignore"}, ValueError, "illegal_action must be one of ['penalty', 'raise']"),
        (
            {"render_mode": "rgb"},
            ValueError,
            "render_mode must be None or one of ['ansi', 'human', 'rgb_array', 'svg']",
        ),
        ({"env_id": "nope_v0"}, ValueError, "unknown environment 'nope_v0'"),
        ({"env_id": 3}, TypeError, "env id must be a string"),
        ({"bogus": 1}, TypeError, "has no option 'bogus'"),
        ({"pits_per_row": 5}, ValueError, "pits_per_row"),
        ({"first_player": 2}, ValueError, "first_player"),
        ({"reward_mode": "score"}, ValueError, "reward_mode"),
        ({"opponent": "nobody"}, ValueError, "unknown agent 'nobody'"),
        ({"opponent": 42}, TypeError, "opponent 42 is not usable"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict[str, Any], error: type[Exception], fragment: str) -> None:
    kwargs = {"env_id": "ouril_v0", **kwargs}
    with pytest.raises(error) as caught:
        SingleAgentEnv(**kwargs)
    assert fragment in str(caught.value)


def test_gymnasium_make_reports_unknown_options() -> None:
    with pytest.raises(TypeError, match="has no option 'bogus'"):
        gymnasium.make("mancala/Ouril-v0", bogus=1)


def test_reset_rejects_bad_options_and_finished_positions() -> None:
    env = SingleAgentEnv("ouril_v0", learner_seat=0, first_player=0)
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=[1, 2])
    with pytest.raises(ValueError, match=r"seed total|seeds"):
        env.reset(options={"board": [1] * 12, "stores": [0, 0], "player": 0})
    # O4: player 0 cannot feed: the game ends inside the AEC reset, before the learner's first move.
    with pytest.raises(ValueError, match="before the learner's first move"):
        env.reset(options={"board": [3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], "stores": [22, 22], "player": 0})
    with pytest.raises(GameOverError):
        env.step(0)


# --- 10. vector envs -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_envs(mode: str) -> None:
    vector_env = gymnasium.make_vec("mancala/RioKadalisMatch-v0", num_envs=3, vectorization_mode=mode)
    try:
        observations, infos = vector_env.reset(seed=0)
        assert observations.shape == (3, 31) and observations.dtype == np.int32
        assert infos["action_mask"].shape == (3, 6) and infos["action_mask"].dtype == np.int8
        for i in range(3):  # env i is reset with seed 0 + i
            twin_observation, twin_info = SingleAgentEnv("mancala/rio-kadalis-match-v0").reset(seed=i)
            assert observations[i].tolist() == twin_observation.tolist()
            assert infos["action_mask"][i].tolist() == twin_info["action_mask"].tolist()
            assert infos["learner_seat"][i] == twin_info["learner_seat"]
        for _ in range(3):
            masks = np.stack(vector_env.call("action_masks"))
            assert masks.dtype == np.bool_ and masks.shape == (3, 6)
            assert masks.tolist() == infos["action_mask"].astype(bool).tolist()
            actions = np.array([int(np.flatnonzero(mask)[0]) for mask in masks])
            observations, rewards, terminated, truncated, infos = vector_env.step(actions)
            assert observations.shape == (3, 31) and infos["action_mask"].shape == (3, 6)
            assert rewards.tolist() == [0.0, 0.0, 0.0]
            assert not terminated.any() and not truncated.any()
    finally:
        vector_env.close()


def test_sb3_subprocess_vector_env_action_masks() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vector_env = SubprocVecEnv(
        [partial(SingleAgentEnv, "omweso_v0", learner_seat=seat) for seat in (0, 1)], start_method="fork"
    )
    try:
        vector_env.seed(3)
        vector_env.reset()
        twins = [SingleAgentEnv("omweso_v0", learner_seat=seat) for seat in (0, 1)]
        twin_infos = [twin.reset(seed=3 + i)[1] for i, twin in enumerate(twins)]
        for _ in range(4):
            masks = get_action_masks(vector_env)
            assert masks.shape == (2, 48) and masks.dtype == np.bool_
            assert masks.tolist() == [twin.action_masks().tolist() for twin in twins]
            assert masks.tolist() == [info["action_mask"].astype(bool).tolist() for info in twin_infos]
            actions = [int(np.flatnonzero(mask)[0]) for mask in masks]
            vector_env.step_async(np.array(actions))
            _, _, dones, _ = vector_env.step_wait()
            if dones.any():
                break
            # The twins replay the same seeded episode (the random opponents were reseeded by reset).
            twin_infos = [twin.step(action)[4] for twin, action in zip(twins, actions, strict=True)]
    finally:
        vector_env.close()


# --- 11. render ------------------------------------------------------------------------------------------------------


def test_render_ansi_is_the_aec_text_board() -> None:
    env = SingleAgentEnv("ouril_v0", render_mode="ansi", learner_seat=0, first_player=0)
    env.reset(seed=0, options=LONE_SEED)
    text = env.render()
    assert isinstance(text, str) and text == env.aec_env.render()
    reference = mancala_envs.make("ouril_v0", render_mode="ansi")
    reference.reset(options={"position": "0,1,0,0,0,0/4,4,4,4,4,4 12,11 0"})
    assert text == reference.render()


def test_render_human_shows_every_ply_in_a_window() -> None:
    import pygame

    env = SingleAgentEnv("ouril_v0", render_mode="human", learner_seat=0, first_player=0)
    env.aec_env.metadata["render_fps"] = 1000  # the window waits 1/fps between frames
    env.reset(seed=0)
    assert env.render() is None
    reference = mancala_envs.make("ouril_v0", render_mode="rgb_array", first_player=0)
    reference.reset(seed=0)
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
    np.testing.assert_array_equal(shown, reference.render())
    window = env.aec_env.window
    frames: list[int] = []
    plies: list[int] = []
    show = window.show
    window.show = lambda surface: (frames.append(1), show(surface))
    env.aec_env.ply_observers.append(lambda player, action: plies.append(player))
    env.step(0)
    # The learner's ply and each of the opponent's replies were shown, one frame each.
    assert plies[0] == 0 and plies[1] == 1 and len(frames) == len(plies)
    env.close()
    assert not pygame.display.get_init()


def test_render_rgb_array_is_the_aec_picture() -> None:
    env = SingleAgentEnv("omweso_v0", render_mode="rgb_array", learner_seat=1, first_player=0)
    env.reset(seed=3)
    picture = env.render()
    assert picture.shape == env.aec_env.render().shape and picture.dtype == np.uint8
    np.testing.assert_array_equal(picture, env.aec_env.render())


def test_render_without_mode_warns() -> None:
    env = SingleAgentEnv("ouril_v0")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# --- 12. opponents ------------------------------------------------------------------------------------------------


def test_set_opponent_takes_effect_at_the_next_reset() -> None:
    old, new = Recorder("old"), Recorder("new")
    env = SingleAgentEnv("ouril_v0", opponent=old, learner_seat=0, first_player=0)
    env.reset(seed=0)
    env.set_opponent(new)
    env.step(0)
    assert len(old.seen) == 1 and new.seen == []
    assert env.opponent.name == "old"
    env.reset(seed=0)
    assert env.opponent.name == "new"
    env.step(0)
    assert len(old.seen) == 1 and len(new.seen) == 1
    assert new.seen[0] == old.seen[0]  # the same position after the learner's local 0


def test_pool_draws_members_per_episode_deterministically() -> None:
    def draws(env: SingleAgentEnv, seed: int) -> list[str]:
        env.reset(seed=seed)
        names = [env.opponent.name]
        for _ in range(19):
            env.reset()
            names.append(env.opponent.name)
        return names

    members = [Recorder("a"), Recorder("b"), Recorder("c")]
    env = SingleAgentEnv("ouril_v0", opponent=members)
    twin = SingleAgentEnv("ouril_v0", opponent=[Recorder("a"), Recorder("b"), Recorder("c")])
    first = draws(env, 5)
    assert first == draws(twin, 5) == draws(env, 5)
    assert set(first) == {"a", "b", "c"}
    assert draws(env, 6) != first

    # The drawn member is the one that plays (the opening move cannot end the game, so it replies).
    for seed in range(6):
        env.reset(seed=seed)
        before = {member.__name__: len(member.seen) for member in members}
        env.step(int(env.action_masks().argmax()))
        played = [member.__name__ for member in members if len(member.seen) > before[member.__name__]]
        assert played == [env.opponent.name]


def test_set_opponent_with_a_pool() -> None:
    env = SingleAgentEnv("ouril_v0", opponent="greedy")
    env.reset(seed=0)
    env.set_opponent(["random", "greedy"])
    names = set()
    for seed in range(12):
        env.reset(seed=seed)
        names.add(env.opponent.name)
    assert names == {"random", "greedy"}


# --- regressions: bugs found while writing these tests ---------------------------------------------------------


def test_opponent_error_does_not_hand_the_opponents_seat_to_the_learner() -> None:
    calls = []

    def fails_once(observation: np.ndarray, action_mask: np.ndarray) -> int:
        calls.append(1)
        return 99 if len(calls) == 1 else first_legal(observation, action_mask)

    env = SingleAgentEnv("ouril_v0", opponent=fails_once, learner_seat=0, first_player=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="returned action 99"):
        env.step(2)
    board = env.aec_env.board.tolist()  # [4,4,0,5,5,5 | 5,4,4,4,4,4]: the learner's move was played
    assert not env.action_masks().any()
    with pytest.raises(GameOverError, match="call reset"):
        env.step(0)
    assert env.aec_env.board.tolist() == board


def test_terminal_masks_are_not_shared() -> None:
    env = SingleAgentEnv("ouril_v0", learner_seat=0, first_player=0)
    env.reset(seed=0, options=LONE_SEED)
    info = env.step(0)[4]  # illegal: the episode ends
    info["action_mask"][:] = 1
    env.reset(seed=0, options=LONE_SEED)
    info = env.step(0)[4]
    assert info["action_mask"].tolist() == [0] * 6


def test_rejected_set_opponent_changes_nothing() -> None:
    env = SingleAgentEnv("ouril_v0", opponent="greedy")
    env.reset(seed=0)
    before = repr(env)
    with pytest.raises(TypeError, match="not usable"):
        env.set_opponent(42)
    assert repr(env) == before
