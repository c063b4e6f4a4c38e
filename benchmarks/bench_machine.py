"""Machine facts recorded next to every benchmark's figures (CPU, versions, commit, load).

Shared by the scripts of ``benchmarks/``; each adds this directory to ``sys.path`` to import it.
"""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["machine_info", "rate"]


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str | None:
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty else "")


#: Environment variables that change the figures, recorded when set.
_REPORTED_VARIABLES = (
    "NUMBA_CACHE_DIR",
    "NUMBA_DISABLE_JIT",
    "NUMBA_NUM_THREADS",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONOPTIMIZE",
)


def machine_info() -> dict[str, Any]:
    """Returns the CPU, interpreter and library versions the figures were measured with."""
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu_count": os.cpu_count(),
        "cpus_usable": affinity,
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "pettingzoo": _version("pettingzoo"),
        "gymnasium": _version("gymnasium"),
        "pygame_ce": _version("pygame-ce"),
        "mancala_envs": _version("mancala-envs"),
        "git_commit": _git_commit(),
        "environment": {key: os.environ[key] for key in _REPORTED_VARIABLES if key in os.environ},
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def write_report(results: dict[str, Any], json_path: Path, table: str) -> None:
    """Writes ``results`` as JSON to ``json_path`` (creating its folder); prints ``table`` and where the JSON went."""
    import json

    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table)
    print(f"results written to {json_path}")


def rate(value: float) -> str:
    """A rate for the report tables: ``1.23M``, ``45.6k`` or ``789``."""
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"
