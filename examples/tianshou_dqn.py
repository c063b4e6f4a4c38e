"""Masked DQN learns any mancala game against a random player with Tianshou 2 (multi-agent API).

The PettingZoo AEC environment runs under Tianshou's own ``PettingZooEnv`` wrapper, unchanged. That
wrapper reads the observation dict's ``observation`` and ``action_mask`` entries and hands Tianshou
``{"agent_id", "obs", "mask"}`` for the agent whose turn it is, so Omweso's mid-turn choices, where
the same agent moves twice in a row, need nothing special. ``MultiAgentOffPolicyAlgorithm`` gives
each seat its algorithm: DQN for the learner (its Q-values masked by ``mask``, its exploration
drawing legal actions only) and Tianshou's masked random player for the other seat. The first
player is drawn by lot at each reset, so the learner moves first in about half the games.

The environment is ``mancala_envs.make(env_id)`` with the ``flat`` encoding (the board scaled to [0, 1]
for the network). Its default infos fit Tianshou's replay buffer, which stores each step's info dict in
fixed-shape arrays: they hold numbers of the same keys and shapes at every step (``infos="full"`` would not:
its ``winner`` goes from None to 0)::

    python examples/tianshou_dqn.py
    python examples/tianshou_dqn.py --env-id mancala/kalah-v0 --steps 20000 --eval-games 200

Tianshou stores one transition per ply, so the learner's next observation is the opponent's (as in
Tianshou's own tic-tac-toe example): good enough to beat a random player, not a recipe for strong play.

Needs the ``tianshou`` extra: ``pip install 'mancala-envs[tianshou]'``.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import tyro
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import mancala_envs
from mancala_envs.wrappers import apply_wrappers

__all__ = ["Args", "build_algorithm", "evaluate", "make_env", "run", "train"]

SEATS = ("player_0", "player_1")
"""The PettingZoo agents, in the order of Tianshou's ``env.agents`` (the order of the algorithms)."""


@dataclass
class Args:
    env_id: str = "ouril_v0"
    """the game or variant to train on (``mancala_envs.list_envs()`` shows them)"""
    seed: int = 0
    """seed of Python, NumPy (Tianshou's random player and exploration), torch and the envs"""
    learner: int = 0
    """the learner's seat: 0 (player_0) or 1 (player_1); the other seat plays uniformly random legal moves"""
    steps: int = 4000
    """env steps (plies of both seats) collected for training"""
    epochs: int = 4
    """Tianshou epochs the steps are split into (one line of log each)"""
    num_train_envs: int = 4
    """environments stepped together while training"""
    num_test_envs: int = 4
    """environments stepped together while evaluating"""
    collect_steps: int = 40
    """env steps collected between updates"""
    updates_per_step: float = 0.1
    """gradient steps per collected env step"""
    batch_size: int = 64
    """transitions sampled per gradient step"""
    buffer_size: int = 20_000
    """replay buffer size, all training envs together"""
    hidden_size: int = 128
    """width of the two hidden layers of the Q-network"""
    learning_rate: float = 1e-3
    """Adam learning rate"""
    gamma: float = 0.9
    """discount per ply; a smaller one favours winning sooner"""
    n_step: int = 2
    """plies in each return: 2 spans the learner's move and the reply, so its target is its own next position"""
    target_update_freq: int = 100
    """gradient steps between copies of the Q-network into the target network"""
    eps_train: float = 0.2
    """exploration rate while training (random legal moves)"""
    eps_test: float = 0.0
    """exploration rate while evaluating"""
    eval_games: int = 100
    """games played against the random player after training"""


def make_env(env_id: str) -> PettingZooEnv:
    """The registered game as Tianshou sees it: our AEC env, ``flat``-encoded, in Tianshou's ``PettingZooEnv``.

    The default infos are dicts of fixed keys and shapes, which Tianshou's replay buffer needs.
    """
    return PettingZooEnv(apply_wrappers(mancala_envs.make(env_id), ["flat"]))


def build_algorithm(args: Args, env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    """The DQN learner in seat ``args.learner`` and the masked random player in the other, as one algorithm.

    ``algorithm.get_algorithm("player_0")`` gives back the algorithm of one seat (the DQN, to save its weights).
    """
    board = env.observation_space["observation"]
    net = Net(state_shape=board.shape, action_shape=env.action_space.n, hidden_sizes=[args.hidden_size] * 2)
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=args.eps_train, eps_inference=args.eps_test
    )
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.learning_rate),
        gamma=args.gamma,
        n_step_return_horizon=args.n_step,
        target_update_freq=args.target_update_freq,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithms = [learner, opponent] if args.learner == 0 else [opponent, learner]
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)


def train(args: Args, algorithm: MultiAgentOffPolicyAlgorithm) -> dict[str, Any]:
    """Trains the learner for ``args.steps`` env steps; returns the steps, the games finished and the times."""
    train_envs = DummyVectorEnv([lambda: make_env(args.env_id) for _ in range(args.num_train_envs)])
    train_envs.seed(args.seed)  # env i is reset with seed + i, then continues its own generator
    collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(args.buffer_size, len(train_envs)), exploration_noise=True
    )
    collector.reset()
    learner_index = args.learner
    start = time.perf_counter()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=args.epochs,
            epoch_num_steps=max(1, args.steps // args.epochs),
            collection_step_num_env_steps=args.collect_steps,
            update_step_num_gradient_steps_per_sample=args.updates_per_step,
            batch_size=args.batch_size,
            multi_agent_return_reduction=lambda returns: returns[:, learner_index],
            show_progress=False,
            verbose=False,
        )
    )
    seconds = time.perf_counter() - start
    train_envs.close()
    return {
        "steps": int(result.train_step),
        "train_games": int(result.train_episode),
        "seconds": seconds,
        "update_seconds": result.timing.train_time_update,
    }


def evaluate(args: Args, algorithm: MultiAgentOffPolicyAlgorithm) -> dict[str, int]:
    """Plays ``args.eval_games`` games of the learner (``eps_test``) against the random player.

    Returns:
        The learner's wins, draws and losses, and the games played.
    """
    test_envs = DummyVectorEnv([lambda: make_env(args.env_id) for _ in range(args.num_test_envs)])
    test_envs.seed(args.seed + 10_000)  # other games than the training ones
    collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    stats = collector.collect(n_episode=args.eval_games, reset_before_collect=True)
    test_envs.close()
    returns = np.asarray(stats.returns).reshape(-1, len(SEATS))[:, args.learner]
    return {
        "games": int(returns.size),
        "wins": int(np.sum(returns > 0)),
        "draws": int(np.sum(returns == 0)),
        "losses": int(np.sum(returns < 0)),
    }


def run(args: Args) -> dict[str, Any]:
    """Seeds everything, trains the learner against the random player, evaluates it and prints the result."""
    if args.learner not in (0, 1):
        raise ValueError(f"learner must be 0 or 1 (the seat of player_0 or player_1); got {args.learner!r}.")
    random.seed(args.seed)
    np.random.seed(args.seed)  # Tianshou's random player and the exploration draw from NumPy's global generator
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a small MLP on a CPU: one thread is fastest
    # Tianshou warns at every collect that the returns have one column per agent (so they do, by design)
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)

    algorithm = build_algorithm(args, make_env(args.env_id))
    trained = train(args, algorithm)
    print(
        f"trained DQN as {SEATS[args.learner]} on {args.env_id} against random: {trained['steps']} env steps "
        f"({trained['train_games']} games) in {trained['seconds']:.1f} s, {trained['update_seconds']:.1f} s of them "
        f"in updates (SPS: {trained['steps'] / trained['seconds']:.0f})"
    )
    result = evaluate(args, algorithm)
    games = max(result["games"], 1)
    print(
        f"Result: DQN vs random on {args.env_id}, {result['games']} games: "
        f"win {100 * result['wins'] / games:.1f}%, draw {100 * result['draws'] / games:.1f}%, "
        f"loss {100 * result['losses'] / games:.1f}%"
    )
    return {**trained, **result}


if __name__ == "__main__":
    run(tyro.cli(Args))
