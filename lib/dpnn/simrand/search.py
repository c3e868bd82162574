"""Nearest-neighbour search on the releases and its recall (post-processing)."""

from __future__ import annotations

import numpy as np

from dpnn._validation import generator, positive_int

from . import flips, projection_baseline, simhash
from .projection_baseline import unit_rows
from .simhash import check_rows

__all__ = [
    "knn_hamming",
    "knn_euclidean",
    "exact_knn_angular",
    "recall_at",
    "smallest_indices",
]


def smallest_indices(scores, n_neighbours) -> np.ndarray:
    """The indices of the ``n_neighbours`` smallest scores in each row of the (m, n)
    array ``scores``, sorted by score, ties by index: an (m, n_neighbours) array.

    The n minima of n disjoint blocks of a row are n of its scores, so their
    largest bounds the row's n-th smallest from above: only the scores at or below
    it are candidates, and those few are sorted by (score, index). One pass over
    the scores instead of a selection in every row.
    """
    n_neighbours = positive_int(n_neighbours, "n_neighbours")
    scores = np.asarray(scores, dtype=float)
    m, n = scores.shape
    if n_neighbours > n:
        raise ValueError(
            f"n_neighbours must be at most the {n} released rows, got {n_neighbours}"
        )
    width = n // n_neighbours
    blocks = scores[:, : n_neighbours * width].reshape(m, n_neighbours, width)
    bound = blocks.min(axis=2).max(axis=1)
    rows, columns = np.nonzero(scores <= bound[:, None])
    order = np.lexsort((columns, scores[rows, columns], rows))
    first = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))[:-1]])
    return columns[order][first[:, None] + np.arange(n_neighbours)]


def knn_hamming(
    release: flips.SimRandRelease, queries, n_neighbours, rng=None
) -> np.ndarray:
    """k nearest released rows to each query in Hamming distance: (m, n_neighbours)
    indices.

    Queries are hashed exactly with the public R (they are the querier's own
    vectors). Hamming distances are integers with many ties; with ``rng`` ties
    are broken uniformly at random, else by row index. Post-processing of the
    release, so it costs no further privacy.
    """
    query_bits = simhash.simhash(queries, release.r)
    scores = simhash.hamming(query_bits, release.bits).astype(float)
    if rng is not None:
        scores += 0.5 * generator(rng).random(scores.shape)
    return smallest_indices(scores, n_neighbours)


def knn_euclidean(
    release: projection_baseline.GaussianRelease, queries, n_neighbours
) -> np.ndarray:
    """k nearest released rows to each projected query in Euclidean distance: (m,
    n_neighbours).

    Post-processing of the release, so it costs no further privacy.
    """
    scores = projection_baseline.squared_distance_estimate(
        release.points, release.project(queries), release.sigma
    )
    return smallest_indices(scores, n_neighbours)


def exact_knn_angular(x, queries, n_neighbours) -> np.ndarray:
    """The true k nearest rows of x to each query by angle (cosine similarity): (m,
    n_neighbours)."""
    x = unit_rows(check_rows(x))
    q = unit_rows(check_rows(queries, "queries"))
    return smallest_indices(-(q @ x.T), n_neighbours)


def recall_at(found, truth) -> np.ndarray:
    """Per query: |found ∩ truth| / |truth| (recall@k with k = truth's width)."""
    found = np.asarray(found)
    truth = np.asarray(truth)
    if found.shape[0] != truth.shape[0]:
        raise ValueError(
            "found and truth must have one row per "
            f"query, got {found.shape} and {truth.shape}"
        )
    hits = (found[:, :, None] == truth[:, None, :]).any(axis=2).sum(axis=1)
    return hits / truth.shape[1]
