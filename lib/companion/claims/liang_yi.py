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

from .core import (
    AGREES,
    DIFFERS,
    INCONCLUSIVE,
    Claim,
    Verdict,
    combine,
    not_comparable,
)
from .inference import median_gap

__all__ = ["NOTEBOOK", "SOURCE", "EXISTS", "CLAIMS"]

NOTEBOOK = "11_concentrated_geo_privacy"
SOURCE = "Liang and Yi 2023 (concentrated geo-privacy)"


def _ordering(runs, better, worse, value, seed, higher=False) -> Verdict:
    """``better``: lower median ``value`` than ``worse`` (higher if ``higher``)."""
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
    if low > 0:
        return Verdict(AGREES, "", numbers)
    if high < 0:
        return Verdict(DIFFERS, "reversed beyond the interval", numbers)
    return Verdict(INCONCLUSIVE, "the interval straddles zero", numbers)


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
                    at_k, m, "GP Basic", "error", t["seed"]
                )
                for m in ("CGP Basic", "GP PNN", "CGP PNN")
            }
        )
    return combine(parts) if parts else not_comparable("no k-NN runs")


def _pch_stays_high(t):
    hull = t["hull_n"]
    if hull.empty:
        return not_comparable("no convex-hull runs")
    smallest, largest = _at(hull, "n", 0), _at(hull, "n", -1)
    if smallest["n"].iloc[0] == largest["n"].iloc[0]:
        return not_comparable("one tuple size in this profile")
    parts = {}
    for m in ("CGP PCH", "GP PCH"):
        med = largest.loc[largest["method"] == m, "jaccard"].median()
        word = AGREES if med >= 0.5 else DIFFERS
        high = "'consistently high': a median Jaccard index of 0.5 or more"
        parts[f"{m} high at the largest n"] = Verdict(word, high, f"median {med:.3f}")
    for m in ("CGP PCH", "GP PCH"):
        parts[f"{m} above CGP Basic"] = _ordering(
            largest, m, "CGP Basic", "jaccard", t["seed"], higher=True
        )
    return combine(parts)


def _cgp_pch_ahead(t):
    hull = t["hull_n"]
    if hull.empty:
        return not_comparable("no convex-hull runs")
    parts = {
        f"n = {n}": _ordering(
            hull[hull["n"] == n], "CGP PCH", "GP PCH", "jaccard", t["seed"], higher=True
        )
        for n in sorted(hull["n"].unique())
    }
    return combine(parts)


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
        "median Jaccard index at the largest n: each "
        "PCH (0.5 or more) and against CGP Basic",
        EXISTS + "; 'high' is a median of 0.5 or more",
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
