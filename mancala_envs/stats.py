"""Small statistics shared by evaluation and tournaments (no dependencies beyond the standard library)."""

from __future__ import annotations

import math

__all__ = ["wilson_interval"]


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (95% for ``z = 1.96``); ``(0, 1)`` with no trials.

    Example:
        >>> lower, upper = wilson_interval(90, 100)
        >>> round(lower, 3), round(upper, 3)
        (0.826, 0.945)
    """
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
