"""Claims against the best location mechanisms (notebook 15): does DP-TT's advantage
over GEO survive against the optimal geo-indistinguishable mechanism and Bayesian
remapping?

``tables["best"]``: one row per ``setting``, composed budget ``eps_star`` and
``mechanism`` (``GEO``, ``OPT`` the optimal mechanism, ``SM``, ``L-SRR``, the DP-TT
variants, and ``<name> remapped``), with per-client means and standard errors of
the share of clients whose nearest neighbour is found (``accuracy``), the
``quality_loss`` and the ``nn_distance`` (domain diameters), as
:func:`companion.studies.best_mechanisms.compare` returns. Every mechanism runs on
the same clients with its own independent randomness; standard errors are combined
as independent (root sum of squares), which overstates the error of a difference
on common clients, so a rule that finds an effect finds it conservatively.

Each claim's effect at each measured budget is ``a - b`` with standard error
``hypot(se_a, se_b)`` (:func:`effects`), judged across the informative range by
:func:`companion.claims.rules.above`: for an accuracy the floor and ceiling of
:mod:`~companion.claims.rules`; for a distance none.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, combine, not_comparable
from .rules import above, curve

__all__ = [
    "NOTEBOOK",
    "THESIS",
    "BORDENABE",
    "CHATZIKOKOLAKIS",
    "COMPANION",
    "X",
    "DPTT",
    "effects",
    "CLAIMS",
]

NOTEBOOK = "15_best_location_mechanisms"
THESIS = "Lepert 2022 (thesis)"
BORDENABE = "Bordenabe, Chatzikokolakis and Palamidessi 2014"
CHATZIKOKOLAKIS = "Chatzikokolakis, ElSalamouny and Palamidessi 2017"
COMPANION = "Companion finding"
X = "ε*"
#: The DP-TT variants the comparison is about.
DPTT = ("DP-TT-CMP basic", "DP-TT-CMP E3")
_OPEN = {"floor": -np.inf, "ceiling": np.inf}


def _curve(t, setting, mechanism, column):
    table = t.get("best")
    if table is None or table.empty:
        return None
    part = table[(table["setting"] == setting) & (table["mechanism"] == mechanism)]
    return None if part.empty else curve(part, "eps_star", column, name=mechanism)


def effects(t, a, b, column) -> pd.DataFrame:
    """Per setting and budget: the effect ``a - b`` on ``column`` and its standard
    error (independent runs: root sum of squares)."""
    table = t["best"]
    rows = []
    for setting in dict.fromkeys(table["setting"]):
        first, second = (_curve(t, setting, m, column) for m in (a, b))
        if first is None or second is None:
            continue
        common, i, j = np.intersect1d(first.x, second.x, return_indices=True)
        for x, ya, sa, yb, sb in zip(
            common, first.y[i], first.se[i], second.y[j], second.se[j]
        ):
            rows.append(
                {
                    "setting": setting,
                    "eps_star": x,
                    "effect": ya - yb,
                    "se": float(np.hypot(sa, sb)),
                }
            )
    return pd.DataFrame(rows, columns=["setting", "eps_star", "effect", "se"])


def _better(t, a, b, column, lower=False):
    """Claim: ``a`` beats ``b`` on ``column`` (higher, or ``lower``) in each setting."""
    table = t.get("best")
    if table is None or table.empty:
        return not_comparable("no comparison table")
    parts = {}
    for setting in dict.fromkeys(table["setting"]):
        first, second = (_curve(t, setting, m, column) for m in (a, b))
        if first is None or second is None:
            parts[setting] = not_comparable(f"{a} or {b} not run on {setting}")
            continue
        bounds = _OPEN if column != "accuracy" else {}
        high, low = (second, first) if lower else (first, second)
        parts[setting] = above(high, low, source_n=None, x_name=X, **bounds)
    return combine(parts)


def _dptt_beats(t, other):
    """DP-TT (each variant of :data:`DPTT`) finds the true nearest neighbour more
    often than ``other``."""
    return combine({m: _better(t, m, other, "accuracy") for m in DPTT})


def _remapping_lowers(t, mechanisms):
    return combine(
        {
            m: _better(t, f"{m} remapped", m, "quality_loss", lower=True)
            for m in mechanisms
        }
    )


CLAIMS = (
    Claim(
        NOTEBOOK,
        THESIS,
        "§6.2, Fig. 6.3",
        "15 §2",
        "DP-TT 'outperforms' GEO at finding the nearest neighbour",
        "share of clients whose true nearest neighbour is found, DP-TT-CMP basic and "
        "E3 against GEO, at equal accounted ε*, per setting",
        "DP-TT above: an effect that exists across the informative range (effect "
        "a - b and its standard error per budget, companion.claims.rules.above)",
        lambda t: _dptt_beats(t, "GEO"),
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 15 §2",
        "15 §2",
        "DP-TT's advantage over GEO survives against the optimal mechanism",
        "share of clients whose true nearest neighbour is found, DP-TT-CMP basic and "
        "E3 against the optimal geo-indistinguishable mechanism (OPT)",
        "DP-TT above OPT: an effect that exists across the informative range",
        lambda t: _dptt_beats(t, "OPT"),
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 15 §2",
        "15 §2",
        "DP-TT's advantage over GEO survives against GEO remapped",
        "share of clients whose true nearest neighbour is found, DP-TT-CMP basic and "
        "E3 against GEO followed by Bayesian remapping",
        "DP-TT above GEO remapped: an effect that exists across the informative range",
        lambda t: _dptt_beats(t, "GEO remapped"),
    ),
    Claim(
        NOTEBOOK,
        BORDENABE,
        "§6 (evaluation)",
        "15 §2",
        "the optimal mechanism has a lower quality loss than planar Laplace at the "
        "same ε",
        "mean distance from the client to its release (diameters), OPT against GEO",
        "OPT below: an effect that exists at every budget's informative range "
        "(no floor or ceiling for a distance)",
        lambda t: _better(t, "OPT", "GEO", "quality_loss", lower=True),
    ),
    Claim(
        NOTEBOOK,
        CHATZIKOKOLAKIS,
        "§4-5",
        "15 §2",
        "remapping improves the utility of a mechanism at no privacy cost",
        "mean quality loss of GEO, SM, L-SRR and DP-TT-CMP basic, remapped against "
        "not (the privacy is unchanged by construction: post-processing)",
        "remapped below: an effect that exists across the budgets, per mechanism",
        lambda t: _remapping_lowers(t, ("GEO", "SM", "L-SRR", "DP-TT-CMP basic")),
    ),
)
