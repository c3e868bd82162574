"""Per-level EMQUERY budget schedules of DP-TT, scaled to one composed budget.

The follow-up (d1shs0ap/dpnn, src/schedulers.py lines 3-7 and 19-21) gives each tree
level its own EMQUERY budget: constant, linearly decreasing ("linear") and linearly
increasing ("reverse_linear", tuned by hand for a tree of height 14). Here the three
families share one shape parameter and are scaled so that the traversal's own accountant
composes them to exactly the same budget.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import positive_finite, positive_int
from dpnn.accounting import Accountant
from dpnn.traversal.variants import UTILITIES, VARIANTS, dptt_ledger, em_calls_formula

__all__ = [
    "MIN_TOTAL",
    "SCHEDULES",
    "epsilon_schedule",
]

SCHEDULES = ("constant", "decreasing", "increasing")
#: Smallest total a schedule composes to under a method other than "basic".
MIN_TOTAL = 1e-6


def epsilon_schedule(
    family: str,
    tree_height: int,
    total,
    *,
    ratio=3.0,
    utility: str = "cmp",
    variant: str = "basic",
    splits: int = 0,
    method: str = "basic",
    delta=None,
) -> np.ndarray:
    """Per-level EMQUERY budgets of one ``family`` whose composition is exactly
    ``total``.

    Shapes over the levels 0 (root) .. ``tree_height - 1``: ``"constant"`` (all
    equal), ``"decreasing"`` (linear from ``ratio`` at the root down to 1 at the
    last level) and ``"increasing"`` (the reverse). The shape is then scaled so
    that the ledger :func:`dptt` would charge for it (the worst-case calls of
    ``variant`` per level, :func:`em_calls_formula`; CMP steps as randomized
    response at epsilon/2, DIS steps as the exponential mechanism) composes to
    ``total`` under ``method`` of :meth:`dpnn.accounting.Accountant.epsilon`
    (at ``delta`` unless ``method="basic"``): in closed form for ``"basic"``,
    by bisection on the scale otherwise, every method's composition being a
    continuous function of the scale (``"pld"`` too: its grid scales with the
    steps, :func:`dpnn.accounting.two_point.two_point_grid`); the composed
    budget is within a relative 1e-9 of ``total``. Below
    ``total = 1e-6`` (:data:`MIN_TOTAL`) these methods refuse: the conversion to
    (epsilon, delta)-DP is 0 at a positive scale and the composition cannot be
    inverted to the float precision there.

    Pass the result as ``epsilon`` to :func:`dptt` on a tree of that height.
    """
    from scipy.optimize import brentq

    if family not in SCHEDULES:
        raise ValueError(f"family must be one of {SCHEDULES}, got {family!r}")
    tree_height = positive_int(tree_height, "tree_height")
    total = positive_finite(total, "total")
    ratio = positive_finite(ratio, "ratio")
    if ratio < 1:
        raise ValueError(
            f"ratio must be >= 1 (root budget over last-level budget), got {ratio}"
        )
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    # 2.5 is refused here, not by dptt
    splits = positive_int(splits, "splits", minimum=0)
    if method not in Accountant.METHODS:
        raise ValueError(f"method must be one of {Accountant.METHODS}, got {method!r}")
    if method != "basic" and delta is None:
        raise ValueError(
            f"delta must be given (a number in (0, 1)) for method {method!r}"
        )
    per_level = em_calls_formula(variant, tree_height, splits)
    if not per_level.any():
        raise ValueError(
            f"variant {variant!r} with splits={splits} "
            "makes no exponential-mechanism call "
            f"on a tree of height {tree_height}; there is nothing to schedule"
        )
    shape = {
        "constant": np.ones(tree_height),
        "decreasing": np.linspace(ratio, 1.0, tree_height),
        "increasing": np.linspace(1.0, ratio, tree_height),
    }[family]
    shape = shape / shape.max()

    def composed(scale):
        return dptt_ledger(scale * shape, utility, variant, splits).epsilon(
            delta, method
        )

    if method == "basic":  # homogeneous of degree one in the scale
        return shape * (total / composed(1.0))
    if total < MIN_TOTAL:
        raise ValueError(
            f"total must be at least {MIN_TOTAL} for method {method!r} (below, the "
            "(epsilon, delta) conversion reaches 0 at a positive scale and cannot "
            f"be inverted to the float precision), got {total!r}; use method 'basic'"
        )
    high = total / composed(1.0) if composed(1.0) > 0 else 1.0
    # composed(s) >= basic-free bounds are increasing in s: bracket by doubling
    low = high
    while composed(low) > total:
        low /= 2
    while composed(high) < total:
        high *= 2
    # Every method is a continuous function of the scale (the PLD's grid scales with
    # the steps), so the scale is solved to its float resolution.
    scale = brentq(
        lambda s: composed(s) / total - 1.0,
        low,
        high,
        xtol=1e-300,
        rtol=4 * np.finfo(float).eps,
    )
    return shape * scale
