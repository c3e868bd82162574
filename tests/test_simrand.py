"""Tests of dpnn.simrand: SimHash, SimRand, the Gaussian random-projection baseline,
k-NN search.

Statistical tests use fixed seeds; each states its false-failure rate (for a
correct implementation, over the choice of seed). Privacy checks come in pairs
with a negative control that must be caught.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from companion.audit import binned_loss
from companion.studies import simrand
from dpnn import data
from dpnn import simrand as s

FALSE_ALARM = 1e-3


# --- SimHash --------------------------------------------------------------------------


def test_simhash_bits_are_signs_of_projection():
    r = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])
    x = np.array([[2.0, -1.0], [0.0, 0.0]])
    np.testing.assert_array_equal(
        s.simhash(x, r), [[True, False, False], [True, True, True]]
    )
    assert s.simhash(np.array([1.0, 1.0]), r).shape == (1, 3)


def test_hamming_matches_direct_count():
    rng = np.random.default_rng(0)
    a = rng.random((7, 13)) < 0.5
    b = rng.random((5, 13)) < 0.5
    direct = (a[:, None, :] != b[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(s.hamming(a, b), direct)


def test_angles_and_collision_probability_exact_values():
    a = np.array([[1.0, 0.0]])
    b = np.array([[1.0, 1.0], [0.0, 3.0], [-2.0, 0.0]])
    np.testing.assert_allclose(s.angles(a, b), [[np.pi / 4, np.pi / 2, np.pi]])
    np.testing.assert_allclose(
        s.collision_probability([0, np.pi / 4, np.pi]), [1, 0.75, 0]
    )
    assert s.angle_from_hamming(16, 64) == pytest.approx(np.pi / 4)


def test_simhash_collision_rate_is_one_minus_theta_over_pi():
    # 200,000 hyperplanes; the count is Binomial, so |z| > 3.29 has probability 1e-3.
    rng = np.random.default_rng(1)
    theta = 1.0
    u = np.array([1.0, 0.0, 0.0])
    v = np.array([math.cos(theta), math.sin(theta), 0.0])
    k = 200_000
    r = s.projection(k, 3, rng)
    h = int(s.hamming(s.simhash(u, r), s.simhash(v, r))[0, 0])
    q = theta / np.pi
    z = (h - k * q) / math.sqrt(k * q * (1 - q))
    assert abs(z) < stats.norm.isf(FALSE_ALARM / 2)


# --- Sensitivity K and the flip probability -------------------------------------------


def test_sensitivity_bound_is_smallest_k_with_tail_below_delta():
    for k, alpha, delta in [
        (64, np.pi / 8, 1e-5),
        (12, np.pi / 4, 1e-2),
        (256, 0.3, 1e-6),
    ]:
        big_k = s.sensitivity_bound(k, alpha, delta)
        q = alpha / np.pi
        assert stats.binom.sf(big_k, k, q) <= delta
        assert big_k == 1 or stats.binom.sf(big_k - 1, k, q) > delta
    # independent value: Binomial(10, 1/2) > 8 has probability 11/1024
    assert s.sensitivity_bound(10, np.pi / 2, 11 / 1024) == 8
    assert s.sensitivity_bound(10, np.pi / 2, 10 / 1024) == 9
    # alpha = pi: all bits always differ
    assert s.sensitivity_bound(10, np.pi, 0.5) == 10


def test_chernoff_sensitivity_is_valid_and_never_below_exact():
    for k in (8, 64, 512):
        for alpha in (0.05, 0.5, 2.0):
            for delta in (1e-2, 1e-6):
                exact = s.sensitivity_bound(k, alpha, delta)
                chernoff = s.sensitivity_bound(k, alpha, delta, method="chernoff")
                assert exact <= chernoff <= k
                assert stats.binom.sf(chernoff, k, alpha / np.pi) <= delta


def test_flip_probability_is_randomized_response_at_epsilon_over_k():
    assert s.flip_probability(2.0, 4) == pytest.approx(1 / (1 + math.exp(0.5)))
    assert s.flip_probability(math.log(3), 1) == pytest.approx(0.25)


def _popcount(values):
    values = np.asarray(values, dtype=np.int64)
    count = np.zeros_like(values)
    for bit in range(20):
        count += (values >> bit) & 1
    return count


@pytest.mark.parametrize("k", range(1, 13))
def test_likelihood_ratio_bounded_exhaustively_when_at_most_k_bits_differ(k):
    """Every output, every pair of hashes differing in <= K bits: ratio <= e^epsilon (k
    <= 12).

    Flipping is XOR-equivariant (P(z | b) depends only on z XOR b), so all pairs
    (b, b') are covered by b ranging over all 2^k hashes and b' = b XOR m for
    every mask m; we check that directly for k <= 6 and via b = 0 above.
    """
    epsilon, alpha, delta = 1.0, np.pi / 4, 1e-2
    big_k = s.sensitivity_bound(k, alpha, delta)
    p = s.flip_probability(epsilon, big_k)
    outputs = np.arange(2**k)
    bases = outputs if k <= 6 else np.array([0])
    masks = outputs
    weights = _popcount(masks)
    log_p = {}
    for b in bases:
        bits = (b >> np.arange(k - 1, -1, -1)) & 1
        log_p[b] = s.exact_output_log_probabilities(bits, p)
        # check the library's exact distribution against the popcount formula
        m = _popcount(outputs ^ b)
        np.testing.assert_allclose(log_p[b], m * np.log(p) + (k - m) * np.log1p(-p))
    for b in bases:
        for weight in range(0, k + 1):
            chosen = masks[weights == weight]
            others = np.stack(
                [
                    s.exact_output_log_probabilities(
                        (b ^ mask) >> np.arange(k - 1, -1, -1) & 1, p
                    )
                    for mask in chosen
                ]
            )
            worst = np.max(np.abs(log_p[b][None, :] - others))
            assert worst == pytest.approx(weight * epsilon / big_k, abs=1e-9)
            if weight <= big_k:
                assert worst <= epsilon + 1e-12
            else:  # negative control: beyond K the bound must fail
                assert worst > epsilon


def test_exact_delta_is_at_most_binomial_tail():
    for k, alpha, delta, epsilon in [
        (12, np.pi / 4, 1e-2, 1.0),
        (64, np.pi / 8, 1e-4, 2.0),
    ]:
        big_k = s.sensitivity_bound(k, alpha, delta)
        achieved = s.exact_delta(epsilon, k, alpha, big_k)
        assert 0 <= achieved <= stats.binom.sf(big_k, k, alpha / np.pi) <= delta
        # with K forced too small, the achieved delta exceeds delta (negative control)
        assert s.exact_delta(epsilon, k, alpha, max(1, big_k // 3)) > delta


def test_exact_delta_brute_force_small_k():
    """exact_delta against enumeration over H and all 2^k outputs for k = 5."""
    k, epsilon, theta, big_k = 5, 1.0, 1.2, 2
    p = s.flip_probability(epsilon, big_k)
    total = 0.0
    for h in range(k + 1):
        b = np.zeros(k, dtype=int)
        b2 = b.copy()
        b2[:h] = 1
        pa = np.exp(s.exact_output_log_probabilities(b, p))
        pb = np.exp(s.exact_output_log_probabilities(b2, p))
        total += (
            stats.binom.pmf(h, k, theta / np.pi) * np.maximum(pa - np.e * pb, 0).sum()
        )
    assert s.exact_delta(epsilon, k, theta, big_k) == pytest.approx(total, rel=1e-10)


def test_simrand_flips_are_epsilon_dp_empirically():
    """Audit flip_bits on hashes differing in K bits (pass) and 2K bits (must be
    caught)."""
    rng = np.random.default_rng(5)
    k, big_k, epsilon, n = 6, 2, 1.0, 400_000
    weights = 2 ** np.arange(k - 1, -1, -1)
    base = np.zeros(k, dtype=bool)
    near = base.copy()
    near[:big_k] = True
    far = base.copy()
    far[: 2 * big_k] = True

    def counts(bits):
        out = s.flip_bits(np.tile(bits, (n, 1)), epsilon, big_k, rng)
        return np.bincount(out.astype(int) @ weights, minlength=2**k)

    # Three checks share the false-failure rate FALSE_ALARM (Bonferroni, a third each):
    # the audit's lower bound stays <= epsilon; the bin where the loss is exactly
    # epsilon is estimated within its z-standard errors; the negative control (2K bits,
    # loss 2 epsilon) is caught.
    c_base = counts(base)
    loss = binned_loss(c_base, counts(near), FALSE_ALARM / 3)
    assert loss.lower_bound <= epsilon
    worst = np.argmax(np.abs(loss.log_ratio))
    z = stats.norm.isf(FALSE_ALARM / 6 / len(loss.bins))
    assert abs(np.abs(loss.log_ratio[worst]) - epsilon) < z * loss.standard_error[worst]
    control = binned_loss(c_base, counts(far), FALSE_ALARM / 3)
    assert control.lower_bound > epsilon


def test_flip_bits_rate():
    # 10^6 Bernoulli(p) flips; |z| > 3.29 has probability 1e-3.
    rng = np.random.default_rng(6)
    p = s.flip_probability(1.0, 3)
    out = s.flip_bits(np.zeros((1000, 1000), dtype=bool), 1.0, 3, rng)
    z = (out.sum() - 1e6 * p) / math.sqrt(1e6 * p * (1 - p))
    assert abs(z) < stats.norm.isf(FALSE_ALARM / 2)


# --- The de-biased angle estimator ----------------------------------------------------


@pytest.mark.parametrize("both", [False, True])
def test_debiased_angle_is_unbiased_over_1e5_trials(both):
    """10^5 independent runs of the whole pipeline (fresh R and flips each run).

    Mean within 3 standard errors (false-failure rate 0.27%), and the sample
    variance within 3% of the analytic one (its relative SE is about 0.45%).
    """
    rng = np.random.default_rng(7 + both)
    trials, k, d, theta, epsilon, big_k = 100_000, 32, 8, 0.9, 2.0, 8
    u = np.zeros(d)
    u[0] = 1.0
    v = np.zeros(d)
    v[:2] = math.cos(theta), math.sin(theta)
    p = s.flip_probability(epsilon, big_k)
    r = rng.standard_normal((trials, k, d))
    bu = (r @ u) >= 0
    bv = (r @ v) >= 0
    zu = s.flip_bits(bu, epsilon, big_k, rng)
    zv = s.flip_bits(bv, epsilon, big_k, rng) if both else bv
    h = (zu != zv).sum(axis=1)
    estimates = s.debiased_angle(h, k, p, both_flipped=both)
    std = s.debiased_angle_std(theta, k, p, both_flipped=both)
    assert abs(estimates.mean() - theta) < 3 * std / math.sqrt(trials)
    assert estimates.std(ddof=1) == pytest.approx(std, rel=0.03)
    # the naive estimator pi h / k is biased (towards pi/2): the de-biasing matters
    assert abs(s.angle_from_hamming(h, k).mean() - theta) > 10 * std / math.sqrt(trials)


def test_chebyshev_radius_covers():
    rng = np.random.default_rng(9)
    k, theta, p, failure = 64, 0.7, 0.3, 0.1
    big_p = s.flipped_difference_probability(theta, p)
    assert big_p == pytest.approx(p + (1 - 2 * p) * theta / np.pi)
    h = rng.binomial(k, big_p, size=200_000)
    t = s.chebyshev_radius(theta, k, p, failure)
    assert t == pytest.approx(s.debiased_angle_std(theta, k, p) / math.sqrt(failure))
    assert np.mean(np.abs(s.debiased_angle(h, k, p) - theta) >= t) <= failure


# --- The Gaussian baseline ------------------------------------------------------------


def test_classical_sigma_formula():
    assert s.gaussian_sigma_classical(2.0, 0.5, 1e-5) == pytest.approx(
        2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5
    )
    with pytest.raises(ValueError, match="epsilon"):
        s.gaussian_sigma_classical(1.0, 1.0, 1e-5)


@pytest.mark.parametrize(
    "epsilon,delta,sensitivity",
    [(0.1, 1e-5, 1.0), (1.0, 1e-6, 0.3), (4.0, 1e-3, 2.0), (20.0, 1e-8, 1.0)],
)
def test_analytic_sigma_matches_dp_accounting(epsilon, delta, sensitivity):
    """Balle-Wang sigma solves delta(sigma) = delta, checked with Google's
    dp_accounting."""
    from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss

    sigma = s.gaussian_sigma_analytic(sensitivity, epsilon, delta)
    reference = GaussianPrivacyLoss(
        sigma, sensitivity=sensitivity
    ).get_delta_for_epsilon(epsilon)
    assert reference == pytest.approx(delta, rel=1e-6)
    assert s.gaussian_delta(sigma, sensitivity, epsilon) == pytest.approx(
        delta, rel=1e-9
    )
    assert (
        GaussianPrivacyLoss(
            0.99 * sigma, sensitivity=sensitivity
        ).get_delta_for_epsilon(epsilon)
        > delta
    )
    if epsilon < 1:
        assert sigma < s.gaussian_sigma_classical(sensitivity, epsilon, delta)


def test_projection_sensitivity_is_chi_square_quantile():
    k, alpha, delta = 16, 0.4, 1e-3
    value = s.projection_sensitivity(k, alpha, delta)
    assert value == pytest.approx(
        2 * math.sin(0.2) * math.sqrt(stats.chi2.isf(1e-3, 16) / 16)
    )
    # simulate: fraction of projections stretching a fixed difference beyond the bound
    # <= delta
    rng = np.random.default_rng(10)
    diff = np.zeros(5)
    diff[:2] = [1.0, 0.0]
    diff = diff / np.linalg.norm(diff) * 2 * math.sin(alpha / 2)
    r = rng.standard_normal((400_000, k, 5))
    stretched = np.linalg.norm(r @ diff, axis=1) / math.sqrt(k)
    exceed = np.mean(stretched > value)
    # Binomial(4e5, 1e-3): mean 400, sd 20; 4.5 sd above has probability < 1e-5
    assert exceed <= delta + 4.5 * math.sqrt(delta / 400_000)
    assert exceed >= delta - 4.5 * math.sqrt(delta / 400_000)


def test_baseline_noise_scale_matches_its_calibration():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2000, 10))
    k, epsilon, delta, alpha = 50, 0.5, 1e-5, 0.3
    release = s.gaussian_projection(x, k, epsilon, delta, alpha, rng)
    expected_sensitivity = s.projection_sensitivity(k, alpha, delta / 2)
    assert release.sensitivity == pytest.approx(expected_sensitivity)
    assert release.sigma == pytest.approx(
        s.gaussian_sigma_analytic(expected_sensitivity, epsilon, delta / 2)
    )
    noise = release.points - release.project(x)
    # variance test: sum of squares / sigma^2 ~ chi^2 with 10^5 d.o.f.; two-sided 1e-3
    statistic = np.sum(noise**2) / release.sigma**2
    dof = noise.size
    assert (
        stats.chi2.ppf(FALSE_ALARM / 2, dof)
        < statistic
        < stats.chi2.isf(FALSE_ALARM / 2, dof)
    )
    classical = s.gaussian_projection(
        x, k, epsilon, delta, alpha, rng, calibration="classical"
    )
    assert classical.sigma == pytest.approx(
        s.gaussian_sigma_classical(expected_sensitivity, epsilon, delta / 2)
    )


def test_gaussian_delta_monte_carlo_and_negative_control():
    """delta(eps) = E[(1 - e^(eps - L))_+] under the privacy loss L of real noise draws.

    For the calibrated sigma the estimate must be within 4 SE of delta; with
    sigma halved the estimate must exceed delta by far (negative control).
    """
    rng = np.random.default_rng(12)
    sensitivity, epsilon, delta, n = 1.0, 1.0, 0.05, 400_000

    def estimate(sigma):
        # output on D, centred at f(D) = 0; f(D') = sensitivity
        y = rng.normal(0.0, sigma, size=n)
        loss = ((y - sensitivity) ** 2 - y**2) / (2 * sigma**2)
        terms = np.maximum(1 - np.exp(epsilon - loss), 0)
        return terms.mean(), terms.std(ddof=1) / math.sqrt(n)

    sigma = s.gaussian_sigma_analytic(sensitivity, epsilon, delta)
    mean, se = estimate(sigma)
    assert abs(mean - delta) < 4 * se
    bad, se_bad = estimate(sigma / 2)
    assert bad > delta + 10 * se_bad


def test_squared_distance_estimate_is_unbiased():
    rng = np.random.default_rng(13)
    sigma, k = 0.2, 40
    u = rng.standard_normal((1, k))
    q = rng.standard_normal((1, k))
    z = u + rng.normal(0, sigma, size=(100_000, k))
    est = s.squared_distance_estimate(z, q, sigma)[0]
    target = np.sum((u - q) ** 2)
    assert abs(est.mean() - target) < 4 * est.std(ddof=1) / math.sqrt(est.size)


# --- k-NN search ----------------------------------------------------------------------


def test_knn_without_noise_recovers_exact_neighbours():
    rng = np.random.default_rng(14)
    x, _ = simrand.clustered_vectors(300, 16, 5, 0.3, rng)
    queries = x[:20] + 0.01 * rng.standard_normal((20, 16))
    truth = s.exact_knn_angular(x, queries, 10)
    # the baseline with tiny noise (huge epsilon) in a projection as wide as d x 40
    release = s.gaussian_projection(x, 640, 1e6, 1e-5, 0.01, rng)
    assert s.recall_at(s.knn_euclidean(release, queries, 10), truth).mean() > 0.9
    # SimRand with huge epsilon: SimHash alone with many bits
    sim = s.simrand(x, 4096, 1e6, 1e-5, 0.01, rng)
    assert sim.flip < 1e-9
    assert s.recall_at(s.knn_hamming(sim, queries, 10), truth).mean() > 0.8


def test_knn_matches_brute_force_sort():
    rng = np.random.default_rng(15)
    x = rng.standard_normal((50, 4))
    q = rng.standard_normal((6, 4))
    got = s.exact_knn_angular(x, q, 5)
    cos = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (
        x / np.linalg.norm(x, axis=1, keepdims=True)
    ).T
    np.testing.assert_array_equal(got, np.argsort(-cos, axis=1, kind="stable")[:, :5])
    np.testing.assert_allclose(s.recall_at(got, got), 1.0)
    assert s.recall_at(np.array([[1, 2, 3]]), np.array([[3, 4, 5]]))[
        0
    ] == pytest.approx(1 / 3)


def test_same_seed_same_release():
    x = np.random.default_rng(16).standard_normal((20, 5))
    a = s.simrand(x, 16, 1.0, 1e-3, 0.5, 3)
    b = s.simrand(x, 16, 1.0, 1e-3, 0.5, np.random.default_rng(3))
    np.testing.assert_array_equal(a.bits, b.bits)
    g1 = s.gaussian_projection(x, 8, 1.0, 1e-3, 0.5, 4)
    g2 = s.gaussian_projection(x, 8, 1.0, 1e-3, 0.5, 4)
    np.testing.assert_array_equal(g1.points, g2.points)


def test_datasets_load_offline():
    digits, labels = data.load_vectors("digits")
    assert digits.shape == (1797, 64) and labels.shape == (1797,)
    cancer, _ = data.load_vectors("breast_cancer")
    assert cancer.shape == (569, 30)
    np.testing.assert_allclose(cancer.mean(axis=0), 0, atol=1e-12)
    x, lab = simrand.clustered_vectors(100, 16, 4, 0.2, 0)
    assert x.shape == (100, 16) and set(lab) <= set(range(4))


# --- Bad inputs -----------------------------------------------------------------------

X = np.ones((3, 4))


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: s.sensitivity_bound(10, 0.0, 1e-3), "alpha"),
        (lambda: s.sensitivity_bound(10, -1.0, 1e-3), "alpha"),
        (lambda: s.sensitivity_bound(10, np.pi + 0.01, 1e-3), "alpha"),
        (lambda: s.sensitivity_bound(10, np.nan, 1e-3), "alpha"),
        (lambda: s.sensitivity_bound(0, 0.5, 1e-3), "k"),
        (lambda: s.sensitivity_bound(10, 0.5, 0.0), "delta"),
        (lambda: s.sensitivity_bound(10, 0.5, 1.0), "delta"),
        (lambda: s.sensitivity_bound(10, 0.5, 1e-3, method="magic"), "method"),
        (lambda: s.simrand(X, 0, 1.0, 1e-3, 0.5, 0), "k"),
        (lambda: s.simrand(X, 8, 0.0, 1e-3, 0.5, 0), "epsilon"),
        (lambda: s.simrand(X, 8, -1.0, 1e-3, 0.5, 0), "epsilon"),
        (lambda: s.simrand(X, 8, 1.0, 0.0, 0.5, 0), "delta"),
        (lambda: s.simrand(X, 8, 1.0, 1.5, 0.5, 0), "delta"),
        (lambda: s.simrand(X, 8, 1.0, 1e-3, 0.0, 0), "alpha"),
        (lambda: s.simrand(X, 8, 1.0, 1e-3, 4.0, 0), "alpha"),
        (lambda: s.simrand(np.full((2, 2), np.nan), 8, 1.0, 1e-3, 0.5, 0), "x"),
        (lambda: s.gaussian_projection(X, 0, 1.0, 1e-3, 0.5, 0), "k"),
        (lambda: s.gaussian_projection(X, 4, 0.0, 1e-3, 0.5, 0), "epsilon"),
        (lambda: s.gaussian_projection(X, 4, 1.0, 1.0, 0.5, 0), "delta"),
        (lambda: s.gaussian_projection(X, 4, 1.0, 1e-3, 0.0, 0), "alpha"),
        (
            lambda: s.gaussian_projection(X, 4, 1.0, 1e-3, 0.5, 0, calibration="x"),
            "calibration",
        ),
        (
            lambda: s.gaussian_projection(np.zeros((2, 3)), 4, 1.0, 1e-3, 0.5, 0),
            "zero rows",
        ),
        (lambda: s.gaussian_sigma_analytic(1.0, 1.0, 0.0), "delta"),
        (lambda: s.gaussian_sigma_analytic(0.0, 1.0, 0.1), "sensitivity"),
        (lambda: s.gaussian_sigma_classical(1.0, -1.0, 0.1), "epsilon"),
        (lambda: s.flip_probability(1.0, 0), "sensitivity"),
        (lambda: s.flip_bits(np.array([0, 2]), 1.0, 1, 0), "bits"),
        (lambda: s.debiased_angle(3, 0, 0.1), "k"),
        (lambda: s.debiased_angle(3, 8, 0.5), "p"),
        (lambda: s.projection(0, 3, 0), "k"),
        (lambda: s.simhash(np.ones(3), np.ones((4, 2))), "r"),
        (lambda: s.exact_delta(1.0, 8, 4.0, 2), "theta"),
        (lambda: s.chebyshev_radius(0.5, 8, 0.1, 0.0), "failure"),
        (
            lambda: s.knn_hamming(s.simrand(X, 8, 1.0, 1e-3, 0.5, 0), X, 4),
            "n_neighbours",
        ),
        (lambda: data.load_vectors("mnist"), "name"),
        (lambda: simrand.clustered_vectors(10, 1, 2, 0.1, 0), "d"),
    ],
)
def test_bad_inputs_raise_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_simulate_hamming_is_binomial_with_flipped_rate():
    # mean of 50,000 Binomial(k, P) draws within 3.29 SE (false-failure rate 1e-3)
    rng = np.random.default_rng(17)
    k, theta, epsilon, big_k, trials = 40, 0.8, 2.0, 5, 50_000
    h = s.simulate_hamming(theta, k, epsilon, big_k, trials, rng, chunk=7000)
    big_p = s.flipped_difference_probability(theta, s.flip_probability(epsilon, big_k))
    assert h.shape == (trials,)
    assert abs(h.mean() - k * big_p) < stats.norm.isf(FALSE_ALARM / 2) * math.sqrt(
        k * big_p * (1 - big_p) / trials
    )


def test_simrand_plot_helpers_return_figures_without_touching_rcparams():
    import matplotlib
    import matplotlib.pyplot as plt

    from companion import plots

    before = dict(matplotlib.rcParams)
    fig = plots.theory_vs_simulation(
        [1, 2, 3],
        {"a": [1, 2, 3]},
        {"a": [1.1, 2, 2.9]},
        errors={"a": [0.1, 0.1, 0.1]},
        xlabel="x",
        ylabel="y",
    )
    assert isinstance(fig, matplotlib.figure.Figure)
    fig2 = plots.recall_panels(
        [1, 2],
        {"p1": {"m": [0.1, 0.2]}, "p2": {"m": [0.3, 0.4]}},
        xlabel="eps",
        ncols=3,
    )
    assert len([ax for ax in fig2.axes if ax.axison]) == 2
    assert dict(matplotlib.rcParams) == before
    plt.close("all")


def test_recall_table_shape_and_extremes():
    x, _ = simrand.clustered_vectors(120, 8, 3, 0.3, 0)
    table = simrand.recall_table(
        x,
        [0.01, np.pi / 2],
        [2048],
        [1e-3, 1e6],
        n_queries=20,
        n_neighbours=5,
        repeats=2,
        delta=1e-5,
        rng=1,
    )
    assert len(table) == 2 * 2 * 2
    assert set(table.method) == {"SimRand", "Gaussian RP"}
    assert table.recall.between(0, 1).all() and (table.se >= 0).all()
    # epsilon = 1e6, alpha = 0.01: almost no noise, and 2048 projected dimensions
    # distort little. Deterministic given the seed; the threshold 0.9 is far below the
    # recall the noiseless projection reaches (1.0 here), so this checks the wiring, not
    # a rate.
    best = table[
        (table.method == "Gaussian RP")
        & (table.epsilon == 1e6)
        & (table["alpha/pi"] < 0.1)
    ]
    assert best.recall.iloc[0] > 0.9
    with pytest.raises(ValueError, match="n_queries"):
        simrand.recall_table(
            x,
            [0.1],
            [8],
            [1.0],
            n_queries=118,
            n_neighbours=5,
            repeats=1,
            delta=1e-5,
            rng=0,
        )


def test_recall_standard_error_over_projections():
    from companion.studies import simrand as studies

    # three releases whose queries score 0.1, 0.2, 0.3: std(0.1, 0.2, 0.3) / sqrt(3)
    out = studies._errors([np.full(50, 0.1), np.full(50, 0.2), np.full(50, 0.3)])
    assert out["se_projections"] == pytest.approx(0.1 / np.sqrt(3))
    # constant queries within a release: all the variation is between projections
    assert out["se"] == pytest.approx(0.1 / np.sqrt(3))
    assert out["se_queries"] < out["se"]
    one = studies._errors([np.full(50, 0.1)])
    assert np.isnan(one["se_projections"]) and one["se"] == one["se_queries"]
    x, _ = simrand.clustered_vectors(120, 8, 3, 0.3, 0)
    table = simrand.recall_table(
        x,
        [np.pi / 4],
        [16],
        [4.0],
        n_queries=20,
        n_neighbours=5,
        repeats=3,
        delta=1e-5,
        rng=1,
    )
    assert (table.se_projections >= 0).all() and table.se_projections.notna().all()
    assert (table.se >= table.se_projections - 1e-15).all()


def test_estimator_study_matches_its_parts():
    import numpy as np

    from dpnn import simrand as sr

    table = simrand.estimator_study(
        1.0, [32, 64], [2.0, 8.0], np.pi / 4, 1e-5, 2000, np.random.default_rng(0)
    )
    assert list(table["k"]) == [32, 32, 64, 64] and list(table["epsilon"]) == [
        2.0,
        8.0,
        2.0,
        8.0,
    ]
    assert table["K"].iloc[0] == sr.sensitivity_bound(32, np.pi / 4, 1e-5)
    # Unbiased: four means, each within z standard errors (z for FALSE_ALARM / 8
    # two-sided per mean).
    z = stats.norm.isf(FALSE_ALARM / 2 / 4 / 2)
    assert np.all(np.abs(table["mean"] - 1.0) < z * table["se"])
    # The sample std of 2000 trials has relative standard error about 1/sqrt(2 (2000 -
    # 1)) = 0.0158 (normal approximation); z of the other half of FALSE_ALARM over four
    # cases.
    assert np.all(
        np.abs(table["std"] / table["std_theory"] - 1) < z / math.sqrt(2 * 1999)
    )


def test_recall_table_ceiling_leaves_the_private_rows_unchanged():
    vectors, _ = data.load_vectors("digits")
    args = dict(n_queries=60, n_neighbours=10, repeats=1, delta=1e-5)
    plain = simrand.recall_table(
        vectors, [np.pi / 8], [16], [1, 16], rng=np.random.default_rng(0), **args
    )
    both = simrand.recall_table(
        vectors,
        [np.pi / 8],
        [16],
        [1, 16],
        rng=np.random.default_rng(0),
        ceiling=True,
        **args,
    )
    private = both[~both.method.str.contains("no noise")].reset_index(drop=True)
    assert plain.equals(private)  # the ceiling draws from a child generator
    ceiling = both[both.method.str.contains("no noise")]
    assert set(ceiling.method) == {"SimHash, no noise", "JL projection, no noise"}
    assert ceiling.recall.between(0, 1).all() and len(ceiling) == 4
    # one value per (k, method), repeated over epsilon
    assert ceiling.groupby("method").recall.nunique().eq(1).all()


@pytest.mark.parametrize(
    "case",
    [
        "continuous",
        "integer ties",
        "all equal",
        "sorted rows",
        "reversed rows",
        "one row",
        "n = N",
        "n = 1",
    ],
)
def test_smallest_indices_are_the_n_smallest_by_score_then_index(case):
    """Against a full sort of every row by (score, index), the brute-force answer."""
    rng = np.random.default_rng(11)
    m, n_rows, n = 40, 257, 10
    scores = {
        "continuous": rng.random((m, n_rows)),
        "integer ties": rng.integers(0, 6, (m, n_rows)).astype(float),
        "all equal": np.zeros((m, n_rows)),
        "sorted rows": np.sort(rng.integers(0, 30, (m, n_rows)), axis=1).astype(float),
        "reversed rows": np.sort(rng.random((m, n_rows)), axis=1)[:, ::-1],
        "one row": rng.integers(0, 3, (1, n_rows)).astype(float),
        "n = N": rng.integers(0, 4, (m, n)).astype(float),
        "n = 1": rng.random((m, n_rows)),
    }[case]
    n = 1 if case == "n = 1" else n
    expected = np.array([np.lexsort((np.arange(row.size), row))[:n] for row in scores])
    np.testing.assert_array_equal(s.smallest_indices(scores, n), expected)


def test_smallest_indices_rows_and_unit_rows_by_hand():
    scores = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, -1.0, 4.0]])
    np.testing.assert_array_equal(s.smallest_indices(scores, 2), [[1, 3], [2, 0]])
    np.testing.assert_array_equal(s.check_rows([1, 2, 3]), [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="queries"):
        s.check_rows([[1.0, np.nan]], "queries")
    np.testing.assert_allclose(
        s.unit_rows(np.array([[3.0, 4.0], [0.0, 2.0]])), [[0.6, 0.8], [0.0, 1.0]]
    )
    with pytest.raises(ValueError, match="no zero rows"):
        s.unit_rows(np.array([[1.0, 1.0], [0.0, 0.0]]))


def test_hamming_of_many_bits_is_exact():
    rng = np.random.default_rng(12)
    a, b = rng.random((30, 5000)) < 0.5, rng.random((40, 5000)) < 0.3
    direct = (a[:, None, :] != b[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(s.hamming(a, b), direct)


def test_hamming_is_exact_up_to_its_bound_and_refuses_more_bits():
    # float32 holds every integer below 2^24: the largest count allowed is exact
    bits = 2**24 - 1
    ones, zeros = np.ones((1, bits), dtype=bool), np.zeros((2, bits), dtype=bool)
    np.testing.assert_array_equal(s.hamming(ones, zeros), [[bits, bits]])
    with pytest.raises(ValueError, match="fewer than 2\\^24 bits"):
        s.hamming(np.ones((1, 2**24), dtype=bool), np.zeros((1, 2**24), dtype=bool))
    with pytest.raises(ValueError, match="same number of bits"):
        s.hamming(ones[:, :5], zeros[:, :6])


def _recall_rows(settings):
    """A recall_table-like frame from {(alpha/pi, k, epsilon): ((r1, se1), (r2,
    se2))}."""
    rows = []
    for (a, k, e), pairs in settings.items():
        for method, (r, se) in zip(("SimRand", "Gaussian RP"), pairs):
            rows.append(
                {
                    "alpha/pi": a,
                    "k": k,
                    "epsilon": e,
                    "method": method,
                    "recall": r,
                    "se": se,
                }
            )
    return pd.DataFrame(rows)


def test_winners_apply_three_standard_errors_and_the_margin():
    # se difference = hypot(0.03, 0.04) = 0.05, so 3 SE = 0.15 beats the margin 0.02
    settings = {
        (0.5, 16, 1.0): ((0.60, 0.03), (0.44, 0.04)),  # +0.16 > 0.15: SimRand
        (0.5, 16, 2.0): ((0.60, 0.03), (0.46, 0.04)),  # +0.14: tie
        (0.5, 64, 1.0): ((0.30, 0.03), (0.46, 0.04)),  # -0.16: baseline
        (0.5, 64, 2.0): ((0.330, 0.0), (0.300, 0.0)),  # +0.03 > margin, SE 0
        (0.5, 64, 4.0): ((0.315, 0.0), (0.300, 0.0)),  # +0.015 < margin 0.02
    }
    wide = simrand.winners(_recall_rows(settings), 0.02)
    assert list(wide.winner) == ["SimRand", "tie", "Gaussian RP", "SimRand", "tie"]
    np.testing.assert_allclose(wide["se difference"], [0.05, 0.05, 0.05, 0, 0])
    np.testing.assert_allclose(wide.difference, [0.16, 0.14, -0.16, 0.03, 0.015])
    assert list(simrand.wins_by_setting(wide)["SimRand wins at ε"]) == ["1", "2"]
    assert list(simrand.wins_by_setting(wide)["baseline wins at ε"]) == ["none", "1"]
    for bad in (-0.01, float("nan"), float("inf"), "0.02"):
        with pytest.raises(ValueError, match="win_margin"):
            simrand.winners(_recall_rows(settings), bad)


def test_win_sentences_group_budgets_shared_by_several_k():
    wins = {
        (16, 4.0): 0.2,
        (16, 8.0): 0.3,
        (64, 4.0): 0.25,
        (64, 8.0): 0.1,
        (256, 128.0): 0.05,
        (256, 4.0): -0.4,
    }
    settings = {
        (0.125, k, e): ((0.5 + d, 0.0), (0.5, 0.0)) for (k, e), d in wins.items()
    }
    wide = simrand.winners(_recall_rows(settings), 0.02)
    assert (
        simrand.won_at(wide, "SimRand")
        == "at ε = 4, 8 for k = 16, 64; at ε = 128 for k = 256"
    )
    assert simrand.won_at(wide, "Gaussian RP") == "at ε = 4 for k = 256"
    assert simrand.largest_win(wide, "SimRand") == "0.80 against 0.50 at k = 16, ε = 8"
    assert (
        simrand.largest_win(wide, "Gaussian RP")
        == "0.50 against 0.10 at k = 256, ε = 4"
    )
    only = wide[wide.k == 16]
    assert simrand.wins_sentence(only) == (
        "SimRand wins at ε = 4, 8 for k = 16 (largest win 0.80 against 0.50 at k = 16, "
        "ε = 8); the baseline wins nowhere"
    )
    assert (simrand.pi_text(1), simrand.pi_text(0.125), simrand.pi_text(0.03125)) == (
        "π",
        "π/8",
        "π/32",
    )
