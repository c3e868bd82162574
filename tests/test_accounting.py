"""dpnn.accounting against independent evaluations of each theorem."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from dpnn import accounting as acc


def br_written_out(epsilons, delta):
    """Thm 2.13 term by term, with plain Python floats."""
    first = sum(epsilons)
    second = 0.0
    for e in epsilons:
        if e > 0:
            t = e / (1 - math.exp(-e))
            second += t - 1 - math.log(t)
    second += math.sqrt(0.5 * sum(e * e for e in epsilons) * math.log(1 / delta))
    return min(first, second)


def test_br_composition_matches_the_formula_on_20_random_cases():
    rng = np.random.default_rng(3)
    for _ in range(20):
        epsilons = list(rng.uniform(0, 3, size=rng.integers(1, 40)))
        delta = float(10 ** rng.uniform(-9, -1))
        assert acc.br_composition(epsilons, delta) == pytest.approx(br_written_out(epsilons, delta), rel=1e-12)


def test_br_term_is_continuous_at_zero():
    assert acc.br_composition([0.0, 1e-9], 1e-5) == pytest.approx(br_written_out([1e-9], 1e-5), abs=1e-12)
    assert acc.br_composition([0.0], 0.5) == 0.0


def test_basic_and_advanced_match_their_formulas():
    assert acc.basic_composition([0.1, 0.2, 0.7]) == pytest.approx(1.0)
    for epsilon, k, delta in [(0.1, 10, 1e-5), (1.0, 100, 1e-6), (0.01, 10_000, 1e-3)]:
        expected = math.sqrt(2 * k * math.log(1 / delta)) * epsilon + k * epsilon * (math.exp(epsilon) - 1)
        assert acc.advanced_composition(epsilon, k, delta) == pytest.approx(expected, rel=1e-12)


def test_thesis_s5_2_bound_is_the_printed_formula_and_differs_from_thm_2_13():
    epsilon, c, delta = 0.5, 17, 1e-5
    ce = c * epsilon
    t = ce / (1 - math.exp(-ce))
    printed = min(ce, t - 1 - math.log(t) + math.sqrt(0.5 * c * epsilon**2 * math.log(1 / delta)))
    assert acc.thesis_s5_2_bound(epsilon, c, delta) == pytest.approx(printed, rel=1e-12)
    assert acc.thesis_s5_2_bound(epsilon, c, delta) != pytest.approx(acc.br_composition([epsilon] * c, delta))


def test_zcdp_conversions():
    assert acc.zcdp_from_pure(0.3) == pytest.approx(0.045)
    assert acc.dp_from_zcdp(0.5, 1e-6) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))


def kov_delta_independent(epsilon0, k, epsilon):
    """KOV's exact delta, written with scipy's binomial pmf."""
    p = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    i = np.arange(k + 1)
    loss = epsilon0 * (k - 2 * i)
    mass = binom.pmf(k - i, k, p)
    return float(np.sum(np.where(loss > epsilon, mass * (1 - np.exp(epsilon - loss)), 0.0)))


@pytest.mark.parametrize("epsilon0", [0.01, 0.1, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("k", [1, 2, 8, 16, 33, 64])
def test_pld_of_randomized_response_matches_the_exact_optimal_composition(epsilon0, k):
    delta = 1e-5
    exact = acc.optimal_pure_composition_epsilon(epsilon0, k, delta)
    assert kov_delta_independent(epsilon0, k, exact) == pytest.approx(delta, rel=1e-6, abs=1e-15) or exact == 0
    numerical = acc.pld_epsilon([("randomized_response", epsilon0)] * k, delta, numerical=True)
    assert numerical == pytest.approx(exact, rel=1e-3)  # dp_accounting against the binomial formula
    assert acc.pld_epsilon([("randomized_response", epsilon0)] * k, delta) == exact


def test_pld_delta_is_the_inverse_of_pld_epsilon():
    events = [("laplace", 0.3)] * 10 + [("gaussian", 4.0)] * 3
    epsilon = acc.pld_epsilon(events, 1e-6)
    assert acc.pld_delta(events, epsilon) == pytest.approx(1e-6, rel=0.05)


def test_long_compositions_do_not_overflow():
    # dp_accounting overflows past a composed loss of about 709; the exact route does not.
    assert acc.pld_epsilon([("randomized_response", 3.5)] * 208, 1e-5) == pytest.approx(728, rel=1e-3)
    mixed = [("randomized_response", 3.5)] * 150 + [("randomized_response", 4.0)] * 60
    assert acc.pld_epsilon(mixed, 1e-5) <= 3.5 * 150 + 4.0 * 60
    assert math.isfinite(acc.pld_epsilon(mixed, 1e-5))


def test_pld_of_one_laplace_and_one_pure_step_is_epsilon():
    assert acc.pld_epsilon([("laplace", 0.7)], 1e-9) == pytest.approx(0.7, rel=1e-3)
    assert acc.pld_epsilon([("pure", 0.7)], 1e-9) == pytest.approx(0.7, rel=1e-3)


def test_pld_of_gaussian_matches_the_analytic_gaussian_delta():
    # Balle and Wang 2018: delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s).
    from scipy.stats import norm
    sigma, epsilon = 2.0, 0.5
    exact = norm.cdf(1 / (2 * sigma) - epsilon * sigma) - math.exp(epsilon) * norm.cdf(-1 / (2 * sigma) - epsilon * sigma)
    assert acc.pld_delta([("gaussian", sigma)], epsilon) == pytest.approx(exact, rel=1e-3)


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0])
@pytest.mark.parametrize("k", [1, 10, 100, 1000, 10_000])
def test_ordering_where_theory_says_it_holds(epsilon, k):
    delta = 1e-6
    basic = acc.basic_composition([epsilon] * k)
    tight = acc.optimal_pure_composition_epsilon(epsilon, k, delta)
    # Any valid bound for epsilon-DP steps is at least the optimal composition ...
    assert basic >= tight - 1e-12
    assert acc.advanced_composition(epsilon, k, delta) >= tight - 1e-12
    # ... and epsilon-DP randomized response is 2 epsilon-BR, so Thm 2.13 at 2 epsilon is valid too.
    assert acc.br_composition([2 * epsilon] * k, delta) >= tight - 1e-12
    # Thm 2.13 never exceeds basic composition (it is a min with the sum).
    assert acc.br_composition([epsilon] * k, delta) <= basic + 1e-12


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="epsilons must contain only finite numbers >= 0"):
        acc.br_composition([0.1, -1], 1e-5)
    with pytest.raises(ValueError, match="epsilons must be a non-empty list"):
        acc.basic_composition([])
    with pytest.raises(ValueError, match=r"delta must be a real number in \(0, 1\)"):
        acc.br_composition([0.1], 0.0)
    with pytest.raises(ValueError, match=r"delta_prime must be a real number in \(0, 1\)"):
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
    with pytest.raises(ValueError, match="kind must be one of"):
        acc.Accountant().spend("gumbel", 1.0)
    with pytest.raises(ValueError, match="count must be an integer >= 1"):
        acc.Accountant().spend("exponential", 1.0, count=0)
    with pytest.raises(ValueError, match="method must be one of"):
        acc.Accountant().spend("exponential", 1.0).epsilon(1e-5, method="magic")
    with pytest.raises(ValueError, match="method must be 'pld' or 'zcdp'"):
        acc.Accountant().spend("gaussian", 2.0).epsilon(1e-5, method="br")


spends = st.lists(
    st.tuples(st.sampled_from(["exponential", "randomized_response", "laplace", "pure"]),
              st.floats(0.0, 3.0), st.integers(1, 5)),
    min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(spends, st.randoms(use_true_random=False))
def test_accountant_is_order_independent(items, random):
    shuffled = list(items)
    random.shuffle(shuffled)
    a, b = acc.Accountant(), acc.Accountant()
    for kind, epsilon, count in items:
        a.spend(kind, epsilon, count)
    for kind, epsilon, count in shuffled:
        for _ in range(count):  # spending one at a time is the same as spending count at once
            b.spend(kind, epsilon)
    for method in ("basic", "advanced", "br", "zcdp"):
        assert a.epsilon(1e-6, method) == pytest.approx(b.epsilon(1e-6, method), rel=1e-12)
    assert a.compositions == b.compositions


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["exponential", "laplace", "pure"]), st.integers(1, 50)),
                min_size=1, max_size=4))
def test_zero_spends_give_zero(items):
    a = acc.Accountant()
    for kind, count in items:
        a.spend(kind, 0.0, count)
    for method in acc.Accountant.METHODS:
        assert a.epsilon(1e-6, method) == 0.0


def test_empty_accountant_is_zero_and_exponential_uses_its_br_parameter():
    assert acc.Accountant().epsilon(1e-5, "pld") == 0.0
    a = acc.Accountant().spend("exponential", 0.5, 19)
    assert a.epsilon(1e-5, "br") == pytest.approx(acc.br_composition([0.5] * 19, 1e-5))
    assert a.epsilon(method="basic") == pytest.approx(9.5)
    rr = acc.Accountant().spend("randomized_response", 0.25, 19)
    assert rr.epsilon(1e-5, "br") == pytest.approx(acc.br_composition([0.5] * 19, 1e-5))
    assert rr.epsilon(1e-5, "pld") == pytest.approx(acc.optimal_pure_composition_epsilon(0.25, 19, 1e-5), rel=1e-3)
