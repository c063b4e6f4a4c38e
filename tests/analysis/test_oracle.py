"""mancala_envs.analysis.oracle and ``mancala-envs evaluate``: agents measured against a perfect-play table.

The tests that play games need the whole Modiar table (the session fixture ``tables_dir``, about 70 s
to build) and are marked slow, as is the training test; the others are pure Python.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mancala_envs.agents import Agent
from mancala_envs.algorithms.retrograde import Table, TableError
from mancala_envs.analysis.oracle import Decision, OracleReport, RegretSummary, mean_interval, oracle_evaluate
from mancala_envs.cli import main
from mancala_envs.cli.evaluate_command import evaluate_main
from mancala_envs.envs.registration import make, make_game, resolve_env_id


class TableAgent(Agent):
    """Plays by the table: its first best move, or with ``worst=True`` its first worst move."""

    def __init__(self, table: Table, worst: bool = False, seed: int | None = None) -> None:
        super().__init__(seed)
        self.table = table
        self.worst = worst
        self.name = "worst-by-table" if worst else "perfect-by-table"

    def act(self, env: Any) -> int:
        self.env_legal_actions(env)
        state = env.unwrapped.state_array
        if not self.worst:
            return self.table.best_actions(state)[0]
        values = self.table.move_values(state)
        low = min(v.margin for v in values.values())
        return min(a for a, v in values.items() if v.margin == low)


def _decision(best: int, chosen: int, diff: int = 0, game: int = 0, exact: bool = True) -> Decision:
    return Decision(opponent=0, game=game, ply=0, legal=2, action=0, best=best, chosen=chosen, store_diff=diff,
                    exact=exact)  # fmt: skip


# --- pure Python: the figures ----------------------------------------------------------------------------------------
def test_decision_regret_and_outcomes() -> None:
    won_kept = _decision(best=3, chosen=1, diff=0)
    assert won_kept.regret == 2 and won_kept.won and not won_kept.thrown and not won_kept.optimal
    won_thrown = _decision(best=3, chosen=-1, diff=1)  # 1 + 3 > 0 but 1 - 1 = 0: a draw
    assert won_thrown.won and won_thrown.thrown and won_thrown.regret == 4
    drawn_lost = _decision(best=-2, chosen=-4, diff=2)
    assert drawn_lost.drawn and drawn_lost.thrown and not drawn_lost.won
    lost = _decision(best=-3, chosen=-9, diff=0)
    assert not lost.won and not lost.drawn and not lost.thrown


def test_mean_interval_is_clustered_by_game() -> None:
    # two games: regrets summing to 2 over 2 decisions, and 0 over 2: mean 0.5
    mean, low, high = mean_interval([2, 0], [2, 2])
    assert mean == 0.5
    se = math.sqrt(2 / 1 * ((2 - 2 * 0.5) ** 2 + (0 - 2 * 0.5) ** 2)) / 4
    assert low == pytest.approx(0.5 - 1.959963984540054 * se) and high == pytest.approx(0.5 + 1.959963984540054 * se)
    assert math.isnan(mean_interval([], [])[0])
    one = mean_interval([3], [2])
    assert one[0] == 1.5 and math.isnan(one[1]) and math.isnan(one[2])


def test_summary_counts() -> None:
    decisions = [_decision(3, 3, 0, game=0), _decision(3, 1, -2, game=0), _decision(0, -1, 0, game=1, exact=False)]
    summary = RegretSummary.of("all", decisions)
    assert (summary.decisions, summary.optimal, summary.regret_total, summary.max_regret) == (3, 1, 3, 2)
    assert summary.mean_regret == 1.0
    assert (summary.won, summary.won_thrown, summary.drawn, summary.drawn_thrown) == (2, 1, 1, 1)
    report = OracleReport("a", "modiar_v0", ["random"], 2, 0, decisions=decisions)
    assert report.summary(exact_only=True).decisions == 2
    assert report.summary("random").regret_total == 3
    with pytest.raises(ValueError, match="was not played"):
        report.summary("greedy")


# --- pure Python: the command's errors -------------------------------------------------------------------------------
def test_cli_without_oracle_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "greedy", "--game", "modiar"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mancala-envs: error: ")
    assert "--oracle" in err and "mancala-envs tournament" in err


def test_cli_without_a_table_names_the_solve_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate_main(["greedy", "--game", "modiar", "--oracle", "--tables", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mancala-envs: error: no modiar table")
    assert "mancala-envs solve modiar" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["nobody", "--oracle"], "unknown agent 'nobody'"),
        (["greedy", "--oracle", "--games", "0"], "invalid value '0'"),
        (["greedy", "--oracle", "--game", "chess"], "chess"),
        (["greedy", "--oracle", "--opponents", "alphabeta:x"], "alphabeta depth"),
        (["greedy", "--oracle", "--json", "/no/such/folder/r.json"], "does not exist"),
        (["greedy", "--oracle", "--game", "omweso"], "omweso"),
    ],
)
def test_cli_bad_input_is_one_line(argv: list[str], words: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert evaluate_main([*argv, "--tables", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mancala-envs: error: ") and words in err


def test_oracle_evaluate_checks_its_arguments(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="mancala-envs solve modiar"):
        oracle_evaluate("greedy", tables=tmp_path)
    with pytest.raises(ValueError, match="at least one opponent"):
        oracle_evaluate("greedy", opponents=[], tables=tmp_path)
    with pytest.raises(TypeError, match="act"):
        oracle_evaluate(object(), tables=tmp_path)


# --- with the Modiar table (slow) ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_regret_of_a_known_bad_move(modiar_table: Table) -> None:
    """A hand-picked position, valued by hand: the bad move's regret is the table's best margin minus its own.

    ``2,3,0/0,1,1``, stores 20-15, player 0 to move; pits 0 and 1 may move (singletons never do).
    Pit 0 sows 1, 1 into pits 0 and 1: pit 1 holds 4 and is captured (+4); player 1, holding only
    singletons, has no move, so the game ends, each taking their own pits (+1 against +2): margin
    4 + 1 - 2 = 3. Pit 1 sows 1, 1, 1 into pits 1, 2, 3: nothing captured, player 1 again has no
    move: 4 against 3, margin 1. So playing pit 1 gives away 2 seeds (and the position is won either way).
    """
    env = make("modiar_v0", first_player=0)
    env.reset(options={"position": "2,3,0/0,1,1 20,15 0"})
    state = env.unwrapped.state_array
    values = modiar_table.move_values(state)
    assert {action: value.margin for action, value in values.items()} == {0: 3, 1: 1}
    assert all(value.exact for value in values.values())
    assert modiar_table.best_actions(state) == [0]
    bad = Decision(opponent=0, game=0, ply=0, legal=2, action=1, best=3, chosen=values[1].margin, store_diff=5,
                   exact=True)  # fmt: skip
    assert bad.regret == 2 and not bad.optimal and bad.won and not bad.thrown


@pytest.mark.slow
def test_perfect_by_table_agent_has_no_regret(modiar_table: Table) -> None:
    report = oracle_evaluate(TableAgent(modiar_table), opponents=("random", "greedy"), games=4, seed=3,
                             table=modiar_table)  # fmt: skip
    summary = report.summary()
    assert summary.decisions > 0
    assert summary.optimal_rate == 1.0 and summary.regret_total == 0 and summary.mean_regret == 0.0
    assert summary.won_thrown == 0 and summary.drawn_thrown == 0
    assert report.summary(exact_only=True).regret_total == 0


@pytest.mark.slow
def test_worst_by_table_agent_regret_is_best_minus_chosen(modiar_table: Table) -> None:
    """Replays the worst agent's games and checks every recorded decision against the table."""
    agent = TableAgent(modiar_table, worst=True)
    report = oracle_evaluate(agent, opponents=("greedy",), games=2, seed=1, table=modiar_table)
    assert report.summary().regret_total > 0
    assert all(d.regret == d.best - d.chosen and d.regret >= 0 for d in report.decisions)
    assert all(d.chosen == min(d.chosen, d.best) for d in report.decisions)


@pytest.mark.slow
def test_random_agent_regret_and_determinism(modiar_table: Table) -> None:
    first = oracle_evaluate("random", opponents=("greedy", "alphabeta:1"), games=4, seed=7, table=modiar_table)
    again = oracle_evaluate("random", opponents=("greedy", "alphabeta:1"), games=4, seed=7, table=modiar_table)
    summary = first.summary()
    assert summary.mean_regret > 0 and summary.optimal_rate < 1
    assert first.decisions == again.decisions and first.outcomes == again.outcomes
    assert first.format() == again.format()
    other = oracle_evaluate("random", opponents=("greedy", "alphabeta:1"), games=4, seed=8, table=modiar_table)
    assert other.decisions != first.decisions
    # seats alternate: the agent moved first in the even games
    assert [o.seat for o in first.outcomes] == [0, 1, 0, 1] * 2
    # the per-opponent summaries add up to the whole
    parts = [first.summary(name) for name in first.opponents]
    assert sum(p.decisions for p in parts) == summary.decisions
    assert sum(p.regret_total for p in parts) == summary.regret_total
    counts = first.counts()
    assert counts["decisions"] == summary.decisions and counts["uncovered"] == 0
    assert counts["exact"] == first.summary(exact_only=True).decisions


@pytest.mark.slow
def test_history_search_makes_every_decision_exact(modiar_table: Table) -> None:
    """With ``history=True`` every decision is exact; the moves the table already valued exactly keep their value."""
    plain = oracle_evaluate("random", opponents=("greedy",), games=4, seed=2, table=modiar_table)
    searched = oracle_evaluate("random", opponents=("greedy",), games=4, seed=2, table=modiar_table, history=True)
    assert searched.history and not plain.history
    assert [d.action for d in searched.decisions] == [d.action for d in plain.decisions]  # the same games
    assert all(d.exact for d in searched.decisions)
    assert searched.counts()["exact"] == searched.summary().decisions > plain.counts()["exact"]
    for before, after in zip(plain.decisions, searched.decisions, strict=False):
        if before.exact:
            assert (after.best, after.chosen) == (before.best, before.chosen)
    assert "searched with the game's history" in searched.format()


@pytest.mark.slow
def test_cli_prints_the_report_and_writes_json(tables_dir: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    path = tmp_path / "oracle.json"
    status = main(["evaluate", "greedy", "--game", "modiar", "--oracle", "--opponents", "random", "--games", "2",
                   "--tables", str(tables_dir), "--json", str(path)])  # fmt: skip
    assert status == 0
    text = capsys.readouterr().out
    assert "greedy against perfect play in modiar_v0" in text and "Exact decisions only" in text
    data = json.loads(path.read_text())
    assert data["format"] == "mancala-envs-oracle-1" and data["games"] == 2
    assert data["summary"]["all"]["decisions"] == len(data["decisions"])
    assert set(data["summary"]) == {"random", "all"}


@pytest.mark.slow
def test_env_variable_names_the_table_folder(tables_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(tables_dir))
    report = oracle_evaluate("greedy", opponents=("random",), games=1)
    assert report.outcomes and report.table_info["max_seeds"] == 42


@pytest.mark.slow
def test_callback_logs_the_oracle_figures(modiar_table: Table, tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from mancala_envs.analysis.oracle_callback import OracleCallback
    from mancala_envs.training.trainer import TrainConfig, make_training_env

    config = TrainConfig(game="modiar_v0", opponent="random", n_envs=1, n_steps=64, batch_size=64, n_epochs=1,
                         progress_bar=False)  # fmt: skip
    model = MaskablePPO("MlpPolicy", make_training_env(config), n_steps=64, batch_size=64, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [16]})  # fmt: skip
    logger = configure(str(tmp_path), ["csv"])
    model.set_logger(logger)
    callback = OracleCallback(every=128, game="modiar", opponents=("random",), games=2, table=modiar_table)
    try:
        model.learn(300, callback=callback)
    finally:
        logger.close()
    assert callback.evaluations >= 2 and callback.last_report is not None
    header = (tmp_path / "progress.csv").read_text().splitlines()[0].split(",")
    for key in ("oracle/optimal_move_rate", "oracle/mean_regret", "oracle/won_thrown_away",
                "oracle/exact_optimal_move_rate"):  # fmt: skip
        assert key in header
    rate = callback.last_report.summary().optimal_rate
    assert 0 <= rate <= 1


def test_report_json_round_numbers(tmp_path: Path) -> None:
    report = OracleReport("a", "modiar_v0", ["random"], 1, 0, decisions=[_decision(2, 2)])
    data = json.loads(report.to_json(tmp_path / "r.json").read_text())
    assert data["summary"]["all"]["optimal_rate"] == 1.0
    assert data["summary"]["all"]["won_thrown_rate"] is None or isinstance(data["summary"]["all"]["won_thrown_rate"],
                                                                           float)  # fmt: skip
    assert data["decision_columns"][:3] == ["opponent", "game", "ply"]
    assert np.array(data["decisions"]).shape == (1, 9)
    assert make_game(resolve_env_id("modiar")).name == "modiar"
