"""Ouril: the Cape Verdean two-row capture game (``docs/rules/ouril.md``).

The rules, in the order of the rules page:

1. **Turn.** The player to move picks a non-empty pit of their own row and sows
   its seeds counter-clockwise, one per pit, over the whole board.
2. **Origin skip.** A lap that comes round to its origin pit skips it: on every
   pass by default, or only on the first pass (``skip_origin``).
3. **Capture.** If the last seed lands in an opponent pit that now holds 2 or
   3 seeds, that pit is captured, then each preceding opponent pit holding 2
   or 3, until another count or the edge of the opponent's row.
4. **Feeding.** If the opponent's row is empty, only moves that drop a seed
   into it are legal; if there is none, the game ends and every player keeps
   the seeds on their own side.
5. **Pass.** A player left with no seeds (only after a grand slam) passes
   automatically and the opponent moves again, under rule 4.
6. **Grand slam.** A capture that empties the opponent's row stands
   (``allowed``, default), bans the move (``forbidden``) or captures nothing
   (``no_capture``).
7. **Singletons.** Free by default; ``only_if_all_singletons`` lets a single
   seed move only when every non-empty own pit is a singleton (applied before
   the feeding filter).
8. **End.** A store reaching the threshold (25 on 2x6, more than half the seeds
   in general) ends the game at once, the board left uncollected. A game with
   no legal move, a repeated position or the ply cap ends with every seed going
   to the owner of its row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mancala_envs.engine import sow_capture
from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.capture import GRAND_SLAM_ALLOWED, GRAND_SLAM_FORBIDDEN, count_set
from mancala_envs.engine.ending import PLAIN_WIN, check_end, end_ply
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Field
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.sowing import NO_CAPACITY, ORIGIN_SKIPPED, ORIGIN_SKIPPED_FIRST_CIRCUIT
from mancala_envs.engine.state import LEGAL, OK, PLAYER, RUNNING, STATUS
from mancala_envs.engine.trace import trace_clear
from mancala_envs.games.game import Variant, check_bool, check_choice, check_int
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

__all__ = ["OurilConfig", "OurilRules", "legal_bits", "observe", "reset_state", "step"]

SEEDS_PER_PIT_OURIL = 4
GRAND_SLAM_RULES = {"allowed": 0, "forbidden": 1, "no_capture": 2}
SKIP_ORIGIN_RULES = {"always": ORIGIN_SKIPPED, "first_circuit_only": ORIGIN_SKIPPED_FIRST_CIRCUIT}
SINGLETON_RULES = {"free": 0, "only_if_all_singletons": 1}
TRIGGER = count_set(2, 3)
CHAIN = count_set(2, 3)

#: Ouril's layout: the two-row one, with automatic passes and four params of its own
LAYOUT = TWO_ROW_LAYOUT.extended(
    header=("PASSES",),
    params=(
        Field("ORIGIN_RULE", "how a lap skips its origin (`skip_origin`)"),
        Field("GRAND_SLAM", "grand slams: 0 allowed, 1 forbidden, 2 allowed without capture"),
        Field("SINGLETONS_ONLY_IF_ALL", "1: a singleton moves only when every own pit holds one seed"),
        Field("WIN_THRESHOLD", "store size that wins at once"),
    ),
)
ORIGIN_RULE = LAYOUT.param("ORIGIN_RULE")
GRAND_SLAM = LAYOUT.param("GRAND_SLAM")
SINGLETONS_ONLY_IF_ALL = LAYOUT.param("SINGLETONS_ONLY_IF_ALL")
WIN_THRESHOLD = LAYOUT.param("WIN_THRESHOLD")


@dataclass(frozen=True)
class OurilConfig:
    """Options of Ouril; every field is checked when the config is built.

    Attributes:
        pits_per_row: 6 (default) or 4 (the 2x4 board for children and beginners).
        skip_origin: ``"always"`` (default): a lap skips its origin on every
            pass; ``"first_circuit_only"``: only on the first pass (the seed's
            literal reading; differs with 23 or more seeds).
        grand_slam: ``"allowed"`` (default), ``"forbidden"`` or ``"no_capture"``.
        singleton_rule: ``"free"`` (default) or ``"only_if_all_singletons"``.
        win_threshold: Store size that ends the game at once; ``None`` means
            more than half the seeds (25 on 2x6, 17 on 2x4).
        max_plies: Ply cap; reaching it truncates the game and the owners
            collect their seeds.
        repetition: End the game when a ``(board, player to move)`` position
            repeats since the last capture.
    """

    pits_per_row: int = 6
    skip_origin: str = "always"
    grand_slam: str = "allowed"
    singleton_rule: str = "free"
    win_threshold: int | None = None
    max_plies: int = 1000
    repetition: bool = True

    def __post_init__(self) -> None:
        check_choice("pits_per_row", self.pits_per_row, (6, 4))
        check_choice("skip_origin", self.skip_origin, SKIP_ORIGIN_RULES)
        check_choice("grand_slam", self.grand_slam, GRAND_SLAM_RULES)
        check_choice("singleton_rule", self.singleton_rule, SINGLETON_RULES)
        total = 2 * self.pits_per_row * SEEDS_PER_PIT_OURIL
        if self.win_threshold is not None:
            check_int("win_threshold", self.win_threshold, 1, total)
        check_int("max_plies", self.max_plies, 1, 1_000_000)
        check_bool("repetition", self.repetition)

    @property
    def total_seeds(self) -> int:
        """Seeds in the game: 48 on 2x6, 32 on 2x4."""
        return 2 * self.pits_per_row * SEEDS_PER_PIT_OURIL

    @property
    def threshold(self) -> int:
        """The store size that wins at once."""
        return self.win_threshold if self.win_threshold is not None else self.total_seeds // 2 + 1


@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move: rules 1, 7, 4 and 6, as a bit mask."""
    return sow_capture.legal_bits(
        state,
        state[PLAYER],
        params[ROW_SIZE],
        origin_rule=params[ORIGIN_RULE],
        capacity=NO_CAPACITY,
        trigger=TRIGGER,
        chain=CHAIN,
        grand_slam=params[GRAND_SLAM],
        singletons_only_if_all=params[SINGLETONS_ONLY_IF_ALL] == 1,
    )


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position: 4 seeds in every pit, ``first_player`` to move."""
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
    origin_rule = params[ORIGIN_RULE]
    grand_slam = params[GRAND_SLAM]
    singletons_only_if_all = params[SINGLETONS_ONLY_IF_ALL] == 1
    win_threshold = params[WIN_THRESHOLD]
    history_start = params[HISTORY_START]
    max_plies = params[MAX_PLIES]
    total = params[TOTAL_SEEDS]
    refused = refusal_code(state[STATUS], state[LEGAL], action, row_size)
    if refused != OK:
        return refused
    trace_clear(trace)
    # Rules 1-3 and 6: sow, capture, grand slam.
    captured = sow_capture.play_move(
        state,
        state[PLAYER],
        action,
        row_size,
        origin_rule=origin_rule,
        capacity=NO_CAPACITY,
        trigger=TRIGGER,
        chain=CHAIN,
        grand_slam=grand_slam,
        trace=trace,
    )
    # Rules 8 (threshold) and 5 (automatic pass after a grand slam).
    end_ply(
        state,
        row_size,
        action,
        captured,
        win_threshold=win_threshold,
        passing=grand_slam == GRAND_SLAM_ALLOWED,
        total_seeds=total,
        three_quarter_points=PLAIN_WIN,
    )
    if state[STATUS] == RUNNING:
        # Rules 7, 4 and 6 (the legal moves), then 4 and 8: no (feeding) move, repetition, ply cap.
        mover = state[PLAYER]
        legal = sow_capture.playable_bits(
            state, mover, row_size, capacity=NO_CAPACITY, singletons_only_if_all=singletons_only_if_all
        )
        if grand_slam == GRAND_SLAM_FORBIDDEN:
            legal = sow_capture.remove_grand_slams(
                state,
                mover,
                legal,
                row_size,
                origin_rule=origin_rule,
                capacity=NO_CAPACITY,
                trigger=TRIGGER,
                chain=CHAIN,
            )
        state[LEGAL] = legal
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
    """Writes ``player``'s egocentric observation (see ``Ouril.observation_names``) and action mask."""
    observe_two_row(state, player, params[ROW_SIZE], params[MAX_PLIES], observation, mask)


class OurilRules(TwoRowGame):
    """Ouril's rules bound to a config: the game's declarations and its ``params``.

    The game's class, :class:`~mancala_envs.games.ouril.Ouril`, adds the people side
    (:class:`~mancala_envs.games.ouril.ouril_companion.OurilCompanion`) to this one.

    Args:
        config: The game's options.
    """

    name = "ouril"
    version = 0
    config_class = OurilConfig
    tables = True  # mancala_envs.algorithms.retrograde can solve its positions
    variants = (
        Variant("ouril", {}, "Ouril, 2x6, 4 seeds per pit"),
        Variant("ouril-mini", {"pits_per_row": 4}, "Ouril on the 2x4 board for children and beginners"),
    )

    def __init__(self, config: OurilConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        self.win_threshold = c.threshold
        passing = c.grand_slam == "allowed"
        common = self._common_params(c.pits_per_row, SEEDS_PER_PIT_OURIL, c.max_plies, c.repetition, passing)
        self.params = LAYOUT.pack_params(
            **common,
            ORIGIN_RULE=SKIP_ORIGIN_RULES[c.skip_origin],
            GRAND_SLAM=GRAND_SLAM_RULES[c.grand_slam],
            SINGLETONS_ONLY_IF_ALL=SINGLETON_RULES[c.singleton_rule],
            WIN_THRESHOLD=c.threshold,
        )
