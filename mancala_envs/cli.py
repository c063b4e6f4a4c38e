"""The ``mancala-envs`` command line.

``mancala-envs demo --game ouril --agents random greedy`` plays one game between
two agents and prints it turn by turn; ``mancala-envs list`` lists the ids.
Bad input is reported as one line, ``mancala-envs: error: ...``, with exit status 2
(see docs/contract.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["main", "play_demo"]

PROG = "mancala-envs"


def play_demo(env_id: str, agent_names: Sequence[str], seed: int, out=sys.stdout, **options) -> dict:
    """Plays one game between two named agents, printing every ply.

    Args:
        env_id: A game name or registry id (``"ouril"``, ``"ouril_v0"``, ``"mancala/urim7-v0"``).
        agent_names: Agent names for player_0 and player_1.
        seed: Seeds the env (first player) and the agents.
        out: Where to print.
        **options: Game and environment options.

    Returns:
        The final infos of player_0 (scores, winner, end reason, ...).

    Raises:
        TypeError: ``seed`` is not an integer, or a name has the wrong type.
        ValueError: an unknown game or agent, not exactly two agent names, or a negative seed.
    """
    import numpy as np

    import mancala_envs
    from mancala_envs.agents import make_agent

    if isinstance(agent_names, str) or not isinstance(agent_names, Sequence) or len(agent_names) != 2:
        raise ValueError(f"give two agent names, one for each player, e.g. ['random', 'greedy'] (got {agent_names!r}).")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer >= 0 (got {type(seed).__name__} {seed!r}).")
    if seed < 0:
        raise ValueError(f"seed {seed} is negative; use an integer >= 0.")

    if f"{env_id}_v0" in mancala_envs.list_envs():
        env_id = f"{env_id}_v0"
    env = mancala_envs.make(env_id, render_mode="ansi", **options)
    agents = {f"player_{p}": make_agent(name, seed=seed + p) for p, name in enumerate(agent_names)}
    env.reset(seed=seed)
    print(f"{env_id}: player_0 = {agent_names[0]}, player_1 = {agent_names[1]}", file=out)
    print(env.render(), file=out)
    final: dict = {}
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            final = final or info
            env.step(None)
            continue
        action = agents[agent].act(env)
        what = env.unwrapped.game.describe_action(env.unwrapped.state_array, action)
        env.step(action)
        move = env.infos[agent]["last_move"]
        captured = sum(seeds for _, seeds in move["captures"])
        print(f"\n{agent} ({agents[agent].name}) {what}, captures {captured}", file=out)
        print(env.render(), file=out)
    winner = final["winner"]
    result = "draw" if winner is None else f"player_{winner} ({agent_names[winner]}) wins"
    print(
        f"\nResult: {result}; scores {final['scores'][0]}-{final['scores'][1]}, "
        f"end: {final['end_reason']}, plies: {final['ply']}",
        file=out,
    )
    return final


class _UsageError(Exception):
    """A command line that argparse rejects; ``main`` prints it as one line."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors reach ``main`` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message, self.prog)


def _seed(text: str) -> int:
    """``--seed``: a non-negative integer."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r} (use an integer >= 0)")
    return seed


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Mancala games as RL environments.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="play one game between two agents, printed turn by turn")
    demo.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    demo.add_argument(
        "--agents",
        nargs=2,
        default=["random", "greedy"],
        metavar=("P0", "P1"),
        help="agent names for player_0 and player_1 (default: random greedy)",
    )
    demo.add_argument("--seed", type=_seed, default=0, help="seeds the first player and the agents (default: 0)")
    commands.add_parser("list", help="list the registered environment ids")
    return parser


def _fail(message: str) -> int:
    """Prints ``message`` as the one line ``mancala-envs: error: ...`` on stderr; returns the status 2."""
    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns its exit status.

    Bad input -- an unknown command, a missing or malformed argument, an unknown game or
    agent -- prints one line ``mancala-envs: error: <what was wrong>`` on stderr (no usage
    text, no traceback) and returns 2. ``--help`` prints the usage and exits with 0.
    """
    try:
        args = _parser().parse_args(argv)
    except _UsageError as error:
        return _fail(f"{error}; see '{error.prog} --help'.")
    try:
        if args.command == "list":
            import mancala_envs

            print("\n".join(mancala_envs.list_envs(verbose=True)))
        else:
            play_demo(args.game, args.agents, args.seed)
    except (ValueError, TypeError) as error:
        return _fail(str(error))
    except BrokenPipeError:  # the reader went away (``mancala-envs demo | head``): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # so that the flush at exit does not fail again
        except (OSError, ValueError):
            pass
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
