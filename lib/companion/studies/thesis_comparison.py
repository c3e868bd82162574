"""The thesis's evaluation with the comparison utility (§6.1, §6.2.3, notebook 08):
the grid of its sweep, the communication shares of Fig. 6.1, the composed budgets at
the archived code's δ and the archived code's early-stopping arithmetic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import accounting
from dpnn.traversal import dptt_ledger, epsilon_schedule, parse_variant

from . import thesis

__all__ = [
    "cmp_grid",
    "communication_shares",
    "uniform_geo",
    "global_geo",
    "at_composed_budgets",
    "delta_moves",
    "archived_early_stopping",
]


def cmp_grid(
    sizes, variants, real_variants, real_datasets, epsilons, n_queries, comm_sizes
) -> list[dict]:
    """The grid points of notebook 08, in order: every variant on uniform data of size
    ``sizes[0]`` in 1-D and 2-D, basic at the other sizes, ``real_variants`` on the
    real datasets, and every variant at the largest ε on 100 queries per size in
    ``comm_sizes`` (Fig. 6.1)."""
    common = {"utility": "cmp", "epsilon": epsilons, "n_queries": n_queries}
    points = thesis.grid(
        dataset="uniform", n=sizes[0], d=[1, 2], variant=variants, **common
    )
    if len(sizes) > 1:
        points += thesis.grid(
            dataset="uniform", n=sizes[1:], d=[1, 2], variant="basic", **common
        )
    points += thesis.grid(dataset=real_datasets, variant=real_variants, **common)
    return points + thesis.grid(
        dataset="uniform",
        n=comm_sizes,
        d=2,
        utility="cmp",
        variant=variants,
        epsilon=epsilons[-1],
        n_queries=100,
    )


def communication_shares(table: pd.DataFrame) -> pd.DataFrame:
    """The 2-D communication rows of the sweep (100 queries) with ``sent_share``: the
    node values sent per query as a share of the tree's 2N − 1 (thesis Fig. 6.1)."""
    rows = table[
        (table["dataset"] == "uniform")
        & (table["n_queries"] == 100)
        & (table["d"] == 2)
    ].copy()
    rows["sent_share"] = rows["sent_fraction"] * rows["N"] / (2 * rows["N"] - 1)
    return rows


def uniform_geo(n, epsilon_star, sensitivities, n_queries, seed, k=1) -> dict:
    """GEO alone at level ``epsilon_star`` on uniform data of size ``n``, releasing
    ``k`` neighbours, per radius (:func:`thesis.geo_sweep`): ``{d: table}`` for 1-D and
    2-D."""
    return {
        d: thesis.geo_sweep(
            "uniform", n, d, epsilon_star, sensitivities, n_queries, seed=seed, k=k
        )
        for d in (1, 2)
    }


def global_geo(n, budgets, sensitivity, n_queries, seed) -> pd.DataFrame:
    """GEO at the global ``sensitivity`` run at each composed budget ε* of
    ``budgets`` (level 1 over radius ``sensitivity / ε*``, so ε* per
    ``sensitivity``), on uniform data of size ``n``, 1-D and 2-D in one table with a
    ``d`` column (thesis Fig. 6.17)."""
    tables = uniform_geo(n, 1.0, [sensitivity / e for e in budgets], n_queries, seed)
    return pd.concat([part.assign(d=d) for d, part in tables.items()])


def at_composed_budgets(
    variants, budgets, *, n, height, n_queries, delta_exponent, **run
) -> pd.DataFrame:
    """Each of ``variants`` on uniform data of size ``n`` in 1-D and 2-D, run at the
    per-step ε whose composed ε* (the thesis's accounting, δ = N^-delta_exponent) is
    each of ``budgets``: the sweep that lets a claim compare two variants at budgets
    both were measured at. ``run`` goes to :func:`thesis.run_grid` (seed, n_jobs,
    cache_dir, ...)."""
    delta = n**-delta_exponent

    def per_step(variant, budget):
        spec = parse_variant(variant)
        schedule = epsilon_schedule(
            "constant",
            height,
            budget,
            utility="cmp",
            variant=spec["variant"],
            splits=spec["splits"],
            method="thesis",
            delta=delta,
        )
        return float(schedule[0])

    points = [
        point
        for variant in variants
        for budget in budgets
        for point in thesis.grid(
            dataset="uniform",
            n=n,
            d=[1, 2],
            variant=variant,
            utility="cmp",
            epsilon=per_step(variant, budget),
            n_queries=n_queries,
        )
    ]
    return thesis.run_grid(points, delta_exponent=delta_exponent, **run)


def _thesis_epsilon(variant, per_step, delta, height):
    """The thesis's composed ε* of one CMP query of ``variant`` at per-step ε."""
    spec = parse_variant(variant)
    return dptt_ledger(
        np.full(height, per_step), "cmp", spec["variant"], spec["splits"]
    ).epsilon(delta, "thesis")


def delta_moves(synthetic: pd.DataFrame, variants, n: int) -> pd.DataFrame:
    """The rows of ``variants`` with the thesis's composed ε* at δ = 1/N and at the
    archived code's δ = N^-1.1, and their ratio (code over text)."""
    height = int(synthetic["tree_height"].iloc[0])
    moved = synthetic[synthetic["variant"].isin(variants)].copy()
    for name, delta in (("ε* (δ = 1/N)", 1 / n), ("ε* (δ = N^-1.1)", n**-1.1)):
        moved[name] = [
            _thesis_epsilon(v, e, delta, height)
            for v, e in zip(moved["variant"], moved["epsilon"])
        ]
    moved["ratio"] = moved["ε* (δ = N^-1.1)"] / moved["ε* (δ = 1/N)"]
    return moved


def archived_early_stopping(synthetic: pd.DataFrame, n: int, splits: int):
    """The archived code's arithmetic for E``splits`` in 1-D at size ``n``: the turns
    c = ceil(log2 N) − s, the per-step ε at which c correct turns happen with
    probability 0.95 (a turn is kept with probability e^(ε/2)/(1+e^(ε/2))), its
    composed ε* at δ = 1/N and N^-1.1, and this sweep's top-5 at the largest ε* ≤ 50
    and the first ≥ 90 (else the last).

    Returns the table (quantity, value) and those two rows of ``synthetic``.
    """
    turns = int(np.ceil(np.log2(n))) - splits
    keep_needed = 0.95 ** (1 / turns)
    per_step_needed = 2 * np.log(keep_needed / (1 - keep_needed))
    e_max = f"E{splits}"
    e1 = synthetic[(synthetic["d"] == 1) & (synthetic["variant"] == e_max)]
    e1 = e1.sort_values("epsilon_thesis")
    near_50 = e1[e1["epsilon_thesis"] <= 50].iloc[-1]
    past_90 = e1[e1["epsilon_thesis"] >= 90]
    past_90 = past_90.iloc[0] if len(past_90) else e1.iloc[-1]
    quantities = [
        (f"turns c = ceil(log2 N) - {splits}", turns),
        (
            "per-step ε for 95% (keep e^(ε/2)/(1+e^(ε/2)), code lines 132-134, "
            "160-163)",
            per_step_needed,
        ),
        (
            "composed ε* for 95%, δ = 1/N",
            accounting.br_composition([per_step_needed] * turns, 1 / n),
        ),
        (
            "composed ε* for 95%, δ = N^-1.1 (code lines 241-258)",
            accounting.br_composition([per_step_needed] * turns, n**-1.1),
        ),
    ]
    for row, which in ((near_50, "largest ≤ 50"), (past_90, "first ≥ 90")):
        quantities += [
            (
                f"our 1-D {e_max} top-5 at ε* = {row['epsilon_thesis']:.1f} ({which})",
                row["top5"],
            ),
            ("  its standard error", row["top5_se"]),
        ]
    table = pd.DataFrame([{"quantity": q, "value": v} for q, v in quantities])
    return table, near_50, past_90
