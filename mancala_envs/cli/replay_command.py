"""``mancala-envs replay``: a recorded game printed move by move, animated (GIF, MP4, PNG frames), or written as a
self-contained HTML replay (``--out game.html``)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, TextIO

from mancala_envs.cli.common import POSITIVE

if TYPE_CHECKING:
    from mancala_envs.envs.records import GameRecord

__all__ = ["add_replay_arguments", "print_replay", "replay_interrupted", "run_replay"]

#: ``mancala-envs replay``'s line in ``mancala-envs --help``
REPLAY_HELP = "replay a recorded game: print it move by move, or write an HTML replay, a GIF, MP4 or PNG frames"


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the arguments of ``mancala-envs replay`` to ``parser``."""
    parser.add_argument("record", help="a JSON game record (from demo --record or the RecordGames wrappers)")
    parser.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help="write instead of printing: game.html (a self-contained HTML replay to open in a browser), or an "
        "animation: game.gif, game.mp4, a directory or frames/move-*.png (these need the render extra)",
    )
    parser.add_argument(
        "--fps", type=POSITIVE, default=2, help="positions per second in the animation or the HTML replay (default: 2)"
    )


def print_replay(record: GameRecord | str | os.PathLike[str], out: TextIO = sys.stdout) -> None:
    """Prints a recorded game move by move: the text board after the start and after every move.

    Each move is printed in words with its action, numbered as the board's ``legal actions [...]`` list
    numbers it: ``2. player_1 sows pit 6 (action 0)``.

    Args:
        record: A :class:`~mancala_envs.envs.records.GameRecord` or the path of a saved one.
        out: Where to print.

    Raises:
        ValueError: the record is malformed or does not replay (see :func:`mancala_envs.envs.records.replay`).
    """
    from mancala_envs.envs.records import GameRecord, replay

    record = record if isinstance(record, GameRecord) else GameRecord.load(record)
    names = record.players
    players = "" if names is None else f": player_0 = {names[0]}, player_1 = {names[1]}"
    print(f"{record.env}{players}", file=out)
    positions = replay(record, render_mode="ansi")
    print(next(positions).render(), file=out)
    for number, (move, env) in enumerate(zip(record.moves, positions, strict=False), start=1):
        what = move.get("move", f"plays action {move['action']}")
        if "move" in move and not move.get("illegal"):  # the action as the board's "legal actions [...]" numbers it
            what = f"{what} (action {move['action']})"
        print(f"\n{number}. player_{move['player']} {what}", file=out)
        print(env.render(), file=out)
    for _ in positions:  # the end of the replay checks the record's result
        pass
    result = record.result
    if result is None:
        print(f"\nUnfinished: {len(record.moves)} moves recorded", file=out)
        return
    winner = result["winner"]
    named = "" if winner is None or names is None else f" ({names[winner]})"
    outcome = "draw" if winner is None else f"player_{winner}{named} wins"
    print(
        f"\nResult: {outcome}; scores {result['scores'][0]}-{result['scores'][1]}, "
        f"end: {result['end_reason']}, moves: {len(record.moves)}",
        file=out,
    )


def run_replay(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``mancala-envs replay``: prints the recorded game, or writes its HTML replay or animation to ``--out``;
    returns 0."""
    from mancala_envs.envs.records import GameRecord, write_animation

    out = sys.stdout if out is None else out
    try:
        record = GameRecord.load(args.record)
    except OSError as error:
        raise ValueError(f"cannot read the game record {args.record!r}: {error.strerror or error}") from None
    if args.out is None:
        print_replay(record, out)
        return 0
    try:
        paths = write_animation(record, args.out, fps=args.fps)
    except ImportError as error:
        raise ValueError(str(error)) from None
    except OSError as error:
        raise ValueError(f"cannot write {args.out!r}: {error.strerror or error}") from None
    where = paths[0] if len(paths) == 1 else f"{paths[0]} ... {paths[-1]}"
    print(f"Wrote {len(record.moves) + 1} positions ({len(record.moves)} moves) to {where}", file=out)
    return 0


def replay_interrupted(args: argparse.Namespace) -> str:
    """What ``mancala-envs replay`` prints on Ctrl-C: what was kept."""
    if args.out is None:
        return "Interrupted: nothing was written"
    return f"Interrupted: the animation at {args.out} may be incomplete; run the command again"
