"""The ``planes`` board comes from the game's declared rows (``Game.board_rows``), never from its pit count."""

from __future__ import annotations

import re

import pytest

from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.wrappers.encodings import PlanesEncoder, board_cells


def drawn_cell(side: str, k: int, n: int, four_rows: bool) -> tuple[int, int]:
    """The cell of pit ``k`` of ``side`` as the module docstring draws it (two rows, or Omweso's 4 x 8)."""
    if four_rows:
        if side == "own":
            return (3, k) if k < 8 else (2, 15 - k)
        return (0, 7 - k) if k < 8 else (1, k - 8)
    return (1, k) if side == "own" else (0, n - 1 - k)


@pytest.mark.parametrize("env_id", [variant.id for variant in VARIANTS])
def test_every_variants_planes_board_is_the_drawn_board(env_id: str) -> None:
    game = make_game(env_id)
    n = sum(re.fullmatch(r"own_pit_\d+", name) is not None for name in game.observation_names())
    four_rows = len(game.board_rows()) == 4
    shape, cells = board_cells(game, n)
    assert shape == ((4, 8) if four_rows else (2, n))
    assert cells == {(side, k): drawn_cell(side, k, n, four_rows) for side in ("own", "opponent") for k in range(n)}
    assert PlanesEncoder(game, cap=2).space.shape[1:] == shape


class ThreeRows:
    """A game whose rows are a 3 x 2 board: the planes follow its declaration, whatever its pit count."""

    def board_rows(self) -> list[list[int]]:
        return [[5, 4], [3, 2], [0, 1]]


def test_the_board_is_the_declared_rows_not_a_guess_from_the_pit_count() -> None:
    shape, cells = board_cells(ThreeRows(), 3)
    assert shape == (3, 2)
    assert cells == {
        ("own", 0): (2, 0),
        ("own", 1): (2, 1),
        ("own", 2): (1, 1),
        ("opponent", 0): (1, 0),
        ("opponent", 1): (0, 1),
        ("opponent", 2): (0, 0),
    }


@pytest.mark.parametrize(
    "rows", [[[3, 2], [0, 1]], [[5, 4, 3], [0, 1]], [[5, 4, 3], [0, 1, 1]]], ids=["missing", "ragged", "twice"]
)
def test_rows_that_are_not_a_full_board_are_refused(rows: list[list[int]]) -> None:
    class Broken:
        def board_rows(self) -> list[list[int]]:
            return rows

    with pytest.raises(
        ValueError,
        match=r"Broken.board_rows\(\) must give rows of equal length that hold each of "
        r"the 6 pits 0..5 once .*declare the rows as the picture draws them",
    ):
        board_cells(Broken(), 3)
