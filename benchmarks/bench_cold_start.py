"""Cold start of every entry point of mancala-envs, measured against Pgx's ``connect_four`` in the same run.

*Cold start* is the time a fresh Python process takes to import, make, reset and play the first step,
with an EMPTY numba cache: each cold measurement runs in a new interpreter whose ``NUMBA_CACHE_DIR``
is a new temporary directory, so numba compiles everything the entry point reaches. *Warm start* is
the same entry point in a second fresh interpreter that reuses that directory (numba loads what the
first one compiled). Each child is pinned to one core (``os.sched_setaffinity``) and times itself
with ``time.perf_counter()`` from before its first import to after its first step (interpreter
start-up is not included there; the ``process`` column, timed by this script, includes it). The
Python bytecode cache (``__pycache__``) is not cleared.

Entry points, per game (``--games``; default Ouril, Omweso, Kalah):

``pettingzoo``
    ``mancala_envs.make(game)``, ``env.reset(seed=0)``, ``env.last()`` and ``env.step`` of the first
    legal action of ``observation["action_mask"]``.
``gymnasium``
    ``gymnasium.make("mancala_envs:mancala/Ouril-v0")`` (the single-agent view), ``reset(seed=0)`` and
    ``step`` of the first legal action of ``info["action_mask"]``.
``make_vec``
    ``gymnasium.make_vec("mancala/Ouril-v0", num_envs=8)`` (its default vector entry point, the batched
    ``MancalaVectorEnv``), ``reset(seed=0)`` and ``step`` of each env's first legal action
    (``infos["action_mask"]``).
``batch``
    ``BatchedGames(game, 8)`` from ``mancala_envs.envs.batch``, ``reset(seed=0)`` and ``step`` of each game's
    first legal action (``step.action_mask``).

A game that ``mancala_envs`` does not know (Kalah, until it is registered) gets a "not available" row
for each entry point instead of stopping the run; a child that fails gets an "error" row with the
end of its stderr (and the script exits 1 after writing the report).

The peer, **Pgx** ``connect_four`` (JAX), in a fresh process with an empty persistent compilation
cache (``JAX_COMPILATION_CACHE_DIR``, a new temporary directory; every compilation is cached, so the
warm run reuses it): ``import jax, pgx``, ``pgx.make("connect_four")``, ``jax.jit(jax.vmap(env.init))``
on 1024 keys, then ``jax.jit(jax.vmap(env.step))`` with each game's first legal action
(``jnp.argmax(state.legal_action_mask, axis=-1)``) and ``jax.block_until_ready``. Every cold figure
is also given as a ratio to Pgx's cold figure of the same repetition (the median of those ratios).
Targets (issue 34): every entry point's cold start <= 4x Pgx's; warm start <= 1 s. Without ``pgx`` the peer is
skipped (with a message saying so) and no ratio is given; ``--peer-python`` runs the peer with another
interpreter (a virtualenv holding jax and pgx, which the package's own need not).

``--train`` adds the README's main job, ``mancala-envs train``: ``mancala_envs.training.trainer.train`` with
the command's defaults (MaskablePPO, 8 envs against random / greedy) in a fresh process with an
empty numba cache, timed from before the imports to the first environment step of ``model.learn``
(a callback stops training there). It needs the ``train`` extra (stable-baselines3, sb3-contrib,
torch); without it the row says so.

Repetitions (``--repeats``, default 3) go round robin: each repetition runs every row's cold and
warm start once, one row after the other, so that each ratio to Pgx is taken from runs close in
time; the medians are reported.

Usage::

    python benchmarks/bench_cold_start.py                      # all games and entry points, 3 repeats
    python benchmarks/bench_cold_start.py --repeats 1 --train  # once, plus the training job
    python benchmarks/bench_cold_start.py --quick              # Ouril's PettingZoo env and Pgx, once
    python benchmarks/bench_cold_start.py --games ouril_v0 --entry-points pettingzoo batch --out /tmp/cold.json

The markdown table goes to stdout; the JSON to ``benchmarks/results/bench_cold_start.json`` unless
``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info, write_report  # sibling script module

__all__ = [
    "ENTRY_POINTS",
    "GAMES",
    "PEER",
    "Args",
    "format_table",
    "gymnasium_id",
    "main",
    "measure",
    "parse_args",
    "peer_missing",
    "probe_registry",
    "run_benchmark",
    "run_child",
    "train_missing",
]

#: The games measured by default (their plain ids, as ``mancala_envs.make`` takes them).
GAMES = ("ouril_v0", "omweso_v0", "kalah_v0")
#: The entry points measured for every game, in the order of the table.
ENTRY_POINTS = ("pettingzoo", "gymnasium", "make_vec", "batch")
#: The row of ``mancala-envs train`` (``--train``).
TRAIN = "train"
#: The game ``mancala-envs train`` trains on by default (``--game ouril``).
TRAIN_GAME = "ouril_v0"
PEER = "pgx/connect_four"
PEER_MODULES = ("jax", "pgx")
TRAIN_MODULES = ("stable_baselines3", "sb3_contrib", "torch")
NOT_AVAILABLE = "not available"

TARGET_RATIO_VS_PEER = 4.0
TARGET_WARM_S = 1.0
#: Envs of the ``make_vec`` env and games of the ``BatchedGames`` batch.
NUM_ENVS = 8
#: Games of Pgx's vmapped batch.
PEER_BATCH = 1024
#: Seconds one child may take before it is stopped and its row marked "error".
CHILD_TIMEOUT_S = 1800.0

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "bench_cold_start.json"
#: Timing fields every child reports (seconds); ``None`` where the entry point has no such phase.
PHASES = ("import_s", "make_s", "reset_s", "first_step_s", "total_s")

ENTRY_POINT_TITLES = {
    "pettingzoo": "PettingZoo `mancala_envs.make`",
    "gymnasium": "Gymnasium `gymnasium.make`",
    "make_vec": f"Gymnasium `make_vec`, {NUM_ENVS} envs",
    "batch": f"`BatchedGames`, {NUM_ENVS} games",
    TRAIN: "`mancala-envs train` to 1st step",
}


@dataclass
class Args:
    """Options of the benchmark run."""

    games: tuple[str, ...] | None = None
    """Games to measure (default :data:`GAMES`; ``--quick``: the first of them)."""
    entry_points: tuple[str, ...] | None = None
    """Entry points to measure (default :data:`ENTRY_POINTS`; ``--quick``: ``pettingzoo``)."""
    repeats: int | None = None
    """Cold + warm starts per row; the median is reported (default 3; ``--quick``: 1)."""
    quick: bool = False
    """A smoke run: the first game's PettingZoo env and the peer, once."""
    peer: bool = True
    """Measure Pgx's connect_four (skipped with a message when pgx is not installed)."""
    train: bool = False
    """Also measure ``mancala-envs train`` up to its first training step (needs the train extra)."""
    train_game: str = TRAIN_GAME
    """The game of the training row."""
    num_envs: int = NUM_ENVS
    """Envs of ``make_vec`` and games of ``BatchedGames``."""
    peer_batch: int = PEER_BATCH
    """Games of Pgx's vmapped batch."""
    cpu: int | None = None
    """The core every child is pinned to (default: the first this process may use; -1: no pinning)."""
    timeout: float = CHILD_TIMEOUT_S
    """Seconds a child may take."""
    out: Path = DEFAULT_OUT
    """Where the JSON results are written."""
    child_env: dict[str, str] = field(default_factory=dict)
    """Extra environment variables for every child (not a command-line option)."""
    peer_python: str | None = None
    """The interpreter of Pgx's child (default: this one), e.g. a virtualenv holding jax and pgx."""

    def resolved(self) -> Args:
        """A copy with the defaults filled in (quick or full)."""
        games = self.games or (GAMES[:1] if self.quick else GAMES)
        entry_points = self.entry_points or (("pettingzoo",) if self.quick else ENTRY_POINTS)
        repeats = self.repeats if self.repeats is not None else (1 if self.quick else 3)
        cpu = self.cpu
        if cpu is None:
            cpu = min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else -1
        return Args(
            **(
                asdict(self)
                | {"games": tuple(games), "entry_points": tuple(entry_points), "repeats": repeats, "cpu": cpu}
            )
        )


# --- the children ----------------------------------------------------------------------------------------------

#: Pins the child, starts the clock; every snippet ends by printing ``marks`` as JSON.
_PRELUDE = """
import json, os, sys, time
clock = time.perf_counter
_cpu = int(sys.argv[1])
if _cpu >= 0 and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {_cpu})
ARG = sys.argv[2]
N = int(sys.argv[3])
marks = {"pinned_cpus": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None}
t0 = clock()
"""

_EPILOGUE = """
def _span(start, end):
    return None if start is None or end is None else end - start
marks |= {"import_s": _span(t0, t1), "make_s": _span(t1, t2), "reset_s": _span(t2, t3),
          "first_step_s": _span(t2 if t3 is None else t3, t4), "total_s": t4 - t0}
print(json.dumps(marks))
"""

_SNIPPETS = {
    "pettingzoo": """
import mancala_envs
t1 = clock()
env = mancala_envs.make(ARG)
t2 = clock()
env.reset(seed=0)
t3 = clock()
observation, *_ = env.last()
env.step(int(observation["action_mask"].argmax()))  # the first legal action
t4 = clock()
""",
    "gymnasium": """
import gymnasium
t1 = clock()
env = gymnasium.make("mancala_envs:" + ARG)
t2 = clock()
observation, info = env.reset(seed=0)
t3 = clock()
env.step(int(info["action_mask"].argmax()))  # the first legal action
t4 = clock()
marks["env"] = type(env.unwrapped).__name__
""",
    "make_vec": """
import gymnasium, mancala_envs
t1 = clock()
envs = gymnasium.make_vec(ARG, num_envs=N)
t2 = clock()
observations, infos = envs.reset(seed=0)
t3 = clock()
envs.step(infos["action_mask"].argmax(axis=1))  # each env's first legal action
t4 = clock()
marks["env"] = type(envs).__name__
""",
    "batch": """
from mancala_envs.envs.batch import BatchedGames
t1 = clock()
games = BatchedGames(ARG, N)
t2 = clock()
step = games.reset(seed=0)
t3 = clock()
games.step(step.action_mask.argmax(axis=1))  # each game's first legal action
t4 = clock()
""",
    # ARG: "game|model path"; the defaults of `mancala-envs train` (TrainConfig's), no progress bar, no
    # evaluation; a callback stops learn() at its first environment step.
    TRAIN: """
import mancala_envs
from mancala_envs.training import trainer as training
import sb3_contrib
from stable_baselines3.common.callbacks import BaseCallback
t1 = clock()
_game, _path = ARG.split("|", 1)

class _FirstStep(BaseCallback):
    def _on_training_start(self):
        marks["learn_start"] = clock()

    def _on_step(self):
        marks.setdefault("first_step", clock())
        return False

config = training.TrainConfig(game=_game, n_envs=N, save_path=_path, progress_bar=False, eval_games=0)
result = training.train(config, callbacks=[_FirstStep()])
t2 = marks.pop("learn_start")
t3 = None
t4 = marks.pop("first_step")
marks["compile_s"] = result.compile_seconds
""",
    # ARG: the Pgx env id, N: the batch.
    PEER: """
try:
    import jax
    import jax.numpy as jnp
    import pgx
except ImportError as error:
    print(json.dumps({"unavailable": f"{type(error).__name__}: {error}"}))
    sys.exit(0)
t1 = clock()
env = pgx.make(ARG)
init = jax.jit(jax.vmap(env.init))
step = jax.jit(jax.vmap(env.step))
t2 = clock()
keys = jax.random.split(jax.random.PRNGKey(0), N)
state = jax.block_until_ready(init(keys))
t3 = clock()
state = step(state, jnp.argmax(state.legal_action_mask, axis=-1))  # each game's first legal action
jax.block_until_ready(state)
t4 = clock()
marks["devices"] = [str(device) for device in jax.devices()]
""",
}


def _script(kind: str) -> str:
    return _PRELUDE + _SNIPPETS[kind] + _EPILOGUE


def run_child(
    kind: str, arg: str, n: int, cpu: int, environment: dict[str, str], timeout: float, python: str | None = None
) -> dict[str, Any]:
    """Runs the snippet of ``kind`` in a fresh interpreter (``python -c``, by default ``sys.executable``) with
    ``environment`` added to this process's.

    Returns:
        The child's JSON (its :data:`PHASES` and extras) and ``process_s``, the child's whole wall time
        as seen from here; or ``{"error": ..., "stderr": ...}`` (a non-zero exit, no JSON or a timeout: the
        last line of the child's stderr, and its last lines); or ``{"unavailable": ...}`` when the child
        could not import what it measures.
    """
    command = [python or sys.executable, "-c", _script(kind), str(cpu), arg, str(n)]
    start = time.perf_counter()
    try:
        child = subprocess.run(
            command, env=dict(os.environ, **environment), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as expired:
        stderr = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else expired.stderr
        return {"error": f"timed out after {timeout:.0f} s", "stderr": _tail(stderr or "")}
    process = time.perf_counter() - start
    lines = child.stdout.strip().splitlines()
    if child.returncode != 0 or not lines:
        return {"error": f"exit {child.returncode}: {_tail(child.stderr, 1)}", "stderr": _tail(child.stderr)}
    try:
        result = json.loads(lines[-1])
    except json.JSONDecodeError:
        return {"error": f"no JSON on the last line of stdout: {lines[-1][:300]!r}"}
    return result if "unavailable" in result else result | {"process_s": process}


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:]) or "(no stderr)"


# --- availability --------------------------------------------------------------------------------------------


def gymnasium_id(game: str) -> str:
    """The Gymnasium id of a plain game id, as ``mancala_envs`` registers it: ``"rio_kadalis_v0"`` ->
    ``"mancala/RioKadalis-v0"``; an id that already has a namespace is returned as is."""
    if "/" in game:
        return game
    match = re.fullmatch(r"(.+?)[_-]v(\d+)", game)
    stem, version = (match.group(1), match.group(2)) if match else (game, "0")
    return f"mancala/{''.join(part.capitalize() for part in re.split(r'[_-]', stem))}-v{version}"


_PROBE = """
import json
import mancala_envs
print(json.dumps({"envs": list(mancala_envs.list_envs()), "gymnasium": list(mancala_envs.list_gymnasium_envs())}))
"""


def probe_registry(timeout: float = 300.0) -> dict[str, Any]:
    """What ``mancala_envs`` registers, read in a fresh interpreter (untimed, this process never imports it).

    Returns:
        ``{"envs": [...], "gymnasium": [...]}`` or ``{"error": ...}`` when ``mancala_envs`` does not import.
    """
    try:
        child = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return {"error": f"importing mancala_envs timed out after {timeout:.0f} s"}
    if child.returncode != 0:
        return {"error": f"mancala_envs does not import (exit {child.returncode}): {_tail(child.stderr, 1)}"}
    return json.loads(child.stdout.strip().splitlines()[-1])


def _unavailable_reason(entry_point: str, game: str, registry: dict[str, Any]) -> str | None:
    if "error" in registry:
        return registry["error"]
    if game not in registry["envs"]:
        return f"{game!r} is not registered: mancala_envs.make does not know it"
    if entry_point in ("gymnasium", "make_vec") and gymnasium_id(game) not in registry["gymnasium"]:
        return f"{gymnasium_id(game)!r} is not registered with Gymnasium"
    return None


def _missing(modules: tuple[str, ...]) -> list[str]:
    missing = []
    for name in modules:
        try:
            if find_spec(name) is None:
                missing.append(name)
        except (ImportError, ValueError):
            missing.append(name)
    return missing


def peer_missing(python: str | None = None) -> str | None:
    """``None`` when jax and pgx can be found (by ``python``, by default this interpreter), else the message of
    the skipped peer row."""
    if python is not None:
        probe = f"import importlib.util as u; print(' '.join(m for m in {PEER_MODULES!r} if u.find_spec(m) is None))"
        found = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
        missing = found.stdout.split() if found.returncode == 0 else list(PEER_MODULES)
    else:
        missing = _missing(PEER_MODULES)
    if not missing:
        return None
    return (
        f"Pgx peer skipped: {' and '.join(missing)} not installed, so no ratio to Pgx is given; "
        'install the peer with `pip install pgx "jax[cpu]"`.'
    )


def train_missing() -> str | None:
    """``None`` when the train extra can be found, else the message of the skipped training row."""
    missing = _missing(TRAIN_MODULES)
    if not missing:
        return None
    return f"needs the train extra ({', '.join(missing)} not installed): pip install -e '.[train]'"


# --- measuring -----------------------------------------------------------------------------------------------


@dataclass
class _Row:
    """One row of the table while it is measured."""

    entry_point: str
    game: str
    target: str  # what the child gets as ARG
    n: int
    status: str = "ok"
    message: str | None = None
    stderr: str | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)


def _cold_and_warm(
    kind: str, arg: str, n: int, args: Args, cache_variable: str, extra: dict[str, str] | None = None
) -> dict[str, Any]:
    """One cold start into a new, empty cache directory (``cache_variable``) and one warm start reusing it."""
    cache_dir = tempfile.mkdtemp(prefix="mancala-cold-start-")
    environment = dict(args.child_env) | dict(extra or {}) | {cache_variable: cache_dir}
    work_dir = None
    if kind == TRAIN:
        work_dir = tempfile.mkdtemp(prefix="mancala-cold-start-model-")
    try:
        run: dict[str, Any] = {}
        for which in ("cold", "warm"):
            child_arg = f"{arg}|{Path(work_dir, f'{which}.zip')}" if work_dir else arg
            other = {"python": args.peer_python} if kind == PEER and args.peer_python else {}
            run[which] = run_child(kind, child_arg, n, args.cpu, environment, args.timeout, **other)
            if "error" in run[which] or "unavailable" in run[which]:
                break
            run[f"cache_files_after_{which}"] = sum(1 for path in Path(cache_dir).rglob("*") if path.is_file())
        run["cache_bytes"] = sum(path.stat().st_size for path in Path(cache_dir).rglob("*") if path.is_file())
        # A warm start that adds files compiled again: the sources changed between the two runs, or the
        # cache missed something (numba keys its cache on each source file's path and modification time).
        run["warm_recompiled"] = run.get("cache_files_after_warm", 0) > run.get("cache_files_after_cold", 0)
        return run
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
        if work_dir:
            shutil.rmtree(work_dir, ignore_errors=True)


#: Environment of the peer's children: its persistent compilation cache keeps every compilation, so
#: the warm run is comparable to numba's (JAX's defaults keep only compilations over 1 s); CPU only,
#: as the mancala engine.
PEER_ENVIRONMENT = {
    "JAX_PLATFORMS": "cpu",
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    "TF_CPP_MIN_LOG_LEVEL": "2",
}


def _measure_row(row: _Row, args: Args) -> None:
    if row.status != "ok":
        return
    kind = row.entry_point
    extra = PEER_ENVIRONMENT if kind == PEER else None
    variable = "JAX_COMPILATION_CACHE_DIR" if kind == PEER else "NUMBA_CACHE_DIR"
    run = _cold_and_warm(kind, row.target, row.n, args, variable, extra)
    for which in ("cold", "warm"):
        outcome = run.get(which, {})
        if "unavailable" in outcome:
            row.status = NOT_AVAILABLE
            if kind == PEER:
                row.message = (
                    f"Pgx peer skipped: it does not import ({outcome['unavailable']}), so no ratio to "
                    'Pgx is given; install it with `pip install pgx "jax[cpu]"`.'
                )
            else:
                row.message = outcome["unavailable"]
            return
        if "error" in outcome:
            row.status = "error"
            row.message = f"{which} start failed: {outcome['error']}"
            row.stderr = outcome.get("stderr")
            return
    row.runs.append(run)


def _median(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def _summary(row: _Row, peer_runs: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The JSON of one row: medians of every phase, the ratio to Pgx and the targets."""
    out: dict[str, Any] = {
        "entry_point": row.entry_point,
        "game": row.game,
        "id": row.target.split("|")[0],
        "status": row.status,
        "message": row.message,
    }
    if row.entry_point in ("make_vec", "batch", TRAIN):
        out["num_envs"] = row.n
    if row.entry_point == PEER:
        out["batch"] = row.n
    if row.stderr is not None:
        out["stderr"] = row.stderr
    if row.status != "ok":
        return out
    for which in ("cold", "warm"):
        keys = [
            key
            for key in row.runs[0][which]
            if isinstance(row.runs[0][which][key], (int, float, type(None)))
            and not isinstance(row.runs[0][which][key], bool)
        ]
        out[which] = {key: _median([run[which].get(key) for run in row.runs]) for key in keys}
        extras = {key: value for key, value in row.runs[0][which].items() if key not in out[which]}
        out[which] |= extras
    out["cold_s"] = out["cold"]["total_s"]
    out["warm_s"] = out["warm"]["total_s"]
    out["cache_bytes"] = _median([run["cache_bytes"] for run in row.runs])
    out["warm_recompiled"] = sum(run["warm_recompiled"] for run in row.runs)
    out["runs"] = row.runs
    out["target_warm_s"] = TARGET_WARM_S
    out["target_warm_met"] = out["warm_s"] <= TARGET_WARM_S
    if row.entry_point != PEER:
        if peer_runs:
            ratios = [
                run["cold"]["total_s"] / peer["cold"]["total_s"] for run, peer in zip(row.runs, peer_runs, strict=True)
            ]
            warm_ratios = [
                run["warm"]["total_s"] / peer["warm"]["total_s"] for run, peer in zip(row.runs, peer_runs, strict=True)
            ]
            out |= {
                "ratio_vs_pgx": statistics.median(ratios),
                "ratios_vs_pgx": ratios,
                "warm_ratio_vs_pgx": statistics.median(warm_ratios),
                "target_ratio": TARGET_RATIO_VS_PEER,
                "target_ratio_met": statistics.median(ratios) <= TARGET_RATIO_VS_PEER,
            }
        else:
            out |= {
                "ratio_vs_pgx": None,
                "ratios_vs_pgx": None,
                "warm_ratio_vs_pgx": None,
                "target_ratio": TARGET_RATIO_VS_PEER,
                "target_ratio_met": None,
            }
    return out


def measure(args: Args) -> dict[str, Any]:
    """Measures every row of ``args`` (resolved) and returns the ``peer``, ``rows`` and ``train`` results."""
    args = args.resolved()
    unknown = sorted(set(args.entry_points) - set(ENTRY_POINTS))
    if unknown:
        raise ValueError(f"unknown entry points {unknown}; choose from {list(ENTRY_POINTS)}.")
    if args.repeats < 1 or args.num_envs < 1 or args.peer_batch < 1:
        raise ValueError(
            f"--repeats, --num-envs and --peer-batch must be >= 1 (got {args.repeats}, "
            f"{args.num_envs}, {args.peer_batch})."
        )
    registry = probe_registry()
    peer = _Row(PEER, "connect_four", "connect_four", args.peer_batch)
    if not args.peer:
        peer.status, peer.message = NOT_AVAILABLE, "Pgx peer skipped (--no-peer), so no ratio to Pgx is given"
    elif (reason := peer_missing(args.peer_python) if args.peer_python else peer_missing()) is not None:
        peer.status, peer.message = NOT_AVAILABLE, reason
    rows: list[_Row] = []
    for game in args.games:
        for entry_point in args.entry_points:
            target = gymnasium_id(game) if entry_point in ("gymnasium", "make_vec") else game
            row = _Row(entry_point, game, target, args.num_envs)
            if (reason := _unavailable_reason(entry_point, game, registry)) is not None:
                row.status, row.message = ("error" if "error" in registry else NOT_AVAILABLE), reason
            rows.append(row)
    train = None
    if args.train:
        train = _Row(TRAIN, args.train_game, args.train_game, args.num_envs)
        if (reason := train_missing()) is not None:
            train.status, train.message = NOT_AVAILABLE, reason
        elif (reason := _unavailable_reason(TRAIN, args.train_game, registry)) is not None:
            train.status, train.message = ("error" if "error" in registry else NOT_AVAILABLE), reason
    everything = [peer, *rows, *([train] if train else [])]
    reported: set[int] = set()
    for repeat in range(args.repeats):
        for index, row in enumerate(everything):
            _measure_row(row, args)
            if row.status == "ok":
                print(
                    f"  [{repeat + 1}/{args.repeats}] {row.entry_point:<17}{row.game:<14}"
                    f"cold {row.runs[-1]['cold']['total_s']:7.2f} s  warm {row.runs[-1]['warm']['total_s']:6.2f} s",
                    file=sys.stderr,
                    flush=True,
                )
            elif index not in reported:
                reported.add(index)
                print(f"  {row.entry_point:<17}{row.game:<14}{row.status}: {row.message}", file=sys.stderr, flush=True)
                if row.stderr:
                    print("    " + row.stderr.replace("\n", "\n    "), file=sys.stderr, flush=True)
    peer_runs = peer.runs if peer.status == "ok" else None
    return {
        "registry": registry,
        "peer": _summary(peer, None),
        "rows": [_summary(row, peer_runs) for row in rows],
        "train": _summary(train, peer_runs) if train else None,
    }


def _versions() -> dict[str, str | None]:
    versions = {}
    for distribution in ("jax", "jaxlib", "pgx", "torch", "stable-baselines3", "sb3-contrib"):
        try:
            versions[distribution] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[distribution] = None
    return versions


def run_benchmark(args: Args) -> dict[str, Any]:
    """Runs the benchmark and returns the JSON-ready results (machine, settings, peer, rows, train, targets)."""
    args = args.resolved()
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": machine_info() | _versions(),
        "settings": json.loads(json.dumps(asdict(args), default=str)),  # tuples as lists, the path as text
        "targets": {"cold_ratio_vs_pgx": TARGET_RATIO_VS_PEER, "warm_s": TARGET_WARM_S},
    }
    results |= measure(args)
    results["benchmark_seconds"] = time.perf_counter() - started
    results["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return results


# --- report ------------------------------------------------------------------------------------------------


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _met(flag: bool | None) -> str:
    return "—" if flag is None else ("yes" if flag else "NO")


def _phases(timings: dict[str, Any]) -> str:
    return " / ".join(_seconds(timings.get(key)) for key in ("import_s", "make_s", "reset_s", "first_step_s"))


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def format_table(results: dict[str, Any]) -> str:
    """Renders the results as the markdown table the script prints."""
    machine, settings = results["machine"], results["settings"]
    pinned = "not pinned" if settings["cpu"] < 0 else f"pinned to CPU {settings['cpu']}"
    lines = [
        "## mancala-envs cold start",
        "",
        (
            f"Machine: {machine['cpu_count']} CPUs, {machine['cpu_model']}, {machine['platform']}; python "
            f"{machine['python']}, numba {machine['numba']}, numpy {machine['numpy']}, "
            f"gymnasium {machine['gymnasium']}, "
            f"jax {machine['jax']}, pgx {machine['pgx']}; mancala-envs {machine['mancala_envs']} "
            f"({machine['git_commit']})."
        ),
        (
            f"Each figure: median of {settings['repeats']}, a fresh interpreter {pinned}, timed inside it from before "
            "the first import to after the first step. Cold: empty `NUMBA_CACHE_DIR` (Pgx: empty "
            "`JAX_COMPILATION_CACHE_DIR`); warm: a second process reusing that cache. Targets: cold <= "
            f"{TARGET_RATIO_VS_PEER:g}x Pgx, warm <= {TARGET_WARM_S:g} s."
        ),
        "",
        _line(
            [
                "entry point",
                "game",
                "cold s",
                "warm s",
                "cold / Pgx",
                f"<= {TARGET_RATIO_VS_PEER:g}x Pgx",
                f"warm <= {TARGET_WARM_S:g} s",
                "cold: import / make / reset / 1st step",
                "process s (cold)",
            ]
        ),
        _line(["---", "---", "---:", "---:", "---:", ":---:", ":---:", "---", "---:"]),
    ]
    peer = results["peer"]
    peer_name = f"Pgx `connect_four`, {peer['batch']} games (peer)"
    rows = [(peer_name, peer)] + [(ENTRY_POINT_TITLES[row["entry_point"]], row) for row in results["rows"]]
    if results.get("train"):
        rows.append((ENTRY_POINT_TITLES[TRAIN], results["train"]))
    for title, row in rows:
        game = row["game"]
        if row["status"] != "ok":
            lines.append(
                _line(
                    [
                        title,
                        game,
                        f"{row['status']}: {row['message']}".replace("|", "/").replace("\n", " "),
                        "—",
                        "—",
                        "—",
                        "—",
                        "—",
                        "—",
                    ]
                )
            )
            continue
        is_peer = row["entry_point"] == PEER
        ratio = "1.00x" if is_peer else ("—" if row["ratio_vs_pgx"] is None else f"{row['ratio_vs_pgx']:.2f}x")
        lines.append(
            _line(
                [
                    title,
                    game,
                    _seconds(row["cold_s"]),
                    _seconds(row["warm_s"]),
                    ratio,
                    "peer" if is_peer else _met(row["target_ratio_met"]),
                    "—" if is_peer else _met(row["target_warm_met"]),
                    _phases(row["cold"]),
                    _seconds(row["cold"].get("process_s")),
                ]
            )
        )
    if peer["status"] != "ok":
        lines += ["", f"Note: {peer['message']}"]
    recompiled = [
        f"{ENTRY_POINT_TITLES.get(row['entry_point'], row['entry_point'])} {row['game']}"
        for _, row in rows
        if row.get("warm_recompiled")
    ]
    if recompiled:
        lines += [
            "",
            (
                f"Warning: the warm start compiled again (new cache files) for {', '.join(recompiled)}: the "
                "sources changed during the run, or the numba cache missed something; their warm figures "
                "are not warm starts."
            ),
        ]
    if results.get("train") and results["train"]["status"] == "ok":
        train = results["train"]
        lines += [
            "",
            (
                f"`mancala-envs train` row: {train['num_envs']} envs, MaskablePPO; make = imports done to "
                f"`learn` start (of which the engine warm-up {train['cold']['compile_s']:.2f} s cold, "
                f"{train['warm']['compile_s']:.2f} s warm); 1st step = `learn` start to its first env step."
            ),
        ]
    lines += ["", f"Benchmark wall time {results['benchmark_seconds']:.1f} s."]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> Args:
    """Reads :class:`Args` from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", nargs="+", metavar="GAME", help=f"games to measure (default: {' '.join(GAMES)}; --quick: the first)"
    )
    parser.add_argument(
        "--entry-points",
        nargs="+",
        choices=ENTRY_POINTS,
        metavar="ENTRY_POINT",
        help=f"entry points to measure, of {', '.join(ENTRY_POINTS)} (default: all; --quick: pettingzoo)",
    )
    parser.add_argument(
        "--repeats", type=int, help="cold + warm starts per row, median reported (default 3, --quick 1)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: the first game's PettingZoo env and the Pgx peer, once"
    )
    parser.add_argument(
        "--peer",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="measure Pgx's connect_four (default on; skipped with a message without pgx)",
    )
    parser.add_argument(
        "--peer-python",
        default=None,
        help="the interpreter of Pgx's child (default: this one), e.g. a virtualenv's python holding jax and pgx",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="also time `mancala-envs train` to its first training step (needs the train extra)",
    )
    parser.add_argument("--train-game", default=TRAIN_GAME, help=f"the training row's game (default {TRAIN_GAME})")
    parser.add_argument(
        "--num-envs",
        type=int,
        default=NUM_ENVS,
        help=f"envs of make_vec and games of BatchedGames (default {NUM_ENVS})",
    )
    parser.add_argument(
        "--peer-batch", type=int, default=PEER_BATCH, help=f"games of Pgx's vmapped batch (default {PEER_BATCH})"
    )
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="core each child is pinned to (default: the first usable one; -1: no pinning)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=CHILD_TIMEOUT_S,
        help=f"seconds one child may take (default {CHILD_TIMEOUT_S:.0f})",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results file (default {DEFAULT_OUT})")
    options = parser.parse_args(argv)
    return Args(
        games=tuple(options.games) if options.games else None,
        entry_points=tuple(options.entry_points) if options.entry_points else None,
        repeats=options.repeats,
        quick=options.quick,
        peer=options.peer,
        peer_python=options.peer_python,
        train=options.train,
        train_game=options.train_game,
        num_envs=options.num_envs,
        peer_batch=options.peer_batch,
        cpu=options.cpu,
        timeout=options.timeout,
        out=options.out,
    )


def _failed(results: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [results["peer"], *results["rows"], *([results["train"]] if results.get("train") else [])]
    return [row for row in rows if row["status"] == "error"]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Runs the benchmark, prints the table and writes the JSON; returns the results."""
    args = parse_args(argv)
    results = run_benchmark(args)
    write_report(results, args.resolved().out, format_table(results))
    return results


if __name__ == "__main__":
    sys.exit(1 if _failed(main()) else 0)
