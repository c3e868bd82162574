"""The optimal geo-indistinguishable mechanism (Bordenabe et al.): constraints, loss,
hand-solved cases, the spanner, sampling and bad input."""

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path
from scipy.spatial.distance import cdist
from scipy.stats import chi2

from dpnn import optimal_geo as og


def square_grid(cells):
    axis = (np.arange(cells) + 0.5) / cells
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 5.0])
@pytest.mark.parametrize("p", [0.5, 0.7, 0.95])
def test_two_points_match_the_hand_solution(epsilon, p):
    # Two points d = 2 apart, prior (p, 1 - p), p >= 1/2: with a = K[0, 1], b = K[1, 0]
    # the program is min d (p a + (1 - p) b) s.t. 1 - a <= c b, 1 - b <= c a,
    # c = e^(epsilon d). Its vertices are (a, b) = (1/(1+c), 1/(1+c)), (0, 1) and
    # (1, 0), so the least loss is d min(1 - p, 1 / (1 + c)).
    points = np.array([[0.0], [2.0]])
    result = og.optimal_mechanism(points, [p, 1 - p], epsilon, dilation=None)
    c = np.exp(2 * epsilon)
    assert result.loss == pytest.approx(2 * min(1 - p, 1 / (1 + c)), abs=1e-7)
    if 1 / (1 + c) < 1 - p - 1e-3:
        np.testing.assert_allclose(result.matrix, [[c, 1], [1, c]] / (1 + c), atol=1e-7)
    assert result.actual <= epsilon * (1 + 1e-9)


@pytest.mark.parametrize("epsilon", [1.0, 4.0, 10.0, 30.0])
def test_every_constraint_holds_on_a_small_grid(epsilon):
    points = square_grid(3)
    prior = np.random.default_rng(7).dirichlet(np.ones(9))
    result = og.optimal_mechanism(points, prior, epsilon, dilation=None)
    k = result.matrix
    np.testing.assert_allclose(k.sum(axis=1), 1, atol=1e-12)
    assert np.all(k >= 0)
    # After the repair every constraint holds up to the row normalisation: the rows
    # summed within 9 x 1e-7 (HiGHS's feasibility tolerance per entry) of 1, so a
    # ratio moves by a factor of at most (1 + 1e-6) / (1 - 1e-6); float rounding of
    # exp adds ~1e-15. Checked over all 9 x 9 x 9 triples, in ratio form.
    slack = 2.1e-6
    growth = np.exp(epsilon * cdist(points, points))
    assert np.all(k[:, None, :] <= growth[:, :, None] * k[None] * (1 + slack))
    # the stated privacy is the exact max log ratio of the returned matrix
    assert result.actual <= epsilon + slack / cdist(points, points)[0, 1]
    assert result.actual == og.actual_epsilon(k, points)


def test_actual_epsilon_is_the_max_log_ratio():
    points = np.array([[0.0], [1.0], [3.0]])
    k = np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0], [0.1, 0.9, 0.0]])
    # by hand: column 0, log(0.5/0.1)/3 = 0.536, log(0.5/0.25)/1 = 0.693 (largest);
    # column 1, log(0.9/0.5)/3, log(0.75/0.5)/1, log(0.9/0.75)/2: all smaller
    assert og.actual_epsilon(k, points) == pytest.approx(np.log(2), rel=1e-14)
    assert og.actual_epsilon(np.full((3, 2), 0.5), points) == 0.0
    assert og.actual_epsilon([[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]], points) == np.inf


def test_repair_raises_zeros_to_the_envelope():
    points = np.array([[0.0], [1.0]])
    # the solver's 0 where exp(-1) x 0.5 belongs: the envelope puts it back
    repaired = og.repair([[0.5, 0.5], [1.0, 0.0]], points, 1.0)
    expected = np.array([[0.5, 0.5], [1.0, 0.5 * np.exp(-1)]])
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(repaired, expected, rtol=1e-14)
    assert og.actual_epsilon(repaired, points) <= 1 + np.log(1 + np.exp(-1) / 2)


@pytest.mark.parametrize("epsilon", [1.0, 4.0, 10.0])
def test_loss_at_most_planar_laplace_on_the_same_grid(epsilon):
    points = square_grid(3)
    for prior in (np.full(9, 1 / 9), np.random.default_rng(3).dirichlet(np.ones(9))):
        optimal = og.optimal_mechanism(points, prior, epsilon, dilation=None).loss
        coarse, fine = (
            og.expected_loss(
                og.laplace_matrix(points, epsilon, None, r, a), prior, points
            )
            for r, a in [(48, 720), (96, 1440)]
        )
        # the quadrature's error: below three times the change from doubling it
        assert optimal <= fine - 3 * abs(fine - coarse)


def test_greedy_spanner_stretch_and_the_kings_graph():
    points = square_grid(6)
    for dilation in (1.05, 1.1, 1.5):
        edges = og.greedy_spanner(points, dilation)
        weight = np.zeros((36, 36))
        length = np.linalg.norm(points[edges[:, 0]] - points[edges[:, 1]], axis=1)
        weight[edges[:, 0], edges[:, 1]] = length
        path = shortest_path(weight, directed=False)
        assert np.all(path <= dilation * cdist(points, points) * (1 + 1e-12))
    # king's moves: 2 x 6 x 5 straight and 2 x 5 x 5 diagonal edges
    assert len(og.greedy_spanner(points, 1.1)) == 60 + 50
    assert len(og.greedy_spanner(points, 1.5)) == 60  # the 4-neighbour grid


def test_spanner_mechanism_is_epsilon_gi_and_between_the_exact_optima():
    points, epsilon, dilation = square_grid(4), 6.0, 1.1
    prior = np.random.default_rng(5).dirichlet(np.ones(16))
    spanner = og.optimal_mechanism(points, prior, epsilon, dilation=dilation)
    exact = og.optimal_mechanism(points, prior, epsilon, dilation=None)
    weaker = og.optimal_mechanism(points, prior, epsilon / dilation, dilation=None)
    assert spanner.actual <= epsilon + 1e-5
    assert exact.loss - 1e-7 <= spanner.loss <= weaker.loss + 1e-7
    assert spanner.constraints < exact.constraints


def test_sampling_follows_the_matrix_and_is_reproducible():
    points = square_grid(3)
    result = og.optimal_mechanism(points, np.full(9, 1 / 9), 4.0, dilation=None)
    n = 20000
    rows = np.full(n, 4)
    draws = og.sample_matrix(result.matrix, rows, np.random.default_rng(11))
    expected = n * result.matrix[4]
    used = expected > 0
    counts = np.bincount(draws, minlength=9)
    assert np.all(counts[~used] == 0)
    statistic = np.sum((counts[used] - expected[used]) ** 2 / expected[used])
    # false failure rate 1e-4 (pinned seed)
    assert statistic < chi2.ppf(1 - 1e-4, used.sum() - 1)
    a = result.sample(points[[0, 4, 8]], np.random.default_rng(2))
    b = result.sample(points[[0, 4, 8]], np.random.default_rng(2))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="locations"):
        result.sample([[0.1, 0.1]], 0)


def test_bad_input_raises():
    points = square_grid(2)
    prior = np.full(4, 0.25)
    with pytest.raises(ValueError, match="epsilon"):
        og.optimal_mechanism(points, prior, 0.0)
    with pytest.raises(ValueError, match="prior"):
        og.optimal_mechanism(points, [0.5, 0.5], 1.0)
    with pytest.raises(ValueError, match="dilation"):
        og.optimal_mechanism(points, prior, 1.0, dilation=0.9)
    with pytest.raises(ValueError, match="dilation"):
        og.optimal_mechanism(points, prior, 1.0, dilation="fast")
    with pytest.raises(ValueError, match="loss"):
        og.optimal_mechanism(points, prior, 1.0, loss="manhattan")
    with pytest.raises(ValueError, match="distinct"):
        og.optimal_mechanism(np.zeros((2, 2)), [0.5, 0.5], 1.0)
