"""GEO: the geo-indistinguishability baseline the thesis compares DP-TT against (§6)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from dpnn._validation import finite_array, generator, positive_finite, positive_int
from dpnn.mechanisms import laplace_ball, planar_laplace

__all__ = ["perturb_location", "geo_nn"]


def perturb_location(queries, epsilon, rng):
    """Perturb query locations for epsilon-geo-indistinguishability.

    Planar Laplace (Andrés et al.) for 2-D queries of shape ``(n, 2)``; the
    d-dimensional Laplace of density proportional to ``exp(-epsilon ||z||)``
    otherwise (the ordinary Laplace with scale ``1 / epsilon`` for 1-D queries
    of shape ``(n,)``).

    Privacy: each query location is epsilon-geo-indistinguishable (epsilon per
    unit of the coordinates).
    """
    queries = finite_array(queries, "queries", ndim=(1, 2))
    if queries.ndim == 2 and queries.shape[1] == 2:
        return planar_laplace(queries, epsilon, rng)
    return laplace_ball(queries, epsilon, rng)


def geo_nn(points, queries, epsilon, k, rng):
    """GEO: the k nearest neighbours in ``points`` of each geo-indistinguishable query.

    The client perturbs each query with :func:`perturb_location` and the server
    answers the exact k-NN of the perturbed location (``scipy.spatial.cKDTree``).
    Returns an int array of indices into ``points``, shape ``(n_queries, k)``.

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
    if queries.reshape(len(queries), -1).shape[1] != data.shape[1]:
        raise ValueError(
            f"queries must have the dimension of points ({data.shape[1]}), got shape {queries.shape}"
        )
    noisy = perturb_location(queries, epsilon, generator(rng)).reshape(len(queries), -1)
    _, index = cKDTree(data).query(noisy, k=k)
    return np.asarray(index, dtype=np.intp).reshape(len(queries), k)
