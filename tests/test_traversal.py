"""dpnn.traversal: DP-TT against the deterministic descent, fair coins, the exact
exponential-mechanism probabilities, the reference traversal, and §5.4's formulas.

Statistical tests reject at ALPHA = 1e-3 (the false-failure rate of a correct
implementation were the seed random); a test that runs several test families
gives each an equal share of ALPHA. The seeds are fixed.
"""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from dpnn import accounting
from dpnn.traversal import (
    check_arguments,
    check_scale,
    check_schedule,
    dptt,
    dptt_ledger,
    dptt_reference,
    em_calls_formula,
    parse_variant,
)
from dpnn.trees import build_tree

ALPHA = 1e-3


def descent_leaf(tree, query):
    """The deterministic Alg. 11 descent: left iff query[axis] < split."""
    node = 0
    while tree.left[node] >= 0:
        node = (
            tree.left[node]
            if query[tree.axis[node]] < tree.split[node]
            else tree.right[node]
        )
    return tree.point[node]


def path_from_leaf(tree, leaf_point):
    """(node, went_right) along the root-to-leaf path that ends at a point's leaf."""
    position = np.flatnonzero(tree.order == leaf_point)[0]
    node, steps = 0, []
    while tree.left[node] >= 0:
        right = position >= tree.lo[tree.right[node]]
        steps.append((node, right))
        node = tree.right[node] if right else tree.left[node]
    return steps


@pytest.mark.parametrize("d", [1, 2])
def test_huge_epsilon_cmp_reaches_the_deterministic_leaf(d):
    rng = np.random.default_rng(1)
    points = rng.uniform(0, 1e9, size=(3000, d))
    tree = build_tree(points[:, 0] if d == 1 else points)
    queries = rng.uniform(0, 1e9, size=(5000, d))
    result = dptt(tree, queries[:, 0] if d == 1 else queries, 1e6, "cmp", rng=2)
    expected = [descent_leaf(tree, x) for x in queries]
    np.testing.assert_array_equal(result.indices, expected)
    assert np.all(result.released_counts == 1)


def test_tiny_epsilon_turns_are_fair_coins():
    # complete: 8 levels
    tree = build_tree(np.random.default_rng(3).uniform(0, 1, size=(256, 2)))
    runs = 40_000
    result = dptt(tree, np.tile([0.1, 0.9], (runs, 1)), 1e-12, "cmp", rng=4)
    leaf_position = np.argsort(tree.order)[result.indices]
    # On a complete tree the leaf's position in tree order, in binary, is the sequence
    # of turns.
    for level in range(tree.tree_height):
        right = (leaf_position >> (tree.tree_height - 1 - level)) & 1
        assert (
            stats.binomtest(int(right.sum()), runs, 0.5).pvalue
            > ALPHA / 2 / tree.tree_height
        )
    counts = np.bincount(leaf_position, minlength=256)
    assert stats.chisquare(counts).pvalue > ALPHA / 2


def _turn_counts(tree, released_points):
    counts = {}
    for leaf in released_points:
        for node, right in path_from_leaf(tree, leaf):
            total, rights = counts.get(node, (0, 0))
            counts[node] = (total + 1, rights + int(right))
    return counts


def _exact_right(tree, query, node, epsilon, sensitivity):
    left_u = np.linalg.norm(query - tree.points[tree.point[tree.right[node]]])
    right_u = np.linalg.norm(query - tree.points[tree.point[tree.left[node]]])
    return expit(epsilon / (2 * sensitivity) * (right_u - left_u))


def test_per_level_turn_frequencies_match_exact_probabilities_and_the_reference():
    rng = np.random.default_rng(5)
    points = rng.uniform(0, 100, size=(64, 2))
    tree = build_tree(points)
    query, epsilon, sensitivity = np.array([30.0, 60.0]), 1.0, 20.0
    fast = dptt(
        tree, np.tile(query, (30_000, 1)), epsilon, "dis", sensitivity, rng=6
    ).indices
    slow = [
        dptt_reference(
            tree, query, epsilon, "dis", sensitivity, rng=np.random.default_rng(s)
        )[0][0]
        for s in range(3000)
    ]
    tested = 0
    for released in (fast, slow):
        counts = _turn_counts(tree, released)
        for node, (total, rights) in counts.items():
            if total >= 300:
                p = _exact_right(tree, query, node, epsilon, sensitivity)
                # Two families (the binomial tests of both implementations, then one
                # chi-square): ALPHA / 2 each.
                assert stats.binomtest(rights, total, p).pvalue > ALPHA / 4 / len(
                    counts
                ), (node, total, rights, p)
                tested += 1
    assert tested >= 8  # several levels were checked, not just the root
    # The two implementations have the same law: compare their leaf distributions.
    support = np.union1d(fast, slow)
    table = np.array(
        [
            [np.sum(fast == v) for v in support],
            [np.sum(np.asarray(slow) == v) for v in support],
        ]
    )
    table = table[:, table.sum(axis=0) >= 20]
    assert stats.chi2_contingency(table).pvalue > ALPHA / 2


@pytest.mark.parametrize(
    "variant, splits, calls, released",
    [
        ("basic", 0, lambda h, s: h, lambda h, s: 1),
        ("parallel", 3, lambda h, s: (h - s) * 2**s, lambda h, s: 2**s),
        ("early", 4, lambda h, s: h - s, lambda h, s: 2**s),
        ("greedy", 0, lambda h, s: h * (h + 1) // 2, lambda h, s: h + 1),
    ],
)
@pytest.mark.parametrize("utility", ["cmp", "dis"])
def test_calls_and_released_values_follow_section_5_4_on_complete_trees(
    variant, splits, calls, released, utility
):
    n = 2**10
    rng = np.random.default_rng(7)
    tree = build_tree(rng.uniform(0, 1e9, size=(n, 2)))
    h = int(math.log2(n))
    result = dptt(
        tree,
        rng.uniform(0, 1e9, size=(500, 2)),
        0.5,
        utility,
        1e9 if utility == "dis" else None,
        variant=variant,
        splits=splits,
        rng=8,
    )
    assert np.all(result.em_calls == calls(h, splits))
    assert np.all(result.released_counts == released(h, splits))
    assert em_calls_formula(variant, h, splits).sum() == calls(h, splits)
    assert result.accountant.compositions == calls(h, splits)
    for x in rng.uniform(0, 1e9, size=(5, 2)):
        found, made = dptt_reference(
            tree,
            x,
            0.5,
            utility,
            1e9 if utility == "dis" else None,
            variant=variant,
            splits=splits,
            rng=9,
        )
        assert made == calls(h, splits) and len(found) == released(h, splits)


def test_neighbourhoods_release_the_true_neighbours_of_the_found_leaf():
    rng = np.random.default_rng(10)
    points = rng.uniform(0, 1, size=(500, 2))
    tree = build_tree(points)
    result = dptt(
        tree, rng.uniform(0, 1, size=(50, 2)), 1e6, "cmp", neighborhood=7, rng=11
    )
    plain = dptt(tree, rng.uniform(0, 1, size=(50, 2)), 1e6, "cmp", rng=11)
    assert np.all(result.released_counts == 7) and np.all(plain.released_counts == 1)
    leaf = dptt(tree, points[:1], 1e6, "cmp", rng=0).indices[0]
    with_b = dptt(tree, points[:1], 1e6, "cmp", neighborhood=7, rng=0).indices
    distances = np.linalg.norm(points - points[leaf], axis=1)
    np.testing.assert_array_equal(np.sort(with_b), np.sort(np.argsort(distances)[:7]))


def test_accountant_charges_cmp_exactly_and_dis_as_exponential():
    tree = build_tree(np.arange(2.0**6))
    cmp = dptt(tree, [3.0], 2.0, "cmp", rng=0).accountant
    assert cmp.spends == {("randomized_response", 1.0): 6}
    # br never exceeds the plain sum 6 x 1.0; the thesis's accounting is Thm 2.13 over
    # the full 2.0 per step.
    assert cmp.epsilon(1e-5, "br") == 6.0
    assert cmp.epsilon(1e-5, "thesis") == pytest.approx(
        accounting.br_composition([2.0] * 6, 1e-5), rel=1e-12
    )
    dis = dptt(tree, [3.0], 2.0, "dis", 1e3, rng=0).accountant
    assert dis.spends == {("exponential", 2.0): 6}
    schedule = np.linspace(0.1, 0.6, 6)
    per_level = dptt(tree, [3.0], schedule, "cmp", rng=0)
    np.testing.assert_allclose(per_level.epsilons, schedule)


def test_cmp_traversal_privacy_loss_is_height_times_half_epsilon():
    """Empirical privacy: two queries on opposite sides of every split (the worst case).

    Each CMP step is randomized response at epsilon/2, so the leaf released for
    query -1 and for query 16 differ by at most exp(h epsilon / 2), attained at
    the outermost leaves. The audit must not exceed that, and must exceed the
    loss a traversal half as noisy would claim (the negative control)."""
    from companion.audit import binned_loss

    tree = build_tree(np.arange(16.0))
    epsilon, n = 0.5, 400_000
    claimed = tree.tree_height * epsilon / 2
    counts = [
        np.bincount(
            dptt(tree, np.full(n, x), epsilon, "cmp", rng=seed).indices, minlength=16
        )
        for x, seed in ((-1.0, 12), (16.0, 13))
    ]
    loss = binned_loss(*counts, false_alarm=ALPHA)
    assert loss.lower_bound <= claimed
    assert loss.lower_bound > claimed / 2
    assert loss.estimate == pytest.approx(claimed, abs=5 * loss.standard_error.max())


def test_same_seed_same_result():
    tree = build_tree(np.random.default_rng(0).uniform(size=(300, 2)))
    queries = np.random.default_rng(1).uniform(size=(100, 2))
    a = dptt(tree, queries, 0.3, "dis", 0.5, variant="greedy", neighborhood=3, rng=5)
    b = dptt(
        tree,
        queries,
        0.3,
        "dis",
        0.5,
        variant="greedy",
        neighborhood=3,
        rng=np.random.default_rng(5),
    )
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.offsets, b.offsets)


def test_neighbourhood_puts_the_found_leaf_first_among_duplicates():
    # 40 copies of one location and 60 others: the leaf found must be released itself,
    # not a copy. Old code: cKDTree returned other copies at distance 0, so the leaf was
    # missing in about 90%.
    rng = np.random.default_rng(12)
    points = np.concatenate([np.full((40, 2), 0.5), rng.uniform(0, 1, size=(60, 2))])
    tree = build_tree(points)
    queries = np.full((200, 2), 0.5)
    leaves = dptt(tree, queries, 1e6, "cmp", rng=13)
    hoods = dptt(tree, queries, 1e6, "cmp", neighborhood=5, rng=13)
    found = _contains_each(hoods.released, leaves.indices)
    assert found.all() and np.all(hoods.released_counts == 5)
    # The reference (brute force, the found point ranked first) keeps the leaf too.
    for seed in range(5):
        trace = []
        slow = dptt_reference(
            tree, queries[0], 1e6, "cmp", neighborhood=5, rng=seed, trace=trace
        )[0]
        leaf = tree.point[trace[-1]["node"]]
        assert leaf in slow and len(slow) == 5


def _contains_each(released, leaves):
    return np.array([leaf in set(r) for r, leaf in zip(released, leaves)])


def test_overflowing_scale_is_an_error_not_nan():
    # Old code: epsilon / (2 sensitivity) = inf, times a zero utility gap = NaN, and
    # every turn went left.
    tree = build_tree(np.array([0.0, 0.0, 1.0, 1.0]))
    with pytest.raises(
        ValueError, match=r"epsilon / \(2 \* sensitivity\) must be finite"
    ):
        dptt(tree, [0.5], 1e300, "dis", 1e-10, rng=0)
    with pytest.raises(
        ValueError, match=r"epsilon / \(2 \* sensitivity\) must be finite"
    ):
        dptt_reference(tree, [0.5], 1e300, "dis", 1e-10, rng=0)


def test_rng_is_required():
    tree = build_tree(np.arange(8.0))
    with pytest.raises(TypeError, match="rng"):
        dptt(tree, [1.0], 1.0, "cmp")
    with pytest.raises(TypeError, match="rng"):
        dptt_reference(tree, 1.0, 1.0, "cmp")


def test_bad_input_is_named():
    tree = build_tree(np.random.default_rng(0).uniform(size=(64, 2)))
    q = np.zeros((2, 2))
    with pytest.raises(ValueError, match="epsilon must be a finite real number > 0"):
        dptt(tree, q, 0.0, "cmp", rng=0)
    with pytest.raises(
        ValueError, match="epsilon must be a number > 0 or an array of 6"
    ):
        dptt(tree, q, np.ones(3), "cmp", rng=0)
    with pytest.raises(
        ValueError, match="splits must be between 1 and the tree height 6"
    ):
        dptt(tree, q, 1.0, "cmp", variant="early", splits=7, rng=0)
    with pytest.raises(ValueError, match="splits must be 0 for variant 'basic'"):
        dptt(tree, q, 1.0, "cmp", splits=2, rng=0)
    with pytest.raises(
        ValueError, match="neighborhood must be an integer between 0 and 64"
    ):
        dptt(tree, q, 1.0, "cmp", neighborhood=-1, rng=0)
    with pytest.raises(ValueError, match="queries must have dimension 2"):
        dptt(tree, np.zeros(5), 1.0, "cmp", rng=0)
    with pytest.raises(ValueError, match="queries must contain only finite numbers"):
        dptt(tree, np.array([[np.nan, 0.0]]), 1.0, "cmp", rng=0)
    with pytest.raises(
        ValueError, match="sensitivity must be given for the DIS utility"
    ):
        dptt(tree, q, 1.0, "dis", rng=0)
    with pytest.raises(ValueError, match="utility must be one of"):
        dptt(tree, q, 1.0, "euclid", rng=0)
    with pytest.raises(ValueError, match="variant must be one of"):
        dptt(tree, q, 1.0, "cmp", variant="backtrack", rng=0)
    with pytest.raises(ValueError, match="tree must be a leaf-only KDTree"):
        dptt(build_tree(np.arange(4.0), leaf_only=False), [1.0], 1.0, "cmp", rng=0)


def test_argument_checks_return_the_queries_sensitivity_and_schedule_dptt_uses():
    tree = build_tree(np.arange(8.0))  # height 3
    q, sensitivity = check_arguments(tree, [1.0, 2.5], "cmp", None, "basic", 0, 0)
    np.testing.assert_array_equal(q, [[1.0], [2.5]])
    assert sensitivity == 1.0
    q, sensitivity = check_arguments(tree, [[4.0]], "dis", 5, "early", 2, 3)
    assert q.shape == (1, 1) and sensitivity == 5.0
    with pytest.raises(
        ValueError, match="splits must be between 1 and the tree height"
    ):
        check_arguments(tree, [1.0], "cmp", None, "parallel", 4, 0)
    np.testing.assert_array_equal(check_schedule(tree, 0.5), [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(check_schedule(tree, [1, 2, 3]), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="array of 3 numbers > 0"):
        check_schedule(tree, [1.0, 2.0])
    assert check_scale([1.0, 2.0], 1e-9) is None
    with pytest.raises(ValueError, match="must be finite at every level"):
        check_scale([1.0, 1e300], 1e-10)


def test_parse_variant_names_of_the_thesis():
    assert parse_variant("basic") == {
        "variant": "basic",
        "splits": 0,
        "neighborhood": 0,
    }
    assert parse_variant("P4") == {
        "variant": "parallel",
        "splits": 4,
        "neighborhood": 0,
    }
    assert parse_variant("E8") == {"variant": "early", "splits": 8, "neighborhood": 0}
    assert parse_variant("GS") == {"variant": "greedy", "splits": 0, "neighborhood": 0}
    assert parse_variant("N20") == {"variant": "basic", "splits": 0, "neighborhood": 20}
    assert parse_variant("GS-N20") == {
        "variant": "greedy",
        "splits": 0,
        "neighborhood": 20,
    }
    with pytest.raises(
        ValueError, match="name must be basic, P<s>, E<s>, GS, N<B> or GS-N<B>"
    ):
        parse_variant("X3")


def test_dptt_ledger_is_the_accountant_dptt_returns():
    tree = build_tree(np.arange(64.0))
    for utility, sensitivity in (("cmp", None), ("dis", 1e3)):
        for name in ("basic", "P2", "E3", "GS"):
            spec = parse_variant(name)
            run = dptt(
                tree, [3.0, 40.0], 2.0, utility, sensitivity, rng=0, **spec
            ).accountant
            ledger = dptt_ledger(
                np.full(tree.tree_height, 2.0), utility, spec["variant"], spec["splits"]
            )
            assert ledger.spends == run.spends
    assert dptt_ledger([], "cmp").compositions == 0
    with pytest.raises(ValueError, match="utility"):
        dptt_ledger([1.0], "euclid")
    with pytest.raises(ValueError, match="schedule"):
        dptt_ledger([1.0, 0.0], "cmp")


def test_leaf_neighbour_table_rows_are_each_point_and_its_nearest_by_brute_force():
    """Alg. 18's B-neighbourhoods, from a table filled in two batches, against brute
    force."""
    from dpnn.traversal.tree_arrays import leaf_neighbours

    rng = np.random.default_rng(12)
    points = rng.normal(0, 1, (400, 2))  # distinct distances with probability 1
    tree = build_tree(points)
    for batch in (np.array([5, 5, 17]), np.arange(400)):  # a few rows, then all of them
        table = leaf_neighbours(tree, 6, batch)
    for p in range(400):
        distance = np.linalg.norm(points - points[p], axis=1)
        distance[p] = -1.0
        np.testing.assert_array_equal(table[p], np.sort(np.argsort(distance)[:6]))
    assert np.all(table[400] == 400)  # the padding row


def test_stop_order_sorts_the_blocks_where_e_stops_and_keeps_every_point():
    from dpnn.traversal.tree_arrays import stop_order

    rng = np.random.default_rng(4)
    tree = build_tree(rng.uniform(0, 1, (1000, 2)))
    for stop in (0, 3, 8, tree.tree_height):
        ordered = stop_order(tree, stop)
        parent = np.full(tree.n_nodes, -1)
        inner = tree.left >= 0
        parent[tree.left[inner]], parent[tree.right[inner]] = (
            np.flatnonzero(inner),
            np.flatnonzero(inner),
        )
        # E stops at the first node on its path of height <= stop
        cut = [
            c
            for c in range(tree.n_nodes)
            if tree.height[c] <= stop and (c == 0 or tree.height[parent[c]] > stop)
        ]
        assert sum(tree.hi[c] - tree.lo[c] for c in cut) == 1000  # the blocks partition
        for c in cut:
            np.testing.assert_array_equal(
                ordered[tree.lo[c] : tree.hi[c]],
                np.sort(tree.order[tree.lo[c] : tree.hi[c]]),
            )
        np.testing.assert_array_equal(np.sort(ordered), np.arange(1000))
