"""What the ``mancala-envs`` subcommands share: a parser whose errors come back to the command, the
argument types, ``--option`` pairs, and the one-line error report (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = [
    "COUNT",
    "POSITIVE",
    "PROG",
    "SEED",
    "TRUST_REMOTE_CODE_HELP",
    "Parser",
    "UsageError",
    "add_option_argument",
    "add_trust_remote_code",
    "collect_options",
    "fail",
    "integer_at_least",
    "key_value",
    "os_error_line",
    "quiet_broken_pipe",
]

PROG = "mancala-envs"

#: The help of ``--trust-remote-code``, the same on every command that loads saved models.
TRUST_REMOTE_CODE_HELP = (
    "load sb3:/model: files in full with Stable-Baselines3, which unpickles objects stored in them: a crafted "
    "file runs any code it likes. Only for files you trust; without it, models saved by 'mancala-envs train' "
    "load anyway and files that need unpickling are refused"
)


def add_trust_remote_code(parser: argparse.ArgumentParser) -> None:
    """Adds ``--trust-remote-code`` (``args.trust_remote_code``, off by default) to a command that loads agents."""
    parser.add_argument("--trust-remote-code", action="store_true", help=TRUST_REMOTE_CODE_HELP)


def integer_at_least(minimum: int, what: str = "value") -> Callable[[str], int]:
    """An argparse type: an integer >= ``minimum``, in the ASCII digits ``0``-``9`` (as positions are
    written); anything else (``1.5``, ``+3``, ``٣``, ``1_000``) is reported as ``invalid <what> '<text>'``."""

    def parse(text: str) -> int:
        digits = text[1:] if text.startswith("-") else text
        value = int(text) if digits.isascii() and digits.isdigit() else minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r} (use an integer >= {minimum})")
        return value

    return parse


POSITIVE = integer_at_least(1)
COUNT = integer_at_least(0)
SEED = integer_at_least(0, "seed")


class UsageError(Exception):
    """A command line that argparse rejects; the command prints it as one line."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors reach the command instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}; see '{self.prog} --help'.", self.prog)


def add_option_argument(parser: argparse.ArgumentParser, help_text: str) -> None:
    """Adds the repeatable ``--option KEY=VALUE`` argument (read by :func:`key_value`, gathered by
    :func:`collect_options`) with the command's own ``help_text``."""
    parser.add_argument("--option", type=key_value, action="append", default=[], metavar="KEY=VALUE", help=help_text)


def key_value(text: str) -> tuple[str, Any]:
    """``--option`` values: ``"max_turns=50"`` -> ``("max_turns", 50)``. Values are read as JSON
    (numbers, true/false, null, lists); Python's ``True`` / ``False`` / ``None`` are accepted too;
    anything else is a string."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"invalid option {text!r} (use key=value, e.g. --option max_turns=50)")
    words = {"True": True, "False": False, "None": None}
    if value in words:
        return key, words[value]
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def collect_options(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The ``--option`` pairs as keyword arguments; an option given twice is a ``ValueError``."""
    options: dict[str, Any] = {}
    for key, value in pairs:
        if key in options:
            raise ValueError(f"--option {key} is given twice; give each option once.")
        options[key] = value
    return options


def fail(message: str, prog: str = PROG) -> int:
    """Prints ``message`` as the one line ``<prog>: error: ...`` on stderr; returns the status 2."""
    print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def os_error_line(error: OSError) -> str:
    """The one line for a file the command could not use: the file and why, or the error's own words
    when it names no file (a missing model: ``no saved model at 'x.zip'; ...``)."""
    if error.filename is None:
        return str(error)
    return f"cannot write {error.filename!r}: {error.strerror or error}"


def quiet_broken_pipe() -> int:
    """The reader of stdout went away (``mancala-envs demo | head``): stop quietly, status 1."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the flush at exit does not fail again
    except (OSError, ValueError):
        pass
    return 1
