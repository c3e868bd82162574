"""The thesis's first accuracy curves (§6.2.1-6.2.2): basic DP-TT-DIS against GEO
as the sensitivity shrinks, and basic DP-TT-CMP as the per-step ε grows, on uniform
databases in 1-D and 2-D, drawing from one generator in a fixed order."""

from __future__ import annotations

import pandas as pd
from scipy.spatial import cKDTree

from companion import metrics
from dpnn import accounting, data
from dpnn.baselines import geo_nn
from dpnn.traversal import dptt
from dpnn.trees import build_tree

__all__ = ["dis_against_geo", "cmp_sweep"]


def _uniform_settings(points_1d, tree_1d, n_queries, rng):
    """For d = 1 then d = 2: the database (``points_1d`` and ``tree_1d``, then a fresh
    uniform one of the same size), its tree, uniform queries and their 5 true NN.

    Each dimension's draws happen when the caller reaches it, so the random stream is
    that of a loop drawing the 2-D database, then its queries, after the 1-D work.
    """
    n_points = len(points_1d)
    for d in (1, 2):
        points = points_1d if d == 1 else data.uniform_points(n_points, 2, rng)
        tree = tree_1d if d == 1 else build_tree(points)
        queries = data.uniform_points(n_queries, d, rng)
        truth = cKDTree(points.reshape(n_points, -1)).query(
            queries.reshape(n_queries, -1), k=5
        )[1]
        yield d, points, tree, queries, truth


def dis_against_geo(points_1d, tree_1d, n_queries, epsilon, sensitivities, rng):
    """Raw and top-5 accuracy of basic DP-TT-DIS and of GEO at its composed budget,
    in 1-D and 2-D, for each sensitivity (thesis §6.2.1).

    One row per (d, Δ, method). GEO's privacy per unit of distance is ``ε*/Δ``, with
    ``ε*`` the Theorem 2.13 composition of the tree's ``epsilon`` steps at δ = 1/N.
    """
    n_points = len(points_1d)
    rows = []
    for d, points, tree, queries, truth in _uniform_settings(
        points_1d, tree_1d, n_queries, rng
    ):
        for sensitivity in sensitivities:
            epsilon_star = accounting.br_composition(
                [epsilon] * tree.tree_height, 1 / n_points
            )
            for method, released in [
                (
                    "DP-TT-DIS",
                    dptt(tree, queries, epsilon, "dis", sensitivity, rng=rng),
                ),
                ("GEO", geo_nn(points, queries, epsilon_star / sensitivity, 1, rng)),
            ]:
                rows.append(
                    {
                        "d": d,
                        "Δ": sensitivity,
                        "method": method,
                        **metrics.accuracy_summary(released, truth),
                        "ε*": epsilon_star,
                    }
                )
    return pd.DataFrame(rows)


def cmp_sweep(points_1d, tree_1d, n_queries, epsilons, rng):
    """Raw and top-5 accuracy of basic DP-TT-CMP in 1-D and 2-D for each per-step
    ε, with the composed ε of one traversal by Theorem 2.13 at δ = 1/N (§6.2.2)."""
    n_points = len(points_1d)
    rows = []
    for d, _, tree, queries, truth in _uniform_settings(
        points_1d, tree_1d, n_queries, rng
    ):
        for e in epsilons:
            released = dptt(tree, queries, e, "cmp", rng=rng)
            rows.append(
                {
                    "d": d,
                    "per-step ε": e,
                    "composed ε (thesis)": accounting.br_composition(
                        [e] * tree.tree_height, 1 / n_points
                    ),
                    **metrics.accuracy_summary(released, truth),
                }
            )
    return pd.DataFrame(rows)
