"""Claims of Gursoy et al. on private r-N and k-NN classification (§5; notebook 09).

``tables``: ``rn_table``, ``conversion_table``, ``knn_table`` and ``other_table`` (the
per-fold rows of :mod:`dpnn.classification.studies`, each with a ``dataset`` column),
``chance`` (dataset to one over its number of labels) and ``dimensions`` (dataset to
its number of features).

Cross-validation folds share most of their training data, so a comparison of two
methods over folds uses Nadeau and Bengio's corrected resampled t-test
(:func:`.inference.cv_better`): a method's per-fold value is its mean over the fold's
batches, and ``n_test / n_train = 1 / (k - 1)``, the fold sizes of ``k``-fold
cross-validation. The p-values of every setting (dataset, budget, batch size, k) one
finding covers are Holm-adjusted together. A setting where both methods are at the
floor (accuracy at most 0.05) or the ceiling (at least 0.95) is left out. A value
claim is judged with the same corrected standard error. The paper gives 95% margins
for a few settings only, so its own sampling error is not used. The claims read
accuracy tables only: no privacy is spent.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import AGREES, DIFFERS, PARTLY, Claim, Verdict, combine, not_comparable
from .inference import _where, corrected_resampled_ttest, cv_better, holm
from .rules import CEILING, FLOOR, Z, outcome_band, outcome_exists, over_range

NOTEBOOK = "09_dp_knn_classification"
SOURCE = "Gursoy et al. 2017 (private k-NN classification)"
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


CV = (
    "Nadeau and Bengio's corrected resampled t-test over the folds "
    "(n_test / n_train = 1 / (k - 1)), Holm "
    "across every setting the claim covers, at 5%"
)
CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.2",
        "Figs. 7-9",
        "'the proposed solution clearly outperforms "
        "the baseline solution and PrivBayes'",
        "r-N accuracy, proposed minus baseline "
        "and proposed minus PrivBayes, per fold, "
        "at every dataset and ε, at the dataset's "
        "largest |X| (the budget divided most)",
        "better at a setting where the difference is positive with " + CV + "; agrees "
        "when better at every setting, differs at none, partly otherwise",
        _outperforms,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.2",
        "Figs. 7-9",
        "'With ε = 1.0, on the average we obtain 5-10% accuracy loss … Using the "
        "baseline solution or PrivBayes, this amount is usually doubled or tripled'",
        "per dataset at ε = 1 and the largest "
        "|X|: non-private minus proposed accuracy, "
        "and the ratio of the baseline's (PrivBayes's) loss to the proposed one's",
        "a loss in 0.05-0.10 and a ratio in 2-3 hold within two corrected standard "
        "errors over the folds (delta method for the ratio); agrees on half the "
        "datasets or more with none outside by two errors",
        _loss,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 10",
        "'If data dimensionality is not high, for realistic ε̂ = 0.5, 1.0, 2.0, the "
        "non-interactive algorithm is the better choice'",
        f"AvRE in r, interactive minus non-interactive, per fold, on the datasets of "
        f"fewer than {HIGH_DIMENSION} features at ε̂ = 0.5, 1, 2",
        "lower AvRE with " + CV + "; agrees when lower at every setting",
        lambda t: _conversion_family(t, False, "non-interactive", "interactive"),
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 10",
        "'it suffers from the curse of dimensionality especially for the "
        "non-interactive algorithm'",
        f"AvRE in r, non-interactive minus interactive, per fold, on the datasets of "
        f"{HIGH_DIMENSION} features or more at ε̂ = 0.5, 1, 2",
        "the interactive conversion's AvRE lower with " + CV,
        lambda t: _conversion_family(t, True, "interactive", "non-interactive"),
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 10",
        "'With ε̂ = 1 we achieve AvRE as low as 10–20%'",
        f"AvRE in r at ε̂ = 1 of the better conversion, per dataset of fewer than "
        f"{HIGH_DIMENSION} features (the paper names thyroid the exception)",
        "at most 20% (a lower AvRE is better than the words) within two corrected "
        "standard errors; agrees on half the datasets or more with none above by two",
        _avre_at_one,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 11",
        "'the super-linear increase in RMSE becomes apparent with ε ≤ 0.05'",
        "slope of log RMSE in k against log(1/ε̂) on each step of the sweep, per "
        "dataset and conversion (steps where the "
        "radius is the diameter at both ends left out)",
        "super-linear where the slope exceeds 1 by two corrected standard errors: it "
        "should hold on the steps reaching ε̂ ≤ 0.05 and not above (each part agrees "
        "on half its steps or more, none opposite)",
        _superlinear,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Figs. 10-11",
        "'Both of our algorithms are often better than PrivBayes'",
        "the conversions' AvRE against a PrivBayes copy's",
        "not judged: the conversion study runs no PrivBayes",
        lambda t: not_comparable(
            "the conversion study here runs no PrivBayes copy: "
            "Figs. 10-11 of this notebook "
            "have no PrivBayes curve"
        ),
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.4",
        "Figs. 12-14",
        "'The baseline approach performs poorly on all datasets'",
        "baseline k-NN accuracy minus chance (one over "
        "the labels), per dataset, at every ε and k",
        f"'poorly': within {POOR} of chance (this notebook's reading) within two "
        "corrected standard errors, at half the settings or more and none above by "
        "two; the datasets combined",
        _baseline_poor,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.4",
        "Figs. 12-14",
        "'when ε = 1.0 or 2.0, at least one of private-INT or private-NONINT "
        "significantly outperforms PrivBayes'",
        "k-NN accuracy, private-INT and private-NONINT "
        "each minus PrivBayes, per fold, "
        "at ε = 1, 2 and every k, on the datasets given PrivBayes",
        "a setting holds when either is better with " + CV + " (both tests of every "
        "setting in one Holm family); agrees when every setting holds",
        _beats_privbayes,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "abstract",
        "Fig. 15",
        "'the accuracy of our proposed k-NN classifiers are at least comparable to, "
        "and in many cases better than, the other differentially private machine "
        "learning techniques'",
        "accuracy, private k-NN minus each "
        "diffprivlib classifier, per "
        "fold, at every dataset and ε",
        "with " + CV + ": 'at least comparable' agrees when ours is worse at no "
        "setting; 'in many cases better' agrees when ours is better at half the "
        "settings or more, partly at fewer, differs at none",
        _comparable,
    ),
)
