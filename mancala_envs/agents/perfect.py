"""The ``"perfect"`` agent: plays a best move of the game's perfect-play table
(:mod:`mancala_envs.algorithms.retrograde`).

A table holds, for every position with at most ``max_seeds`` seeds on the board, its value under
perfect play: the seeds the player to move will still gain minus those the opponent will
(:class:`~mancala_envs.algorithms.retrograde.TableValue`). :class:`PerfectAgent` values each legal move by its gain
plus the table's value after it (:meth:`~mancala_envs.algorithms.retrograde.Table.move_values`) and plays one of the
moves of the best value (:meth:`~mancala_envs.algorithms.retrograde.Table.best_actions`): among those, one whose
lower bound over every history (``low``) is highest, then one drawn by its generator.

**Repetition and the ply cap.** ``perfect`` plays the table's values. A move that ends the game at
once is valued by its real result, since every move is played on the actual state, history
included: a move that repeats a position since the last capture is valued by the repetition rule's
settlement, and a move that reaches ``max_plies`` by its settlement. After a move that does not end
the game, the value is the table's where it is exact (:attr:`TableValue.exact
<mancala_envs.algorithms.retrograde.TableValue.exact>`: its bounds over every history meet; every Modiar position
with at most 19 seeds, 43% of all): it holds whatever positions were seen before. A move whose table
value is not exact (inside a cycle class, where the value depends on the history) is valued by a
search of the real game from the position it reaches, its history included
(:meth:`~mancala_envs.algorithms.retrograde.Table.search`, at most ``search_budget`` positions), which makes its
value exact too. So ``perfect`` plays perfectly, history and all, wherever its searches finish (in
Modiar, the start position's takes 1,249 positions); a search that runs out of budget leaves the
table's class-capped value (see :mod:`mancala_envs.algorithms.retrograde`). From an exact position of value ``v``
its final margin is at least its store lead plus ``v`` against any opponent, the ply cap aside (the
tiebreak on ``low`` makes each move lead to an exact position of the same value).
:attr:`PerfectAgent.last_values` shows the values it chose from.

Tables live in a folder (default :func:`mancala_envs.algorithms.retrograde.table_dir`, ``$MANCALA_ENVS_TABLES``
when set); the agent loads the largest table of the game (and config: ``max_plies`` and
``repetition`` aside) at its first move in that game. Without one it raises
:class:`~mancala_envs.algorithms.retrograde.TableError` naming the ``mancala-envs solve`` command that builds it.
On a position with more seeds than the table covers it raises ``TableError`` too, naming the command
that builds a larger table, and ``alphabeta:D``, which reads the table at its leaves.

**Acyclic games (Kalah) from any position.** In a game where no position recurs (``Game.acyclic``) the agent
plays from the first move. Its table comes from :func:`mancala_envs.solver.solver_table`: the largest table of the
game saved in the folder, else a table of :func:`~mancala_envs.solver.default_max_seeds` seeds (Kalah on 6 pits:
16 seeds, 61 MB, about 25 s) that it **builds and saves there** at its first move. Inside the table it reads the
table as above. Outside it, :meth:`~mancala_envs.algorithms.retrograde.Table.search` (MTD(f) over a transposition
table, the table at its leaves) gives the move: the searched best action, so ties there are **not** drawn by the
generator. The table and its transposition table are the process's (one per game config and folder, shared by
every ``perfect`` agent and :func:`~mancala_envs.solver.solve_position`), kept between moves and games, so the
searches of a game reuse what the first one proved; agents must not search one table from several threads at once.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from mancala_envs.agents.agent import StateAgent
from mancala_envs.agents.search_agents import load_game_table
from mancala_envs.algorithms.retrograde import Table, TableError, TableValue, solvable, table_dir
from mancala_envs.games.game import Game
from mancala_envs.solver import DEFAULT_BUDGET, solver_table

__all__ = ["PerfectAgent"]


class PerfectAgent(StateAgent):
    """Plays one of the moves that keep the position's perfect-play value (``"perfect"``).

    Among the moves of the best value it prefers those with the highest lower bound over every history;
    remaining ties are broken by the agent's generator (one draw per move), so a seed gives the same
    moves. See the module docstring for what the values mean under the repetition rule.

    Args:
        seed: Seed of the agent's generator (ties).
        folder: The folder of the tables (default: :func:`mancala_envs.algorithms.retrograde.table_dir`).
        search_budget: Positions a search of a move whose table value is not exact may visit (0: no
            search, the table's values alone). In an acyclic game it does not apply: a position outside the
            table is searched with :data:`mancala_envs.solver.DEFAULT_BUDGET`.

    Attributes:
        last_values: Each legal action of the last move with its :class:`~mancala_envs.algorithms.retrograde.TableValue`
            (the mover's future margin after it), ``None`` before the first move. After a move searched outside
            an acyclic game's table, the chosen action alone, valued by the search.

    Raises (at a move, not when built):
        TableError: no table of the game in the folder (the message names ``mancala-envs solve``), a
            game that cannot be tabled, or a position with more seeds than the table covers (not in an acyclic
            game, where the agent builds a table when none is saved and searches outside it).

    Example:
        >>> import tempfile
        >>> import mancala_envs
        >>> from mancala_envs.algorithms.retrograde import build_table, save_table
        >>> env = mancala_envs.make("modiar_v0")
        >>> env.reset(options={"board": [2, 0, 3, 0, 0, 0], "stores": [20, 17], "player": 0})
        >>> folder = tempfile.mkdtemp()
        >>> _ = save_table(build_table(env.unwrapped.game, max_seeds=5), folder)
        >>> agent = PerfectAgent(seed=0, folder=folder)
        >>> agent.act(env)
        2
        >>> agent.last_values[2].margin, agent.last_values[2].exact
        (1, True)
    """

    name = "perfect"

    def __init__(
        self, seed: int | None = None, folder: str | os.PathLike[str] | None = None, search_budget: int = 200_000
    ) -> None:
        super().__init__(seed)
        if folder is not None and not isinstance(folder, (str, os.PathLike)):
            raise TypeError(f"folder must be a path or None (got {type(folder).__name__}).")
        if isinstance(search_budget, bool) or not isinstance(search_budget, int) or search_budget < 0:
            raise ValueError(f"search_budget must be an integer >= 0 (got {search_budget!r}).")
        self.folder = folder
        self.search_budget = search_budget
        self.last_values: dict[int, TableValue] | None = None
        self._tables: dict[tuple[Any, ...], Table] = {}

    def table_for(self, game: Game) -> Table:
        """The table this agent plays ``game`` with: the largest saved one, loaded at the first call per
        game and config (a missing table is looked for again at the next call). In an acyclic game,
        :func:`mancala_envs.solver.solver_table`'s (built and saved when none is saved).

        Raises:
            TableError: the game cannot be tabled, or no table of it is saved (with the command to build one).
        """
        key = (type(game), game.config)
        table = self._tables.get(key)
        if table is None:
            reason = solvable(game)
            if reason is not None:
                raise TableError(f"the perfect agent needs a table, and {reason}; play alphabeta:D instead.")
            acyclic = type(game).acyclic  # the solver's table, built when none is saved
            table = solver_table(game, folder=self.folder) if acyclic else load_game_table(game, self.folder)
            self._tables[key] = table
        return table

    def choose(self, game: Game, state: np.ndarray) -> int:
        table = self.table_for(game)
        seeds = int(np.sum(game.board(state)))
        if seeds > table.max_seeds and type(game).acyclic:
            return self._searched_choice(game, table, state)
        if seeds > table.max_seeds:
            where = self.folder if self.folder is not None else table_dir()
            whole = "" if seeds >= game.total_seeds else f" --max-seeds {seeds}"
            folder = f" --dir {self.folder}" if self.folder is not None else ""
            raise TableError(
                f"the perfect agent cannot play this {game.name} position: its board holds {seeds} seeds, more "
                f"than the largest {game.name} table in {where} covers ({table.max_seeds}). Build a larger table "
                f"with `mancala-envs solve {game.name}{whole}{folder}`, or play alphabeta:D, which reads the "
                "table at its leaves."
            )
        values = table.move_values(state, search_budget=self.search_budget)
        best = max((value.margin, value.low) for value in values.values())
        actions = sorted(action for action, value in values.items() if (value.margin, value.low) == best)
        draw = float(self.rng.random())
        self.last_values = values
        return actions[min(int(draw * len(actions)), len(actions) - 1)]

    def _searched_choice(self, game: Game, table: Table, state: np.ndarray) -> int:
        """The best action of a position outside an acyclic game's table, by :meth:`Table.search`."""
        found = table.search(state, budget=DEFAULT_BUDGET)
        if found is None:
            raise TableError(
                f"the perfect agent's search of this {game.name} position visited {DEFAULT_BUDGET:,} positions "
                f"without settling its value; build a larger table (`mancala-envs solve {game.name} --max-seeds K`) "
                "so that the search meets it sooner, or play alphabeta:D."
            )
        self.last_values = {found.action: TableValue(found.margin, found.margin, found.margin)}
        return found.action

    def __repr__(self) -> str:
        return "PerfectAgent()" if self.folder is None else f"PerfectAgent(folder={str(self.folder)!r})"
