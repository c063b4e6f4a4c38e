"""The exact value of any position: :func:`solve_position`, the tables it reads or builds, principal variations.

A position's value is its **margin**: the seeds its player to move will still gain (captures, stores sown
into, the seeds left in their own row at the end) minus those the opponent will still gain, under perfect
play by both. With ``lead`` the mover's store minus the opponent's, the mover wins exactly when
``lead + margin > 0`` (:attr:`Solution.final_margin`).

How: a search of the real game from the position, every move played by the game's own compiled ``step``,
whose leaves are a perfect-play table of every position with at most ``K`` seeds on the board
(:meth:`~mancala_envs.algorithms.retrograde.Table.search`). In an acyclic game (Kalah: seeds only move
forward, no position recurs) the search is MTD(f): null-window alpha-beta probes that close in on the value,
sharing a transposition table that the process keeps between calls, so a second call near the first costs
little. In a game with a repetition rule (Modiar, Ouril, Urim) the value depends on the positions seen, so
the search plays the state's repetition memory and keeps no transposition table.

Which table (:func:`solver_table`): ``max_seeds`` if given; else the largest table of the game saved in
``folder`` (default: the tables folder, ``$MANCALA_ENVS_TABLES``); else a new table of
:func:`default_max_seeds` seeds, built and saved there. Kalah's tables depend on the pits and the capture
rule, not on ``seeds_per_pit``: one 6-pit table serves Kalah(6, n) for every ``n``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mancala_envs.algorithms.retrograde import (
    Table,
    TableError,
    available_memory,
    available_tables,
    build_memory,
    build_table,
    config_options,
    load_table,
    save_table,
    solvable,
    table_dir,
)
from mancala_envs.engine.state import PLAYER, RUNNING, STATUS, STORE
from mancala_envs.games.game import Game

__all__ = [
    "DEFAULT_BUDGET",
    "SearchBudgetError",
    "Solution",
    "clear_tables",
    "default_max_seeds",
    "principal_variation",
    "solve_position",
    "solver_table",
]

#: positions :func:`solve_position` searches at most unless told otherwise
DEFAULT_BUDGET = 2_000_000_000
#: the positions of the table :func:`default_max_seeds` picks: an acyclic game's (one byte each, a build of
#: about 25 s for Kalah's 6 pits) and another game's (three bytes and cycle classes; the whole game when it is
#: small, as Modiar's 24.5 million positions)
_ACYCLIC_POSITIONS = 1 << 26
_CYCLIC_POSITIONS = 1 << 21
_WHOLE_GAME_POSITIONS = 1 << 25

# tables already loaded or built in this process, with their transposition tables: (config, K, folder) -> Table
_TABLES: dict[tuple[str, str, int, str], Table] = {}


class SearchBudgetError(TableError):
    """:func:`solve_position` searched its whole budget without settling the value.

    Attributes:
        budget: The positions it searched.
        game: The game.
    """

    def __init__(self, game: Game, budget: int) -> None:
        self.game = game
        self.budget = budget
        positions = "1 position" if budget == 1 else f"{budget:,} positions"
        super().__init__(
            f"the search visited {positions} without settling the value of this {game.name} position; raise "
            f"budget=, or search with a larger table (build it with `mancala-envs solve {game.name}"
            f"{config_options(game)} --max-seeds K`, then pass max_seeds=K)."
        )


@dataclass(frozen=True)
class Solution:
    """The exact value of a position under perfect play (:func:`solve_position`).

    Attributes:
        margin: The seeds the player to move will still gain minus those the opponent will (see the module
            docstring), exact for the position with its history.
        action: A best action of the player to move (a local pit).
        mover: The player to move, 0 or 1.
        store_lead: The mover's store minus the opponent's in the position.
        positions: Positions the search visited.
        seconds: Time taken, the table's load or build included.
        max_seeds: The seeds on the board of the largest positions of the table at the search's leaves.
        table_seconds: The part of ``seconds`` spent loading or building the table (0 when already in memory).
        principal_variation: The actions of a perfect game from the position to its end, when asked for.
    """

    margin: int
    action: int
    mover: int
    store_lead: int
    positions: int
    seconds: float
    max_seeds: int
    table_seconds: float = 0.0
    principal_variation: tuple[int, ...] = ()

    @property
    def final_margin(self) -> int:
        """The mover's final store minus the opponent's under perfect play: ``store_lead + margin``."""
        return self.store_lead + self.margin

    @property
    def outcome(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for the player to move under perfect play."""
        final = self.final_margin
        return "win" if final > 0 else "loss" if final < 0 else "draw"


def default_max_seeds(game: Game) -> int:
    """The ``max_seeds`` of the table :func:`solve_position` builds when none is saved.

    The whole game when its table is small (Modiar, small Kalah boards); else the largest ``K`` whose table
    holds at most ``2**26`` positions in an acyclic game (Kalah on 6 pits: 16, about 61 million positions,
    61 MB) or ``2**21`` in another (Ouril and Urim: 10). Build a larger one with ``mancala-envs solve GAME
    --max-seeds K``; :func:`solve_position` reads the largest saved.
    """
    total = game.total_seeds
    acyclic = type(game).acyclic
    if 2 * math.comb(total + game.n_pits, game.n_pits) <= (_ACYCLIC_POSITIONS if acyclic else _WHOLE_GAME_POSITIONS):
        return total
    limit = _ACYCLIC_POSITIONS if acyclic else _CYCLIC_POSITIONS
    top = 0
    while top < total and 2 * math.comb(top + 1 + game.n_pits, game.n_pits) <= limit:
        top += 1
    return top


def _config_key(game: Game) -> str:
    """The game and its config, apart from the ply cap (a state of either cap is read the same)."""
    fields = {k: v for k, v in dataclasses.asdict(game.config).items() if k != "max_plies"}
    return repr(sorted(fields.items()))


def solver_table(
    game: Game,
    max_seeds: int | None = None,
    folder: str | os.PathLike[str] | None = None,
    *,
    build: bool = True,
    save: bool = True,
    progress: Callable[[int, float], None] | None = None,
) -> Table:
    """The table :func:`solve_position` searches with: one already in this process, else loaded, else built.

    Args:
        game: A game that can be tabled (:func:`~mancala_envs.algorithms.retrograde.solvable`).
        max_seeds: The table's ``K`` (default: the largest saved in ``folder``, else :func:`default_max_seeds`).
        folder: Where tables are saved (default :func:`~mancala_envs.algorithms.retrograde.table_dir`).
        build: Build the table when it is not saved (else refuse with the command that builds it).
        save: Save a table built here into ``folder``.
        progress: Called after each layer of a build with the layer's seeds and the seconds so far.

    Raises:
        TableError: the game cannot be tabled, ``max_seeds`` is out of range, the table does not fit the memory
            available, or it is missing and ``build`` is False (each message names the fix).
    """
    reason = solvable(game)
    if reason is not None:
        raise TableError(reason + ".")
    if max_seeds is None:
        saved = [k for k in available_tables(game, folder) if _fits(game, k)]
        top = max(saved) if saved else default_max_seeds(game)
    else:
        top = max_seeds
    where = str(Path(folder) if folder is not None else table_dir())
    key = (game.name, _config_key(game), top, where)
    table = _TABLES.get(key)
    if table is not None:
        return table
    try:
        table = load_table(game, top, folder)
    except TableError:
        if top in available_tables(game, folder) or not build:
            raise  # a damaged file, or no build allowed: the error names the command
        table = build_table(game, top, progress=progress)
        if save:
            save_table(table, folder)
        table.folder = folder
    _TABLES[key] = table
    return table


def _fits(game: Game, max_seeds: int) -> bool:
    """Whether a table of ``max_seeds`` fits the memory available now (unknown memory: it does)."""
    memory = available_memory()
    return memory is None or build_memory(game, max_seeds) <= memory


def clear_tables() -> None:
    """Forgets the tables (and their transposition tables) this process loaded or built for :func:`solve_position`."""
    _TABLES.clear()


def solve_position(
    game: Game,
    state: np.ndarray | None = None,
    *,
    max_seeds: int | None = None,
    folder: str | os.PathLike[str] | None = None,
    budget: int = DEFAULT_BUDGET,
    build: bool = True,
    save: bool = True,
    with_variation: bool = False,
    progress: Callable[[int, float], None] | None = None,
) -> Solution:
    """The exact value of ``state`` under perfect play, its history included, and a best action.

    Args:
        game: A game that can be tabled: Kalah (every config), Modiar, Ouril, Urim.
        state: A running state of ``game`` (default: the start, player 0 to move).
        max_seeds: The table at the search's leaves (default: see :func:`solver_table`).
        folder: Where tables are read and saved (default: the tables folder).
        budget: Positions to search at most.
        build: Build a missing table (else refuse with the command that builds it).
        save: Save a table built here.
        with_variation: Also find a perfect game from ``state`` to its end (:attr:`Solution.principal_variation`).
        progress: Called after each layer of a table build (seeds, seconds so far).

    Returns:
        The :class:`Solution`.

    Raises:
        TypeError: ``state`` is not an array of the form of ``game``'s states.
        ValueError: ``state`` is not a state ``game`` reaches, or ``budget`` is not a positive int.
        SearchBudgetError: the search ran out of its budget (a :class:`TableError`).
        TableError: the game cannot be tabled, the game is over, or the table does not fit in memory or is missing
            with ``build=False`` (each message names the fix).
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive int (positions to search); got {budget!r}.")
    started = time.perf_counter()
    if state is None:
        state = game.new_state(0)
    else:
        game.check_state(state)
    if state[STATUS] != RUNNING:
        raise TableError("the game is over: a finished position has no value to solve; pass a running state.")
    table = solver_table(game, max_seeds, folder, build=build, save=save, progress=progress)
    table_seconds = time.perf_counter() - started
    found = table.search(state, budget=budget)
    if found is None:
        raise SearchBudgetError(game, budget)
    variation: tuple[int, ...] = ()
    if with_variation:
        variation = tuple(principal_variation(table, state, budget))
    mover = int(state[PLAYER])
    return Solution(
        margin=found.margin,
        action=found.action,
        mover=mover,
        store_lead=int(state[STORE + mover] - state[STORE + 1 - mover]),
        positions=found.positions,
        seconds=time.perf_counter() - started,
        max_seeds=table.max_seeds,
        table_seconds=table_seconds,
        principal_variation=variation,
    )


def principal_variation(table: Table, state: np.ndarray, budget: int = DEFAULT_BUDGET) -> list[int]:
    """The actions of a perfect game from ``state`` to its end: a best action of each position in turn.

    Each position is searched with ``table`` (:meth:`~mancala_envs.algorithms.retrograde.Table.search`), so in an
    acyclic game the transposition table of the first search makes the others cheap.

    Raises:
        TableError: a search ran out of ``budget``.
    """
    game = table.game
    position = state.copy()
    trace = np.zeros(0, dtype=np.int64)
    actions: list[int] = []
    while position[STATUS] == RUNNING:
        found = table.search(position, budget=budget)
        if found is None:
            raise TableError(
                f"the search ran out of its budget ({budget:,} positions) {len(actions)} plies into the variation; "
                "raise budget=."
            )
        actions.append(found.action)
        game.step(position, found.action, trace)
    return actions
