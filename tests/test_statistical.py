"""Samplers against their known distributions, with fixed seeds.

Each test rejects at level ALPHA = 1e-3: were the seed drawn at random, a
correct sampler would fail it with probability 1e-3 (the false-failure rate);
a test that runs several tests divides ALPHA between them (Bonferroni). With the
fixed seeds the outcome is deterministic. Every parametrized case draws from its
own stream, seeded from the test and the case's parameters (``rng_for``), so two
cases never see the same uniforms rescaled.
"""

import numpy as np
import pytest
from scipy import stats

from dpnn import mechanisms as m

ALPHA = 1e-3
N = 40_000


def rng_for(test: int, *parameters) -> np.random.Generator:
    """A stream of its own for each test and each parameter case."""
    return np.random.default_rng(
        [test, *(int(round(float(p) * 1e6)) for p in parameters)]
    )


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 3.0])
def test_planar_laplace_radius_is_gamma_2(epsilon):
    noise = m.planar_laplace(np.zeros((N, 2)), epsilon, rng_for(11, epsilon))
    radius = np.linalg.norm(noise, axis=1)
    assert stats.kstest(radius, stats.gamma(a=2, scale=1 / epsilon).cdf).pvalue > ALPHA


def test_planar_laplace_angle_is_uniform():
    noise = m.planar_laplace(np.zeros((N, 2)), 0.2, np.random.default_rng(12))
    angle = np.arctan2(noise[:, 1], noise[:, 0])
    assert (
        stats.kstest(angle, stats.uniform(loc=-np.pi, scale=2 * np.pi).cdf).pvalue
        > ALPHA
    )


@pytest.mark.parametrize("dimension", [1, 2, 3, 5, 10])
def test_laplace_ball_radius_is_gamma_d(dimension):
    epsilon = 0.7
    noise = m.laplace_ball(np.zeros((N, dimension)), epsilon, rng_for(13, dimension))
    radius = np.linalg.norm(noise, axis=1)
    assert (
        stats.kstest(radius, stats.gamma(a=dimension, scale=1 / epsilon).cdf).pvalue
        > ALPHA
    )


def test_laplace_ball_in_one_dimension_is_laplace():
    noise = m.laplace_ball(np.zeros(N), 0.25, np.random.default_rng(14))
    assert stats.kstest(noise, stats.laplace(scale=4.0).cdf).pvalue > ALPHA


def test_laplace_ball_direction_is_uniform_on_the_sphere():
    # For a uniform direction u in R^3, each coordinate u_i is uniform on [-1, 1]
    # (Archimedes).
    noise = m.laplace_ball(np.zeros((N, 3)), 1.0, np.random.default_rng(15))
    u = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    for axis in range(3):
        assert (
            stats.kstest(u[:, axis], stats.uniform(loc=-1, scale=2).cdf).pvalue
            > ALPHA / 3
        )


@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 1.0), (3.0, 0.1)])
def test_laplace_noise_has_scale_sensitivity_over_epsilon(sensitivity, epsilon):
    noise = m.laplace(
        np.zeros(N), sensitivity, epsilon, rng_for(16, sensitivity, epsilon)
    )
    assert (
        stats.kstest(noise, stats.laplace(scale=sensitivity / epsilon).cdf).pvalue
        > ALPHA
    )


def test_gaussian_noise_has_scale_sigma():
    noise = m.gaussian(np.zeros(N), 2.5, np.random.default_rng(17))
    assert stats.kstest(noise, stats.norm(scale=2.5).cdf).pvalue > ALPHA


@pytest.mark.parametrize("epsilon, sensitivity", [(1.0, 1.0), (0.3, 0.5), (4.0, 2.0)])
def test_exponential_frequencies_match_probabilities(epsilon, sensitivity):
    utilities = np.array([0.0, 1.0, 2.0, 3.0, 5.0, -2.0])
    rows = np.tile(utilities, (N, 1))
    choices = m.exponential(
        rows, epsilon, sensitivity, rng_for(18, epsilon, sensitivity)
    )
    observed = np.bincount(choices, minlength=utilities.size)
    expected = N * m.exponential_probabilities(utilities, epsilon, sensitivity)
    assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_exponential_uses_each_rows_own_utilities():
    rng = np.random.default_rng(19)
    utilities = np.array([[0.0, 2.0, 0.5], [3.0, 0.0, 0.0]])
    rows = np.repeat(utilities, N // 2, axis=0)
    choices = m.exponential(rows, 1.0, 1.0, rng)
    for r in range(2):
        observed = np.bincount(choices[r * (N // 2) : (r + 1) * (N // 2)], minlength=3)
        expected = (N // 2) * m.exponential_probabilities(utilities[r], 1.0, 1.0)
        assert stats.chisquare(observed, expected).pvalue > ALPHA / 2


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_randomized_response_flip_rate(epsilon):
    bits = rng_for(20, epsilon).integers(0, 2, size=N)
    released = m.randomized_response(bits, epsilon, rng_for(21, epsilon))
    flips = int(np.sum(released != bits))
    flip_probability = 1 / (1 + np.exp(epsilon))
    assert stats.binomtest(flips, N, flip_probability).pvalue > ALPHA
