"""Round-robin tournaments between agents: win / draw / loss tables, ratings, seats, JSON / CSV / PNG.

``mancala-envs tournament --game ouril --agents random greedy alphabeta:4 --games 200`` (or
:func:`run_tournament`) plays every pair of agents ``games`` times, prints the tables and can write
them as JSON, CSV and a PNG plot. Needs the ``tournament`` extra
(``pip install 'mancala-envs[tournament]'``: scipy, matplotlib, tqdm).

Games and seats
    Agents are named as :func:`mancala_envs.agents.make_agent` names them, so every agent it knows
    plays here. Every unordered pair ``(i, j)``, ``i < j`` in the order given (pair index ``p`` in
    :func:`itertools.combinations` order), plays ``games_per_pair`` games. In game ``g`` agent ``i``
    moves first when ``g`` is even and agent ``j`` when it is odd. The first mover always sits at
    ``player_0`` and the env is made with ``first_player=0``, so "moves first" never depends on the
    env's own draw. With an even number of games each agent of a pair moves first equally often.
    A game is played to its end; a truncated game (the ply or turn cap) counts as the env scores it
    (``info["winner"]``, ``None`` for a draw).

Seeds
    Game ``g`` of pair ``p`` draws three seeds from ``numpy.random.SeedSequence([seed, p, g])``: the
    env's ``reset(seed=...)``, agent ``i``'s and agent ``j``'s (each agent is built afresh for every
    game with ``make_agent(name, seed)``). No game depends on another, so the results are the same
    whatever the number of workers or the order in which games finish.

Parallel games
    ``workers > 1`` plays chunks of games of one pair in a ``concurrent.futures.ProcessPoolExecutor``
    whose processes are started with **spawn**: every worker imports the library afresh and loads
    the compiled engine from numba's on-disk cache. Fork would start faster on Linux, but forking a
    process that runs threads (tqdm's monitor thread, torch's pools once an ``sb3:`` agent is loaded)
    can deadlock, and spawn behaves the same on every platform. As with any spawn-based pool, a
    script that calls :func:`run_tournament` with ``workers > 1`` needs an
    ``if __name__ == "__main__":`` guard. ``workers=1`` plays in the calling process. At most
    :func:`max_workers` processes (:data:`WORKERS_PER_CORE` per available core) and :data:`MAX_GAMES` games
    are taken. The workers print nothing (no compile notice over the progress bar: the command says once,
    before the bar, that they load or compile the engine) and leave Ctrl-C to the calling process.

Ctrl-C
    A ``KeyboardInterrupt`` while games are played stops the workers and raises
    :class:`TournamentInterrupted`, which holds the games finished so far as a result marked
    ``interrupted``; ``mancala-envs tournament --json PATH`` writes them (atomically) and exits with status 130.

Tables and intervals
    Rates come with 95% Wilson score intervals (:func:`mancala_envs.common.stats.wilson_interval`). The
    score is ``(wins + draws / 2) / games``; its interval is the Wilson interval of that rate with a
    draw counted as half a success (an approximation: draws make the true interval a little
    narrower). The seat table gives the first mover's results over all games (the first-player
    advantage: a score interval that excludes 50% is a significant advantage) and each agent's
    results when moving first and when moving second.

Ratings
    A Bradley-Terry model, ``P(i beats j) = 1 / (1 + exp(-(b_i - b_j)))``, fitted by maximum
    likelihood with a draw counted as half a win for each side. The likelihood is maximised with
    **scipy** (``scipy.optimize.minimize``, trust-region Newton with the exact gradient and Hessian);
    the 95% intervals are Wald intervals from the observed information (the inverse of the negative
    Hessian at the maximum). Ratings are reported on the Elo scale, ``400 / ln 10 = 173.7`` Elo per
    Bradley-Terry unit (a 75% expected score is ``ln 3`` units, 190.8 Elo), centred so that **the
    mean rating is 0**; :meth:`Ratings.difference` gives the difference of two agents with its own
    interval. Why scipy: it is maintained, already the base of the scientific Python stack, and
    fits exactly this model with half-point draws and information-based intervals in a few lines.
    ``choix`` fits Bradley-Terry but takes only whole wins (no draws, no weights) and gives no
    intervals; ``statsmodels`` (a binomial GLM) would fit too, but brings pandas and patsy for one
    logistic regression.

    **Regularisation.** An agent that wins every game has an infinite maximum-likelihood rating.
    Every pair that played therefore gets ``prior_draws`` virtual drawn games (default **1**; a
    Bayesian reading: a weak prior that the two are equal), which keeps every rating finite and
    moves a rating by little once a pair has played many games (200 games at 75%: 189.7 Elo
    instead of 190.8). ``fit_ratings(..., prior_draws=0)`` is the plain maximum-likelihood
    estimate; it raises ``ValueError`` when the results separate the agents.

Outputs
    :meth:`TournamentResult.format_table` (what the command prints): the ratings, the win / draw /
    loss table and the seat table. :meth:`TournamentResult.to_json`: the settings, ``ratings``,
    ``records`` (the rows of the CSV, as objects), ``seats`` and every game in ``games``;
    :meth:`TournamentResult.load_json` rebuilds the result from it (an interrupted tournament's JSON has
    ``"interrupted": true``, the settings and the games played, and no tables). :meth:`TournamentResult.to_csv`:
    one row per agent against all opponents (``opponent`` = ``"all"``) followed by one row per
    ordered pair (the agent's results against that opponent), in the order of the W/D/L table, with
    the columns of :data:`CSV_COLUMNS`:

    - ``agent``, ``opponent`` (an agent name or ``all``), ``games``, ``wins``, ``draws``, ``losses``;
    - ``win_rate``, ``win_low``, ``win_high`` and the same for ``draw`` and ``loss`` and ``score``
      (rates in [0, 1]; ``low`` / ``high`` bound the 95% Wilson interval);
    - ``first_games``, ``first_wins``, ``first_draws``, ``first_losses``: the games the agent moved
      first; ``second_...`` the same moving second;
    - ``elo``, ``elo_low``, ``elo_high``: the agent's rating and its 95% interval, on the ``all`` rows
      only (empty on pair rows).

    :meth:`TournamentResult.plot`: a PNG with two panels, the ratings with their intervals and a
    heatmap of each agent's score against each other agent (matplotlib, drawn without pyplot).

Example:
    >>> from mancala_envs.analysis.tournament import run_tournament
    >>> result = run_tournament("ouril", ["random", "greedy"], games_per_pair=4, workers=1, progress=False)
    >>> len(result.games), result.record("greedy").games
    (4, 4)
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import json
import math
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.analysis.ratings import ELO_PER_UNIT, Ratings, fit_ratings, require
from mancala_envs.common.errors import is_ctrl_c
from mancala_envs.common.files import check_destination
from mancala_envs.common.stats import Tally
from mancala_envs.common.validation import MAX_GAMES, check_game_count, check_integer, is_integer
from mancala_envs.envs.registration import resolve_env_id
from mancala_envs.rendering.html_replay import DEFAULT_FPS

__all__ = [
    "CSV_COLUMNS",
    "ELO_PER_UNIT",
    "MAX_GAMES",
    "WORKERS_PER_CORE",
    "GameResult",
    "Ratings",
    "Record",
    "TournamentInterrupted",
    "TournamentResult",
    "check_game_count",
    "fit_ratings",
    "is_ctrl_c",
    "max_workers",
    "play_games",
    "play_in_workers",
    "record_name",
    "run_tournament",
    "write_tournament_html",
]

JSON_FORMAT = "mancala-envs-tournament-1"
PROG = "mancala-envs tournament"
OUTCOMES = ("wins", "draws", "losses")
RATES = ("win", "draw", "loss", "score")
SEATS = ("first", "second")
CSV_COLUMNS = (
    "agent", "opponent", "games", "wins", "draws", "losses",
    *(f"{rate}_{part}" for rate in RATES for part in ("rate", "low", "high")),
    *(f"{seat}_{count}" for seat in SEATS for count in ("games", *OUTCOMES)),
    "elo", "elo_low", "elo_high",
)  # fmt: skip
"""The columns of :meth:`TournamentResult.to_csv`, in order (see the module docstring)."""
#: Worker processes per available core at most (:func:`max_workers`): more only wait for a core, and each holds
#: its own copy of the library and the compiled engine.
WORKERS_PER_CORE = 4


# --- games -------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResult:
    """One game of the tournament.

    ``first`` and ``second`` are agent indices (into ``TournamentResult.agents``): the agent that
    moved first (seated at ``player_0``) and the other. ``winner`` is an agent index or ``None``
    for a draw; ``scores`` are the env's final scores, the first mover's first.
    """

    pair: int
    game: int
    first: int
    second: int
    winner: int | None
    scores: tuple[int, int]
    plies: int
    end_reason: str
    truncated: bool


def _game_seeds(seed: int, pair: int, game: int) -> tuple[int, int, int]:
    """The env's seed and the seeds of the pair's lower- and higher-index agent for one game."""
    env_seed, low_seed, high_seed = np.random.SeedSequence([seed, pair, game]).generate_state(3)
    return int(env_seed), int(low_seed), int(high_seed)


def play_games(
    game: str,
    agents: Sequence[Any],
    games: Sequence[tuple[int, int]],
    seed: int,
    game_options: dict[str, Any] | None = None,
    record_dir: str | None = None,
    trust_remote_code: bool = False,
) -> list[GameResult]:
    """Plays the given games of a round robin (what each worker runs).

    Args:
        game: A registered game or variant id.
        agents: The tournament's agent names (all of them: pair indices refer to this list). An entry may also be
            an agent object (``act(env) -> int``: an :class:`~mancala_envs.agents.Agent`, a policy opponent), played
            in this process and reseeded for each game (``reseed(seed)``, else a fresh ``rng``), as the ladder
            places one (:func:`mancala_envs.analysis.ladder.place_agent`).
        games: ``(pair index, game index)`` of each game to play.
        seed: The tournament's seed.
        game_options: Options of the game.
        record_dir: If given, each game is also written there as a JSON game record
            (:func:`record_name`; the agents' names are the record's players).
        trust_remote_code: Load ``sb3:`` agents in full, unpickling the file (see :func:`run_tournament`).

    Returns:
        One :class:`GameResult` per game, in the order asked.
    """
    from mancala_envs.agents import make_agent
    from mancala_envs.envs.registration import make

    pairs = list(itertools.combinations(range(len(agents)), 2))
    env = make(game, first_player=0, **(game_options or {}))
    results = []
    for pair, number in games:
        low, high = pairs[pair]
        env_seed, low_seed, high_seed = _game_seeds(seed, pair, number)
        first, second = (low, high) if number % 2 == 0 else (high, low)
        built = {}
        for index, agent_seed in ((low, low_seed), (high, high_seed)):
            spec = agents[index]
            if isinstance(spec, str):  # a name: built afresh for each game
                built[index] = make_agent(spec, seed=agent_seed, trust_remote_code=trust_remote_code)
            else:  # an object: reseeded for each game
                if hasattr(spec, "reseed"):
                    spec.reseed(agent_seed)
                else:
                    spec.rng = np.random.default_rng(agent_seed)
                built[index] = spec
        players = {"player_0": built[first], "player_1": built[second]}  # the first mover is player_0
        table = env
        if record_dir is not None:
            from mancala_envs.wrappers import RecordGames

            names = [spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))
                     for spec in (agents[first], agents[second])]  # fmt: skip
            table = RecordGames(env, keep=True, players=names)
        table.reset(seed=env_seed)
        while True:
            mover = env.agent_selection
            if env.terminations[mover] or env.truncations[mover]:
                break
            table.step(players[mover].act(env))
        if record_dir is not None:
            table.records[-1].save(Path(record_dir) / record_name(pair, number))
        info = env.facts()
        winner = info["winner"]
        results.append(
            GameResult(
                pair=pair,
                game=number,
                first=first,
                second=second,
                winner=None if winner is None else (first, second)[winner],
                scores=(int(info["scores"][0]), int(info["scores"][1])),
                plies=int(info["ply"]),
                end_reason=str(info["end_reason"]),
                truncated=bool(env.truncations[mover]),
            )
        )
    return results


def record_name(pair: int, game: int) -> str:
    """The file name of a recorded tournament game: ``pair-03-game-0007.json`` (pairs are numbered
    as ``itertools.combinations`` of the agents, games from 0)."""
    return f"pair-{pair:02d}-game-{game:04d}.json"


def write_tournament_html(
    records: str | os.PathLike[str] | Sequence[Any],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    fps: int = DEFAULT_FPS,
) -> Path:
    """Writes a tournament's games as one self-contained HTML page with a game picker.

    Each game is replayed and drawn as SVG, ply by ply (:func:`mancala_envs.envs.records.write_html`); the page
    needs no network. Its size grows with the plies: 0.3 to 0.5 kB a ply for the two-row games and 1.1 kB for
    Omweso, plus 9 kB for the page (docs/replay.md has the measured figures).

    Args:
        records: A folder of game records (``run_tournament(record_dir=...)``, ``mancala-envs tournament --record
            DIR``: its ``pair-PP-game-GGGG.json`` files, in order), or a list of
            :class:`~mancala_envs.envs.records.GameRecord` or of saved records' paths.
        path: The ``.html`` file to write (its folder must exist).
        title: The page's title (default: ``"<game> tournament: <agents>"``).
        fps: Plies per second while playing, 1 to 60.

    Returns:
        The path written.

    Raises:
        ValueError: a folder that does not exist or holds no game records, an empty list, a ``path`` that does not
            end in ``.html`` or whose folder is missing, a bad ``fps``, or a record that does not replay; nothing is
            written then.
    """
    from mancala_envs.envs.records import GameRecord, write_html

    if isinstance(records, (str, os.PathLike)):
        folder = Path(records)
        if not folder.is_dir():
            raise ValueError(
                f"cannot read the tournament's games from {os.fspath(records)!r}: it is not a folder; pass the "
                "record_dir the games were written to (mancala-envs tournament --record DIR), or a list of records."
            )
        files = sorted(folder.glob("pair-*-game-*.json"))
        if not files:
            raise ValueError(
                f"the folder {os.fspath(records)!r} holds no tournament game records (pair-PP-game-GGGG.json); "
                "run the tournament with record_dir= (--record DIR) first."
            )
        loaded = [GameRecord.load(file) for file in files]
        names = [file.stem.replace("-", " ") for file in files]
    elif isinstance(records, Sequence) and not isinstance(records, bytes):
        if not records:
            raise ValueError("records is an empty list; give at least one GameRecord, or the folder of the games.")
        loaded = [record if isinstance(record, GameRecord) else GameRecord.load(record) for record in records]
        names = [f"game {number}" for number in range(len(loaded))]
    else:
        raise ValueError(
            f"records must be a folder of game records or a list of GameRecord (got {type(records).__name__})."
        )
    titles = []
    for name, record in zip(names, loaded, strict=True):
        players = "" if record.players is None else f": {record.players[0]} vs {record.players[1]}"
        result = record.result
        outcome = ""
        if result is not None:
            outcome = " (draw)" if result["winner"] is None else f" ({'1-0' if result['winner'] == 0 else '0-1'})"
        titles.append(f"{name}{players}{outcome}")
    if title is None:
        first = loaded[0]
        agents = sorted({name for record in loaded for name in (record.players or [])})
        game = first.env.split("/")[-1]
        title = f"{game} tournament" + (f": {', '.join(agents)}" if agents else "")
    return write_html(loaded, path, title=title, titles=titles, fps=fps)


# --- records and ratings -----------------------------------------------------------------
@dataclass(frozen=True)
class Record(Tally):
    """Wins, draws and losses of ``agent`` against ``opponent`` (``"all"``) from ``seat``
    (``"first"``, ``"second"`` or ``"both"``)."""

    agent: str
    opponent: str
    seat: str
    wins: int
    draws: int
    losses: int


# --- the result --------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """Every game of a round robin, and the tables, ratings and files made from them."""

    game: str
    agents: list[str]
    games_per_pair: int
    seed: int
    games: list[GameResult]
    game_options: dict[str, Any] = field(default_factory=dict)
    prior_draws: float = 1.0
    """Virtual draws per pair in the rating fit (see :func:`fit_ratings`)."""
    interrupted: bool = False
    """Ctrl-C stopped the tournament: ``games`` holds the games finished before it (:class:`TournamentInterrupted`)."""

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Pair ``p``'s agent indices."""
        return list(itertools.combinations(range(len(self.agents)), 2))

    @cached_property
    def _tally(self) -> np.ndarray:
        """``tally[i, j, seat, outcome]``: games of ``i`` against ``j`` with ``i`` moving first
        (seat 0) or second (1) that ``i`` won (outcome 0), drew (1) or lost (2)."""
        size = len(self.agents)
        tally = np.zeros((size, size, 2, 3), dtype=np.int64)
        for result in self.games:
            for seat, (agent, opponent) in enumerate(((result.first, result.second), (result.second, result.first))):
                outcome = 1 if result.winner is None else (0 if result.winner == agent else 2)
                tally[agent, opponent, seat, outcome] += 1
        return tally

    def _index(self, agent: str | int) -> int:
        if isinstance(agent, (int, np.integer)) and not isinstance(agent, bool) and 0 <= agent < len(self.agents):
            return int(agent)
        if agent in self.agents:
            return self.agents.index(agent)
        raise ValueError(f"unknown agent {agent!r}; the agents are {self.agents}.")

    def record(self, agent: str | int, opponent: str | int | None = None, seat: str = "both") -> Record:
        """``agent``'s results against ``opponent`` (``None``: all opponents) from ``seat``
        (``"first"``, ``"second"`` or ``"both"``)."""
        if seat not in ("first", "second", "both"):
            raise ValueError(f"seat must be 'first', 'second' or 'both' (got {seat!r}).")
        i = self._index(agent)
        rows = self._tally[i] if opponent is None else self._tally[i, self._index(opponent)][None]
        rows = rows.sum(axis=0)
        counts = rows.sum(axis=0) if seat == "both" else rows[SEATS.index(seat)]
        name = "all" if opponent is None else self.agents[self._index(opponent)]
        return Record(self.agents[i], name, seat, *(int(count) for count in counts))

    def first_mover(self) -> Record:
        """The first mover's results over every game (the first-player advantage)."""
        counts = self._tally[:, :, 0].sum(axis=(0, 1))
        return Record("first mover", "all", "first", *(int(count) for count in counts))

    def points_matrix(self) -> np.ndarray:
        """``points[i][j]``: agent ``i``'s points (wins + draws / 2) against agent ``j``."""
        both = self._tally.sum(axis=2)
        return both[..., 0] + both[..., 1] / 2

    def games_matrix(self) -> np.ndarray:
        """``games[i][j]``: games between agents ``i`` and ``j``."""
        return self._tally.sum(axis=(2, 3))

    @cached_property
    def ratings(self) -> Ratings:
        """The Bradley-Terry ratings (Elo scale, mean 0) fitted to the games."""
        return fit_ratings(self.points_matrix(), self.games_matrix(), self.agents, prior_draws=self.prior_draws)

    # --- rows --------------------------------------------------------------------------
    def records(self) -> list[Record]:
        """The rows of the W/D/L table and the CSV: per agent, all opponents then each opponent."""
        rows = []
        for agent in self.agents:
            rows.append(self.record(agent))
            rows.extend(self.record(agent, opponent) for opponent in self.agents if opponent != agent)
        return rows

    def seat_records(self) -> list[Record]:
        """The rows of the seat table: the first mover overall, then each agent moving first and second."""
        return [self.first_mover()] + [self.record(agent, seat=seat) for agent in self.agents for seat in SEATS]

    def _row(self, record: Record) -> dict[str, Any]:
        """One CSV / JSON row (the columns of :data:`CSV_COLUMNS`)."""
        row: dict[str, Any] = {"agent": record.agent, "opponent": record.opponent, "games": record.games}
        row.update(_counts(record))
        row.update(_rates(record))
        opponent = None if record.opponent == "all" else record.opponent
        for seat in SEATS:
            by_seat = self.record(record.agent, opponent, seat)
            row[f"{seat}_games"] = by_seat.games
            row.update({f"{seat}_{outcome}": count for outcome, count in _counts(by_seat).items()})
        if opponent is None:
            index = self._index(record.agent)
            low, high = self.ratings.interval(index)
            row.update(elo=float(self.ratings.elo[index]), elo_low=low, elo_high=high)
        else:
            row.update(elo=None, elo_low=None, elo_high=None)
        return row

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON data, equal to what :meth:`to_json` writes and ``json.load`` reads.

        An :attr:`interrupted` result gives the settings, ``"interrupted": true`` and the games played, without
        the tables (a pair may have no games yet).
        """
        settings = {
            "format": JSON_FORMAT,
            "game": self.game,
            "game_options": self.game_options,
            "agents": list(self.agents),
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
        }
        games = [{**asdict(result), "scores": list(result.scores)} for result in self.games]
        if self.interrupted:
            return {**settings, "interrupted": True, "prior_draws": self.prior_draws, "games": games}
        ratings = self.ratings
        return {
            **settings,
            "ratings": {
                "model": "Bradley-Terry, maximum likelihood, draws as half points",
                "scale": "Elo (400 / ln 10 per unit), mean 0",
                "level": ratings.level,
                "prior_draws": ratings.prior_draws,
                "agents": [
                    {
                        "agent": name,
                        "elo": float(ratings.elo[index]),
                        "elo_low": ratings.interval(index)[0],
                        "elo_high": ratings.interval(index)[1],
                        "se": float(ratings.se[index]),
                    }
                    for index, name in enumerate(self.agents)
                ],
                "covariance": ratings.covariance.tolist(),
            },
            "records": [self._row(record) for record in self.records()],
            "seats": [
                {"agent": seat.agent, "seat": seat.seat, "games": seat.games, **_counts(seat), **_rates(seat)}
                for seat in self.seat_records()
            ],
            "games": games,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], prior_draws: float | None = None) -> TournamentResult:
        """Rebuilds a result from :meth:`to_dict`'s data (its games; the tables are recomputed)."""
        if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
            raise ValueError(f"not a tournament result: the 'format' entry must be {JSON_FORMAT!r}.")
        interrupted = data.get("interrupted", False)
        if not isinstance(interrupted, bool):
            raise ValueError(f"malformed tournament result: 'interrupted' must be true or false (got {interrupted!r}).")
        try:
            games = [GameResult(**{**game, "scores": tuple(game["scores"])}) for game in data["games"]]
            stored_prior = data["prior_draws"] if interrupted else data["ratings"]["prior_draws"]
            return cls(
                game=data["game"],
                agents=list(data["agents"]),
                games_per_pair=int(data["games_per_pair"]),
                seed=int(data["seed"]),
                games=games,
                game_options=dict(data["game_options"]),
                prior_draws=stored_prior if prior_draws is None else prior_draws,
                interrupted=interrupted,
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed tournament result: {error!r}") from None

    def to_json(self, path: str | os.PathLike[str]) -> Path:
        """Writes :meth:`to_dict` as JSON, atomically (a reader sees the old file or the new one); returns the path."""
        from mancala_envs.common.files import atomic_write

        path = Path(path)
        atomic_write(path, (json.dumps(self.to_dict(), indent=1) + "\n").encode("utf-8"))
        return path

    @classmethod
    def load_json(cls, path: str | os.PathLike[str]) -> TournamentResult:
        """Reads a result written by :meth:`to_json`.

        Raises:
            FileNotFoundError / PermissionError: the file cannot be opened.
            ValueError: not a regular file (a folder, FIFO or device), larger than 256 MiB, not JSON or nested
                too deeply (:func:`mancala_envs.common.files.read_json_bounded`), or not a tournament result.
        """
        from mancala_envs.common.files import read_json_bounded

        return cls.from_dict(
            read_json_bounded(
                path, 256 * 2**20, "the tournament result", ValueError, expected="a JSON tournament result"
            )
        )

    def to_csv(self, path: str | os.PathLike[str]) -> Path:
        """Writes the per-agent and per-pair rows with the columns of :data:`CSV_COLUMNS`; returns the path."""
        path = Path(path)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for record in self.records():
                writer.writerow({key: "" if value is None else value for key, value in self._row(record).items()})
        return path

    # --- text --------------------------------------------------------------------------
    def format_table(self) -> str:
        """The ratings, the win / draw / loss table and the seat table, as printed by the command."""
        ratings = self.ratings
        lines = [
            f"{self.game}: {len(self.agents)} agents, {self.games_per_pair} games per pair, "
            + f"{len(self.games)} games, seed {self.seed}",
            "",
            "Ratings: Bradley-Terry by maximum likelihood, Elo scale, mean 0, "
            + f"{100 * ratings.level:.0f}% intervals ({ratings.prior_draws:g} virtual draw(s) per pair)",
        ]
        header = f"{'rank':>4}  {'agent':<{self._width}} {'elo':>7}  {'interval':>18}  {'games':>5}  {'score':>19}"
        lines += [header, "-" * len(header)]
        for rank, index in enumerate(ratings.order(), start=1):
            record = self.record(index)
            low, high = ratings.interval(index)
            lines.append(
                f"{rank:>4}  {self.agents[index]:<{self._width}} {ratings.elo[index]:>+7.1f}  "
                f"{f'[{low:+.1f}, {high:+.1f}]':>18}  {record.games:>5}  {_cell(record, 'score'):>19}"
            )
        lines += ["", "Win / draw / loss of each agent against all and against each opponent (95% Wilson intervals)"]
        lines += self._table(self.records(), "opponent", lambda r: r.opponent)
        lines += ["", "Seats: the first mover over all games (first-player advantage), each agent moving first, second"]
        lines += self._table(self.seat_records(), "seat", lambda r: r.seat)
        lines.append("score = (wins + draws / 2) / games")
        return "\n".join(lines)

    @property
    def _width(self) -> int:
        return max(12, *(len(name) for name in self.agents))

    def _table(self, records: list[Record], column: str, value: Any) -> list[str]:
        header = f"{'agent':<{self._width}} {column:<{self._width}} {'games':>5}  " + "  ".join(
            f"{name:>19}" for name in RATES
        )
        lines = [header, "-" * len(header)]
        for record in records:
            lines.append(
                f"{record.agent:<{self._width}} {value(record):<{self._width}} {record.games:>5}  "
                + "  ".join(f"{_cell(record, rate):>19}" for rate in RATES)
            )
        return lines

    # --- picture -----------------------------------------------------------------------
    def plot(self, path: str | os.PathLike[str]) -> Path:
        """Writes a PNG: the ratings with their intervals, and each agent's score against each other.

        Raises:
            ImportError: matplotlib is missing.
        """
        matplotlib = require("matplotlib", "the tournament plot")
        from matplotlib.figure import Figure

        ratings = self.ratings
        size = len(self.agents)
        order = ratings.order()
        figure = Figure(figsize=(6 + 0.9 * size, 1.6 + 0.55 * max(size, 4)), layout="constrained")
        rating_axes, heat_axes = figure.subplots(1, 2, width_ratios=[1, 1.15])

        rows = np.arange(size)[::-1]  # the best agent at the top
        elo = ratings.elo[order]
        half = ratings.z * ratings.se[order]
        rating_axes.errorbar(elo, rows, xerr=half, fmt="o", color="tab:blue", ecolor="tab:blue", capsize=4)
        rating_axes.axvline(0, color="grey", linewidth=0.8, linestyle=":")
        rating_axes.set_yticks(rows, [self.agents[i] for i in order])
        rating_axes.set_ylim(-0.7, size - 0.3)
        rating_axes.set_xlabel(f"Elo (mean 0), {100 * ratings.level:.0f}% interval")
        rating_axes.set_title("Bradley-Terry ratings")
        rating_axes.grid(axis="x", alpha=0.3)

        points, games = self.points_matrix(), self.games_matrix()
        with np.errstate(invalid="ignore", divide="ignore"):
            score = np.where(games > 0, points / np.where(games > 0, games, 1), np.nan)[np.ix_(order, order)]
        colours = matplotlib.colormaps["RdBu"].with_extremes(bad="0.9")  # grey diagonal
        image = heat_axes.imshow(np.ma.masked_invalid(score), cmap=colours, vmin=0, vmax=1)
        names = [self.agents[i] for i in order]
        heat_axes.set_xticks(range(size), names, rotation=30, ha="right")
        heat_axes.set_yticks(range(size), names)
        for row, col in itertools.product(range(size), repeat=2):
            if not math.isnan(score[row, col]):
                colour = "white" if abs(score[row, col] - 0.5) > 0.3 else "black"
                heat_axes.text(col, row, f"{100 * score[row, col]:.0f}%", ha="center", va="center", color=colour)
        heat_axes.set_xlabel("opponent")
        heat_axes.set_title("score of row against column")
        figure.colorbar(image, ax=heat_axes, fraction=0.046, label="(wins + draws / 2) / games")
        figure.suptitle(f"{self.game}: {self.games_per_pair} games per pair, seed {self.seed}")
        path = Path(path)
        figure.savefig(path, format="png", dpi=100)
        return path


def _cell(record: Record, rate: str) -> str:
    """``" 62.5% [47.0,  75.8]"``, or ``"-"`` with no games."""
    if not record.games:
        return "-"
    low, high = record.interval(rate)
    return f"{100 * record.rate(rate):5.1f}% [{100 * low:4.1f}, {100 * high:5.1f}]"


def _counts(record: Record) -> dict[str, int]:
    return {outcome: getattr(record, outcome) for outcome in OUTCOMES}


def _rates(record: Record) -> dict[str, float | None]:
    row: dict[str, float | None] = {}
    for rate in RATES:
        low, high = record.interval(rate)
        games = record.games > 0
        row.update({f"{rate}_rate": record.rate(rate) if games else None, f"{rate}_low": low if games else None,
                    f"{rate}_high": high if games else None})  # fmt: skip
    return row


# --- running ------------------------------------------------------------------------------
def _progress_bar(total: int, description: str) -> Any:
    tqdm = require("tqdm", "the progress bar (progress=True; --no-progress goes without)").tqdm
    return tqdm(total=total, unit="game", desc=description, file=sys.stderr)


def max_workers() -> int:
    """The most worker processes :func:`run_tournament` takes: :data:`WORKERS_PER_CORE` per core this process may
    run on (:func:`mancala_envs.envs.batch.available_cores`)."""
    from mancala_envs.envs.batch import available_cores

    return WORKERS_PER_CORE * available_cores()


def _quiet_worker() -> None:
    """Each worker's start: no compile notice (it would break the progress bar; the command says it once) and no
    Ctrl-C (the calling process stops the workers and keeps the games finished)."""
    import signal

    from mancala_envs.engine.jit import compile_notice

    compile_notice(False)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C (``KeyboardInterrupt``) stopped :func:`run_tournament`.

    A ``KeyboardInterrupt``, so that code which does not look for it stops as on any Ctrl-C.

    Attributes:
        result: The games finished before the interrupt, as a :class:`TournamentResult` with ``interrupted=True``
            (:meth:`TournamentResult.to_json` writes them).
    """

    def __init__(self, result: TournamentResult) -> None:
        super().__init__(result)
        self.result = result

    def __str__(self) -> str:
        return f"interrupted after {len(self.result.games)} games"


def run_tournament(
    game: str,
    agents: Sequence[str],
    games_per_pair: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    record_dir: str | os.PathLike[str] | None = None,
    trust_remote_code: bool = False,
    **game_options: Any,
) -> TournamentResult:
    """Plays a round robin: every pair of agents ``games_per_pair`` games, seats alternated.

    Args:
        game: A game name or registry id (``"ouril"``, ``"ouril_v0"``, ``"mancala/urim7-v0"``).
        agents: Two or more distinct names that :func:`mancala_envs.agents.make_agent` knows.
        games_per_pair: Games per pair (even: each agent of a pair moves first equally often).
        seed: Seeds every game and agent (see the module docstring); the results do not depend on
            ``workers``.
        workers: Processes playing games (``None``: one per available core; 1: in this process), at most
            :func:`max_workers`.
        progress: Show a tqdm progress bar on stderr.
        record_dir: If given, every game is also written there as a JSON game record
            (``pair-PP-game-GGGG.json``, see :func:`record_name`), which ``mancala-envs replay``
            prints or animates. The folder is created if missing, but its parent folder must exist
            (:func:`mancala_envs.common.files.check_destination`).
        trust_remote_code: Load ``sb3:`` agents in full with Stable-Baselines3, which unpickles objects stored
            in the file, so a crafted file runs arbitrary code (in every worker). Only for files you trust; by
            default saved models are loaded without unpickling, and files that need it are refused.
        **game_options: Options of the game (``first_player`` is the tournament's to set).

    Returns:
        The games, from which the tables, ratings and files are made.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: an unknown game, option or agent, fewer than two agents, an agent given
            twice, fewer than one game per pair, more than :data:`MAX_GAMES` games in all, a negative seed,
            fewer than one worker or more than :func:`max_workers`, a ``record_dir`` whose parent folder does
            not exist (or is a file).
        ImportError: ``progress`` without tqdm.
        TournamentInterrupted: Ctrl-C while the games are played; it holds the games finished so far.
    """
    pairs, record_dir = _check_arguments(agents, games_per_pair, seed, workers, record_dir, game_options)
    game = _check_game_and_agents(game, agents, trust_remote_code, game_options)
    if record_dir is not None:  # checked above: only this folder is created, never a missing parent
        Path(record_dir).mkdir(exist_ok=True)
    agents = list(agents)
    total = pairs * games_per_pair
    workers = min(max_workers() // WORKERS_PER_CORE if workers is None else int(workers), total)
    tasks = _tasks(pairs, games_per_pair, workers)
    options = dict(game_options)
    if progress and workers > 1:  # said once here: the workers' own compile notices would break the bar
        print(
            f"Starting {workers} worker processes: each loads the compiled engine from numba's cache, or compiles "
            "it (a cold cache: the first games wait a while).",
            file=sys.stderr,
            flush=True,
        )
    bar = _progress_bar(total, f"{game} round robin") if progress else None
    results: list[GameResult] = []
    played = {
        "game": game,
        "agents": agents,
        "seed": seed,
        "game_options": options,
        "record_dir": record_dir,
        "trust_remote_code": trust_remote_code,
    }
    try:
        if workers == 1:
            for task in tasks:
                results.extend(play_games(game, agents, task, seed, options, record_dir, trust_remote_code))
                if bar is not None:
                    bar.update(len(task))
        else:
            play_in_workers(workers, tasks, results, bar, played)
    except (KeyboardInterrupt, SystemError) as error:
        if not is_ctrl_c(error):
            raise
        results.sort(key=lambda result: (result.pair, result.game))
        raise TournamentInterrupted(
            TournamentResult(
                game=game,
                agents=agents,
                games_per_pair=games_per_pair,
                seed=seed,
                games=results,
                game_options=options,
                interrupted=True,
            )
        ) from None
    finally:
        if bar is not None:
            bar.close()
    results.sort(key=lambda result: (result.pair, result.game))
    return TournamentResult(
        game=game, agents=agents, games_per_pair=games_per_pair, seed=seed, games=results, game_options=options
    )


def _check_arguments(
    agents: Any, games_per_pair: Any, seed: Any, workers: Any, record_dir: Any, game_options: dict[str, Any]
) -> tuple[int, str | None]:
    """:func:`run_tournament`'s arguments checked (before any game or agent is made); returns the number of pairs
    and the records' folder as a string (checked, not yet created)."""
    if isinstance(agents, str) or not isinstance(agents, Sequence) or not all(isinstance(a, str) for a in agents):
        raise TypeError(f"agents must be a list of agent names such as ['random', 'greedy'] (got {agents!r}).")
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents (got {list(agents)}).")
    if len(set(agents)) != len(agents):
        raise ValueError(f"each agent may appear once (got {list(agents)}).")
    check_integer("games_per_pair", games_per_pair, 1)
    pairs = math.comb(len(agents), 2)
    check_game_count(
        "a tournament", pairs, "pair", games_per_pair, "Play fewer games per pair (--games) or fewer agents."
    )
    check_integer("seed", seed, 0)
    most = max_workers()
    if workers is not None and not is_integer(workers):
        raise TypeError(
            f"workers must be None or an integer from 1 to {most} (got {type(workers).__name__} {workers!r})."
        )
    if workers is not None and not 1 <= workers <= most:
        raise ValueError(
            f"workers must be None or an integer from 1 to {most} ({WORKERS_PER_CORE} per available core; more "
            f"processes only wait for a core) (got {workers})."
        )
    if "first_player" in game_options:
        raise ValueError("first_player is set by the tournament (seats alternate); leave it out of the game options.")
    if record_dir is not None:
        if not isinstance(record_dir, (str, os.PathLike)):
            raise TypeError(f"record_dir must be a folder path or None (got {type(record_dir).__name__}).")
        record_dir = os.fspath(check_destination(record_dir, "the game records", folder=True))
    return pairs, record_dir


def _check_game_and_agents(
    game: str, agents: Sequence[str], trust_remote_code: bool, game_options: dict[str, Any]
) -> str:
    """Makes the game and every agent once, so that an unknown one fails before any process starts; returns the
    game's registry id."""
    from mancala_envs.agents import make_agent
    from mancala_envs.envs.registration import make

    game = resolve_env_id(game)
    make(game, first_player=0, **game_options).reset(seed=0)  # an unknown game or option fails here
    for name in agents:  # an unknown agent, or a model refused without the opt-in, fails before any process starts
        make_agent(name, seed=0, trust_remote_code=trust_remote_code)
    return game


def _tasks(pairs: int, games_per_pair: int, workers: int) -> list[list[tuple[int, int]]]:
    """The games in tasks of ``(pair, game)``: runs of up to 8 games of one pair (one game each with one worker).

    Many tasks per worker keep every core busy to the end and the progress bar moving, and a game costs far more
    than sending a task.
    """
    total = pairs * games_per_pair
    chunk = 1 if workers == 1 else max(1, min(8, math.ceil(total / (16 * workers))))
    return [
        [(pair, number) for number in range(start, min(start + chunk, games_per_pair))]
        for pair in range(pairs)
        for start in range(0, games_per_pair, chunk)
    ]


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Holds SIGINT (Ctrl-C) back in the ``with`` block: blocked, and delivered when the block ends (main thread on
    POSIX; elsewhere nothing changes).

    Processes spawned in the block inherit the blocked signal, so a terminal's Ctrl-C, which reaches the whole
    process group, cannot interrupt a worker while it imports the library, before :func:`_quiet_worker` ignores
    it (each such worker printed a traceback); this process gets its Ctrl-C as soon as the workers are started.
    """
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    # The mask is this thread's (and the children's) alone: another thread of the process (the compile progress
    # thread) can still receive the signal, and Python would then raise KeyboardInterrupt here, in the middle of a
    # spawn (the worker then read half its start-up data: an EOFError traceback). So the handler only notes it.
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: held.append(number))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a Ctrl-C held back by the mask: noted now
        signal.signal(signal.SIGINT, previous)
        if held:
            if previous is signal.default_int_handler:
                raise KeyboardInterrupt
            if callable(previous):
                previous(signal.SIGINT, None)


def play_in_workers(
    workers: int, tasks: list[list[tuple[int, int]]], results: list[GameResult], bar: Any, played: dict[str, Any]
) -> None:
    """Plays ``tasks`` in ``workers`` spawned processes (:func:`play_games` with the keywords ``played``), adding
    each finished task's games to ``results`` and moving ``bar`` (a tqdm bar, or ``None``).

    What :func:`run_tournament` plays its games with, and the ladder its placements
    (:func:`mancala_envs.analysis.ladder.place_agent`). ``played`` must pickle (agent names, not objects).

    On Ctrl-C (the workers ignore it) the tasks not started are cancelled and the workers are stopped at once,
    so that the caller keeps the games finished and the command ends without waiting for the running tasks.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_quiet_worker)
    before = set(multiprocessing.active_children())
    stopping = False
    try:
        with _sigint_held():  # the workers start now, with Ctrl-C blocked: it never lands in their start-up
            futures = [pool.submit(play_games, games=task, **played) for task in tasks]
        for future in as_completed(futures):  # each task as it ends: the bar moves, Ctrl-C keeps what is done
            chunk_results = future.result()  # a worker's error is raised here
            results.extend(chunk_results)
            if bar is not None:
                bar.update(len(chunk_results))
    except KeyboardInterrupt:
        stopping = True
        raise
    finally:
        if stopping:
            ours = [child for child in multiprocessing.active_children() if child not in before]
            pool.shutdown(wait=False, cancel_futures=True)
            for child in ours:
                child.terminate()
            for child in ours:
                child.join()
        else:
            pool.shutdown(wait=True, cancel_futures=True)
