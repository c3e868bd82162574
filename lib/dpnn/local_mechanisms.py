"""The follow-up's local mechanisms for locations on a bounded domain.

The thesis's author and a collaborator compared DP-TT with two newer local
mechanisms (public repository d1shs0ap/dpnn, src/run_mse.py: sample_sm and
sample_lsrr at eps_cmp * 0.1 and * 3). Both release a point of the domain, so the
server answers the k-NN of the released point, as GEO.

Each mechanism here is epsilon-DP in the local model: the user perturbs their own
location before it leaves the device.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, generator, positive_finite, positive_int

__all__ = [
    "check_domain",
    "square_side",
    "square_mechanism",
    "square_mechanism_mse",
    "lsrr_probabilities",
    "lsrr",
    "lsrr_mse",
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


def _domain_points(points, domain):
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


def _box_square_integral(low, high, x):
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
    x, box, _ = _domain_points(points, domain)
    epsilon = positive_finite(epsilon, "epsilon")
    side = square_side(epsilon, box) if side is None else _check_side(side, box)
    p, q = _square_weights(epsilon, box, side)
    low, high = _square(x, box, side)
    whole = _box_square_integral(
        np.broadcast_to(box[:, 0], x.shape), np.broadcast_to(box[:, 1], x.shape), x
    )
    return (p - q) * _box_square_integral(low, high, x) + q * whole


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

    ``points`` of shape (n, d) (or (n,) with a 1-D domain), every point inside
    ``domain`` (shape (d, 2)). Returns the released points in the input's shape.
    """
    x, box, shape = _domain_points(points, domain)
    epsilon = positive_finite(epsilon, "epsilon")
    rng = generator(rng)
    side = square_side(epsilon, box) if side is None else _check_side(side, box)
    n, d = x.shape
    p, _ = _square_weights(epsilon, box, side)
    low, high = _square(x, box, side)
    inside = rng.random(n) < p * side**d
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


def _lsrr_constants(epsilon, levels, d):
    """Probability a_g of one finest cell in group g = 0 .. levels-1, and the group
    sizes |G_g| (in cells)."""
    groups = np.arange(levels)
    sizes = np.where(groups == 0, 1, (2**d - 1) * 2.0 ** ((groups - 1) * d))
    cells = 2.0 ** ((levels - 1) * d)
    t = groups / (levels - 1)  # 0 at x's own cell, 1 at the farthest group
    # a_g = a_min (e^eps (1 - t) + t): the linear staircase from e^eps a_min down to
    # a_min, written without the difference of two numbers of size e^eps (that
    # cancellation gave a_min <= 0 from epsilon ~ 40), divided by e^eps where e^eps
    # times the cells overflows; normalised so that sum_g a_g |G_g| = 1
    with np.errstate(over="ignore", invalid="ignore"):
        shape = np.exp(epsilon) * (1 - t) + t
        total = np.sum(shape * sizes)
    if not np.isfinite(total):  # e^eps times the cells overflows: divide by e^eps first
        shape = (1 - t) + t * np.exp(-epsilon)
        total = np.sum(shape * sizes)
    return shape / total, sizes


def _lsrr_cells(x, box, levels):
    per_side = 2 ** (levels - 1)
    return np.minimum(
        ((x - box[:, 0]) / (box[:, 1] - box[:, 0]) * per_side).astype(np.int64),
        per_side - 1,
    )


#: Most levels L-SRR takes: 2^(levels-1) cells per axis stay within a double's 2^52
#: resolution of the domain (and cell indices within int64).
_MAX_LEVELS = 53
#: Most cells an exact table (lsrr_probabilities, lsrr_mse) enumerates.
_MAX_TABLE_CELLS = 2**24


def _check_levels(levels, d=None):
    levels = positive_int(levels, "levels", minimum=2)
    if levels > _MAX_LEVELS:
        raise ValueError(
            f"levels must be an integer in [2, {_MAX_LEVELS}] "
            "(2^(levels-1) cells per axis, within the float resolution "
            f"of the domain), got {levels}"
        )
    if d is not None and 2.0 ** ((levels - 1) * d) > _MAX_TABLE_CELLS:
        raise ValueError(
            f"levels must make at most 2^24 cells for an exact table, "
            f"2^((levels-1) d) with d = {d}; got levels = {levels}"
        )
    return levels


def lsrr_probabilities(point, epsilon, domain, levels=4) -> np.ndarray:
    """Exact probability that :func:`lsrr` releases each finest cell for one true
    ``point``.

    Returns an array of shape ``(2^(levels-1),) * d`` (cells indexed by their
    position along each axis), summing to 1.
    """
    x, box, _ = _domain_points(
        np.atleast_1d(np.asarray(point, dtype=float)).reshape(1, -1), domain
    )
    epsilon = positive_finite(epsilon, "epsilon")
    d = box.shape[0]
    levels = _check_levels(levels, d)
    a, _ = _lsrr_constants(epsilon, levels, d)
    own = _lsrr_cells(x, box, levels)[0]
    grid = np.stack(
        np.meshgrid(*[np.arange(2 ** (levels - 1))] * d, indexing="ij"), axis=-1
    )
    # group: the lowest level g at which the cell and x's cell share an ancestor (cell
    # index >> g)
    group = np.zeros(grid.shape[:-1], dtype=np.int64)
    for g in range(1, levels):
        group = np.where(
            np.any((grid >> (g - 1)) != (own >> (g - 1)), axis=-1), g, group
        )
    return a[group]


def lsrr(points, epsilon, domain, rng, levels=4) -> np.ndarray:
    """L-SRR: staircase randomized response over a hierarchical grid of the domain.

    Our reading of Wang et al., "L-SRR: Local Differential Privacy for
    Location-Based Services with Staircase Randomized Response" (arXiv
    2209.15091), as the follow-up implements it (``search_lsrr`` in the public
    ``src/nn.py`` of d1shs0ap/dpnn): the domain is split into ``2^(levels-1)``
    cells per axis, a quadtree (Bing-tiles-like) encoding of ``levels`` levels.
    Group G_0 is x's own cell; group G_g (g >= 1) is the level-g tile holding x
    minus its level-(g-1) tile, ``|G_g| = (2^d - 1) 2^((g-1) d)`` cells. Every cell
    of G_g is released with probability ``a_g``, a linear staircase from
    ``a_0 = e^epsilon a_min`` to ``a_{levels-1} = a_min``, normalised so that
    ``sum_g a_g |G_g| = 1`` (the follow-up's equations (2)-(4)); the output is a
    uniform point of the released cell.

    Privacy (epsilon-LDP over the whole domain): for any two inputs x, x' and
    any cell, both probabilities lie in ``[a_min, e^epsilon a_min]``, so their
    ratio is at most e^epsilon; the point inside the cell is drawn independently
    of x (post-processing), so densities have the same ratios.
    """
    x, box, shape = _domain_points(points, domain)
    epsilon = positive_finite(epsilon, "epsilon")
    levels = _check_levels(levels)
    rng = generator(rng)
    n, d = x.shape
    a, sizes = _lsrr_constants(epsilon, levels, d)
    group = rng.choice(levels, size=n, p=a * sizes / np.sum(a * sizes))
    own = _lsrr_cells(x, box, levels)
    # in group g >= 1: one of the 2^d - 1 level-(g-1) tiles beside x's own, then a
    # uniform cell in it
    g1 = np.maximum(group - 1, 0)
    own_tile = own >> g1[:, None]
    # XOR with a non-zero code: uniform over the other tiles
    flip = rng.integers(1, 2**d, size=n)
    bits = (flip[:, None] >> np.arange(d)) & 1
    tile = np.where(group[:, None] > 0, own_tile ^ bits, own_tile)
    offset = (rng.random((n, d)) * (2.0**g1)[:, None]).astype(np.int64)
    cell = np.where(group[:, None] > 0, (tile << g1[:, None]) + offset, own)
    width = (box[:, 1] - box[:, 0]) / 2 ** (levels - 1)
    out = box[:, 0] + (cell + rng.random((n, d))) * width
    return out.reshape(shape)


def lsrr_mse(points, epsilon, domain, levels=4) -> np.ndarray:
    """Exact mean squared displacement ``E ||L-SRR(x) - x||^2`` at each point (a sum
    over cells)."""
    x, box, _ = _domain_points(points, domain)
    d = box.shape[0]
    per_side = 2 ** (_check_levels(levels, d) - 1)
    width = (box[:, 1] - box[:, 0]) / per_side
    grid = np.stack(
        np.meshgrid(*[np.arange(per_side)] * d, indexing="ij"), axis=-1
    ).reshape(-1, d)
    low = box[:, 0] + grid * width
    out = np.empty(len(x))
    for i, row in enumerate(x):
        probability = lsrr_probabilities(row, epsilon, box, levels).reshape(-1)
        inner = _box_square_integral(
            low, low + width, np.broadcast_to(row, low.shape)
        ) / np.prod(width)
        out[i] = probability @ inner
    return out
