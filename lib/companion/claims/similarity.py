"""Notebook 12's own findings on SimRand against the Gaussian random projection.

``tables``: ``recall`` (:func:`dpnn.simrand.recall_table`: one row per alpha/pi,
k, epsilon and method, with ``recall`` and its standard error ``se``, the releases
(each a new random projection) and the queries taken as crossed clusters, so the
variation between projections counts; with one release ``se_projections`` is NaN
and ``se`` is the per-query error) and ``win_margin`` (the recall difference the
notebook calls a win). The two methods' errors combine as independent. The
statements are the companion's, not a source's: no outside sampling error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import AGREES, DIFFERS, PARTLY, Claim, Verdict, combine, not_comparable
from .rules import Z, outcome_band, outcome_exists

__all__ = [
    "NOTEBOOK",
    "SOURCE",
    "METHODS",
    "differences",
    "RULE",
    "CEILINGS",
    "above_ceiling",
    "CLAIMS",
]

NOTEBOOK = "12_private_similarity_search"
SOURCE = "Companion finding"
METHODS = ("SimRand", "Gaussian RP")


def differences(recall):
    """SimRand − baseline recall per (alpha/pi, k, epsilon) with its standard error."""
    part = recall[recall["method"].isin(METHODS)].copy()
    if part.empty:
        return part.assign(difference=[], se=[])[
            ["alpha/pi", "k", "epsilon", "difference", "se"]
        ]
    part["error"] = part["se"]
    wide = part.pivot_table(
        index=["alpha/pi", "k", "epsilon"], columns="method", values=["recall", "error"]
    )
    d = wide[("recall", "SimRand")] - wide[("recall", "Gaussian RP")]
    se = np.hypot(wide[("error", "SimRand")], wide[("error", "Gaussian RP")])
    return d.rename("difference").to_frame().assign(se=se).reset_index()


def _label(row):
    return f"α = {row['alpha/pi']:g}π, k = {row['k']:g}, ε = {row['epsilon']:g}"


def _ties(rows, margin) -> Verdict:
    """Every setting ties: |difference| within ``margin`` up to two standard errors."""
    if rows.empty:
        return not_comparable("no setting in this range")
    out = outcome_band(rows["difference"], -margin, margin, rows["se"], rows["se"], Z)
    held = out == "holds"
    apart = rows[~held]
    numbers = "; ".join(
        f"{_label(r)}: {r['difference']:+.3f} ± {r['se']:.3f}"
        for _, r in apart.iterrows()
    )
    why = f"ties at {int(held.sum())} of {len(rows)} settings"
    return Verdict(
        AGREES if held.all() else PARTLY if held.any() else DIFFERS, why, numbers
    )


def _separates(rows) -> Verdict:
    """Some setting separates: |difference| beyond two standard errors."""
    if rows.empty:
        return not_comparable("no setting in this range")
    out = outcome_exists(np.abs(rows["difference"]), rows["se"], rows["se"], Z)
    apart = rows[out == "holds"]
    numbers = "; ".join(
        f"{_label(r)}: {r['difference']:+.3f} ± {r['se']:.3f}"
        for _, r in apart.head(6).iterrows()
    )
    why = f"separate at {len(apart)} of {len(rows)} settings"
    return Verdict(AGREES if len(apart) else DIFFERS, why, numbers)


def _small_budgets(t):
    d = differences(t["recall"])
    return _ties(d[d["epsilon"] <= 2], t["win_margin"])


def _only_large(t):
    d = differences(t["recall"])
    return combine(
        {
            "tie below ε = 16": _ties(d[d["epsilon"] < 16], t["win_margin"]),
            "separate from ε = 16": _separates(d[d["epsilon"] >= 16]),
        }
    )


RULE = (
    "a tie: the recall difference within ± win_margin up to two standard errors "
    "(each method's with projections and queries as crossed clusters); a "
    "separation: beyond two standard errors"
)
CEILINGS = {"SimRand": "SimHash, no noise", "Gaussian RP": "JL projection, no noise"}


def above_ceiling(recall):
    """Each private recall minus its own no-noise ceiling at the same (alpha, k), with
    the two standard errors combined as independent."""
    keys = ["alpha/pi", "k", "epsilon"]
    parts = []
    for method, ceiling in CEILINGS.items():
        both = recall[recall["method"] == method].merge(
            recall[recall["method"] == ceiling], on=keys, suffixes=("", " ceiling")
        )
        parts.append(
            both[keys].assign(
                method=method,
                difference=both["recall"] - both["recall ceiling"],
                se=np.hypot(both["se"], both["se ceiling"]),
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _below_ceiling(t):
    d = above_ceiling(t["recall"])
    if d.empty:
        return not_comparable("no no-noise ceiling in this run")
    over = outcome_exists(d["difference"], d["se"], d["se"], Z) == "holds"
    top = d.loc[d["difference"].idxmax()]
    numbers = (
        f"largest excess {top['difference']:+.3f} ± {top['se']:.3f} "
        f"({top['method']}, {_label(top)})"
    )
    why = (
        f"above its ceiling by more than two standard errors at {int(over.sum())} "
        f"of {len(d)} settings"
    )
    return Verdict(AGREES if not over.any() else DIFFERS, why, numbers)


CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "notebook 12 §7",
        "12 §7",
        "'For ε ≤ 2 every setting is a tie at or near chance recall'",
        "SimRand − Gaussian RP recall@10 at every α, k and ε ≤ 2",
        RULE + "; agrees only if every setting ties",
        _small_budgets,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "notebook 12 (answer first)",
        "12 §7",
        "'Only at ε ≥ 16 do the methods separate'",
        "SimRand − Gaussian RP recall@10 at every α and k, below and from ε = 16",
        RULE + "; agrees only if every setting below ε = 16 ties and some setting "
        "from 16 on separates",
        _only_large,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "notebook 12 §6",
        "12 §6",
        "'the same searches without noise (SimHash, and the JL projection: the "
        "ceilings each method approaches as ε grows)'",
        "each private recall@10 minus its own no-noise search's at the same α and k",
        "agrees if no private recall exceeds its ceiling by more than two standard "
        "errors (both with projections and queries "
        "as crossed clusters), differs otherwise",
        _below_ceiling,
    ),
)
