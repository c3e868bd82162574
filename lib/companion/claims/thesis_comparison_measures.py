"""How the claims of :mod:`companion.claims.thesis_comparison` read notebook 08's
tables: the DP-TT-CMP curves on the composed budget ε* of one query, GEO with the
global sensitivity at the same ε*, and the verdicts several claims share (one variant
against another, a plateau or a value, raw against top-5 on the same queries, the
real regions).

``t`` is the notebook's tables: ``sweep`` (the grid table), ``geo_global`` (GEO at
the global sensitivity, :data:`GLOBAL_SENSITIVITY`, at the sweep's ε*, with a ``d``
column), ``communication`` (the Fig. 6.1 points) and ``n_main`` (the size the
variants run at); optionally ``geo_global_actual``, GEO at the global sensitivity at
basic DP-TT-CMP's actual worst-case budgets (the sweep's ``epsilon_pld``).
"""

from __future__ import annotations

import numpy as np

from .core import Verdict, combine, not_comparable
from .judges import above, difference_within, value_within
from .rules import curve
from .sweeps import (
    composed_curve,
    measured,
    missing,
    per_metric,
    rows,
)
from .thesis_curves import (
    regions_above,
    gaps_alike,
    maximum_about,
    metric_gap,
    plateau_within,
    raw_share,
    single_within,
)

__all__ = [
    "X",
    "COMPARED",
    "GLOBAL_SENSITIVITY",
    "cmp_curve",
    "variant_pair",
    "variants_in_order",
    "communication_linear",
    "geo_global_curve",
    "dptt_above_global_geo",
    "dptt_above_global_geo_actual",
    "smaller_database_above",
    "value_at_budget",
    "plateau_at",
    "maximum_at",
    "raw_half",
    "neighbourhood_gains",
    "early_best",
    "metrics_comparable",
    "dimensions_alike",
    "real_regions",
]

#: The axis of the curves: the composed budget of one query.
X = "ε*"
#: The variants Figs. 6.28-6.29 compare.
COMPARED = ("basic", "E8", "GS", "N20", "GS-N20")
#: GEO's sensitivity in Fig. 6.17: the whole domain.
GLOBAL_SENSITIVITY = 1e9


def cmp_curve(t, variant, metric="top5", d=1, n=None):
    """The curve of ``metric`` of the DP-TT-CMP ``variant`` against ε* (:data:`X`),
    at size ``n`` (default ``t["n_main"]``) in dimension ``d``."""
    return composed_curve(
        t["sweep"], variant, metric, utility="cmp", n=n or t["n_main"], d=d
    )


def variant_pair(t, a, b, d, rule, metrics=("top5", "raw"), **kw):
    """``rule(curve of a, curve of b)`` on each of ``metrics`` in dimension ``d``,
    combined; not comparable where either was not run."""

    def one(m):
        ca, cb = cmp_curve(t, a, m, d), cmp_curve(t, b, m, d)
        return missing((a, ca), (b, cb)) or rule(ca, cb, x_name=X, **kw)

    return per_metric(one, metrics)


def variants_in_order(t, variants, dims=(1, 2)):
    """Each of ``variants`` above the next, both metrics, in each of ``dims``."""
    return combine(
        {
            f"{d}-D {a} above {b}": variant_pair(t, a, b, d, above)
            for d in dims
            for a, b in zip(variants, variants[1:])
        }
    )


def communication_linear(t):
    """Fig. 6.1: R² of the share basic sends on N at least 0.95 (exact counts)."""
    comm = t["communication"]
    basic = comm[comm["variant"] == "basic"].sort_values("N")
    if len(basic) < 3:
        return not_comparable("fewer than three database sizes in this profile")
    n, share = basic["N"].to_numpy(float), basic["sent_share"].to_numpy(float)
    r2 = float(np.corrcoef(n, share)[0, 1] ** 2)
    slope = float(np.polyfit(np.log10(n), np.log10(share), 1)[0])
    verdict = value_within(r2, 0.0, 0.95, 1.0, where="R² of share on N")
    return Verdict(
        verdict.word,
        verdict.why,
        verdict.numbers + f"; log-log slope {slope:.2f}",
        verdict.evidence,
    )


def geo_global_curve(t, d, metric):
    """GEO with the global sensitivity against ε* in dimension ``d`` (from
    ``t["geo_global"]``: ε* = its rate times :data:`GLOBAL_SENSITIVITY`)."""
    geo = t.get("geo_global")
    if geo is None:
        return None
    geo = geo[geo["d"] == d]
    if geo.empty:
        return None
    x = geo["geo_epsilon"] * GLOBAL_SENSITIVITY
    return curve(geo.assign(x=x), "x", f"geo_{metric}", name="GEO, global Δ")


def dptt_above_global_geo(t):
    """Fig. 6.17: basic DP-TT-CMP above GEO at the global sensitivity, at the ε*
    both were run at, 1-D and 2-D, both metrics."""
    parts = {}
    for d in (1, 2):
        for m in ("top5", "raw"):
            dptt, geo = cmp_curve(t, "basic", m, d), geo_global_curve(t, d, m)
            parts[f"{d}-D {m}"] = missing(("basic", dptt), ("GEO", geo)) or above(
                dptt, geo, x_name=X
            )
    return combine(parts)


def dptt_above_global_geo_actual(t):
    """Fig. 6.17 at equal actual privacy: basic DP-TT-CMP against its actual
    worst-case ε (its exact PLD at δ = 1/N, the sweep's ``epsilon_pld``: notebook 08
    certifies that no pair of queries loses more) above GEO at the global sensitivity
    run at those ε (``t["geo_global_actual"]``, charged its pure ε), 1-D and 2-D,
    both metrics."""
    if t.get("geo_global_actual") is None:
        return not_comparable("GEO was not run at DP-TT-CMP's actual budgets")
    geo_t = {"geo_global": t["geo_global_actual"]}
    parts = {}
    for d in (1, 2):
        basic = rows(t["sweep"], dataset="uniform", n=t["n_main"], d=d, variant="basic")
        for m in ("top5", "raw"):
            dptt = None if basic.empty else curve(basic, "epsilon_pld", m, name="basic")
            geo = geo_global_curve(geo_t, d, m)
            parts[f"{d}-D {m}"] = missing(("basic", dptt), ("GEO", geo)) or above(
                dptt, geo, x_name="actual ε"
            )
    return combine(parts)


def smaller_database_above(t):
    """Fig. 6.18: basic top-5 of the smallest size above the largest's, per
    dimension."""
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
                cmp_curve(t, "basic", "top5", d, sizes[0]),
                cmp_curve(t, "basic", "top5", d, sizes[-1]),
                x_name=X,
            )
            for d in (1, 2)
        }
    )


def value_at_budget(t, variant, metric, d, level, lo, hi):
    """``metric`` of ``variant`` at the composed budget ε* = ``level`` in [lo, hi];
    not comparable where the sweep has no such budget (never interpolated)."""
    value, se = measured(cmp_curve(t, variant, metric, d), level)
    return value_within(value, se, lo, hi, where=f"ε* = {level:g}")


def plateau_at(t, variant, metric, d, lo, hi):
    """The plateau of ``variant``'s ``metric`` in dimension ``d`` in [lo, hi]
    (:func:`companion.claims.thesis_curves.plateau_within`)."""
    return plateau_within(
        cmp_curve(t, variant, metric, d), lo, hi, x_name=X, what=variant
    )


def maximum_at(t, variant, metric, d, lo, hi):
    """The maximum of ``variant``'s ``metric`` in dimension ``d`` in [lo, hi]
    (:func:`companion.claims.thesis_curves.maximum_about`)."""
    return maximum_about(
        cmp_curve(t, variant, metric, d), lo, hi, x_name=X, what=variant
    )


def _one_curve(t, variant, d):
    """The rows of ``variant`` at the main size in dimension ``d``, ε* as ``x``."""
    part = rows(t["sweep"], n=t["n_main"], d=d, variant=variant)
    return part.assign(x=part["epsilon_thesis"])


def raw_half(t, variant, d, lo=0.425, hi=0.575):
    """raw / top-5 of ``variant`` in dimension ``d`` in [lo, hi] at every informative
    ε*: the share of top-5 hits that are raw hits, a binomial proportion of the same
    queries (:func:`companion.claims.thesis_curves.raw_share`)."""
    share = raw_share(_one_curve(t, variant, d), "x", variant)
    if share is None:
        return not_comparable(f"{variant} not run in this profile")
    return single_within(share, lo, hi, x_name=X)


def neighbourhood_gains(t, big, small, d):
    """A larger neighbourhood lifts raw (an effect) and top-5 by little (±0.05)."""
    return combine(
        {
            "raw gains": variant_pair(t, big, small, d, above, ("raw",)),
            "top-5 gains little": variant_pair(
                t, big, small, d, difference_within, ("top5",), lo=-0.05, hi=0.05
            ),
        }
    )


def early_best(t, d):
    """E8 above every other compared variant, lower half of the informative range."""
    return combine(
        {
            f"E8 above {v}": variant_pair(t, "E8", v, d, above, half="low")
            for v in COMPARED
            if v != "E8"
        }
    )


def metrics_comparable(t, d, lo=-0.05, hi=0.05):
    """Every compared variant but basic has top-5 − raw in [lo, hi] in dimension
    ``d``: the share of queries found in the top five but not first, a binomial
    proportion of the same queries (:func:`.thesis_curves.metric_gap`)."""
    parts = {}
    for v in COMPARED:
        if v == "basic":
            continue
        gap = metric_gap(_one_curve(t, v, d), "x", v)
        parts[v] = (
            not_comparable(f"{v} not run in this profile")
            if gap is None
            else single_within(gap, lo, hi, x_name=X)
        )
    return combine(parts)


def dimensions_alike(t, reference="basic", lo=-0.05, hi=0.05):
    """Each compared variant's gap over ``reference`` is the same in 1-D and 2-D
    within [lo, hi] (:func:`.thesis_curves.gaps_alike`), both metrics."""
    parts = {}
    for v in COMPARED:
        if v == reference:
            continue

        def one(m, v=v):
            named = [(f"{v} {d}-D", cmp_curve(t, v, m, d)) for d in (1, 2)]
            named += [
                (f"{reference} {d}-D", cmp_curve(t, reference, m, d)) for d in (1, 2)
            ]
            found = missing(*named)
            if found:
                return found
            (_, a1), (_, a2), (_, b1), (_, b2) = named
            return gaps_alike(a1, b1, a2, b2, lo, hi, x_name=X)

        parts[f"{v} − {reference}"] = per_metric(one)
    return combine(parts)


def real_regions(t, best, others, threshold=0.05):
    """Each of ``best`` above each of ``others`` on each real region, both metrics,
    on ε* (:func:`companion.claims.thesis_curves.regions_above`)."""
    return regions_above(t, best, others, utility="cmp", x_name=X, threshold=threshold)
