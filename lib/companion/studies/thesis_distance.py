"""The thesis's evaluation with the distance utility (§6.2.1-6.2.2, notebook 07): the
grid of its sweep, the composed budget per unit distance, the budget of one query
per variant, and where a curve reaches a level."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn.traversal import dptt_ledger, parse_variant

from . import thesis

__all__ = [
    "dis_grid",
    "with_distance_axes",
    "sweep_preview",
    "composed_budgets",
    "level_reached",
]


def dis_grid(
    sizes, variants, real_variants, real_datasets, epsilon, radii, real_radii, n_queries
) -> list[dict]:
    """The grid points of notebook 07, in order: every variant on uniform data of size
    ``sizes[0]`` in 1-D and 2-D at each radius Δ in ``radii``, basic at the other
    sizes, and ``real_variants`` on the real datasets at each of ``real_radii``."""
    common = {"utility": "dis", "epsilon": epsilon, "n_queries": n_queries}
    points = thesis.grid(
        dataset="uniform",
        n=sizes[0],
        d=[1, 2],
        variant=variants,
        sensitivity=radii,
        **common,
    )
    if len(sizes) > 1:
        points += thesis.grid(
            dataset="uniform",
            n=sizes[1:],
            d=[1, 2],
            variant="basic",
            sensitivity=radii,
            **common,
        )
    return points + thesis.grid(
        dataset=real_datasets, variant=real_variants, sensitivity=real_radii, **common
    )


def with_distance_axes(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the radius ``Δ`` (the sensitivity) and the composed budgets per
    unit distance: ``ε*/Δ`` (the thesis's accounting) and ``ε_PLD/Δ`` (exact)."""
    return table.assign(
        **{
            "Δ": table["sensitivity"],
            "ε*/Δ": table["epsilon_thesis"] / table["sensitivity"],
            "ε_PLD/Δ": table["epsilon_pld"] / table["sensitivity"],
        }
    )


def sweep_preview(table: pd.DataFrame, rows: int = 8) -> pd.DataFrame:
    """The first ``rows`` grid points of the sweep in its main columns, rounded to
    three decimals."""
    columns = [
        "dataset", "N", "d", "variant", "Δ", "ε*/Δ", "raw", "top5", "geo_raw",
        "geo_top5", "released", "epsilon_thesis",
    ]  # fmt: skip
    return table[columns].head(rows).round(3)


def composed_budgets(variants, height: int, epsilon: float, n: int) -> pd.DataFrame:
    """The composed ε of one DIS query per variant (rows) on a tree of ``height`` at
    per-step ``epsilon``, from the ledger :func:`dpnn.traversal.dptt` charges: the
    thesis's accounting at δ = 1/N and N^-1.1, the exact (PLD) value at δ = 1/N, and
    the ratio of the two thesis values (code over text)."""

    def composed(variant, delta, method):
        spec = parse_variant(variant)
        return dptt_ledger(
            np.full(height, epsilon), "dis", spec["variant"], spec["splits"]
        ).epsilon(delta, method)

    budgets = pd.DataFrame(
        {
            "ε* (δ = 1/N)": [composed(v, 1 / n, "thesis") for v in variants],
            "ε* (δ = N^-1.1)": [composed(v, n**-1.1, "thesis") for v in variants],
            "PLD (δ = 1/N)": [composed(v, 1 / n, "pld") for v in variants],
        },
        index=variants,
    )
    budgets["code / text"] = budgets["ε* (δ = N^-1.1)"] / budgets["ε* (δ = 1/N)"]
    return budgets


def level_reached(curve: pd.DataFrame, x: str, value: str, target: float) -> float:
    """The smallest ``x`` at which the curve's ``value`` reaches ``target``: the first
    grid point at or above it, interpolated linearly in log10(x) from the point before
    (the first point itself if it is already there); NaN if the curve never does."""
    curve = curve.sort_values(x)
    log_x, values = np.log10(curve[x].to_numpy()), curve[value].to_numpy()
    above = np.flatnonzero(values >= target)
    if not len(above):
        return np.nan
    if above[0] == 0:
        return 10 ** log_x[0]
    around = slice(above[0] - 1, above[0] + 1)
    return 10 ** np.interp(target, values[around], log_x[around])
