"""The refusals of the AlphaZero pieces (az agent, batched search, training config and export): each names the
problem and the fix, and nothing is half-done. Weights live in tmp_path only."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from mancala_envs.agents.alphazero import AlphaZeroAgent, load_alphazero
from mancala_envs.agents.pretrained import MANIFEST, MissingWeightsError, PretrainedWeightsError
from mancala_envs.algorithms.batched_mcts import MAX_SIMULATIONS, BatchedMCTS, uniform_evaluator
from mancala_envs.games.kalah import Kalah
from mancala_envs.games.ouril import Ouril

from support.alphazero_weights import write_tiny_weights


@pytest.mark.parametrize(
    ("simulations", "error", "text"),
    [
        (-1, ValueError, "simulations must be from 0 to 100000, as in 'az:100' (got -1)."),
        (MAX_SIMULATIONS + 1, ValueError, "simulations must be from 0 to 100000, as in 'az:100' (got 100001)."),
        (1.5, TypeError, "simulations must be an integer from 0 to 100000 (got 1.5)."),
        ("8", TypeError, "simulations must be an integer from 0 to 100000 (got '8')."),
        (True, TypeError, "simulations must be an integer from 0 to 100000 (got True)."),
    ],
)
def test_az_agent_refuses_bad_simulations(simulations: object, error: type[Exception], text: str) -> None:
    with pytest.raises(error) as caught:
        AlphaZeroAgent(simulations)  # type: ignore[arg-type]
    assert str(caught.value) == text


@pytest.mark.parametrize("c_puct", [0, -1.0, float("inf"), float("nan"), "1.5", True])
def test_az_agent_refuses_bad_c_puct(c_puct: object) -> None:
    with pytest.raises(ValueError, match=r"c_puct must be a positive finite number such as 1\.5"):
        AlphaZeroAgent(10, c_puct=c_puct)  # type: ignore[arg-type]


def test_az_agent_refuses_a_folder_that_is_not_a_path() -> None:
    with pytest.raises(TypeError, match=r"folder must be a path or None \(got int\)"):
        AlphaZeroAgent(10, folder=3)  # type: ignore[arg-type]


def test_missing_weights_name_the_training_command(tmp_path) -> None:
    write_tiny_weights(tmp_path, Kalah())  # kalah has weights, ouril has none
    agent = AlphaZeroAgent(5, folder=tmp_path)
    game = Ouril()
    with pytest.raises(MissingWeightsError) as caught:
        agent.act_on_state(game, game.new_state(0))
    message = str(caught.value)
    assert f"no AlphaZero weights for ouril in {tmp_path} (looked for ouril_az.safetensors" in message
    assert "games with weights there: kalah)" in message
    assert f"`mancala-envs train --alphazero --game ouril --export-pretrained {tmp_path}`" in message
    assert isinstance(caught.value, FileNotFoundError)


def test_weights_of_another_game_are_refused(tmp_path) -> None:
    source = write_tiny_weights(tmp_path, Kalah())
    shutil.copy(source, tmp_path / "ouril_az.safetensors")
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    manifest["ouril_az.safetensors"] = manifest["kalah_az.safetensors"]
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(PretrainedWeightsError) as caught:
        load_alphazero(Ouril(), tmp_path)
    message = str(caught.value)
    assert "holds weights trained on kalah_v0, not ouril_v0; restore the file of ouril" in message
    assert "`mancala-envs train --alphazero --game ouril --export-pretrained FOLDER`" in message


def test_batched_search_refuses_bad_states_and_answers() -> None:
    game = Kalah()
    search = BatchedMCTS(game, 4)
    with pytest.raises(ValueError, match=r"states must be an \(N, 44\) int64 array of kalah_v0 states"):
        search.run(game.new_state(0), uniform_evaluator(game))
    finished = game.new_state(0)[None].copy()
    finished[0, 2] = 1  # STATUS: terminated
    with pytest.raises(ValueError, match="every state searched must be a running game with a legal move"):
        search.run(finished, uniform_evaluator(game))
    with pytest.raises(ValueError, match=r"the evaluator must return priors of shape \(1, 6\) and values of shape"):
        search.run(game.new_state(0)[None], lambda observations, masks: (np.ones((1, 5)), np.zeros(1)))
    with pytest.raises(ValueError, match=r"noise must have shape \(1, 6\), one row per state"):
        search.run(game.new_state(0)[None], uniform_evaluator(game), np.ones((2, 6)))
    with pytest.raises(TypeError, match="game must be a mancala_envs Game"):
        BatchedMCTS("kalah", 4)  # type: ignore[arg-type]


def test_training_config_refusals_and_export_checked_before_training(tmp_path) -> None:
    pytest.importorskip("torch")
    from mancala_envs.training.alphazero_training import AlphaZeroConfig, train_alphazero

    with pytest.raises(ValueError, match=r"iterations must be an integer >= 1 \(got 0\)"):
        AlphaZeroConfig(iterations=0)
    with pytest.raises(ValueError, match=r"simulations must be from 1 to 100000"):
        AlphaZeroConfig(simulations=0)
    with pytest.raises(ValueError, match=r"hidden must be one or more layer widths from 1 to 2048"):
        AlphaZeroConfig(hidden=())
    with pytest.raises(ValueError, match=r"max_seconds must be a positive number of seconds or None"):
        AlphaZeroConfig(max_seconds=0)
    missing = tmp_path / "no" / "such" / "folder"
    with pytest.raises(ValueError, match="does not exist; create it first"):
        train_alphazero(AlphaZeroConfig(iterations=1, games_per_iteration=1, simulations=1), export=missing)
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("minutes", ["0", "-1", "inf"])
def test_train_alphazero_refuses_a_bad_time_budget_before_training(minutes: str, capsys, tmp_path) -> None:
    pytest.importorskip("torch")
    from mancala_envs.cli import main

    code = main(["train", "--alphazero", "--max-minutes", minutes, "--export-pretrained", str(tmp_path / "w")])
    captured = capsys.readouterr()
    assert code == 2
    assert f"--max-minutes must be a positive number of minutes, as 25 (got {float(minutes)})." in captured.err
    assert "Training AlphaZero" not in captured.out and not (tmp_path / "w").exists()
