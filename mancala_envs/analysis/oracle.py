"""Agents measured against perfect play: regret from a solved table (``mancala-envs evaluate AGENT --oracle``).

:func:`oracle_evaluate` plays an agent against each opponent in both seats and, at every position where
the agent is to move, asks a perfect-play table (:mod:`mancala_envs.algorithms.retrograde`) what each legal move is
worth: :meth:`~mancala_envs.algorithms.retrograde.Table.move_values` gives the mover's **future margin** after each
move (the seeds the mover will still gain minus the opponent's, under perfect play from there on).
With ``best`` the largest of those margins, ``chosen`` the margin of the move the agent played and
``D`` the mover's store minus the opponent's before the move:

- **optimal move rate**: how often ``chosen == best`` (several moves may be optimal);
- **regret**: ``best - chosen`` in seeds (0 for an optimal move), averaged over the decisions;
- **won thrown away**: of the positions the mover wins under perfect play (``D + best > 0``), how many
  the chosen move turns into a draw or a loss (``D + chosen <= 0``);
- **drawn thrown away**: of the drawn positions (``D + best == 0``), how many the chosen move loses
  (``D + chosen < 0``).

Which positions count
    A *decision* is a position where the agent is to move, that the table covers
    (:meth:`~mancala_envs.algorithms.retrograde.Table.covers`), with **at least two legal moves**: a forced move has
    no regret to measure, so the moves the agent could not choose are counted apart (``forced``) and
    left out of every figure. Positions the table does not cover (a partial table) are counted as
    ``uncovered``. The move values hold the real game's history for the move itself (a move that
    repeats a position ends the game, and is valued so); after it, the table's values.

Exact positions
    A table value is *exact* when it holds whatever positions were seen before; inside the cycle
    classes of the repetition rule the table holds the value of its class-capped game instead
    (:attr:`~mancala_envs.algorithms.retrograde.TableValue.exact`, see :mod:`mancala_envs.algorithms.retrograde`).
    A decision is exact when the values of **all** its legal moves are exact (so the best move, the chosen move's
    value and the regret are all exact). Every figure is given over all decisions and over the exact
    ones only.

    With ``history=True`` (``--history``), each move whose table value is not exact is valued instead
    by :meth:`~mancala_envs.algorithms.retrograde.Table.search` on the position it leads to: alpha-beta over the real
    game, its repetition memory included, with the table at its leaves. Every decision is then exact
    (unless a search runs out of its ``search_budget``, when the move keeps its table value, not exact).

Whole games of an acyclic game (Kalah)
    In a game where no position recurs (``Game.acyclic``) every decision is valued, the table's or not. The
    table is :func:`mancala_envs.solver.solver_table`'s: the largest saved in ``tables``, else the default one
    (Kalah on 6 pits: 16 seeds, about 25-40 s), **built and saved there**. Inside it, the moves are valued by the
    table as above. At a decision outside it, two searches
    (:meth:`~mancala_envs.algorithms.retrograde.Table.search`: MTD(f) over the transposition table the process
    keeps, which the ``perfect`` agent of the same folder shares) give all the figures need: the position's
    exact value is ``best``, and the chosen move's value is its gain plus the value of the position it leads to
    (:func:`searched_move_margin`); the other moves are not searched. Such decisions are exact and counted as
    ``searched``; none is ``uncovered``.

Intervals (95%)
    Rates: Wilson score intervals (:func:`mancala_envs.common.stats.wilson_interval`), each decision counted
    as one trial. Mean regret: a normal interval whose standard error is clustered by game (the
    decisions of one game are not independent: ``Var = G / (G - 1) * sum_g (s_g - n_g * mean)^2 / N^2``
    over the ``G`` games, with ``s_g`` the regret and ``n_g`` the decisions of game ``g``, ``N`` all
    decisions); NaN bounds with fewer than two games holding decisions.

Games and seeds
    Against opponent ``k`` (in the order given), game ``g`` (``0 <= g < games``) has the agent move
    first when ``g`` is even; the first mover sits at ``player_0`` (the env is made with
    ``first_player=0``). The game draws three seeds from ``numpy.random.SeedSequence([seed, k, g])``:
    the env's ``reset(seed=...)``, the agent's and the opponent's. A named agent or opponent is built
    afresh for every game with :func:`~mancala_envs.agents.make_agent`; an object is reseeded
    (``reseed(seed)``, or a fresh ``rng`` for an :class:`~mancala_envs.agents.Agent`). The report is the
    same for the same arguments.

Training
    :class:`~mancala_envs.analysis.oracle_callback.OracleCallback` (the ``train`` extra) is a Stable-Baselines3
    callback that evaluates the learner every ``every`` timesteps and logs ``oracle/optimal_move_rate``,
    ``oracle/mean_regret``, ``oracle/won_thrown_away`` (and the same over exact decisions,
    ``oracle/exact_...``) to the model's logger (TensorBoard when the model logs there). It lives in its own
    module, :mod:`mancala_envs.analysis.oracle_callback`, so this one needs no Stable-Baselines3
    (``from mancala_envs.analysis.oracle import OracleCallback`` still works until 0.3.0, with a warning).

Example (needs the Modiar table: ``mancala-envs solve modiar``, about 70 s)::

    from mancala_envs.analysis.oracle import oracle_evaluate

    report = oracle_evaluate("greedy", game="modiar", opponents=("random", "alphabeta:2"), games=20)
    print(report.format())
    report.summary().mean_regret
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from mancala_envs.agents import Agent, make_agent
from mancala_envs.algorithms.retrograde import IGNORED_FIELDS, Table, TableError, load_table, solvable
from mancala_envs.common.stats import Tally, wilson_interval
from mancala_envs.common.validation import check_game_count, check_integer
from mancala_envs.engine.state import LEGAL, PLAYER, PLY, STORE
from mancala_envs.envs.registration import make, make_game, resolve_env_id
from mancala_envs.games.game import Game
from mancala_envs.solver import DEFAULT_BUDGET, solver_table

__all__ = [
    "DEFAULT_OPPONENTS",
    "JSON_FORMAT",
    "Decision",
    "GameOutcome",
    "OracleReport",
    "OutcomeRecord",
    "RegretSummary",
    "mean_interval",
    "oracle_evaluate",
    "searched_move_margin",
]

#: The opponents :func:`oracle_evaluate` plays by default.
DEFAULT_OPPONENTS = ("random", "greedy", "alphabeta:2")
#: The ``"format"`` entry of :meth:`OracleReport.to_dict`.
JSON_FORMAT = "mancala-envs-oracle-1"
_Z95 = NormalDist().inv_cdf(0.975)


# --- records ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Decision:
    """One position where the agent chose among two or more legal moves, valued by the table.

    Attributes:
        opponent: Index of the opponent (into :attr:`OracleReport.opponents`).
        game: The game's index against that opponent.
        ply: The ply of the position (0 for the game's first).
        legal: Legal moves in the position.
        action: The move the agent played.
        best: The largest future margin of any legal move (seeds, for the mover).
        chosen: The future margin of ``action``.
        store_diff: The mover's store minus the opponent's before the move.
        exact: Whether every legal move's value is exact.
    """

    opponent: int
    game: int
    ply: int
    legal: int
    action: int
    best: int
    chosen: int
    store_diff: int
    exact: bool

    @property
    def regret(self) -> int:
        """Seeds given away by the move: ``best - chosen`` (0 for an optimal move)."""
        return self.best - self.chosen

    @property
    def optimal(self) -> bool:
        return self.chosen == self.best

    @property
    def won(self) -> bool:
        """The mover wins the position under perfect play."""
        return self.store_diff + self.best > 0

    @property
    def drawn(self) -> bool:
        """The position is a draw under perfect play."""
        return self.store_diff + self.best == 0

    @property
    def thrown(self) -> bool:
        """A won position the move turns into a draw or a loss, or a drawn one it loses."""
        after = self.store_diff + self.chosen
        return (self.won and after <= 0) or (self.drawn and after < 0)


@dataclass(frozen=True)
class GameOutcome:
    """One game of the evaluation, seen from the agent.

    Attributes:
        opponent: Index of the opponent.
        game: The game's index against that opponent.
        seat: 0 when the agent moved first (at ``player_0``), 1 when second.
        result: ``"win"``, ``"draw"`` or ``"loss"`` for the agent (as the env scores it).
        scores: The final scores, the agent's first.
        plies: Plies played.
        forced: The agent's positions with a single legal move (not decisions).
        uncovered: The agent's positions the table does not cover (left out; never in an acyclic game).
        searched: The agent's decisions outside the table valued by a search (acyclic games).
    """

    opponent: int
    game: int
    seat: int
    result: str
    scores: tuple[int, int]
    plies: int
    forced: int
    uncovered: int
    searched: int = 0


@dataclass(frozen=True)
class OutcomeRecord(Tally):
    """The agent's wins, draws and losses (rates and Wilson intervals from
    :class:`~mancala_envs.common.stats.Tally`)."""

    wins: int
    draws: int
    losses: int


def mean_interval(sums: Sequence[float], counts: Sequence[int], z: float = _Z95) -> tuple[float, float, float]:
    """The mean of values grouped in clusters, with a normal interval clustered by group.

    Args:
        sums: The sum of the values of each group (a game).
        counts: The number of values of each group.
        z: The normal quantile (1.96: 95%).

    Returns:
        ``(mean, low, high)``; NaN for all three with no values, NaN bounds with fewer than two
        groups holding values.
    """
    total = float(sum(counts))
    if total == 0:
        return math.nan, math.nan, math.nan
    mean = float(sum(sums)) / total
    groups = [(s, n) for s, n in zip(sums, counts, strict=False) if n > 0]
    if len(groups) < 2:
        return mean, math.nan, math.nan
    spread = sum((s - n * mean) ** 2 for s, n in groups)
    se = math.sqrt(len(groups) / (len(groups) - 1) * spread) / total
    return mean, mean - z * se, mean + z * se


@dataclass(frozen=True)
class RegretSummary:
    """The figures of a set of decisions (one opponent or all; all decisions or the exact ones).

    Attributes:
        label: What the decisions are (an opponent's name or ``"all"``).
        decisions: Decisions counted.
        optimal: Decisions where the agent played an optimal move.
        regret_total: The sum of the regrets (seeds).
        mean_regret: Mean regret in seeds per decision (NaN with no decisions).
        mean_regret_ci: Its 95% interval, clustered by game.
        max_regret: The largest regret of one move (0 with no decisions).
        won: Decisions in a won position.
        won_thrown: Won positions the agent's move turned into a draw or a loss.
        drawn: Decisions in a drawn position.
        drawn_thrown: Drawn positions the agent's move lost.
    """

    label: str
    decisions: int
    optimal: int
    regret_total: int
    mean_regret: float
    mean_regret_ci: tuple[float, float]
    max_regret: int
    won: int
    won_thrown: int
    drawn: int
    drawn_thrown: int

    @classmethod
    def of(cls, label: str, decisions: Sequence[Decision]) -> RegretSummary:
        """Summarises ``decisions``."""
        per_game: dict[tuple[int, int], list[int]] = {}
        for decision in decisions:
            cell = per_game.setdefault((decision.opponent, decision.game), [0, 0])
            cell[0] += decision.regret
            cell[1] += 1
        mean, low, high = mean_interval([s for s, _ in per_game.values()], [n for _, n in per_game.values()])
        return cls(
            label=label,
            decisions=len(decisions),
            optimal=sum(d.optimal for d in decisions),
            regret_total=sum(d.regret for d in decisions),
            mean_regret=mean,
            mean_regret_ci=(low, high),
            max_regret=max((d.regret for d in decisions), default=0),
            won=sum(d.won for d in decisions),
            won_thrown=sum(d.won and d.thrown for d in decisions),
            drawn=sum(d.drawn for d in decisions),
            drawn_thrown=sum(d.drawn and d.thrown for d in decisions),
        )

    @property
    def optimal_rate(self) -> float:
        """The optimal move rate (NaN with no decisions)."""
        return self.optimal / self.decisions if self.decisions else math.nan

    @property
    def optimal_ci(self) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`optimal_rate`."""
        return wilson_interval(self.optimal, self.decisions)

    @property
    def won_thrown_rate(self) -> float:
        """Won positions thrown away, as a share of the won positions (NaN with none)."""
        return self.won_thrown / self.won if self.won else math.nan

    @property
    def won_thrown_ci(self) -> tuple[float, float]:
        return wilson_interval(self.won_thrown, self.won)

    @property
    def drawn_thrown_rate(self) -> float:
        """Drawn positions lost, as a share of the drawn positions (NaN with none)."""
        return self.drawn_thrown / self.drawn if self.drawn else math.nan

    @property
    def drawn_thrown_ci(self) -> tuple[float, float]:
        return wilson_interval(self.drawn_thrown, self.drawn)

    def as_dict(self) -> dict[str, Any]:
        """The counts, rates and intervals as plain JSON values (NaN as ``None``)."""
        row = asdict(self)
        row["mean_regret_ci"] = list(self.mean_regret_ci)
        for name in ("optimal", "won_thrown", "drawn_thrown"):
            row[f"{name}_rate"] = getattr(self, f"{name}_rate")
            row[f"{name}_ci95"] = list(getattr(self, f"{name}_ci"))
        return _json_numbers(row)


def _json_numbers(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_numbers(v) for v in value]
    return value


# --- the report ---------------------------------------------------------------------------------------------------
@dataclass
class OracleReport:
    """Everything :func:`oracle_evaluate` measured: every game and every decision, and the settings.

    Attributes:
        agent: The agent's name.
        game: The game's env id.
        opponents: The opponents' names, in the order played.
        games: Games per opponent.
        seed: The seed.
        outcomes: Every game, by opponent then game.
        decisions: Every decision, in the order played.
        table_info: The table's size and build figures.
        seconds: Wall time of the evaluation.
        history: Whether moves without an exact table value were searched with the game's history.
    """

    agent: str
    game: str
    opponents: list[str]
    games: int
    seed: int
    outcomes: list[GameOutcome] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    table_info: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    history: bool = False

    def summary(self, opponent: str | int | None = None, exact_only: bool = False) -> RegretSummary:
        """The figures against one opponent (name or index) or all (``None``), over all decisions or the exact ones.

        Raises:
            ValueError: an opponent that was not played.
        """
        index = self._opponent_index(opponent)
        chosen = [d for d in self.decisions if (index is None or d.opponent == index) and (d.exact or not exact_only)]
        label = "all" if index is None else self.opponents[index]
        return RegretSummary.of(label, chosen)

    def outcomes_record(self, opponent: str | int | None = None) -> OutcomeRecord:
        """The agent's wins, draws and losses against one opponent or all."""
        index = self._opponent_index(opponent)
        games = [o for o in self.outcomes if index is None or o.opponent == index]
        return OutcomeRecord(*(sum(o.result == r for o in games) for r in ("win", "draw", "loss")))

    def counts(self, opponent: str | int | None = None) -> dict[str, int]:
        """The agent's positions: ``decisions``, ``exact`` decisions, ``forced`` moves, ``uncovered`` positions and
        ``searched`` decisions (outside an acyclic game's table)."""
        index = self._opponent_index(opponent)
        games = [o for o in self.outcomes if index is None or o.opponent == index]
        decisions = [d for d in self.decisions if index is None or d.opponent == index]
        return {
            "decisions": len(decisions),
            "exact": sum(d.exact for d in decisions),
            "forced": sum(o.forced for o in games),
            "uncovered": sum(o.uncovered for o in games),
            "searched": sum(o.searched for o in games),
        }

    def _opponent_index(self, opponent: str | int | None) -> int | None:
        if opponent is None or opponent == "all":
            return None
        if isinstance(opponent, str):
            if opponent not in self.opponents:
                raise ValueError(f"opponent {opponent!r} was not played; choose one of {self.opponents} or None.")
            return self.opponents.index(opponent)
        if not 0 <= int(opponent) < len(self.opponents):
            raise ValueError(f"opponent index {opponent} is out of range (0 to {len(self.opponents) - 1}).")
        return int(opponent)

    # --- text ---------------------------------------------------------------------------------------------------
    def format(self) -> str:
        """The report as printed by ``mancala-envs evaluate --oracle``: the settings, then the figures per
        opponent and overall, over all decisions and over the exact decisions only."""
        counts = self.counts()
        size = self.table_info.get("max_seeds")
        lines = [
            f"{self.agent} against perfect play in {self.game}: {len(self.opponents)} opponent(s) x {self.games} games "
            f"(seats alternated), seed {self.seed}"
            + (f"; table of up to {size} seeds" if size is not None else "")
            + ("; moves without an exact table value searched with the game's history" if self.history else ""),
            f"{counts['decisions']} decisions (positions with two or more legal moves, valued by the table), "
            f"{counts['exact']} of them exact; {counts['forced']} forced moves left out"
            + (f"; {counts['uncovered']} positions outside the table" if counts["uncovered"] else "")
            + (f"; {counts['searched']} decisions outside the table valued by a search" if counts["searched"] else ""),
        ]
        for exact_only in (False, True):
            lines += ["", "Exact decisions only (every move's value exact)" if exact_only else "All decisions"]
            lines += self._table(exact_only)
        lines += [
            "",
            "optimal = the move keeps the perfect-play value; regret = best margin - chosen margin (seeds);",
            "won->not won = won positions the move turned into a draw or loss; drawn->lost likewise;",
            "score = the agent's (wins + draws / 2) / games; 95% intervals: Wilson for rates, normal clustered by game "
            + "for the mean.",
        ]
        return "\n".join(lines)

    def _table(self, exact_only: bool) -> list[str]:
        width = max(12, *(len(name) for name in self.opponents))
        header = (
            f"{'opponent':<{width}} {'games':>5} {'score':>19} {'decisions':>9} {'optimal':>19} "
            f"{'mean regret':>21} {'won->not won':>30} {'drawn->lost':>30}"
        )
        lines = [header, "-" * len(header)]
        for opponent in [*range(len(self.opponents)), None]:
            summary = self.summary(opponent, exact_only)
            record = self.outcomes_record(opponent)
            score = _rate_cell(record.points, record.games, record.interval("score")) if record.games else "-"
            lines.append(
                f"{summary.label:<{width}} {record.games:>5} {score:>19} {summary.decisions:>9} "
                f"{_rate_cell(summary.optimal, summary.decisions, summary.optimal_ci):>19} "
                f"{_mean_cell(summary):>21} "
                f"{_count_cell(summary.won_thrown, summary.won, summary.won_thrown_ci):>30} "
                f"{_count_cell(summary.drawn_thrown, summary.drawn, summary.drawn_thrown_ci):>30}"
            )
        return lines

    # --- files --------------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The settings, the summaries (per opponent and ``all``, over all and exact decisions), every game and
        every decision (as rows of ``decision_columns``), as JSON values."""
        names = [*self.opponents, "all"]
        return {
            "format": JSON_FORMAT,
            "agent": self.agent,
            "game": self.game,
            "opponents": list(self.opponents),
            "games": self.games,
            "seed": self.seed,
            "seconds": round(self.seconds, 3),
            "history": self.history,
            "table": _json_numbers(dict(self.table_info)),
            "counts": {name: self.counts(name) for name in names},
            "results": {name: {**asdict(self.outcomes_record(name)), "score": self.outcomes_record(name).rate("score")}
                        for name in names},
            "summary": {name: self.summary(name).as_dict() for name in names},
            "summary_exact": {name: self.summary(name, exact_only=True).as_dict() for name in names},
            "outcomes": [{**asdict(o), "scores": list(o.scores)} for o in self.outcomes],
            "decision_columns": list(Decision.__dataclass_fields__),
            "decisions": [list(asdict(d).values()) for d in self.decisions],
        }  # fmt: skip

    def to_json(self, path: str | os.PathLike[str]) -> Path:
        """Writes :meth:`to_dict` as JSON; returns the path."""
        path = Path(path)
        path.write_text(json.dumps(_json_numbers(self.to_dict()), indent=1) + "\n", encoding="utf-8")
        return path


def _rate_cell(count: float, trials: int, interval: tuple[float, float]) -> str:
    if not trials:
        return "-"
    low, high = interval
    return f"{100 * count / trials:5.1f}% [{100 * low:4.1f}, {100 * high:5.1f}]"


def _count_cell(count: int, trials: int, interval: tuple[float, float]) -> str:
    if not trials:
        return "-"
    return f"{count}/{trials} " + _rate_cell(count, trials, interval)


def _mean_cell(summary: RegretSummary) -> str:
    if not summary.decisions:
        return "-"
    low, high = summary.mean_regret_ci
    if math.isnan(low):
        return f"{summary.mean_regret:6.3f}"
    return f"{summary.mean_regret:6.3f} [{low:5.3f}, {high:5.3f}]"


# --- playing ------------------------------------------------------------------------------------------------------
def _game_seeds(seed: int, opponent: int, game: int) -> tuple[int, int, int]:
    """The env's, the agent's and the opponent's seeds of one game."""
    env_seed, agent_seed, opponent_seed = np.random.SeedSequence([seed, opponent, game]).generate_state(3)
    return int(env_seed), int(agent_seed), int(opponent_seed)


def _player(spec: Any, seed: int, trust_remote_code: bool) -> Any:
    """A fresh agent from a name, or the given object reseeded."""
    if isinstance(spec, str):
        return make_agent(spec, seed=seed, trust_remote_code=trust_remote_code)
    if hasattr(spec, "reseed"):
        spec.reseed(seed)
    elif isinstance(spec, Agent):
        spec.rng = np.random.default_rng(seed)
    return spec


def _table_config(game: Game) -> dict[str, Any]:
    """The config fields a table depends on (all but ``max_plies`` and ``repetition``)."""
    fields = asdict(game.config)
    return {key: value for key, value in fields.items() if key not in IGNORED_FIELDS}


def _name(spec: Any) -> str:
    return spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))


def _check_player(spec: Any, what: str) -> None:
    if isinstance(spec, str):
        return
    if not callable(getattr(spec, "act", None)):
        raise TypeError(
            f"{what} must be an agent name such as 'greedy' or an object with act(env) -> int "
            f"(got {type(spec).__name__})."
        )


def oracle_evaluate(
    agent: Any,
    game: str = "modiar",
    opponents: Sequence[Any] = DEFAULT_OPPONENTS,
    games: int = 200,
    seed: int = 0,
    table: Table | None = None,
    tables: str | os.PathLike[str] | None = None,
    trust_remote_code: bool = False,
    history: bool = False,
    search_budget: int = 1_000_000,
    **game_options: Any,
) -> OracleReport:
    """Plays ``agent`` against each opponent in both seats and values each of its decisions with a perfect-play table.

    Args:
        agent: An agent name (:func:`~mancala_envs.agents.make_agent`: ``"greedy"``, ``"alphabeta:4"``,
            ``"sb3:model.zip"``...) or an object with ``act(env) -> int`` (an Agent, a
            :class:`~mancala_envs.agents.sb3.PolicyOpponent`); see the module docstring for its seeding.
        game: A game name or env id with a table (``"modiar"``; two-row games with a partial table too).
        opponents: Names or objects as for ``agent``.
        games: Games per opponent (the agent moves first in the even-numbered ones).
        seed: Seeds every game (see the module docstring); the report is the same for the same seed.
        table: The table to use (default: the largest saved table of the game in ``tables``,
            :func:`~mancala_envs.algorithms.retrograde.load_table` with ``max_seeds=-1``; in an acyclic game,
            :func:`mancala_envs.solver.solver_table`'s, built and saved when none is saved).
        tables: The folder of the tables (default :func:`~mancala_envs.algorithms.retrograde.table_dir`,
            ``$MANCALA_ENVS_TABLES``).
        trust_remote_code: Load ``sb3:`` agents in full (a crafted file runs arbitrary code; only for files you trust).
        history: Value the moves whose table value is not exact by a search of the real game with its
            history (:meth:`~mancala_envs.algorithms.retrograde.Table.search`), so that every decision is exact.
        search_budget: Positions one such search may visit (it falls back to the table value beyond). In an
            acyclic game the searches outside the table visit at most :data:`mancala_envs.solver.DEFAULT_BUDGET`.
        **game_options: Options of the game (the table must have been built with the same ones).

    Returns:
        The games and decisions, with :meth:`OracleReport.format` and :meth:`OracleReport.summary`.

    Raises:
        TableError: no table for the game (the message names the ``mancala-envs solve`` command), a
            table of another game or config, or a search outside an acyclic game's table that ran out of budget.
        TypeError / ValueError: an unknown game, agent or option, no opponents, ``games`` below 1 or more
            than :data:`~mancala_envs.common.validation.MAX_GAMES` games in all, a negative seed.
    """
    _check_player(agent, "agent")
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        raise TypeError(f"opponents must be a list of agent names such as ['random', 'greedy'] (got {opponents!r}).")
    if not opponents:
        raise ValueError("oracle_evaluate needs at least one opponent, e.g. opponents=['random'].")
    for opponent in opponents:
        _check_player(opponent, "each opponent")
    games = check_integer("games", games, 1)
    check_game_count(
        "oracle_evaluate",
        len(opponents),
        "opponent",
        games,
        "Play fewer games per opponent (--games) or fewer opponents.",
    )
    seed = check_integer("seed", seed, 0)
    if not isinstance(history, bool):
        raise TypeError(f"history must be True or False (got {history!r}).")
    search_budget = check_integer("search_budget", search_budget, 1)
    if isinstance(agent, str):  # an unknown name, or a model that needs the opt-in, fails before any game
        make_agent(agent, seed=0, trust_remote_code=trust_remote_code)
    for opponent in opponents:
        if isinstance(opponent, str):
            make_agent(opponent, seed=0, trust_remote_code=trust_remote_code)
    env_id = resolve_env_id(game)
    rules = make_game(env_id, **game_options)
    if table is None:
        reason = solvable(rules)
        if reason is not None:
            raise TableError(f"{reason}; the oracle needs a perfect-play table.")
        if type(rules).acyclic:  # the solver's table and transposition table (the perfect agent's too)
            table = solver_table(rules, folder=tables)
        else:
            table = load_table(rules, max_seeds=-1, folder=tables)  # the largest saved table of the game
    elif not isinstance(table, Table):
        raise TypeError(
            f"table must be a mancala_envs.algorithms.retrograde.Table or None (got {type(table).__name__})."
        )
    elif table.game.name != rules.name or _table_config(table.game) != _table_config(rules):
        raise TableError(
            f"the table solves {table.game.name} with {_table_config(table.game)}, not {env_id} with "
            f"{_table_config(rules)}; load the table of this game (load_table(game, folder=...))."
        )
    if table.game.config != rules.config:  # the same table, read with the played config's states (Table.value's door)
        folder = table.folder
        table = Table(rules, table.max_seeds, table.table, table.info)
        table.folder = folder
    report = OracleReport(
        agent=_name(agent),
        game=env_id,
        opponents=[_name(o) for o in opponents],
        games=games,
        seed=seed,
        table_info={"max_seeds": table.max_seeds, "positions": table.positions, **table.info},
        history=history,
    )
    started = time.perf_counter()
    env = make(env_id, first_player=0, **game_options)
    for index, opponent_spec in enumerate(opponents):
        for number in range(games):
            env_seed, agent_seed, opponent_seed = _game_seeds(seed, index, number)
            seat = number % 2
            players = {seat: _player(agent, agent_seed, trust_remote_code),
                       1 - seat: _player(opponent_spec, opponent_seed, trust_remote_code)}  # fmt: skip
            report.outcomes.append(
                _play(
                    env,
                    table,
                    players,
                    seat,
                    index,
                    number,
                    env_seed,
                    report.decisions,
                    search_budget if history else 0,
                )
            )
    report.seconds = time.perf_counter() - started
    return report


def _play(
    env: Any,
    table: Table,
    players: dict[int, Any],
    seat: int,
    opponent: int,
    number: int,
    env_seed: int,
    decisions: list[Decision],
    search_budget: int,
) -> GameOutcome:
    """Plays one game, appending the agent's decisions (moves searched with their history when
    ``search_budget`` > 0); returns its outcome."""
    env.reset(seed=env_seed)
    raw = env.unwrapped
    game = raw.game
    forced = uncovered = searched = 0
    while True:
        mover = env.agent_selection
        if env.terminations[mover] or env.truncations[mover]:
            break
        state = raw.state_array
        player = int(state[PLAYER])
        action = int(players[player].act(env))
        if player == seat:
            if not table.covers(state) and type(game).acyclic:
                if bin(int(state[LEGAL])).count("1") < 2:
                    forced += 1
                else:
                    decisions.append(_searched_decision(table, state, action, opponent, number))
                    searched += 1
            elif not table.covers(state):
                uncovered += 1
            else:
                # a forced move is no decision: only a choice among several is searched with the history
                choice = bin(int(state[LEGAL])).count("1") >= 2
                values = table.move_values(state, search_budget=search_budget if choice else 0)
                if len(values) < 2:
                    forced += 1
                else:
                    stores = game.stores(state)
                    decisions.append(Decision(
                        opponent=opponent, game=number, ply=int(state[PLY]), legal=len(values), action=action,
                        best=max(v.margin for v in values.values()), chosen=values[action].margin,
                        store_diff=int(stores[player] - stores[1 - player]),
                        exact=all(v.exact for v in values.values()),
                    ))  # fmt: skip
        env.step(action)
    info = env.facts()
    winner = info["winner"]
    result = "draw" if winner is None else ("win" if winner == seat else "loss")
    scores = info["scores"]
    return GameOutcome(
        opponent=opponent, game=number, seat=seat, result=result,
        scores=(int(scores[seat]), int(scores[1 - seat])), plies=int(info["ply"]), forced=forced, uncovered=uncovered,
        searched=searched,
    )  # fmt: skip


def _searched_decision(table: Table, state: np.ndarray, action: int, opponent: int, number: int) -> Decision:
    """A decision outside an acyclic game's table: the position's value and the chosen move's, by two searches."""
    player = int(state[PLAYER])
    found = _search(table, state)
    return Decision(
        opponent=opponent, game=number, ply=int(state[PLY]), legal=bin(int(state[LEGAL])).count("1"), action=action,
        best=found, chosen=searched_move_margin(table, state, action),
        store_diff=int(state[STORE + player] - state[STORE + 1 - player]), exact=True,
    )  # fmt: skip


def _search(table: Table, state: np.ndarray, budget: int = DEFAULT_BUDGET) -> int:
    """The exact margin of ``state`` by :meth:`Table.search`, or a TableError naming the fix."""
    found = table.search(state, budget=budget)
    if found is None:
        raise _budget_spent(table, budget)
    return found.margin


def _budget_spent(table: Table, budget: int) -> TableError:
    """The TableError of a search that visited ``budget`` positions without settling a value."""
    return TableError(
        f"the oracle's search of a {table.game.name} position visited {budget:,} positions without settling its "
        f"value; build a larger table (`mancala-envs solve {table.game.name} --max-seeds K`) so that the search "
        "meets it sooner."
    )


def searched_move_margin(table: Table, state: np.ndarray, action: int, budget: int = DEFAULT_BUDGET) -> int:
    """The mover's future margin of ``action`` from ``state``
    (:meth:`~mancala_envs.algorithms.retrograde.Table.move_margin`); with ``best`` the value of ``state``,
    ``best - searched_move_margin(...)`` is the move's regret.

    Raises:
        TableError: the search ran out of ``budget`` (the message names the fix).
    """
    margin = table.move_margin(state, action, budget)
    if margin is None:
        raise _budget_spent(table, budget)
    return margin


# --- training: OracleCallback moved to its own module, which imports Stable-Baselines3 -------------------------------
def __getattr__(name: str) -> Any:
    """``OracleCallback`` moved to :mod:`mancala_envs.analysis.oracle_callback` (the old path warns until 0.3.0)."""
    if name == "OracleCallback":
        from mancala_envs.common.moved import moved_name

        return moved_name(__name__, name, "mancala_envs.analysis.oracle_callback")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
