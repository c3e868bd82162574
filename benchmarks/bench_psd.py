"""Time the private quadtree; write benchmarks/results/psd.json.

Target: building a height-10 quadtree with geometric budget, Laplace
counts and OLS post-processing (Lemma 4) over 1e6 points takes under 10 s.
Also timed: answering 600 range queries on it, and building the other PSDs
(kd-tree with EM medians, hybrid, Hilbert R-tree) at height 8 (Fig. 7(a)).
Times are the best of several runs.
"""

from __future__ import annotations

import platform

import numpy as np
from _results import best_time, report

from dpnn import psd


def main() -> dict:
    rng = np.random.default_rng(0)
    n = 1_000_000
    box = np.array([0.0, 0.0, 1.0, 1.0])
    points = rng.uniform(0, 1, size=(n, 2))
    build_s = best_time(
        lambda: psd.private_quadtree(
            points, box, 10, 1.0, rng, budget="geometric", postprocess=True
        ),
        3,
    )
    tree = psd.private_quadtree(points, box, 10, 1.0, rng)
    counts = psd.quadtree_counts(points, box, 10)
    epsilons = psd.geometric_budget(1.0, 10)
    noisy = psd.noisy_counts(counts, epsilons, rng)
    ols_s = best_time(lambda: psd.ols(noisy, epsilons), 3)
    rects = psd.random_queries(points, box, 0.1, 0.1, 600, rng)
    query_s = best_time(lambda: psd.range_query(tree, rects), 3)
    results = {
        "machine": f"{platform.machine()} Python {platform.python_version()}",
        "quadtree_h10_build_with_ols_1e6_points_s": build_s,
        "ols_alone_h10_s": ols_s,
        "quadtree_h10_600_queries_s": query_s,
        "kd_standard_h8_build_1e6_points_s": best_time(
            lambda: psd.private_kdtree(points, box, 8, 1.0, rng), 1
        ),
        "kd_hybrid_h8_build_1e6_points_s": best_time(
            lambda: psd.private_kdtree(points, box, 8, 1.0, rng, switch=4), 1
        ),
        "hilbert_r_h8_build_1e6_points_s": best_time(
            lambda: psd.private_hilbert_rtree(points, box, 8, 1.0, rng), 1
        ),
    }
    return report("psd", results)


if __name__ == "__main__":
    main()
