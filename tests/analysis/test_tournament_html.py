"""A tournament's games on one HTML page (issue 35): ``write_tournament_html`` and ``mancala-envs tournament --html``.

What is checked: the page holds every recorded game (the picker lists them in the records' order, named by file,
players and result); in the browser the picker switches games and each game's last ply draws that record's final
board; the command line writes the page with or without ``--record``; bad input is refused before anything is
written (and, on the command line, before any game is played).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mancala_envs.analysis.tournament import record_name, run_tournament, write_tournament_html
from mancala_envs.cli.tournament_command import tournament_main
from mancala_envs.engine.state import BOARD
from mancala_envs.envs.records import GameRecord, replay

from support.browser import open_page


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two Kalah games of random against greedy, recorded."""
    folder = tmp_path_factory.mktemp("tournament") / "games"
    run_tournament("kalah", ["random", "greedy"], 2, seed=1, workers=1, progress=False, record_dir=folder)
    return folder


def options(page: str) -> list[str]:
    return re.findall(r'<option value="\d+">([^<]*)</option>', page)


def final_board(record: GameRecord) -> list[str]:
    *_, env = replay(record)
    return [str(int(seeds)) for seeds in env.state_array[BOARD : BOARD + env.game.n_pits]]


def test_the_page_lists_every_game_of_the_folder(record_dir: Path, tmp_path: Path) -> None:
    path = write_tournament_html(record_dir, tmp_path / "games.html")
    page = path.read_text(encoding="utf-8")
    records = [GameRecord.load(record_dir / record_name(0, game)) for game in (0, 1)]
    assert [record.players for record in records] == [["random", "greedy"], ["greedy", "random"]]
    names = []
    for game, record in enumerate(records):
        winner = record.result["winner"]
        outcome = "(draw)" if winner is None else ("(1-0)" if winner == 0 else "(0-1)")
        names.append(f"pair 00 game {game:04d}: {record.players[0]} vs {record.players[1]} {outcome}")
    assert options(page) == names
    assert "<title>kalah-v0 tournament: greedy, random</title>" in page
    listed = write_tournament_html(records, tmp_path / "listed.html", title="two games").read_text(encoding="utf-8")
    assert options(listed) == [name.replace(f"pair 00 game {n:04d}", f"game {n}") for n, name in enumerate(names)]
    assert "<title>two games</title>" in listed


def test_the_picker_switches_games(record_dir: Path, tmp_path: Path, browser: Any) -> None:
    path = write_tournament_html(record_dir, tmp_path / "games.html")
    records = [GameRecord.load(record_dir / record_name(0, game)) for game in (0, 1)]
    with open_page(browser, path.as_uri()) as watched:
        page = watched.page
        for game in (0, 1, 0):
            page.select_option("#game", str(game))
            page.wait_for_function(
                f"document.body.dataset.ready === 'true' && document.body.dataset.game === '{game}'", timeout=5000
            )
            assert page.get_attribute("#ply", "max") == str(len(records[game].moves))
            page.click("#last")
            assert page.evaluate("document.body.dataset.ply") == str(len(records[game].moves))
            counts = page.evaluate(
                "[...document.querySelectorAll('#board g.pit')].sort((a, b) => a.dataset.pit - b.dataset.pit)"
                ".map(g => [g.dataset.seeds, g.querySelector('text.count').textContent])"
            )
            assert counts == [[seeds, seeds] for seeds in final_board(records[game])]
            assert "players: " + " vs ".join(records[game].players) in (page.text_content("#details") or "")
        watched.assert_no_errors()


@pytest.mark.parametrize("keep_records", [False, True])
def test_cli_writes_the_page(keep_records: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "kalah", "--agents", "random", "greedy", "--games", "2", "--workers", "1", "--no-progress"]
    if keep_records:
        argv += ["--record", str(tmp_path / "games")]
    status = tournament_main([*argv, "--html", str(tmp_path / "page.html")])
    assert status == 0
    out = capsys.readouterr().out
    assert f"Wrote {tmp_path / 'page.html'} (2 games)" in out
    assert len(options((tmp_path / "page.html").read_text(encoding="utf-8"))) == 2
    expected = ["games", "page.html"] if keep_records else ["page.html"]
    assert sorted(path.name for path in tmp_path.iterdir()) == expected


@pytest.mark.parametrize(
    ("html", "words"),
    [
        ("page.htm", "--html '{dir}/page.htm': give a path ending in .html (e.g. games.html)."),
        ("missing/page.html", "missing"),
    ],
)
def test_cli_refuses_a_bad_html_path_before_any_game(
    html: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--game", "kalah", "--agents", "random", "greedy", "--games", "2", "--workers", "1", "--no-progress"]
    status = tournament_main([*argv, "--html", str(tmp_path / html)])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert words.format(dir=tmp_path) in captured.err and "mancala-envs tournament: error:" in captured.err
    assert list(tmp_path.iterdir()) == []


def test_bad_input_is_refused(record_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    with pytest.raises(ValueError, match="it is not a folder; pass the record_dir the games were written to"):
        write_tournament_html(tmp_path / "nowhere", out)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"holds no tournament game records \(pair-PP-game-GGGG.json\)"):
        write_tournament_html(tmp_path / "empty", out)
    with pytest.raises(ValueError, match="records is an empty list; give at least one GameRecord, or the folder"):
        write_tournament_html([], out)
    with pytest.raises(ValueError, match="records must be a folder of game records or a list of GameRecord"):
        write_tournament_html(3, out)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"give a path ending in \.html"):
        write_tournament_html(record_dir, tmp_path / "page.txt")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty"]
