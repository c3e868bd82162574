"""The private uniform grid and the non-interactive k-NN to r-N conversion (Alg. 7).

The grid's cell counts are released once with Laplace noise (parallel composition
over the cells); every later conversion reads only the released grid, so it costs
nothing more. A ball's mass is the sum of each cell's density times the area (or
sampled volume in high dimension) of its intersection with the ball.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpnn import mechanisms
from dpnn._validation import generator, positive_finite, positive_int, probability_open

from . import interactive
from .inputs import check_k_values, check_private_points, check_queries

__all__ = [
    "grid_size",
    "PrivateGrid",
    "private_uniform_grid",
    "disc_rectangle_area",
    "grid_mass",
    "convert_noninteractive",
]


def grid_size(n_estimate, epsilon, dimension, *, c=10.0, max_cells=2**20):
    """Cells per dimension ``m`` of the uniform grid: ``(N epsilon / c)^{2/(d+2)}``, at
    least 1.

    For d = 2 this is Qardaji et al.'s ``sqrt(N epsilon / c)`` with c = 10. For
    general d the same balance of noise error (grows like ``m^{d/2} / epsilon``)
    against non-uniformity error (falls like ``N / m``) gives the exponent
    ``2 / (d + 2)``, the rule of Su et al.'s extended uniform grids. Capped so
    that ``m^d <= max_cells``.
    """
    dimension = positive_int(dimension, "dimension")
    n_estimate = positive_finite(n_estimate, "n_estimate")
    epsilon = positive_finite(epsilon, "epsilon")
    m = max(1, int(math.floor((n_estimate * epsilon / c) ** (2.0 / (dimension + 2)))))
    cap = max(1, int(math.floor(max_cells ** (1.0 / dimension) + 1e-9)))
    return min(m, cap)


@dataclass(frozen=True)
class PrivateGrid:
    """An ``epsilon``-DP uniform grid over ``[0, 1]^d``: ``m`` cells per side, noisy
    counts."""

    counts: np.ndarray  # shape (m,) * d, noisy (may be negative)
    m: int
    epsilon: float

    @property
    def dimension(self) -> int:
        return self.counts.ndim

    def densities(self) -> np.ndarray:
        """Counts clipped at 0 divided by the cell volume ``m^-d`` (post-processing)."""
        return np.clip(self.counts, 0.0, None) * float(self.m) ** self.dimension


def private_uniform_grid(
    points, epsilon, rng, *, size_share=interactive.SIZE_SHARE, c=10.0, max_cells=2**20
):
    """Alg. 7, line 1: the uniform grid of Qardaji et al. with Laplace counts;
    ``epsilon``-DP.

    ``size_share * epsilon`` buys a noisy ``|D|`` to choose ``m`` (:func:`grid_size`);
    the rest goes to ``Lap(1 / ((1 - size_share) epsilon))`` on every cell count
    (one instance lies in one cell: sensitivity 1, parallel composition over cells).
    """
    points = check_private_points(points)
    epsilon = positive_finite(epsilon, "epsilon")
    size_share = probability_open(size_share, "size_share")
    rng = generator(rng)
    dimension = points.shape[1]
    m = grid_size(
        interactive.noisy_size(points.shape[0], size_share * epsilon, rng),
        (1 - size_share) * epsilon,
        dimension,
        c=c,
        max_cells=max_cells,
    )
    cells = np.minimum((points * m).astype(np.intp), m - 1)
    exact = np.zeros((m,) * dimension)
    np.add.at(exact, tuple(cells.T), 1.0)
    counts = mechanisms.laplace(exact, 1.0, (1 - size_share) * epsilon, rng)
    return PrivateGrid(counts, m, epsilon)


def _quadrant_area(x, y, r):
    """Signed area of the disc of radius r at 0 inside ``[0, x] x [0, y]`` (odd in x and
    in y)."""
    sx, sy = np.sign(x), np.sign(y)
    x, y = np.minimum(np.abs(x), r), np.minimum(np.abs(y), r)

    def chord(t):  # integral_0^t sqrt(r^2 - u^2) du
        return 0.5 * (
            t * np.sqrt(np.maximum(r * r - t * t, 0.0))
            + r * r * np.arcsin(np.clip(t / r, -1, 1))
        )

    # where the circle's height drops below y
    t0 = np.sqrt(np.maximum(r * r - y * y, 0.0))
    area = y * np.minimum(x, t0) + np.where(
        x > t0, chord(x) - chord(np.minimum(t0, x)), 0.0
    )
    return sx * sy * area


def disc_rectangle_area(centre, r, lower, upper):
    """Exact area of the disc ``B(centre, r)`` inside the rectangle ``[lower, upper]``
    (broadcasts).

    Inclusion-exclusion over the four corners of the signed quadrant area.
    """
    dx0, dx1 = lower[..., 0] - centre[..., 0], upper[..., 0] - centre[..., 0]
    dy0, dy1 = lower[..., 1] - centre[..., 1], upper[..., 1] - centre[..., 1]
    return (
        _quadrant_area(dx1, dy1, r)
        - _quadrant_area(dx0, dy1, r)
        - _quadrant_area(dx1, dy0, r)
        + _quadrant_area(dx0, dy0, r)
    )


def _ball_directions(dimension, n_samples, rng):
    """``n_samples`` points uniform in the unit ball of R^d (fixed per conversion:
    common numbers)."""
    direction = rng.standard_normal((n_samples, dimension))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    return direction * rng.random((n_samples, 1)) ** (1.0 / dimension)


def _box_mass(density, m, centre, r):
    """Exact mass of one ball under a 1-D or 2-D grid, summed over the cells its
    bounding box touches."""
    first = np.clip(np.floor((centre - r) * m).astype(int), 0, m - 1)
    last = np.clip(np.floor((centre + r) * m).astype(int), 0, m - 1)
    if centre.size == 1:
        edges = np.arange(first[0], last[0] + 2) / m
        covered = np.clip(centre[0] + r, edges[:-1], edges[1:]) - np.clip(
            centre[0] - r, edges[:-1], edges[1:]
        )
        return float(covered @ density[first[0] : last[0] + 1])
    index = np.indices(last - first + 1).reshape(2, -1).T + first
    area = disc_rectangle_area(centre, r, index / m, (index + 1) / m)
    return float(area @ density[index[:, 0], index[:, 1]])


def _disc_masses(density, m, queries, radii, cells=1 << 20):
    """:func:`_box_mass` of every 2-D query at once: the same floats, one array pass per
    block of queries.

    The areas are elementwise, so computing them for many queries together changes no
    value; each query's sum stays one dot product over its own cells, in the same order.
    """
    first = np.clip(np.floor((queries - radii[:, None]) * m).astype(int), 0, m - 1)
    last = np.clip(np.floor((queries + radii[:, None]) * m).astype(int), 0, m - 1)
    width = last - first + 1
    sizes = width[:, 0] * width[:, 1]
    out = np.empty(len(queries))
    start = 0
    # blocks of queries with at most ``cells`` cells (at least one query)
    while start < len(queries):
        stop = start + max(
            1, int(np.searchsorted(np.cumsum(sizes[start:]), cells, side="right"))
        )
        owner = np.repeat(np.arange(start, stop), sizes[start:stop])
        bounds = np.concatenate([[0], np.cumsum(sizes[start:stop])])
        offset = np.arange(bounds[-1]) - bounds[owner - start]
        index = np.column_stack(
            [
                first[owner, 0] + offset // width[owner, 1],
                first[owner, 1] + offset % width[owner, 1],
            ]
        )
        area = disc_rectangle_area(
            queries[owner], radii[owner], index / m, (index + 1) / m
        )
        mass = density[index[:, 0], index[:, 1]]
        for q in range(stop - start):
            out[start + q] = float(
                area[bounds[q] : bounds[q + 1]] @ mass[bounds[q] : bounds[q + 1]]
            )
        start = stop
    return out


def _sample_reach(queries, samples):
    """``reach[q, s]``: about the largest r with ``x_q + r u_s`` in [0, 1]^d (inf if no
    coordinate leaves).

    For ``x_q`` in [0, 1]^d and r >= 0, each coordinate of the rounded ``x + r u`` moves
    monotonically with r (rounding preserves order), away from the side it cannot cross,
    so the sample is inside exactly for r up to a threshold; ``reach`` computes that
    threshold by division, within a few units in the last place.
    :func:`_one_cell_masses` decides by it only where r is farther from it than a
    relative 1e-9 and evaluates the rest exactly.
    """
    x = queries[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        upward = np.where(samples > 0, (1.0 - x) / samples[None], np.inf)
        downward = np.where(samples < 0, x / -samples[None], np.inf)
    return np.minimum(upward, downward).min(axis=2)


def _one_cell_inside(queries, radii, samples, reach):
    """``all(0 <= x_q + r_q u_s <= 1)`` per (q, s), the same booleans as evaluating
    every location."""
    r = radii[:, None]
    inside = r < reach
    close = np.isfinite(reach) & (np.abs(r - reach) <= 1e-9 * np.maximum(r, reach))
    rows, columns = np.nonzero(close)
    if rows.size:
        locations = queries[rows] + radii[rows, None] * samples[columns]
        inside[rows, columns] = np.all((locations >= 0) & (locations <= 1), axis=1)
    return inside


def grid_mass(grid, queries, radii, *, samples=None, reach=None):
    """Expected number of points in ``B(x_i, r_i)`` under the grid (Alg. 7, lines 6-10).

    ``sum_C vol(B ∩ C) |C| / vol(C)`` with counts clipped at 0. Exact in 1-D and 2-D
    (interval lengths; disc-rectangle areas over the cells the ball's bounding box
    touches); in higher d a Monte Carlo estimate ``vol(B) mean_s density(x + r u_s)``
    over ``samples`` (points uniform in the unit ball, required then). Post-processing
    of the grid. ``reach``: :func:`_sample_reach` of ``queries`` and ``samples``, which
    a one-cell grid (m = 1) then uses for the same masses, faster.
    """
    density = grid.densities()
    m, d = grid.m, grid.dimension
    radii = np.broadcast_to(np.asarray(radii, float), (queries.shape[0],))
    if d == 2:
        return _disc_masses(density, m, queries, radii)
    if d == 1:
        return np.array(
            [_box_mass(density, m, centre, r) for centre, r in zip(queries, radii)]
        )
    if samples is None:
        raise ValueError(
            "samples (points uniform in the unit ball) are required for dimension > 2"
        )
    volume = np.exp(d / 2 * math.log(math.pi) - special.gammaln(d / 2 + 1)) * radii**d
    # one cell: only whether each sample is inside matters
    if m == 1 and reach is not None:
        inside = _one_cell_inside(queries, radii, samples, reach)
        return volume * np.mean(np.where(inside, density.ravel()[0], 0.0), axis=1)
    locations = queries[:, None, :] + radii[:, None, None] * samples[None]
    inside = np.all((locations >= 0) & (locations <= 1), axis=2)
    # one cell (the grid of a small budget in high d): every sample reads its density
    if m == 1:
        return volume * np.mean(np.where(inside, density.ravel()[0], 0.0), axis=1)
    cells = np.minimum((np.clip(locations, 0, 1) * m).astype(np.intp), m - 1)
    # C order, like ravel()
    flat = cells @ (m ** np.arange(d - 1, -1, -1, dtype=np.int64))
    return volume * np.mean(np.where(inside, density.ravel()[flat], 0.0), axis=1)


def _reached(grid, queries, j, k, gamma, samples, reach=None):
    """Whether the grid mass of ``B(x, j gamma)`` reaches k, for each row (only the rows
    given)."""
    return grid_mass(grid, queries, j * gamma, samples=samples, reach=reach) >= k


def convert_noninteractive(grid, queries, k, gamma, rng, *, n_samples=256):
    """Alg. 7, lines 2-18: the smallest ``r = j gamma`` whose grid mass reaches ``k``,
    per instance.

    Post-processing of the ``grid.epsilon``-DP grid: no further privacy cost,
    and the grid can serve any number of later batches. The paper scans
    ``r = gamma, 2 gamma, ...``; the mass is non-decreasing in r (clipped
    densities are >= 0), so doubling j until the mass reaches k and then
    bisecting returns the same radius with logarithmically many evaluations
    (exactly so in 1-D and 2-D; in higher d the Monte Carlo mass uses the same
    samples at every r). When the mass never reaches k before the domain's
    diameter ``sqrt(d)``, the paper's loop adds no instance; we return the
    diameter (the ball then covers the whole domain). ``k`` is an integer >= 1
    (a scalar or one per instance) and may exceed ``|D|`` (the grid's mass then
    rarely reaches k, and the radius is the diameter); the conversion never
    reads ``|D|``, and refusing ``k > |D|`` would leak it.
    """
    queries = check_queries(queries, grid.dimension)
    k = check_k_values(k, queries.shape[0])
    gamma = positive_finite(gamma, "gamma")
    diameter = math.sqrt(grid.dimension)
    steps = max(1, int(math.floor(diameter / gamma)))
    samples = (
        _ball_directions(grid.dimension, n_samples, generator(rng))
        if grid.dimension > 2
        else None
    )
    # one cell in high d: where each sample leaves the domain, once for all radii (the
    # same masses)
    one_cell = (
        samples is not None
        and grid.m == 1
        and queries.min() >= 0
        and queries.max() <= 1
    )
    reach = _sample_reach(queries, samples) if one_cell else None
    low = np.zeros(queries.shape[0], dtype=np.int64)  # invariant: mass(low gamma) < k
    # after galloping: mass(high gamma) >= k, or high > steps
    high = np.ones(queries.shape[0], dtype=np.int64)
    searching = np.ones(queries.shape[0], dtype=bool)
    while np.any(searching):
        rows = np.flatnonzero(searching)
        hit = _reached(
            grid,
            queries[rows],
            high[rows],
            k[rows],
            gamma,
            samples,
            None if reach is None else reach[rows],
        )
        searching[rows[hit]] = False
        missed = rows[~hit]
        low[missed] = high[missed]
        high[missed] = np.where(
            high[missed] >= steps, steps + 1, np.minimum(2 * high[missed], steps)
        )
        searching[missed[high[missed] > steps]] = False
    while np.any(high - low > 1):
        rows = np.flatnonzero((high - low > 1) & (high <= steps))
        if rows.size == 0:
            break
        middle = (low[rows] + high[rows]) // 2
        hit = _reached(
            grid,
            queries[rows],
            middle,
            k[rows],
            gamma,
            samples,
            None if reach is None else reach[rows],
        )
        high[rows[hit]] = middle[hit]
        low[rows[~hit]] = middle[~hit]
    return np.where(high > steps, diameter, high * gamma)
