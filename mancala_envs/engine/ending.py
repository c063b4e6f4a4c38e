"""The end of a two-row game: settling leftover seeds, deciding the winner, match points.

Also the bookkeeping shared by every ply of the two-row store games
(:func:`end_ply`) and the ordered end checks (:func:`check_end`), so every game
reports the first of: threshold, no legal move, repetition, ply cap
(``docs/architecture.md``, Common conventions).

The functions called on every ply read the board in place, from the state
itself (``state[BOARD : BOARD + 2 * row_size]``) or, for the ``*_at``
functions, from ``array[board_start : board_start + 2 * row_size]``: a board
view costs the compiled engine reference-count work on each call, which shows
in the per-ply cost.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mancala_envs.engine.jit import njit
from mancala_envs.engine.repetition import history_clear, history_repeats, position_key_at
from mancala_envs.engine.state import (
    BOARD,
    END_MATCH_TARGET,
    END_MAX_GAMES,
    END_MAX_PLIES,
    END_NO_FEEDING_MOVE,
    END_NO_LEGAL_MOVE,
    END_REASON,
    END_REASON_NAMES,
    END_REPETITION,
    END_THRESHOLD,
    FIRST_GAME_END_REASON,
    FIRST_MOVE_DONE,
    GAMES_PLAYED,
    LAST_ACTION,
    LEGAL,
    MATCH,
    PASSES,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
    TERMINATED,
    TRUNCATED,
    WINNER,
)

__all__ = [
    "NO_WIN_THRESHOLD",
    "PLAIN_WIN",
    "check_end",
    "close_match_game",
    "end_ply",
    "end_reason_code",
    "finish_game",
    "game_end_reasons",
    "match_points",
    "record_result",
    "row_is_empty_at",
    "row_seeds",
    "row_seeds_at",
    "set_winner",
]


@njit(cache=True, inline="always", error_model="numpy")
def row_seeds_at(array: np.ndarray, board_start: int, player: int, row_size: int) -> int:
    """Returns the number of seeds in ``player``'s row of the board held at ``array[board_start:]``."""
    seeds = 0
    first = board_start + player * row_size
    for pit in range(first, first + row_size):
        seeds += array[np.uint64(pit)]
    return seeds


@njit(cache=True, inline="always", error_model="numpy")
def row_is_empty_at(array: np.ndarray, board_start: int, player: int, row_size: int) -> bool:
    """Tells whether ``player``'s row of the board held at ``array[board_start:]`` has no seed.

    What the per-ply tests (feeding, passing, an empty row ends Kalah) ask, answered at the first
    non-empty pit: usually the first or second, where :func:`row_seeds_at` adds every pit (a short
    loop that the compiler vectorizes, at a cost on rows of 6).
    """
    first = board_start + player * row_size
    for pit in range(first, first + row_size):  # noqa: SIM110  (a plain loop: numba compiles it to a few instructions)
        if array[np.uint64(pit)] != 0:
            return False
    return True


@njit(cache=True, inline="always", error_model="numpy")
def row_seeds(board: np.ndarray, player: int, row_size: int) -> int:
    """Returns the number of seeds in ``player``'s row of a two-row board."""
    return row_seeds_at(board, 0, player, row_size)


#: ``three_quarter_points`` value meaning "the winner scores 1 point, whatever the score" (Ouril).
PLAIN_WIN = 0

#: ``win_threshold`` of a game without one (:func:`end_ply`): no store size ends the game at once
NO_WIN_THRESHOLD = 0


@njit(cache=True, inline="always", error_model="numpy")
def match_points(score: int, opponent_score: int, total_seeds: int, three_quarter_points: int) -> int:
    """Match points for a final score.

    With ``three_quarter_points == PLAIN_WIN`` the winner scores 1 and the loser
    0 (Ouril). Otherwise (Urim rule 8): more than half the seeds earns 1
    point; at least three quarters (``4 * score >= 3 * total``, i.e.
    ``score >= ceil(3T/4)``) earns ``three_quarter_points``; anything else 0.
    """
    if three_quarter_points == PLAIN_WIN:
        return 1 if score > opponent_score else 0
    if 2 * score <= total_seeds:
        return 0
    if 4 * score >= 3 * total_seeds:
        return three_quarter_points
    return 1


@njit(cache=True, inline="always", error_model="numpy")
def set_winner(state: np.ndarray, tally: int) -> None:
    """Sets ``WINNER`` to the player with the larger tally (slots ``tally``, ``tally + 1``); -1 if level."""
    first = state[tally]
    second = state[tally + 1]
    state[WINNER] = 0 if first > second else (1 if second > first else -1)


@njit(cache=True, inline="always", error_model="numpy")
def finish_game(
    state: np.ndarray, row_size: int, status: int, reason: int, total_seeds: int, three_quarter_points: int
) -> None:
    """Ends the game: gives every seed left on the board to the owner of its row, then records the
    result (:func:`record_result`)."""
    for player in range(2):
        first = BOARD + player * row_size
        for pit in range(first, first + row_size):
            state[STORE + player] += state[pit]
            state[pit] = 0
    record_result(state, status, reason, total_seeds, three_quarter_points)


@njit(cache=True, inline="always", error_model="numpy")
def record_result(state: np.ndarray, status: int, reason: int, total_seeds: int, three_quarter_points: int) -> None:
    """Ends the game as the board stands (settled or not): records status, scores, winner and match points."""
    state[STATUS] = status
    state[END_REASON] = reason
    state[LEGAL] = 0
    for player in range(2):
        state[SCORE + player] = state[STORE + player]
    set_winner(state, SCORE)
    for player in range(2):
        state[POINTS + player] = match_points(
            state[SCORE + player], state[SCORE + 1 - player], total_seeds, three_quarter_points
        )


@njit(cache=True, inline="always", error_model="numpy")
def end_ply(
    state: np.ndarray,
    row_size: int,
    action: int,
    captured: int,
    win_threshold: int,
    passing: bool,
    total_seeds: int,
    three_quarter_points: int,
) -> None:
    """Bookkeeping after a move: ply count, capture memory, threshold end, next player.

    Args:
        state: The game state, changed in place (its board is read in place).
        row_size: Pits per row.
        action: The action just played.
        captured: Seeds captured by the move.
        win_threshold: A store reaching this many seeds ends the game at once
            (0: no threshold).
        passing: Whether a player left without seeds passes automatically
            (Ouril rule 5) so that the mover plays again and must feed.
        total_seeds: Seeds in the game.
        three_quarter_points: Match points for three quarters of the seeds.
    """
    mover = state[PLAYER]
    state[PLY] += 1
    state[LAST_ACTION] = action
    state[FIRST_MOVE_DONE] = 1
    if captured > 0:
        history_clear(state)
    if win_threshold > 0 and state[np.uint64(STORE + mover)] >= win_threshold:
        # The board is left as it is (not collected).
        state[PASSES] = 0
        return record_result(state, TERMINATED, END_THRESHOLD, total_seeds, three_quarter_points)
    opponent = 1 - mover
    passes = (
        passing
        and row_is_empty_at(state, BOARD, opponent, row_size)
        and not row_is_empty_at(state, BOARD, mover, row_size)
    )
    state[PASSES] = 1 if passes else 0
    state[PLAYER] = mover if passes else opponent


@njit(cache=True, inline="always", error_model="numpy")
def check_end(
    state: np.ndarray,
    row_size: int,
    history_start: int,
    max_plies: int,
    total_seeds: int,
    three_quarter_points: int,
) -> None:
    """Ends the game if the player to move cannot move, the position repeats, or the ply cap is hit.

    ``state[LEGAL]`` must already hold the legal actions of the player to move.
    Every such end gives the seeds on the board to the owners of their rows.
    It reads the board in place, and every way out is a ``return``, which keeps
    the compiled code free of reference counting.
    """
    if state[STATUS] != RUNNING:
        return
    mover = state[PLAYER]
    if state[LEGAL] == 0:
        starving = row_is_empty_at(state, BOARD, 1 - mover, row_size)
        reason = END_NO_FEEDING_MOVE if starving else END_NO_LEGAL_MOVE
        return finish_game(state, row_size, TERMINATED, reason, total_seeds, three_quarter_points)
    if history_start > 0 and history_repeats(state, history_start, position_key_at(state, BOARD, 2 * row_size, mover)):
        return finish_game(state, row_size, TERMINATED, END_REPETITION, total_seeds, three_quarter_points)
    if max_plies > 0 and state[PLY] >= max_plies:
        return finish_game(state, row_size, TRUNCATED, END_MAX_PLIES, total_seeds, three_quarter_points)
    return


@njit(cache=True, error_model="numpy")
def close_match_game(state: np.ndarray, match_target: int, max_games: int) -> bool:
    """Adds a finished game's match points to the match and tells whether another game follows.

    When a player reaches ``match_target`` the match is won (terminated); after
    ``max_games`` games it is truncated. Either way ``WINNER`` becomes the
    player with more match points (-1 when level).
    """
    for player in range(2):
        state[MATCH + player] += state[POINTS + player]
    state[GAMES_PLAYED] += 1
    if state[MATCH] >= match_target or state[MATCH + 1] >= match_target:
        state[STATUS] = TERMINATED
        state[END_REASON] = END_MATCH_TARGET
    elif state[GAMES_PLAYED] >= max_games:
        state[STATUS] = TRUNCATED
        state[END_REASON] = END_MAX_GAMES
    else:
        return True
    set_winner(state, MATCH)
    return False


# --- a game's own end reasons: declared by name, numbered here ---------------------------------------------------
def game_end_reasons(*names: str) -> dict[int, str]:
    """Numbers a game's own end reasons: ``{code: name}``, codes from ``FIRST_GAME_END_REASON`` in the order given.

    A rules module declares its own end reasons once, by name, and takes their codes from here (never a
    number of its own); the result is what its Game class declares as ``end_reasons``. The codes are the
    game's own: two games may use the same code for different reasons (``Game.end_reason_names`` is per
    game). For example, ``game_end_reasons("max_rounds", "cannot_refill")`` is ``{10: "max_rounds",
    11: "cannot_refill"}``.

    Args:
        *names: The reasons' names as ``info["end_reason"]`` shows them, in the order of their codes.

    Raises:
        ValueError: a name is not a lower-case identifier, is given twice, or is the name of a shared end
            reason (``END_REASON_NAMES``); the message names it and what to do.
    """
    shared = {name for name in END_REASON_NAMES.values() if name is not None}
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
            raise ValueError(f"end reason {name!r} is not a lower-case identifier; name it like 'row_empty'.")
        if name in shared:
            raise ValueError(
                f"end reason {name!r} is one every game shares (code {_code_of(END_REASON_NAMES, name)}); "
                "end the game with that shared code instead of declaring it again."
            )
        if name in names[:index]:
            raise ValueError(f"end reason {name!r} is declared twice; declare each reason once.")
    return {FIRST_GAME_END_REASON + index: name for index, name in enumerate(names)}


def end_reason_code(reasons: Mapping[int, str], name: str) -> int:
    """The code of the end reason called ``name`` in ``reasons`` (a :func:`game_end_reasons` declaration).

    Raises:
        ValueError: no reason of ``reasons`` has that name; the message lists the names declared.
    """
    code = _code_of(reasons, name)
    if code is None:
        raise ValueError(f"no end reason is called {name!r}; the declared ones are {sorted(reasons.values())}.")
    return code


def _code_of(reasons: Mapping[int, str | None], name: str) -> int | None:
    return next((code for code, reason in reasons.items() if reason == name), None)
