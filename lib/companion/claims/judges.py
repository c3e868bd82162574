"""The rules of :mod:`companion.claims.rules` applied to what a claim compares: two
curves (one above the other, their difference or ratio in a band, one overtaking
the other), a value at a named setting, an exact quantity against a bound, and two
methods cross-validated over folds. Each returns the :class:`Verdict` the module's
tests give; nothing private is read.
"""

from __future__ import annotations

import numpy as np

from .core import (
    AGREES,
    DIFFERS,
    INCONCLUSIVE,
    Point,
    Verdict,
    combine,
    not_comparable,
)
from .inference import corrected_resampled_ttest, outcome_at
from .rules import (
    ALPHA,
    CEILING,
    FLOOR,
    MARGIN,
    Curve,
    align,
    common_df,
    critical,
    detectable,
    exists_pvalues,
    informative,
    keep_half,
    outcome_band,
    outcome_exists,
    outcomes,
    over_range,
    points,
    tally,
)

__all__ = [
    "above",
    "difference_within",
    "ratio_within",
    "value_within",
    "overtakes",
    "exact_at_most",
    "cv_better",
]


def _pair(a: Curve, b: Curve, half, floor, ceiling):
    xs, ya, sa, yb, sb = align(a, b)
    keep = keep_half(informative(ya, yb, floor, ceiling), half)
    return xs, ya, sa, yb, sb, keep


def above(
    a: Curve,
    b: Curve,
    *,
    margin: float = MARGIN,
    half: str | None = None,
    x_name: str = "x",
    some: bool = False,
    floor: float = FLOOR,
    ceiling: float = CEILING,
) -> Verdict:
    """Claim: ``a`` lies above ``b`` across the informative range (or its ``half``;
    ``some``: at some budget). ``floor`` and ``ceiling`` bound the informative
    range (``-inf`` and ``inf`` for a quantity that is not an accuracy)."""
    xs, ya, sa, yb, sb, keep = _pair(a, b, half, floor, ceiling)
    d, se = (ya - yb)[keep], np.hypot(sa, sb)[keep]
    df = common_df(a, b)
    found = outcome_exists(d, se, margin=margin, df=df, some=some)
    return over_range(found, xs[keep], d, se, x_name, len(xs), some=some, df=df)


def difference_within(
    a: Curve,
    b: Curve,
    lo: float,
    hi: float,
    *,
    x_name: str = "x",
    floor: float = FLOOR,
    ceiling: float = CEILING,
) -> Verdict:
    """Claim: ``lo <= a - b <= hi`` across the informative range ("a small gain")."""
    xs, ya, sa, yb, sb, keep = _pair(a, b, None, floor, ceiling)
    d, se = (ya - yb)[keep], np.hypot(sa, sb)[keep]
    df = common_df(a, b)
    found = outcome_band(d, lo, hi, se, df=df)
    return over_range(found, xs[keep], d, se, x_name, len(xs), df=df, band=(lo, hi))


def ratio_within(
    a: Curve, b: Curve, lo: float, hi: float, *, x_name: str = "x"
) -> Verdict:
    """Claim: ``lo <= a / b <= hi`` across the informative range ("roughly doubles").

    A budget where ``b`` is at the floor has no usable ratio and is left out.
    """
    xs, ya, sa, yb, sb, keep = _pair(a, b, None, FLOOR, CEILING)
    keep &= yb > FLOOR
    r = ya[keep] / yb[keep]
    se = np.hypot(sa[keep] / yb[keep], r * sb[keep] / yb[keep])
    df = common_df(a, b)
    found = outcome_band(r, lo, hi, se, df=df)
    return over_range(found, xs[keep], r, se, x_name, len(xs), df=df, band=(lo, hi))


def value_within(
    value: float,
    se: float,
    lo: float,
    hi: float,
    *,
    df: float | None = None,
    where: str = "",
) -> Verdict:
    """Claim: a value the source names at a setting it names lies in ``[lo, hi]``
    (the equivalence test of the module); a setting not measured in this run is
    not comparable."""
    if not np.isfinite(value) or not np.isfinite(se):
        return not_comparable(
            f"not measured at {where or 'the named setting'} in this run"
        )
    found = outcome_band([value], lo, hi, [se], df=df)
    numbers = f"{value:.3f} ± {se:.3f}" + (f" at {where}" if where else "")
    numbers += f" (band {lo:g} to {hi:g})"
    word = tally(found)
    half = critical(df) * se
    evidence = (
        Point(where, 0.0, value, value - half, value + half, lo, hi, str(found[0])),
    )
    why = {
        AGREES: f"the 90% interval ±{half:.3f} lies inside the band",
        DIFFERS: "the 90% interval lies outside the band",
        INCONCLUSIVE: f"the 90% interval ±{half:.3f} straddles the band's edge",
    }[word]
    return Verdict(word, why, numbers, evidence)


def overtakes(
    a: Curve, b: Curve, *, margin: float = MARGIN, x_name: str = "x"
) -> Verdict:
    """Claim: ``b`` is above ``a`` at small budgets and ``a`` overtakes it later.

    Each informative budget is signed by one-sided tests at ``ALPHA``: +1 where
    ``a`` is shown above, -1 where ``b`` is, 0 otherwise. "``b`` above first"
    agrees if the first non-zero sign is -1 and differs if it is +1; "``a``
    overtakes" agrees if the last is +1 and differs if it is -1; no sign at all
    is inconclusive.
    """
    xs, ya, sa, yb, sb, keep = _pair(a, b, None, FLOOR, CEILING)
    d, se = (ya - yb)[keep], np.hypot(sa, sb)[keep]
    df = common_df(a, b)
    if not len(xs):
        return not_comparable("the curves share no measured budget")
    if not keep.any():
        return not_comparable("at the floor or the ceiling at every common budget")
    numbers = ", ".join(
        f"{x:.3g}: {v:+.3f} ± {e:.3f}" for x, v, e in zip(xs[keep], d, se)
    )
    up, _ = exists_pvalues(d, se, margin, df)
    down, _ = exists_pvalues(-d, se, margin, df)
    signs = np.where(up < ALPHA, 1, np.where(down < ALPHA, -1, 0))
    shown = signs[signs != 0]
    small = detectable(se, df)

    def word(sign, wanted):
        if sign is None:
            return Verdict(
                INCONCLUSIVE, f"no budget shows an order (detectable {small:.3g})"
            )
        return Verdict(AGREES if sign == wanted else DIFFERS)

    first = word(shown[0] if len(shown) else None, -1)
    later = word(shown[-1] if len(shown) else None, 1)
    first = Verdict(first.word, first.why, f"{a.name} − {b.name} at {x_name} {numbers}")
    return combine({f"{b.name} above first": first, f"{a.name} overtakes": later})


def exact_at_most(value: float, bound: float, what: str) -> Verdict:
    """Claim: an exactly computed quantity (a composed budget) is at most ``bound``."""
    numbers = f"{what}: {value:.4g} against {bound:.4g}"
    if value <= bound * (1 + 1e-9):
        return Verdict(AGREES, "exact computation", numbers)
    return Verdict(DIFFERS, "exact computation", numbers)


def cv_better(
    differences: dict,
    n_train: int,
    n_test: int,
    alpha: float = ALPHA,
    margin: float = MARGIN,
) -> Verdict:
    """Claim: method A beats B on every dataset/budget of a finding (cross-validated).

    ``differences`` maps each dataset or budget to the fold differences A - B. Each
    gets Nadeau and Bengio's corrected resampled t-test, one-sided on ``J - 1``
    degrees of freedom: a setting holds where it rejects "A not better" at
    ``alpha`` (every setting must: an intersection-union test, uncorrected), is
    opposite where the Holm-adjusted test of "A better by at least ``margin``"
    rejects, level otherwise; the verdict is :func:`tally`'s. Its evidence is each
    setting's mean difference with the one-sided test's interval (mean ± the t
    quantile at ``1 - alpha`` times the corrected error), a point per setting.
    """
    if not differences:
        raise ValueError("differences must name at least one dataset or budget")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    names = list(differences)
    means, errors, dfs = [], [], []
    for k in names:
        d = np.asarray(differences[k], dtype=float)
        t, _ = corrected_resampled_ttest(d, n_train, n_test)
        means.append(d.mean())
        errors.append(abs(d.mean() / t) if np.isfinite(t) and t != 0 else 0.0)
        dfs.append(len(d) - 1)
    means, errors = np.array(means), np.array(errors)
    hold = np.array(
        [exists_pvalues(m, e, margin, f)[0] for m, e, f in zip(means, errors, dfs)]
    )
    against = np.array(
        [exists_pvalues(m, e, margin, f)[1] for m, e, f in zip(means, errors, dfs)]
    )
    found = outcomes(hold, against, alpha)
    numbers = "; ".join(
        f"{k}: mean {m:+.3f} ± {e:.3f}, one-sided p {p:.3f}"
        for k, m, e, p in zip(names, means, errors, hold)
    )
    why = "; ".join(
        outcome_at(o, [k for k, f in zip(names, found) if f == o], len(names))
        for o in ("holds", "opposite", "level")
        if np.any(found == o)
    )
    word = tally(found)
    if word == INCONCLUSIVE:
        small = detectable(errors, min(dfs))
        why += f"; smallest effect detectable at every setting {small:.3g}"
    half = np.array([critical(f, alpha) * e for e, f in zip(errors, dfs)])
    evidence = points(
        names, np.zeros(len(names)), means, means - half, means + half, found
    )
    return Verdict(word, why, numbers, evidence)
