"""Property tests of Ouril and Urim against an independent reference (``tests/reference.py``).

* The compiled engine and the reference agree on every reachable and every
  arbitrary position: the legal mask, and the whole result of every legal move
  (board, stores, next player, passes, ply, end of the game, scores, winner,
  match points). Illegal moves leave the state untouched.
* The environment accepts exactly the masked actions.
* Seeds are conserved and Urim pits never exceed their capacity.
* Every game ends within ``max_plies`` plies (``max_games * max_plies`` for an
  Urim match).
* A seed fixes the trajectory; pickling or deep-copying an env mid-game clones it.
* Compiled random play is deterministic per seed and its counts add up.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs.engine.state import (
    END_REASON,
    END_REASON_NAMES,
    GAMES_PLAYED,
    ILLEGAL,
    GAME_OVER,
    MATCH,
    OK,
    PASSES,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
    TERMINATED,
    WINNER,
)
from mancala_envs.engine.trace import new_trace
from mancala_envs.errors import IllegalActionError
from mancala_envs.games.ouril import Ouril, OurilConfig
from mancala_envs.games.urim import Urim, UrimConfig
from mancala_envs.rollout import play_random_games

from reference import Referee, Rules, make_rules

GAMES = {"ouril": (Ouril, OurilConfig), "urim": (Urim, UrimConfig)}
STATUS_NAMES = {RUNNING: "running", TERMINATED: "terminated", 2: "truncated"}

# --- strategies ----------------------------------------------------------------------------------------------


@st.composite
def ouril_options(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.sampled_from([6, 4]))
    total = 8 * n
    return {
        "pits_per_row": n,
        "skip_origin": draw(st.sampled_from(["always", "first_circuit_only"])),
        "grand_slam": draw(st.sampled_from(["allowed", "forbidden", "no_capture"])),
        "singleton_rule": draw(st.sampled_from(["free", "only_if_all_singletons"])),
        "win_threshold": draw(st.one_of(st.none(), st.none(), st.integers(total // 2 + 1, total))),
        "max_plies": draw(st.sampled_from([1000, 1000, 80, 9, 1])),
        "repetition": draw(st.booleans()),
    }


@st.composite
def urim_options(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.sampled_from([6, 7]))
    seeds_per_pit = draw(st.sampled_from([3, 4]))
    smallest_capacity = 2 * n * seeds_per_pit // (2 * n - 1) + 1
    return {
        "pits_per_row": n,
        "seeds_per_pit": seeds_per_pit,
        "pit_capacity": draw(st.one_of(st.just(17), st.none(), st.integers(smallest_capacity, smallest_capacity + 3))),
        "trigger": draw(st.sampled_from([(2, 3), (2, 3), (2, 3, 4), (4,), (1, 2), (3,)])),
        "chain": draw(st.sampled_from([(2, 3, 4), (2, 3, 4), (2, 3), (1, 2, 3, 4, 5), (4,)])),
        "grand_slam": draw(st.sampled_from(["no_capture", "forbidden", "allowed"])),
        "points_three_quarters": draw(st.sampled_from([2, 1, 3])),
        "match_target": draw(st.sampled_from([None, None, 1, 3])),
        "max_games": draw(st.sampled_from([100, 1, 3])),
        "max_plies": draw(st.sampled_from([1000, 1000, 80, 9, 1])),
        "repetition": draw(st.booleans()),
    }


OPTIONS = {"ouril": ouril_options(), "urim": urim_options()}
game_names = st.sampled_from(sorted(GAMES))


@st.composite
def positions(draw: st.DrawFn, rules: Rules) -> tuple[list[int], list[int], int]:
    """An arbitrary position with the right seed total: (board, stores, player).

    Ouril stores stay below the threshold (a position at the threshold is
    already over). Seeds are dropped into a random set of pits, so the boards
    range from spread out to a few big pits; Urim pits respect the capacity.
    """
    total = rules.total
    store_cap = total if rules.threshold is None else rules.threshold - 1
    store_0 = draw(st.integers(0, min(total, store_cap)))
    store_1 = draw(st.integers(0, min(total - store_0, store_cap)))
    n_pits = 2 * rules.n
    support = sorted(draw(st.sets(st.integers(0, n_pits - 1), min_size=1)))
    drops = draw(st.lists(st.sampled_from(support), min_size=total - store_0 - store_1,
                          max_size=total - store_0 - store_1))
    limit = rules.capacity or total
    board = [0] * n_pits
    for pit in drops:
        while board[pit] >= limit:
            pit = (pit + 1) % n_pits
        board[pit] += 1
    return board, [store_0, store_1], draw(st.integers(0, 1))


# --- engine and reference side by side ----------------------------------------------------------------------


def engine_view(game: Any, state: np.ndarray) -> dict[str, Any]:
    """What the engine state says, in the reference's terms."""
    view = {
        "board": game.board(state).tolist(),
        "stores": game.stores(state).tolist(),
        "status": STATUS_NAMES[int(state[STATUS])],
        "ply": int(state[PLY]),
        "passes": int(state[PASSES]),
        "mask": game.legal_mask(state).tolist(),
        "match": [int(state[MATCH]), int(state[MATCH + 1])],
        "games_played": int(state[GAMES_PLAYED]),
    }
    if state[STATUS] == RUNNING:
        view["player"] = int(state[PLAYER])
    else:
        view["end_reason"] = END_REASON_NAMES[int(state[END_REASON])]
        view["scores"] = [int(state[SCORE]), int(state[SCORE + 1])]
        view["winner"] = None if state[WINNER] < 0 else int(state[WINNER])
        view["points"] = [int(state[POINTS]), int(state[POINTS + 1])]
    return view


def reference_view(referee: Referee) -> dict[str, Any]:
    view = {
        "board": list(referee.board),
        "stores": list(referee.stores),
        "status": referee.status,
        "ply": referee.ply,
        "passes": referee.passes,
        "mask": referee.mask(),
        "match": list(referee.match),
        "games_played": referee.games_played,
    }
    if referee.status == "running":
        view["player"] = referee.player
    else:
        view["end_reason"] = referee.end_reason
        view["scores"] = list(referee.scores)
        view["winner"] = referee.winner
        view["points"] = list(referee.points)
    return view


def build(game_name: str, options: dict[str, Any]) -> tuple[Any, Rules]:
    game_class, config_class = GAMES[game_name]
    return game_class(config_class(**options)), make_rules(game_name, **options)


def check_position(game: Any, state: np.ndarray, referee: Referee, rules: Rules) -> None:
    """Compares the position, then every action from it, engine against reference."""
    assert engine_view(game, state) == reference_view(referee)
    assert sum(game.board(state)) + sum(game.stores(state)) == rules.total
    if rules.capacity is not None:
        assert max(game.board(state)) <= rules.capacity
    trace = new_trace()
    mask = referee.mask()
    for action in range(rules.n):
        trial = state.copy()
        code = game.step(trial, action, trace)
        if state[STATUS] != RUNNING:
            assert code == GAME_OVER and np.array_equal(trial, state)
        elif not mask[action]:
            assert code == ILLEGAL and np.array_equal(trial, state), f"illegal action {action} was accepted"
        else:
            assert code == OK
            after = copy.deepcopy(referee)
            after.play(action)
            assert engine_view(game, trial) == reference_view(after), f"after action {action}"


def play_lockstep(game: Any, state: np.ndarray, referee: Referee, rules: Rules, rng: random.Random,
                  max_steps: int) -> None:
    """Plays random legal moves in both, checking every position and every move on the way."""
    for _ in range(max_steps):
        note(f"position {reference_view(referee)}")
        check_position(game, state, referee, rules)
        legal = [a for a, ok in enumerate(referee.mask()) if ok]
        if not legal:
            return
        action = rng.choice(legal)
        note(f"plays {action}")
        assert game.step(state, action, np.empty(0, np.int64)) == OK
        referee.play(action)


@settings(max_examples=60, deadline=None)
@given(game_name=game_names, data=st.data(), seed=st.integers(0, 2**32 - 1), first=st.integers(0, 1))
def test_reachable_positions_match_reference(game_name: str, data: st.DataObject, seed: int, first: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    game, rules = build(game_name, options)
    play_lockstep(game, game.new_state(first), Referee.start(rules, first), rules, random.Random(seed), 400)


@settings(max_examples=250, deadline=None)
@given(game_name=game_names, data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_arbitrary_positions_match_reference(game_name: str, data: st.DataObject, seed: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    game, rules = build(game_name, options)
    board, stores, player = data.draw(positions(rules), label="position")
    state = game.new_state(0)
    game.load_position(state, board, stores, player)
    referee = Referee.load(rules, board, stores, player)
    play_lockstep(game, state, referee, rules, random.Random(seed), 12)


# --- the environment -----------------------------------------------------------------------------------------


def random_action(env: Any, rng: random.Random) -> int | None:
    """A random masked action for ``agent_selection``; ``None`` once it is done."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return None
    mask = env.observe(agent)["action_mask"]
    return rng.choice(np.flatnonzero(mask).tolist())


def ply_bound(options: dict[str, Any]) -> int:
    games = options.get("max_games", 1) if options.get("match_target") is not None else 1
    return options.get("max_plies", 1000) * games


@st.composite
def env_setups(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """A game, its options, and reset options: the opening or an arbitrary position."""
    game_name = draw(game_names)
    options = draw(OPTIONS[game_name])
    start = None
    if draw(st.booleans()):
        board, stores, player = draw(positions(make_rules(game_name, **options)))
        start = {"board": board, "stores": stores, "player": player}
    return game_name, options, start


@settings(max_examples=40, deadline=None)
@given(setup=env_setups(), seed=st.integers(0, 2**32 - 1))
def test_env_accepts_exactly_the_masked_actions(setup: tuple, seed: int) -> None:
    game_name, options, start = setup
    env = mancala_envs.make(f"{game_name}_v0", illegal_action="raise", **options)
    env.reset(seed=seed, options=start)
    rng = random.Random(seed)
    for _ in range(60):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        accepted = []
        for action in range(len(mask)):
            trial = copy.deepcopy(env)
            try:
                trial.step(action)
            except IllegalActionError:
                assert np.array_equal(trial.unwrapped.state_array, env.unwrapped.state_array)
                continue
            accepted.append(action)
        assert accepted == np.flatnonzero(mask).tolist()
        env.step(random_action(env, rng))


@settings(max_examples=120, deadline=None)
@given(setup=env_setups(), seed=st.integers(0, 2**32 - 1))
def test_whole_games_conserve_seeds_and_end_within_the_ply_bound(setup: tuple, seed: int) -> None:
    game_name, options, start = setup
    env = mancala_envs.make(f"{game_name}_v0", **options)
    env.reset(seed=seed, options=start)
    rules = make_rules(game_name, **options)
    bound = ply_bound(options)
    rng = random.Random(seed)
    plies = 0
    final_rewards = {}
    for agent in env.agent_iter(max_iter=bound + 2):
        _, reward, terminated, truncated, info = env.last()
        assert sum(env.board) + sum(env.stores) == rules.total
        if rules.capacity is not None:
            assert max(env.board) <= rules.capacity
        assert info["ply"] <= rules.max_plies
        if terminated or truncated:
            # The end: truncated exactly when a cap ended it; +1 / -1 / 0 by the winner.
            assert truncated == (info["end_reason"] in ("max_plies", "max_games")) != terminated
            winner = info["winner"]
            final_rewards[agent] = reward
            expected = 0 if winner is None else (1 if agent == f"player_{winner}" else -1)
            assert reward == expected
        action = random_action(env, rng)
        plies += action is not None
        env.step(action)
    assert not env.agents, f"still running after {bound} plies"
    assert plies <= bound
    assert set(final_rewards) == {"player_0", "player_1"}


def trajectory_step(env: Any) -> tuple:
    """Everything an agent can see after a step, in comparable form."""
    observations = {
        agent: {key: value.tolist() for key, value in env.observe(agent).items()} for agent in env.possible_agents
    }
    return (
        env.agent_selection,
        list(env.agents),
        observations,
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        copy.deepcopy(env.infos),
    )


def play_out(env: Any, rng: random.Random, steps: int) -> list[tuple]:
    record = []
    for _ in range(steps):
        if not env.agents:
            break
        env.step(random_action(env, rng))
        record.append(trajectory_step(env))
    return record


@settings(max_examples=30, deadline=None)
@given(game_name=game_names, data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_same_seed_same_trajectory(game_name: str, data: st.DataObject, seed: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    envs = [mancala_envs.make(f"{game_name}_v0", **options) for _ in range(2)]
    records = []
    for env in envs:
        env.reset(seed=seed)
        records.append([trajectory_step(env)] + play_out(env, random.Random(seed), 2000))
    assert records[0] == records[1]


def test_first_player_is_drawn_from_the_seed() -> None:
    env = mancala_envs.make("ouril_v0")
    firsts = set()
    for seed in range(64):
        env.reset(seed=seed)
        first = env.agent_selection
        env.reset(seed=seed)
        assert env.agent_selection == first
        firsts.add(first)
    assert firsts == {"player_0", "player_1"}


@settings(max_examples=30, deadline=None)
@given(
    game_name=game_names,
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
    before=st.integers(0, 60),
    raw=st.booleans(),
)
def test_pickle_and_deepcopy_mid_game_continue_identically(
    game_name: str, data: st.DataObject, seed: int, before: int, raw: bool
) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    env = mancala_envs.make(f"{game_name}_v0", **options)
    if raw:
        env = env.unwrapped
    env.reset(seed=seed)
    rng = random.Random(seed)
    play_out(env, rng, before)
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    assert all(type(clone) is type(env) for clone in clones)
    state = rng.getstate()
    records = []
    for each in [env, *clones]:
        rng.setstate(state)
        records.append([trajectory_step(each)] + play_out(each, rng, 2000))
    assert records[0] == records[1] == records[2]


# --- compiled random play ------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(game_name=game_names, data=st.data(), seed=st.integers(0, 2**31 - 1), n_games=st.integers(0, 30))
def test_random_play_is_deterministic_and_adds_up(
    game_name: str, data: st.DataObject, seed: int, n_games: int
) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    game, _ = build(game_name, options)
    stats = play_random_games(game, n_games, seed)
    assert play_random_games(game, n_games, seed) == stats
    assert stats.games == n_games
    assert stats.wins[0] + stats.wins[1] + stats.draws == n_games
    assert 0 <= stats.truncated <= n_games
    assert stats.longest <= options["max_plies"]
    assert n_games <= stats.plies <= n_games * ply_bound(options)
