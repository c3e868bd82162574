"""The k-NN classifiers: the baseline of Alg. 4 and the proposed Alg. 5.

Alg. 4 runs the exponential mechanism at ``epsilon / |X|`` per instance over the label
counts among the k nearest training points (one record moves a count by at most
one, with ties broken by an order that depends only on the records compared).
Alg. 5 converts each k-NN query to an r-N query with a share ``w`` of the budget,
then classifies the batch with Alg. 3.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import cKDTree

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite, probability_open

from . import interactive, overlap, uniform_grid
from .inputs import (
    check_k_at_most,
    check_k_values,
    check_queries,
    check_training,
    remember_last,
)
from .rn import argmax_random_ties

__all__ = [
    "knn_radii",
    "knn_classify_nonprivate",
    "knn_classify_baseline",
    "knn_classify_private",
]


def knn_radii(points, queries, k):
    """The non-private conversion: ``r = delta(x, x^k)``, the distance to the k-th
    nearest neighbour."""
    points = finite_array(points, "points", ndim=(2,))
    queries = check_queries(queries, points.shape[1])
    k = check_k_at_most(k, queries.shape[0], points.shape[0])
    distance, _ = cKDTree(points).query(queries, k=int(k.max()))
    distance = distance.reshape(queries.shape[0], -1)
    return distance[np.arange(queries.shape[0]), k - 1]


def _record_order(points, labels):
    """Rank of each record in a fixed, data-independent total order: by coordinates,
    then label.

    Whether record a precedes record b depends on a and b alone, never on the
    rest of the dataset; only exact duplicates (same coordinates and label) tie,
    and those are interchangeable.
    """
    keys = (labels,) + tuple(points[:, j] for j in range(points.shape[1] - 1, -1, -1))
    rank = np.empty(len(labels), dtype=np.intp)
    rank[np.lexsort(keys)] = np.arange(len(labels))
    return rank


@remember_last
def _knn_counts(points, labels, queries, k, n_labels, chunk=1 << 22):
    """Label counts among the k nearest neighbours (Def. 11), shape (|X|, n_labels).

    "Nearest" is a total order on records: by distance to the query, ties broken
    by :func:`_record_order` (coordinates, then label). Under any such order,
    adding one record to D changes the k nearest by at most one record in and one
    out, so every label count moves by at most 1 (the sensitivity Alg. 4 assumes).
    ``cKDTree.query`` breaks distance ties by the tree's layout, which depends on
    the whole dataset: one added record could then swap several tied records and
    move a count by more than 1. When ``|D| < k`` the k nearest are all of ``D``
    (the counts sum to |D|); with ``|D| = 0`` every count is 0.
    """
    n, m = points.shape[0], queries.shape[0]
    counts = np.zeros((m, n_labels), dtype=np.int64)
    k = min(int(k), n)
    if k == 0:
        return counts
    rank = _record_order(points, labels)
    # bound the (rows, n, d) difference block
    rows = max(1, chunk // (n * points.shape[1]))
    # Each distance is summed over the d coordinates of one pair only (no matrix
    # product, whose rounding could depend on the other records), so a record's place in
    # the order is its own.
    for start in range(0, m, rows):
        block = queries[start : start + rows]
        distance = np.sqrt(((block[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
        # The first k in the order (distance, rank): all records nearer than the k-th
        # distance, then the tied ones at the k-th distance by rank (the same records as
        # a full lexsort, without it).
        kth = np.partition(distance, k - 1, axis=1)[:, k - 1 : k]
        chosen = distance < kth
        tied = distance == kth
        need = k - chosen.sum(axis=1)
        exact = tied.sum(axis=1) == need
        chosen[exact] |= tied[exact]
        # more ties than places: the smallest ranks win
        for row in np.flatnonzero(~exact):
            candidates = np.flatnonzero(tied[row])
            chosen[row, candidates[np.argsort(rank[candidates])[: need[row]]]] = True
        row, column = np.nonzero(chosen)
        np.add.at(counts, (start + row, labels[column]), 1)
    return counts


def _knn_counts_lexsort(points, labels, queries, k, n_labels, chunk=1 << 22):
    """:func:`_knn_counts` as it was (a full lexsort of every distance row); the
    reference of the tests."""
    n, m = points.shape[0], queries.shape[0]
    counts = np.zeros((m, n_labels), dtype=np.int64)
    k = min(int(k), n)
    if k == 0:
        return counts
    rank = _record_order(points, labels)
    rows = max(1, chunk // (n * points.shape[1]))
    for start in range(0, m, rows):
        block = queries[start : start + rows]
        distance = np.sqrt(((block[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
        order = np.lexsort((np.broadcast_to(rank, distance.shape), distance), axis=-1)[
            :, :k
        ]
        np.add.at(
            counts,
            (np.repeat(np.arange(start, start + len(block)), k), labels[order].ravel()),
            1,
        )
    return counts


def knn_classify_nonprivate(points, labels, queries, k, rng, *, n_labels):
    """The k-NN classifier (Def. 12), majority vote with random tie-breaks. Not private:
    k must be <= |D|."""
    points, labels, n_labels = check_training(points, labels, n_labels)
    queries = check_queries(queries, points.shape[1])
    k = int(check_k_at_most(k, 1, points.shape[0])[0])
    return argmax_random_ties(
        _knn_counts(points, labels, queries, k, n_labels), generator(rng)
    )


def knn_classify_baseline(points, labels, queries, k, epsilon, rng, *, n_labels):
    """Alg. 4 for every instance at ``epsilon / |X|``: ``epsilon``-DP by sequential
    composition.

    The utility ``q_{x,k}(I)`` changes by at most 1 per label when one
    instance is added or removed (it can enter the k nearest and push one out),
    so each call is the exponential mechanism with sensitivity 1.

    ``k`` is one integer >= 1. When ``|D| < k``, "the k nearest" are all of
    ``D`` (adding a record then raises one label's count by 1: sensitivity
    still 1); ``|D|`` is private, so a larger k is not an error.
    """
    points, labels, n_labels = check_training(points, labels, n_labels)
    queries = check_queries(queries, points.shape[1])
    k = int(check_k_values(k, 1)[0])
    epsilon = positive_finite(epsilon, "epsilon")
    counts = _knn_counts(points, labels, queries, k, n_labels)
    return mechanisms.exponential(
        counts, epsilon / queries.shape[0], 1.0, generator(rng)
    )


def knn_classify_private(
    points,
    labels,
    queries,
    k,
    epsilon,
    rng,
    *,
    n_labels,
    conversion="interactive",
    w=0.5,
    n_candidates=10,
    gamma=None,
):
    """Alg. 5, the proposed private k-NN classifier: ``epsilon``-DP by sequential
    composition.

    ``w epsilon`` converts each (x, k) to (x, r) (Alg. 6 ``"interactive"`` or
    Alg. 7 ``"noninteractive"``, whose ``gamma`` defaults to 0.1% of the domain
    diameter); ``(1 - w) epsilon`` runs Alg. 3 on the converted instances.
    Returns ``(labels, radii)``. ``k`` is an integer >= 1 (a scalar or one per
    instance) and may exceed the private ``|D|``; each conversion says what
    radius it then returns.
    """
    points, labels, n_labels = check_training(points, labels, n_labels)
    queries = check_queries(queries, points.shape[1])
    k = check_k_values(k, queries.shape[0])
    epsilon = positive_finite(epsilon, "epsilon")
    w = probability_open(w, "w")
    rng = generator(rng)
    if conversion == "interactive":
        radii = interactive.convert_interactive(
            points, queries, k, w * epsilon, rng, n_candidates=n_candidates
        )
    elif conversion == "noninteractive":
        gamma = 1e-3 * math.sqrt(points.shape[1]) if gamma is None else gamma
        grid = uniform_grid.private_uniform_grid(points, w * epsilon, rng)
        radii = uniform_grid.convert_noninteractive(grid, queries, k, gamma, rng)
    else:
        raise ValueError(
            f"conversion must be 'interactive' or 'noninteractive', got {conversion!r}"
        )
    result = overlap.rn_classify_batch(
        points, labels, queries, radii, (1 - w) * epsilon, rng, n_labels=n_labels
    )
    return result.labels, radii
