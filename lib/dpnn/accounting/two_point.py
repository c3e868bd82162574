"""Composition of unequal randomized-response steps on a grid that scales with them.

An epsilon-DP step's worst case is randomized response at epsilon (Kairouz, Oh and
Viswanath 2015): its privacy loss is +epsilon with probability
``e^epsilon / (1 + e^epsilon)`` and -epsilon otherwise, and composing worst cases
composes the bounds. For steps of unequal epsilons the composed loss takes up to
2^k values, so it is computed on a grid: every loss is rounded *up* to a multiple
of the interval h (pessimistic, so the result is an upper bound), the step laws
are convolved directly (sums of positive terms, no FFT) and
``delta(eps) = E[(1 - e^{eps - L})_+]`` is evaluated from positive tail sums, so
the answer keeps its relative precision down to composed budgets of 1e-6.

The interval is a fixed fraction of the steps' total loss width (it depends on the
number of steps, never on their size), so multiplying every epsilon by a common
factor moves the rounded losses by that factor: the composed epsilon is then a
continuous function of the factor, which :func:`dpnn.traversal.epsilon_schedule`
inverts by bisection.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, gammaln

__all__ = [
    "TWO_POINT_POINTS",
    "two_point_grid",
    "two_point_epsilon",
    "two_point_delta",
]

#: Grid points per step across the composed loss support (at most a million in all).
TWO_POINT_POINTS = 20_000
_MOST_POINTS = 1_000_000
#: Relative margin of the upward rounding (keeps the rounding away from exact
#: multiples, where float noise in the ratio would flip it).
_MARGIN = 1e-9


def two_point_grid(levels) -> tuple[float, float]:
    """``(interval, error)`` of the grid for ``levels``, pairs ``(epsilon, count)``.

    ``interval = width / min(20000 k, 10^6)`` with ``width = 2 sum count epsilon``
    the span of the composed loss and k the number of steps; each step's loss moves
    up by less than ``interval (1 + 2e-9)``, so the composed epsilon exceeds the
    exact composition of the worst cases by at most ``error = k interval
    (1 + 2e-9)``.
    """
    steps = sum(count for _, count in levels)
    width = 2.0 * sum(epsilon * count for epsilon, count in levels)
    interval = width / min(TWO_POINT_POINTS * steps, _MOST_POINTS)
    return interval, steps * interval * (1 + 2 * _MARGIN)


def _composed_law(levels, interval):
    """Losses (a grid, ascending) and their probabilities under the first input."""
    probabilities = np.ones(1)
    lowest = 0
    for epsilon, count in levels:
        ratio = epsilon / interval
        up = math.floor(ratio * (1 + _MARGIN)) + 1  # > ratio: loss rounded up
        down = -math.floor(ratio * (1 - _MARGIN))  # >= -ratio
        ups = np.arange(count + 1)  # how many of the count steps lose +epsilon
        log_weight = (
            gammaln(count + 1)
            - gammaln(ups + 1)
            - gammaln(count - ups + 1)
            + ups * -np.logaddexp(0.0, -epsilon)
            + (count - ups) * -np.logaddexp(0.0, epsilon)
        )
        weight = np.exp(log_weight)
        gap = up - down
        out = np.zeros(probabilities.size + count * gap)
        for m in range(count + 1):
            out[m * gap : m * gap + probabilities.size] += weight[m] * probabilities
        probabilities = out
        lowest += count * down
    losses = (lowest + np.arange(probabilities.size)) * interval
    return losses, probabilities


def two_point_epsilon(levels, delta) -> float:
    """Smallest epsilon with ``delta(epsilon) <= delta`` for the composition of
    randomized-response steps ``levels``, pairs ``(epsilon, count)`` with
    epsilon > 0.

    An upper bound on the exact composition (hence valid for any epsilon_i-DP steps,
    adaptively composed) by at most the ``error`` of :func:`two_point_grid`.
    Between two grid losses, ``delta(epsilon) = C - B expm1(epsilon)`` with
    ``C = sum p (-expm1(-l))`` and ``B = sum p e^-l`` over the losses l above
    epsilon: sums of positive terms, solved as ``epsilon = log1p((C - delta) /
    B)`` (as ``l_i + log((A - delta) / S)`` with the mass A above and ``S = sum p
    e^{l_i - l}`` where B underflows).
    """
    from scipy.signal import lfilter

    interval, _ = two_point_grid(levels)
    losses, probabilities = _composed_law(levels, interval)
    positive = losses > 0
    losses, probabilities = losses[positive], probabilities[positive]
    if not losses.size:
        return 0.0

    def tail(values):  # sums over the losses >= l_i, for every i
        return np.cumsum(values[::-1])[::-1]

    tail_c = tail(probabilities * -np.expm1(-losses))
    if tail_c[0] <= delta:  # delta(0) <= delta
        return 0.0
    tail_a, tail_b = tail(probabilities), tail(probabilities * np.exp(-losses))
    # beyond[j] = sum_{k > j} p_k e^{-(l_k - l_j)}, by a stable recursion
    decay = math.exp(-interval)
    beyond = lfilter([0.0, decay], [1.0, -decay], probabilities[::-1])[::-1]
    # delta at epsilon = l_j: sum over k > j of p_k (1 - e^{l_j - l_k})
    at_loss = np.append(tail_a[1:], 0.0) - beyond
    i = int(np.argmax(at_loss <= delta))  # the first loss where delta(l_i) <= delta
    # epsilon lies in [l_{i-1}, l_i] (or [0, l_0]); the losses above it are >= l_i
    if tail_b[i] > 1e-290:
        epsilon = math.log1p((tail_c[i] - delta) / tail_b[i])
    else:
        epsilon = losses[i] + math.log(
            (tail_a[i] - delta) / (probabilities[i] + beyond[i])
        )
    return float(max(epsilon, 0.0))


def two_point_delta(levels, epsilon) -> float:
    """``delta(epsilon) = sum_{l > epsilon} p(l) (1 - e^{epsilon - l})`` of the same
    grid law as :func:`two_point_epsilon` (an upper bound on the exact delta)."""
    interval, _ = two_point_grid(levels)
    losses, probabilities = _composed_law(levels, interval)
    above = losses > epsilon
    return float(np.sum(probabilities[above] * -np.expm1(epsilon - losses[above])))
