"""Kalah solved: the published grid recomputed by ``solve_position``, and the one-byte tables' build figures.

Three measures, each meant to run in a fresh process with its tables in a fresh, empty folder (``--folder``;
default: a new temporary folder, removed at the end):

``cell``
    One Kalah(m, n) start position solved by :func:`mancala_envs.solver.solve_position` from that folder: the
    table (``--max-seeds``, default :func:`~mancala_envs.solver.default_max_seeds`) is built, then searched.
    Reports the first player's margin, the published margin (Irving, Donkers & Uiterwijk 2000 for the
    empty-capture rule; Rawlings 2015 via Wikipedia and this project's own check for the standard rule), whether
    they agree, the table and search seconds, the positions searched and the process's peak memory.
``grid``
    Every cell of the published grid up to ``--largest`` total seeds, each by ``cell`` in its own child process
    with its own empty folder (so each time includes its table's build), one after the other.
``layers``
    One 6-pit (or ``--pits``) table built by :func:`~mancala_envs.solver.build_table` with a progress callback:
    each layer's positions and build seconds, the table's size and the process's peak memory.

``--quick`` runs the grid's cells of at most 3 pits and 12 seeds in all and a table of 4 pits and 8 seeds: seconds on
any machine, for the smoke test (``tests/benchmarks/test_bench_kalah_solve_smoke.py``). Figures in
``docs/solved.md`` come from runs pinned to one core (``taskset -c 1``) with ``/usr/bin/time -v`` around them;
the commands are there.

Usage::

    python benchmarks/bench_kalah_solve.py cell --pits 6 --seeds 4 --rule empty --json /tmp/c64.json
    python benchmarks/bench_kalah_solve.py cell --pits 6 --seeds 5 --rule empty --max-seeds 20
    python benchmarks/bench_kalah_solve.py grid --largest 40 --json /tmp/grid.json
    python benchmarks/bench_kalah_solve.py layers --max-seeds 20 --json /tmp/layers.json
    python benchmarks/bench_kalah_solve.py --quick --json /tmp/quick.json
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: the rules: ``empty`` captures into an empty opposite pit too (``empty_capture=True``, the literature's rule)
RULES = {"empty": True, "standard": False}

#: published first-player margins of Kalah(m, n): (m, n, rule) -> (margin or sign, source). A sign (``"W"``,
#: ``"L"``) is given where only the winner is published; a draw is the margin 0.
IDU = "Irving, Donkers & Uiterwijk 2000, Table 9"
IDU_WLD = "Irving, Donkers & Uiterwijk 2000, Tables 5 and 10 (winner only)"
RAWLINGS = "Rawlings 2015 (Wikipedia, Kalah)"
ISSUE = "issue 32 (exhaustive search from the rules)"
_SIGNS = {
    1: ("D", "L", "W", "L", "W", "D"),
    2: ("W", "L", "L", "L", "W", "W"),
    3: ("D", "W", "W", "W", "W", "L"),
}
_MARGINS = {
    4: (2, 6, 8, 2, 2, 0),
    5: (0, 0, 8, 12, 2, 2),
    6: (2, 10, 2, 10, 12, None),
}
PUBLISHED: dict[tuple[int, int, str], tuple[int | str, str]] = {}
for _m, _row in _SIGNS.items():
    for _n, _sign in enumerate(_row, start=1):
        PUBLISHED[(_m, _n, "empty")] = (0, IDU_WLD) if _sign == "D" else (_sign, IDU_WLD)
for _m, _values in _MARGINS.items():
    for _n, _value in enumerate(_values, start=1):
        if _value is not None:
            PUBLISHED[(_m, _n, "empty")] = (_value, IDU)
PUBLISHED[(6, 6, "empty")] = (2, RAWLINGS)
PUBLISHED[(4, 3, "standard")] = (6, ISSUE)
PUBLISHED[(6, 4, "standard")] = (8, RAWLINGS)
PUBLISHED[(6, 5, "standard")] = (10, RAWLINGS)

#: ``--quick``: the published cells of at most 3 pits and 12 seeds in all, and a table of 4 pits and 8 seeds
QUICK_CELLS = (12, 3)
QUICK_TABLE = (4, 8)


def agrees(value: int, published: int | str) -> bool:
    """Whether a computed first-player margin agrees with a published margin or sign (``"W"``/``"L"``)."""
    if published == "W":
        return value > 0
    if published == "L":
        return value < 0
    return value == published


def peak_memory_bytes() -> int:
    """This process's peak resident memory (Linux ``ru_maxrss`` is in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def make_kalah(pits: int, seeds: int, rule: str) -> Any:
    """Kalah(pits, seeds) with ``rule`` (a key of :data:`RULES`)."""
    from mancala_envs.games.kalah import Kalah, KalahConfig

    return Kalah(KalahConfig(pits_per_row=pits, seeds_per_pit=seeds, empty_capture=RULES[rule]))


def measure_cell(pits: int, seeds: int, rule: str, folder: Path, max_seeds: int | None) -> dict[str, Any]:
    """Solves Kalah(pits, seeds)'s start from ``folder`` (built there when missing) and times it."""
    from mancala_envs.solver import solve_position

    game = make_kalah(pits, seeds, rule)
    cpu_started = time.process_time()
    started = time.perf_counter()
    found = solve_position(game, max_seeds=max_seeds, folder=folder)
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    published, source = PUBLISHED.get((pits, seeds, rule), (None, ""))
    return {
        "pits": pits,
        "seeds": seeds,
        "rule": rule,
        "margin": found.final_margin,
        "action": found.action,
        "published": published,
        "source": source,
        "agrees": None if published is None else agrees(found.final_margin, published),
        "seconds": seconds,
        "table_seconds": found.table_seconds,
        "search_seconds": seconds - found.table_seconds,
        "cpu_seconds": cpu_seconds,
        "positions": found.positions,
        "max_seeds": found.max_seeds,
        "peak_memory_bytes": peak_memory_bytes(),
    }


def measure_layers(pits: int, max_seeds: int, rule: str = "empty", save: Path | None = None) -> dict[str, Any]:
    """Builds one table of ``pits`` pits and ``max_seeds`` seeds and records every layer's time.

    The table is saved into ``save`` when given (after the figures are taken), for a ``cell`` run to search with.
    """
    from mancala_envs.solver import build_table, save_table

    game = make_kalah(pits, 6, rule)  # the most seeds: every K up to 72 is in range
    marks: list[tuple[int, float, float]] = []
    cpu_started = time.process_time()
    started = time.perf_counter()
    table = build_table(
        game, max_seeds, progress=lambda seeds, spent: marks.append((seeds, spent, time.process_time() - cpu_started))
    )
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    layers = []
    before = cpu_before = 0.0
    for seeds, spent, cpu in marks:
        positions = 2 * math.comb(seeds + 2 * pits - 1, 2 * pits - 1)
        layers.append(
            {
                "seeds": seeds,
                "positions": positions,
                "seconds": spent - before,
                "cumulative": spent,
                "cpu_seconds": cpu - cpu_before,
                "cpu_cumulative": cpu,
            }
        )
        before, cpu_before = spent, cpu
    peak = peak_memory_bytes()
    if save is not None:
        save_table(table, save)
    return {
        "pits": pits,
        "max_seeds": max_seeds,
        "positions": table.positions,
        "bytes": int(table.table.nbytes),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "rule": rule,
        "layers": layers,
        "peak_memory_bytes": peak,
    }


def grid_cells(largest: int, most_pits: int) -> list[tuple[int, int, str]]:
    """The published cells with at most ``largest`` seeds in all and ``most_pits`` pits, smallest first."""
    cells = [key for key in PUBLISHED if 2 * key[0] * key[1] <= largest and key[0] <= most_pits]
    return sorted(cells, key=lambda key: (key[0] * key[1], key))


def run_grid(largest: int, most_pits: int) -> list[dict[str, Any]]:
    """Each cell of :func:`grid_cells` in a child process with its own empty tables folder."""
    results = []
    for pits, seeds, rule in grid_cells(largest, most_pits):
        with tempfile.TemporaryDirectory(prefix="kalah-tables-") as folder:
            out = Path(folder) / "cell.json"
            command = [sys.executable, __file__, "cell", "--pits", str(pits), "--seeds", str(seeds)]
            command += ["--rule", rule, "--folder", folder, "--json", str(out)]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            results.append(json.loads(out.read_text(encoding="utf-8")))
    return results


def cell_rows(cells: list[dict[str, Any]]) -> str:
    """The markdown table of measured cells."""
    lines = [
        "| Kalah(m, n) | Rule | Margin | Published | Agrees | Table K | Table s | Search s | CPU s | Positions "
        "| Peak MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cells:
        published = "-" if c["published"] is None else c["published"]
        agreed = "-" if c["agrees"] is None else ("yes" if c["agrees"] else "**NO**")
        lines.append(
            f"| ({c['pits']},{c['seeds']}) | {c['rule']} | {c['margin']:+d} | {published} | {agreed} | "
            f"{c['max_seeds']} | {c['table_seconds']:.2f} | {c['search_seconds']:.2f} | "
            f"{c.get('cpu_seconds', 0):.2f} | {c['positions']:,} | {c['peak_memory_bytes'] / 1e6:.0f} |"
        )
    return "\n".join(lines)


def layer_rows(result: dict[str, Any]) -> str:
    """The markdown table of a build's layers."""
    lines = [
        "| Seeds | Positions | Layer s | Layer CPU s | Table of K = seeds: positions | s | CPU s |",
        "|---|---|---|---|---|---|---|",
    ]
    total = 0
    for layer in result["layers"]:
        total += layer["positions"]
        lines.append(
            f"| {layer['seeds']} | {layer['positions']:,} | {layer['seconds']:.2f} | {layer['cpu_seconds']:.2f} | "
            f"{total:,} | {layer['cumulative']:.1f} | {layer['cpu_cumulative']:.1f} |"
        )
    lines.append(f"\nPeak memory {result['peak_memory_bytes'] / 1e6:.0f} MB for {result['positions']:,} positions")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="?", choices=("cell", "grid", "layers"), default="grid")
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--rule", choices=tuple(RULES), default="empty")
    parser.add_argument("--max-seeds", type=int, default=None, help="the table's K (cell, layers)")
    parser.add_argument("--largest", type=int, default=48, help="grid: cells of at most this many seeds in all")
    parser.add_argument("--folder", type=Path, default=None, help="the tables folder (default: a new temporary one)")
    parser.add_argument("--save", type=Path, default=None, help="layers: save the table built into this folder")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument(
        "--quick", action="store_true", help="cells of <= 3 pits and 12 seeds, a 4-pit table of 8 seeds"
    )
    args = parser.parse_args(argv)
    if args.quick:
        report: dict[str, Any] = {
            "cells": run_grid(*QUICK_CELLS),
            "layers": measure_layers(*QUICK_TABLE),
        }
        print(cell_rows(report["cells"]))
        print(layer_rows(report["layers"]))
    elif args.what == "grid":
        report = {"cells": run_grid(args.largest, 6)}
        print(cell_rows(report["cells"]))
    elif args.what == "layers":
        report = measure_layers(args.pits, 20 if args.max_seeds is None else args.max_seeds, args.rule, args.save)
        print(layer_rows(report))
    else:
        own = args.folder is None
        folder = Path(tempfile.mkdtemp(prefix="kalah-tables-")) if own else args.folder
        try:
            report = measure_cell(args.pits, args.seeds, args.rule, folder, args.max_seeds)
        finally:
            if own:
                shutil.rmtree(folder, ignore_errors=True)
        print(cell_rows([report]))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
