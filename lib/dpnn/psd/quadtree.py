"""Morton order, the full quadtree's counts and boxes, and the private quadtree (Cormode
et al. §III-B, §III-C)."""

from __future__ import annotations

import numpy as np

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite, positive_int

from . import budgets, postprocessing
from .decomposition import PSD, sum_children

__all__ = [
    "morton_encode",
    "morton_decode",
    "check_box",
    "check_points_in",
    "cell_index",
    "quadtree_counts",
    "quadtree_boxes",
    "noisy_counts",
    "private_quadtree",
]


# --- Morton order and the quadtree (§III-B, §III-C) -----------------------------------


def _spread_bits(v):
    v = v.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    for shift, mask in (
        (16, 0x0000FFFF0000FFFF),
        (8, 0x00FF00FF00FF00FF),
        (4, 0x0F0F0F0F0F0F0F0F),
        (2, 0x3333333333333333),
        (1, 0x5555555555555555),
    ):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def _compact_bits(v):
    v = v.astype(np.uint64) & np.uint64(0x5555555555555555)
    for shift, mask in (
        (1, 0x3333333333333333),
        (2, 0x0F0F0F0F0F0F0F0F),
        (4, 0x00FF00FF00FF00FF),
        (8, 0x0000FFFF0000FFFF),
        (16, 0x00000000FFFFFFFF),
    ):
        v = (v | (v >> np.uint64(shift))) & np.uint64(mask)
    return v


def morton_encode(ix, iy) -> np.ndarray:
    """Morton (Z-order) code of integer cells: bits of ``ix`` at even, of ``iy`` at odd
    positions."""
    ix, iy = np.asarray(ix), np.asarray(iy)
    if np.any(ix < 0) or np.any(iy < 0):
        raise ValueError("ix and iy must be non-negative integers")
    return (_spread_bits(ix) | (_spread_bits(iy) << np.uint64(1))).astype(np.int64)


def morton_decode(code):
    """Inverse of :func:`morton_encode`: the cell ``(ix, iy)`` of each code."""
    code = np.asarray(code)
    if np.any(code < 0):
        raise ValueError("code must be non-negative integers")
    code = code.astype(np.uint64)
    return _compact_bits(code).astype(np.int64), _compact_bits(
        code >> np.uint64(1)
    ).astype(np.int64)


def check_box(box):
    """The box ``(x_min, y_min, x_max, y_max)`` as a float array, checked: four finite
    numbers with ``x_min < x_max`` and ``y_min < y_max``; ValueError otherwise."""
    box = finite_array(box, "box", ndim=(1,))
    if box.shape != (4,) or not (box[0] < box[2] and box[1] < box[3]):
        raise ValueError(
            "box must be (x_min, y_min, x_max, y_max) "
            "with x_min < x_max and y_min < y_max, "
            f"got {box.tolist()}"
        )
    return box


def check_points_in(points, box):
    """The private points as an (n, 2) float array, checked to lie inside the checked
    ``box`` (ValueError otherwise); n = 0 is allowed (|D| is private, the box is
    public)."""
    points = finite_array(points, "points", ndim=(2,), allow_empty=True)
    if points.shape[1] != 2:
        raise ValueError(f"points must have 2 columns, got shape {points.shape}")
    outside = (
        (points[:, 0] < box[0])
        | (points[:, 0] > box[2])
        | (points[:, 1] < box[1])
        | (points[:, 1] > box[3])
    )
    if np.any(outside):
        raise ValueError(
            f"points must lie inside box {box.tolist()}; {int(outside.sum())} do not"
        )
    return points


def cell_index(values, low, high, cells):
    """The cell ``0 .. cells - 1`` of each value when [low, high] is cut into ``cells``
    equal cells, as an int64 array; ``high`` goes to the last cell."""
    index = np.floor((values - low) / (high - low) * cells).astype(np.int64)
    return np.minimum(index, cells - 1)


def quadtree_counts(points, box, height):
    """Exact node counts of the full quadtree of height ``h`` over ``box``, one array
    per depth.

    Leaves are the ``2^h x 2^h`` grid cells, stored in Morton order; each point's
    cell comes from integer division of its coordinates and the leaf counts from one
    ``bincount``; upper levels are sums of groups of four. No privacy by itself.
    """
    box = check_box(box)
    height = positive_int(height, "height", minimum=0)
    if height > budgets.MAX_QUADTREE_HEIGHT:
        raise ValueError(
            "height must be an integer in [0, "
            f"{budgets.MAX_QUADTREE_HEIGHT}], got {height}"
        )
    points = check_points_in(points, box)
    side = 2**height
    ix = cell_index(points[:, 0], box[0], box[2], side)
    iy = cell_index(points[:, 1], box[1], box[3], side)
    leaves = np.bincount(morton_encode(ix, iy), minlength=4**height).astype(float)
    counts = [leaves]
    for _ in range(height):
        counts.append(sum_children(counts[-1], 4))
    return tuple(counts[::-1])


def quadtree_boxes(box, height):
    """Node rectangles ``(x_min, y_min, x_max, y_max)`` of the quadtree, one (4^d, 4)
    array per depth."""
    box = check_box(box)
    height = positive_int(height, "height", minimum=0)
    boxes = []
    for depth in range(height + 1):
        ix, iy = morton_decode(np.arange(4**depth))
        wx, wy = (box[2] - box[0]) / 2**depth, (box[3] - box[1]) / 2**depth
        boxes.append(
            np.column_stack(
                [
                    box[0] + ix * wx,
                    box[1] + iy * wy,
                    box[0] + (ix + 1) * wx,
                    box[1] + (iy + 1) * wy,
                ]
            )
        )
    return tuple(boxes)


def noisy_counts(counts, epsilons, rng):
    """Laplace counts: node counts at level ``i`` get ``Lap(1 / epsilon_i)`` (Def. 2,
    sensitivity 1).

    ``counts`` is one array per depth (root first); ``epsilons[i]`` per level
    (leaves first). Privacy: ``sum_i epsilon_i``-DP under add/remove-one-point,
    because each point changes exactly one count per level by 1 (Lemma 1), and
    so exactly as sampled (:func:`dpnn.mechanisms.laplace`: counts lie on its
    grid, and its noise law is exact).
    """
    height = len(counts) - 1
    epsilons = budgets.check_level_epsilons(epsilons, height)
    rng = generator(rng)
    return tuple(
        mechanisms.laplace(c, 1.0, epsilons[height - d], rng)
        for d, c in enumerate(counts)
    )


def private_quadtree(
    points, box, height, epsilon, rng, budget="geometric", postprocess=True
):
    """The private quadtree of §III-C: full quadtree, Laplace counts, optional OLS
    (Lemma 4).

    ``budget`` is ``"uniform"``, ``"geometric"`` (Lemma 3) or an array of per-level
    budgets summing to ``epsilon``. Privacy: ``epsilon``-DP (Lemma 1); the OLS is
    post-processing of the released counts and costs nothing.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = positive_int(height, "height", minimum=0)
    epsilons = budgets.per_level_budget(budget, epsilon, height)
    counts = noisy_counts(quadtree_counts(points, box, height), epsilons, rng)
    if postprocess:
        counts = postprocessing.ols(counts, epsilons)
    return PSD(
        box=check_box(box),
        counts=counts,
        epsilons=epsilons,
        name=f"quad-{'opt' if postprocess else 'noisy'}",
    )
