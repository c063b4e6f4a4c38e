"""The contract's "Types and shared arrays" refusals, door by door (issue 30, item 14): every door that takes an
action, a batch's actions or a seed refuses the same bad types with the same exception and message, and changes
nothing. ``tests/doors/test_door_types.py`` checks the other half of the rule (numpy integers accepted everywhere, with
the results of Python integers) and that the table below reaches every door.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import mancala_envs
from mancala_envs.envs.batch import BatchedGames
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.two_seat_env import TwoSeatVectorEnv
from mancala_envs.views.vector_env import MancalaVectorEnv
from mancala_envs.wrappers import FlattenObservation, GymFlattenObservation, turn_based_parallel

from support.actions import first_legal_per_game
from support.contract import Case, Row, plain

SECTION = "Types and shared arrays"
N = 4


# --- subjects, and what a refused call must leave as it was -------------------------------------------------------
def aec() -> Any:
    env = mancala_envs.make("kalah_v0", first_player=0)
    env.reset(seed=0)
    return env


def aec_frozen(env: Any) -> Any:
    raw = env.unwrapped
    return plain({"snapshot": raw.state_dict(), "position": raw.position(), "infos": raw.infos})


def flattened() -> Any:
    return FlattenObservation(aec())


def parallel() -> Any:
    env = turn_based_parallel(mancala_envs.make("kalah_v0", first_player=0))
    env.reset(seed=0)
    return env


def parallel_frozen(env: Any) -> Any:
    return aec_frozen(env.aec_env)


def single(reset: bool = True) -> SingleAgentEnv:
    env = SingleAgentEnv("kalah_v0", opponent="greedy", learner_seat=0, first_player=0)
    if reset:
        env.reset(seed=3)
    return env


def single_frozen(env: Any) -> Any:
    raw = env.unwrapped
    return {
        "aec": aec_frozen(raw.aec_env),
        "seat": raw.seat,
        "over": raw.episode_over,
        "rng": raw.generator_state,  # None while the env has no generator (np_random would create one)
    }


def gym_flattened() -> Any:
    env = GymFlattenObservation(single(reset=False))
    env.reset(seed=3)
    return env


def batch() -> BatchedGames:
    games = BatchedGames("kalah_v0", N, first_player=0, threads=1)
    games.reset(seed=0)
    return games


def batch_frozen(games: BatchedGames) -> Any:
    return plain({"states": [games.state(game) for game in range(N)], "words": games.generator_words})


def vector(autoreset_mode: str = "next_step", ended: bool = False) -> MancalaVectorEnv:
    """Kalah against the random opponent; with ``ended``, stepped until a game ended (next-step auto-reset: it waits
    for its reset, and its action is ignored)."""
    env = MancalaVectorEnv("kalah_v0", N, learner_seat=0, first_player=0, autoreset_mode=autoreset_mode, threads=1)
    env.reset(seed=0)
    while ended and not env.waiting_for_reset.any():
        env.step(first_legal_per_game(env.action_masks()))
    return env


def vector_frozen(env: Any) -> Any:
    env = getattr(env, "venv", env)
    return plain(
        {
            "states": [env.state(game) for game in range(N)],
            "masks": env.action_masks(),
            "seats": env.learner_seats,
            "words": env.games.generator_words,
            "waiting": env.waiting_for_reset,
        }
    )


def sb3(reset: bool = True) -> Any:
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    env = MancalaSB3VecEnv("kalah_v0", N, learner_seat=0, first_player=0, seed=0, threads=1)
    if reset:
        env.reset()
    return env


def sb3_frozen(env: Any) -> Any:
    return {"vector": vector_frozen(env) if env.venv.has_reset else None, "seeds": env.pending_seeds}


def two_seat(ended: bool = False) -> TwoSeatVectorEnv:
    env = TwoSeatVectorEnv("kalah_v0", N, first_player=0, threads=1)
    env.reset(seed=0)
    while ended and not env.waiting_for_reset.any():
        env.step(first_legal_per_game(env.action_masks()))
    return env


def two_seat_frozen(env: TwoSeatVectorEnv) -> Any:
    return plain(
        {
            "states": [env.state(game) for game in range(N)],
            "masks": env.action_masks(),
            "to_play": env.to_play,
            "words": env.games.generator_words,
        }
    )


def self_play(reset: bool = True) -> Any:
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    env = SelfPlayVecEnv("kalah_v0", N, opponents=["random"], learner_seat=0, seed=0, first_player=0, threads=1)
    if reset:
        env.reset()
    return env


def self_play_frozen(env: Any) -> Any:
    return plain(
        {
            "states": [env.games.state(game) for game in range(N)],
            "masks": env.action_masks() if env.has_reset else None,
            "seeds": env.pending_seeds,
            "rng": env.rng_state,
            "words": env.games.generator_words,
        }
    )


CASES: list[Case] = []


def case(
    item: str,
    name: str,
    call: Callable[[Any], Any],
    error: type,
    words: tuple[str, ...],
    subject: Callable[[], Any] = lambda: None,
    frozen: Callable[[Any], Any] | None = None,
) -> None:
    CASES.append(Case("types", Row(SECTION, item), name, call, error, words, subject, frozen, exact=True))


# --- one action -------------------------------------------------------------------------------------------------------
ONE_ACTION = "a bool, a float (even a whole one"
ONE_ACTION_DOORS: list[tuple[str, Callable[[], Any], Callable[[Any], Any], Callable[[Any, Any], Any]]] = [
    ("MancalaEnv.step", aec, aec_frozen, lambda env, a: env.step(a)),
    ("FlattenObservation.step", flattened, aec_frozen, lambda env, a: env.step(a)),
    ("parallel step", parallel, parallel_frozen, lambda env, a: env.step({env.aec_env.agent_selection: a})),
    ("SingleAgentEnv.step", single, single_frozen, lambda env, a: env.step(a)),
    ("GymFlattenObservation.step", gym_flattened, single_frozen, lambda env, a: env.step(a)),
]
ONE_BAD: list[tuple[Any, tuple[str, ...]]] = [
    (True, ("action True is not an integer", "pass an int in 0..5")),
    (np.bool_(False), ("action", "False", "is not an integer", "0..5")),
    (1.0, ("action 1.0 of type float is not an integer", "0..5")),
    (np.float64(1.0), ("of type float64 is not an integer", "0..5")),
    (np.float32(2.0), ("of type float32 is not an integer", "0..5")),
    ("1", ("action '1' of type str is not an integer",)),
    (np.array([1]), ("is not an integer action", "0-d integer array")),
    (np.array(1.0), ("is not an integer action",)),
]
for door, build, frozen, play in ONE_ACTION_DOORS:
    for value, words in ONE_BAD:
        case(
            ONE_ACTION,
            f"{door}({value!r}: {type(value).__name__})",
            lambda env, p=play, v=value: p(env, v),
            TypeError,
            words,
            build,
            frozen,
        )


# --- a batch's actions ------------------------------------------------------------------------------------------------
BATCH_DOORS: list[tuple[str, Callable[[], Any], Callable[[Any], Any], Callable[[Any, Any], Any]]] = [
    ("BatchedGames.step", batch, batch_frozen, lambda games, a: games.step(a)),
    (
        "BatchedGames.step(playing=...)",
        batch,
        batch_frozen,
        lambda games, a: games.step(a, playing=np.array([True, False] * (N // 2))),
    ),
    ("MancalaVectorEnv.step", vector, vector_frozen, lambda env, a: env.step(a)),
    (
        "MancalaVectorEnv.step after an auto-reset",
        lambda: vector(ended=True),
        vector_frozen,
        lambda env, a: env.step(a),
    ),
    ("MancalaVectorEnv.step(same_step)", lambda: vector("same_step"), vector_frozen, lambda env, a: env.step(a)),
    ("MancalaSB3VecEnv.step", sb3, sb3_frozen, lambda env, a: env.step(a)),
    ("TwoSeatVectorEnv.step", two_seat, two_seat_frozen, lambda env, a: env.step(a)),
    (
        "TwoSeatVectorEnv.step after an auto-reset",
        lambda: two_seat(ended=True),
        two_seat_frozen,
        lambda env, a: env.step(a),
    ),
    ("SelfPlayVecEnv.step", self_play, self_play_frozen, lambda env, a: env.step(a)),
]
BATCH_TYPES = "a batch's actions of bools or floats"
BATCH_SHAPES = "a batch's actions of another shape"
BATCH_BAD: list[tuple[str, str, Any, type, tuple[str, ...]]] = [
    (
        BATCH_TYPES,
        "bools",
        np.ones(N, bool),
        TypeError,
        ("actions must be integers (got dtype bool)", "np.zeros(4, dtype=np.int64)"),
    ),
    (BATCH_TYPES, "a list of bools", [True] * N, TypeError, ("(got dtype bool)",)),
    (BATCH_TYPES, "whole floats", np.zeros(N), TypeError, ("actions must be integers (got dtype float64)",)),
    (BATCH_TYPES, "float32", np.ones(N, np.float32), TypeError, ("(got dtype float32)",)),
    (BATCH_TYPES, "strings", np.array(["1"] * N), TypeError, ("actions must be integers (got dtype <U1)",)),
    (BATCH_TYPES, "objects", np.array([1] * N, dtype=object), TypeError, ("(got dtype object)",)),
    (
        BATCH_SHAPES,
        "shape (4, 1)",
        np.zeros((N, 1), np.int64),
        ValueError,
        ("actions must have shape (4,), one per game (got (4, 1))",),
    ),
    (BATCH_SHAPES, "shape (1, 4)", np.zeros((1, N), np.int64), ValueError, ("(got (1, 4))",)),
    (BATCH_SHAPES, "shape (5,)", np.zeros(N + 1, np.int64), ValueError, ("(got (5,))",)),
    (BATCH_SHAPES, "a scalar", np.int64(0), ValueError, ("(got ())",)),
]
for door, build, frozen, play in BATCH_DOORS:
    for item, what, value, error, words in BATCH_BAD:
        case(item, f"{door}: {what}", lambda env, p=play, v=value: p(env, v), error, words, build, frozen)

SITS_OUT = "a batch's action out of range in a game that sits the step out"
case(
    SITS_OUT,
    "BatchedGames.step(playing=...) with 99 where playing is False",
    lambda games: games.step(np.array([0, 99, 0, 0]), playing=np.array([True, False, True, True])),
    ValueError,
    ("actions out of range in games [1] (e.g. 99); actions are 0..5",),
    batch,
    batch_frozen,
)
for door, build, frozen in (
    ("MancalaVectorEnv", lambda: vector(ended=True), vector_frozen),
    ("TwoSeatVectorEnv", lambda: two_seat(ended=True), two_seat_frozen),
):
    case(
        SITS_OUT,
        f"{door}.step with 99 in a game waiting for its reset",
        lambda env: env.step(np.where(env.waiting_for_reset, 99, first_legal_per_game(env.action_masks()))),
        ValueError,
        ("actions out of range in games", "(e.g. 99); actions are 0..5"),
        build,
        frozen,
    )


# --- seeds ------------------------------------------------------------------------------------------------------------
SEED_TYPE = "a seed that is a bool, a float or a string"
SEED_SIGN = "a negative seed, a Python or numpy integer"
SEED_DOORS: list[tuple[str, Callable[[], Any], Callable[[Any], Any] | None, Callable[[Any, Any], Any]]] = [
    ("MancalaEnv.reset", aec, aec_frozen, lambda env, s: env.reset(seed=s)),
    ("FlattenObservation.reset", flattened, aec_frozen, lambda env, s: env.reset(seed=s)),
    ("parallel reset", parallel, parallel_frozen, lambda env, s: env.reset(seed=s)),
    ("SingleAgentEnv.reset", single, single_frozen, lambda env, s: env.reset(seed=s)),
    ("GymFlattenObservation.reset", gym_flattened, single_frozen, lambda env, s: env.reset(seed=s)),
    ("BatchedGames.reset", batch, batch_frozen, lambda games, s: games.reset(seed=s)),
    ("MancalaVectorEnv.reset", vector, vector_frozen, lambda env, s: env.reset(seed=s)),
    ("TwoSeatVectorEnv.reset", two_seat, two_seat_frozen, lambda env, s: env.reset(seed=s)),
    ("MancalaSB3VecEnv.seed", lambda: sb3(reset=False), sb3_frozen, lambda env, s: env.seed(s)),
    ("MancalaSB3VecEnv(seed=...)", lambda: None, None, lambda _, s: sb3_with_seed(s)),
    ("SelfPlayVecEnv.seed", lambda: self_play(reset=False), self_play_frozen, lambda env, s: env.seed(s)),
    ("SelfPlayVecEnv(seed=...)", lambda: None, None, lambda _, s: self_play_with_seed(s)),
]


def sb3_with_seed(seed: Any) -> Any:
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    return MancalaSB3VecEnv("kalah_v0", N, seed=seed, threads=1)


def self_play_with_seed(seed: Any) -> Any:
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    return SelfPlayVecEnv("kalah_v0", N, opponents=["random"], seed=seed, threads=1)


SEED_BAD: list[tuple[str, Any, type, str]] = [
    (SEED_TYPE, True, TypeError, "seed must be None or an integer >= 0 (got bool True)"),
    (SEED_TYPE, np.bool_(True), TypeError, "(got bool True)"),
    (SEED_TYPE, 1.5, TypeError, "seed must be None or an integer >= 0 (got float 1.5)"),
    (SEED_TYPE, 7.0, TypeError, "(got float 7.0)"),
    (SEED_TYPE, np.float64(2.0), TypeError, "(got float64 2.0)"),
    (SEED_TYPE, "7", TypeError, "(got str '7')"),
    (SEED_SIGN, -1, ValueError, "seed must be None or an integer >= 0 (got -1)"),
    (SEED_SIGN, np.int64(-3), ValueError, "seed must be None or an integer >= 0 (got -3)"),
]
for door, build, frozen, reseed in SEED_DOORS:
    for item, value, error, words in SEED_BAD:
        case(
            item,
            f"{door}(seed={value!r}: {type(value).__name__})",
            lambda env, r=reseed, v=value: r(env, v),
            error,
            (words,),
            build,
            frozen,
        )

#: the doors of the table, for tests/doors/test_door_types.py (which checks that each meets every bad kind)
DOORS = {
    "one action": [door for door, *_ in ONE_ACTION_DOORS],
    "batch actions": [door for door, *_ in BATCH_DOORS],
    "seed": [door for door, *_ in SEED_DOORS],
}
