"""The vector envs' learner loop: one learner per game against a compiled opponent, stepped by one compiled call.

:class:`LearnerRows` is the engine of :class:`mancala_envs.views.vector_env.MancalaVectorEnv`: the rows of
:class:`~mancala_envs.envs.batch.GameRows` (one game each, with its spill area and generator), stepped by
:meth:`LearnerRows.step_learners`. In every game the learner's action is played, then the opponent's plies
until the learner is to move again or the game ends; an ended game starts a new episode, whose learner seat
and opponent (one of a pool of compiled agents) are drawn from the game's generator.

The loop is a per-game template (:mod:`mancala_envs.engine.kernels`), ``_step_learners``, compiled for the
batch's game and for the kinds of opponent it meets alone (``OPPONENT_KINDS``); it shares the rows' kernels
of :mod:`mancala_envs.envs.batch` (``current_row``, ``make_room``, ``new_game``...), so a learner's game
goes through the very plies, spill rows and rewards of the batched games.

Example:
    >>> import numpy as np
    >>> from mancala_envs.envs.learner_loop import LearnerRows
    >>> rows = LearnerRows("ouril_v0", 2, 24, {"first_player": 0})
    >>> n = rows.n_games
    >>> seats, drawn, counters = np.zeros(n, np.int8), np.zeros(n, np.int64), np.zeros(n, np.int64)
    >>> opponents = rows.learner_opponents([(0, 0)])  # one opponent: random play (kind 0)
    >>> observation, mask = rows.reset_learners(0, seats, opponents, drawn, counters.copy(), counters.copy(),
    ...                                         np.zeros(n, np.float64))
    >>> observation.shape, mask.shape, seats.tolist()
    ((2, 17), (2, 6), [0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mancala_envs.algorithms.tree_search import ALPHABETA, MCTS, OPPONENT_KINDS, choose_move, opponent_kinds
from mancala_envs.engine.arrays import copy_slots, fill_slots
from mancala_envs.engine.kernels import game_observe, per_game
from mancala_envs.engine.prng import uniform
from mancala_envs.engine.state import PLAYER, RUNNING, STATUS, TRUNCATED
from mancala_envs.envs.batch import (
    DEFAULT_HISTORY_CAPACITY,
    FACT_COUNT,
    GameRows,
    current_row,
    keep_final_facts,
    make_room,
    new_game,
    play_ply,
    seat_reward,
    settle_row,
)
from mancala_envs.games.game import Game

__all__ = ["MAX_OPENINGS", "OPENINGS_REFUSAL", "LearnerRows"]

#: the kinds of compiled opponent that look ahead on a copy of the row (``OPPONENT_KINDS`` bits)
_SEARCH_BITS = opponent_kinds([ALPHABETA, MCTS])
#: new games in a row that the opponent's opening may end before the learner's first move, before a learner
#: loop (and :class:`~mancala_envs.views.single_agent_env.SingleAgentEnv`) gives up: on a board where the
#: first player's turn always ends the game (Kalah on 2x1 with 1 to 4 seeds a pit), a learner who always sits
#: second never moves
MAX_OPENINGS = 10_000
#: the refusal raised then (``ValueError``)
OPENINGS_REFUSAL = (
    f"the opponent's opening ended {MAX_OPENINGS} new games in a row before the learner's first move: "
    "with this board, learner_seat and first_player the learner never moves; let the learner start some games "
    "(learner_seat=None or first_player=None) or choose a larger board."
)


@per_game(inline="always")
def _start_episode(
    params: np.ndarray,
    states: np.ndarray,
    pools: tuple,
    spilled: np.ndarray,
    words: np.ndarray,
    game: int,
    first_player: int,
    learner_seat: int,
    seats: np.ndarray,
    members: int,
    drawn: np.ndarray,
) -> int:
    """A new game in row ``game`` with the learner's seat drawn (or ``learner_seat``) and, from a pool of
    ``members`` opponents, the one it plays drawn into ``drawn`` (one opponent: no draw); returns the seat."""
    if learner_seat < 0:
        seats[game] = 1 if uniform(words[game]) < 0.5 else 0
    else:
        seats[game] = learner_seat
    if members > 1:
        drawn[game] = min(int(uniform(words[game]) * members), members - 1)
    new_game(params, states, pools, spilled, game, words, first_player)
    return seats[game]


@per_game(nogil=True)
def _step_learners(
    params: np.ndarray,
    history_start: int,
    states: np.ndarray,
    pools: tuple,
    spilled: np.ndarray,
    words: np.ndarray,
    first_player: int,
    reward_mode: int,
    points_slot: int,
    learner_seat: int,
    opponents: np.ndarray,
    same_step: bool,
    seats: np.ndarray,
    drawn: np.ndarray,
    actions: np.ndarray,
    observation: np.ndarray,
    mask: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    final_observation: np.ndarray,
    facts: np.ndarray,
    waiting: np.ndarray,
    lengths: np.ndarray,
    returns: np.ndarray,
    episode_lengths: np.ndarray,
    episode_returns: np.ndarray,
    no_trace: np.ndarray,
) -> tuple:
    """One learner step in every game: the learner's action, then the opponent's plies until the learner
    is to move again or the game ends. A game that ends is reset at once (``same_step``) or at the next
    step (Gymnasium's next-step auto-reset: that step's action is ignored; ``waiting`` marks it). A new
    episode draws the learner's seat (or takes ``learner_seat``) and its opponent, and lets the opponent
    open; it starts again if the opening ends it, up to :data:`MAX_OPENINGS` times in a row (then it raises
    ``ValueError`` :data:`OPENINGS_REFUSAL`; the rows must be reset).

    The opponents are compiled agents (:func:`~mancala_envs.algorithms.tree_search.choose_move`; the copy is bound
    to the kinds they use, ``OPPONENT_KINDS``): row ``i`` of ``opponents`` holds member ``i``'s kind, strength
    (search depth or simulations) and rollout cap. Each episode plays the member ``drawn[game]``, drawn
    uniformly from the game's generator when there are several. A search looks ahead on a full-size copy
    of the row (``trial``), whose repetition memory has room for every ply it tries.

    Every ply of a game, the learner's and the opponent's, goes through one call of the game's ``step``
    (a loop per game that picks the mover's action, then plays it), so this kernel compiles no copy of
    the rules of its own: it calls the game's one compiled ``step``.
    """
    trial = np.empty(pools[3].shape[1], np.int64)
    scratch = np.empty(mask.shape[1], np.int8)
    n_actions = mask.shape[1]
    members = opponents.shape[0]
    for game in range(states.shape[0]):
        # A game waiting for its reset starts a new episode; the learner's action is ignored then.
        fresh = waiting[game] != 0
        start = fresh
        learner_to_play = not fresh
        seat = seats[game]
        openings = 0  # new games in a row whose opening ended before the learner's first move
        if fresh:
            waiting[game] = 0
            lengths[game] = 0
            returns[game] = 0.0
        while True:
            if start:
                seat = _start_episode(
                    params, states, pools, spilled, words, game, first_player, learner_seat, seats, members, drawn
                )
                start = False
            row = current_row(states, pools, spilled, game)
            if not learner_to_play and (row[STATUS] != RUNNING or row[PLAYER] == seat):
                # The opponent's plies are over: the learner is to move, or the game ended.
                if row[STATUS] == RUNNING:
                    if not fresh:
                        lengths[game] += 1
                    break
                if fresh:  # the opponent's opening ended the game: start another
                    openings += 1
                    if openings >= MAX_OPENINGS:
                        raise ValueError(OPENINGS_REFUSAL)
                    start = True
                    continue
                lengths[game] += 1
                reward = seat_reward(row, seat, reward_mode, points_slot)
                rewards[game] = reward
                returns[game] += reward
                truncated[game] = row[STATUS] == TRUNCATED
                terminated[game] = not truncated[game]
                episode_lengths[game] = lengths[game]
                episode_returns[game] = returns[game]
                keep_final_facts(row, game, points_slot, facts)
                facts[game, 8] = seat
                facts[game, 9] = drawn[game]
                game_observe(row, params, seat, final_observation[game], scratch)
                if not same_step:
                    waiting[game] = 1
                    break
                fresh = start = True
                lengths[game] = 0
                returns[game] = 0.0
                continue
            pools = make_room(states, pools, spilled, game, history_start)
            row = current_row(states, pools, spilled, game)
            if learner_to_play:
                action = actions[game]
                learner_to_play = False
            else:
                kind, strength, cap = opponents[drawn[game], 0], opponents[drawn[game], 1], opponents[drawn[game], 2]
                if OPPONENT_KINDS & _SEARCH_BITS and kind in (ALPHABETA, MCTS):
                    width = row.shape[0]
                    copy_slots(trial, row, width)
                    fill_slots(trial, width, trial.shape[0], 0)
                    action = choose_move(
                        kind, history_start, trial, params, n_actions, strength, cap, words[game], trial
                    )
                else:
                    action = choose_move(kind, history_start, row, params, n_actions, strength, cap, words[game], trial)
            play_ply(row, params, action, no_trace)
            if row[STATUS] == RUNNING:
                settle_row(states, pools, spilled, game, history_start)
        row = current_row(states, pools, spilled, game)
        game_observe(row, params, seats[game], observation[game], mask[game])
    return pools


class LearnerRows(GameRows):
    """The rows of ``n_games`` games, each one learner against a compiled opponent (the vector envs' engine).

    Driven through :meth:`reset_learners` and :meth:`step_learners`, which run this game's copy of the
    learner loop for the kinds of opponent of the table they are given (compiled once per set of kinds).

    Args:
        env_id: A registered game or variant, or a :class:`~mancala_envs.games.game.Game` (as for
            :class:`~mancala_envs.envs.batch.GameRows`).
        n_games: Games (rows).
        history_capacity: Repetition keys kept in each game's own row.
        options: Game options, ``first_player`` and ``reward_mode`` (``None`` for none).
        spill_capacity: Repetition keys of a spill row (``None``: the batch's default, 160).
        threads: Threads that run the compiled loops, as for :class:`~mancala_envs.envs.batch.GameRows`.
    """

    def __init__(
        self,
        env_id: str | Game,
        n_games: int,
        history_capacity: int = DEFAULT_HISTORY_CAPACITY,
        options: dict[str, Any] | None = None,
        spill_capacity: int | None = None,
        threads: int | None = None,
    ) -> None:
        extra = {} if spill_capacity is None else {"spill_capacity": spill_capacity}
        super().__init__(env_id, n_games, history_capacity, dict(options or {}), threads=threads, **extra)
        self._learner_kernels: dict[int, Any] = {}
        self._last_opponents: tuple[np.ndarray | None, Any] = (None, None)  # the table a step used, and its kernel

    def learner_opponents(self, opponents: Sequence[tuple[int, int]]) -> np.ndarray:
        """The table of compiled opponents that :meth:`step_learners` takes: one row ``[kind, strength, rollout
        cap]`` per ``(kind, strength)`` of ``opponents`` (kinds:
        :data:`mancala_envs.algorithms.tree_search.COMPILED_OPPONENTS`;
        :func:`mancala_envs.algorithms.tree_search.parse_compiled_opponent` gives the pair of an agent's name).
        Make a new table to change the opponents, rather than writing into one in use (its compiled loop is looked
        up once)."""
        if not opponents:
            raise ValueError("the learners need at least one opponent.")
        cap = self.game.max_episode_plies
        return np.array([[kind, strength, cap] for kind, strength in opponents], np.int64)

    def _learner_kernel(self, opponents: np.ndarray) -> Any:
        """The compiled learners' loop for the kinds of ``opponents`` (compiled for those kinds only)."""
        table, kernel = self._last_opponents
        if table is opponents:  # the same table as the last step (a vector env keeps its own)
            return kernel
        kinds = opponent_kinds(int(kind) for kind in opponents[:, 0])
        kernel = self._learner_kernels.get(kinds)
        if kernel is None:
            kernel = self._learner_kernels[kinds] = self.game.compiled(_step_learners, OPPONENT_KINDS=kinds)
        self._last_opponents = (opponents, kernel)
        return kernel

    def reset_learners(
        self,
        seat_rule: int,
        seats: np.ndarray,
        opponents: np.ndarray,
        drawn: np.ndarray,
        waiting: np.ndarray,
        lengths: np.ndarray,
        returns: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Starts an episode in every game, played by its opponent until its learner is to move.

        Args:
            seat_rule: The learner's seat, or -1 to draw it for each episode.
            seats: ``(n_games,)`` int8, written: each game's learner seat.
            opponents: The compiled opponents (:meth:`learner_opponents`); each episode draws one of them
                uniformly from its game's generator (one opponent: no draw).
            drawn: ``(n_games,)`` int64, written: the opponent (row of ``opponents``) of each game's episode.
            waiting: ``(n_games,)`` per-episode counter (whether the game waits for its reset), cleared.
            lengths: ``(n_games,)`` per-episode counter (the episode's length so far), cleared.
            returns: ``(n_games,)`` per-episode counter (the episode's return so far), cleared.

        Returns:
            The learners' observations ``(n_games, obs_size)`` int32 and masks ``(n_games, n_actions)`` int8.
        """
        # Every game "waits for its reset": the step then starts each one (one compiled loop for both).
        n = self.n_games
        waiting[:] = 1
        return self._run(
            True,
            np.zeros(n, np.int64),
            seat_rule,
            seats,
            opponents,
            drawn,
            False,
            np.zeros(n, np.float64),
            np.zeros(n, bool),
            np.zeros(n, bool),
            np.zeros((n, self.observation_size), np.int32),
            np.zeros((n, FACT_COUNT), np.int64),
            waiting,
            lengths,
            returns,
            np.zeros(n, np.int64),
            np.zeros(n, np.float64),
        )

    def step_learners(
        self,
        actions: np.ndarray,
        seat_rule: int,
        seats: np.ndarray,
        opponents: np.ndarray,
        drawn: np.ndarray,
        same_step: bool,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        final_observation: np.ndarray,
        facts: np.ndarray,
        waiting: np.ndarray,
        lengths: np.ndarray,
        returns: np.ndarray,
        episode_lengths: np.ndarray,
        episode_returns: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Plays each learner's action (checked by :meth:`check_actions`), then the opponent's plies until
        the learner is to move again or the game ends; an ended game is reset at once (``same_step``) or
        at the next call (``waiting`` marks it, and its action is ignored then).

        The per-game arrays are written in place: rewards and end flags of this step, each ended game's
        final observation and :data:`FACT_COUNT` facts, the episode counters.

        Returns:
            The learners' observations and masks, as :meth:`reset_learners`.
        """
        return self._run(
            False,
            actions,
            seat_rule,
            seats,
            opponents,
            drawn,
            same_step,
            rewards,
            terminated,
            truncated,
            final_observation,
            facts,
            waiting,
            lengths,
            returns,
            episode_lengths,
            episode_returns,
        )

    def _run(
        self,
        starts: bool,
        actions: np.ndarray,
        seat_rule: int,
        seats: np.ndarray,
        opponents: np.ndarray,
        drawn: np.ndarray,
        same_step: bool,
        *outputs: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The learner loop over every part of the rows (``outputs``: ``step_learners``' per-game arrays from
        ``rewards`` on); ``starts``: it starts every game (:meth:`reset_learners`)."""
        step = self._learner_kernel(opponents)
        observation, mask = self.new_outputs()
        self.run_kernel(
            step,
            (seat_rule, opponents, same_step),
            (seats, drawn, actions, observation, mask, *outputs),
            starts=starts,
        )
        return observation, mask
