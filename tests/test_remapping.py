"""Bayesian remapping: never a larger expected loss, never a larger privacy loss."""

import numpy as np
import pytest

from dpnn import adversary, optimal_geo, remapping


def square_grid(cells):
    axis = (np.arange(cells) + 0.5) / cells
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


def matrices(points, prior, epsilon):
    """Mechanisms on the points: the spanner optimum, planar Laplace snapped, and
    planar Laplace's density renormalised per row (the last is not epsilon-GI)."""
    distance = np.linalg.norm(points[:, None] - points[None], axis=-1)
    weights = np.exp(-epsilon * distance)
    return {
        "spanner optimum": optimal_geo.optimal_mechanism(
            points, prior, epsilon, dilation=1.5
        ).matrix,
        "snapped Laplace": optimal_geo.laplace_matrix(points, epsilon, None, 48, 720),
        "exponential": weights / weights.sum(axis=1, keepdims=True),
    }


def brute_force_target(matrix, prior, points):
    """For each output, the target of least posterior expected distance, by loops."""
    out = []
    for z in range(matrix.shape[1]):
        risks = [
            sum(
                prior[x] * matrix[x, z] * np.linalg.norm(points[x] - points[g])
                for x in range(len(points))
            )
            for g in range(len(points))
        ]
        out.append(int(np.argmin(risks)))
    return np.array(out)


@pytest.mark.parametrize("epsilon", [2.0, 6.0, 15.0])
def test_remapping_never_raises_loss_nor_privacy_loss(epsilon):
    points = square_grid(4)
    rng = np.random.default_rng(int(epsilon))
    for prior in (np.full(16, 1 / 16), rng.dirichlet(np.ones(16) * 0.5)):
        for name, k in matrices(points, prior, epsilon).items():
            target, remapped = remapping.remap_matrix(k, prior, points)
            np.testing.assert_array_equal(
                target, brute_force_target(k, prior, points), err_msg=name
            )
            np.testing.assert_allclose(remapped.sum(axis=1), 1, atol=1e-12)
            before = optimal_geo.expected_loss(k, prior, points)
            after = optimal_geo.expected_loss(remapped, prior, points)
            assert after <= before + 1e-12, name
            # a sum of entries obeys every bound its terms obey (rounding: 1e-12)
            assert (
                optimal_geo.actual_epsilon(remapped, points)
                <= optimal_geo.actual_epsilon(k, points) + 1e-12
            ), name


def test_remapping_the_exact_optimum_gains_nothing():
    # the remapped matrix is epsilon-GI, so feasible for the exact program: it cannot
    # beat the optimum (beyond the solver's tolerance)
    points = square_grid(3)
    prior = np.random.default_rng(4).dirichlet(np.ones(9))
    optimum = optimal_geo.optimal_mechanism(points, prior, 5.0, dilation=None)
    _, remapped = remapping.remap_matrix(optimum.matrix, prior, points)
    after = optimal_geo.expected_loss(remapped, prior, points)
    assert after == pytest.approx(optimum.loss, abs=1e-6)


def test_remapped_release_is_the_adversary_guess_and_no_worse_per_release():
    grid = adversary.domain_grid([[0.0, 1.0], [0.0, 1.0]], 16)
    prior = adversary.uniform_prior(grid)
    geo = adversary.Geo(4.0, grid.domain)
    remapped = remapping.Remapped(geo, grid, prior)
    rng = np.random.default_rng(9)
    truth = grid.points[rng.choice(grid.size, 300, p=prior)]
    releases = geo.sample(truth, rng)
    moved = remapped.remap(releases)
    weights = adversary.posterior(geo.log_likelihood(releases, grid), prior)
    distances = (weights * grid.distances(moved)).sum(axis=1)
    raw = (weights * grid.distances(geo.naive_guess(releases))).sum(axis=1)
    # per release the posterior expected loss at the remapped point is at most that
    # at the (clipped) release; Weiszfeld stops within 1e-6 D of the median
    assert np.all(distances <= raw + 1e-6 * grid.diameter)
    assert np.mean(distances) < np.mean(raw)
    # and it is the optimal adversary's guess
    guess, _ = adversary.bayes_estimate(weights, grid)
    np.testing.assert_allclose(moved, guess)


def test_grid_mechanism_likelihood_and_sampling():
    grid = adversary.domain_grid([[0.0, 1.0], [0.0, 1.0]], 3)
    prior = adversary.uniform_prior(grid)
    optimum = optimal_geo.optimal_mechanism(grid.points, prior, 4.0, dilation=None)
    mechanism = remapping.GridMechanism(optimum.matrix, grid, name="optimal")
    releases = mechanism.sample(grid.points[[0, 4, 8]], np.random.default_rng(1))
    z = mechanism.output_index(releases)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(
            mechanism.log_likelihood(releases, grid), np.log(optimum.matrix[:, z].T)
        )
    with pytest.raises(ValueError, match="releases"):
        mechanism.output_index([[0.01, 0.02]])
    with pytest.raises(ValueError, match="matrix"):
        remapping.GridMechanism(np.ones((2, 2)), grid)
    with pytest.raises(ValueError, match="prior"):
        remapping.remap_matrix(optimum.matrix, np.ones(9), grid.points)
    with pytest.raises(ValueError, match="loss"):
        remapping.remap_matrix(optimum.matrix, prior, grid.points, loss="l1")
