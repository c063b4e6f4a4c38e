"""The ``pretrained`` agent: exported safetensors weights, their checks, numpy inference, and the agent name.

The weights are exported in the tests from freshly built (untrained) MaskablePPO policies into a temporary
folder that ``MANCALA_ENVS_WEIGHTS`` points at; the tests that build them need the train extra (torch).
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import AGENT_NAMES, make_agent
from mancala_envs.agents.pretrained import (
    ACTIVATIONS,
    FORMAT,
    MANIFEST,
    VERSION,
    MissingWeightsError,
    PretrainedAgent,
    PretrainedPolicy,
    PretrainedWeightsError,
    export_pretrained,
    load_pretrained,
    weights_dir,
    weights_file_name,
)
from mancala_envs.engine.state import PLAYER
from mancala_envs.envs.registration import game_names, make_game
from mancala_envs.games import game_classes

#: The games given weights in the tests, with the encoding each policy reads.
EXPORTED = {"ouril_v0": "flat", "kalah_v0": {"name": "one_hot", "cap": 8}, "modiar_v0": "raw"}


def build_model(env_id: str, encoding: Any, seed: int) -> Any:
    """An untrained MaskablePPO with two hidden layers of 16, its action layer scaled up so that the logits
    of different actions are far apart (no near-ties for float rounding to flip)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    env = MancalaSB3VecEnv(env_id, n_envs=2, encoding=encoding)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16, 16]}, seed=seed, device="cpu")
    with torch.no_grad():
        model.policy.action_net.weight.mul_(100.0)
        model.policy.action_net.bias.normal_(0.0, 0.5)
    return model


@pytest.fixture(scope="module")
def models() -> dict[str, Any]:
    return {env_id: build_model(env_id, encoding, seed) for seed, (env_id, encoding) in enumerate(EXPORTED.items())}


@pytest.fixture(scope="module")
def exported(models: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A weights folder holding the three exported policies and their manifest (not to be changed by tests)."""
    folder = tmp_path_factory.mktemp("weights")
    for env_id, encoding in EXPORTED.items():
        export_pretrained(models[env_id], folder, game=env_id, encoding=encoding, metadata={"seed": "0", "steps": "0"})
    return folder


@pytest.fixture()
def weights(exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the exported folder that a test may change, set as ``MANCALA_ENVS_WEIGHTS``."""
    folder = tmp_path / "weights"
    shutil.copytree(exported, folder)
    monkeypatch.setenv("MANCALA_ENVS_WEIGHTS", str(folder))
    return folder


def positions(env_id: str, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` running states reached by random play (new games as games end)."""
    env = mancala_envs.make(env_id)
    rng = np.random.default_rng(seed)
    states: list[np.ndarray] = []
    env.reset(seed=seed)
    while len(states) < count:
        mover = env.agent_selection
        if env.terminations[mover] or env.truncations[mover]:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        raw = env.unwrapped
        states.append(raw.state_array.copy())
        env.step(int(rng.choice(raw.game.legal_actions(raw.state_array))))
    return states


def observations(game: Any, states: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    pairs = [game.observe_with_mask(state, int(state[PLAYER])) for state in states]
    return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs]).astype(bool)


def rewrite_manifest(folder: Path, **entries: str) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest.update(entries)
    (folder / MANIFEST).write_text(json.dumps(manifest))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- export and load --------------------------------------------------------------------------------------------------
def test_export_writes_the_actor_and_its_metadata(models: dict[str, Any], exported: Path) -> None:
    from safetensors import safe_open
    from safetensors.numpy import load_file

    path = exported / "kalah.safetensors"
    tensors = load_file(path)
    policy = models["kalah_v0"].policy
    assert sorted(tensors) == sorted(
        [
            "policy_net.0.weight",
            "policy_net.0.bias",
            "policy_net.2.weight",
            "policy_net.2.bias",
            "action_net.weight",
            "action_net.bias",
        ]
    )
    for name, tensor in tensors.items():
        module = policy.action_net if name.startswith("action_net") else policy.mlp_extractor.policy_net
        parameter = module.get_parameter(name.split(".", 1)[1])
        assert tensor.dtype == np.float32
        np.testing.assert_array_equal(tensor, parameter.detach().numpy())
    with safe_open(path, framework="np") as file:
        metadata = file.metadata()
    game = make_game("kalah_v0")
    assert metadata == {
        "format": FORMAT,
        "version": VERSION,
        "game": "kalah_v0",
        "game_config": json.dumps({"empty_capture": False, "max_plies": 1000, "pits_per_row": 6, "seeds_per_pit": 4}),
        "encoding": '{"cap": 8, "name": "one_hot"}',
        "activation": "Tanh",
        "observation_size": str(policy.observation_space.shape[0]),
        "n_actions": str(game.n_actions),
        "seed": "0",
        "steps": "0",
    }
    manifest = json.loads((exported / MANIFEST).read_text())
    assert manifest == {
        name: sha256(exported / name) for name in ("kalah.safetensors", "modiar.safetensors", "ouril.safetensors")
    }
    assert (exported / MANIFEST).read_text().endswith("}\n")


def test_load_round_trip_gives_the_exported_arrays(models: dict[str, Any], weights: Path) -> None:
    policy = load_pretrained("ouril_v0")
    torch_policy = models["ouril_v0"].policy
    net = torch_policy.mlp_extractor.policy_net
    expected = [
        (net[0].weight, net[0].bias),
        (net[2].weight, net[2].bias),
        (torch_policy.action_net.weight, torch_policy.action_net.bias),
    ]
    assert isinstance(policy, PretrainedPolicy)
    assert len(policy.layers) == 3
    for (weight, bias), (torch_weight, torch_bias) in zip(policy.layers, expected, strict=True):
        np.testing.assert_array_equal(weight, torch_weight.detach().numpy())
        np.testing.assert_array_equal(bias, torch_bias.detach().numpy())
    assert policy.encoding == "flat" and policy.activation == "Tanh"
    assert policy.metadata["game"] == "ouril_v0" and policy.metadata["seed"] == "0"
    assert (policy.observation_size, policy.n_actions) == (17, 6)
    assert load_pretrained(make_game("ouril_v0")) is policy  # cached per folder, file and SHA-256


def test_export_to_a_file_path_and_the_file_name_rule(models: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()  # a file's folder must exist (export_destination): nothing creates it
    path = export_pretrained(
        models["ouril_v0"], tmp_path / "sub" / "mine.safetensors", game="ouril_v0", encoding="flat"
    )
    assert path == tmp_path / "sub" / "mine.safetensors"
    assert json.loads((tmp_path / "sub" / MANIFEST).read_text()) == {"mine.safetensors": sha256(path)}
    assert weights_file_name("ouril_v0") == "ouril.safetensors"
    path = export_pretrained(models["modiar_v0"], tmp_path / "raw", game="modiar", encoding=None)  # a name; None: raw
    assert path == tmp_path / "raw" / "modiar.safetensors"
    policy = load_pretrained("modiar", tmp_path / "raw")
    assert policy.encoding == "raw" and policy.metadata["game"] == "modiar_v0"
    assert weights_file_name(make_game("rio_kadalis_v0")) == "rio_kadalis.safetensors"


def test_export_refuses_a_wrong_encoding_and_reserved_metadata(models: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"does not have the shape \(113,\) of the .*pass the encoding it was trained with"
    ):
        export_pretrained(models["ouril_v0"], tmp_path, game="ouril_v0", encoding={"name": "one_hot", "cap": 8})
    with pytest.raises(ValueError, match=r"metadata keys \['game'\] are written by export_pretrained itself"):
        export_pretrained(models["ouril_v0"], tmp_path, game="ouril_v0", encoding="flat", metadata={"game": "x"})
    with pytest.raises(TypeError, match=r"metadata must map strings to strings"):
        export_pretrained(models["ouril_v0"], tmp_path, game="ouril_v0", encoding="flat", metadata={"seed": 0})
    with pytest.raises(TypeError, match=r"needs a Stable-Baselines3 MaskablePPO or PPO model"):
        export_pretrained(object(), tmp_path, game="ouril_v0", encoding="flat")
    assert not list(tmp_path.iterdir())


# --- inference --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", sorted(EXPORTED))
def test_logits_equal_the_torch_policy(env_id: str, models: dict[str, Any], weights: Path) -> None:
    import torch

    from mancala_envs.wrappers.encodings import env_encoder

    game = make_game(env_id)
    raw, _ = observations(game, positions(env_id, 50, seed=1))
    encoder = env_encoder(EXPORTED[env_id], game)
    encoded = raw.astype(np.float32) if encoder is None else encoder.encode(raw)
    with torch.no_grad():
        expected = models[env_id].policy.get_distribution(torch.as_tensor(encoded)).distribution.logits.numpy()
    policy = load_pretrained(env_id)
    got = policy.logits(policy.encode(raw))
    assert got.shape == (50, game.n_actions) and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_every_activation_matches_torch(activation: str, tmp_path: Path) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    env = MancalaSB3VecEnv("ouril_v0", n_envs=2, encoding="flat")
    kwargs = {"net_arch": [8], "activation_fn": getattr(torch.nn, activation)}
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, seed=0, device="cpu")
    export_pretrained(model, tmp_path, game="ouril_v0", encoding="flat")
    policy = load_pretrained("ouril_v0", tmp_path)
    assert policy.activation == activation
    game = make_game("ouril_v0")
    raw, _ = observations(game, positions("ouril_v0", 20, seed=6))
    features = policy.encode(raw)
    with torch.no_grad():
        expected = model.policy.get_distribution(torch.as_tensor(features)).distribution.logits.numpy()
    np.testing.assert_allclose(policy.logits(features), expected, rtol=0, atol=1e-5)


@pytest.mark.parametrize("env_id", sorted(EXPORTED))
def test_batched_moves_equal_one_at_a_time(env_id: str, weights: Path) -> None:
    game = make_game(env_id)
    states = positions(env_id, 200, seed=2)
    raw, masks = observations(game, states)
    policy = load_pretrained(env_id)
    batched = policy.act_batch(raw, masks)
    agent = PretrainedAgent(seed=0)
    single = [agent.act_on_state(game, state) for state in states]
    assert batched.dtype == np.int64 and batched.tolist() == single
    scores = np.where(masks, policy.logits(policy.encode(raw)), -np.inf)
    assert batched.tolist() == np.argmax(scores, axis=1).tolist()
    assert masks[np.arange(200), batched].all()


def test_sampled_moves_are_legal_and_reproducible_under_a_seed(weights: Path) -> None:
    game = make_game("ouril_v0")
    states = positions("ouril_v0", 200, seed=3)
    raw, masks = observations(game, states)

    def sampled(seed: int) -> list[int]:
        agent = PretrainedAgent(seed=seed, deterministic=False)
        return [agent.act_on_state(game, state) for state in states]

    first = sampled(7)
    assert first == sampled(7)
    assert first != sampled(8)
    assert masks[np.arange(200), first].all()
    policy = load_pretrained(game)
    draws = policy.act_batch(raw, masks, np.random.default_rng(5), deterministic=False)
    np.testing.assert_array_equal(draws, policy.act_batch(raw, masks, np.random.default_rng(5), deterministic=False))
    assert masks[np.arange(200), draws].all()
    assert (draws != policy.act_batch(raw, masks)).any()  # sampling is not the argmax everywhere
    with pytest.raises(ValueError, match=r"sampling needs a generator"):
        policy.act_batch(raw, masks, deterministic=False)


# --- refusals ---------------------------------------------------------------------------------------------------------
def test_a_changed_byte_is_refused_by_its_sha256(weights: Path) -> None:
    path = weights / "ouril.safetensors"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(
        PretrainedWeightsError, match=r"changed or damaged since it was exported; re-export it or restore the file"
    ):
        load_pretrained("ouril_v0")


def test_a_file_missing_from_the_manifest_is_refused(weights: Path) -> None:
    manifest = json.loads((weights / MANIFEST).read_text())
    del manifest["ouril.safetensors"]
    (weights / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(PretrainedWeightsError, match=r"ouril.safetensors is not listed in .*manifest.json"):
        load_pretrained("ouril_v0")


def test_another_games_file_renamed_into_place_is_refused(weights: Path) -> None:
    shutil.copy(weights / "kalah.safetensors", weights / "ouril.safetensors")
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(weights / "ouril.safetensors")})
    with pytest.raises(PretrainedWeightsError, match=r"holds weights trained on kalah_v0, not ouril_v0"):
        load_pretrained("ouril_v0")


def test_a_variant_config_is_refused(weights: Path) -> None:
    load_pretrained("ouril_v0")  # the cached policy is checked against the asked config too
    for _ in range(2):
        with pytest.raises(
            PretrainedWeightsError,
            match=r"exist only for the config they were trained on, and this game differs: "
            r"pits_per_row=4 \(the weights': 6\)",
        ):
            load_pretrained(make_game("ouril_v0", pits_per_row=4))
    env = mancala_envs.make("ouril_v0", pits_per_row=4)
    env.reset(seed=0)
    with pytest.raises(PretrainedWeightsError, match=r"pits_per_row=4 \(the weights': 6\)"):
        make_agent("pretrained", seed=0).act(env)


def test_missing_weights_list_the_games_that_have_some(weights: Path) -> None:
    message = (
        f"no pretrained weights for urim in {weights} (looked for urim.safetensors; games with weights there: "
        "kalah, modiar, ouril). Train and export some with "
        f"`mancala-envs train --self-play --game urim --export-pretrained {weights}`"
    )
    with pytest.raises(MissingWeightsError) as caught:
        load_pretrained("urim_v0")
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, FileNotFoundError) and isinstance(caught.value, ValueError)
    agent = make_agent("pretrained", seed=0)  # built without weights: refused at its first move in the game
    env = mancala_envs.make("urim_v0")
    env.reset(seed=0)
    with pytest.raises(MissingWeightsError, match=r"no pretrained weights for urim"):
        agent.act(env)


def test_a_garbage_file_with_a_matching_manifest_entry_is_refused(weights: Path) -> None:
    path = weights / "ouril.safetensors"
    path.write_bytes(b"\xff" * 64)
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(PretrainedWeightsError, match=r"is not a safetensors file of pretrained weights"):
        load_pretrained("ouril_v0")


def test_another_format_and_shapes_that_do_not_chain_are_refused(weights: Path) -> None:
    from safetensors import safe_open
    from safetensors.numpy import load_file, save_file

    path = weights / "ouril.safetensors"
    with safe_open(path, framework="np") as file:
        metadata = file.metadata()
    tensors = load_file(path)

    save_file(tensors, path, metadata={**metadata, "format": "something else"})
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(
        PretrainedWeightsError, match=r"is a safetensors file but not pretrained weights of mancala-envs"
    ):
        load_pretrained("ouril_v0")

    save_file(tensors, path, metadata={**metadata, "version": "99"})
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(PretrainedWeightsError, match=r"of version '99'; this mancala-envs reads version '1'"):
        load_pretrained("ouril_v0")

    save_file(tensors, path, metadata={**metadata, "n_actions": "7"})
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(PretrainedWeightsError, match=r"states observation_size 17 and n_actions 7, but its encoding"):
        load_pretrained("ouril_v0")

    save_file({**tensors, "value_net.weight": tensors["action_net.weight"]}, path, metadata=metadata)
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(PretrainedWeightsError, match=r"holds a tensor 'value_net.weight'; a pretrained policy holds"):
        load_pretrained("ouril_v0")

    bad = {**tensors, "policy_net.2.weight": np.zeros((16, 15), np.float32)}
    save_file(bad, path, metadata=metadata)
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(
        PretrainedWeightsError, match=r"layer 1 has weight \(16, 15\) and bias \(16,\), which do not take the 16"
    ):
        load_pretrained("ouril_v0")

    bad = {**tensors, "action_net.weight": np.zeros((5, 16), np.float32), "action_net.bias": np.zeros(5, np.float32)}
    save_file(bad, path, metadata=metadata)
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(PretrainedWeightsError, match=r"ends in 5 logits but the game has 6 actions"):
        load_pretrained("ouril_v0")


def test_a_header_length_past_the_end_is_refused(weights: Path) -> None:
    path = weights / "ouril.safetensors"
    path.write_bytes(struct.pack("<Q", 10**6) + b"{}")
    rewrite_manifest(weights, **{"ouril.safetensors": sha256(path)})
    with pytest.raises(PretrainedWeightsError, match=r"is not a safetensors file"):
        load_pretrained("ouril_v0")


def test_the_default_folder_is_the_packages(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from mancala_envs.agents import pretrained

    monkeypatch.delenv("MANCALA_ENVS_WEIGHTS", raising=False)
    package = Path(pretrained.__file__).parent / "weights"
    assert weights_dir() == package
    manifest = json.loads((package / MANIFEST).read_text())
    assert isinstance(manifest, dict) and all(name.endswith(".safetensors") for name in manifest)
    monkeypatch.setenv("MANCALA_ENVS_WEIGHTS", str(tmp_path))
    assert weights_dir() == tmp_path
    assert weights_dir("elsewhere") == Path("elsewhere")


#: every game of the list ships weights: a game without them fails here
SHIPPED = [game_class.name for game_class in game_classes()]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_game_ships_weights_that_load_and_play(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's own weights: listed with their SHA-256, trained on the game's default config by the
    recorded command, and played by ``pretrained`` to the end of a game against random, legally."""
    from mancala_envs.agents import pretrained

    monkeypatch.delenv("MANCALA_ENVS_WEIGHTS", raising=False)
    package = Path(pretrained.__file__).parent / "weights"
    manifest = json.loads((package / MANIFEST).read_text())
    data = (package / f"{name}.safetensors").read_bytes()
    assert manifest[f"{name}.safetensors"] == hashlib.sha256(data).hexdigest()
    assert len(data) < 400_000  # small: an MLP's weights
    policy = load_pretrained(name)
    assert policy.game.config == make_game(f"{name}_v0").config
    assert policy.metadata["command"].startswith(f"mancala-envs train --game {name}_v0 --self-play ")
    assert policy.metadata["seed"] == "0" and int(policy.metadata["timesteps"]) >= 1_000_000
    env = mancala_envs.make(f"{name}_v0", first_player=0, illegal_action="raise")
    env.reset(seed=3)
    agent, opponent = make_agent("pretrained", seed=0), make_agent("random", seed=1)
    plies = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        mover = agent if env.agent_selection == "player_0" else opponent
        action = mover.act(env)
        assert env.observe(env.agent_selection)["action_mask"][action] == 1
        env.step(action)
        plies += 1
    assert plies > 0


# --- the agent name, wherever agents are named ------------------------------------------------------------------------
def test_pretrained_is_an_agent_name() -> None:
    assert AGENT_NAMES["pretrained"] is PretrainedAgent
    agent = make_agent("pretrained", seed=0)
    assert isinstance(agent, PretrainedAgent) and agent.name == "pretrained" and agent.deterministic


@pytest.mark.parametrize("env_id", game_names())
def test_make_agent_plays_legal_moves_in_every_game_with_weights(env_id: str, weights: Path) -> None:
    env = mancala_envs.make(env_id)
    env.reset(seed=4)
    agent = make_agent("pretrained", seed=0)
    if not (weights / weights_file_name(env_id)).exists():
        with pytest.raises(MissingWeightsError):
            agent.act(env)
        return
    plies = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        raw = env.unwrapped
        action = agent.act(env)
        assert action in raw.game.legal_actions(raw.state_array).tolist()
        env.step(action)
        plies += 1
    assert plies > 0


def test_single_agent_env_plays_against_pretrained(weights: Path) -> None:
    from mancala_envs.views.single_agent_env import SingleAgentEnv

    env = SingleAgentEnv("ouril_v0", opponent="pretrained", learner_seat=1, first_player=0)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    steps = 0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    assert steps > 1 and "illegal" not in str(info.get("end_reason"))


def test_a_tournament_with_pretrained(weights: Path) -> None:
    from mancala_envs.analysis.tournament import run_tournament

    result = run_tournament("ouril", ["pretrained", "random"], games_per_pair=2, seed=0, workers=1, progress=False)
    assert result.agents == ["pretrained", "random"]
    assert len(result.games) == 2
    assert sorted((game.first, game.second) for game in result.games) == [(0, 1), (1, 0)]
    assert all(game.end_reason != "illegal_action" for game in result.games)
    again = run_tournament("ouril", ["pretrained", "random"], games_per_pair=2, seed=0, workers=1, progress=False)
    assert again.games == result.games


def test_the_terminal_game_takes_pretrained(weights: Path) -> None:
    from mancala_envs.cli.terminal_game import play_human

    out = io.StringIO()
    script = iter(["q"])
    final = play_human("ouril", "pretrained", seat=1, input_fn=lambda prompt: next(script), out=out)
    assert final["stopped"] == "quit"
    assert "pretrained is player_0" in out.getvalue()


def test_loading_needs_no_torch(weights: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from mancala_envs.agents.pretrained import load_pretrained\n"
        "policy = load_pretrained('ouril_v0')\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print(policy.n_actions)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6"
