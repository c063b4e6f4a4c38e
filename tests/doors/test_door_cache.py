"""The compiled cache as a door: damaged entries are compiled again, and a failed write is not fatal.

numba's own cache reader unpickles its ``*.nbi`` (index) and ``*.nbc`` (data) files as they are, so a
damaged file made every use of the package fail (``EOFError``, ``UnpicklingError``, an LLVM error), and
a full disk failed the first compile. ``mancala_envs.engine.jit`` seals every cache file with its
SHA-256 digest and recovers. Each case runs in fresh processes with ``NUMBA_CACHE_DIR`` set to a
folder of its own: fill the cache, damage it, run again (exit 0, right results, exactly one warning
naming the folder), then run once more (no warning, loaded from the cache).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

#: a module of small compiled functions: one compiled at its first call, one at import (a signature)
PROBE = r"""
from mancala_envs.engine.jit import njit


@njit(cache=True)
def triangle(n):
    total = 0
    for i in range(n + 1):
        total += i
    return total


@njit("int64(int64)", cache=True)
def double(n):
    return 2 * n
"""

#: runs the probe (``PATCH`` first) and prints what the test checks, as JSON on the last line of stdout
RUN_PROBE = r"""
import json, sys, warnings
{patch}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import probe
    result = [probe.triangle(10), probe.double(21)]
print(json.dumps({{
    "result": result,
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    "hits": sum(probe.triangle.stats.cache_hits.values()) + sum(probe.double.stats.cache_hits.values()),
}}))
"""

#: the same through the engine of one game: a Kalah env's reset and first move
RUN_KALAH = r"""
import json, warnings
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, event_):
        compiled.append(event_.data["dispatcher"].py_func.__qualname__)
    def on_end(self, event_):
        pass
event.register("numba:compile", Count())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import mancala_envs
    env = mancala_envs.make("kalah_v0", first_player=0)
    env.reset(seed=0)
    env.step(0)
    result = [env.unwrapped.board.tolist(), env.agent_selection]
print(json.dumps({
    "result": result,
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    "compiled": len(compiled),
}))
"""

#: every write into the cache folder fails with ``errno`` (a full disk, a folder made read-only)
FAILING_WRITES = r"""
import builtins, errno, os
_open = builtins.open
def _failing_open(file, mode="r", *args, **kwargs):
    if any(flag in mode for flag in "wax") and str(file).startswith(os.environ["NUMBA_CACHE_DIR"]):
        raise OSError(errno.{name}, os.strerror(errno.{name}), str(file))
    return _open(file, mode, *args, **kwargs)
builtins.open = _failing_open
"""


def run(code: str, cache: Path, source: Path) -> dict:
    """Runs ``code`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache``; checks it exits 0 and prints nothing
    else on stdout; returns what it printed."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(source), "MANCALA_ENVS_QUIET": "1"}
    environment.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def cache_files(cache: Path, pattern: str) -> list[Path]:
    return sorted(path for path in cache.rglob(pattern))


# --- damages -----------------------------------------------------------------------------------------------------
def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def zero_length(path: Path) -> None:
    path.write_bytes(b"")


def random_bytes(path: Path) -> None:
    size = path.stat().st_size
    path.write_bytes(bytes((index * 193 + 71) % 256 for index in range(size)))


def flip_middle_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


def flip_first_byte_after_header(path: Path) -> None:
    """One bit of the digest itself (a data file starts with a 21-byte marker, then the digest)."""
    data = bytearray(path.read_bytes())
    data[25] ^= 0x01
    path.write_bytes(bytes(data))


def flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x80
    path.write_bytes(bytes(data))


def directory_in_place(path: Path) -> None:
    path.unlink()
    path.mkdir()


def other_functions_entry(path: Path) -> None:
    """The other probe function's (valid, sealed) file copied over this one: it would load as wrong code."""
    other = "double" if "triangle" in path.name else "triangle"
    (source,) = [
        candidate for candidate in path.parent.iterdir() if other in candidate.name and candidate.suffix == path.suffix
    ]
    path.write_bytes(source.read_bytes())


@dataclass(frozen=True)
class Damage:
    name: str
    files: str  # which of the probe's cache files: a glob
    damage: Callable[[Path], None]


DAMAGES = [
    Damage("truncated index", "probe.triangle-*.nbi", truncate),
    Damage("truncated data", "probe.triangle-*.nbc", truncate),
    Damage("zero-length index", "probe.triangle-*.nbi", zero_length),
    Damage("zero-length data", "probe.double-*.nbc", zero_length),
    Damage("random bytes in the index", "probe.double-*.nbi", random_bytes),
    Damage("random bytes in the data", "probe.triangle-*.nbc", random_bytes),
    Damage("one flipped byte in the index", "probe.triangle-*.nbi", flip_middle_byte),
    Damage("one flipped byte in the machine code", "probe.triangle-*.nbc", flip_middle_byte),
    Damage("one flipped bit of the digest", "probe.double-*.nbc", flip_first_byte_after_header),
    Damage("the last byte flipped", "probe.double-*.nbc", flip_last_byte),
    Damage("a folder in place of the index", "probe.triangle-*.nbi", directory_in_place),
    Damage("a folder in place of the data", "probe.double-*.nbc", directory_in_place),
    Damage("another function's data copied over", "probe.triangle-*.nbc", other_functions_entry),
    Damage("every file of both functions truncated", "probe.*.nb?", truncate),
]


@pytest.mark.parametrize("case", DAMAGES, ids=[case.name for case in DAMAGES])
def test_a_damaged_entry_is_compiled_again_with_one_warning(case: Damage, tmp_path: Path) -> None:
    source, cache = tmp_path / "source", tmp_path / "cache"
    source.mkdir()
    (source / "probe.py").write_text(PROBE, encoding="utf-8")
    first = run(RUN_PROBE.format(patch=""), cache, source)
    assert first == {"result": [55, 42], "warnings": [], "hits": 0}

    targets = cache_files(cache, case.files)
    assert targets, f"no cache file matches {case.files}"
    for path in targets:
        case.damage(path)
    damaged = run(RUN_PROBE.format(patch=""), cache, source)
    assert damaged["result"] == [55, 42]
    assert len(damaged["warnings"]) == 1, damaged["warnings"]
    category, message = damaged["warnings"][0]
    assert category == "CacheDamagedWarning"
    folder = str(targets[0].parent)
    assert f"numba's compiled cache in {folder} had a damaged entry (" in message
    assert any(f"had a damaged entry ({path.name}: " in message for path in targets), message
    assert f"delete the *.nbi and *.nbc files in {folder}" in message
    assert not [path for path in cache.rglob("*") if path.is_dir() and path.suffix in (".nbi", ".nbc")]

    again = run(RUN_PROBE.format(patch=""), cache, source)
    assert again == {"result": [55, 42], "warnings": [], "hits": 2}


def test_an_index_written_by_plain_numba_is_replaced_quietly(tmp_path: Path) -> None:
    """A cache filled before the digests (numba's own format) is compiled again and rewritten, without a warning:
    it is not damaged, only older."""
    source, cache = tmp_path / "source", tmp_path / "cache"
    source.mkdir()
    plain = PROBE.replace("from mancala_envs.engine.jit import njit", "from numba import njit")
    (source / "probe.py").write_text(plain, encoding="utf-8")
    assert run(RUN_PROBE.format(patch=""), cache, source)["warnings"] == []
    (source / "probe.py").write_text(PROBE, encoding="utf-8")
    replaced = run(RUN_PROBE.format(patch=""), cache, source)
    assert replaced == {"result": [55, 42], "warnings": [], "hits": 0}
    assert run(RUN_PROBE.format(patch=""), cache, source) == {"result": [55, 42], "warnings": [], "hits": 2}


def test_an_index_naming_a_removed_data_file_compiles_again_quietly(tmp_path: Path) -> None:
    """Another process removed the data (a clean-up racing this run): a cache miss, not damage."""
    source, cache = tmp_path / "source", tmp_path / "cache"
    source.mkdir()
    (source / "probe.py").write_text(PROBE, encoding="utf-8")
    run(RUN_PROBE.format(patch=""), cache, source)
    for path in cache_files(cache, "probe.*.nbc"):
        path.unlink()
    assert run(RUN_PROBE.format(patch=""), cache, source) == {"result": [55, 42], "warnings": [], "hits": 0}
    assert run(RUN_PROBE.format(patch=""), cache, source)["hits"] == 2


@pytest.mark.parametrize(
    ("errno_name", "words"),
    [
        ("ENOSPC", "No space left on device"),
        ("EROFS", "Read-only file system"),
        ("EACCES", "Permission denied"),
        ("EDQUOT", "Disk quota exceeded"),
    ],
)
def test_a_cache_write_that_fails_keeps_the_compiled_code_with_one_warning(
    errno_name: str, words: str, tmp_path: Path
) -> None:
    source, cache = tmp_path / "source", tmp_path / "cache"
    source.mkdir()
    (source / "probe.py").write_text(PROBE, encoding="utf-8")
    full = run(RUN_PROBE.format(patch=FAILING_WRITES.format(name=errno_name)), cache, source)
    assert full["result"] == [55, 42]
    assert len(full["warnings"]) == 1, full["warnings"]
    category, message = full["warnings"][0]
    assert category == "CacheUnavailableWarning"
    assert f"numba could not write compiled code to its cache in {cache}" in message
    assert f"({words}); this process uses the code it compiled" in message
    assert not [path for path in cache.rglob("*") if path.is_file()]  # no half-written or temporary file left
    # Space again: the next process compiles and writes, the one after loads.
    assert run(RUN_PROBE.format(patch=""), cache, source) == {"result": [55, 42], "warnings": [], "hits": 0}
    assert run(RUN_PROBE.format(patch=""), cache, source) == {"result": [55, 42], "warnings": [], "hits": 2}


def test_a_game_whose_every_data_file_is_truncated_plays_with_one_warning(tmp_path: Path) -> None:
    """The real engine: every compiled piece of Kalah's first move damaged at once, one warning for the cache."""
    cache = tmp_path / "cache"
    first = run(RUN_KALAH, cache, tmp_path)
    expected = [[0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4], "player_1"]
    assert first["result"] == expected and first["warnings"] == []
    data = cache_files(cache, "*.nbc")
    assert len(data) >= 4  # the rules' pieces, in the engine's and the games' folders
    for path in data:
        truncate(path)
    damaged = run(RUN_KALAH, cache, tmp_path)
    assert damaged["result"] == expected
    assert [category for category, _ in damaged["warnings"]] == ["CacheDamagedWarning"]
    assert f"numba's compiled cache in {cache}" in damaged["warnings"][0][1]
    assert damaged["compiled"] == first["compiled"] > 0
    again = run(RUN_KALAH, cache, tmp_path)
    assert again == {"result": expected, "warnings": [], "compiled": 0}


#: a function compiled for one signature per process (its argument's type from ``sys.argv``)
PROBE_TYPES = r"""
from mancala_envs.engine.jit import njit


@njit(cache=True)
def weighted(n):
    total = n - n
    for i in range(10):
        total += n * i
    return total
"""

RUN_TYPES = r"""
import json, sys, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import probe_types
    result = probe_types.weighted({argument})
print(json.dumps({{
    "result": result,
    "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    "hits": sum(probe_types.weighted.stats.cache_hits.values()),
}}))
"""


def test_a_data_file_of_another_signature_under_the_indexed_name_is_not_loaded(tmp_path: Path) -> None:
    """Two processes compiling one function for two signatures at once can leave the index naming ``1.nbc`` for one
    signature while ``1.nbc`` holds the other's code (numba writes the index, then the data; each write is atomic,
    the pair is not), as can a source edited while another process writes. The file is intact, so its digest checks:
    the entry it is sealed for (signature, source) must be checked too, or float64 code runs int64 machine code."""
    source, cache = tmp_path / "source", tmp_path / "cache"
    source.mkdir()
    (source / "probe_types.py").write_text(PROBE_TYPES, encoding="utf-8")
    assert run(RUN_TYPES.format(argument="3"), cache, source) == {"result": 135, "warnings": [], "hits": 0}
    (data,) = cache_files(cache, "probe_types.weighted-*.1.nbc")
    int_code = data.read_bytes()
    for path in cache_files(cache, "probe_types.*"):
        path.unlink()
    assert run(RUN_TYPES.format(argument="2.5"), cache, source) == {"result": 112.5, "warnings": [], "hits": 0}
    data.write_bytes(int_code)  # the index names 1.nbc for float64; 1.nbc holds the int64 code
    assert run(RUN_TYPES.format(argument="2.5"), cache, source) == {"result": 112.5, "warnings": [], "hits": 0}
    assert run(RUN_TYPES.format(argument="2.5"), cache, source) == {"result": 112.5, "warnings": [], "hits": 1}
