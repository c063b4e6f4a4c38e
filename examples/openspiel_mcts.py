"""OpenSpiel's MCTS bot against one of our agents, on any registered game, through
``mancala_envs.integrations.openspiel``.

The game is loaded as an OpenSpiel game (``mancala_envs_ouril_v0`` for ``ouril_v0``); OpenSpiel's Python
``MCTSBot`` (UCT with random rollouts) plays it against a mancala-envs agent wrapped as an OpenSpiel bot
(``AgentBot``), alternating seats, with ``evaluate_bots``. The score is MCTS's mean return per game
(+1 a win, -1 a loss, 0 a draw).

Run it with the defaults (Ouril, 10 games, 100 simulations per move, against greedy)::

    python examples/openspiel_mcts.py
    python examples/openspiel_mcts.py --env-id omweso_v0 --games 20 --simulations 300 --opponent alphabeta:2

Needs the ``openspiel`` extra: ``pip install 'mancala-envs[openspiel]'``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from mancala_envs.integrations.openspiel import AgentBot, load_game

#: the tally that each outcome of a game counts in
OUTCOMES = {"win": "wins", "draw": "draws", "loss": "losses"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Reads the options from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="ouril_v0", help="the game or variant (`mancala-envs list` shows them)")
    parser.add_argument(
        "--games", type=int, default=10, help="games to play, MCTS moving first in every other one (default 10)"
    )
    parser.add_argument("--simulations", type=int, default=100, help="MCTS simulations per move (default 100)")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts per leaf (default 1)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT's exploration constant (default 2.0)")
    parser.add_argument(
        "--opponent",
        default="greedy",
        help="the agent MCTS plays: random, greedy, alphabeta:D or mcts:N (default greedy)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of MCTS and the opponent (default 0)")
    args = parser.parse_args(argv)
    for name in ("games", "simulations", "rollouts"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1 (got {getattr(args, name)})")
    return args


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Plays the games; returns MCTS's wins, draws, losses, its score per game and the plies per second."""
    game = load_game(args.env_id)
    rng = np.random.default_rng(args.seed)  # evaluate_bots draws chance outcomes with it (our games have none)
    results = {"wins": 0, "draws": 0, "losses": 0}
    plies = 0
    start = time.perf_counter()
    for number in range(args.games):
        seed = args.seed + number
        evaluator = mcts.RandomRolloutEvaluator(args.rollouts, np.random.RandomState(seed))
        searcher = mcts.MCTSBot(game, args.uct_c, args.simulations, evaluator, random_state=np.random.RandomState(seed))
        opponent = AgentBot(args.opponent, seed=seed)
        seat = number % 2  # MCTS moves first in the even games
        bots = [searcher, opponent] if seat == 0 else [opponent, searcher]
        state = game.new_initial_state()
        returns = evaluate_bots(state, bots, rng)
        plies += state.move_number()
        outcome = "win" if returns[seat] > 0 else "loss" if returns[seat] < 0 else "draw"
        results[OUTCOMES[outcome]] += 1
        print(f"game {number + 1}: MCTS as player_{seat}: {outcome} in {state.move_number()} plies")
    seconds = time.perf_counter() - start
    score = (results["wins"] - results["losses"]) / args.games
    print(
        f"MCTS ({args.simulations} simulations) vs {args.opponent} on {args.env_id}: {results['wins']} wins, "
        f"{results['draws']} draws, {results['losses']} losses; score {score:+.2f} per game "
        f"({plies / seconds:.0f} game plies/s)"
    )
    return {**results, "score": score, "plies_per_second": plies / seconds}


if __name__ == "__main__":
    run(parse_args())
