"""Snapshots accept only states a game reaches (issue "Untrusted files", item 2).

``load_state_dict`` and ``reset(options=...)`` share one validation: a snapshot's position must be one
``reset`` accepts, and its header one the game can reach (the slots its layout does not use are 0, the
counters within their caps). The named cases below each used to load; now each is refused with a
``ValueError`` that names the field, and the env is left exactly as it was. The property test mutates
real snapshots at random: every mutated snapshot is either refused with a ``ValueError`` or plays to a
normal end with every invariant holding.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from test_bad_input import mid_game
from test_contract import assert_rejected

import mancala_envs
from mancala_envs.engine.state import (
    BOARD,
    FIRST_MOVE_DONE,
    GAMES_PLAYED,
    HEADER_SIZE,
    LAPS,
    LAST_ACTION,
    LEGAL,
    MATCH,
    PASSES,
    PLY,
    RUNNING,
    SCORE,
    STARTER,
    STATUS,
    STORE,
    TURN,
    WINNER,
)
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.games import omweso, rio_kadalis

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")


def legal_now(game: Any, state: list[int]) -> int:
    return game.legal_bits(np.array(state, dtype=np.int64))


# --- the named cases --------------------------------------------------------------------------------------------
def omweso_starter(snapshot: dict[str, Any], game: Any) -> None:
    snapshot["state"][STARTER] ^= 1


def omweso_empty_placement(snapshot: dict[str, Any], game: Any) -> None:
    state = snapshot["state"]
    state[BOARD : BOARD + omweso.N_PITS] = [0] * omweso.N_PITS
    state[omweso.PHASE] = omweso.PHASE_PLACEMENT
    state[LEGAL] = legal_now(game, state)


def omweso_capture_turns(snapshot: dict[str, Any], game: Any) -> None:
    state = snapshot["state"]
    state[TURN] = 7
    state[omweso.FIRST_CAPTURE] = 1
    state[omweso.CAPTURE_TURNS : omweso.CAPTURE_TURNS + 2] = [5, 5]
    state[LEGAL] = legal_now(game, state)


def omweso_first_capture(snapshot: dict[str, Any], game: Any) -> None:
    state = snapshot["state"]
    state[TURN] = 7
    state[omweso.FIRST_CAPTURE] = 0
    state[omweso.CAPTURE_TURNS : omweso.CAPTURE_TURNS + 2] = [1, 0]
    state[LEGAL] = legal_now(game, state)


def set_slot(slot: int, value: Any) -> Callable[[dict[str, Any], Any], None]:
    def mutate(snapshot: dict[str, Any], game: Any) -> None:
        snapshot["state"][slot] = value

    return mutate


def set_entry(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any], Any], None]:
    def mutate(snapshot: dict[str, Any], game: Any) -> None:
        where = snapshot
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = value

    return mutate


def set_reward(key: str, value: Any) -> Callable[[dict[str, Any], Any], None]:
    def mutate(snapshot: dict[str, Any], game: Any) -> None:
        snapshot[key][snapshot["agent_selection"]] = value

    return mutate


def set_last_move(**changes: Any) -> Callable[[dict[str, Any], Any], None]:
    def mutate(snapshot: dict[str, Any], game: Any) -> None:
        snapshot["last_move"] = {**snapshot["last_move"], **changes}

    return mutate


def omweso_turn_flags(snapshot: dict[str, Any], game: Any) -> None:
    state = snapshot["state"]
    state[omweso.TURN_FLAGS] = 1  # a capture flag of a turn in progress, with no turn in progress


def urim_match_over_target(snapshot: dict[str, Any], game: Any) -> None:
    snapshot["state"][MATCH] = game.config.match_target  # a running match that somebody has already won


#: case -> (env id, mutation, texts the ValueError names)
SNAPSHOT_CASES: dict[str, tuple[str, Callable[[dict[str, Any], Any], None], tuple[str, ...]]] = {
    "omweso placement, starter changed": ("mancala/omweso-placement-v0", omweso_starter, ("starter",)),
    "omweso phase=placement, empty board, outer4 setup": (
        "mancala/omweso-v0",
        omweso_empty_placement,
        ("phase", "placement"),
    ),
    "omweso capturing turns 5+5 after 7 turns": ("mancala/omweso-v0", omweso_capture_turns, ("capturing_turns",)),
    "omweso capturing turns without a first capture": ("mancala/omweso-v0", omweso_first_capture, ("capturing_turns",)),
    "omweso turn beyond max_turns": ("mancala/omweso-v0", set_slot(TURN, 2001), ("turn",)),
    "omweso capture flags with no turn in progress": ("mancala/omweso-v0", omweso_turn_flags, ("turn flags",)),
    "ouril ply 10**6": ("mancala/ouril-v0", set_slot(PLY, 10**6), ("ply", "1000")),
    "ouril winner while running": ("mancala/ouril-v0", set_slot(WINNER, 1), ("winner",)),
    "ouril fours slot -7": ("mancala/ouril-v0", set_slot(rio_kadalis.FOURS, -7), ("slot 24", "0")),
    "ouril round slot 3": ("mancala/ouril-v0", set_slot(rio_kadalis.ROUND, 3), ("slot 29", "0")),
    "ouril turn slot": ("mancala/ouril-v0", set_slot(TURN, 4), ("slot 19", "TURN")),
    "kalah passes slot": ("mancala/kalah-v0", set_slot(PASSES, 1), ("slot 17", "PASSES")),
    "ouril last action 99": ("mancala/ouril-v0", set_slot(LAST_ACTION, 99), ("last action",)),
    "ouril first-move flag 0 after plies": ("mancala/ouril-v0", set_slot(FIRST_MOVE_DONE, 0), ("first-move",)),
    "ouril games played in a single game": ("mancala/ouril-v0", set_slot(GAMES_PLAYED, 2), ("games played",)),
    "ouril match points in a single game": ("mancala/ouril-v0", set_slot(MATCH + 1, 3), ("match points",)),
    "ouril final score while running": ("mancala/ouril-v0", set_slot(SCORE, 5), ("scores",)),
    "urim running match past its target": ("mancala/urim-match-v0", urim_match_over_target, ("match points",)),
    "rio kadalis fours above T/4": ("mancala/rio-kadalis-v0", set_slot(rio_kadalis.FOURS, 13), ("fours",)),
    "rio kadalis laps above the lap cap": ("mancala/rio-kadalis-v0", set_slot(LAPS, 2001), ("lap",)),
    "rio kadalis round outside a match": ("mancala/rio-kadalis-v0", set_slot(rio_kadalis.ROUND, 1), ("round",)),
    "reward NaN": ("mancala/ouril-v0", set_reward("rewards", math.nan), ("rewards", "finite")),
    "reward inf": ("mancala/ouril-v0", set_reward("rewards", math.inf), ("rewards", "finite")),
    "reward 10**400": ("mancala/ouril-v0", set_reward("rewards", 10**400), ("rewards", "finite")),
    "cumulative reward -inf": (
        "mancala/ouril-v0",
        set_reward("cumulative_rewards", -math.inf),
        ("cumulative_rewards",),
    ),
    "rng has_uint32=5": ("mancala/ouril-v0", set_entry(("rng", "has_uint32"), 5), ("rng", "has_uint32")),
    "rng even increment": (
        "mancala/ouril-v0",
        lambda s, g: s["rng"]["state"].update(inc=s["rng"]["state"]["inc"] - 1),
        ("rng", "inc"),
    ),
    "rng uinteger of 2**40": ("mancala/ouril-v0", set_entry(("rng", "uinteger"), 2**40), ("rng", "uinteger")),
    "rng state beyond 128 bits": ("mancala/ouril-v0", set_entry(("rng", "state", "state"), 2**130), ("rng", "state")),
    "rng extra key": ("mancala/ouril-v0", set_entry(("rng", "seed"), 1), ("rng",)),
    "last_move sown pit off the board": ("mancala/ouril-v0", set_last_move(sown=[3, 99]), ("last_move", "sown")),
    "last_move negative sown pit": ("mancala/ouril-v0", set_last_move(sown=[-1]), ("last_move", "sown")),
    "last_move captured pit off the board": (
        "mancala/ouril-v0",
        set_last_move(captures=[[40, 2]]),
        ("last_move", "captures"),
    ),
    "last_move capture of 0 seeds": ("mancala/ouril-v0", set_last_move(captures=[[3, 0]]), ("last_move", "captures")),
    "last_move action out of range": ("mancala/ouril-v0", set_last_move(action=6), ("last_move", "action")),
    "last_move player True": ("mancala/ouril-v0", set_last_move(player=True), ("last_move", "player")),
    "last_move sown into a store (not Kalah)": ("mancala/omweso-v0", set_last_move(sown=[32]), ("last_move", "sown")),
}


@pytest.mark.parametrize("case", list(SNAPSHOT_CASES))
def test_impossible_snapshot_is_refused_naming_the_field(case: str) -> None:
    env_id, mutate, texts = SNAPSHOT_CASES[case]
    snapshot = copy.deepcopy(mid_game(env_id).unwrapped.state_dict())
    mutate(snapshot, mancala_envs.make(env_id).unwrapped.game)
    assert_rejected(lambda: mid_game(env_id), lambda env: env.load_state_dict(snapshot), ValueError, *texts)


def test_kalah_last_move_may_sow_into_the_stores() -> None:
    env = mid_game("mancala/kalah-v0")
    snapshot = env.unwrapped.state_dict()
    snapshot["last_move"] = {**snapshot["last_move"], "sown": [3, 4, 5, 12, 13]}
    env.unwrapped.load_state_dict(snapshot)
    assert env.unwrapped.infos[env.agent_selection]["last_move"]["sown"] == [3, 4, 5, 12, 13]


def test_case_count() -> None:
    assert len(SNAPSHOT_CASES) == 37


# --- every state a game reaches is accepted ---------------------------------------------------------------------
def play_out(env: Any, rng: np.random.Generator, check: Callable[[Any], None]) -> int:
    """Random legal play to the end of the episode, calling ``check`` before every step; the plies played."""
    raw = env.unwrapped
    plies = 0
    for _ in env.agent_iter(raw.game.max_episode_plies + 4):
        check(env)
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        plies += 1
    check(env)
    return plies


def every_invariant(env: Any) -> None:
    """What holds in every state a game reaches."""
    raw = env.unwrapped
    game, state = raw.game, raw.state_array
    game.check_state(state)  # the snapshot door's whole check: conservation, mask, header, position
    held = game.held_seeds(state)
    assert held is None or held == game.total_seeds
    if state[STATUS] == RUNNING:
        assert state[LEGAL] == game.legal_bits(state) != 0
        twin = mancala_envs.make(raw.game.env_name, config=raw.game.config)
        twin.reset(options={"position": raw.position()})  # the position of every running state loads
        assert twin.unwrapped.position() == raw.position()
    raw.render()  # the text picture: no KeyError / IndexError while describing the state
    raw.state_dict()


@pytest.mark.parametrize("env_id", IDS)
def test_every_reached_state_passes_the_snapshot_check(env_id: str) -> None:
    env = mancala_envs.make(env_id, render_mode="ansi")
    rng = np.random.default_rng(3)
    for seed in range(3):
        env.reset(seed=seed)
        play_out(env, rng, lambda e: (e.unwrapped.load_state_dict(e.unwrapped.state_dict()), every_invariant(e)))


# --- the property: a mutated snapshot is refused or plays to a normal end -----------------------------------------
INTERESTING = (-(2**63), -(10**6), -2, -1, 0, 1, 2, 3, 7, 15, 16, 47, 48, 64, 999, 1000, 2000, 10**6, 2**62)


@st.composite
def mutations(draw: Any) -> tuple[str, int, int, list[tuple[int, tuple[str, int]]]]:
    env_id = draw(st.sampled_from(IDS))
    plies = draw(st.integers(0, 40))
    game = mancala_envs.make(env_id).unwrapped.game
    top = BOARD + game.n_pits + (game.state_size - BOARD - game.n_pits if game.name == "omweso" else 0)
    changes = draw(
        st.lists(
            st.tuples(
                st.integers(0, top - 1),
                st.one_of(
                    st.tuples(st.just("set"), st.sampled_from(INTERESTING)),
                    st.tuples(st.just("add"), st.integers(-3, 3)),
                ),
            ),
            min_size=1,
            max_size=3,
        )
    )
    return env_id, plies, draw(st.integers(0, 2**16)), changes


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_mutated_snapshot_is_refused_or_plays_to_a_normal_end(mutation: tuple[str, int, int, list]) -> None:
    env_id, plies, seed, changes = mutation
    env = mancala_envs.make(env_id, render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    snapshot = env.unwrapped.state_dict()
    for slot, (kind, value) in changes:
        snapshot["state"][slot] = value if kind == "set" else snapshot["state"][slot] + value
    note(f"changes {[(slot, snapshot['state'][slot]) for slot, _ in changes]}")
    target = mancala_envs.make(env_id, render_mode="ansi")
    try:
        target.unwrapped.load_state_dict(snapshot)
    except ValueError as error:
        note(f"refused: {error}")
        assert str(error)
        return
    plies_played = play_out(target, rng, every_invariant)
    assert plies_played <= target.unwrapped.game.max_episode_plies + 3
    assert target.agents == [] or all(target.terminations.values()) or all(target.truncations.values())


def test_header_slots_outside_the_layout_are_zero_in_every_game() -> None:
    """The reachability check's premise, for every id: the slots a layout leaves out stay 0."""
    for env_id in IDS:
        env = mancala_envs.make(env_id)
        env.reset(seed=0)
        game = env.unwrapped.game
        used = game.header_slots_used()
        rng = np.random.default_rng(0)

        def zero_elsewhere(e: Any) -> None:
            state = e.unwrapped.state_array
            assert all(state[slot] == 0 for slot in range(HEADER_SIZE) if slot not in used), env_id

        play_out(env, rng, zero_elsewhere)
        assert STORE in used and PLY in used


@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0", "rio_kadalis_v0"])
def test_seed_counts_that_would_wrap_int64_are_refused_not_overflowed(env_id: str) -> None:
    """Two pits of 2**62 seeds sum past int64: the check counts in Python integers and refuses the state
    (found by Hypothesis: numpy's sum warned of an overflow instead)."""
    env = mancala_envs.make(env_id)
    env.reset(seed=0)
    snapshot = env.unwrapped.state_dict()
    before = copy.deepcopy(snapshot)
    from mancala_envs.engine.state import BOARD

    snapshot["state"][BOARD] = snapshot["state"][BOARD + 1] = 2**62
    with pytest.raises(ValueError):
        env.unwrapped.load_state_dict(snapshot)
    assert env.unwrapped.state_dict() == before
