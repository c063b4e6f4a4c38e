"""The bad-input contract of docs/contract.md, for the entry points tests/doors/test_bad_input.py leaves out.

tests/doors/test_bad_input.py covers actions, configuration, structured positions and env ids. This file
covers position strings, Omweso's position flags, snapshots, calls before ``reset``, rejected steps
measured by ``state_dict()``, the observation wrapper, agents by name and the command line.

"Nothing half-applied" is checked the same way everywhere (:func:`assert_rejected`): the env's
``state_dict()`` (engine state, RNG state, agents, tallies), ``position()`` and infos are equal before
and after the rejected call, and later unseeded resets draw the same first players as on an untouched
twin.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo import ParallelEnv
from test_bad_input import legal_action, mid_game, position_with_an_empty_pit

import mancala_envs
from mancala_envs import GameOverError, IllegalActionError
from mancala_envs.agents import AGENT_NAMES, GreedyAgent, RandomAgent, make_agent
from mancala_envs.cli import main, play_demo
from mancala_envs.engine.state import BOARD, LEGAL, PLAYER
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.wrappers import FlattenObservation

from support.episodes import game_cap

IDS = [variant.id for variant in VARIANTS]
OMWESO_IDS = [env_id for env_id in IDS if "omweso" in env_id]
AGENTS = ("player_0", "player_1")


# --- nothing half-applied ------------------------------------------------------------------------------------
def frozen(env: Any) -> dict[str, Any]:
    """What a rejected call must leave as it was: the snapshot (state, RNG, agents, tallies), the position
    and the infos."""
    raw = env.unwrapped
    return {"snapshot": raw.state_dict(), "position": raw.position(), "infos": copy.deepcopy(raw.infos)}


def first_players(env: Any, resets: int = 8) -> list[str]:
    """The players unseeded resets draw to start: the random generator's next draws."""
    drawn = []
    for _ in range(resets):
        env.reset()
        drawn.append(env.agent_selection)
    return drawn


def assert_rejected(build: Callable[[], Any], call: Callable[[Any], Any], error: type, *texts: str) -> BaseException:
    """``call`` raises ``error`` whose message holds every ``texts``, and leaves the env built by ``build``
    exactly as it was, its random generator included (compared with a twin nobody called)."""
    env, twin = build(), build()
    before = frozen(env)
    with pytest.raises(error) as caught:
        call(env)
    message = str(caught.value)
    for text in texts:
        assert text in message, f"the message should contain {text!r}: {message}"
    assert frozen(env) == before, "the rejected call changed the env"
    assert first_players(env) == first_players(twin), "the rejected call moved the random generator"
    return caught.value


# --- position strings ------------------------------------------------------------------------------------------
def split_position(text: str) -> tuple[str, str, str, dict[str, str]]:
    board, stores, player, *flags = text.split()
    return board, stores, player, dict(flag.split("=", 1) for flag in flags)


def join_position(board: str, stores: str, player: str, flags: dict[str, str]) -> str:
    return " ".join([board, stores, player, *(f"{key}={value}" for key, value in flags.items())])


#: a value of each flag kind that the notation cannot hold
BAD_FLAG_VALUES = {"int": "x", "bool": "2", "ints": "x", "text": "nonsense"}
#: a well-formed value of each flag kind (for the duplicated-flag case)
SOME_FLAG_VALUES = {"int": "1", "bool": "1", "ints": "0,0", "text": "x"}


def malformed_positions(env: Any) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    """Bad ``reset`` options built from the env's current position: name -> (options, texts the message
    must contain)."""
    game = env.unwrapped.game
    text = env.unwrapped.position()
    board, stores, player, flags = split_position(text)
    first, second = board.split("/")
    first_pits, second_pits = first.split(","), second.split(",")
    rest = ",".join(first_pits[1:])
    n_pits = game.n_pits

    def with_board(new_board: str) -> str:
        return join_position(new_board, stores, player, flags)

    def with_stores(new_stores: str) -> str:
        return join_position(board, new_stores, player, flags)

    def with_player(new_player: str) -> str:
        return join_position(board, stores, new_player, flags)

    strings: dict[str, tuple[Any, tuple[str, ...]]] = {
        "empty": ("", ("has 0 fields", "<store>,<store> <player>")),
        "board only": (board, ("has 1 fields", "<store>,<store> <player>")),
        "no player": (f"{board} {stores}", ("has 2 fields",)),
        "not a string": (text.split(), ("must be a string",)),
        "halves not separated": (with_board(f"{first},{second}"), ("two halves", "'/'")),
        "three halves": (with_board(f"{first}/{second}/0"), ("two halves",)),
        "unbalanced halves": (
            with_board(f"{first},{second_pits[0]}/{','.join(second_pits[1:])}"),
            ("board", str(n_pits // 2)),
        ),
        "pit not a number": (with_board(f"x,{rest}/{second}"), ("board", "whole numbers")),
        "fractional pit": (with_board(f"{first_pits[0]}.5,{rest}/{second}"), ("board", "whole numbers")),
        "empty pit": (with_board(f",{rest}/{second}"), ("board", "whole numbers")),
        "board too short": (with_board(f"{rest}/{second}"), ("board", f"must hold {n_pits // 2} counts")),
        "board too long": (with_board(f"{first},0/{second}"), ("board", f"must hold {n_pits // 2} counts")),
        "store not a number": (with_stores("x,0"), ("stores", "whole numbers")),
        "one store": (with_stores("0"), ("stores", "2 entries")),
        "three stores": (with_stores("0,0,0"), ("stores", "2 entries")),
        "negative store": (with_stores("-1,0"), ("stores", "non-negative")),
        "player 2": (with_player("2"), ("player", "'2'", "must be 0 or 1")),
        "player -1": (with_player("-1"), ("player", "-1")),
        "player not a number": (with_player("x"), ("player", "'x'")),
        "unknown flag": (f"{text} colour=red", ("'colour=red'", "known", *game.position_options)),
        "flag without a value": (f"{text} colour", ("'colour'", "key=value")),
    }
    if flags.get("phase") != "placement":  # while placing, not every seed is on the board yet
        more = with_board(f"{int(first_pits[0]) + 1},{rest}/{second}")
        strings["one seed too many"] = (more, (f"{game.total_seeds}", "seeds"))
    for flag, kind in game.position_options.items():
        strings[f"bad {flag}"] = (join_position(board, stores, player, {**flags, flag: BAD_FLAG_VALUES[kind]}), (flag,))
    if game.position_options:
        flag, kind = next(iter(game.position_options.items()))
        value = flags.get(flag, SOME_FLAG_VALUES[kind])
        twice = join_position(board, stores, player, {**flags, flag: value}) + f" {flag}={value}"
        strings["duplicated flag"] = (twice, (f"'{flag}'", "twice"))
    cases = {name: ({"position": position}, texts) for name, (position, texts) in strings.items()}
    cases["position and board"] = (
        {"position": text, "board": env.unwrapped.board.tolist()},
        ("both 'position' and 'board'",),
    )
    return cases


@pytest.mark.parametrize("env_id", IDS)
def test_malformed_position_raises_value_error_and_changes_nothing(env_id: str) -> None:
    """Every case of :func:`malformed_positions` (built here, on a played env, so that collecting compiles nothing)."""
    for options, texts in malformed_positions(mid_game(env_id)).values():
        assert_rejected(
            lambda: mid_game(env_id), lambda env, options=options: env.reset(options=options), ValueError, *texts
        )


@pytest.mark.parametrize("env_id", IDS)
def test_malformed_position_with_a_seed_changes_nothing(env_id: str) -> None:
    """A seeded reset that fails keeps the old generator: the seed is not applied either."""
    options, texts = malformed_positions(mid_game(env_id))["player 2"]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(seed=5, options=options), ValueError, *texts)


@pytest.mark.parametrize("env_id", IDS)
def test_the_malformed_cases_start_from_a_valid_position(env_id: str) -> None:
    """The cases above differ from a position that loads, so each fails for the reason it names."""
    env = mid_game(env_id)
    text = env.unwrapped.position()
    env.reset(options={"position": text})
    assert env.unwrapped.position() == text


@pytest.mark.parametrize(
    "env_id",
    [
        "mancala/ouril-v0",
        "mancala/modiar-v0",
        "mancala/rio-kadalis-v0",
        "mancala/omweso-v0",
    ],
)
def test_unknown_flag_passed_to_load_position_is_a_type_error_listing_the_flags(env_id: str) -> None:
    """Reset options ignore keys they do not know (Gymnasium style); the game-level call does not."""
    env = mid_game(env_id)
    game = env.unwrapped.game
    state = env.unwrapped.state_array
    with pytest.raises(TypeError) as caught:
        game.load_position(state, colour="red", **game.position_fields(state))
    message = str(caught.value)
    assert "'colour'" in message and "flags" in message
    assert all(flag in message for flag in game.position_options), message
    assert np.array_equal(state, env.unwrapped.state_array)


BAD_SEEDS = {"str": ("7", TypeError), "float": (1.5, TypeError), "negative": (-1, ValueError)}


@pytest.mark.parametrize(("seed", "error"), list(BAD_SEEDS.values()), ids=list(BAD_SEEDS))
def test_bad_reset_seed_changes_nothing(seed: Any, error: type) -> None:
    assert_rejected(lambda: mid_game("mancala/ouril-v0"), lambda env: env.reset(seed=seed), error)


@pytest.mark.parametrize(("seed", "error"), list(BAD_SEEDS.values()), ids=list(BAD_SEEDS))
def test_bad_reset_seed_message_names_the_seed(seed: Any, error: type) -> None:
    env = mid_game("mancala/ouril-v0")
    with pytest.raises(error, match="seed"):
        env.reset(seed=seed)


# --- Omweso's flags -----------------------------------------------------------------------------------------
# Positions reached in random Omweso games (tests/games/test_positions.py has their round trips).
OMWESO_CORE = (
    "0,1,0,0,1,0,0,0,1,1,1,3,0,1,1,1/3,2,0,3,4,3,0,3,2,9,9,3,3,5,1,3 0,21 1 "
    "turn=14 first_capture_done=1 capturing_turns=0,1"
)
OMWESO_RELAY = OMWESO_CORE + " pending=relay:15:6 turn_captures=1 laps=4"
OMWESO_RESOW_CORE = (
    "0,0,3,0,1,1,0,3,6,6,4,3,3,0,3,3/0,1,0,1,1,0,0,0,5,0,7,1,4,0,1,0 25,14 0 "
    "turn=11 first_capture_done=1 capturing_turns=1,1"
)
EMPTY_SIDE = ",".join(["0"] * 16)
OMWESO_PLACING = f"{EMPTY_SIDE}/{EMPTY_SIDE} 0,0 1 turn=0 first_capture_done=0 phase=placement"


def omweso_cases(game: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Omweso positions with a flag that no game could reach: name -> (notation, texts of the message)."""
    config = game.config
    cases: dict[str, tuple[str, tuple[str, ...]]] = {
        "turn_captures without pending": (OMWESO_CORE + " turn_captures=1", ("turn_captures", "only with pending")),
        "laps without pending": (OMWESO_CORE + " laps=3", ("laps", "only with pending")),
        "pending malformed": (OMWESO_CORE + " pending=relay:15", ("pending='relay:15'", "relay:<pit>:<anchor>")),
        "pending of an unknown kind": (
            OMWESO_CORE + " pending=sow:15:6",
            ("pending='sow:15:6'", "resow:<pit>:<seeds>"),
        ),
        "pending at a pit that is no decision point": (
            OMWESO_RELAY.replace("relay:15:6", "relay:3:6"),
            ("pending='relay:3:6'", "not a decision point"),
        ),
        "pending before captures are enabled": (
            OMWESO_RELAY.replace("turn=14", "turn=1"),
            ("not a decision point", f"turn >= {config.no_capture_turns}"),
        ),
        "turn beyond the cap": (
            OMWESO_CORE.replace("turn=14", f"turn={config.max_turns + 1}"),
            (f"turn={config.max_turns + 1}", "out of range"),
        ),
        "turn negative": (OMWESO_CORE.replace("turn=14", "turn=-1"), ("turn=-1", "out of range")),
    }
    if config.midturn_reverse:
        cases["pending where a clockwise lap would not capture"] = (
            OMWESO_RELAY.replace("relay:15:6", "relay:14:6"),
            ("pending='relay:14:6'", "would not capture"),
        )
        cases["re-sow without a capture"] = (
            OMWESO_RESOW_CORE + " pending=resow:0:7 turn_captures=0",
            ("pending='resow:0:7'", "follows a capture"),
        )
        cases["pending anchor out of range"] = (OMWESO_RELAY.replace("relay:15:6", "relay:15:16"), ("anchor", "16"))
        cases["laps 0"] = (OMWESO_RELAY.replace("laps=4", "laps=0"), ("laps=0", "out of range"))
        cases["laps at the cap"] = (
            OMWESO_RELAY.replace("laps=4", f"laps={config.max_laps_per_turn}"),
            (f"laps={config.max_laps_per_turn}", "out of range"),
        )
        cases["turn_captures out of range"] = (
            OMWESO_RELAY.replace("turn_captures=1", "turn_captures=16"),
            ("turn_captures=16", "out of range"),
        )
        cases["turn_captures with column bits only"] = (
            OMWESO_RELAY.replace("turn_captures=1", "turn_captures=2"),
            ("turn_captures=2", "'captured' bit"),
        )
    else:
        cases["pending without mid-turn choices"] = (OMWESO_RELAY, ("not a decision point", "midturn_reverse=True"))
    if config.setup == "placement":
        cases["placing with a capture tally"] = (OMWESO_PLACING.replace(" 0,0 1 ", " 1,0 1 "), ("while placing",))
        cases["placing after a turn"] = (OMWESO_PLACING.replace("turn=0", "turn=1"), ("while placing",))
        cases["placing with a choice pending"] = (OMWESO_PLACING + " pending=relay:15:6", ("nothing is pending",))
        cases["placing above the pit cap"] = (
            OMWESO_PLACING.replace(f"/{EMPTY_SIDE}", f"/{config.placement_cap + 1}," + ",".join(["0"] * 15)),
            (f"placement_cap={config.placement_cap}",),
        )
        cases["placing with turn_captures"] = (OMWESO_PLACING + " turn_captures=3", ("turn_captures",))
        cases["placing with laps"] = (OMWESO_PLACING + " laps=5", ("laps",))
    else:
        cases["phase=placement without the placement setup"] = (
            OMWESO_CORE + " phase=placement",
            ("phase='placement'", "setup='placement'"),
        )
    return cases


def omweso_case(env_id: str, case: str) -> Any:
    return pytest.param(env_id, case, id=f"{env_id}-{case}")


OMWESO_CASES = [
    omweso_case(env_id, case)
    for env_id in OMWESO_IDS
    for case in omweso_cases(make_game(env_id))  # the game alone: collecting compiles nothing
]


@pytest.mark.parametrize(("env_id", "case"), OMWESO_CASES)
def test_omweso_flag_that_no_game_reaches_raises_value_error(env_id: str, case: str) -> None:
    text, texts = omweso_cases(mancala_envs.make(env_id).unwrapped.game)[case]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(options={"position": text}), ValueError, *texts)


@pytest.mark.parametrize("env_id", OMWESO_IDS)
def test_omweso_cases_start_from_positions_that_load(env_id: str) -> None:
    env = mancala_envs.make(env_id)
    game = env.unwrapped.game
    valid = [OMWESO_CORE]
    if game.config.midturn_reverse:
        valid += [OMWESO_RELAY, OMWESO_RESOW_CORE + " pending=resow:0:7 turn_captures=5 laps=9"]
    if game.config.setup == "placement":
        valid.append(OMWESO_PLACING)
    for text in valid:
        env.reset(options={"position": text})
        assert env.unwrapped.position() == text


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


# --- calls before reset ----------------------------------------------------------------------------------------
BEFORE_RESET_CALLS: dict[str, Callable[[Any], Any]] = {
    "position": lambda env: env.unwrapped.position(),
    "state_dict": lambda env: env.unwrapped.state_dict(),
    "step": lambda env: env.step(0),
    "step(None)": lambda env: env.step(None),
    "observe": lambda env: env.observe("player_0"),
    "render": lambda env: env.render(),
    "agent act": lambda env: RandomAgent(seed=0).act(env),
    "wrapped step": lambda env: FlattenObservation(env).step(0),
    "wrapped observe": lambda env: FlattenObservation(env).observe("player_0"),
    "last": lambda env: env.last(),
}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(
    "call",
    list(BEFORE_RESET_CALLS),
)
def test_call_before_reset_raises_runtime_error(env_id: str, call: str) -> None:
    env = mancala_envs.make(env_id, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        BEFORE_RESET_CALLS[call](env)
    env.reset(seed=0)  # the env works once reset
    env.step(legal_action(env))


# --- rejected steps, measured by state_dict ------------------------------------------------------------------
def ended_by_penalty(env_id: str, steps_after: int) -> Any:
    """An env whose game ended by an illegal action under the default "penalty" policy, followed by
    ``steps_after`` ``step(None)`` calls (2 removes both agents)."""
    env = mancala_envs.make(env_id)
    env.reset(seed=0)
    env.reset(options=position_with_an_empty_pit(env))
    with pytest.warns(UserWarning, match="illegal action 0 by player_0"):
        env.step(0)
    for _ in range(steps_after):
        env.step(None)
    return env


def with_an_illegal_action(env_id: str) -> Any:
    env = mancala_envs.make(env_id, illegal_action="raise")
    env.reset(seed=0)
    env.reset(options=position_with_an_empty_pit(env))
    return env


# kind -> (build the env, the action, exception, texts of the message)
def rejected_step(env_id: str, kind: str) -> tuple[Callable[[], Any], Any, type, tuple[str, ...]]:
    n_actions = mancala_envs.make(env_id).unwrapped.game.n_actions
    return {
        "float": (lambda: mid_game(env_id), 1.0, TypeError, ("not an integer", f"0..{n_actions - 1}")),
        "out of range": (lambda: mid_game(env_id), n_actions, ValueError, ("out of range", f"0..{n_actions - 1}")),
        "illegal, raise policy": (
            lambda: with_an_illegal_action(env_id),
            0,
            IllegalActionError,
            ("illegal", "action_mask", "illegal_action='penalty'"),
        ),
        "action for a done agent": (lambda: ended_by_penalty(env_id, 0), 0, ValueError, ("None",)),
        "after the end": (lambda: ended_by_penalty(env_id, 2), 0, GameOverError, ("reset()",)),
    }[kind]


STEP_KINDS = ["float", "out of range", "illegal, raise policy", "action for a done agent", "after the end"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kind", STEP_KINDS)
def test_rejected_step_changes_nothing_raw_or_wrapped(env_id: str, kind: str) -> None:
    """Each kind of bad action is refused with the same error through FlattenObservation, and neither the
    env's snapshot nor its random generator moves."""
    build, action, error, texts = rejected_step(env_id, kind)
    raw = assert_rejected(build, lambda env: env.step(action), error, *texts)
    wrapped = assert_rejected(lambda: FlattenObservation(build()), lambda env: env.step(action), error, *texts)
    assert type(wrapped) is type(raw) and str(wrapped) == str(raw)


@pytest.mark.parametrize("env_id", IDS)
def test_penalty_policy_through_the_wrapper_ends_the_game_as_unwrapped(env_id: str) -> None:
    raw, wrapped = mancala_envs.make(env_id), FlattenObservation(mancala_envs.make(env_id))
    for env in (raw, wrapped):
        env.reset(seed=0)
        env.reset(options=position_with_an_empty_pit(env))
        with pytest.warns(UserWarning, match="illegal_action='penalty'"):
            env.step(0)
    assert frozen(wrapped) == frozen(raw)
    assert wrapped.rewards == {"player_0": -1, "player_1": 0}


# --- the wrapper's own arguments --------------------------------------------------------------------------------
class AParallelEnv(ParallelEnv):
    """A stand-in parallel env (FlattenObservation takes AEC envs only)."""

    def __init__(self) -> None:
        self.possible_agents = ["player_0"]


NOT_AEC_ENVS = {
    "int": 42,
    "None": None,
    "env id": "ouril_v0",
    "env class": MancalaEnv,
    "env module": mancala_envs.envs.ouril_v0,
    "env factory": mancala_envs.envs.ouril_v0.env,
}


@pytest.mark.parametrize("thing", list(NOT_AEC_ENVS.values()), ids=list(NOT_AEC_ENVS))
def test_wrapping_what_is_not_an_env_raises_type_error(thing: Any) -> None:
    with pytest.raises(TypeError) as caught:
        FlattenObservation(thing)
    message = str(caught.value)
    assert "AEC environment" in message and "mancala_envs.make('ouril_v0')" in message
    assert type(thing).__name__ in message


def test_wrapping_a_parallel_env_says_to_wrap_before_converting() -> None:
    with pytest.raises(TypeError, match="not a parallel one.*turn_based_aec_to_parallel"):
        FlattenObservation(AParallelEnv())


def test_wrapper_checks_normalize_before_touching_the_env() -> None:
    env = mancala_envs.make("ouril_v0")
    for value in ("yes", None, 1):
        with pytest.raises(TypeError, match="normalize must be True or False"):
            FlattenObservation(env, normalize=value)


# --- agents by name ------------------------------------------------------------------------------------------------
NAMES = sorted(AGENT_NAMES)


@pytest.mark.parametrize("name", ["minimax", "Random", "", " greedy", "random_v0"])
def test_unknown_agent_name_lists_the_names(name: str) -> None:
    with pytest.raises(ValueError) as caught:
        make_agent(name)
    message = str(caught.value)
    assert repr(name) in message and str(NAMES) in message


@pytest.mark.parametrize("name", [None, 1, ["random"], RandomAgent, b"random"], ids=repr)
def test_agent_name_of_the_wrong_type_raises_type_error_listing_the_names(name: Any) -> None:
    with pytest.raises(TypeError) as caught:
        make_agent(name)
    message = str(caught.value)
    assert "agent name must be a string" in message and str(NAMES) in message


@pytest.mark.parametrize("build", [make_agent, lambda name, seed: AGENT_NAMES[name](seed)], ids=["make_agent", "class"])
@pytest.mark.parametrize(
    ("seed", "error", "text"),
    [
        ("7", TypeError, "got str '7'"),
        (1.5, TypeError, "got float 1.5"),
        (True, TypeError, "got bool True"),
        ([1, 2], TypeError, "got list"),
        (np.float64(2.0), TypeError, "got float64"),
        (-1, ValueError, "seed must be None or an integer >= 0 (got -1)"),
        (np.int64(-3), ValueError, "seed must be None or an integer >= 0 (got -3)"),
    ],
    ids=["str", "float", "bool", "list", "numpy float", "negative", "numpy negative"],
)
def test_bad_agent_seed(build: Any, seed: Any, error: type, text: str) -> None:
    for name in NAMES:
        with pytest.raises(error) as caught:
            build(name, seed)
        assert text in str(caught.value) and "None" in str(caught.value)


@pytest.mark.parametrize("seed", [None, 0, 2**70, np.int64(5), np.uint8(1)], ids=repr)
def test_accepted_agent_seeds(seed: Any) -> None:
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    for name in NAMES:
        agent = make_agent(name, seed)
        if name in ("perfect", "pretrained"):  # they need a table or weights (tests/agents/test_perfect_agent.py and
            continue  # tests/agents/test_pretrained.py play them)
        assert env.unwrapped.game.legal_mask(env.unwrapped.state_array)[agent.act(env)]


@pytest.mark.parametrize("agent_class", [RandomAgent, GreedyAgent])
@pytest.mark.parametrize("env", [None, "ouril_v0", {"player_0": 1}], ids=["None", "env id", "dict"])
def test_agent_given_something_else_than_an_env(agent_class: type, env: Any) -> None:
    with pytest.raises(TypeError, match=r"act\(\) needs a mancala_envs environment"):
        agent_class(seed=0).act(env)


# --- the command line ---------------------------------------------------------------------------------------------
CLI_ERRORS = {
    "unknown game": (["demo", "--game", "chess"], "unknown environment 'chess'; choose one of"),
    "empty game": (["demo", "--game", ""], "unknown environment ''"),
    "unknown agent": (["demo", "--agents", "random", "minimax"], f"unknown agent 'minimax'; choose one of {NAMES}"),
    "one agent": (["demo", "--agents", "random"], "argument --agents: expected 2 arguments"),
    "three agents": (["demo", "--agents", "random", "greedy", "random"], "unrecognized arguments: random"),
    "seed not a number": (["demo", "--seed", "x"], "argument --seed: invalid seed 'x'"),
    "fractional seed": (["demo", "--seed", "1.5"], "invalid seed '1.5'"),
    "negative seed": (["demo", "--seed", "-1"], "invalid seed '-1'"),
    "game without a value": (["demo", "--game"], "argument --game: expected one argument"),
    "no command": ([], "the following arguments are required: command"),
    "unknown command": (["unknown-command"], "invalid choice: 'unknown-command'"),
    "unknown option": (["demo", "--bogus"], "unrecognized arguments: --bogus"),
    "list with an argument": (["list", "extra"], "unrecognized arguments: extra"),
}


@pytest.mark.parametrize(("argv", "text"), list(CLI_ERRORS.values()), ids=list(CLI_ERRORS))
def test_cli_bad_input_is_one_error_line_and_status_2(
    argv: list[str], text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, f"one line expected: {err!r}"
    assert err.startswith("mancala-envs: error: ") and "Traceback" not in err
    assert text in err


def test_cli_usage_errors_point_to_the_right_help(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "x"])
    assert "see 'mancala-envs demo --help'" in capsys.readouterr().err
    main(["unknown-command"])
    assert "see 'mancala-envs --help'" in capsys.readouterr().err


def test_cli_help_is_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["demo", "--help"]):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 0
        out, err = capsys.readouterr()
        assert out.startswith("usage: mancala-envs") and err == ""


@pytest.mark.parametrize(
    ("argv", "text"), [CLI_ERRORS["unknown command"], CLI_ERRORS["unknown agent"]], ids=["usage", "runtime"]
)
def test_cli_bad_input_in_a_real_process(argv: list[str], text: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mancala_envs.cli", *argv], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("mancala-envs: error: ")
    assert text in result.stderr and "Traceback" not in result.stderr


def test_cli_output_cut_short_by_the_reader_is_not_a_traceback() -> None:
    """``mancala-envs demo | head -1``: the reader leaves early; the demo stops without a traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mancala_envs.cli", "demo", "--game", "omweso"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) in (0, 1)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


@pytest.mark.parametrize(
    ("arguments", "error", "text"),
    [
        ((["random"], 0), ValueError, "give two agent names"),
        (("random", 0), ValueError, "give two agent names"),
        ((["random", "greedy", "random"], 0), ValueError, "give two agent names"),
        ((["random", "greedy"], "0"), TypeError, "seed must be an integer"),
        ((["random", "greedy"], -2), ValueError, r"seed must be an integer >= 0 \(got -2\)"),
        ((["random", None], 0), TypeError, "agent name must be a string"),
    ],
    ids=["one agent", "a string", "three agents", "seed as str", "negative seed", "agent None"],
)
def test_play_demo_checks_its_arguments_before_playing(arguments: tuple, error: type, text: str) -> None:
    from io import StringIO

    out = StringIO()
    with pytest.raises(error, match=text):
        play_demo("ouril", *arguments, out=out)
    assert out.getvalue() == ""
