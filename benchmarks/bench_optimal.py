"""Time the optimal geo-indistinguishable mechanism's linear program by grid size.

Writes benchmarks/results/optimal.json: for square grids of c x c cells on the unit
square (uniform prior, epsilon = 8 / sqrt(2) per unit, so 8 across the diagonal),
the wall and CPU seconds of :func:`dpnn.optimal_geo.optimal_mechanism` with every
pair constrained (up to 6 x 6) and on the greedy 1.1-spanner (the king's moves),
the number of constraints, the expected loss and the actual rate of the returned
matrix. A size is *practical* when it solves within ``LIMIT`` seconds of wall time;
the sizes stop at the first one that does not.
"""

from __future__ import annotations

import platform
import sys
import time

import numpy as np
from _results import report

from dpnn import optimal_geo

#: Wall seconds after which a size counts as impractical (HiGHS's time limit).
LIMIT = 600.0
SIZES = (4, 6, 8, 10, 12, 14, 16, 18, 20, 24)


def grid_points(cells):
    axis = (np.arange(cells) + 0.5) / cells
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


def solve(cells, dilation, epsilon):
    points = grid_points(cells)
    prior = np.full(len(points), 1 / len(points))
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        result = optimal_geo.optimal_mechanism(
            points, prior, epsilon, dilation=dilation, time_limit=LIMIT
        )
    except RuntimeError:
        result = None
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return result, wall, cpu


def main(sizes=SIZES) -> dict:
    results = {
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "epsilon per unit": 8 / np.sqrt(2),
        "limit, seconds": LIMIT,
    }
    epsilon = 8 / np.sqrt(2)
    for cells in (4, 6):
        result, wall, cpu = solve(cells, None, epsilon)
        key = f"{cells}x{cells} exact"
        results[f"{key}: constraints"] = result.constraints
        results[f"{key}: wall seconds"] = wall
        results[f"{key}: cpu seconds"] = cpu
        results[f"{key}: expected loss"] = result.loss
    practical = None
    for cells in sizes:
        result, wall, cpu = solve(cells, 1.1, epsilon)
        key = f"{cells}x{cells} spanner 1.1"
        results[f"{key}: wall seconds"] = wall
        results[f"{key}: cpu seconds"] = cpu
        if result is None:
            results[f"{key}: solved"] = "no (time limit)"
            break
        practical = cells
        results[f"{key}: constraints"] = result.constraints
        results[f"{key}: expected loss"] = result.loss
        results[f"{key}: actual epsilon"] = result.actual
        print(key, wall, flush=True)
    results["largest practical grid (cells per axis)"] = practical
    return report("optimal", results)


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
