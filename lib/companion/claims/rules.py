"""The rules that turn a sweep's numbers into a verdict on a source's words.

Every rule judges a *curve* (accuracy against a budget, with a standard error per
point) across the whole **informative range** of the sweep, never at one chosen
point. A budget is informative when the compared curves are neither both at the
floor (accuracy at most ``FLOOR`` = 0.05) nor both at the ceiling (at least
``CEILING`` = 0.95): there every method looks alike whatever the claim. Curves on
different grids are compared on the union of their budgets inside the common
range, each interpolated linearly in log10 of the budget (as
:func:`companion.studies.thesis.at_level`); the x-axis is a *composed* budget, so two
methods are compared at equal composed privacy.

At each informative budget a point is ``holds``, ``opposite`` or ``level``:

* a claim that an effect **exists** ("A is better than B") holds where the
  difference is in the stated direction by more than ``Z`` = 2 of our standard
  errors, and is opposite where it goes the other way by more than ``Z`` standard
  errors of the *total* uncertainty: ours and the source's own sampling error
  (the thesis's archived script averages 50 queries per point, so a proportion
  ``p`` it reports has standard error ``sqrt(p (1 - p) / 50)``);
* a claim of a **value** ("about 90%", "a small gain", "roughly doubles": the
  words give a band ``[lo, hi]``) holds where the distance from our estimate to
  the band is at most ``Z`` of our standard errors, and is opposite where it is
  more than ``Z`` total standard errors.

Over the range: no informative budget gives **not comparable**; the claim
**agrees** when it holds at half the informative budgets or more and is opposite
at none; it **differs** when it holds at none; otherwise it **partly** agrees,
and the verdict says where it holds. The standard errors of two curves are
combined as independent (root sum of squares), a ratio's by the delta method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .core import AGREES, DIFFERS, PARTLY, Verdict, combine, not_comparable

__all__ = [
    "Z",
    "FLOOR",
    "CEILING",
    "THESIS_QUERIES",
    "Curve",
    "curve",
    "source_se",
    "align",
    "informative",
    "outcome_exists",
    "outcome_band",
    "over_range",
    "above",
    "difference_within",
    "ratio_within",
    "value_within",
    "overtakes",
    "exact_at_most",
]

#: Standard errors a difference must exceed (about a two-sided 95% level).
Z = 2.0
#: Accuracy at or below which a curve is at the floor.
FLOOR = 0.05
#: Accuracy at or above which a curve is at the ceiling.
CEILING = 0.95
#: Queries per point in the thesis's archived experiment script.
THESIS_QUERIES = 50


@dataclass(frozen=True)
class Curve:
    """A measured curve: values ``y`` with standard errors ``se`` at budgets ``x``."""

    x: np.ndarray
    y: np.ndarray
    se: np.ndarray
    name: str = ""

    def __post_init__(self):
        if not len(self.x) == len(self.y) == len(self.se):
            raise ValueError("x, y and se must have one value per budget")
        if np.any(~np.isfinite(self.x)) or np.any(np.asarray(self.x) <= 0):
            raise ValueError("x must hold positive finite budgets")
        if np.any(np.asarray(self.se) < 0):
            raise ValueError("se must be non-negative")


def curve(
    table: pd.DataFrame, x: str, y: str, se: str | None = None, name: str = ""
) -> Curve:
    """The curve ``y`` (standard error ``se``, default ``y + "_se"``) against ``x``."""
    se = se or f"{y}_se"
    part = table[[x, y, se]].dropna().sort_values(x)
    return Curve(
        part[x].to_numpy(float), part[y].to_numpy(float), part[se].to_numpy(float), name
    )


def source_se(p, n: int | None = THESIS_QUERIES) -> np.ndarray:
    """Sampling error of a proportion ``p`` from ``n`` queries (0 if ``n`` is None)."""
    p = np.asarray(p, dtype=float)
    if n is None:
        return np.zeros_like(p)
    if n < 1:
        raise ValueError(f"n must be a positive number of queries, got {n}")
    return np.sqrt(np.clip(p * (1 - p), 0, None) / n)


def align(a: Curve, b: Curve):
    """Both curves on the union of their budgets inside the common range (log-linear).

    Curves without a common budget give empty arrays.
    """
    if not len(a.x) or not len(b.x):
        return (np.array([]),) * 5
    low, high = max(a.x.min(), b.x.min()), min(a.x.max(), b.x.max())
    xs = np.union1d(a.x, b.x)
    xs = xs[(xs >= low * (1 - 1e-12)) & (xs <= high * (1 + 1e-12))]

    def at(c, values):
        return np.interp(np.log10(xs), np.log10(c.x), values)

    return xs, at(a, a.y), at(a, a.se), at(b, b.y), at(b, b.se)


def informative(ya, yb, floor: float = FLOOR, ceiling: float = CEILING) -> np.ndarray:
    """True where the curves are neither both at the floor nor both at the ceiling."""
    ya, yb = np.asarray(ya), np.asarray(yb)
    return ~(((ya <= floor) & (yb <= floor)) | ((ya >= ceiling) & (yb >= ceiling)))


def _half(mask: np.ndarray, half: str | None) -> np.ndarray:
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


def outcome_exists(d, se_ours, se_total, z: float = Z) -> np.ndarray:
    """Per point, for a claim that ``d > 0``: holds, opposite or level (see module)."""
    d = np.asarray(d, dtype=float)
    return np.where(
        d > z * np.asarray(se_ours),
        "holds",
        np.where(d < -z * np.asarray(se_total), "opposite", "level"),
    )


def outcome_band(
    q, lo: float, hi: float, se_ours, se_total, z: float = Z
) -> np.ndarray:
    """Per point, for a claim that ``lo <= q <= hi``: holds, opposite or level."""
    if lo > hi:
        raise ValueError(f"lo must be at most hi, got {lo} > {hi}")
    q = np.asarray(q, dtype=float)
    distance = np.maximum(np.maximum(lo - q, q - hi), 0)
    return np.where(
        distance <= z * np.asarray(se_ours),
        "holds",
        np.where(distance > z * np.asarray(se_total), "opposite", "level"),
    )


def over_range(
    outcomes,
    xs,
    values,
    errors,
    x_name: str = "x",
    common: int = 1,
    every: bool = False,
) -> Verdict:
    """The verdict of per-point outcomes over the informative budgets (module rule).

    ``common`` is the number of common budgets before the floor/ceiling rule;
    ``every`` (a claim worded "at every budget") needs the claim to hold at every
    informative budget to agree.
    """
    outcomes = np.asarray(outcomes)
    numbers = ", ".join(
        f"{x:.3g}: {v:+.3f} ± {e:.3f}" for x, v, e in zip(xs, values, errors)
    )
    numbers = f"at {x_name} {numbers}" if len(xs) else ""
    if not common:
        return not_comparable("the curves share no budget")
    if not len(outcomes):
        return not_comparable(
            "at the floor or the ceiling at every common budget", numbers
        )
    counts = {k: int(np.sum(outcomes == k)) for k in ("holds", "opposite", "level")}
    where = "; ".join(
        f"{k} at {x_name} " + ", ".join(f"{x:.3g}" for x in xs[outcomes == k])
        for k in ("holds", "opposite", "level")
        if counts[k]
    )
    enough = (
        counts["holds"] == len(outcomes)
        if every
        else counts["holds"] * 2 >= len(outcomes)
    )
    if enough and counts["opposite"] == 0:
        return Verdict(AGREES, where, numbers)
    if counts["holds"] == 0:
        return Verdict(DIFFERS, where, numbers)
    return Verdict(PARTLY, where, numbers)


def above(
    a: Curve,
    b: Curve,
    *,
    source_n: int | None = THESIS_QUERIES,
    z: float = Z,
    half: str | None = None,
    x_name: str = "x",
    every: bool = False,
    floor: float = FLOOR,
    ceiling: float = CEILING,
) -> Verdict:
    """Claim: ``a`` lies above ``b`` across the informative range (or its ``half``).

    ``every``: the claim says "at every budget" (see :func:`over_range`); ``floor``
    and ``ceiling`` bound the informative range (``-inf`` and ``inf`` for a quantity
    that is not an accuracy, such as a distance).
    """
    xs, ya, sa, yb, sb = align(a, b)
    keep = _half(informative(ya, yb, floor, ceiling), half)
    d, se = (ya - yb)[keep], np.hypot(sa, sb)[keep]
    source = np.hypot(source_se(ya, source_n), source_se(yb, source_n))[keep]
    total = np.hypot(se, source)
    return over_range(
        outcome_exists(d, se, total, z), xs[keep], d, se, x_name, len(xs), every
    )


def difference_within(
    a: Curve,
    b: Curve,
    lo: float,
    hi: float,
    *,
    source_n: int | None = THESIS_QUERIES,
    z: float = Z,
    x_name: str = "x",
) -> Verdict:
    """Claim: ``lo <= a - b <= hi`` across the informative range ("a small gain")."""
    xs, ya, sa, yb, sb = align(a, b)
    keep = informative(ya, yb)
    d, se = (ya - yb)[keep], np.hypot(sa, sb)[keep]
    source = np.hypot(source_se(ya, source_n), source_se(yb, source_n))[keep]
    total = np.hypot(se, source)
    return over_range(
        outcome_band(d, lo, hi, se, total, z), xs[keep], d, se, x_name, len(xs)
    )


def ratio_within(
    a: Curve,
    b: Curve,
    lo: float,
    hi: float,
    *,
    source_n: int | None = THESIS_QUERIES,
    z: float = Z,
    x_name: str = "x",
) -> Verdict:
    """Claim: ``lo <= a / b <= hi`` across the informative range ("roughly doubles").

    A budget where ``b`` is at the floor has no usable ratio and is left out.
    """
    xs, ya, sa, yb, sb = align(a, b)
    keep = informative(ya, yb) & (yb > FLOOR)
    r = ya[keep] / yb[keep]
    se = r * np.hypot(sa[keep] / ya[keep].clip(1e-12), sb[keep] / yb[keep])
    src = r * np.hypot(
        source_se(ya[keep], source_n) / ya[keep].clip(1e-12),
        source_se(yb[keep], source_n) / yb[keep],
    )
    outcomes = outcome_band(r, lo, hi, se, np.hypot(se, src), z)
    return over_range(outcomes, xs[keep], r, se, x_name, len(xs))


def value_within(
    value: float,
    se: float,
    lo: float,
    hi: float,
    *,
    source_n: int | None = THESIS_QUERIES,
    z: float = Z,
    where: str = "",
) -> Verdict:
    """Claim: a value the source names at a setting it names lies in ``[lo, hi]``."""
    if not np.isfinite(value) or not np.isfinite(se):
        return not_comparable(f"no value at {where or 'the named setting'} in this run")
    total = float(np.hypot(se, source_se(value, source_n)))
    outcome = outcome_band([value], lo, hi, [se], [total], z)[0]
    numbers = f"{value:.3f} ± {se:.3f}" + (f" at {where}" if where else "")
    numbers += f" (band {lo:g} to {hi:g}, total error {total:.3f})"
    if outcome == "holds":
        return Verdict(AGREES, "", numbers)
    which = "total" if outcome == "opposite" else "of our"
    why = f"outside the band by more than two {which} standard errors"
    return Verdict(DIFFERS, why, numbers)


def overtakes(a: Curve, b: Curve, *, z: float = Z, x_name: str = "x") -> Verdict:
    """Claim: ``b`` is above ``a`` at small budgets and ``a`` overtakes it later.

    Each informative budget is signed by our standard error: +1 where ``a`` is above
    by more than ``Z`` of them, -1 where ``b`` is, 0 otherwise. "``b`` above first"
    holds if the first non-zero sign is -1, "``a`` overtakes" if the last is +1.
    """
    xs, ya, sa, yb, sb = align(a, b)
    keep = informative(ya, yb)
    d, se = (ya - yb)[keep], np.hypot(sa, sb)[keep]
    numbers = ", ".join(
        f"{x:.3g}: {v:+.3f} ± {e:.3f}" for x, v, e in zip(xs[keep], d, se)
    )
    if not keep.any():
        return not_comparable("at the floor or the ceiling at every common budget")
    signs = np.sign(d) * (np.abs(d) > z * se)
    shown = signs[signs != 0]
    first = Verdict(
        AGREES if len(shown) and shown[0] < 0 else DIFFERS,
        "",
        f"{a.name} − {b.name} at {x_name} {numbers}",
    )
    later = Verdict(AGREES if len(shown) and shown[-1] > 0 else DIFFERS)
    return combine({f"{b.name} above first": first, f"{a.name} overtakes": later})


def exact_at_most(value: float, bound: float, what: str) -> Verdict:
    """Claim: an exactly computed quantity (a composed budget) is at most ``bound``."""
    numbers = f"{what}: {value:.4g} against {bound:.4g}"
    if value <= bound * (1 + 1e-9):
        return Verdict(AGREES, "exact computation", numbers)
    return Verdict(DIFFERS, "exact computation", numbers)
