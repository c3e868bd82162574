"""Judges on the shape of one curve, on two metrics of the same queries and on two
dimensions, shared by the thesis's claims of notebooks 07 and 08.

* A **plateau** ("plateaus around 40%") is read on the budgets where the curve is
  level with its end: the trailing run of measured budgets whose accuracy is within
  ``MARGIN`` of the accuracy at the largest budget. The level claimed is tested
  there, at every one of those budgets (the equivalence test of
  :mod:`companion.claims.rules`, intersection-union over the budgets).
* A **maximum** ("a maximum of 40%") is a bound at every measured budget and a
  level reached at some budget (Holm-adjusted).
* Raw and top-5 accuracy are measured on the **same queries**, and a query whose
  nearest neighbour is found is also a top-5 hit. So their ratio is the share of
  the top-5 hits that are raw hits, a binomial proportion over ``m = top5 · n``
  queries with standard error ``sqrt(p (1 − p) / m)``, and their difference is the
  share of queries found in the top five but not first, a binomial proportion over
  ``n`` queries; neither is ever combined as from independent samples.
* Two **dimensions** (or any two settings) give the same ordering of two
  variants when the difference of their gaps (a difference in differences) lies in
  a band; the four curves come from independent draws.
* On the **real regions** some variants above others, region by region, unless one
  of them releases a large share of the region (a release-size effect).

Everything here reads aggregate accuracy tables: no privacy is spent.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Verdict, combine, not_comparable
from .rules import (
    CEILING,
    FLOOR,
    MARGIN,
    Curve,
    align,
    informative,
    outcome_band,
    over_range,
)

__all__ = [
    "regions_above",
    "plateau",
    "plateau_within",
    "maximum_about",
    "raw_share",
    "metric_gap",
    "single_within",
    "gaps_alike",
]


def plateau(c: Curve, margin: float = MARGIN) -> np.ndarray:
    """True at the budgets of ``c`` on its plateau: the trailing run of budgets (the
    largest ones) whose value is within ``margin`` of the value at the largest."""
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    level = np.abs(np.asarray(c.y, float) - c.y[-1]) <= margin
    keep = np.zeros(len(c.y), dtype=bool)
    for i in range(len(c.y) - 1, -1, -1):
        if not level[i]:
            break
        keep[i] = True
    return keep


def single_within(
    c: Curve, lo: float, hi: float, keep=None, *, x_name: str = "x", some=False
) -> Verdict:
    """Claim: the values of ``c`` lie in ``[lo, hi]`` at every budget where ``keep``
    (default: every measured budget; ``some``: at some budget, Holm-adjusted),
    by the equivalence test of :mod:`companion.claims.rules`."""
    keep = np.ones(len(c.x), dtype=bool) if keep is None else np.asarray(keep, bool)
    if len(keep) != len(c.x):
        raise ValueError("keep must have one entry per budget of the curve")
    xs, y, se = c.x[keep], c.y[keep], c.se[keep]
    found = outcome_band(y, lo, hi, se, df=c.df, some=some)
    return over_range(
        found, xs, y, se, x_name, len(c.x), some=some, df=c.df, band=(lo, hi)
    )


def plateau_within(
    c: Curve | None, lo: float, hi: float, *, x_name: str = "x", what: str = ""
) -> Verdict:
    """Claim: ``c`` levels off in ``[lo, hi]``: the band at every budget of its
    :func:`plateau`; not comparable if ``c`` was not run."""
    if c is None:
        return not_comparable(f"{what or 'the curve'} not run in this profile")
    on = plateau(c)
    verdict = single_within(c, lo, hi, on, x_name=x_name)
    return Verdict(
        verdict.word,
        f"plateau from {x_name} {c.x[on].min():.3g}: {verdict.why}",
        verdict.numbers,
        verdict.evidence,
    )


def maximum_about(
    c: Curve | None, lo: float, hi: float, *, x_name: str = "x", what: str = ""
) -> Verdict:
    """Claim: the maximum of ``c`` is in ``[lo, hi]``: at most ``hi`` at every
    measured budget, and within the band at some budget."""
    if c is None:
        return not_comparable(f"{what or 'the curve'} not run in this profile")
    return combine(
        {
            f"at most {hi:g} everywhere": single_within(c, -np.inf, hi, x_name=x_name),
            f"reaches {lo:g}-{hi:g}": single_within(
                c, lo, hi, x_name=x_name, some=True
            ),
        }
    )


def _same_queries(part: pd.DataFrame, x: str):
    """The rows of one curve with both metrics: budgets, raw, top-5 and queries."""
    part = part[[x, "raw", "top5", "n_queries"]].dropna().sort_values(x)
    xs, raw, top, n = (part[k].to_numpy(float) for k in (x, "raw", "top5", "n_queries"))
    if np.any(raw > top + 1e-12):
        raise ValueError("raw accuracy must not exceed top-5 accuracy on one query set")
    return xs, raw, top, n


def raw_share(part: pd.DataFrame, x: str, name: str = "") -> Curve | None:
    """The share of top-5 hits that are raw hits, raw / top5, against column ``x`` of
    the rows ``part`` of one curve (columns ``raw``, ``top5``, ``n_queries``), with
    its binomial standard error over the ``top5 · n_queries`` top-5 hits. Budgets
    where both metrics are at the ceiling, or top-5 at the floor (too few hits for a
    share), are left out, as :func:`companion.claims.judges.ratio_within` does."""
    if part.empty:
        return None
    xs, raw, top, n = _same_queries(part, x)
    keep = informative(raw, top, FLOOR, CEILING) & (top > FLOOR)
    xs, raw, top, n = xs[keep], raw[keep], top[keep], n[keep]
    share = raw / top
    se = np.sqrt(share * (1 - share) / (top * n))
    return Curve(xs, share, se, name)


def metric_gap(part: pd.DataFrame, x: str, name: str = "") -> Curve | None:
    """top5 − raw, the share of queries found in the top five but not first, against
    column ``x`` of the rows ``part`` of one curve, with its binomial standard error
    over ``n_queries``; budgets where both metrics are at the floor or both at the
    ceiling are left out."""
    if part.empty:
        return None
    xs, raw, top, n = _same_queries(part, x)
    keep = informative(raw, top, FLOOR, CEILING)
    xs, raw, top, n = xs[keep], raw[keep], top[keep], n[keep]
    gap = top - raw
    return Curve(xs, gap, np.sqrt(gap * (1 - gap) / n), name)


def gaps_alike(
    a1: Curve, b1: Curve, a2: Curve, b2: Curve, lo: float, hi: float, *, x_name="x"
) -> Verdict:
    """Claim: the gap ``a − b`` is the same in two settings (1 and 2) within
    ``[lo, hi]``: ``(a1 − b1) − (a2 − b2)`` in the band (equivalence test) at every
    budget all four curves were measured at where one of the two pairs is
    informative (not both at the floor or both at the ceiling). The four curves are
    independent draws: their standard errors add in quadrature."""
    x1, ya1, sa1, yb1, sb1 = align(a1, b1)
    x2, ya2, sa2, yb2, sb2 = align(a2, b2)
    first = Curve(x1, ya1 - yb1, np.hypot(sa1, sb1))
    second = Curve(x2, ya2 - yb2, np.hypot(sa2, sb2))
    xs, d1, s1, d2, s2 = align(first, second)
    if not len(xs):
        return not_comparable("the curves share no measured budget")
    i1 = [int(np.flatnonzero(np.isclose(x1, x, rtol=1e-9, atol=0))[0]) for x in xs]
    i2 = [int(np.flatnonzero(np.isclose(x2, x, rtol=1e-9, atol=0))[0]) for x in xs]
    keep = informative(ya1[i1], yb1[i1]) | informative(ya2[i2], yb2[i2])
    d, se = (d1 - d2)[keep], np.hypot(s1, s2)[keep]
    found = outcome_band(d, lo, hi, se)
    return over_range(found, xs[keep], d, se, x_name, len(xs), band=(lo, hi))


def regions_above(t, best, others, *, utility, x_name, threshold=0.05):
    """Each of ``best`` above each of ``others`` on each real region of ``t["sweep"]``
    against the composed budget (``utility`` "dis": ε*/Δ; "cmp": ε*), both metrics,
    read by :func:`companion.claims.judges.above`; a region where one of these
    variants (no other) releases more than ``threshold`` of it is not comparable (a
    release-size effect)."""
    from .judges import above
    from .sweeps import composed_curve, paired, per_metric, release_share

    sweep, parts = t["sweep"], {}
    for name in sorted(set(sweep["dataset"]) - {"uniform"}):
        shares = release_share(sweep, tuple(best) + tuple(others), name)
        large = {v: s for v, s in shares.items() if s > threshold}
        if large:
            parts[name] = not_comparable(
                "release-size effect: "
                + ", ".join(
                    f"{v} releases {s:.0%} of the stand-in" for v, s in large.items()
                )
            )
            continue

        def c(v, m, name=name):
            return v, composed_curve(sweep, v, m, utility=utility, dataset=name)

        parts[name] = combine(
            {
                f"{b} above {v}": per_metric(
                    lambda m, b=b, v=v: paired(above, c(b, m), c(v, m), x_name=x_name)
                )
                for b in best
                for v in others
            }
        )
    return combine(parts) if parts else not_comparable("no real region in this run")
