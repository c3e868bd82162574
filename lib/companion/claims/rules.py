"""The rules that turn a sweep's numbers into a verdict on a source's words.

Every rule judges a *curve* (a measure against a budget, with a standard error per
point) at the budgets where **both compared curves were measured**, never at an
interpolated point, and over the **informative range** only: a budget where both
accuracies are at the floor (at most ``FLOOR`` = 0.05) or both at the ceiling (at
least ``CEILING`` = 0.95) tells no method from another and is left out. The
x-axis is a *composed* budget, so two methods are compared at equal composed
privacy.

At each informative budget two one-sided tests at level ``ALPHA`` = 0.05 are run
on our estimate and its standard error (normal, or Student's t when the curve
carries the degrees of freedom of errors from few replicates):

* a claim that an effect **exists** ("A is better than B", ``d > 0``) *holds*
  there when the test rejects "not better" (``d <= 0``); it is *opposite* when
  the test rejects "better by at least the margin" (``d >= margin``, the smallest
  effect the claim could mean; ``MARGIN`` = 0.05 of accuracy unless the claim
  says otherwise), so a reversed or a negligible effect contradicts it;
* a claim of a **value** ("about 85%", "a small gain", "does not change": the
  words give a band ``[lo, hi]``) *holds* where the two one-sided tests of the
  equivalence test (TOST) both reject, i.e. the ``1 - 2 ALPHA`` confidence
  interval lies inside the band; it is *opposite* where the test of "inside the
  band" rejects (the interval lies outside it, Bonferroni over the band's finite
  ends).

Over the range a claim made of the whole range is an **intersection-union** test:
it **agrees** when it holds at every informative budget (no correction is needed:
each test has level ``ALPHA`` and all must reject). The opposite outcomes are
Holm-adjusted across the budgets, so a true claim is contradicted anywhere with
probability at most ``ALPHA``. The claim **differs** when it is opposite
somewhere and holds nowhere, **partly** agrees when it holds at some budgets and
is opposite at others (the verdict names them), and is **inconclusive**
otherwise: the data cannot tell at this size, and the verdict says the smallest
effect the run could have detected (at 80% power at every budget). A claim "at
some budget" agrees when a Holm-adjusted test holds at one budget and differs
when it is opposite at every one. No budget in common gives **not comparable**.

The source's own sampling error enters no direction: a verdict weighs the
source's words against our measurements, and the source's measurements are not
data we have. The standard errors of two curves measured on independent draws
are combined as independent (root sum of squares), a ratio's by the delta
method; two metrics of the same queries are judged as separate parts, never
pooled. The rules applied to curves, values and folds are in
:mod:`companion.claims.judges`; their error rates, measured by simulation with
known truth, in :mod:`companion.claims.calibration`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .core import (
    AGREES,
    DIFFERS,
    INCONCLUSIVE,
    PARTLY,
    Point,
    Verdict,
    not_comparable,
)
from .inference import holm

__all__ = [
    "ALPHA",
    "MARGIN",
    "POWER",
    "FLOOR",
    "CEILING",
    "Curve",
    "curve",
    "critical",
    "detectable",
    "align",
    "common_df",
    "keep_half",
    "informative",
    "exists_pvalues",
    "band_pvalues",
    "outcomes",
    "outcome_exists",
    "outcome_band",
    "tally",
    "over_range",
    "points",
]

#: Level of every one-sided test (the equivalence test's interval is 90%).
ALPHA = 0.05
#: Smallest difference of accuracy an effect claim is read to mean.
MARGIN = 0.05
#: Power at which an inconclusive verdict states the smallest detectable effect.
POWER = 0.8
#: Accuracy at or below which a curve is at the floor.
FLOOR = 0.05
#: Accuracy at or above which a curve is at the ceiling.
CEILING = 0.95


@dataclass(frozen=True)
class Curve:
    """A measured curve: values ``y`` with standard errors ``se`` at budgets ``x``;
    ``df`` the degrees of freedom of the errors (None: many replicates, normal)."""

    x: np.ndarray
    y: np.ndarray
    se: np.ndarray
    name: str = ""
    df: float | None = None

    def __post_init__(self):
        if not len(self.x) == len(self.y) == len(self.se):
            raise ValueError("x, y and se must have one value per budget")
        if np.any(~np.isfinite(self.x)) or np.any(np.asarray(self.x) <= 0):
            raise ValueError("x must hold positive finite budgets")
        if np.any(np.asarray(self.se) < 0):
            raise ValueError("se must be non-negative")
        if self.df is not None and not self.df >= 1:
            raise ValueError(f"df must be at least 1 or None, got {self.df}")


def curve(
    table: pd.DataFrame,
    x: str,
    y: str,
    se: str | None = None,
    name: str = "",
    df: float | None = None,
) -> Curve:
    """The curve ``y`` (standard error ``se``, default ``y + "_se"``) against ``x``."""
    se = se or f"{y}_se"
    part = table[[x, y, se]].dropna().sort_values(x)
    return Curve(
        part[x].to_numpy(float),
        part[y].to_numpy(float),
        part[se].to_numpy(float),
        name,
        df,
    )


def critical(df: float | None = None, alpha: float = ALPHA) -> float:
    """The one-sided critical value at level ``alpha``: normal, or t on ``df``."""
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    return float(stats.norm.isf(alpha) if df is None else stats.t.isf(alpha, df))


def detectable(se, df: float | None = None, alpha: float = ALPHA) -> float:
    """The smallest effect a one-sided test at ``alpha`` detects with power
    ``POWER`` at every point of standard errors ``se`` (the largest one decides)."""
    se = np.asarray(se, dtype=float)
    if not len(se):
        return float("nan")
    power = stats.norm.ppf(POWER) if df is None else stats.t.ppf(POWER, df)
    return float((critical(df, alpha) + power) * se.max())


def align(a: Curve, b: Curve):
    """Both curves at the budgets where both were measured (relative tolerance
    1e-9): budgets, ``a``'s values and errors, ``b``'s values and errors."""
    ia, ib = [], []
    for i, x in enumerate(a.x):
        match = np.flatnonzero(np.isclose(b.x, x, rtol=1e-9, atol=0))
        if len(match):
            ia.append(i)
            ib.append(match[0])
    ia, ib = np.array(ia, dtype=int), np.array(ib, dtype=int)
    return a.x[ia], a.y[ia], a.se[ia], b.y[ib], b.se[ib]


def common_df(*curves: Curve) -> float | None:
    """Degrees of freedom of a comparison: the fewest of its curves' (conservative)."""
    given = [c.df for c in curves if c.df is not None]
    return min(given) if given else None


def informative(ya, yb, floor: float = FLOOR, ceiling: float = CEILING) -> np.ndarray:
    """True where the curves are neither both at the floor nor both at the ceiling."""
    ya, yb = np.asarray(ya), np.asarray(yb)
    return ~(((ya <= floor) & (yb <= floor)) | ((ya >= ceiling) & (yb >= ceiling)))


def keep_half(mask: np.ndarray, half: str | None) -> np.ndarray:
    """Keep the lower or upper half (by count) of the informative budgets."""
    if half is None:
        return mask
    if half not in ("low", "high"):
        raise ValueError(f"half must be 'low', 'high' or None, got {half!r}")
    index = np.flatnonzero(mask)
    keep = index[: (len(index) + 1) // 2] if half == "low" else index[len(index) // 2 :]
    out = np.zeros_like(mask)
    out[keep] = True
    return out


def _above_p(statistic, df) -> np.ndarray:
    """P-value of a one-sided test rejecting for a large ``statistic``."""
    statistic = np.asarray(statistic, dtype=float)
    return stats.norm.sf(statistic) if df is None else stats.t.sf(statistic, df)


def _standardised(difference, se) -> np.ndarray:
    """``difference / se``, with an exact (zero) error giving +-inf or 0."""
    difference, se = np.broadcast_arrays(
        np.asarray(difference, float), np.asarray(se, float)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        out = difference / se
    exact = np.where(difference > 0, np.inf, np.where(difference < 0, -np.inf, 0.0))
    return np.where(se > 0, out, exact)


def exists_pvalues(d, se, margin: float = MARGIN, df: float | None = None):
    """Per point, for a claim that ``d > 0``: the p-values of "not better"
    (``d <= 0``) and of "better by at least ``margin``" (``d >= margin``)."""
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    hold = _above_p(_standardised(d, se), df)
    opposite = _above_p(_standardised(margin - np.asarray(d, float), se), df)
    return hold, opposite


def band_pvalues(q, lo: float, hi: float, se, df: float | None = None):
    """Per point, for a claim that ``lo <= q <= hi``: the equivalence test's p-value
    (the larger of its two one-sided tests) and that of "inside the band" (the
    smaller one-sided test of leaving it, Bonferroni over the finite ends)."""
    if not lo <= hi:
        raise ValueError(f"lo must be at most hi, got {lo} > {hi}")
    q = np.asarray(q, dtype=float)
    below = _above_p(_standardised(q - lo, se), df) if np.isfinite(lo) else 0 * q
    over = _above_p(_standardised(hi - q, se), df) if np.isfinite(hi) else 0 * q
    hold = np.maximum(below, over)
    ends = int(np.isfinite(lo)) + int(np.isfinite(hi))
    sides = [
        _above_p(_standardised(side, se), df)
        for side, finite in ((q - hi, np.isfinite(hi)), (lo - q, np.isfinite(lo)))
        if finite
    ]
    opposite = np.minimum(1.0, ends * np.min(sides, axis=0)) if sides else 1 + 0 * q
    return hold, opposite


def outcomes(
    p_hold, p_opposite, alpha: float = ALPHA, some: bool = False
) -> np.ndarray:
    """Per point ``holds`` (the claim's test rejects at ``alpha``), ``opposite``
    (the Holm-adjusted test of the claim rejects) or ``level`` (neither). Where
    some point is opposite, the points that hold are Holm-adjusted too, so that a
    "partly" names parts that hold beyond chance. For a claim on ``some`` point
    the roles swap: the tests of the claim are Holm-adjusted and those against it
    are not (all must reject)."""
    p_hold, p_opposite = np.atleast_1d(p_hold), np.atleast_1d(p_opposite)
    if not len(p_hold):
        return np.array([], dtype=object)
    if some:
        held = holm(p_hold) < alpha
        against = (p_opposite < alpha) & ~held
    else:
        held = p_hold < alpha
        against = (holm(p_opposite) < alpha) & ~held
        if against.any():  # a part that holds beside one against: Holm on both
            held = holm(p_hold) < alpha
            against = (holm(p_opposite) < alpha) & ~held
    return np.where(held, "holds", np.where(against, "opposite", "level"))


def outcome_exists(
    d,
    se,
    *,
    margin: float = MARGIN,
    df: float | None = None,
    alpha: float = ALPHA,
    some: bool = False,
) -> np.ndarray:
    """Per point, for a claim that ``d > 0``: holds, opposite or level (module)."""
    return outcomes(*exists_pvalues(d, se, margin, df), alpha, some)


def outcome_band(
    q,
    lo: float,
    hi: float,
    se,
    *,
    df: float | None = None,
    alpha: float = ALPHA,
    some: bool = False,
) -> np.ndarray:
    """Per point, for a claim that ``lo <= q <= hi``: holds, opposite or level."""
    return outcomes(*band_pvalues(q, lo, hi, se, df), alpha, some)


def tally(found, some: bool = False) -> str:
    """The verdict word of per-point outcomes (module rule): every point must hold
    (``some``: one point, the outcomes then Holm-adjusted by the caller)."""
    found = np.asarray(found)
    held = int(np.sum(found == "holds"))
    against = int(np.sum(found == "opposite"))
    if some:
        if held:
            return AGREES
        return DIFFERS if against == len(found) else INCONCLUSIVE
    if held == len(found):
        return AGREES
    if against:
        return PARTLY if held else DIFFERS
    return INCONCLUSIVE


def over_range(
    found,
    xs,
    values,
    errors,
    x_name: str = "x",
    common: int = 1,
    *,
    some: bool = False,
    df: float | None = None,
    band: tuple[float, float] = (0.0, np.inf),
) -> Verdict:
    """The verdict of per-point outcomes ``found`` over the informative budgets.

    ``common`` is the number of budgets both curves were measured at, before the
    floor/ceiling rule; ``some``: the claim needs one budget only; ``band``: the
    claim's band for the values (``0`` to ``inf``: an effect that must exist), kept
    with each point's 90% interval as the verdict's evidence.
    """
    found = np.asarray(found)
    xs = np.asarray(xs)
    numbers = ", ".join(
        f"{x:.3g}: {v:+.3f} ± {e:.3f}" for x, v, e in zip(xs, values, errors)
    )
    numbers = f"at {x_name} {numbers}" if len(xs) else ""
    if not common:
        return not_comparable("the curves share no measured budget")
    if not len(found):
        return not_comparable(
            "at the floor or the ceiling at every common budget", numbers
        )
    where = "; ".join(
        f"{k} at {x_name} " + ", ".join(f"{x:.3g}" for x in xs[found == k])
        for k in ("holds", "opposite", "level")
        if np.any(found == k)
    )
    word = tally(found, some)
    half = critical(df) * np.asarray(errors, dtype=float)
    evidence = tuple(
        Point("", float(x), float(v), float(v - h), float(v + h), *band, str(o))
        for x, v, h, o in zip(xs, values, half, found)
    )
    if word == INCONCLUSIVE:
        where += (
            f"; the data cannot tell at this size (smallest effect detectable "
            f"at every budget {detectable(errors, df):.3g})"
        )
    span = f"informative at {x_name} {xs.min():.3g} to {xs.max():.3g}"
    return Verdict(word, f"{where} ({span}, {len(xs)} budgets)", numbers, evidence)


def points(parts, xs, values, low, high, found, band=(0.0, np.inf)) -> tuple:
    """The measured points of a verdict (:class:`.core.Point`), one per setting: its
    part name, setting ``x`` (``0``: a named setting, drawn one column a part), the
    estimate with the interval ``low`` to ``high`` its test used, the claim's
    ``band`` (one pair for all, or one pair per point) and the outcome in ``found``."""
    n = len(values)
    if not len(parts) == len(xs) == len(low) == len(high) == len(found) == n:
        raise ValueError("parts, xs, values, low, high and found must match in length")
    bands = [tuple(band)] * n if np.ndim(band) == 1 else [tuple(b) for b in band]
    if len(bands) != n:
        raise ValueError("band must be one (lo, hi) pair or one pair per point")
    return tuple(
        Point(
            str(k), float(x), float(v), float(a), float(b), float(lo), float(hi), str(o)
        )
        for k, x, v, a, b, (lo, hi), o in zip(
            parts, xs, values, low, high, bands, found
        )
    )
