"""The web app's games: in memory, keyed by an id, at most a few dozen at once, each a :class:`PlaySession`.

This module knows nothing of HTTP: :class:`GameTable` takes the decoded JSON of a request and returns the JSON of
the answer, or raises :class:`RequestError` with the status and the message (the library's own message for a bad
game, agent or option; the terminal ``play``'s for an illegal move). The routes (:mod:`mancala_envs.web.app`) call it
from a thread pool, since an agent may think for a while.

Every answer about a game (:meth:`GameTable.new_game`, :meth:`~GameTable.move`, :meth:`~GameTable.undo`,
:meth:`~GameTable.state`) is the same object:

==============  ====================================================================================================
``id``          the game's id, for the next requests
``game``        the env's name (``"ouril_v0"``); ``human`` (``"player_0"``), ``opponent`` (its agent name),
                ``opening`` (``"ouril_v0: you are player_0, greedy is player_1."``)
``ply``         plies played; ``to_move``: ``"player_0"``, ``"player_1"`` or ``null`` once over
``board``       the position as one ``<svg>`` (:class:`~mancala_envs.rendering.svg.BoardSvg`), the human's
                legal pits ringed (class ``legal``), the last ply's path drawn
``legal``       the human's legal moves, ``[{"action": 3, "pit": 3, "words": "sow pit 3"}, ...]`` (empty when it is
                not the human's turn or the game is over); ``prompt``: ``"Your move (player_0):"`` or the
                mid-turn choice, ``null`` when ``legal`` is empty
``messages``    the messages since the previous answer about this game; ``log``: every message of the game
``over``        whether the game has ended; ``result``: the result line then (``"Result: player_0 (you) wins; ..."``)
``can_undo``    whether the human has a move to take back
==============  ====================================================================================================

A request that fails changes nothing: a move the opponent could not answer (a ``"perfect"`` agent without its
table, say) is taken back before the error is returned.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mancala_envs.envs.registration import VARIANTS
from mancala_envs.rendering.svg import BoardSvg
from mancala_envs.views.play_session import IllegalMoveError, NothingToUndoError, PlaySession

__all__ = ["AGENT_CHOICES", "MAX_GAMES", "NEW_GAME_FIELDS", "GameTable", "RequestError"]

#: how many games the app keeps at once; starting one more forgets the least recently used
MAX_GAMES = 32
#: the fields of a new-game request (only ``game`` is required)
NEW_GAME_FIELDS = ("game", "opponent", "seat", "seed", "options", "position")
#: the agents the page offers (any name :func:`mancala_envs.agents.make_agent` takes can be typed in)
AGENT_CHOICES = (
    "random",
    "greedy",
    "alphabeta:2",
    "alphabeta:4",
    "alphabeta:t=0.5",
    "mcts:200",
    "pretrained",
    "perfect",
)
#: what a failing agent or option may raise: the library's documented errors, returned as 400 with their message
LIBRARY_ERRORS = (ValueError, TypeError, LookupError, OSError, ImportError)


class RequestError(Exception):
    """A request the app refuses: ``status`` (400 bad input, 404 no such game) and the message for the page."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _WebGame:
    """One game of the table: its session, its board painter, a lock, and how much of the log was sent."""

    id: str
    session: PlaySession
    painter: BoardSvg
    lock: threading.Lock = field(default_factory=threading.Lock)
    sent: int = 0


def _fields(request: Any, allowed: tuple[str, ...], example: str) -> Mapping[str, Any]:
    """``request`` as a mapping with only ``allowed`` keys, else a :class:`RequestError` naming the problem."""
    if not isinstance(request, Mapping):
        raise RequestError(f"the request body must be a JSON object such as {example} (got {type(request).__name__}).")
    unknown = sorted(set(request) - set(allowed))
    if unknown:
        takes = f"takes {', '.join(allowed)}, as in" if allowed else "takes no field: send nothing or"
        raise RequestError(f"unknown field {unknown[0]!r}: the request {takes} {example}.")
    return request


class GameTable:
    """The games the app is playing, by id (see the module docstring).

    Args:
        max_games: How many games to keep; starting one more forgets the least recently used.

    Example:
        >>> table = GameTable()
        >>> answer = table.new_game({"game": "modiar", "opponent": "greedy", "options": {"first_player": 0}})
        >>> [move["words"] for move in answer["legal"]]
        ['sow pit 0', 'sow pit 1', 'sow pit 2']
        >>> table.move(answer["id"], {"action": 2})["messages"]
        ['You (player_0) sow pit 2', 'greedy (player_1) sows pit 4']
    """

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
            raise ValueError(f"max_games must be an integer >= 1 (got {max_games!r}).")
        self.max_games = max_games
        self._games: OrderedDict[str, _WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    @staticmethod
    def catalog() -> dict[str, Any]:
        """What the page offers: every registered variant (``{"id", "description"}``) and the agents."""
        games = [{"id": variant.id, "description": variant.description} for variant in VARIANTS]
        return {"games": games, "agents": list(AGENT_CHOICES)}

    # --- requests -----------------------------------------------------------------------------------
    def new_game(self, request: Any) -> dict[str, Any]:
        """Starts a game: ``{"game": "ouril", "opponent": "greedy", "seat": 0, "seed": 0, "options": {...},
        "position": ...}`` (``seat`` 0, 1 or ``"random"``; ``position`` a position string or reset options).
        The opponent's plies before the human's first decision are played at once."""
        example = '{"game": "ouril", "opponent": "greedy", "seat": 0, "seed": 0}'
        fields = _fields(request, NEW_GAME_FIELDS, example)
        if "game" not in fields:
            raise RequestError(f"a new game needs a game: send {example}.")
        seat = fields.get("seat", 0)
        if seat == "random":
            seat = None
        elif seat is None or isinstance(seat, str):
            raise RequestError(f"seat must be 0, 1 or 'random' (got {seat!r}).")
        try:
            session = PlaySession.new_game(
                fields["game"],
                fields.get("opponent", "greedy"),
                seat,
                fields.get("seed", 0),
                options=fields.get("options"),
                start_position=fields.get("position"),
            )
            painter = BoardSvg(session.game)
            session.opponent_replies()
        except LIBRARY_ERRORS as error:
            raise RequestError(str(error)) from None
        game = _WebGame(secrets.token_urlsafe(9), session, painter)
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)
        return self._answer(game)

    def move(self, game_id: str, request: Any) -> dict[str, Any]:
        """Plays the human's ``{"action": A}`` and the opponent's replies."""
        fields = _fields(request, ("action",), '{"action": 3}')
        if "action" not in fields:
            raise RequestError('a move needs an action: send {"action": 3} (one of the legal actions).')
        game = self._game(game_id)
        with game.lock:
            session = game.session
            before = session.snapshot()
            try:
                session.play(fields["action"])
                session.opponent_replies()
            except IllegalMoveError as illegal:
                raise RequestError(str(illegal)) from None
            except LIBRARY_ERRORS as error:  # the opponent failed: the move is taken back
                session.restore(before)
                raise RequestError(f"{session.opponent_name} could not reply: {error}") from None
            return self._answer(game)

    def undo(self, game_id: str, request: Any = None) -> dict[str, Any]:
        """Takes back the human's last move and the replies to it."""
        if request is not None:
            _fields(request, (), "{}")
        game = self._game(game_id)
        with game.lock:
            try:
                game.session.undo()
            except NothingToUndoError as nothing:
                raise RequestError(str(nothing)) from None
            return self._answer(game)

    def state(self, game_id: str) -> dict[str, Any]:
        """The game as it stands (its ``messages``: those not yet sent)."""
        game = self._game(game_id)
        with game.lock:
            return self._answer(game)

    # --- helpers ------------------------------------------------------------------------------------
    def _game(self, game_id: str) -> _WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise RequestError(
                    f"no game {game_id!r} here: it was never started, or the app forgot it (it keeps the "
                    f"{self.max_games} most recent games, and none after it stops); start a new game.",
                    status=404,
                )
            self._games.move_to_end(game_id)
            return game

    def _answer(self, game: _WebGame) -> dict[str, Any]:
        session = game.session
        env = session.env.unwrapped
        moves = session.moves() if session.human_to_move else []
        board = game.painter.draw(env.state_array, env.last_move, highlight=sorted({move.pit for move in moves}))
        messages = session.log[game.sent :]
        game.sent = len(session.log)
        over = session.over
        return {
            "id": game.id,
            "game": session.game.env_name,
            "human": session.human,
            "opponent": session.opponent_name,
            "opening": session.opening_line(),
            "ply": session.plies,
            "to_move": None if over else session.env.agent_selection,
            "board": board,
            "legal": [{"action": move.action, "pit": move.pit, "words": move.words} for move in moves],
            "prompt": session.prompt() if moves else None,
            "messages": messages,
            "log": list(session.log),
            "over": over,
            "result": session.result_line() if over else None,
            "can_undo": session.can_undo,
        }
