"""Compiled random play: many whole games in one call, for raw engine throughput.

The games' compiled rules are reached through a static switch on the game id
(numba cannot cache functions that receive other compiled functions as
arguments), so each new game adds one branch to :func:`reset_game` and
:func:`step_game`, which other compiled code (``benchmarks/soak.py``) calls too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from mancala_envs.engine.state import (
    CLOSED,
    FIRST_MOVE_DONE,
    LEGAL,
    MATCH,
    OK,
    PLAYER,
    PLY,
    RESERVE,
    RUNNING,
    STATUS,
    STORE,
    WINNER,
)
from mancala_envs.games import modiar, omweso, ouril, rio_kadalis, urim
from mancala_envs.games.base import Game
from mancala_envs.games.two_row import MAX_PLIES, ROW_SIZE, observe_two_row

__all__ = [
    "RolloutStats",
    "greedy_action",
    "greedy_gains",
    "legal_action_at",
    "observe_game",
    "play_random_games",
    "play_random_replies",
    "play_turn_against_random",
    "random_legal_action",
    "reset_game",
    "step_game",
]


@njit(cache=True, error_model="numpy")
def reset_game(game_id: int, state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """Starts a new game (and match) of the game ``game_id`` in ``state``."""
    if game_id == ouril.GAME_ID:
        ouril.reset_state(state, params, first_player)
    elif game_id == urim.GAME_ID:
        urim.reset_state(state, params, first_player)
    elif game_id == modiar.GAME_ID:
        modiar.reset_state(state, params, first_player)
    elif game_id == rio_kadalis.GAME_ID:
        rio_kadalis.reset_state(state, params, first_player)
    elif game_id == omweso.GAME_ID:
        omweso.reset_state(state, params, first_player)
    else:
        raise ValueError("no compiled branch for this game id; add one to mancala_envs.rollout")


@njit(cache=True, error_model="numpy")
def step_game(game_id: int, state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """Plays ``action`` in a game of ``game_id``; returns the step code (``OK``, ``ILLEGAL``, ``GAME_OVER``)."""
    if game_id == ouril.GAME_ID:
        return ouril.step(state, params, action, trace)
    if game_id == urim.GAME_ID:
        return urim.step(state, params, action, trace)
    if game_id == modiar.GAME_ID:
        return modiar.step(state, params, action, trace)
    if game_id == rio_kadalis.GAME_ID:
        return rio_kadalis.step(state, params, action, trace)
    if game_id == omweso.GAME_ID:
        return omweso.step(state, params, action, trace)
    raise ValueError("no compiled branch for this game id; add one to mancala_envs.rollout")


@njit(cache=True, error_model="numpy")
def observe_game(
    game_id: int, state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray
) -> None:
    """Writes ``player``'s egocentric observation (the game's documented index table) and action mask.

    ``mask`` is 0/1 for every action; all 0 unless ``player`` is to move in a running game. This is
    the one implementation behind :meth:`Game.observe_with_mask`, the PettingZoo envs, the batched
    games and the vector envs.
    """
    if game_id == omweso.GAME_ID:
        omweso.observe_omweso(state, params, player, observation, mask)
        if params[omweso.P_MATCH_TARGET] > 0:
            size = omweso.N_PITS + len(omweso.OBSERVATION_FLAGS) + 1
            observation[size] = state[MATCH + player]
            observation[size + 1] = state[MATCH + 1 - player]
        return
    n = params[ROW_SIZE]
    observe_two_row(state, player, n, params[MAX_PLIES], observation, mask)
    extra = 2 * n + 5
    if game_id == modiar.GAME_ID:
        observation[extra] = 1 if state[STATUS] == RUNNING and state[FIRST_MOVE_DONE] == 0 else 0
    elif game_id == urim.GAME_ID:
        if params[urim.MATCH_TARGET] > 0:
            observation[extra] = state[MATCH + player]
            observation[extra + 1] = state[MATCH + 1 - player]
    elif game_id == rio_kadalis.GAME_ID:
        if params[rio_kadalis.MATCH_MODE] != 0:
            closed = state[CLOSED]
            for i in range(2 * n):
                observation[extra + i] = (closed >> ((player * n + i) % (2 * n))) & 1
            observation[extra + 2 * n] = state[RESERVE + player]
            observation[extra + 2 * n + 1] = state[RESERVE + 1 - player]
    elif game_id != ouril.GAME_ID:
        raise ValueError("no compiled branch for this game id; add one to mancala_envs.rollout")


@njit(cache=True, inline="always", error_model="numpy")
def _count_bits(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True, inline="always", error_model="numpy")
def _set_bit(bits: int, pick: int) -> int:
    """The index of the ``pick``-th (from 0) set bit of ``bits``, which has more than ``pick`` set bits."""
    action = 0
    while True:
        if bits & 1:
            if pick == 0:
                return action
            pick -= 1
        bits >>= 1
        action += 1


@njit(cache=True, error_model="numpy")
def random_legal_action(legal: int) -> int:
    """Draws one set bit of ``legal`` uniformly with numba's generator (-1 if none)."""
    count = _count_bits(legal)
    if count == 0:
        return -1
    return _set_bit(legal, np.random.randint(count))


@njit(cache=True, error_model="numpy")
def legal_action_at(legal: int, draw: float) -> int:
    """The legal action that a uniform ``draw`` in [0, 1) selects: the ``int(draw * count)``-th set bit
    of ``legal`` (-1 if no bit is set)."""
    count = _count_bits(legal)
    if count == 0:
        return -1
    return _set_bit(legal, min(int(draw * count), count - 1))


@njit(cache=True, error_model="numpy")
def play_random_replies(
    game_id: int, state: np.ndarray, params: np.ndarray, player: int, draws: np.ndarray, trace: np.ndarray
) -> tuple[int, int]:
    """Plays uniformly random legal actions for ``player`` while the game runs and ``player`` is to move.

    Each ply uses the next of ``draws`` (uniform numbers in [0, 1)), so a seeded caller stays
    deterministic; the plies stop early when the draws run out. Omweso's mid-turn choices are
    answered the same way, as they keep ``player`` to move.

    Returns:
        The number of plies played and the last action (-1 if none).
    """
    plies = 0
    action = -1
    while state[STATUS] == RUNNING and state[PLAYER] == player and plies < draws.shape[0]:
        action = legal_action_at(state[LEGAL], draws[plies])
        step_game(game_id, state, params, action, trace)
        plies += 1
    return plies, action


@njit(cache=True, inline="always", error_model="numpy")
def _gain(game_id: int, state: np.ndarray, params: np.ndarray, trial: np.ndarray, action: int) -> int:
    """The mover's store minus the opponent's after ``action``, played on ``trial`` (a copy of ``state``)."""
    player = state[PLAYER]
    trial[:] = state
    step_game(game_id, trial, params, action, np.empty(0, np.int64))
    return trial[STORE + player] - trial[STORE + 1 - player]


@njit(cache=True, error_model="numpy")
def greedy_gains(game_id: int, state: np.ndarray, params: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """For each of ``actions`` (legal ones), the mover's store minus the opponent's after playing it
    on a copy of ``state`` (the greedy baseline's score of a move)."""
    trial = np.empty_like(state)
    gains = np.empty(actions.shape[0], np.int64)
    for i in range(actions.shape[0]):
        gains[i] = _gain(game_id, state, params, trial, actions[i])
    return gains


@njit(cache=True, error_model="numpy")
def greedy_action(game_id: int, state: np.ndarray, params: np.ndarray, trial: np.ndarray, draw: float) -> int:
    """The greedy baseline's move: the legal action with the best :func:`greedy_gains` score, ties
    broken by the uniform ``draw`` in [0, 1) (the ``int(draw * ties)``-th best, in action order).

    ``trial`` is scratch space the size of ``state``; -1 if no action is legal.
    """
    legal = state[LEGAL]
    gains = np.empty(64, np.int64)
    best = np.iinfo(np.int64).min
    ties = 0
    action = 0
    while legal >> action:
        if (legal >> action) & 1:
            gain = _gain(game_id, state, params, trial, action)
            gains[action] = gain
            if gain > best:
                best = gain
                ties = 1
            elif gain == best:
                ties += 1
        action += 1
    if ties == 0:
        return -1
    pick = min(int(draw * ties), ties - 1)
    action = 0
    while True:
        if (legal >> action) & 1 and gains[action] == best:
            if pick == 0:
                return action
            pick -= 1
        action += 1


@njit(cache=True, error_model="numpy")
def play_turn_against_random(
    game_id: int, state: np.ndarray, params: np.ndarray, action: int, draws: np.ndarray, trace: np.ndarray
) -> tuple[int, int, int]:
    """Plays ``action`` for the player to move, then random replies for the other player
    (:func:`play_random_replies`) while the other player is to move.

    Returns:
        The step code of ``action`` (nothing else is played unless it is ``OK``), the number of
        replies and the last reply (-1 if none). ``trace`` holds the record of the last ply played.
    """
    mover = state[PLAYER]
    code = step_game(game_id, state, params, action, trace)
    if code != OK:
        return code, 0, -1
    plies, reply = play_random_replies(game_id, state, params, 1 - mover, draws, trace)
    return code, plies, reply


@njit(cache=True, error_model="numpy")
def _play(game_id: int, params: np.ndarray, state_size: int, n_games: int, seed: int) -> np.ndarray:
    np.random.seed(seed)
    state = np.zeros(state_size, np.int64)
    no_trace = np.empty(0, np.int64)
    # results[0] plies, [1] player-0 wins, [2] player-1 wins, [3] draws, [4] truncations, [5] longest game
    results = np.zeros(6, np.int64)
    for game in range(n_games):
        reset_game(game_id, state, params, game % 2)
        while state[STATUS] == RUNNING:
            action = random_legal_action(state[LEGAL])
            step_game(game_id, state, params, action, no_trace)
            results[0] += 1
        if state[WINNER] == 0:
            results[1] += 1
        elif state[WINNER] == 1:
            results[2] += 1
        else:
            results[3] += 1
        if state[STATUS] != 1:
            results[4] += 1
        results[5] = max(results[5], state[PLY])
    return results


@dataclass(frozen=True)
class RolloutStats:
    """What :func:`play_random_games` saw.

    Attributes:
        games: Games played.
        plies: Agent decisions over all games.
        wins: Games won by player 0 and by player 1.
        draws: Drawn games.
        truncated: Games ended by a cap (``max_plies``/``max_games``).
        longest: Plies in the longest game.
    """

    games: int
    plies: int
    wins: tuple[int, int]
    draws: int
    truncated: int
    longest: int


def play_random_games(game: Game, n_games: int, seed: int = 0) -> RolloutStats:
    """Plays ``n_games`` games of uniformly random legal moves in compiled code.

    The players alternate as first player. Deterministic for a given seed.

    Args:
        game: The game and config to play (e.g. ``Ouril()``).
        n_games: How many games.
        seed: Seed of numba's generator.

    Example:
        >>> from mancala_envs.games.ouril import Ouril
        >>> stats = play_random_games(Ouril(), 10, seed=1)
        >>> stats.games, stats.wins[0] + stats.wins[1] + stats.draws
        (10, 10)
    """
    if not isinstance(game, Game):
        raise TypeError(f"game must be a mancala_envs Game such as Ouril() (got {type(game).__name__}).")
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games must be a non-negative integer (got {n_games!r}).")
    results = _play(game.game_id, game.params, game.state_size, int(n_games), int(seed))
    return RolloutStats(
        games=int(n_games),
        plies=int(results[0]),
        wins=(int(results[1]), int(results[2])),
        draws=int(results[3]),
        truncated=int(results[4]),
        longest=int(results[5]),
    )
