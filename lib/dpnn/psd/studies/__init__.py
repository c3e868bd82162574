"""The experiments of Cormode et al. §VIII: data, the quadtree study, the private-median
study, the PSD comparison and its ablations."""

from __future__ import annotations

from .data_and_quadtrees import (
    EUROPE,
    geonames_places,
    QUADTREE_VARIANTS,
    quadtree_study,
)
from .private_medians import median_study
from .comparison import (
    PSD_NAMES,
    build_psd,
    psd_comparison,
    switch_study,
    synthetic_points,
    count_share_study,
)

__all__ = [
    "EUROPE",
    "geonames_places",
    "QUADTREE_VARIANTS",
    "quadtree_study",
    "median_study",
    "PSD_NAMES",
    "build_psd",
    "psd_comparison",
    "switch_study",
    "synthetic_points",
    "count_share_study",
]
