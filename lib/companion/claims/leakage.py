"""Claims about leakage (notebooks 14 and 13): what the Bayes-optimal adversary infers
about a client's location from each mechanism's release, at equal composed privacy.

``tables["adversary"]``: one row per ``setting`` (data and prior), composed budget
``eps_star`` and ``mechanism`` (names as :mod:`dpnn.adversary` gives them), with the
optimal adversary's expected error ``error``, its Monte Carlo standard error ``se``,
the ``prior_only`` error and the grid's ``grid_error``, all in domain diameters.
A larger error is a better-protected client. The claims read this aggregate table
only, so no privacy is spent.

**Informative range.** A budget is left out where both compared errors are at the
*ceiling* (the release gains the adversary less than the grid resolves: the prior-only
error minus the error is at most the larger of the grid error and the one-sided
critical value times the standard error) or both at the *floor* (an error at most
the grid error is not resolved by the grid). Elsewhere an ordering is judged by the
rules of :mod:`companion.claims.rules` on a difference the grid resolves: it
holds where a one-sided test at 5% shows the difference *above the grid error*
(the larger of the two rows'), is opposite where a Holm-adjusted test shows it
below the grid error (no resolvable effect, or reversed), and is level otherwise;
the two mechanisms' simulated clients are independent, so their errors combine as
root sum of squares. "At least as large" (no worse) is a non-inferiority test with
the grid error as its margin. The one claim about a bound, "never above the
prior-only error", is judged in every row, the ceiling included (where it matters
most): it holds where the excess is shown below the grid error.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .core import Claim, Verdict, combine, not_comparable
from .rules import critical, exists_pvalues, outcomes, over_range, tally

__all__ = [
    "CLAIMS",
    "CLAIMS_13",
    "CMP",
    "COMPANION",
    "DIS",
    "GEO",
    "NOTEBOOK",
    "NOTEBOOK_13",
    "SM",
    "THESIS",
    "UNFOOTED",
    "X",
    "footed",
    "informative",
    "larger_error",
    "on_footing",
]

NOTEBOOK = "14_what_the_server_learns"
NOTEBOOK_13 = "13_after_the_thesis"
THESIS = "Lepert 2022 (thesis)"
COMPANION = "Companion finding"
X = "ε*"
GEO, SM, DIS = "GEO", "SM", "DP-TT-DIS basic"
CMP = "DP-TT-CMP basic"


def on_footing(tables, footing: str) -> dict:
    """``tables`` with every table that has a ``footing`` column cut to ``footing``
    (the column dropped); other entries as they are (notebook 13's tables have no
    footing)."""
    out = {}
    for name, table in tables.items():
        if isinstance(table, pd.DataFrame) and "footing" in table.columns:
            table = table[table["footing"] == footing].drop(columns="footing")
        out[name] = table
    return out


def footed(judge, footing: str):
    """A claim's ``judge`` applied to the tables cut to ``footing``."""
    return lambda tables: judge(on_footing(tables, footing))


def _rows(t, setting, mechanism):
    table = t.get("adversary")
    if table is None or table.empty:
        return None
    part = table[(table["setting"] == setting) & (table["mechanism"] == mechanism)]
    return None if part.empty else part.sort_values("eps_star")


def _settings(t, uniform: bool | None = None) -> list[str]:
    """The run's settings: all, or only those on uniform data (or only the others)."""
    table = t.get("adversary")
    if table is None or table.empty:
        return []
    names = list(dict.fromkeys(table["setting"]))
    if uniform is None:
        return names
    return [n for n in names if n.startswith("uniform") == uniform]


def _mechanisms(t, prefix: str) -> list[str]:
    table = t.get("adversary")
    if table is None or table.empty:
        return []
    return [m for m in dict.fromkeys(table["mechanism"]) if m.startswith(prefix)]


def informative(a: pd.DataFrame, b: pd.DataFrame) -> np.ndarray:
    """True at the budgets where the two errors are neither both at the ceiling nor
    both at the floor (module docstring); ``a`` and ``b`` share their budgets."""

    def ceiling(r):
        gain = r["prior_only"].to_numpy() - r["error"].to_numpy()
        noise = critical() * r["se"].to_numpy()
        return gain <= np.maximum(r["grid_error"].to_numpy(), noise)

    def floor(r):
        return r["error"].to_numpy() <= r["grid_error"].to_numpy()

    return ~((ceiling(a) & ceiling(b)) | (floor(a) & floor(b)))


def _paired(t, setting, high, low):
    """The rows of ``high`` and ``low`` at their common budgets, or a reason."""
    a, b = _rows(t, setting, high), _rows(t, setting, low)
    if a is None or b is None:
        return None, None, f"{high} or {low} not run on {setting}"
    common = np.intersect1d(a["eps_star"], b["eps_star"])
    if not len(common):
        return None, None, f"{high} and {low} share no budget on {setting}"
    return (a[a["eps_star"].isin(common)], b[b["eps_star"].isin(common)], "")


def larger_error(
    t,
    setting,
    high,
    low,
    *,
    half: str | None = None,
    at_least: bool = False,
):
    """Claim: ``high``'s optimal error is above ``low``'s (``high`` protects better)
    across the informative range of ``setting``.

    ``at_least``: the claim is "at least as large" (no worse): it holds where the
    difference is shown above minus the grid error. ``half`` keeps the lower or
    upper half of the informative budgets. Every kept budget must hold.
    """
    if half not in (None, "low", "high"):
        raise ValueError(f"half must be 'low', 'high' or None, got {half!r}")
    a, b, why = _paired(t, setting, high, low)
    if a is None:
        return not_comparable(why)
    keep = informative(a, b)
    if half is not None:
        index = np.flatnonzero(keep)
        cut = (len(index) + 1) // 2 if half == "low" else len(index) // 2
        chosen = index[:cut] if half == "low" else index[cut:]
        keep = np.isin(np.arange(len(keep)), chosen)
    xs = a["eps_star"].to_numpy(float)[keep]
    d = (a["error"].to_numpy() - b["error"].to_numpy())[keep]
    se = np.hypot(a["se"].to_numpy(), b["se"].to_numpy())[keep]
    grid = np.maximum(a["grid_error"].to_numpy(), b["grid_error"].to_numpy())[keep]
    shift = -grid if at_least else grid  # the claim: d > shift
    hold = exists_pvalues(d - shift, se)[0]
    against = exists_pvalues(shift - d, se)[0]
    return over_range(outcomes(hold, against), xs, d, se, X, len(a))


def _per_setting(t, judge, uniform=None):
    settings = _settings(t, uniform)
    if not settings:
        return not_comparable("no setting of this kind in this run")
    return combine({s: judge(s) for s in settings})


def _never_above_prior_only(t):
    """Every row: the optimal error is shown below the prior-only error plus the
    grid error (one-sided at 5%); opposite where shown above it (Holm)."""
    table = t.get("adversary")
    if table is None or table.empty:
        return not_comparable("no adversary table in this run")
    excess = (table["error"] - table["prior_only"]).to_numpy(float)
    se = table["se"].to_numpy(float)
    grid = table["grid_error"].to_numpy(float)
    found = outcomes(
        exists_pvalues(grid - excess, se)[0], exists_pvalues(excess - grid, se)[0]
    )
    largest = int(np.argmax((excess - grid) / np.maximum(se, 1e-12)))
    holds = int(np.sum(found == "holds"))
    word = tally(found)
    row = table.iloc[largest]
    why = f"holds in {holds} of {len(table)} rows"
    numbers = (
        f"closest: {row['mechanism']} on {row['setting']} at ε* "
        f"{row['eps_star']:g}: error − prior-only {excess[largest]:+.4f} ± "
        f"{se[largest]:.4f}"
    )
    return Verdict(word, why, numbers)


def _sm_most_dis_least(t, setting):
    table = t["adversary"]
    others = [
        m
        for m in dict.fromkeys(table[table["setting"] == setting]["mechanism"])
        if m not in (SM, DIS)
    ]
    parts = {}
    for other in others:
        parts[f"{other} above SM"] = larger_error(t, setting, other, SM)
        parts[f"DIS above {other}"] = larger_error(t, setting, DIS, other)
    return combine(parts) if parts else not_comparable("SM, DIS or others not run")


def _early_stop_leaks_more(t, setting):
    parts = {e: larger_error(t, setting, CMP, e) for e in _mechanisms(t, "DP-TT-CMP E")}
    return combine(parts) if parts else not_comparable("no E variant run")


def _thesis_claim(notebook, figure):
    return Claim(
        notebook,
        THESIS,
        "§6.3",
        figure,
        "'the comparison metric is advantageous as it does not rely on the notion "
        "of extended DP or relaxed local DP' (implicit: at equal ε* DP-TT-CMP "
        "protects the querier's location at least as well as GEO)",
        "the Bayes-optimal adversary's expected error, DP-TT-CMP basic against "
        "GEO, at equal composed ε*, on each setting",
        "DP-TT-CMP's error shown above GEO's minus the grid error (non-inferiority) "
        "at every informative budget",
        lambda t: _per_setting(
            t, lambda s: larger_error(t, s, CMP, GEO, at_least=True)
        ),
    )


def _prior_only_claim(notebook, figure):
    return Claim(
        notebook,
        COMPANION,
        "notebook 14 §1",
        figure,
        "'no release can make the optimal error larger' than the prior-only error",
        "optimal error minus prior-only error, every mechanism, budget and setting",
        "shown below the prior-only error plus the grid error in every row",
        _never_above_prior_only,
    )


#: Notebook 14's claims as worded, on whatever table they are given.
UNFOOTED = (
    _thesis_claim(NOTEBOOK, "14 §2"),
    _prior_only_claim(NOTEBOOK, "14 §2"),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 14 §2",
        "14 §2",
        "on uniform data the optimal adversary learns less from DP-TT-CMP basic "
        "than from GEO, 'at all three budgets'",
        "optimal error, DP-TT-CMP basic against GEO, uniform data",
        "DP-TT-CMP's error shown larger by more than the grid error at every "
        "informative budget",
        lambda t: _per_setting(t, lambda s: larger_error(t, s, CMP, GEO), uniform=True),
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 14 §2",
        "14 §2",
        "on the places, with their prior, 'DP-TT-CMP "
        "leaks more than GEO' at high budget",
        "optimal error, GEO against DP-TT-CMP basic, real data, upper half of "
        "the informative budgets",
        "GEO's error shown larger by more than the grid error at every budget of "
        "the upper half of the informative range",
        lambda t: _per_setting(
            t, lambda s: larger_error(t, s, GEO, CMP, half="high"), uniform=False
        ),
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 14 §2",
        "14 §2",
        "'E3 leaks more than basic at the same ε*': it walks fewer levels, so "
        "each turn gets more budget",
        "optimal error, DP-TT-CMP basic against E, on each setting",
        "basic's error shown larger at every informative budget",
        lambda t: _per_setting(t, lambda s: _early_stop_leaks_more(t, s)),
    ),
    Claim(
        NOTEBOOK,
        COMPANION,
        "notebook 14 §2",
        "14 §2",
        "'at equal composed privacy the square mechanism leaks most and DIS least'",
        "optimal error of every mechanism against SM's and DIS's, on each setting",
        "every other error above SM's and DIS's above every other: effects shown "
        "at every informative budget",
        lambda t: _per_setting(t, lambda s: _sm_most_dis_least(t, s)),
    ),
)

#: Notebook 14's claims at equal *accounted* eps* (the ledger's charge, the thesis's
#: footing); the prior-only bound is judged in every row of both footings.
CLAIMS = tuple(
    c
    if c.judge is UNFOOTED[1].judge
    else replace(
        c,
        measured=c.measured + ", at equal accounted ε* (the ledger's charge)",
        judge=footed(c.judge, "accounted"),
    )
    for c in UNFOOTED
)

#: The leakage claims of notebook 13 §4, judged on its own settings (``adversary``
#: as above, with ``dataset`` renamed ``setting``).
CLAIMS_13 = (
    _thesis_claim(NOTEBOOK_13, "13 §4"),
    _prior_only_claim(NOTEBOOK_13, "13 §4"),
    Claim(
        NOTEBOOK_13,
        COMPANION,
        "notebook 13 §4",
        "13 §4",
        "at the smaller budgets 'DP-TT's transcript leaks less than GEO's "
        "released point'",
        "optimal error, DP-TT-CMP basic against GEO, on each setting, lower half "
        "of the informative budgets",
        "DP-TT-CMP's error shown larger at every budget of the lower half of the "
        "informative range",
        lambda t: _per_setting(t, lambda s: larger_error(t, s, CMP, GEO, half="low")),
    ),
    Claim(
        NOTEBOOK_13,
        COMPANION,
        "notebook 13 §4",
        "13 §4",
        "at the larger budgets 'DP-TT's transcript leaks more than GEO's "
        "released point'",
        "optimal error, GEO against DP-TT-CMP basic, on each setting, upper half "
        "of the informative budgets",
        "GEO's error shown larger at every budget of the upper half of the "
        "informative range",
        lambda t: _per_setting(t, lambda s: larger_error(t, s, GEO, CMP, half="high")),
    ),
)
