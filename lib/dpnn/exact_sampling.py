"""Samplers whose law is exact: integer arithmetic on a seeded numpy generator.

A float sampler compares a uniform on the grid ``{k 2^-53}`` with a rounded
probability, so it realises a law that differs from the one its docstring states,
and a probability below 2^-53 becomes 0: a ratio of e^epsilon can become infinite
(:mod:`dpnn.float_laws` computes those laws). The samplers here draw only uniform
integers (``Generator.integers`` rejects, so each integer in its range has exactly
the same probability) and compare integers, so their laws are exactly the stated
ones for the floats they are given (a float is a rational number):

- :func:`bernoulli_exp`: ``Pr[True] = e^-gamma`` (Canonne, Kamath and Steinke 2020,
  Alg. 1: Bernoulli(e^-gamma) from Bernoulli(gamma / K) draws, proved there);
- :func:`weighted_pair`: ``Pr[first] = a / (a + b e^-gamma)`` for rational a, b:
  a uniform read bit by bit until it is surely below or above an interval that
  holds the probability (rigorous interval arithmetic);
- :func:`categorical`: an index with probability proportional to integer weights;
- :func:`discrete_laplace`: ``Pr[z] ~ e^{-|z| / t}`` on the integers for rational
  ``t`` (Canonne, Kamath and Steinke 2020, Alg. 2);
- :func:`discrete_gaussian`: ``Pr[z] ~ e^{-z^2 / (2 sigma^2)}`` on the integers for
  rational ``sigma`` (the same paper, Alg. 3);
- :func:`discrete_planar_laplace`: ``Pr[z] ~ e^{-c ||z||_2}`` on the integer
  lattice Z^2 for rational ``c``;
- :func:`turns_beyond_floor`: DP-TT's turns, a float comparison where both
  outcomes are at least 2^-20 likely and :func:`weighted_pair` elsewhere
  (:mod:`dpnn.exact_choice` does the same for the exponential mechanism's
  Gumbel-max draw).

Every function takes ``rng`` (a ``numpy.random.Generator``); the same seed gives the
same output. They are slower than the float samplers (Python loops over rounds of
rejection) and are used where the float law breaks its promise.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpnn._validation import finite_array, generator, positive_finite

__all__ = [
    "TURN_FLOOR",
    "TURN_Z_FLOOR",
    "turns_beyond_floor",
    "bernoulli_exp",
    "bernoulli_from_bounds",
    "interval_bounds",
    "weighted_pair",
    "categorical",
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_planar_laplace",
]

#: Largest integer bound drawn with ``Generator.integers`` (int64); above, bytes.
_INT64 = 2**63 - 1


def _below(rng, bound: int, size: int) -> np.ndarray:
    """``size`` uniform integers in [0, bound) (an object array if bound > 2^63 - 1)."""
    if bound <= _INT64:
        return rng.integers(0, bound, size=size)
    nbytes = (bound.bit_length() + 7) // 8
    out = np.empty(size, dtype=object)
    for i in range(size):
        while True:  # rejection: exactly uniform on [0, bound)
            value = int.from_bytes(rng.bytes(nbytes), "little")
            value >>= 8 * nbytes - bound.bit_length()
            if value < bound:
                out[i] = value
                break
    return out


def _bernoulli_ratio(numerator, denominator: int, rng) -> np.ndarray:
    """``Pr[True] = numerator[i] / denominator`` for each entry (integers)."""
    numerator = np.asarray(numerator, dtype=object)
    return np.asarray(_below(rng, denominator, numerator.size) < numerator, dtype=bool)


def _bernoulli_exp_fraction(gamma: Fraction, rng, size: int) -> np.ndarray:
    """``size`` draws of Bernoulli(e^-gamma) for one rational gamma in [0, 1]."""
    out = np.zeros(size, dtype=bool)
    active = np.arange(size)
    k = 1
    # CKS Alg. 1: K = 1, 2, ... while Bernoulli(gamma / K) succeeds; True iff K odd
    while active.size:
        success = _bernoulli_ratio(
            np.full(active.size, gamma.numerator, dtype=object),
            gamma.denominator * k,
            rng,
        )
        out[active[~success]] = k % 2 == 1
        active = active[success]
        k += 1
    return out


def bernoulli_exp(gamma, rng, size: int = 1) -> np.ndarray:
    """``size`` independent draws of Bernoulli(e^-gamma), exactly, for a float gamma.

    e^-gamma = (e^-1)^floor(gamma) e^-(gamma - floor(gamma)): one Bernoulli(e^-1)
    per unit of gamma (stopping at the first failure) and one for the fractional
    part, each by :func:`_bernoulli_exp_fraction` (CKS Alg. 1).
    """
    gamma = Fraction(float(gamma))
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {float(gamma)!r}")
    return _bernoulli_exp_rational(gamma, rng, size)


def _bernoulli_exp_rational(gamma: Fraction, rng, size: int = 1) -> np.ndarray:
    """Bernoulli(e^-gamma) for a rational gamma >= 0 (see :func:`bernoulli_exp`)."""
    whole = math.floor(gamma)
    out = _bernoulli_exp_fraction(gamma - whole, rng, size)
    active = np.flatnonzero(out)
    for _ in range(whole):
        if not active.size:
            break
        keep = _bernoulli_exp_fraction(Fraction(1), rng, active.size)
        out[active[~keep]] = False
        active = active[keep]
    return out


def _rational(raw) -> Fraction:
    """An mpmath endpoint (a raw mpf tuple) as the exact rational it is."""
    from mpmath.libmp import to_rational

    return Fraction(*to_rational(raw))


def bernoulli_from_bounds(bounds, rng, size: int, prefix=None) -> np.ndarray:
    """``size`` draws of True with probability p, exactly, where ``bounds(precision)``
    returns rationals ``low <= p <= high`` that close in as ``precision`` (bits) grows.

    A uniform U in [0, 1) is read 62 bits at a time: True once U is certainly
    below p, False once certainly above; U falls in neither with probability below
    2^-61 per round (the bounds are asked for 64 bits more than U has), and then it
    gets 62 more bits. So ``Pr[True]`` is exactly p. ``prefix`` (integers below
    2^62, one per draw) are the uniforms' first 62 bits when already drawn.
    """
    out = np.zeros(size, dtype=bool)
    undecided = np.arange(size)
    uniform = np.zeros(size, dtype=object)
    bits = 0
    while undecided.size:
        if prefix is not None and bits == 0:
            fresh = np.asarray(prefix, dtype=np.int64)
        else:
            fresh = rng.integers(0, 2**62, size=undecided.size)
        bits += 62
        uniform[undecided] = uniform[undecided] * 2**62 + fresh.astype(object)
        low, high = bounds(bits + 64)
        below = math.floor(low * 2**bits)  # U < p surely if (u + 1) / 2^bits <= low
        above = math.ceil(high * 2**bits)  # U >= p surely if u / 2^bits >= high
        u = uniform[undecided]
        yes, no = u + 1 <= below, u >= above
        out[undecided[yes.astype(bool)]] = True
        undecided = undecided[~(yes | no).astype(bool)]
    return out


def interval_bounds(share):
    """``bounds(precision)`` for :func:`bernoulli_from_bounds` from ``share(iv)``, an
    mpmath interval computation of p (endpoints rounded outwards, so they hold p)."""
    from mpmath import iv

    def bounds(precision):
        saved, iv.prec = iv.prec, precision  # mpmath's interval context, restored
        try:
            low, high = share(iv)._mpi_
        finally:
            iv.prec = saved
        return _rational(low), _rational(high)

    return bounds


def weighted_pair(a, b, gamma, rng, size: int = 1) -> np.ndarray:
    """``size`` draws of True with probability ``p = a / (a + b e^-gamma)``, exactly.

    ``a`` and ``b`` are non-negative rationals (floats or Fractions, not both 0),
    ``gamma`` a float >= 0 or infinity. p is held in an mpmath interval (rigorous
    interval arithmetic) and compared with a uniform read bit by bit
    (:func:`bernoulli_from_bounds`), so ``Pr[True]`` is exactly p, whatever p is,
    e.g. 1 - 1e-300.
    """
    a, b = Fraction(a), Fraction(b)
    if a < 0 or b < 0 or a + b == 0:
        raise ValueError(f"a and b must be >= 0 and not both 0, got {a}, {b}")
    gamma = float(gamma)
    if not gamma >= 0:
        raise ValueError(f"gamma must be >= 0, got {gamma!r}")
    if b == 0 or gamma == math.inf:
        return np.ones(size, dtype=bool) if a > 0 else np.zeros(size, dtype=bool)

    def share(iv):
        first = iv.mpf(a.numerator) / iv.mpf(a.denominator)
        second = iv.mpf(b.numerator) / iv.mpf(b.denominator) * iv.exp(-iv.mpf(gamma))
        return first / (first + second)

    return bernoulli_from_bounds(interval_bounds(share), rng, size)


def categorical(weights, rng, size: int = 1) -> np.ndarray:
    """``size`` indices drawn with probability ``weights[i] / sum(weights)``, exactly.

    ``weights`` are non-negative Python integers (any size), not all 0.
    """
    weights = [int(w) for w in weights]
    if any(w < 0 for w in weights) or not any(weights):
        raise ValueError("weights must be non-negative integers, not all 0")
    cumulative = np.cumsum(np.array(weights, dtype=object))
    draw = _below(rng, int(cumulative[-1]), size)
    return np.searchsorted(cumulative.astype(object), draw, side="right").astype(
        np.intp
    )


def discrete_laplace(scale, rng, size: int = 1) -> np.ndarray:
    """``size`` integers with ``Pr[z] = (1 - e^{-1/t}) / (1 + e^{-1/t}) e^{-|z| / t}``.

    ``scale`` t > 0 is a rational (float or Fraction); CKS 2020, Alg. 2 with
    t = s_num / s_den: U uniform on {0..s_num - 1} kept with probability
    e^{-U / s_num}, plus s_num times a geometric count of Bernoulli(e^-1)
    successes, gives X with Pr[X = x] ~ e^{-x / s_num}; Y = floor(X / s_den) then
    has Pr[Y = y] ~ e^{-y s_den / s_num}; a fair sign, rejecting "-0".
    Returns Python integers in an object array.
    """
    t = Fraction(scale)
    if t <= 0:
        raise ValueError(f"scale must be > 0, got {scale!r}")
    s_num, s_den = t.numerator, t.denominator
    out = np.empty(size, dtype=object)
    for i in range(size):
        while True:
            u = int(_below(rng, s_num, 1)[0])
            if not _bernoulli_exp_fraction(Fraction(u, s_num), rng, 1)[0]:
                continue
            v = 0
            while _bernoulli_exp_fraction(Fraction(1), rng, 1)[0]:
                v += 1
            y = (u + s_num * v) // s_den
            negative = bool(rng.integers(0, 2))
            if negative and y == 0:
                continue
            out[i] = -y if negative else y
            break
    return out


def discrete_gaussian(sigma, rng, size: int = 1) -> np.ndarray:
    """``size`` integers with ``Pr[z] ~ e^{-z^2 / (2 sigma^2)}``, exactly.

    ``sigma`` > 0 is a rational (float or Fraction); CKS 2020, Alg. 3: with ``t =
    floor(sigma) + 1``, a discrete Laplace Y of scale t (:func:`discrete_laplace`)
    is kept with probability ``e^{-(|Y| - sigma^2 / t)^2 / (2 sigma^2)}`` (a
    rational exponent, :func:`bernoulli_exp`'s construction), else redrawn.
    Returns Python integers in an object array.
    """
    sigma = Fraction(sigma)
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0, got {float(sigma)!r}")
    variance = sigma * sigma
    t = math.floor(sigma) + 1
    out = np.empty(size, dtype=object)
    for i in range(size):
        while True:
            y = int(discrete_laplace(t, rng, 1)[0])
            gamma = (abs(y) - variance / t) ** 2 / (2 * variance)
            if _bernoulli_exp_rational(gamma, rng, 1)[0]:
                out[i] = y
                break
    return out


def discrete_planar_laplace(rate, rng, size: int = 1) -> np.ndarray:
    """``size`` points of Z^2 with ``Pr[z] ~ e^{-c ||z||_2}``, exactly (``c = rate``,
    a rational > 0; Python integers in an object array of shape (size, 2)).

    Rejection from two independent discrete Laplace coordinates of scale t, a
    rational with ``t c >= sqrt(2)`` (checked in rationals), so that
    ``e^{-c ||z||_2} <= e^{-||z||_1 / t}``; a proposal is kept with probability
    ``e^{-(c ||z||_2 - ||z||_1 / t)}`` (a square root: mpmath intervals against
    a uniform read bit by bit, :func:`bernoulli_from_bounds`). About 4 in 5
    proposals are kept when c is small.
    """
    c = Fraction(rate)
    if c <= 0:
        raise ValueError(f"rate must be > 0, got {float(c)!r}")
    t = Fraction(math.sqrt(2) / float(c))
    while (t * c) ** 2 < 2:
        t *= 1 + Fraction(1, 2**40)
    out = np.empty((size, 2), dtype=object)
    for i in range(size):
        while True:
            z1, z2 = (int(v) for v in discrete_laplace(t, rng, 2))

            def keep(iv, z1=z1, z2=z2):
                norm = iv.sqrt(iv.mpf(z1 * z1 + z2 * z2))
                rate_iv = iv.mpf(c.numerator) / iv.mpf(c.denominator)
                scale = iv.mpf(t.denominator) / iv.mpf(t.numerator)
                return iv.exp(-(rate_iv * norm - (abs(z1) + abs(z2)) * scale))

            if z1 == z2 == 0 or bernoulli_from_bounds(interval_bounds(keep), rng, 1)[0]:
                out[i] = (z1, z2)
                break
    return out


#: Smallest turn probability a float comparison draws (2^-20): its sampled value is
#: then within a factor 1 + 2^-33 of the ideal one.
TURN_FLOOR = 2.0**-20
#: |z| beyond which min(expit(z), expit(-z)) < TURN_FLOOR: those draws are exact.
TURN_Z_FLOOR = float(np.log((1 - TURN_FLOOR) / TURN_FLOOR))


def turns_beyond_floor(z, uniform, rng, skip=None):
    """True with probability ``expit(z)`` per entry: ``uniform < expit(z)`` where
    ``|z| <= 13.86`` (both outcomes at least 2^-20 likely), an exact draw elsewhere.

    Exact: True with probability ``1 / (1 + e^-|z|)`` if z > 0, else its complement
    (:func:`weighted_pair` with a = b = 1, gamma = |z|); an
    infinite z is certain. Entries in the mask ``skip`` draw nothing (their result
    means nothing). The extra draws come after ``uniform`` from the same ``rng``,
    in order of |z| then position: nothing changes where no entry is beyond the
    floor. :func:`_likely_turns` decides them with the same uniforms as
    :func:`weighted_pair` would, without its interval arithmetic in all but
    about one draw in 2^55.
    """
    from scipy.special import expit

    with np.errstate(over="ignore"):
        turns = uniform < expit(z)
    beyond = np.abs(z) > TURN_Z_FLOOR
    if skip is not None:
        beyond &= ~skip
    if not beyond.any():
        return turns
    where = np.flatnonzero(beyond)
    size = np.abs(z[where])
    finite = np.isfinite(size)
    # weighted_pair's order: by |z| (each value once), then by position
    order = np.lexsort((where[finite], size[finite]))
    rows, gamma = where[finite][order], size[finite][order]
    turns[rows] = _likely_turns(gamma, rng) == (z[rows] > 0)
    infinite = where[~finite]
    turns[infinite] = z[infinite] > 0
    return turns


#: Units of 2^-62 by which a uniform must clear the float estimate of a turn's
#: threshold for :func:`_likely_turns` to decide it without interval arithmetic.
_THRESHOLD_MARGIN = 64


def _likely_turns(gamma, rng) -> np.ndarray:
    """``weighted_pair(1, 1, g, rng, k)`` for each run of ``k`` equal values ``g`` of
    the ascending ``gamma`` (every g >= 13.86), concatenated: the same draws and the
    same outcomes, each True with probability ``p = 1 / (1 + e^-g)``, exactly.

    :func:`bernoulli_from_bounds` reads 62 bits u of each uniform and answers True
    when ``u + 1 <= floor(low 2^62)``, False when ``u >= ceil(high 2^62)``, where
    ``low <= p <= high`` hold p to 126 bits; both thresholds lie within 3 of
    ``2^62 - t``, t the float ``(1 - p) 2^62 <= 2^42`` rounded down (its error is
    below 2^-8). So a u more than :data:`_THRESHOLD_MARGIN` below that gets True and
    one as far above gets False, as there. A u in between (probability below
    2^-55) is decided by the interval arithmetic itself: the generator is put back
    and every value drawn by :func:`weighted_pair`, in the same order.
    """
    saved = rng.bit_generator.state
    u = rng.integers(0, 2**62, size=gamma.size)
    tail = np.exp(-gamma)
    tail = np.floor(tail / (1 + tail) * 2.0**62).astype(np.int64)
    threshold = np.int64(2**62) - tail
    yes = u < threshold - _THRESHOLD_MARGIN
    no = u >= threshold + _THRESHOLD_MARGIN
    if np.all(yes | no):
        return yes
    rng.bit_generator.state = saved
    out = np.empty(gamma.size, dtype=bool)
    values, starts = np.unique(gamma, return_index=True)
    for value, start, stop in zip(values, starts, [*starts[1:], gamma.size]):
        out[start:stop] = weighted_pair(1, 1, float(value), rng, stop - start)
    return out
