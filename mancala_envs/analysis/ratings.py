"""Bradley-Terry ratings on the Elo scale, fitted to the results of games between agents.

:func:`fit_ratings` fits the model ``P(i beats j) = 1 / (1 + exp(-(b_i - b_j)))`` by maximum likelihood, a draw
counted as half a win for each side, with ``prior_draws`` virtual drawn games per pair that played (see
:mod:`mancala_envs.analysis.tournament`, "Ratings", for the model, the intervals and why scipy). :class:`Ratings`
holds the result. Tournaments (:mod:`mancala_envs.analysis.tournament`) rate their agents with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["ELO_PER_UNIT", "INSTALL_HINT", "Ratings", "fit_ratings", "require"]

#: Elo points per Bradley-Terry unit (natural-log odds): ``400 / ln 10``.
ELO_PER_UNIT = 400 / math.log(10)
#: How to install what ratings, plots and progress bars need (the ``tournament`` extra).
INSTALL_HINT = "pip install 'mancala-envs[tournament]'"


def require(module: str, purpose: str) -> Any:
    """Imports ``module`` (of the ``tournament`` extra: scipy, matplotlib, tqdm) or raises an ``ImportError`` that
    names the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{purpose} needs {module.split('.')[0]} ({INSTALL_HINT})", name=error.name) from None


@dataclass(frozen=True, eq=False)
class Ratings:
    """Bradley-Terry ratings on the Elo scale, centred on a mean of 0, with Wald intervals.

    ``covariance`` is the covariance matrix of ``elo`` (Elo squared) from the observed information.
    """

    agents: tuple[str, ...]
    elo: np.ndarray
    covariance: np.ndarray
    level: float = 0.95
    prior_draws: float = 1.0

    @property
    def se(self) -> np.ndarray:
        """The standard errors of ``elo``."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    @property
    def z(self) -> float:
        return NormalDist().inv_cdf(0.5 + self.level / 2)

    def interval(self, index: int) -> tuple[float, float]:
        """The interval of agent ``index``'s rating."""
        half = self.z * float(self.se[index])
        return float(self.elo[index]) - half, float(self.elo[index]) + half

    def difference(self, i: int, j: int) -> tuple[float, float, float]:
        """Agent ``i``'s rating minus agent ``j``'s, with its interval: ``(difference, low, high)``."""
        variance = self.covariance[i, i] + self.covariance[j, j] - 2 * self.covariance[i, j]
        value = float(self.elo[i] - self.elo[j])
        half = self.z * math.sqrt(max(float(variance), 0.0))
        return value, value - half, value + half

    def expected_score(self, i: int, j: int) -> float:
        """The model's expected score of agent ``i`` against agent ``j``."""
        return 1 / (1 + math.exp(-(self.elo[i] - self.elo[j]) / ELO_PER_UNIT))

    def order(self) -> list[int]:
        """Agent indices from the highest rating to the lowest (ties in the given order)."""
        return sorted(range(len(self.agents)), key=lambda index: -self.elo[index])


def fit_ratings(
    points: npt.ArrayLike,
    games: npt.ArrayLike,
    agents: Sequence[str] | None = None,
    prior_draws: float = 1.0,
    level: float = 0.95,
) -> Ratings:
    """Fits Bradley-Terry ratings by maximum likelihood, a draw being half a win for each side.

    Args:
        points: ``points[i][j]``: agent ``i``'s points against agent ``j`` (wins + draws / 2).
        games: ``games[i][j]``: games between ``i`` and ``j`` (symmetric, zero diagonal).
        agents: The names (default ``"0"``, ``"1"``, ...).
        prior_draws: Virtual drawn games added to every pair that played (keeps the ratings of
            an unbeaten agent finite); 0 for the plain maximum-likelihood estimate.
        level: The confidence level of the intervals.

    Returns:
        The ratings on the Elo scale (mean 0) with their covariance.

    Raises:
        ImportError: scipy is missing.
        ValueError: malformed matrices, fewer than two agents, a comparison graph in pieces, or
            (with ``prior_draws=0``) results that separate the agents, so that some rating is infinite.

    Example:
        >>> ratings = fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]], ["a", "b"], prior_draws=0)
        >>> [round(float(elo), 2) for elo in ratings.elo]   # mean 0
        [95.42, -95.42]
        >>> round(ratings.difference(0, 1)[0], 2)            # 75% score: ln 3 units, 190.85 Elo
        190.85
    """
    optimize = require("scipy.optimize", "fitting the ratings")
    points, games, names = _checked_results(points, games, agents, prior_draws, level)
    size = len(names)
    low, high = np.nonzero(np.triu(games) > 0)
    trials = games[low, high] + prior_draws
    scored = points[low, high] + prior_draws / 2  # the lower index's points
    _check_connected(size, low, high, scored, trials, names)
    model = _BradleyTerry(size, low, high, scored, trials)
    fit = optimize.minimize(
        model.negative_log_likelihood,
        np.zeros(size - 1),
        jac=model.gradient,
        hess=lambda free: model.information(free)[1:, 1:],
        method="trust-exact",
        options={"gtol": 1e-9 * max(1.0, float(trials.sum()))},
    )
    # Near the maximum the model's predicted gains reach rounding level; a tiny gradient is success.
    if not fit.success and np.abs(model.gradient(fit.x)).max() > 1e-6 * max(1.0, float(trials.sum())):
        raise RuntimeError(f"the rating fit did not converge: {fit.message}")
    b = model.strengths(fit.x)
    covariance = np.zeros((size, size))
    covariance[1:, 1:] = np.linalg.inv(model.information(fit.x)[1:, 1:])
    centre = np.eye(size) - 1 / size  # ratings relative to their mean
    return Ratings(
        agents=names,
        elo=ELO_PER_UNIT * (centre @ b),
        covariance=ELO_PER_UNIT**2 * (centre @ covariance @ centre.T),
        level=level,
        prior_draws=float(prior_draws),
    )


def _checked_results(
    points: npt.ArrayLike, games: npt.ArrayLike, agents: Sequence[str] | None, prior_draws: float, level: float
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """:func:`fit_ratings`'s arguments checked: the two matrices as float arrays, and the agents' names."""
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    size = points.shape[0] if points.ndim == 2 else 0
    if points.ndim != 2 or points.shape != (size, size) or games.shape != points.shape or size < 2:
        raise ValueError(
            f"points and games must be square matrices of one size >= 2 (got {points.shape} and {games.shape})."
        )
    if not np.allclose(games, games.T) or np.any(games < 0) or np.any(np.diag(games) != 0):
        raise ValueError("games must be symmetric, non-negative, with a zero diagonal.")
    if np.any(points < 0) or not np.allclose(points + points.T, games):
        raise ValueError("points[i][j] + points[j][i] must equal games[i][j] (every game shares one point).")
    if not (isinstance(prior_draws, (int, float)) and prior_draws >= 0):
        raise ValueError(f"prior_draws must be a number >= 0 (got {prior_draws!r}).")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1) (got {level!r}).")
    names = tuple(str(index) for index in range(size)) if agents is None else tuple(agents)
    if len(names) != size:
        raise ValueError(f"{len(names)} agent names for {size} agents.")
    return points, games, names


class _BradleyTerry:
    """The Bradley-Terry likelihood of the pairs that played (``low[k]`` against ``high[k]``: ``scored[k]`` points of
    ``trials[k]``), as functions of the free strengths (agent 0 is held at 0 while fitting)."""

    def __init__(self, size: int, low: np.ndarray, high: np.ndarray, scored: np.ndarray, trials: np.ndarray) -> None:
        self.size = size
        self.low = low
        self.high = high
        self.scored = scored
        self.trials = trials

    def strengths(self, free: np.ndarray) -> np.ndarray:
        """Every agent's strength: agent 0's 0, then ``free``."""
        return np.concatenate([[0.0], free])

    def negative_log_likelihood(self, free: np.ndarray) -> float:
        b = self.strengths(free)
        gap = b[self.low] - b[self.high]
        return float(np.sum(self.scored * np.logaddexp(0, -gap) + (self.trials - self.scored) * np.logaddexp(0, gap)))

    def gradient(self, free: np.ndarray) -> np.ndarray:
        """The gradient of :meth:`negative_log_likelihood` in the free strengths."""
        b = self.strengths(free)
        residual = self.scored - self.trials / (1 + np.exp(-(b[self.low] - b[self.high])))
        full = np.zeros(self.size)
        np.add.at(full, self.low, -residual)
        np.add.at(full, self.high, residual)
        return full[1:]

    def information(self, free: np.ndarray) -> np.ndarray:
        """The observed information (the Hessian of :meth:`negative_log_likelihood`) in every strength."""
        b = self.strengths(free)
        p = 1 / (1 + np.exp(-(b[self.low] - b[self.high])))
        weight = self.trials * p * (1 - p)
        low, high = self.low, self.high
        laplacian = np.zeros((self.size, self.size))
        np.add.at(laplacian, (low, low), weight)
        np.add.at(laplacian, (high, high), weight)
        np.add.at(laplacian, (low, high), -weight)
        np.add.at(laplacian, (high, low), -weight)
        return laplacian


def _check_connected(
    size: int, low: np.ndarray, high: np.ndarray, scored: np.ndarray, trials: np.ndarray, names: tuple[str, ...]
) -> None:
    """Raises ``ValueError`` unless the maximum-likelihood ratings are finite.

    They are when every agent reaches every other through "scored against" links (Zermelo's
    condition: the directed graph of who scored against whom is strongly connected). With virtual
    draws every pair that played is linked both ways, so only agents that never met can fail.
    """
    scored_against = np.eye(size, dtype=bool)
    scored_against[low, high] |= scored > 0
    scored_against[high, low] |= trials - scored > 0
    met = scored_against | scored_against.T
    if not _closure(met).all():
        raise ValueError("the agents fall into groups that never met; ratings compare agents only through games.")
    reach = _closure(scored_against)
    if not reach.all():
        i, j = map(int, np.argwhere(~reach)[0])
        raise ValueError(
            f"the results separate the agents: {names[i]!r} never scored against {names[j]!r}, directly or "
            "through others, so the maximum-likelihood ratings are infinite; use prior_draws > 0."
        )


def _closure(links: np.ndarray) -> np.ndarray:
    """The transitive closure of a reflexive boolean adjacency matrix."""
    reach = links.astype(np.int64)
    for _ in range(max(1, int(np.ceil(np.log2(len(links)))))):
        reach = (reach @ reach > 0).astype(np.int64)
    return reach > 0
