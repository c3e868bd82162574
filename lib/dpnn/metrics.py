"""Accuracy and cost of a private nearest-neighbour answer (thesis §6).

Released answers are given in compressed form: ``indices`` (point indices) and
``offsets`` such that query i received ``indices[offsets[i]:offsets[i + 1]]``
(a :class:`dpnn.traversal.DPTTResult` has both), or as an (n, k) array (GEO).
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_released", "raw_accuracy", "topk_accuracy", "precision_recall", "fraction_sent",
           "standard_error"]


def as_released(released):
    """``(indices, offsets)`` from a DPTTResult, an (n, k) int array or a list of int arrays."""
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
        raise ValueError(f"targets must have one row per query ({n}), got {targets.shape[0]}")
    span = int(max(indices.max(initial=0), targets.max(initial=0))) + 1
    owner = np.repeat(np.arange(n), np.diff(offsets))
    keys = np.sort(owner.astype(np.int64) * span + indices)
    wanted = np.arange(n)[:, None].astype(np.int64) * span + targets
    if not len(keys):  # nothing released to anyone: no target is found
        return np.zeros(wanted.shape, dtype=bool)
    where = np.searchsorted(keys, wanted)
    return (where < len(keys)) & (keys[np.minimum(where, len(keys) - 1)] == wanted)


def raw_accuracy(released, true_nearest) -> np.ndarray:
    """Per query: 1 if the true nearest neighbour was released, else 0 (thesis 'raw')."""
    indices, offsets = as_released(released)
    return _contains(indices, offsets, np.asarray(true_nearest).ravel())[:, 0].astype(float)


def topk_accuracy(released, true_knn) -> np.ndarray:
    """Per query: 1 if any of the k true nearest neighbours was released (thesis 'top-5' with k = 5)."""
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
    """Share of the database's points whose values the server sent, per query (thesis Fig. 6.1)."""
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
        raise ValueError("per_query must contain only finite numbers (no NaN or infinity)")
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("inf")
