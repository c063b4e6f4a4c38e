"""Bad input: every mistake raises the documented error, says how to fix it, and changes nothing."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import pettingzoo
import pytest

import mancala_envs
from mancala_envs import GameOverError, IllegalActionError
from mancala_envs.envs import ouril_v0, urim_v0
from mancala_envs.envs.registration import VARIANTS

from support.episodes import game_cap, one_game_per_episode

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")


# --- helpers ------------------------------------------------------------------------------------
def snapshot(env: Any) -> dict[str, Any]:
    """Everything a bad input must leave untouched."""
    raw = env.unwrapped
    return {
        "state": raw.state_array,
        "board": raw.board,
        "stores": raw.stores,
        "agent_selection": raw.agent_selection,
        "agents": list(raw.agents),
        "infos": copy.deepcopy(raw.infos),
        "rewards": dict(raw.rewards),
        "cumulative_rewards": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "observations": {agent: raw.observe(agent) for agent in AGENTS},
    }


def assert_unchanged(before: dict[str, Any], env: Any) -> None:
    after = snapshot(env)
    for key in ("state", "board", "stores"):
        assert np.array_equal(before[key], after[key]), f"{key} changed"
    for agent in AGENTS:
        for part in ("observation", "action_mask"):
            assert np.array_equal(before["observations"][agent][part], after["observations"][agent][part])
    for key in ("agent_selection", "agents", "infos", "rewards", "cumulative_rewards", "terminations", "truncations"):
        assert before[key] == after[key], f"{key} changed"


def mid_game(env_id: str, plies: int = 3, **kwargs: Any) -> Any:
    """An env a few plies into a seeded game."""
    env = pettingzoo.make("aec", env_id, **kwargs)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(plies):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    assert env.agents, "the game ended too early for this test"
    return env


def position_with_an_empty_pit(env: Any) -> dict[str, Any]:
    """The opening position with player 0's local pit 0 emptied into pit 1: action 0 is illegal."""
    board = env.unwrapped.board.tolist()
    if sum(board) == 0:  # Omweso's placement setup starts empty: use its outer-row opening
        board = ([4] * 8 + [0] * 8) * 2
    board[1] += board[0]
    board[0] = 0
    return {"board": board, "stores": [0, 0], "player": 0}


def legal_action(env: Any) -> int:
    return int(np.flatnonzero(env.last()[0]["action_mask"])[0])


# --- actions ------------------------------------------------------------------------------------
WRONG_TYPES = {
    "float": 1.0,
    "numpy float": np.float64(1.0),
    "str": "1",
    "None for a live agent": None,
    "bool": True,
    "numpy bool": np.bool_(False),
    "1-d array": np.array([1]),
    "float 0-d array": np.array(1.0),
    "list": [1],
}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("action", list(WRONG_TYPES.values()), ids=list(WRONG_TYPES))
def test_action_of_wrong_type_raises_type_error(env_id: str, action: Any) -> None:
    env = mid_game(env_id)
    before = snapshot(env)
    n_actions = env.unwrapped.game.n_actions
    with pytest.raises(TypeError) as error:
        env.step(action)
    message = str(error.value)
    assert f"0..{n_actions - 1}" in message, f"the message should give the valid actions: {message}"
    assert_unchanged(before, env)
    env.step(legal_action(env))  # the env still works


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("where", ["negative", "n_actions", "far above", "numpy negative"])
def test_action_out_of_range_raises_value_error(env_id: str, where: str) -> None:
    env = mid_game(env_id)
    n_actions = env.unwrapped.game.n_actions
    action = {"negative": -1, "n_actions": n_actions, "far above": 10**9, "numpy negative": np.int64(-2)}[where]
    before = snapshot(env)
    with pytest.raises(ValueError) as error:
        env.step(action)
    assert not isinstance(error.value, IllegalActionError)
    message = str(error.value)
    assert "out of range" in message and f"0..{n_actions - 1}" in message
    legal = np.flatnonzero(env.last()[0]["action_mask"]).tolist()
    assert str(legal) in message, "the message should list the legal actions"
    assert_unchanged(before, env)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(
    "convert",
    [int, np.int8, np.int32, np.int64, np.uint8, lambda a: np.array(a), lambda a: np.array(a, dtype=np.uint16)],
    ids=["int", "int8", "int32", "int64", "uint8", "0-d int64 array", "0-d uint16 array"],
)
def test_accepted_action_forms(env_id: str, convert: Any) -> None:
    reference, env = mid_game(env_id), mid_game(env_id)
    action = legal_action(env)
    reference.step(action)
    env.step(convert(action))
    assert np.array_equal(env.unwrapped.state_array, reference.unwrapped.state_array)
    assert env.agent_selection == reference.agent_selection
    assert env.infos == reference.infos
    assert type(env.infos[AGENTS[0]]["last_move"]["action"]) is int


@pytest.mark.parametrize("env_id", IDS)
def test_illegal_action_raises_when_asked(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id, illegal_action="raise")
    env.reset(seed=0)
    env.reset(options=position_with_an_empty_pit(env))
    assert env.agent_selection == "player_0" and env.last()[0]["action_mask"][0] == 0
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as error:
        env.step(0)
    assert isinstance(error.value, ValueError)
    message = str(error.value)
    legal = np.flatnonzero(env.last()[0]["action_mask"]).tolist()
    assert "illegal" in message and str(legal) in message and "action_mask" in message
    assert_unchanged(before, env)
    env.step(legal[0])  # the env still works
    assert env.agent_selection == "player_1"


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("offender", [0, 1])
def test_illegal_action_penalty_by_default(env_id: str, offender: int) -> None:
    env = pettingzoo.make("aec", env_id)
    env.reset(seed=0)
    position = position_with_an_empty_pit(env)
    if offender == 1:  # mirror the position: player 1's local pit 0 is empty
        half = env.unwrapped.game.n_pits // 2
        position["board"] = position["board"][half:] + position["board"][:half]
    position["player"] = offender
    env.reset(options=position)
    bad, other = AGENTS[offender], AGENTS[1 - offender]
    assert env.agent_selection == bad and env.last()[0]["action_mask"][0] == 0
    board = env.unwrapped.board
    with pytest.warns(UserWarning, match=f"illegal action 0 by {bad}"):
        env.step(0)
    assert np.array_equal(env.unwrapped.board, board), "an illegal action must not move seeds"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {bad: -1, other: 0}
    for agent in AGENTS:
        assert env.infos[agent]["end_reason"] == "illegal_action"
        assert env.infos[agent]["winner"] == 1 - offender
    rewards = {}
    for agent in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        assert terminated and not observation["action_mask"].any()
        rewards[agent] = reward
        env.step(None)
    assert rewards == {bad: -1, other: 0}


@pytest.mark.parametrize("env_id", IDS)
def test_step_after_the_game_ended_raises_game_over(env_id: str) -> None:
    game = mancala_envs.make(env_id).unwrapped.game
    env = pettingzoo.make("aec", env_id, **{game_cap(game)[0]: 2}, **one_game_per_episode(game)[0])
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else legal_action(env))
    assert env.agents == []
    before = env.unwrapped.state_array
    for action in (0, None):
        with pytest.raises(GameOverError, match=r"reset\(\)"):
            env.step(action)
    assert np.array_equal(env.unwrapped.state_array, before)
    env.reset(seed=0)  # reset starts a new game
    env.step(legal_action(env))


# --- configuration --------------------------------------------------------------------------------
# (module, option, bad value, text that the message must contain to say what is allowed)
GAME_CONFIG_ERRORS = [
    (ouril_v0, "pits_per_row", 5, "[6, 4]"),
    (ouril_v0, "pits_per_row", "6", "[6, 4]"),
    (ouril_v0, "pits_per_row", 6.0, "[6, 4]"),
    (ouril_v0, "skip_origin", "never", "['always', 'first_circuit_only']"),
    (ouril_v0, "skip_origin", 1, "['always', 'first_circuit_only']"),
    (ouril_v0, "grand_slam", "sometimes", "['allowed', 'forbidden', 'no_capture']"),
    (ouril_v0, "grand_slam", None, "['allowed', 'forbidden', 'no_capture']"),
    (ouril_v0, "singleton_rule", "never", "['free', 'only_if_all_singletons']"),
    (ouril_v0, "singleton_rule", True, "['free', 'only_if_all_singletons']"),
    (ouril_v0, "win_threshold", 0, ">= 1 and <= 48"),
    (ouril_v0, "win_threshold", 49, ">= 1 and <= 48"),
    (ouril_v0, "win_threshold", "25", "integer"),
    (ouril_v0, "win_threshold", 25.0, "integer"),
    (ouril_v0, "max_plies", 0, ">= 1"),
    (ouril_v0, "max_plies", "1000", "integer"),
    (ouril_v0, "repetition", "yes", "True or False"),
    (ouril_v0, "repetition", 1, "True or False"),
    (urim_v0, "pits_per_row", 5, "[6, 7]"),
    (urim_v0, "pits_per_row", "7", "[6, 7]"),
    (urim_v0, "pits_per_row", 7.0, "[6, 7]"),
    (urim_v0, "seeds_per_pit", 5, "[3, 4]"),
    (urim_v0, "seeds_per_pit", "3", "[3, 4]"),
    (urim_v0, "seeds_per_pit", 3.0, "[3, 4]"),
    (urim_v0, "pit_capacity", 0, ">= 1"),
    (urim_v0, "pit_capacity", 3, "at least 4 or None"),
    (urim_v0, "pit_capacity", "17", "integer"),
    (urim_v0, "trigger", (0,), "between 1 and 62"),
    (urim_v0, "trigger", (), "between 1 and 62"),
    (urim_v0, "trigger", "23", "list of seed counts"),
    (urim_v0, "trigger", (2.5,), "between 1 and 62"),
    (urim_v0, "chain", (2, 63), "between 1 and 62"),
    (urim_v0, "chain", 4, "list of seed counts"),
    (urim_v0, "grand_slam", "maybe", "['allowed', 'forbidden', 'no_capture']"),
    (urim_v0, "grand_slam", 0, "['allowed', 'forbidden', 'no_capture']"),
    (urim_v0, "points_three_quarters", 0, ">= 1 and <= 12"),
    (urim_v0, "points_three_quarters", "2", "integer"),
    (urim_v0, "match_target", 0, ">= 1"),
    (urim_v0, "match_target", True, "integer"),
    (urim_v0, "max_games", 0, ">= 1"),
    (urim_v0, "max_games", 2.5, "integer"),
    (urim_v0, "max_plies", 0, ">= 1"),
    (urim_v0, "max_plies", None, "integer"),
    (urim_v0, "repetition", "no", "True or False"),
    (urim_v0, "repetition", None, "True or False"),
]

ENV_OPTION_ERRORS = [
    ("render_mode", "rgb", "['ansi', 'human', 'rgb_array', None]"),
    ("render_mode", 1, "['ansi', 'human', 'rgb_array', None]"),
    ("first_player", 2, "[0, 1, None]"),
    ("first_player", "0", "[0, 1, None]"),
    ("first_player", True, "[0, 1, None]"),
    ("first_player", 1.0, "[0, 1, None]"),
    ("illegal_action", "ignore", "['penalty', 'raise']"),
    ("illegal_action", None, "['penalty', 'raise']"),
    ("reward_mode", "points", "['win_loss', 'match_points']"),
    ("reward_mode", 1, "['win_loss', 'match_points']"),
]


def check_config_message(message: str, option: str, value: Any, allowed: str) -> None:
    assert option in message, f"the message should name the option: {message}"
    assert repr(value) in message, f"the message should show the bad value: {message}"
    assert allowed in message, f"the message should say what is allowed ({allowed}): {message}"


@pytest.mark.parametrize(
    ("module", "option", "value", "allowed"),
    GAME_CONFIG_ERRORS,
    ids=[f"{m.__name__.rsplit('.', 1)[1]}-{o}={v!r}" for m, o, v, _ in GAME_CONFIG_ERRORS],
)
def test_invalid_game_config_raises_value_error(module: Any, option: str, value: Any, allowed: str) -> None:
    config_class = module.OurilConfig if module is ouril_v0 else module.UrimConfig
    for build in (lambda: module.env(**{option: value}), lambda: config_class(**{option: value})):
        with pytest.raises(ValueError) as error:
            build()
        check_config_message(str(error.value), option, value, allowed)
    with pytest.raises(ValueError):
        mancala_envs.make(module.metadata["name"], **{option: value})


def test_every_config_option_has_a_bad_input_case() -> None:
    for module, config_class in ((ouril_v0, ouril_v0.OurilConfig), (urim_v0, urim_v0.UrimConfig)):
        covered = {option for m, option, _, _ in GAME_CONFIG_ERRORS if m is module}
        assert covered == {field.name for field in dataclasses.fields(config_class)}


@pytest.mark.parametrize("module", [ouril_v0, urim_v0], ids=["ouril", "urim"])
@pytest.mark.parametrize(
    ("option", "value", "allowed"), ENV_OPTION_ERRORS, ids=[f"{o}={v!r}" for o, v, _ in ENV_OPTION_ERRORS]
)
def test_invalid_env_option_raises_value_error(module: Any, option: str, value: Any, allowed: str) -> None:
    with pytest.raises(ValueError) as error:
        module.env(**{option: value})
    check_config_message(str(error.value), option, value, allowed)


@pytest.mark.parametrize("module", [ouril_v0, urim_v0], ids=["ouril", "urim"])
def test_unknown_option_raises_type_error_listing_the_options(module: Any) -> None:
    config_class = module.OurilConfig if module is ouril_v0 else module.UrimConfig
    for build in (
        lambda: module.env(pits_per_rows=6),
        lambda: mancala_envs.make(module.metadata["name"], pits_per_rows=6),
    ):
        with pytest.raises(TypeError) as error:
            build()
        message = str(error.value)
        assert "'pits_per_rows'" in message
        for field in dataclasses.fields(config_class):
            assert field.name in message, f"the message should list {field.name!r}: {message}"


@pytest.mark.parametrize("module", [ouril_v0, urim_v0], ids=["ouril", "urim"])
def test_config_of_the_wrong_class_raises_type_error(module: Any) -> None:
    other = urim_v0.UrimConfig() if module is ouril_v0 else ouril_v0.OurilConfig()
    with pytest.raises(TypeError, match="config must be a"):
        module.env(config=other)


# --- positions in reset options ---------------------------------------------------------------------
def bad_positions(env: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """Bad ``reset`` options of every kind, with the text the error must contain."""
    game = env.unwrapped.game
    board = env.unwrapped.board.tolist()
    if game.name == "omweso" and sum(board) != game.total_seeds:  # seeds being placed, or in hand
        board = ([4] * 8 + [0] * 8) * 2
    negative = list(board)
    negative[1] += negative[0] + 1
    negative[0] = -1
    extra = list(board)
    extra[0] += 1 + sum(env.unwrapped.stores)  # with the default stores [0, 0], one seed too many
    fraction = [float(b) for b in board]
    fraction[0] -= 0.5
    fraction[1] += 0.5
    n_pits = len(board)
    cases = {
        "board too short": ({"board": board[:-1]}, f"{n_pits} entries"),
        "board too long": ({"board": board + [0]}, f"{n_pits} entries"),
        "negative count": ({"board": negative}, "non-negative"),
        "fractional count": ({"board": fraction}, "whole"),
        "not numbers": ({"board": ["x"] * n_pits}, "seed counts"),
        "wrong total": ({"board": extra}, str(env.unwrapped.game.total_seeds)),
        "stores wrong length": ({"board": board, "stores": [0]}, "2 entries"),
        "negative store": ({"board": board, "stores": [-1, 1]}, "non-negative"),
        "player 2": ({"board": board, "player": 2}, "player"),
        "player -1": ({"board": board, "player": -1}, "player"),
        "player as str": ({"board": board, "player": "0"}, "player"),
        "player as bool": ({"board": board, "player": True}, "player"),
        "player as float": ({"board": board, "player": 0.0}, "player"),
    }
    if game.name == "omweso":  # stores are capture tallies; the game's flags can be wrong instead
        cases["turn negative"] = ({"board": board, "turn": -1}, "turn")
        cases["turn as float"] = ({"board": board, "turn": 2.0}, "turn")
        cases["first_capture_done as int"] = ({"board": board, "first_capture_done": 1}, "first_capture_done")
        cases["capturing_turns beyond turn"] = ({"board": board, "turn": 1, "capturing_turns": [1, 1]}, "impossible")
        cases["capturing_turns without a capture"] = (
            {"board": board, "capturing_turns": [1, 0], "first_capture_done": False},
            "impossible",
        )
    else:
        cases["stores break the total"] = (
            {"board": board, "stores": [int(sum(env.unwrapped.stores)) + 1, 0]},
            str(game.total_seeds),
        )
    return cases


@pytest.mark.parametrize("env_id", IDS)
def test_invalid_position_raises_value_error_and_changes_nothing(env_id: str) -> None:
    """Every case of :func:`bad_positions` (built here, on a played env, so that collecting compiles nothing)."""
    env = mid_game(env_id)
    for case, (options, expected_text) in bad_positions(env).items():
        before = snapshot(env)
        for seed in (None, 5):
            with pytest.raises(ValueError) as error:
                env.reset(seed=seed, options=options)
            assert expected_text in str(error.value), f"{case}: {error.value}"
            assert_unchanged(before, env)
    env.step(legal_action(env))  # the game goes on


@pytest.mark.parametrize("env_id", IDS)
def test_invalid_position_does_not_consume_a_random_draw(env_id: str) -> None:
    """A failed reset leaves the generator alone: later unseeded resets draw as if it never happened."""
    tried, untouched = pettingzoo.make("aec", env_id), pettingzoo.make("aec", env_id)
    tried.reset(seed=3)
    untouched.reset(seed=3)
    with pytest.raises(ValueError):
        tried.reset(options={"board": [1, 2, 3]})
    starters = []
    for env in (tried, untouched):
        sequence = []
        for _ in range(24):
            env.reset()
            sequence.append(env.agent_selection)
        starters.append(sequence)
    assert starters[0] == starters[1]


@pytest.mark.parametrize("env_id", IDS)
def test_reset_options_must_be_a_dict(env_id: str) -> None:
    env = mid_game(env_id)
    before = snapshot(env)
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=[("board", [])])
    assert_unchanged(before, env)


# --- registry ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["chess_v0", "mancala/ouril-v9", "mancala/bao-v0", "ouril", ""])
def test_unknown_env_id_raises_value_error_listing_the_ids(env_id: str) -> None:
    with pytest.raises(ValueError) as error:
        mancala_envs.make(env_id)
    message = str(error.value)
    assert repr(env_id) in message
    for known in mancala_envs.list_envs():
        assert known in message


def test_env_id_of_the_wrong_type_raises_type_error() -> None:
    for env_id in (0, None, ("ouril_v0",)):
        with pytest.raises(TypeError, match=r"env id must be a string such as 'ouril_v0'"):
            mancala_envs.make(env_id)
