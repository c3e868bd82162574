"""What each claim of :mod:`companion.claims.thesis_distance` measures and how it is
judged: the functions its registry calls, and their constants.
"""

from __future__ import annotations

from .core import combine, not_comparable
from .rules import (
    above,
    curve,
    difference_within,
    exact_at_most,
    overtakes,
    ratio_within,
    value_within,
)
from .sweeps import (
    composed_curve,
    interpolated,
    missing,
    paired,
    per_metric,
    release_share,
    value_at,
)

__all__ = ["X", "COMPARED"]


X = "ε*/Δ"
COMPARED = ("basic", "P8", "E8", "GS", "N20", "GS-N20")


def _c(t, variant, metric="top5", d=1, geo=False):
    return composed_curve(
        t["sweep"], variant, metric, utility="dis", n=t["n_main"], d=d, geo=geo
    )


def _above(t, a, b, d, half=None, metrics=("top5", "raw")):
    def one(m):
        ca, cb = _c(t, a, m, d), _c(t, b, m, d)
        return missing((a, ca), (b, cb)) or above(ca, cb, half=half, x_name=X)

    return per_metric(one, metrics)


def _at_radius(t, variant, metric, d, radius, lo, hi, geo=False):
    column = f"geo_{metric}" if geo else metric
    value, se = value_at(
        t["sweep"], variant, column, "sensitivity", radius, n=t["n_main"], d=d
    )
    return value_within(value, se, lo, hi, where=f"Δ = {radius:g}")


def _fig6_2(t):
    geo = _at_radius(t, "basic", "top5", 1, 1e5, 0.85, 0.95, geo=True)
    dptt = _at_radius(t, "basic", "top5", 1, 1e3, 0.85, 0.95)
    return combine({"GEO at Δ = 1e5": geo, "DP-TT-DIS at Δ = 1e3": dptt})


def _sizes(t, d, x_is_radius):
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


def _fig6_4(t):
    part = t["sweep"][t["sweep"]["sensitivity"] >= 1e5]
    sub = {**t, "sweep": part}
    a, b = _c(sub, "basic", "top5", 2), _c(sub, "basic", "top5", 1)
    return missing(("2-D", a), ("1-D", b)) or above(a, b, x_name=X)


def _chain(t, variants, d):
    return combine(
        {f"{a} above {b}": _above(t, a, b, d) for a, b in zip(variants, variants[1:])}
    )


def _geo_everywhere(t):
    sweep = t["sweep"]
    parts = {}
    for d in (1, 2):
        for v in sorted(sweep.loc[sweep["N"] == t["n_main"], "variant"].unique()):
            for m in ("top5", "raw"):
                geo, dptt = _c(t, v, m, d, geo=True), _c(t, v, m, d)
                parts[f"{d}-D {v} {m}"] = paired(
                    above, ("GEO", geo), (v, dptt), x_name=X
                )
    return combine(parts) if parts else not_comparable("no variant in this run")


def _fig6_6(t):
    def cross(m):
        a, b = _c(t, "P8", m, 2), _c(t, "basic", m, 2)
        return missing(("P8", a), ("basic", b)) or overtakes(a, b, x_name=X)

    return combine(
        {
            "P8 overtakes basic": per_metric(cross),
            "P8 raw plateau about 40%": _at_radius(t, "P8", "raw", 2, 1e3, 0.35, 0.45),
        }
    )


def _fig6_7(t):
    return combine(
        {
            "E8 high top-5": _at_radius(t, "E8", "top5", 1, 1e3, 0.9, 1.0),
            "earlier splits better": _chain(t, ["E8", "E4", "E2"], 1),
        }
    )


def _band(t, a, b, d, lo, hi, metrics=("top5", "raw")):
    def one(m):
        ca, cb = _c(t, a, m, d), _c(t, b, m, d)
        return missing((a, ca), (b, cb)) or difference_within(ca, cb, lo, hi, x_name=X)

    return per_metric(one, metrics)


def _ratio(t, a, b, d, lo, hi):
    def one(m):
        ca, cb = _c(t, a, m, d), _c(t, b, m, d)
        return missing((a, ca), (b, cb)) or ratio_within(ca, cb, lo, hi, x_name=X)

    return per_metric(one)


def _fig6_13(t):
    return combine(
        {
            "raw gains": _above(t, "GS-N20", "GS-N5", 2, metrics=("raw",)),
            "top-5 gains little": _band(
                t, "GS-N20", "GS-N5", 2, -0.05, 0.05, ("top5",)
            ),
        }
    )


def _fig6_14(t):
    best = {f"E8 above {v}": _above(t, "E8", v, 1) for v in COMPARED if v != "E8"}
    worst = {
        f"{v} above P8": _above(t, v, "P8", 1)
        for v in COMPARED
        if v not in ("P8", "E8")
    }
    return combine(
        {
            "E8 best": combine(best),
            "P8 worst": combine(worst),
            "N20 about GS-N20": _band(t, "N20", "GS-N20", 1, -0.05, 0.05),
        }
    )


def _overtaken(t, a, b, d):
    def one(m):
        ca, cb = _c(t, a, m, d), _c(t, b, m, d)
        return missing((a, ca), (b, cb)) or overtakes(ca, cb, x_name=X)

    return per_metric(one)


def _fig6_15(t):
    worst = {
        f"{v} above basic": _above(t, v, "basic", 2, half="high")
        for v in COMPARED
        if v != "basic"
    }
    gsn = per_metric(lambda m: _at_radius(t, "GS-N20", m, 2, 1e4, 0.8, 0.9))
    return combine(
        {
            "GS-N20 overtakes E8": _overtaken(t, "GS-N20", "E8", 2),
            "GS-N20 overtakes N20": _overtaken(t, "GS-N20", "N20", 2),
            "P8 overtakes basic": _overtaken(t, "P8", "basic", 2),
            "basic worst at large budgets": combine(worst),
            "GS-N20 about 85% at Δ = 1e4": gsn,
        }
    )


def _real(t, best, others, threshold=0.05):
    sweep, parts = t["sweep"], {}
    for name in sorted(set(sweep["dataset"]) - {"uniform"}):
        shares = release_share(sweep, COMPARED, name)
        large = {v: s for v, s in shares.items() if s > threshold}
        if large:
            parts[name] = not_comparable(
                "release-size effect: "
                + ", ".join(
                    f"{v} releases {s:.0%} of the stand-in" for v, s in large.items()
                )
            )
            continue

        def c(v, m):
            return v, composed_curve(sweep, v, m, utility="dis", dataset=name)

        parts[name] = combine(
            {
                f"{best} above {v}": per_metric(
                    lambda m, v=v: paired(above, c(best, m), c(v, m), x_name=X)
                )
                for v in others
            }
        )
    return combine(parts) if parts else not_comparable("no real region in this run")


def _geo_1e5(t):
    value, se = interpolated(_c(t, "basic", "top5", 1, geo=True), 1e-5)
    return value_within(value, se, 0.9, 1.0, where="ε*/Δ = 1e-5")


def _greedy_cost(t):
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
