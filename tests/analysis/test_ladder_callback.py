"""``LadderCallback``: the learner placed on the ladder during training, its rating logged as ``ladder/rating``,
``ladder/low`` and ``ladder/high``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure

from mancala_envs.analysis.ladder import LadderError, place_agent
from mancala_envs.analysis.ladder_callback import LadderCallback
from mancala_envs.views.single_agent_env import SingleAgentEnv

from support.ladder_files import TINY, tiny_ladder, write_ladder


def lowest_pit_model() -> MaskablePPO:
    """A policy whose logits are its bias (3, 2, 1): it always plays its lowest legal pit."""
    model = MaskablePPO(
        "MlpPolicy", SingleAgentEnv("kalah_v0", **TINY), n_steps=16, batch_size=16, seed=0, device="cpu"
    )
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.copy_(torch.tensor([3.0, 2.0, 1.0]))
    return model


def test_the_callback_logs_the_learners_placement(tmp_path: Path) -> None:
    model = lowest_pit_model()
    logger = configure(str(tmp_path), ["json"])
    model.set_logger(logger)
    callback = LadderCallback(every=100, game="kalah", games_per_anchor=4, seed=2, ladder=tiny_ladder(), **TINY)
    callback.init_callback(model)
    try:
        placement = callback.place()
    finally:
        logger.close()

    def lowest_legal(game, state):
        return int(game.legal_actions(state)[0])

    expected = place_agent(lowest_legal, "kalah", games_per_anchor=4, seed=2, ladder=tiny_ladder(), regret=False,
                           **TINY)  # fmt: skip
    assert placement.scores == expected.scores and placement.rating == expected.rating
    assert placement.agent == "learner" and callback.placements == 1 and callback.last_placement is placement
    logged = json.loads((tmp_path / "progress.json").read_text(encoding="utf-8").splitlines()[-1])
    low, high = placement.interval
    assert logged["ladder/rating"] == pytest.approx(placement.elo)
    assert (logged["ladder/low"], logged["ladder/high"]) == (pytest.approx(low), pytest.approx(high))


def test_the_callback_reads_a_ladder_file_and_refuses_another_games(tmp_path: Path) -> None:
    path = write_ladder(tmp_path)
    assert LadderCallback(game="kalah", ladder=str(path), **TINY).ladder == tiny_ladder()
    with pytest.raises(LadderError, match=r"rates kalah_v0 with .* not ouril_v0 with"):
        LadderCallback(game="ouril", ladder=str(path))
    with pytest.raises(ValueError, match=r"^every must be an integer >= 1 \(got 0\)\.$"):
        LadderCallback(every=0, game="kalah", ladder=tiny_ladder(), **TINY)
