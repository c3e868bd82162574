"""Time the PrivBayes comparator of notebook 09 (DataSynthesizer's correlated mode),
before and after its speed-up.

Writes benchmarks/results/privbayes.json. At the thesis profile PrivBayes was most of
notebook 09's time: DataSynthesizer's greedy network search recomputes the mutual
information of every (child, parents) candidate at every step, although the data do not
change within a fit. ``dpnn.privbayes`` now computes each value once per fit (the same
floats, so the same synthetic data: tests/test_privbayes.py), and the three fits of a
fold (one per epsilon) run over two processes with the seeds the sequential calls would
draw. Both are timed here in one run on breast cancer (30 attributes, degree 1, the
thesis profile's setting) and wine (13 attributes, degree 2).
"""

from __future__ import annotations

import platform

import numpy as np
from _results import best_time, report

from dpnn import data, privbayes


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    for name, degree in (("breast_cancer", 1), ("wine", 2)):
        points, labels = data.classification_dataset(name, seed=7)
        points, labels = (
            points[: int(0.8 * len(points))],
            labels[: int(0.8 * len(points))],
        )
        n_labels = int(labels.max() + 1)

        def fit():
            return privbayes.privbayes_synthetic(
                points, labels, n_labels, 1.0, np.random.default_rng(3), degree=degree
            )

        remembered = privbayes._remembered
        # DataSynthesizer's own recomputation
        privbayes._remembered = lambda function: function
        try:
            plain = fit()
            before = best_time(fit, 1)
        finally:
            privbayes._remembered = remembered
        fast = fit()
        assert all(np.array_equal(a, b) for a, b in zip(plain, fast))
        after = best_time(fit, 1)
        folds = {
            n_jobs: best_time(
                lambda: privbayes.privbayes_copies(
                    points,
                    labels,
                    n_labels,
                    (0.5, 1.0, 2.0),
                    np.random.default_rng(4),
                    degree=degree,
                    n_jobs=n_jobs,
                ),
                1,
            )
            for n_jobs in (1, 2)
        }
        results |= {
            f"{name}: one fit, each MI recomputed (s)": before,
            f"{name}: one fit, each MI once (s)": after,
            f"{name}: speed-up of a fit": before / after,
            f"{name}: three fits of a fold, n_jobs=1 (s)": folds[1],
            f"{name}: three fits of a fold, n_jobs=2 (s)": folds[2],
        }
    return report("privbayes", results)


if __name__ == "__main__":
    main()
