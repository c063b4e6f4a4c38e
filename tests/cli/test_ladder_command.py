"""``mancala-envs ladder``: placing an agent (the ladder with it inserted, its scores, the time), printing a ladder,
``--json``, and ``--build --out``; the ladders are the tiny Kalah's, built or written in tmp_path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mancala_envs.analysis.ladder import Ladder, build_ladder, load_shipped_ladder
from mancala_envs.cli import SUBCOMMANDS, main

from support.ladder_files import TINY, TINY_OPTIONS, write_ladder


@pytest.fixture(scope="module")
def ladder_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as patch:  # no table for alphabeta:2's leaves, as in every test
        patch.setenv("MANCALA_ENVS_TABLES", str(tmp_path_factory.mktemp("no-tables")))
        ladder = build_ladder("kalah", ["random", "greedy", "alphabeta:2"], games_per_pair=20, workers=1, **TINY)
    return ladder.save(tmp_path_factory.mktemp("ladder") / "tiny.json")


def test_ladder_is_a_subcommand() -> None:
    assert "ladder" in SUBCOMMANDS and SUBCOMMANDS["ladder"].help.startswith("place an agent on a game's strength")


def test_placing_an_agent_prints_the_ladder_with_it_inserted(
    ladder_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "placement.json"
    argv = ["ladder", "greedy", "--game", "kalah", "--ladder", str(ladder_file), "--games", "6", "--workers", "1",
            "--no-progress", "--no-regret", "--json", str(out_json), *TINY_OPTIONS]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "kalah_v0 ladder (20 games per pair, seed 0; Elo, random = 0)"
    inserted = [line for line in lines if line.startswith(">> ")]
    assert len(inserted) == 1 and inserted[0].startswith(">> greedy (placed)")
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert f"greedy (placed): {data['elo']:.0f} Elo [{data['elo_low']:.0f}, {data['elo_high']:.0f}] (random = 0)" in out
    for anchor in ("random", "greedy", "alphabeta:2"):
        assert re.search(rf"^  {re.escape(anchor)} +\d+ W +\d+ D +\d+ L  score ", out, re.MULTILINE)
    assert re.search(r"^Placed in \d+\.\d s \(18 ladder games\)$", out, re.MULTILINE)
    assert f"Wrote {out_json}" in out
    assert "Regret: not measured (regret=False)" in out
    assert [score["games"] for score in data["scores"]] == [6, 6, 6]


def test_the_regret_is_printed_where_the_game_is_solved(
    ladder_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(tmp_path))
    argv = ["ladder", "greedy", "--game", "kalah", "--ladder", str(ladder_file), "--games", "2", "--workers", "1",
            "--no-progress", *TINY_OPTIONS]  # fmt: skip
    assert main(argv) == 0
    assert re.search(r"^Regret against perfect play: \d+\.\d{3} seeds per decision \[", capsys.readouterr().out,
                     re.MULTILINE)  # fmt: skip


def test_without_an_agent_the_ladder_is_printed(ladder_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--game", "kalah", "--ladder", str(ladder_file), *TINY_OPTIONS]) == 0
    assert capsys.readouterr().out == Ladder.load(ladder_file).format() + "\n"


def test_the_shipped_ladder_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--game", "modiar"]) == 0
    assert capsys.readouterr().out == load_shipped_ladder("modiar").format() + "\n"


def test_build_writes_a_ladder_that_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "built.json"
    argv = ["ladder", "--build", "--game", "kalah", "--anchors", "random", "greedy", "--games-per-pair", "4",
            "--seed", "3", "--workers", "1", "--no-progress", "--out", str(out_path), *TINY_OPTIONS]  # fmt: skip
    assert main(argv) == 0
    ladder = Ladder.load(out_path)
    assert ladder.names == ["random", "greedy"] and ladder.games_per_pair == 4 and ladder.seed == 3
    assert ladder.command == (
        "mancala-envs ladder --build --game kalah --games-per-pair 4 --seed 3 --anchors random greedy "
        "--option pits_per_row=3 --option seeds_per_pit=3"
    )
    out = capsys.readouterr().out
    assert out.startswith(ladder.format() + "\n") and f"; wrote {out_path}\n" in out
    assert ladder == build_ladder("kalah", ["random", "greedy"], games_per_pair=4, seed=3, workers=1, **TINY)


def test_a_placement_on_a_hand_written_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ladder(tmp_path)
    argv = ["ladder", "random", "--game", "kalah", "--ladder", str(path), "--games", "2", "--workers", "1",
            "--no-progress", "--no-regret", *TINY_OPTIONS]  # fmt: skip
    assert main(argv) == 0
    assert ">> random (placed)" in capsys.readouterr().out
