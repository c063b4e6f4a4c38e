"""AlphaZero-style training (mancala_envs.training.alphazero_training): a tiny run is reproducible bit for bit under
a seed, logs its figures, exports weights the az agent loads, and the command line trains and exports."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from mancala_envs.agents.alphazero import AlphaZeroAgent, load_alphazero
from mancala_envs.training.alphazero_training import AlphaZeroConfig, ReplayBuffer, train_alphazero

TINY = {
    "game": "kalah",
    "game_options": {"pits_per_row": 3, "seeds_per_pit": 2},
    "iterations": 2,
    "games_per_iteration": 4,
    "simulations": 8,
    "hidden": (16,),
    "batch_size": 16,
    "updates_per_iteration": 3,
    "rating_every": 2,
    "rating_games": 2,
    "rating_opponents": ("random", "greedy"),
    "rating_simulations": 4,
}


def _tensors(result) -> dict[str, np.ndarray]:
    return result.network.tensors()


def test_a_short_run_is_reproducible_bit_for_bit() -> None:
    first = train_alphazero(AlphaZeroConfig(seed=5, **TINY))
    second = train_alphazero(AlphaZeroConfig(seed=5, **TINY))
    assert _tensors(first).keys() == _tensors(second).keys() == {
        "trunk.0.weight", "trunk.0.bias", "policy.weight", "policy.bias", "value.weight", "value.bias"
    }  # fmt: skip
    for name, tensor in _tensors(first).items():
        assert tensor.tobytes() == _tensors(second)[name].tobytes(), name
    keys = ("loss/total", "loss/policy", "loss/value", "self_play/plies_per_game", "replay/size")
    assert [[h[k] for k in keys] for h in first.history] == [[h[k] for k in keys] for h in second.history]
    assert first.games == 8
    # another seed trains other weights (so the equality above can fail)
    other = train_alphazero(AlphaZeroConfig(seed=6, **TINY))
    assert _tensors(other)["policy.weight"].tobytes() != _tensors(first)["policy.weight"].tobytes()


def test_figures_ratings_tensorboard_and_export(tmp_path) -> None:
    result = train_alphazero(AlphaZeroConfig(seed=1, tensorboard=str(tmp_path / "tb"), **TINY), export=tmp_path / "w")
    last = result.history[-1]
    assert [h["iteration"] for h in result.history] == [1.0, 2.0]
    assert {"rating/az:4", "rating/random", "rating/greedy", "rating_sigma/az:4"} <= set(last)
    assert (
        0 <= last["rating/score_vs_greedy"] <= 1 and last["rating_sigma/az:4"] < 25 / 3
    )  # sigma shrank from its prior
    assert "rating/az:4" not in result.history[0]  # rated every 2 iterations
    assert last["replay/size"] == sum(4 * h["self_play/plies_per_game"] for h in result.history)
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    assert result.exported == tmp_path / "w" / "kalah_az.safetensors"
    from mancala_envs.games.kalah import Kalah, KalahConfig

    game = Kalah(KalahConfig(pits_per_row=3, seeds_per_pit=2))
    loaded = load_alphazero(game, tmp_path / "w")
    for name, tensor in result.network.tensors().items():
        np.testing.assert_array_equal(loaded.tensors()[name], tensor)
    assert loaded.metadata["iterations"] == "2" and loaded.metadata["seed"] == "1"
    action = AlphaZeroAgent(4, seed=0, folder=tmp_path / "w").act_on_state(game, game.new_state(0))
    assert action in game.legal_actions(game.new_state(0))


def test_replay_buffer_keeps_the_latest_samples() -> None:
    buffer = ReplayBuffer(5)
    buffer.add({"values": np.arange(3, dtype=np.float32)})
    buffer.add({"values": np.arange(3, 7, dtype=np.float32)})
    assert buffer.size == 5
    assert sorted(buffer.arrays["values"].tolist()) == [2.0, 3.0, 4.0, 5.0, 6.0]
    buffer.add({"values": np.arange(10, 22, dtype=np.float32)})
    assert sorted(buffer.arrays["values"].tolist()) == [17.0, 18.0, 19.0, 20.0, 21.0]


def test_the_command_trains_and_exports(tmp_path, capsys) -> None:
    from mancala_envs.cli import main

    code = main([
        "train", "--alphazero", "--game", "kalah", "--iterations", "1", "--games-per-iteration", "2",
        "--simulations", "4", "--updates-per-iteration", "2", "--batch-size", "8", "--net-arch", "8",
        "--rating-every", "0", "--export-pretrained", str(tmp_path / "w"),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code in (0, None)
    assert "Training AlphaZero on kalah_v0: 1 iterations of 2 self-play games at 4 simulations a move" in out
    assert f"exported the weights to {tmp_path / 'w' / 'kalah_az.safetensors'}" in out
    assert load_alphazero("kalah", tmp_path / "w").hidden == [8]


def test_rating_games_count_every_game_and_repeat_under_a_seed() -> None:
    from mancala_envs.games.kalah import Kalah
    from mancala_envs.training.alphazero_training import play_rating_games

    from support.alphazero_weights import tiny_network

    game = Kalah()
    network = tiny_network(game)
    for simulations, opening in ((0, 0), (0, 2), (5, 3)):
        result = play_rating_games(game, network, simulations, "random", 6, 3, opening_plies=opening)
        assert result.wins + result.draws + result.losses == 6 == len(result.scores)
        assert result.points == result.wins + result.draws / 2 == sum(result.scores)
        assert play_rating_games(game, network, simulations, "random", 6, 3, opening_plies=opening) == result
