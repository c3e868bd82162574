"""Range queries on a PSD by the canonical method (Cormode et al. §IV-A), exact counts,
relative errors and query workloads."""

from __future__ import annotations

import math

import numpy as np

from dpnn._validation import finite_array, generator, positive_finite, positive_int

from . import decomposition, quadtree

__all__ = [
    "range_query",
    "true_counts",
    "relative_errors",
    "median_relative_error",
    "random_queries",
    "canonical_nodes",
    "rect_sum",
]


# --- range queries (§IV-A, §VIII-A) ---------------------------------------------------


def _rectangles(rects):
    rects = finite_array(rects, "rects", ndim=(1, 2))
    rects = rects[None, :] if rects.ndim == 1 else rects
    if (
        rects.shape[1] != 4
        or np.any(rects[:, 0] > rects[:, 2])
        or np.any(rects[:, 1] > rects[:, 3])
    ):
        raise ValueError(
            "rects must be rows (x_min, y_min, x_max, y_max) with min <= max"
        )
    return rects


def _prefix_grid(values, depth):
    """2-D inclusive prefix sums (padded with a zero row and column) of a Morton-ordered
    level."""
    side = 2**depth
    ix, iy = quadtree.morton_decode(np.arange(side * side))
    grid = np.zeros((side + 1, side + 1))
    grid[iy + 1, ix + 1] = values
    return grid.cumsum(axis=0).cumsum(axis=1)


def rect_sum(prefix, c0, c1, r0, r1):
    """The sum of a grid's cells with columns ``c0 .. c1 - 1`` and rows ``r0 .. r1 - 1``
    (0 when ``c1 <= c0`` or ``r1 <= r0``), from its prefix sums ``prefix`` padded with a
    zero row and column (``prefix[r, c]`` = sum of rows < r and columns < c); the
    bounds may be arrays."""
    c1, r1 = np.maximum(c1, c0), np.maximum(r1, r0)
    return prefix[r1, c1] - prefix[r0, c1] - prefix[r1, c0] + prefix[r0, c0]


def _quadtree_query(tree, rects):
    """Canonical answers on a complete quadtree with O(h) summed-area-table look-ups per
    query."""
    box, h = tree.box, tree.height
    u = (rects[:, [0, 2]] - box[0]) / (box[2] - box[0])  # x in units of the box
    v = (rects[:, [1, 3]] - box[1]) / (box[3] - box[1])
    answer = np.zeros(len(rects))
    parent = None
    for d in range(h + 1):
        side = 2**d
        prefix = _prefix_grid(tree.counts[d], d)
        inner = [
            np.clip(np.ceil(u[:, 0] * side), 0, side).astype(int),
            np.clip(np.floor(u[:, 1] * side), 0, side).astype(int),
            np.clip(np.ceil(v[:, 0] * side), 0, side).astype(int),
            np.clip(np.floor(v[:, 1] * side), 0, side).astype(int),
        ]
        answer += rect_sum(prefix, inner[0], inner[1], inner[2], inner[3])
        # nodes inside a contained parent were already counted there
        if parent is not None:
            p = [
                2 * np.minimum(parent[0], parent[1]),
                2 * parent[1],
                2 * np.minimum(parent[2], parent[3]),
                2 * parent[3],
            ]
            answer -= rect_sum(prefix, *p)
        parent = inner
    answer += _partial_leaves(prefix, u, v, 2**h, inner)
    return answer


def _partial_leaves(prefix, u, v, side, inner):
    """Uniformity assumption: fraction-weighted counts of leaves cut by the query
    boundary."""
    total = np.zeros(len(u))
    xs, ys = _axis_blocks(u, side), _axis_blocks(v, side)
    for a0, a1, wa in xs:
        for b0, b1, wb in ys:
            total += wa * wb * rect_sum(prefix, a0, a1, b0, b1)
    return total - rect_sum(prefix, *inner)


def _axis_blocks(t, side):
    """Split the cells a query spans on one axis into first, middle and last blocks with
    their weights."""
    lo, hi = np.clip(t[:, 0] * side, 0, side), np.clip(t[:, 1] * side, 0, side)
    first = np.minimum(np.floor(lo), side - 1).astype(int)
    last = np.maximum(np.ceil(hi).astype(int) - 1, first)
    single = first == last
    w_first = np.where(single, hi - lo, first + 1 - lo)
    w_last = np.where(single, 0.0, hi - last)
    return [
        (first, first + 1, w_first),
        (first + 1, last, np.ones(len(t))),
        (last, last + 1, w_last),
    ]


def _generic_query(tree, rects):
    """Canonical answers on any tree with node boxes, by expanding a frontier of (query,
    node) pairs.

    Only the nodes a query cuts are expanded, as in the textbook canonical
    method, but all queries advance together one depth at a time.
    """
    answers = np.zeros(len(rects))
    leaf = tree.leaf or tuple(
        np.full(len(c), d == tree.height) for d, c in enumerate(tree.counts)
    )
    query, node = np.arange(len(rects)), np.zeros(len(rects), dtype=np.int64)
    for d in range(tree.height + 1):
        b, q = tree.boxes[d][node], rects[query]
        inside = (
            (q[:, 0] <= b[:, 0])
            & (b[:, 2] <= q[:, 2])
            & (q[:, 1] <= b[:, 1])
            & (b[:, 3] <= q[:, 3])
        )
        fraction = _overlap_fraction(q, b)
        counts = tree.counts[d][node]
        np.add.at(answers, query[inside], counts[inside])
        cut = ~inside & (fraction > 0)
        at_leaf = cut & leaf[d][node]
        np.add.at(answers, query[at_leaf], fraction[at_leaf] * counts[at_leaf])
        go = cut & ~leaf[d][node]
        query = np.repeat(query[go], tree.fanout)
        node = (tree.fanout * node[go][:, None] + np.arange(tree.fanout)).ravel()
        if not len(node):
            break
    return answers


def _overlap_fraction(q, b):
    """Share of each box's area inside each query (0 for a box of zero area that is not
    inside)."""
    wx = np.clip(
        np.minimum(q[..., 2], b[..., 2]) - np.maximum(q[..., 0], b[..., 0]), 0, None
    )
    wy = np.clip(
        np.minimum(q[..., 3], b[..., 3]) - np.maximum(q[..., 1], b[..., 1]), 0, None
    )
    area = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    return np.divide(wx * wy, area, out=np.zeros(wx.shape), where=area > 0)


def range_query(tree: decomposition.PSD, rects) -> np.ndarray:
    """Answers of a workload of rectangles by the canonical method (§IV-A) with the
    uniformity assumption.

    A node fully inside the query whose parent is not contributes its count; a leaf
    that the query cuts contributes the fraction of its area inside the query.
    ``rects`` is (m, 4): ``x_min, y_min, x_max, y_max``. A complete quadtree is
    answered with summed-area tables (``O(h)`` per query); any other tree (pruned,
    kd, Hilbert) by descending from the root and expanding only the nodes each
    query cuts, all queries at once. Post-processing of the release: no privacy cost.
    """
    rects = _rectangles(rects)
    if tree.boxes is None and tree.leaf is None:
        return _quadtree_query(tree, rects)
    boxes = (
        tree.boxes
        if tree.boxes is not None
        else quadtree.quadtree_boxes(tree.box, tree.height)
    )
    return _generic_query(
        decomposition.PSD(
            box=tree.box,
            counts=tree.counts,
            epsilons=tree.epsilons,
            boxes=boxes,
            leaf=tree.leaf,
            fanout=tree.fanout,
        ),
        rects,
    )


def true_counts(points, rects, chunk=1 << 20) -> np.ndarray:
    """Exact number of points inside each closed rectangle (the ground truth for
    relative errors).

    In rank space (points sorted by x and by y, ties kept together by the
    searches) a query is the block of ranks ``[xl, xh) x [yl, yh)``. The ranks are
    cut into ``~sqrt(n)`` blocks of ``~sqrt(n)`` ranks per axis; a 2-D prefix sum over
    the block grid counts the points of the fully covered blocks, and the at most
    four strips of partly covered blocks (``< sqrt(n)`` ranks each) are counted
    point by point, all queries at once, at most ``chunk`` (query, point) pairs at a
    time. ``O(n log n + m sqrt(n))`` for ``m`` queries, no loop over queries. Public
    workload, no privacy.
    """
    points = finite_array(points, "points", ndim=(2,))
    if points.shape[1] != 2:
        raise ValueError(f"points must have 2 columns, got shape {points.shape}")
    rects = _rectangles(rects)
    chunk = positive_int(chunk, "chunk")
    n = len(points)
    by_x, by_y = np.argsort(points[:, 0]), np.argsort(points[:, 1])
    x_rank, y_rank = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    x_rank[by_x], y_rank[by_y] = np.arange(n), np.arange(n)
    size = max(1, math.isqrt(n))  # ranks per block
    blocks = -(-n // size)
    # grid[i, j]: x block < i and y block < j
    grid = np.zeros((blocks + 1, blocks + 1), dtype=np.int64)
    grid[1:, 1:] = (
        np.bincount(x_rank // size * blocks + y_rank // size, minlength=blocks * blocks)
        .reshape(blocks, blocks)
        .cumsum(0)
        .cumsum(1)
    )
    xs, ys = points[by_x, 0], points[by_y, 1]
    xl, xh = (
        np.searchsorted(xs, rects[:, 0], "left"),
        np.searchsorted(xs, rects[:, 2], "right"),
    )
    yl, yh = (
        np.searchsorted(ys, rects[:, 1], "left"),
        np.searchsorted(ys, rects[:, 3], "right"),
    )
    cx0, cx1, xa, xb = _full_blocks(xl, xh, size)
    cy0, cy1, ya, yb = _full_blocks(yl, yh, size)
    full = grid[cx1, cy1] - grid[cx0, cy1] - grid[cx1, cy0] + grid[cx0, cy0]
    y_of_x, x_of_y = y_rank[by_x], x_rank[by_y]
    x_strips = _ragged_count(y_of_x, xl, xa, yl, yh, chunk) + _ragged_count(
        y_of_x, xb, xh, yl, yh, chunk
    )
    y_strips = _ragged_count(
        x_of_y, yl, ya, cx0 * size, cx1 * size, chunk
    ) + _ragged_count(x_of_y, yb, yh, cx0 * size, cx1 * size, chunk)
    return full + x_strips + y_strips


def _full_blocks(lo, hi, size):
    """Blocks ``[c0, c1)`` fully inside the ranks ``[lo, hi)``; the partial strips are
    ``[lo, a)`` and ``[b, hi)``."""
    c0 = -(-lo // size)
    c1 = np.maximum(hi // size, c0)
    a = np.minimum(c0 * size, hi)
    return c0, c1, a, np.maximum(np.minimum(c1 * size, hi), a)


def _ragged_count(other, start, stop, low, high, chunk):
    """For each row r, how many of ``other[start_r:stop_r]`` lie in ``[low_r, high_r)``,
    ``chunk`` pairs at a time."""
    length = stop - start
    out = np.zeros(len(start), dtype=np.int64)
    rows = max(1, chunk // max(int(length.max(initial=0)), 1))
    for first in range(0, len(start), rows):
        part = slice(first, first + rows)
        n = length[part]
        owner = np.repeat(np.arange(len(n)), n)
        value = other[
            np.repeat(start[part] - np.cumsum(n) + n, n) + np.arange(len(owner))
        ]
        hit = (value >= np.repeat(low[part], n)) & (value < np.repeat(high[part], n))
        out[part] = np.bincount(owner[hit], minlength=len(n))
    return out


def relative_errors(estimates, truth) -> np.ndarray:
    """``|estimate - truth| / truth`` for queries with a non-zero true answer
    (§VIII-A)."""
    estimates = finite_array(estimates, "estimates", ndim=(1,))
    truth = finite_array(truth, "truth", ndim=(1,))
    if estimates.shape != truth.shape:
        raise ValueError(
            "estimates and truth must have the same "
            f"shape, got {estimates.shape} and {truth.shape}"
        )
    keep = truth > 0
    if not np.any(keep):
        raise ValueError("truth must contain at least one non-zero answer")
    return np.abs(estimates[keep] - truth[keep]) / truth[keep]


def median_relative_error(estimates, truth) -> float:
    """Median relative error over queries with non-zero true answers, the measure of
    §VIII-A."""
    return float(np.median(relative_errors(estimates, truth)))


def random_queries(
    points, box, width, height, n_queries, rng, max_rounds=50
) -> np.ndarray:
    """``n_queries`` rectangles of size ``width x height`` inside ``box`` with a
    non-zero answer (§VIII-A).

    Lower-left corners are uniform over the positions that keep the rectangle in
    the box; rectangles containing no point are redrawn. Public workload, no privacy.
    """
    box = quadtree.check_box(box)
    width, height = positive_finite(width, "width"), positive_finite(height, "height")
    n_queries = positive_int(n_queries, "n_queries")
    if width > box[2] - box[0] or height > box[3] - box[1]:
        raise ValueError(
            f"width and height must fit in the box ({box[2] - box[0]} x "
            f"{box[3] - box[1]})"
        )
    rng = generator(rng)
    kept = []
    for _ in range(max_rounds):
        x0 = rng.uniform(box[0], box[2] - width, 2 * n_queries)
        y0 = rng.uniform(box[1], box[3] - height, 2 * n_queries)
        rects = np.column_stack([x0, y0, x0 + width, y0 + height])
        kept.extend(rects[true_counts(points, rects) > 0])
        if len(kept) >= n_queries:
            return np.array(kept[:n_queries])
    raise ValueError(
        f"could not find {n_queries} non-empty {width} x {height} queries in "
        f"{max_rounds} rounds"
    )


def canonical_nodes(tree: decomposition.PSD, rect):
    """The nodes the canonical method adds up for one rectangle: a list of
    ``(depth, index, weight)``.

    ``weight`` is 1 for a node inside the query whose parent is not, and the
    covered fraction of the area for a leaf the query cuts (uniformity
    assumption). ``sum(weight * counts[depth][index])`` equals :func:`range_query`.
    """
    rect = _rectangles(rect)
    boxes = (
        tree.boxes
        if tree.boxes is not None
        else quadtree.quadtree_boxes(tree.box, tree.height)
    )
    leaf = tree.leaf or tuple(
        np.full(len(c), d == tree.height) for d, c in enumerate(tree.counts)
    )
    q = rect[:1, None, :]
    nodes, active, parent_in = [], np.ones(1, dtype=bool), np.zeros(1, dtype=bool)
    for d, b in enumerate(boxes):
        contained = (
            (q[..., 0] <= b[:, 0])
            & (b[:, 2] <= q[..., 2])
            & (q[..., 1] <= b[:, 1])
            & (b[:, 3] <= q[..., 3])
        )[0]
        fraction = _overlap_fraction(q, b)[0]
        for j in np.flatnonzero(contained & ~parent_in & active):
            nodes.append((d, int(j), 1.0))
        for j in np.flatnonzero(leaf[d] & active & ~contained & (fraction > 0)):
            nodes.append((d, int(j), float(fraction[j])))
        active = np.repeat(active & ~leaf[d], tree.fanout)
        parent_in = np.repeat(contained, tree.fanout)
    return nodes
