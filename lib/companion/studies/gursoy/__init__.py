"""The evaluation of Gursoy et al. (§5): cross-validated studies of every classifier.

Each study splits the data into folds with one seeded draw, runs each fold from its
own seed over ``n_jobs`` processes (:func:`companion.cached_loops.run_cases`), and
returns a
table that does not depend on ``n_jobs``. These drivers sit above the algorithms:
nothing in the package imports them.
"""

from __future__ import annotations

from .against_diffprivlib import diffprivlib_models, other_classifiers_study
from .findings import (
    READINGS,
    grid_sizes,
    label_rates,
    privbayes_options,
    proposed_means,
    rn_findings,
    summary_cell,
)
from .folds import (
    cv_splits,
    over_folds,
    paired_difference,
    sample_test,
    summarize,
    tuned_radius,
)
from .private import conversion_study, knn_study, rn_study

__all__ = [
    "cv_splits",
    "sample_test",
    "over_folds",
    "tuned_radius",
    "summarize",
    "paired_difference",
    "rn_study",
    "conversion_study",
    "knn_study",
    "diffprivlib_models",
    "other_classifiers_study",
    "READINGS",
    "privbayes_options",
    "label_rates",
    "proposed_means",
    "grid_sizes",
    "summary_cell",
    "rn_findings",
]
