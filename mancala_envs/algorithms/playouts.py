"""Random playouts' pieces: the uniformly random legal action of a legal-move bitmask, and what random play saw.

:func:`legal_action_at` picks the legal action a uniform draw selects (the compiled random agent, the batch's
random play and the playouts of :mod:`mancala_envs.algorithms.tree_search`); :class:`RolloutStats` is the one
result type of random play (:func:`mancala_envs.envs.batch.play_random`).

The greedy rule lives in :mod:`mancala_envs.algorithms.greedy`; ``greedy_action`` and ``greedy_gains`` stay
importable from here for the old path ``mancala_envs.rollout`` (which warns) until 0.3.0.
"""

from __future__ import annotations

from dataclasses import dataclass

from mancala_envs.algorithms.greedy import greedy_action, greedy_gains  # noqa: F401  (the old path, see above)
from mancala_envs.engine.jit import njit

__all__ = ["RolloutStats", "legal_action_at"]


@njit(cache=True, inline="always", error_model="numpy")
def _count_bits(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True, inline="always", error_model="numpy")
def _set_bit(bits: int, pick: int) -> int:
    """The index of the ``pick``-th (from 0) set bit of ``bits``, which has more than ``pick`` set bits."""
    action = 0
    while True:
        if bits & 1:
            if pick == 0:
                return action
            pick -= 1
        bits >>= 1
        action += 1


@njit(cache=True, error_model="numpy")
def legal_action_at(legal: int, draw: float) -> int:
    """The legal action that a uniform ``draw`` in [0, 1) selects: the ``int(draw * count)``-th set bit
    of ``legal`` (-1 if no bit is set)."""
    count = _count_bits(legal)
    if count == 0:
        return -1
    return _set_bit(legal, min(int(draw * count), count - 1))


@dataclass(frozen=True)
class RolloutStats:
    """What random play saw (:func:`mancala_envs.envs.batch.play_random`, ``BatchedGames.play_random``).

    Attributes:
        games: Games played.
        plies: Agent decisions over all games.
        wins: Games won by player 0 and by player 1.
        draws: Drawn games.
        truncated: Games ended by a cap (``max_plies``/``max_games``).
        longest: Plies in the longest game.
    """

    games: int
    plies: int
    wins: tuple[int, int]
    draws: int
    truncated: int
    longest: int
