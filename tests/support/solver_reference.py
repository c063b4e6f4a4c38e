"""An independent exhaustive search, to check the perfect-play tables of :mod:`mancala_envs.algorithms.retrograde`.

Plain alpha-beta over the whole game **with its history**: every ply is played by the game's own
compiled ``step`` on a game whose repetition memory is on, so the engine itself ends a play on a
repeated ``(board, player to move)`` (since the last capture), exactly as an environment does. No
table, no transposition table, no knowledge of cycle classes: the search walks every line of play
(alpha-beta only skips lines that cannot change the root's value), so its result is the true value of
the position *with the history it was loaded with* (a loaded position starts a new memory).

The value returned is the **future margin** of the player to move: their final total minus the
opponent's final total, minus their current store difference (``SCORE`` at the end, ``STORE`` now),
which is what :meth:`mancala_envs.algorithms.retrograde.Table.value` claims to hold.

The search is compiled per game through the per-game template mechanism
(:mod:`mancala_envs.engine.kernels`); with ``NUMBA_DISABLE_JIT=1`` it runs as plain Python. It gives up
(``None``) after ``budget`` plies played, so callers can use it where it is feasible only.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from mancala_envs.engine.kernels import game_step, per_game
from mancala_envs.engine.state import (
    END_MAX_PLIES,
    END_REASON,
    HISTORY_LEN,
    LEGAL,
    PLAYER,
    PLY,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
)
from mancala_envs.games.game import Game

__all__ = ["ReferenceSearch", "reference_game", "sample_non_exact"]

#: plies a line of play may last from the loaded position (the game's ply cap; reaching it aborts the search)
MAX_DEPTH = 600
#: a value no margin reaches
INFINITE = 10_000
#: what the compiled search returns when it gave up (budget spent or line too long)
ABORTED = -100_000


@per_game()
def negamax(
    stack: np.ndarray,
    depth: int,
    params: np.ndarray,
    n_actions: int,
    history_start: int,
    alpha: int,
    beta: int,
    counters: np.ndarray,
    trace: np.ndarray,
) -> int:
    """The final score difference (mover minus opponent) of ``stack[depth]`` (a running game) under
    perfect play, by alpha-beta: exact inside ``(alpha, beta)``, a bound outside it.

    ``counters``: ``[plies played, budget, aborted]``; returns ``ABORTED`` once the budget is spent or a
    line reaches the game's ply cap (``stack`` has one row per ply of the cap).
    """
    state = stack[depth]
    mover = state[PLAYER]
    legal = state[LEGAL]
    # only the live part of the state is copied: header, board and the keys remembered so far
    live = history_start + state[HISTORY_LEN] if history_start > 0 else state.shape[0]
    best = -INFINITE
    child = stack[depth + 1]
    for action in range(n_actions):
        if not (legal >> action) & 1:
            continue
        counters[0] += 1
        if counters[0] > counters[1]:
            counters[2] = 1
            return ABORTED
        for slot in range(live):
            child[slot] = state[slot]
        game_step(child, params, action, trace)
        if child[STATUS] != RUNNING:
            if child[END_REASON] == END_MAX_PLIES:
                counters[2] = 2
                return ABORTED
            value = child[SCORE + mover] - child[SCORE + 1 - mover]
        elif child[PLAYER] == mover:  # the mover plays again (an extra turn, or a pass of the opponent)
            value = negamax(stack, depth + 1, params, n_actions, history_start, max(alpha, best), beta, counters, trace)
            if counters[2] != 0:
                return ABORTED
        else:
            value = -negamax(
                stack, depth + 1, params, n_actions, history_start, -beta, -max(alpha, best), counters, trace
            )
            if counters[2] != 0:
                return ABORTED
        if value > best:
            best = value
            if best >= beta:
                return best
    return best


def reference_game(game: Game) -> Game:
    """``game`` with its repetition memory on and a ply cap of ``MAX_DEPTH`` plies (a loaded position
    starts at ply 0, so the cap bounds a line's length; a search that reaches it gives up)."""
    changes = {"max_plies": MAX_DEPTH}
    if any(f.name == "repetition" for f in dataclasses.fields(game.config)):
        changes["repetition"] = True
    return type(game)(dataclasses.replace(game.config, **changes))


class ReferenceSearch:
    """Exhaustive search of one game's positions (see the module docstring).

    Args:
        game: The game (any config; its ply cap is replaced by ``MAX_DEPTH`` and repetition turned on).
    """

    def __init__(self, game: Game) -> None:
        self.game = reference_game(game)
        self._search = self.game.compiled(negamax)
        self._stack = np.zeros((MAX_DEPTH + 2, self.game.state_size), dtype=np.int64)
        self._trace = np.zeros(0, dtype=np.int64)
        self.plies = 0  # plies played by the last search

    def position(self, board, stores, player: int, **flags) -> np.ndarray:
        """A state of the reference game loaded with this position (a fresh repetition memory)."""
        state = self.game.new_state(0)
        self.game.load_position(state, [int(x) for x in board], [int(x) for x in stores], int(player), **flags)
        return state

    def _adopt(self, state: np.ndarray) -> np.ndarray:
        """A copy of ``state`` (a state of the game with any ``max_plies``) as a state of :attr:`game`: the same
        position and repetition memory, at ply 0 (the search's ply cap counts from here)."""
        start = self.game.history_start
        live = start + int(state[HISTORY_LEN]) if start > 0 else self.game.state_size
        if live > min(state.shape[0], self.game.state_size):
            raise ValueError("the state's repetition memory does not fit the reference game")
        adopted = np.zeros(self.game.state_size, dtype=np.int64)
        adopted[:live] = state[:live]
        adopted[PLY] = 0
        return adopted

    def margin(self, state: np.ndarray, budget: int = 50_000_000) -> int | None:
        """The future margin of ``state``'s player to move under perfect play, or None if the search gave up.

        ``state`` is a running state of the game (of any ``max_plies``); its repetition memory is honoured as
        it is, and the search's ply cap counts from it.
        """
        if state[STATUS] != RUNNING:
            raise ValueError("the game is over")
        mover = int(state[PLAYER])
        self._stack[0] = self._adopt(state)
        counters = np.array([0, budget, 0], dtype=np.int64)
        final = int(
            self._search(
                self._stack,
                0,
                self.game.params,
                self.game.n_actions,
                self.game.history_start,
                -INFINITE,
                INFINITE,
                counters,
                self._trace,
            )
        )
        self.plies = int(counters[0])
        if counters[2] != 0:
            return None
        return final - int(state[STORE + mover] - state[STORE + 1 - mover])

    def move_margins(self, state: np.ndarray, budget: int = 50_000_000) -> dict[int, int | None]:
        """Each legal action's future margin for ``state``'s mover (the ply's gain plus the margin after it)."""
        mover = int(state[PLAYER])
        before = int(state[STORE + mover] - state[STORE + 1 - mover])
        out: dict[int, int | None] = {}
        state = self._adopt(state)
        for action in self.game.legal_actions(state):
            child = state.copy()
            self.game.step(child, int(action), self._trace)
            if child[STATUS] != RUNNING:
                assert child[END_REASON] != END_MAX_PLIES
                out[int(action)] = int(child[SCORE + mover] - child[SCORE + 1 - mover]) - before
                continue
            later = self.margin(child, budget)
            if later is None:
                out[int(action)] = None
                continue
            gain = int(child[STORE + mover] - child[STORE + 1 - mover]) - before
            out[int(action)] = gain + (later if child[PLAYER] == mover else -later)
        return out


def _compositions(seeds: int, parts: int):
    for bars in itertools.combinations(range(seeds + parts - 1), parts - 1):
        edges = (-1, *bars, seeds + parts - 1)
        yield [edges[i + 1] - edges[i] - 1 for i in range(parts)]


def sample_non_exact(
    table, search: ReferenceSearch, layers, per_layer: int, seed: int = 0, budget: int = 3_000_000
) -> dict[int, tuple[int, int, int]]:
    """Searches up to ``per_layer`` random positions of each layer (seeds on the board) whose table value is not
    exact (lower and upper bounds differ), with a fresh history; asserts the search lies within the bounds.

    Returns ``{seeds: (agree, disagree, gave_up)}``: how often the search equals the table's value.
    Only the table's bounds are read here (to pick the positions and check them), never its code.
    """
    # the table's own ranking, to find the positions to search
    from mancala_envs.algorithms.retrograde import board_index

    rng = np.random.default_rng(seed)
    game = table.game
    rows = np.asarray(table.table)
    figures = {}
    for seeds in layers:
        found = []
        for board in _compositions(seeds, game.n_pits):
            index = 2 * board_index(np.array(board, dtype=np.int64), 0, game.n_pits, table.binom)
            for player in range(2):
                if rows[1, index + player] != rows[2, index + player]:
                    found.append((board, player))
        agree = disagree = gave_up = 0
        for pick in rng.permutation(len(found))[:per_layer]:
            board, player = found[pick]
            rest = game.total_seeds - seeds
            state = search.position(board, [rest - rest // 2, rest // 2], player)
            if state[STATUS] != RUNNING:
                continue
            value = table.value(state)
            margin = search.margin(state, budget)
            if margin is None:
                gave_up += 1
                continue
            assert value.low <= margin <= value.high, (game.position_string(state), value, margin)
            if margin == value.margin:
                agree += 1
            else:
                disagree += 1
        figures[seeds] = (agree, disagree, gave_up)
    return figures


if (
    __name__ == "__main__"
):  # the figures of docs/solved.md: python tests/support/solver_reference.py [per_layer] [folder]
    import sys
    import time

    from mancala_envs.algorithms.retrograde import build_table, load_table
    from mancala_envs.envs.registration import make_game, resolve_env_id

    per_layer = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    modiar = make_game(resolve_env_id("modiar"))
    table = load_table(modiar, folder=sys.argv[2]) if len(sys.argv) > 2 else build_table(modiar)
    search = ReferenceSearch(modiar)
    for seeds in range(12, 31):
        started = time.perf_counter()
        ((agree, disagree, gave_up),) = sample_non_exact(table, search, [seeds], per_layer, seed=seeds).values()
        print(
            f"{seeds} seeds: {agree} agree, {disagree} disagree, {gave_up} gave up "
            f"({time.perf_counter() - started:.1f} s)",
            flush=True,
        )
