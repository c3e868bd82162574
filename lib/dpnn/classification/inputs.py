"""Input checks shared by the classifiers, and a one-call memo of exact counts.

The training set is private: its points may be empty (a private function answers
on every size), while the dimension, dtype and public domain are checked. The memo
(:func:`remember_last`) serves the deterministic, non-private counting that the
studies repeat on one batch.
"""

from __future__ import annotations

import copy
import threading

import numpy as np

from dpnn._validation import finite_array, positive_int

__all__ = [
    "check_private_points",
    "check_training",
    "check_queries",
    "check_radii",
    "check_batch",
    "check_k_values",
    "check_k_at_most",
    "remember_last",
]


def check_private_points(points, ndim=(2,)):
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


def check_training(points, labels, n_labels):
    """The training set checked: ``(points, labels, n_labels)`` with the points an (n,
    d) float array in [0, 1]^d, the labels an intp array of integers in [0, n_labels)
    and ``n_labels`` an integer >= 2; n may be 0. ValueError otherwise."""
    points = check_private_points(points, ndim=(1, 2))
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


def check_queries(queries, dimension):
    """The test instances as an (m, d) float array, ``d = dimension`` (a 1-D array is
    one instance when ``dimension > 1``, else m instances of one coordinate);
    ValueError otherwise."""
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


def check_radii(radii, n_queries, name="radii"):
    """The radii as a float array of length ``n_queries`` (a number is every instance's
    radius), checked to be finite and > 0; ValueError (naming ``name``) otherwise."""
    radii = _per_instance(finite_array(radii, name), n_queries, name).astype(float)
    if np.any(radii <= 0):
        raise ValueError(
            f"{name} must be > 0 (a proximity region needs a positive radius)"
        )
    return radii


def check_batch(points, labels, queries, radii, n_labels):
    """The inputs of a batch of r-N test instances checked:
    ``(points, labels, n_labels, queries, radii)`` as :func:`check_training`,
    :func:`check_queries` and :func:`check_radii` return them."""
    points, labels, n_labels = check_training(points, labels, n_labels)
    queries = check_queries(queries, points.shape[1])
    return points, labels, n_labels, queries, check_radii(radii, queries.shape[0])


def check_k_values(k, n_queries):
    """k per test instance as an intp array of length ``n_queries`` of integers >= 1
    (a scalar or one per instance); ValueError otherwise.

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


def check_k_at_most(k, n_queries, n_points):
    """k per test instance as an intp array of integers in [1, n_points]; ValueError
    otherwise. Only for non-private functions (|D| is read openly)."""
    k = check_k_values(k, n_queries)
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


def remember_last(function):
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
