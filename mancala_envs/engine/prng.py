"""A small random generator for compiled code: Marsaglia's xorshift128.

Each generator is four 32-bit words in an ``int64`` array (every value stays
below ``2**43``, so nothing overflows), changed in place. The search agents
keep one per search; the batched games keep one per game (a row of an
``(n_games, 4)`` array), so that every game draws its own reproducible stream
whatever the batch around it.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.jit import njit

__all__ = ["MASK32", "new_words", "next_word", "uniform"]

MASK32 = 0xFFFFFFFF


@njit(cache=True, inline="always", error_model="numpy")
def next_word(words: np.ndarray) -> int:
    """The next 32-bit word of the generator ``words`` (changed in place)."""
    t = words[0]
    t ^= (t << 11) & MASK32
    t ^= t >> 8
    words[0] = words[1]
    words[1] = words[2]
    words[2] = words[3]
    w = words[3]
    w ^= w >> 19
    w ^= t
    words[3] = w
    return w


@njit(cache=True, inline="always", error_model="numpy")
def uniform(words: np.ndarray) -> float:
    """A uniform number in [0, 1) from the generator ``words``."""
    return next_word(words) / 4294967296.0


def new_words(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` generators seeded from ``rng``: an ``(count, 4)`` int64 array, no row all zero."""
    return rng.integers(1, 2**32, size=(count, 4), dtype=np.int64)
