"""The follow-up's local mechanisms for locations on a bounded domain.

The thesis's author and a collaborator compared DP-TT with two newer local
mechanisms (public repository d1shs0ap/dpnn, src/run_mse.py: sample_sm and
sample_lsrr at eps_cmp * 0.1 and * 3). Both release a point of the domain, so the
server answers the k-NN of the released point, as GEO. This module holds the
bounded domain and the square mechanism (SM); :mod:`dpnn.lsrr` holds L-SRR.

Each mechanism here is epsilon-DP in the local model: the user perturbs their own
location before it leaves the device.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpnn import exact_sampling, float_laws
from dpnn._validation import finite_array, generator, positive_finite

__all__ = [
    "check_domain",
    "domain_points",
    "box_square_integral",
    "square_side",
    "square_mechanism",
    "square_mechanism_mse",
    "square_sampled_loss",
]


def check_domain(domain, dimension=None) -> np.ndarray:
    """``domain`` as a (d, 2) float array of (low, high) rows with low < high."""
    box = finite_array(domain, "domain", ndim=(1, 2))
    box = box.reshape(1, 2) if box.ndim == 1 and box.size == 2 else box
    if box.ndim != 2 or box.shape[1] != 2 or np.any(box[:, 0] >= box[:, 1]):
        raise ValueError(
            f"domain must be (low, high) per dimension, shape (d, 2) with low < high, "
            f"got {np.asarray(domain).tolist()!r}"
        )
    if dimension is not None and box.shape[0] != dimension:
        raise ValueError(
            "domain must have one (low, high) row per "
            f"dimension ({dimension}), got {box.shape[0]}"
        )
    with np.errstate(over="ignore", under="ignore"):
        widths = box[:, 1] - box[:, 0]
        volume = float(np.prod(widths))
    if not (np.all(np.isfinite(widths)) and np.isfinite(volume) and volume > 0):
        raise ValueError(
            "domain must have finite side lengths high - low and a volume "
            "prod(high - low) in the float range (0, 1.8e308), got "
            f"{np.asarray(domain).tolist()!r}"
        )
    return box


def domain_points(points, domain):
    """Points as (n, d) inside the domain, the (d, 2) domain, and the input's shape."""
    raw = finite_array(points, "points", ndim=(1, 2))
    box = check_domain(domain)
    x = raw.reshape(-1, 1) if raw.ndim == 1 and box.shape[0] == 1 else raw
    if x.ndim != 2 or x.shape[1] != box.shape[0]:
        raise ValueError(
            f"points must have shape (n, {box.shape[0]}) "
            f"like the domain, got {raw.shape}"
        )
    if np.any(x < box[:, 0]) or np.any(x > box[:, 1]):
        raise ValueError(
            "points must lie inside the domain (low <= x <= high in every dimension)"
        )
    return x, box, raw.shape


def box_square_integral(low, high, x):
    """Per point: integral over the box [low, high] of ||y - x||^2 dy (boxes and points
    (n, d))."""
    widths = high - low
    # integral of (y_j - x_j)^2 over [low_j, high_j]
    one_d = ((high - x) ** 3 - (low - x) ** 3) / 3
    volume = np.prod(widths, axis=1, keepdims=True)
    return np.sum(volume / widths * one_d, axis=1)


def _square(x, box, side):
    """The square (cube) of side ``side`` centred at x, shifted to lie inside the
    domain."""
    centre = np.clip(x, box[:, 0] + side / 2, box[:, 1] - side / 2)
    return centre - side / 2, centre + side / 2


def _square_weights(epsilon, box, side):
    """(p, q): output density inside and outside the square.

    ``p = e^eps / (e^eps s^d + A - s^d)`` written as ``1 / (s^d + (A - s^d) e^-eps)``
    and ``q = e^-eps p``: no e^eps overflows (eps = 710 gives p = 1 / s^d, q ~ 0).
    """
    inner, area = side ** box.shape[0], float(np.prod(box[:, 1] - box[:, 0]))
    with np.errstate(over="ignore", invalid="ignore"):
        q = 1.0 / (np.exp(epsilon) * inner + area - inner)
        p = np.exp(epsilon) * q
    if np.isfinite(p) and q > 0:  # the direct form, wherever it holds in floats
        return p, q
    shrink = np.exp(-epsilon)
    p = 1.0 / (inner + (area - inner) * shrink)
    return p, shrink * p


def _square_volumes(box, side):
    """The square's and the domain's volumes as exact rationals (the floats' values)."""
    widths = [Fraction(float(hi)) - Fraction(float(lo)) for lo, hi in box]
    total = Fraction(1)
    for width in widths:
        total *= width
    return Fraction(side) ** box.shape[0], total


def square_sampled_loss(epsilon, domain, side) -> float:
    """The privacy loss of :func:`square_mechanism`'s float sampler, computed exactly.

    The float path draws "inside the square" as ``U < p s^d`` with U on numpy's
    grid ``{k 2^-53}``: probability ``ceil(p s^d 2^53) / 2^53``
    (:func:`dpnn.float_laws.uniform_below`); the loss is the log ratio of the
    densities inside and outside (:func:`dpnn.float_laws.two_region_loss`),
    infinite when no draw falls outside. Ideal: exactly ``epsilon``.
    """
    box = check_domain(domain)
    epsilon = positive_finite(epsilon, "epsilon")
    side = _check_side(side, box)
    p, _ = _square_weights(epsilon, box, side)
    inner, total = _square_volumes(box, side)
    inside = float_laws.uniform_below(p * side ** box.shape[0])
    return float_laws.two_region_loss(inside, inner, total)


def _check_side(side, box):
    side = positive_finite(side, "side")
    shortest = float(np.min(box[:, 1] - box[:, 0]))
    if side >= shortest:
        raise ValueError(
            f"side must be in (0, {shortest}) (below "
            f"the domain's shortest side), got {side}"
        )
    return side


def square_mechanism_mse(points, epsilon, domain, side=None) -> np.ndarray:
    """Exact mean squared displacement ``E ||SM(x) - x||^2`` of :func:`square_mechanism`
    at each point.

    The output density is piecewise constant on two boxes (the square and the
    domain), so the expectation is ``(p - q) I(square) + q I(domain)`` with
    ``I(B) = integral over B of ||y - x||^2``, a sum of one-dimensional cubes.
    """
    x, box, _ = domain_points(points, domain)
    epsilon = positive_finite(epsilon, "epsilon")
    side = square_side(epsilon, box) if side is None else _check_side(side, box)
    p, q = _square_weights(epsilon, box, side)
    low, high = _square(x, box, side)
    whole = box_square_integral(
        np.broadcast_to(box[:, 0], x.shape), np.broadcast_to(box[:, 1], x.shape), x
    )
    return (p - q) * box_square_integral(low, high, x) + q * whole


#: Largest dimension whose default square side is computed (24^d quadrature points).
_MAX_SIDE_DIMENSION = 3


def square_side(epsilon, domain) -> float:
    """The square's side minimising the mean squared displacement averaged over a
    uniform query.

    Our choice: the follow-up takes the side from equation (9) of the SM paper
    (IEEE Xplore 9458926), which we could not read; instead we minimise the exact
    mean of :func:`square_mechanism_mse` over queries uniform on the domain
    (Gauss-Legendre on a grid exact for its piecewise-cubic integrand in 1-D,
    a 24-point product rule per dimension otherwise). Any side gives the same privacy.
    """
    from scipy.optimize import minimize_scalar

    box = check_domain(domain)
    epsilon = positive_finite(epsilon, "epsilon")
    if box.shape[0] > _MAX_SIDE_DIMENSION:
        raise ValueError(
            f"domain must have at most {_MAX_SIDE_DIMENSION} dimensions "
            f"for the default side (its 24^d-point rule), "
            f"got {box.shape[0]}: pass side"
        )
    nodes, weights = np.polynomial.legendre.leggauss(24)
    grids = [(lo + (hi - lo) * (nodes + 1) / 2, weights / 2) for lo, hi in box]
    mesh = np.stack(
        np.meshgrid(*[g for g, _ in grids], indexing="ij"), axis=-1
    ).reshape(-1, len(box))
    weight = np.prod(
        np.stack(np.meshgrid(*[w for _, w in grids], indexing="ij"), axis=-1).reshape(
            -1, len(box)
        ),
        axis=1,
    )
    shortest = float(np.min(box[:, 1] - box[:, 0]))

    def mean_mse(fraction):
        return float(
            weight @ square_mechanism_mse(mesh, epsilon, box, fraction * shortest)
        )

    best = minimize_scalar(
        mean_mse, bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-6}
    )
    return float(best.x * shortest)


def square_mechanism(points, epsilon, domain, rng, side=None) -> np.ndarray:
    """The square mechanism (SM): epsilon-LDP location release on a bounded box.

    For a true location x, let S(x) be the square (a cube in d dimensions) of
    side ``side`` centred at x and shifted just enough to lie inside the
    domain. The output Y has density ``p = e^epsilon q`` on S(x) and ``q``
    on the rest of the domain, ``q = 1 / (e^epsilon s^d + A - s^d)`` (A the
    domain's volume): with probability ``p s^d`` a uniform point of S(x), else a
    uniform point of the domain minus S(x). This is our reading of the SM of
    IEEE Xplore 9458926 as the follow-up uses it (``sample_sm``, called in
    ``src/run_mse.py``); the default side is :func:`square_side`.

    Privacy (epsilon-LDP over the whole domain): S(x) has volume s^d for every
    x, so the normalising q is the same for every input; for any x, x' and any
    output y the densities are each p or q, so
    ``f(y | x) / f(y | x') in {e^-epsilon, 1, e^epsilon}``. Integrating over any
    event S gives ``Pr[Y in S | x] <= e^epsilon Pr[Y in S | x']``. This is not
    geo-indistinguishability at any rate per unit of distance: two inputs however
    close have squares that differ on a sliver, where the ratio is e^epsilon. The
    implication runs the other way: (epsilon/D)-geo-indistinguishability on a
    domain of diameter D gives epsilon-LDP.

    As sampled: the choice "inside or outside" is drawn as ``U < p s^d`` with a
    float uniform when that law's loss (:func:`square_sampled_loss`, computed at
    every call) is at most ``epsilon + 1e-9`` (:data:`dpnn.float_laws.LOSS_SLACK`);
    above (from about epsilon = 36 at side 0.1 of the unit interval, where no
    float draw falls outside a side 0.25 square from epsilon = 40) it is drawn
    exactly, inside with probability ``s^d / (s^d + (A - s^d) e^-epsilon)``
    (:func:`dpnn.exact_sampling.weighted_pair`), so the loss is epsilon. The
    point within the region is a float uniform as before: its low-order bits
    depend on the square's corner, which this exactness does not cover.

    ``points`` of shape (n, d) (or (n,) with a 1-D domain), every point inside
    ``domain`` (shape (d, 2)). Returns the released points in the input's shape.
    """
    x, box, shape = domain_points(points, domain)
    epsilon = positive_finite(epsilon, "epsilon")
    rng = generator(rng)
    side = square_side(epsilon, box) if side is None else _check_side(side, box)
    n, d = x.shape
    p, _ = _square_weights(epsilon, box, side)
    low, high = _square(x, box, side)
    if square_sampled_loss(epsilon, box, side) <= epsilon + float_laws.LOSS_SLACK:
        inside = rng.random(n) < p * side**d
    else:
        inner, total = _square_volumes(box, side)
        inside = exact_sampling.weighted_pair(inner, total - inner, epsilon, rng, n)
    out = low + side * rng.random((n, d))
    # outside: slab j holds y with y_k in the square for k < j, y_j outside it, y_k free
    # for k > j
    lengths = box[:, 1] - box[:, 0]
    # (n, d) room on either side of the square
    below, above = low - box[:, 0], box[:, 1] - high
    slab = np.stack(
        [side**j * (lengths[j] - side) * np.prod(lengths[j + 1 :]) for j in range(d)]
    )
    chosen = rng.choice(d, size=n, p=slab / slab.sum())
    free = box[:, 0] + lengths * rng.random((n, d))
    in_square = low + side * rng.random((n, d))
    # a uniform point of the two gaps, laid end to end
    gap = (below + above) * rng.random((n, d))
    outside_coordinate = np.where(gap < below, box[:, 0] + gap, high + gap - below)
    j = np.arange(d)
    other = np.where(
        j < chosen[:, None],
        in_square,
        np.where(j == chosen[:, None], outside_coordinate, free),
    )
    out = np.where(inside[:, None], out, other)
    return out.reshape(shape)
