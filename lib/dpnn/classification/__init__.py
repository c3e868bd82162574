"""Differentially private r-N and k-NN classification (Gursoy, Inan, Nergiz, Saygin,
DMKD 2017).

Source: Gursoy, Inan, Nergiz and Saygin (DMKD 2017). The setting: a data owner holds a
private labelled training set ``D`` (points in the unit cube ``[0, 1]^d``, one label
each); an untrusted analyst sends a list of public test instances and receives one label
per instance. Neighbouring datasets differ by adding or removing one training instance
(the paper's Def. 1), so every counting query has sensitivity 1.

Labels are integers ``0 .. n_labels - 1``; ``n_labels`` is public (the paper's
label set ``L`` is an input, not read from ``D``).

* :func:`rn_classify_laplace` (Alg. 1) and :func:`rn_classify_exponential`
  (Alg. 2): one test instance ``(x, r)`` at budget ``epsilon'``.
* :func:`region_overlap_graph` (Def. 10), :func:`overlap_components` and
  :func:`rn_classify_batch` (Alg. 3, the proposed classifier): one budget per
  connected component, divided by its maximum clique size (Lemmas 1-3, Thm 2).
* :func:`rn_classify_baseline`: the baseline that gives every test instance
  ``epsilon / |X|``.
* k-NN to r-N conversion: :func:`convert_interactive` (Alg. 6) and
  :func:`convert_noninteractive` (Alg. 7) over a :func:`private_uniform_grid`.
* :func:`knn_classify_private` (Alg. 5) and :func:`knn_classify_baseline` (Alg. 4).

Mechanisms sample with floating point and are for research and teaching.

The package is split by idea; every public name is importable from
``dpnn.classification``:

================  ===================================================================
``inputs``        input checks and the one-call memo of exact counts
``rn``            label counts and the r-N classifiers of one instance (Alg. 1-2)
``overlap``       the region overlap graph, its cliques, the batch classifier (Alg. 3)
``interactive``   the interactive k-NN to r-N conversion (Alg. 6), the metrics of §5.2
``uniform_grid``  the private uniform grid and the non-interactive conversion (Alg. 7)
``knn``           the k-NN classifiers (Alg. 4-5)
================  ===================================================================
"""

from . import inputs, interactive, knn, overlap, rn, uniform_grid
from .inputs import (
    check_batch,
    check_k_at_most,
    check_k_values,
    check_private_points,
    check_queries,
    check_radii,
    check_training,
    remember_last,
)
from .interactive import (
    SIZE_SHARE,
    avre,
    convert_interactive,
    interactive_candidates,
    noisy_size,
    r_unif,
    rmse_k,
)
from .knn import (
    knn_classify_baseline,
    knn_classify_nonprivate,
    knn_classify_private,
    knn_radii,
)
from .overlap import (
    OVERLAP_SLACK,
    RNResult,
    max_clique_size,
    overlap_components,
    overlap_depth,
    region_overlap_graph,
    rn_classify_baseline,
    rn_classify_batch,
)
from .rn import (
    argmax_random_ties,
    exponential_label_probabilities,
    label_counts,
    label_counts_unchecked,
    laplace_label_probabilities,
    noisy_argmax,
    rn_classify_exponential,
    rn_classify_laplace,
    rn_classify_nonprivate,
)
from .uniform_grid import (
    PrivateGrid,
    convert_noninteractive,
    disc_rectangle_area,
    grid_mass,
    grid_size,
    private_uniform_grid,
)

__all__ = [
    "check_private_points",
    "check_training",
    "check_queries",
    "check_radii",
    "check_batch",
    "check_k_values",
    "check_k_at_most",
    "remember_last",
    "label_counts",
    "label_counts_unchecked",
    "argmax_random_ties",
    "noisy_argmax",
    "rn_classify_nonprivate",
    "rn_classify_laplace",
    "rn_classify_exponential",
    "exponential_label_probabilities",
    "laplace_label_probabilities",
    "OVERLAP_SLACK",
    "region_overlap_graph",
    "max_clique_size",
    "overlap_components",
    "overlap_depth",
    "RNResult",
    "rn_classify_batch",
    "rn_classify_baseline",
    "SIZE_SHARE",
    "noisy_size",
    "r_unif",
    "interactive_candidates",
    "convert_interactive",
    "avre",
    "rmse_k",
    "grid_size",
    "PrivateGrid",
    "private_uniform_grid",
    "disc_rectangle_area",
    "grid_mass",
    "convert_noninteractive",
    "knn_radii",
    "knn_classify_nonprivate",
    "knn_classify_baseline",
    "knn_classify_private",
]
