"""The board, observation and text picture shared by the two-row store games.

Board indexing (``docs/architecture.md``, Common conventions), for ``n`` pits per row::

            P1 local: n-1 ...  1    0
    top row  global: 2n-1 ... n+1   n
    bottom   global:   0  ...  n-2  n-1
            P0 local:  0  ...  n-2  n-1

Player ``p`` owns global pits ``p*n .. p*n + n - 1``; action ``k`` sows the
player's local pit ``k`` (global ``p*n + k``). Sowing is counter-clockwise,
``i -> i + 1 mod 2n``.

The first ``PARAM_COMMON`` entries of every two-row game's ``params`` array
have the meanings below; the games append their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from mancala_envs.engine.ending import PLAIN_WIN, check_end, record_result, row_seeds
from mancala_envs.engine.repetition import history_clear, history_repeats, key_fits, position_key
from mancala_envs.engine.state import (
    BOARD,
    END_THRESHOLD,
    FIRST_MOVE_DONE,
    HEADER_SIZE,
    HISTORY_FILTER,
    HISTORY_LEN,
    LEGAL,
    PASSES,
    PLAYER,
    PLY,
    RUNNING,
    STATUS,
    STORE,
    TERMINATED,
)
from mancala_envs.games.base import Game, check_counts, check_int

__all__ = [
    "HISTORY_START",
    "MAX_PLIES",
    "PARAM_COMMON",
    "ROW_SIZE",
    "SEEDS_PER_PIT",
    "TOTAL_SEEDS",
    "TwoRowGame",
    "observe_two_row",
]

ROW_SIZE = 0  # pits per row, n
SEEDS_PER_PIT = 1  # seeds in each pit at the start
TOTAL_SEEDS = 2  # T = 2 * n * seeds_per_pit
MAX_PLIES = 3  # ply cap (truncation)
HISTORY_START = 4  # first state slot of the repetition history, 0 when the rule is off
PARAM_COMMON = 5


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
    """A two-row game with one store per player."""

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
    ) -> list[int]:
        """Sets the shared attributes and returns the shared ``params`` entries.

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
        return [row_size, seeds_per_pit, self.total_seeds, max_plies, history_start]

    @property
    def state_size(self) -> int:
        return self._state_size

    @property
    def history_start(self) -> int:
        """First state slot of the repetition history; 0 when ``repetition=False``."""
        return int(self.params[HISTORY_START])

    def load_position(
        self,
        state: np.ndarray,
        board: Sequence[int],
        stores: Sequence[int] = (0, 0),
        player: int = 0,
        **flags: Any,
    ) -> None:
        """Replaces the game in ``state`` by an arbitrary mid-game position.

        The position counts as reached after the first ply (rules about the
        very first move no longer apply, unless a game's flag says otherwise)
        and starts a fresh repetition memory. If the player to move has no
        legal move, the game ends at once, as it would at the start of that turn.

        Args:
            state: The state to overwrite (it is left untouched on error).
            board: Seeds per pit in global index order (``2 * pits_per_row`` values).
            stores: Seeds already captured by player 0 and player 1.
            player: The player to move, 0 or 1.
            **flags: The game's own position flags (``position_options``).

        Raises:
            ValueError: wrong length, negative counts, a seed total other than
                the config's, a bad player or flag.
            TypeError: a flag this game does not have.
        """
        unknown = sorted(set(flags) - set(self.position_options))
        if unknown:
            raise TypeError(
                f"{self.name} positions have no flag {', '.join(map(repr, unknown))}; "
                f"the flags are {sorted(self.position_options) or 'none'}."
            )
        board_values = check_counts("board", board, self.n_pits)
        store_values = check_counts("stores", stores, 2)
        check_int("player", player, 0, 1)
        held_elsewhere = self.check_position_flags(board_values, flags)
        total = sum(board_values) + sum(store_values) + held_elsewhere
        if total != self.total_seeds:
            raise ValueError(
                f"the position holds {total} seeds but this config has {self.total_seeds}; "
                "board plus stores must add up to the config's seed total."
            )
        self.reset_state(state, int(player))
        board_view = state[BOARD : BOARD + self.n_pits]
        board_view[:] = board_values
        state[STORE : STORE + 2] = store_values
        state[FIRST_MOVE_DONE] = 1
        self.apply_position_flags(state, flags)
        if self.passing and row_seeds(board_view, int(player), self.row_size) == 0:
            if row_seeds(board_view, 1 - int(player), self.row_size) > 0:
                state[PLAYER] = 1 - int(player)  # rule 5: a player without seeds passes
                state[PASSES] = 1
        history_start = int(self.params[HISTORY_START])
        history_clear(state)
        if history_start > 0:
            history_repeats(state, history_start, position_key(board_view, int(state[PLAYER])))
        state[LEGAL] = self.legal_bits(state)
        if self.win_threshold > 0 and max(store_values) >= self.win_threshold:
            record_result(state, TERMINATED, END_THRESHOLD, self.total_seeds, self.three_quarter_points)
        check_end(
            state, self.row_size, 0, int(self.params[MAX_PLIES]),
            self.total_seeds, self.three_quarter_points,
        )
        if state[STATUS] != RUNNING and self.game_over_function is not None:
            self.game_over_function(state, self.params)

    def check_history(self, state: np.ndarray) -> None:
        """The repetition memory: a length within its slots, non-negative keys, and the matching filter."""
        history_start = int(self.params[HISTORY_START])
        length = int(state[HISTORY_LEN])
        capacity = self.state_size - history_start if history_start > 0 else 0
        if not 0 <= length <= capacity:
            raise ValueError(f"the state's repetition history length {length} is outside 0..{capacity}.")
        keys = state[history_start : history_start + length] if length else state[:0]
        if (keys < 0).any():
            raise ValueError("the state's repetition history holds a negative key.")
        expected = 0
        for key in keys.tolist():
            expected |= 1 << (key % 61)
        if int(state[HISTORY_FILTER]) != expected:
            raise ValueError("the state's repetition filter does not match its history.")

    def check_position_flags(self, board: list[int], flags: dict[str, Any]) -> int:
        """Validates the game's position flags; returns the seeds they hold off the board and stores."""
        return 0

    def apply_position_flags(self, state: np.ndarray, flags: dict[str, Any]) -> None:
        """Writes the validated position flags into a freshly loaded ``state``."""

    # --- observation ----------------------------------------------------------------
    def observation_names(self) -> list[str]:
        n = self.row_size
        return (
            [f"own_pit_{k}" for k in range(n)]
            + [f"opponent_pit_{k}" for k in range(n)]
            + ["own_store", "opponent_store", "is_to_move", "must_feed", "ply"]
            + [name for name, _ in self.extra_features()]
        )

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.row_size
        extra_high = [high for _, high in self.extra_features()]
        size = 2 * n + 5 + len(extra_high)
        low = np.zeros(size, dtype=np.int32)
        high = np.empty(size, dtype=np.int32)
        high[: 2 * n + 2] = self.total_seeds
        high[2 * n + 2] = 1
        high[2 * n + 3] = 1
        high[2 * n + 4] = self.max_plies
        high[2 * n + 5 :] = extra_high
        return low, high

    def extra_features(self) -> list[tuple[str, int]]:
        """Names and upper bounds of the game's own observation entries, appended after the
        shared ones (none by default; Modiar's first-move flag, match tallies, closed pits...)."""
        return []

    # --- pictures --------------------------------------------------------------------
    def board_rows(self) -> list[list[int]]:
        n = self.row_size
        return [list(range(2 * n - 1, n - 1, -1)), list(range(n))]

    def played_pit(self, player: int, action: int) -> int:
        return player * self.row_size + action

    def render_text(self, state: np.ndarray) -> str:
        n = self.row_size
        board = state[BOARD : BOARD + 2 * n]
        top = " ".join(f"{int(board[pit]):3d}" for pit in range(2 * n - 1, n - 1, -1))
        bottom = " ".join(f"{int(board[pit]):3d}" for pit in range(n))
        top_index = " ".join(f"{pit:3d}" for pit in range(2 * n - 1, n - 1, -1))
        bottom_index = " ".join(f"{pit:3d}" for pit in range(n))
        if state[STATUS] == RUNNING:
            status = f"player_{int(state[PLAYER])} to move"
            legal = [a for a in range(self.n_actions) if (int(state[LEGAL]) >> a) & 1]
            status += f", legal actions {legal}"
        else:
            info = self.info(state)
            result = "draw" if info["winner"] is None else f"player_{info['winner']} wins"
            status = f"game over ({info['end_reason']}): {result}"
        lines = [
            f"{self.env_name}  ply {int(state[PLY])}  {status}",
            f"  pit        {top_index}",
            f"  player_1 [ {top} ]  store {int(state[STORE + 1])}",
            f"  player_0 [ {bottom} ]  store {int(state[STORE])}",
            f"  pit        {bottom_index}",
        ]
        return "\n".join(lines)
