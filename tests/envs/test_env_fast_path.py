"""The AEC env's fast path: compiled entry points, what ``last()`` hands out, and the lazily built infos.

``MancalaEnv`` calls the game's compiled ``step`` and ``observe`` through their overloads' entry points
(:func:`mancala_envs.games.game.compiled_entry`) and ``last()`` builds the selected agent's info alone.
These tests check that nothing of that shows: the arrays ``last()`` returns are the caller's, the info
it returns is ``infos[agent]``, both agents' infos hold the same facts, and copies of an env play on.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import mancala_envs
from mancala_envs.envs.registration import game_names
from mancala_envs.games.game import compiled_entry

from support.contract import plain

#: every game of the list (mancala_envs.games.GAME_MODULES), by its plain name
GAMES = tuple(game_names())


def _first_legal(observation: dict[str, np.ndarray]) -> np.int64:
    return np.flatnonzero(observation["action_mask"])[0]


@pytest.mark.parametrize("name", GAMES)
def test_last_hands_out_arrays_no_later_step_changes(name: str) -> None:
    env = mancala_envs.make(name)
    env.reset(seed=3)
    kept = []
    for _ in range(12):
        observation, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            break
        kept.append((observation, observation["observation"].copy(), observation["action_mask"].copy()))
        env.step(_first_legal(observation))
    for observation, vector, mask in kept:
        np.testing.assert_array_equal(observation["observation"], vector)
        np.testing.assert_array_equal(observation["action_mask"], mask)
    arrays = [array for observation, _, _ in kept for array in observation.values()]
    assert len({id(array) for array in arrays}) == len(arrays)  # a new array each time, never a shared buffer


@pytest.mark.parametrize("infos", ["full", "tensor"])
@pytest.mark.parametrize("name", GAMES)
def test_last_info_is_the_selected_agents_entry_of_infos(name: str, infos: str) -> None:
    env = mancala_envs.make(name, infos=infos)
    env.reset(seed=1)
    for _ in range(6):
        observation, *_rest, info = env.last()
        agent = env.agent_selection
        other = "player_1" if agent == "player_0" else "player_0"
        assert env.infos[agent] is info
        assert list(env.infos) == ["player_0", "player_1"]
        assert env.infos[other] is not info
        assert set(env.infos[other]) == set(info)
        for key, value in info.items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(env.infos[other][key], value)
                assert env.infos[other][key] is not value  # each agent owns its arrays
            else:
                assert env.infos[other][key] == value
        assert env.last()[4] is info  # no change of the state: the same dict again
        env.step(_first_legal(observation))


@pytest.mark.parametrize("infos", ["lean", "full"])
def test_info_from_last_survives_a_later_step(infos: str) -> None:
    env = mancala_envs.make("kalah_v0", first_player=0, infos=infos)
    env.reset(seed=0)
    observation, *_rest, info = env.last()
    before = plain(info)
    env.step(_first_legal(observation))
    assert plain(info) == before and info["ply"] == 0
    assert env.last()[4] is not info


def test_infos_read_first_then_last_agree() -> None:
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0)
    env.step(_first_legal(env.last()[0]))
    infos = env.infos
    assert env.last()[4] is infos[env.agent_selection]


@pytest.mark.parametrize("infos", ["lean", "full"])
@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_copies_play_on_like_the_original(duplicate, infos: str) -> None:
    env = mancala_envs.make("omweso_v0", infos=infos)
    env.reset(seed=5)
    for _ in range(4):
        env.step(_first_legal(env.last()[0]))
    twin = duplicate(env)
    for _ in range(8):
        observation, reward, termination, truncation, info = env.last()
        twin_observation, *twin_rest = twin.last()
        np.testing.assert_array_equal(observation["observation"], twin_observation["observation"])
        np.testing.assert_array_equal(observation["action_mask"], twin_observation["action_mask"])
        assert plain([reward, termination, truncation, info]) == plain(twin_rest)
        assert env.facts() == twin.facts()
        if termination or truncation:
            break
        action = _first_legal(observation)
        env.step(action)
        twin.step(action)
    assert env.state_dict() == twin.state_dict()


def test_compiled_entry_falls_back_to_the_function() -> None:
    def plain(x: int) -> int:
        return x

    assert compiled_entry(plain, 1) is plain
    game = mancala_envs.make("ouril_v0").unwrapped.game
    state = game.new_state(0)
    observe = game.observe_function
    if not hasattr(observe, "overloads"):  # numba's JIT is off: the plain function is the call
        assert compiled_entry(observe, state, game.params, 0) is observe
        return
    # no overload for these types (a float32 mask): the dispatcher, which types and compiles
    odd = (state, game.params, 0, np.empty(game.observation_size, np.int32), np.empty(game.n_actions, np.float32))
    assert compiled_entry(observe, *odd) is observe
    step = game.step_call
    entry = compiled_entry(step, state, game.params, 0, np.zeros(0, np.int64))
    assert entry is not step
    expected = state.copy()
    assert step(expected, game.params, 2, np.zeros(0, np.int64)) == entry(state, game.params, 2, np.zeros(0, np.int64))
    np.testing.assert_array_equal(state, expected)
