"""No array an env hands out aliases its state (issue 30, item 13; docs/contract.md, "Types and shared arrays").

One table: every env kind x every array (or list) it hands out — observations, masks (returned, in infos, from
``action_masks()``), rewards, end flags, infos' arrays, final observations and results, states and boards. Each case
builds the env twice (a subject and a twin, the same calls with the same seeds), takes the array from both, writes
into the subject's (every entry changed, nested lists too) and checks that the subject's state and its next call
give exactly what the twin's give. A read-only array passes too, if writing into it raises.

The issue's own example is a test of its own: writing ones into ``MancalaVectorEnv``'s ``info["action_mask"]``
made an illegal action pass as a silent no-op; now the action is refused as it would have been.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs import IllegalActionError
from mancala_envs.engine.state import LEGAL
from mancala_envs.envs.batch import BatchedGames
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.two_seat_env import TwoSeatVectorEnv
from mancala_envs.views.vector_env import MancalaVectorEnv
from mancala_envs.wrappers import FlattenObservation, GymFlattenObservation, GymStackObservation

from support.contract import plain

N = 4


def spoil(value: Any) -> None:
    """Writes into ``value`` in place: every entry of an array changed (a read-only array must refuse), every
    list grown and its numbers changed, every dict's containers spoiled."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            for item in value.ravel():
                if item is not None:
                    spoil(item)
            return
        if not value.flags.writeable:
            with pytest.raises(ValueError, match="read-only"):
                value[...] = 0
            return
        if value.dtype == bool:
            value[...] = ~value
        else:
            value[...] = value + 1
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (int, float, str)) and not isinstance(item, bool):
                value[index] = item + (1 if not isinstance(item, str) else "?")
            else:
                spoil(item)
        value.append(-7)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (int, float, str)) and not isinstance(item, bool):
                value[key] = item + (1 if not isinstance(item, str) else "?")
            elif item is not None and not isinstance(item, (bool, np.generic)):
                spoil(item)
    else:
        raise AssertionError(f"nothing to spoil in {type(value).__name__}: the case takes the wrong thing")


def legal_actions(masks: np.ndarray) -> np.ndarray:
    """The first legal action of each row of ``masks`` (a fresh array of the env's own)."""
    return np.asarray(masks).astype(bool).argmax(axis=-1).astype(np.int64)


@dataclass
class Subject:
    """An env and what its calls handed out on the way (``out``: name -> value)."""

    env: Any
    out: dict[str, Any]


@dataclass(frozen=True)
class Handout:
    """One array an env hands out: ``build`` makes the env (seeded) and records what it handed out, ``take`` picks
    the array, ``state`` reads what must not change, ``advance`` makes the next call (its results are compared)."""

    kind: str
    name: str
    build: Callable[[], Subject]
    take: Callable[[Subject], Any]
    state: Callable[[Any], Any]
    advance: Callable[[Any], Any]


# --- the AEC env ------------------------------------------------------------------------------------------------
def aec(infos: str = "full") -> Subject:
    env = mancala_envs.make("kalah_v0", first_player=0, infos=infos)
    env.reset(seed=0)
    env.step(2)  # pit 2 ends in the store: a last move with sown pits, player 0 again
    env.step(5)
    return Subject(env, {"observe": env.observe("player_0"), "last": env.last()})


def aec_state(env: Any) -> Any:
    return {"snapshot": env.state_dict(), "position": env.position(), "infos": copy.deepcopy(env.infos)}


def aec_state_but(agent: str) -> Callable[[Any], Any]:
    """The AEC env's state but ``agent``'s info dict, which is the env's public attribute ``infos[agent]`` (written
    into on purpose by the case): the other agent's info and the env's record of the last move must not change."""
    other = "player_1" if agent == "player_0" else "player_0"
    return lambda env: {
        "snapshot": env.state_dict(),
        "position": env.position(),
        other: copy.deepcopy(env.infos[other]),
    }


def aec_advance(env: Any) -> Any:
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(legal_actions(mask)))
    return {"last": env.last(), "snapshot": env.state_dict()}


AEC_CASES = [
    ("observe observation", lambda s: s.out["observe"]["observation"], aec_state),
    ("observe action_mask", lambda s: s.out["observe"]["action_mask"], aec_state),
    ("last observation", lambda s: s.out["last"][0]["observation"], aec_state),
    ("last action_mask", lambda s: s.out["last"][0]["action_mask"], aec_state),
    ("board", lambda s: s.env.board, aec_state),
    ("stores", lambda s: s.env.stores, aec_state),
    ("state_array", lambda s: s.env.state_array, aec_state),
    ("state_dict state", lambda s: s.env.state_dict()["state"], aec_state),
    ("state_dict last_move sown", lambda s: s.env.state_dict()["last_move"]["sown"], aec_state),
    ("last_move sown", lambda s: s.env.last_move["sown"], aec_state),
    ("facts scores", lambda s: s.env.facts()["scores"], aec_state),
    ("facts last_move captures", lambda s: s.env.facts()["last_move"]["captures"], aec_state),
    ("infos player_0 scores", lambda s: s.env.infos["player_0"]["scores"], aec_state_but("player_0")),
    (
        "infos player_0 last_move sown",
        lambda s: s.env.infos["player_0"]["last_move"]["sown"],
        aec_state_but("player_0"),
    ),
    (
        "infos player_1 last_move captures",
        lambda s: s.env.infos["player_1"]["last_move"]["captures"],
        aec_state_but("player_1"),
    ),
]
AEC_TENSOR_CASES = [
    ("tensor infos scores", lambda s: s.env.infos["player_0"]["scores"], aec_state_but("player_0")),
    ("tensor infos match_points", lambda s: s.env.infos["player_1"]["match_points"], aec_state_but("player_1")),
]


# --- the single-agent view ----------------------------------------------------------------------------------------
def single_agent(encoding: str | None = None, to_the_end: bool = False) -> Subject:
    env = SingleAgentEnv("kalah_v0", opponent="greedy", learner_seat=0, first_player=0, encoding=encoding)
    observation, info = env.reset(seed=0)
    out = {"reset": (observation, info)}
    result = env.step(int(legal_actions(env.action_masks())))
    out["step"] = result
    while to_the_end and not (result[2] or result[3]):
        result = env.step(int(legal_actions(env.action_masks())))
    out["end"] = result
    return Subject(env, out)


def single_state(env: SingleAgentEnv) -> Any:
    return {"aec": aec_state(env.aec_env), "masks": env.action_masks(), "over": env.episode_over}


def single_advance(env: SingleAgentEnv) -> Any:
    if env.episode_over:
        return env.reset(seed=5)
    return env.step(int(legal_actions(env.action_masks())))


SINGLE_CASES = [
    ("reset observation", lambda s: s.out["reset"][0]),
    ("reset info action_mask", lambda s: s.out["reset"][1]["action_mask"]),
    ("step observation", lambda s: s.out["step"][0]),
    ("step info action_mask", lambda s: s.out["step"][4]["action_mask"]),
    ("action_masks()", lambda s: s.env.action_masks()),
]
SINGLE_END_CASES = [
    ("final info scores", lambda s: s.out["end"][4]["scores"]),
    ("final info match_points", lambda s: s.out["end"][4]["match_points"]),
    ("final info action_mask", lambda s: s.out["end"][4]["action_mask"]),
]


# --- batched games ----------------------------------------------------------------------------------------------
def batch() -> Subject:
    games = BatchedGames("modiar_v0", N, first_player=0, threads=1)
    out = {"reset": games.reset(seed=0)}
    step = out["reset"]
    for _ in range(200):  # until a game ends, so that the final arrays hold something
        step = games.step(legal_actions(step.action_mask))
        if step.final.index.size:
            break
    assert step.final.index.size
    out["step"] = step
    return Subject(games, out)


def batch_state(games: BatchedGames) -> Any:
    return {"states": [games.state(game) for game in range(games.n_games)], "words": games.generator_words.copy()}


def batch_advance(games: BatchedGames) -> Any:
    bits = [int(games.state(game)[LEGAL]) for game in range(games.n_games)]
    masks = np.array([[(legal >> action) & 1 for action in range(games.n_actions)] for legal in bits])
    return games.step(legal_actions(masks))


BATCH_CASES = [
    (f"{call} {field}", lambda s, c=call, f=field: getattr(s.out[c], f))
    for call in ("reset", "step")
    for field in ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated")
]
BATCH_CASES += [
    (f"step final.{field}", lambda s, f=field: getattr(s.out["step"].final, f))
    for field in ("index", "observation", "winner", "end_reason", "scores", "points", "plies", "turns")
]
BATCH_CASES += [("state(0)", lambda s: s.env.state(0))]


def step_until_a_game_ends(env: Any, ended: Callable[[Any], np.ndarray]) -> Any:
    """Steps ``env`` with legal actions until ``ended(result)`` marks a game (at most 200 steps), so that the
    final arrays hold something; returns that step's result."""
    for _ in range(200):
        result = env.step(legal_actions(env.action_masks()))
        if ended(result).any():
            return result
    raise AssertionError("no game ended in 200 steps")


# --- the compiled vector env and its SB3 adapter -----------------------------------------------------------------
def vector(autoreset_mode: str = "same_step") -> Subject:
    env = MancalaVectorEnv(
        "modiar_v0", N, opponent="random", learner_seat=0, first_player=0, autoreset_mode=autoreset_mode, threads=1
    )
    out = {"reset": env.reset(seed=0)}
    out["step"] = step_until_a_game_ends(env, lambda result: result[2] | result[3])
    return Subject(env, out)


def vector_state(env: MancalaVectorEnv) -> Any:
    return {
        "states": [env.state(game) for game in range(env.num_envs)],
        "masks": env.action_masks(),
        "seats": env.learner_seats,
        "opponents": env.learner_opponents,
        "opponent": env.opponent,
    }


def vector_advance(env: MancalaVectorEnv) -> Any:
    return env.step(legal_actions(env.action_masks()))


VECTOR_CASES = [
    ("reset observations", lambda s: s.out["reset"][0]),
    ("reset infos action_mask", lambda s: s.out["reset"][1]["action_mask"]),
    ("reset infos learner_seat", lambda s: s.out["reset"][1]["learner_seat"]),
    ("step observations", lambda s: s.out["step"][0]),
    ("step rewards", lambda s: s.out["step"][1]),
    ("step terminations", lambda s: s.out["step"][2]),
    ("step truncations", lambda s: s.out["step"][3]),
    ("step infos", lambda s: s.out["step"][4]),
    ("action_masks()", lambda s: s.env.action_masks()),
    ("call('action_masks') rows", lambda s: list(s.env.call("action_masks"))),
    ("learner_seats", lambda s: s.env.learner_seats),
    ("learner_opponents", lambda s: s.env.learner_opponents),
    ("final_info", lambda s: s.env.final_info(s.out["step"][2] | s.out["step"][3])),
    ("final_observations", lambda s: s.env.final_observations(np.flatnonzero(s.out["step"][2] | s.out["step"][3]))),
    ("final_results", lambda s: s.env.final_results(np.flatnonzero(s.out["step"][2] | s.out["step"][3]))),
    ("state(0)", lambda s: s.env.state(0)),
]


def vector_list_opponent() -> Subject:
    env = MancalaVectorEnv("modiar_v0", N, opponent=["random", "greedy"], learner_seat=0, threads=1)
    env.reset(seed=0)
    return Subject(env, {})


def sb3() -> Subject:
    pytest.importorskip("stable_baselines3")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    env = MancalaSB3VecEnv("modiar_v0", N, learner_seat=0, first_player=0, seed=0, threads=1)
    out = {"reset": env.reset()}
    out["step"] = step_until_a_game_ends(env, lambda result: result[2])
    return Subject(env, out)


def sb3_state(env: Any) -> Any:
    return vector_state(env.venv)


def sb3_advance(env: Any) -> Any:
    observation, rewards, dones, infos = env.step(legal_actions(env.action_masks()))
    # the episode's "t" is wall time: left out of the comparison
    return (
        observation,
        rewards,
        dones,
        [{key: value for key, value in info.items() if key != "episode"} for info in infos],
    )


SB3_CASES = [
    ("reset observations", lambda s: s.out["reset"]),
    ("step observations", lambda s: s.out["step"][0]),
    ("step rewards", lambda s: s.out["step"][1]),
    ("step dones", lambda s: s.out["step"][2]),
    ("terminal_observation", lambda s: [info["terminal_observation"] for info in s.out["step"][3] if info]),
    ("action_masks()", lambda s: s.env.action_masks()),
    ("env_method('action_masks')", lambda s: s.env.env_method("action_masks")),
]


# --- both seats played by the caller -----------------------------------------------------------------------------
def two_seat(autoreset_mode: str = "same_step") -> Subject:
    env = TwoSeatVectorEnv("modiar_v0", N, first_player=0, autoreset_mode=autoreset_mode, threads=1)
    out = {"reset": env.reset(seed=0)}
    out["step"] = step_until_a_game_ends(env, lambda result: result[2] | result[3])
    return Subject(env, out)


def two_seat_state(env: TwoSeatVectorEnv) -> Any:
    return {
        "states": [env.state(game) for game in range(env.num_envs)],
        "masks": env.action_masks(),
        "to_play": env.to_play,
        "final_info": env.final_info(),
    }


def two_seat_advance(env: TwoSeatVectorEnv) -> Any:
    return env.step(legal_actions(env.action_masks()))


TWO_SEAT_CASES = [
    ("reset observations", lambda s: s.out["reset"][0]),
    ("reset infos", lambda s: s.out["reset"][1]),
    ("step observations", lambda s: s.out["step"][0]),
    ("step rewards", lambda s: s.out["step"][1]),
    ("step terminations", lambda s: s.out["step"][2]),
    ("step truncations", lambda s: s.out["step"][3]),
    ("step infos", lambda s: s.out["step"][4]),
    ("action_masks()", lambda s: s.env.action_masks()),
    ("to_play", lambda s: s.env.to_play),
    ("final_info()", lambda s: s.env.final_info()),
    ("state(0)", lambda s: s.env.state(0)),
]


# --- self-play --------------------------------------------------------------------------------------------------
def self_play(encoding: str | None = None) -> Subject:
    pytest.importorskip("stable_baselines3")
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    env = SelfPlayVecEnv(
        "modiar_v0", N, opponents=["random"], encoding=encoding, learner_seat=0, seed=0, first_player=0, threads=1
    )
    out = {"reset": env.reset()}
    out["step"] = step_until_a_game_ends(env, lambda result: result[2])
    return Subject(env, out)


def self_play_state(env: Any) -> Any:
    return {
        "states": [env.games.state(game) for game in range(env.num_envs)],
        "masks": env.action_masks(),
        "seats": env.learner_seats(),
    }


def self_play_advance(env: Any) -> Any:
    observation, rewards, dones, infos = env.step(legal_actions(env.action_masks()))
    return (
        observation,
        rewards,
        dones,
        [{key: value for key, value in info.items() if key != "episode"} for info in infos],
    )


SELF_PLAY_CASES = [
    ("reset observations", lambda s: s.out["reset"]),
    ("step observations", lambda s: s.out["step"][0]),
    ("step rewards", lambda s: s.out["step"][1]),
    ("step dones", lambda s: s.out["step"][2]),
    ("terminal_observation", lambda s: [info["terminal_observation"] for info in s.out["step"][3] if info]),
    ("action_masks()", lambda s: s.env.action_masks()),
    ("env_method('action_masks')", lambda s: s.env.env_method("action_masks")),
    ("learner_seats()", lambda s: s.env.learner_seats()),
]


# --- wrappers ---------------------------------------------------------------------------------------------------
def aec_wrapped() -> Subject:
    env = FlattenObservation(mancala_envs.make("kalah_v0", first_player=0))
    env.reset(seed=0)
    env.step(2)
    return Subject(env, {"observe": env.observe("player_0"), "last": env.last()})


def gym_wrapped(stack: bool = False) -> Subject:
    env = SingleAgentEnv("kalah_v0", opponent="greedy", learner_seat=0, first_player=0)
    env = GymStackObservation(env, k=3) if stack else GymFlattenObservation(env)
    out = {"reset": env.reset(seed=0)}
    out["step"] = env.step(int(legal_actions(env.action_masks())))
    return Subject(env, out)


def gym_state(env: Any) -> Any:
    return single_state(env.unwrapped)


def gym_advance(env: Any) -> Any:
    return env.step(int(legal_actions(env.action_masks())))


GYM_CASES = SINGLE_CASES  # the Gymnasium wrappers hand out what the single-agent env does


HANDOUTS: list[Handout] = [
    *(Handout("MancalaEnv", name, aec, take, state, aec_advance) for name, take, state in AEC_CASES),
    *(
        Handout("MancalaEnv(infos='lean')", name, lambda: aec("lean"), take, state, aec_advance)
        for name, take, state in AEC_TENSOR_CASES
    ),
    *(Handout("SingleAgentEnv", name, single_agent, take, single_state, single_advance) for name, take in SINGLE_CASES),
    *(
        Handout(
            "SingleAgentEnv(encoding='one_hot')",
            name,
            lambda: single_agent("one_hot"),
            take,
            single_state,
            single_advance,
        )
        for name, take in SINGLE_CASES[:3]
    ),
    *(
        Handout(
            "SingleAgentEnv at the end", name, lambda: single_agent(to_the_end=True), take, single_state, single_advance
        )
        for name, take in SINGLE_END_CASES
    ),
    *(Handout("BatchedGames", name, batch, take, batch_state, batch_advance) for name, take in BATCH_CASES),
    *(Handout("MancalaVectorEnv", name, vector, take, vector_state, vector_advance) for name, take in VECTOR_CASES),
    *(
        Handout("MancalaVectorEnv(next_step)", name, lambda: vector("next_step"), take, vector_state, vector_advance)
        for name, take in VECTOR_CASES[:9]
    ),
    Handout(
        "MancalaVectorEnv(opponent=[...])",
        "opponent",
        vector_list_opponent,
        lambda s: s.env.opponent,
        vector_state,
        vector_advance,
    ),
    *(Handout("MancalaSB3VecEnv", name, sb3, take, sb3_state, sb3_advance) for name, take in SB3_CASES),
    *(
        Handout("TwoSeatVectorEnv", name, two_seat, take, two_seat_state, two_seat_advance)
        for name, take in TWO_SEAT_CASES
    ),
    *(
        Handout(
            "TwoSeatVectorEnv(next_step)", name, lambda: two_seat("next_step"), take, two_seat_state, two_seat_advance
        )
        for name, take in TWO_SEAT_CASES[:8]
    ),
    *(
        Handout("SelfPlayVecEnv(raw)", name, self_play, take, self_play_state, self_play_advance)
        for name, take in SELF_PLAY_CASES
    ),
    *(
        Handout("SelfPlayVecEnv(flat)", name, lambda: self_play("flat"), take, self_play_state, self_play_advance)
        for name, take in SELF_PLAY_CASES[:2]
    ),
    *(
        Handout("FlattenObservation", name, aec_wrapped, take, state, aec_advance)
        for name, take, state in AEC_CASES[:4]
    ),
    *(Handout("GymFlattenObservation", name, gym_wrapped, take, gym_state, gym_advance) for name, take in GYM_CASES),
    *(
        Handout("GymStackObservation", name, lambda: gym_wrapped(stack=True), take, gym_state, gym_advance)
        for name, take in GYM_CASES
    ),
]


@pytest.mark.parametrize("handout", HANDOUTS, ids=[f"{h.kind}: {h.name}" for h in HANDOUTS])
def test_writing_into_a_handed_out_array_changes_nothing(handout: Handout) -> None:
    """The subject, whose array was written into, and its untouched twin hold the same state and give the same
    next results (or the array is read-only)."""
    subject, twin = handout.build(), handout.build()
    handed, _ = handout.take(subject), handout.take(twin)
    assert plain(handout.state(subject.env)) == plain(handout.state(twin.env))
    spoil(handed)
    assert plain(handout.state(subject.env)) == plain(handout.state(twin.env)), "the write reached the env's state"
    assert plain(handout.advance(subject.env)) == plain(handout.advance(twin.env)), "the write changed the next call"
    assert plain(handout.state(subject.env)) == plain(handout.state(twin.env))


def test_the_table_covers_every_env_kind() -> None:
    kinds = {handout.kind.split("(")[0].split(" ")[0] for handout in HANDOUTS}
    assert kinds == {
        "MancalaEnv",
        "SingleAgentEnv",
        "BatchedGames",
        "MancalaVectorEnv",
        "MancalaSB3VecEnv",
        "TwoSeatVectorEnv",
        "SelfPlayVecEnv",
        "FlattenObservation",
        "GymFlattenObservation",
        "GymStackObservation",
    }


# --- the example: a written mask lets no illegal action pass --------------------------------------------
def _kalah_vector() -> MancalaVectorEnv:
    env = MancalaVectorEnv("kalah_v0", N, learner_seat=0, first_player=0, threads=1)
    env.reset(seed=0)  # Kalah, learner first: pit 2 ends in the store (the learner moves again, pit 2 empty)
    return env


def _two_seat_kalah() -> TwoSeatVectorEnv:
    env = TwoSeatVectorEnv("kalah_v0", N, first_player=0, threads=1)
    env.reset(seed=0)
    return env


MASK_WRITERS: list[tuple[str, Callable[[], Any], Callable[[Any], np.ndarray]]] = [
    (
        "MancalaVectorEnv step infos['action_mask']",
        _kalah_vector,
        lambda env: env.step(np.full(N, 2))[4]["action_mask"],
    ),
    ("MancalaVectorEnv action_masks()", _kalah_vector, lambda env: (env.step(np.full(N, 2)), env.action_masks())[1]),
    (
        "TwoSeatVectorEnv step infos['action_mask']",
        _two_seat_kalah,
        lambda env: env.step(np.full(N, 2))[4]["action_mask"],
    ),
    ("TwoSeatVectorEnv action_masks()", _two_seat_kalah, lambda env: (env.step(np.full(N, 2)), env.action_masks())[1]),
]


@pytest.mark.parametrize("name, build, mask_of", MASK_WRITERS, ids=[row[0] for row in MASK_WRITERS])
def test_a_written_mask_lets_no_illegal_action_pass(
    name: str, build: Callable[[], Any], mask_of: Callable[[Any], np.ndarray]
) -> None:
    """Ones written into a mask the env handed out (each case leaves Kalah's pit 2 empty, the mover to move
    again) leave its own masks alone: action 2 is still refused with IllegalActionError, and nothing is played."""
    env = build()
    mask = mask_of(env)
    mask[...] = 1
    before = [env.state(game) for game in range(N)]
    assert not env.action_masks()[:, 2].any()
    with pytest.raises(IllegalActionError, match="game 0 got 2, its legal actions are"):
        env.step(np.full(N, 2))
    assert all(np.array_equal(state, env.state(game)) for game, state in enumerate(before))


def test_the_single_agent_mask_in_the_info_is_the_callers_own() -> None:
    """``SingleAgentEnv``'s ``info["action_mask"]`` was the array ``action_masks()`` reads: ones written into it
    showed every action as legal."""
    env = SingleAgentEnv("kalah_v0", opponent="greedy", learner_seat=0, first_player=0)
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(2)  # the learner moves again; pit 2 is empty
    expected = env.action_masks().copy()
    assert not expected[2]
    info["action_mask"][...] = 1
    assert env.action_masks().tolist() == expected.tolist()
