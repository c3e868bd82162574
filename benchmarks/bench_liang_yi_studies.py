"""Time the experiments of notebook 11 (Liang and Yi) at the thesis profile's sizes.

Writes benchmarks/results/liang_yi_studies.json. One case of each experiment (one
setting on one trajectory of 30000 points, n = 20000, 25 repetitions, as the thesis
profile runs 50 of them per setting): identity (Fig. 2), kNN at k = 4 and k = 256 (Figs.
3-4) and the convex hull (Fig. 5), each with the planar Laplace of the library and with
the planar Laplace before (W_{-1} from ``scipy.special.lambertw``; the same floats,
tests/test_liang_yi_identical.py). Also times W_{-1} alone (scipy against
``mechanisms._lambertw_lower``) on the radii of one GP Basic release (20000) and on 1e6
arguments. Median and range of the repeats are reported; the machine is shared, so
compare the two columns of one run, not runs of different days.
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
from _results import report
from scipy.special import lambertw

from companion.studies import liang_yi as studies
from dpnn import cgp, mechanisms


def _scipy_planar_laplace(points, epsilon, rng):
    """planar_laplace as it was: the radius by the public planar_laplace_radius (scipy's
    W)."""
    array, shape = mechanisms._points(points, "points", dimension=2)
    n = array.shape[0]
    theta = rng.uniform(0.0, 2.0 * np.pi, size=n)
    radius = mechanisms.planar_laplace_radius(rng.random(n), epsilon)
    noise = np.column_stack([radius * np.cos(theta), radius * np.sin(theta)])
    return (array + noise).reshape(shape)


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


def _both(results, label, call, repeats):
    """Time ``call`` with the library's planar Laplace, then with scipy's W,
    alternating."""
    library = mechanisms.planar_laplace
    new, old = [], []
    for _ in range(repeats):
        new += _times(call, 1)
        mechanisms.planar_laplace = _scipy_planar_laplace
        try:
            old += _times(call, 1)
        finally:
            mechanisms.planar_laplace = library
    _summary(results, f"{label}, W by scipy", old)
    _summary(results, f"{label}, W by _lambertw_lower", new)
    results[f"{label}: speed-up (medians)"] = float(np.median(old) / np.median(new))


def main() -> dict:
    results = {
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "load average at start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
    }
    rng = np.random.default_rng(0)
    lowest = np.nextafter(-1.0 / np.e, 0.0)
    for size in (20000, 1_000_000):
        z = np.maximum((rng.random(size) - 1.0) / np.e, lowest)
        old = _times(lambda: lambertw(z, k=-1).real, 7)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = _times(lambda: mechanisms._lambertw_lower(z), 7)
        _summary(results, f"W_-1 on {size} arguments, scipy", old)
        _summary(results, f"W_-1 on {size} arguments, _lambertw_lower", new)
        results[f"W_-1 on {size}: speed-up (medians)"] = float(
            np.median(old) / np.median(new)
        )
    path = cgp.taxi_trajectories(1, rng, min_length=30000, max_length=30000)[0]
    queries = cgp.query_points([path], 25, rng)
    rho = 5e-4
    epsilon = studies._gp_epsilon(rho, 1e-10, 10.0)
    cases = {
        "identity case n=20000 x 25": lambda: studies._identity_case(
            path, rho, 20000, epsilon, 0, 25, [1, 0, 0]
        ),
        "kNN case k=4 n=20000 x 25": lambda: studies._knn_case(
            path, queries, rho, 4, 20000, epsilon, 0, [1, 0, 0], 0.0
        ),
        "kNN case k=256 n=20000 x 25": lambda: studies._knn_case(
            path, queries, rho, 256, 20000, epsilon, 0, [1, 0, 0], 0.0
        ),
        "hull case n=20000 x 25": lambda: studies._hull_case(
            path, rho, 20000, epsilon, 0, 25, [1, 0, 0], 0.1, (16, 128), {}
        ),
    }
    for label, call in cases.items():
        _both(results, label, call, 3)
    results["load average at end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return report("liang_yi_studies", results)


if __name__ == "__main__":
    main()
