"""``mancala-envs demo``: one game between two named agents, printed ply by ply (``--record`` also saves it)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from mancala_envs.cli.common import SEED, add_trust_remote_code
from mancala_envs.common.validation import check_integer
from mancala_envs.envs.registration import resolve_env_id

__all__ = ["add_demo_arguments", "demo_interrupted", "play_demo", "run_demo"]

#: ``mancala-envs demo``'s line in ``mancala-envs --help``
DEMO_HELP = "play one game between two agents, printed turn by turn"


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the arguments of ``mancala-envs demo`` to ``parser``."""
    parser.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    parser.add_argument(
        "--agents",
        nargs=2,
        default=["random", "greedy"],
        metavar=("P0", "P1"),
        help="agent names for player_0 and player_1 (default: random greedy)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seeds the first player and the agents (default: 0)")
    parser.add_argument("--record", default=None, metavar="PATH", help="also save the game as a JSON game record")
    add_trust_remote_code(parser)


def play_demo(
    env_id: str,
    agent_names: Sequence[str],
    seed: int,
    out: TextIO = sys.stdout,
    *,
    record: str | os.PathLike[str] | None = None,
    trust_remote_code: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Plays one game between two named agents, printing every ply.

    Each ply is printed in words with its action, numbered as the text board's ``legal actions [...]``
    list numbers it (and as ``mancala-envs play`` takes it, ``a1``): ``player_1 (greedy) sows pit 7
    (action 1), captures 0``. The text board is seen from player 0's seat on every ply.

    Args:
        env_id: A game name or registry id (``"ouril"``, ``"ouril_v0"``, ``"mancala/urim7-v0"``).
        agent_names: Agent names for player_0 and player_1.
        seed: Seeds the env (first player) and the agents.
        out: Where to print.
        record: If given, the game is also saved there as a JSON game record (``mancala-envs replay`` reads it).
        trust_remote_code: Load ``sb3:`` agents in full, unpickling the file (a crafted file runs arbitrary
            code; only for files you trust). By default they are loaded without unpickling.
        **options: Game and environment options.

    Returns:
        The final infos of player_0 (scores, winner, end reason, ...).

    Raises:
        TypeError: ``seed`` is not an integer, or a name has the wrong type.
        ValueError: an unknown game or agent, not exactly two agent names, a negative seed, or a ``record``
            path whose directory does not exist.
    """
    import mancala_envs
    from mancala_envs.agents import make_agent

    if isinstance(agent_names, str) or not isinstance(agent_names, Sequence) or len(agent_names) != 2:
        raise ValueError(f"give two agent names, one for each player, e.g. ['random', 'greedy'] (got {agent_names!r}).")
    check_integer("seed", seed, 0)
    if record is not None and not os.path.isdir(os.path.dirname(os.path.abspath(record))):
        raise ValueError(f"cannot write {os.fspath(record)!r}: its directory does not exist.")

    env_id = resolve_env_id(env_id)
    env = mancala_envs.make(env_id, render_mode="ansi", **options)
    if record is not None:
        from mancala_envs.wrappers import RecordGames

        env = RecordGames(env, keep=True, players=list(agent_names))
    agents = {
        f"player_{p}": make_agent(name, seed=seed + p, trust_remote_code=trust_remote_code)
        for p, name in enumerate(agent_names)
    }
    env.reset(seed=seed)
    print(f"{env_id}: player_0 = {agent_names[0]}, player_1 = {agent_names[1]}", file=out)
    print(env.render(), file=out)
    final: dict[str, Any] = {}
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final = final or env.unwrapped.facts()
            env.step(None)
            continue
        action = agents[agent].act(env)
        what = env.unwrapped.game.describe_action(env.unwrapped.state_array, action)
        env.step(action)
        move = env.unwrapped.last_move
        captured = sum(seeds for _, seeds in move["captures"])
        # the action as the header's "legal actions [...]" numbers it (and ``play``'s a<action>), beside the pit
        print(f"\n{agent} ({agents[agent].name}) {what} (action {action}), captures {captured}", file=out)
        print(env.render(), file=out)
    winner = final["winner"]
    result = "draw" if winner is None else f"player_{winner} ({agent_names[winner]}) wins"
    print(
        f"\nResult: {result}; scores {final['scores'][0]}-{final['scores'][1]}, "
        f"end: {final['end_reason']}, plies: {final['ply']}",
        file=out,
    )
    if record is not None:
        path = env.records[-1].save(record)
        print(f"Recorded the game to {path} (mancala-envs replay {path})", file=out)
    return final


def run_demo(args: argparse.Namespace) -> dict[str, Any]:
    """``mancala-envs demo``: :func:`play_demo` with the parsed arguments; returns the final infos."""
    return play_demo(args.game, args.agents, args.seed, record=args.record, trust_remote_code=args.trust_remote_code)


def demo_interrupted(args: argparse.Namespace) -> str:
    """What ``mancala-envs demo`` prints on Ctrl-C: what was kept."""
    return "Interrupted: the game was not recorded" if args.record is not None else "Interrupted: nothing was written"
