"""Property tests of Ouril and Urim against an independent reference (``tests/support/reference.py``).

* The compiled engine and the reference agree on reachable and on arbitrary
  positions: the legal mask, and the whole result of every legal move (board,
  stores, next player, passes, ply, end of the game, scores, winner, match
  points). Illegal moves are refused and leave the state untouched.
* The environment accepts exactly the masked actions.
* Seeds are conserved and Urim pits never exceed their capacity.
* Every game ends within ``max_plies`` plies (``max_games * max_plies`` for an
  Urim match).
* A seed fixes the trajectory; pickling or deep-copying an env mid-game clones it.
* Compiled random play is deterministic per seed and its counts add up.

Each hypothesis property runs by default with a small budget and again, marked
``slow``, with a larger one (``pytest -m slow tests/games/test_properties.py``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import note
from hypothesis import strategies as st

import mancala_envs
from mancala_envs.engine.state import (
    END_REASON,
    END_REASON_NAMES,
    GAME_OVER,
    GAMES_PLAYED,
    ILLEGAL,
    MATCH,
    OK,
    PASSES,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    TERMINATED,
    TRUNCATED,
    WINNER,
)
from mancala_envs.engine.trace import new_trace
from mancala_envs.envs.batch import play_random
from mancala_envs.games.ouril import Ouril, OurilConfig
from mancala_envs.games.urim import Urim, UrimConfig

from support.properties import (
    accepted_actions,
    assert_clones_continue_identically,
    play_out,
    quick_and_slow,
    random_action,
    trajectory_step,
)
from support.reference import Referee, Rules, make_rules

GAMES = {"ouril": (Ouril, OurilConfig), "urim": (Urim, UrimConfig)}
STATUS_NAMES = {RUNNING: "running", TERMINATED: "terminated", TRUNCATED: "truncated"}
NO_TRACE = np.empty(0, np.int64)


# --- strategies ----------------------------------------------------------------------------------------------


@st.composite
def ouril_options(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.sampled_from([6, 4]))
    return {
        "pits_per_row": n,
        "skip_origin": draw(st.sampled_from(["always", "first_circuit_only"])),
        "grand_slam": draw(st.sampled_from(["allowed", "forbidden", "no_capture"])),
        "singleton_rule": draw(st.sampled_from(["free", "only_if_all_singletons"])),
        "win_threshold": draw(st.one_of(st.none(), st.none(), st.integers(1, 8 * n))),
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
seeds = st.integers(0, 2**32 - 1)


@st.composite
def positions(draw: st.DrawFn, rules: Rules) -> tuple[list[int], list[int], int]:
    """An arbitrary position with the right seed total: (board, stores, player).

    Seeds are dropped into a random set of pits, so the boards range from
    spread out to a few big pits; Urim pits respect the capacity.
    """
    total = rules.total
    on_board = draw(st.integers(0, total))
    store_0 = draw(st.integers(0, total - on_board))
    n_pits = 2 * rules.n
    support = sorted(draw(st.sets(st.integers(0, n_pits - 1), min_size=1)))
    drops = draw(st.lists(st.sampled_from(support), min_size=on_board, max_size=on_board))
    limit = rules.capacity or total
    board = [0] * n_pits
    for pit in drops:
        while board[pit] >= limit:
            pit = (pit + 1) % n_pits
        board[pit] += 1
    return board, [store_0, total - on_board - store_0], draw(st.integers(0, 1))


# --- the reference itself, on the rules page's worked examples ----------------------------------------------

OPENING = None  # a position of None means the opening, player 0 to move
WORKED_EXAMPLES = [
    # (id, game, options, (board, stores, player) or OPENING, actions, expected facts afterwards)
    ("U1", "urim", {}, OPENING, [5], {"board": [3, 3, 3, 3, 3, 0, 4, 4, 4, 3, 3, 3], "stores": [0, 0]}),
    (
        "U2",
        "urim",
        {},
        ([2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], [8, 7], 0),
        [5],
        {"board": [2, 1, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0], "stores": [19, 7], "player": 1},
    ),
    (
        "U3",
        "urim",
        {},
        ([15, 0, 0, 17, 0, 0, 1, 0, 0, 1, 2, 0], [0, 0], 0),
        [0],
        {"board": [0, 2, 2, 17, 2, 2, 0, 1, 1, 2, 3, 1], "stores": [3, 0]},
    ),
    (
        "U4",
        "urim",
        {},
        ([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [12, 11], 0),
        [4],
        {"board": [3, 3, 0, 2, 0, 1, 2, 2, 0, 0, 0, 0], "stores": [12, 11]},
    ),
    ("U5 mask", "urim", {}, ([1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0], [20, 13], 0), [], {"mask": [0, 0, 0, 0, 1, 0]}),
    (
        "U5",
        "urim",
        {},
        ([1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0], [20, 13], 0),
        [4],
        {"board": [1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]},
    ),
    (
        "U6",
        "urim",
        {},
        ([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [24, 9], 0),
        [],
        {"status": "terminated", "end_reason": "no_feeding_move", "scores": [27, 9], "winner": 0, "points": [2, 0]},
    ),
    (
        "U7",
        "urim",
        {},
        ([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], [17, 17], 0),
        [5, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4],
        {"end_reason": "repetition", "ply": 12, "scores": [18, 18], "winner": None, "points": [0, 0]},
    ),
    ("U8", "urim", {"pits_per_row": 7}, OPENING, [6], {"board": [3, 3, 3, 3, 3, 3, 0, 4, 4, 4, 3, 3, 3, 3]}),
    ("O1", "ouril", {}, OPENING, [2], {"board": [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]}),
    (
        "O2",
        "ouril",
        {},
        ([6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0], [10, 9], 0),
        [5],
        {"board": [6, 2, 0, 4, 1, 0, 4, 0, 0, 0, 5, 0], "stores": [17, 9]},
    ),
    (
        "O2 as Urim",
        "urim",
        {"seeds_per_pit": 4},
        ([6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0], [10, 9], 0),
        [5],
        {"board": [6, 2, 0, 4, 1, 0, 0, 0, 0, 0, 5, 0], "stores": [21, 9]},
    ),
    (
        "O3",
        "ouril",
        {},
        ([2, 16, 0, 1, 0, 3, 1, 0, 2, 0, 0, 4], [10, 9], 0),
        [1],
        {"board": [3, 0, 2, 3, 2, 5, 0, 1, 3, 1, 1, 5], "stores": [13, 9]},
    ),
    (
        "O4",
        "ouril",
        {},
        ([3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], [22, 22], 0),
        [],
        {"end_reason": "no_feeding_move", "scores": [26, 22], "winner": 0},
    ),
    (
        "O5",
        "ouril",
        {},
        ([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [17, 18], 0),
        [4],
        {
            "board": [3, 3, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0],
            "stores": [21, 18],
            "passes": 1,
            "player": 0,
            "mask": [0, 0, 0, 0, 0, 1],
        },
    ),
    (
        "O5 forbidden",
        "ouril",
        {"grand_slam": "forbidden"},
        ([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [17, 18], 0),
        [],
        {"mask": [1, 1, 0, 1, 0, 0]},
    ),
    (
        "O5 no_capture",
        "ouril",
        {"grand_slam": "no_capture"},
        ([3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], [17, 18], 0),
        [4],
        {"board": [3, 3, 0, 2, 0, 1, 2, 2, 0, 0, 0, 0], "stores": [17, 18], "player": 1},
    ),
]


@pytest.mark.parametrize(
    ("game_name", "options", "position", "actions", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in WORKED_EXAMPLES],
)
def test_reference_reproduces_the_worked_examples(
    game_name: str, options: dict, position: tuple | None, actions: list[int], expected: dict
) -> None:
    """The oracle is only worth trusting if it gets docs/rules/urim.md and docs/rules/ouril.md right."""
    rules = make_rules(game_name, **options)
    referee = Referee.start(rules, 0) if position is None else Referee.load(rules, *position)
    for action in actions:
        referee.play(action)
    view = reference_view(referee)
    assert {key: view.get(key) for key in expected} == expected


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
    board = game.board(state)
    assert board.sum() + game.stores(state).sum() == rules.total
    if rules.capacity is not None:
        assert board.max() <= rules.capacity
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
            after = referee.clone()
            after.play(action)
            assert engine_view(game, trial) == reference_view(after), f"after action {action}"


def play_lockstep(
    game: Any, state: np.ndarray, referee: Referee, rules: Rules, rng: random.Random, max_plies: int
) -> None:
    """Plays random legal moves in both, checking every position and every move on the way."""
    for _ in range(max_plies + 1):
        check_position(game, state, referee, rules)
        legal = [action for action, ok in enumerate(referee.mask()) if ok]
        if not legal:
            return
        action = rng.choice(legal)
        note(f"from {reference_view(referee)} play {action}")
        assert game.step(state, action, NO_TRACE) == OK
        referee.play(action)


def check_reachable_positions(game_name: str, data: st.DataObject, seed: int, first: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    game, rules = build(game_name, options)
    play_lockstep(game, game.new_state(first), Referee.start(rules, first), rules, random.Random(seed), 300)


test_reachable_positions_match_reference, test_reachable_positions_match_reference_longer = quick_and_slow(
    50, 150, game_name=game_names, data=st.data(), seed=seeds, first=st.integers(0, 1)
)(check_reachable_positions)


def check_arbitrary_positions(game_name: str, data: st.DataObject, seed: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    game, rules = build(game_name, options)
    board, stores, player = data.draw(positions(rules), label="position")
    state = game.new_state(0)
    game.load_position(state, board, stores, player)
    referee = Referee.load(rules, board, stores, player)
    play_lockstep(game, state, referee, rules, random.Random(seed), 10)


test_arbitrary_positions_match_reference, test_arbitrary_positions_match_reference_longer = quick_and_slow(
    250, 800, game_name=game_names, data=st.data(), seed=seeds
)(check_arbitrary_positions)


# Positions on which engine and reference once disagreed (fixed in the engine since); kept as exact checks.
FOUND_BY_THE_PROPERTIES = [
    # (id, game, options, (board, stores, player), actions, expected facts afterwards)
    (
        "urim match: a loaded position that is already over counts in the match",
        "urim",
        {"match_target": 1},
        ([1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0], [24, 9], 0),
        [],
        {"end_reason": "match_target", "match": [2, 0], "games_played": 1},
    ),
    (
        "ouril: a win at a low win_threshold earns the winner 1 match point",
        "ouril",
        {"win_threshold": 10},
        ([0, 0, 0, 0, 0, 1, 2, 4, 4, 4, 4, 17], [7, 5], 0),
        [5],
        {"end_reason": "threshold", "scores": [10, 5], "winner": 0, "points": [1, 0]},
    ),
    (
        "ouril: a loaded store at the threshold ends the game",
        "ouril",
        {},
        ([4, 4, 4, 4, 4, 3, 0, 0, 0, 0, 0, 0], [25, 0], 1),
        [],
        {"end_reason": "threshold", "scores": [25, 0], "board": [4, 4, 4, 4, 4, 3, 0, 0, 0, 0, 0, 0]},
    ),
    (
        "ouril: a loaded player without seeds passes",
        "ouril",
        {},
        ([0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0], [23, 23], 1),
        [],
        {"status": "running", "player": 0, "passes": 1, "mask": [0, 0, 0, 0, 0, 1]},
    ),
]


@pytest.mark.parametrize(
    ("game_name", "options", "position", "actions", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in FOUND_BY_THE_PROPERTIES],
)
def test_regressions_found_by_the_properties(
    game_name: str, options: dict, position: tuple, actions: list[int], expected: dict
) -> None:
    game, rules = build(game_name, options)
    state = game.new_state(0)
    game.load_position(state, *position)
    referee = Referee.load(rules, *position)
    for action in actions:
        check_position(game, state, referee, rules)
        assert game.step(state, action, NO_TRACE) == OK
        referee.play(action)
    check_position(game, state, referee, rules)
    view = engine_view(game, state)
    assert {key: view.get(key) for key in expected} == expected


# --- the environment -----------------------------------------------------------------------------------------


def ply_bound(options: dict[str, Any]) -> int:
    """Most plies an episode can last: one game, or ``max_games`` games of an Urim match."""
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


def check_env_accepts_exactly_the_mask(setup: tuple, seed: int) -> None:
    game_name, options, start = setup
    env = mancala_envs.make(f"{game_name}_v0", illegal_action="raise", **options)
    env.reset(seed=seed, options=start)
    rng = random.Random(seed)
    for ply in range(30):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        if ply % 3 == 0:  # deep copies of an env are slow; every third position is enough here
            mask = env.observe(env.agent_selection)["action_mask"]
            assert accepted_actions(env) == np.flatnonzero(mask).tolist()
        env.step(random_action(env, rng))


test_env_accepts_exactly_the_masked_actions, test_env_accepts_exactly_the_masked_actions_longer = quick_and_slow(
    20, 60, setup=env_setups(), seed=seeds
)(check_env_accepts_exactly_the_mask)


def check_whole_games(setup: tuple, seed: int) -> None:
    """Seeds conserved, Urim capacity kept, the end within the ply bound, rewards by the winner."""
    game_name, options, start = setup
    env = mancala_envs.make(f"{game_name}_v0", **options)
    env.reset(seed=seed, options=start)
    rules = make_rules(game_name, **options)
    bound = ply_bound(options)
    rng = random.Random(seed)
    plies = 0
    final_rewards = {}
    for agent in env.agent_iter(max_iter=bound + 2):
        _, reward, terminated, truncated, _ = env.last()
        info = env.unwrapped.facts()
        assert sum(env.board) + sum(env.stores) == rules.total
        if rules.capacity is not None:
            assert max(env.board) <= rules.capacity
        assert info["ply"] <= rules.max_plies
        if terminated or truncated:
            assert truncated == (info["end_reason"] in ("max_plies", "max_games")) != terminated
            winner = info["winner"]
            final_rewards[agent] = reward
            assert reward == (0 if winner is None else 1 if agent == f"player_{winner}" else -1)
        action = random_action(env, rng)
        plies += action is not None
        env.step(action)
    assert not env.agents, f"still running after {bound} plies"
    assert plies <= bound
    assert set(final_rewards) == {"player_0", "player_1"}


test_whole_games_end_within_the_ply_bound, test_whole_games_end_within_the_ply_bound_longer = quick_and_slow(
    80, 300, setup=env_setups(), seed=seeds
)(check_whole_games)


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("repetition", [True, False])
def test_default_games_end_within_max_plies(game_name: str, repetition: bool) -> None:
    """Whole random games under each game's defaults, and with repetition off."""
    rng = random.Random(7)
    env = mancala_envs.make(f"{game_name}_v0", repetition=repetition, max_plies=300)
    for seed in range(15):
        env.reset(seed=seed)
        plies = 0
        while env.agents:
            action = random_action(env, rng)
            plies += action is not None
            env.step(action)
        assert plies <= 300


def check_same_seed_same_trajectory(game_name: str, data: st.DataObject, seed: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    records = []
    for _ in range(2):
        env = mancala_envs.make(f"{game_name}_v0", **options)
        env.reset(seed=seed)
        records.append([trajectory_step(env), *play_out(env, random.Random(seed), 3000)])
    assert records[0] == records[1]


test_same_seed_same_trajectory, test_same_seed_same_trajectory_longer = quick_and_slow(
    15, 60, game_name=game_names, data=st.data(), seed=seeds
)(check_same_seed_same_trajectory)


def test_first_player_is_drawn_from_the_seed() -> None:
    for game_name in GAMES:
        env = mancala_envs.make(f"{game_name}_v0")
        firsts = set()
        for seed in range(40):
            env.reset(seed=seed)
            first = env.agent_selection
            env.reset(seed=seed)
            assert env.agent_selection == first
            firsts.add(first)
        assert firsts == {"player_0", "player_1"}


def check_clones_continue_identically(game_name: str, data: st.DataObject, seed: int, before: int, raw: bool) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    env = mancala_envs.make(f"{game_name}_v0", **options)
    assert_clones_continue_identically(env.unwrapped if raw else env, seed, before)


test_pickle_and_deepcopy_mid_game_continue_identically, test_pickle_and_deepcopy_longer = quick_and_slow(
    15, 60, game_name=game_names, data=st.data(), seed=seeds, before=st.integers(0, 60), raw=st.booleans()
)(check_clones_continue_identically)


# --- compiled random play ------------------------------------------------------------------------------------


def check_random_play(game_name: str, data: st.DataObject, seed: int, n_games: int) -> None:
    options = data.draw(OPTIONS[game_name], label="options")
    game, _ = build(game_name, options)
    stats = play_random(game, n_games, seed=seed)
    assert play_random(game, n_games, seed=seed) == stats
    assert stats.games == n_games
    assert stats.wins[0] + stats.wins[1] + stats.draws == n_games
    assert 0 <= stats.truncated <= n_games
    assert stats.longest <= options["max_plies"]
    assert n_games <= stats.plies <= n_games * ply_bound(options)


test_random_play_is_deterministic_and_adds_up, test_random_play_longer = quick_and_slow(
    10, 40, game_name=game_names, data=st.data(), seed=st.integers(0, 2**31 - 1), n_games=st.integers(0, 20)
)(check_random_play)
