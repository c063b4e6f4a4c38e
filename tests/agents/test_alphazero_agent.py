"""The ``az:N`` agent (mancala_envs.agents.alphazero): its weights' export and load, the checks that refuse a bad
file, and legal, reproducible moves with the raw network and with search. Weights live in tmp_path only."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from mancala_envs.agents.alphazero import (
    FORMAT,
    AlphaZeroAgent,
    alphazero_file_name,
    export_alphazero,
    load_alphazero,
)
from mancala_envs.agents.pretrained import MANIFEST, PretrainedWeightsError
from mancala_envs.engine.state import RUNNING, STATUS
from mancala_envs.games.kalah import Kalah, KalahConfig

from support.alphazero_weights import tiny_network, write_tiny_weights


def _rewrite(path, data: bytes) -> None:
    """Writes ``data`` to ``path`` and records its SHA-256 in the manifest (so only the content check can refuse)."""
    import hashlib

    path.write_bytes(data)
    manifest_path = path.parent / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest[path.name] = hashlib.sha256(data).hexdigest()
    manifest_path.write_text(json.dumps(manifest))


def _with_metadata(data: bytes, **changes: str) -> bytes:
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + size])
    header["__metadata__"].update(changes)
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    return struct.pack("<Q", len(encoded)) + encoded + data[8 + size :]


def test_export_and_load_round_trip(tmp_path) -> None:
    game = Kalah()
    path = write_tiny_weights(tmp_path, game)
    assert path == tmp_path / "kalah_az.safetensors" == tmp_path / alphazero_file_name(game)
    loaded = load_alphazero(game, tmp_path)
    for name, tensor in tiny_network(game).tensors().items():
        np.testing.assert_array_equal(loaded.tensors()[name], tensor)
    assert loaded.metadata["format"] == FORMAT and loaded.metadata["seed"] == "0"
    assert loaded.hidden == [16, 16] and loaded.activation == "ReLU"
    assert load_alphazero("kalah", tmp_path) is loaded  # cached per folder, file and SHA-256


@pytest.mark.parametrize("simulations", [0, 1, 25])
def test_az_agent_plays_legal_reproducible_moves(tmp_path, simulations: int) -> None:
    game = Kalah()
    write_tiny_weights(tmp_path, game)
    first = AlphaZeroAgent(simulations, seed=3, folder=tmp_path)
    second = AlphaZeroAgent(simulations, seed=3, folder=tmp_path)
    state = game.new_state(0)
    trace = np.empty(0, np.int64)
    plies = 0
    while state[STATUS] == RUNNING and plies < 40:
        action = first.act_on_state(game, state)
        assert action in game.legal_actions(state)
        assert second.act_on_state(game, state) == action
        game.step(state, action, trace)
        plies += 1
    assert plies == 40 or state[STATUS] != RUNNING


def test_raw_network_plays_the_argmax_of_the_masked_policy(tmp_path) -> None:
    game = Kalah()
    write_tiny_weights(tmp_path, game, seed=4)
    network = load_alphazero(game, tmp_path)
    state = game.new_state(1)
    observation, mask = game.observe_with_mask(state, 1)
    priors, _ = network.evaluate(observation[None], mask[None].astype(bool))
    assert AlphaZeroAgent(0, folder=tmp_path).act_on_state(game, state) == int(np.argmax(priors[0]))


def test_changed_file_is_refused_by_its_sha256(tmp_path) -> None:
    path = write_tiny_weights(tmp_path, Kalah())
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(PretrainedWeightsError, match=r"has SHA-256 .* not the .* of manifest.json: it was changed"):
        load_alphazero(Kalah(), tmp_path)


def test_file_missing_from_the_manifest_is_refused(tmp_path) -> None:
    path = write_tiny_weights(tmp_path, Kalah())
    (tmp_path / MANIFEST).write_text("{}")
    with pytest.raises(PretrainedWeightsError, match=r"is not listed in .*manifest.json, so it cannot be checked"):
        load_alphazero(Kalah(), tmp_path)
    assert path.exists()


def test_pretrained_weights_under_the_az_name_are_refused(tmp_path) -> None:
    path = write_tiny_weights(tmp_path, Kalah())
    _rewrite(path, _with_metadata(path.read_bytes(), format="mancala-envs pretrained"))
    with pytest.raises(PretrainedWeightsError, match=r"not AlphaZero weights of mancala-envs .*--alphazero"):
        load_alphazero(Kalah(), tmp_path)


def test_another_version_is_refused(tmp_path) -> None:
    path = write_tiny_weights(tmp_path, Kalah())
    _rewrite(path, _with_metadata(path.read_bytes(), version="9"))
    with pytest.raises(PretrainedWeightsError, match=r"of version '9'; this mancala-envs reads version '1'"):
        load_alphazero(Kalah(), tmp_path)


def test_weights_of_another_config_are_refused(tmp_path) -> None:
    small = Kalah(KalahConfig(pits_per_row=4, seeds_per_pit=3))
    path = write_tiny_weights(tmp_path, small)
    assert path.name == "kalah_az.safetensors"
    with pytest.raises(PretrainedWeightsError, match=r"exist only for the config they were trained on.*pits_per_row=6"):
        load_alphazero(Kalah(), tmp_path)


def test_non_finite_weights_are_refused(tmp_path) -> None:
    network = tiny_network(Kalah())
    tensors = network.tensors()
    weight = tensors["value.weight"].copy()
    weight[0, 0] = np.nan
    from mancala_envs.agents.alphazero import AlphaZeroNetwork

    with pytest.raises(PretrainedWeightsError, match=r"not finite floats"):
        AlphaZeroNetwork(list(zip([tensors["trunk.0.weight"], tensors["trunk.1.weight"]],
                                  [tensors["trunk.0.bias"], tensors["trunk.1.bias"]], strict=True)),
                         (tensors["policy.weight"], tensors["policy.bias"]), (weight, tensors["value.bias"]), "ReLU",
                         Kalah(), "one_hot")  # fmt: skip
    # in a file too: the load checks every tensor
    path = export_alphazero(network, tmp_path)
    from safetensors.numpy import load, save

    data = path.read_bytes()
    size = struct.unpack("<Q", data[:8])[0]
    metadata = json.loads(data[8 : 8 + size])["__metadata__"]
    changed = {**load(data), "value.weight": weight}
    _rewrite(path, save(changed, metadata=metadata))
    with pytest.raises(PretrainedWeightsError, match=r"value holds values|weight holds values that are not finite"):
        load_alphazero(Kalah(), tmp_path)


def test_wrong_shapes_are_refused(tmp_path) -> None:
    path = write_tiny_weights(tmp_path, Kalah())
    from safetensors.numpy import load, save

    data = path.read_bytes()
    size = struct.unpack("<Q", data[:8])[0]
    metadata = json.loads(data[8 : 8 + size])["__metadata__"]
    tensors = load(data)
    tensors["policy.weight"] = np.zeros((5, 16), np.float32)
    tensors["policy.bias"] = np.zeros(5, np.float32)
    _rewrite(path, save(tensors, metadata=metadata))
    with pytest.raises(PretrainedWeightsError, match=r"ends in 5 logits but the game has 6 actions"):
        load_alphazero(Kalah(), tmp_path)
    del tensors["value.bias"]
    _rewrite(path, save(tensors, metadata=metadata))
    with pytest.raises(PretrainedWeightsError, match=r"has no tensor 'value.bias'"):
        load_alphazero(Kalah(), tmp_path)


@pytest.mark.parametrize("name", ["kalah", "ouril", "urim"])
def test_the_shipped_weights_load_and_play(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's own ``<game>_az.safetensors``: listed with its SHA-256, trained on the default config by the
    recorded command, small, and played by ``az:N`` (raw and with search) to the end of a game, legally."""
    import hashlib
    from pathlib import Path

    from mancala_envs.agents import alphazero
    from mancala_envs.agents.baselines import RandomAgent
    from mancala_envs.envs.registration import make_game

    monkeypatch.delenv("MANCALA_ENVS_WEIGHTS", raising=False)
    package = Path(alphazero.__file__).parent / "weights"
    data = (package / f"{name}_az.safetensors").read_bytes()
    assert json.loads((package / MANIFEST).read_text())[f"{name}_az.safetensors"] == hashlib.sha256(data).hexdigest()
    assert len(data) < 400_000
    network = load_alphazero(name)
    game = make_game(f"{name}_v0")
    assert network.game.config == game.config
    assert network.metadata["command"].startswith(f"mancala-envs train --alphazero --game {name}_v0 --seed 0 ")
    assert int(network.metadata["self_play_games"]) >= 10_000
    for simulations in (0, 20):
        state = game.new_state(0)
        agent, opponent = AlphaZeroAgent(simulations, seed=0), RandomAgent(seed=1)
        trace = np.empty(0, np.int64)
        while state[STATUS] == RUNNING:
            mover = agent if state[0] == 0 else opponent
            action = mover.act_on_state(game, state)
            assert action in game.legal_actions(state)
            game.step(state, action, trace)
