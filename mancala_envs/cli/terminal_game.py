"""Play a game in the terminal against an agent: ``mancala-envs play omweso --opponent alphabeta:3``.

Before each of your decisions the text board (``render_mode="ansi"``) is shown with a numbered
list of your legal moves in words::

    modiar_v0  ply 0  player_0 to move, legal actions [0, 1, 2]
      pit          5   4   3
      player_1 [   7   7   7 ]  store 0
      player_0 [   7   7   7 ]  store 0
      pit          0   1   2
    Your move (player_0):
      1) sow pit 0
      2) sow pit 1
      3) sow pit 2

What you can type at the prompt:

======================  =================================================================
``1`` .. ``N``          play the move with that number in the list
``a<action>``           play a raw action id of the environment, as the action table of
                        the rules page numbers them (``a17`` is Omweso's action 17: pit 1
                        clockwise; on Ouril player_1's ``a0`` sows the pit labelled 6)
``u`` / ``undo``        take back your last decision and the opponent's replies to it
``b`` / ``board``       show the board and the list of moves again
``h`` / ``help``        show this help
``q`` / ``quit``        abandon the game
======================  =================================================================

Anything else -- an empty line, a word, a number outside the list, an illegal or unknown
action -- prints a one-line message and asks again; the game is unchanged. End of input
(Ctrl-D) and Ctrl-C abandon the game with a message, never a traceback.

The opponent's plies are printed in words (``greedy (player_1) sows pit 9``). Whoever faces
one of Omweso's mid-turn choices makes it: you get a two-entry menu (counter-clockwise or
clockwise). In the placement variant (``mancala/omweso-placement-v0``) every seed placed is a
decision of its own.

Undo restores the snapshot (:meth:`~mancala_envs.envs.aec_env.MancalaEnv.state_dict`) taken just before
your last decision, so it takes back exactly one of your plies (one placement, or one mid-turn
choice) with every opponent ply that followed; repeat it to go further back. The opponent's own
generator is not rewound, so a random or tie-breaking opponent may answer differently the second
time.

At the end the final board and one result line are printed (winner, scores, end reason, plies).

The rules messages, the plies and undo are :class:`~mancala_envs.views.play_session.PlaySession`'s, which the web
app (``mancala-envs serve``) shares; this module adds the terminal's prompts and numbered menu.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any, TextIO

from mancala_envs.views.play_session import Move, NothingToUndoError, PlaySession

__all__ = ["INTERRUPTED", "play_human"]

PROG = "mancala-envs play"
#: exit status of ``play_main`` after Ctrl-C (128 + SIGINT, as shells report it)
INTERRUPTED = 130

HELP = """\
Type the number of a move in the list, or:
  a<action>  play a raw action id (e.g. a17)
  u, undo    take back your last decision and the opponent's replies
  b, board   show the board and your moves again
  h, help    show this help
  q, quit    abandon the game"""


class _Abandoned(Exception):
    """The human stopped the game: ``reason`` is ``"quit"``, ``"eof"`` or ``"interrupt"``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _TerminalGame:
    """One game between a human at the terminal and an agent (see the module docstring): the prompts and the
    menu of numbered moves; the rules messages, the plies and undo are the :class:`PlaySession`'s."""

    def __init__(self, session: PlaySession, input_fn: Callable[[str], str], out: TextIO) -> None:
        self.session = session
        self.input_fn = input_fn
        self.out = out

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def run(self) -> str | None:
        """Plays until the game ends (returns ``None``) or is abandoned (returns the reason)."""
        session = self.session
        try:
            while not session.over:
                if session.human_to_move:
                    self.human_decision()
                else:
                    self.say(session.opponent_ply())
        except _Abandoned as stop:
            return stop.reason
        except EOFError:
            self.say(f"\nEnd of input: the game is abandoned at ply {session.plies}.")
            return "eof"
        except KeyboardInterrupt:
            self.say(f"\nInterrupted: the game is abandoned at ply {session.plies}.")
            return "interrupt"
        return None

    def show(self, moves: list[Move]) -> None:
        """The board, then the numbered list of the human's moves."""
        self.say()
        self.say(self.session.env.render())
        self.say(self.session.prompt())
        digits = len(str(len(moves)))
        entries = [f"{number:>{digits}}) {move.words}" for number, move in enumerate(moves, start=1)]
        width = max(len(entry) for entry in entries) + 3
        columns = 1 if len(entries) <= 8 else max(1, 78 // width)
        for start in range(0, len(entries), columns):
            self.say("  " + "".join(entry.ljust(width) for entry in entries[start : start + columns]).rstrip())

    def human_decision(self) -> None:
        """Shows the board and the moves, then reads lines until one is a move (played) or undo."""
        session = self.session
        moves = session.moves()
        self.show(moves)
        numbers = "1" if len(moves) == 1 else f"1-{len(moves)}"
        prompt = f"[{numbers}, a<action>, u, b, h, q] > "
        while True:
            text = self.input_fn(prompt)
            word = text.strip().lower()
            if word in ("q", "quit", "exit"):
                self.say(f"You quit: the game is abandoned at ply {session.plies}.")
                raise _Abandoned("quit")
            if word in ("h", "help", "?"):
                self.say(HELP)
            elif word in ("b", "board"):
                self.show(moves)
            elif word in ("u", "undo"):
                try:
                    self.say(session.undo())
                    return
                except NothingToUndoError as nothing:
                    self.say(str(nothing))
            else:
                action, problem = self.parse_move(word, text, moves)
                if problem is None:
                    self.say(session.play(action))
                    return
                self.say(problem)

    def parse_move(self, word: str, text: str, moves: list[Move]) -> tuple[int, str | None]:
        """The action the input names, or a one-line message saying what is wrong with it."""
        count = len(moves)
        if not word:
            return -1, f"Type the number of a move (1-{count}), or h for help."
        if re.fullmatch(r"a[0-9]{1,9}", word):
            action = int(word[1:])
            return action, self.session.action_problem(action)
        if re.fullmatch(r"[0-9]{1,9}", word):
            number = int(word)
            if not 1 <= number <= count:
                return -1, f"There is no move {number}: choose a number from 1 to {count}."
            return moves[number - 1].action, None
        shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:37] + "..."
        return -1, f"{shown!r} is not a move: type a number from 1 to {count}, or h for help."


def play_human(
    game: str,
    opponent: str = "greedy",
    seat: int | None = 0,
    seed: int = 0,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
    *,
    start_position: str | dict[str, Any] | None = None,
    trust_remote_code: bool = False,
    **game_options: Any,
) -> dict[str, Any]:
    """Plays one game in the terminal: a human against a named agent.

    Args:
        game: A game name or registry id (``"omweso"``, ``"ouril_v0"``, ``"mancala/urim7-v0"``).
        opponent: The agent's name, as :func:`mancala_envs.agents.make_agent` takes it
            (``"random"``, ``"greedy"``, ``"alphabeta:3"`` ...).
        seat: The human's seat: 0 (player_0), 1, or ``None`` (drawn from ``seed``). Who moves
            first is drawn from ``seed`` too, unless ``first_player`` is given in ``game_options``.
        seed: Seeds the environment (the first player) and the opponent.
        input_fn: Reads one line after printing its prompt (``input``; tests pass a script).
        out: Where to print (default: ``sys.stdout`` at call time).
        start_position: Not for everyday play: start from this position instead of the opening,
            either the notation of :meth:`~mancala_envs.envs.aec_env.MancalaEnv.position` or a dict of
            ``reset`` options (``{"board": [...], "player": 0, "pending": ...}``). Tests and
            puzzles use it to reach, say, an Omweso mid-turn choice.
        trust_remote_code: For an ``"sb3:PATH"`` opponent: load the file in full with Stable-Baselines3,
            which unpickles objects stored in it, so a crafted file runs arbitrary code. Only for files you
            trust; by default the model is loaded without unpickling (files that need it are refused).
        **game_options: Game and environment options (``first_player=1``, ``setup="placement"``).

    Returns:
        The human's final infos (scores, winner, end reason, ply, last move ...; the infos of the
        moment the game was abandoned if it was), with two more keys: ``"human"``, the human's
        seat, and ``"stopped"``: ``None`` if the game was played out, else ``"quit"``, ``"eof"``
        (end of input) or ``"interrupt"`` (Ctrl-C).

    Raises:
        TypeError: ``seed`` is not an integer, or an option or name has the wrong type.
        ValueError: an unknown game or agent, a bad seat, seed, option or start position.
            Everything is checked before the first line is printed.

    Example:
        >>> import io
        >>> from mancala_envs.cli.terminal_game import play_human
        >>> script = iter(["q"])
        >>> final = play_human("modiar", "random", input_fn=lambda prompt: next(script), out=io.StringIO())
        >>> final["stopped"], final["winner"]
        ('quit', None)
    """
    out = sys.stdout if out is None else out
    session = PlaySession.new_game(
        game,
        opponent,
        seat,
        seed,
        options=game_options,
        start_position=start_position,
        render_mode="ansi",
        trust_remote_code=trust_remote_code,
    )
    terminal = _TerminalGame(session, input_fn, out)
    terminal.say(f"{session.opening_line()} Type h for help, q to quit.")
    stopped = terminal.run()
    final = session.env.unwrapped.facts()
    if stopped is None:
        terminal.say()
        terminal.say(session.env.render())
        terminal.say(session.result_line())
    final["human"] = session.seat
    final["stopped"] = stopped
    return final
