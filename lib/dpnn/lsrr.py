"""L-SRR: staircase randomized response over a hierarchical grid of a bounded domain.

The second local mechanism of the follow-up (d1shs0ap/dpnn, ``sample_lsrr``), on
the bounded domains of :mod:`dpnn.local_mechanisms`: epsilon-DP in the local model.
"""

from __future__ import annotations

import numpy as np

from dpnn import exact_sampling, float_laws
from dpnn._validation import generator, positive_finite, positive_int
from dpnn.local_mechanisms import box_square_integral, domain_points

__all__ = ["lsrr_probabilities", "lsrr", "lsrr_mse", "lsrr_sampled_loss"]


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


def lsrr_sampled_loss(epsilon, levels=4, dimension=1) -> float:
    """The privacy loss of :func:`lsrr`'s float sampler, computed exactly.

    The float path draws the group with ``Generator.choice(levels, p=...)``,
    whose law on numpy's uniform grid is :func:`dpnn.float_laws.choice_law`; each
    cell of group g then has probability ``law[g] / |G_g|`` and the loss is the
    log ratio of the largest to the smallest (:func:`dpnn.float_laws.group_loss`),
    infinite once the farthest group is never drawn. Ideal: exactly ``epsilon``.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    levels = _check_levels(levels)
    dimension = positive_int(dimension, "dimension")
    a, sizes = _lsrr_constants(epsilon, levels, dimension)
    law = float_laws.choice_law(a * sizes / np.sum(a * sizes))
    return float_laws.group_loss(law, sizes)


def _lsrr_groups_exact(epsilon, levels, d, rng, n):
    """n groups with ``Pr[g] ~ (e^eps (1 - t_g) + t_g) |G_g|``, t_g = g / (levels -
    1), exactly.

    Times (levels - 1) e^-eps the weight is ``A_g + e^-eps B_g`` with integers
    ``A_g = (levels - 1 - g) |G_g|`` and ``B_g = g |G_g|``: the component A with
    probability ``sum A / (sum A + e^-eps sum B)``
    (:func:`dpnn.exact_sampling.weighted_pair`), then g with probability
    proportional to its integer weight in that component.
    """
    sizes = [1] + [(2**d - 1) * 2 ** ((g - 1) * d) for g in range(1, levels)]
    first = [(levels - 1 - g) * size for g, size in enumerate(sizes)]
    second = [g * size for g, size in enumerate(sizes)]
    in_first = exact_sampling.weighted_pair(sum(first), sum(second), epsilon, rng, n)
    group = np.empty(n, dtype=np.intp)
    group[in_first] = exact_sampling.categorical(first, rng, int(in_first.sum()))
    group[~in_first] = exact_sampling.categorical(second, rng, int((~in_first).sum()))
    return group


def lsrr_probabilities(point, epsilon, domain, levels=4) -> np.ndarray:
    """Exact probability that :func:`lsrr` releases each finest cell for one true
    ``point``.

    Returns an array of shape ``(2^(levels-1),) * d`` (cells indexed by their
    position along each axis), summing to 1.
    """
    x, box, _ = domain_points(
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

    As sampled: the group is drawn with ``Generator.choice`` when that law's loss
    (:func:`lsrr_sampled_loss`, computed at every call) is at most
    ``epsilon + 1e-9`` (:data:`dpnn.float_laws.LOSS_SLACK`); above (from about
    epsilon = 36 with 4 levels in 1-D, 39 with 6 levels in 2-D) it is drawn
    exactly (:func:`_lsrr_groups_exact`), so the loss is epsilon. The cell within
    its group and the point within its cell are exact uniforms or depend on the
    cell only.
    """
    x, box, shape = domain_points(points, domain)
    epsilon = positive_finite(epsilon, "epsilon")
    levels = _check_levels(levels)
    rng = generator(rng)
    n, d = x.shape
    a, sizes = _lsrr_constants(epsilon, levels, d)
    if lsrr_sampled_loss(epsilon, levels, d) <= epsilon + float_laws.LOSS_SLACK:
        group = rng.choice(levels, size=n, p=a * sizes / np.sum(a * sizes))
    else:
        group = _lsrr_groups_exact(epsilon, levels, d, rng, n)
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
    x, box, _ = domain_points(points, domain)
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
        inner = box_square_integral(
            low, low + width, np.broadcast_to(row, low.shape)
        ) / np.prod(width)
        out[i] = probability @ inner
    return out
