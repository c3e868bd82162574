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

from .core import Claim, Verdict, combine, not_comparable
from .rules import (
    ALPHA,
    band_pvalues,
    critical,
    exists_pvalues,
    outcome_band,
    outcomes,
    points,
    tally,
)

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


def _evidence(rows, value, half, found, band) -> tuple:
    """Each setting's ``value`` with the interval ``value ± half`` its test used,
    at its ε, one series per α and k."""
    value, half = np.asarray(value, float), np.asarray(half, float)
    parts = [f"α {a:g}π k {k:g}" for a, k in zip(rows["alpha/pi"], rows["k"])]
    return points(
        parts, rows["epsilon"], value, value - half, value + half, found, band
    )


def _ties(rows, margin) -> Verdict:
    """Every setting ties: the difference shown within ``margin`` (equivalence)."""
    if rows.empty:
        return not_comparable("no setting in this range")
    out = outcome_band(rows["difference"], -margin, margin, rows["se"])
    held = out == "holds"
    apart = rows[~held]
    numbers = "; ".join(
        f"{_label(r)}: {r['difference']:+.3f} ± {r['se']:.3f}"
        for _, r in apart.iterrows()
    )
    why = (
        f"ties at {int(held.sum())}, apart at {int(np.sum(out == 'opposite'))} of "
        f"{len(rows)} settings"
    )
    d = rows["difference"].to_numpy(float)
    half = critical(None) * rows["se"].to_numpy(float)
    evidence = _evidence(rows, d, half, out, (-margin, margin))
    return Verdict(tally(out), why, numbers, evidence)


def _separates(rows, margin) -> Verdict:
    """Some setting separates: a difference either way shown (two-sided, Holm over
    the settings); contradicted when every setting is shown within ``margin``."""
    if rows.empty:
        return not_comparable("no setting in this range")
    d, se = rows["difference"].to_numpy(float), rows["se"].to_numpy(float)
    apart = np.minimum(
        1.0, 2 * np.minimum(*(exists_pvalues(v, se)[0] for v in (d, -d)))
    )
    tie = band_pvalues(d, -margin, margin, se)[0]
    out = outcomes(apart, tie, some=True)
    # the separation's test is two-sided: |d| against zero at one-sided ALPHA / 2
    evidence = _evidence(
        rows, np.abs(d), critical(None, ALPHA / 2) * se, out, (0, np.inf)
    )
    apart = rows[out == "holds"]
    numbers = "; ".join(
        f"{_label(r)}: {r['difference']:+.3f} ± {r['se']:.3f}"
        for _, r in apart.head(6).iterrows()
    )
    why = f"separate at {len(apart)} of {len(rows)} settings"
    return Verdict(tally(out, some=True), why, numbers, evidence)


def _small_budgets(t):
    d = differences(t["recall"])
    return _ties(d[d["epsilon"] <= 2], t["win_margin"])


def _only_large(t):
    d = differences(t["recall"])
    return combine(
        {
            "tie below ε = 16": _ties(d[d["epsilon"] < 16], t["win_margin"]),
            "separate from ε = 16": _separates(d[d["epsilon"] >= 16], t["win_margin"]),
        }
    )


RULE = (
    "a tie: the recall difference shown within ± win_margin by an equivalence "
    "test at 5% (each method's error with projections and queries as crossed "
    "clusters); a separation: a difference shown by a two-sided test, "
    "Holm-adjusted over the settings"
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
    diff, se = d["difference"].to_numpy(float), d["se"].to_numpy(float)
    margin = t["win_margin"]
    found = outcomes(exists_pvalues(margin - diff, se)[0], exists_pvalues(diff, se)[0])
    over = found == "opposite"
    top = d.loc[d["difference"].idxmax()]
    numbers = (
        f"largest excess {top['difference']:+.3f} ± {top['se']:.3f} "
        f"({top['method']}, {_label(top)})"
    )
    why = (
        f"shown below its ceiling plus win_margin at {int(np.sum(found == 'holds'))}"
        f", shown above its ceiling at {int(over.sum())} of {len(d)} settings"
    )
    half = critical(None) * se
    evidence = points(
        d["method"],
        d["epsilon"],
        diff,
        diff - half,
        diff + half,
        found,
        (-np.inf, margin),
    )
    return Verdict(tally(found), why, numbers, evidence)


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
        "every private recall shown below its ceiling plus win_margin (one-sided "
        "at 5%, both errors with projections and queries as crossed clusters); "
        "contradicted where shown above its ceiling (Holm)",
        _below_ceiling,
    ),
)
