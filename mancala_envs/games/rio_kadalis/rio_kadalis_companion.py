"""Rio Kadalis's companion: what people need around the rules of
:mod:`mancala_envs.games.rio_kadalis.rio_kadalis_rules`.

The rules (config, layout, legal moves, ``step``, ``observe`` and the ``RioKadalisRules`` class
binding them to a config) are in ``rio_kadalis_rules.py``; the rules page is
``docs/rules/rio_kadalis.md``. This module holds the mixin :class:`RioKadalisCompanion`, which the
game's class (``RioKadalis`` in this folder's ``__init__.py``) puts before ``RioKadalisRules``: the
spec table (``env_doc``), ``info``, a match's position flags (closed pits, reserves), the checks of
its own state slots, and the match line of the text picture. What every two-row game shares
(position loading, state checks, the text picture) comes from
:class:`~mancala_envs.games.two_row_family.two_row_companion.TwoRowCompanion`.

The imports run one way: this module imports the rules module (as ``rules``), the
rules module imports nothing of this one, and the package's ``__init__`` binds the two into the game's
class. No import cycle, no import at the bottom of a file.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mancala_envs.engine.state import BOARD, ENDLESS, HEADER_SIZE, LAPS
from mancala_envs.games.game import check_counts, check_int
from mancala_envs.games.rio_kadalis import rio_kadalis_rules as rules
from mancala_envs.games.two_row_family.two_row_companion import TwoRowCompanion

__all__ = ["RioKadalisCompanion"]


class RioKadalisCompanion(TwoRowCompanion):
    """The people-facing side of :class:`~mancala_envs.games.rio_kadalis.RioKadalis` (a mixin: see the module doc)."""

    env_doc = """Rio Kadalis as a PettingZoo environment; the full page is ``docs/rules/rio_kadalis.md``.

| Import      | ``from mancala_envs.envs import rio_kadalis_v0``                                     |
|-------------|--------------------------------------------------------------------------------------|
| Ids         | ``mancala/rio-kadalis-v0`` (2x6), ``mancala/rio-kadalis5-v0`` (2x5),                  |
|             | ``mancala/rio-kadalis-cw-v0`` (clockwise), ``mancala/rio-kadalis-match-v0`` (match)   |
| Actions     | Discrete(n): sow own local pit k (n = 6, or 5 on 2x5)                                |
| Agents      | ``player_0``, ``player_1``                                                           |
| Observation | Dict(observation=Box(int32, (2n+5,)) (match: (4n+7,)), action_mask=Box(0, 1, (n,), int8)) |
| Rewards     | +1 win, -1 loss, 0 draw, at the end (of the round, or of the match)                  |
"""

    def info(self, state: np.ndarray) -> dict[str, Any]:
        """Adds ``endless_move``, ``laps`` (of the last turn), ``fours`` and, in a match,
        ``round``, ``reserves`` and ``closed_pits`` (global indices)."""
        values = state[: max(HEADER_SIZE, rules.FOURS + 2)].tolist()  # one conversion: Python ints are cheap to read
        info = self.header_info(values)
        info["endless_move"] = bool(values[ENDLESS])
        info["laps"] = values[LAPS]
        info["fours"] = values[rules.FOURS : rules.FOURS + 2]
        if self.is_match:
            closed = int(state[rules.CLOSED])
            info["round"] = int(state[rules.ROUND])
            info["reserves"] = state[rules.RESERVE : rules.RESERVE + 2].tolist()
            info["closed_pits"] = [pit for pit in range(self.n_pits) if (closed >> pit) & 1]
        return info

    #: in a match: ``closed`` global pits and the ``reserves`` kept off the board
    position_options: ClassVar[dict[str, str]] = {"closed": "ints", "reserves": "ints"}

    def check_position_flags(self, board: list[int], flags: dict[str, Any]) -> int:
        closed = flags.get("closed", [])
        reserves = flags.get("reserves", [0, 0])
        if not self.is_match and (closed or reserves not in ([0, 0], (0, 0))):
            raise ValueError("closed pits and reserves exist only in a match; build the env with match=True.")
        if not isinstance(closed, (list, tuple, np.ndarray)) or np.ndim(closed) != 1:
            raise ValueError(f"closed={closed!r} must be a list of global pit indices such as [0, 1].")
        pits = list(closed)
        for pit in pits:
            check_int("closed pit", pit, 0, self.n_pits - 1)
            if board[pit] != 0:
                raise ValueError(f"closed pit {pit} holds {board[pit]} seeds; a closed pit is empty.")
        if len(set(pits)) != len(pits):
            raise ValueError(f"closed={pits!r} names a pit twice.")
        return sum(check_counts("reserves", reserves, 2, self.total_seeds))  # type: ignore[arg-type]  # ints

    def apply_position_flags(self, state: np.ndarray, flags: dict[str, Any]) -> None:
        bits = 0
        for pit in flags.get("closed", []):
            bits |= 1 << int(pit)
        state[rules.CLOSED] = bits
        state[rules.RESERVE : rules.RESERVE + 2] = [int(v) for v in flags.get("reserves", (0, 0))]

    def header_ranges(self) -> dict[int, tuple[str, int, int | None]]:
        """Adds the lap cap of a turn (``max_laps_per_turn``) and the own slots: the fours won (at most
        a quarter of the seeds each), the reserves (a match's only), the round (below the round cap)."""
        ranges = super().header_ranges()
        match = self.is_match
        ranges[LAPS] = ("lap counter", 0, self.config.max_laps_per_turn)
        quarter = self.total_seeds // 4
        ranges[rules.FOURS] = ("fours", 0, quarter)
        ranges[rules.FOURS + 1] = ("fours", 0, quarter)
        ranges[rules.RESERVE] = ("reserves", 0, self.total_seeds if match else 0)
        ranges[rules.RESERVE + 1] = ("reserves", 0, self.total_seeds if match else 0)
        ranges[rules.ROUND] = ("round counter", 0, self.config.max_rounds if match else 0)
        return ranges

    def check_reachable(self, state: np.ndarray) -> None:
        """Adds the match slots to the shared checks: closed pits are real and empty, the fours at most
        a quarter of the seeds in all."""
        closed = int(state[rules.CLOSED])
        if closed < 0 or closed >> self.n_pits or (not self.is_match and closed):
            raise ValueError(
                "the state's closed-pit mask names pits that do not exist (or closes pits outside a match)."
            )
        if any(closed >> pit & 1 and state[BOARD + pit] != 0 for pit in range(self.n_pits)):
            raise ValueError("the state has a closed pit holding seeds.")
        if state[rules.FOURS : rules.FOURS + 2].sum() > self.total_seeds // 4:
            raise ValueError(
                f"the state's fours {state[rules.FOURS : rules.FOURS + 2].tolist()} hold more than the "
                f"{self.total_seeds} seeds."
            )
        super().check_reachable(state)

    def held_seeds(self, state: np.ndarray) -> int | None:
        return super().held_seeds(state) + sum(state[rules.RESERVE : rules.RESERVE + 2].tolist())  # no wrap-around

    def position_flags(self, state: np.ndarray) -> dict[str, Any]:
        if not self.is_match:
            return {}
        flags: dict[str, Any] = {}
        closed = [pit for pit in range(self.n_pits) if (int(state[rules.CLOSED]) >> pit) & 1]
        if closed:
            flags["closed"] = closed
        reserves = state[rules.RESERVE : rules.RESERVE + 2].tolist()
        if reserves != [0, 0]:
            flags["reserves"] = reserves
        return flags

    def render_text(self, state: np.ndarray) -> str:
        text = super().render_text(state)
        if self.is_match:
            closed = [pit for pit in range(self.n_pits) if (int(state[rules.CLOSED]) >> pit) & 1]
            text += (
                f"\n  round {int(state[rules.ROUND]) + 1}  closed pits {closed}  "
                f"reserves {state[rules.RESERVE : rules.RESERVE + 2].tolist()}"
            )
        return text
