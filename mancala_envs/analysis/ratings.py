"""Bradley-Terry ratings on the Elo scale, fitted to the results of games between agents.

:func:`fit_ratings` fits the model ``P(i beats j) = 1 / (1 + exp(-(b_i - b_j)))`` by maximum likelihood, a draw
counted as half a win for each side, with ``prior_draws`` virtual drawn games per pair that played (see
:mod:`mancala_envs.analysis.tournament`, "Ratings", for the model, the intervals and why scipy). :class:`Ratings`
holds the result. Tournaments (:mod:`mancala_envs.analysis.tournament`) rate their agents with it.

``fit_ratings(..., pin="random")`` reports the ratings relative to one named agent (held at 0, interval ``[0, 0]``)
instead of their mean; :func:`fit_fixed_rating` fits one new agent against agents whose ratings are held fixed (a
one-dimensional maximum likelihood with the observed-information interval): what the ladder
(:mod:`mancala_envs.analysis.ladder`) places an agent with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["ELO_PER_UNIT", "INSTALL_HINT", "FixedRating", "Ratings", "fit_fixed_rating", "fit_ratings", "require"]

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
    """Bradley-Terry ratings on the Elo scale, centred on a mean of 0 (or on ``pinned``'s rating), with Wald intervals.

    ``covariance`` is the covariance matrix of ``elo`` (Elo squared) from the observed information. ``pinned`` is
    the agent held at 0 (its variance 0), or ``None`` when the ratings are centred on their mean.
    """

    agents: tuple[str, ...]
    elo: np.ndarray
    covariance: np.ndarray
    level: float = 0.95
    prior_draws: float = 1.0
    pinned: str | None = None

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
    pin: str | None = None,
) -> Ratings:
    """Fits Bradley-Terry ratings by maximum likelihood, a draw being half a win for each side.

    Args:
        points: ``points[i][j]``: agent ``i``'s points against agent ``j`` (wins + draws / 2).
        games: ``games[i][j]``: games between ``i`` and ``j`` (symmetric, zero diagonal).
        agents: The names (default ``"0"``, ``"1"``, ...).
        prior_draws: Virtual drawn games added to every pair that played (keeps the ratings of
            an unbeaten agent finite); 0 for the plain maximum-likelihood estimate.
        level: The confidence level of the intervals.
        pin: The name of an agent whose rating is held at 0 (its interval ``[0, 0]``; the others' intervals are
            those of their difference to it), instead of centring the ratings on their mean.

    Returns:
        The ratings on the Elo scale (mean 0, or ``pin`` at 0) with their covariance.

    Raises:
        ImportError: scipy is missing.
        ValueError: malformed matrices, fewer than two agents, a comparison graph in pieces, or
            (with ``prior_draws=0``) results that separate the agents, so that some rating is infinite; a ``pin``
            that names none of the agents.

    Example:
        >>> ratings = fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]], ["a", "b"], prior_draws=0)
        >>> [round(float(elo), 2) for elo in ratings.elo]   # mean 0
        [95.42, -95.42]
        >>> round(ratings.difference(0, 1)[0], 2)            # 75% score: ln 3 units, 190.85 Elo
        190.85
        >>> pinned = fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]], ["a", "b"], prior_draws=0, pin="b")
        >>> [round(float(elo), 2) for elo in pinned.elo], pinned.interval(1)   # b at 0
        ([190.85, 0.0], (0.0, 0.0))
    """
    optimize = require("scipy.optimize", "fitting the ratings")
    points, games, names = _checked_results(points, games, agents, prior_draws, level)
    if pin is not None and pin not in names:
        raise ValueError(f"pin must be one of the agents {list(names)}, or None for ratings of mean 0 (got {pin!r}).")
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
    if pin is None:
        centre = np.eye(size) - 1 / size  # ratings relative to their mean
    else:
        centre = np.eye(size)
        centre[:, names.index(pin)] -= 1  # ratings relative to the pinned agent's
    return Ratings(
        agents=names,
        elo=ELO_PER_UNIT * (centre @ b),
        covariance=ELO_PER_UNIT**2 * (centre @ covariance @ centre.T),
        level=level,
        prior_draws=float(prior_draws),
        pinned=pin,
    )


@dataclass(frozen=True)
class FixedRating:
    """One agent's rating fitted against opponents of fixed ratings (:func:`fit_fixed_rating`), on the Elo scale.

    Attributes:
        elo: The maximum-likelihood rating.
        se: Its standard error, from the observed information (the opponents' own uncertainty is not in it).
        level: The confidence level of :attr:`interval`.
    """

    elo: float
    se: float
    level: float = 0.95

    @property
    def interval(self) -> tuple[float, float]:
        """The Wald interval ``elo -/+ z * se``."""
        half = NormalDist().inv_cdf(0.5 + self.level / 2) * self.se
        return self.elo - half, self.elo + half


def fit_fixed_rating(
    opponents: npt.ArrayLike,
    points: npt.ArrayLike,
    games: npt.ArrayLike,
    prior_draws: float = 1.0,
    level: float = 0.95,
    covariance: npt.ArrayLike | None = None,
) -> FixedRating:
    """Fits one agent's Bradley-Terry rating against opponents whose ratings are held fixed.

    The rating ``x`` maximises ``sum_k s_k log p_k + (n_k - s_k) log(1 - p_k)`` with
    ``p_k = 1 / (1 + exp(-(x - r_k)))`` (Bradley-Terry units), ``s_k`` the points scored against opponent ``k``
    (wins + draws / 2) plus ``prior_draws / 2`` and ``n_k`` its games plus ``prior_draws``, as
    :func:`fit_ratings` counts them. The log-likelihood is concave in ``x``; it is maximised by Newton steps kept
    inside a bracket of the root of its derivative. The standard error is ``1 / sqrt(sum_k n_k p_k (1 - p_k))``,
    the observed information at the maximum. With ``covariance`` (the opponents' ratings' covariance, Elo
    squared) the opponents' uncertainty is added by the delta method: ``x`` moves with the opponents' ratings by
    ``dx / dr_k = w_k / sum_l w_l``, ``w_k = n_k p_k (1 - p_k)``, so ``se^2 = 1 / sum w + g' C g`` with
    ``g = w / sum w``.

    Args:
        opponents: The opponents' fixed ratings (Elo).
        points: The agent's points against each (wins + draws / 2).
        games: The games against each.
        prior_draws: Virtual drawn games added against each opponent that was played (as in :func:`fit_ratings`).
        level: The confidence level of the interval.
        covariance: The covariance matrix of the opponents' ratings (Elo squared), or ``None`` to hold them exact.

    Returns:
        The rating and its standard error, on the Elo scale of ``opponents``.

    Raises:
        ValueError: arrays of different lengths, empty, not finite, negative games or points above the games, no
            game played, a ``covariance`` that is not a finite square matrix of the opponents' size, or (with
            ``prior_draws=0``) all points won or all lost, so that the rating is infinite.

    Example:
        >>> fitted = fit_fixed_rating([0.0], [30], [40], prior_draws=0)   # 75% against an agent rated 0
        >>> round(fitted.elo, 2), round(fitted.se, 2)                     # ln 3 units; 1 / sqrt(40 * 3/16) units
        (190.85, 63.43)
    """
    ratings = np.asarray(opponents, dtype=float)
    scored = np.asarray(points, dtype=float)
    trials = np.asarray(games, dtype=float)
    if ratings.ndim != 1 or ratings.shape != scored.shape or ratings.shape != trials.shape or not len(ratings):
        raise ValueError(
            f"opponents, points and games must be 1-D arrays of one length >= 1 (got shapes {ratings.shape}, "
            f"{scored.shape} and {trials.shape})."
        )
    if not (np.isfinite(ratings).all() and np.isfinite(scored).all() and np.isfinite(trials).all()):
        raise ValueError("opponents, points and games must be finite numbers.")
    if np.any(trials < 0) or np.any(scored < 0) or np.any(scored > trials):
        raise ValueError("games must be >= 0 and points between 0 and the games against each opponent.")
    if not (isinstance(prior_draws, (int, float)) and not isinstance(prior_draws, bool) and prior_draws >= 0):
        raise ValueError(f"prior_draws must be a number >= 0 (got {prior_draws!r}).")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1) (got {level!r}).")
    if covariance is not None:
        covariance = np.asarray(covariance, dtype=float)
        if covariance.shape != (len(ratings), len(ratings)) or not np.isfinite(covariance).all():
            raise ValueError(
                f"covariance must be a finite {len(ratings)} x {len(ratings)} matrix, one row per opponent (got "
                f"shape {covariance.shape})."
            )
    played = trials > 0
    if not played.any():
        raise ValueError("no game was played: a rating needs at least one game against a rated opponent.")
    units = ratings[played] / ELO_PER_UNIT
    scored = scored[played] + prior_draws / 2
    trials = trials[played] + prior_draws
    if scored.sum() <= 0 or scored.sum() >= trials.sum():
        raise ValueError(
            "the agent won every point or lost every point, so its maximum-likelihood rating is infinite; "
            "use prior_draws > 0."
        )

    def slope(x: float) -> float:  # the derivative of the log-likelihood: decreasing in x
        return float(np.sum(scored - trials / (1 + np.exp(-(x - units)))))

    def information(x: float) -> float:
        p = 1 / (1 + np.exp(-(x - units)))
        return float(np.sum(trials * p * (1 - p)))

    low, high = float(units.min()) - 1.0, float(units.max()) + 1.0
    while slope(low) < 0:
        low -= 2 * (high - low)
    while slope(high) > 0:
        high += 2 * (high - low)
    x = (low + high) / 2
    for _ in range(200):
        gradient = slope(x)
        if abs(gradient) <= 1e-12 * float(trials.sum()) or high - low < 1e-13:
            break
        if gradient > 0:
            low = x
        else:
            high = x
        step = x + gradient / information(x)
        x = step if low < step < high else (low + high) / 2
    variance = ELO_PER_UNIT**2 / information(x)
    if covariance is not None:
        p = 1 / (1 + np.exp(-(x - units)))
        weight = np.zeros(len(ratings))
        weight[played] = trials * p * (1 - p)
        weight /= weight.sum()
        variance += max(float(weight @ covariance @ weight), 0.0)
    return FixedRating(elo=ELO_PER_UNIT * x, se=math.sqrt(variance), level=level)


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
