"""The optimal mechanism's program solved at several rates (dpnn.optimal_geo.warm):
from scratch it is optimal_mechanism's solve, warm-started it reaches the same
optimum, and bad input is refused."""

import numpy as np
import pytest

from dpnn import optimal_geo as og
from dpnn.optimal_geo.warm import OptimalProgram, Solve


def square_grid(cells):
    axis = (np.arange(cells) + 0.5) / cells
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


@pytest.mark.parametrize(
    ("cells", "dilation", "loss", "epsilon"),
    [
        (4, None, "euclidean", 3.0),
        (4, None, "squared", 8.0),
        (6, 1.1, "euclidean", 5.0),
    ],
)
def test_from_scratch_it_is_the_full_programs_matrix(cells, dilation, loss, epsilon):
    points = square_grid(cells)
    prior = np.random.default_rng(cells).dirichlet(np.ones(len(points)))
    found = OptimalProgram(points, prior, dilation=dilation, loss=loss).solve(epsilon)
    full = og.optimal_mechanism(
        points, prior, epsilon, dilation=dilation, loss=loss, method="full"
    )
    assert found.path == "ipm"
    np.testing.assert_array_equal(found.mechanism.matrix, full.matrix)
    assert found.mechanism.loss == full.loss
    assert found.mechanism.actual == full.actual
    assert found.mechanism.constraints == full.constraints


def test_warm_starts_reach_the_same_optimum_at_nearby_and_far_rates():
    points = square_grid(5)
    prior = np.random.default_rng(11).dirichlet(np.ones(25))
    program = OptimalProgram(points, prior, dilation=1.1)
    first = program.solve(4.0)
    again = program.solve(4.0, first)  # its own optimal basis: nothing left to do
    assert again.path == "simplex" and again.iterations == 0
    np.testing.assert_allclose(
        again.mechanism.matrix, first.mechanism.matrix, atol=1e-9
    )
    for epsilon in (4.08, 3.9, 6.0, 2.0):
        warm = program.solve(epsilon, first)
        cold = og.optimal_mechanism(points, prior, epsilon, dilation=1.1)
        # the same least expected loss; the matrix is epsilon-GI after repair
        assert warm.mechanism.loss == pytest.approx(cold.loss, abs=1e-6)
        assert warm.mechanism.actual <= epsilon * (1 + 1e-9)
        np.testing.assert_allclose(warm.mechanism.matrix.sum(axis=1), 1, atol=1e-12)
        assert warm.mechanism.epsilon == epsilon


def test_the_spanner_and_auto_dilation_match_optimal_mechanism():
    points = square_grid(3)
    prior = np.full(9, 1 / 9)
    auto = OptimalProgram(points, prior)  # 9 points: every pair constrained
    assert auto.dilation is None and auto.constraints == 9 * 8 * 9
    spanner = OptimalProgram(points, prior, dilation=1.1)
    assert len(spanner.pairs) == 2 * len(og.greedy_spanner(points, 1.1))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prior": np.full(4, 0.3)}, "prior"),
        ({"dilation": "exact"}, "dilation"),
        ({"loss": "manhattan"}, "loss"),
        ({"points": np.zeros((4, 2))}, "points"),
    ],
)
def test_bad_programs_are_refused(kwargs, match):
    args = {"points": square_grid(2), "prior": np.full(4, 0.25)} | kwargs
    points, prior = args.pop("points"), args.pop("prior")
    with pytest.raises(ValueError, match=match):
        OptimalProgram(points, prior, **args)


def test_bad_rates_and_starts_are_refused():
    program = OptimalProgram(square_grid(2), np.full(4, 0.25))
    for epsilon in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="epsilon"):
            program.solve(epsilon)
    with pytest.raises(ValueError, match="start"):
        program.solve(1.0, start="basis")
    assert isinstance(program.solve(1.0), Solve)
