"""Test helpers for the benchmark scripts' JSON results."""

from __future__ import annotations

import math


def assert_positive(value: object, where: str) -> None:
    """``value`` (the result field ``where``) is a finite positive number, not a bool."""
    assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where} is not a number: {value!r}"
    assert math.isfinite(value) and value > 0, f"{where} must be a positive number (got {value!r})"
