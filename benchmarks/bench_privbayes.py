"""Time the PrivBayes comparator of notebook 09 (DataSynthesizer's correlated mode).

Writes benchmarks/results/privbayes.json. At the thesis profile PrivBayes is most of
notebook 09's time. ``dpnn.privbayes`` computes each mutual information of the greedy
network search once per fit and runs the search's scores, the noisy conditionals and
the sampling on arrays (the same floats and draws as DataSynthesizer's own functions:
tests/test_privbayes.py and tests/test_privbayes_arrays.py), and the three fits of a
fold (one per epsilon) run over two processes with the seeds the sequential calls would
draw. Timed here: one fit, and a fold's three fits on one and on two processes, on
breast cancer (30 attributes, degree 1, the thesis profile's setting) and wine (13
attributes, degree 2).
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

        one = best_time(fit, 1)
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
            f"{name}: one fit (s)": one,
            f"{name}: three fits of a fold, n_jobs=1 (s)": folds[1],
            f"{name}: three fits of a fold, n_jobs=2 (s)": folds[2],
        }
    return report("privbayes", results)


if __name__ == "__main__":
    main()
