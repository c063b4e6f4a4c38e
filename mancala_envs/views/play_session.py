"""A game between a person and an agent, as messages: what the terminal ``play`` and the web app (``serve``) share.

:class:`PlaySession` holds one game of any registered variant between a human in one seat and a named agent
(:func:`mancala_envs.agents.make_agent`) in the other. It knows the rules messages both front ends print, in one
place:

=========================  ===================================================================================
the human's ply            ``You (player_0) sow pit 3, capturing 4 seeds``
the opponent's ply         ``greedy (player_1) sows pit 9``
the prompt                 ``Your move (player_0):`` or, at one of Omweso's mid-turn choices,
                           ``Mid-turn choice (player_0): relay from pit 15, which way?``
a refused action           ``Action 0 (sow pit 0) is not legal now; the legal actions are [1, 2].``
undo                       ``Undone: your move (sow pit 2) and 1 reply by greedy.``
the end                    ``Result: player_0 (you) wins; scores 30-18, end: empty_side, plies: 41``
=========================  ===================================================================================

The legal moves (:meth:`PlaySession.moves`) carry their words addressed to the human (``"sow pit 3"``) and the pit
they play on the board (``game.played_pit``). Undo restores the snapshot
(:meth:`~mancala_envs.envs.aec_env.MancalaEnv.state_dict`) taken just before the human's last decision, so it takes
back exactly one of the human's plies with every opponent ply that followed. The opponent's own generator is not
rewound, so a random or tie-breaking opponent may answer differently the second time.

How it is driven: a front end asks :attr:`PlaySession.human_to_move`; if so it shows :meth:`~PlaySession.moves` and
calls :meth:`~PlaySession.play`, else :meth:`~PlaySession.opponent_ply` (or :meth:`~PlaySession.opponent_replies`
for all of them at once). Every message is also appended to :attr:`PlaySession.log`.

Example:
    >>> from mancala_envs.views.play_session import PlaySession
    >>> session = PlaySession.new_game("modiar", "greedy", seat=0, seed=0, options={"first_player": 0})
    >>> [move.words for move in session.moves()]
    ['sow pit 0', 'sow pit 1', 'sow pit 2']
    >>> session.play(2)
    'You (player_0) sow pit 2'
    >>> session.opponent_replies()
    ['greedy (player_1) sows pit 4']
    >>> session.undo()
    'Undone: your move (sow pit 2) and 1 reply by greedy.'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mancala_envs.agents.agent import Agent
from mancala_envs.common.validation import check_integer, is_integer
from mancala_envs.engine.state import PLAYER

__all__ = [
    "RESERVED_OPTIONS",
    "IllegalMoveError",
    "Move",
    "NothingToUndoError",
    "PlaySession",
    "capturing_words",
    "imperative",
]

#: the env options a session sets itself; a game's ``options`` may not change them
RESERVED_OPTIONS = ("render_mode", "illegal_action")


class IllegalMoveError(ValueError):
    """An action that the player to move may not play now (the message names the legal actions)."""


class NothingToUndoError(ValueError):
    """Undo before the human's first decision."""


@dataclass(frozen=True)
class Move:
    """One legal action of the human: its id, the pit it plays on the board, and its words (``"sow pit 3"``)."""

    action: int
    pit: int
    words: str


@dataclass
class _Decision:
    """One of the human's decisions: the snapshot taken before it, what it did, the replies that followed."""

    snapshot: dict[str, Any]
    words: str
    replies: int = 0


def imperative(words: str) -> str:
    """A move described for a player, addressed to the human: ``"sows pit 3"`` -> ``"sow pit 3"``."""
    verb, _, rest = words.partition(" ")
    if verb.endswith("s") and not verb.endswith("ss"):
        verb = verb[:-1]
    return f"{verb} {rest}" if rest else verb


def capturing_words(move: Mapping[str, Any] | None) -> str:
    """``", capturing 4 seeds"`` for a ply (``env.last_move``) that captured, else ``""``: how the play messages
    and the text prompts end a move that took seeds."""
    seeds = sum(count for _, count in move["captures"]) if move else 0
    return f", capturing {seeds} seed{'s' if seeds != 1 else ''}" if seeds else ""


def _check_arguments(seat: Any, seed: Any) -> None:
    if seat is not None and (not is_integer(seat) or seat not in (0, 1)):
        raise ValueError(f"seat must be 0, 1 or None (a seat drawn from the seed); got {seat!r}.")
    check_integer("seed", seed, 0)


@dataclass
class PlaySession:
    """One game between a human and an agent (see the module docstring).

    Build it with :meth:`new_game`; the constructor takes a reset env as it stands.

    Attributes:
        env: The AEC environment (``illegal_action="raise"``), reset.
        seat: The human's seat (0 or 1).
        opponent: The agent in the other seat.
        opponent_name: Its name as given (``"greedy"``, ``"alphabeta:3"``): messages call it so.
        log: Every message so far, in order.
    """

    env: Any
    seat: int
    opponent: Agent
    opponent_name: str
    log: list[str] = field(default_factory=list, init=False)
    _decisions: list[_Decision] = field(default_factory=list, init=False, repr=False)

    @classmethod
    def new_game(
        cls,
        game: str,
        opponent: str = "greedy",
        seat: int | None = 0,
        seed: int = 0,
        *,
        options: Mapping[str, Any] | None = None,
        start_position: str | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        trust_remote_code: bool = False,
    ) -> PlaySession:
        """Makes the env and the agent, draws the seat if asked, and resets the game (no ply is played yet).

        Args:
            game: A game name or registry id (``"omweso"``, ``"ouril_v0"``, ``"mancala/urim7-v0"``).
            opponent: The agent's name, as :func:`mancala_envs.agents.make_agent` takes it.
            seat: The human's seat: 0, 1, or ``None`` (drawn from ``seed``). Who moves first is drawn from
                ``seed`` too, unless ``first_player`` is given in ``options``.
            seed: Seeds the environment (the first player) and the opponent.
            options: Game and environment options (``{"first_player": 0}``), as ``make`` takes them, except
                ``render_mode`` and ``illegal_action`` (:data:`RESERVED_OPTIONS`).
            start_position: Start from this position instead of the opening: the notation of
                :meth:`~mancala_envs.envs.aec_env.MancalaEnv.position` or a dict of ``reset`` options
                (``{"board": [...], "player": 0}``).
            render_mode: The env's render mode (the terminal game's ``"ansi"``; ``None`` for none).
            trust_remote_code: For an ``"sb3:PATH"`` opponent: see :func:`~mancala_envs.agents.make_agent`.

        Raises:
            TypeError: ``seed`` is not an integer, ``options`` not a mapping, or an option or name has the wrong type.
            ValueError: an unknown game or agent, a bad seat, seed, option or start position. Nothing is
                played before every argument is checked.
        """
        from mancala_envs.agents import make_agent
        from mancala_envs.envs.registration import make, resolve_env_id

        _check_arguments(seat, seed)
        if options is None:
            options = {}
        if not isinstance(options, Mapping) or not all(isinstance(key, str) for key in options):
            raise TypeError(
                f"options must be a dict of option names to values such as {{'first_player': 0}} (got {options!r})."
            )
        reserved = sorted(set(RESERVED_OPTIONS) & set(options))
        if reserved:
            raise ValueError(f"the game session sets {', '.join(reserved)} itself; leave it out of the options.")
        if start_position is not None and not isinstance(start_position, (str, Mapping)):
            raise TypeError(
                "start_position must be a position string or a dict of reset options "
                f"(got {type(start_position).__name__})."
            )
        if not isinstance(game, str):
            raise TypeError(f"game must be a game name or registry id such as 'ouril' (got {type(game).__name__}).")
        env = make(resolve_env_id(game), render_mode=render_mode, illegal_action="raise", **options)
        agent = make_agent(opponent, seed=seed, trust_remote_code=trust_remote_code)
        if seat is None:
            seat = int(np.random.default_rng([seed, 1]).integers(2))  # not the stream that draws the first player
        reset_options = None
        if start_position is not None:
            reset_options = {"position": start_position} if isinstance(start_position, str) else dict(start_position)
        env.reset(seed=seed, options=reset_options)
        return cls(env, int(seat), agent, opponent)

    # --- where the game stands ----------------------------------------------------------------
    @property
    def game(self) -> Any:
        """The env's :class:`~mancala_envs.games.game.Game`."""
        return self.env.unwrapped.game

    @property
    def human(self) -> str:
        """The human's agent name: ``"player_0"`` or ``"player_1"``."""
        return f"player_{self.seat}"

    @property
    def over(self) -> bool:
        """Whether the game has ended (terminated or truncated)."""
        env = self.env
        return bool(env.terminations[env.agent_selection] or env.truncations[env.agent_selection])

    @property
    def human_to_move(self) -> bool:
        """Whether the game is running and the human is to move."""
        return not self.over and self.env.agent_selection == self.human

    @property
    def plies(self) -> int:
        """Plies played so far."""
        return int(self.env.unwrapped.facts()["ply"])

    @property
    def can_undo(self) -> bool:
        """Whether the human has a decision to take back."""
        return bool(self._decisions)

    def opening_line(self) -> str:
        """Who is who: ``"modiar_v0: you are player_0, random is player_1."``."""
        return f"{self.game.env_name}: you are {self.human}, {self.opponent_name} is player_{1 - self.seat}."

    def moves(self) -> list[Move]:
        """The legal actions of the player to move, each with its pit and its words (addressed to the human)."""
        state = self.env.unwrapped.state_array
        player = int(state[PLAYER])
        return [
            Move(int(action), int(self.game.played_pit(player, int(action))), self._words(int(action)))
            for action in self.game.legal_actions(state)
        ]

    def prompt(self) -> str:
        """What the human is asked: ``"Your move (player_0):"``, or which mid-turn choice is pending."""
        pending = self.env.unwrapped.facts().get("pending")
        if pending:
            what = "re-sow the captured seeds" if pending["kind"] == "resow" else "relay"
            return f"Mid-turn choice ({self.human}): {what} from pit {pending['pit']}, which way?"
        return f"Your move ({self.human}):"

    def action_problem(self, action: Any) -> str | None:
        """``None`` if the human may play ``action`` now, else the one-line message saying why not."""
        if self.over:
            return f"The game is over ({self.result_line()}); undo or start a new game."
        if not self.human_to_move:
            return f"It is {self.opponent_name}'s turn ({self.env.agent_selection}), not yours."
        n_actions = self.game.n_actions
        if not is_integer(action):
            return f"An action is an integer from 0 to {n_actions - 1} (got {action!r})."
        action = int(action)
        if not 0 <= action < n_actions:
            return f"There is no action {action}: actions are 0-{n_actions - 1}."
        legal = [move.action for move in self.moves()]
        if action not in legal:
            return f"Action {action} ({self._words(action)}) is not legal now; the legal actions are {legal}."
        return None

    # --- plies ------------------------------------------------------------------------------------
    def play(self, action: int) -> str:
        """Plays the human's ``action``; returns (and logs) ``"You (player_0) sow pit 3, capturing 4 seeds"``.

        Raises:
            IllegalMoveError: :meth:`action_problem`'s message; nothing changes.
        """
        problem = self.action_problem(action)
        if problem is not None:
            raise IllegalMoveError(problem)
        words = self._words(int(action))
        self._decisions.append(_Decision(self.env.state_dict(), words))
        self.env.step(int(action))
        return self._say(f"You ({self.human}) {words}{self._captured()}")

    def opponent_ply(self) -> str:
        """Lets the opponent play one ply; returns (and logs) ``"greedy (player_1) sows pit 9"``.

        Raises:
            RuntimeError: the game is over or the human is to move.
        """
        if self.over or self.human_to_move:
            raise RuntimeError("opponent_ply() needs a running game with the opponent to move.")
        env = self.env
        agent = env.agent_selection
        action = int(self.opponent.act(env))
        words = self.game.describe_action(env.unwrapped.state_array, action)
        env.step(action)
        if self._decisions:
            self._decisions[-1].replies += 1
        return self._say(f"{self.opponent_name} ({agent}) {words}{self._captured()}")

    def opponent_replies(self) -> list[str]:
        """Lets the opponent play until the human is to move or the game is over; returns its messages."""
        messages = []
        while not self.over and not self.human_to_move:
            messages.append(self.opponent_ply())
        return messages

    def undo(self) -> str:
        """Takes back the human's last decision and the replies to it; returns (and logs) the message.

        Raises:
            NothingToUndoError: the human has not moved yet (``"Nothing to undo: you have not moved yet."``).
        """
        if not self._decisions:
            raise NothingToUndoError("Nothing to undo: you have not moved yet.")
        decision = self._decisions.pop()
        self.env.load_state_dict(decision.snapshot)
        replies = decision.replies
        by = f" and {replies} repl{'y' if replies == 1 else 'ies'} by {self.opponent_name}" if replies else ""
        return self._say(f"Undone: your move ({decision.words}){by}.")

    def snapshot(self) -> tuple[dict[str, Any], int, int, int]:
        """Everything a failed request must put back: the env, the decisions, the log and the last replies.

        :meth:`restore` takes it; a front end wraps a ply and its replies in the two so that an agent that fails
        (a missing table, say) leaves the game as it was.
        """
        replies = self._decisions[-1].replies if self._decisions else 0
        return self.env.state_dict(), len(self._decisions), len(self.log), replies

    def restore(self, snapshot: tuple[dict[str, Any], int, int, int]) -> None:
        """Puts back what :meth:`snapshot` took (the decisions made since are dropped)."""
        state, decisions, messages, replies = snapshot
        self.env.load_state_dict(state)
        del self._decisions[decisions:]
        del self.log[messages:]
        if self._decisions:
            self._decisions[-1].replies = replies

    # --- the end ----------------------------------------------------------------------------------
    def result_line(self) -> str:
        """``"Result: player_0 (you) wins; scores 30-18, end: empty_side, plies: 41"`` (a match adds its points)."""
        info = self.env.unwrapped.facts()
        winner = info["winner"]
        if winner is None:
            outcome = "draw"
        else:
            who = "you" if f"player_{winner}" == self.human else self.opponent_name
            win_type = info.get("win_type")
            kind = f" by {win_type}" if win_type and win_type != info["end_reason"] else ""
            outcome = f"player_{winner} ({who}) wins{kind}"
        scores = info["scores"]
        points = ""
        if self.game.is_match:
            points = f", match points {info['match_points'][0]}-{info['match_points'][1]}"
        return (
            f"Result: {outcome}; scores {scores[0]}-{scores[1]}{points}, "
            f"end: {info['end_reason']}, plies: {info['ply']}"
        )

    # --- helpers ----------------------------------------------------------------------------------
    def _words(self, action: int) -> str:
        return imperative(self.game.describe_action(self.env.unwrapped.state_array, action))

    def _captured(self) -> str:
        """``", capturing 4 seeds"`` after a ply that captured, else ``""``."""
        return capturing_words(self.env.unwrapped.last_move)

    def _say(self, message: str) -> str:
        self.log.append(message)
        return message
