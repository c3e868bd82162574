"""Time SimRand's recall sweep at k = 1024 (notebook 12) and where its time goes.

Writes benchmarks/results/simrand_recall.json. One point of ``recall_table`` on digits
(1497 released rows, 300 queries, k = 1024 bits or projected dimensions): SimRand's
release and Hamming k-NN, the Gaussian baseline's release and k-NN. No speed-up changed
anything here: the time is the random draws (k x d projections, n x k flips and noise),
which fix the random stream, and BLAS matrix products, whose rounding fixes the printed
results; the parts are timed to show it, "before" and "after" being the same code.
"""

from __future__ import annotations

import platform

import numpy as np
from _results import best_time, report

from companion.studies import simrand as simrand_studies
from dpnn import data, simrand


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    rng = np.random.default_rng(0)
    digits, _ = data.load_vectors("digits")
    queries, database = digits[:300], digits[300:]
    k, epsilon, delta, alpha = 1024, 8.0, 1e-5, np.pi / 8
    table = lambda: simrand_studies.recall_table(
        digits,
        [alpha],
        [k],
        [epsilon],
        n_queries=300,
        n_neighbours=10,
        repeats=1,
        delta=delta,
        rng=rng,
    )
    results["recall_table, one point k=1024 (s)"] = best_time(table, 3)
    release = simrand.simrand(database, k, epsilon, delta, alpha, rng)
    results["SimRand release (projection, hash, flips) (s)"] = best_time(
        lambda: simrand.simrand(database, k, epsilon, delta, alpha, rng), 3
    )
    results["SimRand Hamming k-NN of 300 queries (s)"] = best_time(
        lambda: simrand.knn_hamming(release, queries, 10, rng), 3
    )
    gaussian = simrand.gaussian_projection(database, k, epsilon, delta, alpha, rng)
    results["Gaussian RP release (s)"] = best_time(
        lambda: simrand.gaussian_projection(database, k, epsilon, delta, alpha, rng), 3
    )
    results["Gaussian RP k-NN of 300 queries (s)"] = best_time(
        lambda: simrand.knn_euclidean(gaussian, queries, 10), 3
    )
    results["of which: normal draws n x k (s)"] = best_time(
        lambda: rng.normal(0.0, 1.0, size=(len(database), k)), 3
    )
    return report("simrand_recall", results)


if __name__ == "__main__":
    main()
