"""``mancala-envs solve``: build a game's perfect-play table (:mod:`mancala_envs.algorithms.retrograde`) and save it.

``mancala-envs solve modiar`` solves every Modiar position; ``mancala-envs solve kalah --max-seeds 14``
builds Kalah's endgame tablebase of every position with at most 14 seeds on the board. The table
goes to ``--dir`` or the default folder (``$MANCALA_ENVS_TABLES``, else
``~/.cache/mancala-envs/tables``), where the ``perfect`` agent, ``alphabeta:D`` and
``mancala-envs evaluate --oracle`` find it.
"""

from __future__ import annotations

import argparse
import resource
import sys
from collections.abc import Sequence
from typing import TextIO

from mancala_envs.algorithms.retrograde import (
    Table,
    TableError,
    build_table,
    load_table,
    save_table,
    table_dir,
    table_paths,
)
from mancala_envs.cli.common import PROG, Parser, UsageError, fail, integer_at_least, os_error_line
from mancala_envs.common.errors import is_ctrl_c
from mancala_envs.common.files import check_destination
from mancala_envs.envs.registration import make_game, resolve_env_id

__all__ = ["solve_main", "solve_parser"]


def solve_parser() -> argparse.ArgumentParser:
    """The arguments of ``mancala-envs solve``."""
    parser = Parser(
        prog=f"{PROG} solve",
        description="Solve a game's positions by retrograde analysis and save the table (values of every "
        "position with at most --max-seeds seeds on the board).",
    )
    parser.add_argument("game", help="game name or registry id: modiar (the whole game), kalah, ouril, urim")
    parser.add_argument(
        "--max-seeds",
        type=integer_at_least(0, "seed count"),
        default=None,
        metavar="K",
        help="solve the positions with at most K seeds on the board (default: every seed of the game)",
    )
    parser.add_argument("--dir", default=None, metavar="DIR", help=f"where to save the table (default: {table_dir()})")
    parser.add_argument("--force", action="store_true", help="rebuild even if a valid table is already saved")
    parser.add_argument("--quiet", action="store_true", help="no progress lines, only the summary")
    return parser


def _peak_memory_mib() -> float:
    """The process's peak resident memory in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def summary(table: Table, path: str, out: TextIO) -> None:
    """Prints what a table holds: positions, size, build figures, and the start values of a whole game."""
    info = table.info
    exact = info.get("exact_positions", 0)
    print(f"table: {path}", file=out)
    print(
        f"positions: {table.positions:,} (boards with at most {table.max_seeds} seeds, each player to move); "
        f"{table.table.nbytes / 1e6:.1f} MB",
        file=out,
    )
    if info:
        print(
            f"built in {info.get('seconds', 0):.1f} s; exact values: {exact:,} "
            f"({100 * exact / max(table.positions, 1):.1f}%); positions in cycle classes: "
            f"{info.get('cycle_positions', 0):,} in {info.get('cycle_classes', 0)} classes "
            f"(largest {info.get('largest_class', 0):,})",
            file=out,
        )
    if table.complete:
        game = table.game
        for first in range(2):
            start = game.new_state(first)
            value = table.value(start)
            margins = {a: v.margin for a, v in table.move_values(start).items()}
            print(
                f"start, player_{first} first: margin {value.margin:+d} for player_{first} "
                f"({'exact' if value.exact else 'class-capped reading of repetition'}); moves {margins}",
                file=out,
            )


def solve_main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``mancala-envs solve GAME [--max-seeds K] [--dir DIR] [--force] [--quiet]``; returns the exit status.

    Bad input (an unknown game, a game that cannot be tabled, K out of range, a folder that cannot
    be written, a ``--dir`` whose parent folder does not exist) prints one line ``mancala-envs: error: ...`` and
    returns 2. Ctrl-C returns 130 after one line: nothing was saved (a table is saved once complete).
    """
    out = sys.stdout if out is None else out
    try:
        args = solve_parser().parse_args(argv)
    except UsageError as error:
        return fail(str(error))
    try:
        game = make_game(resolve_env_id(args.game))
        if args.dir is not None:  # the folder may be created, but not its parent; checked before the long build
            check_destination(args.dir, "the table (--dir)", folder=True)
        if not args.force:
            try:
                table = load_table(game, args.max_seeds, args.dir)
            except TableError:
                pass
            else:
                print("a valid table is already saved (--force rebuilds it)", file=out)
                summary(table, str(table_paths(game, args.max_seeds, args.dir)[0]), out)
                return 0

        def progress(seeds: int, seconds: float) -> None:
            if not args.quiet:
                # one write, line and newline together: a Ctrl-C between print's two writes left the line open
                out.write(f"  {seeds} seeds on the board: solved ({seconds:.1f} s)\n")
                out.flush()

        table = build_table(game, args.max_seeds, progress=progress)
        table.info["peak_memory_mib"] = round(_peak_memory_mib(), 1)
        path = save_table(table, args.dir)
        summary(table, str(path), out)
        print(f"peak memory: {table.info['peak_memory_mib']:.0f} MiB", file=out)
    except (ValueError, TypeError) as error:
        return fail(str(error))
    except OSError as error:
        return fail(os_error_line(error))
    except (KeyboardInterrupt, SystemError) as error:  # a table is saved only once complete: nothing half-made
        if not is_ctrl_c(error):  # numba's SystemError caused by Ctrl-C is Ctrl-C; any other is a fault
            raise
        print(
            "Interrupted: nothing was saved (the table is saved once every layer is solved); run the command "
            "again to build it",
            file=out,
            flush=True,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(solve_main())
