"""``mancala-envs list``: the game names and every variant's PettingZoo and Gymnasium ids."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from mancala_envs.envs.registration import VARIANTS, game_names

__all__ = ["list_interrupted", "list_table", "run_list"]

#: ``mancala-envs list``'s line in ``mancala-envs --help``
LIST_HELP = "list the registered ids: PettingZoo (AEC) and Gymnasium (single-agent, vector)"


def list_table() -> str:
    """What ``mancala-envs list`` prints: the game names, then every variant's PettingZoo id (for
    :func:`mancala_envs.make` and ``pettingzoo``), its Gymnasium id (``gymnasium.make`` and
    ``gymnasium.make_vec``) and its description."""
    pettingzoo_width = max(len(variant.id) for variant in VARIANTS)
    gymnasium_width = max(len(variant.gymnasium_id) for variant in VARIANTS)
    lines = [
        "games (mancala_envs.make): " + " ".join(game_names()),
        "",
        f"{'PettingZoo AEC id':<{pettingzoo_width}}  {'Gymnasium id (make, make_vec)':<{gymnasium_width}}  description",
    ]
    lines += [
        f"{variant.id:<{pettingzoo_width}}  {variant.gymnasium_id:<{gymnasium_width}}  {variant.description}"
        for variant in VARIANTS
    ]
    return "\n".join(lines)


def run_list(args: argparse.Namespace, out: TextIO | None = None) -> str:
    """``mancala-envs list``: prints :func:`list_table`; returns it."""
    table = list_table()
    print(table, file=sys.stdout if out is None else out)
    return table


def list_interrupted(args: argparse.Namespace) -> str:
    """What ``mancala-envs list`` prints on Ctrl-C."""
    return "Interrupted"
