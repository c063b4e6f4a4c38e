"""Batched games: many games of one game and config stepped by one compiled call.

:class:`BatchedGames` holds ``n_games`` independent games as rows of one
``int64`` array and steps them all with one compiled call per ``step``: arrays
in, arrays out, no per-game Python objects. Each game runs the very rules code
of the PettingZoo environment: the compiled ``reset_state``, ``step`` and
``observe`` of its rules module. The loops here are per-game templates
(:mod:`mancala_envs.engine.kernels`), compiled for the batch's game alone, so a
batched game and a :class:`~mancala_envs.envs.aec_env.MancalaEnv` given the same actions
go through the same positions (``tests/envs/test_batch.py`` checks it move by move
for every registered id).

A game that ends is started again in the same call (*auto-reset*); the step
returns the new game's opening and keeps what the ended game left in
:class:`FinalInfo`.

Memory: a game's row is its engine state, but the repetition memory (the keys
of the positions seen since the last capture, up to ``max_plies + 2`` of them)
keeps only ``history_capacity`` keys in the row. A game whose memory would
outgrow that moves to a full-size row of a small shared *spill* area, which
grows as needed, and comes back once a capture clears its memory or the game
ends, so the rules never lose a key. With the default capacity (24), a default
Ouril game takes 576 bytes with its generator: a million games fit in 576 MB.

Threads: the rows are split into ``threads`` contiguous parts (default: every core
this process may run on, one per 64 games at most), and each compiled call runs on
every part at once, one thread per part (the kernels release the GIL). Each part
has its own spill area and vault, so the threads share no mutable state, and each
game draws from its own generator, so the results are the same whatever the
thread count.

Example:
    >>> import numpy as np
    >>> from mancala_envs.envs.batch import BatchedGames
    >>> games = BatchedGames("ouril_v0", n_games=4, first_player=0)
    >>> step = games.reset(seed=0)
    >>> step.observation.shape, step.action_mask.shape, step.current_player.tolist()
    ((4, 17), (4, 6), [0, 0, 0, 0])
    >>> step = games.step(np.array([5, 4, 3, 2]))
    >>> step.current_player.tolist(), step.rewards.shape
    ([1, 1, 1, 1], (4, 2))
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, NamedTuple, TypeVar

import numpy as np

from mancala_envs.algorithms.playouts import RolloutStats, legal_action_at
from mancala_envs.common.errors import IllegalActionError
from mancala_envs.common.validation import check_action_array, check_integer, check_seed
from mancala_envs.engine.arrays import copy_rows, copy_slots, fill_slots
from mancala_envs.engine.board_views import borrowed_view
from mancala_envs.engine.jit import njit
from mancala_envs.engine.kernels import game_observe, game_reset, game_step, per_game
from mancala_envs.engine.prng import new_words, uniform
from mancala_envs.engine.state import (
    END_REASON,
    HISTORY_LEN,
    LEGAL,
    MATCH,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    TRUNCATED,
    TURN,
    WINNER,
)
from mancala_envs.games.game import Game

__all__ = [
    "DEFAULT_HISTORY_CAPACITY",
    "FACT_COUNT",
    "MAX_THREADS",
    "ROWS_PER_DEFAULT_THREAD",
    "BatchStep",
    "BatchedGames",
    "FinalInfo",
    "GameRows",
    "available_cores",
    "check_threads",
    "play_random",
]

T = TypeVar("T")

#: repetition keys kept in each game's own row (more move the game to the spill area)
DEFAULT_HISTORY_CAPACITY = 24
#: keys one ply can add to the repetition memory at most (a ply, a new round or game of a match)
_KEYS_PER_PLY = 3
#: repetition keys of a spill row (a game needing more moves on to a full-size vault row)
_SPILL_KEYS = 160
_WIN_LOSS, _MATCH_POINTS = 0, 1
_REWARD_MODES = {"win_loss": _WIN_LOSS, "match_points": _MATCH_POINTS}
#: the trace array of a ply whose trace nobody reads (an argument of the kernels, so they may borrow it)
NO_TRACE = np.empty(0, np.int64)
#: final facts per game: winner, end reason, scores (2), points (2), plies, turns, learner seat, opponent (the
#: learners' loop: the index of the pool member the episode was played against)
FACT_COUNT = 10
#: games per thread at least when the thread count is left to the batch (``threads=None``): a smaller part
#: costs more to hand to a thread (tens of microseconds) than it saves
ROWS_PER_DEFAULT_THREAD = 64
#: the most threads a batch takes (``threads=``): each costs a stack (8 MB of address space, tens of KB resident)
#: and a hand-over per step, and a step gains nothing from more threads than cores
MAX_THREADS = 256


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def check_threads(threads: Any) -> int:
    """The thread count of a batch: ``None`` gives :func:`available_cores` (at most :data:`MAX_THREADS`), else an
    integer from 1 to :data:`MAX_THREADS`.

    Raises:
        TypeError: neither ``None`` nor an integer (a bool is refused: ``threads=True`` says no count).
        ValueError: an integer below 1 or above :data:`MAX_THREADS`.
    """
    if threads is None:
        return min(available_cores(), MAX_THREADS)
    return check_integer("threads (None for every core)", threads, 1, MAX_THREADS)


def _parts(n_rows: int, threads: int) -> tuple[tuple[int, int], ...]:
    """``(start, stop)`` of the contiguous parts the rows are split into: ``threads`` of them (no more than
    the rows), their sizes differing by one at most."""
    count = min(threads, n_rows)
    return tuple((part * n_rows // count, (part + 1) * n_rows // count) for part in range(count))


def _overlap(start: int, stop: int, first: int, length: int, n_rows: int) -> int:
    """Rows of ``start .. stop - 1`` among the ``length`` rows from ``first`` on, cyclically over ``n_rows``."""
    end = first + length
    inside = max(0, min(end, n_rows, stop) - max(first, start))
    return inside + max(0, min(end - n_rows, stop) - start)


# --- rows and the spill area --------------------------------------------------------------------------------
# A game's state lives in its row of ``states`` (``spilled[game] == -1``), in a row of the spill area
# (``spilled[game] = k >= 0``: row k of the spill pool, rows of ``spill_capacity`` repetition keys), or in
# a full-size row of the vault (``spilled[game] = -2 - k``: row k of the vault pool). ``pools`` is
# ``(spill, spill_owner, spill_free, vault, vault_owner, vault_free)``: an owner entry is the game in
# that row (-1: free); a free list holds its length, then the free rows' indices.
#
# The row kernels below (current_row, make_room, settle_row, play_ply, new_game, seat_reward, keep_final_facts)
# are public for the loops of this package that step the rows, here and in mancala_envs.envs.learner_loop; like
# the templates, they are unchecked internals, out of __all__ (docs/architecture.md, "templates").
_SPILL, _VAULT = 0, 3


@njit(cache=True, inline="always", error_model="numpy")
def current_row(states: np.ndarray, pools: tuple, spilled: np.ndarray, game: int) -> np.ndarray:
    """Game ``game``'s state: its own row, or its spill or vault row while it has one."""
    slot = spilled[game]
    if slot >= 0:
        return pools[0][slot]
    if slot < -1:
        return pools[3][-2 - slot]
    return states[game]


def _new_pool(rows: int, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty pool: ``rows`` rows of ``width`` slots, their owners and the free list."""
    free = np.zeros(rows + 1, np.int64)
    free[0] = rows
    free[1:] = np.arange(rows - 1, -1, -1)
    return np.zeros((rows, width), np.int64), np.full(rows, -1, np.int64), free


@njit(cache=True, error_model="numpy")
def _take_row(pool: np.ndarray, owner: np.ndarray, free: np.ndarray, game: int) -> tuple:
    """A free row of ``pool`` for ``game``, from the free list (the pool doubles when none is free).

    Returns:
        The pool, its owner table and free list (new arrays if they grew) and the row's index.
    """
    if free[0] == 0:
        rows = pool.shape[0]
        grown = 2 * rows + 1
        bigger = np.zeros((grown, pool.shape[1]), np.int64)
        copy_rows(bigger, pool, rows)
        more = np.full(grown, -1, np.int64)
        copy_slots(more, owner, rows)
        free = np.zeros(grown + 1, np.int64)
        free[0] = grown - rows
        for i in range(grown - rows):
            free[1 + i] = grown - 1 - i
        pool, owner = bigger, more
    slot = free[free[0]]
    free[0] -= 1
    owner[slot] = game
    return pool, owner, free, slot


@njit(cache=True, inline="always", error_model="numpy")
def _give_back(owner: np.ndarray, free: np.ndarray, slot: int) -> None:
    owner[slot] = -1
    free[0] += 1
    free[free[0]] = slot


@njit(cache=True, inline="always", error_model="numpy")
def _release(pools: tuple, spilled: np.ndarray, game: int) -> None:
    """Gives back game ``game``'s spill or vault row, if it has one."""
    slot = spilled[game]
    if slot >= 0:
        _give_back(pools[1], pools[2], slot)
    elif slot < -1:
        _give_back(pools[4], pools[5], -2 - slot)
    spilled[game] = -1


@njit(cache=True, error_model="numpy")
def make_room(states: np.ndarray, pools: tuple, spilled: np.ndarray, game: int, history_start: int) -> tuple:
    """Before a ply of ``game``: moves it to a wider row (its own -> spill -> vault) if its repetition
    memory could outgrow the one it is in during the ply. Returns the pools (new arrays if they grew)."""
    if history_start == 0 or spilled[game] < -1:
        return pools
    row = current_row(states, pools, spilled, game)
    needed = row[HISTORY_LEN] + _KEYS_PER_PLY
    if needed <= row.shape[0] - history_start:
        return pools
    spill, spill_owner, spill_free, vault, vault_owner, vault_free = pools
    if spilled[game] == -1 and needed <= spill.shape[1] - history_start:
        spill, spill_owner, spill_free, slot = _take_row(spill, spill_owner, spill_free, game)
        copy_slots(spill[slot], row, row.shape[0])
        spilled[game] = slot
    else:
        vault, vault_owner, vault_free, slot = _take_row(vault, vault_owner, vault_free, game)
        copy_slots(vault[slot], row, row.shape[0])
        if spilled[game] >= 0:
            _give_back(spill_owner, spill_free, spilled[game])
        spilled[game] = -2 - slot
    return spill, spill_owner, spill_free, vault, vault_owner, vault_free


@njit(cache=True, inline="always", error_model="numpy")
def settle_row(states: np.ndarray, pools: tuple, spilled: np.ndarray, game: int, history_start: int) -> None:
    """After a ply: a game out of its row whose memory fits the row again (a capture cleared it) moves back."""
    if spilled[game] != -1:
        row = states[game]
        away = current_row(states, pools, spilled, game)
        if away[HISTORY_LEN] + _KEYS_PER_PLY <= row.shape[0] - history_start:
            copy_slots(row, away, row.shape[0])
            _release(pools, spilled, game)


@per_game(inline="always")
def play_ply(row: np.ndarray, params: np.ndarray, action: int, no_trace: np.ndarray) -> None:
    """Plays ``action`` in ``row`` through the game's one compiled ``step``, passing borrowed views.

    ``params`` and ``no_trace`` must be arguments of the calling kernel and ``row`` a row of one of its
    arguments (:func:`~mancala_envs.engine.board_views.borrowed_view`): the call then counts no references,
    which would cost a fifth of a ply.
    """
    game_step(borrowed_view(row), borrowed_view(params), action, borrowed_view(no_trace))


@per_game(inline="always")
def new_game(
    params: np.ndarray,
    states: np.ndarray,
    pools: tuple,
    spilled: np.ndarray,
    game: int,
    words: np.ndarray,
    first_player: int,
) -> None:
    """Starts game ``game`` afresh in its own row (giving back any other row); the first player is
    ``first_player``, or drawn from the game's generator when it is -1."""
    _release(pools, spilled, game)
    row = states[game]
    fill_slots(row, 0, row.shape[0], 0)
    first = first_player
    if first < 0:
        first = 1 if uniform(words[game]) < 0.5 else 0
    game_reset(row, params, first)


@njit(cache=True, inline="always", error_model="numpy")
def seat_reward(row: np.ndarray, player: int, reward_mode: int, points_slot: int) -> float:
    """``player``'s reward for the game that ended in ``row``."""
    if reward_mode == _MATCH_POINTS:
        return float(row[points_slot + player] - row[points_slot + 1 - player])
    if row[WINNER] < 0:
        return 0.0
    return 1.0 if row[WINNER] == player else -1.0


@njit(cache=True, inline="always", error_model="numpy")
def keep_final_facts(row: np.ndarray, game: int, points_slot: int, facts: np.ndarray) -> None:
    """Writes the first 8 of the :data:`FACT_COUNT` final facts of the game that ended in ``row`` into row
    ``game`` of ``facts``: winner, end reason, scores (2), points (2), plies, turns."""
    facts[game, 0] = row[WINNER]
    facts[game, 1] = row[END_REASON]
    facts[game, 2] = row[SCORE]
    facts[game, 3] = row[SCORE + 1]
    facts[game, 4] = row[points_slot]
    facts[game, 5] = row[points_slot + 1]
    facts[game, 6] = row[PLY]
    facts[game, 7] = row[TURN]


# --- both seats played by the caller ---------------------------------------------------------------------------
@per_game(nogil=True)
def _step_all(
    reset: bool,
    params: np.ndarray,
    history_start: int,
    states: np.ndarray,
    pools: tuple,
    spilled: np.ndarray,
    words: np.ndarray,
    first_player: int,
    reward_mode: int,
    points_slot: int,
    actions: np.ndarray,
    observation: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    final_observation: np.ndarray,
    facts: np.ndarray,
    no_trace: np.ndarray,
) -> tuple:
    """The batch's step (:meth:`BatchedGames.step`, :meth:`BatchedGames.reset`) as a per-game template:
    one ply in every game; the k-th game to end (in game order) leaves its final position and facts in
    row k of ``final_observation`` and ``facts`` (only the rows written become resident memory).

    With ``reset``, every game starts afresh instead. Both are one loop of one kernel, so that the batch
    compiles one kernel, with one call of each of the game's rules in it. A game whose action is -1 sits
    this step out: it is only observed.
    """
    scratch = np.empty(mask.shape[1], np.int8)
    ended = 0
    for game in range(states.shape[0]):
        restart = reset
        if not reset and actions[game] >= 0:
            pools = make_room(states, pools, spilled, game, history_start)
            row = current_row(states, pools, spilled, game)
            play_ply(row, params, actions[game], no_trace)
            if row[STATUS] != RUNNING:
                for seat in range(2):
                    rewards[game, seat] = seat_reward(row, seat, reward_mode, points_slot)
                    game_observe(row, params, seat, final_observation[ended, seat], scratch)
                truncated[game] = row[STATUS] == TRUNCATED
                terminated[game] = not truncated[game]
                keep_final_facts(row, ended, points_slot, facts)
                ended += 1
                restart = True
            else:
                settle_row(states, pools, spilled, game, history_start)
        if restart:
            new_game(params, states, pools, spilled, game, words, first_player)
        row = current_row(states, pools, spilled, game)
        player[game] = row[PLAYER]
        game_observe(row, params, row[PLAYER], observation[game], mask[game])
    return pools


@per_game()
def _play_out(row: np.ndarray, params: np.ndarray, generator: np.ndarray, room: int, no_trace: np.ndarray) -> int:
    """Uniformly random legal plies in ``row`` until its game ends or, when ``room`` >= 0, its repetition
    memory holds more than ``room`` keys (the row must grow first). Returns the plies played.

    A function of its own, with arrays that stay the same throughout, so that the per-ply loop does no
    reference counting; the arrays go to the game's ``step`` as borrowed views
    (:func:`~mancala_envs.engine.board_views.borrowed_view`), which it does not count either.
    """
    row = borrowed_view(row)
    params = borrowed_view(params)
    generator = borrowed_view(generator)
    no_trace = borrowed_view(no_trace)
    plies = 0
    while row[STATUS] == RUNNING:
        if room >= 0 and row[HISTORY_LEN] > room:
            return plies
        game_step(row, params, legal_action_at(row[LEGAL], uniform(generator)), no_trace)
        plies += 1
    return plies


@per_game(nogil=True)
def _play_random(
    params: np.ndarray,
    history_start: int,
    states: np.ndarray,
    pools: tuple,
    spilled: np.ndarray,
    words: np.ndarray,
    first_player: int,
    n_games: int,
    cursor: int,
    results: np.ndarray,
) -> tuple:
    """Plays uniformly random legal plies until ``n_games`` games have ended, one row at a time: the row
    at ``cursor`` plays its game to the end and starts a new one, then the next row (cyclically) does the
    same. Rows not reached are left as they are. Each game draws from its own generator, so the order
    changes no game's moves; playing a row's plies back to back keeps its state in the cache and its
    row lookups out of the per-ply loop.

    ``results``: plies, player-0 wins, player-1 wins, draws, truncations, longest game.

    Returns:
        The pools (new arrays if they grew) and the row to go on from.
    """
    no_trace = np.empty(0, np.int64)
    n_rows = states.shape[0]
    plies = 0
    for _ in range(n_games):
        game = cursor
        cursor = cursor + 1 if cursor + 1 < n_rows else 0
        while True:
            row = current_row(states, pools, spilled, game)
            # A vault row holds the whole memory: no limit there.
            room = row.shape[0] - history_start - _KEYS_PER_PLY if history_start > 0 and spilled[game] >= -1 else -1
            plies += _play_out(row, params, words[game], room, no_trace)
            if row[STATUS] != RUNNING:
                break
            pools = make_room(states, pools, spilled, game, history_start)
        if row[WINNER] >= 0:
            results[1 + row[WINNER]] += 1
        else:
            results[3] += 1
        if row[STATUS] == TRUNCATED:
            results[4] += 1
        results[5] = max(results[5], row[PLY])
        new_game(params, states, pools, spilled, game, words, first_player)
    results[0] += plies
    return pools, cursor


# --- the Python side ----------------------------------------------------------------------------------------------
class FinalInfo(NamedTuple):
    """What the games that ended in a step left, one entry per ended game (in game order).

    Attributes:
        index: The ended games' indices in the batch.
        observation: Their final positions, ``(k, 2, obs_size)`` int32 for :class:`BatchedGames` (each
            seat's egocentric view) or ``(k, obs_size)`` for the vector envs (the learner's view).
        winner: 0, 1, or -1 for a draw (of the match, in match variants).
        end_reason: The ``END_*`` code (the game's ``end_reason_names`` names it).
        scores: ``(k, 2)``: the final scores of the last game (seeds captured plus seeds collected).
        points: ``(k, 2)``: the match points (match variants) or the points of the game.
        plies: Agent decisions in the last game.
        turns: Completed turns in the last game (Omweso; 0 in the two-row games, where a ply is a turn).
    """

    index: np.ndarray  # type: ignore[assignment]  # a NamedTuple field named as tuple.index
    observation: np.ndarray
    winner: np.ndarray
    end_reason: np.ndarray
    scores: np.ndarray
    points: np.ndarray
    plies: np.ndarray
    turns: np.ndarray


class BatchStep(NamedTuple):
    """The result of :meth:`BatchedGames.reset` and :meth:`BatchedGames.step` (new arrays each call).

    Attributes:
        observation: ``(n_games, obs_size)`` int32: each game's observation for its player to move
            (after an auto-reset, the new game's opening).
        action_mask: ``(n_games, n_actions)`` bool: the legal actions of the player to move.
        current_player: ``(n_games,)`` int8: the player to move next, 0 or 1.
        rewards: ``(n_games, 2)`` float32: each seat's reward; non-zero only where a game ended.
        terminated: ``(n_games,)`` bool: the game ended by the rules (and was reset).
        truncated: ``(n_games,)`` bool: the game hit a cap (``max_plies``...) (and was reset).
        final: The ended games' final positions and results.
    """

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final: FinalInfo


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be written through (what the inspection properties hand out)."""
    view = array.view()
    view.flags.writeable = False
    return view


class GameRows:
    """The rows of ``n_games`` games of one game and config, with their spill area and generators.

    The base of :class:`BatchedGames` and of :class:`mancala_envs.envs.learner_loop.LearnerRows`, the engine of
    the vector envs. The compiled loops are this game's copies of per-game templates (:meth:`Game.compiled`),
    so a batch of one game compiles that game alone; :meth:`run_kernel` runs one over every part of the rows.

    Args:
        env_id: A registered game or variant, or a :class:`~mancala_envs.games.game.Game`.
        n_games: Games (rows).
        history_capacity: Repetition keys kept in each game's own row.
        options: Game options, ``first_player`` and ``reward_mode``.
        spill_capacity: Repetition keys of a spill row.
        threads: Threads that run the compiled loops, each on its own contiguous part of the rows, no more
            than ``n_games`` (``None``: :func:`available_cores`, one per :data:`ROWS_PER_DEFAULT_THREAD`
            games at most), from 1 to :data:`MAX_THREADS`. Results do not depend on it.
    """

    def __init__(
        self,
        env_id: str | Game,
        n_games: int,
        history_capacity: int,
        options: dict[str, Any],
        spill_capacity: int = _SPILL_KEYS,
        threads: int | None = None,
    ) -> None:
        from mancala_envs.envs.registration import make_game  # a lower layer ([tool.importlinter] in pyproject.toml)

        self.n_games = check_integer("n_games", n_games, 1)
        wanted = check_threads(threads)
        if threads is None:
            wanted = min(wanted, -(-self.n_games // ROWS_PER_DEFAULT_THREAD))
        history_capacity = check_integer("history_capacity", history_capacity, _KEYS_PER_PLY)
        spill_capacity = check_integer("spill_capacity", spill_capacity, _KEYS_PER_PLY)
        for name in ("illegal_action", "render_mode"):
            if name in options:
                raise TypeError(
                    f"batched games take no {name} option: illegal actions always raise IllegalActionError "
                    "(use the action masks), and there is nothing to render; use mancala_envs.make for one game."
                )
        if isinstance(env_id, Game):
            self.game = env_id
            self.env_id = env_id.env_name
            first_player = options.pop("first_player", None)
            reward_mode = options.pop("reward_mode", "win_loss")
            if options:
                raise TypeError(
                    f"unknown options {sorted(options)}; with a Game, pass only first_player and reward_mode."
                )
        else:
            first_player = options.pop("first_player", None)
            reward_mode = options.pop("reward_mode", "win_loss")
            self.game = make_game(env_id, **options)  # validates every game option with the config's messages
            self.env_id = env_id
        if first_player not in (None, 0, 1) or isinstance(first_player, bool):
            raise ValueError(f"first_player must be 0, 1 or None (drawn for each game); got {first_player!r}.")
        if reward_mode not in _REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {list(_REWARD_MODES)} (got {reward_mode!r}).")
        game = self.game
        self.first_player = first_player
        self.reward_mode = reward_mode
        self._first = -1 if first_player is None else int(first_player)
        self._reward_mode = _REWARD_MODES[reward_mode]
        self._points_slot = MATCH if game.is_match else POINTS
        self.n_actions = game.n_actions
        self.observation_size = game.observation_size
        self._params = game.params
        history = game.history_start
        self._history_start = history
        self._step_all = game.compiled(_step_all)
        self._play_random = game.compiled(_play_random)
        full = game.state_size
        width = min(full, history + history_capacity) if history else full
        self.history_capacity = width - history if history else 0
        self._states = np.zeros((self.n_games, width), np.int64)
        spill_width = min(full, max(width, history + spill_capacity)) if history else full
        rows = 8 if history else 0
        # Each part of the rows has its own pools: its thread alone takes and gives back their rows.
        self._parts = _parts(self.n_games, wanted)
        #: threads that run the compiled loops (the parts of the rows)
        self.threads = len(self._parts)
        self._starts = np.array([start for start, _stop in self._parts], np.int64)
        self._pools = [(*_new_pool(rows, spill_width), *_new_pool(rows, full)) for _part in self._parts]
        self._workers: ThreadPoolExecutor | None = None
        self._spilled = np.full(self.n_games, -1, np.int64)
        self._game_index = np.arange(self.n_games)
        self._words = new_words(np.random.default_rng(), self.n_games)
        self._has_reset = False
        self._cursor = 0  # the row where play_random goes on

    # --- inspection ---------------------------------------------------------------------------------------
    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of engine state per game in the batch (its row and its generator; the spill area,
        shared and usually a few rows, is not counted)."""
        return self._states.shape[1] * 8 + self._words.shape[1] * 8

    @property
    def spilled_games(self) -> int:
        """Games whose repetition memory is out of their own row right now (in the spill area or the vault)."""
        return int((self._spilled != -1).sum())

    @property
    def has_reset(self) -> bool:
        """Whether the games were started (:meth:`BatchedGames.reset`, or a :meth:`run_kernel` call with
        ``starts``) since the batch was built."""
        return self._has_reset

    @property
    def cursor(self) -> int:
        """The row where the next :meth:`BatchedGames.play_random` call starts (row 0 after a reset); each call
        moves it on by the games it played, cyclically over the rows."""
        return self._cursor

    @property
    def states(self) -> np.ndarray:
        """Every game's engine state row, ``(n_games, width)`` int64, as a read-only view (for inspection;
        :meth:`state` gives one game's whole state, its spilled repetition memory included)."""
        return _read_only(self._states)

    @property
    def generator_words(self) -> np.ndarray:
        """Every game's random-generator state, ``(n_games, 4)`` int64, as a read-only view."""
        return _read_only(self._words)

    @property
    def spill_slots(self) -> np.ndarray:
        """Where each game's repetition memory is, ``(n_games,)`` int64 read-only: ``-1`` in its own row, ``-2``
        or less in the vault, another value a row of the spill area."""
        return _read_only(self._spilled)

    def state(self, game: int) -> np.ndarray:
        """A copy of game ``game``'s engine state, in the full layout of ``game.new_state`` (what
        ``MancalaEnv.state_array`` holds; memory slots beyond ``HISTORY_LEN`` are 0)."""
        game = check_integer("game", game, 0, self.n_games - 1)
        full = np.zeros(self.game.state_size, np.int64)
        row = self._row_of(game)
        full[: row.shape[0]] = row
        if self._history_start:
            full[self._history_start + int(row[HISTORY_LEN]) :] = 0
        return full

    def _column(self, slot: int) -> np.ndarray:
        """One header slot of every game (spilled games read from their spill rows)."""
        values = self._states[:, slot].copy()
        for game in np.flatnonzero(self._spilled != -1):  # most steps: none
            values[game] = self._row_of(int(game))[slot]
        return values

    def _row_of(self, game: int) -> np.ndarray:
        slot = int(self._spilled[game])
        pools = self._pools[int(np.searchsorted(self._starts, game, side="right")) - 1]
        if slot >= 0:
            return pools[0][slot]
        if slot < -1:
            return pools[3][-2 - slot]
        return self._states[game]

    # --- the threads -------------------------------------------------------------------------------------------
    def in_parts(self, call: Callable[[int, slice], T]) -> list[T]:
        """``call(part, rows)`` for every part of the rows (``rows``: its slice), each part in its own thread
        (the first in this one); returns the results in the parts' order, after every call has returned."""
        if len(self._parts) == 1:
            return [call(0, slice(*self._parts[0]))]
        if self._workers is None:
            self._workers = ThreadPoolExecutor(len(self._parts) - 1, thread_name_prefix="mancala-rows")
        others: list[Future[T]] = [
            self._workers.submit(call, part, slice(start, stop))
            for part, (start, stop) in enumerate(self._parts[1:], 1)
        ]
        try:
            first = call(0, slice(*self._parts[0]))
        finally:  # no thread may still be writing the rows when this returns or raises
            wait(others)
        return [first, *(other.result() for other in others)]

    def run_kernel(
        self, kernel: Callable[..., tuple], shared: tuple[Any, ...], per_game: tuple[np.ndarray, ...], *, starts: bool
    ) -> None:
        """Runs a compiled loop over the rows, each part of them in its own thread (:meth:`in_parts`).

        Each part's call is ``kernel(params, history_start, states, pools, spilled, words, first_player,
        reward_mode, points_slot, *shared, *per_game_rows, NO_TRACE)``: the rows' own arrays and settings
        (the part's slices of the per-game ones), then ``shared`` as given, then each array of ``per_game``
        (``n_games`` rows first) sliced to the part's rows. The kernel must return the part's pools (new
        arrays when it grew them, as :func:`make_room` returns them), which the rows keep.

        Args:
            kernel: A compiled copy of a per-game template for this batch's game (:meth:`Game.compiled`).
            shared: Arguments every part gets whole.
            per_game: Arrays of one row per game, each part getting its rows.
            starts: The kernel starts every game: the rows count as started (:attr:`has_reset`) afterwards.
        """

        def run(part: int, rows: slice) -> None:
            self._pools[part] = kernel(
                self._params,
                self._history_start,
                self._states[rows],
                self._pools[part],
                self._spilled[rows],
                self._words[rows],
                self._first,
                self._reward_mode,
                self._points_slot,
                *shared,
                *(array[rows] for array in per_game),
                NO_TRACE,
            )

        self.in_parts(run)
        if starts:
            self._has_reset = True

    def __getstate__(self) -> dict[str, Any]:
        """Pickles and deep copies leave out the worker threads (a lock and a queue cannot be copied); the copy
        starts its own at its first step on several parts."""
        state = self.__dict__.copy()
        state["_workers"] = None
        return state

    def close(self) -> None:
        """Stops the worker threads (a later call starts them again)."""
        if self._workers is not None:
            self._workers.shutdown()
            self._workers = None

    # --- checks ---------------------------------------------------------------------------------------------
    def seed(self, seed: int | list[int] | None) -> None:
        """Seeds the games' generators: an int seeds them all from one stream (game ``i``'s stream
        depends only on the seed and ``i``), a list gives each game its own seed, ``None`` continues."""
        if isinstance(seed, (list, tuple)):
            if len(seed) != self.n_games:
                raise ValueError(f"a list of seeds needs one per game ({self.n_games}); got {len(seed)}.")
            words = []
            for value in seed:
                if value is None:
                    raise ValueError("a list of seeds cannot hold None; pass one int per game, or seed=None.")
                words.append(new_words(np.random.default_rng(check_integer("seed", value, 0)), 1)[0])
            self._words = np.array(words, np.int64)
            return
        self._seed(seed)

    def _seed(self, seed: int | None) -> None:
        if seed is not None:
            seed = check_seed(seed)
            self._words = new_words(np.random.default_rng(int(seed)), self.n_games)  # type: ignore[arg-type]  # not None here

    def check_actions(
        self, actions: Any, skip: np.ndarray | None = None, masks: np.ndarray | None = None
    ) -> np.ndarray:
        """The actions as an int64 array, after checking their form
        (:func:`~mancala_envs.common.validation.check_action_array`: exact shape, integer dtype, range, also in the
        games that ``skip`` marks) and legality (not in the games that ``skip`` marks, whose actions are ignored).

        ``masks`` (``(n_games, n_actions)``, non-zero where legal), when the caller holds the masks of the
        players to move, saves reading the legal moves from the games' states.
        """
        if not self._has_reset:
            raise RuntimeError("step() was called before reset(); call reset() first.")
        array = check_action_array(actions, self.n_games, self.n_actions)  # the one rule of every door
        legal = None if masks is not None else self._column(LEGAL)
        illegal = masks[self._game_index, array] == 0 if legal is None else ((legal >> array) & 1) == 0  # type: ignore[index]  # masks is set when legal is None
        if skip is not None:
            illegal &= ~skip
        if illegal.any():
            bad = np.flatnonzero(illegal)
            first = int(bad[0])
            legal = self._column(LEGAL) if legal is None else legal
            moves = [a for a in range(self.n_actions) if (int(legal[first]) >> a) & 1]
            raise IllegalActionError(
                f"illegal actions in games {bad[:5].tolist()}{' ...' if bad.size > 5 else ''}: game {first} "
                f"got {int(array[first])}, its legal actions are {moves}. Choose from the action masks."
            )
        return array

    def new_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh ``(n_games, obs_size)`` int32 observation and ``(n_games, n_actions)`` int8 mask arrays."""
        n = self.n_games
        return np.empty((n, self.observation_size), np.int32), np.empty((n, self.n_actions), np.int8)


class BatchedGames(GameRows):
    """``n_games`` games of one game and config, both seats played by the caller, stepped together.

    Args:
        env_id: A registered game or variant (``"ouril_v0"``, ``"mancala/urim-match-v0"``...) or a
            :class:`~mancala_envs.games.game.Game`.
        n_games: Games in the batch.
        history_capacity: Repetition keys kept in each game's own row (at least 3); a game that needs
            more moves to the shared spill area until a capture clears its memory. Smaller saves memory.
        spill_capacity: Repetition keys of a spill row (default 160); a game that needs more still moves
            to a full-size row of the vault.
        threads: Threads that step the games, each its own contiguous part of the rows (``None``, the
            default: every core this process may run on, one per 64 games at most; ``1``: the calling
            thread alone; at most :data:`MAX_THREADS`, 256). The results are the same whatever the count.
        **options: Game options and ``first_player`` (``None``: drawn for each game from its
            generator) and ``reward_mode`` (``"win_loss"`` or ``"match_points"``), as for
            :func:`mancala_envs.make`.

    Raises:
        ValueError / TypeError: an unknown id, invalid options or counts (the env's own messages).
    """

    def __init__(
        self,
        env_id: str | Game = "ouril_v0",
        n_games: int = 1024,
        *,
        history_capacity: int = DEFAULT_HISTORY_CAPACITY,
        spill_capacity: int = _SPILL_KEYS,
        threads: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(env_id, n_games, history_capacity, options, spill_capacity, threads)

    def reset(self, seed: int | None = None) -> BatchStep:
        """Starts every game afresh.

        Args:
            seed: Seeds the games' generators (first players and ``play_random``'s moves); game ``i``'s
                stream depends only on the seed and ``i``. ``None`` continues the generators.
        """
        self._seed(seed)
        observation, mask = self.new_outputs()
        n = self.n_games
        player = np.empty(n, np.int8)
        zeros = np.zeros(n, bool)
        self._run_step(
            True,
            np.zeros(n, np.int64),
            observation,
            mask,
            player,
            np.zeros((n, 2), np.float32),
            zeros,
            zeros.copy(),
            np.empty((0, 2, 0), np.int32),
            np.empty((0, FACT_COUNT), np.int64),
        )
        self._has_reset = True
        self._cursor = 0
        return BatchStep(
            observation,
            mask.view(bool),
            player,
            np.zeros((n, 2), np.float32),
            zeros,
            zeros.copy(),
            self._final(
                np.empty(0, np.int64),
                np.empty((0, 2, self.observation_size), np.int32),
                np.empty((0, FACT_COUNT), np.int64),
            ),
        )

    def step(self, actions: Any, playing: Any = None) -> BatchStep:
        """Plays one action in every game (or in the games ``playing`` marks), for its player to move;
        ended games start again.

        Args:
            actions: ``(n_games,)`` integers, each legal for its game's player to move (the actions of games
                that ``playing`` leaves out are ignored, but must be integers in range like the others).
            playing: ``None`` (every game plays) or ``(n_games,)`` bool: the games that play this step. The
                others are not changed; their observations, masks and players are returned as they are.

        Raises:
            RuntimeError: ``step`` before ``reset``.
            TypeError: actions not integers.
            ValueError: wrong shape, or an action out of ``0 .. n_actions - 1``.
            IllegalActionError: an action its game does not allow. Nothing is played then.
        """
        if playing is None:
            actions = self.check_actions(actions)
        else:
            playing = np.asarray(playing)
            if playing.shape != (self.n_games,) or playing.dtype != np.bool_:
                raise ValueError(
                    f"playing must be a bool array of shape ({self.n_games},), one flag per game "
                    f"(got {playing.dtype} {playing.shape})."
                )
            actions = self.check_actions(actions, skip=~playing)
            actions = np.where(playing, actions, -1)
        n = self.n_games
        observation, mask = self.new_outputs()
        player = np.empty(n, np.int8)
        rewards = np.zeros((n, 2), np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        # Each part writes from its first row up, one row per ended game: untouched pages cost no memory.
        final_observation = np.empty((n, 2, self.observation_size), np.int32)
        facts = np.empty((n, FACT_COUNT), np.int64)
        self._run_step(
            False, actions, observation, mask, player, rewards, terminated, truncated, final_observation, facts
        )
        ended = terminated | truncated
        # The ended games of each part, in game order: the first rows of the part's slice.
        kept = [slice(start, start + int(ended[start:stop].sum())) for start, stop in self._parts]
        if len(kept) == 1:
            final_observation, facts = final_observation[kept[0]], facts[kept[0]]
        else:
            final_observation = np.concatenate([final_observation[rows] for rows in kept])
            facts = np.concatenate([facts[rows] for rows in kept])
        return BatchStep(
            observation,
            mask.view(bool),
            player,
            rewards,
            terminated,
            truncated,
            self._final(np.flatnonzero(ended), final_observation, facts),
        )

    def _run_step(
        self,
        reset: bool,
        actions: np.ndarray,
        observation: np.ndarray,
        mask: np.ndarray,
        player: np.ndarray,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        final_observation: np.ndarray,
        facts: np.ndarray,
    ) -> None:
        """``_step_all`` on every part of the rows; a part's ended games fill the first rows of its slice of
        ``final_observation`` and ``facts`` (with ``reset``, these are empty and stay so)."""
        reset_outputs = final_observation.shape[0] == 0

        def step(part: int, rows: slice) -> None:
            finals = (final_observation, facts) if reset_outputs else (final_observation[rows], facts[rows])
            self._pools[part] = self._step_all(
                reset,
                self._params,
                self._history_start,
                self._states[rows],
                self._pools[part],
                self._spilled[rows],
                self._words[rows],
                self._first,
                self._reward_mode,
                self._points_slot,
                actions[rows],
                observation[rows],
                mask[rows],
                player[rows],
                rewards[rows],
                terminated[rows],
                truncated[rows],
                *finals,
                NO_TRACE,
            )

        self.in_parts(step)

    def play_random(self, n_games: int) -> RolloutStats:
        """Plays uniformly random legal moves, in compiled code, until ``n_games`` games have ended
        (raw engine throughput).

        The rows take turns: a row plays its current game to the end (going on from where it is) and
        starts a new one, then the next row does the same, cyclically from where the previous call
        stopped (row 0 after ``reset``). The moves come from each game's generator, so a seeded
        ``reset`` makes it reproducible, and the order of the rows changes no game's moves.

        So each row's share of the ``n_games`` games is fixed before any is played, and with several
        threads each part of the rows plays its rows' shares, in the same cyclic order: the games
        played, and the statistics, are the same whatever the thread count.
        """
        n_games = check_integer("n_games", n_games, 0)
        if not self._has_reset:
            raise RuntimeError("play_random() was called before reset(); call reset(seed) first.")
        cursor, n_rows = self._cursor, self.n_games
        # every row plays ``laps`` games, the ``rest`` rows from the cursor one more
        laps, rest = divmod(n_games, n_rows)

        def play(part: int, rows: slice) -> np.ndarray:
            results = np.zeros(6, np.int64)
            games = laps * (rows.stop - rows.start) + _overlap(rows.start, rows.stop, cursor, rest, n_rows)
            if games:
                # The part's rows take turns from the cursor if it is in the part, else from its first row.
                start = cursor - rows.start if rows.start <= cursor < rows.stop else 0
                self._pools[part], _end = self._play_random(
                    self._params,
                    self._history_start,
                    self._states[rows],
                    self._pools[part],
                    self._spilled[rows],
                    self._words[rows],
                    self._first,
                    games,
                    start,
                    results,
                )
            return results

        parts = np.array(self.in_parts(play))
        self._cursor = (cursor + n_games) % n_rows
        total = parts.sum(axis=0)
        return RolloutStats(
            games=n_games,
            plies=int(total[0]),
            wins=(int(total[1]), int(total[2])),
            draws=int(total[3]),
            truncated=int(total[4]),
            longest=int(parts[:, 5].max()),
        )

    @staticmethod
    def _final(ended: np.ndarray, final_observation: np.ndarray, facts: np.ndarray) -> FinalInfo:
        k = ended.shape[0]
        facts = facts[:k]
        return FinalInfo(
            index=ended,
            observation=final_observation[:k].copy(),
            winner=facts[:, 0].astype(np.int8),
            end_reason=facts[:, 1].astype(np.int8),
            scores=facts[:, 2:4].astype(np.int32),
            points=facts[:, 4:6].astype(np.int32),
            plies=facts[:, 6].astype(np.int32),
            turns=facts[:, 7].astype(np.int32),
        )

    @property
    def step_kernel(self) -> Any:
        """This game's compiled copy of the batch's step loop (the per-game template that :meth:`step` and
        :meth:`reset` run on every part of the rows), for inspection: a numba dispatcher, whose ``overloads``
        hold the machine code compiled or loaded for it (the plain Python copy when numba's JIT is off)."""
        return self._step_all

    def __repr__(self) -> str:
        return f"BatchedGames({self.env_id!r}, n_games={self.n_games})"


def play_random(
    env_id: str | Game = "ouril_v0",
    n_games: int = 10_000,
    *,
    batch_size: int = 256,
    seed: int = 0,
    threads: int | None = None,
    **options: Any,
) -> RolloutStats:
    """Plays ``n_games`` games of uniformly random legal moves, ``batch_size`` at a time, in compiled code.

    Args:
        env_id: A registered game or variant, or a Game.
        n_games: Games to finish.
        batch_size: Rows of the batch; they take turns, each playing its game to the end.
        seed: Seeds the games' generators.
        threads: Threads that play, each on its own part of the rows (``None``: every core this process may
            run on, one per 64 rows at most). The games played and the statistics are the same whatever the count.
        **options: Game options, as for :func:`mancala_envs.make`.

    Example:
        >>> from mancala_envs.envs.batch import play_random
        >>> stats = play_random("ouril_v0", 100, seed=1)
        >>> stats.games, stats.wins[0] + stats.wins[1] + stats.draws
        (100, 100)
    """
    games = BatchedGames(env_id, check_integer("batch_size", batch_size, 1), threads=threads, **options)
    games.reset(seed=seed)
    try:
        return games.play_random(n_games)
    finally:
        games.close()
