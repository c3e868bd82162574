"""Claims against the best location mechanisms (notebook 15): does DP-TT's advantage
over GEO survive against the optimal geo-indistinguishable mechanism and Bayesian
remapping?

``tables["best"]`` (equal accounted privacy) and ``tables["best_actual"]`` (equal
actual privacy, the same columns): one row per ``setting``, composed budget
``eps_star`` and
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
:func:`companion.claims.judges.above`: for an accuracy the floor and ceiling of
:mod:`~companion.claims.rules`; for a distance none.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, combine, not_comparable
from .judges import above
from .rules import curve

__all__ = [
    "NOTEBOOK",
    "THESIS",
    "BORDENABE",
    "CHATZIKOKOLAKIS",
    "COMPANION",
    "X",
    "DPTT",
    "DISTANCE_MARGIN",
    "OPEN",
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
#: Smallest difference of a distance (domain diameters) an effect claim means.
DISTANCE_MARGIN = 0.01
OPEN = {"floor": -np.inf, "ceiling": np.inf, "margin": DISTANCE_MARGIN}


def _curve(t, setting, mechanism, column, key="best"):
    table = t.get(key)
    if table is None or table.empty:
        return None
    part = table[(table["setting"] == setting) & (table["mechanism"] == mechanism)]
    return None if part.empty else curve(part, "eps_star", column, name=mechanism)


def effects(t, a, b, column, key="best") -> pd.DataFrame:
    """Per setting and budget: the effect ``a - b`` on ``column`` and its standard
    error (independent runs: root sum of squares), from the table ``key``."""
    table = t[key]
    rows = []
    for setting in dict.fromkeys(table["setting"]):
        first, second = (_curve(t, setting, m, column, key) for m in (a, b))
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


def _better(t, a, b, column, lower=False, key="best"):
    """Claim: ``a`` beats ``b`` on ``column`` (higher, or ``lower``) in each setting
    of the table ``key``."""
    table = t.get(key)
    if table is None or table.empty:
        return not_comparable("no comparison table")
    parts = {}
    for setting in dict.fromkeys(table["setting"]):
        first, second = (_curve(t, setting, m, column, key) for m in (a, b))
        if first is None or second is None:
            parts[setting] = not_comparable(f"{a} or {b} not run on {setting}")
            continue
        bounds = OPEN if column != "accuracy" else {}
        high, low = (second, first) if lower else (first, second)
        parts[setting] = above(high, low, x_name=X, **bounds)
    return combine(parts)


def _dptt_beats(t, other, key="best"):
    """DP-TT (each variant of :data:`DPTT`) finds the true nearest neighbour more
    often than ``other``, in the table ``key``."""
    return combine({m: _better(t, m, other, "accuracy", key=key) for m in DPTT})


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
        "DP-TT above: an effect shown at every informative budget (effect "
        "a - b and its standard error per budget, companion.claims.judges.above)",
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
        "DP-TT above OPT: an effect shown at every informative budget",
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
        "DP-TT above GEO remapped: an effect shown at every informative budget",
        lambda t: _dptt_beats(t, "GEO remapped"),
    ),
    Claim(
        NOTEBOOK,
        BORDENABE,
        "§6 (evaluation)",
        "15 §2",
        "'the optimal mechanism has a lower quality loss than planar Laplace at the "
        "same ε' (the paper's result in this companion's words: its text is not "
        "among the sources here)",
        "mean distance from the client to its release (diameters), OPT against GEO",
        "OPT below: an effect shown at every budget (no floor or ceiling for a "
        "distance)",
        lambda t: _better(t, "OPT", "GEO", "quality_loss", lower=True),
    ),
    Claim(
        NOTEBOOK,
        CHATZIKOKOLAKIS,
        "§4-5",
        "15 §2",
        "'remapping improves the utility of a mechanism at no privacy cost' (the "
        "paper's result in this companion's words: its text is not among the "
        "sources here)",
        "mean quality loss of GEO, SM, L-SRR and DP-TT-CMP basic, remapped against "
        "not (the privacy is unchanged by construction: post-processing)",
        "remapped below: an effect shown at every budget, per mechanism",
        lambda t: _remapping_lowers(t, ("GEO", "SM", "L-SRR", "DP-TT-CMP basic")),
    ),
    *(
        Claim(
            NOTEBOOK,
            THESIS if other == "GEO" else COMPANION,
            "§6.2, Fig. 6.3" if other == "GEO" else "notebook 15 §3",
            "15 §3",
            (
                "DP-TT 'outperforms' GEO at finding the nearest neighbour, at equal "
                "actual privacy"
                if other == "GEO"
                else f"DP-TT's advantage over GEO survives against {other}, at equal "
                "actual privacy"
            ),
            "share of clients whose true nearest neighbour is found, DP-TT-CMP basic "
            f"and E3 against {other}, every mechanism calibrated so that its worst "
            "pair of locations loses eps* at delta = 1/N (DP-TT-CMP exactly, OPT by "
            "its matrix's exact epsilon)",
            f"DP-TT above {other}: an effect shown at every informative budget",
            lambda t, other=other: _dptt_beats(t, other, key="best_actual"),
        )
        for other in ("GEO", "OPT", "GEO remapped")
    ),
)
