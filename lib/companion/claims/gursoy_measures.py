"""What each claim of :mod:`companion.claims.gursoy` measures and how it is judged: the
functions its registry calls, and their constants.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import AGREES, DIFFERS, PARTLY, Verdict, combine, not_comparable
from .inference import _where, corrected_resampled_ttest, cv_better, holm
from .rules import CEILING, FLOOR, outcome_band, outcome_exists, over_range

__all__ = ["HIGH_DIMENSION", "REALISTIC", "POOR", "per_fold", "ratio", "corrected_se"]


#: Features from which a dataset is high-dimensional (thyroid 21; the others 2 to 5).
HIGH_DIMENSION = 10
#: "Realistic" conversion budgets of the paper's conclusion (§5.3).
REALISTIC = (0.5, 1.0, 2.0)
#: Excess over chance that this notebook reads as "performs poorly".
POOR = 0.15


def per_fold(table: pd.DataFrame, keys, value: str = "accuracy") -> pd.DataFrame:
    """Each method's ``value`` per setting ``keys`` and fold, averaged over repeats:
    one column per method."""
    keys = list(keys)
    means = table.groupby(keys + ["method", "fold"])[value].mean()
    return means.unstack("method")


def ratio(table: pd.DataFrame) -> tuple[int, int]:
    """(n_train, n_test) in the proportion of ``k``-fold cross-validation."""
    return max(int(table["fold"].nunique()) - 1, 1), 1


def corrected_se(values) -> float:
    """Standard error of a mean over ``J`` folds, Nadeau and Bengio's correction:
    sqrt((1 / J + 1 / (J - 1)) s^2)."""
    v = np.asarray(values, dtype=float)
    j = len(v)
    return float(np.sqrt((1 / j + 1 / (j - 1)) * v.var(ddof=1)))


def _differences(
    folds: pd.DataFrame, a: str, b: str, prefix: str = "", higher: bool = True
) -> dict:
    """{setting: per-fold a - b (b - a when lower is better)} where both ran and the
    two are not both at the floor or both at the ceiling."""
    out = {}
    if a not in folds or b not in folds:
        return out
    levels = list(range(folds.index.nlevels - 1))  # keys are tuples
    for key, part in folds[[a, b]].dropna().groupby(level=levels):
        if len(part) < 2:
            continue
        ma, mb = part[a].mean(), part[b].mean()
        if higher and (
            (ma <= FLOOR and mb <= FLOOR) or (ma >= CEILING and mb >= CEILING)
        ):
            continue
        d = part[a] - part[b] if higher else part[b] - part[a]
        out[prefix + " ".join(map(str, key))] = d.to_numpy(float)
    return out


def _largest_batch(rn):
    largest = rn.groupby("dataset")["n_test"].transform("max")
    return rn[rn["n_test"] == largest]


def _outperforms(t):
    rn = t["rn_table"]
    if rn.empty:
        return not_comparable("no r-N study in this run")
    rn = _largest_batch(rn)
    folds = per_fold(rn, ["dataset", "epsilon"])
    family = _differences(folds, "proposed", "baseline", "baseline: ")
    family |= _differences(folds, "proposed", "PrivBayes", "PrivBayes: ")
    if not family:
        return not_comparable("no informative setting")
    return cv_better(family, *ratio(rn))


def _loss_parts(t, method, reference="proposed"):
    """Per dataset at epsilon 1 and the largest batch: the accuracy loss of ``method``
    against the non-private classifier, per fold (and of ``reference``)."""
    rn = _largest_batch(t["rn_table"])
    rn = rn[np.isclose(rn["epsilon"], 1.0)]
    folds = per_fold(rn, ["dataset"])
    out = {}
    for name, part in folds.groupby(level=0):
        if method not in part or part[method].isna().all():
            continue
        part = part.dropna(subset=[method, reference, "non-private"])
        if len(part) < 2:
            continue
        out[name] = (
            (part["non-private"] - part[method]).to_numpy(float),
            (part["non-private"] - part[reference]).to_numpy(float),
        )
    return out


def _loss(t):
    if t["rn_table"].empty:
        return not_comparable("no r-N study in this run")
    parts = {}
    proposed = _loss_parts(t, "proposed")
    if not proposed:
        return not_comparable("ε = 1 not run")
    values = [(k, v.mean(), corrected_se(v)) for k, (v, _) in proposed.items()]
    outcomes = outcome_band(
        [m for _, m, _ in values],
        0.05,
        0.10,
        [s for *_, s in values],
        [s for *_, s in values],
    )
    parts["proposed loses 5-10%"] = _by_dataset(outcomes, values)
    for other in ("baseline", "PrivBayes"):
        found = _loss_parts(t, other)
        if not found:
            parts[f"{other} loss doubled or tripled"] = not_comparable(
                f"{other} not run at ε = 1"
            )
            continue
        values = []
        for name, (theirs, ours) in found.items():
            r = theirs.mean() / max(ours.mean(), 1e-12)
            se = abs(r) * np.hypot(
                corrected_se(theirs) / max(abs(theirs.mean()), 1e-12),
                corrected_se(ours) / max(abs(ours.mean()), 1e-12),
            )
            values.append((name, r, se))
        outcomes = outcome_band(
            [r for _, r, _ in values],
            2.0,
            3.0,
            [s for *_, s in values],
            [s for *_, s in values],
        )
        parts[f"{other} loss doubled or tripled"] = _by_dataset(outcomes, values)
    return combine(parts)


def _by_dataset(outcomes, values) -> Verdict:
    """The counting rule of :func:`.rules.over_range` over datasets (not budgets)."""
    names = np.array([k for k, *_ in values], dtype=object)
    where = "; ".join(
        f"{o} on {', '.join(names[outcomes == o])}"
        for o in ("holds", "opposite", "level")
        if np.any(outcomes == o)
    )
    numbers = ", ".join(f"{k}: {m:.3f} ± {s:.3f}" for k, m, s in values)
    return _count(outcomes, where, numbers)


def _count(outcomes, where: str, numbers: str) -> Verdict:
    """Agrees: holds at half or more and opposite at none; differs: holds at none."""
    held = int(np.sum(outcomes == "holds"))
    if held * 2 >= len(outcomes) and not np.any(outcomes == "opposite"):
        return Verdict(AGREES, where, numbers)
    return Verdict(DIFFERS if held == 0 else PARTLY, where, numbers)


def _conversion_family(t, high: bool, better: str, worse: str):
    table = t["conversion_table"]
    if table.empty:
        return not_comparable("no conversion study in this run")
    wanted = [n for n, d in t["dimensions"].items() if (d >= HIGH_DIMENSION) == high]
    table = table[
        table["dataset"].isin(wanted) & table["epsilon_hat"].round(6).isin(REALISTIC)
    ]
    if table.empty:
        return not_comparable("no dataset of that dimension at ε̂ 0.5, 1, 2")
    folds = per_fold(table, ["dataset", "epsilon_hat"], "avre")
    family = _differences(folds, better, worse, higher=False)
    return (
        cv_better(family, *ratio(table))
        if family
        else not_comparable("fewer than two folds")
    )


def _avre_at_one(t):
    table = t["conversion_table"]
    if table.empty:
        return not_comparable("no conversion study in this run")
    low = [n for n, d in t["dimensions"].items() if d < HIGH_DIMENSION]
    table = table[table["dataset"].isin(low) & np.isclose(table["epsilon_hat"], 1.0)]
    if table.empty:
        return not_comparable("ε̂ = 1 not run on a low-dimensional dataset")
    folds = per_fold(table, ["dataset"], "avre")
    values = []
    for name, part in folds.groupby(level=0):
        best = part.mean().idxmin()  # the better of the two conversions
        values.append((f"{name} ({best})", part[best].mean(), corrected_se(part[best])))
    outcomes = outcome_band(
        [m for _, m, _ in values],
        0.0,
        20.0,
        [s for *_, s in values],
        [s for *_, s in values],
    )
    return _by_dataset(outcomes, values)


def _superlinear(t):
    table = t["conversion_table"]
    if table.empty:
        return not_comparable("no conversion study in this run")
    folds = per_fold(table, ["dataset", "epsilon_hat"], "rmse")
    low, above = [], []
    for method in folds.columns:
        for name, curve in folds[method].dropna().groupby(level=0):
            by = curve.droplevel(0).unstack("epsilon_hat")  # folds x budgets
            budgets = by.columns.to_numpy(float)
            for lo, hi in zip(budgets[:-1], budgets[1:]):
                a, b = by[lo].to_numpy(float), by[hi].to_numpy(float)
                if (
                    np.array_equal(a, b)
                    or np.any(a <= 0)
                    or np.any(b <= 0)
                    or len(a) < 2
                ):
                    continue  # the radius at the domain's diameter at both budgets
                slopes = np.log(a / b) / np.log(hi / lo)  # per fold
                row = (
                    f"{name} {method} {lo:g}-{hi:g}",
                    slopes.mean(),
                    corrected_se(slopes),
                    lo,
                )
                (low if lo <= 0.05 + 1e-12 else above).append(row)
    parts = {}
    for part, rows, sign in (
        ("super-linear at ε̂ ≤ 0.05", low, 1),
        ("not super-linear above", above, -1),
    ):
        if not rows:
            parts[part] = not_comparable("no step of the sweep in that range")
            continue
        slopes = np.array([r[1] for r in rows])
        errors = np.array([r[2] for r in rows])
        outcomes = outcome_exists(sign * (slopes - 1), errors, errors)
        parts[part] = _steps(outcomes, rows)
    return combine(parts)


def _steps(outcomes, rows) -> Verdict:
    names = np.array([r[0] for r in rows], dtype=object)
    numbers = "slope of log RMSE in log(1/ε̂): " + ", ".join(
        f"{r[0]}: {r[1]:.2f} ± {r[2]:.2f}" for r in rows
    )
    where = "; ".join(
        f"{o} {int(np.sum(outcomes == o))} of {len(rows)} steps"
        + (
            f" ({', '.join(names[outcomes == o])})"
            if o != "holds" and np.sum(outcomes == o) <= 4
            else ""
        )
        for o in ("holds", "opposite", "level")
        if np.any(outcomes == o)
    )
    return _count(outcomes, where, numbers)


def _baseline_poor(t):
    table = t["knn_table"]
    if table.empty:
        return not_comparable("no k-NN study in this run")
    folds = per_fold(table[table["method"] == "baseline"], ["dataset", "epsilon", "k"])
    parts = {}
    for name, part in folds.groupby(level=0):
        chance = t["chance"][name]
        rows = [
            (f"ε {e:g} k {k}", v.mean() - chance, corrected_se(v))
            for (_, e, k), v in part["baseline"].groupby(level=[0, 1, 2])
            if len(v) > 1
        ]
        if not rows:
            continue
        excess = np.array([r[1] for r in rows])
        errors = np.array([r[2] for r in rows])
        outcomes = outcome_band(excess, -1.0, POOR, errors, errors)
        x = np.arange(1, len(rows) + 1, dtype=float)
        word = over_range(outcomes, x, excess, errors, "setting", len(rows)).word
        largest = int(np.argmax(excess))
        parts[name] = Verdict(
            word,
            f"within {POOR} of chance at "
            f"{int(np.sum(outcomes == 'holds'))} "
            f"of {len(rows)} settings",
            f"largest excess over chance {excess[largest]:+.3f} ± "
            f"{errors[largest]:.3f} at {rows[largest][0]}",
        )
    return combine(parts) if parts else not_comparable("fewer than two folds")


def _beats_privbayes(t):
    table = t["knn_table"]
    if table.empty or "PrivBayes" not in set(table["method"]):
        return not_comparable("no PrivBayes copy in this run's k-NN study")
    table = table[table["epsilon"].round(6).isin((1.0, 2.0))]
    folds = per_fold(table, ["dataset", "epsilon", "k"])
    tests = {}
    for method in ("private-INT", "private-NONINT"):
        for key, d in _differences(folds, method, "PrivBayes").items():
            tests[(key, method)] = (
                d.mean(),
                *corrected_resampled_ttest(d, *ratio(table)),
            )
    if not tests:
        return not_comparable("ε = 1 and 2 not run with PrivBayes")
    adjusted = dict(zip(tests, holm([p for *_, p in tests.values()])))
    settings = sorted({key for key, _ in tests})
    outcome = {}
    for key in settings:
        mine = [
            (tests[(key, m)][1], adjusted[(key, m)])
            for m in ("private-INT", "private-NONINT")
            if (key, m) in tests
        ]
        if any(t_ > 0 and q < 0.05 for t_, q in mine):
            outcome[key] = "holds"
        elif all(t_ < 0 and q < 0.05 for t_, q in mine):
            outcome[key] = "opposite"
        else:
            outcome[key] = "level"
    numbers = "; ".join(
        f"{key} {m}: mean {v[0]:+.3f}, t {v[1]:.2f}, Holm p {adjusted[(key, m)]:.3f}"
        for (key, m), v in tests.items()
    )
    why = "; ".join(
        _where(o, [k for k in settings if outcome[k] == o], len(settings))
        for o in ("holds", "opposite", "level")
        if o in outcome.values()
    )
    held = sum(o == "holds" for o in outcome.values())
    word = AGREES if held == len(settings) else DIFFERS if not held else PARTLY
    return Verdict(word, why, numbers)


def _comparable(t):
    table = t["other_table"]
    if table.empty:
        return not_comparable("no comparison with other private classifiers")
    ours = "private k-NN (ours)"
    folds = per_fold(table, ["dataset", "epsilon"])
    family = {}
    for model in sorted(set(table["method"]) - {ours}):
        family |= _differences(folds, ours, model, f"{model}: ")
    if not family:
        return not_comparable("fewer than two folds")
    n_train, n_test = ratio(table)
    tests = {
        k: corrected_resampled_ttest(d, n_train, n_test) for k, d in family.items()
    }
    adjusted = dict(zip(tests, holm([p for _, p in tests.values()])))
    better = [k for k, (t_, _) in tests.items() if t_ > 0 and adjusted[k] < 0.05]
    worse = [k for k, (t_, _) in tests.items() if t_ < 0 and adjusted[k] < 0.05]
    numbers = "; ".join(
        f"{k}: mean {np.mean(family[k]):+.3f}, t {tests[k][0]:.2f}, "
        f"Holm p {adjusted[k]:.3f}"
        for k in family
    )
    comparable = Verdict(
        DIFFERS if worse else AGREES,
        f"worse at {', '.join(worse)}"
        if worse
        else f"worse at none of {len(family)} settings",
        numbers,
    )
    share = len(better) / len(family)
    many = Verdict(
        AGREES if share >= 0.5 else PARTLY if better else DIFFERS,
        f"better at {len(better)} of {len(family)} settings"
        + (f" ({', '.join(better)})" if better else ""),
    )
    return combine({"at least comparable": comparable, "in many cases better": many})
