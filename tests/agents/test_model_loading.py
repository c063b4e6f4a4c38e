"""Loading saved models without unpickling them (``sb3:PATH`` / ``model:PATH``), and the ``trust_remote_code`` opt-in.

A crafted zip here carries a pickle payload that creates a marker directory when it is unpickled. Loading by default
(``make_agent``, ``make_opponent``, ``SingleAgentEnv``, the CLI) must never create the marker; loading with the
opt-in does, which shows that the payload is live.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="loading saved models needs the train extra: pip install -e '.[train]'")

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

import mancala_envs
from mancala_envs.agents import SB3Agent, make_agent
from mancala_envs.agents.sb3 import (
    METADATA_ENTRY,
    UntrustedModelError,
    load_policy,
    model_metadata,
    save_model,
)
from mancala_envs.cli import main
from mancala_envs.cli.play_command import play_main
from mancala_envs.cli.tournament_command import tournament_main
from mancala_envs.engine.state import PLAYER
from mancala_envs.training.trainer import TrainConfig, train
from mancala_envs.views.opponents import PolicyOpponent, make_opponent, policy_encoder
from mancala_envs.views.single_agent_env import SingleAgentEnv

TINY = {
    "opponent": "random",
    "timesteps": 128,
    "n_envs": 2,
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "progress_bar": False,
    "eval_games": 0,
}
OPT_IN = "trust_remote_code=True"


class _CreatesMarker:
    """Unpickling this object calls ``os.mkdir(marker)``: a stand-in for arbitrary code."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.mkdir, (self.marker,)


def _payload(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(_CreatesMarker(marker))).decode()


def _rewrite(source: Path, target: Path, entries: dict[str, bytes]) -> Path:
    """A copy of the zip ``source`` with some entries replaced (or added)."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for name in original.namelist():
            if name not in entries:
                copy.writestr(name, original.read(name))
        for name, content in entries.items():
            copy.writestr(name, content)
    return target


def _data(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("data"))


def _positions(n_games: int = 4) -> list[np.ndarray]:
    """Engine states of Ouril reached by seeded random play (both players to move, early and late)."""
    env = mancala_envs.make("ouril_v0", first_player=0)
    rng = np.random.default_rng(0)
    states = []
    for seed in range(n_games):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            states.append(env.unwrapped.state_array.copy())
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return states


def _logits(agent: SB3Agent, game: Any, state: np.ndarray) -> torch.Tensor:
    policy = agent.opponent.policy
    observation, _ = game.observe_with_mask(state, int(state[PLAYER]))
    encoded = policy_encoder(game, policy.observation_space, agent.opponent.observation)(observation)
    tensor, _ = policy.obs_to_tensor(encoded)
    with torch.no_grad():
        return policy.get_distribution(tensor).distribution.logits


def _same_play(safe: SB3Agent, full: SB3Agent) -> int:
    """Asserts that two deterministic agents give the same logits and actions on every position; returns the count."""
    game = mancala_envs.make("ouril_v0").unwrapped.game
    positions = _positions()
    for state in positions:
        assert torch.equal(_logits(safe, game, state), _logits(full, game, state))
        assert safe.act_on_state(game, state) == full.act_on_state(game, state)
    return len(positions)


# --- fixtures -----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model saved by ``training.train`` (what ``mancala-envs train`` writes): flat encoding, 64x64 MLP."""
    path = tmp_path_factory.mktemp("trained") / "t.zip"
    train(TrainConfig(save_path=str(path), seed=3, **TINY))
    return path


@pytest.fixture(scope="module")
def plain_ppo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain PPO saved by ``model.save`` (no description): ReLU, separate policy and value layers, raw observation."""
    model = PPO(
        "MlpPolicy",
        SingleAgentEnv("ouril_v0"),
        n_steps=16,
        batch_size=16,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [12, 8], "vf": [5]}, "activation_fn": torch.nn.ReLU},
    )
    path = tmp_path_factory.mktemp("ppo") / "p.zip"
    model.save(path)
    return path


@pytest.fixture()
def marker(tmp_path: Path) -> Path:
    return tmp_path / "payload-ran"


@pytest.fixture()
def poisoned(model_path: Path, tmp_path: Path, marker: Path) -> Path:
    """A real model whose every pickled ``data`` entry is replaced by the payload; the plain-text parts are intact."""
    data = _data(model_path)
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = _payload(marker)
    return _rewrite(model_path, tmp_path / "poisoned.zip", {"data": json.dumps(data).encode()})


@pytest.fixture()
def opaque(model_path: Path, tmp_path: Path, marker: Path) -> Path:
    """A crafted model whose policy class and policy_kwargs exist only as the payload (nothing in plain text)."""
    data = _data(model_path)
    data["policy_class"] = {":type:": "<class 'abc.ABCMeta'>", ":serialized:": _payload(marker)}
    data["policy_kwargs"] = {":type:": "<class 'dict'>", ":serialized:": _payload(marker)}
    return _rewrite(model_path, tmp_path / "opaque.zip", {"data": json.dumps(data).encode()})


# --- models trained here load by default and play as the full load does -------------------------------------------
def test_a_trained_model_carries_its_description(trained: Path) -> None:
    with zipfile.ZipFile(trained) as archive:
        description = json.loads(archive.read(METADATA_ENTRY))
    assert description["format"] == "mancala-envs policy" and description["version"] == 1
    assert description["algorithm"] == "MaskablePPO"
    assert (description["game"], description["encoding"]) == ("ouril_v0", "flat")
    assert description["net_arch"] == {"pi": [64, 64], "vf": [64, 64]} and description["activation"] == "Tanh"
    assert description["observation_space"]["shape"] == [17] and description["n_actions"] == 6
    loaded = load_policy(trained)
    assert not loaded.trusted
    assert (loaded.algorithm, loaded.encoding, loaded.game) == ("MaskablePPO", "flat", "ouril_v0")
    assert MaskablePPO.load(trained, device="cpu").policy.observation_space == loaded.policy.observation_space


def test_a_trained_model_plays_as_the_full_load(trained: Path) -> None:
    safe = make_agent(f"sb3:{trained}", seed=0)
    assert isinstance(safe, SB3Agent) and safe.opponent.observation == "flat"
    full = SB3Agent(trained, seed=0, deterministic=True, trust_remote_code=True)
    safe_deterministic = SB3Agent(trained, seed=0, deterministic=True)
    assert _same_play(safe_deterministic, full) > 50
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=1)
    assert [SB3Agent(trained, seed=7).act(env) for _ in range(2)] == [
        SB3Agent(trained, seed=7, trust_remote_code=True).act(env) for _ in range(2)
    ]  # sampling too: same logits, same generator


def test_a_trained_model_as_opponent_and_in_the_single_agent_env(trained: Path) -> None:
    for spec in (f"model:{trained}", f"sb3:{trained}", str(trained)):
        opponent = make_opponent(spec, seed=0)
        assert isinstance(opponent, PolicyOpponent) and opponent.name == "t" and opponent.observation == "flat"
    env = SingleAgentEnv("ouril_v0", opponent=f"model:{trained}", illegal_action="raise")
    env.reset(seed=0)
    while True:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break


# --- plain Stable-Baselines3 zips load from their plain-text parts -----------------------------------------------
def test_a_plain_maskable_ppo_zip_plays_as_the_full_load(model_path: Path) -> None:
    safe = SB3Agent(model_path, deterministic=True)
    full = SB3Agent(model_path, deterministic=True, trust_remote_code=True)
    assert type(safe.opponent.policy) is type(full.opponent.policy)
    assert _same_play(safe, full) > 50


def test_a_plain_ppo_zip_with_its_own_layers_and_activation(plain_ppo: Path) -> None:
    loaded = load_policy(plain_ppo)
    assert loaded.algorithm == "PPO" and loaded.encoding is None
    assert isinstance(loaded.policy.mlp_extractor.policy_net[1], torch.nn.ReLU)
    assert [
        layer.out_features for layer in loaded.policy.mlp_extractor.policy_net if hasattr(layer, "out_features")
    ] == [12, 8]
    assert (
        _same_play(
            SB3Agent(plain_ppo, deterministic=True), SB3Agent(plain_ppo, deterministic=True, trust_remote_code=True)
        )
        > 50
    )


# --- crafted files: the payload never runs by default ---------------------------------------------------------------
def test_the_payload_is_live_with_the_opt_in(poisoned: Path, marker: Path) -> None:
    with contextlib.suppress(Exception):
        load_policy(poisoned, trust_remote_code=True)
    assert marker.exists()


def test_a_poisoned_model_loads_by_default_without_running_its_payload(poisoned: Path, marker: Path) -> None:
    agent = make_agent(f"sb3:{poisoned}", seed=0)
    opponent = make_opponent(f"model:{poisoned}", seed=0)
    env = SingleAgentEnv("ouril_v0", opponent=f"sb3:{poisoned}")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    game_env = mancala_envs.make("ouril_v0", first_player=0)
    game_env.reset(seed=0)
    assert game_env.observe("player_0")["action_mask"][agent.act(game_env)] == 1
    assert game_env.observe("player_0")["action_mask"][opponent.act(game_env)] == 1
    assert not marker.exists()


@pytest.mark.parametrize("how", ["make_agent", "SB3Agent", "make_opponent", "pool", "load", "single_agent_env"])
def test_an_opaque_model_is_refused_by_default(how: str, opaque: Path, marker: Path) -> None:
    build = {
        "make_agent": lambda: make_agent(f"sb3:{opaque}"),
        "SB3Agent": lambda: SB3Agent(opaque),
        "make_opponent": lambda: make_opponent(f"model:{opaque}"),
        "pool": lambda: make_opponent(["random", str(opaque)]),
        "load": lambda: PolicyOpponent.load(opaque),
        "single_agent_env": lambda: SingleAgentEnv("ouril_v0", opponent=f"sb3:{opaque}"),
    }[how]
    with pytest.raises(UntrustedModelError, match="cannot be loaded without unpickling it: its policy class") as caught:
        build()
    message = str(caught.value)
    assert OPT_IN in message and "--trust-remote-code" in message and "runs any code" in message
    assert isinstance(caught.value, ValueError)
    assert not marker.exists()


def test_a_pickle_inside_the_weights_is_refused(model_path: Path, tmp_path: Path, marker: Path) -> None:
    buffer = io.BytesIO()
    torch.save({"action_net.weight": _CreatesMarker(marker)}, buffer)
    crafted = _rewrite(model_path, tmp_path / "weights.zip", {"policy.pth": buffer.getvalue()})
    with pytest.raises(UntrustedModelError, match=r"its policy.pth holds more than tensors .*trust_remote_code=True"):
        make_agent(f"sb3:{crafted}")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            {"policy_kwargs": {"net_arch": [16], "features_extractor_class": "<class 'my.Extractor'>"}},
            "its policy_kwargs set features_extractor_class",
        ),
        ({"policy_kwargs": {"activation_fn": "<class 'my.Activation'>"}}, "its activation_fn is"),
        (
            {"observation_space": {":type:": "<class 'gymnasium.spaces.dict.Dict'>", ":serialized:": "AA=="}},
            "its observation space is <class 'gymnasium.spaces.dict.Dict'>, not a gymnasium Box",
        ),
        (
            {
                "policy_class": {
                    ":type:": "<class 'abc.ABCMeta'>",
                    "__module__": "my.policies",
                    "__init__": "<function MyPolicy.__init__ at 0x1>",
                    ":serialized:": "AA==",
                }
            },
            "its policy class is my.policies.MyPolicy",
        ),
    ],
)
def test_what_is_not_in_plain_text_is_refused(
    change: dict[str, Any], reason: str, model_path: Path, tmp_path: Path
) -> None:
    data = _data(model_path)
    data.update(change)
    crafted = _rewrite(model_path, tmp_path / "changed.zip", {"data": json.dumps(data).encode()})
    with pytest.raises(UntrustedModelError, match=reason):
        load_policy(crafted)


def test_unknown_parameters_are_refused(model_path: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(model_path) as archive:
        weights = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    weights["features_extractor.cnn.0.weight"] = torch.zeros(2, 2)
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    crafted = _rewrite(model_path, tmp_path / "cnn.zip", {"policy.pth": buffer.getvalue()})
    with pytest.raises(UntrustedModelError, match="parameters that an MLP policy does not have"):
        load_policy(crafted)


def test_a_forged_description_cannot_change_the_weights(trained: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(trained) as archive:
        description = json.loads(archive.read(METADATA_ENTRY))
    description["net_arch"] = {"pi": [8], "vf": [8]}
    crafted = _rewrite(trained, tmp_path / "forged.zip", {METADATA_ENTRY: json.dumps(description).encode()})
    with pytest.raises(UntrustedModelError, match="names the layers"):
        load_policy(crafted)
    description["version"] = 99
    newer = _rewrite(trained, tmp_path / "newer.zip", {METADATA_ENTRY: json.dumps(description).encode()})
    with pytest.raises(ValueError, match="upgrade mancala-envs"):
        load_policy(newer)


# --- the opt-in: a keyword, and loaded objects as opponents -----------------------------------------------------------
def test_a_trusted_load_is_passed_as_an_object(model_path: Path) -> None:
    trusted = PolicyOpponent.load(model_path, trust_remote_code=True)
    env = SingleAgentEnv("ouril_v0", opponent=trusted)
    assert env.opponent is trusted
    agent = make_agent(f"sb3:{model_path}", seed=0, trust_remote_code=True)
    pool_env = SingleAgentEnv("ouril_v0", opponent=[agent, "random"])
    for seed in range(2):
        env.reset(seed=seed)
        pool_env.reset(seed=seed)
    assert make_opponent(f"model:{model_path}", trust_remote_code=True).name == "m"


def test_save_model_refuses_what_a_default_load_cannot_rebuild(tmp_path: Path) -> None:
    model = PPO(
        "MlpPolicy",
        SingleAgentEnv("ouril_v0"),
        n_steps=16,
        batch_size=16,
        device="cpu",
        policy_kwargs={"activation_fn": torch.nn.Hardtanh},
    )
    with pytest.raises(ValueError, match="activation"):
        save_model(model, tmp_path / "h.zip")
    assert not (tmp_path / "h.zip").exists()
    plain = PPO("MlpPolicy", SingleAgentEnv("ouril_v0"), n_steps=16, batch_size=16, device="cpu")
    assert save_model(plain, tmp_path / "p", game="ouril_v0", encoding="raw") == tmp_path / "p.zip"
    assert model_metadata(plain)["algorithm"] == "PPO"
    assert load_policy(tmp_path / "p.zip").encoding == "raw"


# --- the command line ------------------------------------------------------------------------------------------------
def _one_line_error(capsys: pytest.CaptureFixture[str], prog: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"{prog}: error: ") and err.count("\n") == 1
    return err


def test_cli_refuses_an_opaque_model_by_default(opaque: Path, marker: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--agents", f"sb3:{opaque}", "random"]) == 2
    assert "--trust-remote-code" in _one_line_error(capsys, "mancala-envs")
    assert play_main(["ouril", "--opponent", f"sb3:{opaque}"], input_fn=lambda prompt: "q") == 2
    assert "--trust-remote-code" in _one_line_error(capsys, "mancala-envs play")
    assert (
        tournament_main(["--agents", f"sb3:{opaque}", "random", "--games", "2", "--workers", "1", "--no-progress"]) == 2
    )
    assert "--trust-remote-code" in _one_line_error(capsys, "mancala-envs tournament")
    assert (
        main(["train", "--opponent", f"model:{opaque}", "--timesteps", "64", "--eval-games", "0", "--no-progress"]) == 2
    )
    assert "--trust-remote-code" in _one_line_error(capsys, "mancala-envs")
    assert not marker.exists()


def test_cli_plays_a_trained_model_by_default_and_a_plain_one_with_the_opt_in(trained: Path, model_path: Path) -> None:
    assert main(["demo", "--agents", f"sb3:{trained}", "greedy"]) == 0
    assert main(["demo", "--agents", "random", f"sb3:{model_path}", "--trust-remote-code"]) == 0
    assert (
        play_main(["ouril", "--opponent", f"sb3:{model_path}", "--trust-remote-code"], input_fn=lambda prompt: "q") == 0
    )
    assert (
        tournament_main(
            [
                "--agents",
                f"sb3:{trained}",
                "random",
                "--games",
                "2",
                "--workers",
                "1",
                "--no-progress",
                "--trust-remote-code",
            ]
        )
        == 0
    )


@pytest.mark.parametrize("command", ["demo", "train", "play", "tournament"])
def test_every_command_that_loads_agents_offers_the_opt_in(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--trust-remote-code" in help_text and "a crafted file runs any code" in help_text
