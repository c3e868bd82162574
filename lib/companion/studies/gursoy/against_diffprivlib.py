"""Fig. 15 of Gursoy et al.: private k-NN against diffprivlib's logistic regression
and naive Bayes.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from dpnn.classification import knn

from .folds import over_folds, sample_test

__all__ = ["diffprivlib_models", "other_classifiers_study"]


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
    return over_folds(
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
    chosen = sample_test(test, n_test, rng)
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
