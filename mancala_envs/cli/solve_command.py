"""``mancala-envs solve``: build a game's perfect-play table, or give the exact value of a position.

Two modes:

* **A table** (:mod:`mancala_envs.algorithms.retrograde`): ``mancala-envs solve modiar`` solves every Modiar
  position; ``mancala-envs solve kalah --max-seeds 14`` builds Kalah's endgame tablebase of every position with
  at most 14 seeds on the board. The table goes to ``--dir`` or the default folder (``$MANCALA_ENVS_TABLES``,
  else ``~/.cache/mancala-envs/tables``), where the ``perfect`` agent, ``alphabeta:D``, ``mancala-envs evaluate
  --oracle`` and the second mode find it.
* **A value** (:func:`mancala_envs.solver.solve_position`): ``--start`` or ``--position TEXT`` prints the
  exact value of the start or of a position under perfect play (the mover's margin, the final score it
  implies, win/draw/loss), a best action, a principal variation to the end of the game and the final stores
  it reaches, the positions searched, the seconds (table and search) and the table ``K`` at the search's leaves.
  The table is the largest saved in the folder, else ``--max-seeds K``'s, else a default one built and saved.

``--option key=value`` (repeatable) gives the game's config in both modes, e.g. Irving, Donkers & Uiterwijk's
Kalah(6,4) with the empty-capture rule::

    mancala-envs solve kalah --option pits_per_row=6 --option seeds_per_pit=4 --option empty_capture=true --start
    mancala-envs solve kalah --option pits_per_row=4 --option seeds_per_pit=3 --position "3,0,4,0/4,4,4,3 2,0 1"
    mancala-envs solve kalah --option pits_per_row=4 --max-seeds 12      # a table of that config
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from mancala_envs.algorithms.retrograde import (
    Table,
    TableError,
    build_table,
    config_options,
    load_table,
    save_table,
    table_dir,
    table_paths,
)
from mancala_envs.cli.common import (
    PROG,
    Parser,
    UsageError,
    add_option_argument,
    collect_options,
    fail,
    integer_at_least,
    os_error_line,
)
from mancala_envs.common.errors import is_ctrl_c
from mancala_envs.common.files import check_destination
from mancala_envs.engine.state import PLAYER, RUNNING, STATUS, STORE
from mancala_envs.envs.registration import make_game, resolve_env_id
from mancala_envs.games.game import Game
from mancala_envs.solver import DEFAULT_BUDGET, SearchBudgetError, Solution, solve_position

__all__ = ["report_solution", "solve_main", "solve_parser", "summary"]

#: the line after Ctrl-C while a table is built (nothing is saved before the table is whole)
BUILD_INTERRUPTED = (
    "Interrupted: nothing was saved (the table is saved once every layer is solved); run the command again to build it"
)
#: the line after Ctrl-C during ``--start`` / ``--position`` (a table it built whole is saved already)
SEARCH_INTERRUPTED = (
    "Interrupted: no value was found (a table being built is saved only once whole; one saved before stays "
    "saved); run the command again"
)


def solve_parser() -> argparse.ArgumentParser:
    """The arguments of ``mancala-envs solve``."""
    parser = Parser(
        prog=f"{PROG} solve",
        description="Solve a game's positions by retrograde analysis and save the table (values of every "
        "position with at most --max-seeds seeds on the board), or, with --start or --position, print the exact "
        "value of one position under perfect play, a best action and a principal variation (a search of the real "
        "game whose leaves are the table, read or built and saved).",
    )
    parser.add_argument("game", help="game name or registry id: modiar (the whole game), kalah, ouril, urim")
    add_option_argument(
        parser,
        "a game option, repeatable: --option pits_per_row=4 --option seeds_per_pit=3 --option "
        "empty_capture=true (the table and the position are of that config)",
    )
    position = parser.add_mutually_exclusive_group()
    position.add_argument(
        "--start",
        action="store_true",
        help="print the exact value of the start (player_0 to move), a best action and a principal variation",
    )
    position.add_argument(
        "--position",
        default=None,
        metavar="TEXT",
        help="print the exact value of this position, in the game's notation "
        "('<pits>/<pits> <store>,<store> <player>', e.g. '3,3,3,3/3,3,3,3 0,0 0' on Kalah's 4 pits)",
    )
    parser.add_argument(
        "--max-seeds",
        type=integer_at_least(0, "seed count"),
        default=None,
        metavar="K",
        help="solve the positions with at most K seeds on the board (default: every seed of the game); with "
        "--start/--position, the table at the search's leaves (default: the largest saved, else one built)",
    )
    parser.add_argument(
        "--budget",
        type=integer_at_least(1, "budget"),
        default=None,
        metavar="N",
        help=f"with --start/--position: positions to search at most (default: {DEFAULT_BUDGET:,})",
    )
    parser.add_argument(
        "--dir", default=None, metavar="DIR", help=f"where tables are read and saved (default: {table_dir()})"
    )
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


def _config_words(game: Game) -> str:
    """The game's config as ``key=value`` words, as ``--option`` takes them: ``pits_per_row=4 ...``."""
    return " ".join(f"{name}={json.dumps(value)}" for name, value in dataclasses.asdict(game.config).items())


def _scores(player: int, mine: int, theirs: int) -> str:
    """``player_0 16, player_1 8`` for ``player``'s ``mine`` and the other's ``theirs``."""
    ordered = (mine, theirs) if player == 0 else (theirs, mine)
    return f"player_0 {ordered[0]}, player_1 {ordered[1]}"


def report_solution(game: Game, state: np.ndarray, solution: Solution, where: str, out: TextIO) -> None:
    """Prints a :class:`~mancala_envs.solver.Solution` of ``state``: value, best action, principal variation.

    The variation is replayed with the game's own ``step`` from ``state`` to give the final stores it reaches.

    Args:
        game: The game ``state`` is of.
        state: The position solved (not changed).
        solution: What :func:`~mancala_envs.solver.solve_position` returned, with its variation.
        where: The path of the table at the search's leaves.
        out: Where to print.
    """
    mover, other = solution.mover, 1 - solution.mover
    # every seed on the board ends in a store (the margin counts the seeds left in a row at the end too), so the
    # margin of the seeds still to gain, with the stores of now, gives both final scores
    on_board = game.total_seeds - int(state[STORE] + state[STORE + 1])
    gain = (on_board + solution.margin) // 2
    final_mover = int(state[STORE + mover]) + gain
    final_other = int(state[STORE + other]) + on_board - gain
    lead = abs(solution.final_margin)
    outcome = {"win": f"player_{mover} wins by {lead}", "loss": f"player_{other} wins by {lead}", "draw": "a draw"}[
        solution.outcome
    ]
    print(f"game: {game.name} {_config_words(game)}", file=out)
    print(f"position: {game.position_string(state)} (player_{mover} to move)", file=out)
    print(
        f"value: {solution.margin:+d} for player_{mover} (the seeds player_{mover} will still gain minus "
        f"player_{other}'s, under perfect play)",
        file=out,
    )
    print(
        f"final score: {_scores(mover, final_mover, final_other)} ({outcome})",
        file=out,
    )
    print(f"best action: {solution.action} ({game.describe_action(state, solution.action)})", file=out)
    position = state.copy()
    trace = np.zeros(0, dtype=np.int64)
    moves = []
    for action in solution.principal_variation:
        moves.append(f"{int(position[PLAYER])}:{action}")
        game.step(position, action, trace)
    print(
        f"principal variation ({len(moves)} plies, player:action): {' '.join(moves)}",
        file=out,
    )
    reached = "the end of the game" if position[STATUS] != RUNNING else "a running position (the ply cap)"
    print(
        f"final stores of the variation: {_scores(0, int(position[STORE]), int(position[STORE + 1]))} ({reached})",
        file=out,
    )
    print(f"positions searched: {solution.positions:,}", file=out)
    search_seconds = solution.seconds - solution.table_seconds
    print(
        f"seconds: {solution.seconds:.2f} (table {solution.table_seconds:.2f}, search {search_seconds:.2f})",
        file=out,
    )
    print(
        f"table: K={solution.max_seeds} (every position with at most {solution.max_seeds} seeds on the board): {where}",
        file=out,
    )


def _solve_state(game: Game, position: str | None) -> np.ndarray:
    """The state to solve: the start (player 0 to move), or ``position`` in the game's notation.

    Raises:
        ValueError: the position is malformed, not a position of the game, or already over (names the fix).
    """
    state = game.new_state(0)
    if position is None:
        return state
    try:
        game.load_position(state, **game.parse_position(position))
    except (TypeError, ValueError) as error:
        raise ValueError(f"--position: {error}") from None
    if state[STATUS] != RUNNING:
        raise ValueError(
            f"--position {position!r} is over: its player to move cannot move, so it has no value to solve "
            f"(it ends as {game.position_string(state)!r}); give a position whose player to move can sow."
        )
    return state


def _run_search(args: argparse.Namespace, game: Game, out: TextIO) -> int:
    """``--start`` / ``--position``: solves the position and prints it (:func:`report_solution`)."""
    state = _solve_state(game, args.position)

    def progress(seeds: int, seconds: float) -> None:
        if not args.quiet:
            out.write(f"  building the table: {seeds} seeds on the board: solved ({seconds:.1f} s)\n")
            out.flush()

    try:
        solution = solve_position(
            game,
            state,
            max_seeds=args.max_seeds,
            folder=args.dir,
            budget=DEFAULT_BUDGET if args.budget is None else args.budget,
            with_variation=True,
            progress=progress,
        )
    except SearchBudgetError as error:
        positions = "1 position" if error.budget == 1 else f"{error.budget:,} positions"
        raise TableError(
            f"the search visited {positions} without settling the value of this {game.name} position; raise "
            f"--budget, or search with a larger table (`mancala-envs solve {game.name}{config_options(game)} "
            "--max-seeds K`, then --max-seeds K)."
        ) from None
    report_solution(game, state, solution, str(table_paths(game, solution.max_seeds, args.dir)[0]), out)
    return 0


def _run_build(args: argparse.Namespace, game: Game, out: TextIO) -> int:
    """The table mode: loads a valid saved table (unless ``--force``) or builds, saves and summarizes it."""
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
    return 0


def _check_mode(args: argparse.Namespace, game: Game) -> None:
    """Refuses flags of one mode given in the other (a usage error, before anything is built)."""
    searching = args.start or args.position is not None
    if args.budget is not None and not searching:
        raise UsageError(
            "--budget limits the search of a position; give --start or --position with it (or leave it out to "
            "build a table)",
            PROG,
        )
    if args.force and searching:
        raise UsageError(
            "--force rebuilds a saved table and does not go with --start or --position; rebuild the table first "
            f"(mancala-envs solve {args.game}{config_options(game)} --max-seeds K --force), then search with "
            "--max-seeds K",
            PROG,
        )


def solve_main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``mancala-envs solve GAME [--option KEY=VALUE ...] [--start | --position TEXT] [--max-seeds K] [--budget N]
    [--dir DIR] [--force] [--quiet]``; returns the exit status.

    Without ``--start`` or ``--position`` it builds the game's table of ``K`` seeds (every seed by default) and
    saves it; with one of them it prints the exact value of the position (:func:`report_solution`).

    Bad input (an unknown game or option, an option off the game's config (``pits_per_row=9``), a game that
    cannot be tabled, K out of range, a malformed or finished position, a search that ran out of ``--budget``,
    a folder that cannot be written, a ``--dir`` whose parent folder does not exist, ``--start`` with
    ``--position``) prints one line ``mancala-envs: error: ...`` and returns 2. Ctrl-C returns 130 after one
    line: nothing half-made was saved (a table is saved once complete).
    """
    out = sys.stdout if out is None else out
    searching = False
    try:
        args = solve_parser().parse_args(argv)
        game = make_game(resolve_env_id(args.game), **collect_options(args.option))
        _check_mode(args, game)
        searching = args.start or args.position is not None
        if args.dir is not None:  # the folder may be created, but not its parent; checked before the long build
            check_destination(args.dir, "the table (--dir)", folder=True)
        return _run_search(args, game, out) if searching else _run_build(args, game, out)
    except (UsageError, ValueError, TypeError) as error:
        return fail(str(error))
    except OSError as error:
        return fail(os_error_line(error))
    except (KeyboardInterrupt, SystemError) as error:  # a table is saved only once complete: nothing half-made
        if not is_ctrl_c(error):  # numba's SystemError caused by Ctrl-C is Ctrl-C; any other is a fault
            raise
        print(SEARCH_INTERRUPTED if searching else BUILD_INTERRUPTED, file=out, flush=True)
        return 130


if __name__ == "__main__":
    sys.exit(solve_main())
