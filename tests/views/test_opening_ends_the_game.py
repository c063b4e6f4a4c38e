"""Learner views on boards where the first player's turn can end the game before the second player moves.

On Kalah(1, 2) (one pit a row, 2 seeds a pit) the first player sows into their store and the opponent's pit,
their row is empty and the game is over: the second player never moves. The single-agent env and the vector
env play such a new game again (the seat and first player drawn anew), and refuse with one clear error when
the learner can never move (it always sits second), rather than looping for ever; so does the self-play vector
env of training.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mancala_envs.envs.learner_loop import MAX_OPENINGS, OPENINGS_REFUSAL
from mancala_envs.training.selfplay import SelfPlayVecEnv
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.vector_env import MancalaVectorEnv

ONE_PIT = {"pits_per_row": 1, "seeds_per_pit": 2}


def test_the_refusal_names_the_fix() -> None:
    assert MAX_OPENINGS == 10_000
    assert OPENINGS_REFUSAL == (
        "the opponent's opening ended 10000 new games in a row before the learner's first move: with this board, "
        "learner_seat and first_player the learner never moves; let the learner start some games "
        "(learner_seat=None or first_player=None) or choose a larger board."
    )


def test_single_agent_env_plays_a_new_game_when_the_opening_ends_one() -> None:
    env = SingleAgentEnv("kalah_v0", opponent="greedy", learner_seat=1, **ONE_PIT)
    for seed in range(6):
        _, info = env.reset(seed=seed)
        assert (env.seat, info["action_mask"].tolist()) == (1, [1])
        assert env.aec_env.agent_selection == "player_1"
        assert env.aec_env.board.tolist() == [2, 2]  # the learner opens: player_1 was drawn to start
        _, reward, terminated, truncated, _ = env.step(0)
        # player_1's 2 seeds: its store, player_0's pit; its row is empty: stores 1 and 3, player_0 wins
        assert (reward, terminated, truncated) == (-1.0, True, False)


def test_options_without_a_position_start_a_new_game_too() -> None:
    env = SingleAgentEnv("kalah_v0", opponent="greedy", learner_seat=1, **ONE_PIT)
    for options in ({}, {"unused": 1}):
        _, info = env.reset(seed=0, options=options)
        assert (env.aec_env.agent_selection, info["action_mask"].tolist()) == ("player_1", [1])


@pytest.mark.parametrize("encoding", ["raw", "flat", "one_hot", "thermometer", "planes"])
def test_gymnasium_check_env_passes_on_one_pit_boards(encoding: str) -> None:
    env = SingleAgentEnv("kalah_v0", opponent="greedy", encoding=encoding, **ONE_PIT)
    check_env(env, skip_render_check=True)


def test_single_agent_env_on_two_pits_and_one_seed_always_starts() -> None:
    # Kalah(2, 1): greedy opening pit 1 (store, another move), then pit 0 (captures): the game is over at times
    env = SingleAgentEnv("kalah_v0", opponent="greedy", pits_per_row=2, seeds_per_pit=1)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].any()
        assert env.aec_env.agent_selection == env.learner


def test_single_agent_env_refuses_a_learner_that_never_moves() -> None:
    env = SingleAgentEnv("kalah_v0", opponent="random", learner_seat=1, first_player=0, **ONE_PIT)
    with pytest.raises(ValueError) as error:
        env.reset(seed=0)
    assert str(error.value) == OPENINGS_REFUSAL


def test_single_agent_env_still_refuses_a_given_position_that_ends_at_once() -> None:
    env = SingleAgentEnv("kalah_v0", opponent="random", learner_seat=1, first_player=0, **ONE_PIT)
    with pytest.raises(ValueError, match="start from a position in which the learner moves"):
        env.reset(seed=0, options={"board": [2, 2], "stores": [0, 0], "player": 0})


def test_vector_env_plays_a_new_game_when_the_opening_ends_one() -> None:
    env = MancalaVectorEnv("kalah_v0", num_envs=3, opponent="greedy", learner_seat=1, **ONE_PIT)
    _, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [[1], [1], [1]]
    _, rewards, terminated, _, _ = env.step(np.zeros(3, np.int64))
    assert rewards.tolist() == [-1.0, -1.0, -1.0]
    assert terminated.tolist() == [True, True, True]


def test_vector_env_refuses_a_learner_that_never_moves() -> None:
    env = MancalaVectorEnv("kalah_v0", num_envs=2, opponent="greedy", learner_seat=1, first_player=0, **ONE_PIT)
    with pytest.raises(ValueError) as error:
        env.reset(seed=0)
    assert str(error.value) == OPENINGS_REFUSAL


def test_self_play_env_plays_a_new_game_when_the_opening_ends_one() -> None:
    env = SelfPlayVecEnv("kalah_v0", n_envs=3, opponents=["greedy"], learner_seat=1, encoding=None, seed=0, **ONE_PIT)
    env.reset()
    assert env.action_masks().tolist() == [[True], [True], [True]]
    _, rewards, dones, _ = env.step(np.zeros(3, np.int64))
    assert rewards.tolist() == [-1.0, -1.0, -1.0]
    assert dones.tolist() == [True, True, True]


def test_self_play_env_refuses_a_learner_that_never_moves() -> None:
    env = SelfPlayVecEnv("kalah_v0", n_envs=2, opponents=["greedy"], learner_seat=1, first_player=0, seed=0, **ONE_PIT)
    with pytest.raises(ValueError) as error:
        env.reset()
    assert str(error.value) == OPENINGS_REFUSAL
