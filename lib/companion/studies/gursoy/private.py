"""The studies of the private classifiers (Gursoy et al., Figs. 7-14): r-N
classification, the k-to-r conversions and k-NN classification, with the PrivBayes
comparator.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from dpnn.classification import interactive, knn, overlap, rn, uniform_grid

from .folds import over_folds, sample_test, tuned_radius

__all__ = ["rn_study", "conversion_study", "knn_study"]


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
    (:func:`over_folds`): the table does not depend on ``n_jobs``.

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
    return over_folds(
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
            chosen = sample_test(test, n_test, rng)
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
    return over_folds(
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
        queries = points[sample_test(test, n_test, rng)]
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
    return over_folds(
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
        chosen = sample_test(test, n_test, rng)
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
