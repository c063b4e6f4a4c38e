"""Configs from Hydra and OmegaConf, and any mapping or sequence, in ``make_from_config``; ``examples/hydra/``.

The tests of OmegaConf objects and of the Hydra app need the ``hydra`` extra; the ones of plain Python
containers (tuples, ``range``, ``MappingProxyType``...) run without it.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

import pytest
from pettingzoo import AECEnv

import mancala_envs
from mancala_envs import make_from_config
from mancala_envs.games import GAME_MODULES
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.wrappers import (
    FlattenObservation,
    GymFlattenObservation,
    GymOneHotObservation,
    GymStackObservation,
    OneHotObservation,
)

APP = Path(__file__).resolve().parents[2] / "examples" / "hydra"
CONF = APP / "conf"
HYDRA_EXTRA = "needs the hydra extra: pip install 'mancala-envs[hydra]'"


def omegaconf() -> ModuleType:
    pytest.importorskip("hydra", reason=HYDRA_EXTRA)
    return pytest.importorskip("omegaconf", reason=HYDRA_EXTRA)


def game_of(env: Any) -> str:
    """The game module's name of an env (``"rio_kadalis"``...), single-agent or AEC."""
    return type(env.unwrapped.game).__module__.rsplit(".", 1)[1]


def assert_urim_pool(env: Any, trigger: tuple[int, ...]) -> None:
    """``env`` is Urim's single-agent view, one-hot and stacked by 2, against a random/greedy pool."""
    assert isinstance(env, GymStackObservation) and isinstance(env.env, GymOneHotObservation)
    raw = env.unwrapped
    assert isinstance(raw, SingleAgentEnv) and raw.spec.id == "mancala/Urim-v0" and raw.learner_seat == 1
    assert raw.game.config.trigger == trigger and raw.game.config.chain == (2, 3, 4)
    assert env.get_wrapper_attr("k") == 2
    # Gymnasium keeps the options in the spec: plain lists, never the caller's containers
    assert raw.spec.kwargs["opponent"] == ["random", "greedy"] and type(raw.spec.kwargs["opponent"]) is list
    assert type(raw.spec.kwargs["trigger"]) is list
    names = set()
    for seed in range(12):
        observation, info = env.reset(seed=seed)
        assert observation.shape == (226,) and info["learner_seat"] == 1
        names.add(raw.opponent.name)
    assert names == {"random", "greedy"}


# --- OmegaConf -------------------------------------------------------------------------------------------------
def test_a_dictconfig_builds_the_exact_env() -> None:
    OmegaConf = omegaconf().OmegaConf
    config = OmegaConf.create(
        {
            "id": "mancala/Urim-v0",
            "opponent": ["random", "greedy"],
            "learner_seat": 1,
            "trigger": [2, 3, 4],
            "wrappers": [{"name": "one_hot", "cap": 8}, {"name": "stack", "k": 2}],
        }
    )
    assert_urim_pool(make_from_config(config), trigger=(2, 3, 4))


def test_the_env_section_of_a_loaded_yaml_file_builds_the_aec_env(tmp_path: Path) -> None:
    OmegaConf = omegaconf().OmegaConf
    path = tmp_path / "config.yaml"
    path.write_text("env:\n  id: mancala/omweso-v0\n  setup: two_each\n  first_player: 1\n  wrappers: [flat]\n")
    env = make_from_config(OmegaConf.load(path).env)  # issue 19: this raised "'wrappers' must be a list"
    assert isinstance(env, FlattenObservation) and game_of(env) == "omweso"
    assert env.unwrapped.game.config.setup == "two_each"
    env.reset(seed=0)
    assert env.unwrapped.board.tolist() == [2] * 32 and env.agent_selection == "player_1"


def test_a_listconfig_of_wrappers_in_a_plain_dict() -> None:
    OmegaConf = omegaconf().OmegaConf
    wrappers = OmegaConf.create([{"name": "one_hot", "cap": 6}])
    env = make_from_config({"id": "mancala/kalah-v0", "wrappers": wrappers})
    assert isinstance(env, OneHotObservation) and game_of(env) == "kalah"
    capped = OneHotObservation(mancala_envs.make("kalah_v0"), cap=6).observation_space("player_0")
    assert env.observation_space("player_0") == capped


def test_interpolations_are_resolved() -> None:
    OmegaConf = omegaconf().OmegaConf
    config = OmegaConf.create({"baseline": "greedy", "env": {"id": "mancala/Ouril-v0", "opponent": "${baseline}"}})
    env = make_from_config(config.env)
    assert env.unwrapped.spec.kwargs["opponent"] == "greedy" and env.unwrapped.opponent.name == "greedy"


@pytest.mark.parametrize(
    ("config", "error", "fragment"),
    [
        ({"id": "ouril_v0", "wrappers": "flat"}, TypeError, "'wrappers' must be a list, such as ['flat'] (got str"),
        ({"id": "ouril_v0", "wrappers": {"name": "flat"}}, TypeError, "'wrappers' must be a list, such as ['flat']"),
        ({"id": "ouril_v0", "wrappers": [["flat"]]}, TypeError, "a wrapper spec must be a name"),
        ({"id": "mancala/Urim-v0", "trigger": "23"}, ValueError, "trigger='23' must be a list of seed counts"),
        ({"id": "ouril_v0", "colour": "red"}, ValueError, "unknown keys ['colour'] for 'ouril_v0'"),
    ],
)
def test_real_type_errors_keep_their_messages_from_omegaconf(config: dict, error: type, fragment: str) -> None:
    OmegaConf = omegaconf().OmegaConf
    with pytest.raises(error) as raised:
        make_from_config(OmegaConf.create(config))
    assert fragment in str(raised.value)


# --- plain Python containers ------------------------------------------------------------------------------------
class Seats(Sequence):
    """A read-only sequence that is neither a list nor a tuple."""

    def __init__(self, *items: Any) -> None:
        self._items = items

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)


def test_tuples_and_a_mapping_proxy_build_the_exact_env() -> None:
    config = MappingProxyType(
        {
            "id": "mancala/Urim-v0",
            "opponent": ("random", "greedy"),
            "learner_seat": 1,
            "trigger": range(2, 5),
            "wrappers": (MappingProxyType({"name": "one_hot", "cap": 8}), MappingProxyType({"name": "stack", "k": 2})),
        }
    )
    assert_urim_pool(make_from_config(config), trigger=(2, 3, 4))


def test_any_sequence_of_wrappers() -> None:
    env = make_from_config({"id": "mancala/Ouril-v0", "opponent": Seats("greedy"), "wrappers": Seats("flat")})
    assert isinstance(env, GymFlattenObservation) and game_of(env) == "ouril"
    assert env.unwrapped.spec.kwargs["opponent"] == ["greedy"]
    observation, _ = env.reset(seed=0)
    assert observation.shape == (17,)
    aec = make_from_config({"id": "mancala/modiar-v0", "wrappers": ()})
    assert isinstance(aec, AECEnv) and not isinstance(aec, FlattenObservation) and game_of(aec) == "modiar"


def test_the_caller_s_config_is_left_as_it_was() -> None:
    wrappers = [{"name": "one_hot", "cap": 8}]
    config = {"id": "mancala/kalah-v0", "wrappers": wrappers}
    make_from_config(config)
    assert config == {"id": "mancala/kalah-v0", "wrappers": [{"name": "one_hot", "cap": 8}]}
    assert config["wrappers"] is wrappers


@pytest.mark.parametrize(
    ("config", "error", "fragment"),
    [
        ((("id", "ouril_v0"),), TypeError, "config must be a mapping"),
        ({"id": "ouril_v0", "wrappers": "flat"}, TypeError, "(got str 'flat')"),
        ({"id": "ouril_v0", "wrappers": b"flat"}, TypeError, "(got bytes b'flat')"),
        ({"id": "ouril_v0", "wrappers": MappingProxyType({"name": "flat"})}, TypeError, "(got dict {'name': 'flat'})"),
        ({"id": "ouril_v0", "wrappers": {"flat"}}, TypeError, "(got set {'flat'})"),
        ({"id": "ouril_v0", "wrappers": 3}, TypeError, "(got int 3)"),
        (
            {"id": "mancala/Urim-v0", "trigger": {2, 3}},
            ValueError,
            "must be a list of seed counts such as [2, 3] (got set)",
        ),
        ({"id": "mancala/Urim-v0", "trigger": ("2", "3")}, ValueError, "must be a non-empty list of seed counts"),
        ({"id": "mancala/Ouril-v0", "opponent": 7}, TypeError, "opponent 7 is not usable"),
    ],
)
def test_plain_type_errors_keep_their_messages(config: Any, error: type, fragment: str) -> None:
    with pytest.raises(error) as raised:
        make_from_config(config)
    assert fragment in str(raised.value)


# --- the Hydra app ------------------------------------------------------------------------------------------------
@pytest.fixture
def compose() -> Iterator[Any]:
    """Hydra's ``compose`` over ``examples/hydra/conf`` (``compose(overrides)`` gives the config)."""
    omegaconf()
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        yield lambda overrides=(): hydra_compose(config_name="config", overrides=list(overrides))


def load_app() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_hydra_train", APP / "train.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_there_is_a_config_file_for_every_game() -> None:
    assert sorted(path.stem for path in (CONF / "game").glob("*.yaml")) == sorted(GAME_MODULES)


@pytest.mark.parametrize("game", GAME_MODULES)
def test_every_game_group_composes_and_builds_that_game(compose: Any, game: str) -> None:
    import yaml

    chosen = yaml.safe_load((CONF / "game" / f"{game}.yaml").read_text())
    cfg = compose([f"game={game}"])
    assert cfg.env.id == chosen["id"] and cfg.env.opponent == "random" and list(cfg.env.wrappers) == ["flat"]
    env = make_from_config(cfg.env)
    assert isinstance(env, GymFlattenObservation) and game_of(env) == game
    raw = env.unwrapped
    assert raw.spec.id == chosen["id"]
    for option, value in chosen.items():
        if option != "id":
            expected = tuple(value) if isinstance(value, list) else value
            assert getattr(raw.game.config, option) == expected, option
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation) and info["action_mask"].any()


def test_command_line_style_overrides_reach_the_env(compose: Any) -> None:
    cfg = compose(
        [
            "game=urim",
            "env.opponent=[random,greedy]",
            "env.learner_seat=1",
            "env.trigger=[2,3,4]",
            "env.wrappers=[{name: one_hot, cap: 8}, {name: stack, k: 2}]",
        ]
    )
    assert_urim_pool(make_from_config(cfg.env), trigger=(2, 3, 4))


def test_the_app_runs_in_process(compose: Any, capsys: pytest.CaptureFixture[str]) -> None:
    app = load_app()
    result = app.run(compose(["game=modiar", "env.learner_seat=0", "run.episodes=4"]), game="modiar")
    assert result["env_id"] == "mancala/Modiar-v0" and result["learner"] == "greedy"
    assert [(row.seat, row.games) for row in result["rows"]] == [("player_0", 4), ("player_1", 0), ("both", 4)]
    assert result["steps"] > 0 and result["steps_per_second"] > 0
    output = capsys.readouterr().out
    assert "game modiar: mancala/Modiar-v0 {'learner_seat': 0, 'first_player': 0, 'max_plies': 1000, " in output


def test_the_app_trains_maskable_ppo_first_when_asked(compose: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib", reason="train.steps > 0 needs the train extra")
    app = load_app()
    cfg = compose(["game=kalah", "train.steps=64", "train.n_steps=64", "train.batch_size=32", "run.episodes=2"])
    result = app.run(cfg, game="kalah")
    assert result["learner"] == "MaskablePPO" and result["rows"][-1].games == 2
    assert re.search(r"^trained MaskablePPO for 64 steps in [\d.]+ s \(SPS: \d+\)$", capsys.readouterr().out, re.M)


def test_the_app_refuses_a_pettingzoo_id(compose: Any) -> None:
    app = load_app()
    with pytest.raises(ValueError, match="use a Gymnasium id such as mancala/Ouril-v0"):
        app.run(compose(["env.id=mancala/ouril-v0"]))


def test_the_app_runs_from_the_command_line_with_an_override(tmp_path: Path) -> None:
    omegaconf()
    run_dir = tmp_path / "run"
    completed = subprocess.run(
        [
            sys.executable,
            str(APP / "train.py"),
            "game=kalah",
            "env.opponent=greedy",
            "run.episodes=6",
            f"hydra.run.dir={run_dir}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    # Hydra routes logging to stdout as "[time][logger][LEVEL] - message" lines: numba's one-time compile
    # notice is one of them where the game is not in numba's cache yet. The app's own lines are the others.
    lines = [line for line in completed.stdout.splitlines() if not line.startswith("[")]
    assert lines[0] == (
        "game kalah: mancala/Kalah-v0 {'learner_seat': None, 'first_player': 0, 'pits_per_row': 6, "
        "'seeds_per_pit': 4, 'empty_capture': False}"
    )
    assert lines[1] == "opponent 'greedy', wrappers ['flat'], observation Box(0.0, 1.0, (17,), float32)"
    assert lines[2].startswith("learner greedy: 6 episodes, ")
    header, _, first, second, both = lines[3:8]
    assert header.split() == ["seat", "games", "wins", "draws", "losses", "win", "rate", "[95%", "CI]"]
    counts = [list(map(int, line.split()[1:5])) for line in (first, second, both)]
    assert [first.split()[0], second.split()[0], both.split()[0]] == ["player_0", "player_1", "both"]
    assert counts[2] == [a + b for a, b in zip(counts[0], counts[1], strict=True)] and counts[2][0] == 6
    assert all(games == wins + draws + losses for games, wins, draws, losses in counts)
    assert (run_dir / ".hydra" / "config.yaml").is_file() and not (tmp_path / "outputs").exists()
