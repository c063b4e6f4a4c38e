"""Modiar: the Moroccan children's game of 2x3 pits (``docs/rules/modiar.md``).

The rules, in the order of the rules page:

1. **Legal pits.** The player to move picks one of their own pits holding at
   least 2 stones; a pit holding a single stone may never be moved.
2. **Sowing (origin first).** All stones of the pit are lifted; the first goes
   back into the emptied pit and the others follow counter-clockwise, one per
   pit, round the ring of 6 pits without skipping (a lap of 7 or more stones
   sows the origin again).
3. **Capture.** If the last stone makes its pit, on either side, hold 2, 4 or
   6, that pit is captured; then each preceding pit (``i - 1 mod 6``, crossing
   into the other row) holding 2, 4 or 6, stopping at any other count or before
   coming back to the landing pit. The mover keeps everything, stones from
   their own row included.
4. **First move.** The very first ply of the game captures nothing.
5. **Grand-slam ban.** A move that captures at least one stone from the
   opponent's row and leaves that row empty is illegal (decided by playing the
   move on a copy of the board).
6. **Feeding.** If the opponent's row is empty when the turn starts, only moves
   after which it is no longer empty are legal, if there is any; otherwise
   every move allowed by rules 1 and 5 is legal.
7. **End.** The game ends when the player to move has no legal move, when a
   ``(board, player to move)`` position repeats since the last capture, or at
   the ply cap; each player then adds the stones in their own pits to their
   captures.
8. **Winner.** The larger total wins (a win is worth 1 match point); 21-21 is a
   draw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.capture import chain_length, count_set, in_count_set, lift_chain
from mancala_envs.engine.ending import NO_WIN_THRESHOLD, PLAIN_WIN, check_end, end_ply, row_is_empty_at
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Feature
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.sowing import CCW, NO_CAPACITY, ORIGIN_FIRST, sow_lap
from mancala_envs.engine.state import (
    BOARD,
    FIRST_MOVE_DONE,
    LEGAL,
    OK,
    PLAYER,
    RUNNING,
    STATUS,
    STORE,
)
from mancala_envs.engine.trace import trace_clear
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

__all__ = ["ModiarConfig", "ModiarRules", "legal_bits", "observe", "reset_state", "step"]

PITS_PER_ROW = 3
STONES_PER_PIT = 7
SMALLEST_MOVE = 2  # rule 1: singletons never move
CAPTURE_COUNTS = count_set(2, 4, 6)  # rule 3: both the trigger and the chain

#: Modiar's layout: the two-row one, with a first-move flag in the observation (rule 4)
LAYOUT = TWO_ROW_LAYOUT.extended(
    observation=(
        Feature(
            "first_move", 1, "1 if the game is running and its next ply is the first (rule 4: it captures nothing)"
        ),
    ),
)


@dataclass(frozen=True)
class ModiarConfig:
    """Options of Modiar; every field is checked when the config is built.

    The rules page offers no variants of the rules themselves: 2x3 pits, 7
    stones each, are fixed.

    Attributes:
        max_plies: Ply cap; reaching it truncates the game and each player
            adds the stones in their own pits.
        repetition: End the game when a ``(board, player to move)`` position
            repeats since the last capture.
    """

    max_plies: int = 1000
    repetition: bool = True

    def __post_init__(self) -> None:
        check_int("max_plies", self.max_plies, 1, 1_000_000)
        check_bool("repetition", self.repetition)

    @property
    def total_seeds(self) -> int:
        """Stones in the game: 42."""
        return 2 * PITS_PER_ROW * STONES_PER_PIT


@njit(cache=True, inline="always", error_model="numpy")
def _sown_count(pit: int, origin: int, seeds: int, n_pits: int) -> int:
    """Rule 2: stones an origin-first lap of ``seeds`` stones from ``origin`` drops into ``pit``.

    The lap drops its stones into ``origin, origin + 1, ...`` round the ring,
    one each, so the pit ``offset`` steps after the origin gets one stone per
    lap position ``offset, offset + n_pits, ...`` below ``seeds``.
    """
    offset = (pit - origin) % n_pits
    if offset >= seeds:
        return 0
    return (seeds - 1 - offset) // n_pits + 1


@njit(cache=True, inline="always", error_model="numpy")
def _after_sowing(state: np.ndarray, pit: int, origin: int, seeds: int, n_pits: int) -> int:
    """Stones in ``pit`` after the origin-first lap of ``origin``'s ``seeds`` stones (the state is not changed)."""
    held = 0 if pit == origin else state[BOARD + pit]
    return held + _sown_count(pit, origin, seeds, n_pits)


@njit(cache=True, inline="always", error_model="numpy")
def _opponent_row_after(state: np.ndarray, player: int, local: int, row_size: int, captures: bool) -> tuple:
    """Returns the opponent's row total after a move's sowing and after its capture, without playing it.

    The lap is computed in closed form (:func:`_after_sowing`) instead of being
    sown on a copy, so testing a move allocates nothing. The capture chain
    follows rule 3 (and :func:`mancala_envs.engine.capture.chain_length` with
    ``wrap``): the landing pit, then each preceding pit round the ring, while
    the counts are 2, 4 or 6, at most the whole ring.
    """
    n_pits = 2 * row_size
    origin = player * row_size + local
    seeds = state[BOARD + origin]
    opponent_start = (1 - player) * row_size
    after_sowing = 0
    for pit in range(opponent_start, opponent_start + row_size):
        after_sowing += _after_sowing(state, pit, origin, seeds, n_pits)
    if not captures:
        return after_sowing, after_sowing
    after_capture = after_sowing
    pit = (origin + seeds - 1) % n_pits  # the landing pit
    for _ in range(n_pits):
        count = _after_sowing(state, pit, origin, seeds, n_pits)
        if not in_count_set(count, CAPTURE_COUNTS):
            break
        if opponent_start <= pit < opponent_start + row_size:
            after_capture -= count
        pit = pit - 1 if pit > 0 else n_pits - 1
    return after_sowing, after_capture


@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move: rules 1, 5 and 6, as a bit mask."""
    return _legal_bits(state, params[ROW_SIZE])


@njit(cache=True, inline="always", error_model="numpy")
def _legal_bits(state: np.ndarray, row_size: int) -> int:
    player = state[PLAYER]
    captures = state[FIRST_MOVE_DONE] == 1  # rule 4: the first ply captures nothing
    starving = row_is_empty_at(state, BOARD, 1 - player, row_size)
    allowed = 0
    feeding = 0
    for local in range(row_size):
        if state[BOARD + player * row_size + local] < SMALLEST_MOVE:  # rule 1
            continue
        after_sowing, after_capture = _opponent_row_after(state, player, local, row_size, captures)
        if after_sowing > 0 and after_capture == 0:  # rule 5: a grand slam
            continue
        allowed |= 1 << local
        if after_capture > 0:
            feeding |= 1 << local
    if starving and feeding != 0:  # rule 6; with no feeding move, every allowed move stays
        return feeding
    return allowed


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position: 7 stones in every pit, ``first_player`` to move."""
    start_match(state)
    start_game(state, 2 * params[ROW_SIZE], params[SEEDS_PER_PIT], first_player, params[HISTORY_START])
    state[LEGAL] = legal_bits(state, params)


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
    history_start = params[HISTORY_START]
    max_plies = params[MAX_PLIES]
    total = params[TOTAL_SEEDS]
    refused = refusal_code(state[STATUS], state[LEGAL], action, row_size)
    if refused != OK:
        return refused
    n_pits = 2 * row_size
    player = state[PLAYER]
    trace_clear(trace)
    # Rule 2: sow, origin first.
    landing = sow_lap(
        state,
        BOARD,
        BOARD + player * row_size + action,
        direction=CCW,
        origin_rule=ORIGIN_FIRST,
        capacity=NO_CAPACITY,
        ring_start=BOARD,
        ring_size=n_pits,
        trace=trace,
    )
    # Rules 3 and 4: capture (the chain of 2s, 4s and 6s round the whole ring), except on the very first ply.
    captured = 0
    if state[FIRST_MOVE_DONE] == 1:
        length = chain_length(
            state, landing, zone_start=BOARD, zone_size=n_pits, trigger=CAPTURE_COUNTS, chain=CAPTURE_COUNTS, wrap=True
        )
        captured = lift_chain(state, BOARD, landing, length, zone_start=BOARD, zone_size=n_pits, trace=trace)
        state[STORE + player] += captured
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
    # Rules 5-8: the next player's legal moves, then no legal move, repetition, ply cap.
    state[LEGAL] = _legal_bits(state, row_size)
    check_end(
        state,
        row_size,
        history_start=history_start,
        max_plies=max_plies,
        total_seeds=total,
        three_quarter_points=PLAIN_WIN,
    )
    return OK


@njit(cache=True, error_model="numpy")
def observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """Writes ``player``'s egocentric observation (see ``Modiar.observation_names``) and action mask."""
    observe_two_row(state, player, params[ROW_SIZE], params[MAX_PLIES], observation, mask)
    observation[2 * params[ROW_SIZE] + 5] = 1 if state[STATUS] == RUNNING and state[FIRST_MOVE_DONE] == 0 else 0


class ModiarRules(TwoRowGame):
    """Modiar's rules bound to a config: the game's declarations and its ``params``.

    The game's class, :class:`~mancala_envs.games.modiar.Modiar`, adds the people side
    (:class:`~mancala_envs.games.modiar.modiar_companion.ModiarCompanion`) to this one.

    Args:
        config: The game's options.
    """

    name = "modiar"
    version = 0
    config_class = ModiarConfig
    tables = True  # mancala_envs.algorithms.retrograde can solve its positions
    variants = (Variant("modiar", {}, "Modiar, 2x3, 7 stones per pit (T = 42)"),)

    def __init__(self, config: ModiarConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        # "forbidden": no automatic pass; a player without a legal move ends the game (rule 7).
        common = self._common_params(PITS_PER_ROW, STONES_PER_PIT, c.max_plies, c.repetition, False)
        self.params = LAYOUT.pack_params(**common)
