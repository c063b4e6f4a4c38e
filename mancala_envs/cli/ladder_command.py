"""``mancala-envs ladder``: an agent placed on a game's strength ladder, the ladder printed, or a ladder rebuilt
(:mod:`mancala_envs.analysis.ladder`).

``mancala-envs ladder AGENT --game G`` plays ``AGENT`` (any agent name: ``alphabeta:3``, ``sb3:model.zip``...) against
every anchor of the game's shipped ladder (or ``--ladder PATH``), fits its rating with the anchors held fixed and
prints the ladder with the agent inserted, its rating and interval, its score against each anchor, the exact regret
where the game is solved, and the time taken. ``mancala-envs ladder --game G`` prints the shipped ladder;
``mancala-envs ladder --build --game G [--games-per-pair N] [--out PATH]`` plays the anchors' round robin and writes
the ladder file (by default the shipped one, ``mancala_envs/analysis/ladders/<game>.json``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from mancala_envs.cli.common import (
    SEED,
    add_option_argument,
    add_trust_remote_code,
    collect_options,
    integer_at_least,
)
from mancala_envs.common.files import check_destination

__all__ = ["LADDER_HELP", "add_ladder_arguments", "ladder_interrupted", "run_ladder"]

LADDER_HELP = (
    "place an agent on a game's strength ladder (Elo, random = 0): mancala-envs ladder alphabeta:3 --game modiar; "
    "--build rebuilds a ladder"
)


def add_ladder_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mancala-envs ladder``."""
    from mancala_envs.analysis.ladder import DEFAULT_GAMES_PER_ANCHOR, DEFAULT_GAMES_PER_PAIR

    parser.add_argument(
        "agent",
        nargs="?",
        default=None,
        metavar="AGENT",
        help="the agent to place, named as make_agent names it (alphabeta:3, mcts:200, sb3:model.zip...); "
        "without it, the ladder is printed (or rebuilt with --build)",
    )
    parser.add_argument("--game", required=True, help="game name or registry id")
    parser.add_argument(
        "--games",
        type=integer_at_least(1),
        default=None,
        help=f"games against each anchor, seats alternated (default: {DEFAULT_GAMES_PER_ANCHOR})",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seeds every game (default: 0)")
    parser.add_argument(
        "--workers",
        type=integer_at_least(1),
        default=None,
        help="processes playing games (default: one per core; 1 plays in this process)",
    )
    parser.add_argument(
        "--ladder", default=None, metavar="PATH", help="place the agent on this ladder file (default: the shipped one)"
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the placement as JSON")
    parser.add_argument("--no-regret", action="store_true", help="skip the regret against perfect play")
    parser.add_argument("--build", action="store_true", help="play the anchors' round robin and write the ladder")
    parser.add_argument(
        "--games-per-pair",
        type=integer_at_least(1),
        default=None,
        help=f"with --build: games per pair of anchors (default: {DEFAULT_GAMES_PER_PAIR})",
    )
    parser.add_argument(
        "--anchors",
        nargs="+",
        default=None,
        metavar="AGENT",
        help="with --build: the anchors (default: the game's, ladder_anchors(game); random among them)",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help="with --build: where to write the ladder (default: the shipped file of the game as registered)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_option_argument(
        parser, "a game option, e.g. --option pits_per_row=4 (the ladder must rate the same config); may be repeated"
    )
    add_trust_remote_code(parser)


def run_ladder(args: argparse.Namespace, out: Any = None) -> None:
    """Runs ``mancala-envs ladder`` (see the module docstring).

    Raises:
        ValueError / TypeError: bad input (``main`` prints it as one line, status 2), e.g. ``--build`` with an
            agent, ``--out`` or ``--games-per-pair`` without ``--build``, an unknown game, option or agent, a
            missing or damaged ladder file.
    """
    from mancala_envs.analysis import ladder as ladders

    out = sys.stdout if out is None else out
    options = collect_options(args.option)
    if args.build:
        _build(args, options, out)
        return
    for flag, value in (("--out", args.out), ("--games-per-pair", args.games_per_pair), ("--anchors", args.anchors)):
        if value is not None:
            raise ValueError(f"{flag} goes with --build (mancala-envs ladder --build --game {args.game} {flag} ...).")
    if args.agent is None:
        for flag, value in (("--json", args.json), ("--games", args.games)):
            if value is not None:
                raise ValueError(f"{flag} goes with an agent to place (mancala-envs ladder AGENT --game {args.game}).")
        ladder = _ladder(args, options)
        print(ladder.format(), file=out)
        return
    if args.json is not None:
        check_destination(args.json, "the output of --json")
    games = ladders.DEFAULT_GAMES_PER_ANCHOR if args.games is None else args.games
    placement = ladders.place_agent(
        args.agent,
        args.game,
        games_per_anchor=games,
        seed=args.seed,
        workers=args.workers,
        ladder=_ladder(args, options),
        regret=not args.no_regret,
        trust_remote_code=args.trust_remote_code,
        progress=not args.no_progress,
        **options,
    )
    print(placement.format(), file=out)
    played = len(placement.scores) * placement.games_per_anchor
    print(f"\nPlaced in {placement.seconds:.1f} s ({played} ladder games)", file=out)
    if args.json is not None:
        print(f"Wrote {placement.to_json(args.json)}", file=out)


def _ladder(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    """The ladder of ``--ladder PATH`` (checked against the game), else the game's shipped one."""
    from mancala_envs.analysis import ladder as ladders
    from mancala_envs.envs.registration import make_game, resolve_env_id

    if args.ladder is None:
        return ladders.load_shipped_ladder(args.game, **options)
    ladder = ladders.Ladder.load(args.ladder)
    env_id = resolve_env_id(args.game)
    ladders.check_same_game(ladder, env_id, make_game(env_id, **options), f"the ladder file {args.ladder!r}")
    return ladder


def _build(args: argparse.Namespace, options: dict[str, Any], out: Any) -> None:
    from mancala_envs.analysis import ladder as ladders

    for flag, value in (("AGENT", args.agent), ("--ladder", args.ladder), ("--json", args.json),
                        ("--games", args.games)):  # fmt: skip
        if value is not None:
            raise ValueError(
                f"--build rebuilds the ladder and places no agent: leave out {flag} (--games-per-pair sets the games)."
            )
    target = ladders.shipped_ladder_path(args.game, **options) if args.out is None else args.out
    path = check_destination(target, "the ladder")
    games = ladders.DEFAULT_GAMES_PER_PAIR if args.games_per_pair is None else args.games_per_pair
    started = time.perf_counter()
    ladder = ladders.build_ladder(
        args.game,
        args.anchors,
        games_per_pair=games,
        seed=args.seed,
        workers=args.workers,
        progress=not args.no_progress,
        **options,
    )
    seconds = time.perf_counter() - started
    print(ladder.format(), file=out)
    print(f"\nBuilt in {seconds:.1f} s; wrote {ladder.save(path)}", file=out)


def ladder_interrupted(args: argparse.Namespace) -> str:
    """The line printed on Ctrl-C: nothing is written before every game is played."""
    if args.build:
        return "Interrupted: the ladder was not written (it is written once every game is played)"
    return "Interrupted: nothing was written (the placement is made once every game is played)"
