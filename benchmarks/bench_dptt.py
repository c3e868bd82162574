"""Time DP-TT against the hardware's limit; write benchmarks/results/dptt.json.

The yardstick is a minimal numpy kernel of the irreducible work of a traversal, in
this file: per tree level one uniform draw per walking thread, the gather of the
split values (CMP) or of both children's coordinates (DIS), the comparison and the
move down, on the tree's nodes laid out as a complete binary heap (node i's
children are 2i + 1 and 2i + 2: no lookup of a child, no leaf check, no output).
GS's kernel also starts the thread each splitting thread adds per level. For the
variants that release many points the yardstick is the kernel plus one copy of what
they release: E8 copies each query's block of (at most) 256 points from a table
of blocks, GS each found leaf's point, GS-N20 each found leaf's row of 20
neighbours from the neighbour table.

``dptt`` is timed for basic, E8, GS and GS-N20, CMP and DIS, 1-D and 2-D, at N =
1e3 .. 1e6 uniform points, each run ``REPEATS`` times (median, min and max). Basic
answers ``QUERIES`` queries per run, the variants ``VARIANT_QUERIES``. Reported:
each run's median time, its spread, and ``fraction_of_kernel`` = kernel's median /
dptt's median (1 = the kernel's speed; for E8, GS and GS-N20 the kernel plus copy),
and ``fraction_per_round``, the same ratio taken per round: kernel and dptt run in
turn, so each round sees one load of the machine.
The one-off work per tree (building it, DP-TT's tables, the neighbour table) is
timed once and reported apart. The machine's load average is recorded before and
after, since other work on the machine slows every figure.

Run from the checkout: ``.venv/bin/python benchmarks/bench_dptt.py`` (about 5 min).
"""

from __future__ import annotations

import json
import os
import platform
import time

import numpy as np
from _results import RESULTS_DIR
from scipy.special import expit

from dpnn.traversal import dptt
from dpnn.traversal.tree_arrays import leaf_neighbours, node_columns
from dpnn.trees import build_tree

SIZES = (10**3, 10**4, 10**5, 10**6)
DIMENSIONS = (1, 2)
QUERIES = 10**6
VARIANT_QUERIES = 30_000
REPEATS = 5
EPSILON = 1.0
SENSITIVITY = 1e9
VARIANTS = {
    "basic": {},
    "E8": {"variant": "early", "splits": 8},
    "GS": {"variant": "greedy"},
    "GS-N20": {"variant": "greedy", "neighborhood": 20},
}


def heap_layout(tree):
    """The kernel's arrays: split values and coordinates at heap positions, leaf points.

    A balanced leaf-only tree is full down to depth h - 1 (h its height), where
    breadth-first and heap numbering agree; the heap's depth-h positions below a
    depth h - 1 leaf repeat that leaf.
    """
    h = tree.tree_height
    assert node_columns(tree).heap_depth >= h - 1, (
        "a balanced tree is full above depth h - 1"
    )
    inner = 2**h - 1  # positions at depth < h: where the decisions are made
    position = np.arange(inner, 2 * inner + 1)  # depth h
    parent = (position - 1) // 2
    real = np.where(
        tree.left[parent] >= 0, tree.left[parent] + (position - 2 * parent - 1), parent
    )
    node = np.concatenate([np.arange(inner), real])
    own = tree.points[tree.point[node]]
    return {
        "split": np.ascontiguousarray(tree.split[:inner]),
        "coordinates": [np.ascontiguousarray(own[:, a]) for a in range(tree.dimension)],
        "leaf_point": tree.order[tree.lo[real]],
        "height": h,
    }


def kernel_turns(layout, values, nodes, level, utility, rng):
    """One draw per thread, the gathers, the comparison: (left child, go right)."""
    child = 2 * nodes + 1
    if utility == "cmp":
        keep = rng.random(len(nodes)) < expit(EPSILON / 2)
        return (
            child,
            np.less(values[level % len(values)], layout["split"][nodes]) ^ keep,
        )
    distances = []
    for side in (child, child + 1):
        total = None
        for column, along in zip(values, layout["coordinates"]):
            difference = column - along[side]
            difference *= difference
            total = (
                difference if total is None else np.add(total, difference, out=total)
            )
        distances.append(np.sqrt(total, out=total))
    gap = distances[0] - distances[1]
    return child, rng.random(len(nodes)) < expit(EPSILON / (2 * SENSITIVITY) * gap)


def kernel_descent(layout, queries, utility, rng, levels):
    """Basic (and E's) descent over ``levels`` levels: the yardstick's work."""
    values = [np.ascontiguousarray(queries[:, a]) for a in range(queries.shape[1])]
    node = np.zeros(len(queries), dtype=np.intp)
    for level in range(levels):
        child, go_right = kernel_turns(layout, values, node, level, utility, rng)
        node = child + go_right
    return node


def kernel_greedy(layout, queries, utility, rng):
    """GS's descent: per level each splitting thread (the first n) starts one more."""
    n, h = len(queries), layout["height"]
    node = np.zeros(n * (h + 1), dtype=np.intp)
    values = [np.empty(n * (h + 1)) for _ in range(queries.shape[1])]
    for column, source in zip(values, queries.T):
        column[:n] = source
    count = n
    for level in range(h):
        nodes = node[:count]
        child, go_right = kernel_turns(
            layout, [c[:count] for c in values], nodes, level, utility, rng
        )
        node[count : count + n] = child[:n] + ~go_right[:n]
        for column in values:
            column[count : count + n] = column[:n]
        nodes[:] = child + go_right
        count += n
    return node


def yardstick(name, tree, layout, tables, queries, utility, rng):
    """The kernel (plus, for E8, GS and GS-N20, one copy of what is released)."""
    h = layout["height"]
    if name == "basic":
        return kernel_descent(layout, queries, utility, rng, h)
    if name == "E8":
        node = kernel_descent(layout, queries, utility, rng, h - 8)
        return tables["blocks"][node - (2 ** (h - 8) - 1)]
    node = kernel_greedy(layout, queries, utility, rng)
    points = layout["leaf_point"][node - (2**h - 1)]
    return points if name == "GS" else tables["neighbours"][points]


def one_off_tables(tree, layout):
    """E8's blocks per depth h - 8 node (padded) and the neighbour table: the copies."""
    h = layout["height"]
    first = 2 ** (h - 8) - 1
    nodes = np.arange(first, 2 * first + 1)
    lo, hi = tree.lo[nodes], tree.hi[nodes]
    positions = lo[:, None] + np.arange(int((hi - lo).max()))
    blocks = tree.order[np.minimum(positions, hi[:, None] - 1)]
    start = time.perf_counter()
    neighbours = leaf_neighbours(tree, 20, np.arange(len(tree.points)))
    return {
        "blocks": np.sort(blocks, axis=1),
        "neighbours": neighbours,
    }, time.perf_counter() - start


def timed(calls, repeats=REPEATS):
    """Wall times of each of ``calls``, run in turn ``repeats`` times (seeds 0, 1, ...).

    Taking turns exposes every call to the same load of a shared machine; the
    ratio of two calls is best read per round (:func:`per_round`).
    """
    times = [[] for _ in calls]
    for r in range(repeats):
        for call, spent in zip(calls, times):
            start = time.perf_counter()
            call(np.random.default_rng(r))
            spent.append(time.perf_counter() - start)
    return [
        {"median": float(np.median(t)), "min": min(t), "max": max(t), "runs": t}
        for t in times
    ]


def per_round(kernel, ours):
    """Median over rounds of kernel time / dptt time, with its min and max."""
    ratio = np.array(kernel["runs"]) / np.array(ours["runs"])
    return {
        "median": float(np.median(ratio)),
        "min": float(ratio.min()),
        "max": float(ratio.max()),
    }


def main() -> dict:
    results = {
        "machine": f"{platform.machine()} Python {platform.python_version()} "
        f"numpy {np.__version__}, {os.cpu_count()} cores",
        "load_average_before": os.getloadavg(),
        "repeats": REPEATS,
        "queries": QUERIES,
        "variant_queries": VARIANT_QUERIES,
        "epsilon": EPSILON,
        "runs": [],
        "one_off": [],
    }
    kept = {}  # the smallest and largest trees, for the growth measured in turns
    for n in SIZES:
        for d in DIMENSIONS:
            rng = np.random.default_rng([n, d])
            points = rng.uniform(0, 1e9, size=(n, d))
            queries = rng.uniform(0, 1e9, size=(QUERIES, d))
            start = time.perf_counter()
            tree = build_tree(points if d > 1 else points[:, 0])
            build = time.perf_counter() - start
            start = time.perf_counter()
            node_columns(tree)
            layout = heap_layout(tree)
            columns = time.perf_counter() - start
            tables, neighbours = one_off_tables(tree, layout)
            if n in (SIZES[0], SIZES[-1]):
                kept[(n, d)] = tree, queries
            results["one_off"].append(
                {
                    "N": n,
                    "d": d,
                    "tree_build_s": build,
                    "columns_s": columns,
                    "neighbour_table_20_s": neighbours,
                }
            )
            for name, spec in VARIANTS.items():
                batch = queries if name == "basic" else queries[:VARIANT_QUERIES]
                for utility in ("cmp", "dis"):
                    sensitivity = SENSITIVITY if utility == "dis" else None
                    dptt(
                        tree, batch[:10], EPSILON, utility, sensitivity, rng=rng, **spec
                    )  # tables
                    queries_in = batch if d > 1 else batch[:, 0]

                    def ours_call(r):
                        dptt(
                            tree,
                            queries_in,
                            EPSILON,
                            utility,
                            sensitivity,
                            rng=r,
                            **spec,
                        )

                    def kernel_call(r):
                        yardstick(name, tree, layout, tables, batch, utility, r)

                    kernel, ours = timed([kernel_call, ours_call])
                    row = {
                        "N": n,
                        "d": d,
                        "utility": utility,
                        "variant": name,
                        "queries": len(batch),
                        "dptt_s": ours,
                        "yardstick_s": kernel,
                        "fraction_of_kernel": kernel["median"] / ours["median"],
                        "fraction_per_round": per_round(kernel, ours),
                        "queries_per_s": len(batch) / ours["median"],
                    }
                    results["runs"].append(row)
                    fraction = row["fraction_of_kernel"]
                    print(
                        f"N={n:>7} d={d} {utility} {name:6s} "
                        f"dptt {ours['median']:.4f} s "
                        f"[{ours['min']:.4f}, {ours['max']:.4f}]  yardstick "
                        f"{kernel['median']:.4f} s  fraction {fraction:.2f} "
                        f"(per round {row['fraction_per_round']['median']:.2f})",
                        flush=True,
                    )
    results["growth_1e3_to_1e6"] = growth(results["runs"])
    results["growth_in_turns"] = growth_in_turns(kept)
    results["load_average_after"] = os.getloadavg()
    (RESULTS_DIR / "dptt.json").write_text(json.dumps(results, indent=2) + "\n")
    print(
        json.dumps(
            {
                k: results[k]
                for k in (
                    "growth_1e3_to_1e6",
                    "load_average_before",
                    "load_average_after",
                )
            },
            indent=1,
        )
    )
    return results


def growth(runs):
    """Median time at N = 1e6 over N = 1e3 per variant, utility and dimension."""
    table = {
        (r["variant"], r["utility"], r["d"], r["N"]): r["dptt_s"]["median"]
        for r in runs
    }
    return {
        f"{v} {u} {d}-D": table[(v, u, d, SIZES[-1])] / table[(v, u, d, SIZES[0])]
        for (v, u, d, n) in table
        if n == SIZES[0]
    }


def growth_in_turns(kept):
    """Growth from the least N to the greatest, basic and GS-N20 in turn per round.

    Each round times both variants on both trees one after the other, so the growth
    of GS-N20 over basic's (``ratio``, median over rounds) sees one load per round.
    """
    out = {}
    for d in DIMENSIONS:
        for utility in ("cmp", "dis"):
            sensitivity = SENSITIVITY if utility == "dis" else None
            calls = []
            for name in ("basic", "GS-N20"):
                for n in (SIZES[0], SIZES[-1]):
                    tree, queries = kept[(n, d)]
                    batch = queries if name == "basic" else queries[:VARIANT_QUERIES]
                    batch = batch if d > 1 else batch[:, 0]
                    calls.append(
                        lambda r, t=tree, b=batch, s=VARIANTS[name]: dptt(
                            t, b, EPSILON, utility, sensitivity, rng=r, **s
                        )
                    )
            times = [np.array(t["runs"]) for t in timed(calls)]
            basic, gsn = times[1] / times[0], times[3] / times[2]
            out[f"{utility} {d}-D"] = {
                "basic": float(np.median(basic)),
                "GS-N20": float(np.median(gsn)),
                "ratio": float(np.median(gsn / basic)),
                "ratio_min": float(np.min(gsn / basic)),
                "ratio_max": float(np.max(gsn / basic)),
            }
            print(f"growth {utility} {d}-D: {out[f'{utility} {d}-D']}", flush=True)
    return out


if __name__ == "__main__":
    main()
