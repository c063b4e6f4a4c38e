"""``mancala-envs solve GAME --start`` / ``--position``: exact values, principal variations, config options, refusals.

Irving, Donkers & Uiterwijk ("Solving Kalah", 2000) give Kalah(4,3) as +8 for the first player with the
empty-capture rule; the standard rule gives +6 (both checked by an exhaustive search written from the rules,
issue 32). The tables go to the test's folder (``--dir`` and ``$MANCALA_ENVS_TABLES``), never ``~/.cache``.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mancala_envs.cli import main
from mancala_envs.cli.solve_command import SEARCH_INTERRUPTED, solve_main
from mancala_envs.engine.state import OK, PLAYER, RUNNING, STATUS, STORE
from mancala_envs.envs.registration import make_game, resolve_env_id
from mancala_envs.games.game import Game
from mancala_envs.solver import clear_tables, load_table, table_paths

KALAH_4_3 = ["--option", "pits_per_row=4", "--option", "seeds_per_pit=3"]


@pytest.fixture(autouse=True)
def tables_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tables in the test's folder, and none kept in the process after the test (nor their transposition tables)."""
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(tmp_path / "default_tables"))
    clear_tables()
    yield
    clear_tables()


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    status = solve_main(argv, out=out)
    return status, out.getvalue()


def kalah(pits: int, seeds: int, empty_capture: bool) -> Game:
    return make_game(resolve_env_id("kalah"), pits_per_row=pits, seeds_per_pit=seeds, empty_capture=empty_capture)


def line(text: str, start: str) -> str:
    """The one printed line that starts with ``start``."""
    (found,) = [row for row in text.splitlines() if row.startswith(start)]
    return found


def replay(game: Game, state: np.ndarray, text: str) -> np.ndarray:
    """Plays the printed principal variation (``player:action`` words) from ``state`` with the game's own step;
    each word's player must be the one to move. Returns the final state."""
    words = line(text, "principal variation (").split(": ", 1)[1].split()
    assert line(text, "principal variation (").startswith(f"principal variation ({len(words)} plies, player:action)")
    position = state.copy()
    trace = np.zeros(0, dtype=np.int64)
    for word in words:
        player, action = map(int, word.split(":"))
        assert position[STATUS] == RUNNING
        assert int(position[PLAYER]) == player
        assert game.step(position, action, trace) == OK
    assert position[STATUS] != RUNNING  # a perfect game played to its end
    return position


@pytest.mark.parametrize(("empty_capture", "margin", "stores"), [(True, 8, (16, 8)), (False, 6, (15, 9))])
def test_start_of_kalah_4_3_as_published(
    tmp_path: Path, empty_capture: bool, margin: int, stores: tuple[int, int]
) -> None:
    rule = "true" if empty_capture else "false"
    argv = ["kalah", *KALAH_4_3, "--option", f"empty_capture={rule}", "--start", "--max-seeds", "12"]
    status, text = run([*argv, "--dir", str(tmp_path / "tables"), "--quiet"])
    assert status == 0, text
    game = kalah(4, 3, empty_capture)
    assert line(text, "game: ") == f"game: kalah pits_per_row=4 seeds_per_pit=3 empty_capture={rule} max_plies=1000"
    assert line(text, "position: ") == "position: 3,3,3,3/3,3,3,3 0,0 0 (player_0 to move)"
    assert line(text, "value: ") == (
        f"value: +{margin} for player_0 (the seeds player_0 will still gain minus player_1's, under perfect play)"
    )
    assert line(text, "final score: ") == (
        f"final score: player_0 {stores[0]}, player_1 {stores[1]} (player_0 wins by {margin})"
    )
    # the printed best action is the variation's first; the variation, replayed, reaches the final score of the value
    best = int(line(text, "best action: ").split()[2])
    assert line(text, "best action: ") == f"best action: {best} (sows pit {best})"
    assert line(text, "principal variation (").split(": ", 1)[1].split()[0] == f"0:{best}"
    final = replay(game, game.new_state(0), text)
    assert (int(final[STORE]), int(final[STORE + 1])) == stores
    assert line(text, "final stores of the variation: ") == (
        f"final stores of the variation: player_0 {stores[0]}, player_1 {stores[1]} (the end of the game)"
    )
    searched = int(line(text, "positions searched: ").split(": ")[1].replace(",", ""))
    assert searched >= 1
    seconds = re.fullmatch(r"seconds: (\d+\.\d\d) \(table (\d+\.\d\d), search (\d+\.\d\d)\)", line(text, "seconds: "))
    assert seconds is not None
    total, table_part, search_part = map(float, seconds.groups())
    assert total == pytest.approx(table_part + search_part, abs=0.011)  # each rounded to 0.01 s
    values_path = table_paths(game, 12, tmp_path / "tables")[0]
    assert line(text, "table: ") == (f"table: K=12 (every position with at most 12 seeds on the board): {values_path}")
    assert values_path.exists()  # built and saved for the next run
    assert not (tmp_path / "default_tables").exists()  # --dir, not the default folder


def test_a_second_run_reads_the_saved_table(tmp_path: Path) -> None:
    argv = [
        "kalah",
        *KALAH_4_3,
        "--option",
        "empty_capture=true",
        "--start",
        "--max-seeds",
        "10",
        "--dir",
        str(tmp_path),
    ]
    status, first = run(argv)
    assert status == 0
    assert "  building the table: 10 seeds on the board: solved" in first  # progress lines without --quiet
    clear_tables()  # a new process: the table is read from the folder, not built again
    status, second = run(argv)
    assert status == 0
    assert "building the table" not in second
    assert line(second, "value: ").startswith("value: +8 for player_0")


def test_position_of_kalah_4_3(tmp_path: Path) -> None:
    """Two plies into a perfect game (player_0 sows pit 1, lands in its store, then pit 3), player_1 to move: it
    trails by 2 and will lose 6 more seeds than it gains, the start's +8 for player_0."""
    position = "3,0,4,0/4,4,4,3 2,0 1"
    argv = ["kalah", *KALAH_4_3, "--option", "empty_capture=true", "--position", position, "--max-seeds", "12"]
    status, text = run([*argv, "--dir", str(tmp_path), "--quiet"])
    assert status == 0, text
    assert line(text, "position: ") == f"position: {position} (player_1 to move)"
    assert line(text, "value: ") == (
        "value: -6 for player_1 (the seeds player_1 will still gain minus player_0's, under perfect play)"
    )
    assert line(text, "final score: ") == "final score: player_0 16, player_1 8 (player_0 wins by 8)"
    game = kalah(4, 3, True)
    state = game.new_state(0)
    game.load_position(state, **game.parse_position(position))
    final = replay(game, state, text)
    assert (int(final[STORE]), int(final[STORE + 1])) == (16, 8)
    assert line(text, "final stores of the variation: ").endswith("player_0 16, player_1 8 (the end of the game)")


def test_a_position_with_one_move_is_a_draw(tmp_path: Path) -> None:
    """player_0's last seed reaches its store and empties its row: the game ends, player_1 takes its own seed."""
    argv = ["kalah", *KALAH_4_3, "--position", "0,0,0,1/0,0,0,1 11,11 0", "--max-seeds", "4", "--dir", str(tmp_path)]
    status, text = run([*argv, "--quiet"])
    assert status == 0, text
    assert line(text, "value: ").startswith("value: +0 for player_0")
    assert line(text, "final score: ") == "final score: player_0 12, player_1 12 (a draw)"
    assert line(text, "best action: ") == "best action: 3 (sows pit 3)"
    assert line(text, "principal variation (") == "principal variation (1 plies, player:action): 0:3"
    assert line(text, "final stores of the variation: ") == (
        "final stores of the variation: player_0 12, player_1 12 (the end of the game)"
    )


def test_option_builds_the_table_of_that_config(tmp_path: Path) -> None:
    status, text = run(["kalah", "--option", "pits_per_row=4", "--max-seeds", "3", "--dir", str(tmp_path), "--quiet"])
    assert status == 0, text
    game = make_game(resolve_env_id("kalah"), pits_per_row=4)
    values_path = table_paths(game, 3, tmp_path)[0]
    assert line(text, "table: ") == f"table: {values_path}"
    assert load_table(game, 3, tmp_path).positions == 2 * math.comb(3 + 8, 8)  # 8 pits, at most 3 seeds
    assert values_path != table_paths(make_game(resolve_env_id("kalah")), 3, tmp_path)[0]  # not the 6-pit table


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["kalah", "--option", "pits_per_row=9", "--start"],
            "pits_per_row=9 is out of range; use an integer >= 1 and <= 8.",
        ),
        (
            ["omweso", "--start"],
            "omweso cannot be tabled (its positions hold more than a board, stores and player to move, or seeds "
            "return to the board); tables exist for ouril, urim, modiar, kalah.",
        ),
        (
            ["kalah", "--start", "--position", "3,3,3,3,3,3/3,3,3,3,3,3 0,0 0"],
            "argument --position: not allowed with argument --start; see 'mancala-envs solve --help'.",
        ),
        (
            ["kalah", "--budget", "5"],
            "--budget limits the search of a position; give --start or --position with it (or leave it out to "
            "build a table)",
        ),
        (
            ["kalah", *KALAH_4_3, "--option", "empty_capture=true", "--start", "--force"],
            "--force rebuilds a saved table and does not go with --start or --position; rebuild the table first "
            "(mancala-envs solve kalah --option empty_capture=true --option pits_per_row=4 --max-seeds K --force), "
            "then search with --max-seeds K",
        ),
        (
            ["kalah", "--start", "--budget", "0"],
            "argument --budget: invalid budget '0' (use an integer >= 1); see 'mancala-envs solve --help'.",
        ),
        (
            ["kalah", *KALAH_4_3, "--position", "3,3,3/3,3,3,3 0,0 0"],
            "--position: position board: the first half '3,3,3' must hold 4 counts (3 given); write "
            "'<4 pits>/<4 pits> <store>,<store> <player> [key=value ...]'.",
        ),
        (
            ["kalah", *KALAH_4_3, "--position", "3,3,3,3/3,3,3,3 0,1 0"],
            "--position: the position holds 25 seeds but this config has 24; board plus stores must add up to the "
            "config's seed total.",
        ),
        (
            ["kalah", *KALAH_4_3, "--position", "0,0,0,0/3,3,3,3 12,0 0"],
            "--position '0,0,0,0/3,3,3,3 12,0 0' is over: its player to move cannot move, so it has no value to "
            "solve (it ends as '0,0,0,0/0,0,0,0 12,12 0'); give a position whose player to move can sow.",
        ),
    ],
)
def test_refusals_are_one_line_with_status_2(argv: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["solve", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"mancala-envs: error: {message}"]
    assert captured.out == ""


def test_a_budget_that_runs_out_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["solve", "kalah", *KALAH_4_3, "--option", "empty_capture=true", "--start", "--max-seeds", "4"]
    assert main([*argv, "--budget", "1", "--dir", str(tmp_path), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "mancala-envs: error: the search visited 1 position without settling the value of this kalah position; "
        "raise --budget, or search with a larger table (`mancala-envs solve kalah --option empty_capture=true "
        "--option pits_per_row=4 --max-seeds K`, then --max-seeds K)."
    ]
    assert captured.out == ""


def test_ctrl_c_during_the_search_is_one_line_and_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("mancala_envs.cli.solve_command.solve_position", interrupted)
    assert main(["solve", "kalah", *KALAH_4_3, "--start", "--dir", str(tmp_path)]) == 130
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [SEARCH_INTERRUPTED]
    assert SEARCH_INTERRUPTED == (
        "Interrupted: no value was found (a table being built is saved only once whole; one saved before stays "
        "saved); run the command again"
    )
    assert "Traceback" not in captured.err
    assert list(tmp_path.iterdir()) == []
