"""Tianshou 2 drives the AEC environments through its own ``PettingZooEnv``; ``examples/tianshou_dqn.py`` runs."""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.envs.registration import game_names

pytest.importorskip("tianshou", reason="needs the tianshou extra: pip install 'mancala-envs[tianshou]'")
from tianshou.env import PettingZooEnv

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tianshou_dqn.py"
SEATS = ("player_0", "player_1")


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_tianshou_dqn", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def assert_passes_through(wrapped: dict[str, Any], raw: Any) -> None:
    """Tianshou's observation is the raw env's, for its agent to move, with the mask of our legal moves."""
    agent = raw.agent_selection
    assert wrapped["agent_id"] == agent
    ours = raw.observe(agent)
    np.testing.assert_array_equal(wrapped["obs"], ours["observation"])
    legal = raw.game.legal_actions(raw.state_array).tolist()
    assert [bool(entry) for entry in wrapped["mask"]] == [action in legal for action in range(raw.game.n_actions)]
    assert np.flatnonzero(ours["action_mask"]).tolist() == legal


@pytest.mark.parametrize("game", game_names())  # every game of the list
def test_a_random_game_passes_through_pettingzooenv(game: str) -> None:
    env = PettingZooEnv(mancala_envs.make(game))
    raw = env.env.unwrapped
    assert env.agents == list(SEATS) and env.agent_idx == {"player_0": 0, "player_1": 1}
    assert env.observation_space == raw.observation_space("player_0")  # the Dict: observation + action_mask
    assert env.action_space.n == raw.game.n_actions
    rng = np.random.default_rng(7)
    observation, info = env.reset(seed=7)
    assert info == raw.infos[raw.agent_selection]
    plies = 0
    while True:
        assert_passes_through(observation, raw)
        observation, rewards, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(observation["mask"])))
        )
        plies += 1
        assert rewards == [raw.rewards[seat] for seat in SEATS]
        if terminated or truncated:
            break
        assert rewards == [0, 0]
    assert terminated == raw.terminations[raw.agent_selection] and truncated == raw.truncations[raw.agent_selection]
    winner = raw.infos["player_0"]["winner"]
    expected = [0, 0] if winner is None else [1 if seat == winner else -1 for seat in range(2)]
    assert rewards == expected
    assert plies == raw.infos["player_0"]["ply"]


def test_omweso_mid_turn_choices_go_to_the_same_agent_again() -> None:
    env = PettingZooEnv(mancala_envs.make("omweso_v0"))
    raw = env.env.unwrapped
    rng = np.random.default_rng(0)
    choices = 0
    for seed in range(3):
        observation, _ = env.reset(seed=seed)
        mover = None
        while True:
            pending = re.search(r"pending=(relay|resow):(\d+):", raw.position())
            if pending:  # rule 9: the player who just moved chooses the direction, from own pit k
                choices += 1
                k = int(pending.group(2))
                assert observation["agent_id"] == mover
                assert np.flatnonzero(observation["mask"]).tolist() == [k, 16 + k]
                assert_passes_through(observation, raw)
            mover = observation["agent_id"]
            observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(observation["mask"]))))
            if terminated or truncated:
                break
    assert choices >= 3


def test_the_example_trains_and_evaluates_with_a_tiny_budget(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example()
    args = example.Args(
        steps=400,
        epochs=1,
        num_train_envs=2,
        num_test_envs=2,
        collect_steps=20,
        batch_size=16,
        buffer_size=1000,
        hidden_size=16,
        eval_games=4,
        learner=1,
    )
    start = time.perf_counter()
    result = example.run(args)
    assert time.perf_counter() - start < 60
    assert result["steps"] >= 400 and result["seconds"] > result["update_seconds"] > 0
    assert result["games"] == result["wins"] + result["draws"] + result["losses"] == 4
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        r"trained DQN as player_1 on ouril_v0 against random: \d+ env steps \(\d+ games\) in [\d.]+ s, "
        r"[\d.]+ s of them in updates \(SPS: \d+\)",
        lines[0],
    ), lines[0]
    played = re.fullmatch(
        r"Result: DQN vs random on ouril_v0, (\d+) games: win ([\d.]+)%, draw ([\d.]+)%, loss ([\d.]+)%", lines[1]
    )
    assert played, lines[1]
    assert int(played.group(1)) == 4
    rates = [float(played.group(i)) for i in (2, 3, 4)]
    assert rates == [100 * result[key] / 4 for key in ("wins", "draws", "losses")]


def test_the_example_reads_its_args_from_the_command_line() -> None:
    tyro = pytest.importorskip("tyro", reason="needs the tianshou extra: pip install 'mancala-envs[tianshou]'")
    example = load_example()
    args = tyro.cli(example.Args, args=["--env-id", "mancala/kalah-v0", "--steps", "20000", "--learner", "1"])
    assert (args.env_id, args.steps, args.learner, args.n_step) == ("mancala/kalah-v0", 20000, 1, 2)


def test_the_example_refuses_a_third_seat() -> None:
    example = load_example()
    with pytest.raises(ValueError, match="learner must be 0 or 1"):
        example.run(example.Args(learner=2))
