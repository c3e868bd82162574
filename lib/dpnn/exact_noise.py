"""Noise with an exact law, vectorised: the samplers behind the Laplace, planar
Laplace and Gaussian mechanisms.

Each mechanism rounds its input to a grid ``lam Z^d`` (``lam`` a power of two) and
adds ``lam Z`` with Z an integer vector of exactly the stated law:

- :func:`discrete_laplace`: ``Pr[z] ~ e^{-|z| / t}`` for an integer t (Canonne,
  Kamath and Steinke 2020, Alg. 2 with a denominator of 1);
- :func:`lattice_laplace`: ``Pr[z] ~ e^{-c ||z||_2}`` on Z^d, by rejection from d
  discrete Laplace coordinates of scale t with ``t c >= sqrt(d)``;
- :func:`discrete_gaussian`: ``Pr[z] ~ e^{-z^2 / (2 sigma^2)}`` (the same paper,
  Alg. 3).

Every coin of these constructions is a Bernoulli(p) with p = e^-a for a real a >=
0. :func:`bernoulli_estimated` draws it exactly: a uniform U of 62 bits is compared
with a float estimate of p that is within 2^-44 of p; U further than
:data:`MARGIN` = 2^-40 from the estimate is certainly on the same side of p, and
one within it (probability below 2^-38) is compared with p itself by rigorous
interval arithmetic, reading more bits of U as needed
(:func:`dpnn.exact_sampling.bernoulli_from_bounds`). So ``Pr[True] = p`` exactly;
each caller bounds the float error of its estimate and sends every entry whose
bound it cannot vouch for to the interval arithmetic. The laws are the same as
those of the one-at-a-time samplers of :mod:`dpnn.exact_sampling`; these draw
whole arrays per round of rejection (about a microsecond per value).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from dpnn._validation import positive_finite
from dpnn.exact_sampling import bernoulli_from_bounds, interval_bounds

__all__ = [
    "MARGIN",
    "bernoulli_estimated",
    "EstimatedCoins",
    "discrete_gaussian",
    "discrete_laplace",
    "discrete_laplace_at_most",
    "laplace_grid",
    "from_grid",
    "lattice_laplace",
    "to_grid",
]

#: Distance from the float estimate of p beyond which a uniform is decided by it.
MARGIN = 2.0**-40
#: Largest integer scale whose ratios U / t are floats within 2^-53 (relative).
_LARGEST_SCALE = 2**52
_UNIT = 2**62


def bernoulli_estimated(estimate, share, rng, trusted=None) -> np.ndarray:
    """True with probability ``p[i]`` per entry, exactly, from float estimates.

    ``estimate[i]`` must be within 2^-44 of ``p[i]`` wherever ``trusted[i]`` (all
    entries by default); ``share(i, iv)`` is p[i] as an mpmath interval
    computation. A uniform u of 62 bits answers True when ``u + 1 <=
    (estimate - MARGIN) 2^62`` (then U < p surely: the float rounding of that
    bound is below 2^10 units, the margin is 2^22) and False when ``u >=
    (estimate + MARGIN) 2^62``; otherwise, and for untrusted entries, U is
    compared with p by :func:`bernoulli_from_bounds` from its first 62 bits on.
    """
    return EstimatedCoins(estimate, share, trusted).draw(rng)


class EstimatedCoins:
    """Coins of fixed probabilities ``p[i]``, drawn as :func:`bernoulli_estimated`
    draws them, with the thresholds computed once: for the sparse vector
    technique, which tosses the same coins pass after pass."""

    def __init__(self, estimate, share, trusted=None):
        estimate = np.asarray(estimate, dtype=float)
        self.share = share
        self.low = np.floor(np.clip(estimate - MARGIN, 0.0, 1.0) * float(_UNIT))
        self.low = self.low.astype(np.int64)
        self.high = np.ceil(np.clip(estimate + MARGIN, 0.0, 1.0) * float(_UNIT))
        self.high = self.high.astype(np.int64)
        if trusted is not None:  # never decided by the estimate
            untrusted = ~np.asarray(trusted, dtype=bool)
            self.low[untrusted], self.high[untrusted] = 0, _UNIT

    def draw(self, rng, start: int = 0, stop: int | None = None) -> np.ndarray:
        """One toss of the coins ``start:stop``, exactly."""
        low, high = self.low[start:stop], self.high[start:stop]
        u = rng.integers(0, _UNIT, size=low.size)
        out = u < low  # u + 1 <= low
        for i in np.flatnonzero(~out & (u < high)):
            bounds = interval_bounds(lambda iv, i=i: self.share(start + i, iv))
            out[i] = bernoulli_from_bounds(bounds, rng, 1, prefix=[u[i]])[0]
        return out


def _bernoulli_exp_ratio(numerator, t: int, rng) -> np.ndarray:
    """Bernoulli(e^{-numerator / t}) per entry, ``0 <= numerator < t <= 2^52``.

    The float quotient is within 2^-53 of numerator / t and numpy's exp adds at
    most a few units of 2^-53 on [e^-1, 1]: within 2^-44 of p.
    """
    a = numerator.astype(float) / float(t)
    return bernoulli_estimated(
        np.exp(-a),
        lambda i, iv: iv.exp(-iv.mpf(int(numerator[i])) / iv.mpf(t)),
        rng,
    )


#: Thresholds e^-1, ..., e^-J that :func:`_geometric_exp` compares one uniform with.
_GEOMETRIC_LEVELS = 44


def _geometric_exp(size: int, rng) -> np.ndarray:
    """V with ``Pr[V >= v] = e^{-v}``, exactly: the number of levels j >= 1 with
    ``U < e^{-j}`` for one uniform U per entry (inverse CDF).

    U's first 62 bits are compared with float estimates of e^-1, ..., e^-44 (each
    within 2^-52 of its value) as in :func:`bernoulli_estimated`; an entry that some
    level cannot decide (U within :data:`MARGIN` of a level, or below 2^-39) goes
    to :func:`_geometric_from_bits`, which reads more bits of U.
    """
    u = rng.integers(0, _UNIT, size=size)
    levels = np.exp(-np.arange(1.0, _GEOMETRIC_LEVELS + 1))
    low = np.floor(np.clip(levels - MARGIN, 0.0, 1.0) * float(_UNIT)).astype(np.int64)
    high = np.ceil((levels + MARGIN) * float(_UNIT)).astype(np.int64)
    # levels decrease, so "U < e^-j surely" holds for a prefix of j, "U >= e^-j
    # surely" for a suffix: count both by bisection
    count = _GEOMETRIC_LEVELS - np.searchsorted(low[::-1], u, side="right")
    above = np.searchsorted(high[::-1], u, side="right")
    for i in np.flatnonzero(count + above != _GEOMETRIC_LEVELS):
        count[i] = _geometric_from_bits(int(u[i]), rng)
    return count


def _geometric_from_bits(prefix: int, rng) -> int:
    """The number of j >= 1 with U < e^{-j}, for the uniform U whose first 62 bits
    are ``prefix``, reading 62 more bits until every level is decided (mpmath
    intervals for e^-j, 64 bits finer than U)."""
    from mpmath import iv

    u, bits = prefix, 62
    while True:
        saved, iv.prec = iv.prec, bits + 64
        try:
            j = 1
            while True:
                lo, hi = (_rational_endpoint(x) for x in iv.exp(-iv.mpf(j))._mpi_)
                if u + 1 <= math.floor(lo * 2**bits):
                    j += 1  # U < e^-j surely
                elif u >= math.ceil(hi * 2**bits):
                    return j - 1  # U >= e^-j surely
                else:
                    break  # undecided: more bits
        finally:
            iv.prec = saved
        u = u * _UNIT + int(rng.integers(0, _UNIT))
        bits += 62


def _rational_endpoint(raw) -> Fraction:
    from mpmath.libmp import to_rational

    return Fraction(*to_rational(raw))


def _first_accepted(draw, size: int, rate: float) -> np.ndarray:
    """The first ``size`` accepted candidates of ``draw(m) -> (values, accepted)``,
    in order: i.i.d. draws of the accepted law. Candidates come in batches of
    about ``size / rate``, so a call makes one or two passes."""
    parts, found = [], 0
    while found < size:
        values, accepted = draw(int((size - found) / rate * 1.1) + 8)
        parts.append(values[accepted])
        found += int(accepted.sum())
    if not parts:
        return np.zeros((0,), dtype=np.int64)
    return np.concatenate(parts)[:size]


def discrete_laplace(t, rng, size: int) -> np.ndarray:
    """``size`` int64 values with ``Pr[z] = (1 - e^{-1/t}) / (1 + e^{-1/t})
    e^{-|z| / t}``, exactly, for an integer ``1 <= t <= 2^52``.

    CKS 2020, Alg. 2: U uniform on {0..t-1} kept with probability e^{-U/t}, plus
    t times V (:func:`_geometric_exp`), has ``Pr[X = x] ~ e^{-x / t}`` on the
    non-negative integers; a fair sign, rejecting "-0". Candidates are drawn in
    batches and the first ``size`` accepted ones returned.
    """
    t = int(t)
    if not 1 <= t <= _LARGEST_SCALE:
        raise ValueError(f"t must be an integer in [1, 2^52], got {t}")

    def draw(m):
        u = rng.integers(0, t, size=m)
        kept = _bernoulli_exp_ratio(u, t, rng)
        v = _geometric_exp(m, rng)
        if np.any(v > (2**62) // t):  # |Z| >= 2^62: probability e^{-2^10} at most
            raise OverflowError("a discrete Laplace value beyond 2^62")
        x = u + t * v
        negative = rng.integers(0, 2, size=m).astype(bool)
        return np.where(negative, -x, x), kept & ~(negative & (x == 0))

    return _first_accepted(draw, size, 0.55)


def discrete_laplace_at_most(m, t: int) -> EstimatedCoins:
    """Coins ``Z <= m[i]`` for Z discrete Laplace of scale t, to be tossed without
    drawing Z: ``Pr[Z <= m] = 1 - q^{m+1} / (1 + q)`` for m >= 0 and ``q^{-m} /
    (1 + q)`` below, ``q = e^{-1/t}`` (the tail sums of the law); the float
    estimate errs by a few units of 2^-53.
    """
    return EstimatedCoins(
        _at_most_estimate(m, t), lambda i, iv: _at_most(int(m[i]), t, iv)
    )


def _at_most_estimate(m, t: int) -> np.ndarray:
    """Float ``Pr[Z <= m]`` (see :func:`discrete_laplace_at_most`)."""
    m = np.clip(np.asarray(m).astype(float), -(2.0**60), 2.0**60)
    q = math.exp(-1.0 / t)
    upper = np.exp(-(np.abs(m + 0.5) + 0.5) / t) / (1 + q)  # q^{m+1} or q^{-m}
    return np.where(m >= 0, 1 - upper, upper)


def _at_most(m: int, t: int, iv):
    """``Pr[Z <= m]`` as an mpmath interval (see :func:`discrete_laplace_at_most`)."""
    q = iv.exp(-1 / iv.mpf(t))
    if m >= 0:
        return 1 - iv.exp(-iv.mpf(m + 1) / t) / (1 + q)
    return iv.exp(-iv.mpf(-m) / t) / (1 + q)


def laplace_grid(sensitivity, epsilon) -> tuple[float, int]:
    """``(lam, t)`` of :func:`dpnn.mechanisms.laplace`: the grid step, the power of
    two at or below ``sensitivity 2^-30`` (doubled while t would pass 2^51), and
    the integer noise scale ``t = ceil((sensitivity / lam + 1) / epsilon)``, the
    smallest for which two values within ``sensitivity`` give laws within
    ``e^epsilon`` of each other on the grid."""
    return _laplace_grid(
        positive_finite(sensitivity, "sensitivity"), positive_finite(epsilon, "epsilon")
    )


@functools.lru_cache(maxsize=4096)
def _laplace_grid(sensitivity: float, epsilon: float) -> tuple[float, int]:
    step = max(2.0 ** (math.floor(math.log2(sensitivity)) - 30), 2.0**-1074)
    while True:
        t = math.ceil((Fraction(sensitivity) / Fraction(step) + 1) / Fraction(epsilon))
        if t <= 2**51:
            return step, t
        step *= 2.0


def lattice_laplace(rate, dimension: int, rng, size: int) -> np.ndarray:
    """``size`` points of Z^d (int64, shape ``(size, d)``) with ``Pr[z] ~ e^{-c
    ||z||_2}``, exactly, for a float ``rate`` c > 0 with ``sqrt(d) / c <= 2^52``.

    Proposal: d independent discrete Laplace coordinates of the integer scale
    ``t = ceil(sqrt(d) / c)`` (so ``t c >= sqrt(d)``, checked in rationals, and
    ``e^{-c ||z||_2} <= e^{-||z||_1 / t}`` by Cauchy-Schwarz); kept with
    probability ``e^{-a}``, ``a = c ||z||_2 - ||z||_1 / t``. The float estimate of
    a errs by at most 8 A 2^-53 where ``A = c ||z||_2`` (squares, sum, root,
    product and quotient each rounded once): within 2^-45 while A <= 32, and
    entries with a larger A (probability below 1e-8) are decided by the interval
    arithmetic.
    """
    c = float(rate)
    d = int(dimension)
    if not c > 0 or not math.isfinite(c):
        raise ValueError(f"rate must be a positive finite float, got {rate!r}")
    t = math.ceil(math.sqrt(d) / c)
    while Fraction(t) ** 2 * Fraction(c) ** 2 < d:
        t += 1
    if t > _LARGEST_SCALE:
        raise ValueError(f"rate must be at least sqrt(d) / 2^52, got {c!r}")

    def draw(m):
        z = discrete_laplace(t, rng, m * d).reshape(m, d)
        zf = z.astype(float)
        big = c * np.sqrt(np.sum(zf * zf, axis=1))
        small = np.sum(np.abs(zf), axis=1) / float(t)
        estimate = np.exp(-np.maximum(big - small, 0.0))

        def share(i, iv):
            norm = iv.sqrt(iv.mpf(int(np.sum(z[i].astype(object) ** 2))))
            l1 = iv.mpf(int(np.sum(np.abs(z[i]).astype(object))))
            return iv.exp(-(iv.mpf(c) * norm - l1 / iv.mpf(t)))

        return z, bernoulli_estimated(estimate, share, rng, trusted=big <= 32.0)

    out = _first_accepted(draw, size, 0.75 ** (d - 1))
    return out.reshape(size, d)


def discrete_gaussian(sigma, rng, size: int) -> np.ndarray:
    """``size`` int64 values with ``Pr[z] ~ e^{-z^2 / (2 sigma^2)}``, exactly, for a
    float ``1 <= sigma <= 2^51``.

    CKS 2020, Alg. 3: ``t = floor(sigma) + 1``; a discrete Laplace Y of scale t
    is kept with probability ``e^{-w^2 / 2}``, ``w = (|Y| - sigma^2 / t) /
    sigma``. The float w errs by at most 3 2^-53 + 2^-52 |w| (sigma^2 / t is
    near sigma; each operation is rounded once), so a = w^2 / 2 within 2^-45
    while |w| <= 8; larger |w| (probability about 1e-4) are decided by the
    interval arithmetic.
    """
    s = float(sigma)
    if not 1.0 <= s <= 2.0**51:
        raise ValueError(f"sigma must be in [1, 2^51], got {sigma!r}")
    t = math.floor(s) + 1

    def draw(m):
        y = discrete_laplace(t, rng, m)
        w = (np.abs(y).astype(float) - s * s / t) / s
        estimate = np.exp(-0.5 * w * w)

        def share(i, iv):
            sig = iv.mpf(s)
            gap = iv.mpf(abs(int(y[i]))) - sig * sig / iv.mpf(t)
            return iv.exp(-(gap * gap) / (2 * sig * sig))

        return y, bernoulli_estimated(estimate, share, rng, trusted=np.abs(w) <= 8.0)

    return _first_accepted(draw, size, 0.6)


def to_grid(values, step: float) -> np.ndarray:
    """The nearest multiple of ``step`` (a power of two) to each value, as integers:
    int64 where every ``|value / step| < 2^61`` (a float that large is already an
    integer, so the conversion is exact), else exact Python integers."""
    values = np.asarray(values, dtype=float)
    with np.errstate(over="ignore"):
        scaled = values / step  # exact: step is a power of two
    if np.all(np.abs(scaled) < 2.0**61):
        return np.rint(scaled).astype(np.int64)
    exact = [round(Fraction(v) / Fraction(step)) for v in values.ravel()]
    return np.array(exact, dtype=object).reshape(values.shape)


def from_grid(index, noise, step: float) -> np.ndarray:
    """``float(index + noise) * step``: the grid point ``index + noise``, an exact
    integer, rounded to the nearest float (post-processing of that integer)."""
    if index.dtype == object or np.any(np.abs(index) >= 2**61):
        total = index.astype(object) + noise.astype(object)
        flat = [float(Fraction(int(k)) * Fraction(step)) for k in total.ravel()]
        return np.array(flat).reshape(total.shape)
    return (index + noise).astype(float) * step
