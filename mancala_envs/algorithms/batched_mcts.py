"""Batched PUCT Monte Carlo tree search: N games searched at once, their leaves evaluated in one batch.

The search of AlphaZero (Silver et al. 2018) over ``N`` independent games. A *simulation wave* selects one
leaf in every game's tree (compiled: :func:`select_leaves`), hands their observations and legal masks to
the caller, who evaluates them all in **one** forward pass of a policy-value network (priors over the
actions and a value for the player to move), and a compiled :func:`expand_and_backup` expands the leaves
with those priors and backs the values up. One search of ``simulations`` is ``simulations + 1`` waves: the
first expands the roots. A single game is the same code with ``N = 1`` (:func:`search_one`).

**Why PUCT rather than Gumbel AlphaZero.** PUCT is simple (one selection rule, no sequential halving), its
training target is the root's visit counts, which the replay buffer stores as they are, and it works
with the few tens to hundreds of simulations this library can afford on a CPU: Gumbel's advantage is at
very few simulations (2-16), where a trained policy is also the move. A batched PUCT keeps every game
at the same wave, so the batch is always ``N`` rows until the games whose leaf is a finished game need
no evaluation (those rows are left out of the batch).

**Values.** A node's value is from the point of view of the player to move *at that node*, read from
``state[PLAYER]`` at every node: a ply after which the same player moves again (an Omweso mid-turn choice,
a Kalah extra turn) does not flip the sign, and backing a leaf's value ``v`` (for the leaf's player ``p``)
up an edge out of a node where ``p`` moves adds ``v``, anywhere else ``-v``. A finished game (``STATUS``
not running), or in a match a game that ended (``GAMES_PLAYED`` went up), is a terminal leaf worth its
result without the evaluator: ``1`` for the winner (the winner of more points in a match's game), ``-1``
for the loser, ``0`` for a draw.

**Selection** maximises ``Q(s, a) + c_puct * P(s, a) * sqrt(N(s)) / (1 + N(s, a))`` over the legal
actions, ``N(s)`` counting the simulations through ``s`` (its own expansion included), ``Q`` the mean
backed-up value of the edge for the player to move at ``s`` and 0 for an edge never visited; ties go to
the lowest action. The priors are the evaluator's, renormalised over the legal actions (uniform over them
when the evaluator gives them no mass). Exploration noise at the roots (AlphaZero's Dirichlet noise, for
self-play) is drawn by the caller from its own numpy generator (:func:`dirichlet_noise`) and mixed into
the roots' priors after the first wave: nothing here draws a random number, and numba's global generator
is never used.

**Unchecked.** The compiled templates trust their arguments (running states the engine made, buffers of
the sizes :class:`BatchedMCTS` allocates); the checked doors are :class:`BatchedMCTS` (its arguments)
and the agents' ``act_on_state`` (``Game.check_state`` on the state).

Example:
    >>> import numpy as np
    >>> from mancala_envs.games.kalah import Kalah
    >>> from mancala_envs.algorithms.batched_mcts import BatchedMCTS, uniform_evaluator
    >>> game = Kalah()
    >>> search = BatchedMCTS(game, simulations=16)
    >>> result = search.run(np.stack([game.new_state(0), game.new_state(1)]), uniform_evaluator(game))
    >>> result.visits.shape, int(result.visits[0].sum())
    ((2, 6), 16)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from mancala_envs.engine.arrays import copy_slots
from mancala_envs.engine.jit import njit
from mancala_envs.engine.kernels import game_observe, game_step, per_game
from mancala_envs.engine.state import GAMES_PLAYED, LEGAL, PLAYER, POINTS, RUNNING, STATUS, WINNER
from mancala_envs.games.game import Game

__all__ = [
    "DEFAULT_C_PUCT",
    "MAX_SIMULATIONS",
    "BatchedMCTS",
    "Evaluator",
    "SearchResult",
    "check_c_puct",
    "check_simulations",
    "choose_actions",
    "dirichlet_noise",
    "legal_masks",
    "search_one",
    "uniform_evaluator",
]

#: PUCT's exploration constant (AlphaZero's 1.25 at its start of the schedule; values are in [-1, 1])
DEFAULT_C_PUCT = 1.5
#: the most simulations a search accepts (the trees are ``simulations + 1`` nodes a game, allocated at once)
MAX_SIMULATIONS = 100_000

#: An evaluator: ``(observations (k, observation_size) int32, masks (k, n_actions) bool)`` to
#: ``(priors (k, n_actions) float, values (k,) float in [-1, 1] for the player to move)``.
Evaluator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


# --- the compiled tree work ---------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _result_for_player0(state: np.ndarray, games: int) -> float:
    """The result of a finished game for player 0: 1 won, -1 lost, 0 drawn (a match's game: by its points)."""
    if state[STATUS] != RUNNING:
        if state[WINNER] == 0:
            return 1.0
        if state[WINNER] == 1:
            return -1.0
        return 0.0
    if state[GAMES_PLAYED] != games:
        points = state[POINTS] - state[POINTS + 1]
        if points > 0:
            return 1.0
        if points < 0:
            return -1.0
    return 0.0


@per_game()
def select_leaves(
    params: np.ndarray,
    roots: np.ndarray,
    work: np.ndarray,
    children: np.ndarray,
    edge_visits: np.ndarray,
    edge_values: np.ndarray,
    priors: np.ndarray,
    node_player: np.ndarray,
    node_legal: np.ndarray,
    node_visits: np.ndarray,
    node_terminal: np.ndarray,
    terminal_value: np.ndarray,
    n_nodes: np.ndarray,
    path_nodes: np.ndarray,
    path_actions: np.ndarray,
    path_length: np.ndarray,
    leaf_node: np.ndarray,
    c_puct: float,
    observations: np.ndarray,
    masks: np.ndarray,
    needs_eval: np.ndarray,
) -> int:
    """One leaf per game: walks each game's tree from its root (``roots[g]``, replayed into ``work[g]``) by PUCT
    to an edge never taken, plays it and makes its node; or to a terminal node. A game whose tree is empty gets
    its root as the leaf. A leaf that needs the evaluator gets its player's observation and mask in
    ``observations[g]``, ``masks[g]`` and ``needs_eval[g]`` True. Returns how many need it. Unchecked."""
    no_trace = np.empty(0, np.int64)
    count = 0
    n_games = roots.shape[0]
    n_actions = priors.shape[2]
    for g in range(n_games):
        state = work[g]
        copy_slots(state, roots[g], state.shape[0])
        needs_eval[g] = False
        length = 0
        if n_nodes[g] == 0:
            node = 0
            n_nodes[g] = 1
            node_player[g, 0] = state[PLAYER]
            node_legal[g, 0] = state[LEGAL]
        else:
            node = 0
            games = state[GAMES_PLAYED]
            while True:
                if node_terminal[g, node]:
                    break
                root_visits = math.sqrt(node_visits[g, node])
                best = -np.inf
                best_action = -1
                bits = node_legal[g, node]
                action = 0
                while bits:
                    if bits & 1:
                        visits = edge_visits[g, node, action]
                        q = edge_values[g, node, action] / visits if visits > 0 else 0.0
                        score = q + c_puct * priors[g, node, action] * root_visits / (1.0 + visits)
                        if score > best:
                            best = score
                            best_action = action
                    bits >>= 1
                    action += 1
                path_nodes[g, length] = node
                path_actions[g, length] = best_action
                length += 1
                game_step(state, params, best_action, no_trace)
                child = children[g, node, best_action]
                if child >= 0:
                    node = child
                    continue
                node = n_nodes[g]
                n_nodes[g] += 1
                children[g, path_nodes[g, length - 1], best_action] = node
                node_player[g, node] = state[PLAYER]
                node_legal[g, node] = state[LEGAL]
                if state[STATUS] != RUNNING or state[GAMES_PLAYED] != games:
                    node_terminal[g, node] = True
                    terminal_value[g, node] = _result_for_player0(state, games)
                break
        path_length[g] = length
        leaf_node[g] = node
        if not node_terminal[g, node]:
            needs_eval[g] = True
            count += 1
            game_observe(state, params, state[PLAYER], observations[g], masks[g])
        else:
            for action in range(n_actions):
                masks[g, action] = 0
    return count


@njit(cache=True, error_model="numpy")
def expand_and_backup(
    edge_visits: np.ndarray,
    edge_values: np.ndarray,
    priors: np.ndarray,
    node_player: np.ndarray,
    node_legal: np.ndarray,
    node_visits: np.ndarray,
    node_terminal: np.ndarray,
    terminal_value: np.ndarray,
    path_nodes: np.ndarray,
    path_actions: np.ndarray,
    path_length: np.ndarray,
    leaf_node: np.ndarray,
    needs_eval: np.ndarray,
    rows: np.ndarray,
    new_priors: np.ndarray,
    new_values: np.ndarray,
) -> None:
    """Expands each game's leaf with its row of the evaluation (``rows[g]``: the row of ``new_priors`` and
    ``new_values``, for the games that ``needs_eval``), priors renormalised over the legal actions, and backs
    the leaf's value up its path (the sign by the player to move at each node). Unchecked."""
    n_games = leaf_node.shape[0]
    n_actions = priors.shape[2]
    for g in range(n_games):
        leaf = leaf_node[g]
        if needs_eval[g]:
            row = rows[g]
            legal = node_legal[g, leaf]
            total = 0.0
            for action in range(n_actions):
                if (legal >> action) & 1:
                    p = new_priors[row, action]
                    if p > 0.0 and p < np.inf:
                        total += p
            legal_count = 0
            for action in range(n_actions):
                if (legal >> action) & 1:
                    legal_count += 1
            for action in range(n_actions):
                if (legal >> action) & 1:
                    p = new_priors[row, action]
                    if total > 0.0:
                        priors[g, leaf, action] = p / total if (p > 0.0 and p < np.inf) else 0.0
                    else:
                        priors[g, leaf, action] = 1.0 / legal_count
                else:
                    priors[g, leaf, action] = 0.0
            value = new_values[row]
            value_player = node_player[g, leaf]
        else:
            value = terminal_value[g, leaf]
            value_player = 0
        node_visits[g, leaf] += 1
        for i in range(path_length[g]):
            node = path_nodes[g, i]
            action = path_actions[g, i]
            node_visits[g, node] += 1
            edge_visits[g, node, action] += 1
            edge_values[g, node, action] += value if node_player[g, node] == value_player else -value


# --- the checked door -------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SearchResult:
    """What a search returns per game.

    Attributes:
        visits: ``(N, n_actions)`` int64 visit counts of the roots' edges (0 for illegal actions); each row sums
            to the simulations.
        values: ``(N,)`` the roots' mean backed-up values for their player to move (the evaluator's root value
            with 0 simulations).
        priors: ``(N, n_actions)`` the roots' priors as searched (noise mixed in when there was some).
    """

    visits: np.ndarray
    values: np.ndarray
    priors: np.ndarray


class BatchedMCTS:
    """PUCT search over a batch of positions of one game, its leaves evaluated one wave at a time.

    Args:
        game: The game (with its config).
        simulations: Simulations per search (0: the roots' evaluation alone), 0 to :data:`MAX_SIMULATIONS`.
        c_puct: PUCT's exploration constant (positive, finite).

    Raises:
        TypeError: ``game`` is not a Game, or a number of the wrong type.
        ValueError: ``simulations`` or ``c_puct`` out of range.
    """

    def __init__(self, game: Game, simulations: int, *, c_puct: float = DEFAULT_C_PUCT) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"game must be a mancala_envs Game such as Kalah() (got {type(game).__name__}).")
        self.simulations = check_simulations(simulations)
        self.game = game
        self.c_puct = check_c_puct(c_puct)
        self._select = game.compiled(select_leaves)

    def run(
        self, states: np.ndarray, evaluate: Evaluator, noise: np.ndarray | None = None, noise_fraction: float = 0.25
    ) -> SearchResult:
        """Searches every row of ``states`` (running states of the game, ``(N, state_size)`` int64).

        Args:
            states: The roots (not changed).
            evaluate: Called once per wave with the observations and legal masks of the leaves that need it
                (:data:`Evaluator`); returns their priors and values.
            noise: ``(N, n_actions)`` exploration noise for the roots (:func:`dirichlet_noise`), or ``None``.
            noise_fraction: The share of the noise in the roots' priors (AlphaZero's 0.25).

        Raises:
            ValueError: ``states`` not a 2-d array of the game's states, a finished game among them, or an
                evaluator's answer of the wrong shape.
        """
        game = self.game
        states = np.asarray(states)
        if states.ndim != 2 or states.shape[1] != game.state_size or states.dtype != np.int64:
            raise ValueError(
                f"states must be an (N, {game.state_size}) int64 array of {game.env_name} states "
                f"(got {states.dtype} {states.shape}); stack single ones with state[None]."
            )
        if len(states) and ((states[:, STATUS] != RUNNING).any() or (states[:, LEGAL] == 0).any()):
            raise ValueError("every state searched must be a running game with a legal move; drop finished games.")
        n, a, m = len(states), game.n_actions, self.simulations + 1
        if noise is not None:
            noise = np.asarray(noise, np.float64)
            if noise.shape != (n, a):
                raise ValueError(f"noise must have shape ({n}, {a}), one row per state (got {noise.shape}).")
        roots = np.ascontiguousarray(states)
        work = np.empty_like(roots)
        children = np.full((n, m, a), -1, np.int64)
        edge_visits = np.zeros((n, m, a), np.int64)
        edge_values = np.zeros((n, m, a), np.float64)
        priors = np.zeros((n, m, a), np.float64)
        node_player = np.zeros((n, m), np.int64)
        node_legal = np.zeros((n, m), np.int64)
        node_visits = np.zeros((n, m), np.int64)
        node_terminal = np.zeros((n, m), np.bool_)
        terminal_value = np.zeros((n, m), np.float64)
        n_nodes = np.zeros(n, np.int64)
        path_nodes = np.zeros((n, m), np.int64)
        path_actions = np.zeros((n, m), np.int64)
        path_length = np.zeros(n, np.int64)
        leaf_node = np.zeros(n, np.int64)
        observations = np.zeros((n, game.observation_size), np.int32)
        masks = np.zeros((n, a), np.int8)
        needs_eval = np.zeros(n, np.bool_)
        root_values = np.zeros(n, np.float64)
        for wave in range(m):
            count = self._select(
                game.params, roots, work, children, edge_visits, edge_values, priors, node_player, node_legal,
                node_visits, node_terminal, terminal_value, n_nodes, path_nodes, path_actions, path_length,
                leaf_node, self.c_puct, observations, masks, needs_eval,
            )  # fmt: skip
            rows = np.cumsum(needs_eval) - 1
            if count:
                chosen = needs_eval.nonzero()[0]
                new_priors, new_values = evaluate(observations[chosen], masks[chosen].astype(bool))
                new_priors = np.asarray(new_priors, np.float64)
                new_values = np.asarray(new_values, np.float64).reshape(-1)
                if new_priors.shape != (count, a) or new_values.shape != (count,):
                    raise ValueError(
                        f"the evaluator must return priors of shape ({count}, {a}) and values of shape ({count},) "
                        f"for {count} leaves (got {new_priors.shape} and {new_values.shape})."
                    )
            else:
                new_priors, new_values = np.zeros((1, a)), np.zeros(1)
            if wave == 0:
                root_values[:] = new_values[rows] if count else 0.0
            expand_and_backup(
                edge_visits, edge_values, priors, node_player, node_legal, node_visits, node_terminal,
                terminal_value, path_nodes, path_actions, path_length, leaf_node, needs_eval, rows,
                np.ascontiguousarray(new_priors), np.ascontiguousarray(new_values),
            )  # fmt: skip
            if wave == 0 and noise is not None:
                legal = priors[:, 0, :] > 0
                priors[:, 0, :] = np.where(legal, (1 - noise_fraction) * priors[:, 0, :] + noise_fraction * noise, 0.0)
        visits = edge_visits[:, 0, :].copy()
        if self.simulations:
            totals = np.maximum(visits.sum(axis=1), 1)
            root_values = edge_values[:, 0, :].sum(axis=1) / totals
        return SearchResult(visits=visits, values=root_values, priors=priors[:, 0, :].copy())


def check_simulations(simulations: object, low: int = 0) -> int:
    """``simulations`` as an int, checked to be from ``low`` to :data:`MAX_SIMULATIONS`.

    Raises:
        TypeError: not an integer.
        ValueError: out of range.
    """
    if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)):
        raise TypeError(f"simulations must be an integer from {low} to {MAX_SIMULATIONS} (got {simulations!r}).")
    if not low <= int(simulations) <= MAX_SIMULATIONS:
        raise ValueError(f"simulations must be from {low} to {MAX_SIMULATIONS}, as in 'az:100' (got {simulations!r}).")
    return int(simulations)


def check_c_puct(c_puct: object) -> float:
    """``c_puct`` as a float, checked to be a positive finite number.

    Raises:
        ValueError: anything else.
    """
    if isinstance(c_puct, bool) or not isinstance(c_puct, (int, float)) or not 0 < c_puct < math.inf:
        raise ValueError(f"c_puct must be a positive finite number such as 1.5 (got {c_puct!r}).")
    return float(c_puct)


def search_one(game: Game, state: np.ndarray, evaluate: Evaluator, simulations: int, **options: float) -> SearchResult:
    """One game's search: :class:`BatchedMCTS` with ``N = 1`` (``options``: ``c_puct``)."""
    return BatchedMCTS(game, simulations, **options).run(np.asarray(state)[None], evaluate)


def legal_masks(states: np.ndarray, n_actions: int) -> np.ndarray:
    """The ``(N, n_actions)`` bool legal masks of the states' players to move (from ``LEGAL``)."""
    return ((states[:, LEGAL][:, None] >> np.arange(n_actions)) & 1).astype(bool)


def uniform_evaluator(game: Game) -> Evaluator:
    """The evaluator with uniform priors and value 0 (plain PUCT with no knowledge: the tests' reference)."""

    def evaluate(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.ones((len(observations), game.n_actions)), np.zeros(len(observations))

    return evaluate


def dirichlet_noise(rng: np.random.Generator, masks: np.ndarray, alpha: float) -> np.ndarray:
    """AlphaZero's root noise: per row, a Dirichlet(``alpha``) draw over the legal actions (0 elsewhere),
    from ``rng`` (one gamma draw per action, so a row's noise depends only on the generator's stream)."""
    masks = np.asarray(masks, bool)
    draws = rng.gamma(alpha, 1.0, size=masks.shape) * masks
    totals = draws.sum(axis=1, keepdims=True)
    return np.where(totals > 0, draws / np.where(totals > 0, totals, 1.0), 0.0)


def choose_actions(visits: np.ndarray, rng: np.random.Generator, temperature: float = 0.0) -> np.ndarray:
    """One action per row of root visit counts: with ``temperature`` 0 the most visited (ties drawn by ``rng``),
    else drawn with probabilities proportional to ``visits ** (1 / temperature)``."""
    visits = np.asarray(visits, np.float64)
    if temperature <= 0:
        top = visits == visits.max(axis=1, keepdims=True)
        scores = np.where(top, rng.random(visits.shape), -1.0)
        return np.argmax(scores, axis=1).astype(np.int64)
    weights = visits ** (1.0 / temperature)
    weights /= weights.sum(axis=1, keepdims=True)
    cumulative = weights.cumsum(axis=1)
    draws = rng.random((len(visits), 1)) * cumulative[:, -1:]
    return np.minimum((cumulative <= draws).sum(axis=1), visits.shape[1] - 1).astype(np.int64)
