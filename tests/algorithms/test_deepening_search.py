"""The strong classical agent (:func:`mancala_envs.agents.search_agents.deepening_search`, ``alphabeta:D`` and
``alphabeta:t=S``): iterative-deepening alpha-beta over a transposition table.

What is checked:

- at every fixed depth, the deepening search returns exactly the plain alpha-beta's move and value (which
  ``tests/agents/test_search_agents.py`` checks against a minimax written in Python), on positions of every game
  reached by play, with one transposition table carried from move to move (so entries searched for the other
  player, at other depths and from other roots are in it);
- an ``AlphaBetaAgent`` with a budget and a depth cap plays the plain search's moves at that depth for the same
  seed, whole games long, over the transposition table it keeps from move to move;
- a search that sees the whole tree stops there and says so; a forced result stops the deepening;
- a time budget gives a legal move from a completed iteration, deeper than one ply on an opening;
- the transposition table is cleared when it meets another game, and is left as it was by a refused call.
"""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import AlphaBetaAgent, make_agent
from mancala_envs.agents.search_agents import (
    WIN,
    TranspositionTable,
    alphabeta_search,
    deepening_search,
)
from mancala_envs.algorithms.tree_search import parse_compiled_opponent
from mancala_envs.engine.state import PLY, RUNNING, STATUS
from mancala_envs.games import game_classes
from mancala_envs.views.single_agent_env import SingleAgentEnv

DEFAULT_GAMES = [f"{cls.name}_v{cls.version}" for cls in game_classes()]
NO_TRACE = np.empty(0, np.int64)


def play_line(env_id: str, seed: int, plies: int) -> list[np.ndarray]:
    """The running states of one seeded random game of ``env_id``, in order (at most ``plies``)."""
    env = mancala_envs.make(env_id)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    states = []
    while raw.state_array[STATUS] == RUNNING and len(states) < plies:
        states.append(raw.state_array.copy())
        env.step(int(rng.choice(raw.game.legal_actions(raw.state_array))))
    return states


@pytest.mark.parametrize("env_id", DEFAULT_GAMES)
def test_every_depth_gives_the_plain_searchs_move_and_value(env_id: str) -> None:
    game = mancala_envs.make(env_id).unwrapped.game
    rng = np.random.default_rng(5)
    memory = TranspositionTable(12)  # small: slots are shared and overwritten, which must not change a result
    checked = stopped_early = 0
    for state in play_line(env_id, seed=3, plies=24)[::2]:
        if game.legal_actions(state).size < 2:
            continue
        before = state.copy()
        for depth in (1, 2, 3, 4, 5):
            draw = float(rng.random())
            plain_action, plain_value, _ = alphabeta_search(game, state, depth, draw)
            result = deepening_search(game, state, depth=depth, draw=draw, transpositions=memory)
            # The move is always the plain search's; the value is the deepest iteration's, which is ``depth``
            # unless the deepening stopped early on a settled position (its value is then a shallower search's).
            assert result.action == plain_action, (env_id, depth)
            if result.depth == depth:
                assert result.value == plain_value, (env_id, depth)
            else:
                assert result.complete or abs(result.value) >= WIN // 2
                assert result.value == alphabeta_search(game, state, result.depth, draw)[1]
            stopped_early += result.depth < depth
            checked += 1
        assert np.array_equal(state, before)
    assert checked >= 20 and stopped_early < checked
    assert memory.keys.any()


@pytest.mark.parametrize("env_id", ["ouril_v0", "kalah_v0", "omweso_v0"])
def test_a_capped_budget_agent_plays_the_plain_searchs_moves(env_id: str) -> None:
    env = mancala_envs.make(env_id)
    env.reset(seed=1)
    raw = env.unwrapped
    agent = AlphaBetaAgent(depth=4, seed=9, budget=60.0)  # deepens to 4 plies long before the budget ends
    draws = np.random.default_rng(9)  # the agent's generator: one draw per searched move
    moves = 0
    while raw.state_array[STATUS] == RUNNING and moves < 40:
        state = raw.state_array.copy()
        action = agent.act(env)
        if raw.game.legal_actions(state).size > 1:
            assert action == alphabeta_search(raw.game, state, 4, float(draws.random()))[0]
        env.step(action)
        moves += 1
    assert moves >= 10


def test_a_tree_seen_whole_stops_the_deepening() -> None:
    # Kalah, 2 pits a side: South's last seed runs into the store, South's row is empty, the game ends 2 to 2.
    env = mancala_envs.make("kalah_v0", pits_per_row=2, seeds_per_pit=1)
    env.reset(options={"board": [0, 1, 1, 0], "stores": [1, 1], "player": 0})
    raw = env.unwrapped
    result = deepening_search(raw.game, raw.state_array, depth=64)
    assert (result.action, result.value, result.depth, result.complete) == (1, 0, 1, True)
    # a won line is settled as soon as it is proved, at a depth far below the one asked for
    env.reset(seed=0)
    result = deepening_search(raw.game, raw.state_array, depth=64)
    assert result.depth == 2 and result.value >= WIN // 2 and not result.complete
    assert (result.action, result.value) == alphabeta_search(raw.game, raw.state_array, 2)[:2]


def test_a_forced_result_stops_the_deepening() -> None:
    # Kalah: South to move has one seed left and 20 in store against 26 (+1 on the board): every line loses.
    env = mancala_envs.make("kalah_v0")
    env.reset(options={"board": [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], "stores": [20, 26], "player": 0})
    raw = env.unwrapped
    result = deepening_search(raw.game, raw.state_array, depth=20)
    assert result.value <= -WIN // 2
    assert result.depth < 20


def test_a_time_budget_searches_deeper_than_one_ply_and_plays_legally() -> None:
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    raw = env.unwrapped
    agent = make_agent("alphabeta:t=0.05", seed=0)
    assert agent.name == "alphabeta:t=0.05" and agent.budget == 0.05 and agent.depth == 64
    action = agent.act(env)
    assert action in raw.game.legal_actions(raw.state_array).tolist()
    assert agent.last_depth > 1  # an opening: one ply takes microseconds
    assert agent.last_nodes > 0
    result = deepening_search(raw.game, raw.state_array, budget=0.001)
    assert result.depth >= 1 and result.action in raw.game.legal_actions(raw.state_array).tolist()


def test_the_table_is_cleared_for_another_game() -> None:
    memory = TranspositionTable(10)
    kalah = mancala_envs.make("kalah_v0")
    kalah.reset(seed=0)
    deepening_search(kalah.unwrapped.game, kalah.unwrapped.state_array, depth=4, transpositions=memory)
    kalah_keys = set(memory.keys[memory.keys != 0].tolist())
    assert kalah_keys
    ouril = mancala_envs.make("ouril_v0")
    ouril.reset(seed=0)
    deepening_search(ouril.unwrapped.game, ouril.unwrapped.state_array, depth=1, transpositions=memory)
    assert not kalah_keys & set(memory.keys.tolist())


def test_time_budgets_are_python_opponents_only() -> None:
    assert parse_compiled_opponent("alphabeta:t=0.1") is None  # not one the compiled loops can play
    assert parse_compiled_opponent("alphabeta:3") == (2, 3)
    learner = SingleAgentEnv("ouril_v0", opponent="alphabeta:t=0.002", learner_seat=1)
    learner.reset(seed=0)
    assert int(learner.aec_env.state_array[PLY]) == 1  # the opponent, seat 0, made the first move
    action = int(np.flatnonzero(learner.action_masks())[0])
    _, _, terminated, truncated, _ = learner.step(action)
    assert terminated or truncated or int(learner.aec_env.state_array[PLY]) >= 3  # and the opponent replied
