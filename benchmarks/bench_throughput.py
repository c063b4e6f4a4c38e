"""Throughput of the batched engine and the vector env, measured against peers run in the same process.

Six measures, all with uniformly random legal play:

1. **Engine (Ouril)**: ``BatchedGames("ouril_v0", n).play_random`` (many games
   stepped by one compiled call) against single-env Python loops (the
   PettingZoo AEC loop and the Python loop over the compiled ``step`` of
   ``bench_env.py``) and against OpenSpiel's ``oware`` (the same game family)
   played by a Python loop through ``pyspiel``. Plies/s and the ratio
   batched / OpenSpiel (target: at least 20x); batched plies/s against 5M
   (one process).
2. **Every game**: batched plies/s against the game's own PettingZoo loop
   (target: at least 50x).
3. **Environments**: our PettingZoo loop against PettingZoo's ``connect_four_v3``
   and ``tictactoe_v3``, env steps/s and ratios.
4. **Vector env**: ``MancalaVectorEnv`` (the learner's games and the opponents'
   replies in one compiled call) against ``gymnasium.make_vec`` of the
   single-agent env (``SyncVectorEnv``), 64 envs, the same masked random
   learner, env steps/s and the ratio.
5. **Memory**: ``state_bytes_per_game`` and the resident memory of a batch of
   1,000,000 Ouril games, measured in a child process (target: well under 1 GB).
6. **Start-up**: ``from mancala_envs.envs.batch import BatchedGames``, construct,
   reset and first step in a fresh interpreter, with an empty numba cache
   (cold) and with the cache it left (warm).

Measures 1-3 come from one round robin: each repetition times every
contender once, one after the other, so every ratio is taken from runs a few
seconds apart (the median of the per-repetition ratios is reported). Speed is
never asserted in the tests; this script is where it is measured.

Usage::

    python benchmarks/bench_throughput.py              # full run, ~4 minutes on 2 cores (up to 7 when busy)
    python benchmarks/bench_throughput.py --quick      # smoke run (no cold start-up), ~1 minute
    python benchmarks/bench_throughput.py --repeats 7 --seconds 2 --json /tmp/throughput.json

The table goes to stdout; the JSON to ``benchmarks/results/bench_throughput.json``
unless ``--json`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # connect_four imports pygame

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_env import GAMES, aec_random_play, engine_random_play, make_env  # sibling script modules
from bench_env import PEER as CONNECT_FOUR
from bench_machine import machine_info, rate, write_report

__all__ = [
    "ENGINE_GAME",
    "ENV_PEERS",
    "GAMES",
    "GYMNASIUM_IDS",
    "Args",
    "Run",
    "batched_player",
    "bench_plies",
    "bench_startup",
    "bench_vector",
    "format_table",
    "main",
    "make_peer",
    "masked_random_actions",
    "measure_memory",
    "openspiel_random_play",
    "parse_args",
    "round_robin",
    "run_all",
]

#: The single-agent Gymnasium view of each game (``mancala_envs.list_gymnasium_envs()``).
GYMNASIUM_IDS = {
    "ouril_v0": "mancala/Ouril-v0",
    "urim_v0": "mancala/Urim-v0",
    "modiar_v0": "mancala/Modiar-v0",
    "rio_kadalis_v0": "mancala/RioKadalis-v0",
    "omweso_v0": "mancala/Omweso-v0",
    "kalah_v0": "mancala/Kalah-v0",
}
#: The game of the engine comparison and of the memory and start-up measures.
ENGINE_GAME = "ouril_v0"
#: OpenSpiel's game of the same family as Ouril, the peer of the engine comparison.
OPENSPIEL_GAME = "oware"
TICTACTOE = "tictactoe_v3"
TICTACTOE_REGISTRY_ID = "classic/tictactoe-v3"
#: PettingZoo's classic envs that our PettingZoo loop is compared with.
ENV_PEERS = (CONNECT_FOUR, TICTACTOE)

TARGET_VS_OPENSPIEL = 20.0
TARGET_BATCHED_PLIES_PER_S = 5_000_000.0
TARGET_VS_LOOP = 50.0
TARGET_MEMORY_BYTES = 1_000_000_000
MEMORY_TARGET_GAMES = 1_000_000

DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "bench_throughput.json"
FULL_BUDGET = {
    "repeats": 5,
    "seconds": 1.0,
    "warm_starts": 3,
    "memory_games": MEMORY_TARGET_GAMES,
    "cold_startup": True,
}
QUICK_BUDGET = {
    "repeats": 3,
    "seconds": 0.25,
    "warm_starts": 1,
    "memory_games": MEMORY_TARGET_GAMES,
    "cold_startup": False,
}
#: Games per batch in measures 1 and 2 and in the start-up measure.
BATCH_SIZE = 1024
#: Envs per vector env in measure 4.
VECTOR_ENVS = 64
#: Random draws per block in the OpenSpiel loop (the engine loop of bench_env.py draws the same way).
DRAW_BLOCK = 1024
#: Games the memory measure lets end in ``play_random``, per game of the batch.
MEMORY_PLAY_FRACTION = 1 / 1000


@dataclass
class Args:
    """Options of the benchmark run."""

    quick: bool = False
    """Small budgets for a smoke run (repeats 3, 0.25 s, one warm start, no cold start-up)."""
    repeats: int | None = None
    """Repetitions of each timed measure; the median is reported (default 5, quick 3)."""
    seconds: float | None = None
    """Time budget of one contender in one repetition, in seconds (default 1.0, quick 0.25)."""
    warm_starts: int | None = None
    """Warm start-up runs after the cold one (default 3, quick 1)."""
    cold_startup: bool | None = None
    """Measure the cold start-up (compiles everything, 1.5-3 minutes; default on, quick off)."""
    memory_games: int | None = None
    """Games in the batch of the memory measure (default 1,000,000)."""
    batch_size: int = BATCH_SIZE
    """Games per batch in the batched random play."""
    num_envs: int = VECTOR_ENVS
    """Envs per vector env."""
    seed: int = 0
    """Seed of the samplers, the batches and the vector envs."""
    json: Path = DEFAULT_JSON
    """Where the JSON results are written."""

    def resolved(self) -> Args:
        """Returns a copy with the budget fields filled from the full or quick defaults."""
        budget = QUICK_BUDGET if self.quick else FULL_BUDGET
        filled = {
            key: getattr(self, key) if getattr(self, key) is not None else default for key, default in budget.items()
        }
        return Args(**(asdict(self) | filled))


@dataclass(frozen=True)
class Run:
    """One timed run of one contender.

    Attributes:
        steps: Env steps (``env.step`` calls of an AEC env, ``num_envs`` per vector step); plies
            for the contenders that have no env.
        plies: Agent decisions (in the vector envs: the learners' decisions, one per env step).
        games: Games (episodes) finished.
        seconds: Wall time.
        cpu_seconds: CPU time of this process meanwhile (well below ``seconds`` when other processes
            take the cores).
    """

    steps: int
    plies: int
    games: int
    seconds: float
    cpu_seconds: float


Player = Callable[[float], Run]


# --- the contenders of measures 1-3 ---------------------------------------------------------------------------


def make_peer(name: str) -> Any:
    """Builds one of :data:`ENV_PEERS` with its default wrappers (``connect_four_v3`` as ``bench_env`` does).

    Raises:
        RuntimeError: the env cannot be built; the message says what to install.
    """
    if name == CONNECT_FOUR:
        return make_env(name)
    if name != TICTACTOE:
        raise ValueError(f"unknown peer {name!r}; choose one of {list(ENV_PEERS)}.")
    import pettingzoo

    try:
        # The registry form of ``tictactoe_v3.env()`` (same wrappers), without the module's deprecation warning.
        return pettingzoo.make("aec", TICTACTOE_REGISTRY_ID)
    except Exception as error:  # FailedToImport, ImportError, DependencyNotInstalled
        raise RuntimeError(
            f"PettingZoo's {TICTACTOE} could not be built ({type(error).__name__}: {error}); "
            "install the benchmark extra with `pip install -e '.[bench]'`."
        ) from error


def _load_pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError as error:
        raise RuntimeError(
            f"OpenSpiel is not installed ({error}); the engine comparison plays its {OPENSPIEL_GAME!r}: "
            "install the benchmark extra with `pip install -e '.[bench]'`."
        ) from error
    return pyspiel


def openspiel_random_play(game: Any, seconds: float, rng: np.random.Generator) -> Run:
    """Plays random legal plies of an OpenSpiel game from Python for ``seconds``.

    Each ply reads ``state.legal_actions()``, picks one with a draw from ``rng``
    (drawn in blocks of :data:`DRAW_BLOCK`, as the engine loop of ``bench_env.py``
    does) and calls ``state.apply_action``; a finished game is replaced by a new
    initial state (its time counted).

    Args:
        game: A ``pyspiel.Game`` of alternating moves without chance nodes (``oware``).
        seconds: Time budget.
        rng: The sampler's generator.
    """
    state = game.new_initial_state()
    plies = games = 0
    clock = time.perf_counter
    cpu_start = time.process_time()
    start = clock()
    deadline = start + seconds
    while plies == 0 or clock() < deadline:
        for draw in rng.random(DRAW_BLOCK).tolist():
            legal = state.legal_actions()
            state.apply_action(legal[int(draw * len(legal))])
            if state.is_terminal():
                games += 1
                state = game.new_initial_state()
        plies += DRAW_BLOCK
    wall, cpu = clock() - start, time.process_time() - cpu_start
    return Run(plies, plies, games, wall, cpu)


def batched_player(name: str, batch_size: int, seed: int, seconds: float) -> Player:
    """A reset :class:`~mancala_envs.envs.batch.BatchedGames` of ``batch_size`` games and the function that
    times its ``play_random``.

    The first calls (which load or compile the code) happen here, untimed; they also size the games
    per call so that one call takes about a tenth of ``seconds`` (at most 50 ms): the timed run calls
    ``play_random`` until the budget is spent, the games going on from call to call.
    """
    from mancala_envs.envs.batch import BatchedGames

    batch = BatchedGames(name, batch_size)
    batch.reset(seed=seed)
    per_call = max(1, batch_size // 8)
    while True:
        start = time.perf_counter()
        batch.play_random(per_call)
        elapsed = time.perf_counter() - start
        if elapsed > 0.005 or per_call >= 1_000_000:
            break
        per_call *= 4
    per_call = max(1, int(per_call * min(0.05, seconds / 10) / elapsed))

    def play(budget: float) -> Run:
        plies = games = 0
        clock = time.perf_counter
        cpu_start = time.process_time()
        start = clock()
        deadline = start + budget
        while plies == 0 or clock() < deadline:
            stats = batch.play_random(per_call)
            plies += stats.plies
            games += stats.games
        wall, cpu = clock() - start, time.process_time() - cpu_start
        return Run(plies, plies, games, wall, cpu)

    return play


def _aec_player(env: Any, rng: np.random.Generator) -> Player:
    def play(seconds: float) -> Run:
        run = aec_random_play(env, seconds, rng)
        return Run(run.steps, run.plies, run.episodes, run.seconds, run.cpu_seconds)

    return play


def _engine_player(name: str, rng: np.random.Generator) -> Player:
    game = make_env(name).unwrapped.game

    def play(seconds: float) -> Run:
        plies, games, wall, cpu, _turns = engine_random_play(game, seconds, rng)
        return Run(plies, plies, games, wall, cpu)

    return play


def _openspiel_player(rng: np.random.Generator) -> Player:
    game = _load_pyspiel().load_game(OPENSPIEL_GAME)
    return lambda seconds: openspiel_random_play(game, seconds, rng)


def round_robin(players: dict[str, Player], repeats: int, seconds: float) -> dict[str, list[Run]]:
    """Times every player once per repetition, one after the other, after one short untimed warm-up each."""
    for play in players.values():
        play(min(0.1, seconds))
    runs: dict[str, list[Run]] = {name: [] for name in players}
    for _ in range(repeats):
        for name, play in players.items():
            runs[name].append(play(seconds))
    return runs


def _summary(runs: list[Run]) -> dict[str, Any]:
    steps_per_s = statistics.median(run.steps / run.seconds for run in runs)
    return {
        "steps_per_s": steps_per_s,
        "plies_per_s": statistics.median(run.plies / run.seconds for run in runs),
        "us_per_step": 1e6 / steps_per_s,
        "plies_per_game": sum(run.plies for run in runs) / max(1, sum(run.games for run in runs)),
        "steps_per_game": sum(run.steps for run in runs) / max(1, sum(run.games for run in runs)),
        "cpu_share": sum(run.cpu_seconds for run in runs) / sum(run.seconds for run in runs),
        "runs": [asdict(run) | {"plies_per_s": run.plies / run.seconds} for run in runs],
    }


def _ratios(ours: list[Run], peer: list[Run], field: str = "plies") -> dict[str, Any]:
    """The per-repetition ratios of ``field``/s, ours over the peer's, and their median."""
    ratios = [getattr(a, field) / a.seconds / (getattr(b, field) / b.seconds) for a, b in zip(ours, peer, strict=True)]
    return {"ratio": statistics.median(ratios), "ratios": ratios}


def _batched(name: str) -> str:
    return f"batched/{name}"


def _loop(name: str) -> str:
    return f"pettingzoo/{name}"


ENGINE_LOOP = f"engine/{ENGINE_GAME}"
OPENSPIEL = f"openspiel/{OPENSPIEL_GAME}"


def bench_plies(games: tuple[str, ...], repeats: int, seconds: float, batch_size: int, seed: int = 0) -> dict[str, Any]:
    """Measures 1-3 from one round robin: batched play and the PettingZoo loop of every game, the
    PettingZoo loop of the peers, the engine loop of :data:`ENGINE_GAME` and OpenSpiel's oware.

    Returns:
        ``round_robin`` (every contender's median rates and runs) and the ``engine``, ``games`` and
        ``envs`` comparisons.
    """
    envs = {name: make_env(name) for name in games} | {name: make_peer(name) for name in ENV_PEERS}
    players: dict[str, Player] = {}
    for index, name in enumerate(games):
        players[_batched(name)] = batched_player(name, batch_size, seed + index, seconds)
    for index, (name, env) in enumerate(envs.items()):
        players[_loop(name)] = _aec_player(env, np.random.default_rng([seed, index]))
    players[ENGINE_LOOP] = _engine_player(ENGINE_GAME, np.random.default_rng([seed, 100]))
    players[OPENSPIEL] = _openspiel_player(np.random.default_rng([seed, 200]))
    runs = round_robin(players, repeats, seconds)
    for env in envs.values():
        env.close()
    contenders = {name: _summary(player_runs) for name, player_runs in runs.items()}

    engine: dict[str, Any] = {"game": ENGINE_GAME, "peer": OPENSPIEL, "batch_size": batch_size, "contenders": {}}
    for key, name in (
        ("batched", _batched(ENGINE_GAME)),
        ("engine_loop", ENGINE_LOOP),
        ("pettingzoo_loop", _loop(ENGINE_GAME)),
        ("openspiel", OPENSPIEL),
    ):
        engine["contenders"][key] = {"contender": name, "plies_per_s": contenders[name]["plies_per_s"]}
        if name != OPENSPIEL:
            ratio = _ratios(runs[name], runs[OPENSPIEL])
            engine["contenders"][key] |= {"ratio_vs_openspiel": ratio["ratio"], "ratios_vs_openspiel": ratio["ratios"]}
    batched = engine["contenders"]["batched"]
    engine |= {
        "ratio_batched_vs_openspiel": batched["ratio_vs_openspiel"],
        "target_ratio": TARGET_VS_OPENSPIEL,
        "target_ratio_met": batched["ratio_vs_openspiel"] >= TARGET_VS_OPENSPIEL,
        "batched_plies_per_s": batched["plies_per_s"],
        "target_plies_per_s": TARGET_BATCHED_PLIES_PER_S,
        "target_plies_met": batched["plies_per_s"] >= TARGET_BATCHED_PLIES_PER_S,
    }

    per_game: dict[str, Any] = {}
    for name in games:
        ratio = _ratios(runs[_batched(name)], runs[_loop(name)])
        per_game[name] = {
            "batched_plies_per_s": contenders[_batched(name)]["plies_per_s"],
            "loop_plies_per_s": contenders[_loop(name)]["plies_per_s"],
            "ratio": ratio["ratio"],
            "ratios": ratio["ratios"],
            "target_ratio": TARGET_VS_LOOP,
            "target_met": ratio["ratio"] >= TARGET_VS_LOOP,
        }

    env_rows: dict[str, Any] = {}
    for name in (*ENV_PEERS, *games):
        row = {
            key: contenders[_loop(name)][key]
            for key in ("steps_per_s", "plies_per_s", "us_per_step", "steps_per_game", "cpu_share")
        }
        if name not in ENV_PEERS:
            for peer in ENV_PEERS:
                ratio = _ratios(runs[_loop(name)], runs[_loop(peer)], "steps")
                row[f"ratio_vs_{peer}"] = ratio["ratio"]
                row[f"ratios_vs_{peer}"] = ratio["ratios"]
        env_rows[name] = row

    return {
        "round_robin": {
            "repeats": repeats,
            "seconds_per_repeat": seconds,
            "batch_size": batch_size,
            "contenders": contenders,
        },
        "engine": engine,
        "games": per_game,
        "envs": {"peers": list(ENV_PEERS), "envs": env_rows},
    }


# --- 4. vector envs ------------------------------------------------------------------------------------------


def masked_random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (``(num_envs, n_actions)``, non-zero = legal).

    The legal action with the largest of independent uniform draws: each legal action is equally likely.
    """
    return np.where(masks != 0, rng.random(masks.shape), -1.0).argmax(axis=1)


def _vector_player(envs: Any, masks_of: Callable[[Any, dict[str, Any]], np.ndarray], seed: int) -> Player:
    """Times ``envs.step`` with :func:`masked_random_actions`; ``masks_of(envs, infos)`` reads the masks."""
    rng = np.random.default_rng([seed, 300])
    _observations, infos = envs.reset(seed=seed)
    latest = {"infos": infos}
    num_envs = envs.num_envs

    def play(seconds: float) -> Run:
        infos = latest["infos"]
        steps = games = 0
        clock = time.perf_counter
        cpu_start = time.process_time()
        start = clock()
        deadline = start + seconds
        while steps == 0 or clock() < deadline:
            _observations, _rewards, terminated, truncated, infos = envs.step(
                masked_random_actions(masks_of(envs, infos), rng)
            )
            steps += num_envs
            games += int(np.count_nonzero(terminated | truncated))
        wall, cpu = clock() - start, time.process_time() - cpu_start
        latest["infos"] = infos
        return Run(steps, steps, games, wall, cpu)

    return play


def bench_vector(games: tuple[str, ...], num_envs: int, repeats: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Times ``MancalaVectorEnv`` against ``gymnasium.make_vec(..., vectorization_mode="sync")`` of the
    single-agent env, per game, in one round robin; both with same-step auto-reset, the random opponent
    and :func:`masked_random_actions` as the learner (ours reads ``action_masks()``, make_vec's
    ``infos["action_mask"]``).

    Returns:
        Per game, both env steps/s (``num_envs`` per ``step``), every run and the ratio vector / make_vec.
    """
    import gymnasium

    import mancala_envs  # registers the Gymnasium ids
    from mancala_envs.views.vector_env import MancalaVectorEnv

    missing = [GYMNASIUM_IDS[name] for name in games if GYMNASIUM_IDS[name] not in mancala_envs.list_gymnasium_envs()]
    if missing:
        raise RuntimeError(f"Gymnasium ids {missing} are not registered; update GYMNASIUM_IDS in this script.")
    built: list[Any] = []
    players: dict[str, Player] = {}
    for index, name in enumerate(games):
        ours = MancalaVectorEnv(name, num_envs, opponent="random", autoreset_mode="same_step")
        peer = gymnasium.make_vec(
            GYMNASIUM_IDS[name],
            num_envs=num_envs,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
        )
        built += [ours, peer]
        players[f"vector/{name}"] = _vector_player(ours, lambda envs, _infos: envs.action_masks(), seed + index)
        players[f"make_vec/{name}"] = _vector_player(peer, lambda _envs, infos: infos["action_mask"], seed + index)
    runs = round_robin(players, repeats, seconds)
    for envs in built:
        envs.close()
    results: dict[str, Any] = {}
    for name in games:
        ours, peer = runs[f"vector/{name}"], runs[f"make_vec/{name}"]
        ratio = _ratios(ours, peer, "steps")
        results[name] = {
            "gymnasium_id": GYMNASIUM_IDS[name],
            "vector": _summary(ours),
            "make_vec": _summary(peer),
            "ratio": ratio["ratio"],
            "ratios": ratio["ratios"],
        }
    return {
        "num_envs": num_envs,
        "repeats": repeats,
        "seconds_per_repeat": seconds,
        "opponent": "random",
        "autoreset_mode": "same_step",
        "games": results,
    }


# --- 5 and 6: child processes ----------------------------------------------------------------------------------


def _run_child(script: str, args: list[str], what: str, environment: dict[str, str] | None = None) -> dict[str, Any]:
    """Runs ``script`` in a fresh interpreter; returns the JSON object of its last output line and
    ``process_s``, the child's wall time including interpreter start.

    Raises:
        RuntimeError: the child failed; its stderr is in the message.
    """
    start = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-c", script, *args],
        env=dict(os.environ, **(environment or {})),
        capture_output=True,
        text=True,
        check=False,
    )
    process = time.perf_counter() - start
    if child.returncode != 0:
        raise RuntimeError(f"the {what} child process failed (exit {child.returncode}):\n{child.stderr[-4000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1]) | {"process_s": process}


_MEMORY_SCRIPT = """
import json, sys, time
from mancala_envs.envs.batch import BatchedGames

def memory():
    # VmRSS: the resident size now; VmHWM: its peak since the start or the last reset_peak()
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                fields[key] = int(value.split()[0]) * 1024  # kB
    return fields["VmRSS"], fields["VmHWM"]

def reset_peak():
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")  # VmHWM = VmRSS (Linux 4.0+)

name, n_games, play_games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
small = BatchedGames(name, 4)  # loads the compiled code first, so that it is not counted as the batch's
step = small.reset(seed=0)
small.step(step.action_mask.argmax(axis=1))
small.play_random(4)
del small, step
reset_peak()
out = {"baseline_rss": memory()[0]}
clock = time.perf_counter
start = clock()
games = BatchedGames(name, n_games)
out |= {"construct_s": clock() - start, "after_construct_rss": memory()[0]}
start = clock()
step = games.reset(seed=0)
out |= {"reset_s": clock() - start, "after_reset_rss": memory()[0]}
start = clock()
step = games.step(step.action_mask.argmax(axis=1))  # its outputs are kept
out["step_s"] = clock() - start
out["after_step_rss"], out["setup_peak"] = memory()
reset_peak()
start = clock()
stats = games.play_random(play_games)
out |= {"play_s": clock() - start, "play_plies": stats.plies}
out["after_play_rss"], out["play_peak"] = memory()
out |= {"spilled_games_after_play": games.spilled_games, "state_bytes_per_game": games.state_bytes_per_game}
print(json.dumps(out))
"""


def measure_memory(name: str, n_games: int) -> dict[str, Any]:
    """The resident memory of a batch of ``n_games`` games, measured in a fresh interpreter (Linux).

    The child first loads the compiled code with a batch of 4 games and takes its resident set size
    (``VmRSS`` of ``/proc/self/status``) as the baseline. It reads it again after constructing the
    batch, after ``reset`` and after one ``step`` (whose outputs it keeps), and the peak over these
    (``VmHWM``). Then it resets the peak (``/proc/self/clear_refs``) and lets ``play_random`` play until
    ``n_games * MEMORY_PLAY_FRACTION`` games have ended: the peak during play includes the spill area,
    which grows while many games go long without a capture. Figures are bytes above the baseline.
    (Numba's arrays are not allocated through Python's allocator, so ``tracemalloc`` would miss them;
    the resident size does not.)

    Raises:
        RuntimeError: not on Linux, or the child failed.
    """
    if not Path("/proc/self/clear_refs").exists():
        raise RuntimeError(
            "the memory measure reads /proc/self/status and /proc/self/clear_refs, which only Linux "
            "has; run it on Linux."
        )
    play_games = max(1, int(n_games * MEMORY_PLAY_FRACTION))
    child = _run_child(_MEMORY_SCRIPT, [name, str(n_games), str(play_games)], "memory")
    base = child["baseline_rss"]
    scale = MEMORY_TARGET_GAMES / n_games
    after_step = child["after_step_rss"] - base
    peak = child["play_peak"] - base
    return {
        "game": name,
        "n_games": n_games,
        "play_random_games": play_games,
        "state_bytes_per_game": child["state_bytes_per_game"],
        "state_bytes": child["state_bytes_per_game"] * n_games,
        "baseline_rss_bytes": base,
        "construct_bytes": child["after_construct_rss"] - base,
        "reset_bytes": child["after_reset_rss"] - base,
        "step_bytes": after_step,
        "setup_peak_bytes": child["setup_peak"] - base,
        "peak_play_bytes": peak,
        "after_play_bytes": child["after_play_rss"] - base,
        "spilled_games_after_play": child["spilled_games_after_play"],
        "play_plies": child["play_plies"],
        "seconds": {key: child[key] for key in ("construct_s", "reset_s", "step_s", "play_s", "process_s")},
        "target_bytes": TARGET_MEMORY_BYTES,
        "target_games": MEMORY_TARGET_GAMES,
        "step_bytes_at_target_games": after_step * scale,
        "peak_play_bytes_at_target_games": peak * scale,
        "target_step_met": after_step * scale < TARGET_MEMORY_BYTES,
        "target_peak_met": peak * scale < TARGET_MEMORY_BYTES,
    }


_STARTUP_SCRIPT = """
import json, sys, time
clock = time.perf_counter
t0 = clock()
from mancala_envs.envs.batch import BatchedGames
t1 = clock()
games = BatchedGames(sys.argv[1], int(sys.argv[2]))
t2 = clock()
step = games.reset(seed=0)
t3 = clock()
games.step(step.action_mask.argmax(axis=1))
t4 = clock()
print(json.dumps({"import_s": t1 - t0, "construct_s": t2 - t1, "reset_s": t3 - t2, "first_step_s": t4 - t3,
                  "total_s": t4 - t0}))
"""


def bench_startup(name: str, batch_size: int, warm_starts: int, cold: bool) -> dict[str, Any]:
    """Start-up of the batched engine in fresh interpreters: import, construct, reset, first step.

    With ``cold``, the first run gets a new, empty ``NUMBA_CACHE_DIR`` (numba compiles everything) and
    the warm runs reuse that directory. Without it, the runs use this process's numba cache, after one
    untimed run that fills whatever it lacks.

    Returns:
        The cold timings (``None`` when not measured), the per-field median of the warm runs, and the runs.
    """
    args = [name, str(batch_size)]
    cache_dir = tempfile.mkdtemp(prefix="mancala-bench-numba-") if cold else None
    environment = {"NUMBA_CACHE_DIR": cache_dir} if cache_dir else None
    try:
        first = _run_child(_STARTUP_SCRIPT, args, "start-up", environment)
        warm_runs = [_run_child(_STARTUP_SCRIPT, args, "start-up", environment) for _ in range(max(1, warm_starts))]
    finally:
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)
    warm = {key: statistics.median(run[key] for run in warm_runs) for key in warm_runs[0]}
    return {
        "game": name,
        "batch_size": batch_size,
        "cold": first if cold else None,
        "warm": warm,
        "warm_runs": warm_runs,
        "warm_starts": len(warm_runs),
    }


# --- report ------------------------------------------------------------------------------------------------


def _versions() -> dict[str, str | None]:
    versions = {}
    for distribution in ("open-spiel",):
        try:
            versions[distribution] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[distribution] = None
    return versions


def run_all(args: Args) -> dict[str, Any]:
    """Runs the six measures with ``args``' budgets and returns the JSON-ready results."""
    args = args.resolved()
    if args.repeats < 1 or args.seconds <= 0 or args.batch_size < 1 or args.num_envs < 1 or args.memory_games < 1:
        raise ValueError(
            "--repeats, --batch-size, --num-envs and --memory-games must be >= 1 and --seconds > 0 (got "
            f"{args.repeats}, {args.batch_size}, {args.num_envs}, {args.memory_games}, {args.seconds})."
        )
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": machine_info() | _versions(),
        "settings": asdict(args) | {"json": str(args.json)},
    }
    results |= bench_plies(GAMES, args.repeats, args.seconds, args.batch_size, args.seed)
    results["vector"] = bench_vector(GAMES, args.num_envs, args.repeats, args.seconds, args.seed)
    results["memory"] = measure_memory(ENGINE_GAME, args.memory_games)
    results["startup"] = bench_startup(ENGINE_GAME, args.batch_size, args.warm_starts, args.cold_startup)
    results["benchmark_seconds"] = time.perf_counter() - started
    results["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return results


def _megabytes(value: float) -> str:
    return f"{value / 1e6:,.0f} MB"


def _loads(loads: list[float] | None) -> str:
    return "n/a" if loads is None else " ".join(f"{load:.2f}" for load in loads)


def _met(flag: bool) -> str:
    return "yes" if flag else "NO"


def format_table(results: dict[str, Any]) -> str:
    """Renders the results as the plain-text tables the script prints."""
    machine, settings = results["machine"], results["settings"]
    contenders = results["round_robin"]["contenders"]
    lines = [
        "mancala-envs throughput benchmark",
        (
            f"  machine: {machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), {machine['cpu_model']}, "
            f"{machine['platform']}"
        ),
        (
            f"  python {machine['python']}, numpy {machine['numpy']}, numba {machine['numba']}, "
            f"pettingzoo {machine['pettingzoo']}, gymnasium {machine['gymnasium']}, "
            f"open-spiel {machine['open-spiel']}, "
            f"mancala-envs {machine['mancala_envs']} ({machine['git_commit']})"
        ),
        f"  budget: {settings['repeats']} repeats x {settings['seconds']} s per contender, median reported"
        + (" (--quick)" if settings["quick"] else ""),
        f"  load average before / after: {_loads(machine['load_average'])} / {_loads(results['load_average_after'])}",
        "  cpu: CPU time / wall time of this process (well below 1: other processes took the core)",
    ]
    engine = results["engine"]
    names = {
        "batched": f"batched, {engine['batch_size']} games",
        "engine_loop": "Python loop, compiled step",
        "pettingzoo_loop": "PettingZoo AEC loop",
        "openspiel": "OpenSpiel oware, pyspiel loop",
    }
    lines += [
        "",
        f"1. Engine, {engine['game']}: batched random play vs single-env Python loops vs OpenSpiel's oware",
        f"   {'contender':<32}{'plies/s':>10}{'plies/game':>12}{'cpu':>6}{'vs oware':>10}",
    ]
    for key, entry in engine["contenders"].items():
        summary = contenders[entry["contender"]]
        ratio = f"{entry['ratio_vs_openspiel']:.2f}x" if "ratio_vs_openspiel" in entry else "peer"
        lines.append(
            f"   {names[key]:<32}{rate(entry['plies_per_s']):>10}{summary['plies_per_game']:>12.1f}"
            f"{summary['cpu_share']:>6.2f}{ratio:>10}"
        )
    lines += [
        (
            f"   batched / OpenSpiel: {engine['ratio_batched_vs_openspiel']:.2f}x, "
            f"target >= {engine['target_ratio']:.0f}x: {_met(engine['target_ratio_met'])}"
        ),
        (
            f"   batched plies/s (one process): {rate(engine['batched_plies_per_s'])}, target >= "
            f"{rate(engine['target_plies_per_s'])}: {_met(engine['target_plies_met'])}"
        ),
        "",
        "2. Every game: batched random play vs the game's own PettingZoo AEC loop, plies/s",
        f"   {'game':<18}{'batched':>10}{'cpu':>6}{'AEC loop':>10}{'cpu':>6}{'ratio':>9}{'target':>8}{'met':>5}",
    ]
    for name, entry in results["games"].items():
        lines.append(
            f"   {name:<18}{rate(entry['batched_plies_per_s']):>10}{contenders[_batched(name)]['cpu_share']:>6.2f}"
            f"{rate(entry['loop_plies_per_s']):>10}{contenders[_loop(name)]['cpu_share']:>6.2f}"
            f"{entry['ratio']:>8.1f}x{'>=' + format(entry['target_ratio'], '.0f') + 'x':>8}"
            f"{_met(entry['target_met']):>5}"
        )
    peers = results["envs"]["peers"]
    lines += [
        "",
        "3. Environments: PettingZoo AEC loop, random legal play (default env() wrappers), env steps/s",
        f"   {'env':<18}{'steps/s':>10}{'us/step':>9}{'steps/ep':>10}{'cpu':>6}"
        + "".join(f"{'vs ' + peer.removesuffix('_v3'):>17}" for peer in peers),
    ]
    for name, entry in results["envs"]["envs"].items():
        cells = [
            f"{entry[f'ratio_vs_{peer}']:.2f}x" if name not in peers else "peer" if name == peer else ""
            for peer in peers
        ]
        ratios = "".join(f"{cell:>17}" for cell in cells)
        lines.append(
            f"   {name:<18}{rate(entry['steps_per_s']):>10}{entry['us_per_step']:>9.1f}"
            f"{entry['steps_per_game']:>10.1f}{entry['cpu_share']:>6.2f}{ratios}"
        )
    vector = results["vector"]
    lines += [
        "",
        (
            f"4. Vector env, {vector['num_envs']} envs, masked random learner vs the random opponent, same-step "
            "auto-reset: env steps/s"
        ),
        f"   {'game':<18}{'MancalaVectorEnv':>17}{'cpu':>6}{'make_vec sync':>15}{'cpu':>6}{'ratio':>9}",
    ]
    for name, entry in vector["games"].items():
        lines.append(
            f"   {name:<18}{rate(entry['vector']['steps_per_s']):>17}{entry['vector']['cpu_share']:>6.2f}"
            f"{rate(entry['make_vec']['steps_per_s']):>15}{entry['make_vec']['cpu_share']:>6.2f}"
            f"{entry['ratio']:>8.1f}x"
        )
    memory = results["memory"]
    at_target = memory["n_games"] == memory["target_games"]
    scaled = "" if at_target else f" (x {memory['target_games'] / memory['n_games']:g} for {memory['target_games']:,})"
    lines += [
        "",
        (
            f"5. Memory: BatchedGames({memory['game']!r}, {memory['n_games']:,}), "
            "resident size above the child's baseline"
            f" ({_megabytes(memory['baseline_rss_bytes'])})"
        ),
        f"   state_bytes_per_game {memory['state_bytes_per_game']} -> {_megabytes(memory['state_bytes'])}",
        (
            f"   after construct {_megabytes(memory['construct_bytes'])}, "
            f"after reset {_megabytes(memory['reset_bytes'])}, "
            f"after one step (outputs kept) {_megabytes(memory['step_bytes'])}, "
            f"peak so far {_megabytes(memory['setup_peak_bytes'])}"
        ),
        (
            f"   peak during play_random({memory['play_random_games']:,}): {_megabytes(memory['peak_play_bytes'])}, "
            f"after it {_megabytes(memory['after_play_bytes'])} ({memory['spilled_games_after_play']:,} games spilled)"
        ),
        (
            f"   target < {_megabytes(memory['target_bytes'])}{scaled}: after one step "
            f"{_megabytes(memory['step_bytes_at_target_games'])} {_met(memory['target_step_met'])}; peak in play "
            f"{_megabytes(memory['peak_play_bytes_at_target_games'])} {_met(memory['target_peak_met'])}"
        ),
    ]
    startup = results["startup"]
    lines += [
        "",
        (
            f"6. Start-up in a fresh interpreter, seconds: import BatchedGames, construct {startup['batch_size']} "
            f"{startup['game']} games, reset, first step"
        ),
        f"   (cold: empty NUMBA_CACHE_DIR; warm: median of {startup['warm_starts']})",
        f"   {'':<8}{'import':>8}{'construct':>11}{'reset':>8}{'1st step':>10}{'total':>8}{'process':>9}",
    ]
    for kind in ("cold", "warm"):
        timings = startup[kind]
        if timings is None:
            lines.append(f"   {kind:<8}not measured (--cold-startup)")
            continue
        lines.append(
            f"   {kind:<8}{timings['import_s']:>8.3f}{timings['construct_s']:>11.3f}{timings['reset_s']:>8.3f}"
            f"{timings['first_step_s']:>10.3f}{timings['total_s']:>8.3f}{timings['process_s']:>9.3f}"
        )
    lines += ["", f"benchmark wall time {results['benchmark_seconds']:.1f} s"]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> Args:
    """Reads :class:`Args` from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="small budgets for a smoke run, no cold start-up (about a minute)"
    )
    parser.add_argument("--repeats", type=int, help="repetitions per measure, median reported (default 5, quick 3)")
    parser.add_argument(
        "--seconds", type=float, help="time budget per contender and repetition (default 1.0, quick 0.25)"
    )
    parser.add_argument("--warm-starts", type=int, help="warm start-up runs (default 3, quick 1)")
    parser.add_argument(
        "--cold-startup",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure the cold start-up, which compiles everything (default on, off with --quick)",
    )
    parser.add_argument(
        "--memory-games", type=int, help=f"games in the memory measure's batch (default {MEMORY_TARGET_GAMES:,})"
    )
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE, help=f"games per batch (default {BATCH_SIZE})")
    parser.add_argument(
        "--num-envs", type=int, default=VECTOR_ENVS, help=f"envs per vector env (default {VECTOR_ENVS})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the samplers, batches and vector envs (default 0)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"results file (default {DEFAULT_JSON})")
    options = parser.parse_args(argv)
    return Args(
        quick=options.quick,
        repeats=options.repeats,
        seconds=options.seconds,
        warm_starts=options.warm_starts,
        cold_startup=options.cold_startup,
        memory_games=options.memory_games,
        batch_size=options.batch_size,
        num_envs=options.num_envs,
        seed=options.seed,
        json=options.json,
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Runs the benchmark, prints the tables and writes the JSON; returns the results."""
    args = parse_args(argv)
    results = run_all(args)
    write_report(results, args.json, format_table(results))
    return results


if __name__ == "__main__":
    main()
