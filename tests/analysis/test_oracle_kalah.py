"""``oracle_evaluate`` and ``mancala-envs evaluate --oracle`` over whole Kalah games (issue 32, item 4).

Kalah is acyclic: a decision outside the table is valued by two searches (the position's value and the chosen
move's), so every decision counts and none is left ``uncovered``. Tables live in ``tmp_path``; the ``perfect``
agent reads the same folder through ``$MANCALA_ENVS_TABLES``.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from mancala_envs.algorithms.retrograde import build_table, save_table
from mancala_envs.analysis.oracle import oracle_evaluate, searched_move_margin
from mancala_envs.cli.evaluate_command import evaluate_main
from mancala_envs.engine.state import PLAYER, RUNNING, SCORE, STATUS, STORE
from mancala_envs.envs.registration import make_game
from mancala_envs.solver import clear_tables, solve_position, solver_table

TABLE_SEEDS = 10  # positions of up to 10 seeds on the board are in the table; the rest are searched


@pytest.fixture(autouse=True)
def _forget_tables() -> None:
    clear_tables()


def kalah(seeds: int, empty_capture: bool = False) -> object:
    return make_game("kalah_v0", pits_per_row=4, seeds_per_pit=seeds, empty_capture=empty_capture)


def small_table_folder(tmp_path: Path, seeds: int, empty_capture: bool = False) -> Path:
    folder = tmp_path / "tables"
    save_table(build_table(kalah(seeds, empty_capture), TABLE_SEEDS), folder)
    return folder


@pytest.mark.parametrize(("seeds", "empty_capture"), [(2, False), (3, False), (3, True)])
def test_perfect_has_no_regret_and_random_has_some_over_whole_games(
    seeds: int, empty_capture: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = small_table_folder(tmp_path, seeds, empty_capture)
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(folder))  # the perfect agent's folder too
    options = {"pits_per_row": 4, "seeds_per_pit": seeds, "empty_capture": empty_capture}
    perfect = oracle_evaluate("perfect", "kalah", ["random", "greedy"], games=2, tables=folder, **options)
    summary = perfect.summary()
    counts = perfect.counts()
    assert summary.decisions > 0 and summary.optimal == summary.decisions and summary.optimal_rate == 1.0
    assert summary.regret_total == 0 and summary.mean_regret == 0.0 and summary.won_thrown == 0
    assert counts["searched"] > 0 and counts["uncovered"] == 0 and counts["exact"] == counts["decisions"]
    assert counts["searched"] < counts["decisions"]  # decisions inside the table too
    assert perfect.table_info["max_seeds"] == TABLE_SEEDS
    assert "decisions outside the table valued by a search" in perfect.format()
    randomly = oracle_evaluate("random", "kalah", ["greedy"], games=4, tables=folder, **options)
    assert randomly.summary().regret_total > 0 and randomly.summary().optimal < randomly.summary().decisions
    assert randomly.counts()["uncovered"] == 0 and randomly.counts()["searched"] > 0
    # a decision's best is the position's exact value; its regret is best minus the chosen move's value
    assert all(d.regret >= 0 and d.exact for d in randomly.decisions)


def test_searched_decisions_agree_with_solve_position(tmp_path: Path) -> None:
    """The values behind a decision outside the table, against solve_position on another table and folder."""
    game = kalah(3)
    table = solver_table(game, TABLE_SEEDS, tmp_path / "a")
    rng = np.random.default_rng(3)
    state = game.new_state(0)
    checked = 0
    while state[STATUS] == RUNNING and int(game.board(state).sum()) > TABLE_SEEDS:
        mover = int(state[PLAYER])
        lead = int(state[STORE + mover] - state[STORE + 1 - mover])
        for action in game.legal_actions(state):
            after = state.copy()
            game.step(after, int(action), np.zeros(0, dtype=np.int64))
            if after[STATUS] != RUNNING:
                expected = int(after[SCORE + mover] - after[SCORE + 1 - mover]) - lead
            else:
                later = solve_position(game, after, max_seeds=4, folder=tmp_path / "b").margin
                gain = int(after[STORE + mover] - after[STORE + 1 - mover]) - lead
                expected = gain + (later if int(after[PLAYER]) == mover else -later)
            assert searched_move_margin(table, state, int(action)) == expected, game.position_string(state)
            checked += 1
        game.step(state, int(rng.choice(game.legal_actions(state))), np.zeros(0, dtype=np.int64))
    assert checked >= 10


def test_the_command_evaluates_whole_kalah_games(tmp_path: Path) -> None:
    folder = small_table_folder(tmp_path, 2)
    out = io.StringIO()
    argv = ["random", "--game", "kalah", "--oracle", "--opponents", "greedy", "--games", "2", "--tables",
            str(folder), "--option", "pits_per_row=4", "--option", "seeds_per_pit=2", "--json",
            str(tmp_path / "r.json")]  # fmt: skip
    assert evaluate_main(argv, out=out) == 0
    text = out.getvalue()
    assert "random against perfect play in kalah_v0: 1 opponent(s) x 2 games" in text
    assert "decisions outside the table valued by a search" in text
    assert '"searched"' in (tmp_path / "r.json").read_text()


def test_the_oracle_builds_the_default_table_when_none_is_saved(tmp_path: Path) -> None:
    report = oracle_evaluate("greedy", "kalah", ["random"], games=1, tables=tmp_path, pits_per_row=4, seeds_per_pit=2)
    assert report.table_info["max_seeds"] == 16  # Kalah(4, 2): the whole game, built and saved
    assert report.counts()["searched"] == 0 and report.summary().decisions > 0
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".npy"]
