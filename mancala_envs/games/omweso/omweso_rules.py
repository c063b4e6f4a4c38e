"""Omweso's rules: the Baganda four-row relay game of Uganda (``docs/rules/omweso.md``).

This module holds the rules and reads top to bottom: the config, the layout (pits, params and
state slots), the legal moves, the setup and ``step`` with its helpers, the match, ``observe``,
and last the :class:`OmwesoRules` class that binds a config to the compiled functions. What people
need around them (position loading and validation, ``info``, action descriptions, observation
names, text) is in the companion module :mod:`mancala_envs.games.omweso.omweso_companion`, which
imports this one (never the other way round); the game's class ``Omweso`` (the package's
``__init__``) binds the two.

The board is 4 x 8 pits, 16 per player, and has no stores: the 64 seeds never
leave it. Each player's pits are numbered in the player's **own frame**::

    inner row:  15 14 13 12 11 10  9  8     (as the owner sees it, column 0 on the left)
    outer row:   0  1  2  3  4  5  6  7

so sowing counter-clockwise is ``k -> k + 1 mod 16`` and clockwise is
``k -> k - 1 mod 16`` for both players. The state's board holds player 0's
pits ``0..15`` then player 1's (board slot ``16 * p + k``).

The rules, in the order of the rules page:

1. **Moves.** ``action = mode * 16 + k``: mode 0 sows own pit ``k``
   counter-clockwise, mode 1 clockwise (reverse), mode 2 is the three-seed
   special. Only pits holding at least 2 seeds move.
2. **Lap.** The seeds go one per pit around the mover's own 16-pit ring,
   starting with the next pit, with no origin skip.
3. **Lap end.** The last seed in an empty pit ends the turn. In an occupied
   inner pit whose two opposite pits (opponent inner ``23 - k``, outer
   ``k - 8``) both hold seeds, with captures enabled: a capture. Otherwise a
   relay: the pit is lifted and sown; it becomes the *anchor*.
4. **Capture.** Both opposite pits are emptied and their seeds re-sown on the
   mover's ring from the pit after the anchor (``resow_into_anchor=True``:
   from the anchor itself). The anchor does not change across chained captures.
5. **End of turn**: an empty pit (rule 3), the three-seed special (rule 7) or
   an endless turn (rule 11).
6. **First round.** Captures are disabled during the first
   ``no_capture_turns`` turns (2: each player's first turn); a capturing
   landing relays instead.
7. **Three-seed special** (``three_seed_opening``, mode 2): while nobody has
   captured yet, a pit holding exactly 3 puts 2 seeds into the next pit and 1
   into the one after; the turn ends.
8. **Reverse sowing.** A clockwise lap is legal only from the four leftmost
   pits (``{0, 1, 14, 15}``) and only when its last seed captures directly:
   as the move (mode 1), from a relay pit, or re-sowing seeds that a
   clockwise lap captured. So a clockwise lap always ends in a capture.
9. **Decision points** (``midturn_reverse=True``). When a relay pit or a
   re-sow qualifies for rule 8, the same player acts again with exactly two
   legal actions, ``k`` (counter-clockwise) and ``16 + k`` (clockwise).
10. **Results**, checked at the end of each turn: *akawumbi* (the opponent
    has no seed left and the turn's last capture was at an end column, 12
    points), *emitwe-ebiri* (captures at both end columns, own inner pits 15
    and 8, in one turn, 2 points), the front-row clear (``front_row_clear_2pts``:
    a capturing turn leaves the opponent's inner row empty, 2 points), the
    optional *akakyala* rule (captures on two turns before the opponent's
    first capture, 2 points); otherwise *bulijo*: the opponent has no pit with
    2 seeds and loses (1 point).
11. **Endless turn.** An in-turn state (board, pit about to be lifted,
    direction) repeating without a pending choice, or a turn reaching
    ``max_laps_per_turn`` laps (counted across decision points; no choice is
    offered once the cap is reached), annuls the game: no winner, no points.
    ``max_turns`` turns truncate the game as a draw.
12. **Match** (``match_target`` set): games follow one another, the starter
    alternating, until a player has ``match_target`` points; akawumbi wins the
    match at once.

Setups (``setup``): ``"outer4"`` (4 seeds in every outer pit), ``"two_each"``
(2 in every pit) and ``"placement"``: the first player places 32 seeds one at
a time (action ``k`` adds a seed to own pit ``k``, at most ``placement_cap``
per pit), then the other player, then the first player sows.

The ``STORE`` slots count the seeds each player has captured in the current
game (a tally: the seeds are back on the board). Game-specific state lives in
slots after the board (``PHASE`` .. ``GAME_RESULT`` below).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.ending import close_match_game, end_reason_code, game_end_reasons
from mancala_envs.engine.jit import njit
from mancala_envs.engine.layout import Feature, Field, Layout
from mancala_envs.engine.relay import (
    GROUPS_OFF,
    NO_CLOSED_PITS,
    NO_GROUPS,
    new_turn_memory,
    relay_lap,
    sow_from,
    turn_memory_clear,
    turn_memory_repeats,
    turn_memory_with_room,
)
from mancala_envs.engine.repetition import NO_HISTORY
from mancala_envs.engine.setup import refusal_code, start_game, start_match
from mancala_envs.engine.sowing import CCW, CW
from mancala_envs.engine.state import (
    BOARD,
    END_ENDLESS_MOVE,
    END_NO_LEGAL_MOVE,
    END_NONE,
    END_REASON,
    ENDLESS,
    FIRST_MOVE_DONE,
    HEADER_SIZE,
    LAPS,
    LAST_ACTION,
    LEGAL,
    MATCH,
    OK,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STARTER,
    STATUS,
    STORE,
    TERMINATED,
    TRUNCATED,
    TURN,
    WINNER,
)
from mancala_envs.engine.trace import trace_capture, trace_clear, trace_sow
from mancala_envs.games.game import Game, Variant, check_bool, check_choice, check_int

__all__ = [
    "END_COLUMN_PITS",
    "LEFT4",
    "OmwesoConfig",
    "OmwesoRules",
    "game_over",
    "legal_bits",
    "observe",
    "reset_state",
    "step",
]


# --- config ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OmwesoConfig:
    """Options of Omweso; every field is checked when the config is built.

    Attributes:
        setup: ``"outer4"`` (default: 4 seeds in each outer pit), ``"two_each"``
            (2 in every pit) or ``"placement"`` (each player places 32 seeds, one
            per ply, before the first move).
        placement_cap: Most seeds one pit may receive while placing (default 10).
        midturn_reverse: Offer the clockwise choice at relays and re-sows
            (rule 9, default ``True``); ``False``: only the opening lap may be
            clockwise.
        three_seed_opening: Allow the three-seed special before the first
            capture (default ``True``).
        no_capture_turns: Turns at the start of a game in which captures are
            disabled (default 2: each player's first turn).
        resow_into_anchor: ``False`` (default): captured seeds are re-sown from
            the pit after the anchor; ``True``: the first goes into the anchor.
        front_row_clear_2pts: A capturing turn that leaves the opponent's inner
            row empty wins 2 points (default ``True``).
        akakyala_rule: Captures on two separate turns before the opponent's
            first capture win 2 points (default ``False``).
        match_target: ``None`` (default): one game per episode. An integer
            makes an episode a match played until a player has that many points
            (12 in tournaments).
        max_games: Game cap of a match (truncation).
        max_laps_per_turn: Lap cap of a turn; a turn reaching it is endless and
            the game is annulled (default 2000).
        max_turns: Turn cap of a game; reaching it truncates the game as a draw
            (default 2000).
    """

    setup: str = "outer4"
    placement_cap: int = 10
    midturn_reverse: bool = True
    three_seed_opening: bool = True
    no_capture_turns: int = 2
    resow_into_anchor: bool = False
    front_row_clear_2pts: bool = True
    akakyala_rule: bool = False
    match_target: int | None = None
    max_games: int = 100
    max_laps_per_turn: int = 2000
    max_turns: int = 2000

    def __post_init__(self) -> None:
        check_choice("setup", self.setup, SETUPS)
        check_int("placement_cap", self.placement_cap, 2, SEEDS_PER_PLAYER)
        check_bool("midturn_reverse", self.midturn_reverse)
        check_bool("three_seed_opening", self.three_seed_opening)
        check_int("no_capture_turns", self.no_capture_turns, 0, 1000)
        check_bool("resow_into_anchor", self.resow_into_anchor)
        check_bool("front_row_clear_2pts", self.front_row_clear_2pts)
        check_bool("akakyala_rule", self.akakyala_rule)
        if self.match_target is not None:
            check_int("match_target", self.match_target, 1, 1000)
        check_int("max_games", self.max_games, 1, 100_000)
        check_int("max_laps_per_turn", self.max_laps_per_turn, 1, 100_000)
        check_int("max_turns", self.max_turns, 1, 1_000_000)

    @property
    def total_seeds(self) -> int:
        """Seeds in the game: always 64."""
        return TOTAL_SEEDS


# --- layout: end reasons, pits, params and state slots ----------------------------------------------------
#: Omweso's own end reasons, its winning results and the turn cap, numbered by ``game_end_reasons``:
#: - akawumbi: the opponent was emptied by a capture at an end column (12 points);
#: - emitwe_ebiri: captures at both end columns in one turn (2 points);
#: - front_row_clear: a capturing turn left the opponent's inner row empty (2 points);
#: - akakyala: option, captures on two turns before the opponent's first capture (2 points);
#: - max_turns: the turn cap truncated the game.
END_REASONS = game_end_reasons("akawumbi", "emitwe_ebiri", "front_row_clear", "akakyala", "max_turns")
END_AKAWUMBI = end_reason_code(END_REASONS, "akawumbi")
END_EMITWE_EBIRI = end_reason_code(END_REASONS, "emitwe_ebiri")
END_FRONT_ROW_CLEAR = end_reason_code(END_REASONS, "front_row_clear")
END_AKAKYALA = end_reason_code(END_REASONS, "akakyala")
END_MAX_TURNS = end_reason_code(END_REASONS, "max_turns")

RING = 16  # pits per player
N_PITS = 32
N_ACTIONS = 48
TOTAL_SEEDS = 64
SEEDS_PER_PLAYER = 32
MODE_CCW = 0
MODE_CW = 1
MODE_THREE_SEED = 2
LEFT4 = (0, 1, 14, 15)  # the reverse-capture pits: columns 0 and 1 of both own rows
COLUMN_0_INNER = 15  # own inner pit of column 0 (an end column)
COLUMN_7_INNER = 8  # own inner pit of column 7 (the other end column)
END_COLUMN_PITS = (COLUMN_0_INNER, COLUMN_7_INNER)  # own inner pits of the end columns
SETUPS = {"outer4": 0, "two_each": 1, "placement": 2}
SETUP_OUTER4 = 0
SETUP_TWO_EACH = 1
SETUP_PLACEMENT = 2

# --- layout: the shared header slots, the own slots after the board, params and observation -------------
#: Omweso's layout. Its own slots do not fit the header's free part, so they follow the board.
LAYOUT = Layout(
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
        "TURN",
        "FIRST_MOVE_DONE",
        "LAPS",
        "ENDLESS",
    ),
    slots_start=BOARD + N_PITS,
    slots=(
        Field("PHASE", "`PHASE_SOWING` or `PHASE_PLACEMENT`"),
        Field("PENDING", "`PENDING_NONE`, or the kind of the decision point waiting for the mover"),
        Field("PENDING_PIT", "own pit `k` of the decision point (relay pit or anchor)"),
        Field("HAND", "captured seeds in the mover's hand (off the board) at a re-sow decision point"),
        Field("ANCHOR", "start pit of the lap in progress (own frame)"),
        Field("TURN_FLAGS", "`CAPTURED_*` bits of the turn in progress"),
        Field("FIRST_CAPTURE", "1 once anybody has captured in this game"),
        Field("CAPTURE_TURNS", "turns in which player 0 / player 1 captured (this game)", size=2),
        Field("GAME_RESULT", "end code of the last finished game of the episode (a match keeps going)"),
    ),
    params=(
        Field("P_SETUP", "the setup (`setup`): outer4, two_each or placement"),
        Field("P_PLACEMENT_CAP", "most seeds one pit may receive while placing"),
        Field("P_MIDTURN_REVERSE", "1: clockwise choices at relays and re-sows (rule 9)"),
        Field("P_THREE_SEED", "1: the three-seed special is allowed (rule 7)"),
        Field("P_NO_CAPTURE_TURNS", "turns at the start of a game without captures (rule 6)"),
        Field("P_RESOW_INTO_ANCHOR", "1: captured seeds are re-sown from the anchor itself"),
        Field("P_FRONT_ROW_CLEAR", "1: clearing the opponent's inner row wins 2 points"),
        Field("P_AKAKYALA", "1: the akakyala rule is on"),
        Field("P_MATCH_TARGET", "points that end a match; 0: one game per episode"),
        Field("P_MAX_GAMES", "game cap of a match (truncation)"),
        Field("P_MAX_LAPS", "lap cap of a turn"),
        Field("P_MAX_TURNS", "turn cap of a game"),
    ),
    observation=(
        Feature("own_pit_{k}", TOTAL_SEEDS, "seeds in the agent's own pit `k` (board `16·p + k`)", count=RING),
        Feature(
            "opponent_pit_{k}",
            TOTAL_SEEDS,
            "seeds in the opponent's pit `k`, opponent's frame (board `16·(1−p) + k`)",
            count=RING,
        ),
        Feature("is_to_move", 1, "1 if the game is running and this agent acts next"),
        Feature("placement_phase", 1, "1 while the placement phase runs"),
        Feature("seeds_to_place", SEEDS_PER_PLAYER, "seeds this agent still has to place, when it is placing; else 0"),
        Feature("pending_choice", 1, "1 if this agent is at a decision point"),
        Feature("pending_pit", RING - 1, "the decision point's pit `k` (relay pit, or anchor of the re-sow)"),
        Feature(
            "pending_seeds",
            TOTAL_SEEDS,
            "seeds that will be sown from it: the relay pit's contents, or the captured seeds in hand",
        ),
        Feature("pending_is_resow", 1, "1 if the decision is about re-sowing captured seeds"),
        Feature("anchor", RING - 1, "at a decision point, the anchor: the pit last lifted in this turn"),
        Feature("captures_enabled", 1, "1 once `no_capture_turns` turns have been completed (rule 6)"),
        Feature("first_capture_done", 1, "1 once anybody has captured in this game (the three-seed special is gone)"),
        Feature("captured_this_turn", 1, "this agent has captured in the turn in progress"),
        Feature("captured_column_0_this_turn", 1, "... at its own inner pit 15 (column 0)"),
        Feature("captured_column_7_this_turn", 1, "... at its own inner pit 8 (column 7)"),
        Feature("own_capturing_turns", 2, "turns of this game in which this agent captured, capped at 2 (akakyala)"),
        Feature("opponent_capturing_turns", 2, "the same for the opponent"),
        Feature("turn", "max_turns", "completed turns of this game"),
        Feature("own_match_points", "match_top", "this agent's match points", when="match"),
        Feature("opponent_match_points", "match_top", "the opponent's match points", when="match"),
    ),
    symbols={
        "max_turns": "the turn cap (`max_turns`)",
        "match": "an episode is a match (`match_target` set)",
        "match_top": (
            "`match_target + 11`, the most points a player can hold (akawumbi's 12 points after 1 less than the target)"
        ),
    },
)
P_SETUP = LAYOUT.param("P_SETUP")
P_PLACEMENT_CAP = LAYOUT.param("P_PLACEMENT_CAP")
P_MIDTURN_REVERSE = LAYOUT.param("P_MIDTURN_REVERSE")
P_THREE_SEED = LAYOUT.param("P_THREE_SEED")
P_NO_CAPTURE_TURNS = LAYOUT.param("P_NO_CAPTURE_TURNS")
P_RESOW_INTO_ANCHOR = LAYOUT.param("P_RESOW_INTO_ANCHOR")
P_FRONT_ROW_CLEAR = LAYOUT.param("P_FRONT_ROW_CLEAR")
P_AKAKYALA = LAYOUT.param("P_AKAKYALA")
P_MATCH_TARGET = LAYOUT.param("P_MATCH_TARGET")
P_MAX_GAMES = LAYOUT.param("P_MAX_GAMES")
P_MAX_LAPS = LAYOUT.param("P_MAX_LAPS")
P_MAX_TURNS = LAYOUT.param("P_MAX_TURNS")
PHASE = LAYOUT.slot("PHASE")
PENDING = LAYOUT.slot("PENDING")
PENDING_PIT = LAYOUT.slot("PENDING_PIT")
HAND = LAYOUT.slot("HAND")
ANCHOR = LAYOUT.slot("ANCHOR")
TURN_FLAGS = LAYOUT.slot("TURN_FLAGS")
FIRST_CAPTURE = LAYOUT.slot("FIRST_CAPTURE")
CAPTURE_TURNS = LAYOUT.slot("CAPTURE_TURNS")
GAME_RESULT = LAYOUT.slot("GAME_RESULT")
STATE_SIZE = LAYOUT.slots_end
assert STATE_SIZE > HEADER_SIZE + N_PITS
#: entries of the observation before the match points (the match points follow, in a match)
OBSERVATION_SIZE = len(LAYOUT.observation_names({}))
#: where ``observe`` writes each entry: its index in the layout's observation (a match's entries included)
_OBSERVATION_INDEX = {name: index for index, name in enumerate(LAYOUT.observation_names({"match": True}))}
OBS_OWN_PITS = _OBSERVATION_INDEX["own_pit_0"]
OBS_OPPONENT_PITS = _OBSERVATION_INDEX["opponent_pit_0"]
OBS_IS_TO_MOVE = _OBSERVATION_INDEX["is_to_move"]
OBS_PLACEMENT_PHASE = _OBSERVATION_INDEX["placement_phase"]
OBS_SEEDS_TO_PLACE = _OBSERVATION_INDEX["seeds_to_place"]
OBS_PENDING_CHOICE = _OBSERVATION_INDEX["pending_choice"]
OBS_PENDING_PIT = _OBSERVATION_INDEX["pending_pit"]
OBS_PENDING_SEEDS = _OBSERVATION_INDEX["pending_seeds"]
OBS_PENDING_IS_RESOW = _OBSERVATION_INDEX["pending_is_resow"]
OBS_ANCHOR = _OBSERVATION_INDEX["anchor"]
OBS_CAPTURES_ENABLED = _OBSERVATION_INDEX["captures_enabled"]
OBS_FIRST_CAPTURE_DONE = _OBSERVATION_INDEX["first_capture_done"]
OBS_CAPTURED_THIS_TURN = _OBSERVATION_INDEX["captured_this_turn"]
OBS_CAPTURED_COLUMN_0_THIS_TURN = _OBSERVATION_INDEX["captured_column_0_this_turn"]
OBS_CAPTURED_COLUMN_7_THIS_TURN = _OBSERVATION_INDEX["captured_column_7_this_turn"]
OBS_OWN_CAPTURING_TURNS = _OBSERVATION_INDEX["own_capturing_turns"]
OBS_OPPONENT_CAPTURING_TURNS = _OBSERVATION_INDEX["opponent_capturing_turns"]
OBS_TURN = _OBSERVATION_INDEX["turn"]
OBS_OWN_MATCH_POINTS = _OBSERVATION_INDEX["own_match_points"]
OBS_OPPONENT_MATCH_POINTS = _OBSERVATION_INDEX["opponent_match_points"]

PHASE_SOWING = 0
PHASE_PLACEMENT = 1
PENDING_NONE = 0
PENDING_RELAY = 1  # the relay pit's seeds are still in it
PENDING_RESOW = 2  # captured seeds are in hand, to be sown from the anchor

CAPTURED = 1  # the mover captured in this turn
CAPTURED_COLUMN_0 = 2  # ... at own inner pit 15
CAPTURED_COLUMN_7 = 4  # ... at own inner pit 8
LAST_CAPTURE_AT_END = 8  # the turn's latest capture was at an end column

# How a run of laps stopped:
LAPS_TURN_OVER = 0
LAPS_DECISION = 1
LAPS_ENDLESS = 2
#: a turn's memory of in-turn states: words of a key (``_in_turn_key``), and laps it has room for at first
TURN_KEY_WORDS = 3
FIRST_MEMORY_LAPS = 6

POINTS_BULIJO = 1
POINTS_TWO = 2
POINTS_AKAWUMBI = 12

WIN_TYPES = {
    END_NO_LEGAL_MOVE: "bulijo",
    END_EMITWE_EBIRI: "emitwe_ebiri",
    END_FRONT_ROW_CLEAR: "front_row_clear",
    END_AKAKYALA: "akakyala",
    END_AKAWUMBI: "akawumbi",
}


# --- geometry ---------------------------------------------------------------------------------------
# The compiled rules work on the state in place: ``own`` and ``opponent`` below are the state slots of
# pit 0 of the mover and of the opponent (``BOARD + 16 * player``), and every option is read out of
# ``params`` once, in ``step``, so that the helpers take the state and plain integers (see
# :mod:`mancala_envs.engine.sowing` for why).
@njit(cache=True, inline="always", error_model="numpy")
def _in_left4(k: int) -> bool:
    return k <= 1 or k >= 14


@njit(cache=True, inline="always", error_model="numpy")
def _opposites_full(board: np.ndarray, opponent: int, k: int) -> bool:
    """Whether both pits opposite own inner pit ``k`` (8..15) hold seeds."""
    inner = board[opponent + 23 - k]
    outer = board[opponent + k - 8]
    return inner > 0 and outer > 0


@njit(cache=True, inline="always", error_model="numpy")
def lap_captures_directly(
    board: np.ndarray, own: int, opponent: int, start: int, seeds: int, direction: int, lifted: bool
) -> bool:
    """Would a lap of ``seeds`` seeds from after ``start`` end in a capture (rule 8b)?

    Computed without sowing: the last seed falls ``seeds`` pits after
    ``start``; that pit held its own seeds (none if it is the lifted start)
    plus one from every earlier pass of the lap (``(seeds - 1) // 16``).
    Captures must be enabled by the caller.

    Args:
        board: The 32-pit board, or the game state (then ``own`` and
            ``opponent`` are state slots: ``BOARD + 16 * player``).
        own: Board offset of the mover's pits (0 or 16).
        opponent: Board offset of the opponent's pits.
        start: Own-frame pit before the first pit sown.
        seeds: Seeds sown.
        direction: ``CCW`` or ``CW``.
        lifted: ``start`` is the pit the seeds were lifted from (now empty).
    """
    last = (start + direction * (seeds % RING) + RING) % RING
    if last < 8:
        return False
    held = (seeds - 1) // RING
    if not (lifted and last == start):
        held += board[own + last]
    if held <= 0:
        return False
    return _opposites_full(board, opponent, last)


# --- rule 1, 7, 8, 9 and the placement phase: legal actions -------------------------------------------
@njit(cache=True, error_model="numpy")
def legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """Legal actions of the player to move, as a bit mask over the 48 actions."""
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    return _legal_bits(state, params[P_PLACEMENT_CAP], params[P_THREE_SEED] != 0, params[P_NO_CAPTURE_TURNS])


@njit(cache=True, inline="always", error_model="numpy")
def _legal_bits(state: np.ndarray, placement_cap: int, three_seed_opening: bool, no_capture_turns: int) -> int:
    mover = state[PLAYER]
    own = BOARD + RING * mover
    bits = np.int64(0)
    if state[PHASE] == PHASE_PLACEMENT:
        for k in range(RING):
            if state[own + k] < placement_cap:
                bits |= np.int64(1) << k
        return bits
    if state[PENDING] != PENDING_NONE:
        k = state[PENDING_PIT]
        return (np.int64(1) << k) | (np.int64(1) << (RING + k))
    opponent = BOARD + RING * (1 - mover)
    reverse = state[TURN] >= no_capture_turns  # captures enabled
    three_seed = three_seed_opening and state[FIRST_CAPTURE] == 0
    for k in range(RING):
        seeds = state[own + k]
        if seeds < 2:
            continue
        bits |= np.int64(1) << k
        if reverse and _in_left4(k) and lap_captures_directly(state, own, opponent, k, seeds, CW, True):
            bits |= np.int64(1) << (RING + k)
        if three_seed and seeds == 3:
            bits |= np.int64(1) << (2 * RING + k)
    return bits


@njit(cache=True, inline="always", error_model="numpy")
def _can_move(state: np.ndarray, player: int) -> bool:
    first = BOARD + RING * player
    for slot in range(first, first + RING):  # noqa: SIM110 (compiled code: a loop, not a generator)
        if state[slot] >= 2:
            return True
    return False


# --- setup ----------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _start_game(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    setup = params[P_SETUP]
    # two_each: 2 seeds in every pit; outer4 fills its pits below; placement starts empty
    seeds_per_pit = 2 if setup == SETUP_TWO_EACH else 0
    start_game(state, N_PITS, seeds_per_pit, first_player, history_start=NO_HISTORY)
    if setup == SETUP_OUTER4:
        for player in range(2):
            for k in range(8):
                state[BOARD + RING * player + k] = 4
    state[PHASE] = PHASE_PLACEMENT if setup == SETUP_PLACEMENT else PHASE_SOWING
    state[PENDING] = PENDING_NONE
    state[PENDING_PIT] = 0
    state[HAND] = 0
    state[ANCHOR] = 0
    state[TURN_FLAGS] = 0
    state[FIRST_CAPTURE] = 0
    state[CAPTURE_TURNS] = 0
    state[CAPTURE_TURNS + 1] = 0
    state[LAPS] = 0
    state[ENDLESS] = 0
    state[LEGAL] = legal_bits(state, params)


@njit(cache=True, error_model="numpy")
def reset_state(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Sets up the configured opening (and a new match), ``first_player`` to place or move first."""
    start_match(state)
    state[GAME_RESULT] = END_NONE
    _start_game(state, params, first_player)


# --- rules 2-4, 8, 9, 11: laps until the turn ends, a decision point, or endlessness ----------------------
@njit(cache=True, inline="always", error_model="numpy")
def _in_turn_key(state: np.ndarray, own: int, pit: int, direction: int) -> tuple:
    """The exact in-turn state of a lap about to lift own pit ``pit``: the mover's 16 pits (slots ``own``
    onwards), 8 pits of 7 bits per word, then the pit and direction.

    The opponent's pits are left out: laps sow only the mover's ring, and the one thing that changes
    the opponent's pits, a capture, clears the memory the key goes into. Between two clears the whole
    board repeats exactly when the mover's row does.
    """
    w0 = np.int64(0)
    w1 = np.int64(0)
    for i in range(8):
        w0 = (w0 << 7) | state[own + i]
        w1 = (w1 << 7) | state[own + 8 + i]
    return (w0, w1, 2 * pit + (1 if direction == CW else 0))


@njit(cache=True, inline="always", error_model="numpy")
def _offer_choice(state: np.ndarray, kind: int, pit: int, max_laps: int) -> int:
    """Rule 9: stops the turn at a decision point on ``pit``, unless the lap cap is already reached."""
    if state[LAPS] >= max_laps:
        return LAPS_ENDLESS  # either lap would be refused by the cap: no choice is offered
    state[PENDING] = kind
    state[PENDING_PIT] = pit
    return LAPS_DECISION


@njit(cache=True, inline="always", error_model="numpy")
def _resow_start(anchor: int, direction: int, into_anchor: bool) -> int:
    """Rule 4: the own pit before the first one a re-sow fills: the anchor, or with ``resow_into_anchor``
    the pit before it, so that the anchor itself takes the first seed."""
    return (anchor - direction + RING) % RING if into_anchor else anchor


@njit(cache=True, inline="always", error_model="numpy")
def _capture_opposites(state: np.ndarray, mover: int, opponent: int, last: int, trace: np.ndarray) -> int:
    """Rule 4: takes the opponent's two pits opposite own inner pit ``last`` (slots ``opponent`` onwards)
    into the mover's hand and tally, sets the turn's capture flags, and returns the seeds taken."""
    inner = opponent + 23 - last
    outer = opponent + last - 8
    hand = state[inner] + state[outer]
    trace_capture(trace, inner - BOARD, state[inner])
    trace_capture(trace, outer - BOARD, state[outer])
    state[inner] = 0
    state[outer] = 0
    state[STORE + mover] += hand
    state[FIRST_CAPTURE] = 1
    flags = (state[TURN_FLAGS] | CAPTURED) & ~LAST_CAPTURE_AT_END
    if last == COLUMN_0_INNER:
        flags |= CAPTURED_COLUMN_0 | LAST_CAPTURE_AT_END
    elif last == COLUMN_7_INNER:
        flags |= CAPTURED_COLUMN_7 | LAST_CAPTURE_AT_END
    state[TURN_FLAGS] = flags
    state[HAND] = hand
    return hand


@njit(cache=True, inline="always", error_model="numpy")
def _resow_may_reverse(state: np.ndarray, own: int, opponent: int, anchor: int, hand: int, into_anchor: bool) -> bool:
    """Rule 9: a clockwise re-sow of ``hand`` seeds from ``anchor`` would capture at once, so the mover
    may choose its direction (only from the four reverse-capture pits)."""
    start = _resow_start(anchor, CW, into_anchor)
    return _in_left4(anchor) and lap_captures_directly(state, own, opponent, start, hand, CW, False)


@njit(cache=True, inline="always", error_model="numpy")
def _relay_may_reverse(state: np.ndarray, own: int, opponent: int, pit: int) -> bool:
    """Rule 9: a clockwise relay from own pit ``pit`` would capture at once, so the mover may choose its
    direction (only from the four reverse-capture pits)."""
    return _in_left4(pit) and lap_captures_directly(state, own, opponent, pit, state[own + pit], CW, True)


@njit(cache=True, error_model="numpy")
def _sow_laps(
    state: np.ndarray,
    kind: int,
    pit: int,
    direction: int,
    captures: bool,
    midturn: bool,
    max_laps: int,
    into_anchor: bool,
    trace: np.ndarray,
) -> int:
    """Plays laps for the player to move, starting with one lap of ``kind``.

    Args:
        state: The game state; the turn's laps, flags, captures and anchor are
            updated in place.
        kind: ``PENDING_RELAY``: lift own pit ``pit`` and sow it (it becomes
            the anchor); ``PENDING_RESOW``: sow the ``HAND`` seeds from the
            anchor ``pit``.
        pit: Own-frame pit, as above.
        direction: ``CCW`` or ``CW`` for this first lap.
        captures: Captures are enabled (rule 6).
        midturn: ``midturn_reverse`` (rule 9).
        max_laps: ``max_laps_per_turn`` (rule 11).
        into_anchor: ``resow_into_anchor`` (rule 4).
        trace: The ply's record.

    Returns:
        ``LAPS_TURN_OVER``, ``LAPS_DECISION`` (the pending choice is written
        into the state) or ``LAPS_ENDLESS``.
    """
    mover = state[PLAYER]
    own = BOARD + RING * mover
    opponent = BOARD + RING * (1 - mover)
    memory = new_turn_memory(min(max_laps, FIRST_MEMORY_LAPS), key_words=TURN_KEY_WORDS)  # grows with the laps
    anchor = state[ANCHOR]
    hand = state[HAND]
    while True:
        if state[LAPS] >= max_laps:
            return LAPS_ENDLESS
        if kind == PENDING_RELAY:
            # Rule 11: the in-turn state before the relay pit is lifted (every seed on the board).
            memory = turn_memory_with_room(memory, max_laps)
            if turn_memory_repeats(memory, _in_turn_key(state, own, pit, direction)):
                return LAPS_ENDLESS
            anchor = pit
            last = relay_lap(
                state,
                BOARD,
                own + pit,
                direction=direction,
                ring_start=own,
                ring_size=RING,
                closed=NO_CLOSED_PITS,
                group_size=NO_GROUPS,
                group_timing=GROUPS_OFF,
                row_size=RING,
                trace=trace,
            )
        else:
            last = sow_from(
                state,
                BOARD,
                own + _resow_start(anchor, direction, into_anchor),
                hand,
                direction=direction,
                ring_start=own,
                ring_size=RING,
                closed=NO_CLOSED_PITS,
                group_size=NO_GROUPS,
                group_timing=GROUPS_OFF,
                row_size=RING,
                trace=trace,
            )
            hand = 0
            state[HAND] = 0
        last -= own
        state[LAPS] += 1
        state[ANCHOR] = anchor
        if state[own + last] == 1:
            return LAPS_TURN_OVER  # rule 3: the last seed fell into an empty pit
        if captures and last >= 8 and _opposites_full(state, opponent, last):
            # Rule 4: take both opposite pits; the seeds are re-sown from the same anchor.
            hand = _capture_opposites(state, mover, opponent, last, trace)
            turn_memory_clear(memory)  # the opponent lost seeds: no earlier state comes back
            kind = PENDING_RESOW
            pit = anchor
            if direction == CW and midturn and _resow_may_reverse(state, own, opponent, anchor, hand, into_anchor):
                return _offer_choice(state, PENDING_RESOW, anchor, max_laps)
            direction = CCW
            continue
        # Rule 3: relay from the landing pit; rule 9: it may offer the clockwise choice.
        kind = PENDING_RELAY
        pit = last
        if midturn and captures and _relay_may_reverse(state, own, opponent, last):
            return _offer_choice(state, PENDING_RELAY, last, max_laps)
        direction = CCW


# --- rule 10: results at the end of a turn ---------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def win(state: np.ndarray, winner: int, reason: int, points: int) -> None:
    """Ends the game: ``winner`` wins by ``reason``, scoring ``points`` (the companion's positions use it too)."""
    state[STATUS] = TERMINATED
    state[END_REASON] = reason
    state[GAME_RESULT] = reason
    state[WINNER] = winner
    state[LEGAL] = 0
    state[POINTS + winner] = points
    state[POINTS + 1 - winner] = 0
    state[SCORE] = state[STORE]
    state[SCORE + 1] = state[STORE + 1]


@njit(cache=True, error_model="numpy")
def draw(state: np.ndarray, status: int, reason: int) -> None:
    """Ends the game with no winner and no points: ``status`` is TERMINATED or TRUNCATED."""
    state[STATUS] = status
    state[END_REASON] = reason
    state[GAME_RESULT] = reason
    state[WINNER] = -1
    state[LEGAL] = 0
    state[POINTS] = 0
    state[POINTS + 1] = 0
    state[SCORE] = state[STORE]
    state[SCORE + 1] = state[STORE + 1]


@njit(cache=True, error_model="numpy")
def _end_turn(
    state: np.ndarray,
    front_row_clear: bool,
    akakyala: bool,
    max_turns: int,
    placement_cap: int,
    three_seed_opening: bool,
    no_capture_turns: int,
) -> None:
    """Rule 10 and the turn cap, once the mover's turn is over; else hands the move over."""
    state = borrowed_view(state)  # no reference counting (mancala_envs.engine.board_views)
    mover = state[PLAYER]
    opponent = 1 - mover
    flags = state[TURN_FLAGS]
    captured = flags & CAPTURED != 0
    if captured:
        state[CAPTURE_TURNS + mover] += 1
    state[TURN] += 1
    state[TURN_FLAGS] = 0
    state[PENDING] = PENDING_NONE
    opponent_seeds = 0
    front_row = 0
    for k in range(RING):
        seeds = state[BOARD + RING * opponent + k]
        opponent_seeds += seeds
        if k >= 8:
            front_row += seeds
    if captured and opponent_seeds == 0 and flags & LAST_CAPTURE_AT_END:
        win(state, mover, END_AKAWUMBI, POINTS_AKAWUMBI)
    elif flags & CAPTURED_COLUMN_0 and flags & CAPTURED_COLUMN_7:
        win(state, mover, END_EMITWE_EBIRI, POINTS_TWO)
    elif captured and front_row_clear and front_row == 0:
        win(state, mover, END_FRONT_ROW_CLEAR, POINTS_TWO)
    elif captured and akakyala and state[CAPTURE_TURNS + mover] >= 2 and state[CAPTURE_TURNS + opponent] == 0:
        win(state, mover, END_AKAKYALA, POINTS_TWO)
    elif not _can_move(state, opponent):
        win(state, mover, END_NO_LEGAL_MOVE, POINTS_BULIJO)  # bulijo
    elif state[TURN] >= max_turns:
        state[PLAYER] = opponent
        draw(state, TRUNCATED, END_MAX_TURNS)
    else:
        state[PLAYER] = opponent
        state[LEGAL] = _legal_bits(state, placement_cap, three_seed_opening, no_capture_turns)


@njit(cache=True, error_model="numpy")
def _place(
    state: np.ndarray, k: int, trace: np.ndarray, placement_cap: int, three_seed_opening: bool, no_capture_turns: int
) -> None:
    """The placement phase: one seed into own pit ``k``; the phase ends after 2 x 32 seeds."""
    state, trace = borrowed_view(state), borrowed_view(trace)  # no reference counting (engine.board_views)
    mover = state[PLAYER]
    own = RING * mover
    state[BOARD + own + k] += 1
    trace_sow(trace, own + k)
    placed = 0
    for pit in range(own, own + RING):
        placed += state[BOARD + pit]
    if placed == SEEDS_PER_PLAYER:
        if mover == state[STARTER]:
            state[PLAYER] = 1 - mover
        else:
            state[PHASE] = PHASE_SOWING
            state[PLAYER] = state[STARTER]
    state[LEGAL] = _legal_bits(state, placement_cap, three_seed_opening, no_capture_turns)


# --- one ply ----------------------------------------------------------------------------------------------
@njit(cache=True, inline="always", error_model="numpy")
def step(state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """Plays ``action`` for the player to move: a placement, a move, or a mid-turn choice.

    Returns:
        ``OK``, or ``ILLEGAL`` / ``GAME_OVER`` with the state unchanged.
    """
    # Borrowed views of the arguments: the ply counts no references (mancala_envs.engine.board_views).
    state, params, trace = borrowed_view(state), borrowed_view(params), borrowed_view(trace)
    # The options are read first (docs/architecture.md, "Performance notes for rules modules").
    placement_cap = params[P_PLACEMENT_CAP]
    midturn = params[P_MIDTURN_REVERSE] != 0
    three_seed_opening = params[P_THREE_SEED] != 0
    no_capture_turns = params[P_NO_CAPTURE_TURNS]
    into_anchor = params[P_RESOW_INTO_ANCHOR] != 0
    front_row_clear = params[P_FRONT_ROW_CLEAR] != 0
    akakyala = params[P_AKAKYALA] != 0
    match = params[P_MATCH_TARGET] != 0
    max_laps = params[P_MAX_LAPS]
    max_turns = params[P_MAX_TURNS]
    refused = refusal_code(state[STATUS], state[LEGAL], action, N_ACTIONS)
    if refused != OK:
        return refused
    trace_clear(trace)
    state[PLY] += 1
    state[LAST_ACTION] = action
    state[FIRST_MOVE_DONE] = 1
    if state[PHASE] == PHASE_PLACEMENT:
        _place(state, action, trace, placement_cap, three_seed_opening, no_capture_turns)
        return OK
    mode = action // RING
    k = action % RING
    direction = CW if mode == MODE_CW else CCW
    captures = state[TURN] >= no_capture_turns  # rule 6
    if state[PENDING] != PENDING_NONE:
        kind = state[PENDING]
        state[PENDING] = PENDING_NONE
        outcome = _sow_laps(state, kind, k, direction, captures, midturn, max_laps, into_anchor, trace)
    else:
        state[LAPS] = 0
        state[ENDLESS] = 0
        state[TURN_FLAGS] = 0
        if mode == MODE_THREE_SEED:
            # Rule 7: 2 seeds into the next pit, 1 into the one after; the turn ends.
            own = BOARD + RING * state[PLAYER]
            state[own + k] = 0
            state[own + (k + 1) % RING] += 2
            state[own + (k + 2) % RING] += 1
            trace_sow(trace, own - BOARD + (k + 1) % RING)
            trace_sow(trace, own - BOARD + (k + 1) % RING)
            trace_sow(trace, own - BOARD + (k + 2) % RING)
            state[LAPS] = 1
            state[ANCHOR] = k
            outcome = LAPS_TURN_OVER
        else:
            outcome = _sow_laps(state, PENDING_RELAY, k, direction, captures, midturn, max_laps, into_anchor, trace)
    if outcome == LAPS_DECISION:
        state[LEGAL] = _legal_bits(state, placement_cap, three_seed_opening, no_capture_turns)
    elif outcome == LAPS_ENDLESS:
        # Rule 11: the game is annulled.
        state[ENDLESS] = 1
        state[PENDING] = PENDING_NONE
        draw(state, TERMINATED, END_ENDLESS_MOVE)
    else:
        _end_turn(state, front_row_clear, akakyala, max_turns, placement_cap, three_seed_opening, no_capture_turns)
    if match and state[STATUS] != RUNNING:
        game_over(state, params)
    return OK


# --- rule 12: match ------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def game_over(state: np.ndarray, params: np.ndarray) -> None:
    """Rule 12: in a match, a finished game is scored and the next one starts (starter alternating)."""
    state, params = borrowed_view(state), borrowed_view(params)  # no reference counting (engine.board_views)
    if state[STATUS] == RUNNING or params[P_MATCH_TARGET] == 0:
        return
    akawumbi = state[END_REASON] == END_AKAWUMBI
    winner = state[WINNER]
    if close_match_game(state, params[P_MATCH_TARGET], params[P_MAX_GAMES]) and not akawumbi:
        _start_game(state, params, 1 - state[STARTER])
        return
    if akawumbi:
        # Akawumbi wins the match at once, whatever the target.
        state[STATUS] = TERMINATED
        state[END_REASON] = END_AKAWUMBI
        state[WINNER] = winner


# --- observation ----------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """Writes ``player``'s egocentric observation (see ``Omweso.observation_names``) and mask."""
    board = state[BOARD : BOARD + N_PITS]
    own = RING * player
    opponent = RING - own
    for k in range(RING):
        observation[OBS_OWN_PITS + k] = board[own + k]
        observation[OBS_OPPONENT_PITS + k] = board[opponent + k]
    to_move = state[STATUS] == RUNNING and state[PLAYER] == player
    observation[OBS_IS_TO_MOVE] = 1 if to_move else 0
    placing = state[PHASE] == PHASE_PLACEMENT and state[STATUS] == RUNNING
    observation[OBS_PLACEMENT_PHASE] = 1 if placing else 0
    left = 0
    if placing and to_move:
        left = SEEDS_PER_PLAYER
        for k in range(RING):
            left -= board[own + k]
    observation[OBS_SEEDS_TO_PLACE] = left
    pending = state[PENDING] if to_move else PENDING_NONE
    pit = state[PENDING_PIT]
    observation[OBS_PENDING_CHOICE] = 1 if pending != PENDING_NONE else 0
    observation[OBS_PENDING_PIT] = pit if pending != PENDING_NONE else 0
    if pending == PENDING_RELAY:
        observation[OBS_PENDING_SEEDS] = board[own + pit]
    elif pending == PENDING_RESOW:
        observation[OBS_PENDING_SEEDS] = state[HAND]
    else:
        observation[OBS_PENDING_SEEDS] = 0
    observation[OBS_PENDING_IS_RESOW] = 1 if pending == PENDING_RESOW else 0
    observation[OBS_ANCHOR] = state[ANCHOR] if pending != PENDING_NONE else 0
    observation[OBS_CAPTURES_ENABLED] = 1 if state[TURN] >= params[P_NO_CAPTURE_TURNS] else 0
    observation[OBS_FIRST_CAPTURE_DONE] = state[FIRST_CAPTURE]
    flags = state[TURN_FLAGS] if to_move else 0
    observation[OBS_CAPTURED_THIS_TURN] = 1 if flags & CAPTURED else 0
    observation[OBS_CAPTURED_COLUMN_0_THIS_TURN] = 1 if flags & CAPTURED_COLUMN_0 else 0
    observation[OBS_CAPTURED_COLUMN_7_THIS_TURN] = 1 if flags & CAPTURED_COLUMN_7 else 0
    observation[OBS_OWN_CAPTURING_TURNS] = min(state[CAPTURE_TURNS + player], 2)
    observation[OBS_OPPONENT_CAPTURING_TURNS] = min(state[CAPTURE_TURNS + 1 - player], 2)
    observation[OBS_TURN] = min(state[TURN], params[P_MAX_TURNS])
    legal = state[LEGAL] if to_move else 0
    for action in range(N_ACTIONS):
        mask[action] = (legal >> action) & 1
    if params[P_MATCH_TARGET] > 0:
        observation[OBS_OWN_MATCH_POINTS] = state[MATCH + player]
        observation[OBS_OPPONENT_MATCH_POINTS] = state[MATCH + 1 - player]


class OmwesoRules(Game):
    """Omweso's rules bound to a config: the game's declarations and its ``params``.

    The game's class, :class:`~mancala_envs.games.omweso.Omweso`, adds the people side
    (:class:`~mancala_envs.games.omweso.omweso_companion.OmwesoCompanion`) to this one.

    Args:
        config: The game's options.
    """

    name = "omweso"
    version = 0
    config_class = OmwesoConfig
    end_reasons = END_REASONS
    variants = (
        Variant("omweso", {}, "Omweso, 4x8, 64 seeds, 4 in each outer pit, relay sowing, reverse captures"),
        Variant("omweso-two-each", {"setup": "two_each"}, "Omweso starting with 2 seeds in every pit"),
        Variant(
            "omweso-placement",
            {"setup": "placement"},
            "Omweso with a placement phase: each player arranges 32 seeds (at most 10 per pit)",
        ),
        Variant(
            "omweso-no-midturn-reverse",
            {"midturn_reverse": False},
            "Omweso where only the opening lap may be clockwise (no mid-turn choices)",
        ),
        Variant(
            "omweso-match",
            {"match_target": 12},
            "Omweso match: games until a player has 12 points (akawumbi wins at once)",
        ),
    )
    #: extra keys that ``reset(options=...)`` passes to :meth:`load_position`
    position_options: ClassVar[dict[str, str]] = {
        "turn": "int",
        "first_capture_done": "bool",
        "capturing_turns": "ints",
        "phase": "text",
        "pending": "text",
        "turn_captures": "int",
        "laps": "int",
    }
    #: the winner is decided by the rules, not by comparing scores
    scores_decide_winner: ClassVar[bool] = False
    has_stores = False

    def __init__(self, config: OmwesoConfig | None = None) -> None:
        super().__init__(config)
        c = self.config
        self.n_pits = N_PITS
        self.n_actions = N_ACTIONS
        self.total_seeds = TOTAL_SEEDS
        self.max_turns = c.max_turns
        self.params = LAYOUT.pack_params(
            P_SETUP=SETUPS[c.setup],
            P_PLACEMENT_CAP=c.placement_cap,
            P_MIDTURN_REVERSE=int(c.midturn_reverse),
            P_THREE_SEED=int(c.three_seed_opening),
            P_NO_CAPTURE_TURNS=c.no_capture_turns,
            P_RESOW_INTO_ANCHOR=int(c.resow_into_anchor),
            P_FRONT_ROW_CLEAR=int(c.front_row_clear_2pts),
            P_AKAKYALA=int(c.akakyala_rule),
            P_MATCH_TARGET=c.match_target or 0,
            P_MAX_GAMES=c.max_games,
            P_MAX_LAPS=c.max_laps_per_turn,
            P_MAX_TURNS=c.max_turns,
        )

    @property
    def state_size(self) -> int:
        return STATE_SIZE

    @property
    def is_match(self) -> bool:
        return self.config.match_target is not None

    @property
    def max_episode_plies(self) -> int:
        """A true bound: the placements, then every turn's plies (a decision point is followed by a lap)."""
        placements = 2 * SEEDS_PER_PLAYER if self.config.setup == "placement" else 0
        per_game = placements + self.config.max_turns * (1 + self.config.max_laps_per_turn)
        return per_game * (self.config.max_games if self.is_match else 1)
