"""The privacy each mechanism really gives: certified DP-TT bounds, the worst-pair
search against exhaustive maxima, the exact profiles of GEO, SM and L-SRR against
brute force, and the adversary's estimators on inputs that tell right from wrong."""

from __future__ import annotations

import numpy as np
import pytest

from dpnn import lsrr
from dpnn.accounting import optimal_pure_composition_epsilon
from dpnn.adversary import (
    SquareMechanism,
    calibrated_epsilon,
    certified_epsilon,
    corner_pair,
    domain_grid,
    exact_epsilon,
    geo_delta,
    geo_epsilon,
    lsrr_epsilon,
    pair_epsilon,
    path_log_law,
    path_nodes,
    prior_only,
    square_epsilon,
    turn_log_probabilities,
    turn_loss_bounds,
    worst_pair_at_distance,
)
from dpnn.trees import build_tree

UNIT_SQUARE = np.array([[0.0, 1.0], [0.0, 1.0]])


def small_tree(n=16, seed=3):
    return build_tree(np.random.default_rng(seed).uniform(0, 1, (n, 2)))


def test_each_dis_turn_loses_at_most_its_bound_and_the_children_attain_it():
    tree = small_tree(64)
    bounds = turn_loss_bounds(tree, 0.7, "dis", sensitivity=0.5)
    inner = np.flatnonzero(tree.left >= 0)
    x = np.random.default_rng(0).uniform(-1, 2, (300, 2))  # also outside the domain
    left, right = turn_log_probabilities(tree, inner, x, 0.7, "dis", 0.5)
    for side in (left, right):
        spread = side.max(axis=1) - side.min(axis=1)
        assert np.all(spread <= bounds[inner] + 1e-12)
    # at x = c_R, x' = c_L the right turn's log ratio is exactly the bound
    values = tree.points[tree.point[np.stack([tree.right[inner], tree.left[inner]])]]
    for k, n in enumerate(inner[:10]):
        _, at = turn_log_probabilities(tree, [n], values[:, k], 0.7, "dis", 0.5)
        assert at[0, 0] - at[0, 1] == pytest.approx(bounds[n], rel=1e-12)


def test_pure_certified_bound_is_the_largest_path_sum_by_enumeration():
    tree = small_tree(24)
    bounds = turn_loss_bounds(tree, 1.3, "dis", sensitivity=2.0)
    leaves = np.flatnonzero(tree.left < 0)
    nodes, _ = path_nodes(tree, leaves)
    sums = np.where(nodes >= 0, bounds[np.maximum(nodes, 0)], 0.0).sum(axis=1)
    assert certified_epsilon(tree, 1.3, "dis", 0.0, 2.0) == pytest.approx(sums.max())


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_no_pair_of_dis_queries_loses_more_than_the_certified_bound(delta):
    tree, rng = small_tree(32), np.random.default_rng(1)
    bound = certified_epsilon(tree, 3.0, "dis", delta, 1.0)
    found = [
        worst_pair_at_distance(tree, UNIT_SQUARE, r, 3.0, "dis", delta, rng, 1.0)[2]
        for r in (0.1, 0.5, 1.2)
    ]
    pairs = rng.uniform(0, 1, (200, 2, 2))
    random = [pair_epsilon(tree, a, b, 3.0, "dis", delta, 1.0) for a, b in pairs]
    assert max(found + random) <= bound + 1e-12
    assert max(found) > 0.5 * bound  # the bound is not vacuous on this tree


def test_cmp_certified_bound_is_the_corners_exact_epsilon():
    tree = small_tree(2**10)
    corners = pair_epsilon(tree, *corner_pair(UNIT_SQUARE), 1.0, "cmp", 1e-3)
    assert certified_epsilon(tree, 1.0, "cmp", 1e-3) == pytest.approx(corners, abs=1e-9)
    assert corners == pytest.approx(
        optimal_pure_composition_epsilon(0.5, 10, 1e-3), abs=1e-9
    )


@pytest.mark.parametrize("utility, sensitivity", [("dis", 1.5), ("cmp", None)])
def test_calibrated_epsilon_certifies_exactly_the_target(utility, sensitivity):
    tree = small_tree(128)
    step = calibrated_epsilon(tree, 4.0, utility, 1e-4, sensitivity)
    value = certified_epsilon(tree, step, utility, 1e-4, sensitivity)
    assert value == pytest.approx(4.0, rel=1e-8) and value <= 4.0
    with pytest.raises(ValueError, match="target"):
        calibrated_epsilon(tree, -1.0, utility, 1e-4, sensitivity)


def _arrangement(tree, box):
    """Per axis the intervals between consecutive split values of that axis' nodes."""
    inner = tree.left >= 0
    edges = []
    for a in range(len(box)):
        cuts = np.unique(tree.split[inner & (tree.axis == a)])
        edges.append(np.concatenate([[box[a, 0]], cuts, [box[a, 1]]]))
    return edges


def test_search_reaches_the_exhaustive_cmp_maximum():
    """A CMP transcript's law depends on a query only through the side of every
    split it lies on, so the exact epsilon of a pair is constant on pairs of cells
    of the arrangement of all splits (per axis the intervals between split values).
    Scoring one pair per pair of cells is exhaustive; the distances between two
    such cells fill (dmin, dmax), so the maximum at r is over the cell pairs whose
    open distance range holds r."""
    tree, delta, r = small_tree(16), 1e-3, 0.3
    edges = _arrangement(tree, UNIT_SQUARE)
    lows = (
        np.array(np.meshgrid(edges[0][:-1], edges[1][:-1], indexing="ij"))
        .reshape(2, -1)
        .T
    )
    highs = (
        np.array(np.meshgrid(edges[0][1:], edges[1][1:], indexing="ij"))
        .reshape(2, -1)
        .T
    )
    best = 0.0
    for i in range(len(lows)):
        for j in range(i, len(lows)):
            gap = np.maximum(np.maximum(lows[j] - highs[i], lows[i] - highs[j]), 0)
            far = np.maximum(highs[j] - lows[i], highs[i] - lows[j])
            if np.linalg.norm(gap) < r < np.linalg.norm(far):
                a, b = (lows[i] + highs[i]) / 2, (lows[j] + highs[j]) / 2
                best = max(best, pair_epsilon(tree, a, b, 1.0, "cmp", delta))
    a, b, found = worst_pair_at_distance(
        tree, UNIT_SQUARE, r, 1.0, "cmp", delta, np.random.default_rng(0)
    )
    assert np.linalg.norm(b - a) == pytest.approx(r)
    assert found == pytest.approx(best, abs=1e-9)
    assert pair_epsilon(tree, a, b, 1.0, "cmp", delta) == pytest.approx(found)


def test_search_beats_a_fine_grid_of_dis_pairs():
    """At delta = 0 a pair's epsilon is its largest log-likelihood ratio, computed
    here for every pair of a grid (61 x 61 centres, 90 directions) at once. The
    loss is continuous in the pair, so the grid's maximum is within its mesh of
    the true one; the search, refined by Nelder-Mead, must reach it."""
    tree, r, epsilon = small_tree(16, seed=5), 0.25, 2.0
    centres = np.stack(np.meshgrid(*[np.linspace(0, 1, 61)] * 2), -1).reshape(-1, 2)
    angles = np.linspace(0, np.pi, 90, endpoint=False)
    step = np.stack([np.cos(angles), np.sin(angles)], 1) * r / 2
    a = (centres[:, None] - step[None]).reshape(-1, 2)
    b = (centres[:, None] + step[None]).reshape(-1, 2)
    inside = np.all((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1), axis=1)
    a, b = a[inside], b[inside]
    _, log_a = path_log_law(tree, a, epsilon, "dis", 1.0)
    _, log_b = path_log_law(tree, b, epsilon, "dis", 1.0)
    grid_best = np.abs(log_a - log_b).max()
    found = worst_pair_at_distance(
        tree, UNIT_SQUARE, r, epsilon, "dis", 0.0, np.random.default_rng(0), 1.0
    )[2]
    assert found >= grid_best - 1e-9


def test_exact_epsilon_takes_the_worse_direction():
    """Two laws whose losses are lopsided: P puts 0.3 where Q puts 0.01 (loss 3.4),
    while Q's excess is spread thin. The epsilon at delta must be the larger of the
    two one-sided epsilons, each found here by bisection on a direct sum."""
    p = np.array([0.3, 0.2, 0.2, 0.3])
    q = np.array([0.01, 0.33, 0.33, 0.33])

    def one_sided(p, q, delta):
        low, high = 0.0, 20.0
        for _ in range(200):
            mid = (low + high) / 2
            low, high = (
                (low, mid)
                if np.sum(np.maximum(p - np.exp(mid) * q, 0)) <= delta
                else (mid, high)
            )
        return high

    delta = 0.05
    forward, backward = one_sided(p, q, delta), one_sided(q, p, delta)
    assert forward > backward + 1  # the two directions differ
    for a, b in ((p, q), (q, p)):
        assert exact_epsilon(np.log(a), np.log(b), delta) == pytest.approx(
            max(forward, backward), abs=1e-9
        )


def test_prior_only_guesses_the_spatial_median_of_an_asymmetric_prior():
    """70% of the prior in one corner cell, 30% spread over the opposite half: the
    spatial median sits in the corner cell and the mean far from it. The prior-only
    error must be the least expected distance over every cell centre and a fine
    set of guesses (brute force)."""
    grid = domain_grid(UNIT_SQUARE, 20)
    points = grid.points
    prior = np.where(points[:, 0] > 0.5, 0.3, 0.0)
    prior /= prior.sum() / 0.3
    prior[0] += 0.7
    guesses = np.stack(np.meshgrid(*[np.linspace(0, 1, 201)] * 2), -1).reshape(-1, 2)
    guesses = np.vstack([guesses, points])
    expected = grid.distances(guesses) @ prior
    best = expected.min()
    mean = prior @ points
    at_mean = np.linalg.norm(points - mean, axis=1) @ prior
    assert at_mean > best + 0.05  # the mean is a poor guess here
    assert prior_only(grid, prior) == pytest.approx(best, abs=2e-4)
    assert prior_only(grid, prior) <= best + 1e-9


def test_geo_delta_against_a_brute_force_integral():
    """``delta(e)`` of planar Laplace (rate 1) for inputs t apart, by a midpoint sum
    of ``(p(y) - e^e q(y))_+`` over a fine polar grid about x."""
    t, e = 2.0, 0.8
    radii = (np.arange(6000) + 0.5) * (40 / 6000)
    angles = (np.arange(1440) + 0.5) * (2 * np.pi / 1440)
    rr, aa = np.meshgrid(radii, angles, indexing="ij")
    to_other = np.sqrt(rr**2 + t**2 - 2 * rr * t * np.cos(aa))
    p, q = np.exp(-rr) / (2 * np.pi), np.exp(-to_other) / (2 * np.pi)
    area = rr * (40 / 6000) * (2 * np.pi / 1440)
    brute = np.sum(np.maximum(p - np.exp(e) * q, 0) * area)
    assert geo_delta(t, e) == pytest.approx(brute, abs=2e-5)
    assert geo_epsilon(1.0, 2.0, 1e-6) < 2.0
    assert geo_delta(t, geo_epsilon(1.0, 2.0, 1e-3)) == pytest.approx(1e-3, abs=1e-9)


def test_square_profile_against_every_pair_on_a_grid():
    """For each pair on a grid of inputs at one distance, the exact epsilon of the
    square mechanism's output law on a pixel grid (density e^eps q on the square
    S(x), q elsewhere);
    the profile is their maximum (up to the pixels' and pairs' meshes)."""
    box, epsilon, r, delta = UNIT_SQUARE, 1.0, 0.15, 1e-3
    mechanism = SquareMechanism(epsilon, box)
    pixels = domain_grid(box, 300)
    half, area = mechanism.side / 2, mechanism.side**2  # the law of its docstring
    q = 1 / (np.exp(epsilon) * area + 1 - area)
    angles = np.linspace(0, np.pi / 2, 19)
    best = 0.0
    for start in np.random.default_rng(2).uniform(0, 1, (40, 2)):
        for angle in angles:
            end = start + r * np.array([np.cos(angle), np.sin(angle)])
            if np.any(end > 1):
                continue
            log = []
            for x in (start, end):  # the output law: e^eps q on S(x), q elsewhere
                centre = np.clip(x, half, 1 - half)
                inside = np.all(np.abs(pixels.points - centre) <= half, axis=1)
                log.append(epsilon * inside + np.log(q * np.prod(pixels.widths)))
            best = max(best, exact_epsilon(log[0], log[1], delta))
    assert square_epsilon(epsilon, box, r, delta) == pytest.approx(best, abs=0.02)
    assert square_epsilon(epsilon, box, r, delta) >= best - 1e-3


def test_lsrr_profile_against_every_pair_of_cells():
    box, epsilon, delta, levels = UNIT_SQUARE, 2.0, 1e-3, 3
    cells = 2 ** (levels - 1)
    centres = (
        np.stack(
            np.meshgrid(np.arange(cells), np.arange(cells), indexing="ij"), -1
        ).reshape(-1, 2)
        + 0.5
    ) / cells
    laws = [
        np.log(lsrr.lsrr_probabilities(c, epsilon, box, levels)).ravel()
        for c in centres
    ]
    for r in (0.1, 0.3, 0.6, 1.2):
        best = 0.0
        for i in range(len(centres)):
            for j in range(len(centres)):
                k = np.abs(centres[i] - centres[j]) * cells
                near = np.linalg.norm(np.maximum(k - 1, 0) / cells)
                far = np.linalg.norm((k + 1) / cells)
                if near <= r <= far:
                    best = max(best, exact_epsilon(laws[i], laws[j], delta))
        assert lsrr_epsilon(epsilon, box, r, delta, levels)[0] == pytest.approx(
            best, abs=1e-9
        )


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda t: certified_epsilon(t, 1.0, "dis", 0.0, None), "sensitivity"),
        (lambda t: certified_epsilon(t, 1.0, "dis", 1.0, 1.0), "delta"),
        (lambda t: turn_loss_bounds(t, 1.0, "cmp", stop_height=-1), "stop_height"),
        (lambda t: geo_epsilon(-1.0, 1.0, 1e-3), "epsilon"),
        (lambda t: square_epsilon(1.0, UNIT_SQUARE, 0.1, 0.0), "delta"),
        (lambda t: lsrr_epsilon(1.0, UNIT_SQUARE, -0.1, 1e-3), "distances"),
    ],
)
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call(small_tree())


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_no_dis_pair_within_the_radius_loses_more_than_its_certified_bound(delta):
    """Pairs at most r apart lose at most the radius bound, which is below the bound
    for every pair when 2r is below the largest children's gap, equal to it when 2r
    is above every gap."""
    tree, rng = small_tree(32), np.random.default_rng(11)
    r = 0.05
    bound = certified_epsilon(tree, 3.0, "dis", delta, 0.2, radius=r)
    assert bound < certified_epsilon(tree, 3.0, "dis", delta, 0.2)
    assert certified_epsilon(tree, 3.0, "dis", delta, 0.2, radius=2.0) == (
        pytest.approx(certified_epsilon(tree, 3.0, "dis", delta, 0.2), rel=1e-12)
    )
    start = rng.uniform(0, 1, (300, 2))
    angle = rng.uniform(0, 2 * np.pi, 300)
    length = r * np.sqrt(rng.uniform(0, 1, 300))
    end = start + length[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    random = [
        pair_epsilon(tree, a, b, 3.0, "dis", delta, 0.2) for a, b in zip(start, end)
    ]
    found = worst_pair_at_distance(tree, UNIT_SQUARE, r, 3.0, "dis", delta, rng, 0.2)[2]
    assert max(random + [found]) <= bound + 1e-12


def test_calibrated_epsilon_within_a_radius_meets_its_target():
    tree = small_tree(64)
    per_step = calibrated_epsilon(tree, 2.0, "dis", 1e-3, 0.1, radius=0.1)
    assert certified_epsilon(tree, per_step, "dis", 1e-3, 0.1, radius=0.1) == (
        pytest.approx(2.0, rel=1e-8)
    )
    # within the radius each turn loses at most its per-step epsilon: the radius
    # bound is below the bound for every pair, so the calibrated budget is larger
    assert per_step > calibrated_epsilon(tree, 2.0, "dis", 1e-3, 0.1)
    with pytest.raises(ValueError, match="radius"):
        certified_epsilon(tree, 1.0, "dis", 0.0, 0.1, radius=0.0)
