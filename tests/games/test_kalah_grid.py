"""Kalah on every config of the literature's grid: Kalah(m, n), m = 1..8 pits a row, n = 1..6 seeds a pit,
both capture rules (issue 32; Irving, Donkers and Uiterwijk, "Solving Kalah", 2000).

Each config builds, starts with ``n`` seeds in each of the ``2m`` pits and every pit of the mover legal,
and plays whole random games through the PettingZoo env to an end with every seed in a store. The
one-pit boards are played out by hand (one legal action a ply, so each game is forced), PettingZoo's
``api_test`` runs on a few small configs, and the refusals of a config off the grid name the range.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gymnasium import spaces

from mancala_envs.agents import make_agent
from mancala_envs.agents.pretrained import PretrainedWeightsError
from mancala_envs.engine.state import LEGAL, PLAYER, RUNNING, STATUS
from mancala_envs.envs import kalah_v0
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.games.kalah.kalah_rules import PITS_PER_ROW_RANGE, SEEDS_PER_PIT_RANGE

from support.pettingzoo_checks import api_test, only_dict_observation_warnings

PITS = range(1, 9)
SEEDS = range(1, 7)
RULES = (False, True)


def play_random_game(env: kalah_v0.raw_env, seed: int) -> dict:
    """Plays one seeded random game of ``env`` to its end; returns the final infos of player_0 and the rewards."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    final = None
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final = final or env.unwrapped.facts()
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        for name, reward in env.rewards.items():
            rewards[name] += reward
    assert final is not None
    return {"info": final, "rewards": rewards}


def test_the_ranges_are_the_literature_grid() -> None:
    assert PITS_PER_ROW_RANGE == (1, 8)
    assert SEEDS_PER_PIT_RANGE == (1, 6)


@pytest.mark.parametrize("pits", PITS)
def test_every_config_starts_with_n_seeds_a_pit_and_every_pit_legal(pits: int) -> None:
    for seeds, empty_capture in itertools.product(SEEDS, RULES):
        game = Kalah(KalahConfig(pits_per_row=pits, seeds_per_pit=seeds, empty_capture=empty_capture))
        assert (game.n_actions, game.n_pits, game.total_seeds) == (pits, 2 * pits, 2 * pits * seeds)
        assert game.observation_size == 2 * pits + 5
        for first in (0, 1):
            state = game.new_state(first)
            assert game.board(state).tolist() == [seeds] * (2 * pits)
            assert game.stores(state).tolist() == [0, 0]
            assert (int(state[STATUS]), int(state[PLAYER])) == (RUNNING, first)
            assert game.legal_mask(state).tolist() == [1] * pits
            assert int(state[LEGAL]) == (1 << pits) - 1
            observation, mask = game.observe_with_mask(state, first)
            assert observation.tolist() == [seeds] * (2 * pits) + [0, 0, 1, 0, 0]
            assert mask.tolist() == [1] * pits


@pytest.mark.parametrize("pits", PITS)
def test_the_env_spaces_follow_the_pits(pits: int) -> None:
    env = kalah_v0.env(pits_per_row=pits, seeds_per_pit=1)
    assert env.action_space("player_0") == spaces.Discrete(pits)
    space = env.observation_space("player_1")
    assert space["observation"].shape == (2 * pits + 5,)
    assert space["action_mask"].shape == (pits,)
    assert int(space["observation"].high[0]) == 2 * pits  # a pit can hold every seed of the game


@pytest.mark.parametrize("pits", PITS)
def test_random_whole_games_end_with_every_seed_in_a_store(pits: int) -> None:
    for seeds, empty_capture in itertools.product(SEEDS, RULES):
        env = kalah_v0.env(pits_per_row=pits, seeds_per_pit=seeds, empty_capture=empty_capture)
        total = 2 * pits * seeds
        for seed in (seeds, 100 + seeds):
            played = play_random_game(env, seed)
            info = played["info"]
            assert info["end_reason"] == "row_empty", (pits, seeds, empty_capture, seed)
            assert sum(info["scores"]) == total
            assert env.board.tolist() == [0] * (2 * pits)
            assert env.stores.tolist() == info["scores"]
            low, high = sorted(info["scores"])
            winner = None if low == high else int(np.argmax(info["scores"]))
            assert info["winner"] == winner
            expected = {0: 0.0, 1: 0.0} if winner is None else {winner: 1.0, 1 - winner: -1.0}
            assert played["rewards"] == {"player_0": expected[0], "player_1": expected[1]}


# Kalah(1, n): one pit a row, one action; a lap runs own pit -> own store -> the opponent's pit -> own pit ...
# Player 0 moves first. (seeds, the games's plies as (mover, sown places), final stores).
# Places in the trace: 0 and 1 the pits, 2 and 3 the stores of player 0 and 1.
ONE_PIT_GAMES = [
    (1, [(0, [2])], [1, 1]),  # the seed to the store: an extra turn, but the row is empty; player 1 keeps its 1
    (2, [(0, [2, 1])], [1, 3]),  # store, the opponent's pit; the row is empty
    (3, [(0, [2, 1, 0])], [6, 0]),  # store, the opponent's pit, back into the emptied pit: 4 + 1 captured
    (4, [(0, [2, 1, 0, 2]), (0, [2])], [3, 5]),  # into the store twice: a second move of the last seed
    (5, [(0, [2, 1, 0, 2, 1]), (1, [3, 0, 1, 3, 0, 1, 3]), (1, [3, 0])], [6, 4]),
]


@pytest.mark.parametrize("empty_capture", RULES)
@pytest.mark.parametrize(("seeds", "plies", "stores"), ONE_PIT_GAMES)
def test_one_pit_games_are_forced_and_played_by_the_rules(seeds, plies, stores, empty_capture) -> None:
    env = kalah_v0.env(pits_per_row=1, seeds_per_pit=seeds, empty_capture=empty_capture, first_player=0)
    env.reset(seed=0)
    played = []
    while env.agents and not any(env.terminations.values()):
        mover = env.agent_selection
        assert env.observe(mover)["action_mask"].tolist() == [1]
        env.step(0)
        last_move = env.unwrapped.facts()["last_move"]
        played.append((last_move["player"], last_move["sown"]))
    assert played == plies
    assert env.stores.tolist() == stores
    assert env.board.tolist() == [0, 0]
    assert env.unwrapped.facts()["end_reason"] == "row_empty"


def test_one_pit_and_three_seeds_capture_is_traced() -> None:
    env = kalah_v0.env(pits_per_row=1, seeds_per_pit=3, first_player=1)
    env.reset(seed=0)
    env.step(0)
    assert env.unwrapped.facts()["last_move"] == {
        "player": 1,
        "action": 0,
        "sown": [3, 0, 1],
        "captures": [[1, 1], [0, 4]],
    }
    assert env.stores.tolist() == [0, 6]


@pytest.mark.parametrize("name", ["random", "greedy", "alphabeta:3", "mcts:20"])
def test_agents_play_the_one_action_of_one_pit_boards_and_whole_small_games(name: str) -> None:
    # Kalah(1, 5): one legal action a ply, so every agent plays the forced game of ONE_PIT_GAMES
    env = kalah_v0.env(pits_per_row=1, seeds_per_pit=5, first_player=0)
    env.reset(seed=0)
    agent = make_agent(name, seed=0)
    for _ in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act(env))
    assert env.stores.tolist() == [6, 4]
    for pits, seeds in [(2, 1), (3, 2)]:
        env = kalah_v0.env(pits_per_row=pits, seeds_per_pit=seeds)
        for seed in range(3):
            env.reset(seed=seed)
            for _ in env.agent_iter():
                _, _, terminated, truncated, _ = env.last()
                env.step(None if terminated or truncated else agent.act(env))
            assert sum(env.stores.tolist()) == 2 * pits * seeds
            assert env.board.tolist() == [0] * (2 * pits)


def test_the_pretrained_agent_refuses_a_board_of_the_grid_it_was_not_trained_on() -> None:
    env = kalah_v0.env(pits_per_row=1, seeds_per_pit=3)
    env.reset(seed=0)
    with pytest.raises(PretrainedWeightsError) as error:
        make_agent("pretrained", seed=0).act(env)
    assert (
        "exist only for the config they were trained on, and this game differs: pits_per_row=1 (the weights': 6), "
        "seeds_per_pit=3 (the weights': 4)" in str(error.value)
    )


def test_pictures_of_the_smallest_boards_show_every_pit() -> None:
    widths = []
    for pits in (1, 2, 3):
        env = kalah_v0.env(pits_per_row=pits, seeds_per_pit=3, render_mode="rgb_array", first_player=0)
        env.reset(seed=0)
        env.step(0)
        picture = env.render()
        assert picture.dtype == np.uint8
        assert picture.shape[0] == 384 and picture.shape[2] == 3
        widths.append(picture.shape[1])
    assert widths[0] < widths[1] < widths[2]  # each pit adds a column to the board


@pytest.mark.parametrize(("pits", "seeds"), [(1, 1), (2, 3), (3, 6), (8, 6)])
def test_pettingzoo_api_test_on_small_and_large_configs(pits: int, seeds: int) -> None:
    env = kalah_v0.env(pits_per_row=pits, seeds_per_pit=seeds)
    with only_dict_observation_warnings():
        api_test(env, num_cycles=env.unwrapped.game.max_episode_plies + 10)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pits_per_row": 0}, "pits_per_row=0 is out of range; use an integer >= 1 and <= 8."),
        ({"pits_per_row": 9}, "pits_per_row=9 is out of range; use an integer >= 1 and <= 8."),
        ({"seeds_per_pit": 0}, "seeds_per_pit=0 is out of range; use an integer >= 1 and <= 6."),
        ({"seeds_per_pit": 7}, "seeds_per_pit=7 is out of range; use an integer >= 1 and <= 6."),
    ],
)
def test_a_config_off_the_grid_is_refused_naming_the_range(options: dict, message: str) -> None:
    with pytest.raises(ValueError) as config_error:
        KalahConfig(**options)
    assert str(config_error.value) == message
    with pytest.raises(ValueError) as env_error:
        kalah_v0.env(**options)
    assert str(env_error.value) == message
