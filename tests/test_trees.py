"""dpnn.trees: k-d invariants (property-based) and exact NN against scipy's cKDTree."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from dpnn.trees import (
    KDTree,
    build_tree,
    create_tree,
    nearest_neighbors,
    tree_neighbors,
)


def check_invariants(points, tree):
    data = points.reshape(len(points), -1)
    n = len(data)
    assert sorted(tree.order.tolist()) == list(range(n))
    for node in range(tree.n_nodes):
        lo, hi = tree.lo[node], tree.hi[node]
        assert 0 <= lo < hi <= n
        assert tree.axis[node] == tree.depth[node] % data.shape[1]
        left, right = tree.left[node], tree.right[node]
        if left >= 0:
            assert tree.depth[left] == tree.depth[node] + 1 and tree.lo[left] == lo
            assert np.all(
                data[tree.order[tree.lo[left] : tree.hi[left]], tree.axis[node]]
                <= tree.split[node]
            )
        if right >= 0:
            assert tree.depth[right] == tree.depth[node] + 1 and tree.hi[right] == hi
            assert np.all(
                data[tree.order[tree.lo[right] : tree.hi[right]], tree.axis[node]]
                >= tree.split[node]
            )
        assert tree.split[node] == data[tree.point[node], tree.axis[node]]
        if tree.leaf_only:
            if left < 0:
                assert right < 0 and hi - lo == 1 and tree.point[node] == tree.order[lo]
            else:
                # Alg. 10: floor(n/2) points go left, the rest (the median included)
                # right.
                assert (
                    tree.hi[left] - lo == (hi - lo) // 2
                    and tree.lo[right] == tree.hi[left]
                )
    if tree.leaf_only:
        inner = tree.left >= 0
        assert np.all(tree.right[inner] == tree.left[inner] + 1), (
            "siblings are stored side by side"
        )
        leaves = np.flatnonzero(tree.is_leaf)
        assert len(leaves) == n and tree.n_nodes == 2 * n - 1
        assert (
            tree.tree_height == math.ceil(math.log2(n))
            if n > 1
            else tree.tree_height == 0
        )
        assert np.array_equal(np.sort(tree.point[leaves]), np.arange(n))
    else:
        assert tree.n_nodes == n and np.array_equal(np.sort(tree.point), np.arange(n))


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300),
    d=st.integers(1, 3),
    levels=st.integers(1, 1000),
    leaf_only=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_kd_invariants_hold_for_random_shapes_with_duplicates(
    n, d, levels, leaf_only, seed
):
    # Few distinct levels means many duplicate coordinates.
    points = np.random.default_rng(seed).integers(0, levels, size=(n, d)).astype(float)
    tree = build_tree(points[:, 0] if d == 1 else points, leaf_only=leaf_only)
    check_invariants(points, tree)


#: The arrays of a KDTree (all its fields but the flag and the cache).
TREE_ARRAYS = [
    f.name for f in dataclasses.fields(KDTree) if f.name not in ("leaf_only", "cache")
]


@pytest.mark.parametrize("leaf_only", [True, False])
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 64, 100, 257, 1000])
def test_build_tree_gives_the_arrays_of_alg_10s_recursion(n, d, leaf_only):
    """build_tree, level by level, against create_tree, the recursive CREATE of Alg. 10
    (Alg. 3 for the classic tree): every array of the two trees has the same dtype
    and the same entries. Sizes below and off powers of two, 1-D points given as
    shape (N,), and three kinds of coordinates: distinct, integers in {0, 1, 2} (ties
    and duplicate points everywhere), all equal."""
    rng = np.random.default_rng([n, d])
    for points in (
        rng.normal(0, 1e3, (n, d)),
        rng.integers(0, 3, (n, d)).astype(float),
        np.full((n, d), 7.0),
    ):
        points = points[:, 0] if d == 1 else points
        fast, readable = build_tree(points, leaf_only), create_tree(points, leaf_only)
        for name in TREE_ARRAYS:
            got, expected = getattr(fast, name), getattr(readable, name)
            assert got.dtype == expected.dtype, name
            np.testing.assert_array_equal(got, expected, err_msg=name)
        assert fast.leaf_only == readable.leaf_only == leaf_only


def test_create_tree_on_the_thesis_example_of_alg_10():
    """Four values: the root holds the median P[2] = 3, two values go left, two right;
    with Alg. 3 the median stays at the root and one value goes right."""
    points = np.array([4.0, 1.0, 3.0, 2.0])
    tree = create_tree(points)
    assert points[tree.point[0]] == 3.0 and list(tree.left[:3]) == [1, 3, 5]
    assert sorted(points[tree.order[tree.lo[1] : tree.hi[1]]]) == [1.0, 2.0]
    assert list(points[tree.order]) == [1.0, 2.0, 3.0, 4.0] and tree.tree_height == 2
    classic = create_tree(points, leaf_only=False)
    assert points[classic.point[0]] == 3.0 and classic.n_nodes == 4
    assert points[classic.point[classic.right[0]]] == 4.0


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("leaf_only", [True, False])
def test_exact_nn_equals_ckdtree_on_10000_queries(d, leaf_only):
    rng = np.random.default_rng(d)
    points = rng.uniform(0, 1e9, size=(5000, d))
    queries = rng.uniform(-1e8, 1.1e9, size=(10_000, d))
    tree = build_tree(points[:, 0] if d == 1 else points, leaf_only=leaf_only)
    distances, indices = nearest_neighbors(
        tree, queries[:, 0] if d == 1 else queries, k=1
    )
    expected_distances, expected = cKDTree(points).query(queries, k=1)
    np.testing.assert_allclose(distances[:, 0], expected_distances, rtol=1e-12)
    np.testing.assert_array_equal(indices[:, 0], expected)  # continuous data: no ties


@pytest.mark.parametrize("k", [2, 5, 17])
def test_exact_knn_equals_ckdtree(k):
    rng = np.random.default_rng(k)
    points = rng.uniform(0, 1, size=(2000, 2))
    queries = rng.uniform(0, 1, size=(1000, 2))
    distances, indices = nearest_neighbors(build_tree(points), queries, k=k)
    expected_distances, expected = cKDTree(points).query(queries, k=k)
    np.testing.assert_allclose(distances, expected_distances, rtol=1e-12)
    np.testing.assert_array_equal(indices, expected)


def test_knn_with_duplicates_returns_distinct_points_at_the_right_distances():
    points = np.repeat(np.arange(10.0), 3).reshape(-1, 1)  # every value three times
    distances, indices = nearest_neighbors(build_tree(points[:, 0]), [4.2], k=4)
    np.testing.assert_allclose(distances[0], [0.2, 0.2, 0.2, 0.8])
    assert len(set(indices[0])) == 4


def test_tree_neighbors_are_adjacent_leaves():
    points = np.array([5.0, 1.0, 9.0, 3.0, 7.0])
    tree = build_tree(points)
    leaf = tree.leaf_of_point()[3]  # the leaf holding 3.0
    assert sorted(points[tree_neighbors(tree, leaf, 1)]) == [1.0, 3.0, 5.0]
    assert list(points[tree_neighbors(tree, tree.leaf_of_point()[1], 2)]) == [
        1.0,
        3.0,
        5.0,
    ]


def test_bad_input_is_named():
    tree = build_tree(np.arange(8.0))
    with pytest.raises(ValueError, match="points must contain only finite numbers"):
        build_tree([0.0, np.nan])
    with pytest.raises(ValueError, match="points must not be empty"):
        build_tree([])
    with pytest.raises(ValueError, match="queries must have dimension 1"):
        nearest_neighbors(tree, np.zeros((3, 2)))
    with pytest.raises(
        ValueError, match=r"k must be between 1 and the number of points \(8\)"
    ):
        nearest_neighbors(tree, [1.0], k=9)
    with pytest.raises(ValueError, match="leaf must be the index of a leaf node"):
        tree_neighbors(tree, 0, 1)
    with pytest.raises(ValueError, match="radius must be an integer >= 0"):
        tree_neighbors(tree, tree.leaf_of_point()[0], -1)
    with pytest.raises(ValueError, match="tree must be leaf-only"):
        tree_neighbors(build_tree(np.arange(8.0), leaf_only=False), 0, 1)
