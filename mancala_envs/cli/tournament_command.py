"""``mancala-envs tournament``: the arguments of the round robin
(:func:`mancala_envs.analysis.tournament.run_tournament`)."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from mancala_envs.analysis.tournament import (
    PROG,
    TournamentInterrupted,
    require,
    run_tournament,
    write_tournament_html,
)
from mancala_envs.cli.common import (
    Parser,
    UsageError,
    add_option_argument,
    add_trust_remote_code,
    collect_options,
    fail,
    integer_at_least,
    os_error_line,
)
from mancala_envs.common.errors import is_ctrl_c
from mancala_envs.common.files import check_destination

__all__ = ["tournament_main", "tournament_parser"]


def tournament_parser() -> argparse.ArgumentParser:
    from mancala_envs.agents import AGENT_FORMS, AGENT_NAMES

    parser = Parser(
        prog=PROG,
        description="Round robin between agents: win/draw/loss with confidence intervals, Bradley-Terry ratings "
        "(Elo scale), first-player advantage; JSON, CSV and PNG output.",
    )
    parser.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["random", "greedy"],
        metavar="AGENT",
        help=f"two or more agents, named as {', '.join([*AGENT_NAMES, *AGENT_FORMS])} (default: random greedy)",
    )
    parser.add_argument(
        "--games",
        type=integer_at_least(1),
        default=200,
        help="games per pair, seats alternated (default: 200; even numbers balance the seats)",
    )
    parser.add_argument("--seed", type=integer_at_least(0, "seed"), default=0, help="seeds every game (default: 0)")
    parser.add_argument(
        "--workers",
        type=integer_at_least(1),
        default=None,
        help="processes playing games (default: one per core; 1 plays in this process)",
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="write everything, every game included, as JSON")
    parser.add_argument("--csv", default=None, metavar="PATH", help="write the per-agent and per-pair rows as CSV")
    parser.add_argument("--plot", default=None, metavar="PATH", help="write a PNG: ratings and a pairwise heatmap")
    parser.add_argument(
        "--record",
        default=None,
        metavar="DIR",
        help="also write every game as a JSON game record into DIR (replay one with mancala-envs replay)",
    )
    parser.add_argument(
        "--html",
        default=None,
        metavar="PATH",
        help="also write every game on one self-contained HTML page with a game picker (open it in a browser)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_option_argument(
        parser,
        "a game option, e.g. --option grand_slam=forbidden; values are read as JSON when they parse "
        "(4, true, null), as text otherwise; may be repeated",
    )
    add_trust_remote_code(parser)
    return parser


def tournament_main(argv: Sequence[str] | None = None, out: Any = None) -> int:
    """``mancala-envs tournament``: runs the round robin, prints the tables, writes the files.

    Bad input (an unknown game, option or agent, fewer than two agents, ``--games`` below 1 or more
    than :data:`~mancala_envs.common.validation.MAX_GAMES` games in all, ``--workers`` above
    :func:`~mancala_envs.analysis.tournament.max_workers`, a folder for an output file that does not exist, a missing
    extra) prints one line ``mancala-envs tournament: error: ...`` on stderr and returns 2. ``--help`` exits
    with 0. Ctrl-C stops the games and returns 130, after one line that says how many games were played and,
    with ``--json``, that they were written there (atomically; the tables are left out).

    Returns:
        The exit status.
    """
    out = sys.stdout if out is None else out
    played = False
    keeper: tempfile.TemporaryDirectory[str] | None = None  # --html without --record: the records until the page
    try:
        args = tournament_parser().parse_args(argv)
        options = collect_options(args.option)
        if args.html is not None and not str(args.html).lower().endswith(".html"):
            raise ValueError(f"--html {args.html!r}: give a path ending in .html (e.g. games.html).")
        for flag, path in (("--json", args.json), ("--csv", args.csv), ("--plot", args.plot), ("--html", args.html)):
            if path is not None:  # before any game: a missing folder, a folder in the file's place, no write access
                check_destination(path, f"the output of {flag}")
        require("scipy.optimize", "fitting the ratings")
        if args.plot is not None:
            require("matplotlib", "--plot")
        start = time.perf_counter()
        record_dir = args.record
        if args.html is not None and record_dir is None:  # the page is made from the records
            keeper = tempfile.TemporaryDirectory(prefix="mancala-tournament-")
            record_dir = keeper.name
        try:
            result = run_tournament(
                args.game,
                args.agents,
                args.games,
                seed=args.seed,
                workers=args.workers,
                progress=not args.no_progress,
                record_dir=record_dir,
                trust_remote_code=args.trust_remote_code,
                **options,
            )
        except TournamentInterrupted as stop:
            return _interrupted(stop, args, out)
        played = True
        seconds = time.perf_counter() - start
        print(result.format_table(), file=out)
        print(f"\nPlayed {len(result.games)} games in {seconds:.1f} s", file=out)
        for path, write in ((args.json, result.to_json), (args.csv, result.to_csv), (args.plot, result.plot)):
            if path is not None:
                print(f"Wrote {write(path)}", file=out)
        if args.html is not None:
            print(f"Wrote {write_tournament_html(record_dir, args.html)} ({len(result.games)} games)", file=out)
    except (UsageError, ValueError, TypeError, ImportError) as error:
        return fail(str(error), PROG)
    except OSError as error:
        return fail(os_error_line(error), PROG)
    except (KeyboardInterrupt, SystemError) as error:  # before the games began (loading agents), or after them
        if not is_ctrl_c(error):  # numba's SystemError caused by Ctrl-C is Ctrl-C; any other is a fault
            raise
        print(
            "Interrupted after the games: the files not listed as written above were not written"
            if played
            else "Interrupted before the games began: nothing was written",
            file=out,
            flush=True,
        )
        return 130
    finally:
        if keeper is not None:
            keeper.cleanup()
    return 0


def _interrupted(stop: TournamentInterrupted, args: argparse.Namespace, out: Any) -> int:
    """Ctrl-C during the games: writes those played to ``--json`` (if given) and says so in one line; 130."""
    partial = stop.result
    played = f"Interrupted after {len(partial.games)} of {len(partial.pairs) * partial.games_per_pair} games"
    if args.json is None:
        print(f"{played}; nothing written (--json PATH keeps the games played)", file=out, flush=True)
    else:
        print(f"{played}: wrote them to {partial.to_json(args.json)}", file=out, flush=True)
    return 130


if __name__ == "__main__":
    sys.exit(tournament_main())
