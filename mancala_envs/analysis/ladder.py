"""One strength ladder per game: fixed anchor agents rated by a round robin, and any agent placed on that scale.

A **ladder** (:class:`Ladder`) is a round robin of a game's anchor agents (:func:`ladder_anchors`: ``random``,
``greedy``, ``alphabeta:2/4/6``, ``mcts:400``, ``pretrained``, the strong search :data:`STRONG_ANCHOR`, and
``perfect`` where the whole game is solved cheaply), rated with Bradley-Terry on the Elo scale **pinned to
``random`` = 0** (:func:`~mancala_envs.analysis.ratings.fit_ratings` with ``pin="random"``), each rating with its 95%
interval. :func:`build_ladder` plays it (:func:`~mancala_envs.analysis.tournament.run_tournament`); the shipped
ladders live in ``mancala_envs/analysis/ladders/<game>.json`` (package data, :func:`load_shipped_ladder`), built by
``mancala-envs ladder --build --game G``.

**Placing an agent** (:func:`place_agent`, ``mancala-envs ladder AGENT --game G``): the agent (an agent name such as
``"alphabeta:3"`` or ``"sb3:model.zip"``, an :class:`~mancala_envs.agents.Agent` or any object with
``act(env) -> int``, or a Python callable ``(game, state) -> action``) plays ``games_per_anchor`` games against each
anchor, seats alternated; its rating is fitted with the anchors' ratings held fixed
(:func:`~mancala_envs.analysis.ratings.fit_fixed_rating`: a one-dimensional maximum likelihood, with ``prior_draws``
virtual draws against each anchor as the ladder's fit has, and the observed-information interval). The interval
adds the anchors' uncertainty (the ladder's covariance, by the delta method) to that of the placement's own games.
Where the game is solved cheaply the exact regret against perfect play is measured beside it
(:func:`~mancala_envs.analysis.oracle.oracle_evaluate`: the mean seeds lost per decision, against the oracle's
default opponents).

What a rating means: Elo points, 400 / ln 10 = 173.7 per Bradley-Terry unit, so a rating ``d`` above another expects
the score ``1 / (1 + 10 ** (-d / 400))`` against it (+191 Elo: 75%); ``random`` is 0 in every game, so ratings are
comparable within a game, not across games.

Seeds
    The ladder's games are the tournament's (``SeedSequence([seed, pair, game])``). A placement with agents
    ``[agent, *anchors]`` plays pairs ``0 .. K-1`` of that list (the agent against anchor ``k``) with
    :func:`~mancala_envs.analysis.tournament.play_games`, the same seeds whatever ``workers``.

Files
    A ladder file is JSON (:data:`LADDER_FORMAT`, version :data:`LADDER_VERSION`): the game id, its options and
    config, the round robin's settings, each anchor with its rating and interval, each pair's wins, draws and
    losses, and the command that built it. It holds no date, so that a rebuild with the same settings diffs clean.
    :meth:`Ladder.load` reads at most :data:`MAX_LADDER_BYTES` and checks every entry (types, finite numbers, the
    pin at 0, each pair once, the counts adding up to ``games_per_pair``); a file that fails names itself and the fix.

Example:
    >>> from mancala_envs.analysis.ladder import build_ladder, place_agent
    >>> ladder = build_ladder("kalah", ["random", "greedy"], games_per_pair=4, workers=1,
    ...                       pits_per_row=3, seeds_per_pit=2)
    >>> ladder.rating("random").elo
    0.0
    >>> placement = place_agent("greedy", "kalah", games_per_anchor=4, workers=1, ladder=ladder, regret=False,
    ...                         pits_per_row=3, seeds_per_pit=2)
    >>> [score.anchor for score in placement.scores]
    ['random', 'greedy']
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents import make_agent
from mancala_envs.agents.agent import StateAgent
from mancala_envs.algorithms.retrograde import TableError, solvable
from mancala_envs.analysis.ratings import FixedRating, fit_fixed_rating, fit_ratings
from mancala_envs.common.files import atomic_write, check_destination, read_json_bounded
from mancala_envs.common.stats import Tally
from mancala_envs.common.validation import check_game_count, check_integer, is_integer
from mancala_envs.envs.registration import make_game, resolve_env_id
from mancala_envs.games.game import Game
from mancala_envs.solver import default_max_seeds

__all__ = [
    "ALPHAZERO_ANCHOR",
    "DEFAULT_ANCHORS",
    "DEFAULT_GAMES_PER_ANCHOR",
    "DEFAULT_GAMES_PER_PAIR",
    "LADDERS_DIR",
    "LADDER_FORMAT",
    "LADDER_VERSION",
    "MAX_LADDER_BYTES",
    "PERFECT_ANCHOR",
    "PIN",
    "STRONG_ANCHOR",
    "AnchorRating",
    "AnchorScore",
    "CallableAgent",
    "Ladder",
    "LadderError",
    "PairRecord",
    "Placement",
    "build_ladder",
    "check_same_game",
    "ladder_anchors",
    "load_shipped_ladder",
    "place_agent",
    "shipped_ladder_path",
    "solved_cheaply",
]

#: The strong classical search's anchor: iterative deepening under a time budget of 50 ms a move (``alphabeta:t=S``,
#: :func:`~mancala_envs.agents.search_agents.deepening_search`); its play, alone of the anchors', depends on the
#: machine's speed.
STRONG_ANCHOR = "alphabeta:t=0.05"
#: The AlphaZero anchor, where the game has shipped AlphaZero weights (``az:N``, :mod:`mancala_envs.agents.alphazero`).
ALPHAZERO_ANCHOR = "az:100"
#: The agent every ladder holds at 0.
PIN = "random"
#: The anchor added where the whole game is solved cheaply (:func:`solved_cheaply`).
PERFECT_ANCHOR = "perfect"
#: The anchors of every ladder, roughly weakest first (the one place to change them); see :func:`ladder_anchors`.
DEFAULT_ANCHORS: tuple[str, ...] = (
    PIN,
    "greedy",
    "alphabeta:2",
    "alphabeta:4",
    "alphabeta:6",
    "mcts:400",
    "pretrained",
    ALPHAZERO_ANCHOR,
    STRONG_ANCHOR,
)
#: Games per pair of a shipped ladder's round robin.
DEFAULT_GAMES_PER_PAIR = 100
#: Games against each anchor when an agent is placed.
DEFAULT_GAMES_PER_ANCHOR = 40
#: The ``"format"`` entry of a ladder file, and its ``"version"``.
LADDER_FORMAT = "mancala-envs-ladder"
LADDER_VERSION = 1
#: The largest ladder file read (a ladder of 10 anchors is about 5 KB).
MAX_LADDER_BYTES = 1 << 20
#: The folder of the shipped ladders (package data): ``<game name>.json``.
LADDERS_DIR = Path(__file__).resolve().parent / "ladders"
#: The confidence level of every interval.
LEVEL = 0.95
#: Virtual draws per pair in the fits (as :func:`~mancala_envs.analysis.ratings.fit_ratings`'s default).
PRIOR_DRAWS = 1.0
#: Games per task sent to a worker process.
_CHUNK = 8


class LadderError(ValueError):
    """A ladder file that cannot be used: missing, of another format or game, or with a bad entry (the message
    names the file and the fix)."""


# --- anchors --------------------------------------------------------------------------------------------------------
def _rules(game: str | Game, options: dict[str, Any]) -> tuple[str, Game]:
    """The registry id and the rules of ``game`` with ``options``."""
    if isinstance(game, Game):
        if options:
            raise ValueError("pass game options with a game name, not with a Game (its config holds them).")
        return resolve_env_id(game.name), game
    if not isinstance(game, str):
        raise TypeError(f"game must be a game name or registry id such as 'kalah' (got {type(game).__name__}).")
    env_id = resolve_env_id(game)
    return env_id, make_game(env_id, **options)


def solved_cheaply(game: Game) -> bool:
    """Whether ``game`` can be tabled (:func:`~mancala_envs.algorithms.retrograde.solvable`) and its whole table is
    small enough to be the default one (:func:`~mancala_envs.solver.default_max_seeds`: Modiar, small Kalah boards):
    where ``perfect`` joins the ladder and a placement's regret is exact."""
    return solvable(game) is None and default_max_seeds(game) == game.total_seeds


def _has_weights(game: Game) -> bool:
    from mancala_envs.agents.pretrained import PretrainedWeightsError, load_pretrained

    try:
        load_pretrained(game)
    except PretrainedWeightsError:  # no weights for the game, or weights of another config
        return False
    return True


def _has_alphazero_weights(game: Game) -> bool:
    from mancala_envs.agents.alphazero import load_alphazero
    from mancala_envs.agents.pretrained import PretrainedWeightsError

    try:
        load_alphazero(game)
    except PretrainedWeightsError:  # no AlphaZero weights for the game, or weights of another config
        return False
    return True


def ladder_anchors(game: str | Game, **game_options: Any) -> list[str]:
    """The anchors of ``game``'s ladder, weakest first: :data:`DEFAULT_ANCHORS`, decided by the game's properties.

    ``pretrained`` and :data:`ALPHAZERO_ANCHOR` only where the game (with these options) has shipped weights of
    their kind; ``perfect`` where the whole game is solved cheaply (:func:`solved_cheaply`).

    Raises:
        ValueError: an unknown game or option.

    Example:
        >>> "perfect" in ladder_anchors("modiar"), "perfect" in ladder_anchors("ouril")
        (True, False)
    """
    _, rules = _rules(game, game_options)
    anchors = list(DEFAULT_ANCHORS)
    if not _has_weights(rules):
        anchors.remove("pretrained")
    if not _has_alphazero_weights(rules):
        anchors.remove(ALPHAZERO_ANCHOR)
    if solved_cheaply(rules):
        anchors.append(PERFECT_ANCHOR)
    return anchors


# --- the ladder ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorRating:
    """An anchor's rating on the ladder (Elo, ``random`` = 0) and its interval."""

    name: str
    elo: float
    low: float
    high: float


@dataclass(frozen=True)
class PairRecord(Tally):
    """The results of ``agent`` against ``opponent`` in the ladder's round robin (``agent`` listed first); games,
    rates and intervals from :class:`~mancala_envs.common.stats.Tally`."""

    agent: str
    opponent: str
    wins: int
    draws: int
    losses: int


@dataclass
class Ladder:
    """A game's anchors with their ratings (Elo, ``random`` = 0, 95% intervals) and the round robin behind them.

    Attributes:
        game: The registry id (``"modiar_v0"``).
        game_options: The options the game was made with (``{}`` for the game as registered).
        config: The game's full config (``dataclasses.asdict``, as JSON), which a placement must match.
        anchors: The anchors, in the order they were given.
        pairs: Each pair's results, in ``itertools.combinations`` order of the anchors.
        games_per_pair: Games per pair, seats alternated.
        seed: The round robin's seed.
        prior_draws: Virtual draws per pair in the fit.
        level: The intervals' confidence level.
        command: The command that rebuilds it.
        covariance: The covariance of the anchors' ratings (Elo squared; ``random``'s row and column 0), which a
            placement adds to its own uncertainty.
    """

    game: str
    game_options: dict[str, Any]
    config: dict[str, Any]
    anchors: list[AnchorRating]
    pairs: list[PairRecord]
    games_per_pair: int
    seed: int
    prior_draws: float = PRIOR_DRAWS
    level: float = LEVEL
    command: str = ""
    covariance: list[list[float]] | None = None

    @property
    def names(self) -> list[str]:
        """The anchors' names."""
        return [anchor.name for anchor in self.anchors]

    def rating(self, name: str) -> AnchorRating:
        """The anchor ``name``'s rating.

        Raises:
            ValueError: no such anchor.
        """
        for anchor in self.anchors:
            if anchor.name == name:
                return anchor
        raise ValueError(f"{name!r} is not an anchor of this ladder; its anchors are {self.names}.")

    def fixed_rating(self, anchors: Sequence[str], points: Sequence[float], games: Sequence[int]) -> FixedRating:
        """The rating of an agent that scored ``points`` in ``games`` against each of ``anchors`` (some or all of
        this ladder's), with the anchors' ratings held fixed: the fit of a placement
        (:func:`~mancala_envs.analysis.ratings.fit_fixed_rating` with the ladder's prior draws, level, and the
        covariance of the anchors named).

        Raises:
            ValueError: a name that is not an anchor of this ladder.
        """
        index = [self.names.index(self.rating(name).name) for name in anchors]
        covariance = None if self.covariance is None else np.asarray(self.covariance)[np.ix_(index, index)]
        return fit_fixed_rating(
            [self.anchors[i].elo for i in index],
            list(points),
            list(games),
            prior_draws=self.prior_draws,
            level=self.level,
            covariance=covariance,
        )

    def ranked(self) -> list[AnchorRating]:
        """The anchors from the highest rating to the lowest."""
        return sorted(self.anchors, key=lambda anchor: -anchor.elo)

    def format(self, placement: Placement | None = None) -> str:
        """The ladder as text, highest first; with ``placement``, its agent inserted at its place (``>>``)."""
        rows = [(anchor.name, anchor.elo, anchor.low, anchor.high, False) for anchor in self.ranked()]
        if placement is not None:
            low, high = placement.interval
            rows.append((placement.agent, placement.elo, low, high, True))
            rows.sort(key=lambda row: -row[1])
        width = max(len(row[0]) for row in rows)
        title = f"{self.game} ladder ({self.games_per_pair} games per pair, seed {self.seed}; Elo, {PIN} = 0)"
        lines = [title, f"   {'agent':<{width}}  {'Elo':>7}  95% interval"]
        for name, elo, low, high, new in rows:
            mark = ">> " if new else "   "
            lines.append(f"{mark}{name:<{width}}  {elo:7.1f}  [{low:7.1f}, {high:7.1f}]")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The ladder as a Markdown table, highest first (what ``docs/update_ladders.py`` writes)."""
        lines = [
            "| rank | anchor | Elo (`random` = 0) | 95% interval |",
            "|---:|---|---:|---|",
        ]
        for rank, anchor in enumerate(self.ranked(), 1):
            lines.append(f"| {rank} | `{anchor.name}` | {anchor.elo:.0f} | [{anchor.low:.0f}, {anchor.high:.0f}] |")
        lines.append(
            f"\n{len(self.anchors)} anchors, {self.games_per_pair} games per pair (seats alternated), "
            f"seed {self.seed}: `{self.command}`."
        )
        return "\n".join(lines)

    # --- files ---------------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The ladder as plain JSON data (what :meth:`save` writes)."""
        return {
            "format": LADDER_FORMAT,
            "version": LADDER_VERSION,
            "game": self.game,
            "game_options": self.game_options,
            "config": self.config,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "prior_draws": self.prior_draws,
            "level": self.level,
            "scale": f"Elo (400 / ln 10 per Bradley-Terry unit), {PIN} = 0",
            "command": self.command,
            "anchors": [dataclasses.asdict(anchor) for anchor in self.anchors],
            "pairs": [dataclasses.asdict(pair) for pair in self.pairs],
            "covariance": self.covariance,
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Writes the ladder as JSON (atomically; the folder must exist); returns the path."""
        path = check_destination(path, "the ladder")
        text = json.dumps(self.to_dict(), indent=1) + "\n"
        atomic_write(path, text.encode("utf-8"))
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Ladder:
        """Reads and checks a ladder file (see the module docstring, "Files").

        Raises:
            LadderError: (a ``ValueError``) not a regular file, larger than :data:`MAX_LADDER_BYTES`, not JSON, not
                a ladder of this format and version, or an entry of the wrong type or value; the message names
                the file and the fix.
            FileNotFoundError: no file at ``path``.
        """
        data = read_json_bounded(path, MAX_LADDER_BYTES, f"the ladder file {os.fspath(path)!r}", LadderError,
                                 expected="a ladder file")  # fmt: skip
        return cls.from_dict(data, where=f"the ladder file {os.fspath(path)!r}")

    @classmethod
    def from_dict(cls, data: Any, where: str = "the ladder") -> Ladder:
        """The ladder of :meth:`to_dict`'s data, every entry checked (raises :class:`LadderError`)."""
        return _checked_ladder(data, where)


def _checked_ladder(data: Any, where: str) -> Ladder:
    fix = "rebuild it with `mancala-envs ladder --build --game GAME --out PATH`"

    def bad(problem: str) -> LadderError:
        return LadderError(f"{where} {problem}; {fix}.")

    if not isinstance(data, dict):
        raise bad("is not a JSON object")
    if data.get("format") != LADDER_FORMAT or data.get("version") != LADDER_VERSION:
        raise bad(
            f"is not a ladder of format {LADDER_FORMAT!r} version {LADDER_VERSION} (it says {data.get('format')!r} "
            f"version {data.get('version')!r})"
        )
    expected = {"format", "version", "game", "game_options", "config", "games_per_pair", "seed", "prior_draws",
                "level", "scale", "command", "anchors", "pairs", "covariance"}  # fmt: skip
    if set(data) != expected:
        raise bad(f"has the entries {sorted(data)}, not {sorted(expected)}")
    for key in ("game", "scale", "command"):
        if not isinstance(data[key], str):
            raise bad(f"has a {key!r} that is not a string")
    for key in ("game_options", "config"):
        if not isinstance(data[key], dict):
            raise bad(f"has a {key!r} that is not an object")
    for key, low in (("games_per_pair", 1), ("seed", 0)):
        if not is_integer(data[key]) or isinstance(data[key], bool) or data[key] < low:
            raise bad(f"has a {key!r} that is not an integer >= {low} (got {data[key]!r})")
    if not _number(data["prior_draws"]) or data["prior_draws"] < 0:
        raise bad(f"has a 'prior_draws' that is not a number >= 0 (got {data['prior_draws']!r})")
    if not _number(data["level"]) or not 0 < data["level"] < 1:
        raise bad(f"has a 'level' that is not a number in (0, 1) (got {data['level']!r})")
    anchors = _checked_entries(data["anchors"], "anchors", {"name": str, "elo": float, "low": float, "high": float},
                               bad)  # fmt: skip
    names = [anchor["name"] for anchor in anchors]
    if len(names) < 2 or len(set(names)) != len(names) or PIN not in names:
        raise bad(f"has anchors {names}: two or more, each once, {PIN!r} among them")
    for anchor in anchors:
        if not anchor["low"] <= anchor["elo"] <= anchor["high"]:
            raise bad(f"has anchor {anchor['name']!r} rated {anchor['elo']} outside its interval")
    pin = anchors[names.index(PIN)]
    if (pin["elo"], pin["low"], pin["high"]) != (0, 0, 0):
        raise bad(f"has {PIN!r} rated {pin['elo']}, not 0 with interval [0, 0]")
    pair_fields = {"agent": str, "opponent": str, "wins": int, "draws": int, "losses": int}
    pairs = _checked_entries(data["pairs"], "pairs", pair_fields, bad)
    wanted = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    if [(pair["agent"], pair["opponent"]) for pair in pairs] != wanted:
        raise bad(f"does not hold one entry per pair of its anchors, in order ({len(wanted)} pairs)")
    for pair in pairs:
        counts = (pair["wins"], pair["draws"], pair["losses"])
        if min(counts) < 0 or sum(counts) != data["games_per_pair"]:
            raise bad(
                f"has {pair['agent']!r} against {pair['opponent']!r} at {counts} wins, draws and losses, which are "
                f"not {data['games_per_pair']} games"
            )
    covariance = data["covariance"]
    size = len(names)
    if not (
        isinstance(covariance, list)
        and len(covariance) == size
        and all(isinstance(row, list) and len(row) == size and all(map(_number, row)) for row in covariance)
    ):
        raise bad(f"has a 'covariance' that is not a {size} x {size} matrix of finite numbers")
    return Ladder(
        covariance=covariance,
        game=data["game"],
        game_options=data["game_options"],
        config=data["config"],
        anchors=[AnchorRating(a["name"], float(a["elo"]), float(a["low"]), float(a["high"])) for a in anchors],
        pairs=[PairRecord(p["agent"], p["opponent"], p["wins"], p["draws"], p["losses"]) for p in pairs],
        games_per_pair=data["games_per_pair"],
        seed=data["seed"],
        prior_draws=float(data["prior_draws"]),
        level=float(data["level"]),
        command=data["command"],
    )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _checked_entries(
    value: Any, key: str, fields: dict[str, type], bad: Callable[[str], LadderError]
) -> list[dict[str, Any]]:
    """A list of objects with exactly ``fields`` (``float``: any finite number; ``int``: an integer)."""
    if not isinstance(value, list):
        raise bad(f"has {key!r} that is not a list")
    for index, entry in enumerate(value):
        if not isinstance(entry, dict) or set(entry) != set(fields):
            raise bad(f"has {key}[{index}] that is not an object of {sorted(fields)}")
        for name, kind in fields.items():
            item = entry[name]
            ok = (
                isinstance(item, str)
                if kind is str
                else _number(item)
                if kind is float
                else isinstance(item, int) and not isinstance(item, bool)
            )
            if not ok:
                raise bad(
                    f"has {key}[{index}].{name} = {item!r}, not {'a finite number' if kind is float else kind.__name__}"
                )
    return value


def _config(game: Game) -> dict[str, Any]:
    """The game's config as JSON data (tuples as lists)."""
    return json.loads(json.dumps(dataclasses.asdict(game.config)))


def _default_command(game: str, anchors: Sequence[str], games_per_pair: int, seed: int, options: dict[str, Any]) -> str:
    """The ``mancala-envs ladder --build`` line that rebuilds a ladder (``game`` as the command takes it)."""
    words = ["mancala-envs", "ladder", "--build", "--game", game, "--games-per-pair",
             str(games_per_pair), "--seed", str(seed)]  # fmt: skip
    if list(anchors) != ladder_anchors(game, **options):
        words += ["--anchors", *anchors]
    for key, value in options.items():
        words += ["--option", f"{key}={json.dumps(value)}"]
    return shlex.join(words)


def build_ladder(
    game: str,
    anchors: Sequence[str] | None = None,
    games_per_pair: int = DEFAULT_GAMES_PER_PAIR,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
    command: str | None = None,
    **game_options: Any,
) -> Ladder:
    """Plays the round robin of ``game``'s anchors and rates them (Elo, ``random`` = 0, 95% intervals).

    Args:
        game: A game name or registry id.
        anchors: The anchors (default :func:`ladder_anchors`); ``random`` must be among them.
        games_per_pair: Games per pair, seats alternated.
        seed: Seeds every game (:func:`~mancala_envs.analysis.tournament.run_tournament`).
        workers: Processes playing games (``None``: one per core; 1: in this process).
        progress: A progress bar on stderr.
        command: The command recorded in the ladder (default: the ``mancala-envs ladder --build`` line that
            rebuilds it).
        **game_options: Options of the game.

    Returns:
        The ladder (:meth:`Ladder.save` writes it).

    Raises:
        ValueError / TypeError: an unknown game, option or anchor, no ``random`` among the anchors, and the
            tournament's refusals (games, seed, workers).
        TableError: ``perfect`` among the anchors in a game whose table cannot be built here.
    """
    env_id, rules = _rules(game, game_options)
    anchors = ladder_anchors(rules) if anchors is None else anchors
    if isinstance(anchors, str) or not isinstance(anchors, Sequence) or not all(isinstance(a, str) for a in anchors):
        raise TypeError(f"anchors must be a list of agent names such as ['random', 'greedy'] (got {anchors!r}).")
    if PIN not in anchors:
        raise ValueError(f"a ladder is pinned to {PIN!r} = 0: put {PIN!r} among the anchors (got {list(anchors)}).")
    _ensure_table(rules, anchors)
    from mancala_envs.analysis.tournament import run_tournament

    result = run_tournament(env_id, list(anchors), games_per_pair, seed=seed, workers=workers, progress=progress,
                            **game_options)  # fmt: skip
    ratings = fit_ratings(result.points_matrix(), result.games_matrix(), result.agents, prior_draws=PRIOR_DRAWS,
                          level=LEVEL, pin=PIN)  # fmt: skip
    rated = []
    for index, name in enumerate(result.agents):
        low, high = ratings.interval(index)
        elo = float(ratings.elo[index])
        rated.append(AnchorRating(name, round(elo, 3), round(min(low, elo), 3), round(max(high, elo), 3)))
    covariance = [[round(float(value), 3) for value in row] for row in ratings.covariance]
    pairs = []
    for low_index, high_index in result.pairs:
        record = result.record(low_index, high_index)
        pairs.append(PairRecord(record.agent, record.opponent, record.wins, record.draws, record.losses))
    return Ladder(
        game=env_id,
        game_options=dict(game_options),
        config=_config(rules),
        anchors=rated,
        pairs=pairs,
        games_per_pair=games_per_pair,
        seed=seed,
        covariance=covariance,
        command=command
        if command is not None
        else _default_command(
            game if isinstance(game, str) and "/" in game else rules.name, anchors, games_per_pair, seed, game_options
        ),
    )


def _ensure_table(rules: Game, anchors: Sequence[str]) -> None:
    """With ``perfect`` among the anchors, its table: loaded, else built and saved once (Modiar: about 40 s), before
    any game. Alpha-beta reads the same table at its leaves, so the anchors play as they did when the ladder was
    built."""
    if PERFECT_ANCHOR in anchors:
        from mancala_envs.solver import solver_table

        solver_table(rules)


def shipped_ladder_path(game: str | Game, **game_options: Any) -> Path:
    """Where ``game``'s shipped ladder lives: :data:`LADDERS_DIR` / ``<game name>.json``.

    Raises:
        LadderError: the game (a variant id such as ``mancala/kalah-6x6-v0``, or options) has another config than
            the game as registered, which the shipped ladder rates; the message says to write it elsewhere.
    """
    env_id, rules = _rules(game, game_options)
    registered = make_game(resolve_env_id(rules.name))
    if _config(rules) != _config(registered):
        changed = _changed(_config(rules), _config(registered))
        options = "".join(f" --option {key}=VALUE" for key in changed)
        raise LadderError(
            f"the shipped {rules.name} ladder rates {resolve_env_id(rules.name)} as registered, and {env_id} here "
            f"differs in {changed}; build a ladder of this config elsewhere (`mancala-envs ladder --build --game "
            f"{rules.name}{options} --out PATH`) and place agents on it with --ladder PATH (ladder=PATH)."
        )
    return LADDERS_DIR / f"{rules.name}.json"


def load_shipped_ladder(game: str | Game, **game_options: Any) -> Ladder:
    """``game``'s shipped ladder (for the game as registered, or options that leave its config unchanged).

    Raises:
        LadderError: no shipped ladder for the game, a config it does not rate (options that change the game),
            or a damaged file; the message names the ``mancala-envs ladder --build`` command that builds one.
    """
    env_id, rules = _rules(game, game_options)
    path = shipped_ladder_path(rules)
    build = f"`mancala-envs ladder --build --game {rules.name} --out {rules.name}-ladder.json`"
    if not path.is_file():
        raise LadderError(
            f"no shipped ladder for {rules.name} (looked for {path}); build one with {build} and pass it "
            "(--ladder PATH, ladder=Ladder.load(PATH))."
        )
    ladder = Ladder.load(path)
    check_same_game(ladder, env_id, rules, f"the shipped ladder of {rules.name}")
    return ladder


def check_same_game(ladder: Ladder, env_id: str, rules: Game, what: str) -> None:
    """Raises :class:`LadderError` unless ``ladder`` rates the game ``env_id`` with the config of ``rules``
    (``what`` names the ladder in the message, which names the command that builds the right one)."""
    if resolve_env_id(ladder.game) != env_id or ladder.config != _config(rules):
        options = "".join(f" --option {key}=VALUE" for key in _changed(ladder.config, _config(rules)))
        raise LadderError(
            f"{what} rates {ladder.game} with {ladder.config}, not {env_id} with {_config(rules)}; build a ladder "
            f"of this game and config (`mancala-envs ladder --build --game {rules.name}{options} --out PATH`)."
        )


def _changed(one: dict[str, Any], other: dict[str, Any]) -> list[str]:
    return sorted(key for key in set(one) | set(other) if one.get(key) != other.get(key))


# --- placing an agent ------------------------------------------------------------------------------------------------
class CallableAgent(StateAgent):
    """An agent made of a Python callable ``choose(game, state) -> action``, given a copy of the engine state.

    Raises (at a move):
        ValueError: the callable returned no legal action of the position (the message names it).
    """

    def __init__(self, choose: Callable[[Game, np.ndarray], Any], name: str | None = None, seed: int | None = None):
        super().__init__(seed)
        if not callable(choose):
            raise TypeError(f"choose must be a callable (game, state) -> action (got {type(choose).__name__}).")
        self.function = choose
        self.name = name or str(getattr(choose, "__name__", type(choose).__name__))

    def choose(self, game: Game, state: np.ndarray) -> int:
        action = self.function(game, state.copy())
        legal = game.legal_actions(state)
        if not is_integer(action) or isinstance(action, bool) or int(action) not in legal:
            raise ValueError(
                f"the agent {self.name!r} returned {action!r}, which is not a legal action of the position "
                f"(legal: {[int(a) for a in legal]}); return one of game.legal_actions(state)."
            )
        return int(action)


def _player(agent: Any, trust_remote_code: bool) -> tuple[Any, str]:
    """The agent as :func:`~mancala_envs.analysis.tournament.play_games` takes it (a checked name, or an object
    with ``act``) and its name."""
    if isinstance(agent, str):
        make_agent(agent, seed=0, trust_remote_code=trust_remote_code)  # an unknown name fails before any game
        return agent, agent
    if callable(getattr(agent, "act", None)):
        return agent, str(getattr(agent, "name", type(agent).__name__))
    if callable(agent):
        wrapped = CallableAgent(agent)
        return wrapped, wrapped.name
    raise TypeError(
        "agent must be an agent name such as 'alphabeta:3' or 'sb3:model.zip', an object with act(env) -> int (an "
        f"Agent), or a callable (game, state) -> action (got {type(agent).__name__})."
    )


@dataclass(frozen=True)
class AnchorScore(Tally):
    """The placed agent's results against one anchor: counts, score ``(wins + draws / 2) / games`` (its 95% Wilson
    interval is ``interval("score")``, :class:`~mancala_envs.common.stats.Tally`), and the anchor's rating."""

    anchor: str
    anchor_elo: float
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return self.rate("score")


@dataclass
class Placement:
    """Where an agent stands on a ladder (:func:`place_agent`).

    Attributes:
        agent: Its name.
        ladder: The ladder it was placed on.
        rating: Its rating with the anchors held fixed (:class:`~mancala_envs.analysis.ratings.FixedRating`).
        scores: Its results against each anchor, in the ladder's order.
        games_per_anchor: Games against each anchor.
        seed: The placement's seed.
        regret: Where the game is solved cheaply, the oracle's figures (``mean_regret`` in seeds per decision with
            ``regret_low`` / ``regret_high``, ``optimal_move_rate``, ``decisions``, ``games``), else ``None``.
        regret_note: Why there is no regret (not solved, no table, not asked), or ``""``.
        seconds: The time the placement took (games, fit and regret).
    """

    agent: str
    ladder: Ladder
    rating: FixedRating
    scores: list[AnchorScore]
    games_per_anchor: int
    seed: int
    regret: dict[str, float] | None = None
    regret_note: str = ""
    seconds: float = 0.0

    @property
    def elo(self) -> float:
        return self.rating.elo

    @property
    def interval(self) -> tuple[float, float]:
        return self.rating.interval

    @property
    def between(self) -> tuple[AnchorRating | None, AnchorRating | None]:
        """The anchors just below and just above the agent's rating (``None`` past either end)."""
        ranked = sorted(self.ladder.anchors, key=lambda anchor: anchor.elo)
        below = [anchor for anchor in ranked if anchor.elo <= self.elo]
        above = [anchor for anchor in ranked if anchor.elo > self.elo]
        return (below[-1] if below else None, above[0] if above else None)

    def standing(self) -> str:
        """One sentence: the rating, its interval and the anchors around it."""
        low, high = self.interval
        below, above = self.between
        if below is None:
            where = f"below every anchor (lowest: {above.name if above else '-'})"
        elif above is None:
            where = f"above every anchor (highest: {below.name})"
        else:
            where = f"between {below.name} ({below.elo:.0f}) and {above.name} ({above.elo:.0f})"
        return f"{self.agent}: {self.elo:.0f} Elo [{low:.0f}, {high:.0f}] ({PIN} = 0), {where}"

    def format(self) -> str:
        """The report ``mancala-envs ladder AGENT`` prints: the ladder with the agent inserted, its standing, the
        scores against each anchor and the regret."""
        lines = [self.ladder.format(self), "", self.standing(), "", f"{self.agent} against each anchor:"]
        width = max(len(score.anchor) for score in self.scores)
        for score in self.scores:
            low, high = score.interval("score")
            lines.append(
                f"  {score.anchor:<{width}}  {score.wins:>4} W {score.draws:>4} D {score.losses:>4} L  score "
                f"{100 * score.score:5.1f}% [{100 * low:5.1f}, {100 * high:5.1f}]"
            )
        if self.regret is not None:
            r = self.regret
            lines.append(
                f"\nRegret against perfect play: {r['mean_regret']:.3f} seeds per decision [{r['regret_low']:.3f}, "
                f"{r['regret_high']:.3f}], optimal moves {100 * r['optimal_move_rate']:.1f}% "
                f"({int(r['decisions'])} decisions in {int(r['games'])} games)"
            )
        elif self.regret_note:
            lines.append(f"\nRegret: {self.regret_note}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The placement as JSON data (``mancala-envs ladder AGENT --json PATH``)."""
        low, high = self.interval
        below, above = self.between
        return {
            "format": "mancala-envs-ladder-placement",
            "version": LADDER_VERSION,
            "agent": self.agent,
            "game": self.ladder.game,
            "game_options": self.ladder.game_options,
            "games_per_anchor": self.games_per_anchor,
            "seed": self.seed,
            "elo": self.elo,
            "elo_low": low,
            "elo_high": high,
            "se": self.rating.se,
            "below": None if below is None else below.name,
            "above": None if above is None else above.name,
            "scores": [
                {
                    **dataclasses.asdict(score),
                    "games": score.games,
                    "score": score.score,
                    "score_low": score.interval("score")[0],
                    "score_high": score.interval("score")[1],
                }
                for score in self.scores
            ],
            "regret": self.regret,
            "regret_note": self.regret_note,
            "seconds": self.seconds,
            "ladder": self.ladder.to_dict(),
        }

    def to_json(self, path: str | os.PathLike[str]) -> Path:
        """Writes :meth:`to_dict` as JSON (atomically); returns the path."""
        path = check_destination(path, "the placement")
        atomic_write(path, (json.dumps(self.to_dict(), indent=1) + "\n").encode("utf-8"))
        return path


def place_agent(
    agent: Any,
    game: str,
    *,
    games_per_anchor: int = DEFAULT_GAMES_PER_ANCHOR,
    seed: int = 0,
    workers: int | None = 1,
    ladder: Ladder | str | os.PathLike[str] | None = None,
    regret: bool = True,
    trust_remote_code: bool = False,
    progress: bool = False,
    **game_options: Any,
) -> Placement:
    """Plays ``agent`` against every anchor of ``game``'s ladder and fits its rating with the anchors held fixed.

    Args:
        agent: An agent name (:func:`~mancala_envs.agents.make_agent`: ``"alphabeta:3"``, ``"sb3:model.zip"``...),
            an object with ``act(env) -> int`` (an :class:`~mancala_envs.agents.Agent`, a policy opponent), or a
            callable ``(game, state) -> action`` (wrapped in :class:`CallableAgent`). Objects are reseeded for each
            game and play in this process.
        game: A game name or registry id.
        games_per_anchor: Games against each anchor, seats alternated (even: each seat equally often).
        seed: Seeds every game (see the module docstring).
        workers: Processes playing games (``None``: one per core; 1: in this process). An agent object plays in
            this process only (``workers`` 1 or ``None``).
        ladder: The ladder (a :class:`Ladder` or the path of a ladder file); default the game's shipped one
            (:func:`load_shipped_ladder`).
        regret: Where the game is solved cheaply, measure the exact regret too (``oracle_evaluate`` against its
            default opponents, ``games_per_anchor`` games each); a missing table leaves a note instead.
        trust_remote_code: Load ``sb3:`` agents in full (a crafted file runs arbitrary code; only for files you trust).
        progress: A progress bar on stderr.
        **game_options: Options of the game (the ladder must rate the same config).

    Returns:
        The placement: rating and interval, scores against each anchor, the anchors around it, the regret.

    Raises:
        TypeError: an agent of none of these kinds, a ladder of the wrong type.
        ValueError: an unknown game, option or agent, ``games_per_anchor`` below 1 or more than
            :data:`~mancala_envs.common.validation.MAX_GAMES` games in all, a negative seed, ``workers`` out of
            range or above 1 with an agent object.
        LadderError: no shipped ladder, a ladder of another game or config, a damaged ladder file.
    """
    from mancala_envs.analysis.tournament import WORKERS_PER_CORE, max_workers, play_games, play_in_workers

    started = time.perf_counter()
    env_id, rules = _rules(game, game_options)
    games_per_anchor = check_integer("games_per_anchor", games_per_anchor, 1)
    seed = check_integer("seed", seed, 0)
    if workers is not None:
        check_integer("workers", workers, 1, max_workers())
    if ladder is None:
        ladder = load_shipped_ladder(env_id, **game_options)
    elif isinstance(ladder, (str, os.PathLike)):
        path = ladder
        ladder = Ladder.load(path)
        check_same_game(ladder, env_id, rules, f"the ladder file {os.fspath(path)!r}")
    elif isinstance(ladder, Ladder):
        check_same_game(ladder, env_id, rules, "the ladder")
    else:
        raise TypeError(f"ladder must be a Ladder, the path of a ladder file, or None (got {type(ladder).__name__}).")
    anchors = ladder.names
    check_game_count("a placement", len(anchors), "anchor", games_per_anchor,
                     "Play fewer games per anchor (--games).")  # fmt: skip
    player, name = _player(agent, trust_remote_code)
    _ensure_table(rules, anchors)
    if name in anchors:
        name = f"{name} (placed)"
    local = not isinstance(player, str)
    if local and workers not in (None, 1):
        raise ValueError(
            f"an agent object plays in this process only: pass workers=1 (got {workers}), or its name "
            "(such as 'sb3:model.zip') to play in worker processes."
        )
    count = 1 if local else min(workers or max_workers() // WORKERS_PER_CORE, len(anchors) * games_per_anchor)
    options = dict(game_options)
    names = [player, *anchors]
    tasks = [[(pair, number) for number in range(start, min(start + _CHUNK, games_per_anchor))]
             for pair in range(len(anchors)) for start in range(0, games_per_anchor, _CHUNK)]  # fmt: skip
    bar = None
    if progress:
        from mancala_envs.analysis.ratings import require

        bar = require("tqdm", "the progress bar").tqdm(
            total=len(anchors) * games_per_anchor, unit="game", desc=f"placing {name}", file=sys.stderr
        )
    results: list[Any] = []
    try:
        if count == 1:
            for task in tasks:
                results.extend(play_games(env_id, names, task, seed, options, None, trust_remote_code))
                if bar is not None:
                    bar.update(len(task))
        else:
            played = {"game": env_id, "agents": names, "seed": seed, "game_options": options, "record_dir": None,
                      "trust_remote_code": trust_remote_code}  # fmt: skip
            play_in_workers(count, tasks, results, bar, played)
    finally:
        if bar is not None:
            bar.close()
    scores = []
    for index, anchor in enumerate(ladder.anchors):
        mine = [result for result in results if result.pair == index]
        wins = sum(result.winner == 0 for result in mine)
        draws = sum(result.winner is None for result in mine)
        scores.append(AnchorScore(anchor.name, anchor.elo, wins, draws, len(mine) - wins - draws))
    rating = ladder.fixed_rating(
        [score.anchor for score in scores],
        [score.wins + score.draws / 2 for score in scores],
        [score.games for score in scores],
    )
    figures, note = None, ""
    if not regret:
        note = "not measured (regret=False)"
    elif not solved_cheaply(rules):
        note = f"{rules.name} is not solved here, so there is no exact regret"
    else:
        figures, note = _regret(player, env_id, games_per_anchor, seed, trust_remote_code, game_options)
    return Placement(
        agent=name,
        ladder=ladder,
        rating=rating,
        scores=scores,
        games_per_anchor=games_per_anchor,
        seed=seed,
        regret=figures,
        regret_note=note,
        seconds=time.perf_counter() - started,
    )


def _regret(
    player: Any, env_id: str, games: int, seed: int, trust_remote_code: bool, game_options: dict[str, Any]
) -> tuple[dict[str, float] | None, str]:
    """The oracle's figures for the agent, or ``None`` and why (a missing table)."""
    from mancala_envs.analysis.oracle import DEFAULT_OPPONENTS, oracle_evaluate

    try:
        report = oracle_evaluate(player, env_id, DEFAULT_OPPONENTS, games=games, seed=seed,
                                 trust_remote_code=trust_remote_code, **game_options)  # fmt: skip
    except TableError as error:
        return None, f"not measured: {error}"
    summary = report.summary()
    low, high = summary.mean_regret_ci
    return {
        "mean_regret": float(summary.mean_regret),
        "regret_low": float(low),
        "regret_high": float(high),
        "optimal_move_rate": float(summary.optimal_rate),
        "decisions": float(summary.decisions),
        "games": float(len(report.outcomes)),
    }, f"against {', '.join(DEFAULT_OPPONENTS)}, {games} games each"
