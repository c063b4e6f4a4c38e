"""Small AlphaZero weights for the tests: an untrained network with seeded random weights, exported into a
temporary folder (never the package's or the user's)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from mancala_envs.agents.alphazero import AlphaZeroNetwork, encoded_width, export_alphazero
from mancala_envs.games.game import Game


def tiny_network(game: Game, seed: int = 0, hidden: tuple[int, ...] = (16, 16)) -> AlphaZeroNetwork:
    """A policy-value network for ``game`` (one-hot encoding) with seeded random float32 weights."""
    rng = np.random.default_rng(seed)
    widths = [encoded_width("one_hot", game), *hidden]
    trunk = [
        (rng.normal(0, 0.3, (out, width)).astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32))
        for width, out in itertools.pairwise(widths)
    ]
    policy = (rng.normal(0, 0.3, (game.n_actions, widths[-1])).astype(np.float32), np.zeros(game.n_actions, np.float32))
    value = (rng.normal(0, 0.3, (1, widths[-1])).astype(np.float32), np.zeros(1, np.float32))
    return AlphaZeroNetwork(trunk, policy, value, "ReLU", game, "one_hot")


def write_tiny_weights(folder: Path, game: Game, seed: int = 0) -> Path:
    """Exports :func:`tiny_network` into ``folder`` (with its manifest entry); returns the file."""
    return export_alphazero(tiny_network(game, seed), folder, {"seed": str(seed)})
