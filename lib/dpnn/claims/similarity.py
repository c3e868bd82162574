"""Notebook 12's own findings on SimRand against the Gaussian random projection.

``tables``: ``recall`` (:func:`dpnn.simrand.recall_table`: one row per alpha/pi,
k, epsilon and method, with ``recall``, its per-query standard error ``se`` and
its standard error over the independent releases ``se_projections``) and
``win_margin`` (the recall difference the notebook calls a win). Each method's
error is the larger of the two standard errors, so the variation between random
projections counts; the two methods' errors combine as independent. The
statements are the companion's, not a source's: no outside sampling error.
"""

from __future__ import annotations

import numpy as np

from .core import AGREES, DIFFERS, PARTLY, Claim, Verdict, combine, not_comparable
from .rules import Z, outcome_band, outcome_exists

NOTEBOOK = "12_private_similarity_search"
SOURCE = "Companion finding"
METHODS = ("SimRand", "Gaussian RP")


def differences(recall):
    """SimRand − baseline recall per (alpha/pi, k, epsilon) with its standard error."""
    part = recall[recall["method"].isin(METHODS)].copy()
    if part.empty:
        return part.assign(difference=[], se=[])[["alpha/pi", "k", "epsilon",
                                                  "difference", "se"]]
    part["error"] = np.fmax(part["se"], part["se_projections"])
    wide = part.pivot_table(index=["alpha/pi", "k", "epsilon"], columns="method",
                            values=["recall", "error"])
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
    numbers = "; ".join(f"{_label(r)}: {r['difference']:+.3f} ± {r['se']:.3f}"
                        for _, r in apart.iterrows())
    why = f"ties at {int(held.sum())} of {len(rows)} settings"
    return Verdict(AGREES if held.all() else PARTLY if held.any() else DIFFERS, why,
                   numbers)


def _separates(rows) -> Verdict:
    """Some setting separates: |difference| beyond two standard errors."""
    if rows.empty:
        return not_comparable("no setting in this range")
    out = outcome_exists(np.abs(rows["difference"]), rows["se"], rows["se"], Z)
    apart = rows[out == "holds"]
    numbers = "; ".join(f"{_label(r)}: {r['difference']:+.3f} ± {r['se']:.3f}"
                        for _, r in apart.head(6).iterrows())
    why = f"separate at {len(apart)} of {len(rows)} settings"
    return Verdict(AGREES if len(apart) else DIFFERS, why, numbers)


def _small_budgets(t):
    d = differences(t["recall"])
    return _ties(d[d["epsilon"] <= 2], t["win_margin"])


def _only_large(t):
    d = differences(t["recall"])
    return combine({"tie below ε = 16": _ties(d[d["epsilon"] < 16], t["win_margin"]),
                    "separate from ε = 16": _separates(d[d["epsilon"] >= 16])})


RULE = ("a tie: the recall difference within ± win_margin up to two standard errors "
        "(each method's the larger of the per-query and the between-projection "
        "error); a separation: beyond two standard errors")
CLAIMS = (
    Claim(NOTEBOOK, SOURCE, "notebook 12 §7", "12 §7",
          "'For ε ≤ 2 every setting is a tie at or near chance recall'",
          "SimRand − Gaussian RP recall@10 at every α, k and ε ≤ 2",
          RULE + "; agrees only if every setting ties", _small_budgets),
    Claim(NOTEBOOK, SOURCE, "notebook 12 (answer first)", "12 §7",
          "'Only at ε ≥ 16 do the methods separate'",
          "SimRand − Gaussian RP recall@10 at every α and k, below and from ε = 16",
          RULE + "; agrees only if every setting below ε = 16 ties and some setting "
          "from 16 on separates", _only_large),
)
