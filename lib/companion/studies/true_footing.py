"""DP-TT-DIS against GEO on two footings (notebook 07's central comparison re-run):
at the budget the thesis's ledger charges and at the privacy each really gives.

The thesis compares basic DP-TT-DIS with sensitivity (privacy radius) Δ against GEO
at ``eps*/Δ`` per unit of distance: both claim that two queries at most Δ apart are
eps*-indistinguishable. Two footings for one budget ε and one radius Δ, at
``delta = 1/N``:

* ``"accounted"`` (the thesis's footing): DP-TT-DIS with the constant per-step
  budget whose composition by the thesis's accounting (Thm 2.13) is ε; GEO at ε/Δ
  per unit (pure ε for pairs Δ apart).
* ``"actual"``: DP-TT-DIS with the largest constant per-step budget at which
  every pair of queries at most Δ apart is *certified* (ε, 1/N)-indistinguishable
  by the tighter of two valid bounds: the certified bound within Δ
  (:func:`dpnn.adversary.calibrated_epsilon` with ``radius`` Δ: each turn loses at
  most ``eps_l min(g_n, 2Δ) / (2Δ)``, composed over the path and level by level as
  randomized response) and the ledger's exact (PLD) composition of the steps as
  exponential mechanisms, the larger per-step budget of the two; GEO at the rate
  at which two inputs Δ apart lose exactly ε at 1/N
  (:func:`dpnn.adversary.calibrated_geo_rate`). DIS's real loss is at most ε,
  GEO's exactly ε.

Accuracy as in notebook 07: raw (the released point is the nearest neighbour) and
top-5 (it is among the five nearest), each with its standard error over queries.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from companion import metrics
from dpnn import adversary, data
from dpnn.baselines import geo_nn
from dpnn.traversal import dptt, epsilon_schedule
from dpnn.trees import build_tree

__all__ = ["FOOTINGS", "budgets_on", "dis_against_geo"]

#: The two footings of the comparison (module docstring).
FOOTINGS = ("accounted", "actual")


def budgets_on(footing, tree, eps, radius, delta) -> tuple[np.ndarray, float]:
    """``(per-step schedule of DP-TT-DIS, GEO's rate per unit)`` at budget ``eps``
    for pairs at most ``radius`` apart, on ``footing`` (module docstring)."""

    def ledger(method):
        return epsilon_schedule(
            "constant",
            tree.tree_height,
            eps,
            utility="dis",
            method=method,
            delta=delta,
        )

    if footing == "accounted":
        return ledger("thesis"), eps / radius
    if footing == "actual":
        certified = adversary.calibrated_epsilon(
            tree, eps, "dis", delta, radius, radius=radius
        )
        per_step = max(certified, float(ledger("pld")[0]))
        rate = adversary.calibrated_geo_rate(eps, radius, delta)
        return np.full(tree.tree_height, per_step), rate
    raise ValueError(f"footing must be one of {FOOTINGS}, got {footing!r}")


def dis_against_geo(
    n, radii, budgets, n_queries, seed=0, d: int = 2, footings=FOOTINGS
) -> pd.DataFrame:
    """Basic DP-TT-DIS and GEO (one released neighbour each) on ``n`` uniform points
    of the thesis's domain in ``d`` dimensions, ``n_queries`` uniform queries, at
    each ``radius`` Δ, budget ε of ``budgets`` and footing: one row each with
    ``eps_per_unit`` ε/Δ (the thesis's x-axis), the per-step budget, GEO's rate,
    and both mechanisms' raw and top-5 accuracy (``dis_raw``, ``geo_raw``, ... and
    their ``_se``). Every point draws from one generator seeded by ``seed``."""
    rng = np.random.default_rng(seed)
    points = data.uniform_points(n, d, rng)
    tree = build_tree(points)
    queries = data.uniform_points(n_queries, d, rng)
    flat = points.reshape(n, -1)
    truth = cKDTree(flat).query(queries.reshape(n_queries, -1), k=min(5, n))[1]
    delta = 1 / n
    rows = []
    for footing in footings:
        for radius in radii:
            for eps in budgets:
                schedule, rate = budgets_on(footing, tree, eps, radius, delta)
                released = dptt(tree, queries, schedule, "dis", radius, rng=rng)
                answers = geo_nn(points, queries, rate, 1, rng)
                row = {
                    "footing": footing,
                    "radius": radius,
                    "eps": eps,
                    "eps_per_unit": eps / radius,
                    "per_step": float(schedule[0]),
                    "geo_rate": rate,
                }
                for name, answer in (("dis", released), ("geo", answers)):
                    for metric, values in (
                        ("raw", metrics.raw_accuracy(answer, truth[:, 0])),
                        ("top5", metrics.topk_accuracy(answer, truth)),
                    ):
                        row[f"{name}_{metric}"] = values.mean()
                        row[f"{name}_{metric}_se"] = metrics.standard_error(values)
                rows.append(row)
    return pd.DataFrame(rows)
