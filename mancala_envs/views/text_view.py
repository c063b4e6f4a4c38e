"""The position as text for agents that read text (language models), and their reply as an action.

:class:`TextView` writes the prompt of the position an env is in (:meth:`TextView.prompt`) and reads an agent's
reply back into an action (:meth:`TextView.parse`); :func:`text_prompt` and :func:`parse_reply` do the same in
one call. Every registered game and variant is served the same way: everything in the prompt is derived from the
env and its game (the board rows, the sowing order, stores or captured tallies, the moves' own words), so a new
game is served by being registered.

The prompt
    1. the game (its name, the variant's description) and which player the agent is;
    2. how to read the board: who sits where, how the pits are numbered, which way seeds are sown, where
       captured seeds go, that the same player may decide again within a turn;
    3. the text board (``env.text()``), the stores or captured tallies, the match points of a match, the last
       move and whose move it is; at a mid-turn choice (Omweso's relay or re-sowing direction,
       ``env.facts()["pending"]``) it says that the turn is not over and what is being chosen;
    4. the legal moves, one a line, each with its **move number** and the game's words for it
       (``env.describe_action``)::

           Legal moves:
             move 0: sows pit 0
             move 3: sows pit 3

    5. how to answer.

The answer format
    A reply names **one move number** from the list: ``move 3`` (the move number is the env's action id, so it
    is the same number whatever the position; for player_0 of a two-row game it is also the pit's number).
    The parser is tolerant of chatter and markup and strict on meaning:

    - a number written after ``move`` or ``action`` (``"I'll play move 3."``, ``"Move: 3"``, ``"action #3"``)
      is the answer, whatever else the reply says; several such numbers must all be the same;
    - without one, a reply whose only number is the move number is read as that move (``"3"``, ``"**3**"``);
      numbers that name pits (``"pit 9"``) or counts of seeds (``"4 seeds"``) are never read as moves;
    - anything else raises :class:`IllegalReply`: no move number, two different moves, a number that is no
      move of the game (out of range), or a move that is not legal now. Its ``message`` is addressed to the
      agent: what was wrong, and what a valid answer looks like, with the legal moves listed. :func:`retry_prompt`
      appends it to the prompt for a second try.

Example:
    >>> import mancala_envs
    >>> from mancala_envs.views.text_view import IllegalReply, TextView
    >>> env = mancala_envs.make("mancala/modiar-v0", first_player=0)
    >>> env.reset(seed=0)
    >>> view = TextView(env)
    >>> view.prompt().splitlines()[-6:-2]
    ['Legal moves:', '  move 0: sows pit 0', '  move 1: sows pit 1', '  move 2: sows pit 2']
    >>> view.parse("I'll play **move 2**.")
    2
    >>> try:
    ...     view.parse("I sow pit 7")
    ... except IllegalReply as refusal:
    ...     print(refusal.problem, refusal.legal)
    no_move [0, 1, 2]
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from mancala_envs.engine.state import PLAYER
from mancala_envs.engine.trace import new_trace, read_trace
from mancala_envs.envs.aec_env import MancalaEnv, unwrap_env
from mancala_envs.envs.registration import variant_of
from mancala_envs.games.game import Game
from mancala_envs.views.play_session import capturing_words

__all__ = [
    "IllegalReply",
    "TextView",
    "format_answer",
    "parse_reply",
    "retry_prompt",
    "sowing_order",
    "text_prompt",
]

#: a move number named as one: ``move 3``, ``Move: 3``, ``action #3``, ``move number 3``
_NAMED_MOVE = re.compile(r"\b(?:move|action)s?\s*(?:number|no\.?)?\s*[:=#]?\s*[*_`\"'(\[]*\s*(-?\d+)", re.IGNORECASE)
#: every integer standing alone (not inside a word such as ``player_0`` or a decimal such as ``3.5``)
_NUMBER = re.compile(r"(?<![\w.\-])-?\d+(?![\w]|\.\d)")
#: the numbers that are no move numbers: pits (``pit 9``, ``pits 3 and 4``) and counts of seeds (``4 seeds``)
_NOT_MOVES = re.compile(r"\bpits?\s*(?:#|no\.?)?\s*\d+(?:\s*(?:,|and|or)\s*\d+)*|\b\d+\s*seeds?\b", re.IGNORECASE)
#: the longest piece of a reply quoted back in a message
_QUOTED = 60
#: plies played from the opening to find a sowing ply that shows the sowing order (a placement phase comes first)
_ORDER_SEARCH_PLIES = 400


class IllegalReply(ValueError):
    """A reply that names no legal move of the position: :meth:`TextView.parse` refuses it.

    Attributes:
        message: What was wrong and what a valid answer looks like, addressed to the agent (also ``str(error)``).
        problem: ``"no_move"`` (no move number found), ``"ambiguous"`` (two different move numbers),
            ``"out_of_range"`` (a number that is no move of the game) or ``"not_legal"`` (a move of the game that
            is not legal now).
        reply: The reply refused.
        legal: The legal move numbers (action ids) of the position.
    """

    def __init__(self, message: str, problem: str, reply: str, legal: list[int]) -> None:
        super().__init__(message)
        self.message = message
        self.problem = problem
        self.reply = reply
        self.legal = legal


def format_answer(action: int) -> str:
    """The answer that names ``action``, as the prompt asks for it: ``format_answer(3) == "move 3"``."""
    return f"move {int(action)}"


def sowing_order(game: Game) -> int:
    """Which way ``game`` sows, read from a ply the engine plays: ``+1`` when the seeds go to the next pit numbers
    (``3, 4, 5...``), ``-1`` when they go to the previous ones (``3, 2, 1...``), ``0`` when no ply of the opening
    shows it (the pits a sowing passes, ``last_move["sown"]``, are compared one step at a time; store entries and
    the wrap around the board are outvoted by the steps along the row).

    Moves that name their own direction (Omweso's clockwise moves) sow the other way; the prompt says so.
    """
    state = game.new_state(0)
    trace = new_trace()
    for _ply in range(_ORDER_SEARCH_PLIES):
        legal = game.legal_actions(state)
        if legal.size == 0:
            break
        # the first legal action with the most seeds: the longest sowing the opening offers
        board = game.board(state)
        player = int(state[PLAYER])
        action = max(legal, key=lambda a: int(board[game.played_pit(player, int(a))]))
        game.step(state, int(action), trace)
        sown, _captures = read_trace(trace)
        pits = [pit for pit in sown if pit < game.n_pits]
        steps = [after - before for before, after in itertools.pairwise(pits)]
        forward, backward = steps.count(1), steps.count(-1)
        if forward != backward:
            return 1 if forward > backward else -1
    return 0


def _words(action: int, words: str) -> str:
    return f"move {action} ({words})"


def _quoted(reply: str) -> str:
    text = " ".join(reply.split())
    return text if len(text) <= _QUOTED else text[: _QUOTED - 3] + "..."


class TextView:
    """The text view of one env: its prompts and the parser of replies (see the module docstring).

    The view reads the env as it is at each call (one view serves a whole game, and the next ones); what it derives
    from the game alone (the reading guide) is worked out once, here.

    Args:
        env: A mancala_envs AEC env (:class:`~mancala_envs.envs.aec_env.MancalaEnv`), or a wrapper of one (its
            ``unwrapped``).

    Raises:
        TypeError: ``env`` is not a mancala_envs environment.
    """

    def __init__(self, env: Any) -> None:
        self.env: MancalaEnv = unwrap_env(env)
        self.game: Game = self.env.game
        self.guide = self._reading_guide()

    # --- what the game is ---------------------------------------------------------------------------------------
    def title(self) -> str:
        """The game's name, its env name and, for a registered variant, its description."""
        game = self.game
        name = " ".join(part.capitalize() for part in game.name.split("_"))
        variant = self._variant_description()
        return f"{name} ({game.env_name}){': ' + variant if variant else ''}"

    def _variant_description(self) -> str:
        """The description of the registered variant whose config is the game's, or ``""``."""
        variant = variant_of(self.game)
        return "" if variant is None else variant.description

    def _reading_guide(self) -> str:
        """One paragraph on how to read the board, derived from the game."""
        game = self.game
        rows = game.board_rows()
        own_rows = len(rows) // 2
        pits = len(rows[0])
        sides = "row is" if own_rows == 1 else "rows are"
        row_words = "1 row" if own_rows == 1 else f"{own_rows} rows"
        sentences = [
            f"The board is drawn from player_0's side: player_1's {sides} on top, player_0's at the bottom; "
            f"each player owns {row_words} of {pits} pits.",
            "The numbers printed next to each row (after 'pit' or 'pits') name its pits, and the moves name pits "
            "by these numbers.",
        ]
        order = sowing_order(game)
        if order:
            way = "increasing" if order > 0 else "decreasing"
            sentences.append(
                "A move takes the seeds of one of the mover's pits and sows them one by one into the following "
                f"pits in {way} pit-number order, going round the board; a move whose description names a "
                "direction sows that way."
            )
        else:
            sentences.append("A move takes the seeds of one of the mover's pits and sows them one by one.")
        if game.has_stores:
            sentences.append("Captured seeds go to the capturer's store (the number after 'store').")
        else:
            sentences.append("Captured seeds are taken off the board and tallied ('captured so far').")
        sentences.append(
            "Sometimes the same player decides again before the turn passes (an extra turn, or a choice in the "
            "middle of a turn); every decision gets its own prompt."
        )
        return " ".join(sentences)

    # --- the position -------------------------------------------------------------------------------------------
    def legal_moves(self) -> list[tuple[int, str]]:
        """The legal moves of the player to move: ``(move number, the game's words for it)``, in increasing order.

        Raises:
            RuntimeError: the env has not been reset.
        """
        env = self.env
        if not env.has_reset:
            raise RuntimeError("the text view needs a reset env; call env.reset() first.")
        legal = self.game.legal_actions(env.state_array)
        return [(int(action), env.describe_action(int(action))) for action in legal]

    def prompt(self) -> str:
        """The prompt of the position: the game, how to read the board, the board, whose move, the legal moves
        and how to answer (see the module docstring).

        Raises:
            RuntimeError: the env has not been reset.
            ValueError: the game is over (there is no move to ask for).
        """
        env = self.env
        moves = self.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to ask for; call env.reset() to start a new one.")
        facts = env.facts()
        mover = env.agent_selection
        lines = [f"You are playing {self.title()}. You are {mover}.", "", "How to read the board: " + self.guide]
        lines += ["", "The board:", env.text(), ""]
        stores = [int(count) for count in env.stores]
        tally = "Stores" if self.game.has_stores else "Captured seeds"
        lines.append(f"{tally}: player_0 {stores[0]}, player_1 {stores[1]}.")
        if self.game.is_match:
            points = facts["match_points"]
            lines.append(
                f"Match points: player_0 {points[0]}, player_1 {points[1]} ({facts['games_played']} games played)."
            )
        last = env.last_move
        if last is not None:
            words = self.game.move_words(last["player"], last["action"], last["sown"])
            lines.append(f"Last move: player_{last['player']} {words}{capturing_words(last)}.")
        pending = facts.get("pending")
        if pending:
            what = "re-sow the captured seeds" if pending.get("kind") == "resow" else "relay"
            lines.append(
                f"It is {mover}'s move again: this is a mid-turn choice, your turn is not over. You {what} from "
                f"pit {pending['pit']}: choose the direction."
            )
        else:
            lines.append(f"It is {mover}'s move (ply {facts['ply']}).")
        lines += ["", "Legal moves:"]
        lines += [f"  move {action}: {words}" for action, words in moves]
        example = format_answer(moves[0][0])
        lines += ["", f'Answer with the move number of your choice, e.g. "{example}". Name exactly one move.']
        return "\n".join(lines)

    # --- the reply ----------------------------------------------------------------------------------------------
    def parse(self, reply: str) -> int:
        """The action ``reply`` names (see the answer format in the module docstring).

        Args:
            reply: The agent's reply to :meth:`prompt`.

        Returns:
            The legal action (the move number) the reply names.

        Raises:
            TypeError: ``reply`` is not a string.
            RuntimeError: the env has not been reset.
            IllegalReply: the reply names no move, two different moves, a number that is no move of the game, or
                a move that is not legal now; its ``message`` tells the agent what a valid answer is.
        """
        if not isinstance(reply, str):
            raise TypeError(f"a reply must be a string (got {type(reply).__name__}); a text agent returns text.")
        moves = self.legal_moves()
        legal = [action for action, _ in moves]
        options = ", ".join(_words(action, words) for action, words in moves)
        how = (
            f'Answer with exactly one move number from the list, e.g. "{format_answer(legal[0])}". '
            if legal
            else "The game is over. "
        )
        advice = f"{how}The legal moves are: {options}." if legal else how.strip()

        def refuse(problem: str, what: str) -> IllegalReply:
            return IllegalReply(f"{what} {advice}", problem, reply, legal)

        named = [int(number) for number in _NAMED_MOVE.findall(reply)]
        if not named:
            unrelated = _NOT_MOVES.sub(" ", reply)
            named = [int(number) for number in _NUMBER.findall(unrelated)]
        chosen = sorted(set(named))
        if not chosen:
            raise refuse("no_move", "Your reply names no move number.")
        if len(chosen) > 1:
            listed = ", ".join(str(number) for number in chosen[:-1]) + f" and {chosen[-1]}"
            raise refuse("ambiguous", f"Your reply names more than one move (moves {listed}).")
        action = chosen[0]
        last = self.game.n_actions - 1
        if not 0 <= action <= last:
            raise refuse("out_of_range", f"There is no move {action}: the move numbers go from 0 to {last}.")
        if action not in legal:
            raise refuse("not_legal", f"Move {action} is not legal now.")
        return action


def text_prompt(env: Any) -> str:
    """The prompt of ``env``'s position (:meth:`TextView.prompt`); ``env`` may be wrapped.

    Raises:
        TypeError: ``env`` is not a mancala_envs environment.
        RuntimeError: the env has not been reset.
        ValueError: the game is over.
    """
    return TextView(env).prompt()


def parse_reply(env: Any, reply: str) -> int:
    """The legal action ``reply`` names in ``env``'s position (:meth:`TextView.parse`).

    Raises:
        TypeError: ``env`` is not a mancala_envs environment, or ``reply`` is not a string.
        RuntimeError: the env has not been reset.
        IllegalReply: the reply names no legal move; its ``message`` says why and lists the legal moves.
    """
    return TextView(env).parse(reply)


def retry_prompt(prompt: str, reply: str, error: IllegalReply) -> str:
    """The prompt asked again after a refused reply: ``prompt``, then the reply (shortened) and ``error.message``."""
    if not isinstance(error, IllegalReply):
        raise TypeError(f"error must be the IllegalReply the parser raised (got {type(error).__name__}).")
    return f'{prompt}\n\nYour reply "{_quoted(reply)}" was not accepted. {error.message}'
