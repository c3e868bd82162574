"""The optimal geo-indistinguishable mechanism on a finite set of locations.

Bordenabe, Chatzikokolakis and Palamidessi, "Optimal geo-indistinguishable
mechanisms for location privacy" (CCS 2014): on a finite set of locations X (here
the cell centres of a grid), a prior pi on X and a rate ``epsilon`` per unit of
distance, the mechanism K (a row-stochastic matrix, K[x, z] the probability of
releasing z from x) of least expected quality loss

    sum_x pi(x) sum_z K[x, z] d_Q(x, z)

among those that are epsilon-geo-indistinguishable,

    K[x, z] <= exp(epsilon d(x, x')) K[x', z]   for all x, x', z,

is the solution of a linear program. ``d`` is the Euclidean distance; the quality
loss ``d_Q`` is the Euclidean distance (``loss="euclidean"``) or its square
(``loss="squared"``). The program is solved by HiGHS (``scipy.optimize.linprog``)
with sparse constraints, then *repaired* (:func:`repair`) so that the returned
matrix satisfies the constraints in floating point and not only up to the solver's
feasibility tolerance; :func:`actual_epsilon` states the privacy of any matrix.

**The spanner.** With every pair constrained the program has ``n^2 (n - 1)``
inequalities. Bordenabe et al. constrain only the edges of a *delta-spanner* G of
X (a graph in which every pair is joined by a path of length at most ``delta``
times their distance) and use the rate ``epsilon / delta`` on each edge. This
gives epsilon-geo-indistinguishability: for x, x' take a path x = x_0, .., x_k = x'
in G of length L <= delta d(x, x'); then

    K[x, z] <= prod_i exp((epsilon / delta) d(x_i, x_{i+1})) K[x', z]
            = exp((epsilon / delta) L) K[x', z] <= exp(epsilon d(x, x')) K[x', z].

So the guarantee is the ``epsilon`` asked for; the price is utility: the program's
feasible set is smaller than that of all epsilon-GI matrices (it contains every
(epsilon / delta)-GI matrix), so its loss lies between the exact optimum at
epsilon and the exact optimum at epsilon / delta. :func:`greedy_spanner` builds the
greedy spanner (Althofer et al. 1993); on a square grid with ``delta`` at least
``1 / cos(pi / 8) = 1.0824`` it is the graph of the king's moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from dpnn._validation import finite_array, generator, positive_finite
from dpnn.optimal_geo.columns import solve_by_columns
from dpnn.optimal_geo.outputs import solve_by_outputs

__all__ = [
    "METHODS",
    "QUALITY_LOSSES",
    "OptimalMechanism",
    "actual_epsilon",
    "expected_loss",
    "greedy_spanner",
    "laplace_matrix",
    "optimal_mechanism",
    "repair",
    "sample_matrix",
]

QUALITY_LOSSES = ("euclidean", "squared")
#: How :func:`optimal_mechanism` solves the program: the whole program at once
#: (``"full"``), by column generation (``"columns"``, :mod:`dpnn.optimal_geo.columns`),
#: by output generation (``"outputs"``, :mod:`dpnn.optimal_geo.outputs`) or
#: ``"auto"`` (``"full"`` up to ``_FULL_LIMIT`` matrix entries; above it
#: ``"outputs"`` while the optimum stays on few outputs, else ``"columns"``).
METHODS = ("auto", "full", "columns", "outputs")

#: Largest number of locations solved with every pair constrained (``dilation=None``
#: picks the spanner above it).
_EXACT_LIMIT = 64
#: HiGHS's primal feasibility tolerance (its default); :func:`repair` removes the rest.
_FEASIBILITY = 1e-7
#: Largest number of matrix entries (points x outputs) that ``method="auto"`` solves
#: as one program.
_FULL_LIMIT = 100 * 100
#: ``method="auto"`` leaves output generation for column generation when the
#: restricted set and the outputs that price out exceed this share of all outputs
#: from its second round on (the optimum spreads over many outputs).
_SPREAD = 0.5


def _locations(points, name="points"):
    x = finite_array(points, name, ndim=(1, 2))
    x = x.reshape(-1, 1) if x.ndim == 1 else x
    if len(x) < 1:
        raise ValueError(f"{name} must hold at least one location")
    if len(np.unique(x, axis=0)) != len(x):
        raise ValueError(f"{name} must hold distinct locations")
    return x


def _check_prior(prior, n):
    weights = finite_array(prior, "prior", ndim=(1,))
    if weights.shape != (n,) or np.any(weights < 0) or abs(weights.sum() - 1) > 1e-9:
        raise ValueError(
            f"prior must hold {n} weights >= 0 summing to 1, "
            f"got shape {weights.shape} and sum {weights.sum():.6g}"
        )
    return weights


def _quality(points, outputs, loss):
    if loss not in QUALITY_LOSSES:
        raise ValueError(f"loss must be one of {QUALITY_LOSSES}, got {loss!r}")
    distance = cdist(points, outputs)
    return distance**2 if loss == "squared" else distance


def greedy_spanner(points, dilation) -> np.ndarray:
    """The greedy ``dilation``-spanner of ``points`` (n, d): its edges, shape (m, 2).

    Pairs are taken by increasing distance (ties in index order) and a pair joins
    the graph when the graph's shortest path between them is longer than
    ``dilation`` times their distance; so every pair is joined by a path at most
    ``dilation`` times their distance (Althofer, Das, Dobkin, Joseph and Soares
    1993). Shortest paths are kept as a full matrix updated per added edge:
    O(n^2) memory and O(n^2) time per edge.
    """
    x = _locations(points)
    dilation = positive_finite(dilation, "dilation")
    if dilation < 1:
        raise ValueError(f"dilation must be at least 1, got {dilation}")
    n = len(x)
    distance = cdist(x, x)
    i, j = np.triu_indices(n, 1)
    order = np.lexsort((j, i, distance[i, j]))
    path = np.full((n, n), np.inf)
    np.fill_diagonal(path, 0.0)
    edges = []
    for u, v in zip(i[order], j[order]):
        w = distance[u, v]
        if path[u, v] <= dilation * w * (1 + 1e-12):
            continue
        edges.append((u, v))
        through = np.minimum(
            path[:, [u]] + w + path[[v], :], path[:, [v]] + w + path[[u], :]
        )
        np.minimum(path, through, out=path)
    return np.array(edges, dtype=np.intp).reshape(-1, 2)


def repair(matrix, points, epsilon) -> np.ndarray:
    """The solver's matrix made epsilon-GI in exact arithmetic, then rows normalised.

    The solver meets each constraint up to its feasibility tolerance: an entry
    that should be ``exp(-epsilon d) K[x', z]``, far below the tolerance, may come
    back as 0, an infinite ratio. Column by column the upper envelope
    ``u[x] = max_x' exp(-epsilon d(x, x')) K[x', z]`` is at least K[x, z] and meets
    every constraint exactly: ``u[x'] >= exp(-epsilon d(x', x'')) K[x'', z] >=
    exp(-epsilon (d(x', x) + d(x, x''))) K[x'', z]`` for every x'' (the triangle
    inequality), so ``exp(epsilon d(x, x')) u[x'] >= u[x]``. It raises an entry
    only where a constraint was violated, by at most the violation. Negative
    entries of the solver become 0 first. Rows are then divided by their sums s(x)
    (within ``n`` tolerances of 1), which moves a ratio by at most s(x) / s(x'):
    :func:`actual_epsilon` of the result states what remains.
    """
    x = _locations(points)
    k = np.clip(np.asarray(matrix, dtype=float), 0.0, None)
    decay = np.exp(-positive_finite(epsilon, "epsilon") * cdist(x, x))
    out = np.empty_like(k)
    for z in range(k.shape[1]):
        out[:, z] = np.max(decay * k[None, :, z], axis=1)
    return out / out.sum(axis=1, keepdims=True)


def actual_epsilon(matrix, points) -> float:
    """The least rate e with ``K[x, z] <= exp(e d(x, x')) K[x', z]`` for every x, x', z.

    ``max (log K[x, z] - log K[x', z]) / d(x, x')`` over distinct x, x' and outputs
    z with K[x, z] > 0: infinite when some output has probability 0 from one input
    and not from another; 0 for a matrix whose rows are all equal.
    """
    x = _locations(points)
    k = np.asarray(matrix, dtype=float)
    if k.ndim != 2 or k.shape[0] != len(x):
        raise ValueError(f"matrix must have one row per point ({len(x)})")
    distance = cdist(x, x)
    np.fill_diagonal(distance, np.inf)
    worst = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(k)
        for z in range(k.shape[1]):
            column = logs[:, z]
            if np.all(column == -np.inf):
                continue
            if np.any(column == -np.inf):
                return float("inf")
            worst = max(worst, float(np.max((column[:, None] - column) / distance)))
    return worst


def expected_loss(matrix, prior, points, outputs=None, loss="euclidean") -> float:
    """``sum_x pi(x) sum_z K[x, z] d_Q(x, z)`` of a mechanism matrix."""
    x = _locations(points)
    z = x if outputs is None else _locations(outputs, "outputs")
    prior = _check_prior(prior, len(x))
    k = np.asarray(matrix, dtype=float)
    if k.shape != (len(x), len(z)):
        raise ValueError(f"matrix must have shape ({len(x)}, {len(z)}), got {k.shape}")
    return float(prior @ np.sum(k * _quality(x, z, loss), axis=1))


@dataclass(frozen=True)
class OptimalMechanism:
    """A solved optimal mechanism: ``matrix[x, z]`` from ``points[x]`` to
    ``outputs[z]``.

    ``epsilon`` is the rate asked for, ``dilation`` the spanner's (None: every pair
    constrained), ``constraints`` the number of inequalities, ``actual`` the rate of
    the returned matrix (:func:`actual_epsilon`) and ``loss`` its expected quality
    loss under the prior. ``method`` says how the program was solved
    (:data:`METHODS`) and ``rounds`` how many pricing rounds column generation
    took (0 for the whole program).
    """

    points: np.ndarray
    outputs: np.ndarray
    matrix: np.ndarray
    epsilon: float
    dilation: float | None
    constraints: int
    actual: float
    loss: float
    method: str = "full"
    rounds: int = 0

    def sample(self, locations, rng) -> np.ndarray:
        """Releases for ``locations`` (each one of ``points``), via
        :func:`sample_matrix`."""
        x = finite_array(locations, "locations", ndim=(2,))
        distance, index = cKDTree(self.points).query(x)
        if np.any(distance > 0):
            raise ValueError("locations must be among the mechanism's points")
        return self.outputs[sample_matrix(self.matrix, index, rng)]


def sample_matrix(matrix, rows, rng) -> np.ndarray:
    """One column index per entry of ``rows``, drawn from that row of ``matrix``.

    Inverse transform on each row's cumulative sum with the Generator's uniforms
    (the last positive column takes any rounding remainder).
    """
    k = np.asarray(matrix, dtype=float)
    rows = np.asarray(rows, dtype=np.intp)
    rng = generator(rng)
    cumulative = np.cumsum(k[rows], axis=1)
    u = rng.random(len(rows)) * cumulative[:, -1]
    index = np.sum(cumulative <= u[:, None], axis=1)
    last = k.shape[1] - 1 - np.argmax(k[rows][:, ::-1] > 0, axis=1)
    return np.minimum(index, last)


def _constraints(points, pairs, rate, m):
    """Rows ``K[x, z] - exp(rate d(x, x')) K[x', z] <= 0``, each ordered pair and z."""
    n_pairs = len(pairs)
    factor = np.exp(
        rate * np.linalg.norm(points[pairs[:, 0]] - points[pairs[:, 1]], axis=1)
    )
    z = np.arange(m)
    row = np.repeat(np.arange(n_pairs * m), 2)
    col = np.stack(
        [(pairs[:, [0]] * m + z).ravel(), (pairs[:, [1]] * m + z).ravel()], axis=1
    ).ravel()
    value = np.stack([np.ones(n_pairs * m), -np.repeat(factor, m)], axis=1).ravel()
    n = len(points)
    return sparse.csr_matrix((value, (row, col)), shape=(n_pairs * m, n * m))


def optimal_mechanism(
    points,
    prior,
    epsilon,
    *,
    dilation="auto",
    loss="euclidean",
    outputs=None,
    time_limit=None,
    method="auto",
) -> OptimalMechanism:
    """The epsilon-geo-indistinguishable mechanism of least expected quality loss.

    ``points`` (n, d) are the inputs (distinct), ``prior`` their weights, ``epsilon``
    the rate per unit of distance, ``outputs`` the releasable locations (default:
    the points). ``dilation=None`` constrains every ordered pair (exact optimum);
    a number >= 1 constrains the edges of :func:`greedy_spanner` at rate
    ``epsilon / dilation`` (module docstring: still epsilon-GI, loss at most that
    of the exact optimum at epsilon / dilation); ``"auto"`` is exact up to 64
    points and 1.1 above (the king's-move graph on a square grid).
    ``method="full"``: HiGHS's interior point method solves the whole program;
    ``"columns"``: column generation
    (:func:`dpnn.optimal_geo.columns.solve_by_columns`); ``"outputs"``: output
    generation (:func:`dpnn.optimal_geo.outputs.solve_by_outputs`); both give the
    same optimum up to the LP tolerances and are much faster on large grids,
    output generation where the optimum uses few outputs (a concentrated prior),
    column generation where it uses many (a uniform one); ``"auto"``: ``"full"``
    up to 10,000 matrix entries (100 points and outputs), above it ``"outputs"``
    until, from its second round on, the outputs it holds and those that price
    out are more than half of all outputs, then ``"columns"``. The returned
    ``method`` is the one that solved the program.
    ``time_limit`` seconds at most, default none; a program not solved in time is
    a RuntimeError.

    Privacy: epsilon-geo-indistinguishability on ``points`` up to the solver's
    tolerance, made exact by :func:`repair` up to the row normalisation; the
    returned ``actual`` is the rate of the returned matrix, computed exactly.
    """
    x = _locations(points)
    z = x if outputs is None else _locations(outputs, "outputs")
    if z.shape[1] != x.shape[1]:
        raise ValueError("outputs must have the points' dimension")
    prior = _check_prior(prior, len(x))
    epsilon = positive_finite(epsilon, "epsilon")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if isinstance(dilation, str):
        if dilation != "auto":
            raise ValueError(f"dilation must be None, 'auto' or >= 1, got {dilation!r}")
        dilation = None if len(x) <= _EXACT_LIMIT else 1.1
    n, m = len(x), len(z)
    quality = _quality(x, z, loss)
    if dilation is None:
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        pairs, rate = np.column_stack([i, j]), epsilon
    else:
        edges = greedy_spanner(x, dilation)
        pairs, rate = np.concatenate([edges, edges[:, ::-1]]), epsilon / dilation
    if method == "auto" and n * m <= _FULL_LIMIT:
        method = "full"
    cost = prior[:, None] * quality
    if method == "full":
        solution, rounds = _solve_whole(x, pairs, rate, cost, time_limit), 0
    else:
        factors = np.exp(rate * np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1))
        solved = None
        if method != "columns":
            spread = _SPREAD if method == "auto" else None
            solved = solve_by_outputs(
                cost, pairs, factors, time_limit=time_limit, spread=spread
            )
            method = "outputs"
        if solved is None:
            solved = solve_by_columns(cost, pairs, factors, time_limit=time_limit)
            method = "columns"
        solution, rounds = solved.matrix, solved.rounds
    matrix = repair(solution, x, epsilon)
    return OptimalMechanism(
        x,
        z,
        matrix,
        epsilon,
        None if dilation is None else float(dilation),
        len(pairs) * m,
        actual_epsilon(matrix, x),
        expected_loss(matrix, prior, x, z, loss),
        method,
        int(rounds),
    )


def _solve_whole(x, pairs, rate, cost, time_limit):
    """The whole program by HiGHS's interior point method: its (n, m) solution."""
    n, m = cost.shape
    upper = _constraints(x, pairs, rate, m)
    result = linprog(
        cost.ravel(),
        A_ub=upper,
        b_ub=np.zeros(upper.shape[0]),
        A_eq=sparse.kron(sparse.eye(n), np.ones((1, m)), format="csr"),
        b_eq=np.ones(n),
        bounds=(0, None),
        method="highs-ipm",
        options={
            "primal_feasibility_tolerance": _FEASIBILITY,
            "time_limit": np.inf if time_limit is None else float(time_limit),
        },
    )
    if result.status != 0:
        raise RuntimeError(f"the linear program was not solved: {result.message}")
    return result.x.reshape(n, m)


def laplace_matrix(points, epsilon, outputs=None, radii=96, angles=1440) -> np.ndarray:
    """Planar Laplace at rate ``epsilon`` followed by the nearest output: its matrix.

    GEO's release ``y = x + noise`` (density prop. to ``exp(-epsilon ||y - x||)``)
    mapped to the nearest of ``outputs`` (default: the points): post-processing, so
    epsilon-GI. ``K[x, z]`` is computed by quadrature in polar coordinates about x:
    the radius is Gamma(2, 1 / epsilon) (generalised Gauss-Laguerre, ``radii``
    nodes) and the angle uniform (``angles`` midpoints). The nearest-output map is
    piecewise constant, so the rule's error falls like one over the nodes per
    axis, not geometrically; rows sum to 1 exactly. Two-dimensional points only.
    """
    from scipy.special import roots_genlaguerre

    x = _locations(points)
    z = x if outputs is None else _locations(outputs, "outputs")
    if x.shape[1] != 2 or z.shape[1] != 2:
        raise ValueError("points and outputs must be two-dimensional (planar Laplace)")
    epsilon = positive_finite(epsilon, "epsilon")
    t, w = roots_genlaguerre(int(radii), 1)  # weight t e^-t: Gamma(2, 1) times Γ(2)
    theta = (np.arange(int(angles)) + 0.5) * 2 * np.pi / int(angles)
    offsets = (t[:, None, None] / epsilon) * np.stack(
        [np.cos(theta), np.sin(theta)], axis=-1
    )[None]
    weights = np.repeat(w / w.sum(), len(theta)) / len(theta)
    nearest = cKDTree(z)
    out = np.zeros((len(x), len(z)))
    for i, row in enumerate(x):
        _, index = nearest.query(row + offsets.reshape(-1, 2))
        out[i] = np.bincount(index, weights=weights, minlength=len(z))
    return out / out.sum(axis=1, keepdims=True)
