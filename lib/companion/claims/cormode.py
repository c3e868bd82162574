"""Claims of Cormode et al. on private kd-trees (§VIII, Fig. 5; notebook 10).

``tables``: ``kd_table`` and ``compare_table`` (:func:`dpnn.psd.psd_comparison`: one
row per tree, budget ``epsilon`` or ``height``, query ``shape`` and ``variant`` with
the tree's relative ``error``) and ``switch_table`` (:func:`dpnn.psd.switch_study`:
the same per hybrid ``switch`` level).
Each tree is one replicate: its errors are averaged over the query shapes, and a
variant's error at a budget is the mean over its independent trees, with the
standard error over trees on trees - 1 degrees of freedom (Student's t). Relative
errors are not accuracies, so no floor or ceiling bounds the range; an effect
claim is contradicted where the gap is shown below ``MARGIN`` = 0.01 (one point of
relative error).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, Verdict, combine, not_comparable
from .judges import above
from .rules import Curve, outcome_exists, tally

__all__ = [
    "NOTEBOOK",
    "SOURCE",
    "X",
    "MARGIN",
    "OPEN",
    "PRIVATE_KD",
    "per_tree",
    "tree_means",
    "lowest",
    "CLAIMS",
]

NOTEBOOK = "10_private_spatial_decompositions"
SOURCE = "Cormode et al. 2012 (private spatial decompositions)"
X = "ε"
#: Smallest gap of relative error an effect claim is read to mean.
MARGIN = 0.01
OPEN = {"floor": -np.inf, "ceiling": np.inf, "margin": MARGIN, "x_name": X}
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
    return mean, se, int(count.min())


def _curve(kd_table, variant, name=""):
    found = _stats(kd_table, variant)
    if found is None or found[1].isna().any():
        return None
    mean, se, trees = found
    return Curve(
        mean.index.to_numpy(float),
        mean.to_numpy(),
        se.to_numpy(),
        name or variant,
        df=trees - 1,
    )


def _median_over_counts(t):
    kd = t["kd_table"]
    stats = {v: _stats(kd, v) for v in ("kd-standard", "kd-true", "kd-pure")}
    if any(s is None or s[1].isna().any() for s in stats.values()):
        return not_comparable("kd-standard, kd-true and kd-pure need two trees or more")
    (std, s_std, n), (true, s_true, _), (pure, s_pure, _) = stats.values()
    gap = (std - true) - (true - pure)  # median noise minus count noise
    se = np.sqrt(s_std**2 + 4 * s_true**2 + s_pure**2)
    eps = gap.index.to_numpy(float)
    return above(
        Curve(eps, gap.to_numpy(), se.to_numpy(), "median − count noise", n - 1),
        Curve(eps, np.zeros(len(eps)), np.zeros(len(eps)), "zero"),
        **OPEN,
    )


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
        parts[f"{other} above kd-hybrid"] = (
            above(curve, hybrid, **OPEN)
            if curve
            else not_comparable(f"{other} needs two trees or more")
        )
    return combine(parts)


def tree_means(table, keys):
    """Mean and standard error over trees of each tree's error averaged over shapes,
    and the fewest trees of a setting."""
    trees = table.groupby(list(keys) + ["tree"])["error"].mean()
    grouped = trees.groupby(level=list(range(len(keys))))
    count = grouped.count()
    trees = int(count.min()) if len(count) else 0
    return grouped.mean(), grouped.std(ddof=1) / np.sqrt(count), trees


def lowest(mean, se, trees, best, others, label) -> Verdict:
    """``best`` is the lowest: every other's error above it (an effect shown at
    every comparison, t on trees - 1 degrees of freedom); the rule of
    :mod:`companion.claims.rules` over the comparisons."""
    if best not in mean.index or se.isna().any() or trees < 2:
        return not_comparable("needs two trees or more of each setting")
    names = [o for o in others if o in mean.index]
    gaps = np.array([mean[o] - mean[best] for o in names])
    errors = np.array([np.hypot(se[o], se[best]) for o in names])
    found = outcome_exists(gaps, errors, margin=MARGIN, df=trees - 1)
    numbers = "; ".join(
        f"{label(o)} − {label(best)}: {g:+.3f} ± {e:.3f}"
        for o, g, e in zip(names, gaps, errors)
    )
    why = "; ".join(
        f"{k} against " + ", ".join(label(o) for o, f in zip(names, found) if f == k)
        for k in ("holds", "opposite", "level")
        if np.any(found == k)
    )
    return Verdict(tally(found), why, numbers)


def _switch_half_way(t):
    mean, se, trees = tree_means(t["switch_table"], ["switch"])
    if mean.empty:
        return not_comparable("no switch study in this run")
    levels = [int(v) for v in mean.index]
    half = [v for v in (3, 4) if v in levels]
    if not half:
        return not_comparable("levels 3 and 4 not run")
    best = min(half, key=lambda v: mean[v])
    return lowest(
        mean,
        se,
        trees,
        best,
        [v for v in levels if v not in half],
        lambda v: f"level {v}",
    )


def _quad_opt_deep(t):
    table = t["compare_table"]
    if table.empty:
        return not_comparable("no height comparison in this run")
    deepest = table["height"].max()
    mean, se, trees = tree_means(table[table["height"] == deepest], ["variant"])
    others = [v for v in mean.index if v != "quad-opt"]
    verdict = lowest(mean, se, trees, "quad-opt", others, str)
    return verdict.__class__(
        verdict.word, f"height {deepest}: {verdict.why}", verdict.numbers
    )


CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII",
        "Fig. 5",
        "'Adding noise to counts does not dramatically degrade query accuracy … it "
        "is the noise in the choice of medians "
        "which seems to have the greater impact'",
        "median noise (kd-standard − kd-true) minus count noise (kd-true − kd-pure), "
        "relative error averaged over the query shapes, per budget ε",
        "the median noise larger: an effect shown at every budget, one-sided t over "
        "the independent trees (companion.claims.rules)",
        _median_over_counts,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII",
        "Fig. 5",
        "'Of the kd-tree variations, the kd-hybrid seems the most reliably accurate'",
        "relative error averaged over the query shapes: each other private kd-tree "
        "against kd-hybrid, per budget ε",
        "kd-hybrid's error the lowest: an effect that exists across the budgets",
        _hybrid_best,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII",
        "hybrid trees",
        "'Switching about half-way down the tree "
        "(height 3 or 4) gives the best result'",
        "relative error averaged over the query shapes per hybrid switch level: the "
        "better of levels 3 and 4 against every other level",
        "the best: every other level's error shown higher (one-sided t over the "
        "trees; differs if shown not higher by the margin)",
        _switch_half_way,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII",
        "Fig. 6",
        "'At depth 10 the optimized quadtree is "
        "able to provide the best accuracy of all'",
        "relative error averaged over the query shapes at the largest height run: "
        "quad-opt against kd-hybrid, kd-cell and the Hilbert R-tree",
        "the best: every other's error shown higher (one-sided t over the trees; "
        "differs if shown not higher by the margin)",
        _quad_opt_deep,
    ),
)
