"""What notebook 09 reads off the studies of Gursoy et al.: the chance and
majority-class rates, the means of the proposed classifier's overlap graph, the grid
sizes of the conversion, the r-N findings table, and what lies behind each finding.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import classification as cls

__all__ = [
    "READINGS",
    "privbayes_options",
    "label_rates",
    "proposed_means",
    "grid_sizes",
    "summary_cell",
    "rn_findings",
]


def privbayes_options(degrees, name):
    """PrivBayes for the datasets listed in ``degrees`` (name -> network degree; None:
    not run), with the public box [0, 1]."""
    return {"degree": degrees[name]} if name in degrees else None


def label_rates(loaded) -> tuple[dict, dict]:
    """Per dataset (name -> ``(points, labels)``): the chance rate, 1 / the number of
    labels, and the majority-class rate."""
    chance = {name: 1 / (labels.max() + 1) for name, (_, labels) in loaded.items()}
    majority = {
        name: float(np.bincount(labels).max() / labels.size)
        for name, (_, labels) in loaded.items()
    }
    return chance, majority


def proposed_means(rn_table, column, decimals) -> pd.DataFrame:
    """The proposed classifier's mean of ``column`` per dataset (rows) and number of
    test instances (columns), rounded; '-' where a dataset has too few test points."""
    return (
        rn_table[rn_table.method == "proposed"]
        .groupby(["dataset", "n_test"])[column]
        .mean()
        .unstack()
        .round(decimals)
        .astype(object)
        .fillna("-")
    )


def grid_sizes(loaded) -> dict:
    """Cells per side of Alg. 7's grid at conversion budget 1 on each dataset's
    training folds (80% of its points)."""
    return {
        name: cls.grid_size(0.8 * points.shape[0], 0.95 * 1.0, points.shape[1])
        for name, (points, _) in loaded.items()
    }


def summary_cell(table, **where) -> tuple[float, float]:
    """``(mean, ci95)`` of the first row of a summary table matching ``where``."""
    mask = np.logical_and.reduce([table[key] == value for key, value in where.items()])
    row = table[mask].iloc[0]
    return row["mean"], row["ci95"]


def rn_findings(rn_summary, datasets, epsilons, privbayes_degrees) -> pd.DataFrame:
    """Per dataset and budget, each r-N method's accuracy 'mean ± ci95' at the
    dataset's largest batch of test instances; '-' for PrivBayes where not run."""
    rows = []
    for name in datasets:
        size = max(n for n in rn_summary[rn_summary.dataset == name].n_test)
        for epsilon in epsilons:
            row = {"dataset": name, "epsilon": epsilon, "|X|": size, "PrivBayes": "-"}
            for method in ("non-private", "baseline", "proposed", "PrivBayes"):
                if method != "PrivBayes" or name in privbayes_degrees:
                    mean, ci = summary_cell(
                        rn_summary,
                        dataset=name,
                        epsilon=epsilon,
                        n_test=size,
                        method=method,
                    )
                    row[method] = f"{mean:.3f} ± {ci:.3f}"
            rows.append(row)
    return pd.DataFrame(rows)[
        [
            "dataset",
            "epsilon",
            "|X|",
            "non-private",
            "baseline",
            "proposed",
            "PrivBayes",
        ]
    ]


#: What lies behind each finding of the ledger, by claim id (the verdicts come from
#: the ledger; the readings state causes and never a verdict).
READINGS = {
    "Figs. 7-9a": "The gap over the baseline is largest where the regions are small "
    "against the spread of the test instances (2-D moons): the baseline "
    "divides ε by |X| while a component's clique stays small. In 4 to 64 "
    "dimensions the tuned radii overlap heavily (the MCS table of §3), so "
    "the proposed classifier divides ε almost as much. PrivBayes's copy "
    "serves 2-D moons well and iris and wine badly (the table of means "
    "above). Five folds give 4 degrees of freedom: after the correction "
    "for overlapping training sets and Holm's adjustment, only large, "
    "steady gaps stand out.",
    "Figs. 7-9b": "The 5-10% loss is reached on 2-D moons only; in 4 to 64 dimensions "
    "the overlapping regions cost far more. Where the proposed loss is "
    "large the baseline's cannot be two or three times larger: both are "
    "bounded by the distance from the non-private accuracy to chance.",
    "Fig. 10a": "On 2-D moons the grid has enough cells to follow the data; on 4-D "
    "iris "
    "it has two cells per side, and the two conversions are level.",
    "Fig. 10b": "From 13 features up the grid has a single cell, so Alg. 7 can only "
    "return the radius of a uniform ball.",
    "Fig. 10c": "The grid's AvRE reaches the paper's range on 2-D moons; on 4-D iris "
    "two "
    "cells per side are too coarse.",
    "Fig. 11": "Across the sweep the RMSE grows more slowly than 1/ε̂ on almost every "
    "step, including the steps down to the smallest budget run; the thesis "
    "profile adds ε̂ = 0.01, where the paper sees the growth start.",
    "Figs. 10-11": "PrivBayes's conversions need a synthetic copy per fold and budget "
    "in "
    "the conversion study, which this notebook does not run.",
    "Figs. 12-14a": "Alg. 4 divides ε over the 100 test instances of a batch, so each "
    "answer is nearly a coin toss between the labels.",
    "Figs. 12-14b": "PrivBayes's copy is good on 2-D moons, where a degree-2 network "
    "over 20-bin histograms carries the two classes, and poor on iris "
    "and wine; with five folds and one Holm family over every setting "
    "and both conversions, a gap must be large and steady to stand out.",
    "Fig. 15": "diffprivlib's classifiers are not the paper's implementations; on "
    "30-D breast cancer every method is near or below the majority-class "
    "rate and the folds vary widely.",
}
