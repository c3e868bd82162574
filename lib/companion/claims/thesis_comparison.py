"""The thesis's claims on DP-TT-CMP (§6.1, §6.2.2, §6.2.3; notebook 08).

``tables``: ``sweep`` (the notebook's grid table without the Fig. 6.1 points),
``geo`` (GEO alone at level epsilon* = 1 per radius, with a ``d`` column),
``communication`` (the Fig. 6.1 points with ``sent_share``) and ``n_main``. Curves
are read against the composed budget epsilon* of one query (the thesis's x-axis for
CMP).
"""

from __future__ import annotations

import numpy as np

from .core import Claim, combine, not_comparable
from .judges import above, difference_within, ratio_within, value_within
from .rules import curve
from .sweeps import (
    THESIS,
    composed_curve,
    measured,
    missing,
    paired,
    per_metric,
    release_share,
)

__all__ = [
    "NOTEBOOK",
    "X",
    "COMPARED",
    "GLOBAL_SENSITIVITY",
    "EXISTS",
    "NO_BENEFIT",
    "CLAIMS",
]

NOTEBOOK = "08_experiments_comparison"
X = "ε*"
COMPARED = ("basic", "E8", "GS", "N20", "GS-N20")
GLOBAL_SENSITIVITY = 1e9


def _c(t, variant, metric="top5", d=1, n=None):
    return composed_curve(
        t["sweep"], variant, metric, utility="cmp", n=n or t["n_main"], d=d
    )


def _pair(t, a, b, d, rule, metrics=("top5", "raw"), **kw):
    def one(m):
        ca, cb = _c(t, a, m, d), _c(t, b, m, d)
        return missing((a, ca), (b, cb)) or rule(ca, cb, x_name=X, **kw)

    return per_metric(one, metrics)


def _fig6_1(t):
    comm = t["communication"]
    basic = comm[comm["variant"] == "basic"].sort_values("N")
    if len(basic) < 3:
        return not_comparable("fewer than three database sizes in this profile")
    n, share = basic["N"].to_numpy(float), basic["sent_share"].to_numpy(float)
    r2 = float(np.corrcoef(n, share)[0, 1] ** 2)
    slope = float(np.polyfit(np.log10(n), np.log10(share), 1)[0])
    verdict = value_within(r2, 0.0, 0.95, 1.0, where="R² of share on N")
    return verdict.__class__(
        verdict.word, verdict.why, verdict.numbers + f"; log-log slope {slope:.2f}"
    )


def _geo_global(t, d, metric):
    geo = t["geo"][t["geo"]["d"] == d]
    if geo.empty:
        return None
    x = geo["geo_epsilon"] * GLOBAL_SENSITIVITY  # the ε* giving this rate at Δ = 1e9
    return curve(geo.assign(x=x), "x", f"geo_{metric}", name="GEO, global Δ")


def _fig6_17(t):
    parts = {}
    for d in (1, 2):
        for m in ("top5", "raw"):
            dptt, geo = _c(t, "basic", m, d), _geo_global(t, d, m)
            parts[f"{d}-D {m}"] = missing(("basic", dptt), ("GEO", geo)) or above(
                dptt, geo, x_name=X
            )
    return combine(parts)


def _sizes(t):
    sweep = t["sweep"]
    sizes = sorted(
        sweep.loc[
            (sweep["variant"] == "basic") & (sweep["dataset"] == "uniform"), "N"
        ].unique()
    )
    if len(sizes) < 2:
        return not_comparable("one database size in this profile")
    return combine(
        {
            f"{d}-D": above(
                _c(t, "basic", "top5", d, sizes[0]),
                _c(t, "basic", "top5", d, sizes[-1]),
                x_name=X,
            )
            for d in (1, 2)
        }
    )


def _value(t, variant, metric, d, level, lo, hi):
    value, se = measured(_c(t, variant, metric, d), level)
    return value_within(value, se, lo, hi, where=f"ε* = {level:g}")


def _plateau(t, variant, metric, d, lo, hi, peak=False):
    c = _c(t, variant, metric, d)
    if c is None:
        return not_comparable(f"{variant} not run in this profile")
    i = int(np.argmax(c.y)) if peak else -1
    return value_within(
        float(c.y[i]), float(c.se[i]), lo, hi, where=f"ε* = {c.x[i]:.3g}"
    )


def _raw_half(t):
    c_raw, c_top = _c(t, "basic", "raw", 2), _c(t, "basic", "top5", 2)
    return missing(("basic", c_top)) or ratio_within(
        c_raw, c_top, 0.425, 0.575, x_name=X
    )


def _neighbourhood(t, big, small, d):
    return combine(
        {
            "raw gains": _pair(t, big, small, d, above, ("raw",)),
            "top-5 gains little": _pair(
                t, big, small, d, difference_within, ("top5",), lo=-0.05, hi=0.05
            ),
        }
    )


def _early_best(t, d):
    return combine(
        {
            f"E8 above {v}": _pair(t, "E8", v, d, above, half="low")
            for v in COMPARED
            if v != "E8"
        }
    )


def _comparable_metrics(t):
    parts = {}
    for v in COMPARED:
        if v in ("E8", "basic"):
            continue
        top, raw = _c(t, v, "top5", 1), _c(t, v, "raw", 1)
        parts[v] = missing((v, top)) or difference_within(
            top, raw, -0.05, 0.05, x_name=X
        )
    return combine(parts)


def _real(t, threshold=0.05):
    sweep, parts = t["sweep"], {}
    for name in sorted(set(sweep["dataset"]) - {"uniform"}):
        shares = release_share(sweep, COMPARED + ("P8",), name)
        large = {v: s for v, s in shares.items() if s > threshold}
        if large:
            parts[name] = not_comparable(
                "release-size effect: "
                + ", ".join(
                    f"{v} releases {s:.0%} of the stand-in" for v, s in large.items()
                )
            )
            continue
        part = sweep[sweep["dataset"] == name]

        def c(v, m):
            return v, composed_curve(part, v, m, utility="cmp", dataset=name)

        parts[name] = combine(
            {
                f"{b} above {v}": per_metric(
                    lambda m, b=b, v=v: paired(above, c(b, m), c(v, m), x_name=X)
                )
                for b in ("E8", "N20")
                for v in ("basic", "GS", "GS-N20", "P8")
            }
        )
    return combine(parts) if parts else not_comparable("no real region in this run")


def _claim(figure, section, quote, measured, rule, judge):
    return Claim(NOTEBOOK, THESIS, section, figure, quote, measured, rule, judge)


EXISTS = "exists across the informative range (module companion.claims.rules)"
NO_BENEFIT = "value: 'no benefit' is P8 − basic at most 0"
CLAIMS = (
    _claim(
        "6.1",
        "§6.1",
        "'the relationship between the percentage of data points and the size of "
        "the database is near linear'",
        "basic: share of the tree sent per query against N (Fig. 6.1 sizes)",
        "'near linear': R² of a straight line in N at least 0.95 (exact counts, no "
        "sampling error)",
        _fig6_1,
    ),
    _claim(
        "6.17",
        "§6.2.2",
        "GEO 'performs much worse due to the fact "
        "that it is used with global sensitivity'",
        "basic DP-TT-CMP against GEO at Δ = 1e9 at equal ε*, 1-D and 2-D, both metrics",
        "DP-TT-CMP above GEO: " + EXISTS,
        _fig6_17,
    ),
    _claim(
        "6.18",
        "§6.2.2",
        "'The 2-dimensional search does not achieve "
        "100% accuracy and plateaus at 80% accuracy'",
        "2-D basic top-5 at the largest ε*",
        "value: 'at 80%' is 0.75-0.85",
        lambda t: _plateau(t, "basic", "top5", 2, 0.75, 0.85),
    ),
    _claim(
        "6.18",
        "§6.2.2",
        "'The raw metric is half as accurate as the top 5 metric' (basic)",
        "2-D basic raw / top-5 at each ε*",
        "value: 'half' is a ratio of 0.425-0.575, across the informative range",
        _raw_half,
    ),
    _claim(
        "6.18",
        "§6.2.2",
        "'accuracy degrades as the size of the database increases'",
        "basic top-5, smallest against largest N, on ε*",
        "the smaller database above the larger: " + EXISTS,
        _sizes,
    ),
    _claim(
        "6.19",
        "§6.2.2",
        "1-D: 'parallel traversal does not provide any benefits'",
        "P8 − basic in 1-D, both metrics, on ε*",
        NO_BENEFIT,
        lambda t: _pair(t, "P8", "basic", 1, difference_within, lo=-np.inf, hi=0),
    ),
    _claim(
        "6.20",
        "§6.2.2",
        "2-D: 'parallel traversal does not provide any benefits'",
        "P8 − basic in 2-D, both metrics, on ε*",
        NO_BENEFIT,
        lambda t: _pair(t, "P8", "basic", 2, difference_within, lo=-np.inf, hi=0),
    ),
    _claim(
        "6.21",
        "§6.2.3",
        "1-D: 'early stopping, achieves a 95% accuracy for a database of size 100k "
        "at a privacy budget of ϵ = 50'",
        "E8 in 1-D at ε* = 50, both metrics",
        "value: 'a 95% accuracy' is 0.90-1",
        lambda t: per_metric(lambda m: _value(t, "E8", m, 1, 50, 0.9, 1)),
    ),
    _claim(
        "6.22",
        "§6.2.2",
        "2-D: 'stopping 8 levels early allows the traversal to achieve 100% "
        "accuracy for a final ϵ = 100'",
        "E8 in 2-D at ε* = 100, both metrics",
        "value: '100%' is 0.95-1",
        lambda t: per_metric(lambda m: _value(t, "E8", m, 2, 100, 0.95, 1)),
    ),
    _claim(
        "6.23",
        "§6.2.2",
        "GS: 'the 1-dimension mechanism achieves high accuracy while the "
        "2-dimension mechanism achieves a maximum of 40% top 5 accuracy'",
        "GS top-5 at the largest ε* in 1-D; its maximum over the sweep in 2-D",
        "value: 'high' is 0.9-1, 'a maximum of 40%' is 0.35-0.45",
        lambda t: combine(
            {
                "1-D high": _plateau(t, "GS", "top5", 1, 0.9, 1),
                "2-D at most 40%": _plateau(t, "GS", "top5", 2, 0.35, 0.45, peak=True),
            }
        ),
    ),
    _claim(
        "6.24",
        "§6.2.2",
        "1-D: 'the size of the neighborhood makes little to no difference'",
        "N20 − N5 in 1-D, both metrics, on ε*",
        "value: 'little to no difference' is within ±0.05",
        lambda t: _pair(t, "N20", "N5", 1, difference_within, lo=-0.05, hi=0.05),
    ),
    _claim(
        "6.25",
        "§6.2.2",
        "2-D: 'the size of the neighborhood improves the raw accuracy but has a "
        "less important impact when it comes to top 5 accuracy'",
        "N20 against N5 in 2-D, on ε*",
        "raw gain: " + EXISTS + "; top-5 change within ±0.05",
        lambda t: _neighbourhood(t, "N20", "N5", 2),
    ),
    _claim(
        "6.26",
        "§6.2.2",
        "1-D: 'adding neighborhoods to splitting at every level does not change "
        "the accuracy based on neighborhood size'",
        "GS-N20 − GS-N5 in 1-D, both metrics, on ε*",
        "value: 'does not change' is within ±0.05",
        lambda t: _pair(t, "GS-N20", "GS-N5", 1, difference_within, lo=-0.05, hi=0.05),
    ),
    _claim(
        "6.27",
        "§6.2.2",
        "2-D: 'the size of the neighborhood improves the raw accuracy but has a "
        "less important impact when it comes to top 5 accuracy'",
        "GS-N20 against GS-N5 in 2-D, on ε*",
        "raw gain: " + EXISTS + "; top-5 change within ±0.05",
        lambda t: _neighbourhood(t, "GS-N20", "GS-N5", 2),
    ),
    _claim(
        "6.28",
        "§6.2.2",
        "1-D: 'early stopping provides the most benefit for the smallest privacy "
        "budget'; 'all other methods have comparable top 5 and raw accuracies'",
        "E8 against the others in 1-D (lower half of the informative range); top-5 "
        "− raw of GS, N20, GS-N20",
        "E8 above: " + EXISTS + "; 'comparable' is within ±0.05",
        lambda t: combine(
            {
                "E best at small ε*": _early_best(t, 1),
                "others' raw ≈ top-5": _comparable_metrics(t),
            }
        ),
    ),
    _claim(
        "6.29",
        "§6.2.2",
        "2-D: 'early stopping provides the most benefit for the smallest privacy "
        "budget for both dimensions'",
        "E8 against the others in 2-D, lower half of the informative range",
        "E8 above: " + EXISTS,
        lambda t: _early_best(t, 2),
    ),
    _claim(
        "6.30-6.31",
        "§6.2.2",
        "real data: 'the early stopping and neighborhood methods perform best'",
        "E8 and N20 against the others on each real region, on ε*",
        "not comparable where a variant releases over 5% of the region (a "
        "release-size effect); else E8 and N20 above the others: " + EXISTS,
        _real,
    ),
)
