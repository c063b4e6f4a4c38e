"""Search agents: alpha-beta (``"alphabeta:D"``) and UCT Monte Carlo tree search (``"mcts:N"``).

The compiled searches and their evaluation are in :mod:`mancala_envs.algorithms.tree_search`; this module checks the
input of the public :func:`alphabeta_search` and :func:`mcts_search` and wraps them as agents.

Alpha-beta reads a perfect-play table of the game (:mod:`mancala_envs.algorithms.retrograde`) at its leaves when
one is saved in the tables' folder: :class:`AlphaBetaAgent` looks it up once per game (and config)
and passes it to :func:`alphabeta_search`. Without a table it searches as it always did.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from mancala_envs.agents.agent import Agent
from mancala_envs.algorithms.retrograde import Table, TableError, available_tables, load_table, solvable, table_paths
from mancala_envs.algorithms.tree_search import (
    ABORTED,
    DEPTH_BONUS,
    GAME_POINT,
    HORIZON_LEAVES,
    MAX_DEPTH,
    MAX_SIMULATIONS,
    NODE_LIMIT,
    NODES,
    TIME_BUDGET_PREFIX,
    UCT_C,
    WIN,
    alphabeta_move,
    deepening_move,
    empty_table,
    mcts_root,
    new_transposition_table,
)
from mancala_envs.common.validation import check_integer
from mancala_envs.engine.prng import MASK32
from mancala_envs.games.game import Game

__all__ = [
    "DEPTH_BONUS",
    "GAME_POINT",
    "MAX_BUDGET",
    "MAX_DEPTH",
    "MAX_SIMULATIONS",
    "MIN_BUDGET",
    "TRANSPOSITION_BITS",
    "UCT_C",
    "WIN",
    "AlphaBetaAgent",
    "DeepeningResult",
    "MCTSAgent",
    "TranspositionTable",
    "alphabeta_search",
    "deepening_search",
    "game_table",
    "load_game_table",
    "mcts_search",
    "parse_budget",
    "same_table_game",
    "table_arguments",
]


#: the shortest and longest time budget a move accepts, in seconds (``"alphabeta:t=0.001"`` to ``"alphabeta:t=3600"``)
MIN_BUDGET, MAX_BUDGET = 0.001, 3600.0
#: the transposition table of a deepening search holds ``2**TRANSPOSITION_BITS`` entries (40 bytes each: 10 MiB)
TRANSPOSITION_BITS = 18


def parse_budget(text: str, name: str) -> float:
    """The seconds of a time budget written ``text`` (``"0.1"``, ``"2"``, ``"5e-3"``) in the agent name ``name``.

    Raises:
        ValueError: ``text`` is not a finite number from :data:`MIN_BUDGET` to :data:`MAX_BUDGET`.
    """
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not MIN_BUDGET <= seconds <= MAX_BUDGET:
        raise ValueError(
            f"an alphabeta time budget must be a number of seconds from {MIN_BUDGET} to {MAX_BUDGET:g}, as in "
            f"'alphabeta:{TIME_BUDGET_PREFIX}0.1' for 100 ms a move (got {name!r})."
        )
    return seconds


def _check_draw(draw: Any) -> float:
    """``draw`` as a float, after checking that it is a number in [0, 1) (the searches' tie-break)."""
    if isinstance(draw, bool) or not isinstance(draw, (int, float, np.integer, np.floating)) or not 0 <= draw < 1:
        raise ValueError(f"draw must be a number in [0, 1), e.g. rng.random() (got {draw!r}).")
    return float(draw)


def _check_exploration(c: Any) -> float:
    """``c`` as a float, after checking that it is a finite number >= 0 (UCB1's exploration constant)."""
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not math.isfinite(c) or c < 0:
        raise ValueError(f"the exploration constant c must be a finite number >= 0 (got {c!r}).")
    return float(c)


def table_arguments(table: Table | None) -> tuple[np.ndarray, np.ndarray, int, int]:
    """What the compiled alpha-beta reads of ``table``: its value bytes, binomials, ``max_seeds`` and the
    game's pit count (:func:`mancala_envs.algorithms.tree_search.empty_table` for ``None``)."""
    if table is None:
        return empty_table()
    values = np.asarray(table.values).view()  # row 0 of the table: the value bytes
    values.flags.writeable = False  # one compiled type for saved (memory-mapped, read-only) and built tables
    return values, np.ascontiguousarray(table.binom, dtype=np.int64), int(table.max_seeds), int(table.game.n_pits)


def same_table_game(first: Game, second: Game) -> bool:
    """Whether a table of ``first`` is one of ``second``: the same game, version and config, apart from
    the fields tables ignore (``max_plies``, ``repetition``)."""
    return table_paths(first, 0, ".")[0].name == table_paths(second, 0, ".")[0].name


#: tables loaded in this process, by game, config and file: a new agent (a tournament makes two per game)
#: shares the memory-mapped arrays instead of reading and hashing the file again
_LOADED: dict[tuple[Any, ...], Table] = {}


def load_game_table(game: Game, folder: str | os.PathLike[str] | None = None) -> Table:
    """``load_table(game, max_seeds=-1, folder=folder)``: the largest saved table of ``game``, loaded once per
    process and file (a file replaced since is loaded again); each call returns a Table of its own over the
    shared arrays, so agents in different threads do not share a Table's work buffers.

    Raises:
        TableError: no table (with the command that builds it), or a file that fails its checks.
    """
    found = available_tables(game, folder)
    if not found:
        return load_table(game, max_seeds=-1, folder=folder)  # raises, naming the command
    path = table_paths(game, max(found), folder)[0]
    try:
        stat = path.stat()
    except OSError:
        return load_table(game, max_seeds=-1, folder=folder)
    key = (type(game), game.config, str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _LOADED[key] = load_table(game, max_seeds=-1, folder=folder)
    return loaded.view()


def game_table(game: Game, folder: str | os.PathLike[str] | None = None) -> Table | None:
    """The largest saved table of ``game`` (its config) in ``folder`` (default: the tables' folder,
    :func:`mancala_envs.algorithms.retrograde.table_dir`), or ``None`` when there is none or the game cannot be tabled.

    Raises:
        TableError: a table file is there but fails its checks (the message says how to rebuild it).
    """
    if solvable(game) is not None or not available_tables(game, folder):
        return None
    return load_game_table(game, folder)


def alphabeta_search(
    game: Game, state: np.ndarray, depth: int, draw: float = 0.0, table: Table | None = None
) -> tuple[int, int, int]:
    """Minimax with alpha-beta pruning to ``depth`` plies from ``state``, in compiled code.

    Children are searched best first by the value of the position right after the ply (captures
    first). Among root moves of equal value the one that ``draw`` selects is returned (the
    ``int(draw * ties)``-th in action order).

    Args:
        game: The game whose state it is (its compiled rules and ``params``).
        state: A running state of ``game`` (not changed).
        depth: Plies to search, 1 to ``MAX_DEPTH``.
        draw: A uniform number in [0, 1) that breaks ties between root moves (``ValueError`` otherwise).
        table: A perfect-play table of ``game`` (:mod:`mancala_envs.algorithms.retrograde`), or ``None``. With one, a
            running position after the first ply whose board holds at most ``table.max_seeds`` seeds
            is a leaf scored by its outcome under perfect play (:mod:`mancala_envs.algorithms.tree_search`).

    Returns:
        The action, its value for the player to move (see the module docstring) and the number of
        nodes searched (plies played).

    Raises:
        TypeError: ``game`` is not a Game, ``state`` not an array of its state's form (``game.check_state``),
            ``depth`` not an integer, or ``table`` not a Table.
        ValueError: ``state`` is inconsistent (``game.check_state`` names the part) or its game is over,
            ``depth`` or ``draw`` is out of range, or ``table`` is another game's (a
            :class:`~mancala_envs.algorithms.retrograde.TableError`).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("urim_v0")
        >>> env.reset(options={"board": [2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], "stores": [8, 7], "player": 0})
        >>> action, value, nodes = alphabeta_search(env.unwrapped.game, env.unwrapped.state_array, 1)
        >>> action, value
        (5, 12)
    """
    Agent.state_legal_actions(game, state)
    depth = check_integer("alphabeta depth", depth, 1, MAX_DEPTH)
    draw = _check_draw(draw)
    _check_table(game, table)
    return _alphabeta(game, state, depth, draw, table)


def _check_table(game: Game, table: Any) -> None:
    """Checks that ``table`` is ``None`` or a perfect-play table of ``game`` (the searches' ``table`` argument)."""
    if table is not None:
        if not isinstance(table, Table):
            raise TypeError(
                f"table must be a mancala_envs.algorithms.retrograde.Table or None (got {type(table).__name__})."
            )
        if not same_table_game(table.game, game):
            raise TableError(
                f"this table is of {table.game.name} {table.game.config}, not of {game.name} {game.config} "
                "(the config may differ only in max_plies and repetition)."
            )


def _alphabeta(game: Game, state: np.ndarray, depth: int, draw: float, table: Table | None) -> tuple[int, int, int]:
    """:func:`alphabeta_search` on arguments already checked (the agents' own): unchecked."""
    search = game.compiled(alphabeta_move) if table is None else game.compiled(alphabeta_move, TABLE_LEAVES=1)
    values, binom, table_seeds, n_pits = table_arguments(table)
    action, value, nodes = search(
        game.history_start,
        state,
        game.params,
        game.n_actions,
        int(depth),
        float(draw),
        values,
        binom,
        table_seeds,
        n_pits,
    )
    return int(action), int(value), int(nodes)


class TranspositionTable:
    """The memory of :func:`deepening_search`: ``2**bits`` entries of searched positions (value, depth, bound, best
    move), kept from one search to the next so that a game's later moves start from what earlier ones learned.

    Entries are keyed by everything the rules read of a position (its board, stores, counters and repetition
    history: :func:`mancala_envs.algorithms.tree_search.position_hash`) and cut the search only at the depth they
    were searched to, so a search over a table returns the value and move a search without one would. The table
    is tied to the first game and perfect-play table it searches with; another one clears it.

    Args:
        bits: ``log2`` of the number of entries, 10 to 26 (40 bytes an entry: 18 is 10 MiB).
    """

    def __init__(self, bits: int = TRANSPOSITION_BITS) -> None:
        self.bits = check_integer("transposition table bits", bits, 10, 26)
        self.keys, self.data = new_transposition_table(self.bits)
        self._owner: tuple[Any, ...] | None = None

    def claim(self, owner: tuple[Any, ...]) -> None:
        """Ties the table to ``owner`` (a game's type and config and a perfect-play table's identity), clearing
        it first when it held another owner's entries."""
        if self._owner != owner:
            if self._owner is not None:
                self.clear()
            self._owner = owner

    def clear(self) -> None:
        """Forgets every entry."""
        self.keys.fill(0)

    def __repr__(self) -> str:
        return f"TranspositionTable(bits={self.bits})"


@dataclasses.dataclass(frozen=True)
class DeepeningResult:
    """What :func:`deepening_search` found.

    Attributes:
        action: The move (the deepest completed iteration's).
        value: Its value for the player to move (:mod:`mancala_envs.algorithms.tree_search`'s scale).
        depth: Plies of the deepest completed iteration.
        nodes: Nodes searched (plies played) over every iteration, the one a time budget stopped included.
        complete: Whether the deepest iteration saw the whole game tree below the position (no running position
            cut by the horizon): its value is then exact, and deeper searches would return the same.
        seconds: Wall time of the search.
    """

    action: int
    value: int
    depth: int
    nodes: int
    complete: bool
    seconds: float


def deepening_search(
    game: Game,
    state: np.ndarray,
    depth: int | None = None,
    budget: float | None = None,
    draw: float = 0.0,
    table: Table | None = None,
    transpositions: TranspositionTable | None = None,
) -> DeepeningResult:
    """Iterative-deepening alpha-beta from ``state`` with a transposition table, in compiled code.

    Searches 1, 2, 3... plies, each iteration over the transposition table the earlier ones filled: a position
    searched before to the same depth is not searched again, and the best move it found is searched first, before
    the others in the order of :func:`alphabeta_search` (the value right after the ply: captures first). Each
    iteration returns exactly :func:`alphabeta_search`'s value and move for its depth and ``draw`` (tested): the
    table changes the work, never the result. It stops at ``depth`` plies, or when ``budget`` seconds are spent
    (an iteration the budget stops is dropped: the deepest completed one answers), or when an iteration saw the
    whole game tree or found a forced result; deeper iterations would then choose the same move (only the
    value's bonus for quick wins would grow), so a fixed ``depth`` always plays :func:`alphabeta_search`'s move.

    Args:
        game: The game whose state it is.
        state: A running state of ``game`` (not changed).
        depth: The deepest iteration, 1 to ``MAX_DEPTH``; ``None`` with a ``budget``: ``MAX_DEPTH``.
        budget: Seconds to search, :data:`MIN_BUDGET` to :data:`MAX_BUDGET`, or ``None`` (no limit: give a
            ``depth``). The first iteration (one ply) always completes. Not reproducible from one machine or
            load to the next: the depth reached depends on the speed.
        draw: A uniform number in [0, 1) that breaks ties between root moves, as in :func:`alphabeta_search`.
        table: A perfect-play table of ``game`` read at the leaves, as in :func:`alphabeta_search`.
        transpositions: The table of searched positions to use and fill (kept between calls by the agents);
            ``None``: a fresh one for this call.

    Returns:
        The move, its value, the depth completed, the nodes, whether the tree was complete and the seconds.

    Raises:
        TypeError: as :func:`alphabeta_search`, or ``transpositions`` is not a :class:`TranspositionTable`.
        ValueError: as :func:`alphabeta_search`; neither ``depth`` nor ``budget`` given, or ``budget`` out of range.

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("kalah_v0")
        >>> env.reset(seed=0)
        >>> game, state = env.unwrapped.game, env.unwrapped.state_array
        >>> result = deepening_search(game, state, depth=6)
        >>> (result.action, result.value) == alphabeta_search(game, state, 6)[:2]
        True
    """
    Agent.state_legal_actions(game, state)
    if depth is None and budget is None:
        raise ValueError("deepening_search needs a depth (plies), a budget (seconds) or both, e.g. budget=0.1.")
    if depth is not None:
        depth = check_integer("alphabeta depth", depth, 1, MAX_DEPTH)
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, (int, float, np.integer, np.floating)):
            raise TypeError(f"budget must be a number of seconds or None (got {type(budget).__name__}).")
        budget = parse_budget(str(float(budget)), f"budget={budget!r}")
    draw = _check_draw(draw)
    _check_table(game, table)
    if transpositions is None:
        transpositions = TranspositionTable(14)
    elif not isinstance(transpositions, TranspositionTable):
        raise TypeError(f"transpositions must be a TranspositionTable or None (got {type(transpositions).__name__}).")
    return _deepening(game, state, MAX_DEPTH if depth is None else depth, budget, draw, table, transpositions)


def _deepening(
    game: Game,
    state: np.ndarray,
    depth: int,
    budget: float | None,
    draw: float,
    table: Table | None,
    transpositions: TranspositionTable,
) -> DeepeningResult:
    """:func:`deepening_search` on arguments already checked (the agents' own): unchecked."""
    start = time.perf_counter()
    if table is None:
        search = game.compiled(deepening_move, TRANSPOSITIONS=1)
    else:
        search = game.compiled(deepening_move, TRANSPOSITIONS=1, TABLE_LEAVES=1)
    values, binom, table_seeds, n_pits = table_arguments(table)
    transpositions.claim((type(game), game.config, id(table.values) if table is not None else None))
    counters = np.zeros(4, np.int64)
    counters[NODE_LIMIT] = np.iinfo(np.int64).max
    best: tuple[int, int, int, bool] | None = None
    for iteration in range(1, depth + 1):
        if best is not None and budget is not None:
            spent = time.perf_counter() - start
            if spent >= budget:
                break
            rate = counters[NODES] / max(spent, 1e-6)  # nodes a second so far: the limit that ends on time
            counters[NODE_LIMIT] = counters[NODES] + int(rate * (budget - spent)) + 1
        counters[HORIZON_LEAVES] = 0
        action, value = search(
            game.history_start,
            state,
            game.params,
            game.n_actions,
            iteration,
            draw,
            counters,
            transpositions.keys,
            transpositions.data,
            values,
            binom,
            table_seeds,
            n_pits,
        )
        if counters[ABORTED]:
            break
        complete = bool(counters[HORIZON_LEAVES] == 0)
        best = (int(action), int(value), iteration, complete)
        if complete or abs(value) >= WIN // 2:
            break
    assert best is not None  # the first iteration has no node limit
    action, value, reached, complete = best
    return DeepeningResult(action, value, reached, int(counters[NODES]), complete, time.perf_counter() - start)


def mcts_search(
    game: Game,
    state: np.ndarray,
    simulations: int,
    words: np.ndarray,
    draw: float = 0.0,
    c: float = UCT_C,
    rollout_cap: int | None = None,
) -> tuple[int, np.ndarray, int]:
    """UCT Monte Carlo tree search with random rollouts from ``state``, in compiled code.

    Each simulation walks down the tree by UCB1 (``wins / visits + c * sqrt(ln N / visits)``, for the
    player to move at each node: the tree stores who moved into every node, so an Omweso mid-turn
    choice keeps the side), expands one untried action, plays uniformly random plies to the end of
    the game (``rollout_cap`` plies at most; a game of a match ends the rollout) and adds the result
    (1 win, 0.5 draw, 0 loss) along the path. The tree lives in arrays of ``simulations + 1`` nodes.

    Args:
        game: The game whose state it is.
        state: A running state of ``game`` (not changed).
        simulations: Number of simulations, 1 to ``MAX_SIMULATIONS``.
        words: An int64 array of four numbers in ``0 .. 2**32 - 1``, not all 0: the state of the
            xorshift128 generator of the expansions and rollouts (changed in place).
        draw: A uniform number in [0, 1) that breaks ties between equally visited root moves.
        c: The exploration constant (``sqrt(2)``), a finite number >= 0.
        rollout_cap: Most plies in one rollout (default: ``game.max_episode_plies``).

    Returns:
        The most visited root action, the visit count of every action (0 for illegal ones) and the
        plies played in rollouts.

    Raises:
        TypeError: ``game`` is not a Game, ``state`` not an array of its state's form (``game.check_state``),
            or a count not an integer.
        ValueError: ``state`` is inconsistent (``game.check_state`` names the part) or its game is over, a
            count is out of range, ``draw`` or ``c`` is not a number of its range, or ``words`` is unusable.
    """
    Agent.state_legal_actions(game, state)
    simulations = check_integer("mcts simulations", simulations, 1, MAX_SIMULATIONS)
    draw = _check_draw(draw)
    c = _check_exploration(c)
    if (
        not isinstance(words, np.ndarray)
        or words.dtype != np.int64
        or words.shape != (4,)
        or (words < 0).any()
        or (words > MASK32).any()
        or not words.any()
    ):
        raise ValueError(
            "words must be an int64 array of 4 numbers in 0 .. 2**32 - 1, not all 0, "
            "e.g. rng.integers(1, 2**32, size=4)."
        )
    if rollout_cap is None:
        rollout_cap = game.max_episode_plies
    rollout_cap = check_integer("rollout_cap", rollout_cap, 1, 2**62)
    return _mcts(game, state, simulations, words, draw, c, rollout_cap)


def _mcts(
    game: Game, state: np.ndarray, simulations: int, words: np.ndarray, draw: float, c: float, rollout_cap: int
) -> tuple[int, np.ndarray, int]:
    """:func:`mcts_search` on arguments already checked (the agents' own): unchecked."""
    visits = np.zeros(game.n_actions, np.int64)
    action, plies = game.compiled(mcts_root)(
        game.history_start,
        state,
        game.params,
        game.n_actions,
        int(simulations),
        float(c),
        int(rollout_cap),
        words,
        float(draw),
        visits,
    )
    return int(action), visits, int(plies)


# --- agents --------------------------------------------------------------------------------------------------------
class _StateSearchAgent(Agent):
    """An agent whose choice is a compiled search on the engine state (``act``, ``act_on_state`` and
    ``act_on_engine_state``)."""

    def act(self, env: AECEnv) -> int:
        self.env_legal_actions(env)
        raw = env.unwrapped
        return self.act_on_engine_state(raw.game, raw.state_array)  # the env's own state: no check needed

    def act_on_engine_state(self, game: Game, state: np.ndarray) -> int:
        legal = game.legal_actions(state)
        if legal.size == 1:
            self._record_trivial()
            return int(legal[0])
        return self._choose(game, state)

    def _record_trivial(self) -> None:
        """Notes a move with one legal action (nothing was searched)."""

    def _choose(self, game: Game, state: np.ndarray) -> int:
        """The searched move in ``state``, a running state of ``game`` already checked (unchecked here)."""
        raise NotImplementedError


class AlphaBetaAgent(_StateSearchAgent):
    """Minimax with alpha-beta pruning to ``depth`` plies (``"alphabeta:D"``), or for ``budget`` seconds a move
    (``"alphabeta:t=0.1"``).

    With a fixed depth it runs :func:`alphabeta_search`. With a budget it deepens one ply at a time over a
    transposition table it keeps from move to move (:func:`deepening_search`) and plays the deepest iteration it
    completes in the time: 11 to 15 plies in 0.1 s on this project's machine (``docs/agents.md``). Both play the
    same move at the same depth (tested); at 8 plies or fewer the plain search is the quicker of the two (the
    deepening's table pays off deeper), which is why a fixed depth runs it.

    The evaluation is the score difference for the player to move (a finished game:
    a win or loss above any score, quicker wins first); see :mod:`mancala_envs.algorithms.tree_search`. Equally
    good moves are chosen between with the agent's generator. With one legal action nothing is searched.

    When a perfect-play table of the game is saved in ``folder`` (:mod:`mancala_envs.algorithms.retrograde`; built by
    ``mancala-envs solve <game>``), the search scores the positions it covers by their outcome under
    perfect play. The agent looks the table up once per game (and config), at its first move in it,
    and uses the largest one saved; with none, it searches as without tables.

    Args:
        depth: Plies to search, 1 to 64 (the deepest iteration with a ``budget``; default 4, or 64 with a
            budget). An Omweso mid-turn choice counts as a ply of the same player.
        seed: Seed of the agent's generator (ties).
        folder: Where to look for tables (default: :func:`mancala_envs.algorithms.retrograde.table_dir`,
            ``$MANCALA_ENVS_TABLES`` when set).
        tables: False to search without tables even where one is saved.
        budget: Seconds a move, :data:`MIN_BUDGET` to :data:`MAX_BUDGET`, or ``None`` (a fixed depth). A budget's
            play depends on the machine's speed, so it is not reproducible from one machine or load to the next.
        transposition_bits: ``log2`` of the entries of the transposition table of an agent with a budget (40
            bytes each; 18: 10 MiB).

    Attributes:
        last_nodes: Nodes searched (plies played) for the last move.
        last_value: The last move's value for the player who made it (``None`` without a search).
        last_depth: Plies of the last move's deepest completed iteration (0 without a search).
        last_table: The table the last search read (``None`` if none).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> agent = AlphaBetaAgent(depth=4, seed=0)
        >>> action = agent.act(env)
        >>> bool(env.observe("player_0")["action_mask"][action]), agent.last_nodes > 0
        (True, True)
        >>> AlphaBetaAgent(budget=0.1).name
        'alphabeta:t=0.1'
    """

    def __init__(
        self,
        depth: int | None = None,
        seed: int | None = None,
        folder: str | os.PathLike[str] | None = None,
        tables: bool = True,
        *,
        budget: float | None = None,
        transposition_bits: int = TRANSPOSITION_BITS,
    ) -> None:
        if budget is not None:
            if isinstance(budget, bool) or not isinstance(budget, (int, float, np.integer, np.floating)):
                raise TypeError(f"budget must be a number of seconds or None (got {type(budget).__name__}).")
            budget = parse_budget(str(float(budget)), f"budget={budget!r}")
        default_depth = 4 if budget is None else MAX_DEPTH
        self.depth = check_integer("alphabeta depth", default_depth if depth is None else depth, 1, MAX_DEPTH)
        self.budget = budget
        self.transpositions = TranspositionTable(transposition_bits if budget is not None else 10)
        super().__init__(seed)
        if not isinstance(tables, bool):
            raise TypeError(f"tables must be True or False (got {tables!r}).")
        self.name = f"alphabeta:{self.depth}" if budget is None else f"alphabeta:{TIME_BUDGET_PREFIX}{budget:g}"
        self.folder = folder
        self.tables = tables
        self.last_nodes = 0
        self.last_value: int | None = None
        self.last_depth = 0
        self.last_table: Table | None = None
        self._tables: dict[tuple[Any, ...], Table | None] = {}

    def _record_trivial(self) -> None:
        self.last_nodes = 0
        self.last_value = None
        self.last_depth = 0

    def table_for(self, game: Game) -> Table | None:
        """The table this agent reads in ``game`` (looked up at the first call per game and config)."""
        if not self.tables:
            return None
        key = (type(game), game.config)
        if key not in self._tables:
            self._tables[key] = game_table(game, self.folder)
        return self._tables[key]

    def _choose(self, game: Game, state: np.ndarray) -> int:
        table = self.table_for(game)
        draw = float(self.rng.random())
        if self.budget is None:  # the plain search: the same move as deepening to this depth, in less time (8 plies)
            action, self.last_value, self.last_nodes = _alphabeta(game, state, self.depth, draw, table)
            self.last_depth = self.depth
        else:
            result = _deepening(game, state, self.depth, self.budget, draw, table, self.transpositions)
            action, self.last_value, self.last_nodes, self.last_depth = (
                result.action,
                result.value,
                result.nodes,
                result.depth,
            )
        self.last_table = table
        return action

    def __repr__(self) -> str:
        if self.budget is not None:
            return f"AlphaBetaAgent(budget={self.budget:g})"
        return f"AlphaBetaAgent(depth={self.depth})"


class MCTSAgent(_StateSearchAgent):
    """UCT Monte Carlo tree search with ``simulations`` random rollouts per move (``"mcts:N"``).

    Plays the most visited root move (ties broken by the agent's generator). The rollouts' generator
    is seeded from the agent's generator at every move. With one legal action nothing is searched.

    Args:
        simulations: Simulations per move, 1 to 1,000,000.
        seed: Seed of the agent's generator.
        c: UCB1's exploration constant (default ``sqrt(2)``).

    Attributes:
        last_simulations: Simulations run for the last move (0 without a search).
        last_rollout_plies: Plies played in the last move's rollouts.
        last_visits: Visits of each action at the root for the last move (``None`` without a search).
    """

    def __init__(self, simulations: int = 400, seed: int | None = None, c: float = UCT_C) -> None:
        self.simulations = check_integer("mcts simulations", simulations, 1, MAX_SIMULATIONS)
        c = _check_exploration(c)
        super().__init__(seed)
        self.c = c
        self.name = f"mcts:{self.simulations}"
        self.last_simulations = 0
        self.last_rollout_plies = 0
        self.last_visits: np.ndarray | None = None

    def _record_trivial(self) -> None:
        self.last_simulations = 0
        self.last_rollout_plies = 0
        self.last_visits = None

    def _choose(self, game: Game, state: np.ndarray) -> int:
        words = self.rng.integers(1, 1 << 32, size=4, dtype=np.int64)
        action, visits, plies = _mcts(
            game, state, self.simulations, words, float(self.rng.random()), self.c, game.max_episode_plies
        )
        self.last_simulations = self.simulations
        self.last_rollout_plies = plies
        self.last_visits = visits
        return action

    def __repr__(self) -> str:
        return f"MCTSAgent(simulations={self.simulations})"
