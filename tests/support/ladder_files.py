"""Ladders made by hand, without a game played: a valid tiny Kalah ladder and its file, for the refusal tests
(``tests/doors/test_ladder_doors.py``, ``tests/support/contract_doors/ladder.py``) and the command line's tests."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from mancala_envs.analysis.ladder import AnchorRating, Ladder, PairRecord

#: the tiny Kalah variant the ladders rate
TINY = {"pits_per_row": 3, "seeds_per_pit": 3}
TINY_CONFIG = {"pits_per_row": 3, "seeds_per_pit": 3, "empty_capture": False, "max_plies": 1000}
TINY_OPTIONS = ["--option", "pits_per_row=3", "--option", "seeds_per_pit=3"]


def tiny_ladder() -> Ladder:
    """A valid ladder of the tiny Kalah: random 0, greedy 100 [20, 180], 8 games per pair."""
    return Ladder(
        game="kalah_v0",
        game_options=dict(TINY),
        config=dict(TINY_CONFIG),
        anchors=[AnchorRating("random", 0.0, 0.0, 0.0), AnchorRating("greedy", 100.0, 20.0, 180.0)],
        pairs=[PairRecord("random", "greedy", 2, 1, 5)],
        games_per_pair=8,
        seed=0,
        covariance=[[0.0, 0.0], [0.0, 1666.0]],
        command="mancala-envs ladder --build --game kalah --games-per-pair 8 --anchors random greedy",
    )


def tiny_data(**changes: Any) -> dict[str, Any]:
    """The tiny ladder's JSON data with top-level entries changed."""
    return {**tiny_ladder().to_dict(), **changes}


def write_ladder(folder: Path, data: Any = None, name: str = "ladder.json") -> Path:
    """``data`` (default the tiny ladder's) written as JSON in ``folder``; text is written as it is."""
    path = folder / name
    if isinstance(data, (str, bytes)):
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    else:
        path.write_text(json.dumps(tiny_data() if data is None else data), encoding="utf-8")
    return path


def ladder_folder() -> Path:
    """A new folder holding the tiny ladder as ``ladder.json`` (the contract matrix removes it after the case)."""
    folder = Path(tempfile.mkdtemp(prefix="contract-ladder-"))
    write_ladder(folder)
    return folder
