"""Private spatial decompositions (Cormode, Procopiuc, Srivastava, Shen, Yu, ICDE 2012).

A private spatial decomposition (PSD) is a tree over a 2-D box whose node counts
are released with Laplace noise. This package builds

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

The package is split by idea; every public name is importable from ``dpnn.psd``:

====================  ================================================================
``budgets``           uniform and geometric per-level budgets (Lemma 3), worst-case
                      error
``decomposition``     the flat per-depth layout (children sums) and the ``PSD``
                      container
``quadtree``          Morton order, quadtree counts and boxes, noisy counts and the
                      private quadtree
``postprocessing``    the linear-time OLS of Lemma 4, consistency, pruning
``queries``           range queries (canonical method), exact counts, relative errors
``medians``           private medians: EM, smooth sensitivity, noisy mean, cell-based
``kdtree``            private kd-trees, hybrid trees, the cell-based kd-tree
``hilbert``           the Hilbert curve and the private Hilbert R-tree
====================  ================================================================
"""

from . import (
    budgets,
    decomposition,
    hilbert,
    kdtree,
    medians,
    postprocessing,
    quadtree,
    queries,
)
from .budgets import (
    check_level_epsilons,
    geometric_budget,
    per_level_budget,
    uniform_budget,
    worst_case_error,
    worst_case_error_closed_form,
)
from .decomposition import PSD, sum_children
from .hilbert import (
    hilbert_cell,
    hilbert_index,
    hilbert_range_boxes,
    private_hilbert_rtree,
)
from .kdtree import (
    amplified_epsilon,
    check_sample_rate,
    private_cell_kdtree,
    private_kdtree,
    split_level,
    tree_budget,
)
from .medians import (
    cell_median,
    check_interval,
    check_values_in,
    em_median,
    em_median_intervals,
    noisy_mean_median,
    segment_medians,
    segment_medians_unchecked,
    smooth_sensitivity_median,
    ss_median,
)
from .postprocessing import is_consistent, ols, prune
from .quadtree import (
    cell_index,
    check_box,
    check_points_in,
    morton_decode,
    morton_encode,
    noisy_counts,
    private_quadtree,
    quadtree_boxes,
    quadtree_counts,
)
from .queries import (
    canonical_nodes,
    median_relative_error,
    random_queries,
    range_query,
    rect_sum,
    relative_errors,
    true_counts,
)

__all__ = [
    "check_level_epsilons",
    "geometric_budget",
    "per_level_budget",
    "uniform_budget",
    "worst_case_error",
    "worst_case_error_closed_form",
    "hilbert_cell",
    "hilbert_index",
    "hilbert_range_boxes",
    "private_hilbert_rtree",
    "amplified_epsilon",
    "check_sample_rate",
    "private_cell_kdtree",
    "private_kdtree",
    "split_level",
    "tree_budget",
    "cell_median",
    "check_interval",
    "check_values_in",
    "em_median",
    "em_median_intervals",
    "noisy_mean_median",
    "segment_medians",
    "segment_medians_unchecked",
    "smooth_sensitivity_median",
    "ss_median",
    "is_consistent",
    "ols",
    "prune",
    "PSD",
    "sum_children",
    "cell_index",
    "check_box",
    "check_points_in",
    "morton_decode",
    "morton_encode",
    "noisy_counts",
    "private_quadtree",
    "quadtree_boxes",
    "quadtree_counts",
    "canonical_nodes",
    "median_relative_error",
    "random_queries",
    "range_query",
    "rect_sum",
    "relative_errors",
    "true_counts",
]
