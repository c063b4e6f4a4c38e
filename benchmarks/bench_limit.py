"""Against the limit and against OpenSpiel (issue 18, targets 1 and 2).

1. **Against the limit.** ``benchmarks/c/ouril.c`` and ``benchmarks/c/kalah.c`` are minimal C engines
   of Ouril's default rules (without the repetition memory) and of Kalah (OpenSpiel's ``mancala``
   rules), each playing random games with the engine's own move picker (xorshift128, the
   ``int(draw * count)``-th legal move). They are compiled with ``cc -O2`` into a temporary folder
   when this script runs (skipped, with a message, where there is no ``cc``). Compared: C plies/s
   against ``mancala_envs.envs.batch.BatchedGames.play_random`` (one batch of 256 rows, one thread).
   Ouril is measured with its default config (repetition rule on: the target) and with
   ``repetition=False`` (the same rules as the C code: where the time goes).
   **Target: ≥ 0.8× C** for Ouril and Kalah (issue 34; it was 0.6×).
2. **Against OpenSpiel.** Kalah (``kalah_v0``) against ``pyspiel.load_game("mancala")``, both played
   from Python with the same picker (a block of uniform draws, ``legal[int(draw * len(legal))]``):
   ours calls the engine API a search would call (``Game.reset_state``, ``Game.step``, the legal mask
   from ``state[LEGAL]`` decoded through a table); OpenSpiel's ``new_initial_state``,
   ``legal_actions``, ``apply_action``, ``is_terminal``. The same loop over ``game.stepper()`` (issue 34:
   one buffer, one compiled call of two ints a ply, whose ``step`` returns the next legal bits) is a row of
   its own. **Targets: the stepper's loop ≥ 1.5× pyspiel's loop (the ``Game.step`` loop is kept as a row);
   batched Kalah (``play_random``) ≥ 20× pyspiel's loop.** The same loop with a ``step`` that
   does nothing (the loop, the picker and the state reads alone) shows the most any engine could reach
   in it. Batched Kalah is measured on one core, and on every core the process may use (one thread per
   core, the batch's default): pyspiel's Python loop cannot use a second core, a batch can.

Each repetition measures every contender for ``--seconds`` one after the other, so that each ratio is
taken from runs seconds apart; the table shows medians of the rates and of the per-repetition ratios.
The process pins itself to one core (``--core``, default the last usable one), except for the
every-core measure.

Before timing, the C engines are checked against ours: random games drawn with our engine are replayed
move by move through the C engine's ``replay`` mode and must end on the same board, stores, player,
ply and status; and the C engine's average game length over its own random games must agree with
``play_random``'s (Ouril with ``repetition=False``) within 1%, or within 4 standard errors where that is
wider (a 1% tail of Ouril games runs to the 1000-ply cap).

Usage::

    python benchmarks/bench_limit.py                              # 7 repeats of 2 s, ~2 minutes
    python benchmarks/bench_limit.py --repeats 3 --seconds 0.2 --json /tmp/limit.json
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, write_report  # a sibling script module

C_DIR = Path(__file__).resolve().parent / "c"
#: the C engines and the ids (with options) they mirror
C_GAMES = {"ouril": ("ouril_v0", {"repetition": False}), "kalah": ("kalah_v0", {})}
BATCH_ROWS = 256
DRAW_BLOCK = 1024
TARGET_C = 0.8
TARGET_LOOP = 1.5
TARGET_BATCHED = 20.0
#: the C and our average game lengths must agree within 1%, or 4 standard errors if that is wider
LENGTH_TOLERANCE = 0.01


# --- the C engines ---------------------------------------------------------------------------------------------
def compile_c(folder: Path) -> dict[str, Path] | str:
    """Compiles the C engines into ``folder``; returns their paths, or why they could not be built."""
    cc = shutil.which("cc")
    if cc is None:
        return "no C compiler (`cc`) on PATH: the comparison against C is skipped"
    built = {}
    for name in C_GAMES:
        exe = folder / name
        child = subprocess.run(
            [cc, "-O2", "-o", str(exe), str(C_DIR / f"{name}.c")], capture_output=True, text=True, check=False
        )
        if child.returncode != 0:
            return f"`cc -O2 {name}.c` failed: {child.stderr.strip()[-2000:]}"
        built[name] = exe
    return built


def c_rate(exe: Path, seconds: float, seed: int) -> float:
    """Plies per second of the C engine's random games over ``seconds`` (timed inside the C program)."""
    plies, _, elapsed = subprocess.run(
        [str(exe), "bench", str(seconds), str(seed)], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(plies) / float(elapsed)


def c_game_lengths(exe: Path, n_games: int, seed: int) -> tuple[float, float]:
    """The mean and the standard deviation of the lengths (plies) of ``n_games`` random C games."""
    plies, games, *_, squares = subprocess.run(
        [str(exe), "play", str(n_games), str(seed)], capture_output=True, text=True, check=True
    ).stdout.split()
    mean = int(plies) / int(games)
    return mean, max(0.0, float(squares) / int(games) - mean * mean) ** 0.5


def random_games(
    env_id: str, options: dict[str, Any], n_games: int, seed: int
) -> list[tuple[int, list[int], list[int]]]:
    """``n_games`` random games played with our engine: (first player, actions, final facts)."""
    from mancala_envs.engine.state import BOARD, LEGAL, PLAYER, PLY, RUNNING, STATUS, STORE
    from mancala_envs.envs.registration import make_game

    game = make_game(env_id, **options)
    rng = np.random.default_rng(seed)
    no_trace = np.empty(0, np.int64)
    games = []
    for _ in range(n_games):
        first = int(rng.integers(2))
        state = game.new_state(first)
        actions = []
        while state[STATUS] == RUNNING:
            legal = [a for a in range(game.n_actions) if (state[LEGAL] >> a) & 1]
            actions.append(int(legal[rng.integers(len(legal))]))
            game.step(state, actions[-1], no_trace)
        n_pits = 2 * game.config.pits_per_row
        facts = [
            *state[BOARD : BOARD + n_pits].tolist(),
            int(state[STORE]),
            int(state[STORE + 1]),
            int(state[PLAYER]),
            int(state[PLY]),
            int(state[STATUS]),
        ]
        games.append((first, actions, facts))
    return games


def validate_c(
    exe: Path, env_id: str, options: dict[str, Any], n_games: int, length_games: int, seed: int
) -> dict[str, Any]:
    """Replays ``n_games`` of our random games through the C engine, and compares the average length of
    ``length_games`` random games of each (a 1% tail of Ouril games runs to the 1000-ply cap, so the
    average needs tens of thousands of games to settle within 1%).

    Returns:
        ``replayed``, ``mismatches`` (games whose final board, stores, player, ply or status differ; the
        first few listed in ``examples``), ``c_plies_per_game``, ``ours_plies_per_game`` and
        ``length_ratio``, ``length_ok``.
    """
    from mancala_envs.envs.batch import play_random

    games = random_games(env_id, options, n_games, seed)
    lines = "".join(f"{first} {' '.join(map(str, actions))}\n" for first, actions, _ in games)
    # A C engine that refuses a move prints why and stops: the games from there on count as mismatches.
    output = subprocess.run(
        [str(exe), "replay"], input=lines, capture_output=True, text=True, check=False
    ).stdout.splitlines()
    mismatches = []
    for i, (first, actions, facts) in enumerate(games):
        got = output[i].split() if i < len(output) else ["missing"]
        if got != [str(v) for v in facts]:
            mismatches.append({"game": i, "first_player": first, "actions": actions, "ours": facts, "c": got})
    c_length, spread = c_game_lengths(exe, length_games, seed)
    ours = play_random(env_id, length_games, seed=seed, **options)
    ours_length = ours.plies / ours.games
    ratio = c_length / ours_length
    # Two means of length_games draws each: their difference has a standard error of spread * sqrt(2 / n).
    tolerance = max(LENGTH_TOLERANCE * ours_length, 4 * spread * (2 / length_games) ** 0.5)
    return {
        "replayed": n_games,
        "mismatches": len(mismatches),
        "examples": mismatches[:3],
        "c_plies_per_game": c_length,
        "ours_plies_per_game": ours_length,
        "games_for_length": length_games,
        "c_plies_per_game_sd": spread,
        "length_ratio": ratio,
        "length_ok": abs(c_length - ours_length) <= tolerance,
    }


# --- ours ----------------------------------------------------------------------------------------------------
class BatchedRate:
    """``play_random`` plies/s of one batch (compiled and warmed up when built)."""

    def __init__(self, env_id: str, options: dict[str, Any], seed: int, threads: int = 1) -> None:
        from mancala_envs.envs.batch import BatchedGames

        self.games = BatchedGames(env_id, BATCH_ROWS, threads=threads, **options)
        self.games.reset(seed=seed)
        stats = self.games.play_random(2 * BATCH_ROWS)  # compiles (or loads) the kernel, warms the rows
        self.plies_per_game = stats.plies / stats.games

    def measure(self, seconds: float) -> float:
        plies, start = 0, time.perf_counter()
        chunk = max(1, int(20_000 / self.plies_per_game))
        while True:
            plies += self.games.play_random(chunk).plies
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return plies / elapsed
            chunk = min(4 * chunk, max(chunk, int(chunk * (seconds - elapsed) / elapsed)))


def legal_table(n_actions: int) -> list[tuple[int, ...]]:
    """``table[bits]`` lists the set bits of ``bits`` (ascending)."""
    table: list[tuple[int, ...]] = [()] * (1 << n_actions)
    for bits in range(1, 1 << n_actions):
        lowest = (bits & -bits).bit_length() - 1
        table[bits] = (lowest, *table[bits & (bits - 1)])
    return table


def engine_loop_rate(game: Any, seconds: float, rng: np.random.Generator) -> float:
    """Plies/s of a Python loop over the engine API a search calls: ``reset_state``, ``step``, the legal mask."""
    from mancala_envs.engine.state import LEGAL, RUNNING, STATUS

    table = legal_table(game.n_actions)
    no_trace = np.empty(0, np.int64)
    state = game.new_state(0)
    step, reset_state = game.step, game.reset_state
    plies, clock = 0, time.perf_counter
    start = clock()
    while plies == 0 or clock() - start < seconds:
        for draw in rng.random(DRAW_BLOCK).tolist():
            legal = table[state[LEGAL]]
            step(state, legal[int(draw * len(legal))], no_trace)
            if state[STATUS] != RUNNING:
                reset_state(state, 0)
        plies += DRAW_BLOCK
    return plies / (clock() - start)


def stepper_loop_rate(game: Any, seconds: float, rng: np.random.Generator) -> float:
    """Plies/s of the same loop over ``game.stepper()`` (issue 34): ``step`` returns the legal bits of the position
    it reaches (0 once the game is over), so a ply is one call; ``reset`` returns the opening's bits."""
    table = legal_table(game.n_actions)
    stepper = game.stepper()
    step, reset = stepper.step, stepper.reset
    bits = reset(0)
    plies, clock = 0, time.perf_counter
    start = clock()
    while plies == 0 or clock() - start < seconds:
        for draw in rng.random(DRAW_BLOCK).tolist():
            legal = table[bits]
            bits = step(legal[int(draw * len(legal))])
            if not bits:
                bits = reset(0)
        plies += DRAW_BLOCK
    return plies / (clock() - start)


class LoopFloor:
    """A stand-in for the game in :func:`engine_loop_rate` whose ``step`` does nothing: the loop, the picker
    and the two reads of the state alone, which bound what any engine can reach in that loop."""

    def __init__(self, game: Any) -> None:
        self.n_actions = game.n_actions
        self.new_state, self.reset_state = game.new_state, game.reset_state

    def step(self, state: np.ndarray, action: int, trace: np.ndarray) -> int:
        return 0


def pyspiel_loop_rate(game: Any, seconds: float, rng: np.random.Generator) -> float:
    """Plies/s of the same loop on an OpenSpiel game: ``new_initial_state``, ``legal_actions``,
    ``apply_action``, ``is_terminal``."""
    state = game.new_initial_state()
    plies, clock = 0, time.perf_counter
    start = clock()
    while plies == 0 or clock() - start < seconds:
        for draw in rng.random(DRAW_BLOCK).tolist():
            legal = state.legal_actions()
            state.apply_action(legal[int(draw * len(legal))])
            if state.is_terminal():
                state = game.new_initial_state()
        plies += DRAW_BLOCK
    return plies / (clock() - start)


# --- the run -------------------------------------------------------------------------------------------------
def pin(core: int | None) -> int | None:
    """Pins this process (and the C programs it starts) to ``core`` (default: the last usable one)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    usable = sorted(os.sched_getaffinity(0))
    core = usable[-1] if core is None else core
    os.sched_setaffinity(0, {core})
    return core


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


@contextlib.contextmanager
def every_core(cores: list[int]) -> Iterator[None]:
    """Lets this thread (and the threads it starts) run on every core of ``cores`` for a while, then pins it back."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    pinned = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cores))
    try:
        yield
    finally:
        os.sched_setaffinity(0, pinned)


def run(args: argparse.Namespace) -> dict[str, Any]:
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    core = pin(args.core)
    results: dict[str, Any] = {
        "machine": machine_info(),
        "core": core,
        "repeats": args.repeats,
        "seconds": args.seconds,
        "batch_rows": BATCH_ROWS,
        "targets": {"vs_c": TARGET_C, "loop_vs_pyspiel": TARGET_LOOP, "batched_vs_pyspiel": TARGET_BATCHED},
    }
    with tempfile.TemporaryDirectory() as folder:
        built = compile_c(Path(folder))
        if isinstance(built, str):
            results["c_skipped"] = built
            print(f"skipped: {built}")
            built = {}
        else:
            results["validation"] = {
                name: validate_c(exe, *C_GAMES[name], args.validate_games, args.length_games, args.seed)
                for name, exe in built.items()
            }
        try:
            import pyspiel
        except ImportError:
            pyspiel = None
            results["pyspiel_skipped"] = "open-spiel (pyspiel) is not installed: the comparison against it is skipped"
            print(f"skipped: {results['pyspiel_skipped']}")
        from mancala_envs.envs.registration import make_game

        batched = {
            "ouril": BatchedRate("ouril_v0", {}, args.seed),
            "ouril_no_repetition": BatchedRate("ouril_v0", {"repetition": False}, args.seed),
            "kalah": BatchedRate("kalah_v0", {}, args.seed),
        }
        # Batched Kalah on every core (the batch's default thread count), against the same one-core pyspiel loop:
        # pyspiel's Python loop cannot use a second core, a batch can.
        with every_core(cores):
            every = BatchedRate("kalah_v0", {}, args.seed, threads=len(cores)) if len(cores) > 1 else None
        results["threads_every_core"] = len(cores)
        kalah = make_game("kalah_v0")
        spiel_game = pyspiel.load_game("mancala") if pyspiel else None
        rng = np.random.default_rng(args.seed)
        engine_loop_rate(kalah, 0.05, rng)  # warm-up (compiled code loaded)
        stepper_loop_rate(kalah, 0.05, rng)
        rates: dict[str, list[float]] = {}
        ratios: dict[str, list[float]] = {}

        def add(table: dict[str, list[float]], key: str, value: float) -> None:
            table.setdefault(key, []).append(value)

        for repeat in range(args.repeats):
            seed = args.seed + repeat
            for name, rate in batched.items():
                add(rates, f"ours_batched_{name}", rate.measure(args.seconds))
            if every is not None:
                with every_core(cores):
                    add(rates, "ours_batched_kalah_every_core", every.measure(args.seconds))
            for name, exe in built.items():
                add(rates, f"c_{name}", c_rate(exe, args.seconds, seed))
                add(ratios, f"{name}_vs_c", rates[f"ours_batched_{name}"][-1] / rates[f"c_{name}"][-1])
            if built:
                add(
                    ratios,
                    "ouril_no_repetition_vs_c",
                    rates["ours_batched_ouril_no_repetition"][-1] / rates["c_ouril"][-1],
                )
            add(rates, "ours_loop_kalah", engine_loop_rate(kalah, args.seconds, rng))
            add(rates, "ours_stepper_kalah", stepper_loop_rate(kalah, args.seconds, rng))
            add(rates, "loop_floor", engine_loop_rate(LoopFloor(kalah), args.seconds / 2, rng))
            if spiel_game is not None:
                add(rates, "pyspiel_loop_mancala", pyspiel_loop_rate(spiel_game, args.seconds, rng))
                add(ratios, "kalah_loop_vs_pyspiel", rates["ours_loop_kalah"][-1] / rates["pyspiel_loop_mancala"][-1])
                add(
                    ratios,
                    "kalah_stepper_vs_pyspiel",
                    rates["ours_stepper_kalah"][-1] / rates["pyspiel_loop_mancala"][-1],
                )
                add(
                    ratios,
                    "kalah_batched_vs_pyspiel",
                    rates["ours_batched_kalah"][-1] / rates["pyspiel_loop_mancala"][-1],
                )
                add(ratios, "loop_floor_vs_pyspiel", rates["loop_floor"][-1] / rates["pyspiel_loop_mancala"][-1])
                if every is not None:
                    add(
                        ratios,
                        "kalah_batched_every_core_vs_pyspiel",
                        rates["ours_batched_kalah_every_core"][-1] / rates["pyspiel_loop_mancala"][-1],
                    )
    results["plies_per_s"] = {key: median(values) for key, values in rates.items()}
    results["ratios"] = {key: median(values) for key, values in ratios.items()}
    results["runs"] = {"plies_per_s": rates, "ratios": ratios}
    return results


def format_table(results: dict[str, Any]) -> str:
    rates, ratios = results["plies_per_s"], results["ratios"]
    rows = [
        ("Ouril (default) batched / C", "ouril_vs_c", "ours_batched_ouril", "c_ouril", TARGET_C),
        (
            "Ouril (repetition=False) batched / C",
            "ouril_no_repetition_vs_c",
            "ours_batched_ouril_no_repetition",
            "c_ouril",
            None,
        ),
        ("Kalah batched / C", "kalah_vs_c", "ours_batched_kalah", "c_kalah", TARGET_C),
        (
            "Kalah Python loop / pyspiel loop",
            "kalah_loop_vs_pyspiel",
            "ours_loop_kalah",
            "pyspiel_loop_mancala",
            None,
        ),
        (
            "Kalah stepper loop / pyspiel loop",
            "kalah_stepper_vs_pyspiel",
            "ours_stepper_kalah",
            "pyspiel_loop_mancala",
            TARGET_LOOP,
        ),
        (
            "(loop with a do-nothing step) / pyspiel",
            "loop_floor_vs_pyspiel",
            "loop_floor",
            "pyspiel_loop_mancala",
            None,
        ),
        (
            "Kalah batched / pyspiel loop",
            "kalah_batched_vs_pyspiel",
            "ours_batched_kalah",
            "pyspiel_loop_mancala",
            TARGET_BATCHED,
        ),
        (
            f"Kalah batched, {results.get('threads_every_core', 1)} cores / pyspiel loop",
            "kalah_batched_every_core_vs_pyspiel",
            "ours_batched_kalah_every_core",
            "pyspiel_loop_mancala",
            TARGET_BATCHED,
        ),
    ]
    lines = [
        (
            f"Against the limit and against OpenSpiel: one core ({results['core']}), median of "
            f"{results['repeats']} x {results['seconds']} s"
        ),
        f"{'measure':40s} {'ours plies/s':>14s} {'peer plies/s':>14s} {'ratio':>7s} {'target':>7s}  met",
    ]
    for label, ratio, ours, peer, target in rows:
        if ratio not in ratios:
            continue
        met = "" if target is None else ("yes" if ratios[ratio] >= target else "NO")
        target_text = "" if target is None else f"{target:.1f}x"
        lines.append(
            f"{label:40s} {rates[ours]:14,.0f} {rates[peer]:14,.0f} {ratios[ratio]:6.2f}x {target_text:>7s}  {met}"
        )
    for name, check in results.get("validation", {}).items():
        lines.append(
            f"C {name} vs ours: {check['replayed'] - check['mismatches']}/{check['replayed']} replayed games "
            f"end identically; plies/game C {check['c_plies_per_game']:.2f}, ours "
            f"{check['ours_plies_per_game']:.2f} ({check['games_for_length']} games each)"
        )
    for key in ("c_skipped", "pyspiel_skipped"):
        if key in results:
            lines.append(f"skipped: {results[key]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="repetitions (medians are reported)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget of each measure in a repetition")
    parser.add_argument("--validate-games", type=int, default=200, help="random games replayed through each C engine")
    parser.add_argument(
        "--length-games",
        type=int,
        default=50_000,
        help="random games of C and of ours whose average lengths are compared",
    )
    parser.add_argument("--core", type=int, default=None, help="core to pin to (default: the last usable one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=Path(__file__).resolve().parent / "results" / "bench_limit.json")
    args = parser.parse_args(argv)
    results = run(args)
    write_report(results, args.json, format_table(results))
    failed = [
        name for name, check in results.get("validation", {}).items() if check["mismatches"] or not check["length_ok"]
    ]
    if failed:
        print(f"the C engines disagree with ours: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
