"""Two PPO policies, one per seat, learn any mancala game with Ray RLlib (new API stack), with action masking.

The PettingZoo AEC environment runs under RLlib's ``PettingZooEnv`` wrapper, which hands RLlib
only the agent whose turn it is (so Omweso's mid-turn choices, where the same agent moves twice
in a row, need nothing special). ``player_0`` and ``player_1`` each get their own PPO module
through ``policy_mapping_fn``; both learn at once, each against the other. Each module masks
its logits with the observation's ``action_mask``, so illegal actions are never sampled, in
training or in inference, and the env is built with ``illegal_action="raise"`` to prove it.
Runs locally on two CPU cores::

    python examples/rllib_multiagent.py
    python examples/rllib_multiagent.py --env-id mancala/omweso-v0 --iterations 20 --num-env-runners 1

Needs the ``rllib`` extra: ``pip install 'mancala-envs[rllib]'``.
"""

from __future__ import annotations

import math
import random
import sys
import time
from dataclasses import dataclass
from numbers import Real
from typing import Any

import gymnasium as gym
import numpy as np
import ray
import torch
import tyro
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.tune.registry import register_env

import mancala_envs

__all__ = ["Args", "MaskedPPOTorchRLModule", "build_config", "env_creator", "policy_mapping_fn", "train"]

ENV_NAME = "mancala_envs_aec"
"""The name under which :func:`env_creator` is registered with Ray Tune's env registry."""
SEATS = ("player_0", "player_1")
"""The PettingZoo agents; each seat has its own policy (RLModule) of the same name."""


@dataclass
class Args:
    env_id: str = "mancala/ouril-v0"
    """the game or variant to train on (``mancala_envs.list_envs()`` shows them)"""
    illegal_action: str = "raise"
    """the env's ``illegal_action`` option: "raise" turns any illegal move that slipped past the mask into an error"""
    seed: int = 0
    """seed of Python, NumPy, torch, the env runners and the RLModules"""
    iterations: int = 10
    """training iterations (each samples ``train_batch_size`` env steps, then updates both policies)"""
    num_env_runners: int = 1
    """remote sampling actors (0 samples in the driver process: quickest to start)"""
    num_envs_per_env_runner: int = 4
    """environments stepped together by each env runner (batched inference: 2-4x the samples/s of 1 here)"""
    train_batch_size: int = 2000
    """env steps (plies of both seats together) sampled per iteration"""
    minibatch_size: int = 128
    """minibatch size of the PPO update"""
    num_epochs: int = 4
    """passes over each iteration's batch"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    entropy_coeff: float = 0.01
    """entropy bonus"""
    hidden_size: int = 64
    """width of the two hidden layers of the policy and value networks"""
    num_cpus: int = 2
    """CPUs that the local Ray instance may use"""


def env_creator(env_config: dict[str, Any]) -> PettingZooEnv:
    """Builds one RLlib multi-agent env: the registered mancala game in RLlib's ``PettingZooEnv``.

    Args:
        env_config: ``{"env_id": ...}`` plus any keyword of the game (``illegal_action``...).

    Returns:
        A ``MultiAgentEnv`` whose observations are the game's ``{"observation", "action_mask"}``
        dicts, given only to the agent to move (and to both at the end of the game, with the rewards).
    """
    options = dict(env_config)
    env_id = options.pop("env_id")
    return PettingZooEnv(mancala_envs.make(env_id, **options))


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO networks on the board, with the logits of illegal actions masked.

    The env's observation space is ``Dict(observation=Box(int32), action_mask=Box(int8))``.
    The networks are built for the ``observation`` Box alone; each forward pass scales it to
    [0, 1] by the Box's upper bounds and sets the logits of the actions whose mask is 0 to the
    lowest float, so sampling, greedy inference and the PPO loss all use the masked
    distribution. (After RLlib's ``ActionMaskingTorchRLModule`` example, which is not public API
    and expects the key ``observations`` rather than the game's ``observation``.)
    """

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            "observation",
            "action_mask",
        }:
            raise ValueError(
                "MaskedPPOTorchRLModule needs the mancala observation space Dict(observation=Box, "
                f"action_mask=Box); got {observation_space!r}. Build the env with env_creator()."
            )
        self.observation_space_with_mask = observation_space
        board = observation_space["observation"]
        super().__init__(observation_space=gym.spaces.Box(0.0, 1.0, board.shape, np.float32), **kwargs)
        # A torch module takes buffers only once nn.Module.__init__ ran (inside super().__init__).
        scale = torch.as_tensor(np.maximum(board.high, 1), dtype=torch.float32)
        self.register_buffer("observation_scale", scale, persistent=False)

    def setup(self) -> None:
        super().setup()  # builds the encoder and the heads for the scaled board Box
        self.observation_space = self.observation_space_with_mask

    def _split(self, batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        """A copy of the batch whose ``obs`` is the scaled board, and the action mask."""
        observation = batch[Columns.OBS]
        inner = dict(batch)
        inner[Columns.OBS] = observation["observation"].float() / self.observation_scale
        return inner, observation["action_mask"]

    @staticmethod
    def _mask(output: dict[str, Any], action_mask: torch.Tensor) -> dict[str, Any]:
        logits = output[Columns.ACTION_DIST_INPUTS]
        output[Columns.ACTION_DIST_INPUTS] = torch.where(action_mask.bool(), logits, FLOAT_MIN)
        return output

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, action_mask = self._split(batch)  # inference and exploration both come here
        return self._mask(super()._forward(inner, **kwargs), action_mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, action_mask = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), action_mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            batch, _ = self._split(batch)
        return super().compute_values(batch, embeddings)


def policy_mapping_fn(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """One policy per seat: the module of ``player_0`` is ``"player_0"``, and so on."""
    return agent_id


def build_config(args: Args) -> PPOConfig:
    """The ``PPOConfig`` of :func:`train`: two masked PPO modules, one per seat, on the local CPUs."""
    model_config = {"fcnet_hiddens": [args.hidden_size, args.hidden_size], "fcnet_activation": "tanh"}
    return (
        PPOConfig()
        .environment(
            ENV_NAME,
            env_config={"env_id": args.env_id, "illegal_action": args.illegal_action},
            # RLlib's env checker steps random actions without looking at the mask, which
            # illegal_action="raise" rejects; the package's own contract tests check the API.
            disable_env_checking=True,
        )
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)  # the PPO update runs in the driver process
        .multi_agent(policies=set(SEATS), policy_mapping_fn=policy_mapping_fn, policies_to_train=list(SEATS))
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    seat: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config) for seat in SEATS
                }
            )
        )
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.learning_rate,
            entropy_coeff=args.entropy_coeff,
        )
        .debugging(seed=args.seed)
    )


def train(args: Args) -> dict[str, Any]:
    """Trains both seats' policies for ``args.iterations`` iterations in a local Ray instance.

    Args:
        args: The run's settings.

    Returns:
        ``{"iterations", "env_steps", "episodes", "seconds", "steps_per_second",
        "episode_return_mean", "learner_stats", "history"}``. ``episode_return_mean`` maps each
        seat to its mean return over recently finished games (RLlib's ``agent_episode_returns_mean``;
        NaN while none has finished), ``learner_stats`` each policy to the figures of its last
        update (``policy_loss``, ``vf_loss``, ``entropy``, ``num_module_steps_trained_lifetime``...),
        and ``history`` holds one row per iteration.

    Raises:
        ValueError: ``args.env_id`` is not a registered game, a budget is not positive, or
            the env runners need more CPUs than ``args.num_cpus``.
    """
    if args.env_id not in mancala_envs.list_envs():
        raise ValueError(f"unknown env id {args.env_id!r}; choose one of {mancala_envs.list_envs()}.")
    if min(args.iterations, args.train_batch_size, args.minibatch_size, args.num_envs_per_env_runner) < 1:
        raise ValueError("iterations, train_batch_size, minibatch_size and num_envs_per_env_runner must be positive.")
    if args.num_env_runners + 1 > args.num_cpus:
        raise ValueError(
            f"{args.num_env_runners} env runner(s) and the driver need {args.num_env_runners + 1} CPUs "
            f"but num_cpus={args.num_cpus}; lower --num-env-runners or raise --num-cpus."
        )

    # Seeding: Python's, NumPy's and torch's global generators here; RLlib seeds each env runner's
    # environments and the modules' initial weights from ``config.debugging(seed=...)``.
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    # The learner runs in this process: one torch thread is far faster for these small MLPs on a
    # 2-core machine (about 20x for the PPO update here); Ray gives each env runner one thread.
    torch.set_num_threads(1)

    ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        if __name__ != "__main__":
            # Remote env runners unpickle MaskedPPOTorchRLModule and env_creator: send this file's code
            # along, so that they need not import it by the name it was imported under (a test's loader).
            ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        register_env(ENV_NAME, env_creator)
        algo = build_config(args).build_algo()
        history: list[dict[str, Any]] = []
        steps_before = 0
        start = time.perf_counter()
        for iteration in range(1, args.iterations + 1):
            tick = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            env_steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
            agent_returns = runners.get("agent_episode_returns_mean", {})
            row = {
                "iteration": iteration,
                "env_steps": env_steps,
                "episodes": int(runners.get("num_episodes_lifetime", 0)),
                "steps_per_second": (env_steps - steps_before) / (time.perf_counter() - tick),
                "episode_len_mean": float(runners.get("episode_len_mean", math.nan)),
                "episode_return_mean": {seat: float(agent_returns.get(seat, math.nan)) for seat in SEATS},
            }
            steps_before = env_steps
            history.append(row)
            print(
                f"iter {iteration:3d} | steps {env_steps:7d} | SPS {row['steps_per_second']:5.0f} | "
                f"episodes {row['episodes']:5d} | len {row['episode_len_mean']:6.1f} | "
                + " | ".join(f"{seat} return {value:+.2f}" for seat, value in row["episode_return_mean"].items())
            )
        seconds = time.perf_counter() - start
        learners = result.get("learners", {})
        learner_stats = {
            seat: {key: float(value) for key, value in learners.get(seat, {}).items() if isinstance(value, Real)}
            for seat in SEATS
        }
        algo.stop()
    finally:
        ray.shutdown()
    return {
        "iterations": args.iterations,
        "env_steps": history[-1]["env_steps"],
        "episodes": history[-1]["episodes"],
        "seconds": seconds,
        "steps_per_second": history[-1]["env_steps"] / seconds,
        "episode_return_mean": history[-1]["episode_return_mean"],
        "learner_stats": learner_stats,
        "history": history,
    }


if __name__ == "__main__":
    train(tyro.cli(Args))
