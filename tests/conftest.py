"""Test-session settings (pygame windows go to SDL's dummy video driver: no display needed) and shared fixtures."""

import os
from pathlib import Path

import pytest

from mancala_envs.single_agent import SingleAgentEnv

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture(scope="session")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MaskablePPO trained for one update (16 steps) on the raw int32 observation of Ouril, saved as m.zip
    (the saved model that the opponent and agent tests load)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy",
        SingleAgentEnv("ouril_v0", opponent="random"),
        n_steps=16,
        batch_size=16,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )
    model.learn(16)
    path = tmp_path_factory.mktemp("model") / "m.zip"
    model.save(path)
    return path
