"""``mancala-envs solve``: what it prints, what it saves, and its one-line errors."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

from mancala_envs.algorithms.retrograde import FORMAT, load_table, table_paths
from mancala_envs.cli import main
from mancala_envs.cli.solve_command import solve_main
from mancala_envs.envs.registration import make_game, resolve_env_id


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    status = solve_main(argv, out=out)
    return status, out.getvalue()


def test_solve_saves_a_loadable_table_and_reports_it(tmp_path: Path) -> None:
    status, text = run(["kalah", "--max-seeds", "3", "--dir", str(tmp_path)])
    assert status == 0
    game = make_game(resolve_env_id("kalah"))
    values_path, info_path = table_paths(game, 3, tmp_path)
    positions = 2 * math.comb(3 + 12, 12)  # boards of 12 pits with at most 3 seeds, each player to move
    assert f"table: {values_path}" in text
    assert f"positions: {positions:,} (boards with at most 3 seeds" in text
    assert [line.split(":")[0].strip() for line in text.splitlines() if "seeds on the board: solved" in line] == [
        f"{seeds} seeds on the board" for seeds in range(4)
    ]
    description = json.loads(info_path.read_text())
    assert description["format"] == FORMAT
    assert description["game"] == "kalah"
    assert description["max_seeds"] == 3
    assert description["positions"] == positions
    assert description["build"]["positions"] == positions
    assert description["build"]["cycle_classes"] == 0  # Kalah's seeds only move forward: no position recurs
    table = load_table(game, 3, tmp_path)
    assert table.positions == positions
    # One seed a side, P0 to move: P0's seed (local 5) goes into its store, which leaves P0's row empty and
    # ends the game; P1 collects its own seed. Each gains 1: the margin is 0.
    state = game.new_state(0)
    game.load_position(state, [0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 1], [23, 23], 0)
    assert table.value(state).margin == 0
    assert table.value(state).exact


def test_solve_again_keeps_a_valid_table_and_force_rebuilds(tmp_path: Path) -> None:
    assert run(["kalah", "--max-seeds", "2", "--dir", str(tmp_path)])[0] == 0
    status, text = run(["kalah", "--max-seeds", "2", "--dir", str(tmp_path)])
    assert status == 0
    assert text.startswith("a valid table is already saved (--force rebuilds it)\n")
    assert "seeds on the board: solved" not in text
    status, text = run(["kalah", "--max-seeds", "2", "--dir", str(tmp_path), "--force", "--quiet"])
    assert status == 0
    assert "seeds on the board: solved" not in text  # --quiet
    assert "built in" in text and "peak memory:" in text


def test_solve_rebuilds_a_damaged_table(tmp_path: Path) -> None:
    assert run(["kalah", "--max-seeds", "2", "--dir", str(tmp_path)])[0] == 0
    values_path, _ = table_paths(make_game(resolve_env_id("kalah")), 2, tmp_path)
    data = bytearray(values_path.read_bytes())
    data[-1] ^= 1
    values_path.write_bytes(bytes(data))
    status, text = run(["kalah", "--max-seeds", "2", "--dir", str(tmp_path), "--quiet"])
    assert status == 0
    assert "already saved" not in text
    assert load_table(make_game(resolve_env_id("kalah")), 2, tmp_path).positions == 2 * math.comb(14, 12)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["omweso"], "omweso cannot be tabled"),
        (["rio_kadalis"], "rio_kadalis cannot be tabled"),
        (["kalah", "--max-seeds", "49"], "max_seeds (--max-seeds) must be an int from 0 to 48"),
        (["kalah", "--max-seeds", "-1"], "invalid seed count '-1'"),
        (["nosuchgame"], "unknown"),
        ([], "the following arguments are required: game"),
    ],
)
def test_solve_bad_input_is_one_line_with_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    assert main(["solve", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("mancala-envs: error: ")
    assert message in err[0]


def test_solve_refuses_a_match() -> None:
    from mancala_envs.algorithms.retrograde import TableError, build_table

    with pytest.raises(TableError, match="played as a match; tables solve single games"):
        build_table(make_game(resolve_env_id("mancala/urim-match-v0")), 1)


@pytest.mark.slow
def test_the_start_values_are_printed_for_the_whole_game(modiar_table) -> None:
    """A whole-game table's summary gives the start position's value and moves for both first players."""
    from mancala_envs.cli.solve_command import summary

    out = io.StringIO()
    summary(modiar_table, "modiar.npy", out)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("start, ")]
    start = modiar_table.game.new_state(0)
    value = modiar_table.value(start)
    moves = {a: v.margin for a, v in modiar_table.move_values(start).items()}
    assert lines[0] == (
        f"start, player_0 first: margin {value.margin:+d} for player_0 "
        f"({'exact' if value.exact else 'class-capped reading of repetition'}); moves {moves}"
    )
    assert lines[1] == lines[0].replace("player_0", "player_1")  # the rules are symmetric
    assert sorted(moves) == [0, 1, 2]
