"""Concentrated geo-privacy (Liang and Yi, CCS 2023): Gaussian mechanism, SVT, PNN, k-PNN, PCH.

Source: Liang and Yi, Concentrated Geo-Privacy, CCS 2023 (our text is an OCR conversion; where a formula is unreadable it is
re-derived here from the definitions and proofs around it, and the notebook
``11_concentrated_geo_privacy.ipynb`` says which).

Setting. One user holds an n-tuple of points x = (x_1, ..., x_n) in R^2 (a
trajectory, in metres). Two tuples are compared with
``dist_inf(x, x') = max_i ||x_i - x'_i||``. A mechanism is

* epsilon-GP (geo-privacy, Def. 2) if ``Pr[M(x) in S] <= e^{epsilon dist(x, x')} Pr[M(x') in S]``;
* rho-CGP (Def. 3) if the Renyi divergence ``D_alpha(M(x) || M(x')) <= alpha rho dist(x, x')^2``
  for every alpha > 1.

epsilon is per metre, rho per square metre. The query point of a kNN query and
the probe points of the convex hull are public; only the user's points are
protected.

Mechanisms sample with floating point and are for research and teaching, not
for protecting real users without a vetted library.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpnn import accounting, mechanisms
from dpnn._validation import (finite_array, generator, positive_finite, positive_int,
                              probability_open)

__all__ = [
    "gaussian_sigma",
    "gaussian_mechanism",
    "renyi_gaussian",
    "lemma_3_4_log_ratio",
    "noise_norms",
    "gp_basic",
    "cgp_basic",
    "identity_errors",
    "gp_basic_bound",
    "cgp_basic_bound",
    "svt_gp",
    "pnn",
    "pnn_bound",
    "k_pnn",
    "basic_knn",
    "knn_error",
    "centre",
    "pch_error_bound",
    "choose_anchor_count",
    "pch_split",
    "pch_pnn_epsilon",
    "HullRelease",
    "pch",
    "hull_jaccard",
    "taxi_trajectories",
    "mercator",
    "load_cabspotting",
    "clean_fixes",
    "cabspotting_files",
    "sample_tuple",
    "query_points",
    "identity_experiment",
    "knn_experiment",
    "hull_experiment",
]


def _budget(epsilon, rho):
    """Exactly one of epsilon (GP) and rho (CGP); returns ("GP", epsilon) or ("CGP", rho)."""
    if (epsilon is None) == (rho is None):
        raise ValueError("give exactly one of epsilon (GP) and rho (CGP)")
    if epsilon is not None:
        return "GP", positive_finite(epsilon, "epsilon")
    return "CGP", positive_finite(rho, "rho")


def _tuple(points, name="points"):
    return finite_array(points, name, ndim=(2,))


def _query(query, dimension):
    query = finite_array(query, "query", ndim=(1,))
    if query.shape != (dimension,):
        raise ValueError(f"query must have shape ({dimension},), got {query.shape}")
    return query


# --- §3.1 the Gaussian mechanism -----------------------------------------------------------

def gaussian_sigma(rho, lipschitz=1.0) -> float:
    """Noise standard deviation ``K / sqrt(2 rho)`` of the rho-CGP Gaussian mechanism (Thm 3.1)."""
    return positive_finite(lipschitz, "lipschitz") / math.sqrt(2 * positive_finite(rho, "rho"))


def gaussian_mechanism(values, rho, rng, lipschitz=1.0):
    """Gaussian mechanism ``g(x) + K / sqrt(2 rho) N(0, I)`` (Liang and Yi, Thm 3.1).

    ``values = g(x)`` for a K-Lipschitz query g into R^d (Euclidean metric).
    Privacy: rho-CGP, since D_alpha(N(g(x), s^2 I) || N(g(x'), s^2 I))
    = alpha ||g(x) - g(x')||^2 / (2 s^2) <= alpha rho dist(x, x')^2 (Lemma 2.1(4)).
    Calls :func:`dpnn.mechanisms.gaussian`.
    """
    return mechanisms.gaussian(values, gaussian_sigma(rho, lipschitz), rng)


def renyi_gaussian(alpha, distance, sigma) -> float:
    """``D_alpha(N(mu, sigma^2 I) || N(mu', sigma^2 I)) = alpha ||mu - mu'||^2 / (2 sigma^2)`` (Lemma 2.1(4))."""
    alpha = positive_finite(alpha, "alpha")
    if alpha <= 1:
        raise ValueError(f"alpha must be a finite real number > 1, got {alpha!r}")
    distance = float(np.sqrt(np.sum(finite_array(distance, "distance") ** 2)))
    return alpha * distance**2 / (2 * positive_finite(sigma, "sigma") ** 2)


def lemma_3_4_log_ratio(k, epsilon, delta, lam, distance):
    """Lower bound on the delta-approximate max-divergence of k composed 1-D epsilon-GP Laplace releases.

    The construction of Lemma 3.4: x' = x - Delta (``distance``), threshold
    s = x - lam Delta / 2, event S* = {all k outputs >= s}. Then
    Pr[M(x) in S*] = (1 - e^{-epsilon lam Delta / 2} / 2)^k, Pr[M(x') in S*] = (e^{-epsilon (1 - lam/2) Delta} / 2)^k,
    and D^delta_inf >= log((Pr[M(x) in S*] - delta) / Pr[M(x') in S*]) (returned; -inf if
    the numerator is <= 0). With Delta = 2 ln(k) / (lam epsilon) and delta < 1/4
    this exceeds (1 - lam) k epsilon Delta, so the composition is not
    ((1 - lam) k epsilon, delta)-GP (Thm 3.5): no advanced composition for GP.
    """
    k = positive_int(k, "k")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    lam = probability_open(lam, "lam")
    distance = finite_array(distance, "distance")
    if np.any(distance <= 0):
        raise ValueError("distance must contain only finite numbers > 0")
    log_p = k * np.log1p(-0.5 * np.exp(-epsilon * lam * distance / 2))
    log_q = k * (-epsilon * (1 - lam / 2) * distance - math.log(2))
    with np.errstate(divide="ignore", invalid="ignore"):
        numerator = np.log(np.maximum(np.exp(log_p) - delta, 0.0))
    return numerator - log_q


def noise_norms(dimension, n_samples, rng, *, epsilon=None, rho=None):
    """``||noise||`` of the d-dimensional Laplace (epsilon-GP) or Gaussian (rho-CGP) mechanism, n_samples draws.

    The Laplace norm is Gamma(d, 1/epsilon), mean d / epsilon (O(d)); the Gaussian
    norm is sigma chi_d, mean about sqrt(d) / sqrt(2 rho) (O(sqrt d)) (§3.1, App. A).
    """
    kind, budget = _budget(epsilon, rho)
    dimension = positive_int(dimension, "dimension")
    n_samples = positive_int(n_samples, "n_samples")
    zeros = np.zeros((n_samples, dimension))
    noisy = (mechanisms.laplace_ball(zeros, budget, rng) if kind == "GP"
             else gaussian_mechanism(zeros, budget, rng))
    return np.linalg.norm(noisy.reshape(n_samples, dimension), axis=1)


# --- §4.2 the identity query -----------------------------------------------------------------

def gp_basic(points, epsilon, rng):
    """GP Basic: planar Laplace with epsilon / n on each of the n points (Thm 4.6).

    Each x -> x_i is 1-Lipschitz under dist_inf, so by basic composition (Lemma 2.7)
    the release of the tuple is epsilon-GP.
    """
    points = _tuple(points)
    epsilon = positive_finite(epsilon, "epsilon")
    return mechanisms.planar_laplace(points, epsilon / len(points), rng)


def cgp_basic(points, rho, rng):
    """CGP Basic: Gaussian noise sqrt(n / (2 rho)) N(0, I) on each of the n points (Thm 4.8).

    Each point gets a (rho / n)-CGP Gaussian mechanism; by Thm 3.2 the tuple is rho-CGP.
    """
    points = _tuple(points)
    rho = positive_finite(rho, "rho")
    return gaussian_mechanism(points, rho / len(points), rng)


def identity_errors(points, released):
    """(max_i ||x_i - y_i||, sqrt(sum_i ||x_i - y_i||^2)): the max and l2 errors of Fig. 2."""
    points, released = _tuple(points), _tuple(released, "released")
    if points.shape != released.shape:
        raise ValueError(f"released must have the shape of points {points.shape}, got {released.shape}")
    norms = np.linalg.norm(points - released, axis=1)
    return float(norms.max()), float(np.sqrt(np.sum(norms**2)))


def _laplace_radius_bound(epsilon, beta):
    """r with Pr[planar Laplace radius > r] <= beta: (sqrt(2 ln(1/beta)) + ln(1/beta)) / epsilon (Lemma 4.5)."""
    log_term = math.log(1 / beta)
    return (math.sqrt(2 * log_term) + log_term) / epsilon


def gp_basic_bound(n, epsilon, beta) -> float:
    """Thm 4.6 with constants: dist_inf(GP Basic, x) <= (n / epsilon)(sqrt(2 ln(n/beta)) + ln(n/beta)) w.p. 1 - beta."""
    n = positive_int(n, "n")
    return _laplace_radius_bound(positive_finite(epsilon, "epsilon") / n, probability_open(beta, "beta") / n)


def cgp_basic_bound(n, rho, beta) -> float:
    """Thm 4.8: dist_inf(CGP Basic, x) <= sqrt(n ln(n / beta) / rho) with probability 1 - beta."""
    n = positive_int(n, "n")
    return math.sqrt(n * math.log(n / probability_open(beta, "beta")) / positive_finite(rho, "rho"))


# --- §4.3 sparse vector technique, PNN, k-PNN ---------------------------------------------------

#: Laplace variables of the sparse vector technique are drawn this many at a time (see :func:`_svt_scan`).
SVT_CHUNK = 1024


def _svt_scan(values, threshold, epsilon, lipschitz, rng, max_passes):
    """Unchecked core of :func:`svt_gp`: the Laplace variables of a pass drawn :data:`SVT_CHUNK` at a time.

    The scan stops at the first query below the bar, so the variables after it are never
    drawn: the halting position has the law of the one-at-a-time algorithm, and a scan
    that halts early costs what it reads, not a whole pass over ``values``.
    Raises RuntimeError after ``max_passes`` passes without a halt (see :func:`svt_gp`).
    """
    m = values.shape[0]
    bar = threshold + rng.laplace(0.0, lipschitz / (epsilon / 2))  # T + W, W ~ Lap(K / eps1)
    scale = 2 * lipschitz / (epsilon / 2)  # V_j ~ Lap(2K / eps2)
    for sweep in range(max_passes):
        for start in range(0, m, SVT_CHUNK):
            part = values[start:start + SVT_CHUNK]
            below = np.flatnonzero(part + rng.laplace(0.0, scale, size=part.size) < bar)
            if below.size:
                return sweep * m + start + int(below[0])
    raise RuntimeError(f"SVT did not halt within max_passes={max_passes} passes over the queries")


def svt_gp(values, threshold, epsilon, rng, lipschitz=1.0, max_passes=100_000) -> int:
    """Sparse vector technique under GP (Liang and Yi, Alg. 1): index of the first query below T.

    ``values[j] = g_j(x)`` for K-Lipschitz queries g_j; the query sequence is
    ``values`` repeated cyclically (as PNN uses it). With eps1 = eps2 = epsilon / 2,
    W ~ Lap(K / eps1) and V_j ~ Lap(2K / eps2), it returns the 0-based position t
    of the first j with ``g_j(x) + V_j < T + W`` (t may exceed len(values): take
    t mod m). Noise is drawn :data:`SVT_CHUNK` queries at a time; the V_j after the halt
    are never drawn, so the law of t is that of the one-at-a-time algorithm.
    Privacy: epsilon-GP (App. D), hence epsilon^2/2-CGP (Lemma 3.6).

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
    return _svt_scan(values, threshold, positive_finite(epsilon, "epsilon"),
                     positive_finite(lipschitz, "lipschitz"), generator(rng),
                     positive_int(max_passes, "max_passes"))


def _pnn_core(distances, epsilon, gamma0, rng):
    """Alg. 2 on the distances of the candidates to p: position of the privatized nearest neighbour."""
    threshold = distances.min() + rng.laplace(0.0, 3 / epsilon) + gamma0  # line 1: eps/3-GP
    position = _svt_scan(distances, threshold, 2 * epsilon / 3, 1.0, rng, 100_000)  # line 2: 2eps/3-GP
    return position % distances.shape[0]


def pnn(points, query, epsilon, rng, subset=None, gamma0=0.0) -> int:
    """Private nearest neighbour PNN (Liang and Yi, Alg. 2): index of a near neighbour of ``query``.

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
    points = _tuple(points)
    query = _query(query, points.shape[1])
    epsilon = positive_finite(epsilon, "epsilon")
    gamma0 = float(finite_array(gamma0, "gamma0", ndim=(0,)))
    candidates = np.arange(len(points)) if subset is None else _subset(subset, len(points))
    distances = np.linalg.norm(points[candidates] - query, axis=1)
    return int(candidates[_pnn_core(distances, epsilon, gamma0, generator(rng))])


def _subset(subset, n):
    """The sorted distinct indices of ``subset``, a non-empty 1-D integer array with entries in [0, n - 1]."""
    subset = np.asarray(subset)
    if subset.ndim != 1 or subset.size == 0 or subset.dtype.kind not in "iu":
        raise ValueError(f"subset must be a non-empty 1-D array of integer indices in [0, {n - 1}], "
                         f"got shape {subset.shape} and dtype {subset.dtype}")
    subset = np.unique(subset)
    if subset[0] < 0 or subset[-1] >= n:
        raise ValueError(f"subset must be a non-empty 1-D array of integer indices in [0, {n - 1}]")
    return subset


def pnn_bound(m, epsilon, beta) -> float:
    """Thm 4.11 (gamma0 = 0), beta split in three equal parts: PNN's distance exceeds the NN's by at most

    ``y1 + y2`` with ``y1 = (3/eps)(sqrt(2 ln(3/beta)) + ln(3/beta))`` (|Z + W|, two
    Lap(3/eps), Lemma 4.3) and ``y2 = (6/eps) ln(4m / (beta/3)^2)`` (the largest of the
    first 4m/beta2 of the V_j ~ Lap(6/eps)), with probability at least 1 - beta.
    (The printed y1, y2 are garbled in our text of the paper; these follow from its proof.)
    """
    m = positive_int(m, "m")
    epsilon = positive_finite(epsilon, "epsilon")
    third = probability_open(beta, "beta") / 3
    return _laplace_radius_bound(epsilon / 3, third) + (6 / epsilon) * math.log(4 * m / third**2)


def _nearest_distances(points, query):
    """||x_i - query|| for every row; in 2-D as sqrt(dx^2 + dy^2) on the columns, the same floats as
    ``np.linalg.norm(points - query, axis=1)`` (which adds the two squares in the same order), faster."""
    if points.shape[1] != 2:
        return np.linalg.norm(points - query, axis=1)
    dx, dy = points[:, 0] - query[0], points[:, 1] - query[1]
    return np.sqrt(dx * dx + dy * dy)


def k_pnn(points, query, k, rng, *, epsilon=None, rho=None, gamma0=0.0, gamma0_per_epsilon=0.0):
    """k-PNN (Liang and Yi, Alg. 3): k distinct indices, each found by PNN among the rest.

    CGP version (``rho``): each of the k PNN calls gets epsilon = sqrt(2 rho / k),
    i.e. rho / k-CGP, and the whole is rho-CGP by Thm 3.2 (error O(sqrt k)).
    GP version (``epsilon``): each call gets epsilon / k, and the whole is epsilon-GP
    by basic composition (error O(k)). Indices are returned in the order found.

    Each PNN call's threshold offset (see :func:`pnn`) is ``gamma0 + gamma0_per_epsilon / e``
    with ``e`` that call's epsilon, in metres. The paper's text uses 0 (the default); the
    authors' experiment scripts pass gamma0 = -6/epsilon, i.e. ``gamma0_per_epsilon=-6``.
    The offset does not change the privacy of a call (Alg. 2 is private for any gamma0).
    """
    kind, budget = _budget(epsilon, rho)
    points = _tuple(points)
    query = _query(query, points.shape[1])
    k = positive_int(k, "k")
    if k > len(points):
        raise ValueError(f"k must be an integer in [1, {len(points)}] (the number of points), got {k}")
    rng = generator(rng)
    step = budget / k if kind == "GP" else math.sqrt(2 * budget / k)
    offset = float(finite_array(gamma0, "gamma0", ndim=(0,))) + float(
        finite_array(gamma0_per_epsilon, "gamma0_per_epsilon", ndim=(0,))) / step
    distances = _nearest_distances(points, query)
    remaining = np.ones(len(points), dtype=bool)
    found = np.empty(k, dtype=np.intp)
    for j in range(k):
        candidates = np.flatnonzero(remaining)
        found[j] = candidates[_pnn_core(distances[candidates], step, offset, rng)]
        remaining[found[j]] = False
    return found


def basic_knn(points, query, k, rng, *, epsilon=None, rho=None):
    """Baseline kNN: release all points with GP Basic / CGP Basic, return the k nearest released ones.

    Post-processing of :func:`gp_basic` (epsilon-GP) or :func:`cgp_basic` (rho-CGP).
    """
    kind, budget = _budget(epsilon, rho)
    points = _tuple(points)
    query = _query(query, points.shape[1])
    k = positive_int(k, "k")
    if k > len(points):
        raise ValueError(f"k must be an integer in [1, {len(points)}] (the number of points), got {k}")
    released = gp_basic(points, budget, rng) if kind == "GP" else cgp_basic(points, budget, rng)
    distances = _nearest_distances(released, query)
    nearest = np.argpartition(distances, k - 1)[:k]
    return nearest[np.argsort(distances[nearest])]


def knn_error(points, query, indices) -> float:
    """Sum of the true distances of the returned neighbours over that of the true k nearest (§5, Fig. 3-4).

    Always >= 1; 1 means the true k nearest neighbours were returned.
    """
    points = _tuple(points)
    query = _query(query, points.shape[1])
    indices = np.asarray(indices)
    if (indices.ndim != 1 or indices.size == 0 or indices.dtype.kind not in "iu"
            or np.unique(indices).size != indices.size or indices.min() < 0 or indices.max() >= len(points)):
        raise ValueError(f"indices must be a non-empty list of distinct point indices in [0, {len(points) - 1}]")
    distances = _nearest_distances(points, query)
    best = np.sum(np.partition(distances, indices.size - 1)[:indices.size])
    if best == 0:
        raise ValueError("query coincides with its k nearest points; the normalized error is undefined")
    return float(np.sum(distances[indices]) / best)


# --- §4.4 private convex hull -----------------------------------------------------------------

def centre(points):
    """c(x): midpoints of the smallest and largest coordinate in each dimension (sqrt(2)-Lipschitz in 2-D, App. F)."""
    points = _tuple(points)
    return (points.min(axis=0) + points.max(axis=0)) / 2


#: PCH's budget shares (centre and radius, anchor selection, release) as the paper's text reads (§4.4):
#: half selects, half releases, and 1/20 of the selection half goes to the centre and radius.
PCH_TEXT_SPLIT = (1 / 40, 19 / 40, 1 / 2)
#: The shares the authors' experiment scripts use (hkustDB/ConcentratedGeoPrivacy, as reported in
#: the companion's issue 17): 5% centre and radius, 87.4% anchor selection, 7.6% release.
PCH_SCRIPTS_SPLIT = (0.05, 0.874, 0.076)


def _split_shares(split):
    shares = np.asarray(PCH_TEXT_SPLIT if split is None else split, dtype=float)
    if shares.shape != (3,) or not np.all(np.isfinite(shares)) or np.any(shares <= 0) \
            or not math.isclose(float(shares.sum()), 1.0, rel_tol=0, abs_tol=1e-9):
        raise ValueError(f"split must be three positive shares (centre and radius, selection, release) summing to 1, "
                         f"got {split!r}")
    return shares


def _pch_split(kind, budget, split=None):
    """(selection budget incl. setup, release budget, centre+radius budget) of PCH for the given shares."""
    setup, select, release = _split_shares(split) * budget
    return setup + select, release, setup


def _pnn_epsilon(kind, selection, setup, k):
    """epsilon of each of the k PNN calls in PCH (Alg. 4 line 8)."""
    rest = selection - setup
    return rest / k if kind == "GP" else math.sqrt(2 * rest / k)


def pch_split(*, epsilon=None, rho=None, split=None):
    """PCH's budget split (selection, release, setup): by default half selects anchors, half releases
    them, and setup = 1/20 of the selection half goes to the centre and radius (see :func:`pch`).

    In units of epsilon (GP) or rho (CGP): (1/2, 1/2, 1/40) of the budget. ``split`` gives other
    shares (centre and radius, selection, release), e.g. :data:`PCH_SCRIPTS_SPLIT`.
    """
    return _pch_split(*_budget(epsilon, rho), split)


def pch_pnn_epsilon(k, *, epsilon=None, rho=None, split=None) -> float:
    """epsilon of each of PCH's k PNN calls: (selection - setup) / k under GP (basic composition),
    sqrt(2 (selection - setup) / k) under CGP (each call (selection - setup)/k-CGP, Lemma 3.6).
    """
    kind, budget = _budget(epsilon, rho)
    selection, _, setup = _pch_split(kind, budget, split)
    return _pnn_epsilon(kind, selection, setup, positive_int(k, "k"))


def pch_error_bound(k, n, radius, beta, *, epsilon=None, rho=None, split=None):
    """Error bound of PCH with k anchors (our constants for Lemma 4.15, used by Remark 2 to choose k).

    ``y(k) = y_PNN + 2 pi R / k + y_release`` where y_PNN is :func:`pnn_bound` for
    each of the k PNN calls at failure beta / (4k), 2 pi R / k is the gap of
    Lemma 4.14, and y_release bounds the noise of the k released anchors
    (Thm 4.8 for CGP, Thm 4.6 for GP) at failure beta / 4. The constants of our text of the paper
    for y1, y3 are garbled; these follow from the lemmas they cite.
    ``k`` may be an array.

    Caveat: not a proven bound. The proof of Lemma 4.13 uses Thm 4.12 (the
    returned point is at most y farther from the probe P_j than P_j's nearest
    point x_j*) as if it bounded ||x_a - x_j*||, the distance between the two
    points; a point only slightly farther from P_j can lie far from x_j* along
    the circle around P_j. y_PNN inherits this step. The bound only chooses k
    (:func:`choose_anchor_count`), which is post-processing of the released R
    and has no effect on privacy.
    """
    kind, budget = _budget(epsilon, rho)
    n = positive_int(n, "n")
    radius = positive_finite(radius, "radius")
    beta = probability_open(beta, "beta")
    ks = np.atleast_1d(np.asarray(k))
    if ks.dtype.kind not in "iu" or np.any(ks < 1):
        raise ValueError("k must contain only integers >= 1")
    out = _pch_error_bounds(kind, budget, n, radius, beta, ks.astype(float), split)
    return float(out[0]) if np.ndim(k) == 0 else out


def _pch_error_bounds(kind, budget, n, radius, beta, ks, split=None):
    """:func:`pch_error_bound` for a float array ``ks`` of checked k, in array arithmetic (no validation).

    The same terms as :func:`_pch_error_bound_loop` (the reference, one k at a time with
    :func:`pnn_bound` and the Basic bounds), equal to it up to rounding.
    """
    selection, release, setup = _pch_split(kind, budget, split)
    rest = selection - setup
    step = rest / ks if kind == "GP" else np.sqrt(2 * rest / ks)  # each PNN call's epsilon
    third = beta / (4 * ks) / 3  # pnn_bound at failure beta / (4k), split in three
    log_third = np.log(1 / third)
    select = (np.sqrt(2 * log_third) + log_third) / (step / 3) + (6 / step) * np.log(4 * n / third**2)
    if kind == "GP":  # gp_basic_bound(k, release, beta / 4)
        log_noise = np.log(1 / (beta / 4 / ks))
        noise = (np.sqrt(2 * log_noise) + log_noise) / (release / ks)
    else:  # cgp_basic_bound(k, release, beta / 4)
        noise = np.sqrt(ks * np.log(ks / (beta / 4)) / release)
    return select + 2 * math.pi * radius / ks + noise


def _pch_error_bound_loop(k, n, radius, beta, *, epsilon=None, rho=None, split=None):
    """:func:`pch_error_bound` one k at a time (the reference of the array version in the tests)."""
    kind, budget = _budget(epsilon, rho)
    selection, release, setup = _pch_split(kind, budget, split)
    out = []
    for kk in np.atleast_1d(np.asarray(k)):
        kk = int(kk)
        select = pnn_bound(n, _pnn_epsilon(kind, selection, setup, kk), beta / (4 * kk))
        noise = (gp_basic_bound(kk, release, beta / 4) if kind == "GP"
                 else cgp_basic_bound(kk, release, beta / 4))
        out.append(select + 2 * math.pi * radius / kk + noise)
    return np.array(out)


def choose_anchor_count(n, radius, beta, *, epsilon=None, rho=None, k_range=(16, 128), k_max=1024,
                        split=None) -> int:
    """Remark 2: the k in 1..k_max minimizing :func:`pch_error_bound`, clamped to k_range ([16, 128] in §5).

    Uses the released radius R in place of the private diameter, so it is post-processing.
    """
    low, high = (positive_int(v, "k_range") for v in k_range)
    if low > high:
        raise ValueError(f"k_range must be (low, high) with low <= high, got {k_range!r}")
    ks = np.arange(1, positive_int(k_max, "k_max") + 1)
    errors = pch_error_bound(ks, n, radius, beta, epsilon=epsilon, rho=rho, split=split)
    return int(np.clip(ks[np.argmin(errors)], low, high))


@dataclass(frozen=True)
class HullRelease:
    """Output of :func:`pch`: the anchor indices A, their privatized points, and the released c, R, k."""

    anchors: np.ndarray
    released: np.ndarray
    centre: np.ndarray
    radius: float
    k: int
    kind: str
    budget: float


def pch(points, rng, *, epsilon=None, rho=None, beta=0.1, k=None, k_range=(16, 128), split=None,
        centre_share=0.5, remove_anchors=False, radius_floor=1e-9):
    """Private convex hull PCH (Liang and Yi, Alg. 4, plus the release of the anchors, §4.4).

    Half the budget selects anchors, half releases them. Of the first half,
    1/20 (b0) goes to the centre and radius: c-hat = c(x) + noise for a
    sqrt(2)-Lipschitz c (b0/2), R = max_i ||x_i - c-hat|| + margin + noise
    (1-Lipschitz, b0/2; the margin makes R >= max_i ||x_i - c-hat|| with
    probability 1 - beta/2). k (if not given) is chosen from R by
    :func:`choose_anchor_count`; k probe points equally spaced on the circle
    (c-hat, R) each get a PNN over all points with (first half - b0)/k; the
    distinct anchors A are released with Gaussian (CGP) / planar Laplace (GP)
    noise at release budget / |A| each.

    CGP (``rho``): Gaussian mechanisms and sqrt(2 rho1) per PNN; rho-CGP by Thm 3.2.
    GP (``epsilon``): planar Laplace for c-hat (epsilon0/2 / sqrt 2), 1-D Laplace for R,
    epsilon1 per PNN; epsilon-GP by basic composition (Lemma 2.7).
    The hull of ``released`` is the answer (post-processing). A noisy radius
    below 1e-9 m (possible only when the noise dwarfs the data) is replaced by
    1e-9 m, which is post-processing of the released R.

    The settings of the authors' experiment scripts, to run both readings:
    ``split`` = (centre and radius, selection, release) shares (default
    :data:`PCH_TEXT_SPLIT`; the scripts: :data:`PCH_SCRIPTS_SPLIT`);
    ``centre_share`` = the part of the centre-and-radius budget spent on the
    centre (default 1/2; 2/3 makes the radius's CGP margin exactly
    sqrt(3 log(2/beta) / rho0), the formula printed in the paper);
    ``remove_anchors`` = remove each chosen anchor before the next probe's PNN
    (the anchors are then k distinct points, each PNN's privacy unchanged);
    ``radius_floor`` = the smallest released R (the scripts: 10 m; post-processing).
    """
    kind, budget = _budget(epsilon, rho)
    points = _tuple(points)
    if points.shape[1] != 2:
        raise ValueError(f"points must have shape (n, 2), got {points.shape}")
    beta = probability_open(beta, "beta")
    rng = generator(rng)
    selection, release, setup = _pch_split(kind, budget, split)
    centre_share = float(centre_share)
    if not 0 < centre_share < 1:
        raise ValueError(f"centre_share must lie in (0, 1), got {centre_share!r}")
    radius_floor = positive_finite(radius_floor, "radius_floor")
    centre_budget, radius_budget = setup * centre_share, setup * (1 - centre_share)
    if kind == "CGP":
        c_hat = gaussian_mechanism(centre(points), centre_budget, rng, lipschitz=math.sqrt(2))
        sigma = gaussian_sigma(radius_budget)
        margin, noise = sigma * math.sqrt(2 * math.log(2 / beta)), rng.normal(0.0, sigma)
    else:
        c_hat = mechanisms.planar_laplace(centre(points), centre_budget / math.sqrt(2), rng)
        scale = 1 / radius_budget
        margin, noise = scale * math.log(1 / beta), rng.laplace(0.0, scale)
    radius = max(float(np.max(np.linalg.norm(points - c_hat, axis=1)) + margin + noise), radius_floor)
    if k is None:
        k = choose_anchor_count(len(points), radius, beta, k_range=k_range, split=split,
                                **({"epsilon": budget} if kind == "GP" else {"rho": budget}))
    k = positive_int(k, "k")
    step = _pnn_epsilon(kind, selection, setup, k)
    theta = 2 * np.pi * np.arange(k) / k
    probes = c_hat + radius * np.column_stack([np.cos(theta), np.sin(theta)])
    if remove_anchors:
        if k > len(points):
            raise ValueError(f"k must be at most the number of points ({len(points)}) with remove_anchors, got {k}")
        remaining = np.ones(len(points), dtype=bool)
        chosen_list = []
        for p in probes:
            candidates = np.flatnonzero(remaining)
            index = int(candidates[_pnn_core(_nearest_distances(points[candidates], p), step, 0.0, rng)])
            remaining[index] = False
            chosen_list.append(index)
        anchors = np.unique(chosen_list)
    else:
        anchors = np.unique([_pnn_core(_nearest_distances(points, p), step, 0.0, rng) for p in probes])
    chosen = points[anchors]
    released = (gaussian_mechanism(chosen, release / len(anchors), rng) if kind == "CGP"
                else mechanisms.planar_laplace(chosen, release / len(anchors), rng))
    return HullRelease(anchors, released, c_hat, radius, k, kind, budget)


def _hull_candidates(points):
    """The points of ``points`` not strictly inside their convex hull, in their order (a superset of its vertices).

    A point inside every edge of qhull's hull by more than 1e-9 of the coordinates' scale
    is interior to the exact hull (qhull's vertices are input points), so it is no vertex
    of it and shapely's hull of the rest is the same polygon. Degenerate sets (fewer than
    3 points, collinear) are returned whole.
    """
    from scipy.spatial import ConvexHull, QhullError

    if len(points) < 16:
        return points
    try:
        facets = ConvexHull(points).equations  # rows (a, b, c): a x + b y + c <= 0 inside, (a, b) a unit vector
    except QhullError:
        return points
    outside = np.full(len(points), -np.inf)
    x, y = np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
    value, term = np.empty(len(points)), np.empty(len(points))
    for a, b, c in facets:  # (x a + y b) + c, as written, without temporaries
        np.multiply(x, a, out=value)
        value += np.multiply(y, b, out=term)
        value += c
        np.maximum(outside, value, out=outside)
    return points[outside > -1e-9 * max(float(np.max(np.abs(points))), 1.0)]


def _hull_jaccard_all_points(points, released) -> float:
    """:func:`hull_jaccard` as it was: shapely's hulls of all the points (the reference of tests and benchmarks)."""
    from shapely.geometry import MultiPoint

    true_hull = MultiPoint(_tuple(points)).convex_hull
    private_hull = MultiPoint(_tuple(released, "released")).convex_hull
    union = true_hull.union(private_hull).area
    if union == 0:
        raise ValueError("both hulls have zero area; the Jaccard index is undefined")
    return float(true_hull.intersection(private_hull).area / union)


def hull_jaccard(points, released) -> float:
    """Jaccard index area(H ∩ H') / area(H ∪ H') of the convex hulls of two point sets (shapely; §5, Fig. 5).

    Only the points on or near each hull (:func:`_hull_candidates`) are handed to shapely:
    the same hulls, hence the same value, as with all points, about 20 times faster at n = 20000.
    """
    return _jaccard(_hull(_tuple(points)), _hull(_tuple(released, "released")))


def _hull(points):
    """shapely's convex hull of ``points``, from the points on or near it (:func:`_hull_candidates`)."""
    from shapely.geometry import MultiPoint

    return MultiPoint(_hull_candidates(points)).convex_hull


def _jaccard(true_hull, private_hull) -> float:
    """area(H ∩ H') / area(H ∪ H') of two shapely geometries (see :func:`hull_jaccard`)."""
    union = true_hull.union(private_hull).area
    if union == 0:
        raise ValueError("both hulls have zero area; the Jaccard index is undefined")
    return float(true_hull.intersection(private_hull).area / union)


# --- data: taxi-like trajectories and the cabspotting format -------------------------------------

def _run_lengths(total, mean_move, mean_stop, rng):
    """Boolean mask ``moving`` of length ``total``: alternating geometric runs of moves and stops."""
    runs = rng.geometric(np.tile([1 / mean_move, 1 / mean_stop], total // 2 + 1))
    states = np.tile([True, False], total // 2 + 1)
    moving = np.repeat(states, runs)[:total]
    return moving if moving.size == total else np.resize(moving, total)


def taxi_trajectories(n_trajectories, rng, *, min_length=5000, max_length=30000, extent=20000.0,
                      speed=150.0, turn=0.35, mean_move=40, mean_stop=15, gps_noise=5.0):
    """Embedded stand-in for the cabspotting taxis: correlated random walks with stops, in metres.

    Each trajectory has a length uniform in [min_length, max_length] (the paper's
    taxis: 5000-30000 points), starts uniformly in the square [0, extent]^2, moves
    with step lengths Gamma(2, speed/2) (mean ``speed`` metres per sample) and
    heading increments N(0, turn^2), alternates geometric runs of moving (mean
    ``mean_move`` samples) and standing (mean ``mean_stop``), reflects at the
    square's edges, and carries N(0, gps_noise^2) jitter on every fix.
    Returns a list of (n_i, 2) arrays.
    """
    n_trajectories = positive_int(n_trajectories, "n_trajectories")
    min_length = positive_int(min_length, "min_length", 2)
    max_length = positive_int(max_length, "max_length", min_length)
    extent = positive_finite(extent, "extent")
    rng = generator(rng)
    out = []
    for _ in range(n_trajectories):
        n = int(rng.integers(min_length, max_length + 1))
        heading = rng.uniform(0, 2 * np.pi) + np.cumsum(rng.normal(0.0, turn, n))
        length = rng.gamma(2.0, speed / 2, n) * _run_lengths(n, mean_move, mean_stop, rng)
        steps = length[:, None] * np.column_stack([np.cos(heading), np.sin(heading)])
        walk = rng.uniform(0, extent, 2) + np.cumsum(steps, axis=0)
        folded = extent - np.abs(extent - np.mod(walk, 2 * extent))  # reflect into [0, extent]
        out.append(folded + rng.normal(0.0, gps_noise, folded.shape))
    return out


MERCATOR_RADIUS_M = 6_378_137.0


def mercator(lat, lon):
    """Spherical (web) Mercator projection to metres, as in the paper's §5: (R lon, R ln tan(pi/4 + lat/2))."""
    lat = finite_array(lat, "lat")
    lon = finite_array(lon, "lon")
    if np.any(np.abs(lat) >= 90):
        raise ValueError("lat must lie in (-90, 90) degrees")
    phi = np.radians(lat)
    return np.column_stack([MERCATOR_RADIUS_M * np.radians(lon).ravel(),
                            MERCATOR_RADIUS_M * np.log(np.tan(np.pi / 4 + phi / 2)).ravel()])


def _read_cab_fixes(path):
    """(lat, lon, time) arrays of one cabspotting file, sorted by time (the files are newest first)."""
    rows = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise ValueError(f"{path} line {number}: expected 4 fields 'lat lon occupied time', got {len(fields)}")
            try:
                rows.append((float(fields[0]), float(fields[1]), int(fields[3])))
            except ValueError:
                raise ValueError(f"{path} line {number}: fields are not numbers: {fields}") from None
    if not rows:
        raise ValueError(f"{path} holds no fixes")
    table = np.array(rows, dtype=float)
    table = table[np.argsort(table[:, 2], kind="stable")]
    return table[:, 0], table[:, 1], table[:, 2]


def _read_cab(path):
    lat, lon, _ = _read_cab_fixes(path)
    return mercator(lat, lon)


#: The San Francisco Bay Area box (lat_min, lat_max, lon_min, lon_max) in degrees: every genuine
#: cabspotting fix lies in it; the outliers of the raw files lie hundreds of km away.
BAY_AREA = (36.8, 38.6, -123.2, -121.2)
#: Ground speed (m/s) no taxi reaches: about 200 km/h.
MAX_TAXI_SPEED = 55.0


def _ground_distance(lat0, lon0, lat1, lon1):
    """Great-circle distance in metres (haversine on the Mercator sphere's radius)."""
    phi0, phi1 = np.radians(lat0), np.radians(lat1)
    dphi, dlam = phi1 - phi0, np.radians(lon1 - lon0)
    h = np.sin(dphi / 2) ** 2 + np.cos(phi0) * np.cos(phi1) * np.sin(dlam / 2) ** 2
    return 2 * MERCATOR_RADIUS_M * np.arcsin(np.minimum(1.0, np.sqrt(h)))


def clean_fixes(lat, lon, time, *, region=BAY_AREA, max_speed=MAX_TAXI_SPEED):
    """Boolean mask of the fixes kept by the cleaning of :func:`load_cabspotting`.

    A fix is dropped if it lies outside ``region`` (lat_min, lat_max, lon_min, lon_max; None keeps
    all), or if reaching it from the last *kept* fix needs a ground speed above ``max_speed`` m/s
    (None: no speed test), including a move at zero elapsed time. Fixes must be sorted by time.
    """
    lat, lon, time = (np.asarray(a, dtype=float) for a in (lat, lon, time))
    if not lat.shape == lon.shape == time.shape or lat.ndim != 1:
        raise ValueError("lat, lon and time must be 1-D arrays of one length")
    if np.any(np.diff(time) < 0):
        raise ValueError("time must be sorted (non-decreasing)")
    keep = np.ones(lat.size, dtype=bool)
    if region is not None:
        lat_min, lat_max, lon_min, lon_max = region
        keep &= (lat >= lat_min) & (lat <= lat_max) & (lon >= lon_min) & (lon <= lon_max)
    if max_speed is not None:
        max_speed = positive_finite(max_speed, "max_speed")
        last = -1
        for i in np.flatnonzero(keep):
            if last >= 0:
                metres = _ground_distance(lat[last], lon[last], lat[i], lon[i])
                seconds = time[i] - time[last]
                if metres > max_speed * seconds:
                    keep[i] = False
                    continue
            last = i
    return keep


def cabspotting_files(path):
    """The cabspotting files of ``path`` (a file, or a directory: its ``new_*.txt``, else its ``*.txt``), sorted."""
    path = os.fspath(path)
    if os.path.isdir(path):
        names = sorted(f for f in os.listdir(path) if f.startswith("new_") and f.endswith(".txt"))
        names = names or sorted(f for f in os.listdir(path) if f.endswith(".txt"))
        if not names:
            raise ValueError(f"path {path!r} holds no cabspotting .txt files")
        return [os.path.join(path, name) for name in names]
    if not os.path.isfile(path):
        raise ValueError(f"path must be a cabspotting file or directory, got {path!r}")
    return [path]


def load_cabspotting(path, *, min_fixes=1, max_fixes=None, region=None, max_speed=None, n_cabs=None, rng=None):
    """Load cabspotting traces (CRAWDAD epfl/mobility): one file per cab, lines ``lat lon occupied time``.

    ``path`` is one file or a directory (every ``new_*.txt`` in it, sorted by name;
    if there is none, every ``*.txt``). Fixes are sorted by time and projected to
    metres with :func:`mercator`, as in the paper. Returns a list of (n_i, 2) arrays.
    Malformed lines are an error, not skipped.

    Cleaning (off by default; :data:`CABSPOTTING_PAPER_FILTER` holds the paper's settings):
    fixes outside ``region`` or implying a speed above ``max_speed`` are dropped
    (:func:`clean_fixes`), then a cab is kept only if ``min_fixes <= fixes <= max_fixes``
    (the paper: 5000 to 30000). ``n_cabs`` stops after that many kept cabs, so only the
    files needed are read; ``rng`` visits the files in a random order (else by name).
    """
    files = cabspotting_files(path)
    min_fixes = positive_int(min_fixes, "min_fixes")
    if max_fixes is not None and positive_int(max_fixes, "max_fixes") < min_fixes:
        raise ValueError(f"max_fixes must be >= min_fixes = {min_fixes}, got {max_fixes}")
    if n_cabs is not None:
        n_cabs = positive_int(n_cabs, "n_cabs")
    if rng is not None:
        files = [files[i] for i in generator(rng).permutation(len(files))]
    cabs = []
    for name in files:
        lat, lon, time = _read_cab_fixes(name)
        keep = clean_fixes(lat, lon, time, region=region, max_speed=max_speed)
        if keep.sum() < min_fixes or (max_fixes is not None and keep.sum() > max_fixes):
            continue
        cabs.append(mercator(lat[keep], lon[keep]))
        if n_cabs is not None and len(cabs) == n_cabs:
            break
    return cabs


#: The paper's cleaning (§5: trajectories of 5000 to 30000 points) plus the removal of fixes
#: outside the Bay Area or at an impossible speed; pass as ``load_cabspotting(path, **...)``.
CABSPOTTING_PAPER_FILTER = {"min_fixes": 5000, "max_fixes": 30000, "region": BAY_AREA, "max_speed": MAX_TAXI_SPEED}


def sample_tuple(trajectory, n, rng):
    """n points sampled without replacement from a trajectory (all of them if it has fewer; §5), in time order."""
    trajectory = _tuple(trajectory, "trajectory")
    n = positive_int(n, "n")
    if len(trajectory) <= n:
        return trajectory
    return trajectory[np.sort(generator(rng).choice(len(trajectory), n, replace=False))]


def query_points(trajectories, n_queries, rng):
    """Query points as in §5: centres of 1 m x 1 m cells crossed by some trajectory.

    A random trajectory, a random segment of it, a uniform point on the segment,
    snapped to the centre of its 1 m cell.
    """
    n_queries = positive_int(n_queries, "n_queries")
    rng = generator(rng)
    trajectories = [_tuple(path, "trajectories") for path in trajectories]
    if not trajectories or min(len(path) for path in trajectories) < 2:
        raise ValueError("trajectories must be a non-empty list of (n_i, 2) arrays with n_i >= 2")
    out = np.empty((n_queries, 2))
    for q in range(n_queries):
        path = trajectories[int(rng.integers(len(trajectories)))]
        i = int(rng.integers(len(path) - 1))
        point = path[i] + rng.random() * (path[i + 1] - path[i])
        out[q] = np.floor(point) + 0.5
    return out


# --- experiments of §5 (Fig. 2-5) -----------------------------------------------------------

def _gp_epsilon(rho, delta, epsilon_distance):
    return accounting.gp_epsilon_for_cgp(rho, delta, epsilon_distance)


def _case_root(rng) -> int:
    """One draw of ``rng``: the root of the seeds of an experiment's cases (see :func:`identity_experiment`)."""
    return int(generator(rng).integers(2**63))


def _run(case, cases, n_jobs, cache_dir, desc):
    from dpnn.experiments import run_cases

    return pd.DataFrame([row for rows in run_cases(case, cases, n_jobs=n_jobs, cache_dir=cache_dir, desc=desc)
                         for row in rows])


def _identity_case(path, rho, n, epsilon, t, repetitions, seed):
    """The rows of one (setting, trajectory) of :func:`identity_experiment`, drawn from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repetitions):
        x = sample_tuple(path, n, rng)
        for method, released in (("GP Basic", gp_basic(x, epsilon, rng)), ("CGP Basic", cgp_basic(x, rho, rng))):
            worst, l2 = identity_errors(x, released)
            rows.append({"rho": rho, "n": n, "n_actual": len(x), "epsilon": epsilon, "trajectory": t,
                         "repetition": r, "method": method, "max error": worst, "l2 error": l2})
    return rows


def identity_experiment(trajectories, settings, repetitions, rng, *, delta=1e-10, epsilon_distance=10.0,
                        n_jobs=1, cache_dir=None):
    """Fig. 2: max and l2 error of GP Basic and CGP Basic for each (rho, n) in ``settings``.

    GP gets the epsilon of :func:`dpnn.accounting.gp_epsilon_for_cgp`. One row
    per (setting, trajectory, repetition, method). ``n`` is the requested tuple size,
    ``n_actual`` the size of the sampled tuple (smaller when the trajectory is
    shorter than n: :func:`sample_tuple` then takes all of it).

    Seeds: one draw of ``rng`` gives a root; setting i on trajectory t draws from
    ``default_rng([root, i, t])``. The table is therefore the same for any ``n_jobs``
    (processes, :func:`dpnn.experiments.run_cases`), and with ``cache_dir`` a finished
    (setting, trajectory) is read back when an interrupted run is repeated.
    """
    root = _case_root(rng)
    cases = [(path, rho, n, _gp_epsilon(rho, delta, epsilon_distance), t, repetitions, [root, i, t])
             for i, (rho, n) in enumerate(settings) for t, path in enumerate(trajectories)]
    return _run(_identity_case, cases, n_jobs, cache_dir, "identity (Fig. 2)")


def _knn_case(path, queries, rho, k, n, epsilon, t, seed, gamma0_per_epsilon):
    """The rows of one (setting, trajectory) of :func:`knn_experiment`: one run per query point."""
    rng = np.random.default_rng(seed)
    rows = []
    for r, p in enumerate(queries):
        x = sample_tuple(path, n, rng)
        found = {"GP PNN": k_pnn(x, p, k, rng, epsilon=epsilon, gamma0_per_epsilon=gamma0_per_epsilon),
                 "CGP PNN": k_pnn(x, p, k, rng, rho=rho, gamma0_per_epsilon=gamma0_per_epsilon),
                 "GP Basic": basic_knn(x, p, k, rng, epsilon=epsilon),
                 "CGP Basic": basic_knn(x, p, k, rng, rho=rho)}
        for method, indices in found.items():
            rows.append({"rho": rho, "k": k, "n": n, "n_actual": len(x), "trajectory": t, "repetition": r,
                         "method": method, "error": knn_error(x, p, indices)})
    return rows


def knn_experiment(trajectories, settings, repetitions, rng, *, delta=1e-10, epsilon_distance=10.0,
                   gamma0_per_epsilon=0.0, n_jobs=1, cache_dir=None):
    """Fig. 3-4: normalized kNN error of the four methods for each (rho, k, n) in ``settings``.

    Each repetition samples n points of a trajectory and one query point
    (:func:`query_points` over all trajectories). One row per run and method;
    ``n`` is the requested tuple size, ``n_actual`` the sampled one (see :func:`identity_experiment`).
    ``gamma0_per_epsilon`` is passed to :func:`k_pnn` (the authors' scripts: -6).
    Seeds, ``n_jobs`` and ``cache_dir`` as in :func:`identity_experiment`; the query points of
    setting i on trajectory t come from ``default_rng([root, i, t, 1])``.
    """
    root = _case_root(rng)
    cases = []
    for i, (rho, k, n) in enumerate(settings):
        epsilon = _gp_epsilon(rho, delta, epsilon_distance)
        for t, path in enumerate(trajectories):
            queries = query_points(trajectories, repetitions, np.random.default_rng([root, i, t, 1]))
            cases.append((path, queries, rho, k, n, epsilon, t, [root, i, t], gamma0_per_epsilon))
    return _run(_knn_case, cases, n_jobs, cache_dir, "kNN (Figs. 3-4)")


def _hull_case(path, rho, n, epsilon, t, repetitions, seed, beta, k_range, pch_options):
    """The rows of one (setting, trajectory) of :func:`hull_experiment`."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repetitions):
        x = sample_tuple(path, n, rng)
        gp_hull = pch(x, rng, epsilon=epsilon, beta=beta, k_range=k_range, **pch_options)
        cgp_hull = pch(x, rng, rho=rho, beta=beta, k_range=k_range, **pch_options)
        released = {"GP PCH": gp_hull.released, "CGP PCH": cgp_hull.released,
                    "GP Basic": gp_basic(x, epsilon, rng), "CGP Basic": cgp_basic(x, rho, rng)}
        true_hull = _hull(x)  # once per tuple: hull_jaccard(x, points) for each method, the same values
        for method, points in released.items():
            k = {"GP PCH": gp_hull.k, "CGP PCH": cgp_hull.k}.get(method, len(x))
            rows.append({"rho": rho, "n": n, "n_actual": len(x), "trajectory": t, "repetition": r,
                         "method": method, "k": k, "jaccard": _jaccard(true_hull, _hull(points))})
    return rows


def hull_experiment(trajectories, settings, repetitions, rng, *, beta=0.1, delta=1e-10, epsilon_distance=10.0,
                    k_range=(16, 128), pch_options=None, n_jobs=1, cache_dir=None):
    """Fig. 5: Jaccard index of the private hulls (GP/CGP PCH, GP/CGP Basic) for each (rho, n).

    One row per run and method; ``n`` is the requested tuple size, ``n_actual`` the
    sampled one (see :func:`identity_experiment`), ``k`` the number of probes (PCH)
    or of released points (Basic, = n_actual). ``pch_options``: extra keywords of
    :func:`pch` (``split``, ``centre_share``, ``remove_anchors``, ``radius_floor``).
    Seeds, ``n_jobs`` and ``cache_dir`` as in :func:`identity_experiment`.
    """
    pch_options = dict(pch_options or {})
    root = _case_root(rng)
    cases = [(path, rho, n, _gp_epsilon(rho, delta, epsilon_distance), t, repetitions, [root, i, t], beta,
              tuple(k_range), pch_options)
             for i, (rho, n) in enumerate(settings) for t, path in enumerate(trajectories)]
    return _run(_hull_case, cases, n_jobs, cache_dir, "convex hull (Fig. 5)")


def median_interval(values, rng, *, n_boot=2000, level=0.95):
    """The median of ``values`` and a percentile-bootstrap interval for it: (median, low, high).

    For the heavy-tailed normalized errors of §5, where two medians that look equal (4.20 vs 4.24)
    need an uncertainty before they are called a tie. ``rng`` draws the resamples.
    """
    values = finite_array(values, "values", ndim=(1,))
    if values.size < 2:
        raise ValueError(f"values must hold at least 2 numbers, got {values.size}")
    n_boot = positive_int(n_boot, "n_boot")
    level = probability_open(level, "level")
    rng = generator(rng)
    medians = np.median(values[rng.integers(values.size, size=(n_boot, values.size))], axis=1)
    low, high = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return float(np.median(values)), float(low), float(high)
