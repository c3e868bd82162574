"""What notebook 11 reads off the experiments of Liang and Yi
(:mod:`companion.studies.liang_yi`): GP against CGP per tuple, bootstrap intervals of
the PNN medians, and the authors' settings beside the text's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import cgp

from .liang_yi import hull_experiment, knn_experiment, median_interval

__all__ = [
    "PCH_VARIANTS",
    "paired_identity_ratios",
    "pnn_median_intervals",
    "gamma_settings",
    "hull_settings",
    "rho_text",
    "rises_from",
]

#: PCH as the text states it, each change the authors' scripts make, and all four.
PCH_VARIANTS = {
    "text (default)": {},
    "scripts' budget split": {"split": cgp.PCH_SCRIPTS_SPLIT},
    "centre/radius 2/3 : 1/3": {"centre_share": 2 / 3},
    "remove chosen anchors": {"remove_anchors": True},
    "10 m radius floor": {"radius_floor": 10.0},
    "all four changes": {
        "split": cgp.PCH_SCRIPTS_SPLIT,
        "centre_share": 2 / 3,
        "remove_anchors": True,
        "radius_floor": 10.0,
    },
}


def paired_identity_ratios(identity) -> pd.DataFrame:
    """GP Basic's max error over CGP Basic's on the same tuple in the same run, and
    that ratio over the square root of the tuple's actual size (a trajectory shorter
    than the requested n is used whole)."""
    paired = identity.pivot_table(
        index=["n", "trajectory", "repetition", "n_actual"],
        columns="method",
        values="max error",
    ).reset_index()
    paired["ratio"] = paired["GP Basic"] / paired["CGP Basic"]
    paired["ratio / sqrt(n_actual)"] = paired["ratio"] / np.sqrt(paired["n_actual"])
    return paired


def pnn_median_intervals(knn, k_grid, rng, *, n_boot) -> pd.DataFrame:
    """Median and percentile-bootstrap interval (:func:`median_interval`) of GP
    PNN's and CGP PNN's errors at each k of ``k_grid``."""
    rows = []
    for k in k_grid:
        for m in ("GP PNN", "CGP PNN"):
            errors = knn[(knn.k == k) & (knn.method == m)].error.to_numpy()
            interval = median_interval(errors, rng, n_boot=n_boot)
            rows.append(
                {"k": k, "method": m} | dict(zip(["median", "low", "high"], interval))
            )
    return pd.DataFrame(rows)


def gamma_settings(trajectories, rho, ks, n_points, repetitions, rng, *, n_boot, **run):
    """PNN's k-NN error at each k of ``ks`` with the text's γ0 = 0 and the scripts'
    γ0 = -6/ε: one row per k, method and setting with the median and its interval
    (``run``: the other arguments of :func:`knn_experiment`)."""
    rows = []
    for label, offset in (
        ("text: gamma0 = 0", 0.0),
        ("scripts: gamma0 = -6/epsilon", -6.0),
    ):
        runs = knn_experiment(
            trajectories,
            [(rho, k, n_points) for k in ks],
            repetitions,
            rng,
            gamma0_per_epsilon=offset,
            **run,
        )
        pnn = runs[runs.method.str.endswith("PNN")]
        for (k, method), part in pnn.groupby(["k", "method"]):
            median, low, high = median_interval(
                part.error.to_numpy(), rng, n_boot=n_boot
            )
            rows.append(
                {
                    "experiment": f"kNN error, k = {k}",
                    "method": method,
                    "setting": label,
                    "median": median,
                    "95% interval": f"[{low:.2f}, {high:.2f}]",
                }
            )
    return rows


def hull_settings(trajectories, rho, n_points, repetitions, rng, *, n_boot, **run):
    """PCH's hull Jaccard under each of :data:`PCH_VARIANTS`: one row per variant and
    method with the median and its interval (``run``: the other arguments of
    :func:`hull_experiment`)."""
    rows = []
    for label, options in PCH_VARIANTS.items():
        runs = hull_experiment(
            trajectories,
            [(rho, n_points)],
            repetitions,
            rng,
            pch_options=options,
            **run,
        )
        for method, part in runs[runs.method.str.endswith("PCH")].groupby("method"):
            median, low, high = median_interval(
                part.jaccard.to_numpy(), rng, n_boot=n_boot
            )
            rows.append(
                {
                    "experiment": "hull Jaccard",
                    "method": method,
                    "setting": label,
                    "median": median,
                    "95% interval": f"[{low:.3f}, {high:.3f}]",
                }
            )
    return rows


def rho_text(value) -> str:
    """``value`` to one digit with a superscript power of ten: 5e-04 -> '5·10⁻⁴'."""
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}·10" + str(int(exponent)).translate(
        str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    )


def rises_from(series):
    """The smallest index from which the values rise by more than 0.001 (a change the
    printed three decimals show) at every step; None if never."""
    steps = np.diff(series.to_numpy()) > 0.001
    for start in range(len(steps)):
        if steps[start:].all():
            return series.index[start]
    return None
