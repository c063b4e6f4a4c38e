"""Safe file input and output, shared by every module that reads or writes files (weights, tables, records).

Every read is **bounded and checked**: :func:`open_regular` opens a path without blocking and refuses what
is not a regular file (a folder, a FIFO, a device such as ``/dev/zero``, even through a symlink) before a
byte is read; :func:`read_bytes_bounded` reads at most ``limit`` bytes and refuses a larger file;
:func:`parse_json` and :func:`read_json_bounded` parse JSON with a nesting limit, so a hostile file gives the
caller's own error (a ``ValueError`` subclass such as ``TableError``) that names the limit, never a
``RecursionError`` or ``MemoryError``.

Every write is **atomic**: :func:`atomic_write` writes a temporary file in the same folder, flushes it to disk
and renames it over the target, so a reader sees the old file or the new one, never a part.
:func:`locked_json_update` runs a read-modify-write of a small JSON file (a manifest) under an exclusive lock
file (``fcntl.flock``), so two processes writing into one folder keep each other's entries.
Nothing creates a missing parent folder: :func:`check_destination` checks, before the long work, that a file's
folder exists and can be written, or that a folder to be created has a parent that does (only the folder named
is created), with a message that says to create it first.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> atomic_write(folder / "a.json", b'{"x": [1, 2]}')
    >>> read_json_bounded(folder / "a.json", 1024, "the example file")
    {'x': [1, 2]}
    >>> read_json_bounded(folder / "a.json", 4, "the example file")
    Traceback (most recent call last):
    ...
    ValueError: the example file ... is larger than 4 bytes, the limit for it; ...
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = [
    "JSON_MAX_DEPTH",
    "atomic_write",
    "check_destination",
    "json_plain",
    "locked_json_update",
    "open_regular",
    "parse_json",
    "read_bytes_bounded",
    "read_json_bounded",
    "refuse_irregular",
]

#: The deepest nesting of lists and objects :func:`parse_json` accepts (the files of this library nest a few levels).
JSON_MAX_DEPTH = 64

PathLike = str | os.PathLike[str]


def json_plain(value: Any) -> Any:
    """``value`` as JSON holds it, and gives it back: mappings as dicts with string keys, tuples, lists and numpy
    arrays as lists, numpy scalars as Python numbers, walked all the way down; other values as they are (so a
    check further on sees them and names them).

    Example:
        >>> json_plain({"scores": np.array([3, 1]), 1: (np.int64(2), [np.float32(0.5)])})
        {'scores': [3, 1], '1': [2, [0.5]]}
    """
    if isinstance(value, dict):
        return {str(key): json_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [json_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def refuse_irregular(path: PathLike, what: str, error: type[Exception] = ValueError) -> None:
    """Refuses an existing ``path`` that is not a regular file (a folder, FIFO, device or socket, after
    symlinks), without opening it; a missing path or a regular file passes.

    Raises:
        error: the path is there and is not a regular file.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise error(f"{what} {os.fspath(path)!r} is {_kind(mode)}, not a regular file; pass the path of a saved file.")


def check_destination(path: PathLike, what: str, *, folder: bool = False) -> Path:
    """Checks, before any long work, that ``path`` can be written without creating folders anywhere.

    A file (``folder=False``) needs a writable folder that exists, and must not be a folder itself. A folder
    (``folder=True``) may be created, but only itself: it exists, or its parent folder exists and is writable;
    a file in its place is refused.

    Args:
        path: The file or folder to be written.
        what: What goes there, for the message (``"the game records"``, ``"argument --out"``).
        folder: Whether ``path`` names a folder (created if missing) rather than a file.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: a missing or non-folder parent (the message says to create it first), a folder that cannot be
            written, a folder where a file goes or a file where a folder goes.
    """
    target = Path(path)
    if folder and target.is_dir():
        parent = target
    elif folder and target.exists():
        raise ValueError(f"cannot write {what} to {str(target)!r}: it is a file, not a folder; pass a folder.")
    elif not folder and target.is_dir():
        raise ValueError(f"cannot write {what} to {str(target)!r}: it is a folder; pass the path of a file in it.")
    else:
        parent = target.absolute().parent
    if not parent.is_dir():
        state = "is not a folder" if parent.exists() else "does not exist"
        raise ValueError(
            f"cannot write {what} to {str(target)!r}: the folder {str(parent)!r} {state}; create it "
            "first (nothing creates missing folders)."
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(
            f"cannot write {what} to {str(target)!r}: the folder {str(parent)!r} is not writable; pass "
            "a path in a folder you can write."
        )
    return target


def open_regular(path: PathLike, what: str, error: type[Exception] = ValueError) -> IO[bytes]:
    """Opens ``path`` for reading in binary mode, refusing anything but a regular file.

    The file is opened without blocking (a FIFO with no writer does not hang) and checked on the open
    descriptor, so a symlink to ``/dev/zero`` or a file swapped after a check is refused too.

    Args:
        path: The file.
        what: What the file is, for the message (``"the game record"``).
        error: The exception class to raise (the caller module's own, a ``ValueError`` subclass).

    Returns:
        The open file (close it, or use it in a ``with``).

    Raises:
        FileNotFoundError / PermissionError: the path cannot be opened.
        error: the path is a folder, a FIFO, a device or a socket.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except (FileNotFoundError, PermissionError):
        raise
    except OSError:  # a folder on some systems, a socket (ENXIO): named by what it is
        refuse_irregular(path, what, error)
        raise
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise error(
                f"{what} {os.fspath(path)!r} is {_kind(mode)}, not a regular file; pass the path of a saved file."
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bytes_bounded(path: PathLike, limit: int, what: str, error: type[Exception] = ValueError) -> bytes:
    """The bytes of the regular file ``path``, refusing a file larger than ``limit`` bytes.

    At most ``limit + 1`` bytes are read, whatever the file claims its size is.

    Raises:
        FileNotFoundError / PermissionError: the path cannot be opened.
        error: not a regular file (see :func:`open_regular`), or more than ``limit`` bytes.
    """
    with open_regular(path, what, error) as file:
        if os.fstat(file.fileno()).st_size > limit:
            raise _too_large(path, limit, what, error)
        data = file.read(limit + 1)
    if len(data) > limit:
        raise _too_large(path, limit, what, error)
    return data


def _too_large(path: PathLike, limit: int, what: str, error: type[Exception]) -> Exception:
    return error(
        f"{what} {os.fspath(path)!r} is larger than {limit} bytes, the limit for it; this is not a file this "
        "library wrote (pass the right file, or restore it)."
    )


def _nesting(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests lists and objects more than ``limit`` levels (walked without recursion)."""
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                level.append((child, depth + 1))
    return False


def parse_json(
    text: str | bytes,
    what: str,
    error: type[Exception] = ValueError,
    max_depth: int = JSON_MAX_DEPTH,
    expected: str = "valid JSON",
) -> Any:
    """Parses JSON text, refusing invalid text, non-standard numbers and nesting deeper than ``max_depth``.

    ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's ``json`` accepts) are refused.

    Args:
        text: The JSON text (bytes are decoded as UTF-8).
        what: What the text is, for the message (``"the header of ouril.safetensors"``).
        error: The exception class to raise.
        max_depth: The deepest nesting of lists and objects accepted.
        expected: What the text should be, for the message (``"a JSON game record"``).

    Raises:
        error: not UTF-8, not JSON, a non-standard number, or nested deeper than ``max_depth``.
    """
    fix = "pass a file this library wrote"
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as problem:
            raise error(f"{what} is not {expected}: it is not UTF-8 text ({problem}); {fix}.") from None

    def refuse_constant(name: str) -> Any:
        raise error(f"{what} is not {expected}: it holds the non-standard JSON number {name}; {fix}.")

    deep = error(f"{what} is nested too deeply to be {expected} (more than {max_depth} levels, the limit); {fix}.")
    try:
        value = json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as problem:
        raise error(f"{what} is not {expected} ({problem}); {fix}.") from None
    except RecursionError:
        raise deep from None
    if isinstance(value, (dict, list)) and _nesting(value, max_depth):
        raise deep
    return value


def read_json_bounded(
    path: PathLike,
    limit: int,
    what: str,
    error: type[Exception] = ValueError,
    max_depth: int = JSON_MAX_DEPTH,
    expected: str = "valid JSON",
) -> Any:
    """The JSON value of the regular file ``path``: :func:`read_bytes_bounded` then :func:`parse_json`.

    Raises:
        FileNotFoundError / PermissionError: the path cannot be opened.
        error: not a regular file, larger than ``limit`` bytes, not UTF-8 JSON, or nested too deeply.
    """
    data = read_bytes_bounded(path, limit, what, error)
    return parse_json(data, os.fspath(path), error, max_depth, expected)


def atomic_write(path: PathLike, data: bytes | Callable[[IO[bytes]], None]) -> None:
    """Writes ``path`` atomically: a temporary file in the same folder, flushed to disk, renamed over ``path``.

    Readers see the old file or the new one, never a part, and two writers never mix their bytes (the
    last rename wins). The folder must exist.

    Args:
        path: The file to write.
        data: The bytes, or a function that writes them to the open binary file (for large arrays).

    Raises:
        FileNotFoundError / NotADirectoryError / PermissionError: the folder does not exist, is a file, or cannot be
            written; the error's ``filename`` is ``path`` (never the temporary file's name).
        IsADirectoryError: ``path`` is a folder.
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a folder; pass the path of a file in it", os.fspath(path))
    try:
        descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except (FileNotFoundError, NotADirectoryError, PermissionError) as error:  # named by the path given, not mkstemp's
        folder = str(target.absolute().parent)
        why = {
            FileNotFoundError: f"the folder {folder!r} does not exist; create it first",
            NotADirectoryError: f"{folder!r} is not a folder; create it first, in place of that file",
            PermissionError: f"the folder {folder!r} cannot be written; pass a path in a folder you can write",
        }
        raise type(error)(error.errno, why[type(error)], os.fspath(path)) from None
    try:
        os.chmod(temporary, _mode_for(target))  # mkstemp makes it 0600: give it the mode an ordinary write would
        with os.fdopen(descriptor, "wb") as file:
            if callable(data):
                data(file)
            else:
                file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    """The permission bits an ordinary ``open(target, "w")`` would leave: the existing file's, else 0666 less the
    process's umask."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask: read from ``/proc/self/status`` where Linux shows it (setting it to read it would
    change it for every thread for a moment), else set and put straight back."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status.read(1 << 16).splitlines():
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


@contextlib.contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    """Holds an exclusive ``flock`` on ``path`` (created if needed) for the ``with`` block; no lock where the
    platform has no ``fcntl`` (Windows)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def locked_json_update(
    path: PathLike,
    update: Callable[[Any], Any],
    read: Callable[[Path], Any],
) -> Any:
    """Read-modify-write of a small JSON file under an exclusive lock, then an atomic replace.

    The lock is the file ``<path>.lock`` beside it (``fcntl.flock``), so processes that update the same
    file through this function take turns and none loses another's change.

    Args:
        path: The JSON file.
        update: Takes the current content (what ``read`` returns) and returns the new content.
        read: Reads the current content (called under the lock; it decides what a missing file means).

    Returns:
        The content written.
    """
    target = Path(path)
    with _exclusive_lock(target.with_name(target.name + ".lock")):
        content = update(read(target))
        atomic_write(target, (json.dumps(content, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return content
