"""The borrowed views of the compiled ply loop: same data, no reference of their own."""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from mancala_envs.engine.board_views import borrowed_view


@njit(cache=False)
def _write_through(array: np.ndarray, index: int, value: int) -> tuple:
    view = borrowed_view(array)
    view[index] = value
    return view.shape[0], view[index], view.sum()


@njit(cache=False)
def _write_through_2d(array: np.ndarray) -> int:
    view = borrowed_view(array)
    view[1, 2] = 7
    return view.shape[0] * 100 + view.shape[1]


def test_borrowed_view_reads_and_writes_the_source():
    array = np.arange(6, dtype=np.int64)
    assert _write_through(array, 4, 40) == (6, 40, 0 + 1 + 2 + 3 + 40 + 5)
    assert array.tolist() == [0, 1, 2, 3, 40, 5]


def test_borrowed_view_keeps_shape_and_strides():
    array = np.zeros((3, 4), dtype=np.int64)
    assert _write_through_2d(array) == 304
    assert array[1, 2] == 7
    assert array.sum() == 7


def test_borrowed_view_leaves_the_source_reference_count_alone():
    array = np.zeros(8, dtype=np.int64)
    before = sys.getrefcount(array)
    for _ in range(1000):
        _write_through(array, 0, 1)
    assert sys.getrefcount(array) == before
    assert array[0] == 1
