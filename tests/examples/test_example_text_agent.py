"""examples/text_agent.py: the scripted text agent reads every game's prompt and is evaluated by the arena."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import mancala_envs
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.views.text_view import TextView

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "text_agent.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_text_agent", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("env_id", [variant.id for variant in VARIANTS])
def test_the_agent_reads_the_board_and_answers_the_fullest_legal_pit(env_id: str) -> None:
    example = load()
    env = mancala_envs.make(env_id, first_player=1)
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(5):
        env.step(int(rng.choice(env.game.legal_actions(env.state_array))))
    if env.game.legal_actions(env.state_array).size == 0:
        pytest.fail(f"{env_id} ended within 5 plies; play fewer")
    view = TextView(env)
    prompt = view.prompt()
    counts = {pit: int(env.board[pit]) for row in env.game.board_rows() for pit in row}
    assert sorted(example.pit_seeds(prompt).values()) == sorted(counts.values())
    player = int(env.agent_selection[-1])
    legal = env.game.legal_actions(env.state_array).tolist()
    best = max(legal, key=lambda action: (counts[env.game.played_pit(player, action)], -action))
    agent = example.MostSeedsAgent(chatter_every=1, mistake_every=1000)
    reply = agent(prompt)
    assert reply == f"Let me think... the fullest pit is best. I'll play **move {best}**."
    assert view.parse(reply) == best


def test_run_plays_a_few_games_with_retries_and_no_forfeit(capsys: pytest.CaptureFixture[str]) -> None:
    example = load()
    result = example.run(example.Args(env_id="mancala/modiar-v0", games=2, opponents=["random"], show_prompt=True))
    (row,) = result.rows
    assert row.games == 2 and row.forfeits == 0
    assert row.retries == row.illegal_replies == row.decisions // 5  # every fifth decision's first answer
    assert row.replies == row.decisions + row.retries
    printed = capsys.readouterr().out
    assert printed.startswith("You are playing Modiar (modiar_v0)")
    assert result.format_table() in printed
    assert f"{row.replies} replies in " in printed


def test_the_script_runs_from_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--env-id", "ouril", "--games", "1", "--opponents", "greedy", "--seed", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("text agent 'most-seeds' on mancala/ouril-v0: 1 game per opponent (first seat),")
    assert lines[3].startswith("greedy ")
