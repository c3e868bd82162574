"""Column generation for the optimal mechanism's program (and, where a test is
parametrized by method, output generation too): the same optimum as the whole
program (HiGHS on every variable at once), exact privacy after the repair, and bad
input."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from dpnn import optimal_geo as og
from dpnn.optimal_geo import columns as ogc


def square_grid(cells):
    axis = (np.arange(cells) + 0.5) / cells
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


def bump(points):
    weights = np.exp(-np.sum((points - [0.3, 0.6]) ** 2, axis=1) / 0.045) + 0.05
    return weights / weights.sum()


def same_optimum_and_private(points, prior, epsilon, method):
    """The ``method``'s mechanism against the whole program's: the same optimum and
    every constraint exact after the repair; the mechanism."""
    full, found = (
        og.optimal_mechanism(points, prior, epsilon, dilation=1.1, method=m)
        for m in ("full", method)
    )
    assert found.method == method and found.rounds > 0
    assert full.method == "full" and full.rounds == 0
    # the two solvers' optima agree to 1e-6 relative (both within HiGHS's
    # tolerances of the program's optimum; the repair moves each by less)
    assert found.loss == pytest.approx(full.loss, rel=1e-6)
    assert found.constraints == full.constraints
    # privacy: every ordered pair and output, exact after the repair up to the row
    # normalisation (rows summed within n x 1e-9 of 1)
    k = found.matrix
    np.testing.assert_allclose(k.sum(axis=1), 1, atol=1e-12)
    assert np.all(k >= 0)
    growth = np.exp(epsilon * cdist(points, points))
    assert np.all(k[:, None, :] <= growth[:, :, None] * k[None] * (1 + 1e-6))
    assert found.actual <= epsilon * (1 + 1e-6)
    assert found.actual == og.actual_epsilon(k, points)
    return found


@pytest.mark.parametrize("cells", [6, 8, 10])
@pytest.mark.parametrize("prior_kind", ["uniform", "bump"])
def test_same_optimum_as_the_whole_program(cells, prior_kind):
    points = square_grid(cells)
    n = len(points)
    prior = np.full(n, 1 / n) if prior_kind == "uniform" else bump(points)
    same_optimum_and_private(points, prior, 8 / np.sqrt(2), "columns")


@pytest.mark.parametrize("method", ["columns", "outputs"])
def test_every_pair_constrained_and_the_hand_solution(method):
    # dilation None: every ordered pair. Two points d = 2 apart, prior (p, 1 - p):
    # the least loss is d min(1 - p, 1 / (1 + e^(2 epsilon))) (test_optimal_geo)
    for p, epsilon in [(0.5, 0.5), (0.7, 2.0), (0.95, 5.0)]:
        result = og.optimal_mechanism(
            [[0.0], [2.0]], [p, 1 - p], epsilon, dilation=None, method=method
        )
        c = np.exp(2 * epsilon)
        assert result.loss == pytest.approx(2 * min(1 - p, 1 / (1 + c)), abs=1e-8)
    points = square_grid(4)
    prior = np.random.default_rng(5).dirichlet(np.ones(16))
    full, found = (
        og.optimal_mechanism(points, prior, 6.0, dilation=None, method=m)
        for m in ("full", method)
    )
    assert found.loss == pytest.approx(full.loss, rel=1e-6)


@pytest.mark.parametrize("method", ["columns", "outputs"])
def test_outputs_other_than_the_points_and_squared_loss(method):
    points = square_grid(5)
    outputs = square_grid(3)
    prior = bump(points)
    full, found = (
        og.optimal_mechanism(
            points, prior, 6.0, outputs=outputs, loss="squared", method=m
        )
        for m in ("full", method)
    )
    assert found.matrix.shape == (25, 9)
    assert found.loss == pytest.approx(full.loss, rel=1e-6)


def test_solve_by_columns_objective_and_rows():
    # one point, two outputs: the cheaper output takes all the mass
    solved = ogc.solve_by_columns([[2.0, 1.0]], np.zeros((0, 2), int), np.zeros(0))
    np.testing.assert_allclose(solved.matrix, [[0.0, 1.0]], atol=1e-9)
    assert solved.objective == pytest.approx(1.0, abs=1e-9)


def test_threads_do_not_change_the_answer():
    points = square_grid(8)
    cost = bump(points)[:, None] * cdist(points, points)
    edges = og.greedy_spanner(points, 1.1)
    pairs = np.concatenate([edges, edges[:, ::-1]])
    factors = np.exp(5.0 * cdist(points, points)[pairs[:, 0], pairs[:, 1]])
    one, two = (ogc.solve_by_columns(cost, pairs, factors, workers=w) for w in (1, 2))
    np.testing.assert_array_equal(one.matrix, two.matrix)
    assert (one.objective, one.rounds, one.pricing) == (
        two.objective,
        two.rounds,
        two.pricing,
    )


def test_bad_input_raises():
    pairs, factors = np.array([[0, 1], [1, 0]]), np.array([2.0, 2.0])
    cost = np.ones((2, 2))
    with pytest.raises(ValueError, match="cost"):
        ogc.solve_by_columns(-cost, pairs, factors)
    with pytest.raises(ValueError, match="cost"):
        ogc.solve_by_columns(np.full((2, 2), np.nan), pairs, factors)
    with pytest.raises(ValueError, match="pairs"):
        ogc.solve_by_columns(cost, [[0, 2]], [2.0])
    with pytest.raises(ValueError, match="pairs"):
        ogc.solve_by_columns(cost, [[0.0, 1.0]], [2.0])
    with pytest.raises(ValueError, match="factors"):
        ogc.solve_by_columns(cost, pairs, [0.5, 2.0])
    with pytest.raises(ValueError, match="factors"):
        ogc.solve_by_columns(cost, pairs, [2.0])
    with pytest.raises(ValueError, match="tolerance"):
        ogc.solve_by_columns(cost, pairs, factors, tolerance=0.0)
    with pytest.raises(ValueError, match="workers"):
        ogc.solve_by_columns(cost, pairs, factors, workers=0)
    with pytest.raises(ValueError, match="method"):
        og.optimal_mechanism(square_grid(2), np.full(4, 0.25), 1.0, method="dw")


@pytest.mark.parametrize("method", ["columns", "outputs"])
def test_locations_of_zero_prior_end_the_search(method):
    # a prior of zero on half the cells (as the places leave empty cells): those
    # rows cost nothing, yet their duals need room; the search ends with the
    # whole program's optimum
    points = square_grid(8)
    prior = bump(points) * (points[:, 0] < 0.5)
    prior = prior / prior.sum()
    full, found = (
        og.optimal_mechanism(points, prior, 4.0, dilation=1.1, method=m, time_limit=60)
        for m in ("full", method)
    )
    assert found.loss == pytest.approx(full.loss, rel=1e-6)
    assert found.actual <= 4.0 * (1 + 1e-6)
