"""Claims on per-level budget schedules (notebook 13, §3): the follow-up's hint and
the companion's own findings, judged on the schedule table.

``tables``: ``schedules``, one row per composed budget ``total`` and schedule
``family`` (constant, decreasing, increasing) with the share of queries reaching
their exact leaf (``exact_leaf``) and the mean distance of the released point
from the query in domain sides (``distance``), each with its standard error. The
three families run on the same queries with independent draws; their errors are
combined as independent. A distance is not an accuracy, so no floor or ceiling
bounds its range, and an effect on it is contradicted where shown below
``DISTANCE_MARGIN`` = 0.01 domain sides.

``equal_mse`` (§2): one row per ``dataset`` and per-step budget ``step`` with
DP-TT-CMP basic's composed ``eps_star`` and, for each of GEO, SM and L-SRR, the
ratio ε(mechanism) / ε* at which its exact MSE equals DP-TT's mean squared
displacement (column named after the mechanism) with the ends of its 95%
bootstrap interval over the queries (``<name> low``, ``<name> high``; ``inf``
where no budget reaches DP-TT's error, :func:`companion.claims.matched_epsilon`).
"""

from __future__ import annotations

import numpy as np

from .core import INCONCLUSIVE, Claim, Verdict, combine, not_comparable
from .inference import outcome_at
from .judges import above
from .rules import curve, tally

__all__ = [
    "NOTEBOOK",
    "FOLLOWUP",
    "COMPANION",
    "X",
    "OPEN",
    "DISTANCE_MARGIN",
    "TOLERANCE",
    "MULTIPLES",
    "MSE_METHODS",
    "CLAIMS",
]

NOTEBOOK = "13_after_the_thesis"
FOLLOWUP = "Follow-up code (d1shs0ap/dpnn src/)"
COMPANION = "Companion finding"
X = "ε*"
#: Smallest difference of mean distance (domain sides) an effect claim means.
DISTANCE_MARGIN = 0.01
OPEN = {"floor": -np.inf, "ceiling": np.inf, "margin": DISTANCE_MARGIN}
#: A fixed multiple "gives equal error" when the matched ratio is within this
#: factor of it (the band of the equivalence test).
TOLERANCE = 1.25


def _c(t, family, column):
    part = t["schedules"][t["schedules"]["family"] == family]
    if part.empty:
        return None
    return curve(part, "total", column, name=family)


def _better(t, best, column, lower=False, others=None):
    parts = {}
    for other in others or [f for f in t["schedules"]["family"].unique() if f != best]:
        a, b = _c(t, best, column), _c(t, other, column)
        if a is None or b is None:
            parts[other] = not_comparable(f"{best} or {other} not run")
            continue
        bounds = OPEN if column == "distance" else {}
        first, second = (b, a) if lower else (a, b)
        parts[f"{best} against {other}"] = above(first, second, x_name=X, **bounds)
    return combine(parts) if parts else not_comparable("one schedule only")


def _increasing_bad(t):
    return combine(
        {
            "farther": _worst(t, "distance", lower=True),
            "fewer exact leaves": _worst(t, "exact_leaf"),
        }
    )


def _worst(t, column, lower=False):
    parts = {}
    for other in ("constant", "decreasing"):
        a, b = _c(t, other, column), _c(t, "increasing", column)
        if a is None or b is None:
            return not_comparable("a schedule family not run")
        bounds = OPEN if column == "distance" else {}
        first, second = (b, a) if lower else (a, b)
        parts[other] = above(first, second, x_name=X, **bounds)
    return combine(parts)


#: The follow-up's fixed multiples of DP-TT's ε for equal error (src/run_mse.py).
MULTIPLES = {"GEO": 0.5, "L-SRR": 3.0, "SM": 0.1}
MSE_METHODS = ("GEO", "SM", "L-SRR")


def _setting(row) -> str:
    return f"{row['dataset']} ε* {row['eps_star']:.3g}"


def _interval(row, method) -> str:
    low, high = row[method + " low"], row[method + " high"]
    return f"{row[method]:.3g} [{low:.3g}, {high:.3g}]"


def _tally(outcomes: dict) -> Verdict:
    """Verdict of per-setting outcomes (holds, opposite, level) of a claim on every
    setting (:func:`companion.claims.rules.tally`): agrees when it holds at each,
    differs when opposite somewhere and held nowhere, partly when both, and
    inconclusive where the intervals cannot decide."""
    if not outcomes:
        return not_comparable("no setting in this run")
    words = list(outcomes.values())
    why = "; ".join(
        outcome_at(o, [k for k, w in outcomes.items() if w == o], len(words))
        for o in ("holds", "opposite", "level")
        if o in words
    )
    word = tally(np.array(words))
    if word == INCONCLUSIVE:
        why += "; the intervals are too wide to decide at this size"
    return Verdict(word, why)


def _near(row, method, multiple) -> str:
    """Holds where the 95% interval of the matched ratio lies within ``TOLERANCE``
    of ``multiple``, opposite where it lies outside that band, level otherwise."""
    low, high = row[method + " low"], row[method + " high"]
    band = (multiple / TOLERANCE, multiple * TOLERANCE)
    if band[0] <= low and high <= band[1]:
        return "holds"
    if high < band[0] or low > band[1]:
        return "opposite"
    return "level"


def _multiples(t):
    table = t.get("equal_mse")
    if table is None or table.empty:
        return not_comparable("no equal-MSE table in this run")
    parts = {}
    for method, multiple in MULTIPLES.items():
        outcomes = {
            _setting(r): _near(r, method, multiple) for _, r in table.iterrows()
        }
        verdict = _tally(outcomes)
        numbers = "; ".join(
            f"{_setting(r)}: {_interval(r, method)}" for _, r in table.iterrows()
        )
        parts[f"{method} at {multiple:g}"] = Verdict(verdict.word, verdict.why, numbers)
    return combine(parts)


def _sm_least(t):
    table = t.get("equal_mse")
    if table is None or table.empty:
        return not_comparable("no equal-MSE table in this run")
    outcomes = {}
    for _, r in table.iterrows():
        for other in ("GEO", "L-SRR"):
            if r["SM high"] < r[other + " low"]:
                word = "holds"
            elif r["SM low"] > r[other + " high"]:
                word = "opposite"
            else:
                word = "level"
            outcomes[f"{_setting(r)} against {other}"] = word
    verdict = _tally(outcomes)
    numbers = "; ".join(
        f"{_setting(r)}: SM {_interval(r, 'SM')}, GEO "
        f"{_interval(r, 'GEO')}, L-SRR {_interval(r, 'L-SRR')}"
        for _, r in table.iterrows()
    )
    return Verdict(verdict.word, verdict.why, numbers)


CLAIMS = (
    Claim(
        NOTEBOOK,
        FOLLOWUP,
        "src/run_mse.py l. 100-109",
        "13 §2",
        "fixed multiples of DP-TT's ε for equal error: '0.5' for Laplace (GEO), "
        "'3' for L-SRR, '0.1' for SM",
        "ε at which each mechanism's exact MSE equals DP-TT-CMP basic's mean squared "
        "displacement, over DP-TT's composed ε*, with a 95% bootstrap interval over "
        "the queries, at every dataset and per-step budget",
        "an equivalence test: a multiple holds at a setting where the interval lies "
        "within a factor 1.25 of it and is contradicted where the interval lies "
        "outside that band; a fixed multiple claims every setting, so a mechanism "
        "agrees only if it holds at each (companion.claims.rules); the three "
        "mechanisms' parts are combined",
        _multiples,
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 13 §2",
        "13 §2",
        "'At equal perturbation MSE, too, SM needs the least privacy'",
        "SM's equal-MSE ratio against GEO's and L-SRR's, with their 95% bootstrap "
        "intervals, at every dataset and per-step budget",
        "holds where SM's interval lies wholly below the other's, contradicted where "
        "wholly above, level (not separated) where they overlap; agrees when it "
        "holds at every comparison (companion.claims.rules)",
        _sm_least,
    ),
    Claim(
        NOTEBOOK,
        FOLLOWUP,
        "src/schedulers.py l. 18-21",
        "13 §3",
        "the increasing schedule, 'to show that increasing epsilon is bad'",
        "increasing against constant and decreasing at each composed budget: mean "
        "distance of the released point and share of exact leaves",
        "the increasing schedule farther and with fewer exact leaves: an effect "
        "shown at every informative budget (companion.claims.rules)",
        _increasing_bad,
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 13 §3",
        "13 §3",
        "'for exact retrieval the constant schedule "
        "should win' (concavity of log expit)",
        "share of queries reaching their exact leaf, constant against the others",
        "constant above: an effect shown at every informative budget",
        lambda t: _better(t, "constant", "exact_leaf"),
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 13 §3",
        "13 §3",
        "'for how far the released point lands, a decreasing schedule should win', "
        "'at every budget'",
        "mean distance of the released point, decreasing against the others",
        "decreasing nearer at every composed budget: an effect shown by a "
        "one-sided test at each",
        lambda t: _better(t, "decreasing", "distance", lower=True),
    ),
)
