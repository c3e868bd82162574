"""Time the experiments of notebook 11 (Liang and Yi) at the thesis profile's sizes.

Writes benchmarks/results/liang_yi_studies.json. One case of each experiment (one
setting on one trajectory of 30000 points, n = 20000, 25 repetitions, as the thesis
profile runs 50 of them per setting): identity (Fig. 2), kNN at k = 4 and k = 256 (Figs.
3-4) and the convex hull (Fig. 5), each through its experiment function in one process
without a cache. Median and range of the repeats are reported; the machine is shared,
so compare the figures of one run, not runs of different days.
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
from _results import report

from companion.studies import liang_yi as studies
from dpnn import cgp


def _times(call, repeats):
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return out


def _summary(results, label, times):
    results[f"{label}: median (s)"] = float(np.median(times))
    results[f"{label}: min-max (s)"] = f"{min(times):.4g}-{max(times):.4g}"


def main() -> dict:
    results = {
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "load average at start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
    }
    rng = np.random.default_rng(0)
    path = cgp.taxi_trajectories(1, rng, min_length=30000, max_length=30000)[0]
    rho, n, repetitions = 5e-4, 20000, 25
    cases = {
        "identity case n=20000 x 25": lambda: studies.identity_experiment(
            [path], [(rho, n)], repetitions, 1
        ),
        "kNN case k=4 n=20000 x 25": lambda: studies.knn_experiment(
            [path], [(rho, 4, n)], repetitions, 2
        ),
        "kNN case k=256 n=20000 x 25": lambda: studies.knn_experiment(
            [path], [(rho, 256, n)], repetitions, 3
        ),
        "hull case n=20000 x 25": lambda: studies.hull_experiment(
            [path], [(rho, n)], repetitions, 4
        ),
    }
    for label, call in cases.items():
        _summary(results, label, _times(call, 3))
    results["load average at end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return report("liang_yi_studies", results)


if __name__ == "__main__":
    main()
