"""Observation wrappers (``mancala_envs.wrappers``), over every registered id, and how they are installed."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv

import mancala_envs
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.wrappers import FlattenObservation

from support.pettingzoo_checks import api_test, only_dict_observation_warnings

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")
DISTRIBUTION = "mancala-envs"


def play_checking(wrapped: Any, seed: int, check: Any) -> int:
    """Plays a seeded random game on ``wrapped``, calling ``check(agent)`` before every step."""
    wrapped.reset(seed=seed)
    rng = np.random.default_rng(seed)
    plies = 0
    for agent in wrapped.agent_iter():
        check(agent)
        observation, _, terminated, truncated, _ = wrapped.last()
        if terminated or truncated:
            wrapped.step(None)
            continue
        wrapped.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        plies += 1
    return plies


# --- FlattenObservation ---------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_flat_observation_is_the_raw_observation_cast(env_id: str) -> None:
    wrapped = FlattenObservation(pettingzoo.make("aec", env_id))
    raw = wrapped.unwrapped
    size = len(raw.game.observation_names())

    def check(_: str) -> None:
        for agent in AGENTS:
            flat, inner = wrapped.observe(agent), raw.observe(agent)
            assert set(flat) == {"observation", "action_mask"}
            assert flat["observation"].dtype == np.float32 and flat["observation"].shape == (size,)
            assert np.array_equal(flat["observation"], inner["observation"].astype(np.float32))
            assert flat["action_mask"].dtype == np.int8
            assert np.array_equal(flat["action_mask"], inner["action_mask"])
            assert wrapped.observation_space(agent).contains(flat)

    assert play_checking(wrapped, 0, check) > 0


@pytest.mark.parametrize("env_id", IDS)
def test_normalized_observation_lies_in_unit_interval_and_in_its_space(env_id: str) -> None:
    wrapped = FlattenObservation(pettingzoo.make("aec", env_id), normalize=True)
    raw = wrapped.unwrapped
    high = raw.observation_space("player_0")["observation"].high.astype(np.float32)
    seen_max = np.zeros_like(high)

    def check(_: str) -> None:
        for agent in AGENTS:
            flat, inner = wrapped.observe(agent), raw.observe(agent)
            values = flat["observation"]
            assert values.dtype == np.float32
            assert np.all(values >= 0) and np.all(values <= 1), values
            assert wrapped.observation_space(agent).contains(flat), values
            expected = inner["observation"].astype(np.float32) / np.where(high > 0, high, 1)
            np.testing.assert_allclose(values, expected, rtol=1e-6)
            assert np.array_equal(flat["action_mask"], inner["action_mask"])
            np.maximum(seen_max, values, out=seen_max)

    play_checking(wrapped, 1, check)
    assert seen_max.max() > 0.5, "normalisation squashed every entry towards 0"
    box = wrapped.observation_space("player_0")["observation"]
    assert box.dtype == np.float32 and np.all(box.low == 0) and np.all(box.high <= 1)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("normalize", [False, True])
def test_wrapped_env_passes_pettingzoo_api_test(env_id: str, normalize: bool) -> None:
    wrapped = FlattenObservation(pettingzoo.make("aec", env_id), normalize=normalize)
    game = wrapped.unwrapped.game
    cycles = game.max_episode_plies + 10
    with only_dict_observation_warnings():
        api_test(wrapped, num_cycles=cycles)


@pytest.mark.parametrize("env_id", IDS)
def test_wrapper_spaces_are_built_once_and_keep_the_mask_space(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id)
    wrapped = FlattenObservation(env)
    built = {agent: wrapped.observation_space(agent) for agent in AGENTS}
    wrapped.reset(seed=0)
    for agent in AGENTS:
        space = wrapped.observation_space(agent)
        assert space is built[agent]
        assert isinstance(space, spaces.Dict)
        assert space["action_mask"] is env.observation_space(agent)["action_mask"]
        inner = env.observation_space(agent)["observation"]
        assert space["observation"].shape == inner.shape
        assert np.array_equal(space["observation"].low, inner.low.astype(np.float32))
        assert np.array_equal(space["observation"].high, inner.high.astype(np.float32))
        assert wrapped.action_space(agent) is env.action_space(agent)


def test_wrapper_forwards_reset_step_and_render() -> None:
    env = mancala_envs.make("ouril_v0", render_mode="ansi", first_player=0)
    wrapped = FlattenObservation(env)
    wrapped.reset(seed=0)
    wrapped.step(2)
    assert env.agent_selection == wrapped.agent_selection == "player_1"
    assert wrapped.render() == env.render()
    assert wrapped.unwrapped is env.unwrapped


def test_wrapper_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError, match="normalize must be True or False"):
        FlattenObservation(mancala_envs.make("ouril_v0"), normalize=1)

    class BoxObservationEnv(AECEnv):
        metadata: ClassVar[dict[str, Any]] = {"name": "box_v0"}
        possible_agents: ClassVar[list[str]] = ["player_0"]

        def observation_space(self, agent: str) -> spaces.Space:
            return spaces.Box(0, 1, (3,))

        def action_space(self, agent: str) -> spaces.Space:
            return spaces.Discrete(2)

    with pytest.raises(TypeError, match="Dict observation space"):
        FlattenObservation(BoxObservationEnv())


# --- installation ----------------------------------------------------------------------------------
def test_wrappers_import_as_part_of_the_package() -> None:
    module = importlib.import_module("mancala_envs.wrappers")
    assert module.__name__ == "mancala_envs.wrappers"
    assert module.FlattenObservation is FlattenObservation
    assert importlib.import_module("mancala_envs.wrappers.flatten").FlattenObservation is FlattenObservation
    assert "FlattenObservation" in module.__all__


def test_no_top_level_wrappers_module_is_installed(tmp_path: Path) -> None:
    """What the installed distribution provides, seen from outside the repository.

    pytest runs from the repository root, where ``wrappers/`` is importable as a plain folder; a
    fresh interpreter in isolated mode (``-I``: no current directory and no PYTHONPATH on
    ``sys.path``), started in an empty directory, sees only what is installed. It must find
    ``mancala_envs.wrappers`` and no top-level ``wrappers``, whether the install is a wheel
    (``site-packages/wrappers``) or editable (a mapping in setuptools' editable finder).
    """
    probe = (
        "import importlib.util, json\n"
        "import mancala_envs.wrappers\n"
        "print(json.dumps({'top': importlib.util.find_spec('wrappers') is not None,\n"
        "                  'name': mancala_envs.wrappers.__name__,\n"
        "                  'flatten': mancala_envs.wrappers.FlattenObservation.__module__}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found == {"top": False, "name": "mancala_envs.wrappers", "flatten": "mancala_envs.wrappers.flatten"}


def test_distribution_declares_no_top_level_wrappers(tmp_path: Path) -> None:
    """The installed distribution's metadata: no ``wrappers`` top-level name, file or editable mapping.

    Read from a fresh isolated interpreter outside the repository: run from the repository root,
    ``importlib.metadata`` would find the source tree's ``mancala_envs.egg-info`` instead, whose
    SOURCES.txt lists ``wrappers/...`` source paths.
    """
    probe = (
        "import importlib.metadata, json\n"
        f"dist = importlib.metadata.distribution({DISTRIBUTION!r})\n"
        "finders = [f for f in dist.files or []\n"
        "           if f.name.startswith('__editable__') and f.name.endswith('_finder.py')]\n"
        "print(json.dumps({'top_level': dist.read_text('top_level.txt'),\n"
        "                  'files': [str(f) for f in dist.files or []],\n"
        "                  'finders': [f.read_text() for f in finders]}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    if found["top_level"] is not None:
        assert "wrappers" not in found["top_level"].split(), f"top_level.txt lists wrappers: {found['top_level']!r}"
    installed_as_top_level = [f for f in found["files"] if f.split("/")[0] == "wrappers"]
    assert not installed_as_top_level, f"files installed under a top-level wrappers/: {installed_as_top_level}"
    for finder in found["finders"]:  # an editable install maps top-level names to source folders
        assert "'wrappers':" not in finder and '"wrappers":' not in finder, "the editable finder maps 'wrappers'"
        assert "mancala_envs.wrappers" in finder
