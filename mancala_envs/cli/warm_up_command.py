"""``mancala-envs warm-up``: compile every game's entry points into numba's cache ahead of use
(:mod:`mancala_envs.training.warm_up`, ``docs/install.md``)."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

__all__ = ["add_warm_up_arguments", "run_warm_up", "warm_up_interrupted"]

#: ``mancala-envs warm-up``'s line in ``mancala-envs --help``
WARM_UP_HELP = "compile every entry point of the games now, into numba's cache (for images and clusters)"


def add_warm_up_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the arguments of ``mancala-envs warm-up`` to ``parser``."""
    parser.add_argument("--games", nargs="+", default=None, help="game names (default: every game)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="compiled opponents to build the envs against (default: random greedy alphabeta:1 mcts:2)",
    )


def run_warm_up(args: argparse.Namespace, out: TextIO | None = None) -> dict[str, float]:
    """``mancala-envs warm-up``: compiles the games' entry points and says where the cache went."""
    import numba

    from mancala_envs.engine.jit import CACHING
    from mancala_envs.training.warm_up import WARM_UP_OPPONENTS, warm_up

    out = out or sys.stdout
    seconds = warm_up(args.games, opponents=args.opponents or WARM_UP_OPPONENTS)
    for game, spent in seconds.items():
        print(f"{game}: compiled in {spent:.1f} s", file=out)
    if not CACHING:
        print(
            "numba could not write a cache here: nothing was kept (set NUMBA_CACHE_DIR to a writable folder)", file=out
        )
    elif numba.config.CACHE_DIR:
        print(f"cache: {numba.config.CACHE_DIR} (NUMBA_CACHE_DIR)", file=out)
    else:
        print(
            "cache: the __pycache__ folders of the package (or the user cache folder, where those are read-only)",
            file=out,
        )
    return seconds


def warm_up_interrupted(args: argparse.Namespace) -> str:
    """What ``mancala-envs warm-up`` prints on Ctrl-C: what was kept (numba's cache, if it can write one)."""
    from mancala_envs.engine.jit import CACHING

    if not CACHING:
        return "Interrupted: numba could not write a cache here, so nothing was kept"
    return "Interrupted: what was compiled so far stays in numba's cache; run mancala-envs warm-up again for the rest"
