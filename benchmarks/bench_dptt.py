"""Time DP-TT and the tree build; write benchmarks/results/dptt.json.

Targets (issue 4): a 2-D leaf-only tree over 1e6 points builds in under 5 s;
basic DP-TT-CMP answers 1e6 queries in under 2 s, at least 100 times as many
queries per second as ``dptt_reference`` (a per-query Python traversal written
from Alg. 11) in the same run; memory under 1 GB. Also E8 and GS-N20.
Times are the best of several runs; memory is the process's peak RSS, read after
the basic run (build and basic DP-TT) and again at the end.
"""

from __future__ import annotations

import platform
import resource

import numpy as np

from _results import best_time, report
from dpnn.traversal import dptt, dptt_reference
from dpnn.trees import build_tree



def main() -> dict:
    rng = np.random.default_rng(0)
    n = 1_000_000
    points = rng.uniform(0, 1e9, size=(n, 2))
    queries = rng.uniform(0, 1e9, size=(n, 2))
    build_s = best_time(lambda: build_tree(points), repeats=2)
    tree = build_tree(points)
    basic_s = best_time(lambda: dptt(tree, queries, 1.0, "cmp", rng=rng), repeats=3)
    peak_basic = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    reference_queries = 2000
    reference_s = best_time(lambda: [dptt_reference(tree, x, 1.0, "cmp", rng=rng) for x in queries[:reference_queries]],
                       repeats=1)
    e8_s = best_time(lambda: dptt(tree, queries[:100_000], 1.0, "cmp", variant="early", splits=8, rng=rng), repeats=1)
    gsn_s = best_time(lambda: dptt(tree, queries[:100_000], 1.0, "cmp", variant="greedy", neighborhood=20, rng=rng),
                 repeats=1)
    results = {
        "machine": f"{platform.machine()} Python {platform.python_version()}",
        "tree_build_1e6_points_2d_s": build_s,
        "basic_cmp_1e6_queries_s": basic_s,
        "basic_cmp_queries_per_s": n / basic_s,
        "reference_queries_per_s": reference_queries / reference_s,
        "speedup_vs_reference": (n / basic_s) / (reference_queries / reference_s),
        "e8_cmp_queries_per_s": 100_000 / e8_s,
        "gs_n20_cmp_queries_per_s": 100_000 / gsn_s,
        "peak_rss_build_and_basic_mb": peak_basic,
        "peak_rss_with_gs_n20_1e5_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    return report("dptt", results)


if __name__ == "__main__":
    main()
