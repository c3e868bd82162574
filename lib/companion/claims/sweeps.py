"""Reading curves out of the thesis sweeps' result tables (notebooks 07 and 08).

A sweep table has one row per grid point (:func:`companion.studies.thesis.run_grid`):
``dataset``, ``N``, ``d``, ``variant``, ``sensitivity`` (DIS), the composed budget
``epsilon_thesis`` and the accuracies ``raw``, ``top5`` (and GEO's ``geo_raw``,
``geo_top5``) with their standard errors. These helpers select a curve; a
variant or setting the run did not include gives ``None``, and the claim then
says it is not comparable in this run.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .core import Verdict, combine, not_comparable
from .rules import Curve, curve

__all__ = [
    "METRICS",
    "THESIS",
    "rows",
    "composed_curve",
    "value_at",
    "measured",
    "last",
    "missing",
    "per_metric",
    "release_share",
    "paired",
]

METRICS = ("top5", "raw")
THESIS = "Lepert 2022 (thesis)"


def rows(
    table: pd.DataFrame, *, dataset: str = "uniform", n=None, d=None, variant=None
) -> pd.DataFrame:
    """The grid points of one dataset (and size, dimension, variant if given)."""
    part = table[table["dataset"] == dataset]
    if n is not None:
        part = part[part["N"] == n]
    if d is not None:
        part = part[part["d"] == d]
    if variant is not None:
        part = part[part["variant"] == variant]
    return part


def composed_curve(
    table,
    variant,
    metric,
    *,
    utility: str,
    n=None,
    d=None,
    dataset="uniform",
    geo=False,
) -> Curve | None:
    """Accuracy against the composed budget: epsilon*/Delta (DIS) or epsilon* (CMP)."""
    part = rows(table, dataset=dataset, n=n, d=d, variant=variant).copy()
    if part.empty:
        return None
    x = (
        part["epsilon_thesis"] / part["sensitivity"]
        if utility == "dis"
        else part["epsilon_thesis"]
    )
    part = part.assign(x=x)
    column = f"geo_{metric}" if geo else metric
    return curve(part, "x", column, name=f"GEO ({variant})" if geo else variant)


def value_at(table, variant, metric, column, level, **where) -> tuple[float, float]:
    """``metric`` and its standard error where ``column`` is ``level`` (else NaN)."""
    part = rows(table, variant=variant, **where)
    part = part[np.isclose(part[column].astype(float), level)]
    if part.empty:
        return np.nan, np.nan
    return float(part[metric].iloc[0]), float(part[f"{metric}_se"].iloc[0])


def measured(c: Curve | None, level: float) -> tuple[float, float]:
    """A curve's value and standard error where it was measured at ``level``
    (relative tolerance 1e-9); NaN where the grid has no such point (the claim is
    then not comparable: a point is never interpolated)."""
    if c is None:
        return np.nan, np.nan
    hit = np.flatnonzero(np.isclose(c.x, level, rtol=1e-9, atol=0))
    if not len(hit):
        return np.nan, np.nan
    return float(c.y[hit[0]]), float(c.se[hit[0]])


def last(c: Curve | None) -> tuple[float, float]:
    """A curve's value and standard error at its largest budget (a plateau's height)."""
    if c is None:
        return np.nan, np.nan
    return float(c.y[-1]), float(c.se[-1])


def missing(*named) -> Verdict | None:
    """Not comparable if any curve is absent: ``named`` are (name, curve) pairs."""
    absent = [name for name, c in named if c is None]
    if absent:
        return not_comparable(f"{', '.join(absent)} not run in this profile")
    return None


def per_metric(judge_one, metrics=METRICS) -> Verdict:
    """A claim that names no metric is judged on each; the parts are combined."""
    return combine({m: judge_one(m) for m in metrics})


def release_share(table, variants, dataset: str) -> dict:
    """Share of the database each variant releases per query on ``dataset``."""
    out = {}
    for v in variants:
        part = rows(table, dataset=dataset, variant=v)
        if len(part):
            out[v] = float((part["released"] / part["N"]).max())
    return out


def paired(rule, a: tuple, b: tuple, **kw) -> Verdict:
    """``rule(curve_a, curve_b, **kw)``; not comparable if a (name, curve) is absent."""
    return missing(a, b) or rule(
        replace(a[1], name=a[0]), replace(b[1], name=b[0]), **kw
    )
