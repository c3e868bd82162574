"""The experiments of Cormode et al. §VIII: data, the quadtree study, the private-median
study, the PSD comparison and its ablations."""

from __future__ import annotations

from .data_and_quadtrees import (
    EUROPE,
    QUADTREE_VARIANTS,
    geonames_places,
    quadtree_study,
    workload_rows,
    ratio_range,
)
from .private_medians import median_study
from .psd_methods import (
    PSD_NAMES,
    build_psd,
    count_share_study,
    psd_comparison,
    switch_study,
    synthetic_points,
)

__all__ = [
    "EUROPE",
    "geonames_places",
    "QUADTREE_VARIANTS",
    "quadtree_study",
    "workload_rows",
    "ratio_range",
    "median_study",
    "PSD_NAMES",
    "build_psd",
    "psd_comparison",
    "switch_study",
    "synthetic_points",
    "count_share_study",
]
