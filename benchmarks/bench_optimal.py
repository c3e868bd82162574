"""Time the optimal geo-indistinguishable mechanism's linear program by grid size.

Writes benchmarks/results/optimal.json: for square grids of c x c cells on the unit
square (epsilon = 8 / sqrt(2) per unit, so 8 across the diagonal), the wall and CPU
seconds of :func:`dpnn.optimal_geo.optimal_mechanism`

* with every pair constrained (4 x 4 and 6 x 6, the whole program);
* on the greedy 1.1-spanner (the king's moves) solved as one program
  (``method="full"``) up to ``FULL_SIZES``, where it stops at the first size not
  solved within ``LIMIT`` seconds;
* on the same spanner with ``method="auto"`` (output generation while the optimum
  stays on few outputs, else column generation; the key says which solved it), for
  a uniform prior and a Gaussian bump (standard deviation 0.15 about (0.3, 0.6),
  plus 5% of the uniform), up to the first size not solved within ``LIMIT``
  seconds or the size after one that took more than half of it, with its pricing
  rounds, expected loss and actual rate; where the whole program also ran (the
  uniform prior), the relative difference of their expected losses;
* by column generation alone on the bump prior up to ``COMPARE_SIZES``, the
  method ``"auto"`` leaves there.

A size is *practical* when it solves within ``PRACTICAL`` seconds of wall time.
"""

from __future__ import annotations

import platform
import sys
import time

import numpy as np
from _results import report

from dpnn import optimal_geo

#: Wall seconds after which a size stops the sweep (the solvers' time limit).
LIMIT = 400.0
#: Wall seconds within which a size counts as practical.
PRACTICAL = 60.0
FULL_SIZES = (4, 6, 8, 10, 12)
SIZES = (10, 14, 16, 20, 24, 28, 32)
COMPARE_SIZES = (10, 14, 16)
#: (prior, method) of each sweep over ``SIZES``.
SWEEPS = (("uniform", "auto"), ("bump", "auto"), ("bump", "columns"))
EPSILON = 8 / np.sqrt(2)


def grid_points(cells):
    axis = (np.arange(cells) + 0.5) / cells
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


def prior_of(points, kind):
    if kind == "uniform":
        return np.full(len(points), 1 / len(points))
    weights = np.exp(-np.sum((points - [0.3, 0.6]) ** 2, axis=1) / (2 * 0.15**2))
    weights = weights / weights.sum()
    return 0.95 * weights + 0.05 / len(points)


def solve(cells, dilation, method, kind="uniform"):
    points = grid_points(cells)
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        result = optimal_geo.optimal_mechanism(
            points,
            prior_of(points, kind),
            EPSILON,
            dilation=dilation,
            time_limit=LIMIT,
            method=method,
        )
    except RuntimeError:
        result = None
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return result, wall, cpu


def timed(results, key, cells, dilation, method, kind="uniform"):
    """Solve, record the wall and CPU seconds under ``key`` (and "no (time limit)"
    if the solve stopped); the result or None."""
    result, wall, cpu = solve(cells, dilation, method, kind)
    results[f"{key}: wall seconds"] = wall
    results[f"{key}: cpu seconds"] = cpu
    if result is None:
        results[f"{key}: solved"] = "no (time limit)"
    return result, wall


def main(sizes=SIZES) -> dict:
    results = {
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "epsilon per unit": EPSILON,
        "limit, seconds": LIMIT,
        "practical, seconds": PRACTICAL,
    }
    for cells in (4, 6):
        key = f"{cells}x{cells} exact"
        result, _ = timed(results, key, cells, None, "full")
        results[f"{key}: constraints"] = result.constraints
        results[f"{key}: expected loss"] = result.loss
    full = {}
    for cells in FULL_SIZES:
        key = f"{cells}x{cells} spanner 1.1, full"
        result, wall = timed(results, key, cells, 1.1, "full")
        if result is None:
            break
        full[cells] = result.loss
        results[f"{key}: constraints"] = result.constraints
        results[f"{key}: expected loss"] = result.loss
        print(key, wall, flush=True)
    for kind, method in SWEEPS:
        practical = None
        for cells in sizes if method == "auto" else COMPARE_SIZES:
            key = f"{cells}x{cells} spanner 1.1, {method}, {kind} prior"
            result, wall = timed(results, key, cells, 1.1, method, kind)
            if result is None:
                break
            if wall <= PRACTICAL:
                practical = cells
            results[f"{key}: solved by"] = result.method
            results[f"{key}: pricing rounds"] = result.rounds
            results[f"{key}: expected loss"] = result.loss
            results[f"{key}: actual epsilon"] = result.actual
            if kind == "uniform" and cells in full:  # the whole program's prior
                results[f"{key}: relative difference from full"] = (
                    abs(result.loss - full[cells]) / full[cells]
                )
            print(key, wall, result.method, result.rounds, flush=True)
            if wall > LIMIT / 2:
                break
        if method == "auto":
            results[f"largest practical grid, {method}, {kind} prior"] = (
                "none" if practical is None else practical
            )
    return report("optimal", results)


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
