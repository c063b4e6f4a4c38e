"""The ``load_state_dict(snapshot)`` door: snapshots accept only states a game reaches.

``load_state_dict`` and ``reset(options=...)`` share one validation: a snapshot's position must be one
``reset`` accepts, and its header one the game can reach (the slots its layout does not use are 0, the
counters within their caps). Each bad snapshot (another game's, another config's, a changed field, a
named case that used to load) is refused with a ``ValueError`` that names the field, and the env is left
exactly as it was. The property test mutates real snapshots at random: every mutated snapshot is either
refused with a ``ValueError`` or plays to a normal end with every invariant holding."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

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
    PLAYER,
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
from mancala_envs.games.omweso import omweso_rules as omweso
from mancala_envs.games.rio_kadalis import rio_kadalis_rules as rio_kadalis

from support.actions import mid_game
from support.episodes import game_cap
from support.refusals import assert_rejected

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")


# --- snapshots -----------------------------------------------------------------------------------------------
def other_game_snapshot(env_id: str) -> dict[str, Any]:
    """A real snapshot of a different game."""
    name = mancala_envs.make(env_id).unwrapped.game.name
    other = mid_game("mancala/urim-v0" if name != "urim" else "mancala/ouril-v0")
    return other.unwrapped.state_dict()


def other_config_snapshot(env_id: str) -> dict[str, Any]:
    """A real snapshot of the same game with another config (a different length cap)."""
    option, _ = game_cap(mancala_envs.make(env_id).unwrapped.game)
    other = mid_game(env_id, **{option: 77})
    return other.unwrapped.state_dict()


def a_pit_with_seeds(env: Any) -> int:
    board = env.unwrapped.board
    return int(np.flatnonzero(board)[0])


def bad_snapshot(env: Any, env_id: str, case: str) -> Any:
    """The env's own snapshot, spoiled as ``case`` says."""
    good = env.unwrapped.state_dict()
    replacements: dict[str, Callable[[], Any]] = {
        "a list": lambda: [good],
        "None": lambda: None,
        "JSON text": lambda: json.dumps(good),
        "other game": lambda: other_game_snapshot(env_id),
        "other config": lambda: other_config_snapshot(env_id),
    }
    if case in replacements:
        return replacements[case]()
    bad = copy.deepcopy(good)
    state = bad["state"]
    pit = BOARD + a_pit_with_seeds(env)
    neighbour = BOARD + (a_pit_with_seeds(env) + 1) % env.unwrapped.game.n_pits
    if case == "missing key":
        del bad["rng"]
    elif case == "other format":
        bad["format"] = "mancala-envs-snapshot-0"
    elif case == "state too short":
        state.pop()
    elif case == "state too long":
        state.append(0)
    elif case == "state not a list":
        bad["state"] = ",".join(map(str, state))
    elif case in ENTRY_VALUES:
        state[pit] = ENTRY_VALUES[case](state[pit])
    elif case == "negative pit":
        state[neighbour] += state[pit] + 1
        state[pit] = -1
    elif case == "LEGAL mismatch":
        state[LEGAL] ^= 1
    elif case == "player out of range":
        state[PLAYER] = 2
    elif case == "rng state negative":
        bad["rng"]["state"]["state"] = -1
    elif case == "agent_selection not the player to move":
        bad["agent_selection"] = AGENTS[1 - AGENTS.index(good["agent_selection"])]
    else:
        bad.update(SNAPSHOT_ENTRIES[case])
    return bad


#: a board entry replaced: case -> new value from the old one
ENTRY_VALUES: dict[str, Callable[[int], Any]] = {
    "float entry": float,
    "string entry": str,
    "bool entry": lambda _: True,
    "None entry": lambda _: None,
    "entry beyond int64": lambda _: 2**70,
    "one seed too many": lambda seeds: seeds + 1,
}
#: a top-level entry replaced: case -> {key: new value}
SNAPSHOT_ENTRIES: dict[str, dict[str, Any]] = {
    "rng empty": {"rng": {}},
    "rng not a dict": {"rng": "PCG64"},
    "rng of another bit generator": {"rng": np.random.MT19937(0).state},
    "agents reversed": {"agents": list(reversed(AGENTS))},
    "agent_selection unknown": {"agent_selection": "player_2"},
    "rewards not a dict": {"rewards": [0, 0]},
    "cumulative_rewards for one agent": {"cumulative_rewards": {AGENTS[0]: 0}},
    "terminations None": {"terminations": None},
    "reward not a number": {"rewards": {AGENTS[0]: "one", AGENTS[1]: 0}},
    "terminated while running": {"terminations": dict.fromkeys(AGENTS, True)},
}


# case -> (exception, texts of the message); the snapshot is the env's own, mid-game
SNAPSHOT_CASES: dict[str, tuple[type, tuple[str, ...]]] = {
    "a list": (TypeError, ("state_dict()", "list")),
    "None": (TypeError, ("state_dict()", "NoneType")),
    "JSON text": (TypeError, ("state_dict()", "str")),
    "missing key": (ValueError, ("not a mancala-envs snapshot", "missing ['rng']", "state_dict()")),
    "other format": (ValueError, ("not a mancala-envs snapshot", "'mancala-envs-snapshot-0'")),
    "other game": (ValueError, ("the snapshot is of",)),
    "other config": (ValueError, ("config", "differs", "77")),
    "state too short": (ValueError, ("state", "integers")),
    "state too long": (ValueError, ("state", "integers")),
    "state not a list": (ValueError, ("state", "list")),
    "float entry": (ValueError, ("state", "integers only")),
    "string entry": (ValueError, ("state", "integers only")),
    "bool entry": (ValueError, ("state", "integers only")),
    "None entry": (ValueError, ("state", "integers only")),
    "entry beyond int64": (ValueError, ("state",)),
    "one seed too many": (ValueError, ("seeds", "this config has")),
    "negative pit": (ValueError, ("negative",)),
    "LEGAL mismatch": (ValueError, ("legal-move mask",)),
    "player out of range": (ValueError, ("player", "out of range")),
    "rng empty": (ValueError, ("rng",)),
    "rng not a dict": (ValueError, ("rng",)),
    "rng of another bit generator": (ValueError, ("rng", "PCG64")),
    "rng state negative": (ValueError, ("rng",)),
    "agents reversed": (ValueError, ("agents",)),
    "agent_selection unknown": (ValueError, ("agent_selection",)),
    "agent_selection not the player to move": (ValueError, ("agent_selection", "player to move")),
    "rewards not a dict": (ValueError, ("rewards",)),
    "cumulative_rewards for one agent": (ValueError, ("cumulative_rewards",)),
    "terminations None": (ValueError, ("terminations",)),
    "reward not a number": (ValueError, ("rewards",)),
    "terminated while running": (ValueError, ("terminations",)),
}


def snapshot_case(env_id: str, case: str) -> Any:
    return pytest.param(env_id, case, id=f"{env_id}-{case}")


def snapshot_applies(env_id: str, case: str) -> bool:
    if case == "one seed too many":  # while Omweso's seeds are being placed, the board holds fewer than 64
        return env_id != "mancala/omweso-placement-v0"
    return True


@pytest.mark.parametrize(
    ("env_id", "case"),
    [snapshot_case(env_id, case) for env_id in IDS for case in SNAPSHOT_CASES if snapshot_applies(env_id, case)],
)
def test_bad_snapshot_is_refused_and_changes_nothing(env_id: str, case: str) -> None:
    error, texts = SNAPSHOT_CASES[case]
    snapshot = bad_snapshot(mid_game(env_id), env_id, case)
    assert_rejected(lambda: mid_game(env_id), lambda env: env.load_state_dict(snapshot), error, *texts)


def test_omweso_snapshot_with_an_impossible_placement_is_refused() -> None:
    env_id = "mancala/omweso-placement-v0"
    snapshot = mid_game(env_id).unwrapped.state_dict()
    snapshot["state"][BOARD + 16] = 5  # player 1's side holds 5 seeds while player 0 places: no game gets here
    assert_rejected(lambda: mid_game(env_id), lambda env: env.load_state_dict(snapshot), ValueError, "placing")


def test_bad_snapshot_on_a_fresh_env_leaves_it_unreset() -> None:
    snapshot = mid_game("mancala/ouril-v0").unwrapped.state_dict()
    snapshot["state"][LEGAL] ^= 1
    env = mancala_envs.make("ouril_v0")
    with pytest.raises(ValueError, match="legal-move mask"):
        env.load_state_dict(snapshot)
    with pytest.raises(RuntimeError, match="reset"):
        env.position()


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
IMPOSSIBLE_SNAPSHOTS: dict[str, tuple[str, Callable[[dict[str, Any], Any], None], tuple[str, ...]]] = {
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


@pytest.mark.parametrize("case", list(IMPOSSIBLE_SNAPSHOTS))
def test_impossible_snapshot_is_refused_naming_the_field(case: str) -> None:
    env_id, mutate, texts = IMPOSSIBLE_SNAPSHOTS[case]
    snapshot = copy.deepcopy(mid_game(env_id).unwrapped.state_dict())
    mutate(snapshot, mancala_envs.make(env_id).unwrapped.game)
    assert_rejected(lambda: mid_game(env_id), lambda env: env.load_state_dict(snapshot), ValueError, *texts)


def test_kalah_last_move_may_sow_into_the_stores() -> None:
    env = mid_game("mancala/kalah-v0")
    snapshot = env.unwrapped.state_dict()
    snapshot["last_move"] = {**snapshot["last_move"], "sown": [3, 4, 5, 12, 13]}
    env.unwrapped.load_state_dict(snapshot)
    assert env.unwrapped.last_move["sown"] == [3, 4, 5, 12, 13]


def test_case_count() -> None:
    assert len(IMPOSSIBLE_SNAPSHOTS) == 37


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

        def zero_elsewhere(e: Any, used: Any = used, env_id: str = env_id) -> None:
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


@pytest.mark.parametrize("env_id", ["ouril_v0", "urim_v0", "modiar_v0", "rio_kadalis_v0", "kalah_v0"])
def test_a_running_snapshot_at_the_ply_cap_is_refused(env_id: str) -> None:
    """The ply cap ends a game at the ply that reaches it (found by the mutation test above): a running state
    whose ply counter has reached ``max_plies`` is refused; one ply short of it loads and plays the last ply."""
    env = mancala_envs.make(env_id, max_plies=40)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    snapshot = env.unwrapped.state_dict()
    target = mancala_envs.make(env_id, max_plies=40)
    snapshot["state"][PLY] = 40
    with pytest.raises(ValueError, match=r"ply counter holds 40 while the game runs; the ply cap \(max_plies=40\)"):
        target.unwrapped.load_state_dict(snapshot)
    snapshot["state"][PLY] = 39
    target.unwrapped.load_state_dict(snapshot)
    target.step(int(np.flatnonzero(target.last()[0]["action_mask"])[0]))
    assert all(target.truncations.values()) and target.unwrapped.facts()["end_reason"] == "max_plies"
