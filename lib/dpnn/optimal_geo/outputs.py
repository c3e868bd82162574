"""Output generation for the optimal geo-indistinguishable mechanism's linear program.

The program of :mod:`dpnn.optimal_geo` is, with ``K_z`` the column of output z and
``c_z[x] = pi(x) d_Q(x, z)`` (:mod:`dpnn.optimal_geo.columns`),

    min sum_z c_z . K_z   subject to   K_z in C for every z,   sum_z K_z = 1.

Its optimum often releases few of the outputs: with a prior concentrated on part of
the domain, every location's mass goes to a few dozen outputs and every other
column is zero (a column of C is either zero or positive everywhere). Output
generation solves the program *restricted to a set S of outputs*, every variable
and constraint of those columns written out, and grows S:

* the restricted program over S is solved whole (HiGHS's interior point method,
  then crossover to a vertex); it is feasible for any non-empty S (the constant
  column of one output);
* its duals ``u`` price the outputs outside S exactly as column generation prices
  a column: output z lowers the cost when ``min {(c_z - u) . k : k in C,
  sum k = 1} < 0`` (the same pricing LPs, :class:`dpnn.optimal_geo.columns.Pricers`);
* the outputs that price out join S, the most negative first, at most as many as S
  already holds (at least ``_GROWTH``), and the restricted program is solved again.

When no output prices out (every reduced cost ``>= -tolerance``, costs scaled to
a largest entry of 1) the restricted optimum is optimal for the whole program up
to that tolerance: any feasible mechanism costs at least
``sum_x u_x + n min_z rc_z`` (its n units of mass priced by u, each unit on output
z costing at least rc_z more) and the restricted program costs ``sum_x u_x``.

Where the optimum spreads over many outputs (a uniform prior uses about half of
them) the restricted program grows to nearly the whole program and column
generation is faster; :func:`solve_by_outputs` then stops and says so (returns
None) as soon as S and the outputs that price out, together, exceed a share
``spread`` of all outputs, from the second round on.

Privacy: the restricted program's constraints are those of the whole program, so
the returned matrix satisfies every pair up to HiGHS's feasibility tolerance, and
:func:`dpnn.optimal_geo.repair` makes it exact as for the other methods.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dpnn.optimal_geo.columns import ColumnSolution, Pricers, check_program

__all__ = ["solve_by_outputs"]

#: HiGHS's primal and dual feasibility tolerances in the restricted program.
_LP_TOLERANCE = 1e-9
#: Outputs added per round: at most as many as S holds, at least this many.
_GROWTH = 8


class _Restricted:
    """The program restricted to the outputs ``S``: n row sums, then per output
    its n variables and one row ``K[a, z] - g K[b, z] <= 0`` per pair."""

    def __init__(self, cost, pairs, factors):
        import highspy

        self.cost, self.pairs, self.factors = cost, pairs, factors
        self.n = n = cost.shape[0]
        self.h = highspy.Highs()
        self.inf = highspy.kHighsInf
        for option, value in [
            ("output_flag", False),
            ("solver", "ipm"),
            ("primal_feasibility_tolerance", _LP_TOLERANCE),
            ("dual_feasibility_tolerance", _LP_TOLERANCE),
        ]:
            self.h.setOptionValue(option, value)
        none = np.zeros(0, dtype=np.int32)
        self.h.addRows(n, np.ones(n), np.ones(n), 0, none, none, np.zeros(0))
        self.outputs = []

    def add(self, z):
        n, h, inf, p = self.n, self.h, self.inf, len(self.pairs)
        first = h.getNumCol()
        rows = np.arange(n, dtype=np.int32)
        h.addCols(
            n, self.cost[:, z], np.zeros(n), np.full(n, inf), n, rows, rows, np.ones(n)
        )
        columns = (first + self.pairs).astype(np.int32).ravel()
        values = np.stack([np.ones(p), -self.factors], axis=1).ravel()
        starts = np.arange(0, 2 * p, 2, dtype=np.int32)
        h.addRows(p, np.full(p, -inf), np.zeros(p), 2 * p, starts, columns, values)
        self.outputs.append(int(z))

    def solve(self):
        """The restricted optimum's cost and the row sums' duals."""
        self.h.run()
        status = self.h.modelStatusToString(self.h.getModelStatus())
        if status != "Optimal":
            raise RuntimeError(f"the restricted program was not solved: {status}")
        duals = np.array(self.h.getSolution().row_dual[: self.n])
        return self.h.getInfo().objective_function_value, duals

    def matrix(self, m):
        values = np.array(self.h.getSolution().col_value)
        out = np.zeros((self.n, m))
        out[:, self.outputs] = values.reshape(len(self.outputs), self.n).T
        return np.clip(out, 0.0, None)


def solve_by_outputs(
    cost,
    pairs,
    factors,
    *,
    tolerance=1e-9,
    time_limit=None,
    workers=None,
    spread=None,
) -> ColumnSolution | None:
    """``min sum_z c_z . K_z`` over ``K_z`` in C with ``sum_z K[x, z] = 1``, by
    output generation (module docstring); the arguments as for
    :func:`dpnn.optimal_geo.columns.solve_by_columns`.

    ``spread`` in (0, 1]: give up (return None) when, from the second round on, S
    and the outputs that price out exceed this share of all outputs; None never
    gives up.
    The answer's ``rounds`` are the pricing rounds, ``pricing`` the pricing LPs
    solved and ``columns`` the outputs in S. It does not depend on ``workers``.
    """
    start = time.perf_counter()
    cost, pairs, factors, workers = check_program(
        cost, pairs, factors, tolerance, workers
    )
    if spread is not None and not 0 < spread <= 1:
        raise ValueError(f"spread must be None or in (0, 1], got {spread}")
    limit = np.inf if time_limit is None else float(time_limit)
    n, m = cost.shape
    scale = 1.0 / cost.max() if cost.max() > 0 else 1.0
    cost = cost * scale
    restricted = _Restricted(cost, pairs, factors)
    restricted.add(np.argmin(cost.sum(axis=0)))  # the best constant column
    pricers = Pricers(n, m, pairs, factors)
    rounds, solved = 0, 0
    with ThreadPoolExecutor(workers) as threads:
        while True:
            if time.perf_counter() - start > limit:
                raise RuntimeError(f"output generation passed time_limit={time_limit}")
            objective, u = restricted.solve()
            outside = np.setdiff1d(np.arange(m), restricted.outputs)
            rays = pricers.rays(threads, outside, lambda z, u=u: cost[:, z] - u)
            reduced = np.array(
                [(cost[:, z] - u) @ ray for z, ray in zip(outside, rays, strict=True)]
            )
            solved += len(outside)
            rounds += 1
            priced_out = np.nonzero(reduced < -tolerance)[0]
            if len(priced_out) == 0:
                break
            taken = len(restricted.outputs) + len(priced_out)
            if spread is not None and rounds >= 2 and taken > spread * m:
                return None
            order = priced_out[np.argsort(reduced[priced_out], kind="stable")]
            for z in outside[order[: max(_GROWTH, len(restricted.outputs))]]:
                restricted.add(z)
    return ColumnSolution(
        restricted.matrix(m),
        objective / scale,
        rounds,
        solved,
        len(restricted.outputs),
    )
