"""The evaluation of Gursoy et al. (§5): cross-validated studies of every classifier.

Each study splits the data into folds with one seeded draw, runs each fold from its
own seed over ``n_jobs`` processes (:func:`dpnn.cases.run_cases`), and returns a
table that does not depend on ``n_jobs``. These drivers sit above the algorithms:
nothing in the package imports them.
"""

from __future__ import annotations

import math
import warnings

import networkx as nx
import numpy as np
from scipy import stats

from dpnn._validation import generator, positive_int
from . import interactive, knn, overlap, rn, uniform_grid


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


def _sample(test, n_test, rng):
    """``n_test`` distinct test indices (all of them when the fold is that small)."""
    return rng.choice(test, size=min(n_test, test.size), replace=False)


def _over_folds(fold_rows, n_points, n_folds, rng, n_jobs, desc, *arguments):
    """The rows of ``fold_rows(fold, train, test, seed, *arguments)`` over the folds of
    a seeded split.

    One draw of ``rng`` splits the data (:func:`cv_splits`) and one more gives a root;
    fold f draws from ``default_rng([root, f])``. The folds run over ``n_jobs``
    processes (:func:`dpnn.cases.run_cases`), and the table is the same for any
    ``n_jobs``.
    """
    import pandas as pd

    from dpnn.cases import run_cases

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


def rn_study(
    points,
    labels,
    n_labels,
    epsilons,
    test_counts,
    n_folds,
    repeats,
    rng,
    *,
    neighbours=10,
    privbayes=None,
    n_jobs=1,
):
    """Fig. 7-9 analogue: accuracy of non-private, baseline and proposed r-N against
    |X|.

    One row per (fold, repeat, |X|, epsilon, method) with the accuracy and, for the
    proposed classifier, the mean MCS of the instances' components and the density of
    the region overlap graph (edges / pairs). Test counts larger than a fold are
    skipped. Each fold has its own seed and the folds run over ``n_jobs`` processes
    (:func:`_over_folds`): the table does not depend on ``n_jobs``.

    The radius is tuned on each fold **non-privately**, as in the paper
    (§5.1): :func:`tuned_radius` reads the training and test points. The
    privacy guarantees of the classifiers hold for a fixed, public radius; a
    deployment would fix r in advance or pay for choosing it.

    ``privbayes``: None (default) or a dict of options for
    :func:`dpnn.privbayes.privbayes_copies` (``degree``, ``bins``, ...); then each fold
    also gets an epsilon-DP PrivBayes copy of its training data per epsilon, and the
    method "PrivBayes" is the non-private r-N classifier on that copy (the paper's
    comparator, Figs. 7-9; features must lie in [0, 1]).
    """
    return _over_folds(
        _rn_fold,
        len(labels),
        n_folds,
        rng,
        n_jobs,
        "r-N study (Figs. 7-9), folds",
        points,
        labels,
        n_labels,
        epsilons,
        test_counts,
        repeats,
        neighbours,
        privbayes,
    )


def _rn_fold(
    fold,
    train,
    test,
    seed,
    points,
    labels,
    n_labels,
    epsilons,
    test_counts,
    repeats,
    neighbours,
    privbayes,
):
    """The rows of one fold of :func:`rn_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    radius = tuned_radius(points[train], points[test], neighbours)
    synthetic = _privbayes_copies(
        points[train], labels[train], n_labels, epsilons, rng, privbayes
    )
    for n_test in (n for n in test_counts if n <= test.size):
        for repeat in range(repeats):
            chosen = _sample(test, n_test, rng)
            args = (points[train], labels[train], points[chosen], radius)
            truth = labels[chosen]
            counts = rn.label_counts(*args, n_labels)
            density = nx.density(overlap.region_overlap_graph(points[chosen], radius))
            base = dict(fold=fold, repeat=repeat, n_test=n_test, radius=radius)
            for epsilon in epsilons:
                rows.append(
                    base
                    | dict(
                        epsilon=epsilon,
                        method="non-private",
                        mcs=np.nan,
                        density=np.nan,
                        accuracy=np.mean(
                            rn.rn_classify_nonprivate(counts, rng) == truth
                        ),
                    )
                )
                baseline = overlap.rn_classify_baseline(
                    *args, epsilon, rng, n_labels=n_labels
                )
                rows.append(
                    base
                    | dict(
                        epsilon=epsilon,
                        method="baseline",
                        mcs=np.nan,
                        density=np.nan,
                        accuracy=np.mean(baseline.labels == truth),
                    )
                )
                proposed = overlap.rn_classify_batch(
                    *args, epsilon, rng, n_labels=n_labels
                )
                rows.append(
                    base
                    | dict(
                        epsilon=epsilon,
                        method="proposed",
                        density=density,
                        mcs=float(np.mean(proposed.divisors[proposed.component])),
                        accuracy=np.mean(proposed.labels == truth),
                    )
                )
                if synthetic:
                    fake = rn.label_counts(
                        *synthetic[epsilon], points[chosen], radius, n_labels
                    )
                    rows.append(
                        base
                        | dict(
                            epsilon=epsilon,
                            method="PrivBayes",
                            mcs=np.nan,
                            density=np.nan,
                            accuracy=np.mean(
                                rn.rn_classify_nonprivate(fake, rng) == truth
                            ),
                        )
                    )
    return rows


def _privbayes_copies(points, labels, n_labels, epsilons, rng, options):
    """{epsilon: PrivBayes synthetic (points, labels)} for each budget, or {} when
    ``options`` is None."""
    if options is None:
        return {}
    from dpnn.privbayes import privbayes_copies

    return dict(
        zip(
            epsilons,
            privbayes_copies(points, labels, n_labels, epsilons, rng, **options),
        )
    )


def conversion_study(
    points,
    epsilon_hats,
    k,
    n_test,
    n_folds,
    repeats,
    rng,
    *,
    n_candidates=10,
    gamma=None,
    n_jobs=1,
):
    """Fig. 10-11 analogue: AvRE in r and RMSE in k of Alg. 6 and Alg. 7 against the
    conversion budget.

    Folds seeded and run over ``n_jobs`` processes as in :func:`rn_study`.
    """
    gamma = 1e-3 * math.sqrt(points.shape[1]) if gamma is None else gamma
    return _over_folds(
        _conversion_fold,
        points.shape[0],
        n_folds,
        rng,
        n_jobs,
        "conversion study (Figs. 10-11), folds",
        points,
        epsilon_hats,
        k,
        n_test,
        repeats,
        n_candidates,
        gamma,
    )


def _conversion_fold(
    fold,
    train,
    test,
    seed,
    points,
    epsilon_hats,
    k,
    n_test,
    repeats,
    n_candidates,
    gamma,
):
    """The rows of one fold of :func:`conversion_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    for repeat in range(repeats):
        queries = points[_sample(test, n_test, rng)]
        truth = knn.knn_radii(points[train], queries, k)
        for epsilon_hat in epsilon_hats:
            found = {
                "interactive": interactive.convert_interactive(
                    points[train],
                    queries,
                    k,
                    epsilon_hat,
                    rng,
                    n_candidates=n_candidates,
                ),
                "non-interactive": uniform_grid.convert_noninteractive(
                    uniform_grid.private_uniform_grid(points[train], epsilon_hat, rng),
                    queries,
                    k,
                    gamma,
                    rng,
                ),
            }
            for method, radii in found.items():
                rows.append(
                    dict(
                        fold=fold,
                        repeat=repeat,
                        epsilon_hat=epsilon_hat,
                        method=method,
                        avre=interactive.avre(radii, truth),
                        rmse=interactive.rmse_k(points[train], queries, radii, truth),
                    )
                )
    return rows


def knn_study(
    points,
    labels,
    n_labels,
    epsilons,
    ks,
    n_test,
    n_folds,
    repeats,
    rng,
    *,
    w=0.5,
    privbayes=None,
    n_jobs=1,
):
    """Fig. 12-14 analogue: accuracy of non-private, private-INT, private-NONINT and
    baseline k-NN against k.

    ``privbayes`` as in :func:`rn_study`: the method "PrivBayes" is the
    non-private k-NN classifier trained on an epsilon-DP PrivBayes copy of the
    fold's training data (k capped by the copy's size). Folds seeded and run over
    ``n_jobs`` processes as in :func:`rn_study`.
    """
    return _over_folds(
        _knn_fold,
        len(labels),
        n_folds,
        rng,
        n_jobs,
        "k-NN study (Figs. 12-14), folds",
        points,
        labels,
        n_labels,
        epsilons,
        ks,
        n_test,
        repeats,
        w,
        privbayes,
    )


def _knn_fold(
    fold,
    train,
    test,
    seed,
    points,
    labels,
    n_labels,
    epsilons,
    ks,
    n_test,
    repeats,
    w,
    privbayes,
):
    """The rows of one fold of :func:`knn_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    data = (points[train], labels[train])
    synthetic = _privbayes_copies(*data, n_labels, epsilons, rng, privbayes)
    for repeat in range(repeats):
        chosen = _sample(test, n_test, rng)
        truth = labels[chosen]
        for k in ks:
            base = dict(fold=fold, repeat=repeat, k=k)
            plain = knn.knn_classify_nonprivate(
                *data, points[chosen], k, rng, n_labels=n_labels
            )
            for epsilon in epsilons:
                predicted = {
                    "non-private": plain,
                    "baseline": knn.knn_classify_baseline(
                        *data, points[chosen], k, epsilon, rng, n_labels=n_labels
                    ),
                }
                for name, conversion in (
                    ("private-INT", "interactive"),
                    ("private-NONINT", "noninteractive"),
                ):
                    predicted[name] = knn.knn_classify_private(
                        *data,
                        points[chosen],
                        k,
                        epsilon,
                        rng,
                        n_labels=n_labels,
                        conversion=conversion,
                        w=w,
                    )[0]
                if synthetic:
                    fake = synthetic[epsilon]
                    predicted["PrivBayes"] = knn.knn_classify_nonprivate(
                        *fake,
                        points[chosen],
                        min(k, len(fake[1])),
                        rng,
                        n_labels=n_labels,
                    )
                rows.extend(
                    base
                    | dict(
                        epsilon=epsilon, method=name, accuracy=np.mean(label == truth)
                    )
                    for name, label in predicted.items()
                )
    return rows


def diffprivlib_models():
    """diffprivlib's ``LogisticRegression`` and ``GaussianNB`` (IBM's official package,
    0.6.6).

    diffprivlib 0.6.6 passes ``multi_class`` to scikit-learn's
    ``LogisticRegression``, which scikit-learn 1.8 removed; that is why
    scikit-learn is pinned to 1.7.2 (the README says so).
    """
    from diffprivlib.models import GaussianNB, LogisticRegression

    return LogisticRegression, GaussianNB


def other_classifiers_study(
    points,
    labels,
    n_labels,
    epsilons,
    k,
    n_test,
    n_folds,
    repeats,
    rng,
    *,
    conversion="noninteractive",
    n_jobs=1,
):
    """Fig. 15 analogue: private k-NN (Alg. 5) against diffprivlib's logistic regression
    and naive Bayes.

    The baselines get the feature bounds [0, 1] (and row norm ``sqrt(d)``)
    as public knowledge, so they spend no budget on them and emit no warning.
    Folds seeded and run over ``n_jobs`` processes as in :func:`rn_study`.
    """
    return _over_folds(
        _other_classifiers_fold,
        len(labels),
        n_folds,
        rng,
        n_jobs,
        "diffprivlib comparison (Fig. 15), folds",
        points,
        labels,
        n_labels,
        epsilons,
        k,
        n_test,
        repeats,
        conversion,
    )


def _other_classifiers_fold(
    fold,
    train,
    test,
    seed,
    points,
    labels,
    n_labels,
    epsilons,
    k,
    n_test,
    repeats,
    conversion,
):
    """The rows of one fold of :func:`other_classifiers_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    for repeat in range(repeats):
        rows.extend(
            _other_classifiers_repeat(
                fold,
                repeat,
                train,
                test,
                rng,
                points,
                labels,
                n_labels,
                epsilons,
                k,
                n_test,
                conversion,
            )
        )
    return rows


def _other_classifiers_repeat(
    fold,
    repeat,
    train,
    test,
    rng,
    points,
    labels,
    n_labels,
    epsilons,
    k,
    n_test,
    conversion,
):
    """The rows of one repeat (one test batch) of :func:`other_classifiers_study`."""
    LogisticRegression, GaussianNB = diffprivlib_models()
    dimension = points.shape[1]
    rows = []
    chosen = _sample(test, n_test, rng)
    truth = labels[chosen]
    for epsilon in epsilons:
        model_seed = int(rng.integers(2**31))
        models = {
            "DP logistic regression": LogisticRegression(
                epsilon=epsilon, data_norm=math.sqrt(dimension), random_state=model_seed
            ),
            "DP Gaussian naive Bayes": GaussianNB(
                epsilon=epsilon,
                bounds=(np.zeros(dimension), np.ones(dimension)),
                random_state=model_seed,
            ),
        }
        # diffprivlib passes options SciPy 1.17 deprecates
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", category=DeprecationWarning, message=".*L-BFGS-B.*"
            )
            predicted = {
                name: model.fit(points[train], labels[train]).predict(points[chosen])
                for name, model in models.items()
            }
        predicted["private k-NN (ours)"] = knn.knn_classify_private(
            points[train],
            labels[train],
            points[chosen],
            k,
            epsilon,
            rng,
            n_labels=n_labels,
            conversion=conversion,
        )[0]
        rows.extend(
            dict(
                fold=fold,
                repeat=repeat,
                epsilon=epsilon,
                method=name,
                accuracy=np.mean(label == truth),
            )
            for name, label in predicted.items()
        )
    return rows


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
