"""SimHash (Charikar 2002): random hyperplane bits, their collisions and the angle.

A k x d matrix R of i.i.d. N(0, 1) entries hashes x to the k bits ``[R x >= 0]``; two
vectors at angle theta agree on each bit with probability ``1 - theta / pi``. No
privacy is spent here: R is drawn independently of the data.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, generator, positive_int

__all__ = [
    "projection",
    "simhash",
    "collision_probability",
    "hamming",
    "angle_from_hamming",
    "angles",
    "check_rows",
]


def projection(k, d, rng) -> np.ndarray:
    """A k x d matrix of i.i.d. standard normal entries (SimHash's k random
    hyperplanes)."""
    k = positive_int(k, "k")
    d = positive_int(d, "d")
    return generator(rng).standard_normal((k, d))


def check_rows(x, name="x") -> np.ndarray:
    """The vectors ``x`` as an (n, d) float array of finite numbers, one vector per row
    (a single vector of shape (d,) becomes one row); ValueError (naming ``name``)
    otherwise."""
    array = finite_array(x, name, ndim=(1, 2))
    return array[None, :] if array.ndim == 1 else array


def simhash(x, r) -> np.ndarray:
    """SimHash bits ``[R x >= 0]`` of each row of ``x``: an (n, k) bool array.

    ``x`` is (n, d) or (d,); ``r`` is the (k, d) projection. A zero row hashes to
    all ones (the convention sign(0) = +1); its angle to anything is undefined.
    """
    x = check_rows(x)
    r = finite_array(r, "r", ndim=(2,))
    if r.shape[1] != x.shape[1]:
        raise ValueError(
            f"r must have d = {x.shape[1]} columns to match x, got shape {r.shape}"
        )
    return (x @ r.T) >= 0


def collision_probability(theta):
    """``1 - theta / pi``: the probability one SimHash bit agrees on two vectors at
    angle theta."""
    theta = np.asarray(theta, dtype=float)
    if np.any(~np.isfinite(theta)) or np.any(theta < 0) or np.any(theta > np.pi):
        raise ValueError("theta must lie in [0, pi]")
    return 1.0 - theta / np.pi


def hamming(a, b) -> np.ndarray:
    """Pairwise Hamming distances between the rows of bit arrays a (n, k) and b (m, k):
    (n, m).

    Computed as |a_i| + |b_j| - 2 a_i . b_j with one matrix product over all
    pairs; every term is an integer below 2^24, so float32 holds it exactly.
    """
    a, b = np.atleast_2d(np.asarray(a)), np.atleast_2d(np.asarray(b))
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"a and b must have the same number of bits, got {a.shape} and {b.shape}"
        )
    if a.shape[1] >= 2**24:
        raise ValueError(f"a and b must have fewer than 2^24 bits, got {a.shape[1]}")
    a, b = a.astype(np.float32), b.astype(np.float32)
    ones = a.sum(axis=1)[:, None] + b.sum(axis=1)[None, :]
    return np.rint(ones - 2 * (a @ b.T)).astype(np.int64)


def angle_from_hamming(h, k):
    """Charikar's unbiased angle estimate ``pi * h / k`` from h differing bits out of
    k."""
    k = positive_int(k, "k")
    return np.pi * np.asarray(h, dtype=float) / k


def angles(a, b) -> np.ndarray:
    """Pairwise angles (radians) between the rows of a (n, d) and b (m, d): (n, m)."""
    a = check_rows(a, "a")
    b = check_rows(b, "b")
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError("rows must be non-zero to have an angle")
    cos = (a @ b.T) / np.outer(na, nb)
    return np.arccos(np.clip(cos, -1.0, 1.0))  # clip only absorbs rounding beyond +-1
