"""Time the mechanisms' hot paths; write benchmarks/results/mechanisms.json.

The additive mechanisms draw exact integer noise on a grid (dpnn.exact_noise); the
float samplers they replace (numpy's Laplace and normal) are timed beside them.

Each figure is the best of several repeats. The exponential mechanism is also
timed against a per-row Python loop written straight from thesis Def. 2.6, and
the ratio measured in the same run is reported.
"""

from __future__ import annotations

import platform

import numpy as np
from _results import best_time, report

from dpnn import float_laws, mechanisms


def exponential_loop(utilities, epsilon, sensitivity, rng):
    """Def. 2.6 one row at a time: the slow reference."""
    out = np.empty(len(utilities), dtype=int)
    for i, row in enumerate(utilities):
        weights = np.exp(epsilon * (row - row.max()) / (2 * sensitivity))
        out[i] = rng.choice(len(row), p=weights / weights.sum())
    return out


def main() -> dict:
    rng = np.random.default_rng(0)
    n = 1_000_000
    utilities = rng.uniform(-1e9, 0, size=(n, 2))  # one DIS step for a million queries
    points = rng.uniform(0, 1e9, size=(n, 2))
    small = utilities[:20_000]
    results = {
        "machine": f"{platform.machine()} {platform.python_version()}",
        "exponential_1e6_rows_2_candidates_s": best_time(
            lambda: mechanisms.exponential(utilities, 1.0, 1e6, rng)
        ),
        "planar_laplace_1e6_points_s": best_time(
            lambda: mechanisms.planar_laplace(points, 1e-6, rng)
        ),
        "laplace_ball_1e6_points_3d_s": best_time(
            lambda: mechanisms.laplace_ball(rng.random((n, 3)), 1.0, rng)
        ),
        "laplace_1e6_values_s": best_time(
            lambda: mechanisms.laplace(points[:, 0], 1.0, 1.0, rng)
        ),
        "float_laplace_1e6_values_s": best_time(
            lambda: float_laws.laplace_float(points[:, 0], 1.0, 1.0, rng)
        ),
        "gaussian_1e6_values_s": best_time(
            lambda: mechanisms.gaussian(points[:, 0], 1.0, rng)
        ),
        "float_gaussian_1e6_values_s": best_time(lambda: rng.normal(0.0, 1.0, n)),
        "laplace_one_value_s": best_time(
            lambda: mechanisms.laplace(points[:1, 0], 1.0, 1.0, rng)
        ),
        "randomized_response_1e6_bits_s": best_time(
            lambda: mechanisms.randomized_response(np.zeros(n, dtype=np.int8), 1.0, rng)
        ),
    }
    vectorized = best_time(lambda: mechanisms.exponential(small, 1.0, 1e6, rng))
    loop = best_time(lambda: exponential_loop(small, 1.0, 1e6, rng), repeats=1)
    results["exponential_2e4_rows_vectorized_s"] = vectorized
    results["exponential_2e4_rows_python_loop_s"] = loop
    results["exponential_speedup_vs_loop"] = loop / vectorized
    return report("mechanisms", results)


if __name__ == "__main__":
    main()
