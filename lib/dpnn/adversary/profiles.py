"""The privacy each location mechanism really gives: worst-case epsilon by distance.

Footing: **one delta for every mechanism**. For two inputs x, x' the actual
epsilon at delta is the smallest epsilon with hockey-stick divergence
``delta(epsilon) <= delta`` both ways (:func:`dpnn.adversary.exact_epsilon`); a
mechanism's *profile* at distance r is the largest actual epsilon over pairs of
the domain at distance r. GEO, SM and L-SRR are pure-epsilon mechanisms, so at
``delta > 0`` their actual epsilon lies a little below their nominal one; DP-TT
is compared at the same delta (the thesis's 1/N).

- GEO (planar Laplace, rate ``epsilon`` per unit): the law of the privacy loss
  depends only on ``t = epsilon r``; ``delta(e) = P(A) - e^e Q(A)`` with
  ``A = {||y - x'|| - ||y - x|| > e / epsilon}``, each a one-dimensional integral
  over the radius (the angle's share of each circle is closed form), by
  adaptive quadrature.
- SM (density ``p = e^epsilon q`` on the square S(x), q elsewhere):
  ``delta(e) = (p - e^e q) |S(x) \\ S(x')|`` for ``e < epsilon``, largest when
  the squares overlap least; their centres are x clipped to the domain shrunk by
  half a side, so the worst overlap at distance r is a one-dimensional search
  over the direction.
- L-SRR (a staircase over the cells of a 2^(levels-1) grid): the law depends on
  the input's cell only, and on each axis on the XOR of the cells' indices;
  every pair of cells is scored exactly from the joint counts of the groups it
  gives each output, and the profile at r is the largest over cell pairs whose
  distances span r.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq, minimize_scalar

from dpnn import local_mechanisms
from dpnn._validation import nonnegative_finite, positive_finite, probability_open
from dpnn.adversary.transcript import exact_epsilon

__all__ = [
    "geo_delta",
    "geo_epsilon",
    "square_epsilon",
    "lsrr_epsilon",
    "calibrated_geo_rate",
    "actual_mechanisms_at",
]


def _check_delta(delta):
    return probability_open(delta, "delta")


def geo_delta(t, e) -> float:
    """``delta(e)`` of planar Laplace between two inputs ``t = epsilon r`` apart
    (unit rate)."""
    t = nonnegative_finite(t, "t")
    e = nonnegative_finite(e, "e")
    if e >= t:
        return 0.0

    def p_share(rho):  # the share of the circle of radius rho about x inside A
        c = (t * t - 2 * rho * e - e * e) / (2 * rho * t)
        return 1.0 if c >= 1 else 1 - np.arccos(c) / np.pi

    def q_share(rho):  # about x'
        c = (t * t + 2 * rho * e - e * e) / (2 * rho * t)
        return 0.0 if c >= 1 else np.arccos(c) / np.pi

    def law(rho):
        return rho * np.exp(-rho)  # the radius of planar Laplace: Gamma(2, 1)

    kink_p, kink_q = (t - e) / 2, (t + e) / 2
    p = (
        quad(lambda r: law(r) * p_share(r), 0, kink_p, epsabs=1e-14)[0]
        + quad(lambda r: law(r) * p_share(r), kink_p, np.inf, epsabs=1e-14, limit=200)[
            0
        ]
    )
    q = quad(lambda r: law(r) * q_share(r), kink_q, np.inf, epsabs=1e-14, limit=200)[0]
    return max(p - np.exp(e) * q, 0.0)


def geo_epsilon(epsilon, distance, delta) -> float:
    """GEO's actual epsilon at ``delta`` for two inputs ``distance`` apart.

    ``epsilon`` is GEO's rate per unit of distance; the pure bound is
    ``epsilon * distance``, attained by every pair at that distance (GEO is
    translation and rotation invariant), so this is the exact profile.
    """
    t = positive_finite(epsilon, "epsilon") * nonnegative_finite(distance, "distance")
    delta = _check_delta(delta)
    if t == 0 or geo_delta(t, 0.0) <= delta:
        return 0.0
    return float(brentq(lambda e: geo_delta(t, e) - delta, 0.0, t, xtol=1e-12))


def calibrated_geo_rate(target, diameter, delta) -> float:
    """GEO's rate per unit at which the farthest pair (``diameter`` apart) loses
    exactly ``target`` at ``delta``."""
    target = positive_finite(target, "target")
    diameter = positive_finite(diameter, "diameter")
    delta = _check_delta(delta)
    high = target
    while geo_epsilon(high, 1.0, delta) < target:
        high *= 2
    t = brentq(lambda s: geo_epsilon(s, 1.0, delta) - target, target, high, xtol=1e-12)
    return float(t / diameter)


def _square_weights(epsilon, box, side):
    """``(p, q)`` of the square mechanism (its docstring's law)."""
    area, volume = side ** len(box), float(np.prod(box[:, 1] - box[:, 0]))
    q = 1.0 / (np.exp(epsilon) * area + volume - area)
    return np.exp(epsilon) * q, q


def _least_overlap(side, interior, distance):
    """The least overlap of two squares whose centres move ``distance`` (per axis at
    most ``interior``)."""

    def overlap(phi):
        moved = np.minimum(distance * np.abs([np.cos(phi), np.sin(phi)]), interior)
        return float(np.prod(np.maximum(side - moved, 0.0)))

    if len(interior) == 1:
        return max(side - min(distance, interior[0]), 0.0)
    angles = np.linspace(0, np.pi / 2, 2001)
    values = np.array([overlap(a) for a in angles])
    k = int(np.argmin(values))
    window = (angles[max(k - 1, 0)], angles[min(k + 1, len(angles) - 1)])
    found = minimize_scalar(overlap, bounds=window, method="bounded")
    return min(values[k], found.fun, overlap(0.0), overlap(np.pi / 2))


def square_epsilon(epsilon, domain, distance, delta, side=None) -> float:
    """The square mechanism's worst actual epsilon at ``delta`` over pairs
    ``distance`` apart (1-D or 2-D domain)."""
    epsilon = positive_finite(epsilon, "epsilon")
    box = local_mechanisms.check_domain(domain)
    if len(box) > 2:
        raise ValueError(f"domain must have 1 or 2 dimensions, got {len(box)}")
    distance = nonnegative_finite(distance, "distance")
    delta = _check_delta(delta)
    side = local_mechanisms.square_side(epsilon, box) if side is None else side
    p, q = _square_weights(epsilon, box, side)
    interior = np.maximum(box[:, 1] - box[:, 0] - side, 0.0)
    missed = side ** len(box) - _least_overlap(side, interior, distance)
    if p * missed <= delta:
        return 0.0
    return float(max(np.log((p * missed - delta) / (q * missed)), 0.0))


@functools.lru_cache(maxsize=8)
def _axis_classes(levels):
    """Per axis: ``(k, counts)`` for every pair of cells k apart, counts[a, b] the
    outputs in group a from one cell and b from the other; distinct ones only."""
    cells = np.arange(2 ** (levels - 1))
    group = np.zeros((len(cells), len(cells)), dtype=np.intp)
    for g in range(1, levels):
        group = np.where(
            (cells[:, None] >> (g - 1)) != (cells[None] >> (g - 1)), g, group
        )
    found = {}
    for c in cells:
        for c2 in cells:
            counts = np.zeros((levels, levels))
            np.add.at(counts, (group[c], group[c2]), 1)
            found[(abs(int(c) - int(c2)), counts.tobytes())] = counts
    return [(k, counts) for (k, _), counts in found.items()]


def _combined(first, second, levels):
    """Joint group counts of a 2-D pair of cells from its two axes (group = max)."""
    a = np.arange(levels)
    joint = first[:, :, None, None] * second[None, None, :, :]
    rows = np.broadcast_to(
        np.maximum(a[:, None, None, None], a[None, None, :, None]), joint.shape
    )
    cols = np.broadcast_to(
        np.maximum(a[None, :, None, None], a[None, None, None, :]), joint.shape
    )
    counts = np.zeros((levels, levels))
    np.add.at(counts, (rows.ravel(), cols.ravel()), joint.ravel())
    return counts


@functools.lru_cache(maxsize=8)
def _lsrr_classes(levels, dimensions):
    """The cell-pair classes of an L-SRR hierarchy of ``levels`` in 1-D or 2-D:
    ``(laws, which, steps)``, ``laws`` the distinct joint group counts as
    ``(a, b, log count)`` outcome arrays, ``which[i]`` the law of class i and
    ``steps[i]`` its cells apart per axis (independent of epsilon: derived once)."""
    axis = _axis_classes(levels)
    combos = [[(k, c)] for k, c in axis]
    if dimensions == 2:
        combos = [[first, second] for first in axis for second in axis]
    laws, index, which, steps = [], {}, [], []
    for combo in combos:
        counts = (
            combo[0][1]
            if len(combo) == 1
            else _combined(combo[0][1], combo[1][1], levels)
        )
        key = counts.tobytes()
        if key not in index:
            a, b = np.nonzero(counts)
            index[key] = len(laws)
            laws.append((a, b, np.log(counts[a, b])))
        which.append(index[key])
        steps.append([kc[0] for kc in combo])
    return laws, np.array(which), np.array(steps, dtype=float)


def _lsrr_pairs(epsilon, domain, delta, levels):
    """``(spans, values)``: for each class of cell pairs the range of distances between
    their points and the actual epsilon at ``delta``."""
    from dpnn.adversary.likelihoods import LSRR

    box = local_mechanisms.check_domain(domain)
    if len(box) > 2:
        raise ValueError(f"domain must have 1 or 2 dimensions, got {len(box)}")
    delta = _check_delta(delta)
    log_a = LSRR(epsilon, box, levels).log_a
    levels = len(log_a)
    width = (box[:, 1] - box[:, 0]) / 2 ** (levels - 1)
    laws, which, k = _lsrr_classes(levels, len(box))
    scored = np.array(
        [exact_epsilon(log_a[a] + w, log_a[b] + w, delta) for a, b, w in laws]
    )
    spans = np.column_stack(
        [
            np.linalg.norm(np.maximum(k - 1, 0) * width, axis=1),
            np.linalg.norm((k + 1) * width, axis=1),
        ]
    )
    return spans, scored[which]


def lsrr_epsilon(epsilon, domain, distances, delta, levels=4) -> np.ndarray:
    """L-SRR's worst actual epsilon at ``delta`` over pairs at each of ``distances``
    (1-D or 2-D domain), exact: every pair of cells is scored."""
    spans, values = _lsrr_pairs(epsilon, domain, delta, levels)
    r = np.atleast_1d(np.asarray(distances, dtype=float))
    if np.any(~np.isfinite(r)) or np.any(r < 0):
        raise ValueError("distances must hold finite numbers >= 0")
    inside = (spans[None, :, 0] <= r[:, None]) & (r[:, None] <= spans[None, :, 1])
    return np.where(inside, values[None], 0.0).max(axis=1)


def _nominal_for(actual, target):
    """The nominal epsilon whose ``actual(nominal)`` is ``target`` (actual <=
    nominal)."""
    high = target
    while actual(high) < target:
        high *= 1.01
    return float(brentq(lambda e: actual(e) - target, target, high, xtol=1e-10))


def actual_mechanisms_at(
    eps_star, tree, grid, domain, delta, *, lsrr_levels: int, e_splits: int
) -> list:
    """:func:`dpnn.adversary.mechanisms_at`'s mechanisms at equal *actual* privacy.

    Each is calibrated so that its worst pair of inputs in the domain loses
    exactly ``eps_star`` at ``delta`` (one delta for all): GEO's rate by its exact
    profile at the diameter, SM and L-SRR by their exact worst pairs, DP-TT-CMP
    (basic and E) by the exact worst case (the corners,
    :func:`dpnn.adversary.certified.certified_epsilon`), and DP-TT-DIS by the
    certified bound, so DIS's worst pair loses *at most* ``eps_star``.
    """
    from dpnn.adversary.certified import calibrated_epsilon
    from dpnn.adversary.likelihoods import DPTT, LSRR, Geo, SquareMechanism

    eps_star = positive_finite(eps_star, "eps_star")
    box = local_mechanisms.check_domain(domain)
    diameter = grid.diameter
    square = _nominal_for(lambda e: square_epsilon(e, box, diameter, delta), eps_star)
    lsrr = _nominal_for(
        lambda e: _lsrr_pairs(e, box, delta, lsrr_levels)[1].max(), eps_star
    )
    cmp = calibrated_epsilon(tree, eps_star, "cmp", delta)
    early = calibrated_epsilon(tree, eps_star, "cmp", delta, stop_height=e_splits)
    dis = calibrated_epsilon(tree, eps_star, "dis", delta, diameter)
    return [
        Geo(calibrated_geo_rate(eps_star, diameter, delta), box),
        SquareMechanism(square, box),
        LSRR(lsrr, box, lsrr_levels),
        DPTT(tree, cmp, "cmp", box),
        DPTT(tree, early, "cmp", box, variant=f"E{e_splits}"),
        DPTT(tree, dis, "dis", box, sensitivity=diameter),
    ]
