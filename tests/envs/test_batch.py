"""The batched engine (``mancala_envs.envs.batch``): move-by-move equivalence with ``MancalaEnv`` for every
registered id, ``play_random`` against a plain-Python loop, input checks, memory and seeding."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from mancala_envs.algorithms.playouts import RolloutStats
from mancala_envs.common.errors import IllegalActionError
from mancala_envs.engine.state import HISTORY_LEN, MATCH, POINTS, RUNNING, SCORE, STATUS, TURN, WINNER
from mancala_envs.envs.batch import DEFAULT_HISTORY_CAPACITY, BatchedGames, BatchStep, play_random
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.games.ouril import Ouril

from support.batch_reference import (
    XorShift,
    generators,
    history_start,
    new_env,
    play_random_reference,
    zeroed_history,
)

VARIANT_IDS = [variant.id for variant in VARIANTS]
MATCH_IDS = ["mancala/urim-match-v0", "mancala/rio-kadalis-match-v0", "mancala/omweso-match-v0"]
AGENTS = ("player_0", "player_1")


def _equal(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    """``assert_array_equal`` with a fast path (the mirror compares thousands of small arrays)."""
    if actual.shape != expected.shape or not np.array_equal(actual, expected):
        np.testing.assert_array_equal(actual, expected, err_msg=what)


# --- the mirror: each batched game against its own MancalaEnv ---------------------------------------------------
class Mirror:
    """A batch and one ``MancalaEnv`` per game, checked against each other after every step."""

    def __init__(self, env_id: str, n_games: int, seed: int, history_capacity: int | None, **options: Any) -> None:
        capacity = {} if history_capacity is None else {"history_capacity": history_capacity}
        if "spill_capacity" in options:
            capacity["spill_capacity"] = options.pop("spill_capacity")
        self.env_id = env_id
        self.batch = BatchedGames(env_id, n_games, **capacity, **options)
        self.first_player = options.pop("first_player", None)
        self.options = options  # game options and reward_mode, for the envs
        self.game = self.batch.game
        self.rngs = generators(seed, n_games)  # predicts the first player of every new game
        self.envs: list[Any] = []
        self.ended = 0
        self.truncations = 0
        self.most_spilled = 0
        self.came_back = 0  # steps in which fewer games were spilled, though none ended
        step = self.batch.reset(seed=seed)
        assert step.final.index.shape == (0,)
        assert step.final.observation.shape == (0, 2, self.batch.observation_size)
        assert not step.terminated.any() and not step.truncated.any()
        np.testing.assert_array_equal(step.rewards, np.zeros((n_games, 2), np.float32))
        for game in range(n_games):
            self.envs.append(self._new_env(game))
            self.check_position(step, game)
        self.batch_mask = step.action_mask
        self.spilled = self.batch.spilled_games

    def _new_env(self, game: int) -> Any:
        first = self.rngs[game].first_player() if self.first_player is None else self.first_player
        return new_env(self.env_id, first, **self.options)

    def check_position(self, step: BatchStep, game: int) -> None:
        """Game ``game`` of the batch is where its env is: player to move, observation, mask, state."""
        env = self.envs[game]
        agent = env.agent_selection
        assert int(step.current_player[game]) == AGENTS.index(agent)
        seen = env.observe(agent)
        _equal(step.observation[game], seen["observation"], f"observation of game {game}")
        _equal(step.action_mask[game], seen["action_mask"].astype(bool), f"action mask of game {game}")
        state = self.batch.state(game)
        assert state.dtype == np.int64
        _equal(state, zeroed_history(env.unwrapped.state_array, self.game), f"state of game {game}")
        start = history_start(self.game)
        if start:
            assert not state[start + int(state[HISTORY_LEN]) :].any()

    def check_end(self, step: BatchStep, game: int) -> None:
        """Game ``game`` ended in ``step`` as its env did: rewards, flags, final observations and facts."""
        env = self.envs[game]
        raw = env.unwrapped
        state = raw.state_array
        k = int(np.flatnonzero(step.final.index == game)[0])
        final = step.final
        assert final.observation.dtype == np.int32 and final.index.dtype == np.int64
        assert final.winner.dtype == final.end_reason.dtype == np.int8
        assert final.scores.dtype == final.points.dtype == final.plies.dtype == final.turns.dtype == np.int32
        expected_rewards = [raw.cumulative_reward(agent) for agent in AGENTS]
        assert step.rewards[game].tolist() == expected_rewards
        assert step.rewards[game].tolist() == [raw.rewards[agent] for agent in AGENTS]
        assert bool(step.terminated[game]) == raw.terminations["player_0"] == raw.terminations["player_1"]
        assert bool(step.truncated[game]) == raw.truncations["player_0"] == raw.truncations["player_1"]
        assert step.terminated[game] != step.truncated[game]
        for seat, agent in enumerate(AGENTS):
            _equal(step.final.observation[k, seat], env.observe(agent)["observation"], f"final view of seat {seat}")
        info = raw.facts()
        winner = -1 if info["winner"] is None else info["winner"]
        assert int(step.final.winner[k]) == winner == int(state[WINNER])
        assert self.game.end_reason_names[int(step.final.end_reason[k])] == info["end_reason"]
        assert int(step.final.plies[k]) == info["ply"]
        assert int(step.final.turns[k]) == int(state[TURN])
        assert step.final.scores[k].tolist() == info["scores"] == state[SCORE : SCORE + 2].tolist()
        points = MATCH if self.game.is_match else POINTS
        assert step.final.points[k].tolist() == info["match_points"] == state[points : points + 2].tolist()
        self.ended += 1
        self.truncations += int(step.truncated[game])

    def play(self, steps: int, rng: np.random.Generator) -> None:
        """``steps`` batch steps of random legal actions, each checked game by game."""
        n = self.batch.n_games
        for _ in range(steps):
            mask = self.batch_mask
            actions = np.array([rng.choice(np.flatnonzero(mask[game])) for game in range(n)], np.int64)
            step = self.batch.step(actions)
            assert step.observation.dtype == np.int32 and step.observation.shape == (n, self.batch.observation_size)
            assert step.action_mask.dtype == np.bool_ and step.action_mask.shape == (n, self.batch.n_actions)
            assert step.current_player.dtype == np.int8 and step.rewards.dtype == np.float32
            assert step.rewards.shape == (n, 2)
            _equal(step.final.index, np.flatnonzero(step.terminated | step.truncated), "final.index")
            for game in range(n):
                env = self.envs[game]
                env.step(int(actions[game]))
                if env.unwrapped.state_array[STATUS] != RUNNING:
                    self.check_end(step, game)
                    self.envs[game] = self._new_env(game)
                else:
                    assert not step.terminated[game] and not step.truncated[game]
                    assert step.rewards[game].tolist() == [0.0, 0.0]
                self.check_position(step, game)
            self.batch_mask = step.action_mask
            spilled = self.batch.spilled_games
            if spilled < self.spilled and not step.final.index.size:
                self.came_back += 1
            self.spilled = spilled
            self.most_spilled = max(self.most_spilled, spilled)

    def run(self, steps: int, seed: int) -> Mirror:
        """Plays ``steps`` checked steps with actions drawn from ``seed``; returns the mirror."""
        self.play(steps, np.random.default_rng(seed))
        return self


CAPACITIES = pytest.mark.parametrize(
    "history_capacity", [None, 3, 4], ids=["default-capacity", "capacity-3", "capacity-4"]
)


@CAPACITIES
@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_every_variant_moves_as_the_env(env_id: str, history_capacity: int | None) -> None:
    """Capacity 3 keeps nearly every two-row game in the spill area; capacity 4 sends games there and back
    at almost every capture."""
    mirror = Mirror(env_id, 6, seed=11, history_capacity=history_capacity).run(150, seed=5)
    if env_id not in MATCH_IDS:
        assert mirror.ended >= 3  # games ended and were started again in the same step
    if history_start(mirror.game) and history_capacity in (3, 4):
        assert mirror.most_spilled > 0  # the spill area was used
    if history_start(mirror.game) and history_capacity == 4:
        assert mirror.came_back > 0  # spilled games moved back to their own rows after a capture
    if not history_start(mirror.game):
        assert mirror.batch.history_capacity == 0 and mirror.most_spilled == 0


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("mancala/urim-match-v0", {"match_target": 2, "max_games": 2}),
        ("mancala/urim-match-v0", {"match_target": 1, "reward_mode": "match_points"}),
        ("mancala/rio-kadalis-match-v0", {"max_rounds": 2}),
        ("mancala/rio-kadalis-match-v0", {"max_rounds": 2, "reward_mode": "match_points"}),
        ("mancala/omweso-match-v0", {"match_target": 3, "reward_mode": "match_points"}),
        ("mancala/ouril-v0", {"max_plies": 30}),
        ("mancala/omweso-v0", {"max_turns": 12}),
        ("ouril_v0", {"first_player": 0}),
        ("mancala/rio-kadalis-v0", {"first_player": 1}),
        ("omweso_v0", {"first_player": 0}),
        ("modiar_v0", {"reward_mode": "match_points"}),
        ("urim_v0", {"repetition": False}),
    ],
    ids=lambda value: value if isinstance(value, str) else ",".join(f"{k}={v}" for k, v in value.items()),
)
@CAPACITIES
def test_options_move_as_the_env(env_id: str, options: dict[str, Any], history_capacity: int | None) -> None:
    mirror = Mirror(env_id, 6, seed=3, history_capacity=history_capacity, **options).run(200, seed=8)
    assert mirror.ended >= 2
    if {"max_plies", "max_turns", "max_rounds", "max_games"} & set(options):
        assert mirror.truncations >= 1


def test_first_player_option_fixes_every_opening() -> None:
    for first in (0, 1):
        games = BatchedGames("ouril_v0", 8, first_player=first)
        assert games.reset(seed=4).current_player.tolist() == [first] * 8
        assert games.reset().current_player.tolist() == [first] * 8
    drawn = BatchedGames("ouril_v0", 64).reset(seed=4).current_player
    assert set(drawn.tolist()) == {0, 1}
    assert drawn.tolist() == [rng.first_player() for rng in generators(4, 64)]


def test_many_spilled_games_grow_the_spill_area() -> None:
    mirror = Mirror("mancala/ouril-mini-v0", 20, seed=2, history_capacity=3).run(60, seed=2)
    assert mirror.most_spilled > 8  # more than the spill area's first 8 rows
    assert mirror.ended >= 3


def test_long_memories_move_on_to_the_vault_and_back() -> None:
    """Spill rows of 4 keys send Rio Kadalis games (long runs without a capture) on to full-size vault rows."""
    mirror = Mirror("rio_kadalis_v0", 6, seed=5, history_capacity=3, spill_capacity=4)
    rng = np.random.default_rng(5)
    in_vault = []
    for _ in range(150):
        mirror.play(1, rng)
        in_vault.append(int((mirror.batch.spill_slots < -1).sum()))
    assert max(in_vault) >= 2, "games reached the vault"
    assert any(later < earlier for earlier, later in itertools.pairwise(in_vault)), "games left the vault"
    assert mirror.ended >= 1


def test_a_game_object_and_short_names_give_the_registered_games() -> None:
    actions = np.random.default_rng(0)
    by_game = BatchedGames(Ouril(), 5)
    by_name = BatchedGames("ouril_v0", 5)
    by_id = BatchedGames("mancala/ouril-v0", 5)
    steps = [g.reset(seed=9) for g in (by_game, by_name, by_id)]
    for _ in range(80):
        _assert_same_steps(steps[0], steps[1])
        _assert_same_steps(steps[0], steps[2])
        chosen = np.array([actions.choice(np.flatnonzero(m)) for m in steps[0].action_mask])
        steps = [g.step(chosen) for g in (by_game, by_name, by_id)]
    assert repr(by_name) == "BatchedGames('ouril_v0', n_games=5)"
    with pytest.raises(TypeError, match="unknown options"):
        BatchedGames(Ouril(), 2, max_plies=10)


# --- play_random ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("env_id", "n_games", "batch_size", "options"),
    [
        ("mancala/ouril-mini-v0", 23, 4, {}),
        ("mancala/ouril-v0", 9, 3, {"max_plies": 40}),
        ("modiar_v0", 17, 5, {}),
        ("mancala/urim-v0", 7, 4, {}),
        ("mancala/rio-kadalis-cw-v0", 7, 3, {}),
        ("mancala/rio-kadalis-match-v0", 3, 2, {"max_rounds": 2}),
        ("mancala/omweso-v0", 6, 4, {}),
        ("mancala/omweso-placement-v0", 3, 2, {"first_player": 1}),
        ("mancala/urim-match-v0", 3, 2, {"match_target": 2}),
    ],
)
def test_play_random_is_the_plain_loop(env_id: str, n_games: int, batch_size: int, options: dict[str, Any]) -> None:
    first_player = options.get("first_player")
    game_options = {k: v for k, v in options.items() if k != "first_player"}
    expected, envs, rngs = play_random_reference(env_id, n_games, batch_size, 21, first_player, **game_options)
    assert play_random(env_id, n_games, batch_size=batch_size, seed=21, **options) == expected
    for capacity in (DEFAULT_HISTORY_CAPACITY, 3, 4):
        games = BatchedGames(env_id, batch_size, history_capacity=capacity, **options)
        games.reset(seed=21)
        assert games.play_random(n_games) == expected
        # exactly n_games games were finished: the others stand where the loop left them
        for game, env in enumerate(envs):
            np.testing.assert_array_equal(games.state(game), zeroed_history(env.unwrapped.state_array, games.game))
        # the generators went on from where play_random left them
        step = games.reset()
        copies = [XorShift(np.array(rng.words)) for rng in rngs]
        want = [rng.first_player() if first_player is None else first_player for rng in copies]
        assert step.current_player.tolist() == want
    # a second call goes on from the row where the first stopped
    games = BatchedGames(env_id, batch_size, **options)
    games.reset(seed=21)
    first, rest = games.play_random(n_games // 2), games.play_random(n_games - n_games // 2)
    assert first.plies + rest.plies == expected.plies
    assert (first.wins[0] + rest.wins[0], first.wins[1] + rest.wins[1]) == expected.wins
    assert (first.draws + rest.draws, max(first.longest, rest.longest)) == (expected.draws, expected.longest)
    for game, env in enumerate(envs):
        np.testing.assert_array_equal(games.state(game), zeroed_history(env.unwrapped.state_array, games.game))


def test_play_random_counts_and_determinism() -> None:
    stats = play_random("ouril_v0", 100, batch_size=16, seed=1)
    assert isinstance(stats, RolloutStats)
    assert stats == play_random("ouril_v0", 100, batch_size=16, seed=1)
    assert stats != play_random("ouril_v0", 100, batch_size=16, seed=2)
    assert stats.games == 100
    assert stats.wins[0] + stats.wins[1] + stats.draws == 100
    assert 0 <= stats.truncated <= 100 and 0 < stats.longest <= 1000 and stats.plies >= stats.longest
    truncated = play_random("ouril_v0", 50, batch_size=8, seed=1, max_plies=20)
    assert truncated.games == 50 and truncated.wins[0] + truncated.wins[1] + truncated.draws == 50
    assert truncated.longest == 20 and truncated.truncated >= 1
    games = BatchedGames("ouril_v0", 4)
    games.reset(seed=3)
    before = [games.state(i) for i in range(4)]
    assert games.play_random(0) == RolloutStats(games=0, plies=0, wins=(0, 0), draws=0, truncated=0, longest=0)
    _assert_states(games, before)


def test_play_random_checks_its_arguments() -> None:
    games = BatchedGames("ouril_v0", 4)
    with pytest.raises(RuntimeError, match="reset"):
        games.play_random(3)
    games.reset(seed=0)
    with pytest.raises(ValueError, match="n_games"):
        games.play_random(-1)
    with pytest.raises(TypeError, match="n_games"):
        games.play_random(True)
    with pytest.raises(ValueError, match="batch_size"):
        play_random("ouril_v0", 3, batch_size=0)


# --- rejected input ---------------------------------------------------------------------------------------------
def _assert_states(games: BatchedGames, expected: list[np.ndarray]) -> None:
    for game, state in enumerate(expected):
        np.testing.assert_array_equal(games.state(game), state)


def _assert_same_steps(a: BatchStep, b: BatchStep) -> None:
    for name in ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated"):
        left, right = getattr(a, name), getattr(b, name)
        assert left.dtype == right.dtype, name
        np.testing.assert_array_equal(left, right, err_msg=name)
    for name in a.final._fields:
        np.testing.assert_array_equal(getattr(a.final, name), getattr(b.final, name), err_msg=f"final.{name}")


@pytest.mark.parametrize("history_capacity", [DEFAULT_HISTORY_CAPACITY, 3])
def test_rejected_steps_change_nothing(history_capacity: int) -> None:
    n = 5
    games = BatchedGames("ouril_v0", n, history_capacity=history_capacity)
    twin = BatchedGames("ouril_v0", n, history_capacity=history_capacity)
    with pytest.raises(RuntimeError, match="reset"):
        games.step(np.zeros(n, np.int64))
    step = games.reset(seed=6)
    _assert_same_steps(step, twin.reset(seed=6))
    rng = np.random.default_rng(6)
    while step.action_mask.all():  # play on until some game has an illegal action
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in step.action_mask])
        step = games.step(actions)
        _assert_same_steps(step, twin.step(actions))
    if history_capacity == 3:
        assert games.spilled_games > 0  # legality is read from the spill rows too
    legal = np.array([np.flatnonzero(m)[0] for m in step.action_mask])
    blocked = int(np.flatnonzero(~step.action_mask.all(axis=1))[0])
    illegal = legal.copy()
    illegal[blocked] = int(np.flatnonzero(~step.action_mask[blocked])[0])
    before = [games.state(i) for i in range(n)]
    out_of_range_low, out_of_range_high = legal.copy(), legal.copy()
    out_of_range_low[2] = -1
    out_of_range_high[3] = games.n_actions
    rejected: list[tuple[Any, type[Exception], str]] = [
        (legal[:-1], ValueError, rf"shape \({n},\)"),
        (np.append(legal, 0), ValueError, "shape"),
        (legal.reshape(n, 1), ValueError, "shape"),
        (3, ValueError, "shape"),
        (legal.astype(np.float64), TypeError, "integers"),
        (legal.astype(bool), TypeError, "integers"),
        (out_of_range_low, ValueError, r"out of range in games \[2\]"),
        (out_of_range_high, ValueError, r"out of range in games \[3\].*0\.\.5"),
        (
            illegal,
            IllegalActionError,
            rf"illegal actions in games \[{blocked}\]: game {blocked} got {illegal[blocked]}",
        ),
    ]
    for actions, error, message in rejected:
        with pytest.raises(error, match=message) as raised:
            games.step(actions)
        if error is ValueError:
            assert raised.type is ValueError  # not the IllegalActionError subclass
        _assert_states(games, before)
    for form in (np.asarray, list, lambda a: np.asarray(a, np.int8)):
        after = games.step(form(legal))
        _assert_same_steps(after, twin.step(legal))
        legal = np.array([np.flatnonzero(m)[0] for m in after.action_mask])


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (("ouril_v0", 0), {}, ValueError, "n_games must be an integer >= 1"),
        (("ouril_v0", -3), {}, ValueError, "n_games"),
        (("ouril_v0", True), {}, TypeError, "n_games must be an integer"),
        (("ouril_v0", 2.0), {}, TypeError, "n_games must be an integer"),
        (("ouril_v0", 2), {"history_capacity": 2}, ValueError, "history_capacity must be an integer >= 3"),
        (("ouril_v0", 2), {"history_capacity": 3.0}, TypeError, "history_capacity"),
        (("nope_v0", 2), {}, ValueError, "unknown environment 'nope_v0'"),
        (("ouril_v0", 2), {"foo": 1}, TypeError, "no option 'foo'"),
        (("ouril_v0", 2), {"pits_per_row": 1}, ValueError, "pits_per_row"),
        (("ouril_v0", 2), {"first_player": 2}, ValueError, "first_player"),
        (("ouril_v0", 2), {"reward_mode": "points"}, ValueError, "reward_mode"),
    ],
)
def test_bad_constructor_arguments(args: tuple, kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        BatchedGames(*args, **kwargs)


def test_bad_seeds_and_game_indices() -> None:
    games = BatchedGames("ouril_v0", 3)
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0"):
        games.reset(seed=-1)
    for seed in (1.5, True, "1"):
        with pytest.raises((TypeError, ValueError), match="seed must be None or an integer >= 0"):
            games.reset(seed=seed)
    games.reset(seed=0)
    for index in (-1, 3):
        with pytest.raises(ValueError, match="game"):
            games.state(index)
    with pytest.raises(TypeError, match="game"):
        games.state(1.0)


# --- memory ---------------------------------------------------------------------------------------------------
def test_state_bytes_per_game() -> None:
    games = BatchedGames("ouril_v0", 1000)
    start = history_start(games.game)
    assert start == 32 + 12  # header and board
    assert games.history_capacity == DEFAULT_HISTORY_CAPACITY
    assert games.state_bytes_per_game == (start + DEFAULT_HISTORY_CAPACITY) * 8 + 32 == 576
    assert games.state_bytes_per_game < 1000  # a million games in less than 1 GB
    assert games.state_bytes_per_game * 1_000_000 < 10**9
    assert games.states.nbytes + games.generator_words.nbytes == 1000 * games.state_bytes_per_game
    small = BatchedGames("ouril_v0", 1000, history_capacity=3)
    assert small.history_capacity == 3
    assert small.state_bytes_per_game == (start + 3) * 8 + 32 == 408
    # a capacity beyond the game's whole memory keeps the full state
    whole = BatchedGames("ouril_v0", 2, history_capacity=5000)
    assert whole.state_bytes_per_game == whole.game.state_size * 8 + 32
    assert whole.history_capacity == whole.game.state_size - start
    omweso = BatchedGames("omweso_v0", 10, history_capacity=3)
    assert omweso.history_capacity == 0
    assert omweso.state_bytes_per_game == omweso.game.state_size * 8 + 32
    for variant in VARIANTS:
        assert BatchedGames(variant.id, 1).state_bytes_per_game < 1000, variant.id


def test_spilled_games_come_back_after_a_reset() -> None:
    games = BatchedGames("ouril_v0", 6, history_capacity=3)
    step = games.reset(seed=1)
    assert games.spilled_games == 0
    rng = np.random.default_rng(1)
    for _ in range(5):
        step = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.action_mask]))
    assert games.spilled_games > 0
    games.reset(seed=1)
    assert games.spilled_games == 0


# --- seeding ----------------------------------------------------------------------------------------------------
def _random_run(games: BatchedGames, seed: int, steps: int, action_seed: int) -> list[BatchStep]:
    rng = np.random.default_rng(action_seed)
    step = games.reset(seed=seed)
    out = [step]
    for _ in range(steps):
        step = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.action_mask]))
        out.append(step)
    return out


@pytest.mark.parametrize("env_id", ["ouril_v0", "mancala/rio-kadalis-v0", "omweso_v0"])
def test_same_seed_same_steps(env_id: str) -> None:
    first = _random_run(BatchedGames(env_id, 6), 13, 120, 0)
    second = _random_run(BatchedGames(env_id, 6, history_capacity=3), 13, 120, 0)
    assert sum(len(step.final.index) for step in first) >= 2  # the runs went through auto-resets
    for a, b in zip(first, second, strict=True):
        _assert_same_steps(a, b)
    other = _random_run(BatchedGames(env_id, 6), 14, 0, 0)[0]
    assert other.current_player.tolist() != first[0].current_player.tolist()


def test_a_games_stream_does_not_depend_on_the_batch_size() -> None:
    small, large = BatchedGames("ouril_v0", 4), BatchedGames("ouril_v0", 8)
    for seed in range(6):
        assert small.reset(seed=seed).current_player.tolist() == large.reset(seed=seed).current_player[:4].tolist()
    # stepped alike, the first four games stay alike, auto-resets (and their drawn first players) included
    rng = np.random.default_rng(0)
    a, b = small.reset(seed=7), large.reset(seed=7)
    ended = 0
    for _ in range(300):
        np.testing.assert_array_equal(a.observation, b.observation[:4])
        np.testing.assert_array_equal(a.current_player, b.current_player[:4])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in b.action_mask])
        a, b = small.step(actions[:4]), large.step(actions)
        np.testing.assert_array_equal(a.rewards, b.rewards[:4])
        ended += len(a.final.index)
    assert ended >= 4
    for game in range(4):
        np.testing.assert_array_equal(small.state(game), large.state(game))


def test_reset_without_a_seed_continues_the_generators() -> None:
    games = BatchedGames("ouril_v0", 32)
    rngs = generators(5, 32)
    assert games.reset(seed=5).current_player.tolist() == [r.first_player() for r in rngs]
    for _ in range(3):
        assert games.reset().current_player.tolist() == [r.first_player() for r in rngs]
