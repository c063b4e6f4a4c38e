"""One PPO policy learns any mancala game by self-play with TorchRL, sampling only legal moves.

The PettingZoo AEC environment, as ``mancala_envs.make`` builds it (its default infos are numbers of
fixed shape only, which TorchRL stacks into tensors), runs under TorchRL's ``PettingZooWrapper``
with both seats in one group, ``"agents"``: every step of the rollout carries both players'
observations, each seen from its own side, and ``("agents", "mask")`` says which of the two is to
move. One network plays both seats. Its logits go to TorchRL's ``MaskedCategorical`` with the
wrapper's ``("agents", "action_mask")``, so an illegal move is never sampled (the env is built with
``illegal_action="raise"`` to prove it). Each seat's advantages come from GAE along its own row of
the rollout (its reward arrives at the end of the game, whoever moved last); the policy loss counts
only the plies a seat played, the value loss every step. Omweso's mid-turn choices and Kalah's extra
turns need nothing special: the wrapper asks the agent to move, whoever it is. Runs on a CPU (the
defaults, 5000 plies of Ouril, take about 30 s on two cores; TorchRL's wrapper steps 300-500 plies a
second)::

    python examples/torchrl_ppo.py
    python examples/torchrl_ppo.py --env-id mancala/kalah-v0 --total-frames 50000 --seed 1

Needs the ``torchrl`` extra: ``pip install 'mancala-envs[torchrl]'``.
"""

from __future__ import annotations

import random
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import tyro
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import ExplorationType, PettingZooWrapper, set_exploration_type
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import mancala_envs

__all__ = ["Args", "evaluate", "make_env", "make_modules", "train"]

GROUP = "agents"
"""The wrapper's one group (``MarlGroupMapType.ALL_IN_ONE_GROUP``): ``player_0`` and ``player_1``, in that order."""
OBSERVATION = (GROUP, "observation", "observation")
"""The board as each seat sees it (the AEC observation dict's ``observation``; the mask is taken out of it)."""
ACTION_MASK = (GROUP, "action_mask")
"""Legal moves of the seat to move; all True for the seat that waits (TorchRL's convention)."""
TO_MOVE = (GROUP, "mask")
"""True for the seat to move: the one whose action the wrapper plays."""
MAX_PLIES = 100_000
"""The most plies an evaluation game may last; one still running then counts as a draw (games against a random
player end far sooner)."""

# mancala-envs needs PettingZoo >= 1.27; TorchRL's wrapper, tested on 1.24.3, warns about any other version.
# tests/integrations/test_torchrl.py checks the wrapper on this package's games with the PettingZoo it installs.
warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested", category=UserWarning)


@dataclass
class Args:
    env_id: str = "ouril_v0"
    """the game or variant to train on (``mancala_envs.list_envs()`` shows them)"""
    seed: int = 0
    """seed of Python, NumPy, torch and the environment"""
    total_frames: int = 5_000
    """plies to collect, both seats together"""
    frames_per_batch: int = 1_000
    """plies collected between two updates"""
    num_epochs: int = 4
    """passes over each batch"""
    minibatch_size: int = 250
    """plies per gradient step"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.99
    """discount per ply"""
    gae_lambda: float = 0.95
    """GAE's lambda"""
    clip_epsilon: float = 0.2
    """PPO's clipping of the probability ratio"""
    entropy_coeff: float = 0.01
    """entropy bonus"""
    hidden_size: int = 64
    """width of the two hidden layers of the policy and value networks"""
    eval_games: int = 20
    """games against a uniformly random player at the end, half in each seat (0: none)"""


def make_env(env_id: str, seed: int) -> PettingZooWrapper:
    """The game as a TorchRL environment: both seats in the group ``"agents"``, categorical actions.

    Args:
        env_id: A game name or registry id (``mancala_envs.list_envs()``).
        seed: Seeds the environment's draw of the first player.

    Returns:
        The wrapped env. Its observations hold ``("agents", "observation", "observation")``
        (``int32``, one row per seat), ``("agents", "action_mask")``, ``("agents", "mask")`` and
        the lean infos' numbers under ``("agents", "info")``.
    """
    game = mancala_envs.make(env_id, illegal_action="raise")  # the default lean infos: numbers of fixed shape
    env = PettingZooWrapper(game, use_mask=True, categorical_actions=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)
    env.set_seed(seed)
    return env


class ScaledBoard(nn.Module):
    """The int32 observation as floats in [0, 1], divided by the observation space's upper bounds."""

    def __init__(self, high: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("scale", high.float().clamp_min(1))

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return observation.float() / self.scale


def make_modules(env: PettingZooWrapper, hidden_size: int) -> tuple[ProbabilisticActor, ValueOperator]:
    """The masked policy and the value network, each a two-hidden-layer MLP on the scaled board.

    Args:
        env: The env of :func:`make_env` (its specs give the board's bounds and the number of actions).
        hidden_size: Width of the hidden layers.

    Returns:
        ``(actor, critic)``. The actor writes ``("agents", "action")`` (and its log-probability) for
        both seats, sampled from ``MaskedCategorical(logits, mask=("agents", "action_mask"))``;
        the critic writes ``("agents", "state_value")``.
    """
    board_spec = env.full_observation_spec[OBSERVATION]
    high = board_spec.space.high[0]  # the bounds of one seat's row
    n_actions = env.full_action_spec[GROUP, "action"].space.n

    def network(out_features: int) -> nn.Module:
        return nn.Sequential(
            ScaledBoard(high),
            MLP(
                in_features=high.numel(),
                out_features=out_features,
                num_cells=[hidden_size, hidden_size],
                activation_class=nn.Tanh,
            ),
        )

    actor = ProbabilisticActor(
        TensorDictModule(network(n_actions), in_keys=[OBSERVATION], out_keys=[(GROUP, "logits")]),
        in_keys={"logits": (GROUP, "logits"), "mask": ACTION_MASK},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "action_log_prob"),
    )
    critic = ValueOperator(network(1), in_keys=[OBSERVATION], out_keys=[(GROUP, "state_value")])
    return actor, critic


def _seat_keys() -> dict[str, Any]:
    """Where the value estimator and the loss find each seat's entries (all under the group)."""
    return {
        "reward": (GROUP, "reward"),
        "done": (GROUP, "done"),
        "terminated": (GROUP, "terminated"),
        "value": (GROUP, "state_value"),
        "advantage": (GROUP, "advantage"),
        "value_target": (GROUP, "value_target"),
    }


def train(args: Args) -> dict[str, Any]:
    """Trains one policy for both seats by self-play for ``args.total_frames`` plies, then plays it
    against a uniformly random player.

    Args:
        args: The run's settings.

    Returns:
        ``{"frames", "games", "seconds", "frames_per_second", "history", "score_vs_random",
        "actor"}``: ``games`` finished during training, ``history`` one row per batch
        (``frames``, ``games``, ``mean_game_plies``, and the last minibatch's ``loss_objective``,
        ``loss_critic`` and ``loss_entropy``), ``score_vs_random`` as :func:`evaluate` returns it
        (None without ``eval_games``), and the trained ``actor``.

    Raises:
        ValueError: ``args.env_id`` is not a registered game, or a budget is not positive.
    """
    if args.env_id not in mancala_envs.list_envs():
        raise ValueError(f"unknown env id {args.env_id!r}; choose one of {mancala_envs.list_envs()}.")
    if min(args.total_frames, args.frames_per_batch, args.minibatch_size, args.num_epochs) < 1:
        raise ValueError("total_frames, frames_per_batch, minibatch_size and num_epochs must be positive.")

    # Seeding: Python's, NumPy's and torch's global generators (the networks' initial weights and the
    # sampled actions); the environment's draw of the first player is seeded by make_env.
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small MLPs on a CPU: one thread is fastest

    env = make_env(args.env_id, args.seed)
    actor, critic = make_modules(env, args.hidden_size)
    # The MLP policy keeps no memory between plies: it needs none of the transforms (InitTracker...) that the
    # collector would otherwise offer to add for recurrent policies.
    collector = Collector(
        env,
        actor,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.total_frames,
        auto_register_policy_transforms=False,
    )
    advantage = GAE(gamma=args.gamma, lmbda=args.gae_lambda, value_network=critic)
    advantage.set_keys(**_seat_keys())
    # reduction="none": one loss per (ply, seat), so that the policy's terms count only the seat to move.
    loss_module = ClipPPOLoss(
        actor,
        critic,
        clip_epsilon=args.clip_epsilon,
        entropy_coeff=args.entropy_coeff,
        normalize_advantage=False,
        reduction="none",
    )
    loss_module.set_keys(sample_log_prob=(GROUP, "action_log_prob"), action=(GROUP, "action"), **_seat_keys())
    optimizer = torch.optim.Adam(loss_module.parameters(), lr=args.learning_rate)

    history: list[dict[str, Any]] = []
    frames = games = 0
    start = time.perf_counter()
    for batch in collector:
        with torch.no_grad():
            advantage(batch)  # GAE along the time axis, for each seat's row
        frames += batch.numel()
        ended = batch["next", "done"].squeeze(-1)
        games += int(ended.sum())
        plies = batch["next", GROUP, "info", "ply"][ended][:, 0]

        flat = batch.reshape(-1)
        for _ in range(args.num_epochs):
            for index in torch.randperm(flat.numel()).split(args.minibatch_size):
                minibatch = flat[index]
                losses = loss_module(minibatch)
                to_move = minibatch[TO_MOVE]
                loss = (losses["loss_objective"] + losses["loss_entropy"])[to_move].mean() + losses[
                    "loss_critic"
                ].mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_module.parameters(), 1.0)
                optimizer.step()
        collector.update_policy_weights_()

        row = {  # the last minibatch's losses
            "frames": frames,
            "games": games,
            "mean_game_plies": float(plies.mean()) if len(plies) else float("nan"),
            "loss_objective": losses["loss_objective"][to_move].mean().item(),
            "loss_critic": losses["loss_critic"].mean().item(),
            "loss_entropy": losses["loss_entropy"][to_move].mean().item(),
        }
        history.append(row)
        print(
            f"frames {frames:7d} | SPS {frames / (time.perf_counter() - start):5.0f} | games {games:5d} | "
            f"plies/game {row['mean_game_plies']:6.1f} | policy {row['loss_objective']:+.3f} | "
            f"value {row['loss_critic']:.3f} | entropy bonus {row['loss_entropy']:+.4f}"
        )
    collector.shutdown()
    seconds = time.perf_counter() - start

    score = evaluate(actor, args.env_id, args.eval_games, seed=10_000 + args.seed) if args.eval_games else None
    if score is None:
        print(f"done: {frames} frames, {games} games in {seconds:.1f} s")
    else:
        print(
            f"done: {frames} frames, {games} games in {seconds:.1f} s | vs random: "
            f"{score['wins']}-{score['draws']}-{score['losses']} (W-D-L), score {score['score']:.2f}"
        )
    return {
        "frames": frames,
        "games": games,
        "seconds": seconds,
        "frames_per_second": frames / seconds,
        "history": history,
        "score_vs_random": score,
        "actor": actor,
    }


def evaluate(actor: ProbabilisticActor, env_id: str, games: int, seed: int) -> dict[str, Any]:
    """Plays the actor's most likely legal move against a uniformly random legal player.

    The actor takes ``player_0`` in the even games and ``player_1`` in the odd ones.

    Args:
        actor: The policy of :func:`make_modules`.
        env_id: The game or variant to play.
        games: How many games to play.
        seed: Seeds the env's draw of the first player and the random player's moves.

    Returns:
        ``{"games", "wins", "draws", "losses", "score"}``, the score counting a draw as half a win.
    """
    torch.set_num_threads(1)  # one game at a time: tiny tensors, which extra threads only slow down
    env = make_env(env_id, seed)
    generator = torch.Generator().manual_seed(seed)
    results = []
    for game in range(games):
        seat = game % 2

        def random_opponent(action_mask: torch.Tensor, action: torch.Tensor, seat: int = seat) -> torch.Tensor:
            """The actor's moves, with the other seat's replaced by a uniformly drawn legal move."""
            action = action.clone()
            action[1 - seat] = torch.multinomial(action_mask[1 - seat].float(), 1, generator=generator)[0]
            return action

        policy = TensorDictSequential(
            actor,  # both seats' moves; under DETERMINISTIC, the mode of the masked distribution
            TensorDictModule(random_opponent, in_keys=[ACTION_MASK, (GROUP, "action")], out_keys=[(GROUP, "action")]),
        )
        with set_exploration_type(ExplorationType.DETERMINISTIC), torch.no_grad():
            rollout = env.rollout(MAX_PLIES, policy=policy, break_when_any_done=True)
        results.append(int(rollout["next", GROUP, "reward"][-1, seat, 0]))
    env.close()
    wins, draws = results.count(1), results.count(0)
    return {
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": games - wins - draws,
        "score": (wins + draws / 2) / games,
    }


if __name__ == "__main__":
    train(tyro.cli(Args))
