"""One rule for types at every door (issue 30, item 14; docs/contract.md, "Types and shared arrays").

The refusals (bools, floats, numpy floats, strings, wrong shapes, bad seeds) are the cases of
``tests/support/contract_doors/types.py``, which the contract matrix runs door by door with the "nothing changed" check;
:func:`test_the_refusal_table_reaches_every_door` checks that they reach every door with every kind of bad value.
Here is the other half of the rule: numpy integers (seeds, actions, arrays of any integer dtype) are accepted at
every door and give exactly what the Python integers give. And batches stepped by several threads can be pickled
and copied, and the copies play on as the original does.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

import mancala_envs
from mancala_envs.engine.state import LEGAL
from mancala_envs.envs import batch as batch_module
from mancala_envs.envs.batch import MAX_THREADS, BatchedGames, check_threads
from mancala_envs.envs.registration import make_game
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.two_seat_env import TwoSeatVectorEnv
from mancala_envs.views.vector_env import MancalaVectorEnv
from mancala_envs.wrappers import FlattenObservation, GymFlattenObservation, turn_based_parallel
from mancala_envs.wrappers.encodings import OneHotEncoder, encodings_of_space, max_cap

from support.actions import first_legal_per_game
from support.contract import plain as plain_of
from support.contract_doors import types as type_cases

N = 4
NUMPY_SEEDS = [np.int64(7), np.int32(7), np.uint8(7), np.uint64(7), np.int16(7)]


def plain(value: Any) -> Any:
    """:func:`contract_support.plain` without the ``episode`` entries (they hold wall time)."""
    return plain_of(value, skip=("episode",))


def _sb3(**arguments: Any) -> Any:
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    return MancalaSB3VecEnv("kalah_v0", N, learner_seat=None, **arguments)


def _self_play(**arguments: Any) -> Any:
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    return SelfPlayVecEnv("kalah_v0", N, opponents=["random", "greedy"], **arguments)


def _aec_play(env: Any, seed: Any) -> Any:
    env.reset(seed=seed)
    return env.state_dict()


def _parallel_play(seed: Any) -> Any:
    env = turn_based_parallel(mancala_envs.make("kalah_v0"))
    observations, infos = env.reset(seed=seed)
    return observations, infos, env.aec_env.state_dict()


def _single_play(env: Any, seed: Any) -> Any:
    observation, info = env.reset(seed=seed)
    return observation, info, env.step(int(first_legal_per_game(env.action_masks())))


def _vector_play(env: Any, seed: Any) -> Any:
    first = env.reset(seed=seed)
    return first, env.step(first_legal_per_game(env.action_masks()))


def _sb3_play(env: Any, seed: Any) -> Any:
    env.seed(seed)
    first = env.reset()
    return first, env.step(first_legal_per_game(env.action_masks()))


#: every door that takes a seed, as (door, play(seed) -> what it gives)
SEED_DOORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("MancalaEnv.reset", lambda seed: _aec_play(mancala_envs.make("kalah_v0"), seed)),
    ("FlattenObservation.reset", lambda seed: _aec_play(FlattenObservation(mancala_envs.make("kalah_v0")), seed)),
    ("parallel reset", _parallel_play),
    ("SingleAgentEnv.reset", lambda seed: _single_play(SingleAgentEnv("kalah_v0", opponent="greedy"), seed)),
    (
        "GymFlattenObservation.reset",
        lambda seed: _single_play(GymFlattenObservation(SingleAgentEnv("kalah_v0", opponent="random")), seed),
    ),
    ("BatchedGames.reset", lambda seed: BatchedGames("kalah_v0", N, threads=1).reset(seed=seed)),
    (
        "BatchedGames.seed([...])",
        lambda seed: (lambda games: (games.seed([seed, 3, seed, 4]), games.reset()))(
            BatchedGames("kalah_v0", N, threads=1)
        )[1],
    ),
    ("play_random(seed=...)", lambda seed: batch_module.play_random("kalah_v0", 8, batch_size=N, seed=seed, threads=1)),
    ("MancalaVectorEnv.reset", lambda seed: _vector_play(MancalaVectorEnv("kalah_v0", N, threads=1), seed)),
    (
        "MancalaVectorEnv.reset([...])",
        lambda seed: _vector_play(MancalaVectorEnv("kalah_v0", N, threads=1), [seed, 1, 2, seed]),
    ),
    ("TwoSeatVectorEnv.reset", lambda seed: _vector_play(TwoSeatVectorEnv("kalah_v0", N, threads=1), seed)),
    ("MancalaSB3VecEnv.seed", lambda seed: _sb3_play(_sb3(threads=1), seed)),
    (
        "MancalaSB3VecEnv(seed=...)",
        lambda seed: (lambda env: (env.reset(), env.step(first_legal_per_game(env.action_masks()))))(
            _sb3(seed=seed, threads=1)
        ),
    ),
    ("SelfPlayVecEnv.seed", lambda seed: _sb3_play(_self_play(threads=1), seed)),
    (
        "SelfPlayVecEnv(seed=...)",
        lambda seed: (lambda env: (env.reset(), env.step(first_legal_per_game(env.action_masks()))))(
            _self_play(seed=seed, threads=1)
        ),
    ),
]


@pytest.mark.parametrize("door, play", SEED_DOORS, ids=[door for door, _ in SEED_DOORS])
def test_numpy_integer_seeds_are_seeds_at_every_door(door: str, play: Callable[[Any], Any]) -> None:
    """``np.int64(7)``, ``np.uint8(7)``... give exactly what ``7`` gives (``SingleAgentEnv.reset`` refused them)."""
    expected = plain(play(7))
    assert plain(play(8)) != expected, "the seed must change the results for this check to mean anything"
    for seed in NUMPY_SEEDS:
        assert plain(play(seed)) == expected, f"{type(seed).__name__} seed"


ONE_ACTIONS = [np.int64(2), np.int8(2), np.uint64(2), np.array(2), np.array(2, np.uint8)]


@pytest.mark.parametrize(
    "door, build, frozen, play", type_cases.ONE_ACTION_DOORS, ids=[door for door, *_ in type_cases.ONE_ACTION_DOORS]
)
def test_numpy_integer_actions_are_actions_at_every_door(
    door: str, build: Callable[[], Any], frozen: Callable[[Any], Any], play: Callable[[Any, Any], Any]
) -> None:
    expected = build()
    play(expected, 2)
    for action in ONE_ACTIONS:
        env = build()
        play(env, action)
        assert frozen(env) == frozen(expected), f"{type(action).__name__} {action!r}"


BATCH_ACTION_FORMS: list[Callable[[np.ndarray], Any]] = [
    lambda actions: actions.astype(np.int32),
    lambda actions: actions.astype(np.uint8),
    lambda actions: actions.astype(np.uint64),
    lambda actions: actions.tolist(),
    lambda actions: tuple(int(action) for action in actions),
]


@pytest.mark.parametrize(
    "door, build, frozen, play", type_cases.BATCH_DOORS, ids=[door for door, *_ in type_cases.BATCH_DOORS]
)
def test_integer_arrays_of_any_integer_dtype_are_actions_at_every_batch_door(
    door: str, build: Callable[[], Any], frozen: Callable[[Any], Any], play: Callable[[Any, Any], Any]
) -> None:
    """An int32, uint8, uint64 array, a list or a tuple of ints plays as the int64 array does."""
    expected = build()
    actions = first_legal_per_game(_masks(expected))
    play(expected, actions)
    for form in BATCH_ACTION_FORMS:
        env = build()
        play(env, form(actions))
        assert frozen(env) == frozen(expected), type(form(actions)).__name__


def _masks(env: Any) -> np.ndarray:
    if isinstance(env, BatchedGames):
        legal_bits = [int(env.state(game)[LEGAL]) for game in range(env.n_games)]
        return np.array([[(bits >> action) & 1 for action in range(env.n_actions)] for bits in legal_bits])
    return env.action_masks()


def test_the_refusal_table_reaches_every_door() -> None:
    """Each door of the table meets every kind of bad value: one action (bool, numpy bool, float, numpy floats,
    string, 1-d and float 0-d arrays), a batch's actions (bools, floats, strings, objects, shapes of the right size
    and not), seeds (bools, floats, numpy floats, strings, negative Python and numpy ints)."""
    names = [item.name for item in type_cases.CASES]
    for door in type_cases.DOORS["one action"]:
        assert sum(name.startswith(f"{door}(") for name in names) == len(type_cases.ONE_BAD), door
    for door in type_cases.DOORS["batch actions"]:
        assert sum(name.startswith(f"{door}: ") for name in names) == len(type_cases.BATCH_BAD), door
    for door in type_cases.DOORS["seed"]:
        assert sum(name.startswith(f"{door}(seed=") for name in names) == len(type_cases.SEED_BAD), door
    doors = " ".join(door for group in type_cases.DOORS.values() for door in group)
    for kind in (
        "MancalaEnv",
        "FlattenObservation",
        "parallel",
        "SingleAgentEnv",
        "GymFlattenObservation",
        "BatchedGames.step(playing=...)",
        "MancalaVectorEnv.step after an auto-reset",
        "MancalaSB3VecEnv",
        "TwoSeatVectorEnv.step after an auto-reset",
        "SelfPlayVecEnv",
    ):
        assert kind in doors, kind


# --- copies and pickles of threaded batches ---------------------------------------------------------------------------
def _threaded(kind: str) -> tuple[Any, Callable[[Any], Any]]:
    """An env of ``kind`` on two threads, reset and stepped once (its worker threads started), and its next step."""
    if kind == "BatchedGames":
        env: Any = BatchedGames("kalah_v0", N, threads=2)
        env.reset(seed=0)
        step = lambda env: env.step(first_legal_per_game(_masks(env)))  # noqa: E731
    elif kind in ("MancalaVectorEnv", "TwoSeatVectorEnv"):
        env = (MancalaVectorEnv if kind == "MancalaVectorEnv" else TwoSeatVectorEnv)("kalah_v0", N, threads=2)
        env.reset(seed=0)
        step = lambda env: env.step(first_legal_per_game(env.action_masks()))  # noqa: E731
    else:
        env = _sb3(seed=0, threads=2) if kind == "MancalaSB3VecEnv" else _self_play(seed=0, threads=2)
        env.reset()
        step = lambda env: env.step(first_legal_per_game(env.action_masks()))  # noqa: E731
    step(env)
    assert (env.games if kind == "SelfPlayVecEnv" else getattr(env, "venv", env)).threads == 2
    return env, step


@pytest.mark.parametrize(
    "kind", ["BatchedGames", "MancalaVectorEnv", "TwoSeatVectorEnv", "MancalaSB3VecEnv", "SelfPlayVecEnv"]
)
@pytest.mark.parametrize(
    "duplicate", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))], ids=["deepcopy", "pickle"]
)
def test_a_batch_stepped_by_two_threads_can_be_copied_and_pickled(kind: str, duplicate: Callable[[Any], Any]) -> None:
    """The worker threads (a lock, a queue) stay behind: the copy starts its own, and plays on as the original."""
    env, step = _threaded(kind)
    twin = duplicate(env)
    for _ in range(3):
        assert plain(step(twin)) == plain(step(env))
    env.close()
    twin.close()


# --- sizes that no encoder is built for ---------------------------------------------------------------------------
def test_a_space_wider_than_any_cap_matches_no_encoding_without_building_one() -> None:
    """A policy's space (an SB3 model's, read from its file) as wide as a one-hot of cap 10**6 names no encoding;
    ``encodings_of_space`` says so without building the encoder of that size."""
    game = make_game("kalah_v0")
    limit = OneHotEncoder(game, cap=max_cap(game)).space.shape[0]
    for width in (limit + 12, limit + 12 * 10**6):
        assert encodings_of_space(game, spaces.Box(0.0, 1.0, (width,), np.float32)) == []


def test_the_default_thread_count_is_capped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """``threads=None`` takes every core, but no more than ``MAX_THREADS``; an explicit count up to it is taken."""
    monkeypatch.setattr(batch_module, "available_cores", lambda: 10_000)
    assert check_threads(None) == MAX_THREADS
    assert check_threads(MAX_THREADS) == MAX_THREADS
    assert check_threads(np.int64(3)) == 3
    with pytest.raises(ValueError, match="must be an integer from 1 to 256 \\(got 257\\)"):
        check_threads(MAX_THREADS + 1)


@pytest.mark.parametrize("seed", [None, 5])
@pytest.mark.parametrize("opponent", ["random", ["random", "greedy"]])
def test_a_single_agent_reset_with_a_bad_position_changes_nothing(seed: int | None, opponent: Any) -> None:
    """A refused ``reset(seed=..., options=...)`` keeps the generator, the seat and the opponent: the next resets
    draw exactly what an untouched twin draws."""
    env, twin = (SingleAgentEnv("kalah_v0", opponent=opponent) for _ in range(2))
    for each in (env, twin):
        each.reset(seed=3)
        each.step(int(np.flatnonzero(each.action_masks())[0]))
    with pytest.raises(ValueError, match=r"has 1 fields|position"):
        env.reset(seed=seed, options={"position": "garbage"})
    assert env.seat == twin.seat and env.opponent is not None
    assert env.aec_env.state_dict() == twin.aec_env.state_dict()
    for _ in range(3):
        first, second = env.reset(), twin.reset()
        assert plain(first) == plain(second) and env.seat == twin.seat


@pytest.mark.parametrize("huge", [2**70, -(2**70), 2**64])
def test_a_python_int_beyond_int64_is_out_of_range_not_a_wrong_type(huge: int) -> None:
    """A list holding a Python int numpy cannot hold as int64 becomes an object array: the refusal still says what
    is wrong (the action's range), not "must be integers"."""
    games = BatchedGames("kalah_v0", 2, threads=1)
    games.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions out of range in games \[1\] .*actions are 0\.\.5"):
        games.step([0, huge])
