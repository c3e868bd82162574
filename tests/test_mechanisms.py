"""Unit tests of dpnn.mechanisms: shapes, determinism, exact values, extremes."""

import numpy as np
import pytest
from scipy.special import lambertw

from dpnn import mechanisms as m


def test_same_seed_same_output_for_every_sampler():
    calls = [
        lambda r: m.laplace(np.arange(5.0), 1.0, 0.5, r),
        lambda r: m.exponential(np.arange(12.0).reshape(3, 4), 1.0, 1.0, r),
        lambda r: m.randomized_response(np.array([0, 1, 1, 0]), 0.3, r),
        lambda r: m.planar_laplace(np.zeros((6, 2)), 0.1, r),
        lambda r: m.laplace_ball(np.zeros((6, 3)), 0.1, r),
        lambda r: m.gaussian(np.zeros(4), 2.0, r),
    ]
    for call in calls:
        a = call(np.random.default_rng(7))
        b = call(np.random.default_rng(7))
        c = call(7)  # an int seed is the same generator
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_global_random_state_is_untouched():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    m.laplace(np.zeros(10), 1.0, 1.0, 0)
    m.planar_laplace(np.zeros((10, 2)), 1.0, 0)
    np.testing.assert_array_equal(before, np.random.get_state()[1])


def test_shapes_are_preserved():
    rng = np.random.default_rng(0)
    assert m.laplace(np.zeros((3, 4)), 1.0, 1.0, rng).shape == (3, 4)
    assert m.planar_laplace(np.zeros(2), 1.0, rng).shape == (2,)
    assert m.planar_laplace(np.zeros((5, 2)), 1.0, rng).shape == (5, 2)
    assert m.laplace_ball(np.zeros(7), 1.0, rng).shape == (7,)
    assert m.laplace_ball(np.zeros((7, 4)), 1.0, rng).shape == (7, 4)
    assert m.gaussian(np.zeros((2, 3)), 1.0, rng).shape == (2, 3)
    assert isinstance(m.exponential(np.zeros(4), 1.0, 1.0, rng), int)
    assert m.exponential(np.zeros((9, 4)), 1.0, 1.0, rng).shape == (9,)


def test_exponential_probabilities_exact_values():
    # Def. 2.6 written out: exp(eps u / (2 Delta)) normalized.
    utilities = np.array([[0.0, 1.0, 3.0], [2.0, 2.0, -1.0]])
    epsilon, sensitivity = 0.8, 2.0
    weights = np.exp(epsilon * utilities / (2 * sensitivity))
    expected = weights / weights.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(
        m.exponential_probabilities(utilities, epsilon, sensitivity),
        expected,
        rtol=1e-12,
    )


@pytest.mark.parametrize("epsilon", [1e-6, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("magnitude", [1.0, 1e6, 1e12])
def test_exponential_is_stable_for_huge_scores(epsilon, magnitude):
    rng = np.random.default_rng(1)
    utilities = rng.uniform(-magnitude, magnitude, size=(200, 5))
    probabilities = m.exponential_probabilities(utilities, epsilon, 1.0)
    assert np.all(np.isfinite(probabilities))
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-12)
    choice = m.exponential(utilities, epsilon, 1.0, rng)
    assert choice.dtype.kind == "i" and np.all((choice >= 0) & (choice < 5))
    # the scores are so far apart that the best candidate is certain
    if epsilon * magnitude >= 1e9:
        np.testing.assert_array_equal(choice, utilities.argmax(axis=1))


def test_exponential_never_selects_a_zero_probability_candidate():
    utilities = np.array([[0.0, 1e12, -1e12]])
    choices = m.exponential(np.repeat(utilities, 1000, axis=0), 1e6, 1.0, 0)
    assert np.all(choices == 1)


def test_keep_probability_is_the_logistic_function():
    for epsilon in [1e-3, 0.5, 1.0, 5.0, 800.0]:
        expected = np.exp(epsilon) / (1 + np.exp(epsilon)) if epsilon < 700 else 1.0
        assert m.keep_probability(epsilon) == pytest.approx(expected, rel=1e-12)


def test_randomized_response_keeps_dtype():
    bits = np.array([True, False, True])
    assert m.randomized_response(bits, 1.0, 0).dtype == bool
    ints = np.array([1, 0, 1], dtype=np.int8)
    assert m.randomized_response(ints, 1.0, 0).dtype == np.int8


def test_planar_radius_inverts_the_cdf():
    # C(r) = 1 - (1 + eps r) exp(-eps r), Andrés et al. Eq. (1).
    epsilon = 0.37
    p = np.linspace(0, 0.999999, 1001)
    r = m.planar_laplace_radius(p, epsilon)
    np.testing.assert_allclose(
        1 - (1 + epsilon * r) * np.exp(-epsilon * r), p, atol=1e-12
    )
    assert r[0] == pytest.approx(0.0, abs=1e-12) and np.all(np.diff(r) > 0)


def test_planar_radius_matches_lambertw_formula():
    p, epsilon = np.array([0.1, 0.5, 0.9]), 2.0
    expected = -(lambertw((p - 1) / np.e, k=-1).real + 1) / epsilon
    np.testing.assert_allclose(
        m.planar_laplace_radius(p, epsilon), expected, rtol=1e-14
    )


def test_planar_radius_is_the_inverse_cdf_computed_with_mpmath():
    """planar_laplace_radius(p, eps) against C_eps^{-1}(p) computed independently with
    mpmath at 50 digits, p taken exactly as the float: r* = -(W_{-1}((p - 1) / e) + 1)
    / eps with mpmath's lambertw, checked to solve C_eps(r*) = 1 - (1 + eps r*)
    e^{-eps r*} = p. The p are where rng.random() lands (multiples of 2^-53):
    uniform, log-uniform down to 2^-53, within 2^-23 of 1, and the edges.

    Every radius is within 1e-9 of r*, relatively (the rounding of (p - 1) / e limits
    the W_{-1} formula to about 4e-10 just above p = 2^-24, much less elsewhere), and
    the radius of p = 0 is 0."""
    import mpmath

    rng = np.random.default_rng(12)
    grid = 2.0**-53
    p = np.concatenate(
        [
            rng.random(200),
            np.maximum(np.round(2.0 ** -rng.uniform(1, 53, 300) / grid), 1) * grid,
            1 - rng.integers(1, 2**30, 100) * grid,
            [0.0, grid, 2.0**-24 - grid, 2.0**-24, 2.0**-24 + grid, 1 - grid],
        ]
    )
    with mpmath.workdps(50):
        exact = []
        for value in p:
            q = mpmath.mpf(float(value))
            scaled = -(mpmath.lambertw((q - 1) / mpmath.e, -1).real + 1)  # eps r*
            assert abs(1 - (1 + scaled) * mpmath.exp(-scaled) - q) < 1e-45
            exact.append(scaled)
        for epsilon in (1e-6, 0.37, 250.0):
            radius = m.planar_laplace_radius(p, epsilon)
            error = [
                abs(mpmath.mpf(float(r)) * epsilon / e - 1)
                if e
                else (0.0 if r == 0 else np.inf)
                for r, e in zip(radius, exact)
            ]
            worst = int(np.argmax(error))
            assert float(error[worst]) <= 1e-9, (epsilon, p[worst], radius[worst])


def test_laplace_ball_is_centred_on_the_points():
    points = np.array([[1e9, -5.0, 3.0]])
    noisy = m.laplace_ball(np.repeat(points, 50_000, axis=0), 2.0, 0)
    # Mean noise is 0; each coordinate has variance E[R^2]/d = d(d+1)/(eps^2 d) = 1, so
    # the mean of 50,000 has standard deviation 1/sqrt(50,000). The tolerance is 5 of
    # those, absolute (rtol=0: a relative tolerance on 1e9 would let a bias of 100
    # pass); false-failure rate 3 x 5.7e-7.
    np.testing.assert_allclose(
        (noisy - points).mean(axis=0), 0.0, rtol=0, atol=5 / np.sqrt(50_000)
    )


def test_a_bias_of_fifty_on_large_coordinates_is_caught():
    # The negative control of the test above: the old assert_allclose(noisy.mean, 1e9,
    # default rtol) accepted this shift of +50.
    points = np.array([[1e9, -5.0, 3.0]])
    noisy = m.laplace_ball(np.repeat(points, 50_000, axis=0), 2.0, 0) + 50.0
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(
            (noisy - points).mean(axis=0), 0.0, rtol=0, atol=5 / np.sqrt(50_000)
        )


@pytest.mark.parametrize(
    "call",
    [
        lambda: m.laplace(0.0, 1e300, 1e-10, 0),
        lambda: m.planar_laplace(np.zeros(2), 1e-320, 0),
        lambda: m.laplace_ball(np.zeros((1, 3)), 1e-320, 0),
        lambda: m.planar_laplace_radius(0.5, 1e-320),
    ],
    ids=["laplace", "planar_laplace", "laplace_ball", "planar_laplace_radius"],
)
def test_an_infinite_noise_scale_is_an_error(call):
    # Old code: laplace(0, 1e300, 1e-10) returned inf silently.
    with pytest.raises(ValueError, match="must be finite"):
        call()
