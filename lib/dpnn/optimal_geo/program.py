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
from scipy.optimize import linprog
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from dpnn._validation import finite_array, generator, positive_finite
from dpnn.optimal_geo.columns import solve_by_columns
from dpnn.optimal_geo.lp import (
    constrained_pairs,
    constraint_matrix,
    locations,
    prior_weights,
    quality,
    row_sums,
)
from dpnn.optimal_geo.outputs import solve_by_outputs

__all__ = [
    "METHODS",
    "OptimalMechanism",
    "actual_epsilon",
    "expected_loss",
    "laplace_matrix",
    "optimal_mechanism",
    "repair",
    "sample_matrix",
]

#: How :func:`optimal_mechanism` solves the program: the whole program at once
#: (``"full"``), by column generation (``"columns"``, :mod:`dpnn.optimal_geo.columns`),
#: by output generation (``"outputs"``, :mod:`dpnn.optimal_geo.outputs`) or
#: ``"auto"`` (``"full"`` up to ``_FULL_LIMIT`` matrix entries; above it
#: ``"outputs"`` while the optimum stays on few outputs, else ``"columns"``).
METHODS = ("auto", "full", "columns", "outputs")

#: HiGHS's primal feasibility tolerance (its default); :func:`repair` removes the rest.
_FEASIBILITY = 1e-7
#: Largest number of matrix entries (points x outputs) that ``method="auto"`` solves
#: as one program.
_FULL_LIMIT = 100 * 100
#: ``method="auto"`` leaves output generation for column generation when the
#: restricted set and the outputs that price out exceed this share of all outputs
#: from its second round on (the optimum spreads over many outputs).
_SPREAD = 0.5


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
    x = locations(points)
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
    x = locations(points)
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
    x = locations(points)
    z = x if outputs is None else locations(outputs, "outputs")
    prior = prior_weights(prior, len(x))
    k = np.asarray(matrix, dtype=float)
    if k.shape != (len(x), len(z)):
        raise ValueError(f"matrix must have shape ({len(x)}, {len(z)}), got {k.shape}")
    return float(prior @ np.sum(k * quality(x, z, loss), axis=1))


@dataclass(frozen=True)
class OptimalMechanism:
    """A solved optimal mechanism: ``matrix[x, z]`` from ``points[x]`` to
    ``outputs[z]``.

    ``epsilon`` is the rate asked for, ``dilation`` the spanner's (None: every pair
    constrained), ``constraints`` the number of inequalities, ``actual`` the rate of
    the returned matrix (:func:`actual_epsilon`) and ``loss`` its expected quality
    loss under the prior. ``method`` says how the program was solved
    (:data:`METHODS`) and ``rounds`` how many pricing rounds column or output
    generation took (0 for the whole program).
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

    @classmethod
    def of(
        cls,
        solution,
        points,
        outputs,
        prior,
        epsilon,
        dilation,
        constraints,
        loss,
        method,
        rounds,
    ) -> OptimalMechanism:
        """The mechanism of a solver's (n, m) ``solution`` of the program at
        ``epsilon``: :func:`repair`-ed, with its actual rate and expected loss."""
        matrix = repair(solution, points, epsilon)
        return cls(
            points,
            outputs,
            matrix,
            epsilon,
            dilation,
            int(constraints),
            actual_epsilon(matrix, points),
            expected_loss(matrix, prior, points, outputs, loss),
            method,
            int(rounds),
        )

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
    x = locations(points)
    z = x if outputs is None else locations(outputs, "outputs")
    if z.shape[1] != x.shape[1]:
        raise ValueError("outputs must have the points' dimension")
    prior = prior_weights(prior, len(x))
    epsilon = positive_finite(epsilon, "epsilon")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    pairs, slowdown, dilation = constrained_pairs(x, dilation)
    n, m, rate = len(x), len(z), epsilon / slowdown
    cost = prior[:, None] * quality(x, z, loss)
    if method == "auto" and n * m <= _FULL_LIMIT:
        method = "full"
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
    return OptimalMechanism.of(
        solution, x, z, prior, epsilon, dilation, len(pairs) * m, loss, method, rounds
    )


def _solve_whole(x, pairs, rate, cost, time_limit):
    """The whole program by HiGHS's interior point method: its (n, m) solution."""
    n, m = cost.shape
    upper = constraint_matrix(x, pairs, rate, m)
    result = linprog(
        cost.ravel(),
        A_ub=upper,
        b_ub=np.zeros(upper.shape[0]),
        A_eq=row_sums(n, m),
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

    x = locations(points)
    z = x if outputs is None else locations(outputs, "outputs")
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
