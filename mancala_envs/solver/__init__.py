"""Exact values anywhere in a game: :func:`solve_position` and the tables it reads or builds.

:func:`solve_position` gives the exact value of a position under perfect play, its history included, for
every game that can be tabled (Kalah in every config, Modiar, Ouril, Urim): a search of the real game whose
leaves are a perfect-play table (:mod:`mancala_envs.algorithms.retrograde`), MTD(f) over a transposition
table in an acyclic game such as Kalah. It is the search that :meth:`~mancala_envs.algorithms.retrograde.Table.search`
and the ``perfect`` agent run.

The tables' own API (:class:`~mancala_envs.algorithms.retrograde.Table`, ``build_table``, ``load_table``,
``save_table``...) is importable from here too, as it was before 0.2.0 (its home is
:mod:`mancala_envs.algorithms.retrograde`).

Example:
    >>> from mancala_envs.games.kalah import Kalah, KalahConfig
    >>> from mancala_envs.solver import solve_position
    >>> game = Kalah(KalahConfig(pits_per_row=4, seeds_per_pit=3, empty_capture=True))
    >>> solve_position(game, save=False).margin  # Irving, Donkers & Uiterwijk (2000): +8
    8
"""

from mancala_envs.algorithms.retrograde import (
    FORMAT,
    SEARCH_ABORTED,
    TABLE_ENV,
    SearchResult,
    Table,
    TableError,
    TableValue,
    available_memory,
    available_tables,
    binomials,
    build_memory,
    build_table,
    largest_max_seeds,
    load_table,
    save_table,
    solvable,
    table_dir,
    table_paths,
)
from mancala_envs.solver.exact_values import (
    DEFAULT_BUDGET,
    SearchBudgetError,
    Solution,
    clear_tables,
    default_max_seeds,
    principal_variation,
    solve_position,
    solver_table,
)

__all__ = [
    "DEFAULT_BUDGET",
    "FORMAT",
    "SEARCH_ABORTED",
    "TABLE_ENV",
    "SearchBudgetError",
    "SearchResult",
    "Solution",
    "Table",
    "TableError",
    "TableValue",
    "available_memory",
    "available_tables",
    "binomials",
    "build_memory",
    "build_table",
    "clear_tables",
    "default_max_seeds",
    "largest_max_seeds",
    "load_table",
    "principal_variation",
    "save_table",
    "solvable",
    "solve_position",
    "solver_table",
    "table_dir",
    "table_paths",
]
