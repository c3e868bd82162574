"""Claims on per-level budget schedules (notebook 13, §3): the follow-up's hint and
the companion's own findings, judged on the schedule table.

``tables``: ``schedules``, one row per composed budget ``total`` and schedule
``family`` (constant, decreasing, increasing) with the share of queries reaching
their exact leaf (``exact_leaf``) and the mean distance of the released point
from the query in domain sides (``distance``), each with its standard error. The
three families run on the same queries with independent draws; their errors are
combined as independent. A distance is not an accuracy, so no floor or ceiling
bounds its range. The sources here are code and this companion, not a paper with
its own sampling error.
"""

from __future__ import annotations

import numpy as np

from .core import Claim, combine, not_comparable
from .rules import above, curve

NOTEBOOK = "13_after_the_thesis"
FOLLOWUP = "Follow-up code (d1shs0ap/dpnn src/)"
COMPANION = "Companion finding"
X = "ε*"
OPEN = {"floor": -np.inf, "ceiling": np.inf}


def _c(t, family, column):
    part = t["schedules"][t["schedules"]["family"] == family]
    if part.empty:
        return None
    return curve(part, "total", column, name=family)


def _better(t, best, column, lower=False, every=False, others=None):
    parts = {}
    for other in others or [f for f in t["schedules"]["family"].unique() if f != best]:
        a, b = _c(t, best, column), _c(t, other, column)
        if a is None or b is None:
            parts[other] = not_comparable(f"{best} or {other} not run")
            continue
        bounds = OPEN if column == "distance" else {}
        first, second = (b, a) if lower else (a, b)
        parts[f"{best} against {other}"] = above(first, second, source_n=None, x_name=X,
                                                 every=every, **bounds)
    return combine(parts) if parts else not_comparable("one schedule only")


def _increasing_bad(t):
    return combine({"farther": _worst(t, "distance", lower=True),
                    "fewer exact leaves": _worst(t, "exact_leaf")})


def _worst(t, column, lower=False):
    parts = {}
    for other in ("constant", "decreasing"):
        a, b = _c(t, other, column), _c(t, "increasing", column)
        if a is None or b is None:
            return not_comparable("a schedule family not run")
        bounds = OPEN if column == "distance" else {}
        first, second = (b, a) if lower else (a, b)
        parts[other] = above(first, second, source_n=None, x_name=X, **bounds)
    return combine(parts)


CLAIMS = (
    Claim(NOTEBOOK, FOLLOWUP, "src/schedulers.py l. 18-21", "13 §3",
          "the increasing schedule, 'to show that increasing epsilon is bad'",
          "increasing against constant and decreasing at each composed budget: mean "
          "distance of the released point and share of exact leaves",
          "the increasing schedule farther and with fewer exact leaves: an effect that "
          "exists across the informative range (dpnn.claims.rules)",
          _increasing_bad),
    Claim(NOTEBOOK, COMPANION, "notebook 13 §3", "13 §3",
          "'for exact retrieval the constant schedule should win' (concavity of "
          "log expit)",
          "share of queries reaching their exact leaf, constant against the others",
          "constant above: an effect that exists across the informative range",
          lambda t: _better(t, "constant", "exact_leaf")),
    Claim(NOTEBOOK, COMPANION, "notebook 13 §3", "13 §3",
          "'for how far the released point lands, a decreasing schedule should win', "
          "'at every budget'",
          "mean distance of the released point, decreasing against the others",
          "decreasing nearer at every composed budget (the claim says every): an "
          "effect beyond two standard errors at each",
          lambda t: _better(t, "decreasing", "distance", lower=True, every=True)),
)
