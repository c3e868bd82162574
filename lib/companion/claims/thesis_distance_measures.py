"""How the claims of :mod:`companion.claims.thesis_distance` read notebook 07's sweep:
the DP-TT-DIS curves on the composed axis ε*/Δ, and the verdicts several of its claims
share (one variant against another, a value at a radius, the smallest database against
the largest).

``t`` is the notebook's tables: ``sweep`` (the grid table) and ``n_main`` (the size the
variants run at).
"""

from __future__ import annotations

import numpy as np

from .core import combine, not_comparable
from .judges import (
    above,
    difference_within,
    exact_at_most,
    overtakes,
    ratio_within,
    value_within,
)
from .rules import curve
from .sweeps import (
    composed_curve,
    measured,
    missing,
    paired,
    per_metric,
    value_at,
)
from .thesis_curves import plateau_within, regions_above

__all__ = [
    "X",
    "dis_curve",
    "variant_above",
    "value_at_radius",
    "smaller_database_above",
    "variants_in_order",
    "variant_gain",
    "variant_ratio",
    "variant_overtakes",
    "plateau_at",
    "real_regions",
    "geo_above_everywhere",
    "geo_at_1e5",
    "greedy_cost",
    "basic_above_parallel",
]


#: The axis of the curves: the composed budget per unit distance.
X = "ε*/Δ"


def dis_curve(t, variant, metric="top5", d=1, geo=False):
    """The curve of ``metric`` against the composed budget per unit distance
    ε*/Δ (:data:`X`) of the DP-TT-DIS ``variant`` (of GEO at the same ε* when ``geo``),
    at the main size ``t["n_main"]`` in dimension ``d``, from ``t["sweep"]``."""
    return composed_curve(
        t["sweep"], variant, metric, utility="dis", n=t["n_main"], d=d, geo=geo
    )


def variant_above(t, a, b, d, half=None, metrics=("top5", "raw")):
    """The verdict on ``a`` above ``b`` (dimension ``d``, on ε*/Δ) on each of
    ``metrics``, by :func:`.rules.above` (``half``: only that half of the informative
    range); not comparable where either was not run."""

    def one(m):
        ca, cb = dis_curve(t, a, m, d), dis_curve(t, b, m, d)
        return missing((a, ca), (b, cb)) or above(ca, cb, half=half, x_name=X)

    return per_metric(one, metrics)


def value_at_radius(t, variant, metric, d, radius, lo, hi, geo=False):
    """The verdict on the ``metric`` of ``variant`` (of GEO when ``geo``) in dimension
    ``d`` at the privacy radius Δ = ``radius``: within [lo, hi] by
    :func:`.rules.value_within`, with its standard error."""
    column = f"geo_{metric}" if geo else metric
    value, se = value_at(
        t["sweep"], variant, column, "sensitivity", radius, n=t["n_main"], d=d
    )
    return value_within(value, se, lo, hi, where=f"Δ = {radius:g}")


def variants_in_order(t, variants, d):
    """The verdict on each variant of ``variants`` above the next in dimension ``d``
    (:func:`variant_above` on both metrics)."""
    return combine(
        {
            f"{a} above {b}": variant_above(t, a, b, d)
            for a, b in zip(variants, variants[1:])
        }
    )


def variant_gain(t, a, b, d, lo, hi, metrics=("top5", "raw")):
    """The verdict on ``a`` minus ``b`` (dimension ``d``, on ε*/Δ) within [lo, hi] on
    each of ``metrics``, by :func:`.rules.difference_within`."""

    def one(m):
        ca, cb = dis_curve(t, a, m, d), dis_curve(t, b, m, d)
        return missing((a, ca), (b, cb)) or difference_within(ca, cb, lo, hi, x_name=X)

    return per_metric(one, metrics)


def variant_ratio(t, a, b, d, lo, hi):
    """The verdict on ``a`` over ``b`` (dimension ``d``, on ε*/Δ) within [lo, hi] on
    each metric, by :func:`.rules.ratio_within`."""

    def one(m):
        ca, cb = dis_curve(t, a, m, d), dis_curve(t, b, m, d)
        return missing((a, ca), (b, cb)) or ratio_within(ca, cb, lo, hi, x_name=X)

    return per_metric(one)


def variant_overtakes(t, a, b, d, metrics=("top5", "raw")):
    """The verdict on ``a`` overtaking ``b`` (dimension ``d``, on ε*/Δ: ``b`` above at
    small budgets, ``a`` above at large ones) on each of ``metrics``, by
    :func:`.rules.overtakes`."""

    def one(m):
        ca, cb = dis_curve(t, a, m, d), dis_curve(t, b, m, d)
        return missing((a, ca), (b, cb)) or overtakes(ca, cb, x_name=X)

    return per_metric(one, metrics)


def smaller_database_above(t, d, x_is_radius):
    """The verdict on the basic DP-TT-DIS top-5 of the smallest database size above
    that of the largest (uniform data, dimension ``d``), against 1/Δ when
    ``x_is_radius``, else ε*/Δ; not comparable when the profile ran one size."""
    basic = t["sweep"][
        (t["sweep"]["variant"] == "basic") & (t["sweep"]["dataset"] == "uniform")
    ]
    sizes = sorted(basic["N"].unique())
    if len(sizes) < 2:
        return not_comparable("one database size in this profile")
    curves = []
    for n in (sizes[0], sizes[-1]):
        part = t["sweep"][
            (t["sweep"]["dataset"] == "uniform")
            & (t["sweep"]["N"] == n)
            & (t["sweep"]["d"] == d)
            & (t["sweep"]["variant"] == "basic")
        ]
        x = (
            1 / part["sensitivity"]
            if x_is_radius
            else part["epsilon_thesis"] / part["sensitivity"]
        )
        curves.append(curve(part.assign(x=x), "x", "top5", name=f"N = {n:,}"))
    return above(*curves, x_name="1/Δ" if x_is_radius else X)


def plateau_at(t, variant, metric, d, lo, hi):
    """The plateau of ``variant``'s ``metric`` in dimension ``d`` on ε*/Δ in
    [lo, hi] (:func:`companion.claims.thesis_curves.plateau_within`)."""
    return plateau_within(
        dis_curve(t, variant, metric, d), lo, hi, x_name=X, what=variant
    )


def real_regions(t, best, others, threshold=0.05):
    """Each of ``best`` above each of ``others`` on each real region, both metrics,
    on ε*/Δ (:func:`companion.claims.thesis_curves.regions_above`)."""
    return regions_above(t, best, others, utility="dis", x_name=X, threshold=threshold)


def geo_above_everywhere(t):
    """§6.2.1's "in all scenarios": GEO (at the same ε* by each figure's rule) above
    every DP-TT-DIS variant at the main size, 1-D and 2-D, both metrics."""
    sweep = t["sweep"]
    parts = {}
    for d in (1, 2):
        for v in sorted(sweep.loc[sweep["N"] == t["n_main"], "variant"].unique()):
            for m in ("top5", "raw"):
                geo, dptt = dis_curve(t, v, m, d, geo=True), dis_curve(t, v, m, d)
                parts[f"{d}-D {v} {m}"] = paired(
                    above, ("GEO", geo), (v, dptt), x_name=X
                )
    return combine(parts) if parts else not_comparable("no variant in this run")


def geo_at_1e5(t):
    """§6.2.3: 1-D GEO top-5 at ε*/Δ = 1e-5 at least 0.9 (measured there, or not
    comparable)."""
    value, se = measured(dis_curve(t, "basic", "top5", 1, geo=True), 1e-5)
    return value_within(value, se, 0.9, np.inf, where="ε*/Δ = 1e-5")


def greedy_cost(t):
    """§6.2.3: GS's composed ε* at most basic's (exact, from the sweep's ledger)."""
    sweep = t["sweep"]
    part = sweep[(sweep["dataset"] == "uniform") & (sweep["N"] == t["n_main"])]
    budget = part.groupby("variant")["epsilon_thesis"].first()
    if not {"GS", "basic"} <= set(budget.index):
        return not_comparable("GS or basic not run in this profile")
    return exact_at_most(
        float(budget["GS"]),
        float(budget["basic"]),
        "composed ε* of GS against basic (Thm 2.13, δ = 1/N)",
    )


def basic_above_parallel(t):
    """§6.2.3: basic above each parallel traversal P2, P4, P8 (those run), 1-D and
    2-D, both metrics, on ε*/Δ."""
    return combine(
        {
            f"{d}-D basic above {p}": variant_above(t, "basic", p, d)
            for d in (1, 2)
            for p in ("P2", "P4", "P8")
        }
    )
