"""dpnn.accounting against independent evaluations of each theorem."""

import itertools
import math
import random as python_random

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from dpnn import accounting as acc

mpmath.mp.dps = 60  # independent evaluations at 60 significant digits


def br_mpmath(epsilons, delta):
    """Thm 2.13 (Dong, Durfee, Rogers Prop. 4) evaluated in 60-digit arithmetic, min
    with the sum."""
    terms = [mpmath.mpf(e) / -mpmath.expm1(-mpmath.mpf(e)) for e in epsilons if e > 0]
    bound = sum((t - 1 - mpmath.log(t) for t in terms), mpmath.mpf(0))
    bound += mpmath.sqrt(
        mpmath.mpf(0.5)
        * sum(mpmath.mpf(e) ** 2 for e in epsilons)
        * mpmath.log(1 / mpmath.mpf(delta))
    )
    return float(min(mpmath.fsum(mpmath.mpf(e) for e in epsilons), bound))


def test_br_composition_matches_a_60_digit_evaluation_on_20_random_cases():
    rng = np.random.default_rng(3)
    for _ in range(20):
        epsilons = list(rng.uniform(0, 3, size=rng.integers(1, 40)))
        delta = float(10 ** rng.uniform(-9, -1))
        assert acc.br_composition(epsilons, delta) == pytest.approx(
            br_mpmath(epsilons, delta), rel=1e-13
        )


def test_br_term_is_continuous_at_zero():
    # The per-step term e/(1-e^-e) - 1 - ln(e/(1-e^-e)) is about e^2/8 near 0 (the float
    # formula cancels).
    assert acc.br_composition([0.0, 1e-9], 1e-5) == pytest.approx(
        br_mpmath([1e-9], 1e-5), rel=1e-9
    )
    assert acc.br_composition([0.0], 0.5) == 0.0


def test_basic_and_advanced_match_60_digit_evaluations():
    assert acc.basic_composition([0.1, 0.2, 0.7]) == 1.0
    for epsilon, k, delta in [
        (0.1, 10, 1e-5),
        (1.0, 100, 1e-6),
        (0.01, 10_000, 1e-3),
        (700.0, 3, 0.5),
    ]:
        e = mpmath.mpf(epsilon)
        expected = mpmath.sqrt(
            2 * k * mpmath.log(1 / mpmath.mpf(delta))
        ) * e + k * e * mpmath.expm1(e)
        assert acc.advanced_composition(epsilon, k, delta) == pytest.approx(
            float(expected), rel=1e-13
        )


def test_advanced_composition_beyond_the_float_range_is_a_clear_error():
    # Old code: OverflowError from math.expm1(800).
    with pytest.raises(
        ValueError, match="epsilon must be at most 700.0 for advanced composition"
    ):
        acc.advanced_composition(800, 1, 0.5)


def test_max_exponent_is_the_largest_step_whose_exponential_a_float_holds():
    assert math.isfinite(math.exp(acc.MAX_EXPONENT))
    assert acc.advanced_composition(acc.MAX_EXPONENT, 1, 0.5) > acc.MAX_EXPONENT
    with pytest.raises(ValueError, match="at most 700.0"):
        acc.advanced_composition(np.nextafter(acc.MAX_EXPONENT, np.inf), 1, 0.5)


def test_check_epsilons_reads_one_or_many_steps_and_names_the_argument():
    np.testing.assert_array_equal(acc.check_epsilons(0.5), [0.5])
    np.testing.assert_array_equal(acc.check_epsilons([0, 1, 2.5]), [0.0, 1.0, 2.5])
    assert acc.check_epsilons([1, 2]).dtype == float
    with pytest.raises(ValueError, match="rhos must contain only finite numbers >= 0"):
        acc.check_epsilons([1.0, -0.5], "rhos")
    with pytest.raises(ValueError, match="epsilons must be a non-empty list"):
        acc.check_epsilons([])


def test_heterogeneous_advanced_composition_is_its_formula_and_thm_2_10_if_equal():
    # sqrt(2 ln(1/d) (0.1^2 + 0.2^2)) + 0.1 (e^0.1 - 1) + 0.2 (e^0.2 - 1), d = e^-1
    expected = math.sqrt(2 * 0.05) + 0.1 * math.expm1(0.1) + 0.2 * math.expm1(0.2)
    assert acc.heterogeneous_advanced_composition(
        [0.1, 0.2], math.exp(-1)
    ) == pytest.approx(expected, rel=1e-14)
    assert acc.heterogeneous_advanced_composition([0.3] * 7, 1e-5) == pytest.approx(
        acc.advanced_composition(0.3, 7, 1e-5), rel=1e-14
    )
    with pytest.raises(ValueError, match="delta_prime"):
        acc.heterogeneous_advanced_composition([0.1], 1.5)


def test_thesis_s5_2_bound_is_the_printed_formula_and_differs_from_thm_2_13():
    epsilon, c, delta = 0.5, 17, 1e-5
    ce = mpmath.mpf(epsilon) * c
    t = ce / -mpmath.expm1(-ce)
    printed = min(
        ce,
        t
        - 1
        - mpmath.log(t)
        + mpmath.sqrt(
            c * mpmath.mpf(epsilon) ** 2 / 2 * mpmath.log(1 / mpmath.mpf(delta))
        ),
    )
    assert acc.thesis_s5_2_bound(epsilon, c, delta) == pytest.approx(
        float(printed), rel=1e-13
    )
    assert (
        abs(
            acc.thesis_s5_2_bound(epsilon, c, delta)
            - acc.br_composition([epsilon] * c, delta)
        )
        > 1.0
    )


def dp_from_zcdp_mpmath(rho, delta):
    """Canonne-Kamath-Steinke Prop. 12 minimised over alpha at 60 digits (golden section
    on ln(alpha - 1))."""
    rho, log_inv = mpmath.mpf(rho), mpmath.log(1 / mpmath.mpf(delta))

    def eps(x):
        alpha = 1 + mpmath.exp(x)
        return rho * alpha + (
            log_inv + (alpha - 1) * mpmath.log(1 - 1 / alpha) - mpmath.log(alpha)
        ) / (alpha - 1)

    lo, hi, ratio = mpmath.mpf(-30), mpmath.mpf(40), (mpmath.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        lo, hi = (lo, b) if eps(a) < eps(b) else (a, hi)
    return float(eps((lo + hi) / 2))


@pytest.mark.parametrize(
    "rho, delta", [(0.005, 1e-5), (0.5, 1e-6), (2.0, 1e-10), (1e-4, 1e-3), (30.0, 1e-5)]
)
def test_dp_from_zcdp_is_the_tight_renyi_conversion(rho, delta):
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    ours = acc.dp_from_zcdp(rho, delta)
    assert ours == pytest.approx(dp_from_zcdp_mpmath(rho, delta), rel=1e-8)
    # dp_accounting's RDP conversion on a dense grid of orders can only be at or above
    # the optimum.
    orders = 1 + np.geomspace(1e-4, 1e4, 20_000)
    grid = rdp.compute_epsilon(orders, rho * orders, delta)[0]
    assert ours <= grid + 1e-12 and grid == pytest.approx(ours, rel=1e-5)
    assert ours < acc.dp_from_zcdp_bun_steinke(rho, delta)


def test_dp_from_zcdp_issue_example():
    # Bun-Steinke Prop. 1.3 (the old answer) gives 0.485; the tight conversion 0.375.
    assert acc.dp_from_zcdp(0.005, 1e-5) == pytest.approx(0.37526, abs=1e-5)
    assert acc.dp_from_zcdp_bun_steinke(0.005, 1e-5) == pytest.approx(0.48486, abs=1e-5)


def test_zcdp_of_pure_and_bounded_range_steps():
    assert acc.zcdp_from_pure(0.3) == 0.3**2 / 2
    assert acc.zcdp_from_bounded_range(0.3) == 0.3**2 / 8


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_a_dis_step_is_epsilon_squared_over_8_zcdp(epsilon):
    """Cesar and Rogers' Lemma checked on the DIS step itself: a binary choice whose
    logit moves by <= epsilon.

    For every base logit t and Renyi order alpha, D_alpha(P || Q) <= alpha epsilon^2 /
    8, computed in 60 digits.
    """
    for t in np.linspace(-20, 20, 81):
        p, q = (
            mpmath.mpf(1) / (1 + mpmath.exp(-t)),
            mpmath.mpf(1) / (1 + mpmath.exp(-(t - epsilon))),
        )
        for alpha in [1.001, 1.5, 2, 5, 20, 100]:
            a = mpmath.mpf(alpha)
            divergence = mpmath.log(
                p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)
            ) / (a - 1)
            assert divergence <= a * epsilon**2 / 8 * (1 + mpmath.mpf(10) ** -40)


def test_the_ledger_charges_an_exponential_step_epsilon_squared_over_8():
    # The Accountant's "zcdp" uses the bound checked above (epsilon^2/8 per exponential
    # step, not the pure-DP epsilon^2/2): 17 DIS steps at epsilon = 1 compose to rho =
    # 17/8, converted by the tight conversion (itself checked against dp_accounting
    # above): 11.13, against 17.8 at 17/2 (then basic's 17).
    ledger = acc.Accountant().spend("exponential", 1.0, 17)
    assert ledger.epsilon(1e-5, "zcdp") == pytest.approx(
        acc.dp_from_zcdp(17 / 8, 1e-5), rel=1e-12
    )
    assert ledger.epsilon(1e-5, "zcdp") == pytest.approx(11.1297, abs=1e-4)
    pure = acc.Accountant().spend("pure", 1.0, 17)
    assert pure.epsilon(1e-5, "zcdp") == pytest.approx(
        min(17.0, acc.dp_from_zcdp(17 / 2, 1e-5)), rel=1e-12
    )


def kov_delta_independent(epsilon0, k, epsilon):
    """KOV's exact delta, written with scipy's binomial pmf."""
    p = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    i = np.arange(k + 1)
    loss = epsilon0 * (k - 2 * i)
    mass = binom.pmf(k - i, k, p)
    return float(
        np.sum(np.where(loss > epsilon, mass * (1 - np.exp(epsilon - loss)), 0.0))
    )


@pytest.mark.parametrize("epsilon0", [0.01, 0.1, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("k", [1, 2, 8, 16, 33, 64])
def test_pld_of_randomized_response_matches_the_exact_optimal_composition(epsilon0, k):
    delta = 1e-5
    exact = acc.optimal_pure_composition_epsilon(epsilon0, k, delta)
    assert (
        kov_delta_independent(epsilon0, k, exact)
        == pytest.approx(delta, rel=1e-6, abs=1e-15)
        or exact == 0
    )
    events = [("randomized_response", epsilon0)] * k
    numerical = acc.pld_epsilon(events, delta, numerical=True)
    _, error = acc.pld_discretisation(events, numerical=True)
    # dp_accounting against the binomial formula: pessimistic, by at most one grid step
    # per step
    assert exact - 1e-9 <= numerical <= exact + error + 1e-9
    assert acc.pld_epsilon([("randomized_response", epsilon0)] * k, delta) == exact


def _gaussian_part(m, s, a):
    """E[(1 - e^{a - L})_+] for L ~ N(m, s^2), in closed form."""
    from scipy.stats import norm

    return norm.cdf((m - a) / s) - np.exp(a - m + s * s / 2) * norm.cdf(
        (m - a - s * s) / s
    )


def laplace_plus_gaussian_delta(epsilon_laplace, sigma, epsilon):
    """Exact delta(epsilon) of one Laplace(epsilon_laplace) and one Gaussian(sigma)
    step, by quadrature.

    Laplace's privacy loss is e_L with mass 1/2, -e_L with mass e^{-e_L}/2, and e_L (1 -
    2y) with density (e_L/2) e^{-e_L y} on 0 < y < 1; the Gaussian's is N(1/(2 sigma^2),
    1/sigma^2).
    """
    from scipy.integrate import quad

    m, s = 1 / (2 * sigma**2), 1 / sigma
    e = epsilon_laplace
    inner = quad(
        lambda y: (
            e / 2 * np.exp(-e * y) * _gaussian_part(m, s, epsilon - e * (1 - 2 * y))
        ),
        0,
        1,
        epsabs=1e-15,
        epsrel=1e-12,
    )[0]
    return (
        0.5 * _gaussian_part(m, s, epsilon - e)
        + inner
        + 0.5 * np.exp(-e) * _gaussian_part(m, s, epsilon + e)
    )


@pytest.mark.parametrize(
    "epsilon_laplace, sigma, delta",
    [(0.3, 4 / math.sqrt(3), 1e-6), (0.01, 1.0, 1e-6), (2.0, 0.8, 1e-9)],
)
def test_pld_of_laplace_and_gaussian_matches_quadrature_within_the_stated_grid_error(
    epsilon_laplace, sigma, delta
):
    from scipy.optimize import brentq

    events = [("laplace", epsilon_laplace), ("gaussian", sigma)]
    exact = brentq(
        lambda e: laplace_plus_gaussian_delta(epsilon_laplace, sigma, e) - delta,
        0,
        100,
        xtol=1e-12,
    )
    ours = acc.pld_epsilon(events, delta)
    _, error = acc.pld_discretisation(events)
    assert exact - 1e-9 <= ours <= exact + error, (ours, exact, error)
    assert acc.pld_delta(events, ours) <= delta * (1 + 1e-6)


def test_pld_answers_the_issue_cases_with_a_bounded_grid():
    # Old code chose a grid step of 1e-6 (one hundredth of a percent of the smallest
    # epsilon) and exhausted memory on both cases below.
    events = [("laplace", 0.01), ("gaussian", 1.0)]
    interval, error = acc.pld_discretisation(events)
    assert interval == 1e-4 and error == 2e-4
    ours = acc.pld_epsilon(events, 1e-6)
    from scipy.optimize import brentq

    exact = brentq(
        lambda e: laplace_plus_gaussian_delta(0.01, 1.0, e) - 1e-6, 0, 100, xtol=1e-12
    )
    assert exact <= ours <= exact + error


def enumerated_rr_epsilon(epsilons, delta):
    """Exact epsilon(delta) of randomized response steps with unequal epsilons, by
    enumerating 2^k outcomes."""
    epsilons = np.asarray(epsilons, dtype=float)
    # 1 = a flipped bit
    outcomes = np.array(
        list(itertools.product([0, 1], repeat=len(epsilons))), dtype=bool
    )
    keep = 1 / (1 + np.exp(-epsilons))
    mass = np.prod(np.where(outcomes, 1 - keep, keep), axis=1)
    loss = np.sum(np.where(outcomes, -epsilons, epsilons), axis=1)
    from scipy.optimize import brentq

    def delta_at(e):
        above = loss > e
        return float(np.sum(mass[above] * -np.expm1(e - loss[above])))

    return (
        0.0
        if delta_at(0.0) <= delta
        else brentq(lambda e: delta_at(e) - delta, 0, loss.max(), xtol=1e-13)
    )


def test_a_per_level_schedule_matches_enumeration():
    # A DP-TT-CMP run with a per-level schedule: 12 unequal randomized-response steps at
    # epsilon/2.
    schedule = np.geomspace(1e-3, 1, 12)
    events = [("randomized_response", e / 2) for e in schedule]
    ours = acc.pld_epsilon(events, 1e-5)
    exact = enumerated_rr_epsilon(schedule / 2, 1e-5)
    _, error = acc.pld_discretisation(events)
    assert exact - 1e-9 <= ours <= exact + error


@pytest.mark.parametrize(
    "epsilons",
    [
        np.linspace(1e-5, 3e-5, 10),  # composed far below one step at delta = 1e-5
        np.linspace(0.1, 0.3, 10),
        np.array([0.5, 0.5, 1.0, 2.0, 2.0, 2.0]),
        np.array([300.0, 400.0, 500.0, 600.0, 650.0]),  # e^-loss underflows
    ],
)
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.3])
def test_unequal_steps_are_an_upper_bound_within_the_stated_grid_error(epsilons, delta):
    events = [("randomized_response", e) for e in epsilons[:-1]]
    events.append(("pure", epsilons[-1]))  # the same worst-case law
    ours = acc.pld_epsilon(events, delta)
    exact = enumerated_rr_epsilon(epsilons, delta)
    _, error = acc.pld_discretisation(events)
    assert exact - 1e-9 * max(exact, 1) <= ours <= exact + error


def test_unequal_steps_compose_continuously_in_a_common_factor():
    # The grid scales with the steps, so epsilon(c * steps) is continuous and
    # increasing in c. Old code (dp_accounting, a grid fixed in absolute terms, sums
    # with cancellation) went down as well as up between factors 1e-4 apart, by up to
    # 5e-3 of itself, near this composed 1e-6.
    shape = np.linspace(3.0, 1.0, 10) / 3 * 1.175e-5
    factors = np.linspace(0.999, 1.001, 41)
    composed = np.array(
        [
            acc.pld_epsilon([("randomized_response", c * e) for e in shape], 1e-5)
            for c in factors
        ]
    )
    steps = np.diff(composed)
    assert np.all(steps > 0)
    # smooth: consecutive steps agree to 1e-3 of each other (a grid jump breaks it)
    assert np.max(np.abs(np.diff(steps))) <= 1e-3 * np.max(steps)


def test_a_step_beyond_the_float_range_is_a_clear_error():
    # Old code: OverflowError from math.exp(800).
    with pytest.raises(ValueError, match="at most 700.0 for the PLD accountant"):
        acc.pld_epsilon(
            [("randomized_response", 800), ("randomized_response", 1)], 1e-5
        )
    # Equal steps take the exact binomial route, which has no such limit. The loss is
    # 2400 but for mass 3e^-800, so delta(eps) = 1 - e^(eps - 2400): eps = 2400 + ln(1 -
    # 1e-5).
    assert acc.pld_epsilon([("randomized_response", 800)] * 3, 1e-5) == pytest.approx(
        2400 + math.log1p(-1e-5), abs=3e-9
    )


def test_long_compositions_do_not_overflow():
    # dp_accounting overflows past a composed loss of about 709; the exact route does
    # not.
    assert acc.pld_epsilon([("randomized_response", 3.5)] * 208, 1e-5) == pytest.approx(
        728, rel=1e-3
    )
    mixed = [("randomized_response", 3.5)] * 150 + [("randomized_response", 4.0)] * 60
    assert acc.pld_epsilon(mixed, 1e-5) <= 3.5 * 150 + 4.0 * 60
    assert math.isfinite(acc.pld_epsilon(mixed, 1e-5))


def test_pld_of_one_laplace_and_one_pure_step_is_epsilon():
    assert acc.pld_epsilon([("laplace", 0.7)], 1e-9) == pytest.approx(0.7, rel=1e-3)
    assert acc.pld_epsilon([("pure", 0.7)], 1e-9) == pytest.approx(0.7, rel=1e-3)


def test_pld_of_gaussian_matches_the_analytic_gaussian_delta():
    # Balle and Wang 2018: delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps
    # s).
    from scipy.stats import norm

    sigma, epsilon = 2.0, 0.5
    exact = norm.cdf(1 / (2 * sigma) - epsilon * sigma) - math.exp(epsilon) * norm.cdf(
        -1 / (2 * sigma) - epsilon * sigma
    )
    # Pessimistic rounding: at or above the exact delta, and within the grid's effect on
    # it.
    ours = acc.pld_delta([("gaussian", sigma)], epsilon)
    assert exact <= ours <= exact * (1 + 1e-3)


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0])
@pytest.mark.parametrize("k", [1, 10, 100, 1000, 10_000])
def test_ordering_where_theory_says_it_holds(epsilon, k):
    delta = 1e-6
    basic = acc.basic_composition([epsilon] * k)
    tight = acc.optimal_pure_composition_epsilon(epsilon, k, delta)
    # Any valid bound for epsilon-DP steps is at least the optimal composition ...
    assert basic >= tight - 1e-12
    assert acc.advanced_composition(epsilon, k, delta) >= tight - 1e-12
    # ... and epsilon-DP randomized response is 2 epsilon-BR, so Thm 2.13 at 2 epsilon
    # is valid too.
    assert acc.br_composition([2 * epsilon] * k, delta) >= tight - 1e-12
    # Thm 2.13 never exceeds basic composition (it is a min with the sum).
    assert acc.br_composition([epsilon] * k, delta) <= basic + 1e-12


def test_bad_inputs_are_named():
    with pytest.raises(
        ValueError, match="epsilons must contain only finite numbers >= 0"
    ):
        acc.br_composition([0.1, -1], 1e-5)
    with pytest.raises(ValueError, match="epsilons must be a non-empty list"):
        acc.basic_composition([])
    with pytest.raises(ValueError, match=r"delta must be a real number in \(0, 1\)"):
        acc.br_composition([0.1], 0.0)
    with pytest.raises(
        ValueError, match=r"delta_prime must be a real number in \(0, 1\)"
    ):
        acc.advanced_composition(0.1, 3, 1.5)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        acc.advanced_composition(0.1, 0, 1e-5)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        acc.advanced_composition(0.1, 2.5, 1e-5)
    with pytest.raises(ValueError, match="epsilon must be a finite real number >= 0"):
        acc.advanced_composition(math.inf, 3, 1e-5)
    with pytest.raises(ValueError, match="event kind must be one of"):
        acc.pld_epsilon([("cauchy", 1.0)], 1e-5)
    with pytest.raises(ValueError, match="sigma must be a finite real number > 0"):
        acc.pld_epsilon([("gaussian", 0.0)], 1e-5)
    with pytest.raises(ValueError, match="rho must be a finite real number >= 0"):
        acc.dp_from_zcdp(-1.0, 1e-5)
    with pytest.raises(ValueError, match=r"delta must be a real number in \(0, 1\)"):
        acc.dp_from_zcdp(1.0, 1.0)
    with pytest.raises(ValueError, match="kind must be one of"):
        acc.Accountant().spend("gumbel", 1.0)
    with pytest.raises(ValueError, match="count must be an integer >= 1"):
        acc.Accountant().spend("exponential", 1.0, count=0)
    with pytest.raises(ValueError, match="method must be one of"):
        acc.Accountant().spend("exponential", 1.0).epsilon(1e-5, method="magic")
    with pytest.raises(ValueError, match="method must be 'pld' or 'zcdp'"):
        acc.Accountant().spend("gaussian", 2.0).epsilon(1e-5, method="br")


spends = st.lists(
    st.tuples(
        st.sampled_from(["exponential", "randomized_response", "laplace", "pure"]),
        st.floats(0.0, 3.0),
        st.integers(1, 5),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(spends, st.randoms(use_true_random=False))
# raised from scipy's bounds
@example([("exponential", 1.35e-160, 1)], python_random.Random(0))
@example([("pure", 5e-324, 2), ("laplace", 1e-200, 1)], python_random.Random(1))
def test_accountant_is_order_independent(items, random):
    shuffled = list(items)
    random.shuffle(shuffled)
    a, b = acc.Accountant(), acc.Accountant()
    for kind, epsilon, count in items:
        a.spend(kind, epsilon, count)
    for kind, epsilon, count in shuffled:
        # spending one at a time is the same as spending count at once
        for _ in range(count):
            b.spend(kind, epsilon)
    for method in ("basic", "advanced", "br", "zcdp"):
        assert a.epsilon(1e-6, method) == pytest.approx(
            b.epsilon(1e-6, method), rel=1e-12
        )
    assert a.compositions == b.compositions


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["exponential", "laplace", "pure"]), st.integers(1, 50)
        ),
        min_size=1,
        max_size=4,
    )
)
def test_zero_spends_give_zero(items):
    a = acc.Accountant()
    for kind, count in items:
        a.spend(kind, 0.0, count)
    for method in set(acc.Accountant.METHODS) - {"thesis"}:
        assert a.epsilon(1e-6, method) == 0.0
    assert acc.Accountant().spend("exponential", 0.0, 5).epsilon(1e-6, "thesis") == 0.0


def test_empty_accountant_is_zero_and_exponential_uses_its_br_parameter():
    assert acc.Accountant().epsilon(1e-5, "pld") == 0.0
    a = acc.Accountant().spend("exponential", 0.5, 19)
    assert a.epsilon(1e-5, "br") == pytest.approx(
        br_mpmath([0.5] * 19, 1e-5), rel=1e-13
    )
    assert a.epsilon(method="basic") == 9.5
    rr = acc.Accountant().spend("randomized_response", 0.25, 19)
    # Randomized response at 0.25 is 0.5-BR, but Thm 2.13 over 0.5 exceeds the plain sum
    # 4.75: br is the sum.
    assert br_mpmath([0.5] * 19, 1e-5) > 4.75
    assert rr.epsilon(1e-5, "br") == 4.75
    assert rr.epsilon(1e-5, "thesis") == pytest.approx(
        br_mpmath([0.5] * 19, 1e-5), rel=1e-13
    )
    assert kov_delta_independent(0.25, 19, rr.epsilon(1e-5, "pld")) == pytest.approx(
        1e-5, rel=1e-6
    )


def test_thesis_method_is_only_for_dp_tt_ledgers():
    with pytest.raises(ValueError, match="method 'thesis' applies to DP-TT ledgers"):
        acc.Accountant().spend("laplace", 1.0).epsilon(1e-5, "thesis")


def _dptt_ledgers():
    from dpnn import traversal, trees

    points = np.random.default_rng(0).uniform(0, 1e9, 2**17)
    tree = trees.build_tree(points, leaf_only=True)
    for utility in ("cmp", "dis"):
        for name in ("basic", "P2", "P8", "E4", "E8", "GS", "N20", "GS-N5"):
            result = traversal.dptt(
                tree,
                points[:3],
                1.0,
                utility,
                1e9 if utility == "dis" else None,
                rng=np.random.default_rng(1),
                **traversal.parse_variant(name),
            )
            yield utility, name, result.accountant


def test_every_method_stays_at_or_below_basic_on_every_dp_tt_run():
    # Old code: br above basic on every CMP run (8.5 vs 11.99 for h = 17 at epsilon =
    # 1).
    for utility, name, ledger in _dptt_ledgers():
        basic = ledger.epsilon(method="basic")
        for method in ("advanced", "br", "zcdp", "pld"):
            assert ledger.epsilon(1e-5, method) <= basic + 1e-9, (utility, name, method)
        assert ledger.epsilon(1e-5, "pld") <= ledger.epsilon(1e-5, "br") + 1e-9
        # The thesis's accounting: Thm 2.13 over the full per-step epsilon of every
        # call.
        calls = ledger.compositions
        assert ledger.epsilon(1e-5, "thesis") == pytest.approx(
            br_mpmath([1.0] * calls, 1e-5), rel=1e-12
        )


def test_issue_numbers_for_cmp_at_height_17():
    ledger = acc.Accountant().spend("randomized_response", 0.5, 17)
    assert ledger.epsilon(method="basic") == 8.5 and ledger.epsilon(1e-5, "br") == 8.5
    assert ledger.epsilon(1e-5, "thesis") == pytest.approx(11.99, abs=0.005)


@pytest.mark.parametrize("k", [1, 4, 17])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_pld_of_dis_steps_covers_every_binary_step_with_logit_gap_epsilon(k, epsilon):
    """The DIS step is a binary choice whose logit moves by at most epsilon between
    neighbours.

    For k equal steps with base logit t (non-adaptive), enumerate the exact delta at the
    epsilon the ledger reports; it must not exceed the ledger's delta, whatever t.
    """
    delta = 1e-5
    reported = acc.Accountant().spend("exponential", epsilon, k).epsilon(delta, "pld")
    for t in np.linspace(0, epsilon, 21):
        p, q = 1 / (1 + np.exp(-t)), 1 / (1 + np.exp(-(t - epsilon)))
        i = np.arange(k + 1)  # i outcomes of the second kind
        log_mass_p = binom.logpmf(k - i, k, p)
        loss = (k - i) * np.log(p / q) + i * np.log((1 - p) / (1 - q))
        exact_delta = np.sum(
            np.where(
                loss > reported, np.exp(log_mass_p) * -np.expm1(reported - loss), 0.0
            )
        )
        # and the reverse direction (Q against P)
        log_mass_q = binom.logpmf(k - i, k, q)
        exact_delta_rev = np.sum(
            np.where(
                -loss > reported, np.exp(log_mass_q) * -np.expm1(reported + loss), 0.0
            )
        )
        assert max(exact_delta, exact_delta_rev) <= delta * (1 + 1e-9), (
            t,
            exact_delta,
            exact_delta_rev,
        )


def test_pld_of_exponential_and_gaussian_steps_together():
    # A DIS traversal composed with a Gaussian release: br does not apply, the PLD and
    # zCDP bounds do.
    ledger = acc.Accountant().spend("exponential", 0.5, 4).spend("gaussian", 2.0)
    combined = ledger.epsilon(1e-6, "pld")
    assert combined <= ledger.epsilon(1e-6, "zcdp") + 1e-12
    pure_worst_case = acc.pld_epsilon([("pure", 0.5)] * 4 + [("gaussian", 2.0)], 1e-6)
    assert combined <= pure_worst_case + 1e-12


# --- tiny budgets: an answer, never negative, never an underflow to a smaller charge


@pytest.mark.parametrize(
    "rho, delta", [(1e-3, 0.9), (1e-13, 1e-6), (1e-320, 1e-6), (0.5, 0.5)]
)
def test_dp_from_zcdp_is_never_negative_and_agrees_with_dp_accounting(rho, delta):
    # dp_from_zcdp(1e-3, 0.9) was -2.30 and rho = 1e-320 raised scipy's "bounds must be
    # finite". dp_accounting's RDP conversion (dense orders up to 1e12) clips at 0 the
    # same way.
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    ours = acc.dp_from_zcdp(rho, delta)
    assert ours >= 0.0
    orders = 1 + np.geomspace(1e-4, 1e12, 20_000)
    grid = rdp.compute_epsilon(orders, rho * orders, delta)[0]
    assert ours <= grid + 1e-12
    assert ours == pytest.approx(
        max(0.0, dp_from_zcdp_mpmath(rho, delta)), rel=1e-6, abs=1e-12
    )


@pytest.mark.parametrize("epsilon", [1e-6, 1e-150, 1e-154, 1.35e-160, 1e-200, 5e-324])
def test_tiny_budgets_are_answered_by_every_method(epsilon):
    # Old code: zcdp -8.8e-7 at 1e-6; scipy's bound error from 1e-154 down; at 1e-200
    # the advanced and br bounds underflowed to 0.
    ledger = acc.Accountant().spend("exponential", epsilon)
    for method in ("basic", "advanced", "br", "zcdp", "pld"):
        value = ledger.epsilon(1e-6, method)
        assert 0.0 <= value <= epsilon, method
    # An epsilon-DP step is (0, delta)-DP once delta >= (e^eps - 1)/(e^eps + 1): zCDP's
    # 0 is right.
    assert math.tanh(epsilon / 2) <= 1e-6 and ledger.epsilon(1e-6, "zcdp") == 0.0
    e, log_inv = mpmath.mpf(epsilon), mpmath.log(mpmath.mpf(10) ** 6)
    advanced = mpmath.sqrt(2 * log_inv) * e + e * mpmath.expm1(e)
    assert acc.Accountant().spend("pure", epsilon, 3).epsilon(
        1e-6, "advanced"
    ) == pytest.approx(
        float(min(3 * e, mpmath.sqrt(2 * 3 * log_inv) * e + 3 * e * mpmath.expm1(e))),
        rel=1e-12,
    )
    assert float(advanced) > 0
    assert acc.br_composition([epsilon] * 3, 1e-6) == pytest.approx(
        br_mpmath([epsilon] * 3, 1e-6), rel=1e-12
    )


def heterogeneous_advanced_mpmath(epsilons, delta):
    """Thm 2.10 for unequal steps at 60 digits: sqrt(2 ln(1/d) sum e^2) + sum e (e^e -
    1)."""
    e = [mpmath.mpf(x) for x in epsilons]
    first = mpmath.sqrt(
        2 * mpmath.log(1 / mpmath.mpf(delta)) * mpmath.fsum(x**2 for x in e)
    )
    return first, mpmath.fsum(x * mpmath.expm1(x) for x in e)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_advanced_for_unequal_steps_matches_a_60_digit_evaluation(seed):
    # Many unequal steps, where Thm 2.10 is below the sum (so the min does not hide it)
    # and both of its terms matter: a 20% under-charge of either term moves the answer
    # by > 1e-3.
    rng = np.random.default_rng(seed)
    ledger, epsilons = acc.Accountant(), []
    for kind in ("exponential", "laplace", "pure", "randomized_response"):
        values = rng.uniform(0.02, 0.3, size=60)
        for value in values:
            ledger.spend(kind, float(value))
        epsilons += list(values)
    first, second = heterogeneous_advanced_mpmath(epsilons, 1e-6)
    assert first + second < sum(epsilons)
    assert 0.2 * second / (first + second) > 1e-3
    assert ledger.epsilon(1e-6, "advanced") == pytest.approx(
        float(first + second), rel=1e-12
    )
