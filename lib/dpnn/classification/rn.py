"""The r-N classifiers of one test instance: Alg. 1 (Laplace) and Alg. 2 (exponential).

A test instance ``(x, r)`` asks for the majority label among the training points in
the ball of radius ``r`` around ``x``. Adding or removing one training instance
changes one label count by one (sensitivity 1), so Alg. 1's noisy argmax and
Alg. 2's exponential mechanism over the counts are each ``epsilon'``-DP.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite

from .inputs import check_batch, check_training, remember_last

__all__ = [
    "label_counts",
    "rn_classify_nonprivate",
    "rn_classify_laplace",
    "rn_classify_exponential",
    "exponential_label_probabilities",
    "laplace_label_probabilities",
    "label_counts_unchecked",
    "argmax_random_ties",
    "noisy_argmax",
]


@remember_last
def label_counts_unchecked(points, labels, n_labels, queries, radii):
    """:func:`label_counts` without its input checks, for inputs as
    :func:`~dpnn.classification.inputs.check_batch` returns them (note the order:
    ``n_labels`` before the queries).

    The last call's answer is remembered (see
    :func:`~dpnn.classification.inputs.remember_last`): the studies count one batch
    once per method and budget. Not private.
    """
    counts = np.zeros((queries.shape[0], n_labels), dtype=np.int64)
    for label in range(n_labels):
        members = points[labels == label]
        if members.shape[0]:
            counts[:, label] = cKDTree(members).query_ball_point(
                queries, radii, return_length=True
            )
    return counts


def label_counts(points, labels, queries, radii, n_labels):
    """The counting queries ``c_{x,r}(I)`` (Def. 8): a (|X|, n_labels) array of exact
    counts.

    One k-d tree per label, so each count is one ``query_ball_point`` call
    (Euclidean distance, closed ball ``delta(x, t) <= r``). Not private.
    """
    return label_counts_unchecked(
        *check_batch(points, labels, queries, radii, n_labels)
    )


def argmax_random_ties(scores, rng):
    """The column of the largest score in each row of the 2-D array ``scores``, ties
    broken uniformly at random (the paper's rule for ties), one uniform number per
    entry."""
    jitter = rng.random(scores.shape)
    best = scores == scores.max(axis=1, keepdims=True)
    return np.argmax(np.where(best, jitter, -1.0), axis=1)


def rn_classify_nonprivate(counts, rng):
    """The r-N classifier (Def. 9): ``argmax_I c_{x,r}(I)`` per row, ties at random. Not
    private."""
    counts = finite_array(counts, "counts", ndim=(2,))
    return argmax_random_ties(counts, generator(rng))


def noisy_argmax(counts, epsilon, rng):
    """Alg. 1 on each row of ``counts``: the argmax of ``c(I) + Lap(1/epsilon)``, with
    ``epsilon`` one number or one per row.

    Privacy: when adding or removing one training instance changes a row's counts by
    at most 1 in total (L1 sensitivity 1, as the label counts of one ball), that row's
    label is ``epsilon``-DP: the Laplace mechanism on its counts, then post-processing
    (Thm 1); ties go to the first label, a post-processing. Exactly as sampled:
    :func:`dpnn.mechanisms.laplace` draws its noise with an exact law on a grid
    that holds every count.
    """
    epsilon = np.broadcast_to(epsilon, (counts.shape[0],))
    noisy = np.empty(counts.shape)
    for value in np.unique(epsilon):
        rows = epsilon == value
        noisy[rows] = mechanisms.laplace(counts[rows], 1.0, value, rng)
    return np.argmax(noisy, axis=1)


def _one_instance_counts(points, labels, query, radius, n_labels):
    """Validated label counts ``c_{x,r}(I)`` of one test instance ``(x, r)``, shape
    (n_labels,)."""
    radius = positive_finite(radius, "radius")
    points, labels, n_labels = check_training(points, labels, n_labels)
    query = finite_array(query, "query", ndim=(1, 2))
    query = query[None, :] if query.ndim == 1 else query
    if query.shape != (1, points.shape[1]):
        raise ValueError(
            "query must be one test instance (one "
            f"row of {points.shape[1]} coordinates), "
            f"got shape {query.shape}"
        )
    return label_counts_unchecked(points, labels, n_labels, query, np.array([radius]))[
        0
    ]


def rn_classify_laplace(points, labels, query, radius, epsilon, rng, *, n_labels):
    """Alg. 1: label one test instance ``(x, r)`` by
    ``argmax_I c_{x,r}(I) + Lap(1/epsilon)``.

    Privacy (Thm 1): each count has sensitivity 1 and the counts of different
    labels read disjoint parts of ``D`` (one label per instance), so by the
    Laplace mechanism and parallel composition the label is ``epsilon``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    counts = _one_instance_counts(points, labels, query, radius, n_labels)
    return int(noisy_argmax(counts[None, :], epsilon, generator(rng))[0])


def rn_classify_exponential(points, labels, query, radius, epsilon, rng, *, n_labels):
    """Alg. 2: label ``I`` with probability proportional to
    ``exp(epsilon c_{x,r}(I) / 2)``.

    Privacy: the exponential mechanism with utility ``c_{x,r}(I)`` of
    sensitivity 1 (McSherry and Talwar), so ``epsilon``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    counts = _one_instance_counts(points, labels, query, radius, n_labels)
    return int(mechanisms.exponential(counts, epsilon, 1.0, generator(rng)))


def exponential_label_probabilities(counts, epsilon):
    """Exact label probabilities of Alg. 2 for each row of ``counts`` (the paper's 57%
    example)."""
    return mechanisms.exponential_probabilities(counts, epsilon, 1.0)


def laplace_label_probabilities(count_a, count_b, epsilon):
    """Exact probability that Alg. 1 returns label a between two labels with counts
    ``count_a, count_b``.

    With ``L1, L2 ~ Lap(b)``, ``b = 1/epsilon``,
    ``Pr[c_a + L1 > c_b + L2] = F(c_a - c_b)`` where ``F`` is the CDF of ``L2 - L1``:
    ``F(t) = 1 - (1/2) e^{-t/b} (1 + t/(2b))`` for ``t >= 0`` and ``F(t) = 1 - F(-t)``
    for ``t < 0``.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    t = np.asarray(count_a, dtype=float) - np.asarray(count_b, dtype=float)
    a = np.abs(t) * epsilon
    upper = 1.0 - 0.5 * np.exp(-a) * (1.0 + a / 2.0)
    return np.where(t >= 0, upper, 1.0 - upper)
