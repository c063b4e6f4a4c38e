"""The contract's "Sizes" refusals (issue 30, part of item 10): an encoding's ``cap``, a stack's ``k`` and a batch's
``threads=`` are bounded, at every door that takes them, with a ``ValueError`` that names the limit, before anything
of that size is built (the huge values below would otherwise take gigabytes, or end the process).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

import mancala_envs
from mancala_envs import make_from_config
from mancala_envs.envs.batch import MAX_THREADS, BatchedGames, play_random
from mancala_envs.envs.registration import make_game
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.two_seat_env import TwoSeatVectorEnv
from mancala_envs.views.vector_env import MancalaVectorEnv
from mancala_envs.wrappers import (
    GymOneHotObservation,
    GymPlanesObservation,
    GymStackObservation,
    OneHotObservation,
    StackObservation,
    ThermometerObservation,
    apply_wrappers,
)
from mancala_envs.wrappers.encodings import (
    MAX_STACK,
    ObservationStack,
    OneHotEncoder,
    PlanesEncoder,
    ThermometerEncoder,
    make_encoder,
)

from support.contract import Case, Row

SECTION = "Sizes: encoding"
CAP = "an encoding `cap` above the game's `max_cap(game)`"
STACK = "a stack `k` above `MAX_STACK` (1024)"
THREADS = "`threads=` above `MAX_THREADS` (256)"
HUGE = 10**12

CASES: list[Case] = []


def case(item: str, name: str, call: Callable[[Any], Any], *words: str) -> None:
    CASES.append(Case("sizes", Row(SECTION, item), name, call, ValueError, words, exact=True))


def kalah() -> Any:
    return make_game("kalah_v0")


def cap_words(cap: int, env_name: str = "kalah_v0", limit: int = 48) -> tuple[str, ...]:
    return (
        f"cap={cap} is too large for {env_name}: a pit holds at most {limit} seeds",
        f"use an int from 1 to {limit}",
    )


def pretrained_policy(encoding: Any) -> Any:
    from mancala_envs.agents.pretrained import ACTIVATIONS, PretrainedPolicy

    return PretrainedPolicy([], next(iter(ACTIVATIONS)), kalah(), encoding)


def policy_encoder_of(encoding: Any) -> Any:
    from mancala_envs.agents.sb3 import policy_encoder

    return policy_encoder(kalah(), spaces.Box(0.0, 1.0, (17,), np.float32), encoding)


# --- cap: the encoders, and every door that builds one -------------------------------------------------------------
for name, build in (("one_hot", OneHotEncoder), ("thermometer", ThermometerEncoder), ("planes", PlanesEncoder)):
    for cap in (49, HUGE):
        case(CAP, f"{build.__name__}(kalah, cap={cap})", lambda _, b=build, c=cap: b(kalah(), cap=c), *cap_words(cap))
    case(
        CAP,
        f"make_encoder({name!r}, kalah, cap=49)",
        lambda _, n=name: make_encoder(n, kalah(), cap=49),
        *cap_words(49),
    )
case(
    CAP,
    "PlanesEncoder(omweso, cap=65)",
    lambda _: PlanesEncoder(make_game("omweso_v0"), cap=65),
    *cap_words(65, "omweso_v0", 64),
)
case(
    CAP,
    "OneHotEncoder(kalah 8x6, cap=97)",
    lambda _: OneHotEncoder(make_game("kalah_v0", pits_per_row=8, seeds_per_pit=6), cap=97),
    *cap_words(97, "kalah_v0", 96),
)
DOORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("SingleAgentEnv(encoding=...)", lambda spec: SingleAgentEnv("kalah_v0", encoding=spec)),
    ("MancalaVectorEnv(encoding=...)", lambda spec: MancalaVectorEnv("kalah_v0", 2, encoding=spec, threads=1)),
    ("TwoSeatVectorEnv(encoding=...)", lambda spec: TwoSeatVectorEnv("kalah_v0", 2, encoding=spec, threads=1)),
    ("MancalaSB3VecEnv(encoding=...)", lambda spec: _sb3(encoding=spec)),
    ("SelfPlayVecEnv(encoding=...)", lambda spec: _self_play(encoding=spec)),
    ("apply_wrappers(aec, [spec])", lambda spec: apply_wrappers(mancala_envs.make("kalah_v0"), [spec])),
    ("apply_wrappers(single, [spec])", lambda spec: apply_wrappers(SingleAgentEnv("kalah_v0"), [spec])),
    ("make_from_config(kalah_v0)", lambda spec: make_from_config({"id": "kalah_v0", "wrappers": [spec]})),
    (
        "make_from_config(mancala/Kalah-v0)",
        lambda spec: make_from_config({"id": "mancala/Kalah-v0", "wrappers": [spec]}),
    ),
    ("gymnasium.make_vec(encoding=...)", lambda spec: _make_vec(spec)),
    ("a weights file's encoding (PretrainedPolicy)", pretrained_policy),
    ("an SB3 model's encoding (policy_encoder)", policy_encoder_of),
]
for door, build in DOORS:
    for spec in ({"name": "one_hot", "cap": 49}, {"name": "planes", "cap": HUGE}):
        case(CAP, f"{door} {spec}", lambda _, b=build, s=spec: b(s), *cap_words(spec["cap"]))
for door, build in (
    ("OneHotObservation", lambda: OneHotObservation(mancala_envs.make("kalah_v0"), cap=HUGE)),
    ("ThermometerObservation", lambda: ThermometerObservation(mancala_envs.make("kalah_v0"), cap=49)),
    ("GymOneHotObservation", lambda: GymOneHotObservation(SingleAgentEnv("kalah_v0"), cap=49)),
    ("GymPlanesObservation", lambda: GymPlanesObservation(SingleAgentEnv("kalah_v0"), cap=HUGE)),
):
    case(CAP, f"{door}(cap=...)", lambda _, b=build: b(), "is too large for kalah_v0", "use an int from 1 to 48")


def _sb3(**arguments: Any) -> Any:
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    return MancalaSB3VecEnv("kalah_v0", 2, **{"threads": 1, **arguments})


def _self_play(**arguments: Any) -> Any:
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    return SelfPlayVecEnv("kalah_v0", 2, opponents=["random"], **{"threads": 1, **arguments})


def _make_vec(spec: Any) -> Any:
    import gymnasium

    return gymnasium.make_vec("mancala/Kalah-v0", num_envs=2, encoding=spec)


# --- k: the stacks -------------------------------------------------------------------------------------------------
k_words = ("is too large; stack at most MAX_STACK = 1024 observations",)
for k in (MAX_STACK + 1, HUGE):
    case(
        STACK,
        f"StackObservation(k={k})",
        lambda _, k=k: StackObservation(mancala_envs.make("kalah_v0"), k=k),
        f"k={k}",
        *k_words,
    )
    case(
        STACK,
        f"GymStackObservation(k={k})",
        lambda _, k=k: GymStackObservation(SingleAgentEnv("kalah_v0"), k=k),
        f"k={k}",
        *k_words,
    )
case(
    STACK,
    "ObservationStack(k=1025)",
    lambda _: ObservationStack(spaces.Box(0, 9, (2,), np.int32), MAX_STACK + 1),
    "k=1025",
    *k_words,
)
case(
    STACK,
    "apply_wrappers(single, [stack k=HUGE])",
    lambda _: apply_wrappers(SingleAgentEnv("kalah_v0"), [{"name": "stack", "k": HUGE}]),
    *k_words,
)
case(
    STACK,
    "make_from_config(stack k=1025)",
    lambda _: make_from_config({"id": "kalah_v0", "wrappers": [{"name": "stack", "k": MAX_STACK + 1}]}),
    *k_words,
)


# --- threads: every batch ------------------------------------------------------------------------------------------
THREAD_DOORS: list[tuple[str, Callable[[int], Any]]] = [
    ("BatchedGames", lambda threads: BatchedGames("kalah_v0", 2, threads=threads)),
    ("play_random", lambda threads: play_random("kalah_v0", 1, threads=threads)),
    ("MancalaVectorEnv", lambda threads: MancalaVectorEnv("kalah_v0", 2, threads=threads)),
    ("TwoSeatVectorEnv", lambda threads: TwoSeatVectorEnv("kalah_v0", 2, threads=threads)),
    ("MancalaSB3VecEnv", lambda threads: _sb3(threads=threads)),
    ("SelfPlayVecEnv", lambda threads: _self_play(threads=threads)),
]
for door, build in THREAD_DOORS:
    for threads in (MAX_THREADS + 1, 20_000):
        case(
            THREADS,
            f"{door}(threads={threads})",
            lambda _, b=build, t=threads: b(t),
            f"threads (None for every core) must be an integer from 1 to 256 (got {threads})",
        )
