"""Would a compiled DP-TT pay? numba against numpy; writes results/dptt_numba.json.

numba is not a dependency of dpnn: run this in an environment that has it
(``pip install numba`` next to this checkout). One numba loop per tree level does
what the numpy path does with several array passes (gathers, comparison, move down),
with the same uniform draws from numpy, on complete trees (N = 2^20 and 2^17) where
no thread stops before the last level. Timed: basic CMP and DIS, 2-D, 1e6 queries
(the batch of ``bench_dptt.py``) and 1000 queries (a grid point of the thesis
profile), median of 5 and of 200 runs, and the first call, which compiles.
"""

from __future__ import annotations

import json
import os
import time

import numba
import numpy as np
from _results import RESULTS_DIR
from scipy.special import expit

from dpnn.traversal import dptt
from dpnn.traversal.tree_arrays import node_columns
from dpnn.trees import build_tree


@numba.njit(nogil=True)
def level_cmp(node, q, split, u, keep):
    for i in range(node.size):
        v = node[i]
        node[i] = 2 * v + 1 + ((q[i] < split[v]) ^ (u[i] < keep))


@numba.njit(nogil=True)
def level_dis(node, qx, qy, cx, cy, u, scale):
    for i in range(node.size):
        v = node[i]
        c = 2 * v + 1
        dlx, dly = qx[i] - cx[c], qy[i] - cy[c]
        drx, dry = qx[i] - cx[c + 1], qy[i] - cy[c + 1]
        gap = np.sqrt(dlx * dlx + dly * dly) - np.sqrt(drx * drx + dry * dry)
        node[i] = c + (u[i] < 1.0 / (1.0 + np.exp(-scale * gap)))


def numba_basic(tree, q, utility, rng):
    """Basic DP-TT on a complete tree: the leaf point of every query."""
    columns = node_columns(tree)
    node = np.zeros(len(q), dtype=np.intp)
    x, y = np.ascontiguousarray(q[:, 0]), np.ascontiguousarray(q[:, 1])
    for level in range(tree.tree_height):
        u = rng.random(len(q))
        if utility == "cmp":
            level_cmp(node, (x, y)[level % 2], columns.split, u, expit(0.5))
        else:
            level_dis(node, x, y, *columns.coordinates, u, 0.5 / 1e9)
    return columns.first[node]


def median_time(call, repeats):
    times = []
    for r in range(repeats):
        start = time.perf_counter()
        call(np.random.default_rng(r))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    rng = np.random.default_rng(0)
    out = {"numba": numba.__version__, "load_average_before": os.getloadavg()}
    for n, queries, repeats in ((2**20, 10**6, 5), (2**17, 1000, 200)):
        tree = build_tree(rng.uniform(0, 1e9, (n, 2)))
        q = rng.uniform(0, 1e9, (queries, 2))
        for utility in ("cmp", "dis"):
            sensitivity = 1e9 if utility == "dis" else None
            start = time.perf_counter()
            numba_basic(tree, q[:10], utility, rng)
            first = time.perf_counter() - start
            ours = median_time(
                lambda r: dptt(tree, q, 1.0, utility, sensitivity, rng=r), repeats
            )
            compiled = median_time(lambda r: numba_basic(tree, q, utility, r), repeats)
            seed = np.random.default_rng
            same = np.array_equal(
                numba_basic(tree, q, utility, seed(9)),
                dptt(tree, q, 1.0, utility, sensitivity, rng=seed(9)).indices,
            )
            key = f"{utility} N=2^{n.bit_length() - 1} {queries} queries"
            out[key] = {
                "numpy_s": ours,
                "numba_s": compiled,
                "speedup": ours / compiled,
                "numba_first_call_s": first,
                "same_leaves": bool(same),
            }
            print(key, out[key], flush=True)
    out["load_average_after"] = os.getloadavg()
    (RESULTS_DIR / "dptt_numba.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
