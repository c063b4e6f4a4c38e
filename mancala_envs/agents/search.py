"""Search agents: alpha-beta (``"alphabeta:D"``) and UCT Monte Carlo tree search (``"mcts:N"``).

Both searches run in compiled code on the engine's state array: they are per-game templates
(:mod:`mancala_envs.engine.kernels`) that call the game's compiled ``step``, never the PettingZoo environment. A node is a
state; a ply is one agent decision, so an Omweso mid-turn choice (the same player moves again)
is a ply like any other: the searches read the player to move from ``state[PLAYER]`` at every
node and never assume that the sides alternate.

Values are from the point of view of the **root player** (the player to move when the search
starts):

- a running position is worth the root player's seeds minus the opponent's: ``STORE`` (seeds
  captured in this game; Omweso: the capture tallies) plus ``RESERVE`` (Rio Kadalis' match
  reserve, 0 elsewhere);
- a finished episode (``STATUS`` not ``RUNNING``) is worth ``+WIN`` or ``-WIN`` by ``WINNER`` (0
  for a draw or an annulled game), plus the final score difference (``SCORE``), plus
  ``DEPTH_BONUS`` per ply of search depth left, so that a quicker win (and a slower loss) is
  preferred;
- in a match, a ply after which the engine has laid out the next game (``GAMES_PLAYED`` went up
  while the match runs) is a leaf worth ``GAME_POINT`` per match point of difference in that
  game (``POINTS``), plus its score difference and the same depth bonus.

Neither search uses numba's global generator: the agents draw from their own seeded numpy
generator and pass the draws in (a uniform number for alpha-beta's ties, four 32-bit words for
the MCTS generator, a small xorshift128 that runs without integer overflow).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from mancala_envs.agents.base import Agent
from mancala_envs.engine.prng import MASK32, uniform
from mancala_envs.engine.state import (
    GAMES_PLAYED,
    HISTORY_LEN,
    LEGAL,
    PLAYER,
    POINTS,
    RESERVE,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
    WINNER,
)
from mancala_envs.games.base import Game
from mancala_envs.engine.kernels import game_step, per_game
from mancala_envs.rollout import legal_action_at
from mancala_envs.validation import check_integer

__all__ = [
    "DEPTH_BONUS",
    "GAME_POINT",
    "MAX_DEPTH",
    "MAX_SIMULATIONS",
    "UCT_C",
    "WIN",
    "AlphaBetaAgent",
    "MCTSAgent",
    "alphabeta_search",
    "mcts_search",
]

WIN = 1_000_000_000_000  # a won episode (more than any score difference plus depth bonus)
GAME_POINT = 10_000_000_000  # one match point won in a game of a match that goes on
DEPTH_BONUS = 1_000_000  # per ply of search depth left at a decided leaf: prefer quick wins, slow losses
INFINITY = 100 * WIN
MAX_DEPTH = 64  # the deepest alpha-beta search accepted ("alphabeta:64")
MAX_SIMULATIONS = 1_000_000  # the most MCTS simulations accepted ("mcts:1000000")
UCT_C = math.sqrt(2.0)  # UCB1's exploration constant, for results in [0, 1]


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
    return state[STORE + root] + state[RESERVE + root] - state[STORE + opponent] - state[RESERVE + opponent]


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
    target[:live] = node[:live]


# --- alpha-beta -----------------------------------------------------------------------------------------------
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
    nodes: np.ndarray,
) -> int:
    """Plays every legal action of ``node`` into ``children[ply]`` and orders them, best first for the
    player to move (by the value of the position right after the ply: captures first).

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
            nodes[0] += 1
            actions[ply, n] = action
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
    nodes: np.ndarray,
) -> int:
    """Minimax value of ``node`` one ply from the search horizon: its children are leaves, played one
    at a time into ``scratch`` until a cut-off (fail-soft)."""
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
            nodes[0] += 1
            value = _leaf_value(scratch, root, games, 0)
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
    nodes: np.ndarray,
) -> int:
    """Minimax value for ``root`` of the running state ``start``, at ``start_ply`` plies from the root
    of a search to ``horizon`` plies (``horizon - start_ply >= 1`` plies left), with alpha-beta
    pruning (fail-soft: a value <= ``alpha`` or >= ``beta`` is only a bound).

    A node is maximising when the root player is to move in it, so a ply after which the same
    player moves again (an Omweso mid-turn choice) keeps the side. The depth-first walk keeps its
    own stack, one entry per ply (numba crashes loading a cached recursive function, numba#6061):
    the children of the node at ply ``p`` are ``children[p]``, searched in ``order[p]``;
    ``cursor[p]`` is the next one.
    """
    if horizon - start_ply == 1:
        return _best_leaf(history_start, params, start, children[start_ply, 0], alpha, beta, root, games, nodes)
    count = np.zeros(horizon, np.int64)
    cursor = np.zeros(horizon, np.int64)
    alphas = np.zeros(horizon, np.int64)
    betas = np.zeros(horizon, np.int64)
    bests = np.zeros(horizon, np.int64)
    maximising = np.zeros(horizon, np.bool_)
    p = start_ply
    node = start
    alphas[p] = alpha
    betas[p] = beta
    while True:
        # Open the node at ply p (two or more plies from the horizon): play and order its children.
        maximising[p] = node[PLAYER] == root
        bests[p] = -INFINITY if maximising[p] else INFINITY
        count[p] = _expand(
            history_start, params, node, p, horizon - p, root, games, children, actions, values, leaves, order, nodes
        )
        cursor[p] = 0
        # Take the children's values in order until a child must be opened or the node is done.
        while True:
            if cursor[p] < count[p] and alphas[p] < betas[p]:
                i = order[p, cursor[p]]
                if not leaves[p, i] and horizon - p > 2:
                    break
                if leaves[p, i]:
                    value = values[p, i]
                else:
                    value = _best_leaf(
                        history_start, params, children[p, i], children[p + 1, 0], alphas[p], betas[p], root, games, nodes
                    )
            else:
                # Done (all children seen, or a cut-off): the value goes to the parent.
                value = bests[p]
                if p == start_ply:
                    return value
                p -= 1
            if maximising[p]:
                bests[p] = max(bests[p], value)
                alphas[p] = max(alphas[p], bests[p])
            else:
                bests[p] = min(bests[p], value)
                betas[p] = min(betas[p], bests[p])
            cursor[p] += 1
        node = children[p, i]
        alphas[p + 1] = alphas[p]
        betas[p + 1] = betas[p]
        p += 1


@per_game()
def _alphabeta_root(
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
    nodes: np.ndarray,
) -> tuple[int, int]:
    root = state[PLAYER]
    games = state[GAMES_PLAYED]
    n = _expand(history_start, params, state, 0, depth, root, games, children, actions, values, leaves, order, nodes)
    best = -INFINITY
    for j in range(n):
        i = order[0, j]
        if not leaves[0, i] and depth > 1:
            # alpha = best - 1: a move as good as the best so far gets its exact value (a tie).
            values[0, i] = _search(
                history_start, params, children[0, i], 1, depth, best - 1, INFINITY, root, games,
                children, actions, values, leaves, order, nodes,
            )
        best = max(best, values[0, i])
    ties = 0
    for i in range(n):
        if values[0, i] == best:
            ties += 1
    pick = min(int(draw * ties), ties - 1)
    for i in range(n):
        if values[0, i] == best:
            if pick == 0:
                return actions[0, i], best
            pick -= 1
    return -1, best


def alphabeta_search(
    game: Game, state: np.ndarray, depth: int, draw: float = 0.0
) -> tuple[int, int, int]:
    """Minimax with alpha-beta pruning to ``depth`` plies from ``state``, in compiled code.

    Children are searched best first by the value of the position right after the ply (captures
    first). Among root moves of equal value the one that ``draw`` selects is returned (the
    ``int(draw * ties)``-th in action order).

    Args:
        game: The game whose state it is (its compiled rules and ``params``).
        state: A running state of ``game`` (not changed).
        depth: Plies to search, 1 to ``MAX_DEPTH``.
        draw: A uniform number in [0, 1) that breaks ties between root moves.

    Returns:
        The action, its value for the player to move (see the module docstring) and the number of
        nodes searched (plies played).

    Raises:
        TypeError: ``game`` is not a Game, ``state`` not one of its states, or ``depth`` not an integer.
        ValueError: the game in ``state`` is over, or ``depth`` is out of range.

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
    n_actions = game.n_actions
    children = np.empty((depth, n_actions, state.shape[0]), np.int64)
    actions = np.empty((depth, n_actions), np.int64)
    values = np.empty((depth, n_actions), np.int64)
    leaves = np.empty((depth, n_actions), np.bool_)
    order = np.empty((depth, n_actions), np.int64)
    nodes = np.zeros(1, np.int64)
    action, value = game.compiled(_alphabeta_root)(
        game.history_start, state, game.params, int(depth), float(draw), children, actions, values, leaves, order, nodes
    )
    return int(action), int(value), int(nodes[0])


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
def _mcts(
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
        c: The exploration constant (``sqrt(2)``).
        rollout_cap: Most plies in one rollout (default: ``game.max_episode_plies``).

    Returns:
        The most visited root action, the visit count of every action (0 for illegal ones) and the
        plies played in rollouts.

    Raises:
        TypeError: ``game`` is not a Game, ``state`` not one of its states, or a count not an integer.
        ValueError: the game in ``state`` is over, a count is out of range, or ``words`` is unusable.
    """
    Agent.state_legal_actions(game, state)
    simulations = check_integer("mcts simulations", simulations, 1, MAX_SIMULATIONS)
    if (
        not isinstance(words, np.ndarray) or words.dtype != np.int64 or words.shape != (4,)
        or (words < 0).any() or (words > MASK32).any() or not words.any()
    ):
        raise ValueError(
            "words must be an int64 array of 4 numbers in 0 .. 2**32 - 1, not all 0, "
            "e.g. rng.integers(1, 2**32, size=4)."
        )
    if rollout_cap is None:
        rollout_cap = game.max_episode_plies
    rollout_cap = check_integer("rollout_cap", rollout_cap, 1, 2**62)
    visits = np.zeros(game.n_actions, np.int64)
    action, plies = game.compiled(_mcts)(
        game.history_start, state, game.params, game.n_actions, int(simulations), float(c), int(rollout_cap),
        words, float(draw), visits,
    )
    return int(action), visits, int(plies)


# --- agents --------------------------------------------------------------------------------------------------------
class _StateSearchAgent(Agent):
    """An agent whose choice is a compiled search on the engine state (``act`` and ``act_on_state``)."""

    def act(self, env: Any) -> int:
        legal = self.env_legal_actions(env)
        raw = env.unwrapped
        if legal.size == 1:
            self._record_trivial()
            return int(legal[0])
        return self._choose(raw.game, raw.state_array)

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        legal = self.state_legal_actions(game, state)
        if legal.size == 1:
            self._record_trivial()
            return int(legal[0])
        return self._choose(game, state)

    def _record_trivial(self) -> None:
        """Notes a move with one legal action (nothing was searched)."""

    def _choose(self, game: Game, state: np.ndarray) -> int:
        raise NotImplementedError


class AlphaBetaAgent(_StateSearchAgent):
    """Minimax with alpha-beta pruning to ``depth`` plies (``"alphabeta:D"``).

    The evaluation is the score difference for the player to move (a finished game: a win or loss
    above any score, quicker wins first); see :mod:`mancala_envs.agents.search`. Equally good moves
    are chosen between with the agent's generator. With one legal action nothing is searched.

    Args:
        depth: Plies to search, 1 to 64. An Omweso mid-turn choice counts as a ply of the same player.
        seed: Seed of the agent's generator (ties).

    Attributes:
        last_nodes: Nodes searched (plies played) for the last move.
        last_value: The last move's value for the player who made it (``None`` without a search).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> agent = AlphaBetaAgent(depth=4, seed=0)
        >>> action = agent.act(env)
        >>> bool(env.observe("player_0")["action_mask"][action]), agent.last_nodes > 0
        (True, True)
    """

    def __init__(self, depth: int = 4, seed: int | None = None) -> None:
        self.depth = check_integer("alphabeta depth", depth, 1, MAX_DEPTH)
        super().__init__(seed)
        self.name = f"alphabeta:{self.depth}"
        self.last_nodes = 0
        self.last_value: int | None = None

    def _record_trivial(self) -> None:
        self.last_nodes = 0
        self.last_value = None

    def _choose(self, game: Game, state: np.ndarray) -> int:
        action, value, nodes = alphabeta_search(game, state, self.depth, float(self.rng.random()))
        self.last_nodes = nodes
        self.last_value = value
        return action

    def __repr__(self) -> str:
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
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
            raise ValueError(f"the exploration constant c must be a finite number >= 0 (got {c!r}).")
        super().__init__(seed)
        self.c = float(c)
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
        action, visits, plies = mcts_search(game, state, self.simulations, words, float(self.rng.random()), self.c)
        self.last_simulations = self.simulations
        self.last_rollout_plies = plies
        self.last_visits = visits
        return action

    def __repr__(self) -> str:
        return f"MCTSAgent(simulations={self.simulations})"
