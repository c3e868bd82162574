"""Balanced k-d trees as flat numpy arrays (thesis §2.3-2.5, Alg. 3, 6 and 10).

A tree over N points is built by median splits on a cycling discriminator
(Bentley; balanced as in Friedman, Bentley and Finkel): a node covering the
points ``order[lo:hi]`` sorts them on ``axis = depth mod d``, takes the element
at ``median = lo + (hi - lo) // 2`` as its value (``P[floor(len/2)]`` in the
thesis), and splits

- ``leaf_only=True`` (Alg. 10, the tree DP-TT runs on): left ``[lo, median)``,
  right ``[median, hi)``; every point sits in exactly one leaf and inner nodes
  hold the medians as routing values;
- ``leaf_only=False`` (Alg. 3, the classic tree): left ``[lo, median)``, right
  ``[median + 1, hi)``; every node holds one point.

Nodes are numbered in breadth-first order (0 is the root). :func:`create_tree` builds
the tree as the thesis writes it, recursively, one node at a time; :func:`build_tree`
builds the same arrays level by level with one sort per level, never recursing over
Python objects (tested equal).
The leaves of a leaf-only tree, read left to right, are ``order``; the leaves
below any node are the contiguous block ``order[lo[node]:hi[node]]``.
Invariant: every point in a node's left subtree has ``coordinate <= split`` on
the node's axis and every point in the right subtree ``>= split``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from dpnn._validation import finite_array, positive_int

__all__ = [
    "KDTree",
    "build_tree",
    "cell_boxes",
    "create_tree",
    "nearest_neighbors",
    "tree_neighbors",
]


@dataclass(frozen=True)
class KDTree:
    """A balanced k-d tree in flat arrays; node ``i`` is described by entry ``i`` of
    each."""

    points: np.ndarray  # (N, d) the data, never reordered
    # permutation of point indices; a subtree's points are order[lo:hi]
    order: np.ndarray
    # index into points of the node's value (the median, or the leaf's point)
    point: np.ndarray
    split: np.ndarray  # the node's value on its axis
    axis: np.ndarray  # discriminator, depth mod d
    left: np.ndarray  # child node or -1
    right: np.ndarray  # child node or -1
    lo: np.ndarray
    hi: np.ndarray
    depth: np.ndarray
    height: np.ndarray  # levels below the node to its deepest leaf (0 for a leaf)
    leaf_only: bool
    #: Tables derived from the arrays above once and reused by every traversal of the
    #: tree (:mod:`dpnn.traversal.tree_arrays`); the arrays must therefore never change
    # after
    #: the build.
    cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def __getstate__(self) -> dict:
        """Pickled (e.g. for a worker process) without the derived tables: they are
        rebuilt there."""
        return {**self.__dict__, "cache": {}}

    @property
    def n_nodes(self) -> int:
        return len(self.split)

    @property
    def dimension(self) -> int:
        return self.points.shape[1]

    @property
    def tree_height(self) -> int:
        """Exponential-mechanism decisions on the longest root-to-leaf path (ceil(log2
        N) for Alg. 10)."""
        return int(self.height[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return (self.left < 0) & (self.right < 0)

    def leaf_of_point(self) -> np.ndarray:
        """For a leaf-only tree: the leaf node holding each point."""
        leaves = np.flatnonzero(self.is_leaf)
        out = np.empty(len(self.points), dtype=np.intp)
        out[self.point[leaves]] = leaves
        return out


def _as_points(points, name="points") -> np.ndarray:
    array = finite_array(points, name, ndim=(1, 2))
    return array.reshape(-1, 1) if array.ndim == 1 else array


def create_tree(points, leaf_only: bool = True) -> KDTree:
    """The balanced k-d tree of ``points`` by CREATE, thesis Alg. 10 (Alg. 3 when
    ``leaf_only=False``), recursive: the readable version of :func:`build_tree`.

    ``points`` has shape (N,) (a BST) or (N, d). A node is made from a list of point
    indices that sit at positions ``lo:hi`` of ``order``; ties on the axis are sorted
    by index. The nodes are then numbered breadth-first. Comments give the lines of
    Alg. 10 (and of Alg. 3 where it differs). Returns the same arrays as
    :func:`build_tree`, which is faster. The tree holds the server's data and spends
    no privacy.
    """
    data = _as_points(points)

    def create(indices, lo, depth):  # CREATE(P, k, d): the node, its points in order
        if not indices:  # Alg. 3 lines 2-4: an empty list makes no node
            return None, []
        axis = depth % data.shape[1]
        indices = sorted(indices, key=lambda i: (data[i, axis], i))  # line 7: SORT
        median = len(indices) // 2  # line 8
        node = SimpleNamespace(point=indices[median], axis=axis, depth=depth)  # line 9
        node.lo, node.hi, node.left, node.right = lo, lo + len(indices), None, None
        if len(indices) == 1:  # lines 5-6: a leaf
            return node, indices
        if leaf_only:  # lines 10-11: the median goes right, to a leaf of its own
            node.left, left = create(indices[:median], lo, depth + 1)
            node.right, right = create(indices[median:], lo + median, depth + 1)
            return node, left + right
        # Alg. 3 lines 8-9: the median stays at this node
        node.left, left = create(indices[:median], lo, depth + 1)
        node.right, right = create(indices[median + 1 :], lo + median + 1, depth + 1)
        return node, left + [indices[median]] + right

    root, order = create(list(range(len(data))), 0, 0)
    nodes = [root]  # breadth-first: each node's children join the end of the list
    for node in nodes:
        nodes += [child for child in (node.left, node.right) if child is not None]
    number = {id(node): i for i, node in enumerate(nodes)}
    height = {}  # levels below a node to its deepest leaf, children first
    for node in reversed(nodes):
        below = [height[id(c)] for c in (node.left, node.right) if c is not None]
        height[id(node)] = 1 + max(below) if below else 0

    def column(value, dtype=np.intp):
        return np.array([value(node) for node in nodes], dtype=dtype)

    def child(side):
        return column(lambda node: -1 if side(node) is None else number[id(side(node))])

    return KDTree(
        points=data,
        order=np.array(order, dtype=np.intp),
        point=column(lambda node: node.point),
        split=column(lambda node: data[node.point, node.axis], float),
        axis=column(lambda node: node.axis),
        left=child(lambda node: node.left),
        right=child(lambda node: node.right),
        lo=column(lambda node: node.lo),
        hi=column(lambda node: node.hi),
        depth=column(lambda node: node.depth),
        height=column(lambda node: height[id(node)]),
        leaf_only=leaf_only,
    )


def build_tree(points, leaf_only: bool = True) -> KDTree:
    """Build the balanced k-d tree of ``points`` (shape (N,) for a BST, or (N, d)).

    O(N log N) per level with numpy sorts; no Python recursion. See the module
    docstring for the layout and the split rule. The same arrays as
    :func:`create_tree`, the recursive CREATE of Alg. 10 (Alg. 3), whose steps the
    blocks below perform for all nodes of one depth at once:

    - ``rank``: SORT's key (coordinate on the axis, then index, line 7) as one integer
      per point and axis;
    - one pass of the ``while`` loop: every ``create`` call at that depth; its
      ``lexsort`` sorts every segment ``order[lo:hi]`` of the level (line 7), and
      ``median``, ``point_parts`` and ``split_parts`` are lines 8-9;
    - the children: lines 10-11 (Alg. 3 lines 8-9), only for segments of more than one
      point (lines 5-6: a leaf), without the empty sides (Alg. 3 lines 2-4), sorted by
      parent then side: ``create_tree``'s breadth-first numbering;
    - ``left``, ``right`` and ``height`` (bottom-up over the depths): ``create_tree``'s
      ``child`` and ``height`` columns.
    """
    data = _as_points(points)
    n, d = data.shape
    order = np.arange(n)
    # Rank of every point on every axis (ties broken by index, as create_tree's SORT):
    # sorting a segment on an axis is then one integer sort of (segment, rank) keys
    # for the whole level.
    rank = np.empty((n, d), dtype=np.int64)
    for a in range(d):
        rank[np.argsort(data[:, a], kind="stable"), a] = np.arange(n)
    # Per node (appended level by level): lo, hi, depth.
    lo_all, hi_all, depth_all = [np.array([0])], [np.array([n])], [np.array([0])]
    parent_all, side_all = [np.array([-1])], [np.array([0])]
    level_lo, level_hi, level_first, depth = np.array([0]), np.array([n]), 0, 0
    split_parts, point_parts, axis_parts = [], [], []
    node_count = 1
    while level_lo.size:
        axis = depth % d
        sizes = level_hi - level_lo
        # Sort every segment of this level on the axis (Alg. 10 line 7): one lexsort
        # over the covered positions.
        active = sizes > 1
        if np.any(active):
            starts, stops = level_lo[active], level_hi[active]
            positions = _ranges(starts, stops)
            segment = np.repeat(np.arange(len(starts), dtype=np.int64), stops - starts)
            members = order[positions]
            order[positions] = members[np.argsort(segment * n + rank[members, axis])]
        median = level_lo + sizes // 2  # lines 8-9: the median and its value
        point_parts.append(order[np.minimum(median, level_hi - 1)])
        split_parts.append(data[point_parts[-1], axis])
        axis_parts.append(np.full(len(level_lo), axis))
        # Children where a segment has more than one point (lines 5-6): left
        # [lo, median), right [median, hi) (lines 10-11) or [median + 1, hi) (Alg. 3
        # lines 8-9).
        has_children = sizes > 1
        right_lo = median if leaf_only else median + 1
        parent = level_first + np.arange(len(level_lo))
        child_lo = np.concatenate([level_lo[has_children], right_lo[has_children]])
        child_hi = np.concatenate([median[has_children], level_hi[has_children]])
        child_parent = np.concatenate([parent[has_children], parent[has_children]])
        child_side = np.repeat([0, 1], has_children.sum())
        keep = np.flatnonzero(child_hi > child_lo)  # classic trees: empty sides go
        # breadth-first, left before right: create_tree's numbering
        keep = keep[np.lexsort((child_side[keep], child_parent[keep]))]
        child_lo, child_hi = child_lo[keep], child_hi[keep]
        child_parent, child_side = child_parent[keep], child_side[keep]
        level_first = node_count
        node_count += len(child_lo)
        depth += 1
        if child_lo.size:
            lo_all.append(child_lo)
            hi_all.append(child_hi)
            depth_all.append(np.full(len(child_lo), depth))
            parent_all.append(child_parent)
            side_all.append(child_side)
        level_lo, level_hi = child_lo, child_hi

    lo, hi = np.concatenate(lo_all), np.concatenate(hi_all)
    depths, parents, sides = map(np.concatenate, (depth_all, parent_all, side_all))
    left = np.full(len(lo), -1, dtype=np.intp)
    right = np.full(len(lo), -1, dtype=np.intp)
    children = np.arange(1, len(lo))
    left[parents[1:][sides[1:] == 0]] = children[sides[1:] == 0]
    right[parents[1:][sides[1:] == 1]] = children[sides[1:] == 1]
    height = np.zeros(len(lo), dtype=np.intp)
    # bottom-up over levels, vectorized within
    for node_depth in range(depths.max() - 1, -1, -1):
        at = np.flatnonzero(depths == node_depth)
        child_heights = np.maximum(
            np.where(left[at] >= 0, height[np.maximum(left[at], 0)], -1),
            np.where(right[at] >= 0, height[np.maximum(right[at], 0)], -1),
        )
        height[at] = np.where(child_heights >= 0, child_heights + 1, 0)
    return KDTree(
        points=data,
        order=order,
        point=np.concatenate(point_parts).astype(np.intp),
        split=np.concatenate(split_parts),
        axis=np.concatenate(axis_parts).astype(np.intp),
        left=left,
        right=right,
        lo=lo,
        hi=hi,
        depth=depths,
        height=height,
        leaf_only=leaf_only,
    )


def _ranges(starts, stops) -> np.ndarray:
    """Concatenation of ``arange(a, b)`` for each pair, without a Python loop."""
    lengths = stops - starts
    offsets = np.repeat(
        starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths
    )
    return np.arange(lengths.sum()) + offsets


def nearest_neighbors(tree: KDTree, queries, k: int = 1):
    """Exact k nearest neighbours by tree search with backtracking (thesis Alg. 6),
    batched.

    Every query keeps a stack of nodes to visit with the squared distance from the query
    to the splitting plane that bounds them; all queries advance together, one node per
    step. A node is skipped when that bound is no better than the query's current k-th
    best distance (Alg. 6 line 18). Returns ``(distances, indices)`` of shape
    ``(n_queries, k)``, nearest first, indices into ``tree.points``. Ties between
    equidistant points may be broken differently from cKDTree.
    """
    q = _as_points(queries, "queries")
    if q.shape[1] != tree.dimension:
        raise ValueError(
            f"queries must have dimension {tree.dimension} like the tree, got shape "
            f"{np.shape(queries)}"
        )
    k = positive_int(k, "k")
    if k > len(tree.points):
        raise ValueError(
            "k must be between 1 and the number of "
            f"points ({len(tree.points)}), got {k}"
        )
    m = len(q)
    best_d = np.full((m, k), np.inf)
    best_i = np.full((m, k), -1, dtype=np.intp)
    capacity = 2 * (tree.tree_height + 2)
    stack_node = np.zeros((m, capacity), dtype=np.intp)
    stack_bound = np.zeros((m, capacity))
    top = np.ones(m, dtype=np.intp)  # the root, with bound 0, is on every stack
    rows = np.arange(m)
    while True:
        live = np.flatnonzero(top > 0)
        if live.size == 0:
            break
        top[live] -= 1
        node = stack_node[live, top[live]]
        bound = stack_bound[live, top[live]]
        worth = bound < best_d[live, -1]
        live, node = live[worth], node[worth]
        # Every visited node's value is a data point (Alg. 6 CHOOSECLOSEST).
        candidate = tree.point[node]
        dist = np.sum((tree.points[candidate] - q[live]) ** 2, axis=1)
        fresh = (dist < best_d[live, -1]) & ~np.any(
            best_i[live] == candidate[:, None], axis=1
        )
        if np.any(fresh):
            r = live[fresh]
            best_d[r, -1], best_i[r, -1] = dist[fresh], candidate[fresh]
            resort = np.argsort(best_d[r], axis=1, kind="stable")
            best_d[r] = np.take_along_axis(best_d[r], resort, axis=1)
            best_i[r] = np.take_along_axis(best_i[r], resort, axis=1)
        inner = (tree.left[node] >= 0) | (tree.right[node] >= 0)
        live, node = live[inner], node[inner]
        gap = q[live, tree.axis[node]] - tree.split[node]
        near = np.where(gap < 0, tree.left[node], tree.right[node])
        far = np.where(gap < 0, tree.right[node], tree.left[node])
        # near on top
        for child, child_bound in ((far, gap**2), (near, np.zeros(len(live)))):
            has = child >= 0
            r = live[has]
            stack_node[r, top[r]] = child[has]
            stack_bound[r, top[r]] = child_bound[has]
            top[r] += 1
    del rows
    return np.sqrt(best_d), best_i


def tree_neighbors(tree: KDTree, leaf: int, radius: int) -> np.ndarray:
    """Tree neighbours (thesis §2.3.2, §5.1.1): the points of the leaves within
    ``radius`` of ``leaf`` in tree order.

    For a leaf-only tree, leaves read left to right are ``tree.order``; the
    neighbours are the points at positions ``lo - radius .. lo + radius`` of that
    order (clipped to the tree), the leaf itself included.
    """
    if not tree.leaf_only:
        raise ValueError(
            "tree must be leaf-only (build_tree(points, "
            "leaf_only=True)) for tree neighbours"
        )
    leaf = int(leaf)
    if not (0 <= leaf < tree.n_nodes) or not tree.is_leaf[leaf]:
        raise ValueError(f"leaf must be the index of a leaf node, got {leaf}")
    radius = int(radius)
    if radius < 0:
        raise ValueError(f"radius must be an integer >= 0, got {radius}")
    position = tree.lo[leaf]
    return tree.order[max(0, position - radius) : position + radius + 1]


def cell_boxes(tree: KDTree, domain) -> tuple[np.ndarray, np.ndarray]:
    """The region of every node: ``(low, high)``, each of shape (n_nodes, d).

    The root's cell is ``domain`` (rows (low, high) per dimension); a node's left
    child keeps the part with ``coordinate <= split`` on the node's axis and its
    right child the part with ``coordinate >= split`` (the module's invariant).
    The cells of the leaves at each depth partition the domain. A leaf's cell is
    what a server learns about a query from DP-TT's transcript of turns, were
    every turn truthful. Computed level by level, without Python recursion.
    """
    if not isinstance(tree, KDTree):
        raise ValueError("tree must be a KDTree from dpnn.trees.build_tree")
    box = finite_array(domain, "domain", ndim=(1, 2))
    box = box.reshape(1, 2) if box.ndim == 1 and box.size == 2 else box
    if (
        box.ndim != 2
        or box.shape != (tree.dimension, 2)
        or np.any(box[:, 0] >= box[:, 1])
    ):
        raise ValueError(
            f"domain must have shape ({tree.dimension}, 2) with low < high per row, "
            f"got {np.asarray(domain).tolist()!r}"
        )
    data = tree.points
    if np.any(data < box[:, 0]) or np.any(data > box[:, 1]):
        raise ValueError("domain must contain every point of the tree")
    low = np.empty((tree.n_nodes, tree.dimension))
    high = np.empty((tree.n_nodes, tree.dimension))
    low[0], high[0] = box[:, 0], box[:, 1]
    for depth in range(int(tree.depth.max()) + 1):
        node = np.flatnonzero((tree.depth == depth) & (tree.left >= 0))
        if not node.size:
            continue
        axis, split = tree.axis[node], tree.split[node]
        for child, bound in ((tree.left[node], high), (tree.right[node], low)):
            present = child >= 0
            c, parent = child[present], node[present]
            low[c], high[c] = low[parent], high[parent]
            bound[c, axis[present]] = split[present]
    return low, high
