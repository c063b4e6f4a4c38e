"""An arena for agents that read text: any callable ``prompt -> reply`` plays a game's ladder agents.

:func:`evaluate_text_agent` plays a text agent (a language model behind a function, a scripted player) against
opponents for ``games`` games each, both seats, seeded, and reports per opponent the wins, draws and losses, the win
rate with its 95% Wilson interval (:func:`~mancala_envs.common.stats.wilson_interval`), how many replies were
illegal, the retries they cost and the games forfeited. The prompts and the parsing of replies are the text view's
(:mod:`mancala_envs.views.text_view`): a reply names a move number (``"move 3"``).

Opponents
    By default the cheap anchors of the game's strength ladder (:func:`~mancala_envs.analysis.ladder.ladder_anchors`
    filtered by :data:`CHEAP_ANCHORS`: ``random``, ``greedy``, ``alphabeta:2`` and ``alphabeta:4``, each a few
    milliseconds a move in every game), built by :func:`~mancala_envs.agents.make_agent`. Any agent name
    ``make_agent`` takes can be passed instead (``["alphabeta:6", "mcts:400"]``, the ladder's stronger anchors).
    Where the game's shipped ladder rates every opponent, the result places the agent on it
    (:attr:`TextArenaResult.rating`, the ladder's fit with the anchors held fixed).

Seats and seeds
    Against each opponent the text agent moves first in the even-numbered games and second in the odd ones. Game
    ``g`` against opponent ``k`` is seeded by ``SeedSequence([seed, k, g])`` (the env's reset and the opponent's
    generator), so the same seed and agent give the same games.

Illegal replies
    A reply that names no legal move (:class:`~mancala_envs.views.text_view.IllegalReply`) counts as an illegal
    reply; the agent is asked again with the prompt, its reply and the parser's message appended
    (:func:`~mancala_envs.views.text_view.retry_prompt`), up to ``retries`` times for that decision. When the last
    try is illegal too, the agent **forfeits the game**: it is lost (``end_reason == "illegal_action"``, as an
    illegal action under the env's ``"penalty"`` policy) and counted in ``forfeits``. A forfeit rather than a random
    legal move: the result then measures the agent alone, and a model that cannot answer is seen losing.

Exceptions that the agent raises propagate: the arena does not swallow them.

Example:
    >>> from mancala_envs.analysis.text_arena import evaluate_text_agent
    >>> def first_listed(prompt: str) -> str:
    ...     line = next(line for line in prompt.splitlines() if line.startswith("  move "))
    ...     return line.split(":")[0].strip()  # "move 0"
    >>> result = evaluate_text_agent(first_listed, "mancala/modiar-v0", opponents=["random"], games=2, seed=0)
    >>> row = result.rows[0]
    >>> row.games, row.replies == row.decisions, row.illegal_replies
    (2, True, 0)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mancala_envs.agents import make_agent
from mancala_envs.analysis.ladder import LadderError, ladder_anchors, load_shipped_ladder
from mancala_envs.analysis.ratings import FixedRating
from mancala_envs.common.stats import Tally, wilson_interval
from mancala_envs.common.validation import check_game_count, check_integer
from mancala_envs.envs.registration import find_variant, make, resolve_env_id
from mancala_envs.games.game import Game
from mancala_envs.views.text_view import IllegalReply, TextView, retry_prompt

__all__ = [
    "CHEAP_ANCHORS",
    "DEFAULT_GAMES",
    "DEFAULT_RETRIES",
    "OpponentRecord",
    "TextArenaResult",
    "evaluate_text_agent",
]

#: The ladder anchors a text agent meets by default (those of the game's ladder that are in this list).
CHEAP_ANCHORS: tuple[str, ...] = ("random", "greedy", "alphabeta:2", "alphabeta:4")
#: Games against each opponent by default.
DEFAULT_GAMES = 10
#: Retries of a decision after an illegal reply by default.
DEFAULT_RETRIES = 2
#: The largest ``retries``.
MAX_RETRIES = 100

TextAgent = Callable[[str], str]


@dataclass(frozen=True)
class OpponentRecord(Tally):
    """The text agent's results against one opponent.

    Attributes:
        opponent: The opponent's agent name.
        wins: Games the text agent won (forfeits are losses).
        draws: Drawn games.
        losses: Games it lost, forfeits included.
        decisions: Positions the agent was asked to move in (each answered by a legal move or forfeited).
        replies: Replies it gave, retries included.
        illegal_replies: Replies that named no legal move.
        retries: Times it was asked again after an illegal reply.
        forfeits: Games it forfeited (an illegal reply with no retry left).
    """

    opponent: str
    wins: int
    draws: int
    losses: int
    decisions: int
    replies: int
    illegal_replies: int
    retries: int
    forfeits: int

    @property
    def win_rate(self) -> float:
        """Wins over games (NaN with no games)."""
        return self.rate("win")

    @property
    def win_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`win_rate`."""
        return wilson_interval(self.wins, self.games)

    @property
    def illegal_rate(self) -> float:
        """Illegal replies over replies (NaN with no replies)."""
        return self.illegal_replies / self.replies if self.replies else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON data, with its rates and interval."""
        low, high = self.win_interval
        return {
            **dataclasses.asdict(self),
            "games": self.games,
            "win_rate": _number(self.win_rate),
            "win_low": low,
            "win_high": high,
            "illegal_rate": _number(self.illegal_rate),
        }


def _number(value: float) -> float | None:
    """``None`` for NaN (JSON has no NaN)."""
    return None if math.isnan(value) else value


@dataclass
class TextArenaResult:
    """What :func:`evaluate_text_agent` measured.

    Attributes:
        agent: The text agent's name.
        game: The registry id played.
        games: Games against each opponent.
        retries: Retries allowed per decision.
        seed: The seed of the games.
        rows: One record per opponent, in the order given.
        transcripts: The exchanges of the first games played (``keep_transcripts`` of them), each a list of
            ``{"prompt", "reply", "action"}`` dicts (``action`` is ``None`` for a refused reply, with ``"error"``
            the parser's message), in play order, with ``"opponent"``, ``"game"`` and ``"seat"`` keys per game.
        rating: Where the shipped ladder of the game rates every opponent: the agent's rating on it (Elo,
            ``random`` = 0, the anchors held fixed, as :func:`~mancala_envs.analysis.ladder.place_agent` fits it);
            else ``None``.
        rating_note: Why there is no rating, or ``""``.
    """

    agent: str
    game: str
    games: int
    retries: int
    seed: int
    rows: list[OpponentRecord]
    transcripts: list[dict[str, Any]] = field(default_factory=list)
    rating: FixedRating | None = None
    rating_note: str = ""

    def total(self) -> OpponentRecord:
        """The records of every opponent added up (``opponent == "all"``)."""
        counts = {
            name: sum(getattr(row, name) for row in self.rows)
            for name in ("wins", "draws", "losses", "decisions", "replies", "illegal_replies", "retries", "forfeits")
        }
        return OpponentRecord(opponent="all", **counts)

    def format_table(self) -> str:
        """A plain-text table: one line per opponent and a total line, then the rating if there is one."""
        header = (
            f"{'opponent':<14} {'W':>4} {'D':>4} {'L':>4}  {'win rate [95% CI]':<22} {'replies':>7} "
            f"{'illegal':>7} {'rate':>6} {'retries':>7} {'forfeits':>8}"
        )
        lines = [
            f"text agent {self.agent!r} on {self.game}: {self.games} game{'s' if self.games != 1 else ''} per opponent "
            f"({'both seats' if self.games > 1 else 'first seat'}), "
            f"up to {self.retries} retries a decision, seed {self.seed}",
            header,
            "-" * len(header),
        ]
        for row in [*self.rows, self.total()]:
            low, high = row.win_interval
            rate = f"{100 * row.win_rate:5.1f}% [{100 * low:5.1f}, {100 * high:5.1f}]" if row.games else "-"
            illegal = f"{100 * row.illegal_rate:5.1f}%" if row.replies else "-"
            lines.append(
                f"{row.opponent:<14} {row.wins:>4} {row.draws:>4} {row.losses:>4}  {rate:<22} {row.replies:>7} "
                f"{row.illegal_replies:>7} {illegal:>6} {row.retries:>7} {row.forfeits:>8}"
            )
        if self.rating is not None:
            low, high = self.rating.interval
            lines.append(f"ladder rating: {self.rating.elo:.0f} Elo [{low:.0f}, {high:.0f}] (random = 0)")
        elif self.rating_note:
            lines.append(f"ladder rating: {self.rating_note}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON data (the transcripts included)."""
        rating = None
        if self.rating is not None:
            low, high = self.rating.interval
            rating = {"elo": self.rating.elo, "elo_low": low, "elo_high": high, "se": self.rating.se}
        return {
            "format": "mancala-envs-text-arena",
            "version": 1,
            "agent": self.agent,
            "game": self.game,
            "games": self.games,
            "retries": self.retries,
            "seed": self.seed,
            "rows": [row.to_dict() for row in self.rows],
            "total": self.total().to_dict(),
            "rating": rating,
            "rating_note": self.rating_note,
            "transcripts": self.transcripts,
        }


@dataclass
class _Counts:
    """The running counts of one opponent's games."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    decisions: int = 0
    replies: int = 0
    illegal_replies: int = 0
    retries: int = 0
    forfeits: int = 0


def _check_opponents(opponents: Any, env_id: str) -> list[str]:
    if opponents is None:
        return [name for name in ladder_anchors(env_id) if name in CHEAP_ANCHORS]
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        raise TypeError(
            f"opponents must be a list of agent names such as ['random', 'greedy'] (got {type(opponents).__name__} "
            f"{opponents!r}); pass None for the ladder's cheap anchors."
        )
    names = list(opponents)
    if not names:
        raise ValueError("opponents is empty; pass agent names such as ['random', 'greedy'], or None for the defaults.")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(
                f"each opponent must be an agent name such as 'alphabeta:4' (got {type(name).__name__} {name!r})."
            )
        make_agent(name, seed=0)  # an unknown name fails before any game
    if len(set(names)) != len(names):
        raise ValueError(f"opponents names an agent twice ({names}); name each opponent once.")
    return names


def _ladder_rating(rules: Game, rows: list[OpponentRecord]) -> tuple[FixedRating | None, str]:
    """The agent's rating on the shipped ladder of ``rules`` (the game as registered), or ``None`` and why."""
    try:
        ladder = load_shipped_ladder(rules)
    except LadderError as error:
        return None, f"none: {str(error).split(';')[0]}"
    names = ladder.names
    missing = [row.opponent for row in rows if row.opponent not in names]
    if missing:
        return None, f"none: {missing} are not anchors of the shipped {ladder.game} ladder"
    rating = ladder.fixed_rating(
        [row.opponent for row in rows], [row.points for row in rows], [row.games for row in rows]
    )
    return rating, ""


def evaluate_text_agent(
    agent: TextAgent,
    game: str,
    opponents: Sequence[str] | None = None,
    games: int = DEFAULT_GAMES,
    retries: int = DEFAULT_RETRIES,
    seed: int = 0,
    *,
    name: str | None = None,
    keep_transcripts: int = 1,
) -> TextArenaResult:
    """Plays a text agent against each opponent for ``games`` games and measures it (see the module docstring).

    Args:
        agent: Any callable ``prompt -> reply`` (both strings): it is shown the position's prompt
            (:meth:`~mancala_envs.views.text_view.TextView.prompt`) and answers with a move number.
        game: A game name or registry id (``"kalah"``, ``"omweso_v0"``, ``"mancala/ouril-mini-v0"``).
        opponents: Agent names (:func:`~mancala_envs.agents.make_agent`); default the game's cheap ladder anchors
            (:data:`CHEAP_ANCHORS`).
        games: Games against each opponent, seats alternated (even: each seat equally often).
        retries: Times a decision is asked again after an illegal reply before the agent forfeits the game.
        seed: Seeds every game.
        name: The agent's name in the result; default the callable's ``__name__``.
        keep_transcripts: How many of the first games keep their prompts and replies (0: none).

    Returns:
        The result: per opponent wins, draws, losses, win rate and interval, illegal replies, retries, forfeits;
        :meth:`TextArenaResult.format_table`, :meth:`TextArenaResult.to_dict`.

    Raises:
        TypeError: ``agent`` is not callable, a reply is not a string, or an argument of the wrong type.
        ValueError: an unknown game or opponent, ``games`` below 1 (or more than
            :data:`~mancala_envs.common.validation.MAX_GAMES` in all), ``retries`` outside 0 to
            :data:`MAX_RETRIES`, a negative seed or ``keep_transcripts``.
        Exception: whatever the agent raises, unchanged.
    """
    if not callable(agent):
        raise TypeError(
            f"agent must be a callable prompt -> reply such as a function of one string (got {type(agent).__name__})."
        )
    if not isinstance(game, str):
        raise TypeError(f"game must be a game name or registry id such as 'kalah' (got {type(game).__name__}).")
    games = check_integer("games", games, 1)
    retries = check_integer("retries", retries, 0, MAX_RETRIES)
    seed = check_integer("seed", seed, 0)
    keep_transcripts = check_integer("keep_transcripts", keep_transcripts, 0)
    env_id = resolve_env_id(game)
    env = make(env_id, first_player=0)  # an unknown game fails here, before any game
    names = _check_opponents(opponents, env_id)
    check_game_count("a text arena", len(names), "opponent", games, "Play fewer games per opponent.")
    agent_name = name if name is not None else str(getattr(agent, "__name__", type(agent).__name__))
    view = TextView(env)
    rows = []
    transcripts: list[dict[str, Any]] = []
    for index, opponent_name in enumerate(names):
        counts = _Counts()
        for number in range(games):
            env_seed, opponent_seed = np.random.SeedSequence([seed, index, number]).generate_state(2)
            opponent = make_agent(opponent_name, seed=int(opponent_seed))
            seat = f"player_{number % 2}"
            keep = len(transcripts) < keep_transcripts
            exchanges: list[dict[str, Any]] = []
            if keep:
                transcripts.append({"opponent": opponent_name, "game": number, "seat": seat, "exchanges": exchanges})
            env.reset(seed=int(env_seed))
            while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                if env.agent_selection != seat:
                    env.step(opponent.act(env))
                    continue
                action = _decide(agent, view, retries, counts, exchanges if keep else None)
                if action is None:
                    counts.forfeits += 1
                    env.forfeit(seat)
                else:
                    env.step(action)
            winner = env.facts()["winner"]
            if winner is None:
                counts.draws += 1
            elif f"player_{winner}" == seat:
                counts.wins += 1
            else:
                counts.losses += 1
        rows.append(OpponentRecord(opponent_name, **dataclasses.asdict(counts)))
    rating, note = _ladder_rating(env.game, rows)
    return TextArenaResult(agent_name, find_variant(env_id).id, games, retries, seed, rows, transcripts, rating, note)


def _decide(
    agent: TextAgent, view: TextView, retries: int, counts: _Counts, exchanges: list[dict[str, Any]] | None
) -> int | None:
    """One decision of the text agent: the legal action its reply names, or ``None`` (forfeit) when every try was
    illegal. Counts the decision, its replies, illegal replies and retries."""
    counts.decisions += 1
    prompt = asked = view.prompt()
    for attempt in range(retries + 1):
        reply = agent(asked)
        counts.replies += 1
        if not isinstance(reply, str):
            raise TypeError(f"the text agent returned {type(reply).__name__}, not a string; return the reply's text.")
        try:
            action = view.parse(reply)
        except IllegalReply as refusal:
            counts.illegal_replies += 1
            if exchanges is not None:
                exchanges.append({"prompt": asked, "reply": reply, "action": None, "error": refusal.message})
            if attempt == retries:
                return None
            counts.retries += 1
            asked = retry_prompt(prompt, reply, refusal)
            continue
        if exchanges is not None:
            exchanges.append({"prompt": asked, "reply": reply, "action": action})
        return action
    return None  # unreachable: the loop returns at its last attempt
