"""``njit`` for the whole package: numba's, with its on-disk cache turned off where it cannot work.

Every compiled function of mancala-envs is declared with ``cache=True``, so that a second process
loads the machine code numba wrote to disk instead of compiling again (a warm start takes well under
a second; a cold one, several seconds per game). numba writes that cache to the first of these
places it can write to (it must be able to write there even to read an entry back):

1. ``NUMBA_CACHE_DIR``, if the environment variable is set;
2. the ``__pycache__`` folders next to the package's source files;
3. the user's cache folder (``~/.cache/numba`` on Linux, from ``HOME``).

Where none of them is writable (a container image run by a user who owns none of them), numba would
refuse every ``cache=True`` function and ``import mancala_envs`` would fail. This module checks once,
at import, whether numba can cache here; if it cannot, the package compiles in memory (every process
compiles again) and says so in one :class:`CacheUnavailableWarning`, which names the fix: point
``NUMBA_CACHE_DIR`` at a writable folder, prebuilt with ``mancala-envs warm-up`` (see ``docs/install.md``).

The first time a process has to compile one of the package's functions (numba found no cached copy),
the ``"mancala_envs"`` logger says so once, at ``WARNING`` level so that it shows without any logging
set up: the pause that follows is numba at work, not a hang. Silence it with
``logging.getLogger("mancala_envs").setLevel(logging.ERROR)``; avoid the pause with
:func:`mancala_envs.warm_up` (or ``mancala-envs warm-up``) ahead of time.

Example:
    >>> from mancala_envs.engine.jit import njit
    >>> @njit(error_model="numpy")  # (cache=True needs a function defined in a file, not in a doctest)
    ... def add(a, b):
    ...     return a + b
    >>> add(1, 2)
    3
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable
from typing import Any

import numba
from numba.core import event

__all__ = ["CACHING", "COMPILE_MESSAGE", "CacheUnavailableWarning", "compile_notice", "njit"]

#: what the ``"mancala_envs"`` logger says, once per process, when numba first compiles one of the package's functions
COMPILE_MESSAGE = (
    "mancala-envs: numba is compiling the game engine for its first use here ({where}); this takes a few "
    "seconds per game and entry point. `mancala-envs warm-up` (or mancala_envs.warm_up()) compiles ahead of use."
)


class CacheUnavailableWarning(RuntimeWarning):
    """numba cannot write its cache anywhere here, so compiled code is not kept between processes."""


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


def njit(*args: Any, **options: Any) -> Callable[..., Any]:
    """numba's ``njit`` with ``cache=True`` dropped when numba cannot cache here (see :data:`CACHING`).

    Takes what ``numba.njit`` takes: ``@njit``, ``@njit(cache=True, ...)`` or ``njit(signature, ...)``.
    """
    if not CACHING:
        options["cache"] = False
    return numba.njit(*args, **options)


class _FirstCompileNotice(event.Listener):
    """Logs :data:`COMPILE_MESSAGE` when numba starts compiling a function of this package, once per process
    (numba raises ``"numba:compile"`` only on a cache miss: loading cached code says nothing)."""

    def on_start(self, event_: event.Event) -> None:
        dispatcher = (event_.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
        if not module.startswith("mancala_envs"):
            return
        compile_notice(False)
        if CACHING:
            folder = os.environ.get("NUMBA_CACHE_DIR")
            where = f"kept in {folder} for later processes" if folder else "numba keeps it on disk for later processes"
        else:
            where = "in memory only: numba cannot cache here, see docs/install.md"
        logging.getLogger("mancala_envs").warning(COMPILE_MESSAGE.format(where=where))

    def on_end(self, event_: event.Event) -> None:
        return


_NOTICE = _FirstCompileNotice()
_notice_on = False


def compile_notice(enabled: bool) -> bool:
    """Turns the one-time compile notice on (the default at import) or off; returns whether it was on.

    What reports its own compile time (``mancala-envs train``, :func:`mancala_envs.warm.warm_up`) turns it
    off while it runs; once it has been said, it is off for the rest of the process.
    """
    global _notice_on
    was_on = _notice_on
    if enabled and not _notice_on:
        event.register("numba:compile", _NOTICE)
    elif not enabled and _notice_on:
        event.unregister("numba:compile", _NOTICE)
    _notice_on = bool(enabled)
    return was_on


compile_notice(True)
