"""The proof that a game is one folder plus one line in the list of games (issue 31, item 2).

The toy game lives only in the test suite (``tests/support/toy/``: rules, companion, rules page). Adding its
one line to :data:`mancala_envs.games.GAME_MODULES` (:func:`support.seventh_game.add_toy_game`) registers it
everywhere a game is registered, and the suite's own parametrised checks (env API, batch, vector envs, agents,
layout, docs tables, planes) run on it unchanged: no file outside its folder names it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.env_registry.registration import aec_registry

import mancala_envs
from mancala_envs.envs import registration
from mancala_envs.games import GAME_MODULES, game_classes
from mancala_envs.wrappers.encodings import PlanesEncoder

from support.seventh_game import TOY, add_toy_game, remove_toy_game
from support.toy import Toy

#: the games of the list without the toy
GAME_CLASSES = game_classes()
ROOT = Path(__file__).resolve().parents[2]
TOY_FOLDER = ROOT / "tests" / "support" / "toy"
#: the suite's test files whose checks run on the toy: env API, batch, vector envs, agents, layout, docs, planes
CHECKS = [
    "tests/envs/test_api.py",
    "tests/envs/test_env_fast_path.py",
    "tests/envs/test_parallel_api.py",
    "tests/envs/test_batch.py",
    "tests/views/test_vector.py",
    "tests/views/test_two_seat.py",
    "tests/agents/test_search_agents.py",
    "tests/engine/test_layout.py",
    "tests/project/test_generated_tables.py",
    "tests/wrappers/test_planes_board.py",
]


@pytest.fixture
def toy_game() -> Iterator[type[Toy]]:
    """The toy, added to the list of games and registered for the test, then taken out again."""
    add_toy_game()
    try:
        yield Toy
    finally:
        remove_toy_game()


def load_docs_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_tables", ROOT / "docs" / "update_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_line_registers_the_toy_everywhere_a_game_is_registered(toy_game: type[Toy]) -> None:
    assert (*GAME_MODULES, TOY) == mancala_envs.games.GAME_MODULES
    assert game_classes()[-1] is toy_game
    assert registration.game_names()[-1] == "toy_v0"
    assert [variant.id for variant in registration.VARIANTS][-2:] == ["mancala/toy-v0", "mancala/toy-mini-v0"]
    assert registration.list_envs(verbose=True)[-1] == "mancala/toy-mini-v0: Toy on the 2x2 board (T = 16)"
    from mancala_envs.envs import toy_v0  # the public module, made from the list

    assert toy_v0.GAME is toy_game and toy_v0.metadata["name"] == "toy_v0"
    env = mancala_envs.make("toy-mini-v0", first_player=0)
    env.reset(seed=0)
    assert env.observe("player_0")["observation"].tolist() == [4, 4, 4, 4, 0, 0, 1, 0, 0]
    assert pettingzoo.make("aec", "mancala/toy-v0").unwrapped.game.row_size == 3
    single = gymnasium.make("mancala/Toy-v0", opponent="greedy")
    observation, _ = single.reset(seed=1)
    assert observation.shape == (11,)


def test_taking_the_line_out_unregisters_the_toy(toy_game: type[Toy]) -> None:
    remove_toy_game()
    assert mancala_envs.games.GAME_MODULES == GAME_MODULES
    assert "toy_v0" not in registration.game_names()
    assert "mancala/toy-v0" not in aec_registry and "mancala/Toy-v0" not in gymnasium.registry
    assert "mancala_envs.envs.toy_v0" not in sys.modules
    with pytest.raises(ValueError, match=r"unknown environment 'toy_v0'; choose one of \['ouril_v0'"):
        mancala_envs.make("toy_v0")
    assert game_classes() == GAME_CLASSES


def test_the_toys_planes_are_its_declared_board(toy_game: type[Toy]) -> None:
    env = mancala_envs.make("toy_v0")
    env.reset(seed=0)
    encoder = PlanesEncoder(env.game, cap=2)
    assert encoder.space.shape == (2 + 2 + 5, 2, 3)
    planes = encoder.encode(env.observe("player_0")["observation"])
    np.testing.assert_array_equal(planes[encoder.channel_names.index("own_pits")], [[0, 0, 0], [1, 1, 1]])


def test_the_toys_tables_come_from_the_generator(toy_game: type[Toy]) -> None:
    script = load_docs_script()
    assert script.page_of(toy_game) == TOY_FOLDER / "toy.md"
    text = (TOY_FOLDER / "toy.md").read_text(encoding="utf-8")
    assert script.updated_page(text, toy_game) == text
    row = script.games_table(game_classes()).splitlines()[-1]
    assert row.startswith("| **Toy** (`toy_v0`) | `mancala/toy-v0`: Toy, 2x3, 4 seeds per pit (T = 24)")
    assert "[`tests/support/toy/toy.md`](tests/support/toy/toy.md)" in row
    # the committed README has no toy row: a real game's author runs python docs/update_tables.py
    assert script.stale_pages() == ["README.md"]


def test_no_file_outside_the_toys_folder_names_it() -> None:
    """What a game touches: its folder, and the one line that adds it to the list (here in the test suite)."""
    naming = []
    for folder in ("mancala_envs", "docs", "benchmarks", "examples", "wrappers", "tests"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".md", ".toml", ".yaml"} or TOY_FOLDER in path.parents:
                continue
            if re.search(r"\btoy_v0\b|support\.toy\b|mancala/toy-", path.read_text(encoding="utf-8")):
                naming.append(path.relative_to(ROOT).as_posix())
    assert sorted(naming) == ["tests/games/test_toy_game.py", "tests/support/seventh_game.py"]


@pytest.mark.slow
def test_the_suites_parametrised_checks_pass_on_the_toy() -> None:
    """The env, batch, vector, agent, layout, docs-table and planes tests, run with the toy in the list
    (``-p support.seventh_game``), on the toy's ids alone (``-k toy``): every one passes, none is skipped."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "pytest", "-p", "support.seventh_game", "-p", "no:cacheprovider", "-q"]
    command += ["-k", "toy", *CHECKS]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=1800)
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", summary)[1])
    assert passed >= 80 and "skipped" not in summary and "error" not in summary, summary
