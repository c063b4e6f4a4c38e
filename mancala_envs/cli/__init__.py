"""The ``mancala-envs`` command line.

``mancala-envs train`` trains MaskablePPO on a game against an opponent, saves it
and prints its win / draw / loss rates against the baselines (the ``train`` extra);
``mancala-envs demo --game ouril --agents random greedy`` plays one game between
two agents and prints it turn by turn (``--record game.json`` also saves it as a game
record); ``mancala-envs replay game.json`` prints a recorded game move by move,
``--out game.html`` writes it as one self-contained page to watch in a browser, and ``--out game.gif`` (or ``.mp4``,
or PNG frames) animates it (the ``render`` extra);
``mancala-envs play omweso --opponent alphabeta:3`` plays a game in the terminal
(:mod:`mancala_envs.cli.terminal_game`, parsed by :mod:`mancala_envs.cli.play_command`), and ``mancala-envs serve``
in the browser, on a local web app (:mod:`mancala_envs.web`, parsed by :mod:`mancala_envs.cli.serve_command`; the
``web`` extra), both through :class:`mancala_envs.views.play_session.PlaySession`;
``mancala-envs tournament --game ouril --agents random greedy`` runs a round robin with ratings
(:mod:`mancala_envs.analysis.tournament`, parsed by :mod:`mancala_envs.cli.tournament_command`; the ``tournament``
extra); ``mancala-envs ladder AGENT --game G`` places an agent on the game's strength ladder
(:mod:`mancala_envs.analysis.ladder`, parsed by :mod:`mancala_envs.cli.ladder_command`); ``mancala-envs list`` lists
the ids (PettingZoo's and Gymnasium's); ``mancala-envs warm-up`` compiles every game's entry points into numba's
cache ahead of use (:mod:`mancala_envs.training.warm_up`, ``docs/install.md``).
``python -m mancala_envs`` is the same command.
Each subcommand lives in its own module, ``mancala_envs.cli.<name>_command`` (its arguments, what it runs and
what it prints on Ctrl-C); this package assembles the parser and runs :func:`main`.
Bad input is reported as one line, ``mancala-envs: error: ...``, with exit status 2
(see docs/contract.md).
"""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from mancala_envs.cli import (
    demo_command,
    ladder_command,
    list_command,
    replay_command,
    serve_command,
    train_command,
    warm_up_command,
)
from mancala_envs.cli.common import PROG, Parser, UsageError, fail, os_error_line, quiet_broken_pipe
from mancala_envs.cli.demo_command import play_demo
from mancala_envs.cli.list_command import list_table
from mancala_envs.cli.replay_command import print_replay, run_replay
from mancala_envs.cli.train_command import run_train
from mancala_envs.cli.warm_up_command import run_warm_up
from mancala_envs.common.moved import moved_attribute

__all__ = ["PROG", "list_table", "main", "play_demo", "print_replay", "run_replay", "run_train", "run_warm_up"]


class Subcommand(NamedTuple):
    """A subcommand parsed by the main parser: its ``--help`` line, its arguments, what it runs, and the one line
    it prints on Ctrl-C (what was kept)."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None] | None
    run: Callable[[argparse.Namespace], Any]
    interrupted: Callable[[argparse.Namespace], str]


#: the subcommands the main parser parses, in ``--help`` order
SUBCOMMANDS: dict[str, Subcommand] = {
    "demo": Subcommand(
        demo_command.DEMO_HELP, demo_command.add_demo_arguments, demo_command.run_demo, demo_command.demo_interrupted
    ),
    "replay": Subcommand(
        replay_command.REPLAY_HELP,
        replay_command.add_replay_arguments,
        replay_command.run_replay,
        replay_command.replay_interrupted,
    ),
    "list": Subcommand(list_command.LIST_HELP, None, list_command.run_list, list_command.list_interrupted),
    "warm-up": Subcommand(
        warm_up_command.WARM_UP_HELP,
        warm_up_command.add_warm_up_arguments,
        warm_up_command.run_warm_up,
        warm_up_command.warm_up_interrupted,
    ),
    "train": Subcommand(
        train_command.TRAIN_HELP,
        train_command.add_train_arguments,
        train_command.run_train,
        train_command.train_interrupted,
    ),
    "ladder": Subcommand(
        ladder_command.LADDER_HELP,
        ladder_command.add_ladder_arguments,
        ladder_command.run_ladder,
        ladder_command.ladder_interrupted,
    ),
    "serve": Subcommand(
        serve_command.SERVE_HELP,
        serve_command.add_serve_arguments,
        serve_command.run_serve,
        serve_command.serve_interrupted,
    ),
}

#: the subcommands with parsers of their own (``mancala_envs.cli.<name>_command.<name>_main``): their ``--help`` lines
OWN_PARSERS: dict[str, str] = {
    "play": "play a game in the terminal against an agent: mancala-envs play omweso --opponent alphabeta:3",
    "tournament": (
        "round robin between agents with ratings: mancala-envs tournament --game ouril --agents random greedy"
    ),
    "solve": (
        "solve a game's positions into a table (mancala-envs solve kalah --max-seeds 12), or give a position's "
        "exact value (mancala-envs solve kalah --option empty_capture=true --start)"
    ),
    "evaluate": "measure an agent against perfect play: mancala-envs evaluate greedy --game modiar --oracle",
}


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Mancala games as RL environments.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("demo", "replay", "list", "warm-up"):
        _add_subcommand(commands, name)
    # Listed here for --help; their arguments are parsed by their own modules (see main).
    for name, help_line in OWN_PARSERS.items():
        commands.add_parser(name, add_help=False, help=help_line)
    _add_subcommand(commands, "train")
    _add_subcommand(commands, "ladder")
    _add_subcommand(commands, "serve")
    return parser


def _add_subcommand(commands: Any, name: str) -> None:
    subcommand = SUBCOMMANDS[name]
    parser = commands.add_parser(name, help=subcommand.help)
    if subcommand.add_arguments is not None:
        subcommand.add_arguments(parser)


def _own_parser_main(command: str, argv: list[str]) -> int:
    """Runs a subcommand that parses its own arguments (``play``, ``tournament``, ``solve``, ``evaluate``)."""
    if command == "play":
        from mancala_envs.cli.play_command import play_main

        return play_main(argv)
    if command == "solve":
        from mancala_envs.cli.solve_command import solve_main

        return solve_main(argv)
    if command == "evaluate":
        from mancala_envs.cli.evaluate_command import evaluate_main

        return evaluate_main(argv)
    from mancala_envs.cli.tournament_command import tournament_main

    return tournament_main(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns its exit status.

    Bad input -- an unknown command, a missing or malformed argument, an unknown game or
    agent -- prints one line ``mancala-envs: error: <what was wrong>`` on stderr (no usage
    text, no traceback) and returns 2. ``--help`` prints the usage and exits with 0. Ctrl-C returns 130
    without a traceback, after one line that says what was kept (``train`` saves the model so far; ``warm-up``
    keeps what it compiled in numba's cache; ``demo`` records nothing).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in OWN_PARSERS:  # commands with parsers of their own
        return _own_parser_main(argv[0], argv[1:])
    try:
        args = _parser().parse_args(argv)
    except UsageError as error:
        return fail(str(error))
    try:
        SUBCOMMANDS[args.command].run(args)
    except (ValueError, TypeError) as error:
        return fail(str(error))
    except BrokenPipeError:
        return quiet_broken_pipe()
    except (KeyboardInterrupt, SystemError) as error:  # Ctrl-C: one line of what was kept (train said it); no traceback
        from mancala_envs.common.errors import is_ctrl_c

        if not is_ctrl_c(error):  # numba's SystemError caused by Ctrl-C is Ctrl-C; any other is a fault
            raise
        training = sys.modules.get("mancala_envs.training.trainer")
        if training is None or not isinstance(error, training.TrainingInterrupted):  # run_train said those itself
            print(SUBCOMMANDS[args.command].interrupted(args), flush=True)
        return 130
    except OSError as error:  # demo --record into a place that cannot be written, a missing model
        return fail(os_error_line(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())


def __getattr__(name: str) -> types.ModuleType:
    # the submodules that moved in 0.2.0, as attributes: they warn (mancala_envs.common.moved)
    return moved_attribute(__name__, name)
