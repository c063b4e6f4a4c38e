"""Compiled search on the engine state: alpha-beta and UCT Monte Carlo tree search, and the move of any
compiled agent (:func:`choose_move`), which the single-agent env's and the vector envs' opponents play.

Both searches run in compiled code on the engine's state array: they are per-game templates
(:mod:`mancala_envs.engine.kernels`) that call the game's compiled ``step``, never the PettingZoo environment. A node
is a state; a ply is one agent decision, so an Omweso mid-turn choice (the same player moves again)
is a ply like any other: the searches read the player to move from ``state[PLAYER]`` at every
node and never assume that the sides alternate.

Values are from the point of view of the **root player** (the player to move when the search
starts):

- a running position is worth the root player's ``STORE`` minus the opponent's (seeds captured in
  this game; Omweso: the capture tallies). Seeds a game keeps elsewhere for the rest of a game
  (Rio Kadalis' match reserves) are left out: they do not change within a game, and a search
  stops at the end of a game, so they would add the same number to every leaf it compares;
- a finished episode (``STATUS`` not ``RUNNING``) is worth ``+WIN`` or ``-WIN`` by ``WINNER`` (0
  for a draw or an annulled game), plus the final score difference (``SCORE``), plus
  ``DEPTH_BONUS`` per ply of search depth left, so that a quicker win (and a slower loss) is
  preferred;
- in a match, a ply after which the engine has laid out the next game (``GAMES_PLAYED`` went up
  while the match runs) is a leaf worth ``GAME_POINT`` per match point of difference in that
  game (``POINTS``), plus its score difference and the same depth bonus;
- with a perfect-play table (:mod:`mancala_envs.algorithms.retrograde`; the copies compiled with
  ``TABLE_LEAVES=1``), a running position after the first ply whose board holds at most the
  table's ``max_seeds`` seeds is a leaf whose outcome is known: its *final margin* for the root
  player is the store difference plus the table's future margin (negated when the opponent is to
  move), and it is scored as a finished episode with that score difference (``+WIN`` or ``-WIN`` by
  its sign, 0 for 0, plus the margin, plus the depth bonus). Leaves at the same depth therefore
  compare as the table does, so a search whose root's children are all in the table plays one of
  the table's best moves.

The table is passed in as arrays (its bytes, their binomial coefficients, its ``max_seeds``, the
game's pit count): this module sits beside :mod:`mancala_envs.algorithms.retrograde` and imports nothing of it;
a board's place in a table is :func:`mancala_envs.engine.boards.board_index`, the function the
solver stores its tables by.

**Unchecked.** The compiled templates here (:func:`alphabeta_move`, :func:`alphabeta_root`,
:func:`mcts_move`, :func:`mcts_root`, :func:`choose_move`, :func:`opponent_turn`) are the engine's
per-ply internals, called in the vector envs' and the batches' hot loops: they trust every argument
(a state the engine made, buffers of the right sizes) and check nothing, so a state that no game
reaches can make them read or write outside their arrays and end the process. They are not in
``__all__``. The checked doors are :func:`mancala_envs.agents.search_agents.alphabeta_search` and
:func:`~mancala_envs.agents.search_agents.mcts_search` and the agents' ``act_on_state``, which pass every
state through ``Game.check_state`` first; check a state of unknown origin the same way before
handing it to a template.

Neither search uses numba's global generator: the agents draw from their own seeded numpy
generator and pass the draws in (a uniform number for alpha-beta's ties, four 32-bit words for
the MCTS generator, a small xorshift128 that runs without integer overflow).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from mancala_envs.algorithms.greedy import greedy_action
from mancala_envs.algorithms.playouts import legal_action_at
from mancala_envs.engine.arrays import copy_slots
from mancala_envs.engine.boards import board_index, table_margin
from mancala_envs.engine.jit import njit
from mancala_envs.engine.kernels import game_step, per_game
from mancala_envs.engine.prng import uniform
from mancala_envs.engine.state import (
    BOARD,
    FIRST_MOVE_DONE,
    GAMES_PLAYED,
    HISTORY_LEN,
    LAST_ACTION,
    LEGAL,
    OK,
    PLAYER,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
    WINNER,
)

__all__ = [
    "ABORTED",
    "ALPHABETA",
    "COMPILED_OPPONENTS",
    "DEPTH_BONUS",
    "GAME_POINT",
    "GREEDY",
    "HORIZON_LEAVES",
    "MAX_DEPTH",
    "MAX_SIMULATIONS",
    "MCTS",
    "NODES",
    "NODE_LIMIT",
    "OPPONENT_KINDS",
    "RANDOM",
    "TABLE_LEAVES",
    "TIME_BUDGET_PREFIX",
    "TRANSPOSITIONS",
    "TT_BOUND",
    "TT_DEPTH",
    "TT_EXACT",
    "TT_LOWER",
    "TT_MOVE",
    "TT_UPPER",
    "TT_VALUE",
    "UCT_C",
    "WIN",
    "empty_table",
    "new_transposition_table",
    "opponent_kinds",
    "parse_compiled_opponent",
    "position_hash",
]  # the compiled templates are unchecked internals (see the module docstring), not public API

WIN = 1_000_000_000_000  # a won episode (more than any score difference plus depth bonus)
GAME_POINT = 10_000_000_000  # one match point won in a game of a match that goes on
DEPTH_BONUS = 1_000_000  # per ply of search depth left at a decided leaf: prefer quick wins, slow losses
INFINITY = 100 * WIN
MAX_DEPTH = 64  # the deepest alpha-beta search accepted ("alphabeta:64")
MAX_SIMULATIONS = 1_000_000  # the most MCTS simulations accepted ("mcts:1000000")
UCT_C = math.sqrt(2.0)  # UCB1's exploration constant, for results in [0, 1]
TIME_BUDGET_PREFIX = "t="  # "alphabeta:t=0.1": the deepening search under a time budget of 0.1 s a move
#: whether alpha-beta searches over a transposition table (the deepening search, :func:`deepening_move`): bound per
#: compiled copy (``game.compiled(deepening_move, TRANSPOSITIONS=1)``), so the plain search compiles none of it
TRANSPOSITIONS = 0
#: whether alpha-beta scores positions in a perfect-play table as known outcomes: bound per compiled copy
#: (``game.compiled(alphabeta_move, TABLE_LEAVES=1)``), so the copies without a table compile none of it
TABLE_LEAVES = 0


# --- evaluation -------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _game_boundary(state: np.ndarray, games: int) -> bool:
    """Whether the last ply ended the episode or a game of a match (the engine laid out the next one)."""
    return state[STATUS] != RUNNING or state[GAMES_PLAYED] != games


@njit(cache=True, error_model="numpy")
def _leaf_value(state: np.ndarray, root: int, games: int, depth_left: int) -> int:
    """The value of ``state`` for the ``root`` player (see the module docstring)."""
    opponent = 1 - root
    bonus = DEPTH_BONUS * depth_left
    if state[STATUS] != RUNNING:
        score = state[SCORE + root] - state[SCORE + opponent]
        if state[WINNER] == root:
            return WIN + bonus + score
        if state[WINNER] == opponent:
            return -WIN - bonus + score
        return score
    if state[GAMES_PLAYED] != games:
        score = state[SCORE + root] - state[SCORE + opponent]
        points = state[POINTS + root] - state[POINTS + opponent]
        if points > 0:
            return GAME_POINT * points + bonus + score
        if points < 0:
            return GAME_POINT * points - bonus + score
        return score
    return state[STORE + root] - state[STORE + opponent]


# --- perfect-play tables at the leaves -------------------------------------------------------------------
def empty_table() -> tuple[np.ndarray, np.ndarray, int, int]:
    """The table arguments of the searches when there is no table: ``(values, binom, max_seeds, n_pits)``
    with ``max_seeds`` -1 (no position is in it)."""
    return np.zeros(0, np.uint8), np.zeros((1, 1), np.int64), -1, 0


@njit(cache=True, error_model="numpy")
def _in_table(state: np.ndarray, games: int, table_seeds: int, n_pits: int) -> bool:
    """Whether ``state`` is a running position of the searched game, after its first ply, whose board
    holds at most ``table_seeds`` seeds (always False with ``table_seeds`` -1)."""
    if table_seeds < 0 or state[STATUS] != RUNNING or state[GAMES_PLAYED] != games or state[FIRST_MOVE_DONE] == 0:
        return False
    seeds = 0
    for pit in range(BOARD, BOARD + n_pits):
        seeds += state[pit]
    return seeds <= table_seeds


@njit(cache=True, error_model="numpy")
def _table_value(
    state: np.ndarray, root: int, depth_left: int, table: np.ndarray, binom: np.ndarray, n_pits: int
) -> int:
    """The value for ``root`` of a position in the table (:func:`_in_table`), scored as a finished
    episode whose score difference is the final margin under perfect play (module docstring)."""
    mover = state[PLAYER]
    margin = table_margin(table[2 * board_index(state, BOARD, n_pits, binom) + mover])
    final = state[STORE + root] - state[STORE + 1 - root] + (margin if mover == root else -margin)
    if final > 0:
        return WIN + DEPTH_BONUS * depth_left + final
    if final < 0:
        return -WIN - DEPTH_BONUS * depth_left + final
    return 0


# --- copying a node ---------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _live_length(state: np.ndarray, history_start: int) -> int:
    """How many leading slots of ``state`` a ply can read: everything but the unused tail of a two-row
    game's repetition history (``step`` reads the ``HISTORY_LEN`` stored keys and writes the next
    slot, nothing beyond). Copying only these makes a node about twice as cheap to make."""
    if history_start > 0:
        return min(history_start + state[HISTORY_LEN], state.shape[0])
    return state.shape[0]


@njit(cache=True, error_model="numpy")
def _copy_node(target: np.ndarray, node: np.ndarray, live: int) -> None:
    """Makes ``target`` the same game as ``node`` (its first ``live`` slots; the rest is never read)."""
    copy_slots(target, node, live)


# --- alpha-beta -----------------------------------------------------------------------------------------------
#: the transposition table's entry fields (``tt_data[slot, field]``); values are stored for player 0
TT_VALUE, TT_DEPTH, TT_BOUND, TT_MOVE = 0, 1, 2, 3
#: an entry's bound: the exact value, a lower bound (the search failed high) or an upper bound (failed low)
TT_EXACT, TT_LOWER, TT_UPPER = 0, 1, 2
#: the fields of the search's counters (``counters[field]``): nodes, the node limit, whether the limit stopped the
#: search, and the running leaves the horizon cut (none: the whole game tree below the root was searched)
NODES, NODE_LIMIT, ABORTED, HORIZON_LEAVES = 0, 1, 2, 3


def new_transposition_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table of ``2**bits`` entries: ``(keys, data)``, keys 0 (no entry) and data
    ``int64[2**bits, 4]`` (:data:`TT_VALUE`, :data:`TT_DEPTH`, :data:`TT_BOUND`, :data:`TT_MOVE`); 40 bytes an entry."""
    return np.zeros(1 << bits, np.int64), np.zeros((1 << bits, 4), np.int64)


@njit(cache=True, error_model="numpy")
def position_hash(state: np.ndarray, live: int) -> int:
    """A 64-bit key of everything in the first ``live`` slots of ``state`` that the rules read from here on.

    Every slot is hashed but ``LAST_ACTION`` (a record of the path, which the rules only write), so two
    states with the same key play on identically (up to a 2^-64 collision): the repetition history, the ply
    counter and the match slots are in it. Never 0 (0 marks an empty entry)."""
    h = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15
    for i in range(live):
        if i == LAST_ACTION:
            continue
        h ^= state[i] + np.int64(i) * np.int64(0x632BE59BD9B4E019)
        h *= np.int64(-4658895280553007687)  # 0xBF58476D1CE4E5B9
        h ^= (h >> np.int64(31)) & np.int64(0x1FFFFFFFF)
    return h if h != 0 else np.int64(1)


@njit(cache=True, error_model="numpy")
def _stored_value(value: int, root: int) -> int:
    """``value`` for ``root`` as stored (for player 0), or a stored value as ``root`` sees it (the same map: every
    value of this module is antisymmetric between the players)."""
    return value if root == 0 else -value


@njit(cache=True, error_model="numpy")
def _stored_bound(bound: int, root: int) -> int:
    """``bound`` of a value for ``root`` as stored (for player 0), or back: a lower bound for one player is an upper
    bound for the other."""
    if root == 0 or bound == TT_EXACT:
        return bound
    return TT_UPPER if bound == TT_LOWER else TT_LOWER


@njit(cache=True, error_model="numpy")
def _tt_store(
    tt_keys: np.ndarray, tt_data: np.ndarray, key: int, value: int, root: int, depth_left: int, bound: int, move: int
) -> None:
    """Stores a searched node (always replacing what the slot held)."""
    slot = key & (tt_keys.shape[0] - 1)
    tt_keys[slot] = key
    tt_data[slot, TT_VALUE] = _stored_value(value, root)
    tt_data[slot, TT_DEPTH] = depth_left
    tt_data[slot, TT_BOUND] = _stored_bound(bound, root)
    tt_data[slot, TT_MOVE] = move


@njit(cache=True, error_model="numpy")
def _move_first(order: np.ndarray, actions: np.ndarray, ply: int, count: int, move: int) -> None:
    """Puts the child reached by ``move`` (if there is one) first in ``order[ply]``, the others keeping their order."""
    for j in range(count):
        if actions[ply, order[ply, j]] == move:
            first = order[ply, j]
            while j > 0:
                order[ply, j] = order[ply, j - 1]
                j -= 1
            order[ply, 0] = first
            return


@per_game()
def _expand(
    history_start: int,
    params: np.ndarray,
    node: np.ndarray,
    ply: int,
    depth: int,
    root: int,
    games: int,
    children: np.ndarray,
    actions: np.ndarray,
    values: np.ndarray,
    leaves: np.ndarray,
    order: np.ndarray,
    counters: np.ndarray,
    table: np.ndarray,
    binom: np.ndarray,
    table_seeds: int,
    n_pits: int,
) -> int:
    """Plays every legal action of ``node`` into ``children[ply]`` and orders them, best first for the
    player to move (by the value of the position right after the ply: captures first). A child in the
    table (``TABLE_LEAVES``) is a leaf with its table value.

    Returns:
        The number of children; ``order[ply, :n]`` lists them in search order.
    """
    no_trace = np.empty(0, np.int64)
    maximising = node[PLAYER] == root
    live = _live_length(node, history_start)
    bits = node[LEGAL]
    action = 0
    n = 0
    while bits:
        if bits & 1:
            child = children[ply, n]
            _copy_node(child, node, live)
            game_step(child, params, action, no_trace)
            counters[NODES] += 1
            actions[ply, n] = action
            if TABLE_LEAVES and _in_table(child, games, table_seeds, n_pits):
                values[ply, n] = _table_value(child, root, depth - 1, table, binom, n_pits)
                leaves[ply, n] = True
            else:
                values[ply, n] = _leaf_value(child, root, games, depth - 1)
                leaves[ply, n] = _game_boundary(child, games)
            # insertion sort by the mover's preference; equal values keep the action order
            j = n
            while j > 0:
                previous = values[ply, order[ply, j - 1]]
                if (maximising and previous >= values[ply, n]) or (not maximising and previous <= values[ply, n]):
                    break
                order[ply, j] = order[ply, j - 1]
                j -= 1
            order[ply, j] = n
            n += 1
        bits >>= 1
        action += 1
    return n


@per_game()
def _best_leaf(
    history_start: int,
    params: np.ndarray,
    node: np.ndarray,
    scratch: np.ndarray,
    alpha: int,
    beta: int,
    root: int,
    games: int,
    counters: np.ndarray,
    table: np.ndarray,
    binom: np.ndarray,
    table_seeds: int,
    n_pits: int,
) -> int:
    """Minimax value of ``node`` one ply from the search horizon: its children are leaves, played one
    at a time into ``scratch`` until a cut-off (fail-soft). The running leaves the horizon cuts count in
    ``counters[HORIZON_LEAVES]``."""
    no_trace = np.empty(0, np.int64)
    maximising = node[PLAYER] == root
    best = -INFINITY if maximising else INFINITY
    live = _live_length(node, history_start)
    bits = node[LEGAL]
    action = 0
    while bits:
        if bits & 1:
            _copy_node(scratch, node, live)
            game_step(scratch, params, action, no_trace)
            counters[NODES] += 1
            if TABLE_LEAVES and _in_table(scratch, games, table_seeds, n_pits):
                value = _table_value(scratch, root, 0, table, binom, n_pits)
            else:
                value = _leaf_value(scratch, root, games, 0)
                if not _game_boundary(scratch, games):
                    counters[HORIZON_LEAVES] += 1
            if maximising:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            if alpha >= beta:
                break
        bits >>= 1
        action += 1
    return best


@per_game()
def _search(
    history_start: int,
    params: np.ndarray,
    start: np.ndarray,
    start_ply: int,
    horizon: int,
    alpha: int,
    beta: int,
    root: int,
    games: int,
    children: np.ndarray,
    actions: np.ndarray,
    values: np.ndarray,
    leaves: np.ndarray,
    order: np.ndarray,
    counters: np.ndarray,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    table: np.ndarray,
    binom: np.ndarray,
    table_seeds: int,
    n_pits: int,
) -> int:
    """Minimax value for ``root`` of the running state ``start``, at ``start_ply`` plies from the root
    of a search to ``horizon`` plies (``horizon - start_ply >= 1`` plies left), with alpha-beta
    pruning (fail-soft: a value <= ``alpha`` or >= ``beta`` is only a bound).

    A node is maximising when the root player is to move in it, so a ply after which the same
    player moves again (an Omweso mid-turn choice) keeps the side. The depth-first walk keeps its
    own stack, one entry per ply (numba crashes loading a cached recursive function, numba#6061):
    the children of the node at ply ``p`` are ``children[p]``, searched in ``order[p]``;
    ``cursor[p]`` is the next one.

    In the copies compiled with ``TRANSPOSITIONS=1`` (the deepening search's) a node two or more plies from the
    horizon is looked up in the transposition table ``tt_keys, tt_data`` first: an entry of the same key *searched
    to the same depth* that settles the window (exact, or a bound beyond it) is its value, unsearched, and any entry
    of the key puts its best move first. Only entries of the same depth cut, and the key covers all the rules read
    (:func:`position_hash`), so the value is the same as without the table (tested). Those copies stop, returning 0
    with ``counters[ABORTED]`` set, once ``counters[NODES]`` passes ``counters[NODE_LIMIT]``; they store nothing
    from the nodes left open then.
    """
    if horizon - start_ply == 1:
        return _best_leaf(
            history_start,
            params,
            start,
            children[start_ply, 0],
            alpha,
            beta,
            root,
            games,
            counters,
            table,
            binom,
            table_seeds,
            n_pits,
        )
    count = np.zeros(horizon, np.int64)
    cursor = np.zeros(horizon, np.int64)
    alphas = np.zeros(horizon, np.int64)
    betas = np.zeros(horizon, np.int64)
    opened_alpha = np.zeros(horizon, np.int64)
    opened_beta = np.zeros(horizon, np.int64)
    bests = np.zeros(horizon, np.int64)
    best_moves = np.zeros(horizon, np.int64)
    keys = np.zeros(horizon, np.int64)
    maximising = np.zeros(horizon, np.bool_)
    mask = tt_keys.shape[0] - 1
    p = start_ply
    node = start
    alphas[p] = alpha
    betas[p] = beta
    while True:
        # Open the node at ply p (two or more plies from the horizon): the transposition table first, then its children.
        value = 0
        settled = False
        depth_left = horizon - p
        remembered = -1
        key = 0
        slot = 0
        if TRANSPOSITIONS:
            if counters[NODES] > counters[NODE_LIMIT]:
                counters[ABORTED] = 1
                return 0
            key = position_hash(node, _live_length(node, history_start))
            keys[p] = key
            slot = key & mask
        if TRANSPOSITIONS and tt_keys[slot] == key:
            remembered = tt_data[slot, TT_MOVE]
            if tt_data[slot, TT_DEPTH] == depth_left:
                stored = _stored_value(tt_data[slot, TT_VALUE], root)
                bound = _stored_bound(tt_data[slot, TT_BOUND], root)
                if (
                    bound == TT_EXACT
                    or (bound == TT_LOWER and stored >= betas[p])
                    or (bound == TT_UPPER and stored <= alphas[p])
                ):
                    value = stored
                    settled = True
                    counters[HORIZON_LEAVES] += 1  # its subtree may reach the horizon: never taken as exhausted
        if settled:
            if p == start_ply:
                return value
            p -= 1
        else:
            maximising[p] = node[PLAYER] == root
            bests[p] = -INFINITY if maximising[p] else INFINITY
            best_moves[p] = -1
            opened_alpha[p] = alphas[p]
            opened_beta[p] = betas[p]
            count[p] = _expand(
                history_start,
                params,
                node,
                p,
                depth_left,
                root,
                games,
                children,
                actions,
                values,
                leaves,
                order,
                counters,
                table,
                binom,
                table_seeds,
                n_pits,
            )
            if TRANSPOSITIONS and remembered >= 0:
                _move_first(order, actions, p, count[p], remembered)
            cursor[p] = 0
        # Take the children's values in order until a child must be opened or the node is done.
        while True:
            if settled:
                settled = False  # the value of the settled child is ``value``: fold it into its parent below
            elif cursor[p] < count[p] and alphas[p] < betas[p]:
                i = order[p, cursor[p]]
                if not leaves[p, i] and horizon - p > 2:
                    break
                if leaves[p, i]:
                    value = values[p, i]
                else:
                    value = _best_leaf(
                        history_start,
                        params,
                        children[p, i],
                        children[p + 1, 0],
                        alphas[p],
                        betas[p],
                        root,
                        games,
                        counters,
                        table,
                        binom,
                        table_seeds,
                        n_pits,
                    )
            else:
                # Done (all children seen, or a cut-off): stored, then the value goes to the parent.
                value = bests[p]
                if TRANSPOSITIONS:
                    if value <= opened_alpha[p]:
                        bound = TT_UPPER
                    elif value >= opened_beta[p]:
                        bound = TT_LOWER
                    else:
                        bound = TT_EXACT
                    _tt_store(tt_keys, tt_data, keys[p], value, root, horizon - p, bound, best_moves[p])
                if p == start_ply:
                    return value
                p -= 1
            if maximising[p]:
                if value > bests[p]:
                    bests[p] = value
                    best_moves[p] = actions[p, order[p, cursor[p]]]
                alphas[p] = max(alphas[p], bests[p])
            else:
                if value < bests[p]:
                    bests[p] = value
                    best_moves[p] = actions[p, order[p, cursor[p]]]
                betas[p] = min(betas[p], bests[p])
            cursor[p] += 1
        node = children[p, i]
        alphas[p + 1] = alphas[p]
        betas[p + 1] = betas[p]
        p += 1


@per_game()
def alphabeta_root(
    history_start: int,
    state: np.ndarray,
    params: np.ndarray,
    depth: int,
    draw: float,
    children: np.ndarray,
    actions: np.ndarray,
    values: np.ndarray,
    leaves: np.ndarray,
    order: np.ndarray,
    counters: np.ndarray,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    table: np.ndarray,
    binom: np.ndarray,
    table_seeds: int,
    n_pits: int,
) -> tuple[int, int]:
    """Alpha-beta to ``depth`` plies from the running ``state`` in the buffers given (see
    :func:`alphabeta_move`): the move (ties broken by ``draw``) and its value for the player to move.
    ``table, binom, table_seeds, n_pits`` are a perfect-play table's (:func:`empty_table` for none),
    read in the copies compiled with ``TABLE_LEAVES=1``. The copies compiled with ``TRANSPOSITIONS=1`` search
    over the transposition table ``tt_keys, tt_data`` (its move for the root first; see :func:`_search`): the same
    move for the same ``draw`` and the same value; they return -1 as the move once ``counters[ABORTED]`` is set
    (the node limit stopped them). Unchecked (see the module docstring)."""
    root = state[PLAYER]
    games = state[GAMES_PLAYED]
    n = _expand(
        history_start,
        params,
        state,
        0,
        depth,
        root,
        games,
        children,
        actions,
        values,
        leaves,
        order,
        counters,
        table,
        binom,
        table_seeds,
        n_pits,
    )
    key = 0
    if TRANSPOSITIONS:
        key = position_hash(state, _live_length(state, history_start))
        slot = key & (tt_keys.shape[0] - 1)
        if tt_keys[slot] == key:
            _move_first(order, actions, 0, n, tt_data[slot, TT_MOVE])
    best = -INFINITY
    best_move = -1
    for j in range(n):
        i = order[0, j]
        if not leaves[0, i] and depth > 1:
            # alpha = best - 1: a move as good as the best so far gets its exact value (a tie).
            values[0, i] = _search(
                history_start,
                params,
                children[0, i],
                1,
                depth,
                best - 1,
                INFINITY,
                root,
                games,
                children,
                actions,
                values,
                leaves,
                order,
                counters,
                tt_keys,
                tt_data,
                table,
                binom,
                table_seeds,
                n_pits,
            )
            if TRANSPOSITIONS and counters[ABORTED]:
                return -1, 0
        elif not leaves[0, i] and not _game_boundary(children[0, i], games):
            counters[HORIZON_LEAVES] += 1
        if values[0, i] > best:
            best = values[0, i]
            best_move = actions[0, i]
    if TRANSPOSITIONS:
        _tt_store(tt_keys, tt_data, key, best, root, depth, TT_EXACT, best_move)
    ties = 0
    for i in range(n):
        if values[0, i] == best:
            ties += 1
    pick = min(int(draw * ties), ties - 1)
    for i in range(n):  # in action order, as alphabeta_root: the same draw picks the same move
        if values[0, i] == best:
            if pick == 0:
                return actions[0, i], best
            pick -= 1
    return -1, best


@per_game()
def deepening_move(
    history_start: int,
    state: np.ndarray,
    params: np.ndarray,
    n_actions: int,
    depth: int,
    draw: float,
    counters: np.ndarray,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    table: np.ndarray,
    binom: np.ndarray,
    table_seeds: int,
    n_pits: int,
) -> tuple[int, int]:
    """One iteration of the deepening search to ``depth`` plies (:func:`alphabeta_root` in a copy compiled with
    ``TRANSPOSITIONS=1``) with its buffers made
    here: the move (-1 if ``counters[NODE_LIMIT]`` stopped it) and its value for the player to move; the
    nodes add to ``counters[NODES]``. Unchecked (``state`` must have passed ``Game.check_state``, see the module
    docstring)."""
    children = np.empty((depth, n_actions, state.shape[0]), np.int64)
    actions = np.empty((depth, n_actions), np.int64)
    values = np.empty((depth, n_actions), np.int64)
    leaves = np.empty((depth, n_actions), np.bool_)
    order = np.empty((depth, n_actions), np.int64)
    return alphabeta_root(
        history_start,
        state,
        params,
        depth,
        draw,
        children,
        actions,
        values,
        leaves,
        order,
        counters,
        tt_keys,
        tt_data,
        table,
        binom,
        table_seeds,
        n_pits,
    )


# --- Monte Carlo tree search ----------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _outcome(state: np.ndarray, root: int, games: int) -> float:
    """Result for ``root`` of a game that ended (1 win, 0.5 draw, 0 loss), or 0.5 if it goes on."""
    if state[STATUS] != RUNNING:
        if state[WINNER] == root:
            return 1.0
        if state[WINNER] == 1 - root:
            return 0.0
        return 0.5
    if state[GAMES_PLAYED] != games:
        points = state[POINTS + root] - state[POINTS + 1 - root]
        if points > 0:
            return 1.0
        if points < 0:
            return 0.0
    return 0.5


@per_game()
def _rollout(
    history_start: int, state: np.ndarray, params: np.ndarray, root: int, games: int, cap: int, words: np.ndarray
) -> tuple[float, int]:
    """Uniformly random plies until the game (of a match: the current game) ends, at most ``cap``.

    Returns:
        The result for ``root`` (:func:`_outcome`; 0.5 if the cap stopped it) and the plies played.
    """
    no_trace = np.empty(0, np.int64)
    plies = 0
    while not _game_boundary(state, games) and plies < cap:
        game_step(state, params, legal_action_at(state[LEGAL], uniform(words)), no_trace)
        plies += 1
    return _outcome(state, root, games), plies


@per_game()
def mcts_root(
    history_start: int,
    state: np.ndarray,
    params: np.ndarray,
    n_actions: int,
    simulations: int,
    c: float,
    cap: int,
    words: np.ndarray,
    draw: float,
    visits_out: np.ndarray,
) -> tuple[int, int]:
    """UCT from ``state`` (see :func:`mancala_envs.agents.search_agents.mcts_search`, its checked door): the most
    visited root action and the plies played in rollouts. Unchecked (see the module docstring)."""
    root = state[PLAYER]
    games = state[GAMES_PLAYED]
    size = simulations + 1
    child = np.full((size, n_actions), -1, np.int32)
    legal = np.zeros(size, np.int64)  # legal actions of each node
    untried = np.zeros(size, np.int64)  # legal actions not expanded yet
    mover = np.zeros(size, np.int64)  # the player who chose the ply into the node
    visits = np.zeros(size, np.int64)
    wins = np.zeros(size, np.float64)  # results summed for the node's mover (1 win, 0.5 draw)
    terminal = np.zeros(size, np.bool_)
    terminal_result = np.zeros(size, np.float64)  # for the root player
    path = np.zeros(size + 1, np.int64)
    work = np.empty_like(state)
    no_trace = np.empty(0, np.int64)
    legal[0] = state[LEGAL]
    untried[0] = state[LEGAL]
    n_nodes = 1
    rollout_plies = 0
    live = _live_length(state, history_start)
    for _ in range(simulations):
        _copy_node(work, state, live)
        node = 0
        path[0] = 0
        length = 1
        result = 0.5
        while True:
            if terminal[node]:
                result = terminal_result[node]
                break
            if untried[node] != 0:
                # Expansion: a random untried action.
                action = legal_action_at(untried[node], uniform(words))
                untried[node] &= ~(np.int64(1) << action)
                player = work[PLAYER]
                game_step(work, params, action, no_trace)
                new = n_nodes
                n_nodes += 1
                child[node, action] = new
                mover[new] = player
                path[length] = new
                length += 1
                if _game_boundary(work, games):
                    terminal[new] = True
                    terminal_result[new] = _outcome(work, root, games)
                    result = terminal_result[new]
                else:
                    legal[new] = work[LEGAL]
                    untried[new] = work[LEGAL]
                    result, plies = _rollout(history_start, work, params, root, games, cap, words)
                    rollout_plies += plies
                break
            # Selection: UCB1 over the children, for the player to move at the node.
            log_visits = math.log(visits[node])
            best_score = -1.0
            best_action = -1
            bits = legal[node]
            action = 0
            while bits:
                if bits & 1:
                    k = child[node, action]
                    score = wins[k] / visits[k] + c * math.sqrt(log_visits / visits[k])
                    if score > best_score:
                        best_score = score
                        best_action = action
                bits >>= 1
                action += 1
            game_step(work, params, best_action, no_trace)
            node = child[node, best_action]
            path[length] = node
            length += 1
        # Backpropagation.
        visits[0] += 1
        for i in range(1, length):
            k = path[i]
            visits[k] += 1
            wins[k] += result if mover[k] == root else 1.0 - result
    # The most visited root child; ties broken by the draw.
    most = 0
    for action in range(n_actions):
        k = child[0, action]
        if k >= 0:
            visits_out[action] = visits[k]
            most = max(most, visits[k])
    ties = 0
    for action in range(n_actions):
        if child[0, action] >= 0 and visits[child[0, action]] == most:
            ties += 1
    pick = min(int(draw * ties), ties - 1)
    for action in range(n_actions):
        if child[0, action] >= 0 and visits[child[0, action]] == most:
            if pick == 0:
                return action, rollout_plies
            pick -= 1
    return -1, rollout_plies


# --- the move of a compiled agent (the opponents of the single-agent and vector envs) ------------------------
#: the kinds of compiled agent
RANDOM, GREEDY, ALPHABETA, MCTS = 0, 1, 2, 3
#: the compiled agents that can play the opponent's seat inside compiled code, by kind
COMPILED_OPPONENTS = {"random": RANDOM, "greedy": GREEDY, "alphabeta": ALPHABETA, "mcts": MCTS}
#: the kinds a compiled copy of :func:`choose_move` can play, as a bit set (bit ``k`` for kind ``k``; see
#: :func:`opponent_kinds`): bound per copy (``game.compiled(template, OPPONENT_KINDS=bits)``), so that a copy
#: compiles only the agents it may be asked for (the greedy rule alone costs seconds of compiling). The random
#: agent is always there: it is what a kind outside the set plays.
OPPONENT_KINDS = 1 << RANDOM
_GREEDY_BIT, _ALPHABETA_BIT, _MCTS_BIT = 1 << GREEDY, 1 << ALPHABETA, 1 << MCTS


def opponent_kinds(kinds: Iterable[int]) -> int:
    """The bit set of ``kinds`` (the :data:`OPPONENT_KINDS` a compiled copy is bound to), e.g.
    ``opponent_kinds([RANDOM, GREEDY]) == 0b11``."""
    bits = 0
    for kind in kinds:
        if kind not in COMPILED_OPPONENTS.values():
            raise ValueError(f"unknown compiled agent kind {kind!r}; the kinds are {COMPILED_OPPONENTS}.")
        bits |= 1 << kind
    return bits


def parse_compiled_opponent(name: str) -> tuple[int, int] | None:
    """``(kind, strength)`` of an agent name that a compiled opponent can play (``"random"``,
    ``"greedy"``, ``"alphabeta:D"``, ``"mcts:N"``), or ``None`` for any other name.

    Raises:
        ValueError: ``alphabeta:``/``mcts:`` with a number out of range (the agents' own message).
    """
    if not isinstance(name, str):
        return None
    kind, _, parameter = name.partition(":")
    if kind in ("random", "greedy") and not parameter:
        return COMPILED_OPPONENTS[kind], 0
    limits = {"alphabeta": ("alphabeta depth", MAX_DEPTH), "mcts": ("mcts simulations", MAX_SIMULATIONS)}
    if kind == "alphabeta" and parameter.startswith(TIME_BUDGET_PREFIX):
        return None  # a time budget: the Python agent's (the compiled opponents search to a fixed depth)
    if kind in limits and parameter:
        what, high = limits[kind]
        if not (parameter.isascii() and parameter.isdigit()) or not 1 <= int(parameter) <= high:
            raise ValueError(f"{what} must be an integer from 1 to {high} as in '{kind}:4' (got {name!r}).")
        return COMPILED_OPPONENTS[kind], int(parameter)
    return None


@njit(cache=True, inline="always", error_model="numpy")
def _only_action(legal: int) -> int:
    """The action of a one-bit ``legal``; -1 if it has more or fewer bits."""
    if legal == 0 or legal & (legal - 1):
        return -1
    action = 0
    while not (legal >> action) & 1:
        action += 1
    return action


@per_game()
def alphabeta_move(
    history_start: int,
    state: np.ndarray,
    params: np.ndarray,
    n_actions: int,
    depth: int,
    draw: float,
    table: np.ndarray,
    binom: np.ndarray,
    table_seeds: int,
    n_pits: int,
) -> tuple[int, int, int]:
    """Unchecked (``state`` must have passed ``Game.check_state``, see the module docstring). Alpha-beta to
    ``depth`` plies (ties broken by ``draw``), with its buffers made here: the move, its
    value for the player to move and the nodes searched. ``table, binom, table_seeds, n_pits``: a
    perfect-play table (its ``values``, ``binom``, ``max_seeds`` and the game's ``n_pits``), read only by
    the copies compiled with ``TABLE_LEAVES=1``; :func:`empty_table` when there is none."""
    children = np.empty((depth, n_actions, state.shape[0]), np.int64)
    actions = np.empty((depth, n_actions), np.int64)
    values = np.empty((depth, n_actions), np.int64)
    leaves = np.empty((depth, n_actions), np.bool_)
    order = np.empty((depth, n_actions), np.int64)
    counters = np.zeros(4, np.int64)
    no_keys = np.zeros(1, np.int64)  # no transposition table: read only by the copies with TRANSPOSITIONS=1
    no_data = np.zeros((1, 4), np.int64)
    action, value = alphabeta_root(
        history_start,
        state,
        params,
        depth,
        draw,
        children,
        actions,
        values,
        leaves,
        order,
        counters,
        no_keys,
        no_data,
        table,
        binom,
        table_seeds,
        n_pits,
    )
    return action, value, counters[NODES]


@per_game()
def mcts_move(
    history_start: int,
    state: np.ndarray,
    params: np.ndarray,
    n_actions: int,
    simulations: int,
    cap: int,
    words: np.ndarray,
    draw: float,
) -> int:
    """MCTS's most visited move after ``simulations`` (UCB1 constant ``UCT_C``, rollouts of ``cap`` plies).
    Unchecked: ``state`` must have passed ``Game.check_state`` (see the module docstring)."""
    visits = np.zeros(n_actions, np.int64)
    action, _ = mcts_root(history_start, state, params, n_actions, simulations, UCT_C, cap, words, draw, visits)
    return action


@per_game(inline="always")
def choose_move(
    kind: int,
    history_start: int,
    state: np.ndarray,
    params: np.ndarray,
    n_actions: int,
    strength: int,
    cap: int,
    words: np.ndarray,
    trial: np.ndarray,
) -> int:
    """The move of the compiled agent ``kind`` (one of the copy's :data:`OPPONENT_KINDS`) for the player to
    move in ``state`` (running).

    ``strength`` is the search's depth or simulations; ``cap`` the MCTS rollout cap; ``words`` the
    xorshift128 generator the agent draws from (ties, random moves, rollouts); ``trial`` scratch space
    at least the size of ``state`` (the greedy rule's). A search with one legal move searches nothing.
    Unchecked (see the module docstring).
    """
    draw = uniform(words)
    # Each test of the bit set is a constant of the copy: numba drops the agents the copy cannot play.
    if OPPONENT_KINDS & _GREEDY_BIT and kind == GREEDY:
        return greedy_action(state, params, trial[: state.shape[0]], draw)
    if OPPONENT_KINDS & _ALPHABETA_BIT and kind == ALPHABETA:
        only = _only_action(state[LEGAL])
        if only >= 0:
            return only
        no_table = np.zeros(0, np.uint8)
        no_binom = np.zeros((1, 1), np.int64)
        return alphabeta_move(history_start, state, params, n_actions, strength, draw, no_table, no_binom, -1, 0)[0]
    if OPPONENT_KINDS & _MCTS_BIT and kind == MCTS:
        only = _only_action(state[LEGAL])
        if only >= 0:
            return only
        return mcts_move(history_start, state, params, n_actions, strength, cap, words, draw)
    return legal_action_at(state[LEGAL], draw)


@per_game()
def opponent_turn(
    state: np.ndarray,
    params: np.ndarray,
    action: int,
    settings: np.ndarray,
    words: np.ndarray,
    trial: np.ndarray,
    trace: np.ndarray,
) -> tuple[int, int, int]:
    """Plays ``action`` for the player to move (unless it is -1), then the compiled agent's moves
    (:func:`choose_move`) for the other player while that player is to move; with ``action`` -1 the
    player to move is the one the agent plays.

    ``settings`` is ``[history_start, n_actions, strength, rollout cap, kind]`` (the kind one of the copy's
    :data:`OPPONENT_KINDS`); ``words`` the agent's
    xorshift128 generator (advanced in place); ``trial`` scratch space the size of the state.

    Returns:
        The step code of ``action`` (nothing else is played unless it is ``OK``), the number of the
        agent's plies and its last action (-1 if none). ``trace`` holds the record of the last ply.

    Unchecked (see the module docstring): the vector envs call it on their own states every step.
    """
    history_start, n_actions, strength, cap, kind = settings[0], settings[1], settings[2], settings[3], settings[4]
    mover = state[PLAYER]
    agent = mover
    if action >= 0:
        code = game_step(state, params, action, trace)
        if code != OK:
            return code, 0, -1
        agent = 1 - mover
    plies = 0
    last = -1
    while state[STATUS] == RUNNING and state[PLAYER] == agent:
        last = choose_move(kind, history_start, state, params, n_actions, strength, cap, words, trial)
        game_step(state, params, last, trace)
        plies += 1
    return OK, plies, last
