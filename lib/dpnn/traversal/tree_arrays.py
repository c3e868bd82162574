"""Tables a DP-TT server derives from its tree once and reuses for every query.

None of them depends on a query, so none spends privacy; each is kept in the tree's
``cache`` (:class:`dpnn.trees.KDTree`) and built on first use:

- :func:`node_columns`: per node its split value and its own point's coordinates,
  one column per axis. Siblings are stored side by side (``right == left + 1``),
  so a step finds one child index and both children's coordinates in the columns;
  in the full top levels of a balanced tree the left child of node i is 2i + 1
  (breadth-first numbering) and needs no lookup. :func:`left_until` gives each
  node's left child, or -1 where a traversal stops.
- :func:`stop_order`: the points under each node where variant E stops, sorted by
  index within each node's block: what E releases, ready to copy.
- :func:`leaf_neighbours`: the B nearest data points of every leaf's point (Alg. 18),
  sorted by index; filled row by row as leaves are found, so a batch of queries on a
  large tree looks up only the leaves it reaches, and each leaf only once per tree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpnn.trees import KDTree

__all__ = [
    "NodeColumns",
    "node_columns",
    "stop_order",
    "leaf_neighbours",
    "index_type",
    "left_until",
]


def index_type(tree: KDTree):
    """The narrowest integer type for the point indices and one more (padding)."""
    return np.int32 if len(tree.points) < np.iinfo(np.int32).max else np.intp


@dataclass(frozen=True)
class NodeColumns:
    """Flat per-node columns of a leaf-only tree for the descent (see the module)."""

    split: np.ndarray  # the node's split value on its axis
    coordinates: tuple  # one column per axis: the coordinates of the node's own point
    first: np.ndarray  # the first point of the node's block, order[lo]: a leaf's point
    axis_of_depth: (
        np.ndarray | None
    )  # the axis every node at a depth splits on, if one per depth
    heap_depth: (
        int  # above this depth every node is inner and node i's left child is 2i + 1
    )


def node_columns(tree: KDTree) -> NodeColumns:
    """The descent's columns of ``tree``, built once per tree."""
    if "columns" not in tree.cache:
        inner = tree.left >= 0
        if np.any(tree.right[inner] != tree.left[inner] + 1) or np.any(
            tree.right[~inner] >= 0
        ):
            raise ValueError(
                "tree must store siblings side by side (right == left + 1), "
                "as dpnn.trees.build_tree does"
            )
        own = tree.points[tree.point]
        depths, first_at_depth = np.unique(tree.depth, return_index=True)
        axis_of_depth = np.zeros(int(depths.max()) + 1, dtype=np.intp)
        axis_of_depth[depths] = tree.axis[first_at_depth]
        uniform = np.array_equal(tree.axis, axis_of_depth[tree.depth])
        heap_depth = int(tree.depth[tree.left < 0].min())  # the top levels are full
        while heap_depth and not np.array_equal(
            tree.left[: 2**heap_depth - 1], 2 * np.arange(2**heap_depth - 1) + 1
        ):
            heap_depth -= 1
        tree.cache["columns"] = NodeColumns(
            split=np.ascontiguousarray(tree.split, dtype=float),
            coordinates=tuple(
                np.ascontiguousarray(own[:, a]) for a in range(tree.dimension)
            ),
            first=tree.order[tree.lo],
            axis_of_depth=axis_of_depth if uniform else None,
            heap_depth=heap_depth,
        )
    return tree.cache["columns"]


def left_until(tree: KDTree, stop_height: int) -> tuple[np.ndarray, int, int]:
    """``(child_of, earliest, latest)``: each node's left child, or -1 where one stops.

    A traversal stops at the first node of height <= ``stop_height``. ``earliest`` and
    ``latest`` are the least and the greatest depth of such a node: no thread stops
    above ``earliest``, and at ``latest`` every thread has stopped.
    """
    key = ("left_until", int(stop_height))
    if key not in tree.cache:
        child_of = np.where(tree.height > stop_height, tree.left, -1)
        walks = np.flatnonzero(child_of >= 0)
        stops = (
            np.concatenate([tree.left[walks], tree.right[walks]])
            if walks.size
            else np.array([0])
        )
        stops = stops[child_of[stops] < 0]
        tree.cache[key] = (
            child_of,
            int(tree.depth[stops].min()),
            int(tree.depth[stops].max()),
        )
    return tree.cache[key]


def stop_order(tree: KDTree, stop_height: int) -> np.ndarray:
    """``tree.order`` sorted by point index within the block of every node where E
    stops.

    A traversal that stops at the first node of height <= ``stop_height`` stops at a
    node of a cut of the tree; the blocks ``lo:hi`` of the cut's nodes partition the
    positions, so for every such node ``stop_order(tree, s)[lo:hi]`` is
    ``sorted(order[lo:hi])``: what E releases there, ready to copy.
    """
    key = ("stop_order", int(stop_height))
    if key not in tree.cache:
        inner = np.flatnonzero(tree.height > stop_height)
        children = np.concatenate([tree.left[inner], tree.right[inner]])
        cut = children[tree.height[children] <= stop_height] if inner.size else [0]
        block = np.zeros(len(tree.points), dtype=np.intp)
        block[tree.lo[cut]] = 1
        block = np.cumsum(block)  # each position's block, numbered in tree order
        tree.cache[key] = tree.order[np.lexsort((tree.order, block))]
    return tree.cache[key]


def leaf_neighbours(tree: KDTree, neighborhood: int, points: np.ndarray) -> np.ndarray:
    """The table of ``neighborhood`` nearest data points of each point, sorted by index.

    Row p holds p itself and its ``neighborhood - 1`` nearest other points (by
    cKDTree, whose ties decide among equidistant points; a point that shares p's
    coordinates is one of p's others), sorted by index. Rows of ``points`` not yet
    in the table are looked up now (all at once when they are more than a quarter of
    the points); the table has one extra row ``len(tree.points)``
    full of that value, which the release uses as padding. Its type is
    :func:`index_type` (32-bit rows sort several times faster).
    """
    from scipy.spatial import cKDTree

    n = len(tree.points)
    key = ("neighbours", int(neighborhood))
    if key not in tree.cache:
        table = np.full((n + 1, neighborhood), n, dtype=index_type(tree))
        tree.cache[key] = (table, np.zeros(n, dtype=bool))
    table, filled = tree.cache[key]
    missing = points[~filled[points]]
    if missing.size:
        if "index" not in tree.cache:
            tree.cache["index"] = cKDTree(tree.points)
        missing = np.unique(missing)
        if (
            len(missing) > n // 4
        ):  # most rows will be needed: look every row up in one batch
            missing = np.flatnonzero(~filled)
        _, near = tree.cache["index"].query(
            tree.points[missing], k=neighborhood, workers=-1
        )
        near = np.asarray(near).reshape(len(missing), neighborhood)
        others = near != missing[:, None]
        # The first neighborhood - 1 entries other than the point itself, by distance.
        keep = others & (np.cumsum(others, axis=1) < neighborhood)
        rest = near[keep].reshape(len(missing), neighborhood - 1)
        table[missing] = np.sort(np.column_stack([missing, rest]), axis=1)
        filled[missing] = True
    return table
