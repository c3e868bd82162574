"""The Hilbert curve and the private Hilbert R-tree (Cormode et al. §III-B, §VIII-B)."""

from __future__ import annotations

import numpy as np

from dpnn._validation import generator, positive_finite, positive_int

from . import budgets, decomposition, kdtree, postprocessing, quadtree

__all__ = [
    "hilbert_index",
    "hilbert_cell",
    "hilbert_range_boxes",
    "private_hilbert_rtree",
]


# --- Hilbert curve and the Hilbert R-tree (§III-B, §VIII-B) ---------------------------


def _order(order):
    order = positive_int(order, "order")
    if order > 26:
        raise ValueError(f"order must be an integer in [1, 26], got {order}")
    return order


def hilbert_index(ix, iy, order) -> np.ndarray:
    """Position along the Hilbert curve of order ``r`` of integer cells ``(ix, iy)`` in
    ``[0, 2^r)^2``.

    The classic bit-by-bit rotation algorithm (Butz 1971; as in Hamilton's notes),
    vectorized over cells. A bijection from the ``2^r x 2^r`` grid onto ``[0, 4^r)``
    in which consecutive positions are adjacent cells.
    """
    order = _order(order)
    x, y = np.array(ix, dtype=np.int64), np.array(iy, dtype=np.int64)
    if np.any((x < 0) | (x >= 2**order) | (y < 0) | (y >= 2**order)):
        raise ValueError(f"ix and iy must be integers in [0, 2^order = {2**order})")
    d = np.zeros(np.broadcast(x, y).shape, dtype=np.int64)
    s = 2 ** (order - 1)
    while s > 0:
        rx, ry = (x & s) > 0, (y & s) > 0
        d += s * s * ((3 * rx) ^ ry)
        x, y = _rotate(s * 2, x, y, rx, ry)
        s //= 2
    return d


def hilbert_cell(d, order):
    """Inverse of :func:`hilbert_index`: the cell ``(ix, iy)`` at each curve position
    ``d``."""
    order = _order(order)
    t = np.array(d, dtype=np.int64)
    if np.any((t < 0) | (t >= 4**order)):
        raise ValueError(f"d must be integers in [0, 4^order = {4**order})")
    x, y = np.zeros_like(t), np.zeros_like(t)
    s = 1
    while s < 2**order:
        rx = (1 & (t // 2)) > 0
        ry = (1 & (t ^ rx)) > 0
        x, y = _rotate(s, x, y, rx, ry)
        x, y = x + s * rx, y + s * ry
        t //= 4
        s *= 2
    return x, y


def _rotate(n, x, y, rx, ry):
    flip = ~ry & rx
    x = np.where(flip, n - 1 - x, x)
    y = np.where(flip, n - 1 - y, y)
    swap = ~ry
    return np.where(swap, y, x), np.where(swap, x, y)


def hilbert_range_boxes(start, stop, order):
    """Bounding boxes, in cell units ``(x_min, y_min, x_max, y_max)``, of Hilbert ranges
    ``[start, stop)``.

    Each range is cut into aligned blocks of ``4^j`` positions, which are ``2^j x 2^j``
    squares of the grid, and their boxes are merged. Depends only on the public
    range, so it costs no privacy. An empty range gets an empty box at its start.
    """
    order = _order(order)
    lo, hi = np.array(start, dtype=np.int64), np.array(stop, dtype=np.int64)
    box = np.column_stack(
        [
            np.full(len(lo), np.inf),
            np.full(len(lo), np.inf),
            np.full(len(lo), -np.inf),
            np.full(len(lo), -np.inf),
        ]
    )

    def take(mask, j):
        x, y = hilbert_cell(lo[mask], order)
        side = 2**j
        x0, y0 = (x // side) * side, (y // side) * side
        box[mask] = np.column_stack(
            [
                np.minimum(box[mask, 0], x0),
                np.minimum(box[mask, 1], y0),
                np.maximum(box[mask, 2], x0 + side),
                np.maximum(box[mask, 3], y0 + side),
            ]
        )
        lo[mask] += side * side

    # climb: peel unaligned blocks off the start
    for j in range(order + 1):
        for _ in range(3):
            size = 4**j
            mask = (
                (lo % (4 * size) != 0) & (lo + size <= hi)
                if j < order
                else np.zeros(len(lo), bool)
            )
            if mask.any():
                take(mask, j)
    for j in range(order, -1, -1):  # descend: largest aligned blocks first
        for _ in range(3):
            mask = lo + 4**j <= hi
            if mask.any():
                take(mask, j)
    empty = ~np.isfinite(box[:, 0])
    if empty.any():
        x, y = hilbert_cell(np.minimum(np.array(start)[empty], 4**order - 1), order)
        box[empty] = np.column_stack([x, y, x, y])
    return box


def private_hilbert_rtree(
    points,
    box,
    height,
    epsilon,
    rng,
    order=18,
    count_share=0.7,
    median="em",
    sample=None,
    postprocess=True,
    prune_threshold=None,
):
    """A private Hilbert R-tree (§III-B, §VIII-B): a 1-D kd-tree over Hilbert values,
    fanout 4.

    Points map to cells of a ``2^order x 2^order`` grid over ``box`` and then to
    Hilbert positions; each node's range ``[a, b)`` is split at a private median,
    and each half again (fanout 4 by flattening). Node rectangles are the bounding
    boxes of the Hilbert ranges (:func:`hilbert_range_boxes`), so they reveal only
    the private medians; nodes cut away by pruning are not released and get NaN
    boxes. ``median`` is ``"em"`` (the paper's hilbert-r), ``"noisymean"``, ``"true"``
    (exact medians: **not private**, named hilbert-r-true) or ``"mid"`` (midpoints
    of the Hilbert ranges). Budget as in :func:`private_kdtree` (:func:`tree_budget`,
    every level data-dependent). Privacy: ``epsilon``-DP with ``"em"``,
    ``"noisymean"`` or ``"mid"``; not private with ``"true"``.
    """
    box, height = quadtree.check_box(box), positive_int(height, "height")
    epsilon, order = positive_finite(epsilon, "epsilon"), _order(order)
    count_epsilon, median_epsilon, step_epsilon = kdtree.tree_budget(
        epsilon, count_share, median, height
    )
    sample = kdtree.check_sample_rate(sample)
    points = quadtree.check_points_in(points, box)
    rng = generator(rng)
    side = 2**order
    h = hilbert_index(
        quadtree.cell_index(points[:, 0], box[0], box[2], side),
        quadtree.cell_index(points[:, 1], box[1], box[3], side),
        order,
    ).astype(float)
    h_sorted = np.argsort(h)
    node = np.zeros(len(h), dtype=np.int64)
    ranges = [np.array([[0.0, float(4**order)]])]
    exact = [np.array([float(len(h))])]
    for d in range(height):
        r = ranges[-1]
        s1 = np.floor(
            kdtree.split_level(
                h, h_sorted, node, r[:, 0], r[:, 1], median, step_epsilon, rng, sample
            )
        )
        half = 2 * node + (h >= s1[node])
        # ranges of the halves
        bounds = np.column_stack([r[:, 0], s1, s1, r[:, 1]]).reshape(-1, 2)
        s2 = np.floor(
            kdtree.split_level(
                h,
                h_sorted,
                half,
                bounds[:, 0],
                bounds[:, 1],
                median,
                step_epsilon,
                rng,
                sample,
            )
        )
        node = 2 * half + (h >= s2[half])
        ranges.append(
            np.column_stack([bounds[:, 0], s2, s2, bounds[:, 1]]).reshape(-1, 2)
        )
        exact.append(np.bincount(node, minlength=4 ** (d + 1)).astype(float))
    epsilons = budgets.geometric_budget(count_epsilon, height)
    counts = quadtree.noisy_counts(exact, epsilons, rng)
    counts = postprocessing.ols(counts, epsilons) if postprocess else counts
    name = "hilbert-r" if median == "em" else f"hilbert-r-{median}"
    tree = decomposition.PSD(
        box=box,
        counts=counts,
        epsilons=epsilons,
        median_epsilon=median_epsilon,
        name=name,
    )
    tree = (
        tree if prune_threshold is None else postprocessing.prune(tree, prune_threshold)
    )
    scale = np.array([(box[2] - box[0]) / side, (box[3] - box[1]) / side] * 2)
    offset = np.array([box[0], box[1], box[0], box[1]])
    boxes, kept = [], np.ones(1, dtype=bool)
    # boxes only for nodes that survive pruning (the rest are never used)
    for d, r in enumerate(ranges):
        b = np.full((len(r), 4), np.nan)
        b[kept] = offset + hilbert_range_boxes(r[kept, 0], r[kept, 1], order) * scale
        boxes.append(b)
        kept = np.repeat(
            kept & ~(tree.leaf[d] if tree.leaf else np.zeros(len(r), bool)), 4
        )
    return decomposition.PSD(
        box=box,
        counts=tree.counts,
        epsilons=epsilons,
        boxes=tuple(boxes),
        median_epsilon=median_epsilon,
        leaf=tree.leaf,
        name=name,
    )
