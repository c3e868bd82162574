"""The error rates of the verdict rules, measured by simulation with known truth.

Every rule of :mod:`companion.claims.rules` is run on synthetic curves whose true
effect is known: inside the claim's band (or above it with twice the margin), on
its edge, outside it by twice the margin, and reversed; with few and many points;
with small and large standard errors (a quarter of the margin and the whole
margin). Each point's two estimates are drawn independently and normally around
the truth with the stated error, so the rule sees exactly the uncertainty it is
told of. :func:`error_rates` reports how often each verdict comes out;
:func:`violations` lists the cells that miss the targets:

* a claim the truth contradicts by twice its margin or more is called "agrees"
  at most ``ALPHA`` = 5% of the time;
* a claim the truth satisfies with margin is called "differs" (or "partly") at
  most 5% of the time;
* more noise never makes "agrees" more likely when the truth contradicts the
  claim (beyond the simulation's own error, three binomial standard errors).

Nothing private is read: the curves are synthetic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import AGREES, DIFFERS, INCONCLUSIVE, PARTLY
from .judges import above, difference_within, value_within
from .rules import ALPHA, MARGIN, Curve

__all__ = ["RULES", "WORDS", "BAND", "error_rates", "violations"]

#: The verdicts a comparable simulated claim can get.
WORDS = (AGREES, PARTLY, DIFFERS, INCONCLUSIVE)
#: Band of the value claims simulated: "a small gain", 0 to 0.05 (margin 0.025).
BAND = (0.0, 0.05)
_HALF = (BAND[1] - BAND[0]) / 2

#: Each rule simulated: (its truths as offsets of the difference, which truths
#: satisfy the claim with margin and which contradict it by twice the margin).
RULES = {
    "A above B at every budget": {
        "inside (+2 margins)": 2 * MARGIN,
        "edge (no effect)": 0.0,
        "outside (-2 margins)": -2 * MARGIN,
        "reversed (-4 margins)": -4 * MARGIN,
    },
    "A above B at some budget": {
        "inside (+2 margins)": 2 * MARGIN,
        "edge (no effect)": 0.0,
        "outside (-2 margins)": -2 * MARGIN,
        "reversed (-4 margins)": -4 * MARGIN,
    },
    "A - B within a band at every budget": {
        "inside (centre)": BAND[0] + _HALF,
        "edge (upper end)": BAND[1],
        "outside (+2 margins)": BAND[1] + 2 * _HALF,
        "reversed (-2 margins)": BAND[0] - 2 * _HALF,
    },
    "a value within a band": {
        "inside (centre)": BAND[0] + _HALF,
        "edge (upper end)": BAND[1],
        "outside (+2 margins)": BAND[1] + 2 * _HALF,
        "reversed (-2 margins)": BAND[0] - 2 * _HALF,
    },
}
_SATISFIED = ("inside",)
_CONTRADICTED = ("outside", "reversed")


def _margin(rule: str) -> float:
    return MARGIN if "above" in rule else _HALF


def _judge(rule: str, d: np.ndarray, se: float, rng) -> str:
    """One simulated verdict of ``rule`` on true differences ``d`` at error ``se``."""
    n = len(d)
    x = np.logspace(0, 1, n) if n > 1 else np.array([1.0])
    each = se / np.sqrt(2)
    ya = 0.5 + d + rng.normal(0, each, n)
    yb = 0.5 + rng.normal(0, each, n)
    a, b = Curve(x, ya, np.full(n, each)), Curve(x, yb, np.full(n, each))
    if rule == "A above B at every budget":
        return above(a, b).word
    if rule == "A above B at some budget":
        return above(a, b, some=True).word
    if rule == "A - B within a band at every budget":
        return difference_within(a, b, *BAND).word
    value = float(d[0] + rng.normal(0, se))
    return value_within(value, se, *BAND).word


def error_rates(
    reps: int = 400, seed: int = 0, points=(1, 8), errors=(0.25, 1.0)
) -> pd.DataFrame:
    """How often each rule says each verdict, per truth, number of points and
    standard error (``errors`` in units of the rule's margin); ``reps`` claims per
    cell, drawn from ``seed`` (same seed, same table)."""
    if reps < 20:
        raise ValueError(f"reps must be at least 20, got {reps}")
    rng = np.random.default_rng(seed)
    rows = []
    for rule, truths in RULES.items():
        for truth, offset in truths.items():
            for n in points if rule != "a value within a band" else (1,):
                for factor in errors:
                    se = factor * _margin(rule)
                    d = np.full(n, offset)
                    found = [_judge(rule, d, se, rng) for _ in range(reps)]
                    row = {"rule": rule, "truth": truth, "points": n}
                    row |= {"se / margin": factor}
                    row |= {w: found.count(w) / reps for w in WORDS}
                    rows.append(row)
    return pd.DataFrame(rows)


def violations(table: pd.DataFrame, reps: int = 400) -> list[str]:
    """The cells of :func:`error_rates`'s ``table`` that miss a target (module)."""
    out = []
    for row in table.itertuples(index=False):
        truth = row.truth
        if truth.startswith(_CONTRADICTED) and row.agrees > ALPHA:
            out.append(f"{row.rule}, {truth}: agrees {row.agrees:.3f}")
        wrong = row.differs + row.partly
        if truth.startswith(_SATISFIED) and wrong > ALPHA:
            out.append(f"{row.rule}, {truth}: differs or partly {wrong:.3f}")
    slack = 3 * np.sqrt(ALPHA * (1 - ALPHA) / reps)
    for (rule, truth, n), part in table.groupby(["rule", "truth", "points"]):
        if not truth.startswith(_CONTRADICTED):
            continue
        rates = part.sort_values("se / margin")["agrees"].to_numpy()
        if np.any(np.diff(rates) > slack):
            out.append(f"{rule}, {truth}, {n} points: agrees rises with noise")
    return out
