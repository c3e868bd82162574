"""The laws that numpy's floating-point samplers actually realise, computed exactly.

``Generator.random()`` returns ``k 2^-53`` for k uniform on {0, ..., 2^53 - 1}
(numpy's ``next_double``: the top 53 bits of a 64-bit word). A sampler that
draws an event as ``U < p`` therefore realises the probability
``ceil(p 2^53) / 2^53``, not p, and ``Generator.choice(n, p=p)`` (``cdf =
cumsum(p) / sum(p)``, index ``searchsorted(cdf, U, side="right")``) realises
``(ceil(cdf_i 2^53) - ceil(cdf_{i-1} 2^53)) / 2^53``. Those counts are exact
integers, so the functions here return the sampled laws exactly (each count is a
float below 2^53 and its quotient by 2^53 is exact) and the privacy loss they give
(a logarithm, to within one rounding). The ``bits`` argument replaces 53 by a
smaller grid so that tests can enumerate every uniform.

A mechanism keeps its promise "epsilon-DP" as sampled when the sampled law's loss
is at most ``epsilon + LOSS_SLACK``: the slack covers the rounding of the float
probabilities themselves (a few units in the last place) and is stated in every
docstring that relies on it. Where the sampled loss exceeds that, the library's
samplers switch to :mod:`dpnn.exact_sampling`, whose laws are exact.

:func:`laplace_reachable` is the membership test of Mironov's attack (CCS 2012):
whether a float ``y`` is an output that :func:`laplace_float` can produce from a
given true value.
"""

from __future__ import annotations

import math

import numpy as np

from dpnn._validation import finite_array, generator, positive_finite

__all__ = [
    "LOSS_SLACK",
    "uniform_below",
    "choice_law",
    "group_loss",
    "two_region_loss",
    "binary_loss",
    "largest_safe_epsilon",
    "laplace_from_uniform",
    "laplace_reachable",
    "laplace_float",
]

#: Loss (nats) by which a float sampler's law may exceed its claim and still be used.
LOSS_SLACK = 1e-9


def uniform_below(p, bits: int = 53):
    """``Pr[U < p]`` for U uniform on the grid ``{k 2^-bits}``: ``ceil(p 2^bits) /
    2^bits`` clipped to [0, 1] (an array like ``p``)."""
    grid = 2.0**bits
    count = np.clip(np.ceil(np.asarray(p, dtype=float) * grid), 0.0, grid)
    return count / grid


def choice_law(p, bits: int = 53) -> np.ndarray:
    """The law of ``Generator.choice(len(p), p=p)`` on the grid ``{k 2^-bits}``.

    numpy normalises ``cdf = cumsum(p); cdf /= cdf[-1]`` and returns the number of
    cdf entries at most U; index i is drawn for the U in ``[cdf_{i-1}, cdf_i)``.
    """
    cdf = np.asarray(p, dtype=float).cumsum()
    cdf /= cdf[-1]
    grid = 2.0**bits
    below = np.clip(np.ceil(cdf * grid), 0.0, grid)
    return np.diff(below, prepend=0.0) / grid


def group_loss(law, sizes) -> float:
    """``ln(max / min)`` of the per-cell probabilities ``law[g] / sizes[g]``.

    The loss of a mechanism that releases a uniform cell of group g with
    probability ``law[g]``, when any two groups can hold the same cell for two
    inputs (L-SRR); infinite if a group is never drawn.
    """
    per_cell = np.asarray(law, dtype=float) / np.asarray(sizes, dtype=float)
    if per_cell.min() <= 0:
        return math.inf
    return math.log(per_cell.max()) - math.log(per_cell.min())


def two_region_loss(inside, inner_volume, total_volume) -> float:
    """Loss of a release uniform on a region of volume ``inner_volume`` with
    probability ``inside`` and else uniform on the rest of ``total_volume``.

    ``|ln(density inside / density outside)|`` (the square mechanism); infinite if
    one region has probability 0.
    """
    inside = float(inside)
    if inside <= 0 or inside >= 1:
        return math.inf
    return abs(
        math.log(inside)
        - math.log(inner_volume)
        - math.log1p(-inside)
        + math.log(total_volume - inner_volume)
    )


def binary_loss(p) -> float:
    """``|ln(p / (1 - p))|``: the loss of randomized response kept with probability p
    (infinite at 0 or 1)."""
    p = float(p)
    if p <= 0 or p >= 1:
        return math.inf
    return abs(math.log(p) - math.log1p(-p))


def largest_safe_epsilon(loss, low=1.0, high=800.0, tolerance=1e-3) -> float:
    """The largest epsilon in [low, high] with ``loss(epsilon) <= epsilon +
    LOSS_SLACK``, by bisection from ``low`` (safe) upwards.

    Assumes the unsafe budgets form an interval above the answer (checked at 200
    points by the caller's tests); returns ``high`` if it is safe.
    """

    def safe(epsilon):
        return loss(epsilon) <= epsilon + LOSS_SLACK

    if not safe(low):
        raise ValueError(f"low must be a safe budget, got {low}")
    if safe(high):
        return float(high)
    while high - low > tolerance:
        middle = (low + high) / 2
        low, high = (middle, high) if safe(middle) else (low, middle)
    return float(low)


def laplace_float(values, sensitivity, epsilon, rng):
    """The textbook float Laplace sampler, ``values + rng.laplace(0, b)`` with ``b =
    sensitivity / epsilon``: kept only to show what goes wrong.

    Privacy: none as sampled, at any budget. The noise is ``b log(2U)`` of a
    float uniform and the float sum reaches only some floats, a different set
    for each value, so most outputs of one value are impossible for a
    neighbouring one (Mironov, CCS 2012; :func:`laplace_reachable`).
    :func:`dpnn.mechanisms.laplace` is the sampler whose law is exact.
    """
    values = finite_array(values, "values")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    return values + generator(rng).laplace(0.0, sensitivity / epsilon, values.shape)


def laplace_from_uniform(value: float, scale: float, u: float) -> float:
    """What ``value + Generator.laplace(0, scale)`` returns for the uniform ``u``.

    numpy's ``random_laplace``: ``loc - scale log(2 - 2U)`` if U >= 1/2, else
    ``loc + scale log(2U)`` (U = 0 is redrawn), with the C library's ``log`` (which
    ``math.log`` calls); then the sum with ``value`` in float.
    """
    if u >= 0.5:
        noise = 0.0 - scale * math.log(2.0 - u - u)
    else:
        noise = 0.0 + scale * math.log(u + u)
    return value + noise


def laplace_reachable(y: float, value: float, scale: float) -> bool:
    """Whether :func:`laplace_float` of ``value`` with scale ``scale`` can return y.

    On each half of the uniform grid (U < 1/2 and U >= 1/2) the output is a
    non-decreasing function of k (U = k 2^-53; the C library's ``log`` is
    monotone), so a bisection over k finds whether some k gives exactly y. An
    output of one input that no uniform maps to from another input tells the two
    apart with certainty (Mironov 2012).
    """
    half = 2**52

    def search(first, last):
        lo, hi = first, last  # the first k whose output is >= y
        while lo < hi:
            middle = (lo + hi) // 2
            if laplace_from_uniform(value, scale, middle / 2.0**53) >= y:
                hi = middle
            else:
                lo = middle + 1
        return lo <= last and laplace_from_uniform(value, scale, lo / 2.0**53) == y

    return search(1, half - 1) or search(half, 2 * half - 1)
