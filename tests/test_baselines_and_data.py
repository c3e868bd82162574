"""GEO nearest neighbours and the synthetic data."""

import numpy as np
import pytest
from scipy.spatial import cKDTree

from dpnn.baselines import geo_nn, perturb_location
from dpnn.data import uniform_points


def test_uniform_points_shape_range_and_seed():
    one = uniform_points(1000, 1, 3)
    two = uniform_points(1000, 2, 3)
    assert one.shape == (1000,) and two.shape == (1000, 2)
    assert one.min() >= 0 and one.max() <= 1e9
    np.testing.assert_array_equal(two, uniform_points(1000, 2, np.random.default_rng(3)))


@pytest.mark.parametrize("kwargs, name", [({"n": 0}, "n"), ({"dimension": 0}, "dimension"),
                                          ({"low": 5.0, "high": 1.0}, "low")])
def test_uniform_points_rejects_bad_input(kwargs, name):
    arguments = {"n": 10, "dimension": 2, "rng": 0, **kwargs}
    with pytest.raises(ValueError, match=name):
        uniform_points(**arguments)


@pytest.mark.parametrize("dimension", [1, 2, 3])
def test_geo_with_huge_epsilon_is_the_exact_nearest_neighbour(dimension):
    points = uniform_points(500, dimension, 1, high=1000.0)
    queries = uniform_points(200, dimension, 2, high=1000.0)
    found = geo_nn(points, queries, 1e9, 3, 0)
    exact = cKDTree(points.reshape(500, -1)).query(queries.reshape(200, -1), k=3)[1]
    np.testing.assert_array_equal(found, exact)


def test_geo_with_tiny_epsilon_is_far_from_exact():
    points = uniform_points(500, 2, 1, high=1000.0)
    queries = uniform_points(400, 2, 2, high=1000.0)
    found = geo_nn(points, queries, 1e-4, 1, 0)[:, 0]
    exact = cKDTree(points).query(queries)[1]
    assert np.mean(found == exact) < 0.05  # noise radius ~ 2e4 >> the 1000-wide domain


def test_perturb_location_dispatches_by_dimension():
    rng = np.random.default_rng(0)
    assert perturb_location(np.zeros(5), 1.0, rng).shape == (5,)
    assert perturb_location(np.zeros((5, 2)), 1.0, rng).shape == (5, 2)
    assert perturb_location(np.zeros((5, 4)), 1.0, rng).shape == (5, 4)


def test_geo_rejects_bad_input():
    points = np.zeros((4, 2))
    with pytest.raises(ValueError, match="k must be between 1 and len"):
        geo_nn(points, np.zeros((1, 2)), 1.0, 5, 0)
    with pytest.raises(ValueError, match="queries must have the dimension"):
        geo_nn(points, np.zeros((1, 3)), 1.0, 1, 0)
    with pytest.raises(ValueError, match="epsilon"):
        geo_nn(points, np.zeros((1, 2)), 0.0, 1, 0)
