"""Claims of Liang and Yi on the identity query (Fig. 2) and on the convex hull
against ρ and n (Fig. 5; notebook 11).

``tables``: ``ident_rho`` and ``ident_n`` (one row per run of GP Basic and CGP
Basic: ``rho``, ``n``, ``n_actual``, ``trajectory``, ``repetition``, ``method``,
``max error``, ``l2 error``), ``hull_rho`` and ``hull_n`` (one row per run:
``rho``, ``n``, ``method``, ``jaccard``, ``trajectory``) and ``seed``.

As in :mod:`.liang_yi`, medians are compared with a 95% cluster bootstrap interval
that resamples whole trajectories (the default profile runs 6 trajectories, so
the interval rests on 6 clusters): a change between two settings holds where the
interval of the difference of medians excludes zero in the stated direction, is
opposite where it excludes zero the other way, and is level otherwise; a value
holds where its interval lies inside the band the words give and is opposite
where it lies outside. Over the settings a claim agrees when every setting holds
(:func:`companion.claims.rules.tally`). Nothing private is read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, Point, Verdict, combine, not_comparable
from .liang_yi import NOTEBOOK, SOURCE, band_outcome, cluster_gap, cluster_median
from .rules import tally

__all__ = ["CLOSE", "step_gaps", "RULE", "CLAIMS"]

#: A table a run did not make (its claims are then not comparable).
_NONE = pd.DataFrame()

#: "close to √n times": the ratio over √n within a factor of 1.5.
CLOSE = (2 / 3, 1.5)
_METRICS = ("max error", "l2 error")
_BASICS = ("GP Basic", "CGP Basic")


def step_gaps(runs, column, value, seed, *, rising: bool) -> list:
    """Per step between consecutive values of ``column``: (label, gap, low, high,
    outcome) of the median of ``value`` after the step minus before (``rising``)
    or before minus after, with its cluster bootstrap interval."""
    return [step for _, step in _gaps(runs, column, value, seed, rising)]


def _gaps(runs, column, value, seed, rising) -> list:
    """Per step of :func:`step_gaps`: (the step's later value, its tuple)."""
    levels = sorted(runs[column].unique())
    out = []
    for a, b in zip(levels[:-1], levels[1:]):
        before, after = runs[runs[column] == a], runs[runs[column] == b]
        if before.empty or after.empty:
            continue
        if len(set(before["trajectory"]) | set(after["trajectory"])) < 2:
            continue
        first, second = (before, after) if rising else (after, before)
        gap, low, high = cluster_gap(first, second, value, seed=seed)
        outcome = "holds" if low > 0 else "opposite" if high < 0 else "level"
        out.append((b, (f"{column} {a:g}→{b:g}", gap, low, high, outcome)))
    return out


def _steps_verdict(steps, xs) -> Verdict:
    """Every step must hold; the evidence is each step's change of medians in the
    claim's direction with its 95% cluster bootstrap interval, at the step's end
    ``xs``, against zero."""
    if not steps:
        return not_comparable("fewer than two settings on two trajectories or more")
    found = np.array([s[4] for s in steps])
    numbers = ", ".join(
        f"{s[0]}: {s[1]:+.3g} [{s[2]:+.3g}, {s[3]:+.3g}]" for s in steps
    )
    why = "; ".join(
        f"{o} at {', '.join(s[0] for s in steps if s[4] == o)}"
        for o in ("holds", "opposite", "level")
        if np.any(found == o)
    )
    evidence = tuple(
        Point("", float(x), s[1], s[2], s[3], 0.0, np.inf, s[4])
        for x, s in zip(xs, steps)
    )
    return Verdict(tally(found), why, numbers, evidence)


def _trend(table, methods, column, value, seed, rising) -> Verdict:
    if table.empty:
        return not_comparable("no runs in this profile")
    parts = {}
    for m in methods:
        runs = table[table["method"] == m]
        gaps = _gaps(runs, column, value, seed, rising)
        parts[m] = _steps_verdict([g for _, g in gaps], [b for b, _ in gaps])
    return combine(parts)


def _sqrt_n_ratio(table, column, seed) -> Verdict:
    """GP Basic's error over CGP Basic's on the same tuple and run, over
    √n_actual, per value of ``column``: inside :data:`CLOSE`."""
    rows, found, evidence = [], [], []
    if table.empty:
        return not_comparable("no identity-query runs")
    for metric in _METRICS:
        paired = table.pivot_table(
            index=[column, "trajectory", "repetition", "n_actual"],
            columns="method",
            values=metric,
        ).reset_index()
        if not set(_BASICS) <= set(paired.columns):
            continue
        paired["r"] = paired["GP Basic"] / paired["CGP Basic"]
        paired["r"] /= np.sqrt(paired["n_actual"])
        for key, part in paired.groupby(column):
            if part["trajectory"].nunique() < 2:
                continue
            med, low, high = cluster_median(part["r"], part["trajectory"], seed=seed)
            found.append(band_outcome(low, high, *CLOSE))
            rows.append(f"{metric} {column} {key:g}: {med:.3f} [{low:.3f}, {high:.3f}]")
            evidence.append(
                Point(metric, float(key), med, low, high, *CLOSE, found[-1])
            )
    if not rows:
        return not_comparable("GP and CGP Basic not run on two trajectories or more")
    found = np.array(found)
    why = (
        f"inside {CLOSE[0]:.3g} to {CLOSE[1]:.3g} at {int(np.sum(found == 'holds'))}, "
        f"outside at {int(np.sum(found == 'opposite'))} of {len(found)} settings"
    )
    return Verdict(tally(found), why, "; ".join(rows), tuple(evidence))


def _fig2(t):
    seed = t["seed"]
    parts = {}
    for metric in _METRICS:
        parts[f"{metric} falls as ρ grows"] = _trend(
            t.get("ident_rho", _NONE), _BASICS, "rho", metric, seed, rising=False
        )
        parts[f"{metric} grows with n"] = _trend(
            t.get("ident_n", _NONE), _BASICS, "n", metric, seed, rising=True
        )
    parts["GP ≈ √n × CGP at each ρ"] = _sqrt_n_ratio(
        t.get("ident_rho", _NONE), "rho", seed
    )
    parts["GP ≈ √n × CGP at each n"] = _sqrt_n_ratio(t.get("ident_n", _NONE), "n", seed)
    return combine(parts)


def _hull_rho(t):
    methods = ("CGP PCH", "GP PCH", "CGP Basic", "GP Basic")
    return _trend(
        t.get("hull_rho", _NONE), methods, "rho", "jaccard", t["seed"], rising=True
    )


def _hull_n_baselines(t):
    return _trend(
        t.get("hull_n", _NONE), _BASICS, "n", "jaccard", t["seed"], rising=False
    )


#: The rule of every claim here, with the size the default profile gives it.
RULE = (
    "medians with a 95% cluster bootstrap interval over trajectories (6 "
    "trajectories, 3 runs each, at the default profile: the interval rests on 6 "
    "clusters); "
)
CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Fig. 2",
        "'Both algorithms have smaller error as the privacy budget ρ increases and "
        "have larger error as the number of points n increases. When n is held "
        "fixed, the error of GP Basic is close to √n times that of CGP Basic'",
        "median max error and ℓ2 error of GP Basic and CGP Basic at each step of ρ "
        "and of n; per run, GP Basic's error over CGP Basic's on the same tuple, "
        "over √n_actual, at each ρ and each n",
        RULE + "a step holds where the interval of the change excludes zero in the "
        f"stated direction; 'close to √n': the interval inside {CLOSE[0]:.3g} to "
        f"{CLOSE[1]:.3g}; agrees when every step and setting holds",
        _fig2,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Fig. 5",
        "'All four algorithms have better performance as ρ increases'",
        "median Jaccard index of CGP PCH, GP PCH, CGP Basic and GP Basic at each "
        "step of ρ",
        RULE + "a step holds where the interval of the rise excludes zero; agrees "
        "when every step of every algorithm holds",
        _hull_rho,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Fig. 5",
        "'The baseline algorithms, especially GP Basic, lose utility as the number "
        "of points n increases'",
        "median Jaccard index of GP Basic and CGP Basic at each step of n",
        RULE + "a step holds where the interval of the fall excludes zero; agrees "
        "when every step of both baselines holds",
        _hull_n_baselines,
    ),
)
