"""Claims of Liang and Yi on CGP's k-NN and convex-hull algorithms (§5; notebook 11).

``tables``: ``knn_k`` (one row per run: ``k``, ``method``, normalized ``error``,
``trajectory``, ``repetition``), ``hull_n`` (``n``, ``method``, ``jaccard``, ...)
and ``seed``. Errors are heavy-tailed and the runs share a few trajectories, so a
comparison is of medians with a cluster bootstrap interval over trajectories
(:func:`companion.claims.inference.median_gap`, 95%): an ordering holds where the
interval excludes zero in the stated direction (a one-sided test at 2.5%), is
contradicted where it excludes zero the other way, and is inconclusive otherwise
(the interval straddles zero: the data cannot tell at this size).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .core import (
    AGREES,
    DIFFERS,
    INCONCLUSIVE,
    Claim,
    Point,
    Verdict,
    combine,
    not_comparable,
)
from .inference import median_gap
from .rules import tally

__all__ = [
    "NOTEBOOK",
    "SOURCE",
    "HIGH",
    "cluster_median",
    "cluster_gap",
    "band_outcome",
    "EXISTS",
    "CLAIMS",
]

NOTEBOOK = "11_concentrated_geo_privacy"
SOURCE = "Liang and Yi 2023 (concentrated geo-privacy)"
#: "consistently high utility": a median Jaccard index of 0.5 or more.
HIGH = 0.5


def _resampled_medians(by, picks) -> np.ndarray:
    """Median of the clusters ``by[j]`` concatenated, for each row ``j``s of
    ``picks`` (one bootstrap resample a row)."""
    if len({len(v) for v in by}) == 1:  # equal clusters: all resamples at once
        return np.median(np.stack(by)[picks].reshape(len(picks), -1), axis=1)
    return np.array([np.median(np.concatenate([by[j] for j in row])) for row in picks])


def _clusters(values, clusters, groups):
    values, clusters = np.asarray(values, float), np.asarray(clusters)
    return [values[clusters == g] for g in groups]


def cluster_median(
    values, clusters, *, seed: int = 0, n_resamples: int = 2000, level: float = 0.95
) -> tuple[float, float, float]:
    """Median of ``values`` and its percentile bootstrap interval, each resample
    drawing the ``clusters`` (trajectories) with replacement with all their values."""
    if not len(values):
        raise ValueError("values must hold at least one value")
    if n_resamples < 100:
        raise ValueError(f"n_resamples must be at least 100, got {n_resamples}")
    groups = sorted(set(np.asarray(clusters).tolist()))
    by = _clusters(values, clusters, groups)
    picks = np.random.default_rng(seed).choice(len(by), size=(n_resamples, len(by)))
    low, high = np.quantile(
        _resampled_medians(by, picks), [(1 - level) / 2, (1 + level) / 2]
    )
    return float(np.median(values)), float(low), float(high)


def cluster_gap(
    a, b, value, *, cluster="trajectory", seed: int = 0, n_resamples: int = 2000
) -> tuple[float, float, float]:
    """median(b) - median(a) of the column ``value`` of the runs ``a`` and ``b`` and
    its 95% percentile bootstrap interval, each resample drawing the clusters with
    replacement and keeping all their runs of both (runs of one trajectory move
    together)."""
    if a.empty or b.empty:
        raise ValueError("a and b must hold runs")
    groups = sorted(set(a[cluster]) | set(b[cluster]))
    by_a = _clusters(a[value], a[cluster], groups)
    by_b = _clusters(b[value], b[cluster], groups)
    picks = np.random.default_rng(seed).choice(
        len(groups), size=(n_resamples, len(groups))
    )
    gaps = _resampled_medians(by_b, picks) - _resampled_medians(by_a, picks)
    point = float(np.median(b[value]) - np.median(a[value]))
    low, high = np.quantile(gaps, [0.025, 0.975])
    return point, float(low), float(high)


def band_outcome(low: float, high: float, lo: float, hi: float) -> str:
    """``holds`` when the interval [low, high] lies inside [lo, hi], ``opposite``
    when it lies outside, ``level`` when it straddles an end."""
    if lo <= low and high <= hi:
        return "holds"
    if high < lo or low > hi:
        return "opposite"
    return "level"


def _ordering(runs, better, worse, value, seed, higher=False, x=0.0) -> Verdict:
    """``better``: lower median ``value`` than ``worse`` (higher if ``higher``); the
    evidence is the gap of medians in the claim's direction with its 95% cluster
    bootstrap interval, at setting ``x``, against zero."""
    methods = set(runs["method"])
    if not {better, worse} <= methods or runs["trajectory"].nunique() < 2:
        return not_comparable(
            f"{better} or {worse} not run on two trajectories or more"
        )
    low_side, high_side = (worse, better) if higher else (better, worse)
    gap, low, high = median_gap(runs, low_side, high_side, value, seed=seed)
    numbers = (
        f"{high_side} − {low_side} median {value}: {gap:+.3g} [{low:+.3g}, {high:+.3g}]"
    )
    outcome = band_outcome(low, high, 0.0, np.inf)
    evidence = (Point("", float(x), gap, low, high, 0.0, np.inf, outcome),)
    if low > 0:
        return Verdict(AGREES, "", numbers, evidence)
    if high < 0:
        return Verdict(DIFFERS, "reversed beyond the interval", numbers, evidence)
    return Verdict(INCONCLUSIVE, "the interval straddles zero", numbers, evidence)


def _at(table, column, pick):
    if table.empty:
        return table
    values = sorted(table[column].unique())
    return table[table[column] == values[pick]]


def _small_k(t):
    runs = _at(t["knn_k"], "k", 0)
    return combine(
        {
            f"{p} below {b}": _ordering(runs, p, b, "error", t["seed"])
            for p, b in (("CGP PNN", "CGP Basic"), ("GP PNN", "GP Basic"))
        }
    )


def _large_k(t):
    runs = _at(t["knn_k"], "k", -1)
    return combine(
        {
            f"CGP Basic below {p}": _ordering(runs, "CGP Basic", p, "error", t["seed"])
            for p in ("GP PNN", "CGP PNN")
        }
    )


def _gp_basic_worst(t):
    runs = t["knn_k"]
    parts = {}
    for k in sorted(runs["k"].unique()) if not runs.empty else []:
        at_k = runs[runs["k"] == k]
        parts[f"k = {k}"] = combine(
            {
                f"{m} below GP Basic": _ordering(
                    at_k, m, "GP Basic", "error", t["seed"], x=float(k)
                )
                for m in ("CGP Basic", "GP PNN", "CGP PNN")
            }
        )
    return (
        _by_method(combine(parts), keep=0) if parts else not_comparable("no k-NN runs")
    )


def _by_method(verdict: Verdict, keep: int = -1) -> Verdict:
    """``verdict`` with its points named by one level of their part names only
    (``keep``: the last, or the first; the setting is their ``x``), so that a
    figure draws one series a method."""
    evidence = tuple(
        replace(p, part=p.part.split(" · ")[keep]) for p in verdict.evidence
    )
    return replace(verdict, evidence=evidence)


def _pch_stays_high(t):
    hull = t["hull_n"]
    if hull.empty:
        return not_comparable("no convex-hull runs")
    sizes = sorted(hull["n"].unique())
    if len(sizes) < 2:
        return not_comparable("one tuple size in this profile")
    parts = {}
    for m in ("CGP PCH", "GP PCH"):
        found, numbers, evidence = [], [], []
        for n in sizes:
            runs = hull[(hull["n"] == n) & (hull["method"] == m)]
            if runs["trajectory"].nunique() < 2:
                continue
            med, low, high = cluster_median(
                runs["jaccard"], runs["trajectory"], seed=t["seed"]
            )
            found.append(band_outcome(low, high, HIGH, 1.0))
            numbers.append(f"n {n:g}: {med:.3f} [{low:.3f}, {high:.3f}]")
            evidence.append(Point("", float(n), med, low, high, HIGH, 1.0, found[-1]))
        if not found:
            parts[f"{m} high at every n"] = not_comparable(f"{m} not run")
            continue
        found = np.array(found)
        parts[f"{m} high at every n"] = Verdict(
            tally(found),
            f"interval above {HIGH} at {int(np.sum(found == 'holds'))} of "
            f"{len(found)} n, below at {int(np.sum(found == 'opposite'))}",
            "median Jaccard [95% interval] " + ", ".join(numbers),
            tuple(evidence),
        )
    for m in ("CGP PCH", "GP PCH"):
        parts[f"{m} above CGP Basic at every n"] = combine(
            {
                f"n = {n:g}": _ordering(
                    hull[hull["n"] == n],
                    m,
                    "CGP Basic",
                    "jaccard",
                    t["seed"],
                    higher=True,
                    x=float(n),
                )
                for n in sizes
            }
        )
    return _by_method(combine(parts), keep=0)


def _cgp_pch_ahead(t):
    hull = t["hull_n"]
    if hull.empty:
        return not_comparable("no convex-hull runs")
    parts = {
        f"n = {n}": _ordering(
            hull[hull["n"] == n],
            "CGP PCH",
            "GP PCH",
            "jaccard",
            t["seed"],
            higher=True,
            x=float(n),
        )
        for n in sorted(hull["n"].unique())
    }
    verdict = combine(parts)
    return replace(
        verdict, evidence=tuple(replace(p, part="") for p in verdict.evidence)
    )


EXISTS = (
    "medians compared with a 95% cluster bootstrap interval over trajectories; "
    "an ordering holds where the interval excludes zero"
)
CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Figs. 3-4",
        "'for small k, the PNN algorithms perform better'",
        "median normalized k-NN error at the smallest k: CGP PNN against CGP Basic, "
        "GP PNN against GP Basic",
        EXISTS,
        _small_k,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Figs. 3-4",
        "'As k increases, CGP Basic starts to "
        "outperform GP PNN and eventually CGP PNN'",
        "median normalized k-NN error at the largest "
        "k: CGP Basic against GP PNN and CGP PNN",
        EXISTS,
        _large_k,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Figs. 3-4",
        "'GP Basic has the worst error'",
        "median normalized k-NN error at every k: each other method against GP Basic",
        EXISTS,
        _gp_basic_worst,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Fig. 5",
        "'The PCH algorithms do not suffer from this issue and maintain consistently "
        "high utility as n increases'",
        "median Jaccard index at every n: each PCH (0.5 or more) and against CGP Basic",
        EXISTS + "; 'high': the 95% cluster bootstrap interval of the median above "
        "0.5 (6 trajectories at the default profile: the interval rests on 6 "
        "clusters); agrees when both hold at every n",
        _pch_stays_high,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5",
        "Fig. 5",
        "'the CGP version of the PCH algorithm has some advantage over the GP version'",
        "median Jaccard index at each n: CGP PCH against GP PCH",
        EXISTS,
        _cgp_pch_ahead,
    ),
)
