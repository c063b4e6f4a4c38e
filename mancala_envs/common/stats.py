"""Small statistics shared by evaluation and tournaments (no dependencies beyond the standard library)."""

from __future__ import annotations

import math

__all__ = ["Tally", "wilson_interval"]

_OUTCOMES = {"win": "wins", "draw": "draws", "loss": "losses", "wins": "wins", "draws": "draws", "losses": "losses"}


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


class Tally:
    """Rates and intervals of a record of games: mixed into the dataclasses that hold ``wins``,
    ``draws`` and ``losses`` (training's ``EvalRow``, the tournament's ``Record``).

    An outcome is ``"wins"`` / ``"win"``, ``"draws"`` / ``"draw"``, ``"losses"`` / ``"loss"``, or
    ``"score"`` (wins plus half the draws).
    """

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses  # type: ignore[attr-defined]

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2  # type: ignore[attr-defined]

    def count(self, outcome: str) -> float:
        """How many games had ``outcome`` (points for ``"score"``).

        Raises:
            ValueError: an unknown outcome.
        """
        if outcome == "score":
            return self.points
        if outcome not in _OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; choose one of 'win', 'draw', 'loss' or 'score'.")
        return getattr(self, _OUTCOMES[outcome])

    def rate(self, outcome: str) -> float:
        """The rate of ``outcome``; NaN with no games."""
        return self.count(outcome) / self.games if self.games else float("nan")

    def interval(self, outcome: str) -> tuple[float, float]:
        """The 95% Wilson interval of :meth:`rate` (``(0, 1)`` with no games)."""
        return wilson_interval(self.count(outcome), self.games)
