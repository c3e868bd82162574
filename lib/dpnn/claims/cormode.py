"""Claims of Cormode et al. on private kd-trees (§VIII, Fig. 5; notebook 10).

``tables``: ``kd_table``, one row per tree, budget ``epsilon``, query ``shape``
and ``variant`` with the tree's relative ``error`` (:func:`dpnn.psd.psd_comparison`).
Each tree is one replicate: its errors are averaged over the query shapes, and a
variant's error at a budget is the mean over its independent trees, with the
standard error over trees. Relative errors are not accuracies, so no floor or
ceiling bounds the range, and the paper gives no sampling error of its own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, combine, not_comparable
from .rules import Curve, above

NOTEBOOK = "10_private_spatial_decompositions"
SOURCE = "Cormode et al. 2012 (private spatial decompositions)"
X = "ε"
OPEN = {"floor": -np.inf, "ceiling": np.inf, "source_n": None, "x_name": X}
PRIVATE_KD = ("kd-standard", "kd-hybrid", "kd-cell", "kd-noisymean")


def per_tree(kd_table: pd.DataFrame) -> pd.DataFrame:
    """Mean error over the query shapes of each (variant, epsilon, tree)."""
    trees = kd_table.groupby(["variant", "epsilon", "tree"])["error"].mean()
    return trees.reset_index()


def _stats(kd_table, variant):
    trees = per_tree(kd_table)
    part = trees[trees["variant"] == variant].groupby("epsilon")["error"]
    if part.ngroups == 0:
        return None
    mean, count = part.mean(), part.count()
    se = (part.std(ddof=1) / np.sqrt(count)).where(count > 1, np.nan)
    return mean, se


def _curve(kd_table, variant, name=""):
    found = _stats(kd_table, variant)
    if found is None or found[1].isna().any():
        return None
    mean, se = found
    return Curve(mean.index.to_numpy(float), mean.to_numpy(), se.to_numpy(),
                 name or variant)


def _median_over_counts(t):
    kd = t["kd_table"]
    stats = {v: _stats(kd, v) for v in ("kd-standard", "kd-true", "kd-pure")}
    if any(s is None or s[1].isna().any() for s in stats.values()):
        return not_comparable("kd-standard, kd-true and kd-pure need two trees or more")
    (std, s_std), (true, s_true), (pure, s_pure) = (stats[v] for v in stats)
    gap = (std - true) - (true - pure)  # median noise minus count noise
    se = np.sqrt(s_std ** 2 + 4 * s_true ** 2 + s_pure ** 2)
    eps = gap.index.to_numpy(float)
    return above(Curve(eps, gap.to_numpy(), se.to_numpy(), "median − count noise"),
                 Curve(eps, np.zeros(len(eps)), np.zeros(len(eps)), "zero"), **OPEN)


def _hybrid_best(t):
    kd = t["kd_table"]
    hybrid = _curve(kd, "kd-hybrid")
    if hybrid is None:
        return not_comparable("kd-hybrid needs two trees or more")
    parts = {}
    for other in PRIVATE_KD:
        if other == "kd-hybrid":
            continue
        curve = _curve(kd, other)
        parts[f"{other} above kd-hybrid"] = above(curve, hybrid, **OPEN) if curve \
            else not_comparable(f"{other} needs two trees or more")
    return combine(parts)


CLAIMS = (
    Claim(NOTEBOOK, SOURCE, "§VIII", "Fig. 5",
          "'Adding noise to counts does not dramatically degrade query accuracy … it "
          "is the noise in the choice of medians which seems to have the greater "
          "impact'",
          "median noise (kd-standard − kd-true) minus count noise (kd-true − kd-pure), "
          "relative error averaged over the query shapes, per budget ε",
          "the median noise larger: an effect that exists across the budgets, beyond "
          "two standard errors over the independent trees (dpnn.claims.rules)",
          _median_over_counts),
    Claim(NOTEBOOK, SOURCE, "§VIII", "Fig. 5",
          "'Of the kd-tree variations, the kd-hybrid seems the most reliably accurate'",
          "relative error averaged over the query shapes: each other private kd-tree "
          "against kd-hybrid, per budget ε",
          "kd-hybrid's error the lowest: an effect that exists across the budgets",
          _hybrid_best),
)
