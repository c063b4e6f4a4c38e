"""``make_from_config``: environments from plain dicts (as YAML files and Hydra give them)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo import AECEnv

import mancala_envs
from mancala_envs import make_from_config
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.wrappers import (
    FlattenObservation,
    GymOneHotObservation,
    GymStackObservation,
    PlanesObservation,
)


def test_pettingzoo_id_gives_the_aec_env_with_options() -> None:
    env = make_from_config({"id": "mancala/omweso-v0", "setup": "two_each", "first_player": 1})
    assert isinstance(env, AECEnv)
    env.reset(seed=0)
    assert env.unwrapped.board.tolist() == [2] * 32
    assert env.agent_selection == "player_1"


def test_game_name_and_variant_options_combine() -> None:
    env = make_from_config({"id": "ouril_v0", "pits_per_row": 4})
    env.reset(seed=0)
    assert env.unwrapped.board.tolist() == [4] * 8


def test_aec_wrappers_apply_in_order() -> None:
    env = make_from_config({"id": "mancala/omweso-v0", "wrappers": [{"name": "planes", "cap": 8}]})
    assert isinstance(env, PlanesObservation)
    env.reset(seed=0)
    observation, *_ = env.last()
    assert observation["observation"].shape[1:] == (4, 8)
    assert observation["action_mask"].shape == (48,)
    flat = make_from_config({"id": "mancala/urim-v0", "wrappers": ["flat"]})
    assert isinstance(flat, FlattenObservation)


def test_gymnasium_id_gives_the_single_agent_view() -> None:
    env = make_from_config(
        {
            "id": "mancala/OurilMini-v0",
            "opponent": "greedy",
            "learner_seat": 1,
            "wrappers": [{"name": "one_hot", "cap": 8}, {"name": "stack", "k": 2}],
        }
    )
    assert isinstance(env, GymStackObservation) and isinstance(env.env, GymOneHotObservation)
    raw = env.unwrapped
    assert isinstance(raw, SingleAgentEnv) and raw.game.row_size == 4 and raw.learner_seat == 1
    assert raw.spec.id == "mancala/OurilMini-v0" and raw.spec.kwargs["opponent"] == "greedy"
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].shape == (4,) and info["learner_seat"] == 1
    assert env.get_wrapper_attr("action_masks")().dtype == bool


def test_pool_opponent_from_a_list() -> None:
    env = make_from_config({"id": "mancala/Urim-v0", "opponent": ["random", "greedy"], "wrappers": ["flat"]})
    env.reset(seed=0)
    names = set()
    for seed in range(12):
        env.reset(seed=seed)
        names.add(env.unwrapped.opponent.name)
    assert names == {"random", "greedy"}


def test_yaml_style_mapping_types_are_accepted() -> None:
    class Mapping(dict):  # e.g. an OmegaConf DictConfig turned into a container
        pass

    env = make_from_config(Mapping(id="mancala/modiar-v0", wrappers=None))
    env.reset(seed=0)
    assert env.unwrapped.board.tolist() == [7] * 6


@pytest.mark.parametrize(
    ("config", "error", "fragment"),
    [
        ([("id", "ouril_v0")], TypeError, "config must be a mapping"),
        ({"setup": "two_each"}, ValueError, "config has no 'id'"),
        ({"id": "mancala/chess-v0"}, ValueError, "config 'id' 'mancala/chess-v0' is not registered"),
        ({"id": "ouril_v0", "colour": "red"}, ValueError, "unknown keys ['colour'] for 'ouril_v0'"),
        ({"id": "mancala/Ouril-v0", "setup": "two_each"}, ValueError, "unknown keys ['setup']"),
        ({"id": "ouril_v0", "opponent": "greedy"}, ValueError, "unknown keys ['opponent']"),
        ({"id": "ouril_v0", "pits_per_row": 5}, ValueError, "pits_per_row"),
        ({"id": "ouril_v0", "wrappers": "flat"}, TypeError, "'wrappers' must be a list"),
        ({"id": "ouril_v0", "wrappers": ["jpeg"]}, ValueError, "unknown wrapper 'jpeg'"),
        ({"id": "ouril_v0", "wrappers": [{"name": "one_hot", "bins": 3}]}, TypeError, "no option 'bins'"),
        ({"id": "mancala/Ouril-v0", "opponent": "wizard"}, ValueError, "unknown agent 'wizard'"),
    ],
)
def test_bad_configs_name_the_problem(config: object, error: type, fragment: str) -> None:
    with pytest.raises(error) as raised:
        make_from_config(config)  # type: ignore[arg-type]
    assert fragment in str(raised.value)


def test_the_error_lists_the_keys_an_id_takes() -> None:
    with pytest.raises(ValueError) as raised:
        make_from_config({"id": "mancala/Omweso-v0", "colour": 1})
    message = str(raised.value)
    for key in ("opponent", "learner_seat", "setup", "first_player", "wrappers", "id"):
        assert repr(key) in message


def test_example_yaml_builds_every_environment() -> None:
    yaml = pytest.importorskip("yaml")
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "configs" / "custom_config.yaml"
    configs = yaml.safe_load(path.read_text())["environments"]
    assert set(configs) == {"omweso_selfplay", "ouril_vs_greedy", "urim_vs_pool"}
    for config in configs.values():
        env = make_from_config(config)
        if isinstance(env, AECEnv):
            env.reset(seed=0)
            observation, *_ = env.last()
            assert np.asarray(observation["observation"]).dtype == np.float32
        else:
            observation, _ = env.reset(seed=0)
            assert env.observation_space.contains(observation)


def test_top_level_exports() -> None:
    assert mancala_envs.make_from_config is make_from_config
    assert len(mancala_envs.list_gymnasium_envs()) == len(mancala_envs.VARIANTS)
