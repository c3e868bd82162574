"""Concentrated geo-privacy (Liang and Yi, CCS 2023): Gaussian mechanism, SVT, PNN,
k-PNN, PCH.

Source: Liang and Yi, Concentrated Geo-Privacy, CCS 2023 (our text is an OCR conversion;
where a formula is unreadable it is re-derived here from the definitions and proofs
around it, and the notebook ``11_concentrated_geo_privacy.ipynb`` says which).

Setting. One user holds an n-tuple of points x = (x_1, ..., x_n) in R^2 (a
trajectory, in metres). Two tuples are compared with
``dist_inf(x, x') = max_i ||x_i - x'_i||``. A mechanism is

* epsilon-GP (geo-privacy, Def. 2) if ``Pr[M(x) in S] <= e^{epsilon dist(x, x')}
  Pr[M(x') in S]``;
* rho-CGP (Def. 3) if the Renyi divergence ``D_alpha(M(x) || M(x')) <= alpha rho dist(x,
  x')^2`` for every alpha > 1.

epsilon is per metre, rho per square metre. The query point of a kNN query and
the probe points of the convex hull are public; only the user's points are
protected.

Mechanisms sample with floating point and are for research and teaching, not
for protecting real users without a vetted library.

The package is split by idea; every public name is importable from ``dpnn.cgp``.
The cabspotting loader is :func:`dpnn.cabspotting.load_cabspotting`.

===============  ==================================================================
``basic``        the Gaussian mechanism, GP and CGP releases of a tuple, Lemma 3.4
``svt``          the sparse vector technique, PNN and k-PNN (§4)
``hull``         the private convex hull PCH, its budget split and anchor count
``taxi_walks``   synthetic taxi walks, sampled tuples and query points
===============  ==================================================================
"""

from . import basic, hull, svt, taxi_walks
from .basic import (
    cgp_basic,
    cgp_basic_bound,
    check_query,
    check_tuple,
    gaussian_mechanism,
    gaussian_sigma,
    gp_basic,
    gp_basic_bound,
    identity_errors,
    laplace_radius_bound,
    lemma_3_4_log_ratio,
    noise_norms,
    privacy_budget,
    renyi_gaussian,
)
from .hull import (
    PCH_SCRIPTS_SPLIT,
    PCH_TEXT_SPLIT,
    HullRelease,
    centre,
    choose_anchor_count,
    convex_hull,
    hull_jaccard,
    pch,
    pch_error_bound,
    pch_pnn_epsilon,
    pch_split,
    polygon_jaccard,
)
from .svt import (
    SVT_CHUNK,
    basic_knn,
    k_pnn,
    knn_error,
    knn_errors,
    pnn,
    pnn_bound,
    pnn_on_distances,
    query_distances,
    svt_gp,
)
from .taxi_walks import query_points, sample_tuple, taxi_trajectories

__all__ = [
    "privacy_budget",
    "check_tuple",
    "check_query",
    "laplace_radius_bound",
    "gaussian_sigma",
    "gaussian_mechanism",
    "renyi_gaussian",
    "lemma_3_4_log_ratio",
    "noise_norms",
    "gp_basic",
    "cgp_basic",
    "identity_errors",
    "gp_basic_bound",
    "cgp_basic_bound",
    "SVT_CHUNK",
    "svt_gp",
    "pnn",
    "pnn_on_distances",
    "pnn_bound",
    "query_distances",
    "k_pnn",
    "basic_knn",
    "knn_error",
    "knn_errors",
    "centre",
    "PCH_TEXT_SPLIT",
    "PCH_SCRIPTS_SPLIT",
    "pch_split",
    "pch_pnn_epsilon",
    "pch_error_bound",
    "choose_anchor_count",
    "HullRelease",
    "pch",
    "hull_jaccard",
    "convex_hull",
    "polygon_jaccard",
    "taxi_trajectories",
    "sample_tuple",
    "query_points",
]
