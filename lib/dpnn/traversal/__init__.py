"""DP tree traversal, DP-TT (thesis §5, Alg. 11-18), vectorized over a batch of queries.

- :mod:`~dpnn.traversal.walk`: :func:`dptt`, every variant for a batch of queries;
- :mod:`~dpnn.traversal.variants`: the variants by name, their calls per level and the
  privacy ledger every run reports (:func:`dptt_ledger`);
- :mod:`~dpnn.traversal.tree_arrays`: what the server derives from its tree once;
- :mod:`~dpnn.traversal.release`: what each query receives;
- :mod:`~dpnn.traversal.reference`: one query at a time from the algorithms' text;
- :mod:`~dpnn.traversal.schedules`: per-level budgets at one composed budget.

Every public name is importable from ``dpnn.traversal``.
"""

from dpnn.traversal.reference import dptt_reference
from dpnn.traversal.schedules import MIN_TOTAL, SCHEDULES, epsilon_schedule
from dpnn.traversal.variants import (
    UTILITIES,
    VARIANTS,
    check_arguments,
    check_scale,
    check_schedule,
    dptt_ledger,
    em_calls_formula,
    parse_variant,
)
from dpnn.traversal.walk import DPTTResult, dptt

__all__ = [
    "dptt_reference",
    "MIN_TOTAL",
    "SCHEDULES",
    "epsilon_schedule",
    "UTILITIES",
    "VARIANTS",
    "check_arguments",
    "check_scale",
    "check_schedule",
    "dptt_ledger",
    "em_calls_formula",
    "parse_variant",
    "DPTTResult",
    "dptt",
]
