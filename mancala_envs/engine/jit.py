"""``njit`` for the whole package: numba's, with a cache that survives damage, and a compile that says so.

Every compiled function of mancala-envs is declared with ``cache=True``, so that a second process
loads the machine code numba wrote to disk instead of compiling again (a warm start takes well under
a second; a cold one, 5 to 20 seconds for a game's first use, more on a busy machine). numba writes that cache to the
first of these places it can write to (it must be able to write there even to read an entry back):

1. ``NUMBA_CACHE_DIR``, if the environment variable is set;
2. the ``__pycache__`` folders next to the package's source files;
3. the user's cache folder (``~/.cache/numba`` on Linux, from ``HOME``).

Where none of them is writable (a container image run by a user who owns none of them), numba would
refuse every ``cache=True`` function and ``import mancala_envs`` would fail. This module checks once,
at import, whether numba can cache here; if it cannot, the package compiles in memory (every process
compiles again) and says so in one :class:`CacheUnavailableWarning`, which names the fix: point
``NUMBA_CACHE_DIR`` at a writable folder, prebuilt with ``mancala-envs warm-up`` (see ``docs/install.md``).

**A damaged cache is compiled again, not fatal.** numba's own cache reader unpickles an entry's files
as they are: a truncated, zeroed or overwritten file made every use of the package fail with
``EOFError``, ``UnpicklingError`` or an LLVM error, and one flipped byte in the machine code could
load as wrong code. The package's functions use :class:`CheckedFunctionCache` instead: numba's layout
(an index ``*.nbi`` and data files ``*.nbc`` per function), each file carrying the SHA-256 digest of
its content, checked before anything in it is unpickled. An entry that fails the check, or fails to
load for any other reason, has its files removed and is compiled again; the first time in a process,
one :class:`CacheDamagedWarning` names the folder. A cache write that fails (a full disk, a folder
made read-only) keeps the compiled function for this process and says so in one
:class:`CacheUnavailableWarning`. The digest detects damage, not tampering: whoever can write the
cache folder can write machine code there, so the folder must be as trusted as the package's own.

**Compiling says what it does.** When a process first has to compile one of the package's functions
(numba found no cached copy), one notice on standard error says so, names the game and how long a
game's first use takes; while numba compiles, progress follows on standard error (a ticking line on
a terminal, a line per compiled piece and one every :data:`HEARTBEAT_SECONDS` otherwise). Nothing is
written to standard output. Silence it per process with ``MANCALA_ENVS_QUIET=1`` in the environment,
``compile_notice(False)``, or ``logging.getLogger("mancala_envs").setLevel(logging.ERROR)``; avoid the
pause with :func:`mancala_envs.warm_up` (or ``mancala-envs warm-up``) ahead of time.

Example:
    >>> from mancala_envs.engine.jit import njit
    >>> @njit(error_model="numpy")  # (cache=True needs a function defined in a file, not in a doctest)
    ... def add(a, b):
    ...     return a + b
    >>> add(1, 2)
    3
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import pickle
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import numba
from numba.core import config, event, sigutils, typeinfer
from numba.core.caching import FunctionCache, IndexDataCacheFile

__all__ = [
    "CACHING",
    "COMPILE_MESSAGE",
    "HEARTBEAT_SECONDS",
    "PROGRESS_SECONDS",
    "QUIET_VARIABLE",
    "CacheDamagedWarning",
    "CacheUnavailableWarning",
    "CheckedFunctionCache",
    "compile_notice",
    "njit",
    "notice_silenced",
    "write_progress",
]

#: the environment variable that silences the compile notice and progress in a process (``1``, ``true``...)
QUIET_VARIABLE = "MANCALA_ENVS_QUIET"
#: what a game's first use (make, reset, step) costs numba, in seconds: 5-17 s measured cold for the six games on
#: one core of a 2-core VM (kalah the least, rio_kadalis and urim the most)
FIRST_USE_SECONDS = (5, 20)
#: what standard error says, once per process, when numba first compiles one of the package's functions
COMPILE_MESSAGE = (
    "mancala-envs: numba is compiling the game engine for its first use here ({where}), starting with {game}: "
    "a game's first use takes about {low}-{high} s, each further entry point (vector env, opponents, search "
    "agents) some seconds more; progress follows. `mancala-envs warm-up` (or mancala_envs.warm_up()) compiles "
    "ahead of use; " + QUIET_VARIABLE + "=1 silences this."
)
#: off a terminal, a new compiled piece gets a progress line when the last line is at least this old (seconds)
PROGRESS_SECONDS = 2.0
#: off a terminal, a piece that keeps compiling gets a "still compiling" line this often (seconds)
HEARTBEAT_SECONDS = 10.0
#: on a terminal, the progress line is redrawn this often (seconds)
TICK_SECONDS = 0.5


class CacheUnavailableWarning(RuntimeWarning):
    """numba cannot write its cache here, so compiled code is not kept between processes."""


class CacheDamagedWarning(RuntimeWarning):
    """An entry of numba's cache was damaged: its files were removed and the function compiled again."""


def _probe() -> int:  # pragma: no cover - never called: only its cache locator is looked up
    return 0


def _can_cache() -> bool:
    """Whether numba finds a writable cache location for this package's source files.

    numba looks for one when a ``cache=True`` function is declared, and raises ``RuntimeError`` (no
    locator available) when every candidate refuses a test file.
    """
    try:
        numba.njit(cache=True)(_probe)
    except RuntimeError:
        return False
    return True


#: whether numba can keep compiled code on disk here; when it cannot, ``njit`` compiles in memory
CACHING: bool = _can_cache()
if not CACHING:
    warnings.warn(
        "mancala-envs: numba cannot write its cache here (NUMBA_CACHE_DIR is unset or read-only, and the "
        "package folder and the user cache folder under HOME are read-only), so games compile in memory "
        "and every new process compiles them again. To keep compiled code, set NUMBA_CACHE_DIR to a "
        "folder this user can write; to prebuild it for an image, run `mancala-envs warm-up` with that "
        "NUMBA_CACHE_DIR (see docs/install.md).",
        CacheUnavailableWarning,
        stacklevel=2,
    )


# --- the checked cache ------------------------------------------------------------------------------------------
#: what precedes the SHA-256 digest in every cache file this module writes
_MAGIC = b"\x00mancala-envs:sha256\x00"
_DIGEST_SIZE = 32
#: what a data file's payload starts with, before the entry it was written for and the compiled code
_DATA_TAG = "mancala-envs:data-1"
_warned: set[str] = set()
_warned_lock = threading.Lock()


class _DamagedEntry(Exception):
    """A cache file that fails its check (its name and what is wrong with it)."""


def _warn_once(kind: str, folder: str, category: type[Warning], message: str) -> None:
    """Warns ``message`` unless this process already warned of ``kind`` for the cache under ``folder``
    (``NUMBA_CACHE_DIR`` when it is set: one warning for the whole cache)."""
    key = f"{kind}:{config.CACHE_DIR or folder}"
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(message, category, stacklevel=2)


def _sealed(payload: bytes, covered: bytes = b"") -> bytes:
    """``_MAGIC``, the digest of ``covered + payload``, then ``payload``."""
    return _MAGIC + hashlib.sha256(covered + payload).digest() + payload


def _unsealed(raw: bytes, path: str, covered: bytes = b"") -> bytes:
    """The payload of a sealed file's content ``raw``, once its digest checks.

    Raises:
        _DamagedEntry: ``raw`` is not sealed, or its content does not match its digest.
    """
    start = len(_MAGIC) + _DIGEST_SIZE
    if not raw.startswith(_MAGIC) or len(raw) < start:
        raise _DamagedEntry(f"{os.path.basename(path)}: not a checked cache file ({len(raw)} bytes)")
    payload = raw[start:]
    if hashlib.sha256(covered + payload).digest() != raw[len(_MAGIC) : start]:
        raise _DamagedEntry(f"{os.path.basename(path)}: its content does not match its SHA-256 digest")
    return payload


class _CheckedCacheFile(IndexDataCacheFile):
    """numba's index and data files of one function, each sealed with the SHA-256 digest of its content.

    The index keeps numba's layout, the pickled numba version first (so that another numba version
    sees an entry of its own format to ignore), then the sealed rest, whose digest covers the version
    too. A data file is sealed whole. Each digest covers the file's name as well, so that another
    function's entry copied over this one fails too. Nothing is unpickled before its digest checks.

    A data file also holds the entry it was written for (the source stamp and the index key: signature,
    target, bytecode), checked against the index's on load: numba writes the index, then the data, so two
    processes compiling one function for two signatures at once (or a source edited meanwhile) can leave
    an intact file of another entry under the indexed name. It is a cache miss, compiled again and
    overwritten, never another signature's machine code run.
    """

    def _read(self, path: str) -> bytes | None:
        """The bytes of ``path``; ``None`` if there is no such file (an entry not written yet, or removed).

        Raises:
            _DamagedEntry: ``path`` cannot be read (a folder in its place, an I/O error).
        """
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise _DamagedEntry(f"{os.path.basename(path)}: {error.strerror or error}") from error

    def _load_index(self) -> dict[Any, str]:
        raw = self._read(self._index_path)
        if raw is None:
            return {}
        split = raw.find(_MAGIC, 0, 256)
        if split < 0:
            prefix = pickle.dumps(self._version, protocol=-1)
            if raw.startswith(prefix) and raw[len(prefix) : len(prefix) + 1] == b"\x80" and len(raw) > 64:
                return {}  # numba's own unchecked index, written before this format: compiled again, rewritten
            raise _DamagedEntry(f"{self._index_name}: not a checked cache index ({len(raw)} bytes)")
        version = raw[:split]
        payload = _unsealed(raw[split:], self._index_path, covered=self._index_name.encode() + version)
        if pickle.loads(version) != self._version:
            return {}  # another numba version's entry: numba compiles again and overwrites it
        stamp, overloads = pickle.loads(payload)
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads: dict[Any, str]) -> None:
        version = pickle.dumps(self._version, protocol=-1)
        payload = self._dump((self._source_stamp, overloads))
        with self._open_for_write(self._index_path) as handle:
            handle.write(version + _sealed(payload, covered=self._index_name.encode() + version))

    def _load_data(self, name: str) -> Any:
        path = self._data_path(name)
        raw = self._read(path)
        if raw is None:
            raise FileNotFoundError(path)
        return pickle.loads(_unsealed(raw, path, covered=name.encode()))

    def _save_data(self, name: str, data: Any) -> None:
        sealed = _sealed(self._dump(data), covered=name.encode())
        with self._open_for_write(self._data_path(name)) as handle:
            handle.write(sealed)

    def save(self, key: Any, data: Any) -> None:
        """numba's ``save``, with the entry (source stamp and ``key``) written beside the data (see the class)."""
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            taken = set(overloads.values())
            name = next(self._data_name(n) for n in itertools.count(1) if self._data_name(n) not in taken)
            overloads[key] = name
            self._save_index(overloads)
        self._save_data(name, (_DATA_TAG, self._source_stamp, key, data))

    def load(self, key: Any) -> Any:
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            return None
        try:
            entry = self._load_data(name)
        except FileNotFoundError:
            return None  # removed by another process while the index still named it: compiled again
        if not (isinstance(entry, tuple) and len(entry) == 4 and entry[0] == _DATA_TAG):
            return entry  # intact (its digest checked), of the first sealed layout, which holds no entry: as it was
        _, stamp, saved_key, data = entry
        if stamp != self._source_stamp or saved_key != key:
            return None  # another entry's intact file under the indexed name (see the class): compiled again
        return data

    def discard(self) -> list[str]:
        """Removes this function's index and data files (a folder in their place, if empty); returns what
        could not be removed."""
        folder = self._cache_path
        stem = self._index_name[: -len(".nbi")]
        ours = re.compile(re.escape(stem) + r"(\.nbi|\.\d+\.nbc)")
        left = []
        try:
            names = os.listdir(folder)
        except OSError:
            return [folder]
        for name in names:
            if not ours.fullmatch(name):
                continue
            path = os.path.join(folder, name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    os.rmdir(path)
                else:
                    os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError:
                left.append(path)
        return left


class CheckedFunctionCache(FunctionCache):
    """numba's per-function cache, made safe against damage: :class:`_CheckedCacheFile` files, an entry
    that fails to load removed and compiled again, and a failed write kept as a warning.

    :func:`njit` gives it to every function declared with ``cache=True``.
    """

    def __init__(self, py_func: Callable[..., Any]) -> None:
        super().__init__(py_func)
        self._cache_file = _CheckedCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached compiled code for ``sig``, or ``None`` (numba then compiles): a damaged entry (a
        file that fails its digest, or any failure to rebuild the code) is removed, with one warning."""
        target_context.refresh()
        try:
            return self._load_overload(sig, target_context)
        except Exception as error:
            left = self._cache_file.discard()
            reason = str(error) if isinstance(error, _DamagedEntry) else f"{type(error).__name__}: {error}"
            stuck = f" (could not remove {', '.join(left)}; remove it by hand)" if left else ""
            _warn_once(
                "damaged",
                self._cache_path,
                CacheDamagedWarning,
                f"mancala-envs: numba's compiled cache in {self._cache_path} had a damaged entry ({reason}); "
                f"its files were removed{stuck} and the function compiled again. Further damaged entries of "
                "this cache are replaced without another warning in this process. If this recurs, clear the "
                f"cache: delete the *.nbi and *.nbc files in {self._cache_path} (or the whole folder "
                "NUMBA_CACHE_DIR points at).",
            )
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        """Writes the compiled code for ``sig`` to the cache; a write that fails (a full disk, a read-only
        folder) leaves the compiled code in use in this process, with one warning."""
        try:
            self._save_overload(sig, data)
        except _DamagedEntry:
            return  # the entry is damaged beyond removal: already said by load_overload
        except OSError as error:
            _warn_once(
                "unwritable",
                self._cache_path,
                CacheUnavailableWarning,
                f"mancala-envs: numba could not write compiled code to its cache in {self._cache_path} "
                f"({error.strerror or error}); this process uses the code it compiled, later processes compile "
                "it again. Free space there or make it writable, or set NUMBA_CACHE_DIR to a writable folder.",
            )


def _checked(dispatcher: Any, signatures: list[Any] | None) -> Any:
    """``dispatcher`` with :class:`CheckedFunctionCache`, compiled for ``signatures`` as numba's ``njit(sigs)``
    does (every signature compiled now, no other compiled later)."""
    dispatcher._cache = CheckedFunctionCache(dispatcher.py_func)
    if signatures:
        with typeinfer.register_dispatcher(dispatcher):
            for signature in signatures:
                dispatcher.compile(signature)
            dispatcher.disable_compile()
    return dispatcher


def njit(*args: Any, **options: Any) -> Callable[..., Any]:
    """numba's ``njit``, whose ``cache=True`` uses :class:`CheckedFunctionCache`, and is dropped when numba
    cannot cache here (see :data:`CACHING`).

    Takes what ``numba.njit`` takes: ``@njit``, ``@njit(cache=True, ...)`` or ``njit(signature, ...)``.
    """
    cache = bool(options.pop("cache", False)) and CACHING
    if not cache or config.DISABLE_JIT:
        return numba.njit(*args, **options)
    first = args[0] if args else None
    if first is not None and not isinstance(first, list) and not sigutils.is_signature(first):
        return _checked(numba.njit(*args[1:], **options)(first), None)  # @njit(cache=True) on the function
    signatures = None if first is None else (first if isinstance(first, list) else [first])

    def decorate(function: Callable[..., Any]) -> Any:
        return _checked(numba.njit(*args[1:], **options)(function), signatures)

    return decorate


# --- the compile notice and progress ----------------------------------------------------------------------------
def notice_silenced() -> bool:
    """Whether this process asked for no compile notice or progress: :data:`QUIET_VARIABLE` set (to anything
    but ``0``, ``false``, ``no``, ``off``), or the ``"mancala_envs"`` logger set above ``WARNING``.

    Read at each compile (and by :func:`mancala_envs.warm_up`), so setting either later takes effect.
    """
    if os.environ.get(QUIET_VARIABLE, "").strip().lower() not in ("", "0", "false", "no", "off"):
        return True
    return not logging.getLogger("mancala_envs").isEnabledFor(logging.WARNING)


def _describe(dispatcher: Any) -> tuple[str, str]:
    """The game a compiled function belongs to (``"the engine"`` for shared code) and the piece's name."""
    function = dispatcher.py_func
    qualname = function.__qualname__
    piece, _, owner = qualname.partition("[")
    module = owner.split(",")[0].rstrip("]") if owner else function.__module__
    parts = module.split(".")  # a game's modules are mancala_envs.games.<game>.<module>
    game = parts[2] if len(parts) == 4 and parts[1] == "games" and parts[2] != "two_row_family" else "the engine"
    return game, piece


def write_progress(text: str) -> None:
    """Writes ``text`` to standard error, flushed at once; nothing if standard error is missing, closed or broken
    (a report of progress is never worth an error). The compile progress's writer, and :func:`mancala_envs.warm_up`'s.
    """
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # a closed or broken standard error: progress is not worth an error
        pass


class _CompileProgress(event.Listener):
    """Says on standard error what numba compiles and for how long, for the package's own functions.

    numba raises ``"numba:compile"`` only on a cache miss (loading cached code says nothing), around
    each function compiled, nested for the functions a compiled function calls: the outermost one is a
    *piece*, shown with its game.
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None
        self._depth = 0
        self._piece: tuple[str, str] | None = None
        self._piece_start = 0.0
        self._games: dict[str, float] = {}  # seconds each game has compiled in this process, pieces done
        self._last_line = float("-inf")
        self._announced = False
        self._terminal = False
        self._drawn = False

    @staticmethod
    def _our_dispatcher(event_: event.Event) -> Any:
        """The dispatcher the event is about when it compiles one of the package's functions, else None."""
        dispatcher = (event_.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
        return dispatcher if module.startswith("mancala_envs") else None

    def on_start(self, event_: event.Event) -> None:
        try:
            dispatcher = self._our_dispatcher(event_)
            if dispatcher is None:
                return
            with self._lock:
                self._depth += 1
                if self._depth > 1 or notice_silenced():
                    return
                self._begin(dispatcher)
        except Exception:
            pass

    def on_end(self, event_: event.Event) -> None:
        try:
            if self._our_dispatcher(event_) is None:
                return
            with self._lock:
                self._depth = max(self._depth - 1, 0)
                if self._depth == 0 and self._piece is not None:
                    game = self._piece[0]
                    self._games[game] = self._games.get(game, 0.0) + time.perf_counter() - self._piece_start
                    self._piece = None
                    if self._drawn:
                        write_progress("\r\x1b[K")
                        self._drawn = False
        except Exception:
            pass

    def after_fork(self) -> None:
        """In a forked child: a lock and a progress thread of its own (the parent's thread is not there), the
        notice said if the parent said it."""
        announced, games = self._announced, dict(self._games)
        self._reset()
        self._announced, self._games = announced, games

    def stop(self) -> None:
        """Forgets the piece in progress (the notice is being turned off, perhaps in the middle of one)."""
        with self._lock:
            self._depth = 0
            self._piece = None
            if self._drawn:
                write_progress("\r\x1b[K")
                self._drawn = False

    def _begin(self, dispatcher: Any) -> None:
        """A piece starts (the lock held): the notice the first time, a line for a new game or after a pause."""
        game, piece = _describe(dispatcher)
        now = time.perf_counter()
        self._piece, self._piece_start = (game, piece), now
        try:
            self._terminal = bool(sys.stderr.isatty())
        except (AttributeError, ValueError):
            self._terminal = False
        if not self._announced:
            self._announced = True
            low, high = FIRST_USE_SECONDS
            write_progress(COMPILE_MESSAGE.format(where=_where(), game=game, low=low, high=high) + "\n")
            self._last_line = now
        elif not self._terminal and (game not in self._games or now - self._last_line >= PROGRESS_SECONDS):
            spent = self._games.get(game, 0.0)
            so_far = f" ({spent:.0f} s so far)" if spent >= 1 else ""
            write_progress(f"mancala-envs: compiling {game}: {piece}{so_far}\n")
            self._last_line = now
        self._games.setdefault(game, 0.0)
        if self._thread is None:
            self._thread = threading.Thread(target=self._tick, name="mancala-envs compile progress", daemon=True)
            self._thread.start()
        self._lock.notify_all()

    def _tick(self) -> None:
        """The progress thread: while a piece compiles, redraws the line on a terminal, or writes a line
        every :data:`HEARTBEAT_SECONDS` off one."""
        with self._lock:
            while True:
                if self._piece is None:
                    self._lock.wait()
                    continue
                self._lock.wait(TICK_SECONDS if self._terminal else HEARTBEAT_SECONDS)
                if self._piece is None:
                    continue
                game, piece = self._piece
                now = time.perf_counter()
                spent = self._games.get(game, 0.0) + now - self._piece_start
                if self._terminal:
                    write_progress(f"\r\x1b[Kmancala-envs: compiling {game}: {piece} ({spent:.0f} s so far)")
                    self._drawn = True
                elif now - self._last_line >= HEARTBEAT_SECONDS * 0.9:
                    write_progress(f"mancala-envs: still compiling {game}: {piece} ({spent:.0f} s so far)\n")
                    self._last_line = now


def _where() -> str:
    if CACHING:
        folder = os.environ.get("NUMBA_CACHE_DIR")
        return f"kept in {folder} for later processes" if folder else "numba keeps it on disk for later processes"
    return "in memory only: numba cannot cache here, see docs/install.md"


_PROGRESS = _CompileProgress()
os.register_at_fork(after_in_child=_PROGRESS.after_fork)
_notice_on = False


def compile_notice(enabled: bool) -> bool:
    """Turns the compile notice and progress on (the default at import) or off; returns whether it was on.

    What reports its own compile time (``mancala-envs train``, :func:`mancala_envs.training.warm_up.warm_up`) turns it
    off while it runs; a process that should say nothing at all (a worker of a pool whose parent shows
    its own progress) calls ``compile_notice(False)`` once, or runs with ``MANCALA_ENVS_QUIET=1``.
    """
    global _notice_on
    was_on = _notice_on
    if enabled and not _notice_on:
        event.register("numba:compile", _PROGRESS)
    elif not enabled and _notice_on:
        event.unregister("numba:compile", _PROGRESS)
        _PROGRESS.stop()
    _notice_on = bool(enabled)
    return was_on


compile_notice(True)
