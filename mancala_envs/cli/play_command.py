"""``mancala-envs play``: the arguments of the terminal game (:func:`mancala_envs.cli.terminal_game.play_human`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from mancala_envs.cli.common import (
    SEED,
    Parser,
    UsageError,
    add_option_argument,
    add_trust_remote_code,
    collect_options,
    fail,
    os_error_line,
    quiet_broken_pipe,
)
from mancala_envs.cli.terminal_game import INTERRUPTED, PROG, play_human

__all__ = ["add_play_arguments", "play_main", "run_play"]


def _seat(text: str) -> int | None:
    if text in ("0", "1"):
        return int(text)
    if text == "random":
        return None
    raise argparse.ArgumentTypeError(f"invalid seat {text!r} (use 0, 1 or random)")


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the arguments of ``mancala-envs play`` to ``parser`` (a subcommand's parser, say)."""
    parser.add_argument("game", help="game name or registry id: ouril, omweso, ouril_v0, mancala/urim7-v0 ...")
    parser.add_argument(
        "--opponent",
        default="greedy",
        help="the agent you play against: random, greedy, alphabeta:3, perfect (needs a table), pretrained "
        "(the shipped policy) ... (default: greedy)",
    )
    parser.add_argument(
        "--seat",
        type=_seat,
        default=0,
        metavar="{0,1,random}",
        help="your seat: 0 = player_0, 1 = player_1, random = drawn from the seed (default: 0)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seeds who moves first and the opponent (default: 0)")
    add_option_argument(
        parser,
        "a game or environment option, repeatable: --option first_player=0 --option setup=placement",
    )
    add_trust_remote_code(parser)


def run_play(args: argparse.Namespace, input_fn: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Runs ``mancala-envs play`` from parsed arguments; returns the exit status (0, or 130 after Ctrl-C).

    Raises:
        ValueError, TypeError: bad arguments (see :func:`play_human`); the caller prints them.
    """
    options = collect_options(args.option)
    final = play_human(
        args.game,
        args.opponent,
        args.seat,
        args.seed,
        input_fn=input_fn,
        out=out,
        trust_remote_code=args.trust_remote_code,
        **options,
    )
    return INTERRUPTED if final["stopped"] == "interrupt" else 0


def play_main(
    argv: Sequence[str] | None = None, input_fn: Callable[[str], str] = input, out: TextIO | None = None
) -> int:
    """``mancala-envs play GAME [--opponent NAME] [--seat 0|1|random] [--seed N] [--option key=value ...]
    [--trust-remote-code]``.

    Returns the exit status: 0 when the game is over, quit (``q``) or ends with the input; 130
    after Ctrl-C; 2 for bad arguments (an unknown game or agent, a malformed option ...), printed
    as one line ``mancala-envs play: error: ...`` on stderr, without usage text or traceback.
    ``--help`` prints the usage and exits with 0.
    """
    parser = Parser(prog=PROG, description="Play a mancala game in the terminal against an agent.")
    add_play_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        return fail(str(error), PROG)
    try:
        return run_play(args, input_fn=input_fn, out=out)
    except (ValueError, TypeError) as error:
        return fail(str(error), PROG)
    except BrokenPipeError:
        return quiet_broken_pipe()
    except OSError as error:  # a missing model file
        return fail(os_error_line(error), PROG)


if __name__ == "__main__":
    sys.exit(play_main())
