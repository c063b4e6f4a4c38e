"""The ladder tables of ``docs/baselines.md`` are what ``docs/update_ladders.py`` writes from the shipped ladders, and
every registered game has its place there."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from mancala_envs.analysis.ladder import load_shipped_ladder

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_ladders", ROOT / "docs" / "update_ladders.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ladder_tables_are_current(script: ModuleType) -> None:
    text = script.PAGE.read_text(encoding="utf-8")
    assert script.render(text) == text, "out of date: run python docs/update_ladders.py"


def test_every_game_has_its_ladder_table(script: ModuleType) -> None:
    text = script.PAGE.read_text(encoding="utf-8")
    assert script.games() == ["ouril", "urim", "modiar", "rio_kadalis", "omweso", "kalah"]
    for game in script.games():
        start, end = script.markers(game)
        assert text.count(start) == 1 and text.count(end) == 1
    start, end = script.markers("modiar")
    assert f"{start}\n{load_shipped_ladder('modiar').markdown()}\n{end}" in text


def test_a_page_without_a_games_markers_is_refused(script: ModuleType) -> None:
    with pytest.raises(
        ValueError, match=r"^baselines.md lacks the markers of the ouril ladder: add\n<!-- ouril ladder"
    ):
        script.render("no markers here")
