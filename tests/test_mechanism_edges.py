"""The follow-up's mechanisms, metrics and schedules at huge budgets and odd domains.

Every call answers exactly (checked against an independent computation: numerical
integration, 60-digit arithmetic) or raises a ValueError naming the argument.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy.integrate import nquad, quad

from companion import metrics
from dpnn.local_mechanisms import (
    square_mechanism,
    square_mechanism_mse,
    square_side,
)
from dpnn.lsrr import lsrr, lsrr_mse, lsrr_probabilities
from dpnn.traversal import dptt_ledger, epsilon_schedule


def _square_density(y, x, epsilon, side, domain):
    """The square mechanism's output density at y for input x, from its definition.

    q = 1 / (e^eps s^d + A - s^d) outside S(x), p = e^eps q on S(x): the cube of side s
    centred at x, shifted just enough to lie inside the domain. In log space, so that
    eps = 710 is exact too.
    """
    domain = np.asarray(domain, dtype=float)
    d = len(domain)
    centre = np.clip(x, domain[:, 0] + side / 2, domain[:, 1] - side / 2)
    inside = np.all(np.abs(np.asarray(y) - centre) <= side / 2)
    area = float(np.prod(domain[:, 1] - domain[:, 0]))
    log_q = -(epsilon + math.log(side**d + (area - side**d) * math.exp(-epsilon)))
    return math.exp(log_q + (epsilon if inside else 0.0))


def _integrated_mse(x, epsilon, side, domain):
    """E ||SM(x) - x||^2 by adaptive quadrature, split at the square's faces."""
    domain = np.asarray(domain, dtype=float)
    centre = np.clip(x, domain[:, 0] + side / 2, domain[:, 1] - side / 2)
    points = [[c - side / 2, c + side / 2] for c in centre]
    if len(domain) == 1:

        def line(y):
            return _square_density([y], x, epsilon, side, domain) * (y - x[0]) ** 2

        value, _ = quad(
            line, *domain[0], points=points[0], epsabs=0, epsrel=1e-12, limit=200
        )
        return value

    def plane(y0, y1):
        squared = (y0 - x[0]) ** 2 + (y1 - x[1]) ** 2
        return _square_density([y0, y1], x, epsilon, side, domain) * squared

    options = [
        {"points": axis, "epsabs": 0, "epsrel": 1e-11, "limit": 200} for axis in points
    ]
    value, _ = nquad(plane, list(map(list, domain)), opts=options)
    return value


@pytest.mark.parametrize(
    "x, epsilon, side, domain",
    [
        ([0.7], 0.5, 0.6, [[0.0, 2.0]]),
        ([0.05], 1.0, 0.4, [[0.0, 2.0]]),
        ([1.95], 2.0, 1.1, [[0.0, 2.0]]),
        ([0.3, 1.2], 1.0, 0.4, [[0.0, 1.0], [0.0, 1.5]]),
        ([0.02, 0.1], 2.0, 0.25, [[0.0, 1.0], [0.0, 1.5]]),
    ],
)
def test_square_mse_matches_numerical_integration(x, epsilon, side, domain):
    # Both terms of the exact formula matter at these settings: changing either by 0.2%
    # moves the answer by more than 1e-5 of itself, far beyond the quadrature's 1e-9.
    exact = square_mechanism_mse([x], epsilon, domain, side)[0]
    integrated = _integrated_mse(np.array(x, float), epsilon, side, domain)
    assert exact == pytest.approx(integrated, rel=1e-9)


@pytest.mark.parametrize("epsilon", [709.0, 710.0, 800.0])
def test_square_mechanism_at_huge_epsilon_stays_in_its_square(epsilon):
    # Old code: e^710 overflowed, p = inf * 0 = NaN: no output in the square, MSE NaN.
    rng = np.random.default_rng(0)
    x = rng.random((500, 2))
    domain, side = [[0.0, 1.0], [0.0, 1.0]], 0.3
    y = square_mechanism(x, epsilon, domain, rng, side=side)
    centre = np.clip(x, side / 2, 1 - side / 2)
    assert np.all(np.abs(y - centre) <= side / 2)  # outside has probability ~ e^-709
    # then the output is uniform on the square: E ||Y - x||^2 by quadrature over it
    mse = square_mechanism_mse(x[:3], epsilon, domain, side)
    for row, value in zip(x[:3], mse):
        integrated = _integrated_mse(row, epsilon, side, domain)
        assert value == pytest.approx(integrated, rel=1e-9)
    default = square_mechanism(x, epsilon, domain, rng)
    assert np.all(np.isfinite(default)) and np.all((default >= 0) & (default <= 1))
    assert np.all(np.isfinite(square_mechanism_mse(x[:3], epsilon, domain)))


@pytest.mark.parametrize("d", [4, 6])
def test_default_side_in_high_dimension_is_refused_by_name(d):
    # Old code: a 24^d-point rule, 33 s at d = 4 and 8.5 GiB at d = 6.
    domain = [[0.0, 1.0]] * d
    with pytest.raises(ValueError, match="domain must have at most 3 dimensions"):
        square_side(1.0, domain)
    with pytest.raises(ValueError, match="pass side"):
        square_mechanism(np.full((2, d), 0.5), 1.0, domain, 0)
    released = square_mechanism(np.full((2, d), 0.5), 1.0, domain, 0, side=0.5)
    assert released.shape == (2, d)


def _lsrr_group_probabilities(epsilon, levels, d):
    """a_g per group from the staircase a_g ~ e^eps (1 - t) + t, at 60 digits."""
    mpmath.mp.dps = 60
    sizes = [1] + [(2**d - 1) * 2 ** ((g - 1) * d) for g in range(1, levels)]
    t = [mpmath.mpf(g) / (levels - 1) for g in range(levels)]
    shape = [mpmath.e**epsilon * (1 - step) + step for step in t]
    total = mpmath.fsum(s * n for s, n in zip(shape, sizes))
    return [float(s / total) for s in shape]  # the nearest double (0 below 5e-324)


@pytest.mark.parametrize("epsilon", [709.0, 709.8, 710.0, 1000.0])
def test_lsrr_at_huge_epsilon(epsilon):
    # Old code: "Probabilities contain NaN" from lsrr at 709; zero, then NaN, tables.
    levels, d = 4, 2
    table = lsrr_probabilities([0.1, 0.8], epsilon, [[0.0, 1.0]] * 2, levels)
    assert np.all(np.isfinite(table)) and table.sum() == pytest.approx(1.0, abs=1e-12)
    expected = _lsrr_group_probabilities(epsilon, levels, d)
    np.testing.assert_allclose(np.unique(table), np.sort(expected), rtol=1e-12, atol=0)
    rng = np.random.default_rng(1)
    y = lsrr(np.full((200, 2), 0.1), epsilon, [[0.0, 1.0]] * 2, rng, levels)
    assert np.all((y >= 0) & (y <= 1))
    assert np.isfinite(lsrr_mse([[0.1, 0.8]], epsilon, [[0.0, 1.0]] * 2, levels)[0])


@pytest.mark.parametrize("levels", [54, 64, 70])
def test_lsrr_levels_beyond_float_resolution_are_refused(levels):
    # Old code: levels = 64 overflowed int64 (points outside the domain), 70 raised
    # OverflowError.
    with pytest.raises(ValueError, match=r"levels must be an integer in \[2, 53\]"):
        lsrr([[0.5, 0.5]], 1.0, [[0.0, 1.0]] * 2, 0, levels=levels)
    rng = np.random.default_rng(2)
    y = lsrr(np.full((50, 2), 0.3), 1.0, [[0.0, 1.0]] * 2, rng, levels=53)
    assert np.all((y >= 0) & (y <= 1))


def test_lsrr_tables_too_large_to_enumerate_are_refused():
    with pytest.raises(ValueError, match="levels must make at most 2"):
        lsrr_probabilities([0.5, 0.5], 1.0, [[0.0, 1.0]] * 2, levels=14)
    with pytest.raises(ValueError, match="levels"):
        lsrr_mse([[0.5]], 1.0, [[0.0, 1.0]], levels=30)


@pytest.mark.parametrize(
    "call",
    [
        lambda domain: lsrr([[0.0]], 1.0, domain, 0),
        lambda domain: lsrr_probabilities([0.0], 1.0, domain),
        lambda domain: square_mechanism([[0.0]], 1.0, domain, 0, side=1.0),
        lambda domain: square_mechanism_mse([[0.0]], 1.0, domain, side=1.0),
    ],
)
def test_a_domain_wider_than_the_float_range_is_refused(call):
    # Old code: high - low = inf, outputs inf.
    with pytest.raises(ValueError, match="domain must have finite side lengths"):
        call([[-1e308, 1e308]])


def _corner_mean_distance_mpmath(a, b):
    """The closed form with its logarithms as printed, at 800 digits (b/a ~ 1e-300)."""
    mpmath.mp.dps = 800
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    r = mpmath.sqrt(a**2 + b**2)
    value = (
        r
        + a**2 / (2 * b) * mpmath.log((b + r) / a)
        + b**2 / (2 * a) * mpmath.log((a + r) / b)
    ) / 3
    mpmath.mp.dps = 60
    return value


@pytest.mark.parametrize(
    "width, height",
    [
        (2.0, 2e-16),
        (2e-16, 2.0),
        (1.0, 1e-9),
        (3.0, 2.0),
        (1e-300, 1e-300),
        (1e150, 1e-150),
    ],
)
def test_cell_inference_error_on_thin_boxes(width, height):
    # Old code: 0.333 on the 2 x 2e-16 box (ln(1 + 1e-16) rounds to 0); the answer: 0.5.
    value = metrics.cell_inference_error([[0.0, 0.0]], [[width, height]])[0]
    expected = float(_corner_mean_distance_mpmath(width / 2, height / 2))
    assert value == pytest.approx(expected, rel=1e-12)


def test_cell_inference_error_thin_box_is_half_its_length():
    value = metrics.cell_inference_error([[0.0, 0.0]], [[2.0, 2e-16]])[0]
    assert value == pytest.approx(0.5, rel=1e-12)


def test_epsilon_schedule_refuses_fractional_splits():
    # Old code: accepted splits = 2.5, a schedule dptt then rejects.
    with pytest.raises(ValueError, match="splits must be an integer >= 0"):
        epsilon_schedule("constant", 10, 1.0, variant="early", splits=2.5)


@pytest.mark.parametrize("family", ["constant", "decreasing"])
def test_epsilon_schedule_at_a_tiny_budget_under_zcdp(family):
    # Old code: NaN from the bisection (a negative zCDP epsilon under the logarithm).
    schedule = epsilon_schedule(family, 10, 1e-6, method="zcdp", delta=1e-6)
    assert np.all(np.isfinite(schedule)) and np.all(schedule > 0)
    composed = dptt_ledger(schedule, "cmp", "basic", 0).epsilon(1e-6, "zcdp")
    assert composed == pytest.approx(1e-6, rel=1e-7)


def test_cell_inference_error_on_a_subnormal_thin_box_is_half_its_length():
    # Old code: NaN (the ratio of the sides overflowed to infinity).
    value = metrics.cell_inference_error([[0.0, 0.0]], [[2.0, 1e-310]])[0]
    assert value == pytest.approx(0.5, rel=1e-15)


@pytest.mark.parametrize("d", [1, 2])
def test_cell_inference_error_on_the_widest_boxes_is_finite_and_exact(d):
    # Old code: NaN in 2-D and infinity in 1-D (hi - lo overflowed).
    import mpmath

    value = metrics.cell_inference_error([[-1e308] * d], [[1e308] * d])[0]
    exact = (
        mpmath.mpf("1e308") / 2
        if d == 1
        else (mpmath.sqrt(2) + mpmath.asinh(1)) / 3 * mpmath.mpf("1e308")
    )
    assert value == pytest.approx(float(exact), rel=1e-14)


@pytest.mark.parametrize("family", ["constant", "decreasing"])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.1])
@pytest.mark.parametrize("total", [1e-6, 1e-3, 1.0, 100.0])
def test_epsilon_schedule_composes_to_its_total_under_zcdp(family, delta, total):
    # Old code: composed / total = 1.002 at 1e-12, 2.7e5 at 1e-20 (accepted totals).
    schedule = epsilon_schedule(family, 8, total, method="zcdp", delta=delta)
    composed = dptt_ledger(schedule, "cmp", "basic", 0).epsilon(delta, "zcdp")
    assert abs(composed / total - 1) <= 1e-6


@pytest.mark.parametrize("method", ["zcdp", "pld"])
@pytest.mark.parametrize("total", [1e-160, 1e-20, 1e-12])
def test_epsilon_schedule_refuses_totals_below_its_floor(method, total):
    # Old code: 4.5e145 times the total at 1e-160, or dp_accounting's "Noise parameter".
    with pytest.raises(ValueError, match=r"total must be at least 1e-06"):
        epsilon_schedule("decreasing", 8, total, method=method, delta=1e-5)


@pytest.mark.parametrize("method", ["advanced", "br", "zcdp", "pld", "thesis"])
@pytest.mark.parametrize("family", ["constant", "decreasing", "increasing"])
@pytest.mark.parametrize("total", [1.0, 1e-3, 1e-6])
@pytest.mark.parametrize("utility", ["cmp", "dis"])
def test_epsilon_schedule_composes_to_its_total_by_every_method(
    method, family, total, utility
):
    # Old code: under "pld" the decreasing CMP schedule composed to 1 + 4.9e-6 of its
    # total at 1e-3 and 1 + 1.0e-3 at 1e-6 (the PLD was a step function of the scale).
    schedule = epsilon_schedule(
        family, 10, total, method=method, delta=1e-5, utility=utility
    )
    composed = dptt_ledger(schedule, utility, "basic", 0).epsilon(1e-5, method)
    assert abs(composed / total - 1) <= 1e-6
