"""The vectorised exact samplers (dpnn.exact_noise) and the mechanisms built on them.

Laws are checked value by value with binomial tests whose false-failure rate is
below 1e-6 each (|z| <= 5.33 standard deviations), at pinned seeds; the decisions
of the float estimates are checked one for one against the interval arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpnn import exact_noise, mechanisms

Z = 5.33


def _binomial_ok(hits, n, p):
    return abs(hits - n * p) <= Z * math.sqrt(n * p * (1 - p))


def test_estimated_coins_equal_the_interval_arithmetic_one_for_one(monkeypatch):
    # The same uniforms decided twice: by the float estimates with their margin, and
    # with a margin of 1 (every coin through mpmath intervals). Probabilities next to
    # each other, near 0 and 1 and at p = 2^-k, so that uniforms fall near them.
    p = np.array([0.5, 1e-12, 1 - 1e-12, 2.0**-20, 0.3, 0.7] * 400)

    def share(i, iv):
        return iv.mpf(float(p[i]))

    def draw(margin):
        monkeypatch.setattr(exact_noise, "MARGIN", margin)
        rng = np.random.default_rng(41)
        return exact_noise.bernoulli_estimated(p, share, rng), rng.bit_generator.state

    fast, fast_state = draw(2.0**-40)
    slow, slow_state = draw(1.0)
    assert np.array_equal(fast, slow) and fast_state == slow_state
    assert _binomial_ok(fast[::6].sum(), 400, 0.5)


def test_a_coin_the_estimate_cannot_decide_goes_to_the_intervals():
    # An estimate 2^-41 off p (within the margin): a uniform between the two must
    # follow p, not the estimate. p = 1/2 exactly, estimate 1/2 + 2^-41; the uniform
    # 2^61 + 1 is above p: False, although it is below the estimate.
    class Fixed:
        def integers(self, low, high, size):
            return np.full(size, 2**61 + 1, dtype=np.int64)

    out = exact_noise.bernoulli_estimated(
        np.array([0.5 + 2.0**-41]), lambda i, iv: iv.mpf(0.5), Fixed()
    )
    assert not out[0]


@pytest.mark.parametrize("t", [1, 3])
def test_discrete_laplace_law(t):
    n = 60000
    z = exact_noise.discrete_laplace(t, np.random.default_rng(42 + t), n)
    q = math.exp(-1 / t)
    for value in [0, 1, -1, 2, -3, 5]:
        p = (1 - q) / (1 + q) * q ** abs(value)
        assert _binomial_ok(np.sum(z == value), n, p), value


def test_discrete_laplace_law_at_a_large_scale():
    # t = 2^31: Pr[Z >= m] = q^m / (1 + q) with q = e^{-1/t}; at m = t and 3t
    t, n = 2**31, 40000
    z = exact_noise.discrete_laplace(t, np.random.default_rng(45), n)
    q = mpmath.exp(-mpmath.mpf(1) / t)
    for m in (1, t, 3 * t):
        p = float(q**m / (1 + q))
        assert _binomial_ok(np.sum(z >= m), n, p), m


@pytest.mark.parametrize("rate, dimension", [(0.9, 2), (0.7, 1), (1.2, 3)])
def test_lattice_laplace_law(rate, dimension):
    n = 40000
    z = exact_noise.lattice_laplace(rate, dimension, np.random.default_rng(46), n)
    grid = np.arange(-40, 41)
    mesh = np.meshgrid(*[grid] * dimension, indexing="ij")
    weight = np.exp(-rate * np.sqrt(sum(m.astype(float) ** 2 for m in mesh)))
    weight /= weight.sum()
    for point in [(0, 0, 0), (1, 0, 0), (1, 1, 0), (2, -1, 1)]:
        point = point[:dimension]
        hits = np.sum(np.all(z == np.array(point), axis=1))
        p = weight[tuple(40 + c for c in point)]
        assert _binomial_ok(hits, n, p), point


def test_discrete_gaussian_law():
    n, sigma = 60000, 1.5
    z = exact_noise.discrete_gaussian(sigma, np.random.default_rng(47), n)
    support = np.arange(-30, 31)
    law = np.exp(-(support**2) / (2 * sigma**2))
    law /= law.sum()
    for value in [0, 1, -2, 3, 5]:
        assert _binomial_ok(np.sum(z == value), n, law[30 + value]), value


def test_float_estimates_are_within_2_to_the_minus_44_where_trusted():
    # The error bounds the docstrings prove, checked at their extremes with mpmath:
    # the lattice acceptance up to A = c ||z|| = 32 and the Gaussian's up to |w| = 8.
    mpmath.mp.prec = 200
    worst = 0.0
    c, t = 2.0**-30, math.ceil(math.sqrt(2) * 2**30)
    for a1, a2 in [(2**35 - 3, 7), (2**34 + 11, 2**34 - 5), (12345, 2**35)]:
        zf = np.array([a1, a2], dtype=float)
        estimate = math.exp(-max(c * math.hypot(*zf) - zf.sum() / t, 0.0))
        exact = mpmath.exp(-(c * mpmath.sqrt(a1**2 + a2**2) - mpmath.mpf(a1 + a2) / t))
        worst = max(worst, abs(estimate - float(exact)))
    s = 2.0**30 * 1.37
    tg = math.floor(s) + 1
    for y in [0, tg // 3, 9 * tg - 17, tg + 1]:
        w = (abs(y) - s * s / tg) / s
        if abs(w) <= 8:
            exact = mpmath.exp(-((abs(y) - mpmath.mpf(s) ** 2 / tg) ** 2) / (2 * s * s))
            worst = max(worst, abs(math.exp(-0.5 * w * w) - float(exact)))
    assert worst <= 2.0**-44


@pytest.mark.parametrize(
    "sensitivity, epsilon",
    [(1.0, 1.0), (1.0, 0.1), (3.7, 1e-8), (1e-300, 2.0), (5e6, 40.0), (1.0, 1e12)],
)
def test_laplace_grid_gives_epsilon_exactly(sensitivity, epsilon):
    # Values within the sensitivity round to grid points at most sensitivity / lam + 1
    # apart; the loss at every output is that over t, which must not exceed epsilon
    # (in rationals), and one grid point less would (t is the smallest).
    step, t = exact_noise.laplace_grid(sensitivity, epsilon)
    assert step == 2.0 ** math.floor(math.log2(step)) and t <= 2**51
    loss = (Fraction(sensitivity) / Fraction(step) + 1) / t
    assert loss <= Fraction(epsilon)
    if t > 1:
        assert (Fraction(sensitivity) / Fraction(step) + 1) / (t - 1) > epsilon


def test_laplace_releases_grid_points_with_the_discrete_laplace_noise():
    n, epsilon = 40000, 0.5
    out = mechanisms.laplace(np.full(n, 0.3), 1.0, epsilon, np.random.default_rng(48))
    step, t = exact_noise.laplace_grid(1.0, epsilon)
    index = out / step
    assert np.array_equal(index, np.round(index))  # every output a grid point
    noise = index - round(0.3 / step)
    q = mpmath.exp(-mpmath.mpf(1) / t)
    for m in (1, t // 2, 2 * t):
        assert _binomial_ok(np.sum(noise >= m), n, float(q**m / (1 + q))), m
        assert _binomial_ok(np.sum(noise <= -m), n, float(q**m / (1 + q))), m


def test_laplace_of_neighbouring_counts_share_every_output():
    # Mironov's distinguishing event is empty: releases of 0 and of 1 are multiples
    # of the same step, which both inputs reach with positive probability.
    step, _ = exact_noise.laplace_grid(1.0, 1.0)
    for value in (0.0, 1.0):
        out = mechanisms.laplace(
            np.full(500, value), 1.0, 1.0, np.random.default_rng(5)
        )
        assert np.array_equal(out / step, np.round(out / step))


def test_lattice_mechanisms_radius_and_variance():
    # planar Laplace: E||noise|| = 2 / epsilon (sd sqrt(2) / epsilon); Gaussian:
    # the variance of 20000 coordinates within 5.33 of its standard error.
    n, epsilon = 20000, 4.0
    rng = np.random.default_rng(49)
    out = mechanisms.planar_laplace(np.zeros((n, 2)), epsilon, rng)
    radius = np.linalg.norm(out, axis=1)
    assert abs(radius.mean() - 2 / epsilon) <= Z * math.sqrt(2) / epsilon / math.sqrt(n)
    line = mechanisms.laplace_ball(np.zeros(n), epsilon, rng)
    assert abs(np.abs(line).mean() - 1 / epsilon) <= Z / epsilon / math.sqrt(n)
    g = mechanisms.gaussian(np.zeros(n), 3.0, rng)
    assert abs(g.var() - 9.0) <= Z * 9.0 * math.sqrt(2 / n)


def test_values_far_beyond_the_grid_are_rounded_exactly():
    # |value / step| >= 2^52: the integer grid index in Python integers, released
    # as the nearest float to the exact grid point.
    out = mechanisms.laplace(np.array([1e300, -3e10]), 1e-3, 1.0, 0)
    assert np.all(np.isfinite(out)) and out[0] == pytest.approx(1e300, rel=1e-15)
    assert abs(out[1] + 3e10) < 1.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: exact_noise.discrete_laplace(0, 0, 1), "t must be"),
        (lambda: exact_noise.lattice_laplace(0.0, 2, 0, 1), "rate must be"),
        (lambda: exact_noise.discrete_gaussian(0.5, 0, 1), "sigma must be"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("bound", [0.3, 0.3 + 2.0**-31, 2.9, -1.7, 1e-9])
def test_laplace_below_has_the_law_of_comparing_the_release(bound):
    # Pr[laplace(v) < bound] from the discrete Laplace law in mpmath, against the
    # coins, and against the comparison of actual releases (binomial, 2 x 1e-6).
    values, epsilon, n = np.array([0.3, 1.3, -2.0]), 0.7, 20000
    step, t = exact_noise.laplace_grid(1.0, epsilon)
    q = mpmath.exp(-mpmath.mpf(1) / t)
    rng = np.random.default_rng(50)
    below = mechanisms.laplace_below(values, bound, 1.0, epsilon)
    coins = np.array([below.draw(rng) for _ in range(n)])
    released = mechanisms.laplace(np.tile(values, (n, 1)), 1.0, epsilon, rng) < bound
    for j, v in enumerate(values):
        m = math.ceil(Fraction(bound) / Fraction(step)) - round(Fraction(v) / step) - 1
        p = 1 - q ** (m + 1) / (1 + q) if m >= 0 else q ** (-m) / (1 + q)
        assert _binomial_ok(coins[:, j].sum(), n, float(p)), (v, float(p))
        assert _binomial_ok(released[:, j].sum(), n, float(p)), (v, float(p))


def test_laplace_below_cdf_estimate_is_within_the_margin():
    from dpnn.exact_noise import _at_most_estimate

    mpmath.mp.prec = 200
    for t in (1, 7, 2**31 + 5):
        q = mpmath.exp(-mpmath.mpf(1) / t)
        for m in (-3 * t, -t, -1, 0, 1, t, 5 * t, 40 * t):
            exact = 1 - q ** (m + 1) / (1 + q) if m >= 0 else q ** (-m) / (1 + q)
            got = _at_most_estimate(np.array([m]), t)[0]
            assert abs(got - float(exact)) <= 2.0**-50, (t, m)


def test_the_int64_grid_path_equals_the_exact_integers():
    # values 2^52 to 2^60 grid steps from 0: the int64 path (float index, integer sum,
    # one rounding to float) gives the float nearest the exact grid point, as the
    # Python-integer path does
    step = 2.0**-30
    values = np.array([2.0**22 + 3.5, -(2.0**26) - 0.25, 2.0**30 + 1.0, 7.0e8])
    index = exact_noise.to_grid(values, step)
    assert index.dtype == np.int64
    noise = np.array([3, -(2**40) + 1, 2**33 + 7, -5], dtype=np.int64)
    got = exact_noise.from_grid(index, noise, step)
    expected = [
        float((round(Fraction(v) / Fraction(step)) + int(z)) * Fraction(step))
        for v, z in zip(values, noise)
    ]
    assert got.tolist() == expected
