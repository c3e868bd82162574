"""Time Gursoy et al.'s interactive k-NN to r-N conversion (Alg. 6), the hot spot of
notebook 09.

Writes benchmarks/results/classification.json. ``convert_interactive`` counts the
training points within each of the n = 10 candidate radii of every test instance. The
reference (the code before the change) asks ``cKDTree.query_ball_point`` once per
candidate radius; ``dpnn`` does the same in up to 8 dimensions and above that computes
one distance row per test instance and compares it with all radii at once. Both give the
same counts (tests/test_classification.py checks it); the ratio is measured in the same
run, on digits (64-D, the slowest case) and on moons (2-D), with |X| = 400 test
instances as in the thesis profile.

Also before and after in the same run: the non-interactive conversion (Alg. 7) on a
one-cell grid in 64-D (every sample's location evaluated at every radius, against each
sample's threshold radius computed once), and Alg. 3's components with their MCS (a
networkx graph, against the edge array), both with the same results.
"""

from __future__ import annotations

import platform

import numpy as np
from _results import best_time, report
from scipy.spatial import cKDTree

from dpnn import classification, data


def reference_counts(points, queries, radii):
    tree = cKDTree(points)
    return np.stack(
        [
            tree.query_ball_point(queries, radii[:, j], return_length=True)
            for j in range(radii.shape[1])
        ],
        axis=1,
    )


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    rng = np.random.default_rng(0)
    for name in ("digits", "moons"):
        points, _ = data.classification_dataset(name)
        n_train = int(0.8 * len(points))
        train, queries = (
            points[:n_train],
            points[rng.integers(n_train, len(points), 400)],
        )
        radius = classification.r_unif(np.full(400, 10), n_train, points.shape[1])
        radii = classification.interactive_candidates(radius, 10)
        assert np.array_equal(
            reference_counts(train, queries, radii),
            classification.interactive._ball_counts(train, queries, radii),
        )
        before = best_time(lambda: reference_counts(train, queries, radii), repeats=3)
        after = best_time(
            lambda: classification.interactive._ball_counts(train, queries, radii),
            repeats=3,
        )
        results |= {
            f"{name}: ball counts, per-radius cKDTree (s)": before,
            f"{name}: ball counts, dpnn (s)": after,
            f"{name}: speed-up": before / after,
        }
    points, _ = data.classification_dataset("digits", seed=7)
    grid = classification.private_uniform_grid(
        points[:1400], 1.0, np.random.default_rng(1)
    )
    queries = points[1400:1500]
    samples = classification.uniform_grid._ball_directions(
        64, 256, np.random.default_rng(2)
    )
    reach = classification.uniform_grid._sample_reach(queries, samples)
    radii = np.linspace(0.5, 4.0, 100)
    assert np.array_equal(
        classification.grid_mass(grid, queries, radii, samples=samples),
        classification.grid_mass(grid, queries, radii, samples=samples, reach=reach),
    )
    before = best_time(
        lambda: classification.grid_mass(grid, queries, radii, samples=samples), 5
    )
    after = best_time(
        lambda: classification.grid_mass(
            grid, queries, radii, samples=samples, reach=reach
        ),
        5,
    )
    results |= {
        "digits: one-cell grid mass of 100 balls, every location (s)": before,
        "digits: one-cell grid mass of 100 balls, threshold radii (s)": after,
        "digits: grid mass speed-up": before / after,
        "digits: whole Alg. 7 conversion of 100 instances (s)": best_time(
            lambda: classification.convert_noninteractive(
                grid, queries, 20, 8e-3, np.random.default_rng(3)
            ),
            3,
        ),
    }
    radius = float(np.median(classification.knn_radii(points[:1400], queries, 10)))
    before = best_time(
        lambda: classification.overlap_components(
            classification.region_overlap_graph(queries, np.full(100, radius))
        ),
        5,
    )
    after = best_time(
        lambda: classification.overlap._batch_components.__wrapped__(
            queries, np.full(100, radius)
        ),
        5,
    )
    results |= {
        "digits: Alg. 3 components and MCS via networkx (s)": before,
        "digits: Alg. 3 components and MCS from the edge array (s)": after,
        "digits: components speed-up": before / after,
    }
    return report("classification", results)


if __name__ == "__main__":
    main()
