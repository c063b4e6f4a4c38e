"""Draw one picture per game, each just after a move that captured: the README's pictures.

Every game is played from its opening by two seeded baselines (greedy against random) until a
move captures; Omweso starts instead from the worked example W2 of its rules page (a capture, two
re-sows and a relay in one turn). The picture of the position after that move is written as
``<game>.png``::

    python examples/draw_boards.py --out-dir docs/img

Needs pygame-ce and Pillow (the ``render`` extra).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.env import MancalaEnv

GAMES = tuple(mancala_envs.registration.game_names())  # every registered game: "ouril_v0", ...
#: Omweso's worked example W2: player 0's pits, then player 1's, each in its owner's frame
OMWESO_W2 = [6, 2, 0, 2, 4, 1, 1, 2, 1, 2, 0, 1, 0, 2, 1, 0] + [3, 2, 2, 3, 6, 4, 3, 2, 2, 3, 0, 1, 2, 3, 1, 2]


@dataclass
class Args:
    out_dir: str = "docs/img"
    """folder the PNG files are written to"""
    seed: int = 0
    """seed of the games played"""
    min_ply: int = 6
    """the first capture at or after this ply is pictured"""


def play_to_a_capture(env_id: str, seed: int, min_ply: int) -> MancalaEnv:
    """An env (``render_mode="rgb_array"``) just after the first capture at or after ``min_ply``.

    Raises:
        RuntimeError: the seeded game ended without such a capture.
    """
    env = mancala_envs.make(env_id, render_mode="rgb_array", first_player=0)
    if env_id.startswith("omweso"):
        env.reset(seed=seed, options={"board": OMWESO_W2, "player": 0})
        env.step(4)
        return env
    env.reset(seed=seed)
    agents = [make_agent("greedy", seed=seed), make_agent("random", seed=seed + 1)]
    for ply in range(env.game.max_episode_plies):
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        env.step(agents[int(env.agent_selection[-1])].act(env))
        move = env.infos[env.agent_selection]["last_move"]
        if ply + 1 >= min_ply and move["captures"]:
            return env
    raise RuntimeError(f"the seeded {env_id} game ended without a capture after ply {min_ply}; try another seed.")


def draw_boards(out_dir: str | Path, seed: int = 0, min_ply: int = 6) -> list[Path]:
    """Writes ``<game>.png`` for every game into ``out_dir`` and returns the paths."""
    from PIL import Image

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for env_id in GAMES:
        picture: np.ndarray = play_to_a_capture(env_id, seed, min_ply).render()
        path = folder / f"{env_id.removesuffix('_v0')}.png"
        Image.fromarray(picture).save(path, optimize=True)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=Args.out_dir)
    parser.add_argument("--seed", type=int, default=Args.seed)
    parser.add_argument("--min-ply", type=int, default=Args.min_ply)
    args = Args(**vars(parser.parse_args()))
    for path in draw_boards(args.out_dir, args.seed, args.min_ply):
        print(path)


if __name__ == "__main__":
    main()
