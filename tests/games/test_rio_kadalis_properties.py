"""Property tests of Rio Kadalis (docs/rules/rio_kadalis.md) with hypothesis.

* Seeds are conserved: board + captured + reserves = T after every turn.
* The action mask is exactly the set of actions ``step`` accepts (checked on
  deep copies under ``illegal_action="raise"``).
* No turn sows more than ``max_laps_per_turn`` laps; an endless turn ends the round.
* Seeds are only ever captured in whole fours while a round runs.
* Rounds end within ``max_plies`` plies, matches within ``max_rounds`` rounds.
* A seed fixes the trajectory; pickling or deep-copying an env mid-game clones it.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala_envs.engine.state import RUNNING, STATUS
from mancala_envs.envs import rio_kadalis_v0
from mancala_envs.games.rio_kadalis import RESERVE

from support.contract import plain
from support.properties import accepted_actions

OPTIONS = st.fixed_dictionaries(
    {
        "pits_per_row": st.sampled_from([6, 5]),
        "direction": st.sampled_from(["ccw", "cw"]),
        "four_timing": st.sampled_from(["immediate", "end_of_lap"]),
        "match": st.booleans(),
        "max_laps_per_turn": st.sampled_from([2000, 30, 3]),
        "max_plies": st.sampled_from([1000, 40, 5]),
        "max_rounds": st.sampled_from([3, 1]),
        "repetition": st.booleans(),
    }
)


def play(options, seed, check_every_action=False, max_steps=100_000):
    """Plays random legal moves to the end, checking the invariants; returns the trajectory."""
    if options["match"]:
        options = dict(options, max_plies=min(options["max_plies"], 200))  # keeps matches short
    env = rio_kadalis_v0.env(first_player=seed % 2, illegal_action="raise", **options)
    env.reset(seed=seed)
    game = env.unwrapped.game
    total = game.total_seeds
    n = game.row_size
    rng = random.Random(seed)
    trajectory = []
    plies_in_round = 0
    rounds = 0
    for _ in range(max_steps):
        if env.terminations["player_0"] or env.truncations["player_0"]:
            break
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"].tolist()
        if check_every_action:
            assert accepted_actions(env) == [a for a in range(n) if mask[a]]
        action = rng.choice([a for a in range(n) if mask[a]])
        env.step(action)
        info = env.unwrapped.facts()
        trajectory.append((action, env.board.tolist(), env.stores.tolist()))
        state = env.unwrapped.state_array
        reserves = int(state[RESERVE] + state[RESERVE + 1])
        assert int(env.board.sum() + env.stores.sum()) + reserves == total
        assert 1 <= info["laps"] <= options["max_laps_per_turn"]
        assert all(seeds == 4 for _, seeds in info["last_move"]["captures"])
        if not options["match"]:
            assert info["endless_move"] == (info["end_reason"] == "endless_move")
        elif info["endless_move"]:
            assert info["round"] != rounds or info["end_reason"] is not None  # the round ended
        if state[STATUS] == RUNNING:
            assert all(s % 4 == 0 for s in env.stores.tolist())
        plies_in_round += 1
        if options["match"] and info["round"] != rounds:
            rounds = info["round"]
            plies_in_round = 0
        assert plies_in_round <= options["max_plies"]
    else:
        raise AssertionError("the game did not end")
    info = env.unwrapped.facts()
    if options["match"]:
        assert info["round"] <= options["max_rounds"]
        assert info["end_reason"] in ("cannot_refill", "max_rounds")
    assert sum(info["fours"]) <= total // 4
    return trajectory, info


@settings(max_examples=40, deadline=None)
@given(options=OPTIONS, seed=st.integers(0, 2**31 - 1))
def test_random_games_keep_the_invariants(options, seed):
    play(options, seed)


@settings(max_examples=12, deadline=None)
@given(options=OPTIONS, seed=st.integers(0, 2**31 - 1))
def test_mask_equals_the_actions_step_accepts(options, seed):
    play(dict(options, max_plies=min(options["max_plies"], 40), max_rounds=3), seed, check_every_action=True)


@settings(max_examples=15, deadline=None)
@given(options=OPTIONS, seed=st.integers(0, 2**31 - 1))
def test_same_seed_same_game(options, seed):
    assert play(options, seed) == play(options, seed)


@settings(max_examples=10, deadline=None)
@given(options=OPTIONS, seed=st.integers(0, 2**31 - 1), plies=st.integers(0, 30))
def test_pickle_and_deepcopy_clone_a_game_in_progress(options, seed, plies):
    env = rio_kadalis_v0.env(first_player=0, **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if env.terminations["player_0"] or env.truncations["player_0"]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for clone in clones:
        assert np.array_equal(clone.unwrapped.state_array, env.unwrapped.state_array)
    while not (env.terminations["player_0"] or env.truncations["player_0"]):
        mask = env.observe(env.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        for e in [env, *clones]:
            e.step(action)
        for clone in clones:
            assert np.array_equal(clone.unwrapped.state_array, env.unwrapped.state_array)
            assert plain(clone.infos) == plain(env.infos) and clone.unwrapped.facts() == env.unwrapped.facts()
