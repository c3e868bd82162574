"""Output generation for the optimal mechanism's program: the same optimum as the
whole program and as column generation, exact privacy after the repair, the
switch of ``method="auto"``, and bad input (the tests shared with column
generation are in test_optimal_geo_columns)."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from test_optimal_geo_columns import same_optimum_and_private, square_grid

from dpnn import optimal_geo as og
from dpnn.optimal_geo import outputs as ogo


def bump(points):
    """A Gaussian bump (standard deviation 0.15 about (0.3, 0.6)) holding 95% of the
    mass, the rest uniform (the benchmark's concentrated prior)."""
    weights = np.exp(-np.sum((points - [0.3, 0.6]) ** 2, axis=1) / 0.045)
    return 0.95 * weights / weights.sum() + 0.05 / len(points)


def program(cells, prior, rate=5.0):
    points = square_grid(cells)
    edges = og.greedy_spanner(points, 1.1)
    pairs = np.concatenate([edges, edges[:, ::-1]])
    factors = np.exp(rate * cdist(points, points)[pairs[:, 0], pairs[:, 1]])
    return prior(points)[:, None] * cdist(points, points), pairs, factors


@pytest.mark.parametrize(
    "cells, prior_kind", [(6, "uniform"), (8, "uniform"), (6, "bump"), (10, "bump")]
)
def test_same_optimum_as_the_whole_program(cells, prior_kind):
    points = square_grid(cells)
    n = len(points)
    prior = np.full(n, 1 / n) if prior_kind == "uniform" else bump(points)
    same_optimum_and_private(points, prior, 8 / np.sqrt(2), "outputs")


def test_a_concentrated_prior_uses_few_outputs():
    # the bump's optimum releases few of the 100 outputs; the restricted set holds
    # them all and no more than needed to price the rest out
    cost, pairs, factors = program(10, bump)
    solved = ogo.solve_by_outputs(cost, pairs, factors)
    used = np.count_nonzero(solved.matrix.sum(axis=0) > 1e-9)
    assert used <= solved.columns < 50
    assert solved.pricing >= 100 - solved.columns


def test_auto_takes_outputs_for_a_bump_and_columns_for_a_uniform_prior():
    # 11 x 11 points: above the whole program's limit of 100
    points = square_grid(11)
    n = len(points)
    for prior, expected in [(bump(points), "outputs"), (np.full(n, 1 / n), "columns")]:
        auto = og.optimal_mechanism(points, prior, 5.0, dilation=1.1)
        columns = og.optimal_mechanism(
            points, prior, 5.0, dilation=1.1, method="columns"
        )
        assert auto.method == expected
        assert auto.loss == pytest.approx(columns.loss, rel=1e-6)
    assert auto.loss == columns.loss  # the uniform prior: the columns' own answer


def test_spread_gives_up_on_a_uniform_prior_only():
    uniform = program(10, lambda p: np.full(len(p), 1 / len(p)))
    assert ogo.solve_by_outputs(*uniform, spread=0.5) is None
    assert ogo.solve_by_outputs(*program(10, bump), spread=0.5) is not None


def test_threads_do_not_change_the_answer():
    cost, pairs, factors = program(8, bump)
    one, two = (ogo.solve_by_outputs(cost, pairs, factors, workers=w) for w in (1, 2))
    np.testing.assert_array_equal(one.matrix, two.matrix)
    assert (one.objective, one.rounds, one.pricing, one.columns) == (
        two.objective,
        two.rounds,
        two.pricing,
        two.columns,
    )


def test_bad_input_raises():
    pairs, factors = np.array([[0, 1], [1, 0]]), np.array([2.0, 2.0])
    cost = np.ones((2, 2))
    with pytest.raises(ValueError, match="cost"):
        ogo.solve_by_outputs(-cost, pairs, factors)
    with pytest.raises(ValueError, match="pairs"):
        ogo.solve_by_outputs(cost, [[0, 2]], [2.0])
    with pytest.raises(ValueError, match="factors"):
        ogo.solve_by_outputs(cost, pairs, [0.5, 2.0])
    with pytest.raises(ValueError, match="workers"):
        ogo.solve_by_outputs(cost, pairs, factors, workers=0)
    with pytest.raises(ValueError, match="spread"):
        ogo.solve_by_outputs(cost, pairs, factors, spread=0.0)
    with pytest.raises(ValueError, match="spread"):
        ogo.solve_by_outputs(cost, pairs, factors, spread=1.5)
