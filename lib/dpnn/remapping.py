"""Bayesian remapping: each release moved to the point of least expected loss.

Chatzikokolakis, ElSalamouny and Palamidessi, "Efficient utility improvement for
location privacy" (PoPETs 2017): a server (or the client) that knows the prior pi
and the mechanism's law replaces a release y by

    r(y) = argmin_g  sum_x pi(x | y) d_Q(x, g),   pi(x | y) prop. to pi(x) f(y | x),

the guess of least expected quality loss under the posterior. The remapped
mechanism releases r(Y).

**Privacy.** r is a deterministic function of the release alone (the prior and the
mechanism are public), so the remapped mechanism is post-processing: every
guarantee of the mechanism (epsilon-GI, epsilon-LDP, a DP-TT ledger) holds for it
unchanged. For a matrix ``K`` the remapped matrix is ``K M`` with M the 0/1 matrix
of r, and each of its entries is a sum over the outputs mapped to one target, so
``(K M)[x, g] <= exp(e d(x, x')) (K M)[x', g]`` whenever K obeys the same bound:
its :func:`dpnn.optimal_geo.actual_epsilon` is at most K's.

**Utility.** For every release, the posterior expected loss at r(y) is at most
that at y itself (y is one of the candidates when the targets include it, and in
general at most that of any candidate), so averaged over releases the expected
quality loss never rises. When the quality loss equals the adversary's loss, the
remapped mechanism's expected quality loss *is* the optimal adversary's expected
error against the original mechanism (:func:`dpnn.adversary.adversary_error`): the
remapped release is the Bayes-optimal guess.

Two forms: :func:`remap_matrix` for a mechanism given as a matrix on a finite set
(exact: targets are candidate locations), and :class:`Remapped` for any mechanism
of :mod:`dpnn.adversary` (GEO, SM, L-SRR, DP-TT, :class:`GridMechanism`), whose
remapped release is the posterior's geometric median (or mean, for squared loss) on
the adversary's grid.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from dpnn import optimal_geo
from dpnn._validation import finite_array
from dpnn.adversary.estimate import bayes_estimate, posterior
from dpnn.adversary.grid import Grid, check_prior

__all__ = ["remap_matrix", "GridMechanism", "Remapped"]


def remap_matrix(matrix, prior, points, targets=None, loss="euclidean"):
    """Bayesian remapping of a mechanism matrix ``K[x, z]`` on ``points``.

    ``targets`` (default: the points) are the candidate locations. Returns
    ``(target, remapped)``: ``target[z]`` the index of the target of least posterior
    expected loss for output z (lowest index on ties; an output of probability 0
    under the prior has every risk 0 and goes to target 0), and the remapped matrix
    ``remapped[x, g] = sum_{z : target[z] = g} K[x, z]``, exact.
    """
    x = finite_array(points, "points", ndim=(2,))
    g = x if targets is None else finite_array(targets, "targets", ndim=(2,))
    k = finite_array(matrix, "matrix", ndim=(2,))
    if k.shape[0] != len(x) or np.any(k < 0):
        raise ValueError(f"matrix must have {len(x)} rows of non-negative entries")
    pi = finite_array(prior, "prior", ndim=(1,))
    if pi.shape != (len(x),) or np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
        raise ValueError(f"prior must hold {len(x)} weights >= 0 summing to 1")
    if loss not in optimal_geo.QUALITY_LOSSES:
        raise ValueError(
            f"loss must be one of {optimal_geo.QUALITY_LOSSES}, got {loss!r}"
        )
    quality = cdist(x, g) ** (2 if loss == "squared" else 1)
    joint = pi[:, None] * k  # (x, z): prior times likelihood, unnormalised posterior
    risk = joint.T @ quality  # (z, g): posterior expected loss, times Pr[z]
    target = np.argmin(risk, axis=1)
    remapped = np.zeros((len(x), len(g)))
    np.add.at(remapped.T, target, k.T)
    return target, remapped


class GridMechanism:
    """A mechanism given by a matrix on the cells of a grid, for the adversary.

    ``matrix[c, z]`` is the probability of releasing ``outputs[z]`` from cell c of
    ``grid`` (a client anywhere in a cell has that cell's row: the matrix's privacy is
    between cell centres). The adversary interface of :mod:`dpnn.adversary.likelihoods`:
    ``sample``, ``log_likelihood`` (``log matrix[:, z]``, minus infinity where 0)
    and ``naive_guess`` (the release itself).
    """

    def __init__(self, matrix, grid: Grid, outputs=None, name="matrix"):
        if not isinstance(grid, Grid):
            raise ValueError("grid must be a dpnn.adversary.Grid")
        self.grid = grid
        self.outputs = (
            grid.points
            if outputs is None
            else finite_array(outputs, "outputs", ndim=(2,))
        )
        self.matrix = finite_array(matrix, "matrix", ndim=(2,))
        if self.matrix.shape != (grid.size, len(self.outputs)):
            raise ValueError(
                f"matrix must have shape ({grid.size}, {len(self.outputs)}), "
                f"got {self.matrix.shape}"
            )
        self.name = name
        self._nearest = cKDTree(self.outputs)

    def sample(self, locations, rng):
        cells = self.grid.cell_of(locations)
        return self.outputs[optimal_geo.sample_matrix(self.matrix, cells, rng)]

    def output_index(self, releases) -> np.ndarray:
        """The index of each release among the outputs (a ValueError if not one)."""
        y = finite_array(releases, "releases", ndim=(2,))
        distance, index = self._nearest.query(y)
        if np.any(distance > 0):
            raise ValueError("releases must be among the mechanism's outputs")
        return index

    def log_likelihood(self, releases, grid: Grid):
        """``log matrix[c(x), z]`` for each cell x of ``grid``, c(x) the mechanism's
        cell holding x's centre: ``grid`` may be the mechanism's own or a finer grid
        of the same domain (a client anywhere in a mechanism's cell has its row)."""
        if not isinstance(grid, Grid) or not np.allclose(grid.domain, self.grid.domain):
            raise ValueError("grid must be a Grid on the mechanism's domain")
        rows = (
            np.arange(self.grid.size)
            if grid is self.grid
            else self.grid.cell_of(grid.points)
        )
        with np.errstate(divide="ignore"):
            return np.log(self.matrix[rows][:, self.output_index(releases)].T)

    def naive_guess(self, releases):
        return np.asarray(releases, dtype=float)


class Remapped:
    """``mechanism`` followed by Bayesian remapping on ``grid`` under ``prior``.

    ``sample`` draws the mechanism's releases and returns for each the posterior's
    Bayes estimate for ``loss`` (:func:`dpnn.adversary.bayes_estimate`: geometric
    median for the Euclidean loss, mean for the squared): a location, whatever the
    mechanism releases (a point, a DP-TT node). :meth:`remap` does the same for
    given releases. Privacy: the mechanism's, unchanged (post-processing).
    """

    def __init__(self, mechanism, grid: Grid, prior, loss="euclidean", block=64):
        if not isinstance(grid, Grid):
            raise ValueError("grid must be a dpnn.adversary.Grid")
        self.mechanism, self.grid, self.loss = mechanism, grid, loss
        self.prior = check_prior(prior, grid)
        self.block = int(block)
        self.name = f"{getattr(mechanism, 'name', type(mechanism).__name__)} remapped"

    def remap(self, releases) -> np.ndarray:
        """The remapped location of each release, shape (n, d)."""
        parts = []
        for start in range(0, len(releases), self.block):
            part = releases[start : start + self.block]
            weights = posterior(
                self.mechanism.log_likelihood(part, self.grid), self.prior
            )
            parts.append(bayes_estimate(weights, self.grid, self.loss)[0])
        if not parts:
            return np.empty((0, self.grid.dimension))
        return np.concatenate(parts)

    def sample(self, locations, rng):
        return self.remap(self.mechanism.sample(locations, rng))

    def naive_guess(self, releases):
        return np.asarray(releases, dtype=float)
