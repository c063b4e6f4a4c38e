"""``mancala-envs evaluate``: an agent measured against perfect play
(:func:`mancala_envs.analysis.oracle.oracle_evaluate`).

``mancala-envs evaluate greedy --game modiar --oracle`` plays ``greedy`` against each opponent in both
seats and values every move it chose with the game's perfect-play table (built once with
``mancala-envs solve modiar``): optimal move rate, mean regret in seeds, won positions thrown away,
with 95% intervals, per opponent and overall, over all decisions and over the exact ones.

In Kalah (an acyclic game) every decision of a whole game is valued: ``mancala-envs evaluate AGENT --game kalah
--oracle`` reads the largest Kalah table saved in the tables folder (else builds and saves the default one, 16 seeds
on 6 pits, about 25-40 s) and values each decision outside it by two searches (the position's value and the chosen
move's).

``--oracle`` is required for now: the oracle is what this command measures. Win rates of an agent
against others come from ``mancala-envs tournament --game GAME --agents AGENT random greedy``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from mancala_envs.cli.common import (
    PROG,
    Parser,
    UsageError,
    add_option_argument,
    add_trust_remote_code,
    collect_options,
    fail,
    integer_at_least,
    os_error_line,
    quiet_broken_pipe,
)
from mancala_envs.common.files import check_destination

__all__ = ["evaluate_main", "evaluate_parser"]


def evaluate_parser() -> argparse.ArgumentParser:
    """The arguments of ``mancala-envs evaluate``."""
    from mancala_envs.agents import AGENT_FORMS, AGENT_NAMES
    from mancala_envs.analysis.oracle import DEFAULT_OPPONENTS

    names = ", ".join([*AGENT_NAMES, *AGENT_FORMS])
    parser = Parser(
        prog=f"{PROG} evaluate",
        description="Measure an agent against perfect play: it plays each opponent in both seats and every move "
        "it chooses is valued with the game's solved table (mancala-envs solve GAME builds it).",
    )
    parser.add_argument("agent", metavar="AGENT", help=f"the agent to measure, named as {names}")
    parser.add_argument("--game", default="modiar", help="game name or registry id with a table (default: modiar)")
    parser.add_argument(
        "--oracle",
        action="store_true",
        help="value the agent's moves with the perfect-play table (required for now: it is what this command does)",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=list(DEFAULT_OPPONENTS),
        metavar="AGENT",
        help=f"the opponents, named as the agent (default: {' '.join(DEFAULT_OPPONENTS)})",
    )
    parser.add_argument(
        "--games",
        type=integer_at_least(1),
        default=200,
        help="games per opponent, seats alternated (default: 200; even numbers balance the seats)",
    )
    parser.add_argument("--seed", type=integer_at_least(0, "seed"), default=0, help="seeds every game (default: 0)")
    parser.add_argument(
        "--history",
        action="store_true",
        help="value the moves whose table value is not exact by a search of the real game with its repetition "
        "memory (Table.search), so that every decision is exact",
    )
    parser.add_argument(
        "--tables",
        default=None,
        metavar="DIR",
        help="the folder of the tables (default: $MANCALA_ENVS_TABLES, else ~/.cache/mancala-envs/tables)",
    )
    parser.add_argument(
        "--json", default=None, metavar="PATH", help="also write the report, every decision included, as JSON"
    )
    add_option_argument(
        parser,
        "a game option (the table must have been built with it); may be repeated",
    )
    add_trust_remote_code(parser)
    return parser


def evaluate_main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``mancala-envs evaluate AGENT --oracle [--game G] [--opponents ...] [--games N] [--seed S] [--history]
    [--tables DIR] [--json PATH]``: prints the report; returns the exit status.

    Bad input (no ``--oracle``, an unknown game, agent or option, a missing table, a folder for ``--json``
    that does not exist) prints one line ``mancala-envs: error: ...`` on stderr and returns 2; a missing
    table's line names the ``mancala-envs solve`` command that builds it; ``--games`` above
    :data:`~mancala_envs.common.validation.MAX_GAMES` games in all is refused. ``--help`` exits with 0. Ctrl-C
    returns 130 after one line: nothing was written.
    """
    out = sys.stdout if out is None else out
    try:
        args = evaluate_parser().parse_args(argv)
        if not args.oracle:
            raise UsageError(
                "evaluate measures an agent against perfect play and needs --oracle for now "
                f"(mancala-envs evaluate {args.agent} --game {args.game} --oracle); for win rates against other "
                f"agents, run mancala-envs tournament --game {args.game} --agents {args.agent} OTHER_AGENT...",
                PROG,
            )
        if args.json is not None:  # before any game: a missing folder, a folder in the file's place, no write access
            check_destination(args.json, "the output of --json")
        options = collect_options(args.option)
        from mancala_envs.analysis.oracle import oracle_evaluate

        report = oracle_evaluate(
            args.agent,
            args.game,
            args.opponents,
            games=args.games,
            seed=args.seed,
            tables=args.tables,
            trust_remote_code=args.trust_remote_code,
            history=args.history,
            **options,
        )
        print(report.format(), file=out)
        print(f"\nPlayed {len(report.outcomes)} games in {report.seconds:.1f} s", file=out)
        if args.json is not None:
            print(f"Wrote {report.to_json(args.json)}", file=out)
    except (UsageError, ValueError, TypeError, ImportError) as error:
        return fail(str(error))
    except BrokenPipeError:
        return quiet_broken_pipe()
    except OSError as error:
        return fail(os_error_line(error))
    except (KeyboardInterrupt, SystemError) as error:  # the report is made once every game is played
        from mancala_envs.common.errors import is_ctrl_c

        if not is_ctrl_c(error):  # numba's SystemError caused by Ctrl-C is Ctrl-C; any other is a fault
            raise
        print("Interrupted: nothing was written (the report is made once every game is played)", file=out, flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(evaluate_main())
