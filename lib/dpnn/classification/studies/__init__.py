"""The evaluation of Gursoy et al. (§5): cross-validated studies of every classifier.

Each study splits the data into folds with one seeded draw, runs each fold from its
own seed over ``n_jobs`` processes (:func:`dpnn.cases.run_cases`), and returns a
table that does not depend on ``n_jobs``. These drivers sit above the algorithms:
nothing in the package imports them.
"""

from __future__ import annotations

from .folds import cv_splits, tuned_radius, summarize, paired_difference
from .private import rn_study, conversion_study, knn_study
from .comparison import diffprivlib_models, other_classifiers_study

__all__ = [
    "cv_splits",
    "tuned_radius",
    "summarize",
    "paired_difference",
    "rn_study",
    "conversion_study",
    "knn_study",
    "diffprivlib_models",
    "other_classifiers_study",
]
