"""The ``mancala-envs`` command line.

``mancala-envs demo --game ouril --agents random greedy`` plays one game between
two agents and prints it turn by turn; ``mancala-envs list`` lists the ids.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main", "play_demo"]


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
    """
    import mancala_envs
    from mancala_envs.agents import make_agent

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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mancala-envs", description="Mancala games as RL environments.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="play one game between two agents, printed turn by turn")
    demo.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    demo.add_argument("--agents", nargs=2, default=["random", "greedy"], metavar=("P0", "P1"))
    demo.add_argument("--seed", type=int, default=0)
    commands.add_parser("list", help="list the registered environment ids")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status (errors: one line, status 2)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            import mancala_envs

            print("\n".join(mancala_envs.list_envs(verbose=True)))
        else:
            play_demo(args.game, args.agents, args.seed)
    except (ValueError, TypeError) as error:
        print(f"mancala-envs: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
