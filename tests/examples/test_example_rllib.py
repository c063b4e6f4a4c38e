"""examples/rllib_multiagent.py: the masked PPO module, and one tiny training iteration (needs the rllib extra)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import mancala_envs

# Ray pins gymnasium exactly, so the rllib extra lives in its own venv (.ci/run builds one and runs this file).
RLLIB_EXTRA = "needs the rllib extra, in its own venv: pip install 'mancala-envs[rllib]'"
pytest.importorskip("ray.rllib", reason=RLLIB_EXTRA)
tyro = pytest.importorskip("tyro", reason=RLLIB_EXTRA)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_multiagent.py"

# Ray and RLlib warn on import and while building (deprecations, the new API stack notice...);
# the repo turns warnings into errors, so these tests let them through.
pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_rllib_multiagent", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_module_never_samples_a_masked_action(example: ModuleType) -> None:
    import torch
    from ray.rllib.core.columns import Columns

    env = mancala_envs.make("mancala/omweso-v0")
    module = example.MaskedPPOTorchRLModule(
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"fcnet_hiddens": [16], "fcnet_activation": "tanh"},
    )
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    batch = {
        Columns.OBS: {
            "observation": torch.as_tensor(np.stack([observation["observation"]] * 64)),
            "action_mask": torch.as_tensor(np.stack([observation["action_mask"]] * 64)),
        }
    }
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        actions = torch.distributions.Categorical(logits=logits).sample().numpy()
        assert observation["action_mask"][actions].all(), forward.__name__
    values = module.compute_values(dict(batch))
    assert values.shape == (64,) and torch.isfinite(values).all()


def test_train_runs_one_tiny_iteration_for_both_seats(example: ModuleType) -> None:
    args = example.Args(
        env_id="mancala/modiar-v0",  # short games, so a tiny batch holds finished ones
        iterations=1,
        num_env_runners=1,  # a remote actor, as by default: it must unpickle the module and the env creator
        num_envs_per_env_runner=2,
        train_batch_size=256,
        minibatch_size=64,
        num_epochs=1,
        hidden_size=16,
    )
    figures = example.train(args)

    assert figures["iterations"] == 1 and len(figures["history"]) == 1
    assert figures["env_steps"] >= args.train_batch_size
    assert figures["episodes"] > 0 and figures["steps_per_second"] > 0
    returns = figures["episode_return_mean"]
    assert set(returns) == {"player_0", "player_1"}
    # Zero-sum with rewards +1/-1/0 at the end (an illegal move would have raised instead).
    assert all(-1 <= value <= 1 for value in returns.values())
    assert math.isclose(returns["player_0"] + returns["player_1"], 0.0, abs_tol=1e-9)
    for seat in ("player_0", "player_1"):
        stats = figures["learner_stats"][seat]
        assert stats["num_module_steps_trained_lifetime"] > 0, seat
        assert math.isfinite(stats["policy_loss"]) and math.isfinite(stats["vf_loss"]), seat
        assert stats["entropy"] > 0, seat


def test_train_rejects_an_unknown_env_id(example: ModuleType) -> None:
    with pytest.raises(ValueError, match="unknown env id"):
        example.train(example.Args(env_id="mancala/chess-v0"))


def test_args_come_from_the_command_line(example: ModuleType) -> None:
    args = tyro.cli(example.Args, args=["--env-id", "mancala/omweso-v0", "--iterations", "3", "--num-env-runners", "0"])
    assert (args.env_id, args.iterations, args.num_env_runners, args.illegal_action) == (
        "mancala/omweso-v0",
        3,
        0,
        "raise",
    )
