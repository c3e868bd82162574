"""Claims of Gursoy et al. on private r-N and k-NN classification (§5; notebook 09):
the r-N classifiers (§5.2) and the k-NN to r-N conversions (§5.3) here, the k-NN
classifiers (§5.4 and the abstract) in :mod:`.gursoy_knn`.

``tables``: ``rn_table``, ``conversion_table``, ``knn_table`` and ``other_table`` (the
per-fold rows of :mod:`companion.studies.gursoy`, each with a ``dataset`` column),
``chance`` (dataset to one over its number of labels) and ``dimensions`` (dataset to
its number of features).

Cross-validation folds share most of their training data, so a comparison of two
methods over folds uses Nadeau and Bengio's corrected resampled t-test
(:func:`.inference.cv_better`): a method's per-fold value is its mean over the fold's
batches, and ``n_test / n_train = 1 / (k - 1)``, the fold sizes of ``k``-fold
cross-validation. The p-values of every setting (dataset, budget, batch size, k) one
finding covers are judged by the rules of :mod:`companion.claims.rules`: one-sided
t-tests on ``J - 1`` degrees of freedom, every setting holding for a claim on
every setting (no correction), Holm across the settings for the tests against it.
A setting where both methods are at the floor (accuracy at most 0.05) or the
ceiling (at least 0.95) is left out. A value claim is an equivalence test with the
same corrected standard error; "usually" and "on the average" are read as every
dataset. The claims read
accuracy tables only: no privacy is spent.
"""

from __future__ import annotations

import numpy as np

from .core import Claim, Verdict, combine, not_comparable
from .gursoy_measures import corrected_se, fold_differences, per_fold, ratio
from .judges import cv_better
from .rules import critical, outcome_band, outcome_exists, points, tally

__all__ = [
    "NOTEBOOK",
    "SOURCE",
    "CV",
    "HIGH_DIMENSION",
    "SLOPE",
    "REALISTIC",
    "CLAIMS",
]


NOTEBOOK = "09_dp_knn_classification"
SOURCE = "Gursoy et al. 2017 (private k-NN classification)"


CV = (
    "Nadeau and Bengio's corrected resampled t-test over the folds "
    "(n_test / n_train = 1 / (k - 1)), one-sided at 5% at every setting the "
    "claim covers (Holm across them for the tests against it)"
)

#: Features from which a dataset is high-dimensional (thyroid 21; the others 2 to 5).
HIGH_DIMENSION = 10
#: Smallest departure of a slope from 1 that "super-linear" is read to mean.
SLOPE = 0.1
#: "Realistic" conversion budgets of the paper's conclusion (§5.3).
REALISTIC = (0.5, 1.0, 2.0)


def _outperforms(t):
    rn = t["rn_table"]
    if rn.empty:
        return not_comparable("no r-N study in this run")
    folds = per_fold(rn, ["dataset", "epsilon", "n_test"])
    family = fold_differences(folds, "proposed", "baseline", "baseline: ")
    family |= fold_differences(folds, "proposed", "PrivBayes", "PrivBayes: ")
    if not family:
        return not_comparable("no informative setting")
    return cv_better(family, *ratio(rn))


def _loss_parts(t, method, reference="proposed"):
    """Per dataset and batch size |X| at epsilon 1: the accuracy loss of ``method``
    against the non-private classifier, per fold (and of ``reference``)."""
    rn = t["rn_table"]
    rn = rn[np.isclose(rn["epsilon"], 1.0)]
    folds = per_fold(rn, ["dataset", "n_test"])
    out = {}
    for (dataset, size), part in folds.groupby(level=[0, 1]):
        name = f"{dataset} |X| {size}"
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
    df = min(len(v) for v, _ in proposed.values()) - 1
    outcomes = outcome_band(
        [m for _, m, _ in values], 0.05, 0.10, [s for *_, s in values], df=df
    )
    parts["proposed loses 5-10%"] = _by_dataset(outcomes, values, df, (0.05, 0.10))
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
        df = min(len(v) for v, _ in found.values()) - 1
        outcomes = outcome_band(
            [r for _, r, _ in values], 2.0, 3.0, [s for *_, s in values], df=df
        )
        parts[f"{other} loss doubled or tripled"] = _by_dataset(
            outcomes, values, df, (2.0, 3.0)
        )
    return combine(parts)


def _by_dataset(outcomes, values, df, band) -> Verdict:
    """The counting rule of :func:`.rules.over_range` over datasets (not budgets);
    the evidence is each value with its 90% t interval on ``df`` in ``band``."""
    names = np.array([k for k, *_ in values], dtype=object)
    where = "; ".join(
        f"{o} on {', '.join(names[outcomes == o])}"
        for o in ("holds", "opposite", "level")
        if np.any(outcomes == o)
    )
    numbers = ", ".join(f"{k}: {m:.3f} ± {s:.3f}" for k, m, s in values)
    means = np.array([m for _, m, _ in values])
    half = critical(df) * np.array([s for *_, s in values])
    evidence = points(
        names, np.zeros(len(names)), means, means - half, means + half, outcomes, band
    )
    return _count(outcomes, where, numbers, evidence)


def _count(outcomes, where: str, numbers: str, evidence: tuple = ()) -> Verdict:
    """The verdict of :func:`companion.claims.rules.tally` over datasets or steps."""
    return Verdict(tally(outcomes), where, numbers, evidence)


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
    family = fold_differences(folds, better, worse, higher=False)
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
    values, df = [], np.inf
    for name, part in folds.groupby(level=0):
        best = part.mean().idxmin()  # the better of the two conversions
        values.append((f"{name} ({best})", part[best].mean(), corrected_se(part[best])))
        df = min(df, part[best].count() - 1)
    outcomes = outcome_band(
        [m for _, m, _ in values], -np.inf, 20.0, [s for *_, s in values], df=df
    )
    return _by_dataset(outcomes, values, df, (-np.inf, 20.0))


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
                    len(slopes) - 1,
                    f"{name} {method}",
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
        df = min(r[4] for r in rows)
        outcomes = outcome_exists(sign * (slopes - 1), errors, margin=SLOPE, df=df)
        parts[part] = _steps(outcomes, rows, sign * (slopes - 1), critical(df) * errors)
    return combine(parts)


def _steps(outcomes, rows, effects, half) -> Verdict:
    """The verdict over steps; the evidence is each step's tested effect (the slope's
    excess over 1, its sign flipped where a slope below 1 is claimed) at its lower
    ε̂, with its 90% t interval ``effects ± half``, against zero."""
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
    xs = [r[3] for r in rows]
    evidence = points(
        [r[5] for r in rows], xs, effects, effects - half, effects + half, outcomes
    )
    return _count(outcomes, where, numbers, evidence)


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
        "at every dataset, ε and |X| (Figs. 7-9 draw the "
        "accuracy against |X|)",
        "better at a setting where the difference is shown positive with " + CV + "; "
        "agrees when better at every setting (companion.claims.rules)",
        _outperforms,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.2",
        "Figs. 7-9",
        "'With ε = 1.0, on the average we obtain 5-10% accuracy loss … Using the "
        "baseline solution or PrivBayes, this amount is usually doubled or tripled'",
        "per dataset and |X| at ε = 1 (the words name no |X|): "
        "non-private minus proposed accuracy, "
        "and the ratio of the baseline's (PrivBayes's) loss to the proposed one's",
        "equivalence tests: a loss in 0.05-0.10 and a ratio in 2-3, the 90% interval "
        "(corrected standard errors over the folds, t, delta method for the ratio) "
        "inside the band on every dataset and |X|",
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
        "at most 20% (a lower AvRE is better than the words): shown below 20 by a "
        "one-sided t-test on the corrected standard error, on every dataset",
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
        "super-linear where the slope is shown above 1 (one-sided t on the corrected "
        "standard error; contradicted where shown below 1.1): it should hold on every "
        "step reaching ε̂ ≤ 0.05 and its reverse on every step above",
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
)
