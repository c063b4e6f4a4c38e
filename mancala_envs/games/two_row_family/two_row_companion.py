"""The people side shared by the two-row games: positions, state checks, the board's rows and text.

The two-row rules (layout, ``params``, ``observe_two_row``) are in
:mod:`mancala_envs.games.two_row_family.two_row_rules`, which imports nothing of this module. Each
two-row game's companion module (``<game>/<game>_companion.py``) subclasses :class:`TwoRowCompanion`
and adds what is the game's own; the game's class (in ``<game>/__init__.py``) puts that companion
before the game's rules class, a :class:`~mancala_envs.games.two_row_family.two_row_rules.TwoRowGame`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mancala_envs.engine.ending import check_end, record_result, row_seeds
from mancala_envs.engine.repetition import history_clear, history_repeats, position_key
from mancala_envs.engine.state import (
    BOARD,
    END_THRESHOLD,
    FIRST_MOVE_DONE,
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
from mancala_envs.games.game import check_counts, check_int
from mancala_envs.games.two_row_family.two_row_rules import HISTORY_START, MAX_PLIES

__all__ = ["TwoRowCompanion"]


class TwoRowCompanion:
    """The people-facing methods every two-row game shares: positions, state checks, text.

    A mixin for a two-row game's companion class: it is used only before a
    :class:`~mancala_envs.games.two_row_family.two_row_rules.TwoRowGame` among a game class's bases, so its
    methods use the game's ``config``, ``params``, ``row_size`` and :class:`~mancala_envs.games.game.Game`'s
    helpers.
    """

    # --- positions -------------------------------------------------------------------------------------
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
        board_values = check_counts("board", board, self.n_pits, self.total_seeds)
        store_values = check_counts("stores", stores, 2, self.total_seeds)
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
        if (
            self.passing
            and row_seeds(board_view, int(player), self.row_size) == 0
            and row_seeds(board_view, 1 - int(player), self.row_size) > 0
        ):
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
            state,
            self.row_size,
            0,
            int(self.params[MAX_PLIES]),
            self.total_seeds,
            self.three_quarter_points,
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

    def header_ranges(self) -> dict[int, tuple[str, int, int | None]]:
        """The shared ranges, with the ply cap of a game (``max_plies``)."""
        ranges = super().header_ranges()
        ranges[PLY] = ("ply counter", 0, self.max_plies)
        return ranges

    def check_position_flags(self, board: list[int], flags: dict[str, Any]) -> int:
        """Validates the game's position flags; returns the seeds they hold off the board and stores."""
        return 0

    def apply_position_flags(self, state: np.ndarray, flags: dict[str, Any]) -> None:
        """Writes the validated position flags into a freshly loaded ``state``."""

    def layout_values(self) -> dict[str, Any]:
        """The layout's symbols: ``n`` (pits per row), ``T`` (seeds), ``max_plies``, ``match``."""
        return {"n": self.row_size, "T": self.total_seeds, "max_plies": self.max_plies, "match": self.is_match}

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
