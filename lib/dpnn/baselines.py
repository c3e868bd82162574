"""GEO: the geo-indistinguishability baseline the thesis compares DP-TT against (§6)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from dpnn._validation import finite_array, generator, positive_finite, positive_int
from dpnn.mechanisms import laplace_ball, planar_laplace

__all__ = ["perturb_location", "geo_nn"]


def perturb_location(queries, epsilon, rng):
    """Perturb query locations for epsilon-geo-indistinguishability.

    ``queries`` has shape ``(n, d)``: one row per query, also for one query
    (``(1, 2)``) and on the line (``(n, 1)``); any other shape is a
    ``ValueError``, so a single 2-D location can never be read as two 1-D
    queries. Rows of dimension 2 get planar Laplace noise (Andrés et al.);
    other dimensions the d-dimensional Laplace of density proportional to
    ``exp(-epsilon ||z||)`` (for d = 1 the ordinary Laplace with scale
    ``1 / epsilon``). Returns an array of the same shape.

    Privacy: each query location is epsilon-geo-indistinguishable (epsilon per
    unit of the coordinates).
    """
    queries = finite_array(queries, "queries", ndim=(2,))
    if queries.shape[1] == 2:
        return planar_laplace(queries, epsilon, rng)
    return laplace_ball(queries, epsilon, rng)


def geo_nn(points, queries, epsilon, k, rng):
    """GEO: the k nearest neighbours in ``points`` of each geo-indistinguishable query.

    The client perturbs each query with :func:`perturb_location` and the server
    answers the exact k-NN of the perturbed location (``scipy.spatial.cKDTree``).
    ``points`` has shape ``(n, d)`` (or ``(n,)`` on the line). ``queries`` has
    shape ``(m, d)``; on the line ``(m,)`` is also read as m queries.
    Returns an int array of indices into ``points``, shape ``(m, k)``.

    Privacy: epsilon-geo-indistinguishability of each query location; the
    server's answer is post-processing of the perturbed location.
    """
    points = finite_array(points, "points", ndim=(1, 2))
    queries = finite_array(queries, "queries", ndim=(1, 2))
    epsilon = positive_finite(epsilon, "epsilon")
    k = positive_int(k, "k")
    if k > len(points):
        raise ValueError(f"k must be between 1 and len(points)={len(points)}, got {k}")
    data = points.reshape(len(points), -1)
    if queries.ndim == 1 and data.shape[1] == 1:
        queries = queries.reshape(-1, 1)
    if queries.ndim != 2 or queries.shape[1] != data.shape[1]:
        raise ValueError(
            f"queries must have shape (m, {data.shape[1]}) like points, got shape "
            f"{queries.shape}"
        )
    noisy = perturb_location(queries, epsilon, generator(rng))
    _, index = cKDTree(data).query(noisy, k=k)
    return np.asarray(index, dtype=np.intp).reshape(len(queries), k)


__all__ += ["geo_mse", "epsilon_for_mse"]


def geo_mse(epsilon, dimension) -> float:
    """Exact mean squared displacement of :func:`perturb_location` in ``dimension``
    dimensions.

    The noise has density proportional to ``exp(-epsilon ||z||)``, so its radius is
    Gamma(d, 1/epsilon) (planar Laplace: Gamma(2, 1/epsilon)) and
    ``E ||z||^2 = d (d + 1) / epsilon^2``: 2/epsilon^2 on the line, 6/epsilon^2 in the
    plane.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    d = positive_int(dimension, "dimension")
    return d * (d + 1) / epsilon**2


def epsilon_for_mse(mse_of_epsilon, target, low=1e-6, high=1e6) -> float:
    """The epsilon in [low, high] at which a decreasing ``mse_of_epsilon`` equals
    ``target``.

    For MSE-matched comparisons: pass an exact MSE (``geo_mse``, the mean of
    ``square_mechanism_mse`` or ``lsrr_mse`` over the queries). Bisection in log
    epsilon (relative error 1e-10). A target outside the function's range on
    [low, high] is a ``ValueError``: a bounded domain caps every mechanism's MSE.
    """
    from scipy.optimize import brentq

    target = positive_finite(target, "target")
    low, high = positive_finite(low, "low"), positive_finite(high, "high")
    if not low < high:
        raise ValueError(f"low must be below high, got {low} and {high}")
    at_low, at_high = float(mse_of_epsilon(low)), float(mse_of_epsilon(high))
    if not at_high <= target <= at_low:
        raise ValueError(
            f"target must lie between the MSE at high ({at_high:.6g}) and at low "
            f"({at_low:.6g}), "
            f"got {target:.6g}"
        )
    return float(
        np.exp(
            brentq(
                lambda t: np.log(mse_of_epsilon(np.exp(t))) - np.log(target),
                np.log(low),
                np.log(high),
                xtol=1e-10,
            )
        )
    )
