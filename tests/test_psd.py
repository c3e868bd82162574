"""Tests of dpnn.psd: budgets, the quadtree, OLS post-processing (Lemma 4), range
queries.

Statistical tests use fixed seeds and state their false-failure rate (for a
correct implementation, over the choice of seed).
"""

import numpy as np
import pytest
from scipy import stats

from companion.studies import cormode
from dpnn import mechanisms, psd

FALSE_ALARM = 1e-3
UNIT = np.array([0.0, 0.0, 1.0, 1.0])


# --- budgets --------------------------------------------------------------------------


@pytest.mark.parametrize("height", [0, 1, 5, 10, 20])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.7])
def test_budgets_sum_to_epsilon(height, epsilon):
    assert psd.geometric_budget(epsilon, height).sum() == pytest.approx(
        epsilon, rel=1e-12
    )
    assert psd.uniform_budget(epsilon, height).sum() == pytest.approx(
        epsilon, rel=1e-12
    )


def test_geometric_budget_matches_lemma_3_formula():
    epsilon, h = 0.7, 9
    i = np.arange(h + 1)
    lemma = (
        2.0 ** ((h - i) / 3) * epsilon * (2 ** (1 / 3) - 1) / (2 ** ((h + 1) / 3) - 1)
    )
    np.testing.assert_allclose(psd.geometric_budget(epsilon, h), lemma, rtol=1e-12)


def test_geometric_budget_minimizes_worst_case_error_and_matches_closed_forms():
    epsilon, h = 0.5, 8
    geo = psd.geometric_budget(epsilon, h)
    assert psd.worst_case_error(geo) == pytest.approx(
        psd.worst_case_error_closed_form(epsilon, h, "geometric"), rel=1e-10
    )
    assert psd.worst_case_error(psd.uniform_budget(epsilon, h)) == pytest.approx(
        psd.worst_case_error_closed_form(epsilon, h, "uniform"), rel=1e-10
    )
    rng = np.random.default_rng(0)
    for _ in range(200):  # any other split of epsilon is worse (Cauchy-Schwarz)
        other = rng.dirichlet(np.ones(h + 1)) * epsilon
        assert psd.worst_case_error(other) >= psd.worst_case_error(geo)


# --- quadtree -------------------------------------------------------------------------


def test_morton_round_trip_and_order():
    ix, iy = np.meshgrid(np.arange(16), np.arange(16))
    code = psd.morton_encode(ix.ravel(), iy.ravel())
    assert sorted(code.tolist()) == list(range(256))
    back = psd.morton_decode(code)
    np.testing.assert_array_equal(back[0], ix.ravel())
    np.testing.assert_array_equal(back[1], iy.ravel())
    np.testing.assert_array_equal(
        psd.morton_encode([0, 1, 0, 1], [0, 0, 1, 1]), [0, 1, 2, 3]
    )


def test_quadtree_counts_match_direct_counting():
    rng = np.random.default_rng(1)
    points = rng.uniform(0, 1, (3000, 2))
    counts = psd.quadtree_counts(points, UNIT, 3)
    boxes = psd.quadtree_boxes(UNIT, 3)
    for d in range(4):
        b = boxes[d]
        inside = (
            (points[:, None, 0] >= b[:, 0])
            & (points[:, None, 0] < b[:, 2])
            & (points[:, None, 1] >= b[:, 1])
            & (points[:, None, 1] < b[:, 3])
        )
        np.testing.assert_array_equal(counts[d], inside.sum(axis=0))
    assert psd.is_consistent(counts)


def test_noisy_counts_are_laplace_with_the_level_budget():
    # KS test of the leaf noise against Lap(1 / epsilon_0); false-failure rate 1e-3.
    rng = np.random.default_rng(2)
    counts = psd.quadtree_counts(rng.uniform(0, 1, (500, 2)), UNIT, 5)
    epsilons = psd.geometric_budget(1.0, 5)
    noisy = psd.noisy_counts(counts, epsilons, rng)
    noise = noisy[5] - counts[5]
    assert (
        stats.kstest(noise, stats.laplace(scale=1 / epsilons[0]).cdf).pvalue
        > FALSE_ALARM
    )


# --- OLS (Lemma 4) --------------------------------------------------------------------


def _dense_ols(counts, epsilons, fanout):
    """Weighted least squares over the leaf counts, solved densely with numpy.lstsq."""
    height = len(counts) - 1
    n_leaves = fanout**height
    rows, weights = [], []
    for d in range(height + 1):
        span = fanout ** (height - d)
        a = np.kron(np.eye(fanout**d), np.ones(span))
        rows.append(a)
        weights.append(np.full(fanout**d, epsilons[height - d]))
    a = np.vstack(rows)
    w = np.concatenate(weights)
    y = np.concatenate(counts)
    x, *_ = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)
    assert a.shape[1] == n_leaves
    beta = a @ x
    out, start = [], 0
    for d in range(height + 1):
        out.append(beta[start : start + fanout**d])
        start += fanout**d
    return out


@pytest.mark.parametrize("budget", ["uniform", "geometric", "random"])
@pytest.mark.parametrize("height", [1, 2, 3, 4])
def test_ols_equals_dense_weighted_least_squares(budget, height):
    rng = np.random.default_rng(height)
    counts = [rng.normal(50, 30, 4**d) for d in range(height + 1)]
    if budget == "uniform":
        epsilons = psd.uniform_budget(1.0, height)
    elif budget == "geometric":
        epsilons = psd.geometric_budget(1.0, height)
    else:
        epsilons = rng.uniform(0.05, 1.0, height + 1)
    beta = psd.ols(counts, epsilons)
    dense = _dense_ols(counts, epsilons, 4)
    for d in range(height + 1):
        np.testing.assert_allclose(beta[d], dense[d], rtol=0, atol=1e-8)


def test_ols_general_fanout_matches_dense_solve():
    rng = np.random.default_rng(7)
    counts = [rng.normal(0, 10, 2**d) for d in range(6)]
    epsilons = rng.uniform(0.1, 2, 6)
    for b, d in zip(
        psd.ols(counts, epsilons, fanout=2), _dense_ols(counts, epsilons, 2)
    ):
        np.testing.assert_allclose(b, d, atol=1e-8)


def test_ols_is_consistent_and_keeps_consistent_input():
    rng = np.random.default_rng(3)
    exact = psd.quadtree_counts(rng.uniform(0, 1, (2000, 2)), UNIT, 5)
    epsilons = psd.geometric_budget(0.3, 5)
    beta = psd.ols(psd.noisy_counts(exact, epsilons, rng), epsilons)
    assert psd.is_consistent(beta)
    assert not psd.is_consistent(psd.noisy_counts(exact, epsilons, rng))
    # already consistent: OLS is the identity
    for b, e in zip(psd.ols(exact, epsilons), exact):
        np.testing.assert_allclose(b, e, atol=1e-8)


def test_ols_matches_the_two_level_example_of_section_v():
    y = [np.array([10.0]), np.array([1.0, 2.0, 3.0, 5.0])]
    e0, e1 = 0.8, 0.3  # children (leaves), root
    beta = psd.ols(y, [e0, e1])
    expected_root = (4 * e1**2 * 10 + e0**2 * 11) / (4 * e1**2 + e0**2)
    assert beta[0][0] == pytest.approx(expected_root, rel=1e-12)


# --- queries --------------------------------------------------------------------------


def _rects(rng, m):
    a, b = rng.uniform(0, 1, (m, 2)), rng.uniform(0, 1, (m, 2))
    return np.column_stack(
        [
            np.minimum(a[:, 0], b[:, 0]),
            np.minimum(a[:, 1], b[:, 1]),
            np.maximum(a[:, 0], b[:, 0]),
            np.maximum(a[:, 1], b[:, 1]),
        ]
    )


def test_quadtree_query_equals_generic_canonical_query():
    rng = np.random.default_rng(4)
    counts = psd.noisy_counts(
        psd.quadtree_counts(rng.uniform(0, 1, (3000, 2)), UNIT, 4),
        # inconsistent: canonical choice matters
        psd.uniform_budget(1.0, 4),
        rng,
    )
    fast = psd.PSD(box=UNIT, counts=counts, epsilons=psd.uniform_budget(1.0, 4))
    slow = psd.PSD(
        box=UNIT,
        counts=counts,
        epsilons=fast.epsilons,
        boxes=psd.quadtree_boxes(UNIT, 4),
    )
    rects = np.vstack(
        [_rects(rng, 300), [[0, 0, 1, 1], [0.25, 0.5, 0.75, 1.0], [0.3, 0.3, 0.3, 0.4]]]
    )
    np.testing.assert_allclose(
        psd.range_query(fast, rects), psd.range_query(slow, rects), atol=1e-9
    )


def test_canonical_query_uses_maximal_nodes_only():
    counts = (np.array([100.0]), np.array([1.0, 2.0, 3.0, 4.0]), np.arange(16.0))
    tree = psd.PSD(box=UNIT, counts=counts, epsilons=psd.uniform_budget(1, 2))
    assert psd.range_query(tree, [0, 0, 1, 1])[0] == 100.0
    # the lower-left child, not its leaves
    assert psd.range_query(tree, [0, 0, 0.5, 0.5])[0] == 1.0
    assert psd.range_query(tree, [0, 0, 0.25, 0.25])[0] == 0.0  # leaf 0 has count 0
    # leaf 1 (Morton order)
    assert psd.range_query(tree, [0.25, 0, 0.5, 0.25])[0] == 1.0
    assert psd.range_query(tree, [0, 0, 0.125, 0.25])[0] == 0.0  # half of leaf 0
    # quarter of leaf 1
    assert psd.range_query(tree, [0.25, 0, 0.375, 0.125])[0] == pytest.approx(0.25)


def test_exact_tree_answers_aligned_queries_exactly():
    rng = np.random.default_rng(5)
    points = rng.uniform(0, 1, (5000, 2))
    tree = psd.PSD(
        box=UNIT,
        counts=psd.quadtree_counts(points, UNIT, 4),
        epsilons=psd.uniform_budget(1, 4),
    )
    rects = np.array([[0, 0, 0.5, 0.5], [0.125, 0.25, 0.6875, 1.0]])
    np.testing.assert_allclose(
        psd.range_query(tree, rects), psd.true_counts(points, rects)
    )


def test_pruning_turns_small_nodes_into_leaves():
    counts = (np.array([10.0]), np.array([1.0, 3.0, 3.0, 3.0]), np.arange(16.0) / 8)
    tree = psd.prune(
        psd.PSD(box=UNIT, counts=counts, epsilons=psd.uniform_budget(1, 2)), 2.0
    )
    np.testing.assert_array_equal(tree.leaf[1], [True, False, False, False])
    assert not tree.leaf[2][:4].any() and tree.leaf[2][4:].all()
    # a quarter of pruned node 0 by the uniformity assumption: 1 / 4
    assert psd.range_query(tree, [0, 0, 0.25, 0.25])[0] == pytest.approx(0.25)


def test_median_relative_error_ignores_zero_answers():
    assert psd.median_relative_error(
        [1.0, 12.0, 5.0, 0.0], [0.0, 10.0, 10.0, 4.0]
    ) == pytest.approx(0.5)


def test_random_queries_are_nonempty_and_inside_the_box():
    rng = np.random.default_rng(6)
    points = rng.uniform(0, 1, (200, 2))
    rects = psd.random_queries(points, UNIT, 0.1, 0.05, 50, rng)
    assert rects.shape == (50, 4) and np.all(psd.true_counts(points, rects) > 0)
    assert np.all(rects[:, :2] >= 0) and np.all(rects[:, 2:] <= 1)


def test_private_quadtree_is_reproducible_and_spends_epsilon():
    points = np.random.default_rng(8).uniform(0, 1, (500, 2))
    a = psd.private_quadtree(points, UNIT, 4, 0.5, np.random.default_rng(9))
    b = psd.private_quadtree(points, UNIT, 4, 0.5, np.random.default_rng(9))
    for x, y in zip(a.counts, b.counts):
        np.testing.assert_array_equal(x, y)
    assert a.epsilon == pytest.approx(0.5)


# --- bad input ------------------------------------------------------------------------


def test_geometric_budget_rejects_nonpositive_epsilon():
    with pytest.raises(ValueError, match="epsilon must be a finite real number > 0"):
        psd.geometric_budget(0.0, 3)


def test_uniform_budget_rejects_negative_height():
    with pytest.raises(ValueError, match="height must be an integer >= 0"):
        psd.uniform_budget(1.0, -1)


def test_closed_form_rejects_unknown_budget():
    with pytest.raises(ValueError, match="budget must be 'uniform' or 'geometric'"):
        psd.worst_case_error_closed_form(1.0, 3, "linear")


def test_quadtree_rejects_points_outside_box():
    with pytest.raises(ValueError, match="points must lie inside box"):
        psd.quadtree_counts([[0.5, 1.5]], UNIT, 2)


def test_quadtree_rejects_degenerate_box():
    with pytest.raises(ValueError, match="box must be"):
        psd.quadtree_counts([[0.5, 0.5]], [0, 0, 0, 1], 2)


def test_quadtree_rejects_too_tall_tree():
    with pytest.raises(ValueError, match="height must be an integer in"):
        psd.quadtree_counts([[0.5, 0.5]], UNIT, 16)


def test_ols_rejects_wrong_level_sizes():
    with pytest.raises(
        ValueError, match=r"counts\[1\] must have fanout\^1 = 4 entries"
    ):
        psd.ols([np.zeros(1), np.zeros(3)], [1.0, 1.0])


def test_ols_rejects_zero_budget():
    with pytest.raises(ValueError, match="epsilons must all be > 0"):
        psd.ols([np.zeros(1), np.zeros(4)], [1.0, 0.0])


def test_ols_rejects_budget_of_wrong_length():
    with pytest.raises(ValueError, match="epsilons must have height \\+ 1 = 2 entries"):
        psd.ols([np.zeros(1), np.zeros(4)], [1.0])


def test_private_quadtree_rejects_budget_not_summing_to_epsilon():
    with pytest.raises(ValueError, match="budget must sum to epsilon"):
        psd.private_quadtree([[0.5, 0.5]], UNIT, 1, 1.0, 0, budget=[0.2, 0.2])


def test_range_query_rejects_inverted_rectangles():
    tree = psd.PSD(box=UNIT, counts=(np.array([1.0]),), epsilons=np.array([1.0]))
    with pytest.raises(ValueError, match="rects must be rows"):
        psd.range_query(tree, [0.5, 0.5, 0.2, 0.9])


def test_relative_errors_reject_all_zero_truth():
    with pytest.raises(
        ValueError, match="truth must contain at least one non-zero answer"
    ):
        psd.relative_errors([1.0, 2.0], [0.0, 0.0])


def test_random_queries_reject_oversized_rectangle():
    with pytest.raises(ValueError, match="width and height must fit in the box"):
        psd.random_queries([[0.5, 0.5]], UNIT, 2.0, 0.1, 5, 0)


# --- private medians ------------------------------------------------------------------


def _chi_square_pvalue(observed, p):
    """Chi-square goodness of fit, pooling the cells expected to hold fewer than 5
    draws."""
    expected = p * observed.sum()
    big = expected >= 5
    if (~big).any():
        return stats.chisquare(
            np.append(observed[big], observed[~big].sum()),
            np.append(expected[big], expected[~big].sum()),
        ).pvalue
    return stats.chisquare(observed, expected).pvalue


def test_em_median_intervals_match_definition_5():
    values = np.array([1.0, 2.0, 2.0, 7.0])
    left, right, p = psd.em_median_intervals(values, 0.0, 10.0, 0.8)
    # intervals of positive length: [0,1) k=0, [1,2) k=1, [2,7) k=3, [7,10) k=4 ([2,2)
    # is empty)
    np.testing.assert_array_equal(left, [0, 1, 2, 7])
    np.testing.assert_array_equal(right, [1, 2, 7, 10])
    k = np.array([0, 1, 3, 4])
    weight = (right - left) * np.exp(-0.8 / 2 * np.abs(k - 2))
    np.testing.assert_allclose(p, weight / weight.sum(), rtol=1e-12)


def test_em_median_samples_follow_definition_5_chi_square():
    # chi-square goodness of fit of the chosen intervals; false-failure rate 1e-3.
    rng = np.random.default_rng(10)
    values = np.sort(rng.uniform(0, 100, 30))
    left, right, p = psd.em_median_intervals(values, 0.0, 100.0, 0.5)
    draws = np.array(
        [psd.em_median(values, 0.0, 100.0, 0.5, rng) for _ in range(20000)]
    )
    observed = np.bincount(
        np.searchsorted(right, draws, side="right"), minlength=len(p)
    )
    assert _chi_square_pvalue(observed, p) > FALSE_ALARM


def test_segmented_em_median_matches_definition_5_chi_square():
    # the vectorized tree version draws from the same interval distribution;
    # false-failure rate 1e-3.
    rng = np.random.default_rng(11)
    values = np.sort(rng.uniform(0, 10, 12))
    left, right, p = psd.em_median_intervals(values, 0.0, 10.0, 1.0)
    reps = 20000
    segment = np.repeat(np.arange(reps), len(values))
    draws = psd.segment_medians(
        np.tile(values, reps),
        segment,
        np.zeros(reps),
        np.full(reps, 10.0),
        "em",
        1.0,
        rng,
    )
    observed = np.bincount(
        np.searchsorted(right, draws, side="right"), minlength=len(p)
    )
    assert _chi_square_pvalue(observed, p) > FALSE_ALARM


@pytest.mark.parametrize("method", ["em", "ss", "noisymean", "cell"])
def test_every_median_method_returns_a_value_in_the_domain(method):
    rng = np.random.default_rng(12)
    for values in (rng.uniform(5, 6, 200), np.full(50, 9.99), rng.uniform(0, 10, 3)):
        for _ in range(20):
            if method == "em":
                m = psd.em_median(values, 0.0, 10.0, 0.1, rng)
            elif method == "ss":
                m = psd.ss_median(values, 0.0, 10.0, 0.1, 1e-4, rng)
            elif method == "noisymean":
                m = psd.noisy_mean_median(values, 0.0, 10.0, 0.1, rng)
            else:
                m = psd.cell_median(values, 0.0, 10.0, 0.1, 0.5, rng)
            assert 0.0 <= m <= 10.0


def test_smooth_sensitivity_matches_brute_force():
    rng = np.random.default_rng(13)
    values = np.sort(rng.uniform(0, 1, 9))
    lo, hi, epsilon, delta = 0.0, 1.0, 0.5, 1e-3
    xi = epsilon / (4 * (1 + np.log(2 / delta)))
    n, m = len(values), 5

    def x(i):
        return lo if i < 1 else hi if i > n else values[i - 1]

    brute = max(
        np.exp(-k * xi) * max(x(m + t) - x(m + t - k - 1) for t in range(k + 2))
        for k in range(n + 1)
    )
    assert psd.smooth_sensitivity_median(
        values, lo, hi, epsilon, delta
    ) == pytest.approx(brute, rel=1e-12)


def test_amplified_epsilon_inverts_the_sampling_bound():
    e = psd.amplified_epsilon(0.01, 0.01)
    assert np.log1p(0.01 * np.expm1(e)) == pytest.approx(0.01, rel=1e-12)
    assert psd.amplified_epsilon(0.3, 1.0) == pytest.approx(0.3)


# --- kd-trees and Hilbert R-trees -----------------------------------------------------


def test_kdtree_with_exact_medians_and_counts_splits_evenly_and_is_exact():
    rng = np.random.default_rng(14)
    points = rng.uniform(0, 1, (4**4, 2))
    tree = psd.private_kdtree(
        points, UNIT, 2, 1.0, rng, median="true", exact_counts=True
    )
    # medians split 256 points into 16 leaves of 16
    assert np.all(tree.counts[2] == 16)
    for b, c in zip(tree.boxes[2], tree.counts[2]):
        inside = (
            (points[:, 0] >= b[0])
            & (points[:, 0] < b[2])
            & (points[:, 1] >= b[1])
            & (points[:, 1] < b[3])
        )
        assert inside.sum() == c
    assert psd.is_consistent(tree.counts)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"median": "em"},
        {"median": "em", "switch": 1},
        {"median": "noisymean"},
        {"median": "em", "sample": 0.5},
    ],
)
def test_private_kdtree_boxes_partition_parent_and_counts_are_consistent(kwargs):
    rng = np.random.default_rng(15)
    points = rng.uniform(0, 1, (2000, 2))
    tree = psd.private_kdtree(points, UNIT, 3, 1.0, rng, **kwargs)
    assert tree.epsilon == pytest.approx(1.0)
    assert psd.is_consistent(tree.counts)
    for d in range(3):
        parent, children = tree.boxes[d], tree.boxes[d + 1].reshape(-1, 4, 4)
        area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
        np.testing.assert_allclose(area(children).sum(axis=1), area(parent), rtol=1e-9)
        assert np.all(children[..., 0] >= parent[:, None, 0]) and np.all(
            children[..., 2] <= parent[:, None, 2]
        )


def test_hybrid_tree_uses_midpoints_after_the_switch():
    rng = np.random.default_rng(16)
    tree = psd.private_kdtree(rng.uniform(0, 1, (500, 2)), UNIT, 3, 1.0, rng, switch=1)
    b = tree.boxes[2].reshape(-1, 4, 4)
    np.testing.assert_allclose(
        b[:, 0, 2], (tree.boxes[1][:, 0] + tree.boxes[1][:, 2]) / 2
    )


def test_hilbert_index_is_a_bijection_preserving_adjacency():
    for order in (1, 2, 5):
        d = np.arange(4**order)
        x, y = psd.hilbert_cell(d, order)
        assert len(set(zip(x.tolist(), y.tolist()))) == 4**order
        np.testing.assert_array_equal(psd.hilbert_index(x, y, order), d)
        np.testing.assert_array_equal(np.abs(np.diff(x)) + np.abs(np.diff(y)), 1)


def test_hilbert_range_boxes_match_brute_force():
    order = 4
    x, y = psd.hilbert_cell(np.arange(4**order), order)
    rng = np.random.default_rng(17)
    a, b = rng.integers(0, 4**order, (2, 300))
    start, stop = np.minimum(a, b), np.maximum(a, b) + 1
    boxes = psd.hilbert_range_boxes(start, stop, order)
    for (s, e), box in zip(zip(start, stop), boxes):
        np.testing.assert_array_equal(
            box, [x[s:e].min(), y[s:e].min(), x[s:e].max() + 1, y[s:e].max() + 1]
        )


def test_hilbert_rtree_leaves_hold_their_points(monkeypatch):
    # With the count noise switched off, leaf j holds the next counts[2][j] points in
    # Hilbert order (leaves are consecutive curve ranges, children in curve order); each
    # point's Hilbert cell must lie in its leaf's box.
    rng = np.random.default_rng(18)
    points = rng.uniform(0, 1, (1000, 2))
    private = psd.private_hilbert_rtree(points, UNIT, 2, 1.0, rng, order=6)
    assert psd.is_consistent(private.counts) and private.epsilon == pytest.approx(1.0)
    monkeypatch.setattr(
        psd.quadtree, "noisy_counts", lambda counts, epsilons, rng: tuple(counts)
    )
    tree = psd.private_hilbert_rtree(
        points, UNIT, 2, 1.0, rng, order=6, postprocess=False
    )
    leaf_sizes = tree.counts[2].astype(int)
    assert leaf_sizes.sum() == len(points)
    cell = np.floor(points * 64).astype(int)
    h = psd.hilbert_index(cell[:, 0], cell[:, 1], 6)
    order = np.argsort(h, kind="stable")
    leaf = np.empty(len(points), dtype=int)
    leaf[order] = np.repeat(np.arange(16), leaf_sizes)
    cx, cy = psd.hilbert_cell(h, 6)
    np.testing.assert_array_equal(np.column_stack([cx, cy]), cell)
    b = tree.boxes[2][leaf] * 64  # leaf boxes in cell units
    assert np.all(
        (b[:, 0] <= cx) & (cx + 1 <= b[:, 2]) & (b[:, 1] <= cy) & (cy + 1 <= b[:, 3])
    )
    assert np.all(
        (b[:, 0] <= points[:, 0] * 64)
        & (points[:, 0] * 64 <= b[:, 2])
        & (b[:, 1] <= points[:, 1] * 64)
        & (points[:, 1] * 64 <= b[:, 3])
    )


# --- bad input for medians and trees --------------------------------------------------


def test_em_median_rejects_values_outside_range():
    with pytest.raises(ValueError, match=r"values must lie in \[lo, hi\]"):
        psd.em_median([1.0, 11.0], 0.0, 10.0, 1.0, 0)


def test_em_median_rejects_empty_range():
    with pytest.raises(ValueError, match="lo must be < hi"):
        psd.em_median([1.0], 1.0, 1.0, 1.0, 0)


def test_smooth_sensitivity_rejects_delta_outside_unit_interval():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        psd.smooth_sensitivity_median([1.0], 0.0, 2.0, 0.5, 1.5)


def test_smooth_sensitivity_rejects_epsilon_of_one_or_more():
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 1\)"):
        psd.smooth_sensitivity_median([1.0], 0.0, 2.0, 1.0, 1e-3)


def test_segment_medians_reject_unknown_method():
    with pytest.raises(ValueError, match="method must be one of"):
        psd.segment_medians(
            np.array([0.5]),
            np.array([0]),
            np.array([0.0]),
            np.array([1.0]),
            "mean",
            1.0,
            0,
        )


def test_amplified_epsilon_rejects_rate_outside_unit_interval():
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\]"):
        psd.amplified_epsilon(0.1, 0.0)


def test_kdtree_rejects_switch_above_height():
    with pytest.raises(
        ValueError, match=r"switch must be an integer in \[0, height = 2\]"
    ):
        psd.private_kdtree([[0.5, 0.5]], UNIT, 2, 1.0, 0, switch=3)


def test_kdtree_rejects_count_share_outside_range():
    with pytest.raises(ValueError, match="count_share must be in"):
        psd.private_kdtree([[0.5, 0.5]], UNIT, 2, 1.0, 0, count_share=1.5)


def test_hilbert_index_rejects_cells_outside_grid():
    with pytest.raises(
        ValueError, match=r"ix and iy must be integers in \[0, 2\^order = 4\)"
    ):
        psd.hilbert_index([4], [0], 2)


def test_hilbert_rejects_order_too_large():
    with pytest.raises(ValueError, match=r"order must be an integer in \[1, 26\]"):
        psd.hilbert_cell([0], 27)


def test_canonical_nodes_add_up_to_the_range_query():
    rng = np.random.default_rng(19)
    tree = psd.private_kdtree(
        rng.uniform(0, 1, (3000, 2)), UNIT, 3, 1.0, rng, prune_threshold=20.0
    )
    for rect in _rects(rng, 30):
        nodes = psd.canonical_nodes(tree, rect)
        total = sum(w * tree.counts[d][j] for d, j, w in nodes)
        assert total == pytest.approx(psd.range_query(tree, rect)[0], abs=1e-8)


def _em_density(values, lo, hi, epsilon, x):
    left, right, p = psd.em_median_intervals(values, lo, hi, epsilon)
    k = np.searchsorted(right, x, side="right")
    return p[k] / (right[k] - left[k])


@pytest.mark.parametrize("extra", [0.5, 3.3, 9.9])
def test_em_median_density_ratio_is_at_most_e_epsilon_on_neighbours(extra):
    # exact check of epsilon-DP: add one point and compare the output densities
    # everywhere.
    rng = np.random.default_rng(20)
    epsilon = 0.7
    values = np.sort(rng.uniform(0, 10, 25))
    neighbour = np.sort(np.append(values, extra))
    cuts = np.unique(np.concatenate([[0.0, 10.0], values, neighbour]))
    x = (cuts[:-1] + cuts[1:]) / 2
    log_ratio = np.log(_em_density(values, 0, 10, epsilon, x)) - np.log(
        _em_density(neighbour, 0, 10, epsilon, x)
    )
    assert np.max(np.abs(log_ratio)) <= epsilon + 1e-12


def test_synthetic_points_stay_in_the_box_and_cluster():
    rng = np.random.default_rng(21)
    box = np.array([0.0, 0.0, 4.0, 2.0])
    uniform = cormode.synthetic_points(5000, box, rng)
    clustered = cormode.synthetic_points(
        5000, box, rng, kind="clustered", n_clusters=3, spread=0.02
    )
    for pts in (uniform, clustered):
        assert (
            pts.shape == (5000, 2) and np.all(pts >= box[:2]) and np.all(pts <= box[2:])
        )
    occupied = lambda p: len(
        np.unique(psd.morton_encode(*(np.floor(p / [0.25, 0.125]).astype(int).T)))
    )
    # 3 tight clusters fill few of the 256 cells
    assert occupied(clustered) < occupied(uniform) / 3


def test_synthetic_points_reject_unknown_kind():
    with pytest.raises(ValueError, match="kind must be 'uniform' or 'clustered'"):
        cormode.synthetic_points(10, UNIT, 0, kind="zipf")


@pytest.mark.parametrize("n, epsilon", [(40, 0.01), (301, 0.5), (600, 0.05)])
def test_smooth_sensitivity_branch_and_bound_matches_brute_force_on_larger_sets(
    n, epsilon
):
    rng = np.random.default_rng(n)
    values = np.sort(rng.uniform(2, 8, n) ** 1.5)
    lo, hi, delta = 0.0, 30.0, 1e-4
    xi = epsilon / (4 * (1 + np.log(2 / delta)))
    padded = np.concatenate([np.full(n + 2, lo), values, np.full(n + 2, hi)])
    m, pad = (n + 1) // 2, n + 2
    brute = max(
        np.exp(-k * xi)
        * np.max(
            padded[m + np.arange(k + 2) - 1 + pad]
            - padded[m + np.arange(k + 2) - k - 2 + pad]
        )
        for k in range(n + 1)
    )
    assert psd.smooth_sensitivity_median(
        values, lo, hi, epsilon, delta
    ) == pytest.approx(brute, rel=1e-12)


def test_cell_kdtree_splits_on_grid_lines_and_is_consistent():
    rng = np.random.default_rng(22)
    points = cormode.synthetic_points(3000, UNIT, rng, kind="clustered", n_clusters=4)
    tree = psd.private_cell_kdtree(points, UNIT, 3, 1.0, rng, cells=(32, 16))
    assert tree.epsilon == pytest.approx(1.0) and psd.is_consistent(tree.counts)
    for b in tree.boxes[1:]:
        np.testing.assert_allclose(
            b[:, [0, 2]] * 32, np.round(b[:, [0, 2]] * 32), atol=1e-9
        )
        np.testing.assert_allclose(
            b[:, [1, 3]] * 16, np.round(b[:, [1, 3]] * 16), atol=1e-9
        )
    areas = (tree.boxes[3][:, 2] - tree.boxes[3][:, 0]) * (
        tree.boxes[3][:, 3] - tree.boxes[3][:, 1]
    )
    assert areas.sum() == pytest.approx(1.0)


def test_median_study_true_median_split_has_small_rank_error_for_em_at_large_budget():
    # False-failure bound. A node's values are a run of the sorted data; EM picks I_k
    # with probability proportional to |I_k| exp(-25 |k - n/2|), and the best interval
    # (|k - n/2| <= 1/2) is at least the smallest gap g of the data long, so P(|k - n/2|
    # >= t) <= 1000 exp(-25 t + 12.5) / g. Rank error < 0.02 means |k - n/2| < 0.01 n;
    # while every parent passes, a node at depth <= 2 holds n >= 4096 * 0.49^2 points.
    # Union over the 7 nodes: the bound below (about 1e-93 for this seed).
    rng = np.random.default_rng(23)
    values = rng.uniform(0, 1000, 4096)
    gaps = np.diff(np.sort(values))
    assert gaps.min() > 0
    bound = 7 * 1000 * np.exp(-25 * 0.01 * np.floor(4096 * 0.49**2) + 12.5) / gaps.min()
    assert bound < 1e-80
    table = cormode.median_study(values, 0.0, 1000.0, 3, 50.0, "em", rng)
    assert list(table["depth"]) == [0, 1, 2]
    # at epsilon = 50 EM is essentially the exact median
    assert table["rank_error"].max() < 0.02


def test_median_study_cell_grid_uses_the_actual_cell_width():
    # cell_length 3 does not divide [0, 10]: the grid has ceil(10 / 3) = 4 cells of
    # width 2.5. All 201 values lie in the second cell [2.5, 5) around its centre 3.75,
    # so at epsilon = 1000 (count noise Lap(0.001)) the root median is the centre 3.75 =
    # the data's median, rank error 0.5 / 100.5 (3.75 is the 101st value). With the
    # nominal width 3 the median would be 4.5 (rank error 0.99).
    values = np.linspace(3.0, 4.5, 201)
    table = cormode.median_study(
        values, 0.0, 10.0, 1, 1000.0, "cell", 0, cell_length=3.0
    )
    assert table["rank_error"][0] < 0.011


def test_psd_comparison_and_switch_study_return_one_row_per_setting_and_shape():
    rng = np.random.default_rng(24)
    points = rng.uniform(0, 1, (2000, 2))
    rects = psd.random_queries(points, UNIT, 0.3, 0.3, 20, rng)
    workloads = {
        "a": (rects, psd.true_counts(points, rects)),
        "b": (rects[:10], psd.true_counts(points, rects[:10])),
    }
    table = cormode.psd_comparison(
        points, UNIT, ["quad-opt", "kd-hybrid"], [0.5, 1.0], [2, 3], workloads, 1, rng
    )
    assert len(table) == 2 * 2 * 2 * 2 and (table["error"] >= 0).all()
    assert (
        len(cormode.switch_study(points, UNIT, 2, 1.0, [0, 1, 2], workloads, rng))
        == 3 * 2
    )
    assert (
        len(cormode.count_share_study(points, UNIT, 2, 1.0, [0.5, 0.7], workloads, rng))
        == 2 * 2
    )
    assert (
        len(
            cormode.switch_study(
                points, UNIT, 2, 1.0, [0, 1], workloads, rng, n_trees=3
            )
        )
        == 2 * 2 * 3
    )
    assert (
        len(
            cormode.count_share_study(
                points, UNIT, 2, 1.0, [0.7], workloads, rng, n_trees=2
            )
        )
        == 2 * 2
    )


def test_build_psd_rejects_unknown_name():
    with pytest.raises(ValueError, match="name must be one of"):
        cormode.build_psd("kd-magic", [[0.5, 0.5]], UNIT, 2, 1.0, 0)


def test_workload_rows_give_each_shapes_median_relative_error():
    points = np.array([[0.1, 0.1], [0.2, 0.3], [0.6, 0.6], [0.7, 0.9], [0.9, 0.2]])
    tree = psd.PSD(
        box=UNIT, counts=psd.quadtree_counts(points, UNIT, 2), epsilons=[1.0] * 3
    )
    rects = np.array([[0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    truth = psd.true_counts(points, rects)
    rows = cormode.workload_rows(
        tree, {"exact": (rects, truth), "doubled": (rects, 2 * truth)}, {"tree": 7}
    )
    # exact counts on cell-aligned queries: no error; against doubled truths: 1/2
    assert rows == [
        {"tree": 7, "shape": "exact", "error": 0.0},
        {"tree": 7, "shape": "doubled", "error": 0.5},
    ]


def test_median_study_rejects_unknown_method():
    with pytest.raises(
        ValueError, match="method must be one of 'em', 'ss', 'noisymean', 'cell'"
    ):
        cormode.median_study([1.0, 2.0], 0.0, 3.0, 1, 1.0, "mean", 0)


def test_cell_kdtree_rejects_zero_cells():
    with pytest.raises(ValueError, match=r"cells\[0\] must be an integer >= 1"):
        psd.private_cell_kdtree([[0.5, 0.5]], UNIT, 2, 1.0, 0, cells=(0, 4))


# --- privacy accounting: the epsilon the mechanisms actually receive ------------------


class _Accountant:
    """Records the budget of every noisy release of one tree build, by wrapping the
    mechanisms.

    ``mechanisms.laplace`` (node counts, the kd-cell grid: arrays of sensitivity 1
    in which one point changes one entry) spends ``epsilon / sensitivity``; one call
    of ``_em_median_segments`` or ``_noisy_mean_segments`` releases the medians of
    all nodes of a level (disjoint segments) and spends its ``epsilon`` on every
    path, converted by the amplification bound ``ln(1 + p (e^eps' - 1))`` when it
    saw a Poisson sample (fewer values than points). Calls nested inside a recorded
    call are not counted twice. Laplace or Gumbel draws made outside every recorded
    mechanism are kept in ``stray`` (noise the accounting cannot see).
    """

    def __init__(self, monkeypatch, n_points, sample):
        self.n_points, self.sample = n_points, sample
        self.spends, self.stray, self.depth = [], [], 0
        self._wrap(
            monkeypatch,
            mechanisms,
            "laplace",
            lambda values, sensitivity, epsilon, rng: (
                "laplace",
                epsilon / sensitivity,
            ),
        )
        self._wrap(monkeypatch, psd.medians, "_em_median_segments", self._median)
        self._wrap(monkeypatch, psd.medians, "_noisy_mean_segments", self._median)

    def _wrap(self, monkeypatch, module, name, spend):
        original = getattr(module, name)

        def wrapper(*args):
            if self.depth == 0:
                self.spends.append(spend(*args))
            self.depth += 1
            try:
                return original(*args)
            finally:
                self.depth -= 1

        monkeypatch.setattr(module, name, wrapper)

    def _median(self, values, segment, lo, hi, epsilon, rng):
        if len(values) == self.n_points:
            return ("median", epsilon)
        assert self.sample is not None, (
            "a median saw fewer values than points without sampling"
        )
        return ("median", np.log1p(self.sample * np.expm1(epsilon)))

    def rng(self, seed):
        accountant = self

        class Recording(np.random.Generator):
            def laplace(self, *args, **kwargs):
                if accountant.depth == 0:
                    accountant.stray.append("laplace")
                return super().laplace(*args, **kwargs)

            def gumbel(self, *args, **kwargs):
                if accountant.depth == 0:
                    accountant.stray.append("gumbel")
                return super().gumbel(*args, **kwargs)

        return Recording(np.random.PCG64(seed))

    def path_spend(self):
        return sum(e for _, e in self.spends)


# name: (sample rate, Laplace releases, median releases on a path, builder). Height 3
# kd-trees split twice per data-dependent level; the kd-cell grid is one more Laplace
# release; Hilbert trees have height 2.
SPEND_CASES = {
    "quadtree-uniform": (
        None,
        5,
        0,
        lambda p, r: psd.private_quadtree(p, UNIT, 4, 1.0, r, budget="uniform"),
    ),
    "quadtree-geometric": (
        None,
        5,
        0,
        lambda p, r: psd.private_quadtree(p, UNIT, 4, 1.0, r),
    ),
    "kd-em": (None, 4, 6, lambda p, r: psd.private_kdtree(p, UNIT, 3, 1.0, r)),
    "kd-em-share-0.5": (
        None,
        4,
        6,
        lambda p, r: psd.private_kdtree(p, UNIT, 3, 1.0, r, count_share=0.5),
    ),
    "kd-noisymean": (
        None,
        4,
        6,
        lambda p, r: psd.private_kdtree(p, UNIT, 3, 1.0, r, median="noisymean"),
    ),
    "kd-hybrid": (
        None,
        4,
        2,
        lambda p, r: psd.private_kdtree(p, UNIT, 3, 1.0, r, switch=1),
    ),
    "kd-em-sampled": (
        0.5,
        4,
        6,
        lambda p, r: psd.private_kdtree(p, UNIT, 3, 1.0, r, sample=0.5),
    ),
    "kd-hybrid-sampled": (
        0.3,
        4,
        4,
        lambda p, r: psd.private_kdtree(p, UNIT, 3, 1.0, r, switch=2, sample=0.3),
    ),
    "kd-cell": (
        None,
        5,
        0,
        lambda p, r: psd.private_cell_kdtree(p, UNIT, 3, 1.0, r, cells=(32, 32)),
    ),
    "hilbert-em": (
        None,
        3,
        4,
        lambda p, r: psd.private_hilbert_rtree(p, UNIT, 2, 1.0, r, order=8),
    ),
    "hilbert-em-share-0.9": (
        None,
        3,
        4,
        lambda p, r: psd.private_hilbert_rtree(
            p, UNIT, 2, 1.0, r, order=8, count_share=0.9
        ),
    ),
    "hilbert-noisymean": (
        None,
        3,
        4,
        lambda p, r: psd.private_hilbert_rtree(
            p, UNIT, 2, 1.0, r, order=8, median="noisymean"
        ),
    ),
    "hilbert-em-sampled": (
        0.5,
        3,
        4,
        lambda p, r: psd.private_hilbert_rtree(p, UNIT, 2, 1.0, r, order=8, sample=0.5),
    ),
}


@pytest.mark.parametrize("case", list(SPEND_CASES))
def test_budget_spent_along_a_path_equals_the_claimed_epsilon(case, monkeypatch):
    # Lemma 1: the epsilons of the releases on one root-to-leaf path add up to the
    # tree's epsilon (= 1 here).
    sample, n_laplace, n_median, build = SPEND_CASES[case]
    points = np.random.default_rng(25).uniform(0, 1, (2000, 2))
    accountant = _Accountant(monkeypatch, len(points), sample)
    tree = build(points, accountant.rng(26))
    assert not accountant.stray, (
        f"noise drawn outside the accounted mechanisms: {accountant.stray}"
    )
    kinds = [kind for kind, _ in accountant.spends]
    assert (kinds.count("laplace"), kinds.count("median")) == (n_laplace, n_median)
    assert accountant.path_spend() == pytest.approx(1.0, rel=1e-12), accountant.spends
    assert tree.epsilon == pytest.approx(1.0, rel=1e-12)


def test_hilbert_rtree_rejects_count_share_outside_0_1_and_unknown_median():
    for share in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match=r"count_share must be in \(0, 1\)"):
            psd.private_hilbert_rtree(
                [[0.5, 0.5]], UNIT, 2, 1.0, 0, order=4, count_share=share
            )
    with pytest.raises(ValueError, match="median must be one of"):
        psd.private_hilbert_rtree(
            [[0.5, 0.5]], UNIT, 2, 1.0, 0, order=4, median="magic"
        )
    with pytest.raises(ValueError, match=r"sample must be None or a rate in \(0, 1\]"):
        psd.private_hilbert_rtree([[0.5, 0.5]], UNIT, 2, 1.0, 0, order=4, sample=1.5)


def test_hilbert_rtree_with_exact_medians_says_it_is_not_private():
    points = np.random.default_rng(28).uniform(0, 1, (300, 2))
    tree = psd.private_hilbert_rtree(
        points, UNIT, 2, 1.0, 0, order=6, median="true", count_share=1.0
    )
    assert tree.name == "hilbert-r-true" and tree.median_epsilon == 0
    assert (
        psd.private_hilbert_rtree(points, UNIT, 2, 1.0, 0, order=6).name == "hilbert-r"
    )


def test_kdtree_rejects_unknown_median_and_count_share_one_with_private_medians():
    with pytest.raises(ValueError, match="median must be one of"):
        psd.private_kdtree([[0.5, 0.5]], UNIT, 2, 1.0, 0, median="mean")
    with pytest.raises(ValueError, match=r"count_share must be in \(0, 1\)"):
        psd.private_kdtree(
            [[0.5, 0.5]], UNIT, 2, 1.0, 0, median="noisymean", count_share=1.0
        )


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5, -0.2])
def test_cell_kdtree_rejects_count_share_outside_the_open_interval(share):
    with pytest.raises(ValueError, match=r"count_share must be in \(0, 1\)"):
        psd.private_cell_kdtree([[0.5, 0.5]], UNIT, 2, 1.0, 0, count_share=share)


def _one_segment(values, lo=0.0, hi=1.0):
    values = np.asarray(values, dtype=float)
    return values, np.zeros(len(values), dtype=np.int64), np.array([lo]), np.array([hi])


@pytest.mark.parametrize("method", ["em", "noisymean"])
@pytest.mark.parametrize("epsilon", [-1.0, 0.0, np.inf, np.nan])
def test_segment_medians_reject_nonpositive_or_infinite_epsilon(method, epsilon):
    with pytest.raises(ValueError, match="epsilon must be a finite real number > 0"):
        psd.segment_medians(*_one_segment([0.2, 0.5]), method, epsilon, 0)


def test_segment_medians_reject_values_outside_their_segment():
    values, segment, lo, hi = (
        np.array([0.2, 0.5, 1.5]),
        np.array([0, 0, 1]),
        np.array([0.0, 1.0]),
        np.array([1.0, 1.4]),
    )
    with pytest.raises(
        ValueError, match=r"values must lie in the \[lo, hi\] of their segment"
    ):
        psd.segment_medians(values, segment, lo, hi, "em", 1.0, 0)


def test_segment_medians_reject_unsorted_values_and_bad_segments():
    with pytest.raises(
        ValueError, match=r"values must be sorted by \(segment, value\)"
    ):
        psd.segment_medians(*_one_segment([0.5, 0.2]), "em", 1.0, 0)
    with pytest.raises(ValueError, match=r"segment must hold integers in \[0, 1\)"):
        psd.segment_medians(
            np.array([0.5]),
            np.array([1]),
            np.array([0.0]),
            np.array([1.0]),
            "em",
            1.0,
            0,
        )


def test_segment_medians_accept_a_seed_like_every_sampler():
    args = _one_segment(np.linspace(0.1, 0.9, 9))
    a = psd.segment_medians(*args, "em", 1.0, 5)
    b = psd.segment_medians(*args, "em", 1.0, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


def test_ss_median_noise_is_laplace_with_scale_two_s_over_epsilon():
    # KS test of ss_median - true median against Laplace(2 S / epsilon), S the smooth
    # sensitivity (checked against brute force above); false-failure rate 1e-3. The
    # range is so wide that clamping would need a Laplace draw beyond 1000 / scale > 3e4
    # scales (probability < e^-30000): no draw is clamped.
    rng = np.random.default_rng(27)
    values = rng.uniform(0, 1, 5001)
    lo, hi, epsilon, delta = -1000.0, 1001.0, 0.5, 1e-4
    scale = 2 * psd.smooth_sensitivity_median(values, lo, hi, epsilon, delta) / epsilon
    assert 1000 / scale > 3e4
    noise = np.array(
        [psd.ss_median(values, lo, hi, epsilon, delta, rng) for _ in range(2000)]
    ) - np.median(values)
    assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > FALSE_ALARM


def test_noisy_mean_adds_laplace_of_half_epsilon_to_count_and_sum():
    # Exact reproduction from the same seed: the count gets Lap(1 / (epsilon / 2))
    # (sensitivity 1), then the sum of x - lo gets Lap((hi - lo) / (epsilon / 2)), drawn
    # in that order (all segments at once).
    rng = np.random.default_rng(29)
    lo, hi = np.array([0.0, 2.0, 5.0]), np.array([2.0, 5.0, 9.0])
    values = np.concatenate(
        [np.sort(rng.uniform(a, b, k)) for a, b, k in zip(lo, hi, (40, 7, 300))]
    )
    segment = np.repeat(np.arange(3), (40, 7, 300))
    epsilon = 0.8
    got = psd.segment_medians(
        values, segment, lo, hi, "noisymean", epsilon, np.random.default_rng(30)
    )
    g = np.random.default_rng(30)
    count = mechanisms.laplace(np.array([40.0, 7, 300]), 1.0, epsilon / 2, g)
    total = np.bincount(segment, weights=values - lo[segment]) / (hi - lo)
    total = mechanisms.laplace(total, 1.0, epsilon / 2, g) * (hi - lo)
    expected = np.where(
        count > 0,
        np.clip(lo + total / np.where(count > 0, count, 1), lo, hi),
        (lo + hi) / 2,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_true_counts_match_brute_force_with_ties_and_small_chunks():
    rng = np.random.default_rng(31)
    # many ties on the rectangle edges
    points = rng.integers(0, 6, (700, 2)).astype(float)
    a, b = rng.integers(-1, 7, (2, 400, 2)).astype(float)
    rects = np.column_stack(
        [
            np.minimum(a[:, 0], b[:, 0]),
            np.minimum(a[:, 1], b[:, 1]),
            np.maximum(a[:, 0], b[:, 0]),
            np.maximum(a[:, 1], b[:, 1]),
        ]
    )
    brute = (
        (points[None, :, 0] >= rects[:, None, 0])
        & (points[None, :, 0] <= rects[:, None, 2])
        & (points[None, :, 1] >= rects[:, None, 1])
        & (points[None, :, 1] <= rects[:, None, 3])
    ).sum(axis=1)
    for chunk in (1, 50, 1 << 20):
        np.testing.assert_array_equal(
            psd.true_counts(points, rects, chunk=chunk), brute
        )
    uniform = rng.uniform(0, 1, (5000, 2))
    rects = _rects(rng, 300)
    brute = (
        (uniform[None, :, 0] >= rects[:, None, 0])
        & (uniform[None, :, 0] <= rects[:, None, 2])
        & (uniform[None, :, 1] >= rects[:, None, 1])
        & (uniform[None, :, 1] <= rects[:, None, 3])
    ).sum(axis=1)
    np.testing.assert_array_equal(psd.true_counts(uniform, rects, chunk=1000), brute)


def test_true_counts_reject_bad_chunk():
    with pytest.raises(ValueError, match="chunk must be an integer >= 1"):
        psd.true_counts([[0.5, 0.5]], UNIT, chunk=0)


# --- a private dataset's size is private: every private entry point answers on D = {}

BOX = (0.0, 0.0, 1.0, 1.0)


@pytest.mark.parametrize("name", cormode.PSD_NAMES)
@pytest.mark.parametrize("size", [0, 1])
def test_every_psd_builder_answers_on_empty_and_one_record_data(name, size):
    # Old code: ValueError "points must not be empty" on D = {}, which reveals |D| = 0.
    points = np.array([[0.3, 0.4]])[:size].reshape(size, 2)
    tree = cormode.build_psd(name, points, BOX, 4, 1.0, np.random.default_rng(70))
    answer = psd.range_query(
        tree, np.array([[0.0, 0.0, 0.5, 0.5], [0.2, 0.2, 1.0, 1.0]])
    )
    assert answer.shape == (2,) and np.all(np.isfinite(answer))


@pytest.mark.parametrize("size", [0, 1])
def test_private_medians_answer_on_empty_and_one_record_data(size):
    values = np.array([0.3])[:size]
    rng = np.random.default_rng(71)
    for median in (
        psd.em_median(values, 0.0, 1.0, 1.0, rng),
        psd.ss_median(values, 0.0, 1.0, 0.5, 1e-4, rng),
        psd.noisy_mean_median(values, 0.0, 1.0, 1.0, rng),
        psd.cell_median(values, 0.0, 1.0, 1.0, 0.01, rng),
    ):
        assert 0.0 <= median <= 1.0
    for method in ("em", "ss", "noisymean", "cell"):
        study = cormode.median_study(
            values, 0.0, 1.0, 3, 0.5, method, rng, cell_length=0.01
        )
        assert len(study) == 3 and np.all(np.isfinite(study["rank_error"]))


# --- the building blocks the builders share -------------------------------------------


def test_sum_children_and_cell_index_by_hand():
    np.testing.assert_array_equal(psd.sum_children(np.arange(8.0), 4), [6.0, 22.0])
    np.testing.assert_array_equal(psd.sum_children(np.arange(6.0), 2), [1.0, 5.0, 9.0])
    values = np.array([0.0, 0.24, 0.25, 0.99, 1.0])
    np.testing.assert_array_equal(psd.cell_index(values, 0.0, 1.0, 4), [0, 0, 1, 3, 3])


def test_box_point_interval_and_sample_checks():
    np.testing.assert_array_equal(psd.check_box([0, 0, 2, 1]), [0.0, 0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="x_min < x_max"):
        psd.check_box([1, 0, 1, 1])
    box = psd.check_box(UNIT)
    assert psd.check_points_in(np.empty((0, 2)), box).shape == (0, 2)
    with pytest.raises(ValueError, match="1 do not"):
        psd.check_points_in([[0.5, 0.5], [1.5, 0.5]], box)
    assert psd.check_interval(0, 3) == (0.0, 3.0)
    with pytest.raises(ValueError, match="lo must be < hi"):
        psd.check_interval(2, 2)
    np.testing.assert_array_equal(
        psd.check_values_in([3.0, 1.0, 2.0], 0.0, 3.0), [1.0, 2.0, 3.0]
    )
    with pytest.raises(ValueError, match=r"values must lie in \[lo, hi\]"):
        psd.check_values_in([4.0], 0.0, 3.0)
    assert psd.check_sample_rate(None) is None
    assert psd.check_sample_rate(1) == 1.0
    with pytest.raises(ValueError, match="sample must be None or a rate"):
        psd.check_sample_rate(0)


def test_per_level_budgets_are_read_and_checked():
    np.testing.assert_array_equal(psd.check_level_epsilons([0.5, 0.25], 1), [0.5, 0.25])
    with pytest.raises(ValueError, match=r"height \+ 1 = 3 entries"):
        psd.check_level_epsilons([0.5, 0.25], 2)
    np.testing.assert_array_equal(psd.per_level_budget("uniform", 1.5, 2), [0.5] * 3)
    np.testing.assert_array_equal(
        psd.per_level_budget("geometric", 1.0, 4), psd.geometric_budget(1.0, 4)
    )
    np.testing.assert_array_equal(
        psd.per_level_budget([0.25, 0.75], 1.0, 1), [0.25, 0.75]
    )
    with pytest.raises(ValueError, match="budget must sum to epsilon = 2.0"):
        psd.per_level_budget([0.25, 0.75], 2.0, 1)


def test_tree_budget_splits_epsilon_between_counts_and_median_steps():
    # 30% of epsilon = 2 to the medians, over 2 x 3 median steps on a path
    assert psd.tree_budget(2.0, 0.7, "em", 3) == pytest.approx((1.4, 0.6, 0.1))
    assert psd.tree_budget(2.0, 1.0, "mid", 3) == (2.0, 0.0, None)


def test_rect_sum_reads_a_padded_prefix_table():
    grid = np.arange(12.0).reshape(3, 4)
    prefix = np.zeros((4, 5))
    prefix[1:, 1:] = grid.cumsum(axis=0).cumsum(axis=1)
    assert psd.rect_sum(prefix, 1, 3, 0, 2) == 1 + 2 + 5 + 6
    # the whole grid, and an empty range of columns
    c0, c1, r0, r1 = np.array([0, 2]), np.array([4, 2]), np.zeros(2, int), [3, 3]
    np.testing.assert_array_equal(
        psd.rect_sum(prefix, c0, c1, r0, np.array(r1)), [66.0, 0.0]
    )


def test_split_level_by_hand_and_the_unchecked_medians_draw_as_the_checked():
    coordinate = np.array([0.9, 0.1, 0.4, 0.6, 0.2])
    node = np.array([1, 0, 0, 1, 0], dtype=np.int64)
    lo, hi = np.array([0.0, 0.5]), np.array([0.5, 1.0])
    order = np.argsort(coordinate)
    for method, expected in (("true", [0.2, 0.75]), ("mid", [0.25, 0.75])):
        np.testing.assert_allclose(
            psd.split_level(coordinate, order, node, lo, hi, method, None, None, None),
            expected,
        )
    values = np.array([0.1, 0.2, 0.4, 0.6, 0.9])
    segment = np.array([0, 0, 0, 1, 1], dtype=np.int64)
    for method in ("em", "noisymean"):
        checked = psd.segment_medians(
            values, segment, lo, hi, method, 1.0, np.random.default_rng(3)
        )
        unchecked = psd.segment_medians_unchecked(
            values, segment, lo, hi, method, 1.0, np.random.default_rng(3)
        )
        np.testing.assert_array_equal(checked, unchecked)
