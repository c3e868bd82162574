"""Every bad argument raises ValueError naming the argument (DESIGN.md, Errors)."""

import numpy as np
import pytest

from dpnn import mechanisms as m

RNG = 0
BAD_EPSILONS = [0, -1.0, np.inf, np.nan, "1", None, True]


@pytest.mark.parametrize("epsilon", BAD_EPSILONS)
@pytest.mark.parametrize(
    "call",
    [
        lambda e: m.laplace([1.0], 1.0, e, RNG),
        lambda e: m.exponential([[0.0, 1.0]], e, 1.0, RNG),
        lambda e: m.exponential_probabilities([[0.0, 1.0]], e, 1.0),
        lambda e: m.randomized_response([0, 1], e, RNG),
        lambda e: m.planar_laplace([0.0, 0.0], e, RNG),
        lambda e: m.laplace_ball([[0.0, 0.0, 0.0]], e, RNG),
    ],
    ids=[
        "laplace",
        "exponential",
        "exponential_probabilities",
        "randomized_response",
        "planar_laplace",
        "laplace_ball",
    ],
)
def test_bad_epsilon_is_named(call, epsilon):
    with pytest.raises(ValueError, match=r"epsilon must be a finite real number > 0"):
        call(epsilon)


@pytest.mark.parametrize("sensitivity", [0, -2.0, np.inf, np.nan])
def test_bad_sensitivity_is_named(sensitivity):
    with pytest.raises(
        ValueError, match="sensitivity must be a finite real number > 0"
    ):
        m.laplace([1.0], sensitivity, 1.0, RNG)
    with pytest.raises(
        ValueError, match="sensitivity must be a finite real number > 0"
    ):
        m.exponential([[0.0, 1.0]], 1.0, sensitivity, RNG)


@pytest.mark.parametrize("sigma", [0, -1.0, np.inf, np.nan])
def test_bad_sigma_is_named(sigma):
    with pytest.raises(ValueError, match="sigma must be a finite real number > 0"):
        m.gaussian([0.0, 1.0], sigma, RNG)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda x: m.laplace(x, 1.0, 1.0, RNG), "values"),
        (lambda x: m.exponential(x, 1.0, 1.0, RNG), "utilities"),
        (lambda x: m.planar_laplace(x, 1.0, RNG), "points"),
        (lambda x: m.laplace_ball(x, 1.0, RNG), "points"),
        (lambda x: m.gaussian(x, 1.0, RNG), "points"),
    ],
)
@pytest.mark.parametrize(
    "data", [[], [[0.0, np.nan]], [[0.0, np.inf]]], ids=["empty", "nan", "inf"]
)
def test_bad_data_is_named(call, name, data):
    with pytest.raises(ValueError, match=name):
        call(data)


def test_wrong_shapes():
    with pytest.raises(ValueError, match=r"points must have shape \(2,\) or \(n, 2\)"):
        m.planar_laplace(np.zeros((4, 3)), 1.0, RNG)
    with pytest.raises(ValueError, match="utilities must be a 1-D or 2-D array"):
        m.exponential(np.zeros((2, 2, 2)), 1.0, 1.0, RNG)
    with pytest.raises(ValueError, match="points must be a 1-D or 2-D array"):
        m.laplace_ball(np.zeros((2, 2, 2)), 1.0, RNG)


def test_randomized_response_rejects_non_bits():
    with pytest.raises(ValueError, match="bits must contain only 0 and 1"):
        m.randomized_response([0, 2], 1.0, RNG)
    with pytest.raises(ValueError, match="bits must not be empty"):
        m.randomized_response([], 1.0, RNG)


@pytest.mark.parametrize("rng", [None, -1, 1.5, "seed", np.random.RandomState(0)])
def test_rng_must_be_a_generator_or_seed(rng):
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        m.laplace([0.0], 1.0, 1.0, rng)


def test_planar_radius_p_out_of_range():
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\)"):
        m.planar_laplace_radius([1.0], 1.0)
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\)"):
        m.planar_laplace_radius([-0.1], 1.0)


def test_overflowing_scale_is_rejected():
    with pytest.raises(
        ValueError, match=r"epsilon / \(2 \* sensitivity\) must be finite"
    ):
        m.exponential([[0.0, 1.0]], 1e300, 1e-300, RNG)


def test_finite_array_allows_an_empty_private_dataset_only_when_asked():
    from dpnn._validation import finite_array

    with pytest.raises(ValueError, match="points must not be empty"):
        finite_array(np.zeros((0, 2)), "points", ndim=(2,))
    assert finite_array(
        np.zeros((0, 2)), "points", ndim=(2,), allow_empty=True
    ).shape == (0, 2)
    # the public shape is still checked
    with pytest.raises(ValueError, match="points must be a 2-D array"):
        finite_array(np.zeros((0, 2, 2)), "points", ndim=(2,), allow_empty=True)
