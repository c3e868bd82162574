"""The interactive k-NN to r-N conversion (Alg. 6) and the conversion metrics of §5.2.

For each query the radius is chosen by the exponential mechanism among candidates
around ``r_unif`` (the radius that would hold k points under uniformity), scored by
how far the ball's count is from k (sensitivity 1); the size |D| behind ``r_unif``
is itself a noisy count with a share :data:`SIZE_SHARE` of the budget.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special
from scipy.spatial import cKDTree

from dpnn import mechanisms
from dpnn._validation import (
    finite_array,
    generator,
    positive_finite,
    positive_int,
    probability_open,
)

from .inputs import check_k_values, check_private_points, check_queries, check_radii

__all__ = [
    "SIZE_SHARE",
    "noisy_size",
    "r_unif",
    "interactive_candidates",
    "convert_interactive",
    "avre",
    "rmse_k",
]


#: Share of the conversion budget spent on a noisy |D| (Laplace, sensitivity 1).
SIZE_SHARE = 0.05


def noisy_size(n_points, epsilon, rng) -> float:
    """``|D| + Lap(1/epsilon)``, floored at 1 afterwards (post-processing):
    ``epsilon``-DP."""
    value = mechanisms.laplace(np.array([float(n_points)]), 1.0, epsilon, rng)[0]
    return max(1.0, float(value))


def r_unif(k, n_points, dimension, volume=1.0):
    """The radius whose ball holds ``k`` points if ``n_points`` were uniform (Alg. 6,
    line 3).

    ``r = (Gamma(d/2 + 1) k vol(Omega) / (n pi^{d/2}))^{1/d}``, in the log domain.
    """
    dimension = positive_int(dimension, "dimension")
    k = finite_array(k, "k")
    if np.any(k < 1):
        raise ValueError("k must be >= 1")
    n_points = positive_finite(n_points, "n_points")
    volume = positive_finite(volume, "volume")
    log_r = (
        special.gammaln(dimension / 2 + 1)
        + np.log(k)
        + math.log(volume)
        - math.log(n_points)
        - dimension / 2 * math.log(math.pi)
    ) / dimension
    return np.exp(log_r)


def interactive_candidates(r_uniform, n_candidates):
    """Alg. 6, line 4: candidates ``o_j = 2 j r_UNIF / n`` for ``j = 1..n``, one row per
    instance."""
    n_candidates = positive_int(n_candidates, "n_candidates")
    return np.asarray(r_uniform, float)[:, None] * (
        2.0 * np.arange(1, n_candidates + 1) / n_candidates
    )


def convert_interactive(
    points, queries, k, epsilon_hat, rng, *, n_candidates=10, size_share=SIZE_SHARE
):
    """Alg. 6: a private radius per k-NN test instance; ``epsilon_hat``-DP in total.

    ``size_share * epsilon_hat`` buys a noisy ``|D|`` for ``r_UNIF`` (the paper
    allows this, §4.3); each of the |X| instances then runs the exponential
    mechanism over the candidates with utility ``-|c_{x,o_j} - k|`` (sensitivity
    1: adding or removing one instance changes every ball count by at most 1) at
    ``(1 - size_share) epsilon_hat / |X|``. Sequential composition gives
    ``epsilon_hat``. Returns the radii, shape (|X|,).

    ``k`` is an integer >= 1 (a scalar or one per instance) and may exceed
    ``|D|``: the utility ``-|c - k|`` needs no change then (it favours the
    candidate holding the most points). Refusing such a k would be a
    deterministic distinguisher of ``|D| < k``.
    """
    points = check_private_points(points)
    queries = check_queries(queries, points.shape[1])
    k = check_k_values(k, queries.shape[0])
    epsilon_hat = positive_finite(epsilon_hat, "epsilon_hat")
    size_share = probability_open(size_share, "size_share")
    rng = generator(rng)
    n_estimate = noisy_size(points.shape[0], size_share * epsilon_hat, rng)
    candidates = interactive_candidates(
        r_unif(k, n_estimate, points.shape[1]), n_candidates
    )
    totals = _ball_counts(points, queries, candidates)
    utilities = -np.abs(totals - k[:, None])
    epsilon_each = (1.0 - size_share) * epsilon_hat / queries.shape[0]
    chosen = mechanisms.exponential(utilities, epsilon_each, 1.0, rng)
    return candidates[np.arange(queries.shape[0]), chosen]


#: Up to this dimension ball counts use a k-d tree; above it, one distance row per test
#: instance.
_TREE_DIMENSIONS = 8


def _ball_counts(points, queries, radii, chunk=1 << 22):
    """``(m, c)`` exact counts of points within distance ``radii[i, j]`` (closed ball)
    of ``queries[i]``.

    In few dimensions a k-d tree answers each radius quickly. Above
    ``_TREE_DIMENSIONS``, one distance row per test instance answers all its candidate
    radii at once (a ``query_ball_point`` per radius rescans the data, which in 64
    dimensions with radii near the diameter is a full scan each time). Each distance is
    summed over one pair's coordinates only, so whether a record is inside a ball never
    depends on the other records: a count still changes by at most 1 per added record.
    """
    n, d = points.shape
    totals = np.zeros(radii.shape, dtype=np.int64)
    if n == 0:
        return totals
    # a k-d tree prunes well in few dimensions: one ball query per radius
    if d <= _TREE_DIMENSIONS:
        tree = cKDTree(points)
        return np.stack(
            [
                tree.query_ball_point(queries, radii[:, j], return_length=True)
                for j in range(radii.shape[1])
            ],
            axis=1,
        ).astype(np.int64)
    rows = max(1, chunk // (n * max(d, radii.shape[1])))
    for start in range(0, queries.shape[0], rows):
        block = queries[start : start + rows]
        distance = np.sqrt(((block[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
        totals[start : start + rows] = (
            distance[:, :, None] <= radii[start : start + rows, None, :]
        ).sum(axis=1)
    return totals


def avre(radii, true_radii) -> float:
    """Average relative error in r, in percent: ``mean |r' - r| / r * 100``."""
    radii, true_radii = np.asarray(radii, float), np.asarray(true_radii, float)
    return float(np.mean(np.abs(radii - true_radii) / true_radii) * 100.0)


def rmse_k(points, queries, radii, true_radii) -> float:
    """RMSE in k (§5.2): ``sqrt(mean (c_{x,r} - c_{x,r'})^2)``, c the number of training
    points within a radius.

    ``true_radii`` are the exact k-th neighbour distances, so ``c_{x,r} >= k``
    (equal to k unless distances tie, as they do on integer-valued data).
    """
    tree = cKDTree(finite_array(points, "points", ndim=(2,)))
    queries = check_queries(queries, tree.m)
    exact = tree.query_ball_point(
        queries, check_radii(true_radii, queries.shape[0]), return_length=True
    )
    reached = tree.query_ball_point(
        queries, check_radii(radii, queries.shape[0]), return_length=True
    )
    return float(np.sqrt(np.mean((exact - reached) ** 2.0)))
