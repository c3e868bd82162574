"""Time Gursoy et al.'s interactive k-NN to r-N conversion (Alg. 6), the hot spot of notebook 09.

Writes benchmarks/results/classification.json. ``convert_interactive`` counts the training
points within each of the n = 10 candidate radii of every test instance. The reference
(the code before the change) asks ``cKDTree.query_ball_point`` once per candidate radius;
``dpnn`` does the same in up to 8 dimensions and above that computes one distance row per
test instance and compares it with all radii at once. Both give the same counts (tests/test_classification.py checks it); the ratio is
measured in the same run, on digits (64-D, the slowest case) and on moons (2-D), with
|X| = 400 test instances as in the thesis profile.
"""

from __future__ import annotations

import platform

import numpy as np
from scipy.spatial import cKDTree

from _results import best_time, report
from dpnn import classification, data


def reference_counts(points, queries, radii):
    tree = cKDTree(points)
    return np.stack([tree.query_ball_point(queries, radii[:, j], return_length=True)
                     for j in range(radii.shape[1])], axis=1)


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    rng = np.random.default_rng(0)
    for name in ("digits", "moons"):
        points, _ = data.classification_dataset(name)
        n_train = int(0.8 * len(points))
        train, queries = points[:n_train], points[rng.integers(n_train, len(points), 400)]
        radius = classification.r_unif(np.full(400, 10), n_train, points.shape[1])
        radii = classification.interactive_candidates(radius, 10)
        assert np.array_equal(reference_counts(train, queries, radii),
                              classification._ball_counts(train, queries, radii))
        before = best_time(lambda: reference_counts(train, queries, radii), repeats=3)
        after = best_time(lambda: classification._ball_counts(train, queries, radii), repeats=3)
        results |= {f"{name}: ball counts, per-radius cKDTree (s)": before,
                    f"{name}: ball counts, dpnn (s)": after,
                    f"{name}: speed-up": before / after}
    return report("classification", results)


if __name__ == "__main__":
    main()
