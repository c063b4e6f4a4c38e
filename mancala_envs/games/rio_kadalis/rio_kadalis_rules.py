"""Rio Kadalis: the Somali and Ethiopian relay game of fours (``docs/rules/rio_kadalis.md``).

The rules, in the order of the rules page:

1. **Turn.** The player to move picks any non-empty (open) pit of their own row
   (singletons allowed) and lifts its seeds.
2. **Lap.** One seed per pit in the playing direction (counter-clockwise by
   default, ``direction="cw"`` for clockwise), starting with the next pit,
   with **no origin skip**. Closed pits (match mode) are skipped.
3. **En-passant fours.** A *non-last* seed that makes a pit hold exactly 4
   gives those 4 seeds to the owner of the row the pit is in, at once
   (``four_timing="immediate"``, default) or when the lap is over, among the
   pits the lap sowed except the last (``"end_of_lap"``).
4. **Last seed.** Making 4: *binikh*, the mover captures the 4 (whichever row)
   and the turn ends. Into an empty pit (it now holds 1): the turn ends.
   Otherwise the pit is lifted and sown as the next lap (relay).
5. **Endless turn.** An in-turn state ``(board, pit about to be lifted,
   direction)`` that repeats, or more than ``max_laps_per_turn`` laps, makes the
   turn endless: the round ends at once and every seed on the board goes to
   the owner of its row (``end_reason="endless_move"``).
6. **End of round.** The player to move has no seeds in their row: the round
   ends and the seeds left on the board go to the owners of their rows. A
   ``(board, player to move)`` position repeated since the last capture, or
   the ply cap, end the round the same way.
7. **Round result.** More seeds (captures plus leftovers) wins; 24-24 is a
   draw. The groups of four, ``floor(S / 4)``, are reported as ``fours``.
8. **Match** (``match=True``). After each round every player refills their own
   pits with 4 seeds each, from their rightmost pit leftwards, as far as their
   seeds allow; the other pits are closed (skipped and not playable) until
   their owner can fill them again, and the remaining seeds stay in reserve.
   Starters alternate. A player who cannot fill a single pit loses the match
   (``"cannot_refill"``); ``max_rounds`` rounds truncate it (``"max_rounds"``).

Captured seeds are kept in the ``STORE`` slots (there are no stores on the
board); in a match the reserves are in ``RESERVE`` and the closed pits in the
bit mask ``CLOSED`` (bit ``i`` = global pit ``i``).
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
    set_winner,
)
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Feature, Field
from mancala_envs.engine.relay import GROUPS_END_OF_LAP, GROUPS_IMMEDIATE, TURN_ENDLESS, relay_turn
from mancala_envs.engine.repetition import history_clear, history_repeats, position_key
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.sowing import CCW, CW
from mancala_envs.engine.state import (
    BOARD,
    END_ENDLESS_MOVE,
    END_NO_FEEDING_MOVE,
    END_NO_LEGAL_MOVE,
    END_REASON,
    ENDLESS,
    GAMES_PLAYED,
    LAPS,
    LEGAL,
    MATCH,
    OK,
    PLAYER,
    POINTS,
    RUNNING,
    SCORE,
    STARTER,
    STATUS,
    STORE,
    TERMINATED,
    TRUNCATED,
    WINNER,
)
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

#: Rio Kadalis's own end reasons (a match's end): "max_rounds", the round cap truncated a match;
#: "cannot_refill", a player could not fill a single pit for the next round (match lost)
END_REASONS = game_end_reasons("max_rounds", "cannot_refill")
END_MAX_ROUNDS = end_reason_code(END_REASONS, "max_rounds")
END_CANNOT_REFILL = end_reason_code(END_REASONS, "cannot_refill")

__all__ = [
    "CLOSED",
    "FOURS",
    "LAYOUT",
    "RESERVE",
    "ROUND",
    "RioKadalisConfig",
    "RioKadalisRules",
    "game_over",
    "legal_bits",
    "observe",
    "reset_state",
    "step",
]

SEEDS_PER_PIT_RIO_KADALIS = 4
FOUR = 4  # the count that makes a group (en passant) or a binikh (last seed)
DIRECTIONS = {"ccw": CCW, "cw": CW}
FOUR_TIMINGS = {"immediate": GROUPS_IMMEDIATE, "end_of_lap": GROUPS_END_OF_LAP}
ROUND_STARTERS = {"alternate": 0}

#: Rio Kadalis's layout: the two-row one, with the relay slots, four header slots of its own (the fours,
#: and a match's reserves, closed pits and round), five params, and a match's closed pits and reserves
#: in the observation
LAYOUT = TWO_ROW_LAYOUT.extended(
    header=("LAPS", "ENDLESS"),
    slots=(
        Field("FOURS", "groups of four seeds won by P0 and P1 in the last round", size=2),
        Field("RESERVE", "seeds P0 and P1 keep off the board between rounds (match)", size=2),
        Field("CLOSED", "bit `i` set: global pit `i` is closed (match)"),
        Field("ROUND", "rounds finished in the current match"),
    ),
    params=(
        Field("DIRECTION", "sowing direction: counter-clockwise or clockwise (`direction`)"),
        Field("FOUR_TIMING", "when en-passant fours are taken (`four_timing`)"),
        Field("MAX_LAPS", "lap cap of a turn (`max_laps_per_turn`)"),
        Field("MATCH_MODE", "1: an episode is a match of rounds"),
        Field("MAX_ROUNDS", "round cap of a match (truncation)"),
    ),
    observation=(
        Feature("own_pit_{k}_closed", 1, "1 if the agent's local pit `k` is closed", count="n", when="match"),
        Feature("opponent_pit_{k}_closed", 1, "1 if the opponent's local pit `k` is closed", count="n", when="match"),
        Feature("own_reserve", "T", "seeds the agent keeps in reserve", when="match"),
        Feature("opponent_reserve", "T", "seeds the opponent keeps in reserve", when="match"),
    ),
    symbols={"match": "an episode is a match of rounds (`match=True`)"},
)
FOURS = LAYOUT.slot("FOURS")
RESERVE = LAYOUT.slot("RESERVE")
CLOSED = LAYOUT.slot("CLOSED")
ROUND = LAYOUT.slot("ROUND")
DIRECTION = LAYOUT.param("DIRECTION")
FOUR_TIMING = LAYOUT.param("FOUR_TIMING")
MAX_LAPS = LAYOUT.param("MAX_LAPS")
MATCH_MODE = LAYOUT.param("MATCH_MODE")
MAX_ROUNDS = LAYOUT.param("MAX_ROUNDS")


@dataclass(frozen=True)
class RioKadalisConfig:
    """Options of Rio Kadalis; every field is checked when the config is built.

    Attributes:
        pits_per_row: 6 (default, T = 48) or 5 (Habr Awal, T = 40).
        direction: ``"ccw"`` (default) or ``"cw"`` (some Somali communities).
        four_timing: ``"immediate"`` (default): a non-last seed making 4 is
            captured at once; ``"end_of_lap"``: the fours are taken when the lap
            is over, among the pits it sowed except the last (Ludii).
        match: ``False`` (default): an episode is one round. ``True``: rounds
            with refilling and closed pits until a player cannot fill a pit.
        round_starter: Who starts the next round of a match: ``"alternate"``.
        max_rounds: Round cap of a match (truncation).
        max_laps_per_turn: Lap cap of a turn; a longer turn is endless.
        max_plies: Ply cap of a round; reaching it truncates the round (in a
            match the round is settled and the match goes on).
        repetition: End the round when a ``(board, player to move)`` position
            repeats since the last capture.
    """

    pits_per_row: int = 6
    direction: str = "ccw"
    four_timing: str = "immediate"
    match: bool = False
    round_starter: str = "alternate"
    max_rounds: int = 50
    max_laps_per_turn: int = 2000
    max_plies: int = 1000
    repetition: bool = True

    def __post_init__(self) -> None:
        check_choice("pits_per_row", self.pits_per_row, (6, 5))
        check_choice("direction", self.direction, DIRECTIONS)
        check_choice("four_timing", self.four_timing, FOUR_TIMINGS)
        check_bool("match", self.match)
        check_choice("round_starter", self.round_starter, ROUND_STARTERS)
        check_int("max_rounds", self.max_rounds, 1, 100_000)
        check_int("max_laps_per_turn", self.max_laps_per_turn, 1, 100_000)
        check_int("max_plies", self.max_plies, 1, 1_000_000)
        check_bool("repetition", self.repetition)

    @property
    def total_seeds(self) -> int:
        """Seeds in the game: 48 on 2x6, 40 on 2x5."""
        return 2 * self.pits_per_row * SEEDS_PER_PIT_RIO_KADALIS


# --- rule 1: legal moves ---------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move (rule 1): every non-empty open pit of their row."""
    return _legal_bits(state, params[ROW_SIZE])


@njit(cache=True, inline="always", error_model="numpy")
def _legal_bits(state: np.ndarray, row_size: int) -> int:
    row_start = state[PLAYER] * row_size
    closed = state[CLOSED]
    bits = 0
    for local in range(row_size):
        pit = row_start + local
        if state[BOARD + pit] > 0 and (closed >> pit) & 1 == 0:
            bits |= 1 << local
    return bits


# --- setup -------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _start_round(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    start_game(state, 2 * params[ROW_SIZE], params[SEEDS_PER_PIT], first_player, params[HISTORY_START])
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the opening position (and a new match): 4 seeds in every pit, ``first_player`` to move."""
    start_match(state)
    state[ROUND] = 0
    state[CLOSED] = 0
    state[LAPS] = 0
    state[ENDLESS] = 0
    for player in range(2):
        state[RESERVE + player] = 0
        state[FOURS + player] = 0
    _start_round(state, params, first_player)


# --- rules 1-6: one turn -----------------------------------------------------------------------------
@njit(cache=True, inline="always", error_model="numpy")
def step(state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """Plays ``action`` (the mover's local pit) as one whole relay turn and advances the game.

    Returns:
        ``OK``, or ``ILLEGAL`` / ``GAME_OVER`` with the state unchanged.
    """
    # Borrowed views of the arguments: the ply counts no references (mancala_envs.engine.board_views).
    state, params, trace = borrowed_view(state), borrowed_view(params), borrowed_view(trace)
    # The options are read first (docs/architecture.md, "Performance notes for rules modules").
    row_size = params[ROW_SIZE]
    direction = params[DIRECTION]
    four_timing = params[FOUR_TIMING]
    max_laps = params[MAX_LAPS]
    history_start = params[HISTORY_START]
    max_plies = params[MAX_PLIES]
    total = params[TOTAL_SEEDS]
    refused = refusal_code(state[STATUS], state[LEGAL], action, row_size)
    if refused != OK:
        return refused
    n_pits = 2 * row_size
    mover = state[PLAYER]
    trace_clear(trace)
    # Rules 2-5: relay laps with en-passant fours and binikh (into the STORE slots), or an endless turn.
    taken_before = state[STORE] + state[STORE + 1]
    laps, outcome = relay_turn(
        state,
        BOARD,
        BOARD + mover * row_size + action,
        direction=direction,
        ring_start=BOARD,
        ring_size=n_pits,
        closed=state[CLOSED],
        group_size=FOUR,
        group_timing=four_timing,
        row_size=row_size,
        mover=mover,
        binikh=FOUR,
        max_laps=max_laps,
        trace=trace,
    )
    state[LAPS] = laps
    state[ENDLESS] = 1 if outcome == TURN_ENDLESS else 0
    end_ply(
        state,
        row_size,
        action,
        state[STORE] + state[STORE + 1] - taken_before,
        win_threshold=NO_WIN_THRESHOLD,
        passing=False,
        total_seeds=total,
        three_quarter_points=PLAIN_WIN,
    )
    if outcome == TURN_ENDLESS:
        finish_game(state, row_size, TERMINATED, END_ENDLESS_MOVE, total, three_quarter_points=PLAIN_WIN)
    else:
        # Rule 6: no seeds to move, repetition, ply cap.
        state[LEGAL] = _legal_bits(state, row_size)
        check_end(
            state,
            row_size,
            history_start=history_start,
            max_plies=max_plies,
            total_seeds=total,
            three_quarter_points=PLAIN_WIN,
        )
    if state[STATUS] != RUNNING:
        game_over(state, params)
    return OK


# --- rules 7-8: round result and match ------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _refill(state: np.ndarray, params: np.ndarray, player: int, seeds: int) -> None:
    """Rule 8: fills ``player``'s pits with 4 from the rightmost leftwards; closes the rest."""
    row_size = params[ROW_SIZE]
    filled = min(row_size, seeds // FOUR)
    for local in range(row_size - 1, -1, -1):
        pit = player * row_size + local
        if local >= row_size - filled:
            state[BOARD + pit] = FOUR
            state[CLOSED] &= ~(np.int64(1) << pit)
        else:
            state[BOARD + pit] = 0
            state[CLOSED] |= np.int64(1) << pit
    state[RESERVE + player] = seeds - FOUR * filled


@njit(cache=True, error_model="numpy")
def game_over(state: np.ndarray, params: np.ndarray) -> None:
    """Rules 7-8: scores a finished round; in a match, refills and starts the next round or ends the match.

    The round score of a player is every seed they hold once the board is
    settled: captures, leftovers and (in a match) their reserve.
    """
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    if state[STATUS] == RUNNING:
        return
    if state[END_REASON] == END_NO_FEEDING_MOVE:
        # Rio Kadalis has no feeding rule: a player without seeds simply cannot move (rule 6),
        # even when the whole board is empty.
        state[END_REASON] = END_NO_LEGAL_MOVE
    for player in range(2):
        state[SCORE + player] = state[STORE + player] + state[RESERVE + player]
        state[FOURS + player] = state[SCORE + player] // FOUR
    set_winner(state, SCORE)
    for player in range(2):
        state[POINTS + player] = 1 if state[WINNER] == player else 0
    if params[MATCH_MODE] == 0 or state[END_REASON] == END_CANNOT_REFILL:
        return
    round_winner = state[WINNER]
    if round_winner >= 0:
        state[MATCH + round_winner] += 1
    state[ROUND] += 1
    state[GAMES_PLAYED] = state[ROUND]
    holdings_0 = state[SCORE]
    holdings_1 = state[SCORE + 1]
    if holdings_0 < FOUR or holdings_1 < FOUR:
        # Rule 8: a player who cannot fill a single pit loses the match.
        state[STATUS] = TERMINATED
        state[END_REASON] = END_CANNOT_REFILL
        state[WINNER] = 0 if holdings_1 < FOUR else 1
        return
    if state[ROUND] >= params[MAX_ROUNDS]:
        # The round cap: the player holding more seeds is ahead.
        state[STATUS] = TRUNCATED
        state[END_REASON] = END_MAX_ROUNDS
        return
    next_starter = 1 - state[STARTER]
    _start_round(state, params, next_starter)
    _refill(state, params, 0, holdings_0)
    _refill(state, params, 1, holdings_1)
    history_clear(state)
    if params[HISTORY_START] > 0:
        board = state[BOARD : BOARD + 2 * params[ROW_SIZE]]
        history_repeats(state, params[HISTORY_START], position_key(board, next_starter))
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, error_model="numpy")
def observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """Writes ``player``'s egocentric observation (see ``RioKadalis.observation_names``) and action mask."""
    observe_two_row(state, player, params[ROW_SIZE], params[MAX_PLIES], observation, mask)
    if params[MATCH_MODE] != 0:
        n = params[ROW_SIZE]
        extra = 2 * n + 5
        closed = state[CLOSED]
        for i in range(2 * n):
            observation[extra + i] = (closed >> ((player * n + i) % (2 * n))) & 1
        observation[extra + 2 * n] = state[RESERVE + player]
        observation[extra + 2 * n + 1] = state[RESERVE + 1 - player]


class RioKadalisRules(TwoRowGame):
    """Rio Kadalis's rules bound to a config: the game's declarations and its ``params``.

    The game's class, :class:`~mancala_envs.games.rio_kadalis.RioKadalis`, adds the people side
    (:class:`~mancala_envs.games.rio_kadalis.rio_kadalis_companion.RioKadalisCompanion`) to this one.

    Args:
        config: The game's options.
    """

    name = "rio_kadalis"
    version = 0
    config_class = RioKadalisConfig
    end_reasons: ClassVar[dict[int, str]] = END_REASONS
    variants = (
        Variant("rio-kadalis", {}, "Rio Kadalis, 2x6, 4 seeds per pit, relay sowing, fours"),
        Variant("rio-kadalis5", {"pits_per_row": 5}, "Rio Kadalis on the 2x5 board (Habr Awal, T = 40)"),
        Variant("rio-kadalis-cw", {"direction": "cw"}, "Rio Kadalis sown clockwise"),
        Variant(
            "rio-kadalis-match",
            {"match": True},
            "Rio Kadalis match: refill, closed pits, until a player cannot fill a pit",
        ),
    )

    def __init__(self, config: RioKadalisConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        common = self._common_params(c.pits_per_row, SEEDS_PER_PIT_RIO_KADALIS, c.max_plies, c.repetition, False)
        self.params = LAYOUT.pack_params(
            **common,
            DIRECTION=DIRECTIONS[c.direction],
            FOUR_TIMING=FOUR_TIMINGS[c.four_timing],
            MAX_LAPS=c.max_laps_per_turn,
            MATCH_MODE=1 if c.match else 0,
            MAX_ROUNDS=c.max_rounds,
        )

    @property
    def is_match(self) -> bool:
        return self.config.match

    @property
    def max_episode_plies(self) -> int:
        return self.max_plies * (self.config.max_rounds if self.is_match else 1)
