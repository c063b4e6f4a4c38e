"""Draw one picture per game, each just after a move that captured: the README's pictures.

Every game is played from its opening, player_0 first, along a fixed list of moves that ends with a
capture (``PICTURED_MOVES``); Omweso starts instead from the worked example W2 of its rules page (a
capture, two re-sows and a relay in one turn). The picture of the position after the last move is
written as ``<game>.png``, so this redraws ``docs/img`` exactly::

    python examples/draw_boards.py --out-dir docs/img

The moves were found once by the seeded baselines (greedy against random) playing to the first capture
from ply 6 on; they are written out so that the pictures depend only on the rules and the renderer, not
on how a baseline draws its moves. Needs pygame-ce and Pillow (the ``render`` extra).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import mancala_envs
from mancala_envs.envs.aec_env import MancalaEnv

GAMES = tuple(mancala_envs.envs.registration.game_names())  # every registered game: "ouril_v0", ...
#: Omweso's worked example W2: player 0's pits, then player 1's, each in its owner's frame
OMWESO_W2 = [6, 2, 0, 2, 4, 1, 1, 2, 1, 2, 0, 1, 0, 2, 1, 0] + [3, 2, 2, 3, 6, 4, 3, 2, 2, 3, 0, 1, 2, 3, 1, 2]
#: the actions played from each game's opening (player_0 first); the last one captures
PICTURED_MOVES: dict[str, tuple[int, ...]] = {
    "ouril_v0": (5, 2, 3, 3, 3, 5),
    "urim_v0": (5, 2, 3, 3, 2, 5, 1, 4, 4),
    "modiar_v0": (2, 1, 1, 1, 1, 2, 1, 2, 0),
    "rio_kadalis_v0": (5, 2, 4, 3, 4, 5, 3, 5, 1),  # the last move relays in three laps
    "kalah_v0": (4, 2, 3, 2, 1, 3, 4, 5, 5, 5, 3),
    "omweso_v0": (4,),  # from worked example W2
}


@dataclass
class Args:
    out_dir: str = "docs/img"
    """folder the PNG files are written to"""


def play_pictured_moves(env_id: str) -> MancalaEnv:
    """An env (``render_mode="rgb_array"``) just after the last of ``PICTURED_MOVES[env_id]``.

    Raises:
        KeyError: the game has no pictured moves (a game added to the registry needs its entry).
        RuntimeError: the last move captured nothing (the rules changed under the list).
    """
    if env_id not in PICTURED_MOVES:
        raise KeyError(
            f"{env_id!r} has no entry in PICTURED_MOVES (it has {sorted(PICTURED_MOVES)}); add the moves of its picture"
        )
    env = mancala_envs.make(env_id, render_mode="rgb_array", first_player=0, illegal_action="raise")
    if env_id.startswith("omweso"):
        env.reset(seed=0, options={"board": OMWESO_W2, "player": 0})
    else:
        env.reset(seed=0)
    for action in PICTURED_MOVES[env_id]:
        env.step(action)
    if not env.last_move["captures"]:
        raise RuntimeError(f"the last pictured move of {env_id} captured nothing; find new moves for PICTURED_MOVES")
    return env


def draw_boards(out_dir: str | Path) -> list[Path]:
    """Writes ``<game>.png`` for every game into ``out_dir`` and returns the paths."""
    from PIL import Image

    folder = Path(out_dir)
    folder.mkdir(exist_ok=True)  # only the folder named, as every command of the library
    paths = []
    for env_id in GAMES:
        picture: np.ndarray = play_pictured_moves(env_id).render()
        path = folder / f"{env_id.removesuffix('_v0')}.png"
        Image.fromarray(picture).save(path, optimize=True)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=Args.out_dir)
    args = Args(**vars(parser.parse_args()))
    for path in draw_boards(args.out_dir):
        print(path)


if __name__ == "__main__":
    main()
