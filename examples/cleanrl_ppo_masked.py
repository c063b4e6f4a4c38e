"""PPO with action masking in one file, CleanRL style, on ``gymnasium.make_vec`` of a mancala game.

The vector env is the compiled one that ``gymnasium.make_vec("mancala/Ouril-v0", num_envs=N)``
builds: ``N`` games, each a learner against a compiled opponent, stepped by one call. It encodes
the observations itself (``encoding="flat"``: every entry scaled to [0, 1]) and sits in Gymnasium's
``RecordEpisodeStatistics``, as in CleanRL's scripts. The policy's logits are masked with
``infos["action_mask"]``, so it never picks an illegal move.

The games reset in the same step as they end (``autoreset_mode="same_step"``): the observation
after a last move is the next episode's first, so every stored transition is a decision of the
learner and an ended episode is cut from the bootstrap by its ``done``, as in CleanRL's PPO.

Run it with the defaults (Ouril against the random opponent, 200k steps, about a minute on a laptop CPU)::

    python examples/cleanrl_ppo_masked.py
    python examples/cleanrl_ppo_masked.py --env-id mancala/Urim-v0 --opponent greedy --encoding one_hot

``mancala-envs list`` shows the Gymnasium ids (a plain game name such as ``ouril_v0`` works too).
Needs torch and tyro (the ``train`` extra: ``pip install 'mancala-envs[train]'``).
"""

from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
import torch
import tyro
from torch import nn
from torch.distributions import Categorical

from mancala_envs.envs.registration import find_variant  # importing mancala_envs registers the Gymnasium ids


@dataclass
class Args:
    env_id: str = "mancala/Ouril-v0"
    """the Gymnasium id of the game (``mancala-envs list``), or a plain game name such as ``ouril_v0``"""
    opponent: str = "random"
    """the compiled opponent: random, greedy, alphabeta:D or mcts:N"""
    encoding: str = "flat"
    """the observation encoding: flat, one_hot, thermometer or planes (or raw)"""
    seed: int = 1
    """seed of the games, the network and the action draws"""
    torch_deterministic: bool = True
    """ask torch for deterministic algorithms"""
    torch_threads: int = 1
    """torch CPU threads (one is fastest for a small MLP)"""
    total_timesteps: int = 200_000
    """learner steps to train for, all games together"""
    num_envs: int = 64
    """games stepped together"""
    num_steps: int = 32
    """steps per game in each rollout (the rollout is ``num_envs * num_steps``)"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of the generalised advantage estimate"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each rollout"""
    norm_adv: bool = True
    """normalise the advantages in each minibatch"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss as the policy's"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: float | None = None
    """stop an update early when the approximate KL passes it"""
    hidden_size: int = 64
    """units in each of the two hidden layers"""
    eval_episodes: int = 200
    """greedy-policy games against the opponent at the end (0: none)"""
    save_path: str | None = None
    """where to save the network's state dict (torch.save), or None"""


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    """Orthogonal weights, constant bias: PPO's usual initialisation."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """Separate actor and critic MLPs on the flattened observation; the actor's logits are masked."""

    def __init__(self, observation_size: int, n_actions: int, hidden_size: int = 64) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(observation_size, hidden_size)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden_size, hidden_size)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden_size, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(observation_size, hidden_size)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden_size, hidden_size)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden_size, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x.flatten(1))

    def policy(self, x: torch.Tensor, mask: torch.Tensor) -> Categorical:
        """The action distribution with the illegal actions' logits pushed to the lowest float: their
        probability is 0, and they add nothing to the entropy."""
        logits = self.actor(x.flatten(1))
        return Categorical(logits=torch.where(mask, logits, torch.finfo(logits.dtype).min))

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        distribution = self.policy(x, mask)
        if action is None:
            action = distribution.sample()
        return action, distribution.log_prob(action), distribution.entropy(), self.get_value(x).flatten()


def gymnasium_id(env_id: str) -> str:
    """``env_id`` as a Gymnasium id: kept if registered, else the id of the game or variant it names."""
    return env_id if env_id in gymnasium.registry else find_variant(env_id).gymnasium_id


def make_envs(args: Args, num_envs: int) -> Any:
    """The compiled vector env of ``num_envs`` games, encoded, with the episode statistics recorded."""
    envs = gymnasium.make_vec(
        gymnasium_id(args.env_id),
        num_envs=num_envs,
        opponent=args.opponent,
        encoding=args.encoding,
        autoreset_mode="same_step",
    )
    return gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)


def train(args: Args) -> dict[str, Any]:
    """Trains the agent; prints one line per update and returns the figures of the run.

    Returns:
        ``agent``, ``global_step``, ``episodes`` (ended during training), ``mean_return`` and
        ``win_rate`` (of the last 100 episodes), ``steps_per_second``, and ``updates``: one dict per
        update (``global_step``, ``policy_loss``, ``value_loss``, ``entropy``, ``approx_kl``,
        ``clipfrac``, ``episodes``, ``mean_return``).
    """
    batch_size = args.num_envs * args.num_steps
    minibatch_size = max(1, batch_size // args.num_minibatches)
    num_iterations = max(1, args.total_timesteps // batch_size)

    # Seeding: Python, NumPy and torch; the games are seeded by the first reset.
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    torch.set_num_threads(args.torch_threads)
    device = torch.device("cpu")

    envs = make_envs(args, args.num_envs)
    observation_shape = envs.single_observation_space.shape
    n_actions = int(envs.single_action_space.n)
    agent = Agent(int(np.prod(observation_shape)), n_actions, args.hidden_size).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    observations = torch.zeros((args.num_steps, args.num_envs, *observation_shape), device=device)
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool, device=device)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long, device=device)
    logprobs = torch.zeros((args.num_steps, args.num_envs), device=device)
    rewards = torch.zeros((args.num_steps, args.num_envs), device=device)
    dones = torch.zeros((args.num_steps, args.num_envs), device=device)
    values = torch.zeros((args.num_steps, args.num_envs), device=device)

    global_step = 0
    episodes = 0
    returns: deque[float] = deque(maxlen=100)
    updates: list[dict[str, float]] = []
    start = time.perf_counter()
    next_observation, infos = envs.reset(seed=args.seed)
    next_observation = torch.as_tensor(next_observation, dtype=torch.float32, device=device)
    next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool, device=device)
    next_done = torch.zeros(args.num_envs, device=device)

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate

        for step in range(args.num_steps):
            global_step += args.num_envs
            observations[step] = next_observation
            masks[step] = next_mask
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_observation, next_mask)
            values[step] = value
            actions[step] = action
            logprobs[step] = logprob

            next_observation, reward, terminations, truncations, infos = envs.step(action.cpu().numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32, device=device)
            next_observation = torch.as_tensor(next_observation, dtype=torch.float32, device=device)
            next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool, device=device)
            next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32, device=device)
            if "episode" in infos:  # RecordEpisodeStatistics: the returns of the games that just ended
                ended = infos["_episode"]
                episodes += int(ended.sum())
                returns.extend(infos["episode"]["r"][ended].tolist())

        # Generalised advantage estimates, cut at each episode's end (no bootstrap past a done).
        with torch.no_grad():
            next_value = agent.get_value(next_observation).flatten()
            advantages = torch.zeros_like(rewards)
            last_gae = torch.zeros(args.num_envs, device=device)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    next_nonterminal, following_value = 1.0 - next_done, next_value
                else:
                    next_nonterminal, following_value = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * following_value * next_nonterminal - values[t]
                last_gae = delta + args.gamma * args.gae_lambda * next_nonterminal * last_gae
                advantages[t] = last_gae
            value_targets = advantages + values

        b_observations = observations.reshape((-1, *observation_shape))
        b_masks = masks.reshape((-1, n_actions))
        b_actions = actions.reshape(-1)
        b_logprobs = logprobs.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_targets = value_targets.reshape(-1)
        b_values = values.reshape(-1)

        indices = np.arange(batch_size)
        clipfracs: list[float] = []
        for _ in range(args.update_epochs):
            np.random.shuffle(indices)
            for first in range(0, batch_size, minibatch_size):
                chosen = indices[first : first + minibatch_size]
                _, new_logprob, entropy, new_value = agent.get_action_and_value(
                    b_observations[chosen], b_masks[chosen], b_actions[chosen]
                )
                log_ratio = new_logprob - b_logprobs[chosen]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

                mb_advantages = b_advantages[chosen]
                if args.norm_adv and len(chosen) > 1:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                policy_loss = torch.max(
                    -mb_advantages * ratio,
                    -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef),
                ).mean()

                if args.clip_vloss:
                    unclipped = (new_value - b_targets[chosen]) ** 2
                    clipped_value = b_values[chosen] + torch.clamp(
                        new_value - b_values[chosen], -args.clip_coef, args.clip_coef
                    )
                    value_loss = 0.5 * torch.max(unclipped, (clipped_value - b_targets[chosen]) ** 2).mean()
                else:
                    value_loss = 0.5 * ((new_value - b_targets[chosen]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = policy_loss - args.ent_coef * entropy_loss + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        seconds = time.perf_counter() - start
        update = {
            "global_step": global_step,
            "policy_loss": policy_loss.item(),
            "value_loss": value_loss.item(),
            "entropy": entropy_loss.item(),
            "approx_kl": approx_kl.item(),
            "clipfrac": float(np.mean(clipfracs)),
            "episodes": episodes,
            "mean_return": float(np.mean(returns)) if returns else float("nan"),
        }
        updates.append(update)
        print(
            f"update {iteration}/{num_iterations} step {global_step}: episodes {episodes}, "
            f"mean return {update['mean_return']:+.3f}, policy loss {update['policy_loss']:.4f}, "
            f"value loss {update['value_loss']:.4f}, entropy {update['entropy']:.3f}, "
            f"approx kl {update['approx_kl']:.4f}, SPS {int(global_step / seconds)}"
        )

    envs.close()
    seconds = time.perf_counter() - start
    if args.save_path is not None:
        torch.save(agent.state_dict(), args.save_path)
    recent = np.array(returns)
    return {
        "agent": agent,
        "global_step": global_step,
        "episodes": episodes,
        "mean_return": float(recent.mean()) if recent.size else float("nan"),
        "win_rate": float((recent > 0).mean()) if recent.size else float("nan"),
        "steps_per_second": global_step / seconds,
        "updates": updates,
    }


def evaluate(agent: Agent, args: Args, episodes: int, seed: int = 10_000) -> dict[str, float]:
    """Plays ``episodes`` games of the agent's most likely legal action against ``args.opponent``.

    Returns:
        ``episodes``, and the rates of ``wins``, ``draws`` and ``losses`` (reward > 0, 0, < 0).
    """
    num_envs = min(episodes, args.num_envs)
    envs = make_envs(args, num_envs)
    observation, infos = envs.reset(seed=seed)
    outcomes: list[float] = []
    while len(outcomes) < episodes:
        with torch.no_grad():
            distribution = agent.policy(
                torch.as_tensor(observation, dtype=torch.float32),
                torch.as_tensor(infos["action_mask"], dtype=torch.bool),
            )
        action = distribution.probs.argmax(dim=1).numpy()
        observation, _, _, _, infos = envs.step(action)
        if "episode" in infos:
            outcomes.extend(infos["episode"]["r"][infos["_episode"]].tolist())
    envs.close()
    played = np.array(outcomes[:episodes])
    return {
        "episodes": len(played),
        "wins": float((played > 0).mean()),
        "draws": float((played == 0).mean()),
        "losses": float((played < 0).mean()),
    }


def run(args: Args) -> dict[str, Any]:
    """Trains, then evaluates the greedy policy; returns :func:`train`'s figures with ``evaluation``."""
    figures = train(args)
    print(
        f"trained {figures['global_step']} steps in {figures['episodes']} episodes "
        f"(SPS {figures['steps_per_second']:.0f}); last 100: mean return {figures['mean_return']:+.3f}, "
        f"win rate {100 * figures['win_rate']:.1f}%"
    )
    if args.eval_episodes > 0:
        figures["evaluation"] = evaluation = evaluate(figures["agent"], args, args.eval_episodes)
        print(
            f"evaluation vs {args.opponent}: {100 * evaluation['wins']:.1f}% wins, "
            f"{100 * evaluation['draws']:.1f}% draws, {100 * evaluation['losses']:.1f}% losses "
            f"of {evaluation['episodes']} games"
        )
    return figures


if __name__ == "__main__":
    run(tyro.cli(Args))
