"""Urim: the two-row capture game of Brava, Cape Verde (``docs/rules/urim.md``).

The rules, in the order of the rules page:

1. **Turn.** The player to move picks a non-empty pit of their own row
   (singletons allowed) and lifts its seeds.
2. **Sowing.** One seed per pit counter-clockwise, starting with the next pit.
   Skipped pits take no seed: the origin, on every pass, and any pit already
   holding 17 seeds (the pit capacity), so no pit ever holds more than 17.
3. **Capture trigger.** The last seed lands in an opponent pit and makes it
   exactly 2 or 3 (a final 4 captures nothing).
4. **Capture chain.** Then each preceding opponent pit holding 2, 3 or 4 is
   captured, until another count or the edge of the opponent's row.
5. **Grand slam.** A capture that would empty the opponent's row captures
   nothing (``no_capture``, default), bans the move (``forbidden``) or stands
   (``allowed``; the victim then passes and the capturer must feed).
6. **Feeding.** If the opponent's row is empty, only moves that drop a seed
   into it are legal (checked by simulating the lap, skips included).
7. **End.** No legal move (the opponent is empty and cannot be fed), a repeated
   position since the last capture, or the ply cap: every seed on the board
   goes to the owner of its row.
8. **Score.** More than half the seeds wins; match points are 2 for at least
   three quarters of the seeds (``ceil(3T/4)``), 1 for more than half, else 0.
9. **Match.** With ``match_target`` set, an episode is a match: games follow
   one another (the starting player alternating) until a player has
   ``match_target`` match points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mancala_envs.engine import sow_capture
from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.capture import GRAND_SLAM_ALLOWED, GRAND_SLAM_FORBIDDEN, count_set
from mancala_envs.engine.ending import NO_WIN_THRESHOLD, check_end, close_match_game, end_ply
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Feature, Field
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.sowing import NO_CAPACITY, ORIGIN_SKIPPED
from mancala_envs.engine.state import LEGAL, MATCH, OK, PLAYER, RUNNING, STARTER, STATUS
from mancala_envs.engine.trace import trace_clear
from mancala_envs.games.game import Variant, check_bool, check_choice, check_count_set, check_int
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

__all__ = ["UrimConfig", "UrimRules", "game_over", "legal_bits", "observe", "reset_state", "step"]

GRAND_SLAM_RULES = {"allowed": 0, "forbidden": 1, "no_capture": 2}

#: Urim's layout: the two-row one, with automatic passes, seven params of its own and, in a match, the
#: match points in the observation
LAYOUT = TWO_ROW_LAYOUT.extended(
    header=("PASSES",),
    params=(
        Field("CAPACITY", "the pit capacity (`pit_capacity`; 0: none)"),
        Field("TRIGGER", "bit set of the counts that capture (`trigger`)"),
        Field("CHAIN", "bit set of the counts that continue a capture (`chain`)"),
        Field("GRAND_SLAM", "grand slams: 0 allowed, 1 forbidden, 2 allowed without capture"),
        Field("THREE_QUARTER_POINTS", "match points for three quarters of the seeds"),
        Field("MATCH_TARGET", "match points that end a match; 0: one game per episode"),
        Field("MAX_GAMES", "game cap of a match (truncation)"),
    ),
    observation=(
        Feature("own_match_points", "match_top", "match points the agent has won", when="match"),
        Feature("opponent_match_points", "match_top", "match points the opponent has won", when="match"),
    ),
    symbols={
        "match": "an episode is a match (`match_target` set)",
        "match_top": "`match_target + max(points_three_quarters, 1) − 1`, the most points a player can hold",
    },
)
CAPACITY = LAYOUT.param("CAPACITY")
TRIGGER = LAYOUT.param("TRIGGER")
CHAIN = LAYOUT.param("CHAIN")
GRAND_SLAM = LAYOUT.param("GRAND_SLAM")
THREE_QUARTER_POINTS = LAYOUT.param("THREE_QUARTER_POINTS")
MATCH_TARGET = LAYOUT.param("MATCH_TARGET")
MAX_GAMES = LAYOUT.param("MAX_GAMES")


@dataclass(frozen=True)
class UrimConfig:
    """Options of Urim; every field is checked when the config is built.

    Attributes:
        pits_per_row: 6 (default) or 7.
        seeds_per_pit: 3 (default, the seed text: T = 36 or 42) or 4 (T = 48 or
            56, the Mancala World reading).
        pit_capacity: Pits holding this many seeds are skipped while sowing
            (default 17); ``None`` removes the limit.
        trigger: Counts that the last seed must make to start a capture
            (default ``(2, 3)``).
        chain: Counts that extend the capture chain backwards (default
            ``(2, 3, 4)``).
        grand_slam: ``"no_capture"`` (default), ``"forbidden"`` or ``"allowed"``.
        points_three_quarters: Match points for at least three quarters of the
            seeds (default 2).
        match_target: ``None`` (default): one game per episode. An integer makes
            an episode a match played until a player has that many points.
        max_games: Game cap of a match (truncation); used with ``match_target``.
        max_plies: Ply cap of a game; reaching it truncates the game (in a
            match, the game is settled and the match goes on).
        repetition: End the game when a ``(board, player to move)`` position
            repeats since the last capture.
    """

    pits_per_row: int = 6
    seeds_per_pit: int = 3
    pit_capacity: int | None = 17
    trigger: tuple[int, ...] = (2, 3)
    chain: tuple[int, ...] = (2, 3, 4)
    grand_slam: str = "no_capture"
    points_three_quarters: int = 2
    match_target: int | None = None
    max_games: int = 100
    max_plies: int = 1000
    repetition: bool = True

    def __post_init__(self) -> None:
        check_choice("pits_per_row", self.pits_per_row, (6, 7))
        check_choice("seeds_per_pit", self.seeds_per_pit, (3, 4))
        total = self.total_seeds
        if self.pit_capacity is not None:
            check_int("pit_capacity", self.pit_capacity, 1, 1000)
            if self.pit_capacity * (2 * self.pits_per_row - 1) <= total:
                raise ValueError(
                    f"pit_capacity={self.pit_capacity!r} is too small: the other "
                    f"{2 * self.pits_per_row - 1} pits could not hold the {total} seeds; "
                    f"use at least {total // (2 * self.pits_per_row - 1) + 1} or None."
                )
        check_count_set("trigger", self.trigger)
        check_count_set("chain", self.chain)
        object.__setattr__(self, "trigger", tuple(int(c) for c in self.trigger))
        object.__setattr__(self, "chain", tuple(int(c) for c in self.chain))
        check_choice("grand_slam", self.grand_slam, GRAND_SLAM_RULES)
        check_int("points_three_quarters", self.points_three_quarters, 1, 12)
        if self.match_target is not None:
            check_int("match_target", self.match_target, 1, 1000)
        check_int("max_games", self.max_games, 1, 100_000)
        check_int("max_plies", self.max_plies, 1, 1_000_000)
        check_bool("repetition", self.repetition)

    @property
    def total_seeds(self) -> int:
        """Seeds in the game, T = 2 * pits_per_row * seeds_per_pit."""
        return 2 * self.pits_per_row * self.seeds_per_pit


@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move: rules 1, 6 and 5, as a bit mask."""
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    return sow_capture.legal_bits(
        state,
        state[PLAYER],
        params[ROW_SIZE],
        origin_rule=ORIGIN_SKIPPED,
        capacity=params[CAPACITY],
        trigger=params[TRIGGER],
        chain=params[CHAIN],
        grand_slam=params[GRAND_SLAM],
        singletons_only_if_all=False,
    )


@njit(cache=True, error_model="numpy")
def _start_game(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    start_game(state, 2 * params[ROW_SIZE], params[SEEDS_PER_PIT], first_player, params[HISTORY_START])
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position (and a new match), ``first_player`` to move."""
    start_match(state)
    _start_game(state, params, first_player)


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
    capacity = params[CAPACITY]
    trigger = params[TRIGGER]
    chain = params[CHAIN]
    grand_slam = params[GRAND_SLAM]
    history_start = params[HISTORY_START]
    max_plies = params[MAX_PLIES]
    total = params[TOTAL_SEEDS]
    points = params[THREE_QUARTER_POINTS]
    match = params[MATCH_TARGET] > 0
    refused = refusal_code(state[STATUS], state[LEGAL], action, row_size)
    if refused != OK:
        return refused
    trace_clear(trace)
    # Rules 1-5: sow with skips, trigger, chain, grand slam.
    captured = sow_capture.play_move(
        state,
        state[PLAYER],
        action,
        row_size,
        origin_rule=ORIGIN_SKIPPED,
        capacity=capacity,
        trigger=trigger,
        chain=chain,
        grand_slam=grand_slam,
        trace=trace,
    )
    end_ply(
        state,
        row_size,
        action,
        captured,
        win_threshold=NO_WIN_THRESHOLD,
        passing=grand_slam == GRAND_SLAM_ALLOWED,
        total_seeds=total,
        three_quarter_points=points,
    )
    # Rules 6-7: the next player's legal moves, then the end checks.
    mover = state[PLAYER]
    legal = sow_capture.playable_bits(state, mover, row_size, capacity=capacity, singletons_only_if_all=False)
    if grand_slam == GRAND_SLAM_FORBIDDEN:
        legal = sow_capture.remove_grand_slams(
            state, mover, legal, row_size, origin_rule=ORIGIN_SKIPPED, capacity=capacity, trigger=trigger, chain=chain
        )
    state[LEGAL] = legal
    check_end(
        state,
        row_size,
        history_start=history_start,
        max_plies=max_plies,
        total_seeds=total,
        three_quarter_points=points,
    )
    if match:
        game_over(state, params)
    return OK


@njit(cache=True, error_model="numpy")
def game_over(state: np.ndarray, params: np.ndarray) -> None:
    """Rule 9: in a match, a finished game is scored and the next one starts."""
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    if (
        state[STATUS] != RUNNING
        and params[MATCH_TARGET] > 0
        and close_match_game(state, params[MATCH_TARGET], params[MAX_GAMES])
    ):
        _start_game(state, params, 1 - state[STARTER])


@njit(cache=True, error_model="numpy")
def observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """Writes ``player``'s egocentric observation (see ``Urim.observation_names``) and action mask."""
    observe_two_row(state, player, params[ROW_SIZE], params[MAX_PLIES], observation, mask)
    if params[MATCH_TARGET] > 0:
        extra = 2 * params[ROW_SIZE] + 5
        observation[extra] = state[MATCH + player]
        observation[extra + 1] = state[MATCH + 1 - player]


class UrimRules(TwoRowGame):
    """Urim's rules bound to a config: the game's declarations and its ``params``.

    The game's class, :class:`~mancala_envs.games.urim.Urim`, adds the people side
    (:class:`~mancala_envs.games.urim.urim_companion.UrimCompanion`) to this one.

    Args:
        config: The game's options.
    """

    name = "urim"
    version = 0
    config_class = UrimConfig
    tables = True  # mancala_envs.algorithms.retrograde can solve its positions
    variants = (
        Variant("urim", {}, "Urim, 2x6, 3 seeds per pit (T = 36)"),
        Variant("urim7", {"pits_per_row": 7}, "Urim on the 2x7 board, 3 seeds per pit (T = 42)"),
        Variant("urim48", {"seeds_per_pit": 4}, "Urim with 4 seeds per pit (T = 48, the Mancala World reading)"),
        Variant("urim-match", {"match_target": 10}, "Urim match: games until a player has 10 match points"),
    )

    def __init__(self, config: UrimConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        self.three_quarter_points = c.points_three_quarters
        passing = c.grand_slam == "allowed"
        common = self._common_params(c.pits_per_row, c.seeds_per_pit, c.max_plies, c.repetition, passing)
        self.params = LAYOUT.pack_params(
            **common,
            CAPACITY=c.pit_capacity or NO_CAPACITY,
            TRIGGER=count_set(*c.trigger),
            CHAIN=count_set(*c.chain),
            GRAND_SLAM=GRAND_SLAM_RULES[c.grand_slam],
            THREE_QUARTER_POINTS=c.points_three_quarters,
            MATCH_TARGET=c.match_target or 0,
            MAX_GAMES=c.max_games,
        )

    @property
    def is_match(self) -> bool:
        return self.config.match_target is not None

    @property
    def max_episode_plies(self) -> int:
        return self.max_plies * (self.config.max_games if self.is_match else 1)
