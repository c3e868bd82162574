"""Column generation for the optimal geo-indistinguishable mechanism's linear program.

The program of :mod:`dpnn.optimal_geo` (Bordenabe, Chatzikokolakis and Palamidessi,
CCS 2014) is, with ``K_z`` the column of output z and ``c_z[x] = pi(x) d_Q(x, z)``,

    min sum_z c_z . K_z   subject to   K_z in C for every z,   sum_z K_z = 1,

where C is the cone ``{k >= 0 : k[a] <= g_ab k[b] for each constrained pair (a, b)}``
(``g_ab = exp(rate d(a, b))``), the same cone for every output. It is block-angular:
n outputs, each with its own cone, tied only by the n row sums. Dantzig-Wolfe
decomposition solves it without ever building the n^2 variables at once:

* the *master* LP has, per output z, a few generated columns ``lambda_j k_j``, rays
  ``k_j`` of C (normalised to sum 1), and the n row-sum equalities; its duals ``u``
  price the rows;
* *pricing* output z asks for the ray of least reduced cost
  ``min {(c_z - u) . k : k in C, sum k = 1}``, a small LP with n variables and
  one row per constrained pair; a ray of negative reduced cost joins the master.

When no output prices out (every reduced cost >= ``-tolerance``), the master's
solution is optimal for the full program up to that tolerance: any feasible
mechanism costs at least ``sum_x u_x + n min_z rc_z`` (its n units of mass are
priced by u; each unit of output z's mass costs at least rc_z more), and the
master costs ``sum_x u_x``.

The master starts from rays known to lie in C: the constant ray (always in C, as
every ``g >= 1``; it alone makes the master feasible), the Laplace-shaped rays
``k[x] = exp(-D(x, c))`` for every location c (D the shortest-path distance with
edge lengths ``log g``: ``D(a, c) <= log g_ab + D(b, c)`` is the triangle
inequality), and the columns of the exponential mechanism at half the rate where
they satisfy every pair. Four devices make it fast:

* a *dual box* (du Merle, Villeneuve, Desrosiers and Hansen 1999): artificial
  columns ``e_x`` and ``-e_x`` keep the master's duals within ``-b/10 <= u <= b``
  (b the largest cost of each row, at least ``_FLOOR``), so early duals do not
  swing and price out useless rays; the box is widened four times whenever the
  search ends with an artificial column in use, so the answer is that of the
  unboxed program;
* a *pool*: every generated ray is priced for every output before any pricing LP
  runs (one matrix product), and the best pooled ray per output with a negative
  reduced cost joins the master;
* *partial pricing*: after a full pass over the outputs, only those that priced
  out last time are priced again, until none does; then a full pass; the search
  ends when a full pass prices nothing out. Pricing LPs (:class:`Pricers`) share
  one feasible set, so each starts from the basis of the first one solved and
  keeps its own between rounds (only the costs change; the primal simplex goes on
  from it); they run on ``workers`` threads;
* a *small master*: unused columns of largest reduced cost are dropped (they stay
  pooled) so that at most 2n remain before each pricing round.

Privacy: each generated ray satisfies the pairs up to HiGHS's feasibility
tolerance, so the returned matrix does too; :func:`dpnn.optimal_geo.repair` makes
it exact as for the full program.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import shortest_path

from dpnn._validation import finite_array

__all__ = ["ColumnSolution", "Pricers", "check_program", "solve_by_columns"]

#: Exact pricing adds a ray whose reduced cost is below ``-tolerance`` (costs scaled
#: to a largest entry of 1); the pool's rays need ``-_POOL_TOLERANCE``, the master's
#: dual tolerance, so a ray already in the master is never added twice.
_POOL_TOLERANCE = 1e-7
#: HiGHS's primal and dual feasibility tolerances in the master and pricing LPs.
_LP_TOLERANCE = 1e-9
#: The dual stabilisation box: ``-_LOWER b <= u <= b``, b the largest cost of each
#: row, widened ``_WIDEN`` times while an artificial column stays in the solution.
_LOWER = 0.1
#: The box's least b (costs scaled to a largest entry of 1): a location of prior 0
#: costs nothing, yet its dual may be non-zero; a box of width 0 could never widen.
_FLOOR = 1e-3
_WIDEN = 4.0
#: Before each pricing round the master keeps at most this many columns per
#: location, dropping unused ones of largest reduced cost (they stay pooled).
_KEEP = 2
#: The master starts with the constant ray and, per output, this many seed rays of
#: least cost.
_START = 2


@dataclass(frozen=True)
class ColumnSolution:
    """The program solved by column generation.

    ``matrix[x, z]`` the mechanism (before :func:`dpnn.optimal_geo.repair`),
    ``objective`` its cost ``sum_z c_z . K_z``, ``rounds`` the exact pricing rounds,
    ``pricing`` the pricing LPs solved, ``columns`` the master's columns at the end.
    """

    matrix: np.ndarray
    objective: float
    rounds: int
    pricing: int
    columns: int


def _highs():
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("primal_feasibility_tolerance", _LP_TOLERANCE)
    h.setOptionValue("dual_feasibility_tolerance", _LP_TOLERANCE)
    return h, highspy.kHighsInf


def _pricing_lp(n, pairs, factors):
    """``min y . k`` over ``k >= 0``, ``k[a] - g k[b] <= 0`` per pair, ``sum k = 1``."""
    h, inf = _highs()
    h.addVars(n, np.zeros(n), np.full(n, inf))
    p = len(pairs)
    values = np.stack([np.ones(p), -factors], axis=1).ravel()
    starts = np.arange(0, 2 * p, 2, dtype=np.int32)
    h.addRows(p, np.full(p, -inf), np.zeros(p), 2 * p, starts, pairs.ravel(), values)
    h.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))
    return h


def _in_cone(rays, pairs, factors):
    """Which columns of ``rays`` satisfy every pair (to float rounding)."""
    left, right = rays[pairs[:, 0]], factors[:, None] * rays[pairs[:, 1]]
    return np.all(left <= right * (1 + 1e-12), axis=0)


def _seed_rays(n, pairs, factors):
    """Constant, Laplace-shaped and half-rate exponential-mechanism rays of C."""
    # D[b, c]: shortest path from b to c, an edge b -> a of length log g_ab per pair
    weights = sparse.csr_matrix(
        (np.log(factors) + 1e-300, (pairs[:, 1], pairs[:, 0])), shape=(n, n)
    )
    distance = shortest_path(weights, directed=True)
    laplace = np.exp(-distance)
    half = np.exp(-distance / 2)
    half = half / half.sum(axis=1, keepdims=True)
    half = half[:, _in_cone(half, pairs, factors)]
    rays = np.column_stack([np.ones(n), laplace, half])
    return rays / rays.sum(axis=0)


class _Master:
    """The restricted master: columns (output z, ray k) with cost ``c_z . k``."""

    def __init__(self, cost):
        self.cost = cost
        self.n = cost.shape[0]
        self.h, self.inf = _highs()
        # added columns leave the basis primal feasible: the primal simplex
        self.h.setOptionValue("simplex_strategy", 4)
        self.h.setOptionValue("presolve", "off")
        n = self.n
        empty = np.zeros(0, dtype=np.int32)
        self.h.addRows(n, np.ones(n), np.ones(n), 0, empty, empty, np.zeros(0))
        self.outputs = np.zeros(0, dtype=np.intp)
        self.indices = np.zeros(0, dtype=np.intp)
        self.first = 0

    def box(self, upper, lower):
        """Artificial columns ``e_x`` (cost ``upper``) and ``-e_x`` (cost
        ``-lower``): the master's duals stay in ``lower <= u <= upper``."""
        n = self.n
        costs = np.concatenate([upper, -lower])
        if self.first:
            self.h.changeColsCost(2 * n, np.arange(2 * n, dtype=np.int32), costs)
            return
        self.h.addCols(
            2 * n,
            costs,
            np.zeros(2 * n),
            np.full(2 * n, self.inf),
            2 * n,
            np.arange(2 * n, dtype=np.int32),
            np.tile(np.arange(n, dtype=np.int32), 2),
            np.concatenate([np.ones(n), -np.ones(n)]),
        )
        self.first = 2 * n

    def artificial(self):
        """The largest weight on an artificial column."""
        return float(np.max(self.h.getSolution().col_value[: self.first]))

    def add(self, outputs, indices, rays):
        """Columns (``outputs[i]``, pooled ray ``indices[i]``, ``rays[:, i]``)."""
        k = rays.shape[1]
        if k == 0:
            return
        n = self.n
        costs = np.einsum("xk,xk->k", self.cost[:, outputs], rays)
        starts = np.arange(0, n * k, n, dtype=np.int32)
        rows = np.tile(np.arange(n, dtype=np.int32), k)
        self.h.addCols(
            k,
            costs,
            np.zeros(k),
            np.full(k, self.inf),
            n * k,
            starts,
            rows,
            np.ascontiguousarray(rays.T).ravel(),
        )
        self.outputs = np.concatenate([self.outputs, outputs])
        self.indices = np.concatenate([self.indices, indices])

    def solve(self):
        self.h.run()
        status = self.h.modelStatusToString(self.h.getModelStatus())
        if status != "Optimal":
            raise RuntimeError(f"the master program was not solved: {status}")
        solution = self.h.getSolution()
        return self.h.getInfo().objective_function_value, np.array(solution.row_dual)

    def prune(self, keep):
        """Drops the unused columns of largest reduced cost until ``keep`` are left;
        returns their (outputs, pooled ray indices)."""
        excess = int(len(self.outputs) - keep)
        if excess <= 0:
            return self.outputs[:0], self.indices[:0]
        solution = self.h.getSolution()
        value = np.array(solution.col_value)[self.first :]
        reduced = np.array(solution.col_dual)[self.first :]
        unused = np.nonzero((value <= 0) & (reduced > 0))[0]
        drop = unused[np.argsort(-reduced[unused], kind="stable")[:excess]]
        drop.sort()
        self.h.deleteCols(len(drop), (drop + self.first).astype(np.int32))
        dropped = self.outputs[drop], self.indices[drop]
        self.outputs = np.delete(self.outputs, drop)
        self.indices = np.delete(self.indices, drop)
        return dropped

    def matrix(self, m, pool):
        weights = np.array(self.h.getSolution().col_value)[self.first :]
        out = np.zeros((self.n, m))
        np.add.at(out.T, self.outputs, (pool[:, self.indices] * weights).T)
        return out


class Pricers:
    """One pricing LP per output, ``min y . k`` over the rays ``k`` of C with
    ``sum k = 1``, each kept with its HiGHS basis between calls.

    All of them share one feasible set, so a basis of one is a feasible basis of
    every other: the first LP solved (by HiGHS's choice, the dual simplex) lends its
    basis to every LP created after it, and every later solve is the primal simplex
    from a feasible basis (only the costs change). Which LP is solved first is
    fixed by the caller's order, not by the threads, so the rays found do not
    depend on ``workers``.
    """

    def __init__(self, n, m, pairs, factors):
        self.n, self.pairs, self.factors = n, pairs, factors
        self.lps = [None] * m
        self.template = None

    def ray(self, z, reduced):
        """The optimal ray of output z's pricing LP at the costs ``reduced``."""
        n, h = self.n, self.lps[z]
        if h is None:
            h = self.lps[z] = _pricing_lp(n, self.pairs, self.factors)
            if self.template is not None:
                h.setBasis(self.template)
                h.setOptionValue("simplex_strategy", 4)
        h.changeColsCost(n, np.arange(n, dtype=np.int32), reduced)
        h.run()
        status = h.modelStatusToString(h.getModelStatus())
        if status != "Optimal":
            raise RuntimeError(f"a pricing program was not solved: {status}")
        if self.template is None:
            self.template = h.getBasis()
            h.setOptionValue("simplex_strategy", 4)
        return np.clip(np.array(h.getSolution().col_value), 0.0, None)

    def rays(self, threads, outputs, reduced):
        """Rays for ``outputs`` (in order) at the costs ``reduced(z)``; the first
        output is priced before the others start, on the calling thread."""
        outputs = list(outputs)
        if not outputs:
            return []
        first = [self.ray(outputs[0], reduced(outputs[0]))]
        return first + list(threads.map(lambda z: self.ray(z, reduced(z)), outputs[1:]))


def check_program(cost, pairs, factors, tolerance, workers):
    """The validated (cost, pairs, factors, workers) of a program of this module's
    form; ValueError naming the argument otherwise."""
    cost = finite_array(cost, "cost", ndim=(2,))
    n, m = cost.shape
    if n < 1 or m < 1 or np.any(cost < 0):
        raise ValueError(
            f"cost must be a non-empty matrix >= 0, got shape {cost.shape}"
        )
    pairs = np.asarray(pairs)
    if (
        pairs.ndim != 2
        or pairs.shape[1] != 2
        or not np.issubdtype(pairs.dtype, np.integer)
        or (len(pairs) and (pairs.min() < 0 or pairs.max() >= n))
    ):
        raise ValueError(f"pairs must be (p, 2) integer indices in [0, {n})")
    factors = finite_array(factors, "factors", ndim=(1,), allow_empty=True)
    if factors.shape != (len(pairs),) or np.any(factors < 1):
        raise ValueError(f"factors must hold {len(pairs)} values >= 1")
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if not tolerance > 0:
        raise ValueError(f"tolerance must be > 0, got {tolerance}")
    return cost, pairs.astype(np.int32), factors, workers


def solve_by_columns(
    cost, pairs, factors, *, tolerance=1e-9, time_limit=None, workers=None
) -> ColumnSolution:
    """``min sum_z c_z . K_z`` over ``K_z`` in C (every pair ``K[a, z] <= g K[b, z]``)
    with ``sum_z K[x, z] = 1``, by column generation (module docstring).

    ``cost`` (n, m) the costs ``c_z[x]`` (finite, >= 0), ``pairs`` (p, 2) the
    constrained ordered pairs of locations, ``factors`` (p,) their ``g >= 1``.
    ``tolerance`` the least reduced cost (costs scaled to a largest entry of 1)
    that still adds a ray; ``time_limit`` seconds (None: none; past it a
    RuntimeError); ``workers`` the threads that solve pricing LPs (None: one per
    CPU). The answer does not depend on ``workers``: each output's pricing LP is
    its own HiGHS instance, and the rays are taken in output order.
    """
    start = time.perf_counter()
    cost, pairs, factors, workers = check_program(
        cost, pairs, factors, tolerance, workers
    )
    n, m = cost.shape
    limit = np.inf if time_limit is None else float(time_limit)
    scale = 1.0 / cost.max() if cost.max() > 0 else 1.0
    cost = cost * scale

    pool = _seed_rays(n, pairs, factors)
    master = _Master(cost)
    pool_cost = cost.T @ pool  # (z, ray)
    added = np.zeros(pool_cost.shape, dtype=bool)
    added[:, 0] = True  # the constant ray for every output: a feasible start
    cheapest = np.argsort(pool_cost[:, 1:], axis=1)[:, :_START] + 1
    added[np.arange(m)[:, None], cheapest] = True
    box = np.maximum(cost.max(axis=1), _FLOOR)
    master.box(box, -_LOWER * box)
    first = np.nonzero(added)
    master.add(first[0], first[1], pool[:, first[1]])
    pricers = Pricers(n, m, pairs, factors)
    rounds, solved = 0, 0
    dirty = np.arange(m)
    with ThreadPoolExecutor(workers) as pool_of_threads:
        while True:
            if time.perf_counter() - start > limit:
                raise RuntimeError(f"column generation passed time_limit={time_limit}")
            objective, u = master.solve()
            reduced = np.where(added, np.inf, pool_cost - u @ pool)
            best = np.argmin(reduced, axis=1)
            outputs = np.nonzero(reduced[np.arange(m), best] < -_POOL_TOLERANCE)[0]
            if len(outputs):
                master.add(outputs, best[outputs], pool[:, best[outputs]])
                added[outputs, best[outputs]] = True
                continue
            dropped = master.prune(_KEEP * n)
            added[dropped] = False
            new_outputs, new_rays = [], []
            full = len(dirty) == 0  # a full pass over every output, else the dirty ones
            batch = np.arange(m) if full else dirty
            rays = pricers.rays(pool_of_threads, batch, lambda z, u=u: cost[:, z] - u)
            for z, ray in zip(batch, rays, strict=True):
                solved += 1
                if (cost[:, z] - u) @ ray < -tolerance:
                    new_outputs.append(z)
                    new_rays.append(ray / ray.sum())
            rounds += 1
            dirty = np.array(new_outputs, dtype=int)
            if not new_outputs:
                if not full:
                    continue
                if master.artificial() <= _LP_TOLERANCE:
                    break
                box = _WIDEN * box  # the box held the duals back: widen it, go on
                master.box(box, -_LOWER * box)
                continue
            rays = np.column_stack(new_rays)
            master.add(
                np.array(new_outputs), pool.shape[1] + np.arange(len(new_rays)), rays
            )
            pool = np.column_stack([pool, rays])
            pool_cost = np.column_stack([pool_cost, cost.T @ rays])
            fresh = np.zeros((m, rays.shape[1]), dtype=bool)
            fresh[new_outputs, np.arange(len(new_outputs))] = True
            added = np.column_stack([added, fresh])
    return ColumnSolution(
        master.matrix(m, pool), objective / scale, rounds, solved, len(master.outputs)
    )
