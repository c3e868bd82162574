"""The DP-TT variants of thesis §5.4 (notebook 06): their walks on one small tree,
their accuracy against the values they release, GS's call counts and the per-level
budget schedules of GS."""

from __future__ import annotations

import numpy as np
import pandas as pd

from companion import metrics
from dpnn import traversal
from dpnn.trees import build_tree

__all__ = ["variant_walks", "variant_accuracy", "greedy_call_counts", "gs_schedules"]


def variant_walks(tree, query, epsilon, names, rng) -> list[dict]:
    """One DP-TT-CMP walk of ``query`` per variant name, in order (Alg. 11-14 as
    :func:`dpnn.traversal.dptt_reference` runs it): the nodes where the exponential
    mechanism was called (``em``), the nodes split into both children (``split``),
    the released point indices and the number of calls."""
    walks = []
    for name in names:
        trace = []
        released, calls = traversal.dptt_reference(
            tree,
            query,
            epsilon,
            "cmp",
            rng=rng,
            trace=trace,
            **traversal.parse_variant(name),
        )
        split = [t["node"] for t in trace if t["action"] == "split"]
        split += [
            t["node"]
            for t in trace
            if t["action"] == "finish" and tree.height[t["node"]] > 0
        ]
        walks.append(
            {
                "name": name,
                "em": [t["node"] for t in trace if t["action"] == "em"],
                "split": split,
                "released": released,
                "calls": calls,
            }
        )
    return walks


def variant_accuracy(tree, queries, truth, names, epsilon, rng) -> pd.DataFrame:
    """Values released, exponential-mechanism calls, raw and top-k accuracy and the
    exact composed ε (PLD, δ = 1/N) of DP-TT-CMP per variant, skipping the variants
    with more splits than the tree has levels; ``truth`` is each query's k true NN."""
    n_points = len(tree.points)
    rows = []
    for name in names:
        spec = traversal.parse_variant(name)
        if spec["splits"] > tree.tree_height:
            continue
        result = traversal.dptt(tree, queries, epsilon, "cmp", rng=rng, **spec)
        raw, top5 = (
            metrics.raw_accuracy(result, truth[:, 0]),
            metrics.topk_accuracy(result, truth),
        )
        rows.append(
            {
                "d": tree.dimension,
                "variant": name,
                "released": result.released_counts.mean(),
                "calls c": result.em_calls.mean(),
                "raw": raw.mean(),
                "raw s.e.": metrics.standard_error(raw),
                "top-5": top5.mean(),
                "top-5 s.e.": metrics.standard_error(top5),
                "ε exact": result.accountant.epsilon(1 / n_points, "pld"),
            }
        )
    return pd.DataFrame(rows)


def greedy_call_counts(heights, epsilon, n_queries, rng) -> pd.DataFrame:
    """GS's exponential-mechanism calls on complete trees of each height h: h(h+1)/2,
    the per-level formula's total and whether it is k+1 at depth k, the least and
    most calls measured over ``n_queries`` uniform queries, and the most values
    released."""
    rows = []
    for h in heights:
        tree = build_tree(np.arange(2.0**h))
        greedy = traversal.dptt(
            tree,
            rng.uniform(0, 2**h, n_queries),
            epsilon,
            "cmp",
            variant="greedy",
            rng=rng,
        )
        per_level = traversal.em_calls_formula("greedy", h)
        rows.append(
            (
                h,
                h * (h + 1) // 2,
                int(per_level.sum()),
                bool(np.all(per_level == np.arange(1, h + 1))),
                int(greedy.em_calls.min()),
                int(greedy.em_calls.max()),
                int(greedy.released_counts.max()),
            )
        )
    columns = ["h", "h(h+1)/2", "formula total", "k+1 at depth k"]
    columns += ["measured min", "measured max", "released"]
    return pd.DataFrame(rows, columns=columns)


def gs_schedules(tree, queries, truth, epsilon, rng):
    """GS under each budget schedule of :data:`dpnn.traversal.SCHEDULES`, all at the
    composed ε (PLD, δ = 1/N) of the constant per-step ``epsilon``.

    Returns ``(total, table)``: that composed ε, and per schedule its root and last
    per-step ε, the composed ε measured, and raw and top-k accuracy.
    """
    delta = 1 / len(tree.points)
    total = traversal.dptt_ledger(
        np.full(tree.tree_height, epsilon), "cmp", "greedy"
    ).epsilon(delta, "pld")
    rows = []
    for family in traversal.SCHEDULES:
        schedule = traversal.epsilon_schedule(
            family, tree.tree_height, total, variant="greedy", method="pld", delta=delta
        )
        run = traversal.dptt(tree, queries, schedule, "cmp", variant="greedy", rng=rng)
        raw, top5 = (
            metrics.raw_accuracy(run, truth[:, 0]),
            metrics.topk_accuracy(run, truth),
        )
        rows.append(
            {
                "schedule": family,
                "root ε": schedule[0],
                "last ε": schedule[-1],
                "composed (PLD)": run.accountant.epsilon(delta, "pld"),
                "raw": raw.mean(),
                "raw s.e.": metrics.standard_error(raw),
                "top-5": top5.mean(),
                "top-5 s.e.": metrics.standard_error(top5),
            }
        )
    return total, pd.DataFrame(rows)
