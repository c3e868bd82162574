"""The optimal mechanism's linear program solved at several rates, warm-started.

:func:`dpnn.optimal_geo.optimal_mechanism` builds and solves the program of
Bordenabe, Chatzikokolakis and Palamidessi (CCS 2014) from scratch for each rate.
A search over rates (for instance, for the rate at which the matrix's worst pair
loses a given epsilon) solves it many times at nearby rates, and only the
coefficients ``-exp(rate d(x, x'))`` of the constraints change between solves.
:class:`OptimalProgram` holds one program (points, prior, outputs, spanner) and
solves it with HiGHS (``highspy``) at any rate:

* without a start, by the interior point method with crossover and the options of
  ``optimal_mechanism(..., method="full")``: the same program, rows in the same
  order, so the same matrix;
* from the basis of an earlier solve (:attr:`Solve.basis`), by the simplex method
  started there: at a nearby rate that basis is close to optimal and few
  iterations remain.

Either way the solution is an optimum of the program at that rate (the same least
expected loss up to the solvers' tolerances). When the optimum is not unique the
two paths may return different optimal matrices (the interior point method's
crossover and the simplex method end at different optimal vertices), so the matrix
returned from a start depends on that start; the same calls in the same order give
the same matrices.

Privacy: as :func:`dpnn.optimal_geo.optimal_mechanism`: the solver's matrix is made
epsilon-geo-indistinguishable exactly by :func:`dpnn.optimal_geo.repair` up to the
row normalisation, and the returned ``actual`` is the rate of the returned matrix.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from dpnn._validation import positive_finite
from dpnn.optimal_geo.lp import (
    constrained_pairs,
    constraint_matrix,
    locations,
    prior_weights,
    quality,
    row_sums,
)
from dpnn.optimal_geo.program import OptimalMechanism

__all__ = ["OptimalProgram", "Solve"]

#: HiGHS's primal feasibility tolerance, as in
#: :func:`dpnn.optimal_geo.optimal_mechanism`.
_FEASIBILITY = 1e-7


@dataclass(frozen=True)
class Solve:
    """One solve of an :class:`OptimalProgram`: the ``mechanism``
    (:class:`dpnn.optimal_geo.OptimalMechanism`), the HiGHS ``basis`` it ended at (a
    start for the next solve), the ``path`` (``"ipm"``: interior point and crossover;
    ``"simplex"``: simplex from a start), its simplex ``iterations`` and wall
    ``seconds``."""

    mechanism: OptimalMechanism
    basis: object
    path: str
    iterations: int
    seconds: float


class OptimalProgram:
    """The program of :func:`dpnn.optimal_geo.optimal_mechanism` for ``points``,
    ``prior``, ``dilation`` (None, a number >= 1 or ``"auto"``, as there) and
    ``loss``, outputs the points, at any rate: :meth:`solve`."""

    def __init__(self, points, prior, *, dilation="auto", loss="euclidean"):
        x = locations(points)
        weights = prior_weights(prior, len(x))
        self._cost = (weights[:, None] * quality(x, x, loss)).ravel()
        self.pairs, self.slowdown, self.dilation = constrained_pairs(x, dilation)
        self.points, self.prior, self.loss = x, weights, loss
        self.constraints = len(self.pairs) * len(x)

    def _model(self, rate):
        """The HiGHS model at ``rate``: the rows of
        :func:`dpnn.optimal_geo.lp.constraint_matrix`, then the row sums; columns
        ``K[x, z]``, x-major (the whole program's, in its order)."""
        import highspy

        n, inf = len(self.points), highspy.kHighsInf
        upper = constraint_matrix(self.points, self.pairs, rate, n)
        a = sparse.vstack([upper, row_sums(n, n)]).tocsc()
        p = upper.shape[0]
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n * n, a.shape[0]
        lp.col_cost_ = self._cost
        lp.col_lower_, lp.col_upper_ = np.zeros(n * n), np.full(n * n, inf)
        lp.row_lower_ = np.concatenate([np.full(p, -inf), np.ones(n)])
        lp.row_upper_ = np.concatenate([np.zeros(p), np.ones(n)])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = a.indptr
        lp.a_matrix_.index_ = a.indices
        lp.a_matrix_.value_ = a.data
        return lp

    def solve(self, epsilon, start=None) -> Solve:
        """The optimal epsilon-GI mechanism (``epsilon`` per unit of distance; rate
        ``epsilon / dilation`` on the spanner's edges): from scratch by the interior
        point method (``start`` None; the matrix of
        ``optimal_mechanism(points, prior, epsilon, dilation=..., method="full")``),
        or by the simplex method from ``start``, the :class:`Solve` of an earlier
        call. A program HiGHS does not solve to optimality is a RuntimeError."""
        import highspy

        epsilon = positive_finite(epsilon, "epsilon")
        if start is not None and not isinstance(start, Solve):
            raise ValueError(f"start must be None or a Solve, got {type(start)}")
        began = time.perf_counter()
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("primal_feasibility_tolerance", _FEASIBILITY)
        h.setOptionValue("solver", "ipm" if start is None else "simplex")
        h.passModel(self._model(epsilon / self.slowdown))
        if start is not None:
            h.setBasis(start.basis)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(
                "the linear program was not solved: "
                + h.modelStatusToString(h.getModelStatus())
            )
        n = len(self.points)
        solution = np.asarray(h.getSolution().col_value).reshape(n, n)
        mechanism = OptimalMechanism.of(
            solution,
            self.points,
            self.points,
            self.prior,
            epsilon,
            self.dilation,
            self.constraints,
            self.loss,
            "full",
            0,
        )
        return Solve(
            mechanism,
            h.getBasis(),
            "ipm" if start is None else "simplex",
            int(h.getInfo().simplex_iteration_count),
            time.perf_counter() - began,
        )
