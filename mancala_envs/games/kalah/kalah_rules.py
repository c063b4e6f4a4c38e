"""Kalah: the two-row game whose stores take part in the sowing (docs/rules/kalah.md).

The rules, in the order of the rules page and of :func:`step`:

1. **Move.** The player to move picks a non-empty pit of their own row, lifts
   every seed and sows them one by one counter-clockwise into the following
   pits, passing through their **own store** (after their last pit) and
   skipping the opponent's store. Long laps go round again; the emptied origin
   pit is sown like any other pit.
2. **Extra turn.** If the last seed falls into the mover's own store, the same
   player moves again (unless rule 4 ends the game).
3. **Capture.** If the last seed falls into an empty pit of the mover's own row
   (which now holds 1) and the opposite pit is not empty, the opposite pit's
   seeds and the landing seed go to the mover's store. Opposite an empty pit
   nothing is taken, unless ``empty_capture=True``, which stores the landing
   seed alone.
4. **End.** After every move (captures and extra turns included), if either
   row is empty the game ends and each player adds the seeds left in their own
   row to their own store. The larger store wins; equal stores are a draw.
5. **Ply cap.** ``max_plies`` plies truncate the game, the owners collecting
   their rows. There is no repetition rule: seeds only move forward and the
   stores only grow, so a Kalah position cannot recur.

Board indexing is the two-row global order (``mancala_envs.games.two_row_family.two_row_rules``);
the stores are the ``STORE`` slots, not board pits. In the trace of a ply
(``infos["last_move"]["sown"]``) a seed dropped into player ``p``'s store is
recorded as pit ``2n + p`` (12 and 13 on 2x6), the slot the store has after the
board in the sowing ring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.ending import (
    NO_WIN_THRESHOLD,
    PLAIN_WIN,
    check_end,
    end_ply,
    end_reason_code,
    finish_game,
    game_end_reasons,
    row_seeds_at,
)
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Field
from mancala_envs.engine.repetition import NO_HISTORY
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.state import (
    BOARD,
    LEGAL,
    OK,
    PLAYER,
    RUNNING,
    STATUS,
    STORE,
    TERMINATED,
)
from mancala_envs.engine.trace import trace_capture, trace_clear, trace_sow
from mancala_envs.games.game import Variant, check_bool, check_int
from mancala_envs.games.two_row_family.two_row_rules import (
    HISTORY_START,
    MAX_PLIES,
    ROW_SIZE,
    SEEDS_PER_PIT,
    TOTAL_SEEDS,
    TWO_ROW_LAYOUT,
    TwoRowGame,
    observe_two_row,
)

#: Kalah's own end reason, "row_empty": a row is empty after a move, and each player takes the seeds of their own row
END_REASONS = game_end_reasons("row_empty")
END_ROW_EMPTY = end_reason_code(END_REASONS, "row_empty")

__all__ = [
    "EMPTY_CAPTURE",
    "PITS_PER_ROW_RANGE",
    "SEEDS_PER_PIT_RANGE",
    "KalahConfig",
    "KalahRules",
    "capture_opposite",
    "end_if_row_empty",
    "legal_bits",
    "observe",
    "reset_state",
    "sow_with_store",
    "step",
    "store_pit",
]

#: ``pits_per_row`` and ``seeds_per_pit`` allowed (inclusive): the literature's Kalah(m, n) grid, m 1-8, n 1-6
PITS_PER_ROW_RANGE = (1, 8)
SEEDS_PER_PIT_RANGE = (1, 6)

#: Kalah's layout: the two-row one, with one param of its own
LAYOUT = TWO_ROW_LAYOUT.extended(
    params=(
        Field("EMPTY_CAPTURE", "1: a last seed in an empty own pit opposite an empty pit is stored anyway (rule 3)"),
    ),
)
EMPTY_CAPTURE = LAYOUT.param("EMPTY_CAPTURE")


@dataclass(frozen=True)
class KalahConfig:
    """Options of Kalah; every field is checked when the config is built.

    Attributes:
        pits_per_row: Pits in each player's row, 1 to 8 (default 6), ``m`` in the literature's
            Kalah(m, n). With one pit a row, sowing goes own pit -> own store -> the opponent's pit ->
            own pit -> ...
        seeds_per_pit: Seeds in every pit at the start, 1 to 6 (default 4), ``n`` in Kalah(m, n).
            The ranges cover the grid Irving, Donkers and Uiterwijk solved ("Solving Kalah", 2000).
        empty_capture: ``False`` (default): a last seed in an empty own pit
            opposite an empty pit captures nothing; ``True``: that single seed
            goes to the mover's store.
        max_plies: Ply cap; reaching it truncates the game and each player
            adds the seeds in their own row to their store.
    """

    pits_per_row: int = 6
    seeds_per_pit: int = 4
    empty_capture: bool = False
    max_plies: int = 1000

    def __post_init__(self) -> None:
        check_int("pits_per_row", self.pits_per_row, *PITS_PER_ROW_RANGE)
        check_int("seeds_per_pit", self.seeds_per_pit, *SEEDS_PER_PIT_RANGE)
        check_bool("empty_capture", self.empty_capture)
        check_int("max_plies", self.max_plies, 1, 1_000_000)

    @property
    def total_seeds(self) -> int:
        """Seeds in the game, ``T = 2 * pits_per_row * seeds_per_pit`` (48 by default)."""
        return 2 * self.pits_per_row * self.seeds_per_pit


@njit(cache=True, inline="always", error_model="numpy")
def store_pit(player: int, row_size: int) -> int:
    """The number standing for ``player``'s store in the sowing ring and the trace: ``2n + player``."""
    return 2 * row_size + player


@njit(cache=True, inline="always", error_model="numpy")
def _own_pit_bits(state: np.ndarray, player: int, row_size: int) -> int:
    """The non-empty pits of ``player``'s row as a bit mask (bit ``k``: local pit ``k``)."""
    row_start = BOARD + player * row_size
    bits = 0
    for local in range(row_size):
        if state[np.uint64(row_start + local)] > 0:
            bits |= 1 << local
    return bits


@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move (rule 1): their non-empty pits, as a bit mask."""
    return _own_pit_bits(state, state[PLAYER], params[ROW_SIZE])


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position: ``seeds_per_pit`` in every pit, empty stores, ``first_player`` to move."""
    start_match(state)
    start_game(state, 2 * params[ROW_SIZE], params[SEEDS_PER_PIT], first_player, params[HISTORY_START])
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, inline="always", error_model="numpy")
def sow_with_store(state: np.ndarray, mover: int, origin: int, row_size: int, trace: np.ndarray) -> int:
    """Rule 1: lifts the seeds of global pit ``origin`` and sows them round the mover's ring.

    The ring is the mover's row, the mover's store, the opponent's row, and back
    (the opponent's store is not in it). The emptied origin is sown like any pit.

    Args:
        state: The game state, changed in place (board and the mover's store).
        mover: The player sowing, 0 or 1.
        origin: The global pit lifted (in the mover's row, non-empty).
        row_size: Pits per row, ``n``.
        trace: Buffer recording each place that received a seed (zero length: no record).

    Returns:
        Where the last seed fell: a global pit, or :func:`store_pit` ``(mover)`` for the mover's store.
    """
    n_pits = 2 * row_size
    own_store = store_pit(mover, row_size)
    last_own = mover * row_size + row_size - 1
    after_store = (last_own + 1) % n_pits  # the opponent's first pit
    # Slots are indexed unsigned (never negative): numba adds no negative-index wraparound per seed.
    seeds = state[np.uint64(BOARD + origin)]
    state[np.uint64(BOARD + origin)] = 0
    place = origin
    while seeds > 0:
        if place == last_own:
            place = own_store
            state[np.uint64(STORE + mover)] += 1
        else:
            if place == own_store:
                place = after_store
            elif place == n_pits - 1:
                place = 0  # past the opponent's store, which is not sown
            else:
                place += 1
            state[np.uint64(BOARD + place)] += 1
        trace_sow(trace, place)
        seeds -= 1
    return place


@njit(cache=True, inline="always", error_model="numpy")
def capture_opposite(
    state: np.ndarray, mover: int, landing: int, row_size: int, empty_capture: bool, trace: np.ndarray
) -> int:
    """Rule 3: the capture after a lap whose last seed fell at ``landing``.

    If ``landing`` is a pit of the mover's row that now holds exactly 1 seed,
    the opposite pit (global ``2n - 1 - landing``) is emptied into the mover's
    store together with the landing seed; opposite an empty pit this happens
    only with ``empty_capture``. The trace records ``(landing, 1)`` first, then
    ``(opposite, seeds)`` if the opposite pit held any.

    Returns:
        The seeds moved to the store (0 if nothing was captured).
    """
    first_own = mover * row_size
    if landing < first_own or landing >= first_own + row_size or state[np.uint64(BOARD + landing)] != 1:
        return 0
    opposite = 2 * row_size - 1 - landing
    taken = state[np.uint64(BOARD + opposite)]
    if taken == 0 and not empty_capture:
        return 0
    state[np.uint64(BOARD + landing)] = 0
    state[np.uint64(BOARD + opposite)] = 0
    state[np.uint64(STORE + mover)] += taken + 1
    trace_capture(trace, landing, 1)
    if taken > 0:
        trace_capture(trace, opposite, taken)
    return taken + 1


@njit(cache=True, inline="always", error_model="numpy")
def end_if_row_empty(state: np.ndarray, row_size: int, total_seeds: int) -> None:
    """Rule 4: if either row is empty, the owners collect their rows and the game ends (``row_empty``)."""
    if row_seeds_at(state, BOARD, 0, row_size) == 0 or row_seeds_at(state, BOARD, 1, row_size) == 0:
        finish_game(state, row_size, TERMINATED, END_ROW_EMPTY, total_seeds, three_quarter_points=PLAIN_WIN)


@njit(cache=True, inline="always", error_model="numpy")
def step(state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """Plays ``action`` (the mover's local pit) and advances the game.

    Returns:
        ``OK``, or ``ILLEGAL`` / ``GAME_OVER`` with the state unchanged.
    """
    # Borrowed views of the arguments: the ply counts no references (mancala_envs.engine.board_views).
    state, params, trace = borrowed_view(state), borrowed_view(params), borrowed_view(trace)
    # The options are read first (docs/architecture.md, "Performance notes for rules modules").
    row_size = params[ROW_SIZE]
    empty_capture = params[EMPTY_CAPTURE] == 1
    max_plies = params[MAX_PLIES]
    total = params[TOTAL_SEEDS]
    refused = refusal_code(state[STATUS], state[LEGAL], action, row_size)
    if refused != OK:
        return refused
    trace_clear(trace)
    mover = state[PLAYER]
    # Rules 1 and 3: sow round the mover's ring, then the capture opposite the landing pit.
    landing = sow_with_store(state, mover, mover * row_size + action, row_size, trace)
    captured = capture_opposite(state, mover, landing, row_size, empty_capture, trace)
    # Ply count and the turn passes to the opponent, unless rule 2 gives the mover another move.
    end_ply(
        state,
        row_size,
        action,
        captured,
        win_threshold=NO_WIN_THRESHOLD,
        passing=False,
        total_seeds=total,
        three_quarter_points=PLAIN_WIN,
    )
    if landing == store_pit(mover, row_size):
        state[PLAYER] = mover
    # Rule 4 (an empty row ends the game, extra turn or not), then rule 5 (the ply cap).
    end_if_row_empty(state, row_size, total)
    if state[STATUS] == RUNNING:
        state[LEGAL] = _own_pit_bits(state, state[PLAYER], row_size)
        check_end(
            state,
            row_size,
            history_start=NO_HISTORY,
            max_plies=max_plies,
            total_seeds=total,
            three_quarter_points=PLAIN_WIN,
        )
    return OK


@njit(cache=True, error_model="numpy")
def observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """Writes ``player``'s egocentric observation (see ``Kalah.observation_names``) and action mask."""
    observe_two_row(state, player, params[ROW_SIZE], params[MAX_PLIES], observation, mask)


class KalahRules(TwoRowGame):
    """Kalah's rules bound to a config: the game's declarations and its ``params``.

    The game's class, :class:`~mancala_envs.games.kalah.Kalah`, adds the people side
    (:class:`~mancala_envs.games.kalah.kalah_companion.KalahCompanion`) to this one.

    Args:
        config: The game's options.
    """

    name = "kalah"
    version = 0
    config_class = KalahConfig
    tables = True  # mancala_envs.algorithms.retrograde can solve its positions
    acyclic = True  # a seed-keeping move only moves seeds forward in the mover's row: no position recurs
    table_ignores = ("seeds_per_pit",)  # a table holds boards of any count: one serves every starting count
    end_reasons: ClassVar[dict[int, str]] = END_REASONS
    variants = (
        Variant("kalah", {}, "Kalah, 2x6, 4 seeds per pit, stores in the lap, extra turns (OpenSpiel's mancala)"),
        Variant("kalah-6x6", {"seeds_per_pit": 6}, "Kalah(6,6): 2x6, 6 seeds per pit (T = 72)"),
        Variant(
            "kalah-empty-capture",
            {"empty_capture": True},
            "Kalah where a last seed in an empty own pit is stored even opposite an empty pit",
        ),
    )

    def __init__(self, config: KalahConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        # No repetition history (a position cannot recur) and no automatic pass (an empty row ends the game).
        common = self._common_params(c.pits_per_row, c.seeds_per_pit, c.max_plies, False, False)
        self.params = LAYOUT.pack_params(**common, EMPTY_CAPTURE=1 if c.empty_capture else 0)
