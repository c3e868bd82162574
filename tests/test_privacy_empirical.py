"""Empirical privacy checks: outputs on two neighbouring inputs, binned.

For every mechanism we histogram the outputs on neighbouring inputs (for
geo-indistinguishability: two locations at distance d) and assert that the
lower confidence bound of ``companion.audit.binned_loss`` on the largest per-bin
log-ratio does not exceed the claimed loss. The bound exceeds a true loss with
probability at most FALSE_ALARM (Bonferroni over bins); so does each test fail
for a correct mechanism. Each check is paired with a negative control, the same
audit applied to a mechanism with half the noise or the wrong noise, which must
be caught: an audit that cannot fail would prove nothing.
"""

import numpy as np
import pytest

from companion.audit import binned_loss, gaussian_privacy_loss
from dpnn import mechanisms as m

FALSE_ALARM = 1e-3
N = 400_000


def _loss_1d(a, b, edges):
    return binned_loss(
        np.histogram(a, edges)[0], np.histogram(b, edges)[0], FALSE_ALARM
    )


def test_laplace_mechanism_is_epsilon_dp():
    epsilon, sensitivity = 1.0, 1.0
    edges = np.linspace(-8, 9, 69)
    rng = np.random.default_rng(100)
    on_d = m.laplace(np.zeros(N), sensitivity, epsilon, rng)
    on_d_prime = m.laplace(np.full(N, sensitivity), sensitivity, epsilon, rng)
    loss = _loss_1d(on_d, on_d_prime, edges)
    assert loss.lower_bound <= epsilon
    # the audit sees the loss the tails really have
    assert loss.estimate >= 0.9 * epsilon
    half_noise = m.laplace(np.full(N, sensitivity), sensitivity, 2 * epsilon, rng)
    half = _loss_1d(
        m.laplace(np.zeros(N), sensitivity, 2 * epsilon, rng), half_noise, edges
    )
    assert half.lower_bound > epsilon


def test_exponential_mechanism_is_epsilon_dp():
    # Worst case of Def. 2.6: one candidate's utility goes down by Delta while
    # all others go up by Delta; the ratio for that candidate tends to e^eps.
    epsilon, sensitivity, candidates = 1.0, 1.0, 50
    u = np.zeros(candidates)
    u[0] = sensitivity
    u_prime = np.full(candidates, sensitivity)
    u_prime[0] = 0.0
    rng = np.random.default_rng(101)

    def counts(utilities, eps):
        return np.bincount(
            m.exponential(np.tile(utilities, (N, 1)), eps, sensitivity, rng),
            minlength=candidates,
        )

    loss = binned_loss(counts(u, epsilon), counts(u_prime, epsilon), FALSE_ALARM)
    exact = np.log(
        m.exponential_probabilities(u, epsilon, sensitivity)[0]
        / m.exponential_probabilities(u_prime, epsilon, sensitivity)[0]
    )
    assert exact <= epsilon
    assert loss.lower_bound <= epsilon
    assert (
        abs(loss.log_ratio[loss.bins == 0][0] - exact)
        < 5 * loss.standard_error[loss.bins == 0][0]
    )
    doubled = binned_loss(
        counts(u, 2 * epsilon), counts(u_prime, 2 * epsilon), FALSE_ALARM
    )
    assert doubled.lower_bound > epsilon


def test_randomized_response_is_epsilon_ldp():
    epsilon = 1.5
    rng = np.random.default_rng(102)
    for eps, holds in [(epsilon, True), (2 * epsilon, False)]:
        from_zero = m.randomized_response(np.zeros(N, dtype=int), eps, rng)
        from_one = m.randomized_response(np.ones(N, dtype=int), eps, rng)
        loss = binned_loss(
            np.bincount(from_zero, minlength=2),
            np.bincount(from_one, minlength=2),
            FALSE_ALARM,
        )
        assert (loss.lower_bound <= epsilon) is holds
    assert loss.estimate == pytest.approx(2 * epsilon, abs=0.1)


def _planar_counts(samples, edges):
    return np.histogram2d(samples[:, 0], samples[:, 1], bins=[edges, edges])[0]


@pytest.mark.parametrize("distance", [0.5, 2.0])
def test_planar_laplace_is_geo_indistinguishable(distance):
    epsilon = 1.0
    edges = np.linspace(-7, 7, 36)
    rng = np.random.default_rng(103)
    x, x_prime = np.zeros((N, 2)), np.tile([distance, 0.0], (N, 1))
    loss = binned_loss(
        _planar_counts(m.planar_laplace(x, epsilon, rng), edges),
        _planar_counts(m.planar_laplace(x_prime, epsilon, rng), edges),
        FALSE_ALARM,
    )
    assert loss.lower_bound <= epsilon * distance
    # Control: Gaussian noise is not geo-indistinguishable. With sigma = 1 / epsilon
    # the log-ratio (2 x d - d^2) / (2 sigma^2) passes epsilon d from x = 1 / epsilon
    # + d / 2 on, where thousands of the draws fall (with a wider sigma, as wide as
    # the Laplace noise, the bins that tell are too sparse to show it at d = 0.5).
    sigma = 1 / epsilon
    wrong = binned_loss(
        _planar_counts(m.gaussian(x, sigma, rng), edges),
        _planar_counts(m.gaussian(x_prime, sigma, rng), edges),
        FALSE_ALARM,
    )
    assert wrong.lower_bound > epsilon * distance


def test_laplace_ball_is_geo_indistinguishable_in_3d():
    # Projecting onto the axis through both points is post-processing: the bound still
    # holds.
    epsilon, distance = 1.0, 1.0
    edges = np.linspace(-8, 9, 52)
    rng = np.random.default_rng(104)
    x = np.zeros((N, 3))
    x_prime = np.tile([distance, 0.0, 0.0], (N, 1))
    loss = _loss_1d(
        m.laplace_ball(x, epsilon, rng)[:, 0],
        m.laplace_ball(x_prime, epsilon, rng)[:, 0],
        edges,
    )
    assert loss.lower_bound <= epsilon * distance
    assert loss.estimate >= 0.8 * epsilon * distance
    half = _loss_1d(
        m.laplace_ball(x, 2 * epsilon, rng)[:, 0],
        m.laplace_ball(x_prime, 2 * epsilon, rng)[:, 0],
        edges,
    )
    assert half.lower_bound > epsilon * distance


def test_gaussian_privacy_loss_is_normal_rho_2rho():
    # rho-zCDP of the Gaussian mechanism, tight: the privacy loss is N(rho, 2 rho).
    sigma, shift = 2.0, np.array([1.0, 2.0])
    rho = shift @ shift / (2 * sigma**2)
    rng = np.random.default_rng(105)
    for noise_sigma, holds in [(sigma, True), (sigma / 2, False)]:
        samples = m.gaussian(np.zeros((N, 2)), noise_sigma, rng)
        loss = gaussian_privacy_loss(samples, np.zeros(2), shift, sigma)
        mean_ok = abs(loss.mean() - rho) < 4.5 * np.sqrt(2 * rho / N)
        var_ok = abs(loss.var() / (2 * rho) - 1) < 4.5 * np.sqrt(2 / N)
        assert bool(mean_ok and var_ok) is holds
