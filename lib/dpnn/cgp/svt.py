"""SVT under GP and the private nearest neighbours PNN and k-PNN (§4.2).

SVT runs K-Lipschitz queries in order and returns the position of the first whose
noisy value falls below a noisy threshold; it is ``epsilon``-GP (App. D). PNN uses it
on the distances from a public query point to the tuple's points. k-PNN runs PNN
``k`` times among the points not yet found: ``epsilon / k`` each under GP (basic
composition), ``rho / k`` each under CGP (Thm 3.2).
"""

from __future__ import annotations

import math

import numpy as np

from dpnn._validation import (
    finite_array,
    generator,
    positive_finite,
    positive_int,
    probability_open,
)

from dpnn import mechanisms

from . import basic
from .basic import check_query, check_tuple, laplace_radius_bound, privacy_budget

__all__ = [
    "SVT_CHUNK",
    "svt_gp",
    "pnn",
    "pnn_on_distances",
    "pnn_bound",
    "query_distances",
    "k_pnn",
    "basic_knn",
    "knn_error",
    "knn_errors",
]


#: Laplace variables of the sparse vector technique are drawn this many at a time (see
#: :func:`_svt_scan`).
SVT_CHUNK = 1024


def _svt_scan(values, threshold, epsilon, lipschitz, rng, max_passes):
    """Unchecked core of :func:`svt_gp`: the Laplace variables of a pass drawn
    :data:`SVT_CHUNK` at a time.

    The scan stops at the first query below the bar, so the variables after it are never
    drawn: the halting position has the law of the one-at-a-time algorithm, and a scan
    that halts early costs what it reads, not a whole pass over ``values``.
    Raises RuntimeError after ``max_passes`` passes without a halt (see :func:`svt_gp`).
    """
    m = values.shape[0]
    # T + W, W ~ Lap(K / eps1)
    bar = mechanisms.laplace(np.array([threshold]), lipschitz, epsilon / 2, rng)[0]
    # g_j + V_j < T + W, V_j ~ Lap(2K / eps2): one exact coin per query and pass
    coins = mechanisms.laplace_below(values, bar, 2 * lipschitz, epsilon / 2)
    for sweep in range(max_passes):
        for start in range(0, m, SVT_CHUNK):
            below = np.flatnonzero(coins.draw(rng, start, start + SVT_CHUNK))
            if below.size:
                return sweep * m + start + int(below[0])
    raise RuntimeError(
        f"SVT did not halt within max_passes={max_passes} passes over the queries"
    )


def svt_gp(values, threshold, epsilon, rng, lipschitz=1.0, max_passes=100_000) -> int:
    """Sparse vector technique under GP (Liang and Yi, Alg. 1): index of the first query
    below T.

    ``values[j] = g_j(x)`` for K-Lipschitz queries g_j; the query sequence is
    ``values`` repeated cyclically (as PNN uses it). With eps1 = eps2 = epsilon / 2,
    W ~ Lap(K / eps1) and V_j ~ Lap(2K / eps2), it returns the 0-based position t
    of the first j with ``g_j(x) + V_j < T + W`` (t may exceed len(values): take
    t mod m). Noise is drawn :data:`SVT_CHUNK` queries at a time; the V_j after the halt
    are never drawn, so the law of t is that of the one-at-a-time algorithm.
    Privacy: epsilon-GP (App. D), hence epsilon^2/2-CGP (Lemma 3.6). As sampled,
    W and the V_j are exact discrete Laplace noise on grids of about 2^-30 K
    (:func:`dpnn.mechanisms.laplace`, which also rounds T and the g_j to them),
    so App. D's shifts of W and V_t go to the next grid point: the loss at
    distance dist is at most ``epsilon dist + 2^-28 epsilon``.

    Truncation. If no query halts within ``max_passes`` passes, RuntimeError is
    raised: a random outcome, not bad input, hence not ValueError. This does not
    weaken the guarantee: the truncated SVT whose outcomes are the halting
    positions plus "did not halt" is still epsilon-GP, because "did not halt" under
    x with noise W implies "did not halt" under x' with W - K dist(x, x') (each
    g_j moves by at most K dist), and shifting W ~ Lap(K / eps1) by K dist costs
    eps1 dist, as for a halting position (App. D). How likely the cap is depends
    on ``values`` and ``threshold``; for PNN see :func:`pnn`.
    """
    values = finite_array(values, "values", ndim=(1,))
    threshold = float(finite_array(threshold, "threshold", ndim=(0,)))
    return _svt_scan(
        values,
        threshold,
        positive_finite(epsilon, "epsilon"),
        positive_finite(lipschitz, "lipschitz"),
        generator(rng),
        positive_int(max_passes, "max_passes"),
    )


def pnn_on_distances(distances, epsilon, gamma0, rng):
    """PNN (Alg. 2) on the distances from the query point to the candidates: the
    position in ``distances`` of the privatized nearest neighbour.

    :func:`pnn` without its input checks: ``distances`` a non-empty float array,
    ``epsilon`` > 0, ``gamma0`` a float and ``rng`` a Generator. Privacy: ``epsilon``-GP
    (hence ``epsilon^2 / 2``-CGP) when each distance is 1-Lipschitz in the user's
    tuple, as distances to a public point are (see :func:`pnn`).
    """
    # line 1: eps/3-GP
    threshold = (
        mechanisms.laplace(np.array([distances.min()]), 1.0, epsilon / 3, rng)[0]
        + gamma0
    )
    # line 2: 2eps/3-GP
    position = _svt_scan(distances, threshold, 2 * epsilon / 3, 1.0, rng, 100_000)
    return position % distances.shape[0]


def pnn(points, query, epsilon, rng, subset=None, gamma0=0.0) -> int:
    """Private nearest neighbour PNN (Liang and Yi, Alg. 2): index of a near neighbour
    of ``query``.

    T = min_{i in I} ||x_i - p|| + Lap(3/epsilon) + gamma0 (the minimum distance
    is 1-Lipschitz, Lemma 4.9), then SVT with 2 epsilon / 3 over the distances
    ||x_i - p||, i in ``subset`` (default all) in increasing index order, cycled.
    Privacy: epsilon-GP (basic composition of epsilon/3 and 2 epsilon/3), hence
    (epsilon^2/2)-CGP. gamma0 > 0 shortens the scan at the price of error
    (Thm 4.10); gamma0 = 0 gives the bound of :func:`pnn_bound` (Thm 4.11).

    The scan is capped at 100,000 passes over the candidates; reaching the cap
    raises RuntimeError, which is one more epsilon-GP outcome of a truncated SVT
    (see :func:`svt_gp`), not a leak. Every pass visits the nearest candidate, so
    the chance of the cap is at most E[(1 - F_V(Z + W + gamma0))^100000] with Z, W ~
    Lap(3/eps), V ~ Lap(6/eps), whatever the data: about 4e-9 for gamma0 >= 0,
    1e-7 at gamma0 = -10/eps, 5e-5 at -30/eps, 0.02 at -50/eps and almost 1 at
    -100/eps. gamma0 is not restricted: Alg. 2 takes gamma0 >= 0, but the Remark
    after Thm 4.11 allows gamma0 < 0 (shorter error, longer scan), and no value
    makes the cap impossible, so there is no sharp valid range to check.
    """
    points = check_tuple(points)
    query = check_query(query, points.shape[1])
    epsilon = positive_finite(epsilon, "epsilon")
    gamma0 = float(finite_array(gamma0, "gamma0", ndim=(0,)))
    candidates = (
        np.arange(len(points)) if subset is None else _subset(subset, len(points))
    )
    distances = np.linalg.norm(points[candidates] - query, axis=1)
    return int(candidates[pnn_on_distances(distances, epsilon, gamma0, generator(rng))])


def _subset(subset, n):
    """The sorted distinct indices of ``subset``, a non-empty 1-D integer array with
    entries in [0, n - 1]."""
    subset = np.asarray(subset)
    if subset.ndim != 1 or subset.size == 0 or subset.dtype.kind not in "iu":
        raise ValueError(
            f"subset must be a non-empty 1-D array of integer indices in [0, {n - 1}], "
            f"got shape {subset.shape} and dtype {subset.dtype}"
        )
    subset = np.unique(subset)
    if subset[0] < 0 or subset[-1] >= n:
        raise ValueError(
            f"subset must be a non-empty 1-D array of integer indices in [0, {n - 1}]"
        )
    return subset


def pnn_bound(m, epsilon, beta) -> float:
    """Thm 4.11 (gamma0 = 0), beta split in three equal parts: PNN's distance exceeds
    the NN's by at most

    ``y1 + y2`` with ``y1 = (3/eps)(sqrt(2 ln(3/beta)) + ln(3/beta))`` (|Z + W|, two
    Lap(3/eps), Lemma 4.3) and ``y2 = (6/eps) ln(4m / (beta/3)^2)`` (the largest of the
    first 4m/beta2 of the V_j ~ Lap(6/eps)), with probability at least 1 - beta. (The
    printed y1, y2 are garbled in our text of the paper; these follow from its proof.)
    """
    m = positive_int(m, "m")
    epsilon = positive_finite(epsilon, "epsilon")
    third = probability_open(beta, "beta") / 3
    return laplace_radius_bound(epsilon / 3, third) + (6 / epsilon) * math.log(
        4 * m / third**2
    )


def query_distances(points, query):
    """The distance ``||x_i - query||`` of every row ``x_i`` of ``points`` to ``query``.

    In 2-D as sqrt(dx^2 + dy^2) on the columns, the same floats as
    ``np.linalg.norm(points - query, axis=1)`` (which adds the two squares in the same
    order), faster. Not private.
    """
    if points.shape[1] != 2:
        return np.linalg.norm(points - query, axis=1)
    dx, dy = points[:, 0] - query[0], points[:, 1] - query[1]
    return np.sqrt(dx * dx + dy * dy)


def k_pnn(
    points, query, k, rng, *, epsilon=None, rho=None, gamma0=0.0, gamma0_per_epsilon=0.0
):
    """k-PNN (Liang and Yi, Alg. 3): k distinct indices, each found by PNN among the
    rest.

    CGP version (``rho``): each of the k PNN calls gets epsilon = sqrt(2 rho / k),
    i.e. rho / k-CGP, and the whole is rho-CGP by Thm 3.2 (error O(sqrt k)).
    GP version (``epsilon``): each call gets epsilon / k, and the whole is epsilon-GP
    by basic composition (error O(k)). Indices are returned in the order found.

    Each PNN call's threshold offset (see :func:`pnn`) is
    ``gamma0 + gamma0_per_epsilon / e`` with ``e`` that call's epsilon, in metres. The
    paper's text uses 0 (the default); the authors' experiment scripts pass
    gamma0 = -6/epsilon, i.e. ``gamma0_per_epsilon=-6``. The offset does not change the
    privacy of a call (Alg. 2 is private for any gamma0).
    """
    kind, budget = privacy_budget(epsilon, rho)
    points = check_tuple(points)
    query = check_query(query, points.shape[1])
    k = positive_int(k, "k")
    if k > len(points):
        raise ValueError(
            f"k must be an integer in [1, {len(points)}] "
            f"(the number of points), got {k}"
        )
    rng = generator(rng)
    step = budget / k if kind == "GP" else math.sqrt(2 * budget / k)
    offset = (
        float(finite_array(gamma0, "gamma0", ndim=(0,)))
        + float(finite_array(gamma0_per_epsilon, "gamma0_per_epsilon", ndim=(0,)))
        / step
    )
    distances = query_distances(points, query)
    remaining = np.ones(len(points), dtype=bool)
    found = np.empty(k, dtype=np.intp)
    for j in range(k):
        candidates = np.flatnonzero(remaining)
        found[j] = candidates[
            pnn_on_distances(distances[candidates], step, offset, rng)
        ]
        remaining[found[j]] = False
    return found


def basic_knn(points, query, k, rng, *, epsilon=None, rho=None):
    """Baseline kNN: release all points with GP Basic / CGP Basic, return the k nearest
    released ones.

    Post-processing of :func:`gp_basic` (epsilon-GP) or :func:`cgp_basic` (rho-CGP).
    """
    kind, budget = privacy_budget(epsilon, rho)
    points = check_tuple(points)
    query = check_query(query, points.shape[1])
    k = positive_int(k, "k")
    if k > len(points):
        raise ValueError(
            f"k must be an integer in [1, {len(points)}] "
            f"(the number of points), got {k}"
        )
    released = (
        basic.gp_basic(points, budget, rng)
        if kind == "GP"
        else basic.cgp_basic(points, budget, rng)
    )
    distances = query_distances(released, query)
    nearest = np.argpartition(distances, k - 1)[:k]
    return nearest[np.argsort(distances[nearest])]


def knn_error(points, query, indices) -> float:
    """Sum of the true distances of the returned neighbours over that of the true k
    nearest (§5, Fig. 3-4).

    Always >= 1; 1 means the true k nearest neighbours were returned.
    """
    points = check_tuple(points)
    query = check_query(query, points.shape[1])
    indices = np.asarray(indices)
    if (
        indices.ndim != 1
        or indices.size == 0
        or indices.dtype.kind not in "iu"
        or np.unique(indices).size != indices.size
        or indices.min() < 0
        or indices.max() >= len(points)
    ):
        raise ValueError(
            "indices must be a non-empty list of distinct point indices in [0, "
            f"{len(points) - 1}]"
        )
    return knn_errors(query_distances(points, query), [indices])[0]


def knn_errors(distances, found):
    """:func:`knn_error` of each index array in ``found`` (all of one size k, each
    checked as :func:`knn_error` checks it), from the distances of all the points to
    the query (:func:`query_distances`; the true k nearest summed once)."""
    k = found[0].size
    best = np.sum(np.partition(distances, k - 1)[:k])
    if best == 0:
        raise ValueError(
            "query coincides with its k nearest "
            "points; the normalized error is undefined"
        )
    return [float(np.sum(distances[indices]) / best) for indices in found]
