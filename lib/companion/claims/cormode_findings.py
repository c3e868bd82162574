"""Claims of Cormode et al. on their quadtree optimizations and private medians
(§IV-B, §VIII-A, Figs. 2-4; notebook 10), and the means over trees that
:mod:`.cormode_kd` shares.

``tables`` (besides those of :mod:`.cormode`): ``budget_errors`` (``height``,
``uniform``, ``geometric``: the worst-case error of Eq. (1), exact),
``quad_table`` (:func:`companion.studies.cormode.quadtree_study`: one row per
``epsilon``, ``variant``, ``tree`` and query ``shape`` with the tree's median
relative ``error``), ``median_runs`` (one row per median ``method``, ``tree`` and
``depth`` with the mean normalized ``rank_error`` and the ``seconds`` of that
level).

Every sampled quantity is a mean over independent trees with the standard error
over trees on trees - 1 degrees of freedom (Student's t), judged by the rules of
:mod:`companion.claims.rules`; an exact quantity (Eq. (1)) is compared by
arithmetic. Relative and rank errors are not accuracies: no ceiling, and a floor
only where stated. Nothing private is read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, Verdict, combine, not_comparable
from .cormode import MARGIN, NOTEBOOK, SOURCE
from .judges import above, exact_at_most, value_within
from .rules import (
    Curve,
    band_pvalues,
    outcome_band,
    outcome_exists,
    outcomes,
    over_range,
    tally,
)

__all__ = ["RANK_FLOOR", "DECADE", "TREES", "tree_stats", "lower", "CLAIMS"]

#: A table a run did not make (its claims are then not comparable).
_NONE = pd.DataFrame()

#: Rank error below which two medians are both "almost true" (left out of an order).
RANK_FLOOR = 0.01
#: "About an order of magnitude": a factor within half a decade of 10.
DECADE = (10**0.5, 10**1.5)
_RANKS = {"margin": RANK_FLOOR, "floor": RANK_FLOOR, "shift": 1.0}


def tree_stats(table: pd.DataFrame, keys, value: str = "error") -> pd.DataFrame:
    """Mean, standard error over trees and number of trees of ``value`` per ``keys``
    (a tree's value first averaged over its other rows, e.g. the query shapes)."""
    keys = list(keys)
    trees = table.groupby(keys + ["tree"])[value].mean()
    grouped = trees.groupby(level=list(range(len(keys))))
    out = pd.DataFrame(
        {"mean": grouped.mean(), "se": grouped.std(ddof=1) / np.sqrt(grouped.count())}
    )
    out["trees"] = grouped.count()
    return out


def _curve(stats, key, name, level, shift=0.0):
    """The curve of ``key`` (a value of the index ``level``) over the other level
    (its values plus ``shift``: budgets are positive, depths start at 0)."""
    if key not in stats.index.get_level_values(level):
        return None
    part = stats.xs(key, level=level).sort_index()
    if part["se"].isna().any() or part["trees"].min() < 2:
        return None
    return Curve(
        part.index.to_numpy(float) + shift,
        part["mean"].to_numpy(),
        part["se"].to_numpy(),
        name,
        df=int(part["trees"].min()) - 1,
    )


def lower(stats, low, high, level, x_name, margin=MARGIN, floor=-np.inf, shift=0.0):
    """Claim: ``low`` has the lower mean than ``high`` at every point of the other
    level of ``stats`` (:func:`tree_stats`; ``level`` names the method's level)."""
    a = _curve(stats, high, high, level, shift)
    b = _curve(stats, low, low, level, shift)
    if a is None or b is None:
        return not_comparable(f"{low} or {high} needs two trees or more")
    return above(a, b, margin=margin, floor=floor, ceiling=np.inf, x_name=x_name)


def _quad_improves(t):
    table = t.get("quad_table", _NONE)
    if table.empty or table["tree"].nunique() < 2:
        return not_comparable("Fig. 3 needs two trees or more per setting")
    parts = {}
    for eps, part in table.groupby("epsilon"):
        stats = tree_stats(part, ["shape", "variant"])
        for low, high in (
            ("quad-geo", "quad-baseline"),
            ("quad-post", "quad-baseline"),
            ("quad-opt", "quad-geo"),
            ("quad-opt", "quad-post"),
        ):
            parts[f"ε {eps:g}: {low} below {high}"] = _shapes(stats, low, high)
    return combine(parts)


def _shapes(stats, low, high) -> Verdict:
    """``low`` below ``high`` on every query shape (index level 0 shape, 1 variant)."""
    shapes = sorted(set(stats.index.get_level_values(0)))
    d, se, df = [], [], []
    for s in shapes:
        a, b = stats.loc[(s, high)], stats.loc[(s, low)]
        d.append(a["mean"] - b["mean"])
        se.append(np.hypot(a["se"], b["se"]))
        df.append(min(a["trees"], b["trees"]) - 1)
    found = outcome_exists(np.array(d), np.array(se), margin=MARGIN, df=min(df))
    x = np.arange(1, len(shapes) + 1, dtype=float)
    verdict = over_range(found, x, d, se, "shape", len(shapes), df=min(df))
    names = ", ".join(f"{s}: {v:+.3f} ± {e:.3f}" for s, v, e in zip(shapes, d, se))
    return Verdict(verdict.word, verdict.why.replace("shape ", "shape no. "), names)


def _ratios(table):
    """quad-baseline / quad-opt per (epsilon, shape), with its delta-method error."""
    stats = tree_stats(table, ["epsilon", "shape", "variant"])
    rows = []
    for (eps, shape), part in stats.groupby(level=[0, 1]):
        part = part.droplevel([0, 1])
        if not {"quad-baseline", "quad-opt"} <= set(part.index):
            continue
        b, o = part.loc["quad-baseline"], part.loc["quad-opt"]
        r = b["mean"] / o["mean"]
        se = r * np.hypot(b["se"] / b["mean"], o["se"] / o["mean"])
        rows.append((eps, shape, r, se, min(b["trees"], o["trees"]) - 1))
    return pd.DataFrame(rows, columns=["epsilon", "shape", "ratio", "se", "df"])


def _order_of_magnitude(t):
    table = t.get("quad_table", _NONE)
    if table.empty or table["tree"].nunique() < 2:
        return not_comparable("Fig. 3 needs two trees or more per setting")
    r = _ratios(table)
    hold, against = band_pvalues(r["ratio"], *DECADE, r["se"], df=int(r["df"].min()))
    found = outcomes(hold, against, some=True)
    labels = [f"ε {e:g} {s}" for e, s in zip(r["epsilon"], r["shape"])]
    numbers = "; ".join(
        f"{k}: {v:.2f} ± {e:.2f}" for k, v, e in zip(labels, r["ratio"], r["se"])
    )
    held = [k for k, f in zip(labels, found) if f == "holds"]
    parts = {
        "up to an order of magnitude": Verdict(
            tally(found, some=True),
            f"within {DECADE[0]:.3g} to {DECADE[1]:.3g} shown at {len(held)} of "
            f"{len(labels)} settings",
            numbers,
        )
    }
    low = r["epsilon"].min()
    for eps in sorted(set(r["epsilon"]) - {low}):
        a = r[r["epsilon"] == low].set_index("shape")
        b = r[r["epsilon"] == eps].set_index("shape")
        both = a.index.intersection(b.index)
        d = (a.loc[both, "ratio"] - b.loc[both, "ratio"]).to_numpy(float)
        se = np.hypot(a.loc[both, "se"], b.loc[both, "se"]).to_numpy(float)
        df = int(min(a["df"].min(), b["df"].min()))
        found = outcome_exists(d, se, margin=1.0, df=df)
        x = np.arange(1, len(both) + 1, dtype=float)
        v = over_range(found, x, d, se, "shape no.", len(both), df=df)
        parts[f"larger at ε {low:g} than at ε {eps:g}"] = Verdict(
            v.word,
            v.why,
            ", ".join(f"{s}: {x:+.2f} ± {e:.2f}" for s, x, e in zip(both, d, se)),
        )
    return combine(parts)


def _fig3(t):
    return combine(
        {"each and both improve": _quad_improves(t), "size": _order_of_magnitude(t)}
    )


def _geometric_worst_case(t):
    errors = t.get("budget_errors", _NONE)
    if errors.empty:
        return not_comparable("no worst-case error computed")
    ratio = (errors["uniform"] / errors["geometric"]).to_numpy(float)
    heights = errors["height"].to_numpy(int)
    parts = {
        f"geometric at most uniform (h {h})": exact_at_most(g, u, f"h = {h}")
        for h, g, u in zip(heights, errors["geometric"], errors["uniform"])
    }
    grows = [
        exact_at_most(a, b, f"ratio at h {h0} against h {h1}")
        for h0, h1, a, b in zip(heights[:-1], heights[1:], ratio[:-1], ratio[1:])
    ]
    steps = [v.word for v in grows]
    numbers = ", ".join(f"h {h}: {r:.3g}" for h, r in zip(heights, ratio))
    parts["the ratio grows with h"] = Verdict(
        tally(np.where(np.array(steps) == "agrees", "holds", "opposite")),
        "exact computation: uniform / geometric at each height",
        numbers,
    )
    return combine(parts)


def _median_stats(t):
    runs = t.get("median_runs", _NONE)
    if runs.empty or runs["tree"].nunique() < 2:
        return None
    return tree_stats(runs, ["method", "depth"], "rank_error")


def _em_best(t):
    stats = _median_stats(t)
    if stats is None:
        return not_comparable("the median study needs two trees or more")
    parts = {}
    for other in sorted(set(stats.index.get_level_values(0)) - {"EM"}):
        parts[f"{other} above EM"] = lower(stats, "EM", other, 0, "depth + 1", **_RANKS)
    em = stats.xs("EM", level=0)
    top, deep = em.index.min(), em.index.max()
    parts[f"EM almost true at depth {top}"] = value_within(
        em.loc[top, "mean"],
        em.loc[top, "se"],
        0.0,
        RANK_FLOOR,
        df=int(em.loc[top, "trees"]) - 1,
        where=f"depth {top}",
    )
    parts[f"EM moderate at depth {deep}"] = value_within(
        em.loc[deep, "mean"],
        em.loc[deep, "se"],
        0.05,
        0.5,
        df=int(em.loc[deep, "trees"]) - 1,
        where=f"depth {deep}",
    )
    return combine(parts)


def _sampling(t):
    stats = _median_stats(t)
    if stats is None:
        return not_comparable("the median study needs two trees or more")
    runs = t.get("median_runs", _NONE).copy()
    runs["log2 seconds"] = np.log2(runs["seconds"].clip(lower=1e-9))
    times = tree_stats(runs, ["method", "depth"], "log2 seconds")
    parts = {
        "SS_s below SS": lower(stats, "SS_s", "SS", 0, "depth + 1", **_RANKS),
        "EM_s above EM": lower(stats, "EM", "EM_s", 0, "depth + 1", **_RANKS),
    }
    for full, sampled in (("EM", "EM_s"), ("SS", "SS_s")):
        a, b = times.xs(full, level=0), times.xs(sampled, level=0)
        d = (a["mean"] - b["mean"]).to_numpy(float)  # log2 of the speed-up
        se = np.hypot(a["se"], b["se"]).to_numpy(float)
        df = int(min(a["trees"].min(), b["trees"].min())) - 1
        found = outcome_band(d, *np.log2(DECADE), se, df=df)
        numbers = ", ".join(
            f"depth {k}: ×{2**v:.1f} (log2 {v:.2f} ± {e:.2f})"
            for k, v, e in zip(a.index, d, se)
        )
        held = int(np.sum(found == "holds"))
        parts[f"{sampled} about 10 times faster"] = Verdict(
            tally(found),
            f"speed-up within ×{DECADE[0]:.3g} to ×{DECADE[1]:.3g} shown at {held} "
            f"of {len(d)} depths (this machine's times)",
            numbers,
        )
    return combine(parts)


#: How every sampled quantity here is judged.
TREES = "mean over the independent trees, one-sided t on trees - 1 degrees of freedom"
CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII-A",
        "Fig. 3",
        "'Clearly, each optimization significantly improves the query accuracy, and "
        "in combination they perform even better: the relative error is reduced by "
        "up to an order of magnitude, especially when the privacy budget is limited "
        "(ε = 0.1)'",
        "median relative error per budget ε and query shape, height-10 quadtrees: "
        "quad-geo and quad-post against quad-baseline, quad-opt against both; the "
        "factor quad-baseline / quad-opt",
        f"each improvement shown on every shape ({TREES}; margin {MARGIN}); 'up to "
        f"an order of magnitude': the factor shown within {DECADE[0]:.3g} to "
        f"{DECADE[1]:.3g} at some setting (Holm); 'especially at ε = 0.1': the "
        "factor larger there than at each other ε on every shape (margin 1); the "
        "default profile has 2 trees per setting (1 degree of freedom)",
        _fig3,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§IV-B",
        "Fig. 2",
        "'worst case error for a uniform budget … grows much faster than the "
        "geometric budget error'",
        "the worst-case error of Eq. (1) for both budgets at each height, and their "
        "ratio",
        "exact computation: geometric at most uniform at every height, and the "
        "ratio uniform / geometric increasing from each height to the next",
        _geometric_worst_case,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII-A",
        "Fig. 4",
        "'The exponential mechanism (EM) is always the most accurate, providing "
        "almost true medians for large data sizes (2^20 points at depth 0) and "
        "medians with moderate error for smaller data sizes (around 2^11 points at "
        "depth 9) without sampling'",
        "mean normalized rank error per depth of each median method's tree "
        "(median_trees independent trees)",
        f"every other method's error above EM's at every depth ({TREES}; margin "
        f"and floor {RANK_FLOOR}: depths where both are below it are left out); "
        f"'almost true': EM's 90% interval inside 0 to {RANK_FLOOR} at the root; "
        "'moderate': inside 0.05 to 0.5 at the deepest level",
        _em_best,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§VIII-A",
        "Fig. 4",
        "'For smooth sensitivity, the sampling (SS_s) approach improves the "
        "accuracy … The reverse is true for EM_s … the sampling versions are about "
        "an order of magnitude faster across all data sizes'",
        "mean normalized rank error per depth: SS_s against SS, EM_s against EM; "
        "the speed-up (time of a level, full over sampled, log2) per depth",
        f"each order shown at every depth ({TREES}; margin and floor {RANK_FLOOR}); "
        f"the speed-up's 90% interval inside ×{DECADE[0]:.3g} to ×{DECADE[1]:.3g} "
        "at every depth; times are this machine's",
        _sampling,
    ),
)
