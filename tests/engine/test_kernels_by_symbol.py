"""The per-game kernels call a game's rules by symbol (``mancala_envs.engine.kernels``): the same
results as the environment's own compiled rules, and no copy of the rules linked into a kernel (which
is what kept the vector envs' and the batch's cold start to one compile of the game)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import config

from mancala_envs.engine.kernels import game_observe, game_step, per_game
from mancala_envs.engine.state import LEGAL, RUNNING, STATUS
from mancala_envs.envs.batch import BatchedGames
from mancala_envs.games import game_classes

GAMES = [game_class() for game_class in game_classes()]


@per_game()
def _first_legal_plies(
    state: np.ndarray, params: np.ndarray, plies: int, trace: np.ndarray, observation: np.ndarray, mask: np.ndarray
) -> int:
    """Plays the first legal action ``plies`` times (or until the game ends); returns the plies played
    and leaves the mover's observation of the last position."""
    played = 0
    while played < plies and state[STATUS] == RUNNING:
        legal = state[LEGAL]
        action = 0
        while not (legal >> action) & 1:
            action += 1
        game_step(state, params, action, trace)
        played += 1
    game_observe(state, params, 0, observation, mask)
    return played


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_a_kernel_plays_as_the_environments_step(game):
    state = game.new_state(0)
    expected = state.copy()
    trace = np.empty(0, np.int64)
    observation = np.empty(game.observation_size, np.int32)
    mask = np.empty(game.n_actions, np.int8)
    played = game.compiled(_first_legal_plies)(state, game.params, 40, trace, observation, mask)
    for _ in range(played):
        action = int(np.flatnonzero([(int(expected[LEGAL]) >> a) & 1 for a in range(game.n_actions)])[0])
        game.step(expected, action, trace)
    np.testing.assert_array_equal(state, expected)
    want_observation, want_mask = game.observe_with_mask(expected, 0)
    np.testing.assert_array_equal(observation, want_observation)
    np.testing.assert_array_equal(mask, want_mask)


@pytest.mark.skipif(config.DISABLE_JIT, reason="nothing is compiled with numba's JIT off")
def test_the_batch_kernel_links_none_of_the_rules():
    games = BatchedGames("kalah_v0", 2)
    games.step(games.reset(seed=0).action_mask.argmax(axis=1))
    kernel = games.step_kernel
    (result,) = kernel.overloads.values()
    linked = {library.name for library in getattr(result.library, "_linking_libraries", ())}
    assert not linked & {"step", "reset_state", "observe", "legal_bits"}, linked
