"""The vocabulary of the contract's case tables (docs/contract.md), shared by ``test_contract_matrix.py`` and the
per-door case modules of ``tests/support/contract_doors/``.

A door module defines ``CASES: list[Case]``; :func:`door_cases` gathers them, and the matrix runs them beside its
own, with the same checks (the documented exception, the words of its message, the subject unchanged).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: ``Case.error`` of a command-line case: ``main(argv)`` returns this status after one error line on stderr
EXIT_2 = 2


@dataclass(frozen=True)
class Row:
    """The contract row a case covers: a phrase of the section's heading, and the first cell of a
    table row, the opening of a bullet, or a phrase of the section's prose."""

    section: str
    item: str


@dataclass(frozen=True)
class Case:
    """One bad call and what the contract says it does.

    ``subject()`` builds what the call is made on (an env, a batch, a folder; ``None`` for a plain
    function); ``call(subject)`` makes the bad call; ``frozen(subject)`` is what must be equal before and
    after (``None``: nothing lives on, or the contract says the call changes it). ``error`` is the
    exception class (``exact``: that class and not a subclass), a warning class (a warning and no
    exception), ``None`` (no exception: ``call`` checks the documented outcome itself) or
    :data:`EXIT_2` (a command line). ``words`` are substrings of the message, or regular expressions
    when they start with ``re:``.
    """

    door: str
    row: Row
    name: str
    call: Callable[[Any], Any]
    error: Any
    words: tuple[str, ...] = ()
    subject: Callable[[], Any] = lambda: None
    frozen: Callable[[Any], Any] | None = None
    exact: bool = False
    stdout_empty: bool = True
    xfail: str = ""


def plain(value: Any, skip: tuple[str, ...] = ()) -> Any:
    """``value`` with numpy arrays as (dtype, shape, values) and numpy scalars as Python numbers, so that ``==``
    compares whole structures; dict entries named in ``skip`` are left out (such as wall times)."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("objects", value.shape, [plain(item, skip) for item in value.ravel()])
        return ("array", str(value.dtype), value.shape, value.tolist())
    if isinstance(value, dict):
        return {key: plain(item, skip) for key, item in value.items() if key not in skip}
    if isinstance(value, (list, tuple)):
        return [plain(item, skip) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def door_cases() -> list[Case]:
    """Every ``CASES`` list of the modules in ``tests/support/contract_doors/``, in module-name order."""
    from support import contract_doors

    cases: list[Case] = []
    for module in sorted(info.name for info in pkgutil.iter_modules(contract_doors.__path__)):
        cases.extend(importlib.import_module(f"support.contract_doors.{module}").CASES)
    return cases
