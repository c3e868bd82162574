"""The baseline: a random projection of unit rows plus Gaussian noise (Dhaliwal et al.).

The noise is calibrated to the projection's sensitivity under the same neighbouring
relation, with the classical or the analytic (Balle and Wang) Gaussian mechanism, so
the release is ``(epsilon, delta)``-DP.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from dpnn._validation import generator, positive_finite, positive_int, probability_open

from . import flips, simhash
from .simhash import check_rows

__all__ = [
    "gaussian_sigma_classical",
    "gaussian_delta",
    "gaussian_sigma_analytic",
    "projection_sensitivity",
    "GaussianRelease",
    "gaussian_projection",
    "squared_distance_estimate",
    "unit_rows",
]


def gaussian_sigma_classical(sensitivity, epsilon, delta) -> float:
    """Classical Gaussian calibration
    ``sigma = Delta sqrt(2 ln(1.25 / delta)) / epsilon``.

    Dwork and Roth, *The Algorithmic Foundations of Differential Privacy* (2014),
    Thm A.1: N(0, sigma^2) noise on a query of L2 sensitivity Delta is
    (epsilon, delta)-DP for epsilon in (0, 1). Larger epsilon raises ValueError.
    """
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    if epsilon >= 1:
        raise ValueError(
            f"epsilon must be in (0, 1) for the classical calibration, got {epsilon!r}"
        )
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def gaussian_delta(sigma, sensitivity, epsilon) -> float:
    """Exact delta of the Gaussian mechanism at epsilon (Balle and Wang, ICML 2018, Thm
    8).

    ``delta = Phi(Delta/(2 sigma) - epsilon sigma/Delta)
    - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta)``,
    the smallest delta for which N(0, sigma^2) noise is (epsilon, delta)-DP. Evaluated
    with log-CDFs so large epsilon does not overflow.
    """
    sigma = positive_finite(sigma, "sigma")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    first = stats.norm.cdf(a - b)
    second = math.exp(epsilon + stats.norm.logcdf(-a - b))
    return float(max(first - second, 0.0))


def gaussian_sigma_analytic(sensitivity, epsilon, delta) -> float:
    """The smallest sigma with (epsilon, delta)-DP: the analytic Gaussian mechanism.

    Balle and Wang (ICML 2018), Thm 8 and Alg. 1: :func:`gaussian_delta` is
    decreasing in sigma, so we solve ``gaussian_delta(sigma) = delta`` with
    Brent's method (relative tolerance 1e-12). Valid for every epsilon > 0 and
    never larger than the classical calibration where that applies.
    """
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    lo, hi = 1e-3 * sensitivity, sensitivity
    while gaussian_delta(hi, sensitivity, epsilon) > delta:
        hi *= 2
    while gaussian_delta(lo, sensitivity, epsilon) < delta:
        lo /= 2
    return float(
        optimize.brentq(
            lambda s: gaussian_delta(s, sensitivity, epsilon) - delta,
            lo,
            hi,
            xtol=1e-14 * sensitivity,
            rtol=1e-12,
        )
    )


def projection_sensitivity(k, alpha, delta) -> float:
    """L2 sensitivity of ``R u / sqrt(k)`` for unit rows at angle <= alpha, except w.p.
    delta over R.

    ``||u - u'|| <= 2 sin(alpha / 2)`` for unit vectors, and
    ``k ||R v / sqrt(k)||^2 / ||v||^2 ~ chi^2_k`` for any fixed v. So with
    probability >= 1 - delta the projected rows are within
    ``2 sin(alpha/2) sqrt(chi^2_k(1 - delta) / k)``, chi^2_k(.) the quantile
    (the exact form of the JL step in Kenthapadi et al. 2013, Lemma 2).
    """
    k = positive_int(k, "k")
    alpha = flips.check_alpha(alpha)
    delta = probability_open(delta, "delta")
    return 2 * math.sin(alpha / 2) * math.sqrt(stats.chi2.isf(delta, k) / k)


class GaussianRelease:
    """What the baseline publishes: the projection, the noisy projected rows and the
    parameters."""

    def __init__(
        self, r, points, epsilon, delta, alpha, sensitivity, sigma, calibration
    ):
        self.r = r
        self.points = points
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.sensitivity = sensitivity
        self.sigma = sigma
        self.calibration = calibration

    def project(self, queries) -> np.ndarray:
        """Queries mapped the same way as the released rows: unit length, then R q /
        sqrt(k)."""
        q = unit_rows(check_rows(queries, "queries"))
        return q @ self.r.T / math.sqrt(self.r.shape[0])

    def __repr__(self):
        n, k = self.points.shape
        return (
            f"GaussianRelease(n={n}, k={k}, epsilon={self.epsilon}, "
            f"delta={self.delta}, "
            f"alpha={self.alpha:.4g}, sensitivity={self.sensitivity:.4g}, "
            f"sigma={self.sigma:.4g})"
        )


def unit_rows(x) -> np.ndarray:
    """Each row of the (n, d) array ``x`` divided by its Euclidean norm; ValueError if a
    row is zero (it has no direction)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("x must have no zero rows (they have no direction)")
    return x / norms


def gaussian_projection(
    x, k, epsilon, delta, alpha, rng, calibration: str = "analytic", split: float = 0.5
) -> GaussianRelease:
    """Baseline release: unit rows, ``R u / sqrt(k)`` plus N(0, sigma^2) noise per
    coordinate.

    The budget delta is split: ``split * delta`` for the event that R stretches
    the difference of two neighbours beyond :func:`projection_sensitivity`, the
    rest for the Gaussian mechanism on that sensitivity, calibrated with
    ``calibration="analytic"`` (Balle and Wang 2018) or ``"classical"``
    (Dwork and Roth Thm A.1, epsilon < 1 only).

    Privacy: (epsilon, delta)-DP for the pair (R, Z) under "replace one row by
    one at angle <= alpha" (same conditioning argument as SimRand; notebook 12),
    for the continuous Gaussian law. As sampled the noise is numpy's float
    Gaussian, as the baseline's authors draw it: the analytic calibration is a
    statement about the continuous law, and none is proved here for a discrete
    one (``dpnn.mechanisms.gaussian`` is exact but comes with a zCDP
    guarantee), so this comparator keeps the float sampler and its guarantee
    holds for the ideal law only.
    """
    x = unit_rows(check_rows(x))
    k = positive_int(k, "k")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    alpha = flips.check_alpha(alpha)
    split = probability_open(split, "split")
    rng = generator(rng)
    r = simhash.projection(k, x.shape[1], rng)
    sensitivity = projection_sensitivity(k, alpha, split * delta)
    if calibration == "analytic":
        sigma = gaussian_sigma_analytic(sensitivity, epsilon, (1 - split) * delta)
    elif calibration == "classical":
        sigma = gaussian_sigma_classical(sensitivity, epsilon, (1 - split) * delta)
    else:
        raise ValueError(
            f"calibration must be 'analytic' or 'classical', got {calibration!r}"
        )
    points = x @ r.T / math.sqrt(k) + rng.normal(0.0, sigma, size=(x.shape[0], k))
    return GaussianRelease(
        r, points, epsilon, delta, alpha, sensitivity, sigma, calibration
    )


def squared_distance_estimate(released, projected_queries, sigma) -> np.ndarray:
    """Unbiased estimate of ``||u - q||^2`` for every (query, row) pair: (m, n).

    ``E||z - R q / sqrt(k)||^2 = ||u - q||^2 + k sigma^2`` (JL in expectation plus
    the noise), so subtract ``k sigma^2``. For unit vectors the angle follows
    from ``||u - q||^2 = 2 - 2 cos theta``.
    """
    z = np.atleast_2d(np.asarray(released, dtype=float))
    q = np.atleast_2d(np.asarray(projected_queries, dtype=float))
    sq = np.sum(q**2, axis=1)[:, None] - 2 * q @ z.T + np.sum(z**2, axis=1)[None, :]
    return sq - z.shape[1] * sigma**2
