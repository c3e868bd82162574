"""Accuracy and cost of a private nearest-neighbour answer (thesis §6).

Released answers are given in compressed form: ``indices`` (point indices) and
``offsets`` such that query i received ``indices[offsets[i]:offsets[i + 1]]``
(a :class:`dpnn.traversal.DPTTResult` has both), or as an (n, k) array (GEO).
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, nonnegative_finite

__all__ = [
    "as_released",
    "raw_accuracy",
    "topk_accuracy",
    "precision_recall",
    "fraction_sent",
    "standard_error",
    "accuracy_summary",
]


def as_released(released):
    """``(indices, offsets)`` from a DPTTResult, an (n, k) int array or a list of int
    arrays."""
    if hasattr(released, "indices") and hasattr(released, "offsets"):
        return np.asarray(released.indices), np.asarray(released.offsets)
    if isinstance(released, np.ndarray) and released.ndim == 2:
        n, k = released.shape
        return released.ravel(), np.arange(0, n * k + 1, k)
    arrays = [np.asarray(a, dtype=np.intp).ravel() for a in released]
    sizes = np.array([len(a) for a in arrays], dtype=np.intp)
    indices = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.intp)
    return indices, np.concatenate([[0], np.cumsum(sizes)])


def _contains(indices, offsets, targets) -> np.ndarray:
    """(n, m) bool: is ``targets[i, j]`` among the values released to query i?"""
    targets = np.asarray(targets)
    targets = targets[:, None] if targets.ndim == 1 else targets
    n = len(offsets) - 1
    if targets.shape[0] != n:
        raise ValueError(
            f"targets must have one row per query ({n}), got {targets.shape[0]}"
        )
    span = int(max(indices.max(initial=0), targets.max(initial=0))) + 1
    owner = np.repeat(np.arange(n), np.diff(offsets))
    keys = np.sort(owner.astype(np.int64) * span + indices)
    wanted = np.arange(n)[:, None].astype(np.int64) * span + targets
    if not len(keys):  # nothing released to anyone: no target is found
        return np.zeros(wanted.shape, dtype=bool)
    where = np.searchsorted(keys, wanted)
    return (where < len(keys)) & (keys[np.minimum(where, len(keys) - 1)] == wanted)


def raw_accuracy(released, true_nearest) -> np.ndarray:
    """Per query: 1 if the true nearest neighbour was released, else 0 (thesis
    'raw')."""
    indices, offsets = as_released(released)
    return _contains(indices, offsets, np.asarray(true_nearest).ravel())[:, 0].astype(
        float
    )


def topk_accuracy(released, true_knn) -> np.ndarray:
    """Per query: 1 if any of the k true nearest neighbours was released (thesis 'top-5'
    with k = 5)."""
    indices, offsets = as_released(released)
    return np.any(_contains(indices, offsets, true_knn), axis=1).astype(float)


def precision_recall(released, true_knn):
    """Per query: (|released ∩ true kNN| / |released|, |released ∩ true kNN| / k)."""
    indices, offsets = as_released(released)
    hits = _contains(indices, offsets, true_knn).sum(axis=1)
    sizes = np.diff(offsets)
    precision = np.divide(hits, sizes, out=np.zeros(len(sizes)), where=sizes > 0)
    return precision, hits / np.asarray(true_knn).shape[1]


def fraction_sent(sent, n_points) -> np.ndarray:
    """Share of the database's points whose values the server sent, per query (thesis
    Fig. 6.1)."""
    return np.asarray(sent, dtype=float) / n_points


def standard_error(per_query) -> float:
    """Standard error of the mean of per-query scores: ``std(ddof=1) / sqrt(n)``.

    One score says nothing about the spread, so its standard error is
    ``inf`` (an unbounded error bar, never NaN); no score at all is a ``ValueError``.
    """
    values = np.asarray(per_query, dtype=float).ravel()
    if values.size == 0:
        raise ValueError("per_query must hold at least one score, got none")
    if not np.all(np.isfinite(values)):
        raise ValueError(
            "per_query must contain only finite numbers (no NaN or infinity)"
        )
    return (
        float(values.std(ddof=1) / np.sqrt(len(values)))
        if len(values) > 1
        else float("inf")
    )


def accuracy_summary(released, true_knn) -> dict:
    """Mean raw and top-k accuracy of a batch of answers, each with its standard error.

    ``true_knn`` is (n, k): each query's k true nearest neighbours, nearest first.
    Keys "raw", "raw s.e.", "top-k" and "top-k s.e." with k written out (the
    thesis's "top-5" for k = 5); see :func:`raw_accuracy`, :func:`topk_accuracy`
    and :func:`standard_error`.
    """
    true_knn = np.asarray(true_knn)
    if true_knn.ndim != 2 or true_knn.shape[1] < 1:
        raise ValueError(
            f"true_knn must be (n, k) with k >= 1, got shape {true_knn.shape}"
        )
    raw = raw_accuracy(released, true_knn[:, 0])
    top = topk_accuracy(released, true_knn)
    name = f"top-{true_knn.shape[1]}"
    return {
        "raw": raw.mean(),
        "raw s.e.": standard_error(raw),
        name: top.mean(),
        f"{name} s.e.": standard_error(top),
    }


# --- the follow-up's metrics ----------------------------------------------------------

__all__ += [
    "precision_recall_within_radius",
    "mean_squared_displacement",
    "cell_inference_error",
]


def precision_recall_within_radius(released, points, queries, radius):
    """Per query: precision and recall of the released set against the points within
    ``radius``.

    The relevant set of query i is every data point at Euclidean distance ``<= radius``
    from it (the follow-up's ``search_within_radius`` in d1shs0ap/dpnn, ``src/main.py``
    line 91; its precision and recall are ``src/evaluation.py`` lines 11-23). Returns
    ``(precision, recall, n_relevant)``: precision is
    ``|released ∩ relevant| / |released|`` (0 when nothing was released), recall
    ``|released ∩ relevant| / |relevant|``, set to 1 when nothing is relevant (nothing
    was missed). The follow-up skips such queries (``src/main.py`` line 93); filter on
    ``n_relevant > 0`` to do the same.
    """
    from scipy.spatial import cKDTree

    indices, offsets = as_released(released)
    data = finite_array(points, "points", ndim=(1, 2))
    data = data.reshape(len(data), -1)
    q = finite_array(queries, "queries", ndim=(1, 2))
    q = q.reshape(-1, 1) if q.ndim == 1 and data.shape[1] == 1 else q
    if q.ndim != 2 or q.shape[1] != data.shape[1]:
        raise ValueError(
            f"queries must have shape (m, {data.shape[1]}) like points, got "
            f"{np.shape(queries)}"
        )
    n = len(offsets) - 1
    if len(q) != n:
        raise ValueError(
            f"queries must have one row per released set ({n}), got {len(q)}"
        )
    radius = nonnegative_finite(radius, "radius")
    if len(indices) and (indices.min() < 0 or indices.max() >= len(data)):
        raise ValueError(f"released indices must index points (0 .. {len(data) - 1})")
    relevant = (
        cKDTree(data).query_ball_point(q, r=radius)
        if len(data)
        else [[] for _ in range(n)]
    )
    n_relevant = np.array([len(r) for r in relevant], dtype=np.intp)
    owner_rel = np.repeat(np.arange(n, dtype=np.int64), n_relevant)
    flat_rel = (
        np.concatenate([np.asarray(r, dtype=np.int64) for r in relevant])
        if n_relevant.sum()
        else np.zeros(0, dtype=np.int64)
    )
    span = max(len(data), 1)
    owner_rel_keys = owner_rel * span + flat_rel
    sizes = np.diff(offsets)
    released_keys = np.unique(
        np.repeat(np.arange(n, dtype=np.int64), sizes) * span + indices.astype(np.int64)
    )
    hits = np.bincount(
        (released_keys[np.isin(released_keys, owner_rel_keys)] // span).astype(np.intp),
        minlength=n,
    )
    distinct = np.bincount((released_keys // span).astype(np.intp), minlength=n)
    precision = np.divide(hits, distinct, out=np.zeros(n), where=distinct > 0)
    recall = np.divide(hits, n_relevant, out=np.ones(n), where=n_relevant > 0)
    return precision, recall, n_relevant


def mean_squared_displacement(original, released) -> np.ndarray:
    """Per row: ``||released - original||^2``, the squared displacement a perturbation
    caused.

    Its mean is the perturbation's MSE, the footing of the follow-up's MSE-matched
    comparison (d1shs0ap/dpnn ``src/run_mse.py``, which records the unsquared norm).
    Both arrays of shape (n, d), or (n,) on the line.
    """
    x = finite_array(original, "original", ndim=(1, 2), allow_empty=True)
    y = finite_array(released, "released", ndim=(1, 2), allow_empty=True)
    if x.shape != y.shape:
        raise ValueError(
            f"released must have the shape of original {x.shape}, got {y.shape}"
        )
    return np.sum((y - x).reshape(len(x), -1) ** 2, axis=1)


def _asinh_ratio(u):
    """asinh(u) / u, with its limit 1 at u = 0 (exact for tiny u: asinh(u) = u) and 0
    where u overflowed (u > 1.8e308, where asinh(u) / u < 4e-306)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        finite = np.where(np.isinf(u), 1.0, u)
        ratio = np.where(
            u == 0, 1.0, np.arcsinh(finite) / np.where(u == 0, 1.0, finite)
        )
        return np.where(np.isinf(u), 0.0, ratio)


def _corner_mean_distance(a, b):
    """Mean distance from a corner of the rectangle [0, a] x [0, b] to a uniform point.

    ``(r + a^2/(2b) ln((b + r)/a) + b^2/(2a) ln((a + r)/b)) / 3``, ``r = hypot(a, b)``,
    its logarithms written as ``ln((b + r)/a) = asinh(b/a)``: ``a^2/(2b) asinh(b/a)`` is
    ``(a/2) asinh(u)/u`` with u = b/a, which stays exact on a box as thin as 2 x 2e-16
    (where ``ln(1 + 1e-16)`` rounds to 0).
    """
    diagonal = np.hypot(a, b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = (
            diagonal
            + a / 2 * _asinh_ratio(b / np.where(a == 0, 1.0, a))
            + b / 2 * _asinh_ratio(a / np.where(b == 0, 1.0, b))
        )
    # a degenerate side: the mean distance along a segment of length L from its end is L
    # / 2
    terms = np.where(a == 0, 1.5 * b, np.where(b == 0, 1.5 * a, terms))
    return terms / 3


def cell_inference_error(low, high) -> np.ndarray:
    """Expected error of the optimal adversary who knows a query lies in a box,
    uniformly.

    The adversary sees which cell ``[low, high]`` (one box per row; d = 1 or 2)
    the transcript points to and holds a uniform prior over it. The guess that
    minimises the expected Euclidean distance ``E ||X - g||`` is the box's
    centre: the objective is convex in g and symmetric under the reflections
    of the box through its centre, so its average over those reflections, the
    centre, is no worse than any g. The error at the centre is in closed form:

    - d = 1, width w: ``w / 4``;
    - d = 2, half-sides a, b, diagonal r = sqrt(a^2 + b^2): the mean distance
      from a corner of an a x b rectangle, ``(r + a^2/(2b) ln((b + r)/a) +
      b^2/(2a) ln((a + r)/b)) / 3`` (the four quarters of the box are such
      rectangles with the centre as their corner).

    Exact at every finite box, from a 2 x 1e-310 box (0.5) to a box of +-1e308.

    The follow-up states this integral in d1shs0ap/dpnn ``src/adversary.py``
    lines 3-7 for a query (x0, y0) rather than the centre; written with ``^``
    (exclusive or in Python), it raises on floats, so it was never run.
    """
    lo = finite_array(low, "low", ndim=(1, 2))
    hi = finite_array(high, "high", ndim=(1, 2))
    if lo.shape != hi.shape:
        raise ValueError(f"high must have the shape of low {lo.shape}, got {hi.shape}")
    lo, hi = lo.reshape(len(lo), -1), hi.reshape(len(hi), -1)
    if lo.shape[1] not in (1, 2):
        raise ValueError(
            f"low must describe boxes of dimension 1 or 2, got dimension {lo.shape[1]}"
        )
    if np.any(hi < lo):
        raise ValueError("high must be >= low in every dimension")
    with np.errstate(over="ignore"):  # a box of +-1e308: halve before subtracting
        width = hi - lo
        half = np.where(np.isfinite(width), width / 2, hi / 2 - lo / 2)
    if lo.shape[1] == 1:
        return half[:, 0] / 2
    # homogeneous of degree 1: computed on the box scaled to longest half-side 1, so
    # neither the sum of its terms overflows nor a ratio of its sides turns into NaN
    longest = np.max(half, axis=1)
    unit = np.where(longest > 0, longest, 1.0)
    return longest * _corner_mean_distance(half[:, 0] / unit, half[:, 1] / unit)
