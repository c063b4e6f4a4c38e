"""Speed of mancala-envs, measured against a peer run in the same process.

Four measures, all with uniformly random legal play:

1. **PettingZoo loop**: the AEC loop (``env.last()`` / ``env.step()``) on the
   default ``env()`` of each game and on PettingZoo's own ``connect_four_v3``,
   with the same agent loop and the same action sampler. Reported as env steps
   per second and as the ratio ours / connect_four (target: at least 10x). A
   do-nothing stand-in env times the loop and sampler alone, which bounds the
   ratio any env can reach in this loop.
2. **Engine**: a Python loop calling the game's compiled ``step`` and reading
   the legal bitmask from the state, no environment (target: 200k plies/s).
3. **Compiled rollout**: ``mancala_envs.envs.batch.play_random`` plays whole games
   in one compiled call (target: 5M plies/s; compile time excluded).
4. **Start-up**: ``import mancala_envs``, ``make``, ``reset`` and the first
   step in a fresh interpreter, with an empty numba cache (cold) and again with
   the cache it left (warm).

An Omweso turn can take several plies (a decision point mid-turn is one more
ply for the same player), so for Omweso measures 1-3 also report **turns/s**:
completed turns, read from the state's ``TURN`` slot at the end of each game
(and of the game in progress when the clock stops). For the other games a ply
is a turn. The compiled rollout's turns are counted by replaying the timed
games untimed with ``benchmarks/omweso_turns.py``, which draws the same moves.

Speed is never asserted in the tests; this script is where it is measured.

Usage::

    python benchmarks/bench_env.py                    # full run, ~5 minutes on 2 cores
    python benchmarks/bench_env.py --quick            # CI smoke run, under a minute
    python benchmarks/bench_env.py --repeats 7 --seconds 3 --json /tmp/bench.json
    python benchmarks/bench_env.py --measures pettingzoo        # the PettingZoo loop alone, ~1 minute

The table goes to stdout; the JSON to ``benchmarks/results/bench_env.json``
unless ``--json`` says otherwise.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # connect_four imports pygame

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, rate, write_report  # a sibling script module

from mancala_envs.envs.registration import game_names
from mancala_envs.games import game_classes

__all__ = [
    "GAMES",
    "LOOP_ONLY",
    "PEER",
    "TURN_GAMES",
    "Args",
    "LoopOnlyEnv",
    "LoopRun",
    "aec_random_play",
    "bench_engine",
    "bench_pettingzoo_loop",
    "bench_rollout",
    "bench_startup",
    "completed_turns",
    "engine_random_play",
    "format_table",
    "machine_info",
    "main",
    "make_env",
    "measure_startup",
    "parse_args",
    "run_all",
]

#: Our games, by the names ``mancala_envs.make`` takes: every game of the list (mancala_envs.games.GAME_MODULES).
#: Importing mancala_envs here is not the start-up measured: that runs in a fresh interpreter (measure_startup).
GAMES = tuple(game_names())
#: Games whose turn can span several plies (their layout counts turns in the ``TURN`` slot): turns/s is reported
#: next to plies/s.
TURN_GAMES = tuple(f"{cls.name}_v{cls.version}" for cls in game_classes() if "TURN" in cls.layout.header)
#: The peer environment of the PettingZoo loop.
PEER = "connect_four_v3"
PEER_REGISTRY_ID = "classic/connect_four-v3"
#: The loop-only stand-in of the PettingZoo loop benchmark (see :class:`LoopOnlyEnv`).
LOOP_ONLY = "loop_only"

TARGET_LOOP_RATIO = 10.0
TARGET_ENGINE_PLIES_PER_S = 200_000.0
TARGET_ROLLOUT_PLIES_PER_S = 5_000_000.0

DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_env.json"
#: the four measures, by the names ``--measures`` takes
MEASURES = ("pettingzoo", "engine", "rollout", "startup")
FULL_BUDGET = {"repeats": 5, "seconds": 2.0, "warm_starts": 3}
QUICK_BUDGET = {"repeats": 3, "seconds": 0.25, "warm_starts": 1}
#: Plies the engine loop plays between two looks at the clock.
ENGINE_CHUNK = 1024
#: Bits per lookup table when decoding the legal bitmask of a game with many actions (Omweso: 48).
LEGAL_TABLE_BITS = 16


@dataclass
class Args:
    """Options of the benchmark run."""

    quick: bool = False
    """Small budgets for a CI smoke run (repeats 3, 0.25 s, one warm start)."""
    repeats: int | None = None
    """Repetitions of each timed measure; the median is reported (default 5, quick 3)."""
    seconds: float | None = None
    """Time budget of one repetition, in seconds (default 2.0, quick 0.25)."""
    warm_starts: int | None = None
    """Warm start-up runs per game after the cold one (default 3, quick 1)."""
    seed: int = 0
    """Seed of the action samplers and of the compiled rollouts."""
    json: Path = DEFAULT_JSON
    """Where the JSON results are written."""
    measures: tuple[str, ...] = MEASURES
    """The measures to run (a subset of :data:`MEASURES`, default all)."""

    def resolved(self) -> Args:
        """Returns a copy with the budget fields filled from the full or quick defaults."""
        budget = QUICK_BUDGET if self.quick else FULL_BUDGET
        return Args(
            quick=self.quick,
            repeats=self.repeats if self.repeats is not None else budget["repeats"],
            seconds=self.seconds if self.seconds is not None else budget["seconds"],
            warm_starts=self.warm_starts if self.warm_starts is not None else budget["warm_starts"],
            seed=self.seed,
            json=self.json,
            measures=self.measures,
        )


# --- machine -----------------------------------------------------------------------------


# --- 1. the PettingZoo loop ------------------------------------------------------------------


def make_env(name: str):
    """Builds ``name``'s default (wrapped) AEC env: one of :data:`GAMES` or :data:`PEER`.

    Raises:
        RuntimeError: connect_four cannot be built (pygame-ce missing); the
            message says how to install it.
    """
    if name == PEER:
        import pettingzoo

        try:
            # The registry form of ``connect_four_v3.env()`` (same wrappers), without
            # the deprecation warning that importing ``pettingzoo.classic.connect_four_v3`` emits.
            return pettingzoo.make("aec", PEER_REGISTRY_ID)
        except Exception as error:  # FailedToImport, ImportError, DependencyNotInstalled
            raise RuntimeError(
                f"PettingZoo's {PEER} could not be built ({type(error).__name__}: {error}). It needs pygame-ce: "
                "install the benchmark extra with `pip install -e '.[bench]'`."
            ) from error
    import mancala_envs

    return mancala_envs.make(name)


@dataclass(frozen=True)
class LoopRun:
    """One timed run of the AEC loop.

    Attributes:
        steps: ``env.step`` calls, including the ``None`` steps of finished agents.
        plies: Steps that played an action.
        episodes: Episodes finished.
        seconds: Wall time, resets included.
        cpu_seconds: CPU time of this process meanwhile (well below ``seconds``
            when other processes compete for the cores).
        turns: Completed turns, for the games of :data:`TURN_GAMES` (else ``None``).
    """

    steps: int
    plies: int
    episodes: int
    seconds: float
    cpu_seconds: float
    turns: int | None = None

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def plies_per_s(self) -> float:
        return self.plies / self.seconds

    @property
    def turns_per_s(self) -> float | None:
        return None if self.turns is None else self.turns / self.seconds


def completed_turns(env: Any) -> int:
    """Completed turns of the game in ``env`` (its state's ``TURN`` slot; Omweso keeps it)."""
    from mancala_envs.engine.state import TURN

    return int(env.unwrapped.state_array[TURN])


def aec_random_play(
    env: Any,
    seconds: float,
    rng: np.random.Generator,
    min_steps: int = 1,
    count_turns: bool = False,
) -> LoopRun:
    """Plays random legal moves through the AEC API for ``seconds``.

    The sampler is the same for every env: ``np.flatnonzero`` of the action
    mask and one ``rng.integers`` draw. A new episode starts (``reset()``) when
    every agent is done; its time is counted.

    Args:
        env: A reset-able PettingZoo AEC env with an ``action_mask`` in its observations.
        seconds: Time budget.
        rng: The action sampler's generator.
        min_steps: Steps to play even if the budget runs out first.
        count_turns: Also count completed turns (:func:`completed_turns`, read
            once per episode, before its reset, and once at the end).

    Returns:
        The counts and the wall time.
    """
    env.reset(seed=int(rng.integers(2**31)))
    steps = plies = episodes = turns = 0
    clock = time.perf_counter
    cpu_start = time.process_time()
    start = clock()
    deadline = start + seconds
    while steps < min_steps or clock() < deadline:
        observation, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            action = None
        else:
            legal = np.flatnonzero(observation["action_mask"])
            action = legal[rng.integers(len(legal))]
            plies += 1
        env.step(action)
        steps += 1
        if not env.agents:
            episodes += 1
            if count_turns:
                turns += completed_turns(env)
            env.reset()
    wall, cpu = clock() - start, time.process_time() - cpu_start
    if count_turns:
        turns += completed_turns(env)
    return LoopRun(steps, plies, episodes, wall, cpu, turns if count_turns else None)


class LoopOnlyEnv:
    """A stand-in env whose ``last`` and ``step`` do nothing, to time the agent loop and sampler alone.

    Its action mask has 4 of 6 actions legal, like a typical mancala position.
    The time per step it measures is paid by every env in the loop benchmark,
    so ``connect_four time / this time`` bounds the ratio any env can reach.
    """

    def __init__(self) -> None:
        mask = np.array([1, 0, 1, 1, 0, 1], dtype=np.int8)
        self._last = ({"observation": np.zeros(17, dtype=np.int32), "action_mask": mask}, 0, False, False, {})
        self.agents = ["player_0", "player_1"]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Does nothing."""

    def last(self) -> tuple[Any, ...]:
        """Returns the same observation every time."""
        return self._last

    def step(self, action: Any) -> None:
        """Does nothing."""

    def close(self) -> None:
        """Does nothing."""


def bench_pettingzoo_loop(games: tuple[str, ...], repeats: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Times the AEC loop on each game and on connect_four, interleaved, ``repeats`` times.

    Returns:
        Per env: the median steps/s and plies/s, every run, and for our games
        the median of the per-repetition ratios ours / connect_four. Games of
        :data:`TURN_GAMES` add ``turns_per_s``, ``plies_per_turn`` and
        ``turns_ratio_vs_peer`` (our turns/s over connect_four's plies/s, a
        connect_four ply being a turn).
    """
    names = (PEER, *games, LOOP_ONLY)
    envs = {name: make_env(name) for name in names[:-1]} | {LOOP_ONLY: LoopOnlyEnv()}
    rngs = {name: np.random.default_rng([seed, index]) for index, name in enumerate(names)}
    for name in names:  # warm-up: first calls, compiled code loaded
        aec_random_play(envs[name], min(0.1, seconds), rngs[name], min_steps=200)
    runs: dict[str, list[LoopRun]] = {name: [] for name in names}
    for _ in range(repeats):
        for name in names:
            runs[name].append(aec_random_play(envs[name], seconds, rngs[name], count_turns=name in TURN_GAMES))
    for env in envs.values():
        env.close()

    results: dict[str, Any] = {}
    peer_rates = [run.steps_per_s for run in runs[PEER]]
    for name in names[:-1]:
        rates = [run.steps_per_s for run in runs[name]]
        entry: dict[str, Any] = {
            "steps_per_s": statistics.median(rates),
            "plies_per_s": statistics.median(run.plies_per_s for run in runs[name]),
            "steps_per_episode": sum(r.steps for r in runs[name]) / max(1, sum(r.episodes for r in runs[name])),
            "us_per_step": 1e6 / statistics.median(rates),
            "cpu_share": sum(r.cpu_seconds for r in runs[name]) / sum(r.seconds for r in runs[name]),
            "runs": [asdict(run) | {"steps_per_s": run.steps_per_s} for run in runs[name]],
        }
        if name in TURN_GAMES:
            entry["turns_per_s"] = statistics.median(run.turns_per_s for run in runs[name])
            entry["plies_per_turn"] = sum(r.plies for r in runs[name]) / max(1, sum(r.turns for r in runs[name]))
            entry["turns_ratio_vs_peer"] = statistics.median(
                ours.turns_per_s / peer.plies_per_s for ours, peer in zip(runs[name], runs[PEER], strict=True)
            )
        if name != PEER:
            ratios = [ours / peer for ours, peer in zip(rates, peer_rates, strict=True)]
            entry["ratios_vs_peer"] = ratios
            entry["ratio_vs_peer"] = statistics.median(ratios)
            entry["plies_ratio_vs_peer"] = statistics.median(
                ours.plies_per_s / peer.plies_per_s for ours, peer in zip(runs[name], runs[PEER], strict=True)
            )
            entry["target_ratio"] = TARGET_LOOP_RATIO
            entry["target_met"] = entry["ratio_vs_peer"] >= TARGET_LOOP_RATIO
        results[name] = entry
    loop_rates = [run.steps_per_s for run in runs[LOOP_ONLY]]
    loop_only = {
        "steps_per_s": statistics.median(loop_rates),
        "us_per_step": 1e6 / statistics.median(loop_rates),
        "max_ratio_vs_peer": statistics.median(loop / peer for loop, peer in zip(loop_rates, peer_rates, strict=True)),
    }
    return {"peer": PEER, "repeats": repeats, "seconds_per_repeat": seconds, "envs": results, "loop_only": loop_only}


# --- 2. the engine alone ------------------------------------------------------------------------


def _legal_action_table(n_bits: int, offset: int = 0) -> list[tuple[int, ...]]:
    """``table[bits]`` lists the actions ``offset + a`` for the set bits ``a`` of ``bits`` (ascending)."""
    table: list[tuple[int, ...]] = [()] * (1 << n_bits)
    for bits in range(1, 1 << n_bits):
        lowest = (bits & -bits).bit_length() - 1
        table[bits] = (offset + lowest, *table[bits & (bits - 1)])
    return table


def engine_random_play(game: Any, seconds: float, rng: np.random.Generator) -> tuple[int, int, float, float, int]:
    """Plays random legal plies by calling ``game.step`` from Python for ``seconds``.

    Tracing is off (a zero-length trace); the legal moves are read from the
    state's ``LEGAL`` bitmask through a precomputed table (for more than
    :data:`LEGAL_TABLE_BITS` actions, one table per 16 bits, the upper ones
    looked at only when a bit is set there); random numbers are drawn in
    blocks. Finished games are reset in place, first player alternating.

    Returns:
        ``(plies, games finished, wall seconds, CPU seconds, completed turns)``;
        the turns come from the state's ``TURN`` slot, which only the games of
        :data:`TURN_GAMES` keep (0 for the others).
    """
    from mancala_envs.engine.state import LEGAL, RUNNING, STATUS, TURN

    no_trace = np.empty(0, dtype=np.int64)
    state = game.new_state(0)
    step = game.step
    plies = games = turns = 0
    clock = time.perf_counter
    cpu_start = time.process_time()
    start = clock()
    deadline = start + seconds
    if game.n_actions <= LEGAL_TABLE_BITS:
        table = _legal_action_table(game.n_actions)
        while plies == 0 or clock() < deadline:
            draws = rng.random(ENGINE_CHUNK).tolist()
            for draw in draws:
                actions = table[state[LEGAL]]
                step(state, actions[int(draw * len(actions))], no_trace)
                if state[STATUS] != RUNNING:
                    games += 1
                    turns += int(state[TURN])
                    game.reset_state(state, games & 1)
            plies += ENGINE_CHUNK
    else:
        if game.n_actions > 3 * LEGAL_TABLE_BITS:
            raise ValueError(f"the engine loop decodes at most {3 * LEGAL_TABLE_BITS} actions (got {game.n_actions}).")
        low, middle, high = (_legal_action_table(LEGAL_TABLE_BITS, LEGAL_TABLE_BITS * i) for i in range(3))
        mask = (1 << LEGAL_TABLE_BITS) - 1
        while plies == 0 or clock() < deadline:
            draws = rng.random(ENGINE_CHUNK).tolist()
            for draw in draws:
                bits = int(state[LEGAL])
                actions = low[bits & mask]
                if bits > mask:
                    actions += middle[(bits >> LEGAL_TABLE_BITS) & mask] + high[bits >> (2 * LEGAL_TABLE_BITS)]
                step(state, actions[int(draw * len(actions))], no_trace)
                if state[STATUS] != RUNNING:
                    games += 1
                    turns += int(state[TURN])
                    game.reset_state(state, games & 1)
            plies += ENGINE_CHUNK
    wall, cpu = clock() - start, time.process_time() - cpu_start
    return plies, games, wall, cpu, turns + int(state[TURN])


def bench_engine(games: tuple[str, ...], repeats: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Times :func:`engine_random_play` on each game's default config; median plies/s (and turns/s for
    the games of :data:`TURN_GAMES`)."""
    results: dict[str, Any] = {}
    for index, name in enumerate(games):
        game = make_env(name).unwrapped.game
        rng = np.random.default_rng([seed, 100 + index])
        engine_random_play(game, min(0.1, seconds), rng)  # warm-up
        runs = [engine_random_play(game, seconds, rng) for _ in range(repeats)]
        rates = [plies / wall for plies, _games, wall, _cpu, _turns in runs]
        counts_turns = name in TURN_GAMES
        results[name] = {
            "plies_per_s": statistics.median(rates),
            "runs": [
                {"plies": p, "games": g, "seconds": s, "cpu_seconds": c, "plies_per_s": p / s}
                | ({"turns": t, "turns_per_s": t / s} if counts_turns else {})
                for p, g, s, c, t in runs
            ],
            "target_plies_per_s": TARGET_ENGINE_PLIES_PER_S,
            "target_met": statistics.median(rates) >= TARGET_ENGINE_PLIES_PER_S,
        }
        if counts_turns:
            results[name]["turns_per_s"] = statistics.median(t / s for _p, _g, s, _c, t in runs)
            results[name]["plies_per_turn"] = sum(r[0] for r in runs) / max(1, sum(r[4] for r in runs))
    return {"repeats": repeats, "seconds_per_repeat": seconds, "games": results}


# --- 3. compiled random games --------------------------------------------------------------------


def _omweso_turns() -> ModuleType:
    """``benchmarks/omweso_turns.py``, loaded from this script's directory."""
    name = "mancala_benchmarks_omweso_turns"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / "omweso_turns.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def bench_rollout(games: tuple[str, ...], repeats: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Times ``mancala_envs.envs.batch.play_random``; the number of games per call is sized to fill ``seconds``.

    The first call (which loads or compiles the code) is not timed. For the
    games of :data:`TURN_GAMES`, each timed call's games are replayed untimed
    by ``omweso_turns.count_turns`` (same seed, same moves: its plies must
    equal the timed call's) to count their turns.

    Raises:
        RuntimeError: the replay did not play the same number of plies.
    """
    from mancala_envs.envs.batch import play_random

    results: dict[str, Any] = {}
    for name in games:
        game = make_env(name).unwrapped.game
        counts_turns = name in TURN_GAMES
        compile_start = time.perf_counter()
        play_random(game, 1, seed=seed)
        if counts_turns:
            _omweso_turns().count_turns(game, 1, seed)
        first_call = time.perf_counter() - compile_start
        calibration = 50
        while True:
            start = time.perf_counter()
            play_random(game, calibration, seed=seed)
            elapsed = time.perf_counter() - start
            if elapsed > 0.02 or calibration >= 1_000_000:
                break
            calibration *= 4
        n_games = max(1, int(calibration * seconds / elapsed))
        runs = []
        for rep in range(repeats):
            cpu_start = time.process_time()
            start = time.perf_counter()
            stats = play_random(game, n_games, seed=seed + rep)
            wall = time.perf_counter() - start
            cpu = time.process_time() - cpu_start
            run = {
                "games": stats.games,
                "plies": stats.plies,
                "seconds": wall,
                "cpu_seconds": cpu,
                "plies_per_s": stats.plies / wall,
            }
            if counts_turns:
                plies, turns = _omweso_turns().count_turns(game, n_games, seed + rep)
                if plies != stats.plies:
                    raise RuntimeError(
                        f"omweso_turns replayed {plies} plies where play_random played {stats.plies} "
                        f"({name}, {n_games} games, seed {seed + rep}): its loop no longer matches "
                        "mancala_envs.envs.batch; update benchmarks/omweso_turns.py."
                    )
                run |= {"turns": turns, "turns_per_s": turns / wall}
            runs.append(run)
        rate = statistics.median(run["plies_per_s"] for run in runs)
        results[name] = {
            "plies_per_s": rate,
            "games_per_call": n_games,
            "first_call_seconds": first_call,
            "runs": runs,
            "target_plies_per_s": TARGET_ROLLOUT_PLIES_PER_S,
            "target_met": rate >= TARGET_ROLLOUT_PLIES_PER_S,
        }
        if counts_turns:
            results[name]["turns_per_s"] = statistics.median(run["turns_per_s"] for run in runs)
            results[name]["plies_per_turn"] = sum(r["plies"] for r in runs) / max(1, sum(r["turns"] for r in runs))
    return {"repeats": repeats, "seconds_per_repeat": seconds, "games": results}


# --- 4. start-up -------------------------------------------------------------------------------------

_STARTUP_SCRIPT = """
import json, sys, time
clock = time.perf_counter
t0 = clock()
import mancala_envs
t1 = clock()
env = mancala_envs.make(sys.argv[1])
t2 = clock()
env.reset(seed=0)
t3 = clock()
observation, *_ = env.last()
env.step(int(observation["action_mask"].argmax()))
t4 = clock()
print(json.dumps({"import_s": t1 - t0, "make_s": t2 - t1, "reset_s": t3 - t2, "first_step_s": t4 - t3,
                  "total_s": t4 - t0}))
"""


def measure_startup(name: str, cache_dir: str | Path) -> dict[str, float]:
    """Runs import, make, reset and the first step of ``name`` in a fresh interpreter.

    Args:
        name: The game, e.g. ``"ouril_v0"``.
        cache_dir: Numba's cache directory (``NUMBA_CACHE_DIR``) for the child.

    Returns:
        Seconds for each phase as the child measured them (``total_s`` their
        sum) and ``process_s``, the child's wall time including interpreter start.

    Raises:
        RuntimeError: the child failed; its stderr is in the message.
    """
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    start = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-c", _STARTUP_SCRIPT, name], env=environment, capture_output=True, text=True
    )
    process = time.perf_counter() - start
    if child.returncode != 0:
        raise RuntimeError(f"the start-up probe for {name} failed (exit {child.returncode}):\n{child.stderr}")
    timings = json.loads(child.stdout.strip().splitlines()[-1])
    timings["process_s"] = process
    return timings


def bench_startup(games: tuple[str, ...], warm_starts: int) -> dict[str, Any]:
    """Cold start (new, empty numba cache dir) then ``warm_starts`` warm ones (same dir), per game.

    Returns:
        Per game, the cold timings and the per-field median of the warm ones.
    """
    results: dict[str, Any] = {}
    for name in games:
        cache_dir = tempfile.mkdtemp(prefix="mancala-bench-numba-")
        try:
            cold = measure_startup(name, cache_dir)
            warm_runs = [measure_startup(name, cache_dir) for _ in range(max(1, warm_starts))]
        finally:
            shutil.rmtree(cache_dir, ignore_errors=True)
        warm = {key: statistics.median(run[key] for run in warm_runs) for key in warm_runs[0]}
        results[name] = {"cold": cold, "warm": warm, "warm_runs": warm_runs}
    return {"warm_starts": max(1, warm_starts), "games": results}


# --- report --------------------------------------------------------------------------------------------


def run_all(args: Args) -> dict[str, Any]:
    """Runs the four measures with ``args``' budgets and returns the JSON-ready results."""
    args = args.resolved()
    if args.repeats < 1 or args.seconds <= 0:
        raise ValueError(f"--repeats must be >= 1 and --seconds > 0 (got {args.repeats}, {args.seconds}).")
    settings = asdict(args) | {"json": str(args.json)}
    started = time.perf_counter()
    results: dict[str, Any] = {"machine": machine_info(), "settings": settings}
    if "pettingzoo" in args.measures:
        results["pettingzoo_loop"] = bench_pettingzoo_loop(GAMES, args.repeats, args.seconds, args.seed)
    if "engine" in args.measures:
        results["engine"] = bench_engine(GAMES, args.repeats, args.seconds, args.seed)
    if "rollout" in args.measures:
        results["rollout"] = bench_rollout(GAMES, args.repeats, args.seconds, args.seed)
    if "startup" in args.measures:
        # Cold start-up compiles everything (~15 s a game): the quick run measures the first game only.
        results["startup"] = bench_startup(GAMES[:1] if args.quick else GAMES, args.warm_starts)
    results["benchmark_seconds"] = time.perf_counter() - started
    results["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return results


def _loads(loads: list[float] | None) -> str:
    return "n/a" if loads is None else " ".join(f"{load:.2f}" for load in loads)


def _met(flag: bool) -> str:
    return "yes" if flag else "NO"


def _turns(entry: dict[str, Any]) -> str:
    return rate(entry["turns_per_s"]) if "turns_per_s" in entry else ""


def format_table(results: dict[str, Any]) -> str:
    """Renders the results as the plain-text table the script prints."""
    machine = results["machine"]
    settings = results["settings"]
    lines = [
        "mancala-envs benchmark",
        f"  machine: {machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), {machine['cpu_model']}, "
        f"{machine['platform']}",
        f"  python {machine['python']}, numpy {machine['numpy']}, numba {machine['numba']}, "
        f"pettingzoo {machine['pettingzoo']}, gymnasium {machine['gymnasium']}, pygame-ce {machine['pygame_ce']}, "
        f"mancala-envs {machine['mancala_envs']} ({machine['git_commit']})",
        f"  budget: {settings['repeats']} repeats x {settings['seconds']} s, median reported"
        + (" (--quick)" if settings["quick"] else ""),
        f"  load average before / after: {_loads(machine['load_average'])} / {_loads(results['load_average_after'])}",
    ]
    if "pettingzoo_loop" in results:
        lines += _loop_lines(results)
    if "engine" in results:
        lines += _engine_lines(results)
    if "rollout" in results:
        lines += _rollout_lines(results)
    if "startup" in results:
        lines += _startup_lines(results)
    lines += ["", f"benchmark wall time {results['benchmark_seconds']:.1f} s"]
    return "\n".join(lines)


def _loop_lines(results: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "1. PettingZoo AEC loop, random legal play (default env() wrappers), "
        f"ratio vs {results['pettingzoo_loop']['peer']}",
        f"   {'env':<18}{'steps/s':>10}{'us/step':>9}{'plies/s':>10}{'turns/s':>10}{'steps/ep':>10}"
        f"{'ratio':>8}{'target':>8}{'met':>5}",
    ]
    loop = results["pettingzoo_loop"]
    for name, entry in loop["envs"].items():
        ratio = f"{entry['ratio_vs_peer']:.2f}x" if "ratio_vs_peer" in entry else "peer"
        target = f">={entry['target_ratio']:.0f}x" if "target_ratio" in entry else ""
        met = _met(entry["target_met"]) if "target_met" in entry else ""
        lines.append(
            f"   {name:<18}{rate(entry['steps_per_s']):>10}{entry['us_per_step']:>9.1f}"
            f"{rate(entry['plies_per_s']):>10}{_turns(entry):>10}{entry['steps_per_episode']:>10.1f}"
            f"{ratio:>8}{target:>8}{met:>5}"
        )
    loop_only = loop["loop_only"]
    lines.append(
        f"   {'(loop + sampler)':<18}{rate(loop_only['steps_per_s']):>10}{loop_only['us_per_step']:>9.1f}"
        f"{'':>10}{'':>10}{'':>10}{loop_only['max_ratio_vs_peer']:>7.1f}x  = the ceiling of any env's ratio in "
        "this loop"
    )
    for name, entry in loop["envs"].items():
        if "turns_ratio_vs_peer" in entry:
            lines.append(
                f"   {name}: {entry['plies_per_turn']:.3f} plies per turn; turns/s = "
                f"{entry['turns_ratio_vs_peer']:.2f}x {loop['peer']}'s plies/s"
            )
    return lines


def _engine_lines(results: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "2. Engine: Python loop over the compiled step, legal bitmask, no trace, no env",
        f"   {'game':<18}{'plies/s':>10}{'turns/s':>10}{'target':>10}{'met':>5}",
    ]
    for name, entry in results["engine"]["games"].items():
        lines.append(
            f"   {name:<18}{rate(entry['plies_per_s']):>10}{_turns(entry):>10}"
            f"{'>=' + rate(entry['target_plies_per_s']):>10}{_met(entry['target_met']):>5}"
        )
    return lines


def _rollout_lines(results: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "3. Compiled random games: batch.play_random (first call excluded)",
        f"   {'game':<18}{'plies/s':>10}{'turns/s':>10}{'games/call':>12}{'target':>10}{'met':>5}",
    ]
    for name, entry in results["rollout"]["games"].items():
        lines.append(
            f"   {name:<18}{rate(entry['plies_per_s']):>10}{_turns(entry):>10}{entry['games_per_call']:>12}"
            f"{'>=' + rate(entry['target_plies_per_s']):>10}{_met(entry['target_met']):>5}"
        )
    lines.append("   (turns/s: Omweso only; in the other games a ply is a turn)")
    return lines


def _startup_lines(results: dict[str, Any]) -> list[str]:
    lines = [
        "",
        f"4. Start-up in a fresh interpreter, seconds (cold: empty NUMBA_CACHE_DIR; warm: median of "
        f"{results['startup']['warm_starts']})",
        f"   {'game':<18}{'':<6}{'import':>8}{'make':>8}{'reset':>8}{'1st step':>9}{'total':>8}{'process':>9}",
    ]
    for name, entry in results["startup"]["games"].items():
        for kind in ("cold", "warm"):
            t = entry[kind]
            lines.append(
                f"   {name if kind == 'cold' else '':<18}{kind:<6}{t['import_s']:>8.3f}{t['make_s']:>8.3f}"
                f"{t['reset_s']:>8.4f}{t['first_step_s']:>9.4f}{t['total_s']:>8.3f}{t['process_s']:>9.3f}"
            )
    return lines


def parse_args(argv: list[str] | None = None) -> Args:
    """Reads :class:`Args` from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small budgets for a CI smoke run (under a minute)")
    parser.add_argument("--repeats", type=int, help="repetitions per measure, median reported (default 5, quick 3)")
    parser.add_argument("--seconds", type=float, help="time budget per repetition (default 2.0, quick 0.25)")
    parser.add_argument("--warm-starts", type=int, help="warm start-up runs per game (default 3, quick 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the samplers and rollouts (default 0)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"results file (default {DEFAULT_JSON})")
    parser.add_argument(
        "--measures", nargs="+", choices=MEASURES, default=list(MEASURES), help="the measures to run (default: all)"
    )
    options = parser.parse_args(argv)
    return Args(
        quick=options.quick,
        repeats=options.repeats,
        seconds=options.seconds,
        warm_starts=options.warm_starts,
        seed=options.seed,
        json=options.json,
        measures=tuple(options.measures),
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Runs the benchmark, prints the table and writes the JSON; returns the results."""
    args = parse_args(argv)
    results = run_all(args)
    write_report(results, args.json, format_table(results))
    return results


if __name__ == "__main__":
    main()
