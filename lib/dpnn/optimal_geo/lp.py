"""The linear program of the optimal mechanism (Bordenabe, Chatzikokolakis and
Palamidessi, CCS 2014), its data: the locations, the prior, the quality loss, the
constrained pairs (every ordered pair, or the edges of a greedy spanner both ways)
and, at a rate, its constraint matrices. Every solver of :mod:`dpnn.optimal_geo`
builds its program from these; the spanner's privacy is proved in
:mod:`dpnn.optimal_geo.program`.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.spatial.distance import cdist

from dpnn._validation import finite_array, positive_finite

__all__ = [
    "QUALITY_LOSSES",
    "constrained_pairs",
    "constraint_matrix",
    "greedy_spanner",
    "locations",
    "prior_weights",
    "quality",
    "row_sums",
]

QUALITY_LOSSES = ("euclidean", "squared")
#: Largest number of locations ``dilation="auto"`` constrains pair by pair (the
#: spanner above it).
_EXACT_LIMIT = 64


def locations(points, name="points") -> np.ndarray:
    """``points`` as (n, d) distinct finite locations, n >= 1 (1-D: one column)."""
    x = finite_array(points, name, ndim=(1, 2))
    x = x.reshape(-1, 1) if x.ndim == 1 else x
    if len(x) < 1:
        raise ValueError(f"{name} must hold at least one location")
    if len(np.unique(x, axis=0)) != len(x):
        raise ValueError(f"{name} must hold distinct locations")
    return x


def prior_weights(prior, n) -> np.ndarray:
    """``prior`` as n weights >= 0 summing to 1 (within 1e-9)."""
    weights = finite_array(prior, "prior", ndim=(1,))
    if weights.shape != (n,) or np.any(weights < 0) or abs(weights.sum() - 1) > 1e-9:
        raise ValueError(
            f"prior must hold {n} weights >= 0 summing to 1, "
            f"got shape {weights.shape} and sum {weights.sum():.6g}"
        )
    return weights


def quality(points, outputs, loss) -> np.ndarray:
    """The quality loss ``d_Q(x, z)`` of every point and output (:data:`QUALITY_LOSSES`:
    the Euclidean distance or its square)."""
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
    x = locations(points)
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


def constrained_pairs(points, dilation) -> tuple[np.ndarray, float, float | None]:
    """The program's ordered pairs of ``points`` (indices, shape (p, 2)), the factor
    the rate is divided by on them and the dilation: every ordered pair and 1 for
    ``dilation=None``; the edges of :func:`greedy_spanner` both ways and the
    dilation for a number >= 1; ``"auto"``: None up to 64 points, 1.1 above."""
    x = locations(points)
    if isinstance(dilation, str):
        if dilation != "auto":
            raise ValueError(f"dilation must be None, 'auto' or >= 1, got {dilation!r}")
        dilation = None if len(x) <= _EXACT_LIMIT else 1.1
    if dilation is None:
        i, j = np.nonzero(~np.eye(len(x), dtype=bool))
        return np.column_stack([i, j]), 1.0, None
    edges = greedy_spanner(x, dilation)
    return np.concatenate([edges, edges[:, ::-1]]), float(dilation), float(dilation)


def constraint_matrix(points, pairs, rate, m) -> sparse.csr_matrix:
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


def row_sums(n, m) -> sparse.csr_matrix:
    """The n rows ``sum_z K[x, z]`` of an (n, m) matrix flattened x-major."""
    return sparse.kron(sparse.eye(n), np.ones((1, m)), format="csr")
