"""The simple agents, the compiled random play and the command line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import GreedyAgent, RandomAgent, make_agent
from mancala_envs.cli import main, play_demo
from mancala_envs.envs.batch import play_random
from mancala_envs.games.ouril import Ouril
from mancala_envs.games.urim import Urim, UrimConfig


@pytest.mark.parametrize("env_id", ["ouril_v0", "urim_v0", "mancala/ouril-mini-v0", "mancala/urim7-v0"])
@pytest.mark.parametrize("agent_name", ["random", "greedy"])
def test_agents_only_play_legal_actions(env_id: str, agent_name: str) -> None:
    env = mancala_envs.make(env_id, illegal_action="raise")
    for game in range(3):
        env.reset(seed=game)
        agent = make_agent(agent_name, seed=game)
        for _name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = agent.act(env)
            assert observation["action_mask"][action] == 1
            env.step(action)


def test_greedy_takes_the_largest_capture() -> None:
    # Urim example U2: local 5 captures 11 seeds; no other move captures anything.
    env = mancala_envs.make("urim_v0")
    env.reset(options={"board": [2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], "stores": [8, 7], "player": 0})
    assert GreedyAgent(seed=0).act(env) == 5


def test_greedy_breaks_ties_with_its_own_seed() -> None:
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0)
    choices = {GreedyAgent(seed=s).act(env) for s in range(100)}
    assert choices == {0, 1, 2, 3, 4, 5}  # no opening move captures: every move ties
    assert GreedyAgent(seed=3).act(env) == GreedyAgent(seed=3).act(env)


def test_random_agent_is_seeded() -> None:
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0)
    first = [RandomAgent(seed=7).act(env) for _ in range(5)]
    assert len(set(first)) == 1
    agent = RandomAgent(seed=7)
    assert len({agent.act(env) for _ in range(40)}) == 6


def test_agents_refuse_a_finished_game() -> None:
    env = mancala_envs.make("urim_v0")
    env.reset(options={"board": [1, 0, 0, 2, 0, 0] + [0] * 6, "stores": [24, 9], "player": 0})
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent(seed=0).act(env)


def test_unknown_agent_name() -> None:
    with pytest.raises(ValueError, match="choose one of"):
        make_agent("minimax")


@pytest.mark.parametrize("game", [Ouril(), Urim(), Urim(UrimConfig(pits_per_row=7, seeds_per_pit=4))])
def test_compiled_random_play_is_deterministic(game) -> None:
    first = play_random(game, 200, seed=5)
    again = play_random(game, 200, seed=5)
    other = play_random(game, 200, seed=6)
    assert first == again
    assert first != other
    assert first.wins[0] + first.wins[1] + first.draws == 200
    assert 0 < first.longest <= game.max_plies
    assert first.plies >= 200 * 10


def test_demo_prints_every_ply_and_the_result() -> None:
    from io import StringIO

    out = StringIO()
    final = play_demo("ouril", ["greedy", "random"], seed=3, out=out)
    text = out.getvalue()
    assert text.count(" sows pit ") == final["ply"]
    assert text.rstrip().splitlines()[-1].startswith("Result: ")
    assert f"scores {final['scores'][0]}-{final['scores'][1]}" in text
    assert sum(final["scores"]) == 48 or final["end_reason"] == "threshold"


def test_cli_bad_input_is_one_line_and_exit_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "nonsense"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mancala-envs: error: unknown environment")
    assert main(["demo", "--agents", "random", "minimax"]) == 2


def test_cli_list_and_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mancala_envs.cli", "list"], capture_output=True, text=True, check=True
    )
    assert "mancala/ouril-mini-v0" in result.stdout
    assert np.all([variant.id in result.stdout for variant in mancala_envs.VARIANTS])
    # Each variant's line names its PettingZoo id, then its Gymnasium id (make / make_vec), then its description.
    lines = result.stdout.splitlines()
    assert lines[0] == "games (mancala_envs.make): " + " ".join(mancala_envs.list_envs()[:6])
    for variant in mancala_envs.VARIANTS:
        (line,) = [line for line in lines if line.split()[:1] == [variant.id]]
        assert line.split()[1] == variant.gymnasium_id
        assert line.endswith(variant.description)
    assert sorted(mancala_envs.list_gymnasium_envs()) == sorted(line.split()[1] for line in lines[3:])
