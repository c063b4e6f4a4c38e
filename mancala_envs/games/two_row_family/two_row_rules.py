"""The rules side shared by the two-row store games: board indexing, layout, ``params``, observation.

The people side they share (positions, state checks, text) is in
:mod:`mancala_envs.games.two_row_family.two_row_companion` (which imports this module, never
the other way round).

Board indexing (``docs/architecture.md``, Common conventions), for ``n`` pits per row::

            P1 local: n-1 ...  1    0
    top row  global: 2n-1 ... n+1   n
    bottom   global:   0  ...  n-2  n-1
            P0 local:  0  ...  n-2  n-1

Player ``p`` owns global pits ``p*n .. p*n + n - 1``; action ``k`` sows the
player's local pit ``k`` (global ``p*n + k``). Sowing is counter-clockwise,
``i -> i + 1 mod 2n``.

Every two-row game's layout (:mod:`mancala_envs.engine.layout`) extends
``TWO_ROW_LAYOUT`` below: the first ``params`` entries and observation entries
are the same in every game, and each game appends its own.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.ending import PLAIN_WIN
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Feature, Field, Layout
from mancala_envs.engine.repetition import key_fits
from mancala_envs.engine.state import (
    BOARD,
    HEADER_SIZE,
    LEGAL,
    PLAYER,
    PLY,
    RUNNING,
    STATUS,
    STORE,
)
from mancala_envs.games.game import Game

__all__ = [
    "HISTORY_START",
    "MAX_PLIES",
    "ROW_SIZE",
    "SEEDS_PER_PIT",
    "TOTAL_SEEDS",
    "TWO_ROW_LAYOUT",
    "TwoRowGame",
    "observe_two_row",
]

#: the layout every two-row game starts from: the shared header slots they use, the first ``params``
#: entries and the first observation entries; each game extends it (``TWO_ROW_LAYOUT.extended(...)``)
TWO_ROW_LAYOUT = Layout(
    header=(
        "PLAYER",
        "PLY",
        "STATUS",
        "END_REASON",
        "WINNER",
        "LEGAL",
        "STORE",
        "SCORE",
        "POINTS",
        "MATCH",
        "GAMES_PLAYED",
        "STARTER",
        "LAST_ACTION",
        "HISTORY_LEN",
        "FIRST_MOVE_DONE",
        "HISTORY_FILTER",
    ),
    params=(
        Field("ROW_SIZE", "pits per row, n"),
        Field("SEEDS_PER_PIT", "seeds in each pit at the start"),
        Field("TOTAL_SEEDS", "seeds in the game, T = 2n × seeds per pit"),
        Field("MAX_PLIES", "ply cap of a game (truncation)"),
        Field("HISTORY_START", "first state slot of the repetition history; 0 when `repetition=False`"),
    ),
    observation=(
        Feature("own_pit_{k}", "T", "seeds in the agent's local pit `k` (global `p·n + k`)", count="n"),
        Feature("opponent_pit_{k}", "T", "seeds in the opponent's local pit `k` (global `(1−p)·n + k`)", count="n"),
        Feature("own_store", "T", "seeds in the agent's store: what it has taken in this game"),
        Feature("opponent_store", "T", "seeds in the opponent's store"),
        Feature("is_to_move", 1, "1 if the game is running and it is this agent's turn"),
        Feature("must_feed", 1, "1 if it is this agent's turn and the opponent's row is empty"),
        Feature("ply", "max_plies", "plies (agent decisions) played in the current game, capped at `max_plies`"),
    ),
    symbols={"n": "pits per row", "T": "seeds in the game", "max_plies": "the ply cap (`max_plies`)"},
)
ROW_SIZE = TWO_ROW_LAYOUT.param("ROW_SIZE")
SEEDS_PER_PIT = TWO_ROW_LAYOUT.param("SEEDS_PER_PIT")
TOTAL_SEEDS = TWO_ROW_LAYOUT.param("TOTAL_SEEDS")
MAX_PLIES = TWO_ROW_LAYOUT.param("MAX_PLIES")
HISTORY_START = TWO_ROW_LAYOUT.param("HISTORY_START")


@njit(cache=True, error_model="numpy")
def observe_two_row(
    state: np.ndarray, player: int, row_size: int, max_plies: int, observation: np.ndarray, mask: np.ndarray
) -> None:
    """Writes ``player``'s egocentric observation (see ``TwoRowGame.observation_names``) and mask."""
    n = row_size
    opponent_seeds = 0
    for i in range(2 * n):
        seeds = state[BOARD + (player * n + i) % (2 * n)]
        observation[i] = seeds
        if i >= n:
            opponent_seeds += seeds
    observation[2 * n] = state[STORE + player]
    observation[2 * n + 1] = state[STORE + 1 - player]
    to_move = state[STATUS] == RUNNING and state[PLAYER] == player
    observation[2 * n + 2] = 1 if to_move else 0
    observation[2 * n + 3] = 1 if to_move and opponent_seeds == 0 else 0
    observation[2 * n + 4] = min(state[PLY], max_plies)
    legal = state[LEGAL] if to_move else 0
    for action in range(n):
        mask[action] = (legal >> action) & 1


class TwoRowGame(Game):
    """A two-row game with one store per player (rules side; each game adds its companion mixin)."""

    row_size: int
    seeds_per_pit: int
    #: match points for three quarters of the seeds, or ``PLAIN_WIN`` (a win is 1 point)
    three_quarter_points: int = PLAIN_WIN
    #: store size that ends the game at once (0: none)
    win_threshold: int = 0
    #: a player left without seeds passes automatically (grand slam allowed)
    passing: bool = False

    def _common_params(
        self, row_size: int, seeds_per_pit: int, max_plies: int, repetition: bool, passing: bool
    ) -> dict[str, int]:
        """Sets the shared attributes and returns the shared ``params`` entries by name.

        ``passing``: a player left without seeds passes automatically (Ouril rule 5,
        used when grand slams are allowed).
        """
        if repetition and not key_fits(2 * row_size * seeds_per_pit, 2 * row_size):
            raise ValueError("repetition keys do not fit this board; set repetition=False.")
        self.passing = passing
        self.row_size = row_size
        self.seeds_per_pit = seeds_per_pit
        self.n_pits = 2 * row_size
        self.n_actions = row_size
        self.total_seeds = 2 * row_size * seeds_per_pit
        self.max_plies = max_plies
        history_start = HEADER_SIZE + self.n_pits if repetition else 0
        self._state_size = HEADER_SIZE + self.n_pits + (max_plies + 2 if repetition else 0)
        return {
            "ROW_SIZE": row_size,
            "SEEDS_PER_PIT": seeds_per_pit,
            "TOTAL_SEEDS": self.total_seeds,
            "MAX_PLIES": max_plies,
            "HISTORY_START": history_start,
        }

    @property
    def state_size(self) -> int:
        return self._state_size

    @property
    def history_start(self) -> int:
        """First state slot of the repetition history; 0 when ``repetition=False``."""
        return int(self.params[HISTORY_START])
