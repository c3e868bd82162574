"""Cross-validation folds of Gursoy et al.'s §5 studies, and the summaries of
their tables (means with confidence intervals, paired differences).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpnn._validation import generator, positive_int
from dpnn.classification import knn

__all__ = [
    "cv_splits",
    "sample_test",
    "over_folds",
    "tuned_radius",
    "summarize",
    "paired_difference",
]


def cv_splits(n_points, n_folds, rng):
    """``n_folds``-fold cross-validation index pairs (train, test) over a seeded shuffle
    (§5: 80/20, 5 folds)."""
    from sklearn.model_selection import KFold

    n_folds = positive_int(n_folds, "n_folds", minimum=2)
    seed = int(generator(rng).integers(2**31))
    return list(
        KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(
            np.arange(n_points)
        )
    )


def tuned_radius(train, test, neighbours=10) -> float:
    """Median distance from the test instances to their ``neighbours``-th nearest
    training point.

    The paper sets r so that a test instance has 5 to 20 training instances in
    its region on average (§5.1): a non-private tuning step, as there.
    """
    return float(np.median(knn.knn_radii(train, test, neighbours)))


def sample_test(test, n_test, rng):
    """``n_test`` distinct indices drawn by ``rng`` from the fold's test indices
    ``test`` without replacement (all of them, shuffled, when the fold is that
    small)."""
    return rng.choice(test, size=min(n_test, test.size), replace=False)


def over_folds(fold_rows, n_points, n_folds, rng, n_jobs, desc, *arguments):
    """The rows of ``fold_rows(fold, train, test, seed, *arguments)`` over the folds of
    a seeded split, as one DataFrame.

    One draw of ``rng`` splits the data (:func:`cv_splits`) and one more gives a root;
    fold f draws from ``default_rng([root, f])``. The folds run over ``n_jobs``
    processes (:func:`companion.cached_loops.run_cases`), and the table is the same for
    any ``n_jobs``.
    """
    import pandas as pd

    from companion.cached_loops import run_cases

    rng = generator(rng)
    splits = cv_splits(n_points, n_folds, rng)
    root = int(rng.integers(2**63))
    cases = [
        (fold, train, test, [root, fold], *arguments)
        for fold, (train, test) in enumerate(splits)
    ]
    return pd.DataFrame(
        [
            row
            for rows in run_cases(fold_rows, cases, n_jobs=n_jobs, desc=desc)
            for row in rows
        ]
    )


def summarize(table, by, value="accuracy"):
    """Mean, standard deviation, count and 95% confidence half-width of the mean per
    group.

    The half-width is Student's ``t_{0.975, n-1} sd / sqrt(n)`` over the n
    rows of a group (folds x repeats, often 5: the normal 1.96 would be far
    too narrow). One row gives no estimate of the spread, so every group must
    have n >= 2 (ValueError otherwise; no interval is invented).
    """
    grouped = table.groupby(by)[value]
    summary = grouped.agg(["mean", "std", "count"]).reset_index()
    if summary["count"].min() < 2:
        lonely = summary.loc[summary["count"] < 2].iloc[0]
        raise ValueError(
            f"every group of {value!r} needs at "
            "least 2 rows for a confidence interval, "
            f"got {int(lonely['count'])} in group "
            f"{lonely[by].to_dict() if isinstance(by, list) else lonely[by]}"
        )
    summary["ci95"] = (
        stats.t.ppf(0.975, summary["count"] - 1)
        * summary["std"]
        / np.sqrt(summary["count"])
    )
    return summary


def paired_difference(
    table, method_a, method_b, by, value="accuracy", pair=("fold", "repeat")
):
    """Paired comparison of two methods across folds: does ``method_a`` beat
    ``method_b``?

    Within each group of ``by`` (e.g. dataset and epsilon), the rows of the two methods
    are matched on ``pair`` (the same fold and repeat: the same training data and test
    batch), and the differences a - b are summarized: their mean, Student-t 95%
    half-width, the two-sided p-value of the paired t test, the number of pairs and how
    many of them a wins. A group with fewer than 2 pairs raises ValueError (no interval
    from one pair).
    """
    import pandas as pd

    by = [by] if isinstance(by, str) else list(by)
    keys = by + list(pair)
    left = table[table.method == method_a].set_index(keys)[value]
    right = table[table.method == method_b].set_index(keys)[value]
    if left.index.has_duplicates or right.index.has_duplicates:
        raise ValueError(
            f"pair={pair!r} must identify one row per "
            f"method within each group of by={by!r}"
        )
    difference = (left - right).dropna().rename("difference").reset_index()
    rows = []
    for group, part in difference.groupby(by):
        values = part["difference"].to_numpy(dtype=float)
        if values.size < 2:
            raise ValueError(
                f"group {group} has {values.size} pair(s) of {method_a!r} and "
                f"{method_b!r}; need >= 2"
            )
        sd = values.std(ddof=1)
        half = stats.t.ppf(0.975, values.size - 1) * sd / np.sqrt(values.size)
        p_value = (
            float(stats.ttest_1samp(values, 0.0).pvalue)
            if sd > 0
            else (0.0 if values.mean() else 1.0)
        )
        rows.append(
            dict(zip(by, group if isinstance(group, tuple) else (group,)))
            | dict(
                difference=values.mean(),
                ci95=half,
                p_value=p_value,
                pairs=values.size,
                wins=int(np.sum(values > 0)),
            )
        )
    return pd.DataFrame(rows)
