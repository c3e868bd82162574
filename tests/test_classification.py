"""Tests of dpnn.classification: private r-N and k-NN classification (Gursoy et al.).

Statistical tests use fixed seeds and a false-failure rate of 1e-3 (for a
correct implementation, over the choice of seed). Privacy is checked exactly
where the output law has a closed form, with a negative control.
"""

import math
from fractions import Fraction
from itertools import combinations, product

import networkx as nx
import numpy as np
import pytest
import shapely
from scipy import integrate, stats

from companion.studies import gursoy
from dpnn import classification as c
from dpnn import data, mechanisms

FALSE_ALARM = 1e-3


def _two_clusters(rng, n=400):
    points = rng.random((n, 2))
    return points, (points[:, 0] > 0.5).astype(np.intp)


# --- input checks, the memo and the pieces the classifiers share ----------------------


def test_training_query_and_radius_checks_by_hand():
    points, labels, n_labels = c.check_training([0.5, 1.0], [1, 0], 2)
    np.testing.assert_array_equal(points, [[0.5], [1.0]])
    assert labels.dtype == np.intp and n_labels == 2
    assert c.check_private_points(np.empty((0, 3))).shape == (0, 3)
    with pytest.raises(ValueError, match="unit cube"):
        c.check_private_points([[0.5, 1.5]])
    with pytest.raises(ValueError, match=r"labels must be integers in \[0, n_labels\)"):
        c.check_training([[0.1], [0.2]], [0, 2], 2)
    np.testing.assert_array_equal(c.check_queries([0.1, 0.2], 2), [[0.1, 0.2]])
    np.testing.assert_array_equal(c.check_queries([0.1, 0.2], 1), [[0.1], [0.2]])
    np.testing.assert_array_equal(c.check_radii(0.5, 3), [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="r must be > 0"):
        c.check_radii([0.5, 0.0], 2, "r")
    batch = c.check_batch([[0.1, 0.1], [0.9, 0.9]], [0, 1], [0.5, 0.5], 1.0, 2)
    assert [np.shape(x) for x in batch] == [(2, 2), (2,), (), (1, 2), (1,)]


def test_k_checks_by_hand():
    np.testing.assert_array_equal(c.check_k_values(3, 2), [3, 3])
    np.testing.assert_array_equal(c.check_k_values([1, 4], 2), [1, 4])
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        c.check_k_values(0, 2)
    np.testing.assert_array_equal(c.check_k_at_most([1, 4], 2, 4), [1, 4])
    with pytest.raises(ValueError, match=r"\[1, \|D\|\] = \[1, 3\]"):
        c.check_k_at_most(4, 1, 3)


def test_remember_last_answers_a_repeated_call_from_memory_with_a_copy():
    calls = []

    @c.remember_last
    def total(values, scale=1):
        calls.append(scale)
        return [float(np.sum(values)) * scale]

    values = np.array([1.0, 2.0])
    first = total(values, scale=2)
    first.append("changed by the caller")
    assert total(values.copy(), scale=2) == [6.0] and calls == [2]
    assert total(values, scale=3) == [9.0] and calls == [2, 3]
    assert total.__wrapped__(values) == [3.0]


def test_label_counts_and_the_argmaxes_by_hand():
    points, labels = np.array([[0.1], [0.2], [0.3], [0.9]]), np.array([0, 1, 1, 0])
    queries, radii = np.array([[0.2], [0.9]]), np.array([0.15, 0.05])
    counts = c.label_counts_unchecked(points, labels, 2, queries, radii)
    np.testing.assert_array_equal(counts, [[1, 2], [1, 0]])
    np.testing.assert_array_equal(
        counts, c.label_counts(points, labels, queries, radii, 2)
    )
    rng = np.random.default_rng(5)
    np.testing.assert_array_equal(c.argmax_random_ties(counts, rng), [1, 0])
    tied = np.array([[2, 2, 1]])
    assert {int(c.argmax_random_ties(tied, rng)[0]) for _ in range(50)} == {0, 1}
    # Alg. 1 on each row: argmax of count + Lap(1 / epsilon), epsilon per row
    epsilons = np.array([0.5, 2.0])
    g = np.random.default_rng(8)  # rows drawn by ascending epsilon, here in order
    noisy = [mechanisms.laplace(counts[i], 1.0, e, g) for i, e in enumerate(epsilons)]
    np.testing.assert_array_equal(
        c.noisy_argmax(counts, epsilons, np.random.default_rng(8)),
        np.argmax(noisy, axis=1),
    )
    np.testing.assert_array_equal(c.noisy_argmax(counts, 1e9, rng), [1, 0])


# --- r-N classifiers (Alg. 1-2) -------------------------------------------------------


def test_label_counts_equal_brute_force():
    rng = np.random.default_rng(0)
    points, labels = _two_clusters(rng)
    labels[::3] = 2
    queries, radii = rng.random((30, 2)), rng.uniform(0.05, 0.3, 30)
    distance = np.linalg.norm(queries[:, None] - points[None], axis=2)
    inside = distance <= radii[:, None]
    expected = np.stack(
        [(inside & (labels == label)).sum(axis=1) for label in range(3)], axis=1
    )
    np.testing.assert_array_equal(
        c.label_counts(points, labels, queries, radii, 3), expected
    )


def test_the_papers_57_percent_example():
    # §3.1: 80 votes for a, 20 for b, epsilon' = 0.01: e^0.4 / (e^0.4 + e^0.1).
    probability = c.exponential_label_probabilities(np.array([80.0, 20.0]), 0.01)[0]
    assert probability == pytest.approx(
        math.exp(0.4) / (math.exp(0.4) + math.exp(0.1)), rel=1e-12
    )
    assert round(probability, 3) == 0.574


def test_laplace_label_probability_matches_numerical_integration():
    # Pr[c_a + L1 > c_b + L2] = integral of the Laplace density of L1 times Pr[L2 < c_a
    # - c_b + L1].
    for t, epsilon in [(0, 1.0), (3, 0.5), (-2, 0.7), (1, 0.01), (-5, 2.0)]:
        b = 1 / epsilon
        integrand = lambda u: (
            stats.laplace.pdf(u, scale=b) * stats.laplace.cdf(t + u, scale=b)
        )  # noqa: E731
        expected = integrate.quad(integrand, -np.inf, np.inf, limit=200)[0]
        assert c.laplace_label_probabilities(t, 0, epsilon) == pytest.approx(
            expected, abs=1e-9
        )


def _identical_instances(n):
    """A training set where the test point (0.5, 0.5) with radius 0.2 sees counts (3, 1,
    0)."""
    points = np.array(
        [[0.5, 0.5], [0.55, 0.5], [0.5, 0.55], [0.45, 0.5], [0.95, 0.95], [0.05, 0.05]]
    )
    labels = np.array([0, 0, 0, 1, 2, 2])
    return points, labels, np.tile([0.5, 0.5], (n, 1)), 0.2


def test_exponential_rn_classifier_frequencies_match_alg_2():
    # n identical instances at epsilon / n each: n independent draws of Alg. 2 at
    # epsilon' = 0.8.
    points, labels, queries, radius = _identical_instances(20000)
    result = c.rn_classify_baseline(
        points,
        labels,
        queries,
        radius,
        0.8 * 20000,
        np.random.default_rng(1),
        n_labels=3,
        mechanism="exponential",
    )
    expected = c.exponential_label_probabilities(np.array([3.0, 1.0, 0.0]), 0.8)
    observed = np.bincount(result.labels, minlength=3)
    assert stats.chisquare(observed, expected * observed.sum()).pvalue > FALSE_ALARM


def test_laplace_rn_classifier_frequencies_match_alg_1():
    points, labels, queries, radius = _identical_instances(20000)
    keep = labels < 2  # two labels: the closed form applies
    result = c.rn_classify_baseline(
        points[keep],
        labels[keep],
        queries,
        radius,
        0.5 * 20000,
        np.random.default_rng(2),
        n_labels=2,
    )
    expected = c.laplace_label_probabilities(3, 1, 0.5)
    assert (
        stats.binomtest(int(np.sum(result.labels == 0)), 20000, expected).pvalue
        > FALSE_ALARM
    )


def test_single_instance_classifiers_agree_with_counts_at_huge_epsilon():
    points, labels, _, radius = _identical_instances(1)
    for classify in (c.rn_classify_laplace, c.rn_classify_exponential):
        assert (
            classify(
                points,
                labels,
                [0.5, 0.5],
                radius,
                1e6,
                np.random.default_rng(3),
                n_labels=3,
            )
            == 0
        )


# --- region overlap graph and sensitivity (Alg. 3, Lemmas 1-3) ------------------------


def _brute_force_clique_number(graph):
    nodes = list(graph.nodes)
    for size in range(len(nodes), 0, -1):
        for subset in combinations(nodes, size):
            if all(graph.has_edge(u, v) for u, v in combinations(subset, 2)):
                return size
    return 0


def test_max_clique_size_equals_brute_force_on_random_graphs():
    rng = np.random.default_rng(4)
    for trial in range(60):
        n, density = int(rng.integers(1, 10)), rng.random()
        graph = nx.gnp_random_graph(n, density, seed=int(rng.integers(2**31)))
        assert c.max_clique_size(graph) == _brute_force_clique_number(graph), trial


def test_max_clique_size_equals_networkx_exact_search_on_larger_graphs():
    # Exercises the greedy shortcuts (dense graphs) and the exact fallback alike.
    rng = np.random.default_rng(25)
    for density in (0.1, 0.5, 0.8, 0.95, 0.99):
        graph = nx.gnp_random_graph(40, density, seed=int(rng.integers(2**31)))
        assert (
            c.max_clique_size(graph) == nx.max_weight_clique(graph, weight=None)[1]
        ), density


def test_region_overlap_graph_equals_pairwise_definition():
    rng = np.random.default_rng(5)
    queries, radii = rng.random((80, 2)), rng.uniform(0.01, 0.15, 80)
    graph = c.region_overlap_graph(queries, radii)
    expected = {
        (i, j)
        for i, j in combinations(range(80), 2)
        if np.linalg.norm(queries[i] - queries[j]) <= radii[i] + radii[j]
    }
    assert {tuple(sorted(e)) for e in graph.edges} == expected
    assert graph.number_of_nodes() == 80


def test_near_tangent_balls_that_count_one_point_twice_share_a_component():
    # Adversarial case: r_i + r_j is below |x_i - x_j| in exact arithmetic, so the plain
    # float test |x_i - x_j| <= r_i + r_j finds no edge, yet the closed-ball counts
    # (cKDTree) count the training point p in both balls. Without an edge both instances
    # would get the full epsilon: loss 2 epsilon.
    x_i = [float.fromhex("0x1.607c1701ae3d4p-1"), float.fromhex("0x1.8e416af2d0e5ap-2")]
    x_j = [float.fromhex("0x1.14ad79f70051cp-3"), float.fromhex("0x1.7166eb7328660p-1")]
    p = [float.fromhex("0x1.9749a0361d7fbp-2"), float.fromhex("0x1.209503baaf3e7p-1")]
    radii = np.array(
        [float.fromhex("0x1.5b4ed348d778bp-2"), float.fromhex("0x1.39c8e86508eb2p-2")]
    )
    queries = np.array([x_i, x_j])
    exact_distance_squared = sum(
        (Fraction(a) - Fraction(b)) ** 2 for a, b in zip(x_i, x_j)
    )
    # disjoint, exactly
    assert (Fraction(radii[0]) + Fraction(radii[1])) ** 2 < exact_distance_squared
    # the float test agrees
    assert not np.linalg.norm(queries[0] - queries[1]) <= radii[0] + radii[1]
    # counted twice
    np.testing.assert_array_equal(
        c.label_counts([p], [0], queries, radii, 2), [[1, 0], [1, 0]]
    )
    graph = c.region_overlap_graph(queries, radii)
    assert graph.has_edge(0, 1)
    assert c.overlap_components(graph) == [([0, 1], 2)]
    result = c.rn_classify_batch(
        [p], [0], queries, radii, 1.0, np.random.default_rng(26), n_labels=2
    )
    np.testing.assert_allclose(result.epsilons, [0.5, 0.5])


def test_figure_3_example_components_and_budgets():
    # x1, x2, x3 mutually overlap, x4 alone, x5 and x6 overlap (the paper's Fig. 3).
    queries = np.array(
        [[0.1, 0.1], [0.2, 0.1], [0.15, 0.18], [0.5, 0.5], [0.8, 0.8], [0.9, 0.8]]
    )
    radii = np.full(6, 0.06)
    components = sorted(c.overlap_components(c.region_overlap_graph(queries, radii)))
    assert components == [([0, 1, 2], 3), ([3], 1), ([4, 5], 2)]
    points, labels = _two_clusters(np.random.default_rng(6))
    result = c.rn_classify_batch(
        points, labels, queries, radii, 1.2, np.random.default_rng(7), n_labels=2
    )
    np.testing.assert_allclose(result.epsilons, [0.4, 0.4, 0.4, 1.2, 0.6, 0.6])


def test_adding_any_training_point_changes_at_most_mcs_counts():
    # Lemma 3 by brute force: add a point at each location of a fine grid and recount.
    rng = np.random.default_rng(8)
    locations = np.stack(
        np.meshgrid(np.linspace(0, 1, 121), np.linspace(0, 1, 121)), -1
    ).reshape(-1, 2)
    for trial in range(12):
        n = int(rng.integers(3, 9))
        queries, radii = rng.uniform(0.2, 0.8, (n, 2)), rng.uniform(0.05, 0.3, n)
        points, labels = _two_clusters(rng, 30)
        components = c.overlap_components(c.region_overlap_graph(queries, radii))
        mcs = np.empty(n, dtype=int)
        for nodes, size in components:
            mcs[nodes] = size
        before = c.label_counts(points, labels, queries, radii, 2)
        depth = c.overlap_depth(queries, radii, locations)
        for row in np.flatnonzero(depth.any(axis=1))[::7]:
            after = c.label_counts(
                np.vstack([points, locations[row]]),
                np.append(labels, 1),
                queries,
                radii,
                2,
            )
            changed = np.flatnonzero(np.abs(after - before).sum(axis=1))
            np.testing.assert_array_equal(changed, np.flatnonzero(depth[row]))
            assert len(set(mcs[changed])) == 1 and changed.size <= mcs[changed[0]], (
                trial
            )
        assert depth.sum(axis=1).max() <= mcs.max()


def test_mcs_can_exceed_the_true_depth():
    # Three pairwise-overlapping discs with no common point: MCS 3, true sensitivity 2
    # (Lemma 3 is a bound).
    angles = np.array([0.0, 2 * np.pi / 3, 4 * np.pi / 3])
    queries = 0.5 + 0.2 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    # just over half the side of the triangle
    radii = np.full(3, 0.2 * math.sqrt(3) / 2 * 1.01)
    assert c.max_clique_size(c.region_overlap_graph(queries, radii)) == 3
    grid = np.stack(
        np.meshgrid(np.linspace(0, 1, 301), np.linspace(0, 1, 301)), -1
    ).reshape(-1, 2)
    assert c.overlap_depth(queries, radii, grid).sum(axis=1).max() == 2


def _pair_output_law(counts, epsilons):
    """Exact law of the two labels Alg. 1 releases for two instances with two labels
    each."""
    first = c.laplace_label_probabilities(counts[0][0], counts[0][1], epsilons[0])
    second = c.laplace_label_probabilities(counts[1][0], counts[1][1], epsilons[1])
    return np.array(
        [
            [first * second, first * (1 - second)],
            [(1 - first) * second, (1 - first) * (1 - second)],
        ]
    )


def test_alg_3_budget_bounds_the_exact_privacy_loss_and_full_budget_does_not():
    # Two overlapping instances (MCS 2); D' adds a label-0 point in the common region.
    epsilon = 1.0
    worst_split, worst_full = 0.0, 0.0
    for counts in product(range(-3, 4), repeat=2):
        before = [(5 + counts[0], 5), (5 + counts[1], 5)]
        after = [(6 + counts[0], 5), (6 + counts[1], 5)]
        split = np.log(
            _pair_output_law(after, [epsilon / 2] * 2)
            / _pair_output_law(before, [epsilon / 2] * 2)
        )
        full = np.log(
            _pair_output_law(after, [epsilon] * 2)
            / _pair_output_law(before, [epsilon] * 2)
        )
        worst_split, worst_full = (
            max(worst_split, np.abs(split).max()),
            max(worst_full, np.abs(full).max()),
        )
    assert worst_split <= epsilon + 1e-12
    # the negative control: no division by MCS is not epsilon-DP
    assert worst_full > 1.5 * epsilon


def test_alg_3_noise_scale_per_component_is_mcs_over_epsilon():
    # Two components of identical instances (complete graphs, MCS 40 and 20) at epsilon
    # = 20: Alg. 1 at epsilon / MCS = 0.5 and 1.0. The label frequencies must follow the
    # exact Laplace-argmax law there.
    rng = np.random.default_rng(27)
    points = rng.random((200, 2))
    labels = (points[:, 1] > 0.5).astype(np.intp)
    queries = np.vstack([np.tile([0.25, 0.5], (40, 1)), np.tile([0.75, 0.5], (20, 1))])
    distance = np.linalg.norm(points[None] - queries[[0, -1]][:, None], axis=2)
    counts = [
        [int(np.sum((distance[g] <= 0.1) & (labels == label))) for label in (0, 1)]
        for g in (0, 1)
    ]
    assert counts[0][0] != counts[0][1] and counts[1][0] != counts[1][1]
    first, second = [], []
    for _ in range(200):
        result = c.rn_classify_batch(
            points, labels, queries, 0.1, 20.0, rng, n_labels=2
        )
        first.append(result.labels[:40])
        second.append(result.labels[40:])
    for chosen, count, share in (
        (np.concatenate(first), counts[0], 0.5),
        (np.concatenate(second), counts[1], 1.0),
    ):
        expected = c.laplace_label_probabilities(count[0], count[1], share)
        test = stats.binomtest(int(np.sum(chosen == 0)), chosen.size, expected)
        # Bonferroni over the two components
        assert test.pvalue > FALSE_ALARM / 2, (count, share)


# --- k-NN to r-N conversion (Alg. 6-7) ------------------------------------------------


def test_r_unif_exact_values():
    assert c.r_unif(10, 1000, 2) == pytest.approx(math.sqrt(10 / (1000 * math.pi)))
    # 2 r n / vol = k
    assert c.r_unif(5, 200, 1, volume=2.0) == pytest.approx(5 * 2.0 / (200 * 2))
    assert c.r_unif(30, 500, 3) == pytest.approx(
        (30 * 3 / (4 * math.pi * 500)) ** (1 / 3)
    )
    np.testing.assert_allclose(
        c.interactive_candidates(np.array([0.5]), 4), [[0.25, 0.5, 0.75, 1.0]]
    )


def test_grid_size_follows_qardaji_in_two_dimensions():
    assert c.grid_size(4000, 0.5, 2) == math.floor(math.sqrt(4000 * 0.5 / 10))
    assert c.grid_size(1000, 1.0, 64) == 1
    assert c.grid_size(1e12, 1.0, 2, max_cells=2**20) == 1024


def test_interactive_conversion_at_huge_epsilon_returns_the_best_candidate():
    rng = np.random.default_rng(9)
    points, queries = rng.random((2000, 2)), rng.uniform(0.2, 0.8, (40, 2))
    radii = c.convert_interactive(points, queries, 20, 1e9, np.random.default_rng(10))
    candidates = c.interactive_candidates(c.r_unif(np.full(40, 20), 2000, 2), 10)
    counts = np.array(
        [
            [np.sum(np.linalg.norm(points - q, axis=1) <= o) for o in row]
            for q, row in zip(queries, candidates)
        ]
    )
    best = np.abs(counts - 20)
    unique = (best == best.min(axis=1, keepdims=True)).sum(axis=1) == 1
    assert unique.sum() >= 20
    chosen = candidates[np.arange(40), best.argmin(axis=1)]
    # |D| noise of scale 2e-8
    np.testing.assert_allclose(radii[unique], chosen[unique], rtol=1e-9)


def _pooled_chisquare(observed, probabilities, minimum=5.0):
    """Chi-square p-value after pooling the cells whose expected count is below
    ``minimum``."""
    expected = probabilities * observed.sum()
    small = expected < minimum
    observed = np.append(observed[~small], observed[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    return stats.chisquare(observed, expected).pvalue


def test_interactive_conversion_frequencies_match_the_exponential_mechanism(
    monkeypatch,
):
    # 20000 identical instances share one noisy |D| (so one candidate list) and each
    # runs the exponential mechanism at 0.95 epsilon_hat / |X| = 1. We record r_UNIF,
    # rebuild the candidates and their utilities -|c - k| by brute force, and compare
    # the chosen candidates' frequencies with exp(epsilon' u / 2) normalised.
    rng = np.random.default_rng(30)
    points, n, k = rng.random((300, 2)), 20000, 12
    epsilon_hat = 1.0 * n / (1 - c.SIZE_SHARE)
    uniform_radii = []
    r_unif = c.r_unif
    monkeypatch.setattr(
        c.interactive,
        "r_unif",
        lambda *a, **kw: uniform_radii.append(r_unif(*a, **kw)) or uniform_radii[-1],
    )
    radii = c.convert_interactive(
        points, np.tile([0.5, 0.5], (n, 1)), k, epsilon_hat, np.random.default_rng(31)
    )
    step = 2 * uniform_radii[0][0] / 10
    candidates = step * np.arange(1, 11)
    utility = -np.abs(
        np.array(
            [np.sum(np.linalg.norm(points - 0.5, axis=1) <= o) for o in candidates]
        )
        - k
    )
    weights = np.exp((1 - c.SIZE_SHARE) * epsilon_hat / n / 2 * utility)
    chosen = np.rint(radii / step).astype(int) - 1
    np.testing.assert_allclose(radii, candidates[chosen], rtol=1e-12)
    observed = np.bincount(chosen, minlength=10)
    assert _pooled_chisquare(observed, weights / weights.sum()) > FALSE_ALARM


def test_noisy_size_is_laplace_with_scale_one_over_epsilon():
    rng = np.random.default_rng(32)
    noise = np.array([c.noisy_size(1000, 0.5, rng) for _ in range(3000)]) - 1000
    assert stats.kstest(noise, stats.laplace(scale=2.0).cdf).pvalue > FALSE_ALARM


def test_interactive_conversion_uses_a_noisy_size_with_scale_one_over_its_share(
    monkeypatch,
):
    # The |D| that Alg. 6 feeds to r_UNIF must be |D| + Lap(1 / (0.05 epsilon_hat)).
    rng = np.random.default_rng(33)
    points, epsilon_hat = rng.random((500, 2)), 2.0
    sizes = []
    r_unif = c.r_unif
    monkeypatch.setattr(
        c.interactive,
        "r_unif",
        lambda k, n_points, *a, **kw: (
            sizes.append(n_points) or r_unif(k, n_points, *a, **kw)
        ),
    )
    for _ in range(2000):
        c.convert_interactive(points, [[0.5, 0.5]], 5, epsilon_hat, rng)
    scale = 1 / (c.SIZE_SHARE * epsilon_hat)
    assert (
        stats.kstest(np.array(sizes) - 500, stats.laplace(scale=scale).cdf).pvalue
        > FALSE_ALARM
    )


def test_noninteractive_conversion_at_huge_epsilon_is_exact_up_to_the_grid_resolution():
    # Mass >= k once the ball covers the k-th neighbour's cell, and not before r + cell
    # diagonal reaches it: |r - r_k| <= diagonal + gamma.
    rng = np.random.default_rng(11)
    points, queries = rng.random((3000, 2)), rng.uniform(0.2, 0.8, (50, 2))
    grid = c.private_uniform_grid(
        points, 1e12, np.random.default_rng(12), max_cells=2**18
    )
    assert grid.m == 512
    gamma = 1e-4
    radii = c.convert_noninteractive(grid, queries, 15, gamma, rng)
    truth = c.knn_radii(points, queries, 15)
    assert np.max(np.abs(radii - truth)) <= math.sqrt(2) / grid.m + gamma
    assert c.avre(radii, truth) < 2.0


def test_bisection_returns_the_papers_linear_scan():
    rng = np.random.default_rng(13)
    points, queries = rng.random((500, 2)), rng.random((10, 2))
    grid = c.private_uniform_grid(points, 0.5, rng)
    gamma, k = 0.01, 12
    radii = c.convert_noninteractive(grid, queries, k, gamma, rng)
    for query, radius in zip(queries, radii):
        r = gamma
        while (
            r <= math.sqrt(2) and c.grid_mass(grid, query[None], np.array([r]))[0] < k
        ):
            r += gamma
        assert radius == pytest.approx(r, abs=1e-12)


def test_disc_rectangle_area_against_shapely_and_exact_cases():
    rng = np.random.default_rng(14)
    for _ in range(30):
        centre, r = rng.random(2), rng.uniform(0.05, 0.6)
        lower = rng.random(2) * 0.5
        upper = lower + rng.uniform(0.05, 0.6, 2)
        disc = shapely.Point(centre).buffer(r, quad_segs=2048)
        expected = disc.intersection(shapely.box(*lower, *upper)).area
        got = c.disc_rectangle_area(centre, r, lower, upper)
        assert got == pytest.approx(expected, rel=1e-5, abs=1e-9)
    assert c.disc_rectangle_area(
        np.array([0.5, 0.5]), 0.1, np.zeros(2), np.ones(2)
    ) == pytest.approx(math.pi / 100)
    assert c.disc_rectangle_area(
        np.array([0.5, 0.5]), 0.1, np.array([0.5, 0.0]), np.ones(2)
    ) == pytest.approx(math.pi / 200)
    assert c.disc_rectangle_area(
        np.array([0.5, 0.5]), 1.0, np.zeros(2), np.ones(2)
    ) == pytest.approx(1.0)


def test_grid_mass_in_three_dimensions_is_exact_for_a_ball_inside_one_cell():
    grid = c.PrivateGrid(np.full((1, 1, 1), 500.0), 1, 1.0)
    samples = c.uniform_grid._ball_directions(3, 64, np.random.default_rng(15))
    mass = c.grid_mass(
        grid, np.array([[0.5, 0.5, 0.5]]), np.array([0.3]), samples=samples
    )
    assert mass[0] == pytest.approx(500 * 4 / 3 * math.pi * 0.3**3)


def test_grid_counts_are_laplace_with_scale_one_over_the_count_budget():
    rng = np.random.default_rng(16)
    points = np.full((100, 2), 0.1)
    epsilon, share = 2.0, c.SIZE_SHARE
    noise = []
    for _ in range(40):
        grid = c.private_uniform_grid(points, epsilon, rng, c=0.05)
        exact = np.zeros((grid.m, grid.m))
        exact[int(0.1 * grid.m), int(0.1 * grid.m)] = 100
        noise.append((grid.counts - exact).ravel())
    noise = np.concatenate(noise)
    scale = 1 / ((1 - share) * epsilon)
    assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > FALSE_ALARM


# --- k-NN classifiers (Alg. 4-5) ------------------------------------------------------


def test_knn_baseline_frequencies_match_alg_4():
    points = np.array([[0.5, 0.5], [0.52, 0.5], [0.5, 0.53], [0.6, 0.6], [0.9, 0.9]])
    labels = np.array([0, 0, 1, 1, 1])
    queries = np.tile([0.5, 0.5], (20000, 1))
    got = c.knn_classify_baseline(
        points, labels, queries, 3, 0.9 * 20000, np.random.default_rng(17), n_labels=2
    )
    expected = c.exponential_label_probabilities(np.array([2.0, 1.0]), 0.9)[0]
    assert stats.binomtest(int(np.sum(got == 0)), 20000, expected).pvalue > FALSE_ALARM


def test_knn_radii_and_nonprivate_knn_match_brute_force():
    rng = np.random.default_rng(18)
    points, labels = _two_clusters(rng, 200)
    queries = rng.random((25, 2))
    distance = np.sort(np.linalg.norm(queries[:, None] - points[None], axis=2), axis=1)
    np.testing.assert_allclose(c.knn_radii(points, queries, 7), distance[:, 6])
    predicted = c.knn_classify_nonprivate(points, labels, queries, 9, rng, n_labels=2)
    order = np.argsort(np.linalg.norm(queries[:, None] - points[None], axis=2), axis=1)[
        :, :9
    ]
    np.testing.assert_array_equal(
        predicted, (labels[order].sum(axis=1) >= 5).astype(int)
    )


@pytest.mark.parametrize(
    "conversion, converter",
    [
        ("interactive", "convert_interactive"),
        ("noninteractive", "private_uniform_grid"),
    ],
)
def test_alg_5_gives_w_epsilon_to_the_conversion_and_the_rest_to_alg_3(
    monkeypatch, conversion, converter
):
    received = {}

    def recording(name, position):
        original = getattr(c, name)

        def wrapper(*args, **kwargs):
            received[name] = args[position]
            return original(*args, **kwargs)

        return wrapper

    home = c.interactive if converter == "convert_interactive" else c.uniform_grid
    monkeypatch.setattr(
        home,
        converter,
        recording(converter, 3 if converter == "convert_interactive" else 1),
    )
    monkeypatch.setattr(
        c.overlap, "rn_classify_batch", recording("rn_classify_batch", 4)
    )
    points, labels = _two_clusters(np.random.default_rng(34), 300)
    c.knn_classify_private(
        points,
        labels,
        np.random.default_rng(35).random((10, 2)),
        5,
        2.0,
        np.random.default_rng(36),
        n_labels=2,
        conversion=conversion,
        w=0.3,
    )
    assert received[converter] == pytest.approx(0.3 * 2.0, rel=1e-12)
    assert received["rn_classify_batch"] == pytest.approx(0.7 * 2.0, rel=1e-12)


def test_k_larger_than_the_private_size_is_answered_by_private_functions_only():
    # |D| is private: raising for k > |D| would tell D (answers) from D minus a record
    # (raises).
    points, labels = _two_clusters(np.random.default_rng(37), 50)
    labels[:40] = 1  # majority label 1
    queries, k = np.random.default_rng(38).random((6, 2)), 50 + 5
    for conversion in ("interactive", "noninteractive"):
        predicted, radii = c.knn_classify_private(
            points,
            labels,
            queries,
            k,
            1.0,
            np.random.default_rng(39),
            n_labels=2,
            conversion=conversion,
        )
        assert predicted.shape == (6,) and np.all(radii > 0)
    assert c.convert_interactive(
        points, queries, k, 1.0, np.random.default_rng(40)
    ).shape == (6,)
    grid = c.private_uniform_grid(points, 1.0, np.random.default_rng(41))
    assert c.convert_noninteractive(
        grid, queries, k, 0.01, np.random.default_rng(42)
    ).shape == (6,)
    # The baseline's "k nearest" are all 50 records: at a huge budget it returns their
    # majority.
    baseline = c.knn_classify_baseline(
        points, labels, queries, k, 1e9, np.random.default_rng(43), n_labels=2
    )
    np.testing.assert_array_equal(baseline, np.ones(6))
    # Non-private functions read |D| openly and refuse.
    with pytest.raises(
        ValueError, match=r"k must be an integer in \[1, \|D\|\] = \[1, 50\]"
    ):
        c.knn_classify_nonprivate(points, labels, queries, k, 0, n_labels=2)
    with pytest.raises(
        ValueError, match=r"k must be an integer in \[1, \|D\|\] = \[1, 50\]"
    ):
        c.knn_radii(points, queries, k)


def test_private_knn_is_reproducible_and_accurate_at_large_epsilon():
    points, labels = _two_clusters(np.random.default_rng(19), 2000)
    queries = np.random.default_rng(20).random((60, 2))
    truth = (queries[:, 0] > 0.5).astype(int)
    for conversion in ("interactive", "noninteractive"):
        first = c.knn_classify_private(
            points,
            labels,
            queries,
            10,
            50.0,
            np.random.default_rng(21),
            n_labels=2,
            conversion=conversion,
        )
        again = c.knn_classify_private(
            points,
            labels,
            queries,
            10,
            50.0,
            np.random.default_rng(21),
            n_labels=2,
            conversion=conversion,
        )
        np.testing.assert_array_equal(first[0], again[0])
        np.testing.assert_array_equal(first[1], again[1])
        # Over 60 independent seeds the accuracy here averaged 0.968 (sd 0.023)
        # interactive and 0.991 (sd 0.011) non-interactive: 0.88 is 3.8 sd below the
        # lower, a false-failure rate under 1e-4 per conversion in the normal
        # approximation.
        assert np.mean(first[0] == truth) >= 0.88


def test_proposed_beats_baseline_on_moons_at_epsilon_one():
    # The acceptance check on a smaller scale: 2 folds, 100 instances. The claim is the
    # paper's and is tested as the notebook states it (gap larger than both 95%
    # half-widths); deterministic given the seed, so this pins the notebook's comparison
    # rather than a rate.
    points, labels = data.classification_dataset("moons")
    table = gursoy.rn_study(
        points, labels, 2, [1.0], [100], 2, 2, np.random.default_rng(22)
    )
    summary = gursoy.summarize(table, ["method"]).set_index("method")
    assert summary.loc["proposed", "mean"] - summary.loc["baseline", "mean"] > (
        summary.loc["proposed", "ci95"] + summary.loc["baseline", "ci95"]
    )


def test_summarize_uses_student_t_half_widths():
    import pandas as pd

    # Closed-form Student t quantiles (Hill 1970): 1 df is Cauchy, tan(pi (p - 1/2));
    # for 4 df, t = 2 sqrt(q - 1) with q = cos(arccos(sqrt(a)) / 3) / sqrt(a), a = 4 p
    # (1 - p).
    t_one = math.tan(math.pi * 0.475)
    a = 4 * 0.975 * 0.025
    t_four = 2 * math.sqrt(math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a) - 1)
    values = [0.1, 0.2, 0.4, 0.8, 0.5]
    table = pd.DataFrame(
        {"method": ["a"] * 5 + ["b"] * 2, "accuracy": values + [0.3, 0.6]}
    )
    summary = gursoy.summarize(table, ["method"]).set_index("method")
    mean = sum(values) / 5
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 4)
    assert summary.loc["a", "ci95"] == pytest.approx(
        t_four * sd / math.sqrt(5), rel=1e-12
    )
    # sd of (0.3, 0.6) is 0.15 sqrt 2
    assert summary.loc["b", "ci95"] == pytest.approx(t_one * 0.15, rel=1e-12)
    # the normal interval is about 30% too narrow
    assert summary.loc["a", "ci95"] > 1.96 * sd / math.sqrt(5) * 1.4
    with pytest.raises(ValueError, match="at least 2 rows"):
        gursoy.summarize(
            pd.DataFrame({"method": ["a", "b", "b"], "accuracy": [0.5, 0.4, 0.6]}),
            ["method"],
        )


def _fold_sizes(fold, train, test, seed, label):
    return [{"fold": fold, "train": len(train), "test": tuple(test), "label": label}]


def test_over_folds_runs_each_fold_of_one_seeded_split_and_samples_its_test_set():
    table = gursoy.over_folds(_fold_sizes, 10, 5, 3, 1, "folds", "x")
    assert list(table["fold"]) == [0, 1, 2, 3, 4] and set(table["label"]) == {"x"}
    assert set(table["train"]) == {8}
    # the test sets partition the points, as the split the same seed gives
    assert sorted(i for test in table["test"] for i in test) == list(range(10))
    splits = gursoy.cv_splits(10, 5, np.random.default_rng(3))
    assert [tuple(test) for _, test in splits] == list(table["test"])
    test = np.array([4, 7, 9])
    drawn = gursoy.sample_test(test, 2, np.random.default_rng(0))
    assert len(set(drawn)) == 2 and set(drawn) <= set(test)
    assert sorted(gursoy.sample_test(test, 5, np.random.default_rng(0))) == [4, 7, 9]


def test_conversion_metrics_exact_values():
    assert c.avre([1.1, 0.5], [1.0, 1.0]) == pytest.approx(30.0)
    points = np.array([[0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [0.3, 0.0]])
    assert c.rmse_k(points, [[0.0, 0.0]], [0.25], [0.15]) == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore:scipy.optimize:DeprecationWarning")
def test_diffprivlib_models_import_and_fit():
    LogisticRegression, GaussianNB = gursoy.diffprivlib_models()
    points, labels = _two_clusters(np.random.default_rng(23), 1000)
    # Over 60 seeds at epsilon = 5: naive Bayes scored 0.991 (sd 0.009), logistic
    # regression 0.993 (sd 0.004); the thresholds sit 20 and 98 sd below (false-failure
    # rate far below 1e-6): this checks that the official package imports, fits and
    # predicts, not its accuracy.
    model = GaussianNB(
        epsilon=5.0, bounds=(np.zeros(2), np.ones(2)), random_state=0
    ).fit(points, labels)
    assert model.score(points, labels) > 0.8
    assert (
        LogisticRegression(epsilon=5.0, data_norm=math.sqrt(2), random_state=0)
        .fit(points, labels)
        .score(points, labels)
        > 0.6
    )


def test_classification_datasets_are_scaled_to_the_unit_cube():
    for name, (rows, columns, n_labels) in {
        "moons": (5300, 2, 2),
        "iris": (150, 4, 3),
        "wine": (178, 13, 3),
        "breast_cancer": (569, 30, 2),
        "digits": (1797, 64, 10),
    }.items():
        points, labels = data.classification_dataset(name)
        assert (
            points.shape == (rows, columns) and points.min() == 0 and points.max() == 1
        )
        assert set(np.unique(labels)) == set(range(n_labels))
    with pytest.raises(ValueError, match="name must be one of"):
        data.classification_dataset("banana")


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda p, l, q: c.label_counts(p, l, q, 0.0, 2), "radii must be > 0"),
        (lambda p, l, q: c.label_counts(p, l, q, -1.0, 2), "radii must be > 0"),
        (
            lambda p, l, q: c.label_counts(p, l[:-1], q, 0.1, 2),
            "labels must have one entry",
        ),
        (
            lambda p, l, q: c.label_counts(p, l + 5, q, 0.1, 2),
            r"labels must be integers in \[0, n_labels\)",
        ),
        (
            lambda p, l, q: c.label_counts(p, l, q, 0.1, 1),
            "n_labels must be an integer >= 2",
        ),
        (lambda p, l, q: c.label_counts(p * 3, l, q, 0.1, 2), "unit cube"),
        (
            lambda p, l, q: c.label_counts(p, l, q[:, :1], 0.1, 2),
            "queries must have 2 columns",
        ),
        (
            lambda p, l, q: c.rn_classify_batch(p, l, q, 0.1, 0.0, 0, n_labels=2),
            "epsilon must be",
        ),
        (
            lambda p, l, q: c.rn_classify_baseline(p, l, q, 0.1, -1.0, 0, n_labels=2),
            "epsilon must be",
        ),
        (
            lambda p, l, q: c.rn_classify_baseline(
                p, l, q, 0.1, 1.0, 0, n_labels=2, mechanism="gauss"
            ),
            "mechanism",
        ),
        (
            lambda p, l, q: c.rn_classify_laplace(p, l, q, 0.1, 1.0, 0, n_labels=2),
            "one test instance",
        ),
        (
            lambda p, l, q: c.rn_classify_laplace(p, l, q[0], 0.0, 1.0, 0, n_labels=2),
            "radius must be a finite real",
        ),
        (
            lambda p, l, q: c.rn_classify_exponential(
                p, l, q[0], [0.1, 0.2], 1.0, 0, n_labels=2
            ),
            "radius must be",
        ),
        (
            lambda p, l, q: c.label_counts(p, l, q, [0.1, 0.2], 2),
            r"radii must be a scalar or have one entry per test "
            r"instance \(length 4\)",
        ),
        (
            lambda p, l, q: c.convert_interactive(p, q, [5, 6], 1.0, 0),
            r"k must be a scalar or have one entry per test "
            r"instance \(length 4\)",
        ),
        (
            lambda p, l, q: c.convert_interactive(p, q, 0, 1.0, 0),
            r"k must be an integer >= 1",
        ),
        (
            lambda p, l, q: c.convert_interactive(p, q, 2.5, 1.0, 0),
            r"k must be an integer >= 1",
        ),
        (lambda p, l, q: c.convert_interactive(p, q, 5, 0.0, 0), "epsilon_hat must be"),
        (
            lambda p, l, q: c.convert_interactive(p, q, 5, 1.0, 0, size_share=1.0),
            "size_share must be",
        ),
        (
            lambda p, l, q: c.knn_classify_private(
                p, l, q, 5, 1.0, 0, n_labels=2, w=0.0
            ),
            "w must be",
        ),
        (
            lambda p, l, q: c.knn_classify_private(
                p, l, q, 5, 1.0, 0, n_labels=2, conversion="x"
            ),
            "conversion",
        ),
        (
            lambda p, l, q: c.knn_classify_baseline(p, l, q, 0, 1.0, 0, n_labels=2),
            "k must be",
        ),
        (
            lambda p, l, q: c.knn_classify_nonprivate(p, l, q, 51, 0, n_labels=2),
            "k must be",
        ),
        (lambda p, l, q: c.private_uniform_grid(p, 0.0, 0), "epsilon must be"),
        (
            lambda p, l, q: c.convert_noninteractive(
                c.private_uniform_grid(p, 1.0, 0), q, 5, 0.0, 0
            ),
            "gamma must be",
        ),
        (
            lambda p, l, q: c.convert_noninteractive(
                c.private_uniform_grid(p, 1.0, 0), q, 0, 0.1, 0
            ),
            "k must be an integer >= 1",
        ),
        (
            lambda p, l, q: c.convert_noninteractive(
                c.private_uniform_grid(p, 1.0, 0), q, np.nan, 0.1, 0
            ),
            "k must be an integer >= 1",
        ),
        (
            lambda p, l, q: c.convert_noninteractive(
                c.private_uniform_grid(p, 1.0, 0), q, 2.5, 0.1, 0
            ),
            "k must be an integer >= 1",
        ),
        (
            lambda p, l, q: c.r_unif(np.nan, 100, 2),
            "k must contain only finite numbers",
        ),
        (lambda p, l, q: c.r_unif(0, 100, 2), "k must be >= 1"),
        (lambda p, l, q: c.max_clique_size(nx.Graph()), "at least one vertex"),
    ],
)
def test_bad_input_raises_value_error(call, message):
    rng = np.random.default_rng(24)
    points, labels = _two_clusters(rng, 50)
    with pytest.raises(ValueError, match=message):
        call(points, labels, rng.random((4, 2)))


# --- k-NN ties and empty data (issue: privacy at the edges) ---------------------------

LATTICE = np.array(list(product([0.0, 0.5, 1.0], repeat=2)))
CENTRE = np.array([[0.5, 0.5]])
# Found by search: with cKDTree's tie-breaking, adding the record (0.5, 0.5) with label
# 0 moved the 8-NN label counts of the centre from [3, 5] to [7, 1], a change of 4 where
# Alg. 4 assumes 1.
TIE_POINTS = np.array(
    [
        [0.5, 0.0],
        [0.0, 1.0],
        [0.5, 0.5],
        [0.0, 0.5],
        [0.0, 0.5],
        [1.0, 0.5],
        [0.5, 1.0],
        [0.5, 0.0],
        [0.0, 0.0],
        [0.5, 0.5],
        [0.5, 0.0],
        [0.5, 1.0],
        [0.5, 1.0],
        [0.5, 1.0],
        [0.0, 0.0],
        [1.0, 0.5],
    ]
)
TIE_LABELS = np.array([0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1])


def _with_record(points, labels, record, label):
    return np.vstack([points, record]), np.append(labels, label)


def test_knn_counts_move_by_at_most_one_when_a_record_is_added_on_lattices_with_ties():
    rng = np.random.default_rng(50)
    for _ in range(400):
        n = int(rng.integers(0, 20))
        points, labels = LATTICE[rng.integers(0, 9, n)], rng.integers(0, 2, n)
        record, label = LATTICE[rng.integers(0, 9)], int(rng.integers(0, 2))
        bigger = _with_record(points, labels, record, label)
        query = LATTICE[rng.integers(0, 9)][None, :]
        for k in (1, 2, 4, 8, 12, 25):
            before = c.knn._knn_counts(points, labels, query, k, 2)
            after = c.knn._knn_counts(*bigger, query, k, 2)
            assert np.abs(after - before).max() <= 1, (
                points.tolist(),
                labels.tolist(),
                record,
                label,
                k,
            )
    # The found case: the counts now move by at most one.
    before = c.knn._knn_counts(TIE_POINTS, TIE_LABELS, CENTRE, 8, 2)
    after = c.knn._knn_counts(
        *_with_record(TIE_POINTS, TIE_LABELS, [0.5, 0.5], 0), CENTRE, 8, 2
    )
    assert np.abs(after - before).max() <= 1


def test_knn_baseline_privacy_loss_with_ties_is_at_most_epsilon():
    """Exact: Alg. 4 on one instance is the exponential mechanism on the counts;
    measured: frequencies.

    Exact loss on D and D + one record must be <= epsilon (the old tie-breaking gave
    2.74 at epsilon = 1 here). The measured label frequencies (200,000 draws each) agree
    with the exact law (chi-square) and their audited loss lower bound stays below
    epsilon; false-failure rate 1e-3 in all, split equally over the two chi-square tests
    and the audit.
    """
    from companion.audit import binned_loss

    epsilon = 1.0
    bigger = _with_record(TIE_POINTS, TIE_LABELS, [0.5, 0.5], 0)
    laws = [
        c.exponential_label_probabilities(
            c.knn._knn_counts(p, l, CENTRE, 8, 2)[0].astype(float), epsilon
        )
        for p, l in ((TIE_POINTS, TIE_LABELS), bigger)
    ]
    assert np.max(np.abs(np.log(laws[0]) - np.log(laws[1]))) <= epsilon + 1e-12
    draws = 200_000
    counts = []
    for seed, (p, l) in zip((51, 52), ((TIE_POINTS, TIE_LABELS), bigger)):
        labels = c.knn_classify_baseline(
            p,
            l,
            np.repeat(CENTRE, draws, axis=0),
            8,
            epsilon * draws,
            np.random.default_rng(seed),
            n_labels=2,
        )
        counts.append(np.bincount(labels, minlength=2))
    for observed, law in zip(counts, laws):
        assert stats.chisquare(observed, law * draws).pvalue > FALSE_ALARM / 3
    assert binned_loss(*counts, false_alarm=FALSE_ALARM / 3).lower_bound <= epsilon


PRIVATE_ENTRY_POINTS = {
    "rn_classify_laplace": lambda p, l, rng: c.rn_classify_laplace(
        p, l, [0.5, 0.5], 0.3, 1.0, rng, n_labels=2
    ),
    "rn_classify_exponential": lambda p, l, rng: c.rn_classify_exponential(
        p, l, [0.5, 0.5], 0.3, 1.0, rng, n_labels=2
    ),
    "rn_classify_batch": lambda p, l, rng: (
        c.rn_classify_batch(
            p, l, [[0.5, 0.5], [0.2, 0.9]], 0.3, 1.0, rng, n_labels=2
        ).labels
    ),
    "rn_classify_baseline": lambda p, l, rng: (
        c.rn_classify_baseline(
            p, l, [[0.5, 0.5], [0.2, 0.9]], 0.3, 1.0, rng, n_labels=2
        ).labels
    ),
    "knn_classify_baseline": lambda p, l, rng: c.knn_classify_baseline(
        p, l, [[0.5, 0.5]], 3, 1.0, rng, n_labels=2
    ),
    "knn_classify_private interactive": lambda p, l, rng: c.knn_classify_private(
        p, l, [[0.5, 0.5], [0.2, 0.9]], 3, 1.0, rng, n_labels=2
    )[0],
    "knn_classify_private noninteractive": lambda p, l, rng: c.knn_classify_private(
        p,
        l,
        [[0.5, 0.5], [0.2, 0.9]],
        3,
        1.0,
        rng,
        n_labels=2,
        conversion="noninteractive",
    )[0],
    "convert_interactive": lambda p, l, rng: c.convert_interactive(
        p, [[0.5, 0.5]], 3, 1.0, rng
    ),
    "private_uniform_grid": lambda p, l, rng: (
        c.private_uniform_grid(p, 1.0, rng).counts
    ),
}


@pytest.mark.parametrize("name", PRIVATE_ENTRY_POINTS)
@pytest.mark.parametrize("size", [0, 1])
def test_private_entry_points_answer_on_empty_and_one_record_data(name, size):
    # Old code: ValueError "points must not be empty" on D = {}, which reveals |D| = 0.
    points, labels = (
        np.array([[0.3, 0.4]])[:size].reshape(size, 2),
        np.array([1])[:size],
    )
    answer = np.asarray(
        PRIVATE_ENTRY_POINTS[name](points, labels, np.random.default_rng(60))
    )
    assert answer.size and np.all(np.isfinite(answer))


def test_empty_data_keeps_its_public_checks():
    with pytest.raises(ValueError, match="points must be a 1-D or 2-D array"):
        c.knn_classify_baseline(
            np.zeros((0, 2, 2)), np.zeros(0, int), [[0.5, 0.5]], 3, 1.0, 0, n_labels=2
        )
    with pytest.raises(ValueError, match="queries must have 2 columns"):
        c.knn_classify_baseline(
            np.zeros((0, 2)), np.zeros(0, int), [[0.5, 0.5, 0.5]], 3, 1.0, 0, n_labels=2
        )
    with pytest.raises(
        ValueError, match="labels must have one entry per training point"
    ):
        c.knn_classify_baseline(
            np.zeros((0, 2)), np.zeros(1, int), [[0.5, 0.5]], 3, 1.0, 0, n_labels=2
        )


def test_ball_counts_equal_ckdtree_counts_for_every_candidate_radius():
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(80)
    for d in (1, 2, 13, 64):
        points, queries = rng.random((300, d)), rng.random((40, d))
        radii = rng.uniform(0.05, 1.5, (40, 10)) * math.sqrt(d)
        tree = cKDTree(points)
        expected = np.stack(
            [
                tree.query_ball_point(queries, radii[:, j], return_length=True)
                for j in range(10)
            ],
            axis=1,
        )
        np.testing.assert_array_equal(
            c.interactive._ball_counts(points, queries, radii), expected
        )
    assert (
        c.interactive._ball_counts(
            np.zeros((0, 3)), rng.random((4, 3)), np.ones((4, 2))
        ).tolist()
        == [[0, 0]] * 4
    )


def test_rn_classify_exponential_has_the_exponential_mechanism_law():
    # Alg. 2 on a dataset whose ball holds label counts (3, 1, 0): label I with
    # probability exp(eps c_I / 2) / sum_J exp(eps c_J / 2), computed with mpmath.
    # Binomial check of each label's frequency at 5.3 standard deviations (false
    # failure below 1e-6 per label); running Alg. 2 at 1.2 epsilon moves label 0's
    # probability from 0.629 to 0.676, 14 standard deviations at n = 20000.
    import mpmath

    points = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [0.1, 0.1], [0.9, 0.9]])
    labels = np.array([0, 0, 0, 1, 2])
    epsilon, n = 1.0, 20000
    weights = [mpmath.exp(mpmath.mpf(epsilon) * c / 2) for c in (3, 1, 0)]
    exact = [float(w / sum(weights)) for w in weights]
    rng = np.random.default_rng(2017)
    drawn = np.array(
        [
            c.rn_classify_exponential(
                points, labels, [0.05, 0.05], 0.2, epsilon, rng, n_labels=3
            )
            for _ in range(n)
        ]
    )
    for label, p in enumerate(exact):
        hits = np.sum(drawn == label)
        assert abs(hits - n * p) <= 5.3 * np.sqrt(n * p * (1 - p)), (label, hits)
