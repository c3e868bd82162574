"""Private kd-trees and hybrid trees (Cormode et al. §VI-B, flattened to fanout 4) and
the cell-based kd-tree (Xiao et al. 2010)."""

from __future__ import annotations

import math

import numpy as np

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite, positive_int

from . import budgets, decomposition, medians, postprocessing, quadtree, queries

__all__ = [
    "amplified_epsilon",
    "split_level",
    "check_sample_rate",
    "tree_budget",
    "TREE_MEDIANS",
    "PRIVATE_MEDIANS",
    "private_kdtree",
    "private_cell_kdtree",
]


# --- kd-trees, hybrid trees (§VI-B, flattened to fanout 4) ----------------------------


def amplified_epsilon(epsilon, p) -> float:
    """Budget to spend on a Poisson sample of rate ``p`` so that the whole is
    ``epsilon``-DP.

    Uses the tight amplification bound ``epsilon = ln(1 + p (e^eps' - 1))`` (Li,
    Qardaji, Su 2012; Balle, Barthe, Gaboardi 2018) solved for ``eps'``. The
    paper's Theorem 7 (``2 p e^eps'``) is looser and has no solution when
    ``epsilon <= 2 p``, e.g. at its own ``epsilon = 0.01``, ``p = 0.01``.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    p = float(finite_array(p, "p", ndim=(0,)))
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p}")
    return math.log1p(math.expm1(epsilon) / p)


def split_level(coordinate, sorted_index, node, lo, hi, method, epsilon, rng, sample):
    """The split of every node of one level at once: the median of ``coordinate`` over
    each node's points (private for ``"em"`` and ``"noisymean"``), one per node.

    ``node`` is each point's node and ``lo``, ``hi`` the nodes' public ranges, as for
    :func:`~dpnn.psd.medians.segment_medians`; ``method`` is one of
    :data:`TREE_MEDIANS`.

    ``sorted_index`` is ``argsort(coordinate)``; a stable sort by node on top of it
    orders the points by (node, coordinate) faster than a lexsort. ``epsilon`` is the
    budget of this split step (``None`` for ``"true"`` and ``"mid"``, which run no
    mechanism). With a Poisson ``sample`` rate the mechanism runs on the sample with
    :func:`amplified_epsilon`, so the step is ``epsilon``-DP (Thm 7, tight bound).
    """
    if method == "mid":
        return (lo + hi) / 2
    index = sorted_index
    eps = epsilon
    if sample is not None and method != "true":
        index = index[rng.random(len(index)) < sample]
        eps = amplified_epsilon(epsilon, sample)
    order = index[np.argsort(node[index], kind="stable")]
    return medians.segment_medians_unchecked(
        coordinate[order], node[order], lo, hi, method, eps, rng
    )


#: Split rules of the kd-tree and the Hilbert R-tree: private medians, exact medians
#: (not private), midpoints.
TREE_MEDIANS = ("em", "noisymean", "true", "mid")
PRIVATE_MEDIANS = ("em", "noisymean")


def _count_share(count_share, allow_one):
    """``count_share`` as a float in (0, 1), or also 1 when ``allow_one`` (nothing is
    spent on medians)."""
    share = float(finite_array(count_share, "count_share", ndim=(0,)))
    if not (0 < share < 1 or (allow_one and share == 1)):
        allowed = (
            "(0, 1] (1 only with exact or midpoint medians)" if allow_one else "(0, 1)"
        )
        raise ValueError(f"count_share must be in {allowed}, got {count_share!r}")
    return share


def check_sample_rate(sample):
    """``None`` (no sampling), or the Poisson sampling rate ``sample`` as a float in (0,
    1]; ValueError otherwise."""
    if sample is None:
        return None
    rate = float(finite_array(sample, "sample", ndim=(0,)))
    if not 0 < rate <= 1:
        raise ValueError(f"sample must be None or a rate in (0, 1], got {sample!r}")
    return rate


def tree_budget(epsilon, count_share, median, median_levels):
    """Median/count split of ``epsilon`` (§VI-B) for a tree with two median steps per
    data-dependent level.

    Returns ``(count_epsilon, median_epsilon, step_epsilon)``. With private medians
    (``"em"``, ``"noisymean"``) and ``median_levels > 0``, the medians get
    ``(1 - count_share) epsilon``, split evenly over the ``2 median_levels`` median
    steps on a root-to-leaf path, and the counts the rest; ``count_share`` must lie
    in (0, 1). With exact (``"true"``, not private) or midpoint medians, or no
    data-dependent level, no median mechanism runs: all of ``epsilon`` goes to the
    counts, ``step_epsilon`` is ``None`` and ``count_share`` may also be 1.
    Privacy: the count and median budgets on any path sum to ``epsilon`` (Lemma 1).
    """
    if median not in TREE_MEDIANS:
        raise ValueError(f"median must be one of {TREE_MEDIANS}, got {median!r}")
    private = median in PRIVATE_MEDIANS and median_levels > 0
    share = _count_share(count_share, allow_one=not private)
    if not private:
        return epsilon, 0.0, None
    median_epsilon = (1 - share) * epsilon
    return (
        epsilon - median_epsilon,
        median_epsilon,
        median_epsilon / (2 * median_levels),
    )


def private_kdtree(
    points,
    box,
    height,
    epsilon,
    rng,
    median="em",
    switch=None,
    count_share=0.7,
    sample=None,
    exact_counts=False,
    postprocess=True,
    prune_threshold=None,
    name=None,
):
    """A private kd-tree flattened to fanout 4 (§VI-B), or a hybrid tree when
    ``switch < height``.

    Each node splits its points at a private median of x, then each half at a
    private median of y, giving four children; after ``switch`` levels (hybrid,
    §III-B) the splits are midpoints as in a quadtree. ``median`` is ``"em"``,
    ``"noisymean"``, ``"true"`` (exact medians, not private: kd-true / kd-pure) or
    ``"mid"`` (midpoints everywhere). Budget (§VI-B, :func:`tree_budget`):
    ``count_share * epsilon`` for counts, geometric over the ``h + 1`` levels
    (Lemma 3); the rest for medians, uniform over the ``switch`` data-dependent
    levels and halved between the x and the y median, which lie on the same path
    (all of epsilon to the counts when no private median is computed). Optional
    Poisson ``sample`` rate for medians (Thm 7, with the tight amplification
    bound), OLS post-processing (Lemma 4) and pruning at
    ``prune_threshold`` (§VII). Privacy: ``epsilon``-DP along every root-to-leaf
    path (Lemma 1 and the interactive argument of §VI); with ``median="true"`` or
    ``exact_counts`` it is not private.
    """
    box, height = quadtree.check_box(box), positive_int(height, "height")
    epsilon = positive_finite(epsilon, "epsilon")
    points = quadtree.check_points_in(points, box)
    rng = generator(rng)
    switch = height if switch is None else positive_int(switch, "switch", minimum=0)
    if switch > height:
        raise ValueError(
            f"switch must be an integer in [0, height = {height}], got {switch}"
        )
    count_epsilon, median_epsilon, step_epsilon = tree_budget(
        epsilon, count_share, median, switch
    )
    sample = check_sample_rate(sample)
    x, y = points[:, 0], points[:, 1]
    x_sorted, y_sorted = np.argsort(x), np.argsort(y)
    node = np.zeros(len(points), dtype=np.int64)
    boxes = [box[None, :]]
    exact = [np.array([float(len(points))])]
    for d in range(height):
        method = median if d < switch else "mid"
        b = boxes[-1]
        sx = split_level(
            x, x_sorted, node, b[:, 0], b[:, 2], method, step_epsilon, rng, sample
        )
        right = x >= sx[node]
        half = 2 * node + right
        lo_y, hi_y = np.repeat(b[:, 1], 2), np.repeat(b[:, 3], 2)
        sy = split_level(
            y, y_sorted, half, lo_y, hi_y, method, step_epsilon, rng, sample
        )
        node = 2 * half + (y >= sy[half])
        boxes.append(_child_boxes(b, sx, sy))
        exact.append(np.bincount(node, minlength=4 ** (d + 1)).astype(float))
    epsilons = budgets.geometric_budget(count_epsilon, height)
    counts = (
        tuple(exact) if exact_counts else quadtree.noisy_counts(exact, epsilons, rng)
    )
    if postprocess and not exact_counts:
        counts = postprocessing.ols(counts, epsilons)
    tree = decomposition.PSD(
        box=box,
        counts=counts,
        epsilons=epsilons,
        boxes=tuple(boxes),
        median_epsilon=median_epsilon,
        name=name or f"kd-{median}",
    )
    return (
        tree if prune_threshold is None else postprocessing.prune(tree, prune_threshold)
    )


def _child_boxes(b, sx, sy):
    """Boxes of the four children (x-left/right, then y-bottom/top) of every node, in
    child order."""
    x0, y0, x1, y1 = b.T
    # (x_lo, x_hi) of left, right half
    xl = np.stack([x0, sx, sx, x1], axis=1)
    children = np.empty((len(b), 4, 4))
    for side in (0, 1):
        x_lo, x_hi = xl[:, 2 * side], xl[:, 2 * side + 1]
        s = sy[2 * np.arange(len(b)) + side]
        children[:, 2 * side] = np.stack([x_lo, y0, x_hi, s], axis=1)
        children[:, 2 * side + 1] = np.stack([x_lo, s, x_hi, y1], axis=1)
    return children.reshape(-1, 4)


# --- cell-based kd-tree (Xiao et al. 2010, "kd-cell" of §VIII-B) ----------------------


def _first_reaching(prefix_sum_at, low, high, target):
    """Vectorized binary search: smallest c in (low, high] with
    ``prefix_sum_at(c) >= target`` (else high)."""
    a, b = low.copy(), high.copy()
    while np.any(b - a > 1):
        mid = (a + b) // 2
        reach = prefix_sum_at(mid) >= target
        a, b = np.where(reach, a, mid), np.where(reach, mid, b)
    return b


def private_cell_kdtree(
    points,
    box,
    height,
    epsilon,
    rng,
    cells=(512, 512),
    count_share=0.7,
    postprocess=True,
    prune_threshold=None,
):
    """The cell-based kd-tree (kd-cell): medians from one noisy grid, flattened to
    fanout 4.

    A ``cells[0] x cells[1]`` grid over ``box`` gets Laplace counts once with
    ``(1 - count_share) epsilon`` (sensitivity 1; negatives set to 0); every node
    splits at the grid line where the noisy mass of its cells reaches half, first
    in x, then each half in y (post-processing of the grid, no further cost).
    Node counts: geometric budget over ``count_share * epsilon``, OLS, pruning;
    ``count_share`` must lie in (0, 1). Privacy: ``epsilon``-DP (Lemma 1).
    """
    box, height = quadtree.check_box(box), positive_int(height, "height")
    epsilon = positive_finite(epsilon, "epsilon")
    count_share = _count_share(count_share, allow_one=False)
    points = quadtree.check_points_in(points, box)
    rng = generator(rng)
    nx, ny = positive_int(cells[0], "cells[0]"), positive_int(cells[1], "cells[1]")
    cx = quadtree.cell_index(points[:, 0], box[0], box[2], nx)
    cy = quadtree.cell_index(points[:, 1], box[1], box[3], ny)
    grid = np.bincount(cy * nx + cx, minlength=nx * ny).reshape(ny, nx).astype(float)
    noisy = np.maximum(
        mechanisms.laplace(grid, 1.0, (1 - count_share) * epsilon, rng), 0
    )
    prefix = np.zeros((ny + 1, nx + 1))
    prefix[1:, 1:] = noisy.cumsum(axis=0).cumsum(axis=1)
    node = np.zeros(len(points), dtype=np.int64)
    cell_boxes = [np.array([[0, 0, nx, ny]])]
    exact = [np.array([float(len(points))])]
    for d in range(height):
        c0, r0, c1, r1 = cell_boxes[-1].T
        half_x = queries.rect_sum(prefix, c0, c1, r0, r1) / 2
        sx = _first_reaching(
            lambda c: queries.rect_sum(prefix, c0, c, r0, r1), c0, c1, half_x
        )
        # keep a split inside when possible
        sx = np.where(c1 - c0 > 1, np.minimum(sx, c1 - 1), c0)
        right = cx >= sx[node]
        half = 2 * node + right
        hc0, hc1 = np.column_stack([c0, sx]).ravel(), np.column_stack([sx, c1]).ravel()
        hr0, hr1 = np.repeat(r0, 2), np.repeat(r1, 2)
        target = queries.rect_sum(prefix, hc0, hc1, hr0, hr1) / 2
        sy = _first_reaching(
            lambda r: queries.rect_sum(prefix, hc0, hc1, hr0, r), hr0, hr1, target
        )
        sy = np.where(hr1 - hr0 > 1, np.minimum(sy, hr1 - 1), hr0)
        node = 2 * half + (cy >= sy[half])
        children = np.stack(
            [
                np.column_stack([hc0, hr0, hc1, sy]),
                np.column_stack([hc0, sy, hc1, hr1]),
            ],
            axis=1,
        )
        cell_boxes.append(children.reshape(-1, 4))
        exact.append(np.bincount(node, minlength=4 ** (d + 1)).astype(float))
    scale = np.array([(box[2] - box[0]) / nx, (box[3] - box[1]) / ny] * 2)
    boxes = tuple(
        np.array([box[0], box[1], box[0], box[1]]) + b * scale for b in cell_boxes
    )
    epsilons = budgets.geometric_budget(count_share * epsilon, height)
    counts = quadtree.noisy_counts(exact, epsilons, rng)
    counts = postprocessing.ols(counts, epsilons) if postprocess else counts
    tree = decomposition.PSD(
        box=box,
        counts=counts,
        epsilons=epsilons,
        boxes=boxes,
        median_epsilon=(1 - count_share) * epsilon,
        name="kd-cell",
    )
    return (
        tree if prune_threshold is None else postprocessing.prune(tree, prune_threshold)
    )
