"""The companion's readings of every mechanism at equal composed privacy (notebook 13
§1, its first finding), judged on the comparison table.

``tables["equal_privacy"]``: one row per ``dataset``, DP-TT ``variant``, per-step
budget ``step`` and ``method`` (DP-TT-CMP, GEO, SM, L-SRR at DP-TT's composed
``eps_star``) with the share of queries whose nearest neighbour is found, ``raw``,
and its standard error ``raw_se``. The methods answer the same queries with
independent draws; their errors are combined as independent, which overstates
the error of a difference when the queries' difficulty moves both (conservative).
Each row is a setting; the rules are those of :mod:`companion.claims.rules`.
"""

from __future__ import annotations

import numpy as np

from .core import Claim, Verdict, not_comparable
from .inference import outcome_at
from .rules import MARGIN, exists_pvalues, outcome_band, outcomes, tally

__all__ = [
    "NOTEBOOK",
    "COMPANION",
    "FAR",
    "NEAR_CHANCE",
    "lead",
    "near_chance",
    "CLAIMS",
]

NOTEBOOK = "13_after_the_thesis"
COMPANION = "Companion finding"
#: "By far": a lead of at least this much accuracy.
FAR = 0.1
#: "Near chance": an accuracy of at most this much.
NEAR_CHANCE = 0.05


def _wide(t, synthetic: bool | None = None):
    table = t.get("equal_privacy")
    if table is None or table.empty:
        return None
    if synthetic is not None:
        uniform = table["dataset"].str.startswith("uniform")
        table = table[uniform if synthetic else ~uniform]
    if table.empty:
        return None
    keys = ["dataset", "variant", "step"]
    return table.pivot_table(index=keys, columns="method", values=["raw", "raw_se"])


def _label(key) -> str:
    dataset, variant, step = key
    return f"{dataset} {variant} step {step:g}"


def _verdict(found, keys, d, se) -> Verdict:
    names = [_label(k) for k in keys]
    why = "; ".join(
        outcome_at(o, [n for n, f in zip(names, found) if f == o], len(names))
        for o in ("holds", "opposite", "level")
        if np.any(found == o)
    )
    numbers = "; ".join(f"{n}: {v:+.3f} ± {e:.3f}" for n, v, e in zip(names, d, se))
    return Verdict(tally(found), why, numbers)


def lead(t, method, others, shift=0.0, synthetic=None) -> Verdict:
    """``method``'s accuracy above the best of ``others`` by more than ``shift`` at
    every row (one-sided tests; opposite where shown below ``shift``, or below the
    margin when ``shift`` is 0); each row compares against its best other method."""
    wide = _wide(t, synthetic)
    if (
        wide is None
        or method not in wide["raw"]
        or not set(others) <= set(wide["raw"].columns)
    ):
        return not_comparable(f"{method} or {', '.join(others)} not run here")
    best = wide["raw"][list(others)].idxmax(axis=1)
    d = np.array(
        [wide["raw"].loc[k, method] - wide["raw"].loc[k, b] for k, b in best.items()]
    )
    se = np.array(
        [
            np.hypot(wide["raw_se"].loc[k, method], wide["raw_se"].loc[k, b])
            for k, b in best.items()
        ]
    )
    short = shift if shift > 0 else MARGIN  # "ahead" means by the margin at least
    found = outcomes(exists_pvalues(d - shift, se)[0], exists_pvalues(short - d, se)[0])
    return _verdict(found, list(best.index), d, se)


def near_chance(t, method) -> Verdict:
    """``method``'s accuracy shown at most :data:`NEAR_CHANCE` at every row."""
    wide = _wide(t)
    if wide is None or method not in wide["raw"]:
        return not_comparable(f"{method} not run here")
    value = wide["raw"][method].to_numpy(float)
    se = wide["raw_se"][method].to_numpy(float)
    found = outcome_band(value, -np.inf, NEAR_CHANCE, se)
    return _verdict(found, list(wide.index), value, se)


def _claim(quote, measured, rule, judge):
    return Claim(
        NOTEBOOK, COMPANION, "notebook 13 §5", "13 §1", quote, measured, rule, judge
    )


CLAIMS = (
    _claim(
        "'At equal composed privacy the square mechanism wins, by far'",
        "raw accuracy, SM minus the best other method, at every dataset, variant and "
        "per-step budget",
        f"'by far': SM shown ahead by more than {FAR} at every row (one-sided at 5%; "
        f"contradicted where shown ahead by less than {FAR})",
        lambda t: lead(t, "SM", ("DP-TT-CMP", "GEO", "L-SRR"), shift=FAR),
    ),
    _claim(
        "'On the synthetic data DP-TT-CMP is ahead of GEO and L-SRR'",
        "raw accuracy, DP-TT-CMP minus the better of GEO and L-SRR, on the uniform "
        "data at every variant and per-step budget",
        "DP-TT-CMP shown ahead at every row (one-sided at 5%; contradicted where shown "
        "ahead by less than 0.05)",
        lambda t: lead(t, "DP-TT-CMP", ("GEO", "L-SRR"), shift=0.0, synthetic=True),
    ),
    _claim(
        "'On the Swiss places GEO is ahead'",
        "raw accuracy, GEO minus DP-TT-CMP, on the real places at every variant and "
        "per-step budget",
        "GEO shown ahead at every row (one-sided at 5%; contradicted where shown "
        "ahead by less than 0.05)",
        lambda t: lead(t, "GEO", ("DP-TT-CMP",), shift=0.0, synthetic=False),
    ),
    _claim(
        "'L-SRR stays near chance'",
        "raw accuracy of L-SRR at every dataset, variant and per-step budget",
        f"'near chance': shown at most {NEAR_CHANCE} at every row (one-sided at 5%)",
        lambda t: near_chance(t, "L-SRR"),
    ),
)
