"""The PSD comparison of Cormode et al. (§VIII-B, Figs. 5-7), its ablations and the
synthetic 2-D data of §VIII-A.
"""

from __future__ import annotations

import numpy as np

from companion.progress import progress
from dpnn._validation import generator, positive_finite, positive_int
from dpnn.psd import (
    hilbert,
    kdtree,
    postprocessing,
    quadtree,
)

from .data_and_quadtrees import workload_rows

__all__ = [
    "PSD_NAMES",
    "build_psd",
    "psd_comparison",
    "switch_study",
    "synthetic_points",
    "count_share_study",
]


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
                    rows += workload_rows(tree, workloads, labels)
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
            rows += workload_rows(tree, workloads, {"switch": switch, "tree": t})
    return pd.DataFrame(rows)


def synthetic_points(n, box, rng, kind="uniform", n_clusters=20, spread=0.03):
    """``n`` synthetic points in ``box``: ``"uniform"``, or ``"clustered"`` (a Gaussian
    mixture).

    Clustered: ``n_clusters`` centres uniform in the box, each point from a random
    centre plus isotropic normal noise of standard deviation ``spread`` times the
    box side; points falling outside the box are redrawn (not clipped).
    """
    n = positive_int(n, "n")
    box, rng = quadtree.check_box(box), generator(rng)
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
            rows += workload_rows(tree, workloads, {"count_share": share, "tree": t})
    return pd.DataFrame(rows)
