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
``studies``       the experiments of §5: cross-validated studies and their summaries
================  ===================================================================
"""

from . import inputs, rn, overlap, interactive, uniform_grid, knn, studies
from .rn import (
    label_counts,
    rn_classify_nonprivate,
    rn_classify_laplace,
    rn_classify_exponential,
    exponential_label_probabilities,
    laplace_label_probabilities,
)
from .overlap import (
    OVERLAP_SLACK,
    region_overlap_graph,
    max_clique_size,
    overlap_components,
    overlap_depth,
    RNResult,
    rn_classify_batch,
    rn_classify_baseline,
)
from .interactive import (
    SIZE_SHARE,
    noisy_size,
    r_unif,
    interactive_candidates,
    convert_interactive,
    avre,
    rmse_k,
)
from .uniform_grid import (
    grid_size,
    PrivateGrid,
    private_uniform_grid,
    disc_rectangle_area,
    grid_mass,
    convert_noninteractive,
)
from .knn import (
    knn_radii,
    knn_classify_nonprivate,
    knn_classify_baseline,
    knn_classify_private,
)
from .studies import (
    cv_splits,
    tuned_radius,
    rn_study,
    conversion_study,
    knn_study,
    diffprivlib_models,
    other_classifiers_study,
    summarize,
    paired_difference,
)

__all__ = [
    "label_counts",
    "rn_classify_nonprivate",
    "rn_classify_laplace",
    "rn_classify_exponential",
    "laplace_label_probabilities",
    "exponential_label_probabilities",
    "region_overlap_graph",
    "overlap_components",
    "max_clique_size",
    "overlap_depth",
    "RNResult",
    "rn_classify_batch",
    "rn_classify_baseline",
    "noisy_size",
    "r_unif",
    "interactive_candidates",
    "convert_interactive",
    "grid_size",
    "PrivateGrid",
    "private_uniform_grid",
    "grid_mass",
    "convert_noninteractive",
    "knn_radii",
    "knn_classify_nonprivate",
    "knn_classify_baseline",
    "knn_classify_private",
    "avre",
    "rmse_k",
]
