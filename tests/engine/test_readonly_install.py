"""Read-only installs: where numba can write no cache, the package imports, plays and warns once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Every cache location numba tries (NUMBA_CACHE_DIR, the package's __pycache__ folders, the user cache
# under HOME) is tested by numba with a temporary file created in it. Refusing every such file is what
# a container image run by another user looks like, and it works for any user, root included.
READ_ONLY = r"""
import tempfile
_real = tempfile.TemporaryFile
def _refuse(*args, dir=None, **kwargs):
    if dir is not None:
        raise PermissionError(13, "Permission denied", dir)
    return _real(*args, **kwargs)
tempfile.TemporaryFile = _refuse
"""

PLAY = r"""
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import mancala_envs
    env = mancala_envs.make("kalah_v0", first_player=0)
    env.reset(seed=0)
    observation, *_ = env.last()
    env.step(int(observation["action_mask"].argmax()))
from mancala_envs.engine.jit import CACHING, CacheUnavailableWarning
print(json.dumps({
    "caching": CACHING,
    "warnings": [str(w.message) for w in caught if issubclass(w.category, CacheUnavailableWarning)],
    "board": env.unwrapped.board.tolist(),
    "stores": env.unwrapped.stores.tolist(),
    "next": env.agent_selection,
}))
"""


def _run(code: str, cache_dir: Path) -> dict:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    environment.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cache_files(cache_dir: Path) -> list[Path]:
    return [path for path in cache_dir.rglob("*") if path.suffix in (".nbi", ".nbc")]


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="numba compiles nothing without the JIT")
def test_read_only_everywhere_compiles_in_memory_with_one_warning(tmp_path: Path) -> None:
    result = _run(READ_ONLY + PLAY, tmp_path)
    assert result["caching"] is False
    assert len(result["warnings"]) == 1
    assert "NUMBA_CACHE_DIR" in result["warnings"][0] and "mancala-envs warm-up" in result["warnings"][0]
    # The game ran: Kalah's first legal action (local pit 0) sowed its 4 seeds into pits 1-4.
    assert result["board"] == [0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4]
    assert result["stores"] == [0, 0]
    assert result["next"] == "player_1"
    assert _cache_files(tmp_path) == []


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="numba compiles nothing without the JIT")
def test_writable_cache_dir_keeps_compiled_code_without_a_warning(tmp_path: Path) -> None:
    result = _run(PLAY, tmp_path)
    assert result["caching"] is True
    assert result["warnings"] == []
    assert result["board"] == [0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4]
    assert any(path.name.startswith("step") or "kalah" in path.name for path in _cache_files(tmp_path))


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="numba compiles nothing without the JIT")
def test_warm_up_command_fills_the_cache_it_is_given(tmp_path: Path) -> None:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    environment.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-m", "mancala_envs", "warm-up", "--games", "kalah", "--opponents", "random"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[0].startswith("kalah: compiled in ")
    assert f"cache: {tmp_path} (NUMBA_CACHE_DIR)" in done.stdout
    names = " ".join(path.name for path in _cache_files(tmp_path))
    # The batched games' and the vector env's kernels are there, copied for Kalah.
    assert "kalah" in names and len(_cache_files(tmp_path)) > 10


def test_warm_up_refuses_an_unknown_game() -> None:
    import mancala_envs

    with pytest.raises(ValueError, match=r"unknown game\(s\) \['chess', 3\]; use game names from \['ouril', "):
        mancala_envs.warm_up(["chess", 3])


# --- the one-time compile notice ----------------------------------------------------------------------------------
NOTICE_START = "mancala-envs: numba is compiling the game engine for its first use here"


def _stderr_of(code: str, cache_dir: Path) -> str:
    """The standard error of ``code`` run in a fresh process with ``NUMBA_CACHE_DIR=cache_dir`` (no logging set up)."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    environment.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


TWO_GAMES = r"""
import mancala_envs
for env_id in ("kalah_v0", "modiar_v0"):
    env = mancala_envs.make(env_id)
    env.reset(seed=0)
    env.step(int(env.last()[0]["action_mask"].argmax()))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="numba compiles nothing without the JIT")
def test_first_compile_is_announced_once_and_not_when_cached(tmp_path: Path) -> None:
    cold = _stderr_of(TWO_GAMES, tmp_path)
    # Two games compiled, one line said: through logging's last-resort handler, as no logging is set up.
    assert cold.count(NOTICE_START) == 1
    (line,) = [line for line in cold.splitlines() if line.startswith(NOTICE_START)]
    assert f"(kept in {tmp_path} for later processes)" in line and "mancala-envs warm-up" in line
    # The same games again: numba loads them from the cache, and nothing is said.
    assert NOTICE_START not in _stderr_of(TWO_GAMES, tmp_path)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="numba compiles nothing without the JIT")
def test_compile_notice_says_in_memory_where_nothing_can_be_cached(tmp_path: Path) -> None:
    stderr = _stderr_of(READ_ONLY + TWO_GAMES, tmp_path)
    (line,) = [line for line in stderr.splitlines() if line.startswith(NOTICE_START)]
    assert "(in memory only: numba cannot cache here, see docs/install.md)" in line


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="numba compiles nothing without the JIT")
def test_warm_up_by_any_id_compiles_quietly_and_leaves_the_notice_for_other_games(tmp_path: Path) -> None:
    code = r"""
import mancala_envs
seconds = mancala_envs.warm_up(["mancala/Kalah-v0", "mancala/kalah-6x6-v0"], opponents=("random",))
print(sorted(seconds), flush=True)
import sys; print("WARMED", file=sys.stderr, flush=True)
env = mancala_envs.make("kalah_v0")  # warmed: no compiling
env.reset(seed=0)
env = mancala_envs.make("modiar_v0")  # not warmed: the notice, once
env.reset(seed=0)
"""
    stderr = _stderr_of(code, tmp_path)
    before, after = stderr.split("WARMED\n")
    assert NOTICE_START not in before  # warm_up reports its own times instead
    assert after.count(NOTICE_START) == 1
