"""The private convex hull PCH (Alg. 4, §4.4) and the hull's Jaccard error.

In the text's split, half of PCH's budget selects anchors: a noisy centre and radius,
then one PNN from each of ``k`` probe points on that circle; the other half releases the
distinct anchors with noise. The anchor count ``k`` is chosen from the paper's error
bound and the released radius only, and the budget split between centre and anchors is
the text's or the authors' scripts'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpnn import mechanisms
from dpnn._validation import generator, positive_finite, positive_int, probability_open

from . import basic, svt
from .basic import check_tuple, privacy_budget
from .svt import pnn_on_distances, query_distances

__all__ = [
    "centre",
    "PCH_TEXT_SPLIT",
    "PCH_SCRIPTS_SPLIT",
    "pch_split",
    "pch_pnn_epsilon",
    "pch_error_bound",
    "choose_anchor_count",
    "HullRelease",
    "pch",
    "hull_jaccard",
    "convex_hull",
    "polygon_jaccard",
]


def centre(points):
    """c(x): midpoints of the smallest and largest coordinate in each dimension
    (sqrt(2)-Lipschitz in 2-D, App. F)."""
    points = check_tuple(points)
    return (points.min(axis=0) + points.max(axis=0)) / 2


#: PCH's budget shares (centre and radius, anchor selection, release) as the paper's
#: text reads (§4.4): half selects, half releases, and 1/20 of the selection half goes
#: to the centre and radius.
PCH_TEXT_SPLIT = (1 / 40, 19 / 40, 1 / 2)


#: The shares the authors' experiment scripts use (hkustDB/ConcentratedGeoPrivacy):
#: 5% centre and radius, 87.4% anchor selection, 7.6% release.
PCH_SCRIPTS_SPLIT = (0.05, 0.874, 0.076)


def _split_shares(split):
    shares = np.asarray(PCH_TEXT_SPLIT if split is None else split, dtype=float)
    if (
        shares.shape != (3,)
        or not np.all(np.isfinite(shares))
        or np.any(shares <= 0)
        or not math.isclose(float(shares.sum()), 1.0, rel_tol=0, abs_tol=1e-9)
    ):
        raise ValueError(
            "split must be three positive shares (centre and radius, selection, "
            "release) summing "
            f"to 1, got {split!r}"
        )
    return shares


def _pch_split(kind, budget, split=None):
    """(selection budget incl. setup, release budget, centre+radius budget) of PCH for
    the given shares."""
    setup, select, release = _split_shares(split) * budget
    return setup + select, release, setup


def _pnn_epsilon(kind, selection, setup, k):
    """epsilon of each of the k PNN calls in PCH (Alg. 4 line 8)."""
    rest = selection - setup
    return rest / k if kind == "GP" else math.sqrt(2 * rest / k)


def pch_split(*, epsilon=None, rho=None, split=None):
    """PCH's budget split (selection, release, setup): by default half selects anchors,
    half releases them, and setup = 1/20 of the selection half goes to the centre and
    radius (see :func:`pch`).

    In units of epsilon (GP) or rho (CGP): (1/2, 1/2, 1/40) of the budget. ``split``
    gives other shares (centre and radius, selection, release), e.g.
    :data:`PCH_SCRIPTS_SPLIT`.
    """
    return _pch_split(*privacy_budget(epsilon, rho), split)


def pch_pnn_epsilon(k, *, epsilon=None, rho=None, split=None) -> float:
    """epsilon of each of PCH's k PNN calls: (selection - setup) / k under GP (basic
    composition), sqrt(2 (selection - setup) / k) under CGP (each call (selection -
    setup)/k-CGP, Lemma 3.6).
    """
    kind, budget = privacy_budget(epsilon, rho)
    selection, _, setup = _pch_split(kind, budget, split)
    return _pnn_epsilon(kind, selection, setup, positive_int(k, "k"))


def pch_error_bound(k, n, radius, beta, *, epsilon=None, rho=None, split=None):
    """Error bound of PCH with k anchors (our constants for Lemma 4.15, used by Remark 2
    to choose k).

    ``y(k) = y_PNN + 2 pi R / k + y_release`` where y_PNN is :func:`pnn_bound` for each
    of the k PNN calls at failure beta / (4k), 2 pi R / k is the gap of Lemma 4.14, and
    y_release bounds the noise of the k released anchors (Thm 4.8 for CGP, Thm 4.6 for
    GP) at failure beta / 4. The constants of our text of the paper for y1, y3 are
    garbled; these follow from the lemmas they cite. ``k`` may be an array.

    Caveat: not a proven bound. The proof of Lemma 4.13 uses Thm 4.12 (the
    returned point is at most y farther from the probe P_j than P_j's nearest
    point x_j*) as if it bounded ||x_a - x_j*||, the distance between the two
    points; a point only slightly farther from P_j can lie far from x_j* along
    the circle around P_j. y_PNN inherits this step. The bound only chooses k
    (:func:`choose_anchor_count`), which is post-processing of the released R
    and has no effect on privacy.
    """
    kind, budget = privacy_budget(epsilon, rho)
    n = positive_int(n, "n")
    radius = positive_finite(radius, "radius")
    beta = probability_open(beta, "beta")
    ks = np.atleast_1d(np.asarray(k))
    if ks.dtype.kind not in "iu" or np.any(ks < 1):
        raise ValueError("k must contain only integers >= 1")
    out = _pch_error_bounds(kind, budget, n, radius, beta, ks.astype(float), split)
    return float(out[0]) if np.ndim(k) == 0 else out


def _pch_error_bounds(kind, budget, n, radius, beta, ks, split=None):
    """:func:`pch_error_bound` for a float array ``ks`` of checked k, in array
    arithmetic (no validation).

    The same terms as :func:`_pch_error_bound_loop` (the reference, one k at a time with
    :func:`pnn_bound` and the Basic bounds), equal to it up to rounding.
    """
    selection, release, setup = _pch_split(kind, budget, split)
    rest = selection - setup
    # each PNN call's epsilon
    step = rest / ks if kind == "GP" else np.sqrt(2 * rest / ks)
    third = beta / (4 * ks) / 3  # pnn_bound at failure beta / (4k), split in three
    log_third = np.log(1 / third)
    select = (np.sqrt(2 * log_third) + log_third) / (step / 3) + (6 / step) * np.log(
        4 * n / third**2
    )
    if kind == "GP":  # gp_basic_bound(k, release, beta / 4)
        log_noise = np.log(1 / (beta / 4 / ks))
        noise = (np.sqrt(2 * log_noise) + log_noise) / (release / ks)
    else:  # cgp_basic_bound(k, release, beta / 4)
        noise = np.sqrt(ks * np.log(ks / (beta / 4)) / release)
    return select + 2 * math.pi * radius / ks + noise


def _pch_error_bound_loop(k, n, radius, beta, *, epsilon=None, rho=None, split=None):
    """:func:`pch_error_bound` one k at a time (the reference of the array version in
    the tests)."""
    kind, budget = privacy_budget(epsilon, rho)
    selection, release, setup = _pch_split(kind, budget, split)
    out = []
    for kk in np.atleast_1d(np.asarray(k)):
        kk = int(kk)
        select = svt.pnn_bound(
            n, _pnn_epsilon(kind, selection, setup, kk), beta / (4 * kk)
        )
        noise = (
            basic.gp_basic_bound(kk, release, beta / 4)
            if kind == "GP"
            else basic.cgp_basic_bound(kk, release, beta / 4)
        )
        out.append(select + 2 * math.pi * radius / kk + noise)
    return np.array(out)


def choose_anchor_count(
    n,
    radius,
    beta,
    *,
    epsilon=None,
    rho=None,
    k_range=(16, 128),
    k_max=1024,
    split=None,
) -> int:
    """Remark 2: the k in 1..k_max minimizing :func:`pch_error_bound`, clamped to
    k_range ([16, 128] in §5).

    Uses the released radius R in place of the private diameter, so it is
    post-processing.
    """
    low, high = (positive_int(v, "k_range") for v in k_range)
    if low > high:
        raise ValueError(
            f"k_range must be (low, high) with low <= high, got {k_range!r}"
        )
    ks = np.arange(1, positive_int(k_max, "k_max") + 1)
    errors = pch_error_bound(ks, n, radius, beta, epsilon=epsilon, rho=rho, split=split)
    return int(np.clip(ks[np.argmin(errors)], low, high))


@dataclass(frozen=True)
class HullRelease:
    """Output of :func:`pch`: the anchor indices A, their privatized points, and the
    released c, R, k."""

    anchors: np.ndarray
    released: np.ndarray
    centre: np.ndarray
    radius: float
    k: int
    kind: str
    budget: float


def pch(
    points,
    rng,
    *,
    epsilon=None,
    rho=None,
    beta=0.1,
    k=None,
    k_range=(16, 128),
    split=None,
    centre_share=0.5,
    remove_anchors=False,
    radius_floor=1e-9,
):
    """Private convex hull PCH (Liang and Yi, Alg. 4, plus the release of the anchors,
    §4.4).

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
    kind, budget = privacy_budget(epsilon, rho)
    points = check_tuple(points)
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
        c_hat = basic.gaussian_mechanism(
            centre(points), centre_budget, rng, lipschitz=math.sqrt(2)
        )
        sigma = basic.gaussian_sigma(radius_budget)
        margin = sigma * math.sqrt(2 * math.log(2 / beta))
    else:
        c_hat = mechanisms.planar_laplace(
            centre(points), centre_budget / math.sqrt(2), rng
        )
        margin = math.log(1 / beta) / radius_budget
    reach = np.array([np.max(np.linalg.norm(points - c_hat, axis=1)) + margin])
    if kind == "CGP":
        reach = mechanisms.gaussian(reach, sigma, rng)
    else:
        reach = mechanisms.laplace(reach, 1.0, radius_budget, rng)
    radius = max(float(reach[0]), radius_floor)
    if k is None:
        k = choose_anchor_count(
            len(points),
            radius,
            beta,
            k_range=k_range,
            split=split,
            **({"epsilon": budget} if kind == "GP" else {"rho": budget}),
        )
    k = positive_int(k, "k")
    step = _pnn_epsilon(kind, selection, setup, k)
    theta = 2 * np.pi * np.arange(k) / k
    probes = c_hat + radius * np.column_stack([np.cos(theta), np.sin(theta)])
    if remove_anchors:
        if k > len(points):
            raise ValueError(
                f"k must be at most the number of points ({len(points)}) with "
                f"remove_anchors, got {k}"
            )
        remaining = np.ones(len(points), dtype=bool)
        chosen_list = []
        for p in probes:
            candidates = np.flatnonzero(remaining)
            index = int(
                candidates[
                    pnn_on_distances(
                        query_distances(points[candidates], p), step, 0.0, rng
                    )
                ]
            )
            remaining[index] = False
            chosen_list.append(index)
        anchors = np.unique(chosen_list)
    else:
        anchors = np.unique(
            [
                pnn_on_distances(query_distances(points, p), step, 0.0, rng)
                for p in probes
            ]
        )
    chosen = points[anchors]
    released = (
        basic.gaussian_mechanism(chosen, release / len(anchors), rng)
        if kind == "CGP"
        else mechanisms.planar_laplace(chosen, release / len(anchors), rng)
    )
    return HullRelease(anchors, released, c_hat, radius, k, kind, budget)


def _hull_candidates(points):
    """The points of ``points`` not strictly inside their convex hull, in their order (a
    superset of its vertices).

    A point inside every edge of qhull's hull by more than 1e-9 of the coordinates'
    scale is interior to the exact hull (qhull's vertices are input points), so it is no
    vertex of it and shapely's hull of the rest is the same polygon. Degenerate sets
    (fewer than 3 points, collinear) are returned whole.
    """
    from scipy.spatial import ConvexHull, QhullError

    if len(points) < 16:
        return points
    try:
        # rows (a, b, c): a x + b y + c <= 0 inside, (a, b) a unit vector
        facets = ConvexHull(points).equations
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
    """:func:`hull_jaccard` as it was: shapely's hulls of all the points (the reference
    of tests and benchmarks)."""
    from shapely.geometry import MultiPoint

    true_hull = MultiPoint(check_tuple(points)).convex_hull
    private_hull = MultiPoint(check_tuple(released, "released")).convex_hull
    union = true_hull.union(private_hull).area
    if union == 0:
        raise ValueError("both hulls have zero area; the Jaccard index is undefined")
    return float(true_hull.intersection(private_hull).area / union)


def hull_jaccard(points, released) -> float:
    """Jaccard index area(H ∩ H') / area(H ∪ H') of the convex hulls of two point sets
    (shapely; §5, Fig. 5).

    Only the points on or near each hull (:func:`_hull_candidates`) are handed to
    shapely: the same hulls, hence the same value, as with all points, about 20 times
    faster at n = 20000.
    """
    return polygon_jaccard(
        convex_hull(check_tuple(points)), convex_hull(check_tuple(released, "released"))
    )


def convex_hull(points):
    """The convex hull of the (n, 2) float array ``points`` as a shapely geometry, from
    the points on or near it (:func:`_hull_candidates`): the hull shapely gives for all
    of them, faster."""
    from shapely.geometry import MultiPoint

    return MultiPoint(_hull_candidates(points)).convex_hull


def polygon_jaccard(true_hull, private_hull) -> float:
    """The Jaccard index area(H ∩ H') / area(H ∪ H') of two shapely geometries (see
    :func:`hull_jaccard`); ValueError when both have zero area."""
    union = true_hull.union(private_hull).area
    if union == 0:
        raise ValueError("both hulls have zero area; the Jaccard index is undefined")
    return float(true_hull.intersection(private_hull).area / union)
