"""Exact draws among many candidates: the exponential mechanism below its float floor.

numpy's Gumbel-max draw of the exponential mechanism samples a candidate of
probability p with probability within a relative ``2^-53 / p`` of p (tests/
test_float_laws.py enumerates the float law on reduced grids), and never once p is
below about e^-40. The functions here keep that draw where every candidate is at
least :data:`dpnn.exact_sampling.TURN_FLOOR` (2^-20) likely and draw the lighter
candidates exactly elsewhere, from mpmath interval bounds of their shares compared
with a uniform read bit by bit (:func:`dpnn.exact_sampling.bernoulli_from_bounds`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpnn.exact_sampling import TURN_FLOOR, bernoulli_from_bounds, interval_bounds

__all__ = [
    "share_of_first",
    "categorical_log",
    "light_sides",
    "spawned",
    "gumbel_beyond_floor",
]


def share_of_first(first, second, rng) -> bool:
    """True with probability ``W_1 / (W_1 + W_2)``, exactly, where ``W_i`` sums
    ``e^w`` over the floats ``w`` of ``first`` and ``second`` (``-inf`` adds 0).

    The share is held in mpmath intervals and compared with a uniform read bit by
    bit (:func:`_bernoulli_bounds`).
    """
    first = [float(w) for w in np.ravel(first) if w > -np.inf]
    second = [float(w) for w in np.ravel(second) if w > -np.inf]
    if not first or not second:
        if not first and not second:
            raise ValueError("first and second must not both be empty or -inf")
        return bool(first)
    share = _share_function(first, second)
    return bool(bernoulli_from_bounds(interval_bounds(share), rng, 1)[0])


#: Absolute margin around the float CDF in :func:`categorical_log` (plus n 1e-15).
_CDF_MARGIN = 1e-12


def categorical_log(log_weights, rng) -> int:
    """One index drawn with probability ``e^{w_i} / sum_j e^{w_j}``, exactly, for
    floats ``w`` that are finite or ``-inf`` (never drawn), not all ``-inf``.

    Inverse CDF of a uniform read 62 bits at a time: the float cumulative shares
    decide when the uniform is farther than their error bound (``1e-12 + n
    1e-15``, far above the float error) from every share; otherwise the shares
    are taken in mpmath intervals and the uniform gets more bits until one
    interval of the CDF holds it surely. O(n) floats per draw.
    """
    from mpmath import iv
    from mpmath.libmp import to_rational

    weights = np.asarray(log_weights, dtype=float)
    if weights.ndim != 1 or not np.any(np.isfinite(weights)):
        raise ValueError("log_weights must be a 1-D array with a finite entry")
    if np.any(np.isnan(weights)) or np.any(weights == np.inf):
        raise ValueError("log_weights must be finite or -inf")
    top = float(weights.max())
    cumulative = np.cumsum(np.exp(weights - top))
    cumulative /= cumulative[-1]
    margin = _CDF_MARGIN + weights.size * 1e-15
    u = int(rng.integers(0, 2**62))
    index = int(np.searchsorted(cumulative, u / 2.0**62, side="right"))
    below = cumulative[index - 1] if index else 0.0
    if (
        index < weights.size
        and below + margin <= u / 2.0**62
        and (u + 1) / 2.0**62 <= cumulative[index] - margin
    ):
        return index
    finite = [(i, float(w)) for i, w in enumerate(weights) if w > -np.inf]
    bits = 62
    while True:
        saved, iv.prec = iv.prec, bits + 64
        try:
            sums, total = [], iv.mpf(0)
            for _, w in finite:
                total = total + iv.exp(iv.mpf(w) - top)
                sums.append(total)
            bounds = [(s / total)._mpi_ for s in sums]
        finally:
            iv.prec = saved
        previous_high = 0
        for (i, _), (low, high) in zip(finite, bounds):
            low, high = Fraction(*to_rational(low)), Fraction(*to_rational(high))
            # U in [u, u + 1) / 2^bits lies surely in [previous, this share)
            if previous_high * 2**bits <= u and u + 1 <= low * 2**bits:
                return i
            previous_high = high
        u = u * 2**62 + int(rng.integers(0, 2**62))
        bits += 62


def spawned(rng):
    """A child generator of ``rng`` that leaves ``rng``'s own draws unchanged."""
    try:
        return rng.spawn(1)[0]
    except (TypeError, AttributeError, ValueError):  # no seed sequence to spawn from
        return rng


def gumbel_beyond_floor(scores, noisy, rng):
    """``noisy`` (``scores`` plus float Gumbel noise, same shape, 1-D or 2-D rows)
    with each row's argmax drawn exactly where a candidate is below the floor.

    In a row where every candidate's probability (``softmax(scores)``) is at least
    :data:`dpnn.exact_sampling.TURN_FLOOR`, nothing changes. In another, the light
    candidates (below the floor) together are chosen with exactly their total
    probability (a 62-bit uniform against a float enclosure of it, refined in
    mpmath intervals when undecided) and then one of them exactly
    (:func:`categorical_log`): the returned row is 0 there and -inf elsewhere;
    otherwise the light entries are set to -inf, so the Gumbel draw decides among
    the heavy ones. The exact draws come from a child of ``rng`` (``rng.spawn``),
    so ``rng``'s own stream is that of the float sampler.
    """
    from scipy.special import softmax

    rows = np.atleast_2d(np.asarray(scores, dtype=float))
    light = softmax(rows, axis=-1) < TURN_FLOOR
    if not light.any():
        return noisy
    out = np.atleast_2d(np.array(noisy, dtype=float))
    out[light] = -np.inf
    exact = spawned(rng)
    chosen = _light_side(rows, light, exact)
    for row in chosen:
        scores_row, light_row = rows[row], light[row]
        pick = np.flatnonzero(light_row)[categorical_log(scores_row[light_row], exact)]
        out[row] = -np.inf
        out[row, pick] = 0.0
    return out.reshape(np.shape(noisy))


#: Relative margin around a float share in :func:`_light_side` (its float error is
#: below 1e-12: rounded differences of scores under 745, exponentials, sums).
_SHARE_MARGIN = 1e-9


def _light_side(rows, light, rng) -> np.ndarray:
    """The rows (with a light candidate) whose light side is drawn, each with
    probability exactly ``W_light / W_row`` (sums of ``e^score``), by
    :func:`light_sides`."""
    candidates = np.flatnonzero(light.any(axis=-1))
    shifted = np.exp(rows[candidates] - rows[candidates].max(axis=-1, keepdims=True))
    weight_light = np.where(light[candidates], shifted, 0.0).sum(axis=-1)

    def sides(i):
        row, mask = rows[candidates[i]], light[candidates[i]]
        return row[mask], row[~mask]

    return candidates[light_sides(weight_light / shifted.sum(axis=-1), sides, rng)]


def light_sides(shares, sides, rng) -> np.ndarray:
    """For each float ``shares[i]`` of ``W_first / (W_first + W_second)`` (sums of
    ``e^w`` over the scores ``sides(i)`` returns), True with exactly that ratio.

    One 62-bit uniform per entry is compared with a float enclosure of the share
    (times ``1 -+ 1e-9``, widened by one unit of 2^-62, which covers the float
    error: below 1e-12 relative, and subnormal terms); an entry it cannot decide
    continues with the same uniform against mpmath intervals.
    """
    shares = np.asarray(shares, dtype=float)
    low = np.floor(shares * (1 - _SHARE_MARGIN) * 2.0**62).astype(np.int64) - 1
    high = np.ceil(shares * (1 + _SHARE_MARGIN) * 2.0**62).astype(np.int64) + 1
    u = rng.integers(0, 2**62, size=shares.size)
    yes = u + 1 <= low
    for i in np.flatnonzero(~yes & (u < high)):
        first, second = sides(i)
        share = _share_function(
            [float(w) for w in first if w > -np.inf],
            [float(w) for w in second if w > -np.inf],
        )
        yes[i] = bernoulli_from_bounds(interval_bounds(share), rng, 1, prefix=[u[i]])[0]
    return yes


def _share_function(first, second):
    """``share(iv)``: the interval of ``W_first / (W_first + W_second)``."""
    top = max(first + second)  # e^{w - top} <= 1 (in intervals: no overflow)

    def share(iv):
        a = sum(iv.exp(iv.mpf(w) - top) for w in first)
        return a / (a + sum(iv.exp(iv.mpf(w) - top) for w in second))

    return share
