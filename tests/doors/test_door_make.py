"""Building an environment: docs/contract.md, "Building an environment" and the observation wrapper.

Game configs, env options, env ids and the observation wrapper's own arguments: every mistake raises the
documented error naming the option, the bad value and what is allowed."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pettingzoo import ParallelEnv

import mancala_envs
from mancala_envs.envs import ouril_v0, urim_v0
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.games.urim import UrimConfig
from mancala_envs.wrappers import FlattenObservation

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
    ("render_mode", "rgb", "['ansi', 'human', 'rgb_array', 'svg', None]"),
    ("render_mode", 1, "['ansi', 'human', 'rgb_array', 'svg', None]"),
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


# --- strict parsing: configs accept only documented values (config class option, bad value, texts)
CONFIG_CASES: dict[str, tuple[str, str, Any, tuple[str, ...]]] = {
    "trigger as a dict": ("mancala/urim-v0", "trigger", {2: 1}, ("trigger", "list of seed counts")),
    "chain as a dict": ("mancala/urim-v0", "chain", {2: 1, 3: 1}, ("chain", "list of seed counts")),
    "trigger as a set": ("mancala/urim-v0", "trigger", {2, 3}, ("trigger", "list of seed counts")),
    "trigger as a generator": ("mancala/urim-v0", "trigger", (c for c in (2, 3)), ("trigger", "list of seed counts")),
    "trigger as bytes": ("mancala/urim-v0", "trigger", b"\x02\x03", ("trigger", "list of seed counts")),
    "trigger of bools": ("mancala/urim-v0", "trigger", [True], ("trigger", "between 1 and 62")),
}


@pytest.mark.parametrize("case", list(CONFIG_CASES))
def test_config_accepts_only_documented_values(case: str) -> None:
    _env_id, option, value, texts = CONFIG_CASES[case]
    with pytest.raises(ValueError) as caught:
        UrimConfig(**{option: value})
    for text in texts:
        assert text in str(caught.value), str(caught.value)


def test_strict_config_case_count() -> None:
    """The strict config cases (reported with the issue "Untrusted files", item 5)."""
    assert len(CONFIG_CASES) == 6


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
    with pytest.raises(TypeError, match=r"not a parallel one.*turn_based_aec_to_parallel"):
        FlattenObservation(AParallelEnv())


def test_wrapper_checks_normalize_before_touching_the_env() -> None:
    env = mancala_envs.make("ouril_v0")
    for value in ("yes", None, 1):
        with pytest.raises(TypeError, match="normalize must be True or False"):
            FlattenObservation(env, normalize=value)
