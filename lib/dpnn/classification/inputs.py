"""Input checks shared by the classifiers, and a one-call memo of exact counts.

The training set is private: its points may be empty (a private function answers
on every size), while the dimension, dtype and public domain are checked. The memo
(:func:`_remember_last`) serves the deterministic, non-private counting that the
studies repeat on one batch.
"""

from __future__ import annotations

import copy
import threading

import numpy as np

from dpnn._validation import finite_array, positive_int

__all__ = []


def _private_points(points, ndim=(2,)):
    """The private training points as an (n, d) array in [0, 1]^d; n = 0 is allowed.

    |D| is private, so zero records is an answerable dataset, not an error; the
    dimension d (from the array's shape, e.g. (0, d)) and the domain are public
    and checked.
    """
    points = finite_array(points, "points", ndim=ndim, allow_empty=True)
    points = points[:, None] if points.ndim == 1 else points
    if points.size and (points.min() < 0 or points.max() > 1):
        raise ValueError(
            "points must lie in the unit cube [0, 1]^d (scale the features first)"
        )
    return points


def _training(points, labels, n_labels):
    """Validated training set: points (n, d) in [0, 1]^d, integer labels in [0,
    n_labels); n may be 0."""
    points = _private_points(points, ndim=(1, 2))
    n_labels = positive_int(n_labels, "n_labels", minimum=2)
    labels = np.asarray(labels)
    if labels.shape != (points.shape[0],):
        raise ValueError(
            f"labels must have one entry per training point ({points.shape[0]}), got "
            f"shape {labels.shape}"
        )
    if labels.size and (
        not np.issubdtype(labels.dtype, np.integer)
        or labels.min() < 0
        or labels.max() >= n_labels
    ):
        raise ValueError(f"labels must be integers in [0, n_labels) = [0, {n_labels})")
    return points, labels.astype(np.intp), n_labels


def _queries(queries, dimension):
    """Validated test instances as an (m, d) array."""
    queries = finite_array(queries, "queries", ndim=(1, 2))
    if queries.ndim == 1:
        queries = queries[None, :] if dimension > 1 else queries[:, None]
    if queries.shape[1] != dimension:
        raise ValueError(
            f"queries must have {dimension} columns like the training points, got "
            f"{queries.shape[1]}"
        )
    return queries


def _per_instance(values, n_queries, name):
    """``values`` (a scalar or one entry per test instance) as a length-n_queries
    array."""
    values = np.asarray(values)
    if values.ndim > 1 or (values.ndim == 1 and values.shape[0] not in (1, n_queries)):
        raise ValueError(
            f"{name} must be a scalar or have one entry per test instance "
            f"(length {n_queries}), got shape {values.shape}"
        )
    return np.broadcast_to(values, (n_queries,))


def _radii(radii, n_queries, name="radii"):
    """Radii as a length-n_queries array of finite numbers > 0."""
    radii = _per_instance(finite_array(radii, name), n_queries, name).astype(float)
    if np.any(radii <= 0):
        raise ValueError(
            f"{name} must be > 0 (a proximity region needs a positive radius)"
        )
    return radii


def _k_values(k, n_queries):
    """k per test instance as integers >= 1 (a scalar or one per instance).

    No upper bound: in the private functions ``|D|`` is private, and refusing
    ``k > |D|`` would reveal that ``|D| < k`` (one dataset answers, its
    neighbour raises). Each private function documents what such a k means.
    """
    given = k
    k = _per_instance(k, n_queries, "k")
    if not np.issubdtype(k.dtype, np.integer) or k.min() < 1:
        shown = (
            np.array2string(np.asarray(given), threshold=6)
            if np.ndim(given)
            else repr(given)
        )
        raise ValueError(
            "k must be an integer >= 1 (a scalar "
            f"or one per test instance), got {shown}"
        )
    return k.astype(np.intp)


def _k_at_most(k, n_queries, n_points):
    """k per test instance as integers in [1, n_points]; only for non-private functions
    (|D| is read openly)."""
    k = _k_values(k, n_queries)
    if k.max() > n_points:
        raise ValueError(
            f"k must be an integer in [1, |D|] = [1, {n_points}], got "
            f"{k.min()}..{k.max()}"
        )
    return k


def _same(a, b) -> bool:
    """Whether two arguments are the same value: arrays bit for bit (shape, dtype,
    bytes), others by ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return (
            a.shape == b.shape
            and a.dtype == b.dtype
            and np.array_equal(
                np.ascontiguousarray(a).view(np.uint8),
                np.ascontiguousarray(b).view(np.uint8),
            )
        )
    return type(a) is type(b) and a == b


def _remember_last(function):
    """Answer a call with the same arguments as the previous one from memory (a copy),
    else compute.

    For deterministic, non-private computations the studies repeat on one batch (the
    exact counts of a batch are read once per method and budget). Only the last call is
    kept, so memory stays one result; the value returned is the one the function would
    compute. Each thread keeps its own last call (a Dask worker runs cases in threads).
    """
    memory = threading.local()

    def remembered(*args, **options):
        last = memory.__dict__
        call = args + tuple(sorted(options.items()))
        if (
            "call" in last
            and len(call) == len(last["call"])
            and all(map(_same, call, last["call"]))
        ):
            return copy.deepcopy(last["result"])
        result = function(*args, **options)
        last.clear()
        last.update(
            call=tuple(
                np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in call
            ),
            result=copy.deepcopy(result),
        )
        return result

    remembered.__wrapped__ = function
    remembered.__doc__ = function.__doc__
    return remembered
