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
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from mancala_envs.common.validation import check_integer
from mancala_envs.engine.state import PLAYER
from mancala_envs.games.game import Game

__all__ = ["INTERRUPTED", "play_human"]

PROG = "mancala-envs play"
#: options the terminal game sets itself; ``--option`` may not change them
RESERVED_OPTIONS = ("render_mode", "illegal_action")
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


@dataclass
class _Decision:
    """One of the human's decisions: the snapshot taken before it, what it did, the replies that followed."""

    snapshot: dict[str, Any]
    words: str
    replies: int = 0


def _describe(game: Game, state: np.ndarray, action: int) -> str:
    """What ``action`` does, in words, with the pit numbered as the text board labels it.

    ``Game.describe_action``'s generic form names the pit by the action (``"sows pit 0"``), which is
    the player's own index: on a two-row board player_1's pit 0 is labelled 6 (Ouril). Games that
    keep the generic form are described here by the board's label (``game.played_pit``); games
    with their own wording (Omweso, whose board labels each side's pits in its own frame) are asked.
    """
    if type(game).describe_action is Game.describe_action:
        return f"sows pit {game.played_pit(int(state[PLAYER]), action)}"
    return game.describe_action(state, action)


def _imperative(words: str) -> str:
    """``"sows pit 3"`` -> ``"sow pit 3"``: a move described for a player, addressed to the human."""
    verb, _, rest = words.partition(" ")
    if verb.endswith("s") and not verb.endswith("ss"):
        verb = verb[:-1]
    return f"{verb} {rest}" if rest else verb


def _captured(env: Any, agent: str) -> str:
    """``", capturing 4 seeds"`` after a ply that captured, else ``""``."""
    move = env.unwrapped.last_move
    seeds = sum(count for _, count in move["captures"]) if move else 0
    return f", capturing {seeds} seed{'s' if seeds != 1 else ''}" if seeds else ""


class _TerminalGame:
    """One game between a human at the terminal and an agent (see the module docstring)."""

    def __init__(
        self, env: Any, human: int, opponent: Any, opponent_name: str, input_fn: Callable[[str], str], out: TextIO
    ) -> None:
        self.env = env
        self.game = env.unwrapped.game
        self.human = f"player_{human}"
        self.opponent = opponent
        self.opponent_name = opponent_name
        self.input_fn = input_fn
        self.out = out
        self.decisions: list[_Decision] = []

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def run(self) -> str | None:
        """Plays until the game ends (returns ``None``) or is abandoned (returns the reason)."""
        env = self.env
        try:
            while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                if env.agent_selection == self.human:
                    self.human_decision()
                else:
                    self.opponent_ply()
        except _Abandoned as stop:
            return stop.reason
        except EOFError:
            self.say(f"\nEnd of input: the game is abandoned at ply {self.plies()}.")
            return "eof"
        except KeyboardInterrupt:
            self.say(f"\nInterrupted: the game is abandoned at ply {self.plies()}.")
            return "interrupt"
        return None

    def plies(self) -> int:
        return int(self.env.unwrapped.facts()["ply"])

    # --- the opponent -------------------------------------------------------------------------
    def opponent_ply(self) -> None:
        env = self.env
        agent = env.agent_selection
        action = int(self.opponent.act(env))
        words = _describe(self.game, env.unwrapped.state_array, action)
        env.step(action)
        if self.decisions:
            self.decisions[-1].replies += 1
        self.say(f"{self.opponent_name} ({agent}) {words}{_captured(env, agent)}")

    # --- the human ----------------------------------------------------------------------------
    def moves(self) -> list[tuple[int, str]]:
        """The legal actions of the player to move, each with its words (addressed to the human)."""
        state = self.env.unwrapped.state_array
        return [(int(a), _imperative(_describe(self.game, state, int(a)))) for a in self.game.legal_actions(state)]

    def show(self, moves: list[tuple[int, str]]) -> None:
        """The board, then the numbered list of the human's moves."""
        self.say()
        self.say(self.env.render())
        pending = self.env.unwrapped.facts().get("pending")
        if pending:
            what = "re-sow the captured seeds" if pending["kind"] == "resow" else "relay"
            self.say(f"Mid-turn choice ({self.human}): {what} from pit {pending['pit']}, which way?")
        else:
            self.say(f"Your move ({self.human}):")
        digits = len(str(len(moves)))
        entries = [f"{number:>{digits}}) {words}" for number, (_, words) in enumerate(moves, start=1)]
        width = max(len(entry) for entry in entries) + 3
        columns = 1 if len(entries) <= 8 else max(1, 78 // width)
        for start in range(0, len(entries), columns):
            self.say("  " + "".join(entry.ljust(width) for entry in entries[start : start + columns]).rstrip())

    def human_decision(self) -> None:
        """Shows the board and the moves, then reads lines until one is a move (played) or undo."""
        moves = self.moves()
        self.show(moves)
        numbers = "1" if len(moves) == 1 else f"1-{len(moves)}"
        prompt = f"[{numbers}, a<action>, u, b, h, q] > "
        while True:
            text = self.input_fn(prompt)
            word = text.strip().lower()
            if word in ("q", "quit", "exit"):
                self.say(f"You quit: the game is abandoned at ply {self.plies()}.")
                raise _Abandoned("quit")
            if word in ("h", "help", "?"):
                self.say(HELP)
            elif word in ("b", "board"):
                self.show(moves)
            elif word in ("u", "undo"):
                if self.undo():
                    return
            else:
                action, problem = self.parse_move(word, text, moves)
                if problem is None:
                    self.play(action, dict(moves)[action])
                    return
                self.say(problem)

    def parse_move(self, word: str, text: str, moves: list[tuple[int, str]]) -> tuple[int, str | None]:
        """The action the input names, or a one-line message saying what is wrong with it."""
        count = len(moves)
        if not word:
            return -1, f"Type the number of a move (1-{count}), or h for help."
        if re.fullmatch(r"a[0-9]{1,9}", word):
            action = int(word[1:])
            if action >= self.game.n_actions:
                return -1, f"There is no action {action}: actions are 0-{self.game.n_actions - 1}."
            legal = [a for a, _ in moves]
            if action not in legal:
                words = _imperative(_describe(self.game, self.env.unwrapped.state_array, action))
                return -1, f"Action {action} ({words}) is not legal now; the legal actions are {legal}."
            return action, None
        if re.fullmatch(r"[0-9]{1,9}", word):
            number = int(word)
            if not 1 <= number <= count:
                return -1, f"There is no move {number}: choose a number from 1 to {count}."
            return moves[number - 1][0], None
        shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:37] + "..."
        return -1, f"{shown!r} is not a move: type a number from 1 to {count}, or h for help."

    def play(self, action: int, words: str) -> None:
        env = self.env
        self.decisions.append(_Decision(env.state_dict(), words))
        env.step(action)
        self.say(f"You ({self.human}) {words}{_captured(env, self.human)}")

    def undo(self) -> bool:
        """Takes back the human's last decision and the replies; False (with a message) if there is none."""
        if not self.decisions:
            self.say("Nothing to undo: you have not moved yet.")
            return False
        decision = self.decisions.pop()
        self.env.load_state_dict(decision.snapshot)
        replies = decision.replies
        by = f" and {replies} repl{'y' if replies == 1 else 'ies'} by {self.opponent_name}" if replies else ""
        self.say(f"Undone: your move ({decision.words}){by}.")
        return True

    # --- the end ------------------------------------------------------------------------------
    def result_line(self, info: dict[str, Any]) -> str:
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


def _check_arguments(seat: Any, seed: Any) -> None:
    if seat is not None and (isinstance(seat, (bool, np.bool_)) or seat not in (0, 1)):
        raise ValueError(f"seat must be 0, 1 or None (a seat drawn from the seed); got {seat!r}.")
    check_integer("seed", seed, 0)


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
    from mancala_envs.agents import make_agent
    from mancala_envs.envs.registration import make, resolve_env_id

    out = sys.stdout if out is None else out
    _check_arguments(seat, seed)
    reserved = sorted(set(RESERVED_OPTIONS) & set(game_options))
    if reserved:
        raise ValueError(f"the terminal game sets {', '.join(reserved)} itself; leave it out of the options.")
    if start_position is not None and not isinstance(start_position, (str, dict)):
        raise TypeError(
            "start_position must be a position string or a dict of reset options "
            f"(got {type(start_position).__name__})."
        )
    env_id = resolve_env_id(game)
    env = make(env_id, render_mode="ansi", illegal_action="raise", **game_options)
    agent = make_agent(opponent, seed=seed, trust_remote_code=trust_remote_code)
    if seat is None:
        seat = int(np.random.default_rng([seed, 1]).integers(2))  # not the stream that draws the first player
    options = None
    if start_position is not None:
        options = {"position": start_position} if isinstance(start_position, str) else start_position
    env.reset(seed=seed, options=options)

    session = _TerminalGame(env, int(seat), agent, opponent, input_fn, out)
    session.say(
        f"{env.unwrapped.game.env_name}: you are player_{seat}, {opponent} is player_{1 - seat}. "
        "Type h for help, q to quit."
    )
    stopped = session.run()
    final = env.unwrapped.facts()
    if stopped is None:
        session.say()
        session.say(env.render())  # type: ignore[arg-type]  # "ansi" renders a str
        session.say(session.result_line(final))
    final["human"] = int(seat)
    final["stopped"] = stopped
    return final
