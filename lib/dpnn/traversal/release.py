"""What DP-TT releases to each query: the points below the nodes its traversals reached.

Every traversal thread ends at a node: a leaf (Alg. 11, 15, 17) or, for E, the node
where it stops (Alg. 16), whose whole block of points is released. With N (Alg. 18)
each released point is replaced by its ``B`` nearest data points, itself included.
A query's release is the union over its threads, sorted by point index, without
repeats; it is post-processing of the turns and spends no privacy.

The output is written per query, never by a global sort: a scatter when a query
has one point, a copy of a precomputed block or table row when it has one thread,
and otherwise one small row per query, sorted in place.

In :func:`dpnn.traversal.dptt_reference` this is the end: ``release`` of each
thread's node (``order[lo:hi]``), then ``_knn`` of every point found (Alg. 18 line
12; here :func:`~dpnn.traversal.tables.leaf_neighbours`, whose ties among
equidistant points are cKDTree's, where ``_knn`` takes the lower index), then
``np.unique``.
"""

from __future__ import annotations

import numpy as np

from dpnn.traversal.tree_arrays import (
    index_type,
    leaf_neighbours,
    node_columns,
    stop_order,
)
from dpnn.trees import KDTree

__all__ = ["release"]


def release(
    tree: KDTree,
    owner,
    node,
    slot,
    n_queries: int,
    neighborhood: int,
    width: int,
    stop_height: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, offsets)``: query i receives ``indices[offsets[i]:offsets[i + 1]]``.

    Thread t of query ``owner[t]`` ended at ``node[t]``. ``slot`` is None when thread
    i is query i's only thread (basic, E; ``owner`` is then unused); otherwise
    ``slot[t] < width`` numbers the threads of one query, each ending at a leaf (P,
    GS). ``stop_height`` is E's.

    Blocks, as steps of :func:`dptt_reference`: one thread per query ending at a leaf
    (basic, N) releases the leaf's point (``release``), or its row of ``_knn``; E's
    thread releases its node's block ``order[lo:hi]`` sorted (``release``, then
    ``np.unique``), or the ``_knn`` rows of its points; P and GS fill one row per
    query with their threads' leaves, which :func:`_rows` sorts (``np.unique``; with N
    after the ``_knn`` rows).
    """
    columns = node_columns(tree)
    if slot is None:
        by_query = node
        if stop_height == 0 or np.all(tree.height[by_query] == 0):
            leaf = columns.first[by_query]  # the point of each query's leaf
            if not neighborhood:
                return leaf, np.arange(n_queries + 1)
            table = leaf_neighbours(tree, neighborhood, leaf)  # _knn, sorted
            return (
                table[leaf].ravel().astype(np.intp),
                np.arange(n_queries + 1) * neighborhood,
            )
        lo, hi = tree.lo[by_query], tree.hi[by_query]  # E: order[lo:hi] per query
        if not neighborhood:
            return _blocks(stop_order(tree, stop_height), lo, hi)
        width = int(np.max(hi - lo))
        positions = lo[:, None] + np.arange(width)
        inside = positions < hi[:, None]
        found = np.where(
            inside, tree.order[np.where(inside, positions, 0)], len(tree.points)
        )
        found = found.astype(index_type(tree))
    else:  # P, GS: each thread's leaf in its query's row
        found = np.full((n_queries, width), len(tree.points), dtype=index_type(tree))
        found[owner, slot] = columns.first[node]
    return _rows(tree, found, neighborhood)


def _rows(tree, found, neighborhood):
    """Release per row of ``found`` (point indices, padded with ``len(tree.points)``).

    Each row is sorted in place (rows of :func:`index_type`); with N, repeats go: the
    ``_knn`` rows and ``np.unique`` of :func:`dptt_reference`, row by row.
    """
    padding = len(tree.points)
    if neighborhood:
        table = leaf_neighbours(tree, neighborhood, found[found < padding])
        found = np.take(table, found, axis=0).reshape(
            len(found), -1
        )  # padding row: padding
    found.sort(axis=1)
    keep = found < padding
    if neighborhood:  # neighbourhoods of one query's points may overlap
        keep[:, 1:] &= found[:, 1:] != found[:, :-1]
    counts = np.count_nonzero(keep, axis=1)
    return _compact(found, keep).astype(np.intp), np.concatenate(
        [[0], np.cumsum(counts)]
    )


def _blocks(source, lo, hi):
    """``source[lo[i]:hi[i]]`` for every i, one after another, and their offsets.

    The positions to copy are a running sum: 1 within a block, a jump between blocks.
    They are summed in the output's own buffer and replaced there by what they point
    to (``take`` reads position i before it writes entry i); every position lies in
    ``source`` by construction, so ``mode="wrap"`` never wraps: it only spares the
    copy numpy makes to check bounds. One buffer instead of two halves the memory the
    copy touches.
    """
    sizes = hi - lo
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    out = np.ones(offsets[-1], dtype=np.intp)
    out[offsets[:-1]] = lo - np.concatenate([[0], lo[:-1] + sizes[:-1] - 1])
    np.cumsum(out, out=out)
    return np.take(source, out, out=out, mode="wrap"), offsets


def _compact(rows, keep):
    """``rows[keep]`` read row after row (flat arrays compact faster than 2-D ones)."""
    return rows.ravel()[keep.ravel()]
