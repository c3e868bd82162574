"""After the thesis (notebook 13): DP-TT-CMP against the newer local mechanisms (GEO,
SM, L-SRR) at equal composed privacy and at equal perturbation MSE, budget schedules
at one composed budget and the Bayes-optimal adversary, and the numbers its findings
quote. The synthesis of every method is :mod:`companion.studies.synthesis`.

A *setup* is a dict with the dataset's ``points``, ``domain`` (a ``(d, 2)`` box),
k-d ``tree``, ``index`` (a ``cKDTree``), ``queries``, ``truth`` (the indices of each
query's five nearest points), ``delta``, precision/recall ``radius`` and ``diameter``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from companion import claims, metrics
from dpnn import adversary, baselines, local_mechanisms, lsrr
from dpnn.traversal import SCHEDULES, dptt, epsilon_schedule, parse_variant

__all__ = [
    "MSE_BUDGETS",
    "equal_privacy_comparison",
    "equal_mse_comparison",
    "schedule_comparison",
    "inference_errors",
    "accuracy_text",
    "epsilon_text",
    "ratio_range",
    "settings_where",
    "equal_privacy_lines",
    "schedule_lines",
    "inference_lines",
]

MSE_BUDGETS = {
    "GEO": np.geomspace(1e-3, 1e6, 300),
    "SM": np.geomspace(1e-3, 300.0, 150),
    "L-SRR": np.geomspace(1e-3, 300.0, 150),  # e^eps overflows beyond ~700
}


def _moved_points(setup, result, eps_star, rng, lsrr_levels):
    """Where each method puts the queries: DP-TT's released centroid, and GEO's, SM's
    and L-SRR's perturbed locations at ``eps_star``."""
    q, points = setup["queries"], setup["points"]
    counts = result.released_counts
    centroid = (
        np.add.reduceat(points[result.indices], result.offsets[:-1], axis=0)
        / counts[:, None]
    )
    return {
        "DP-TT-CMP": centroid,
        "GEO": baselines.perturb_location(q, eps_star / setup["diameter"], rng),
        "SM": local_mechanisms.square_mechanism(q, eps_star, setup["domain"], rng),
        "L-SRR": lsrr.lsrr(q, eps_star, setup["domain"], rng, levels=lsrr_levels),
    }


def _accuracy_row(setup, answer, moved):
    """Raw accuracy, precision and recall within the radius (over the queries with a
    point within it) and mean squared displacement of one method's answers."""
    q = setup["queries"]
    raw = metrics.raw_accuracy(answer, setup["truth"][:, 0])
    precision, recall, relevant = metrics.precision_recall_within_radius(
        answer, setup["points"], q, setup["radius"]
    )
    some = relevant > 0  # the follow-up skips queries with nothing within the radius
    return {
        "raw": raw.mean(),
        "raw_se": metrics.standard_error(raw),
        "precision": precision[some].mean(),
        "recall": recall[some].mean(),
        "recall_se": metrics.standard_error(recall[some]),
        "mse": metrics.mean_squared_displacement(q, moved).mean(),
    }


def equal_privacy_comparison(setups, variants, step_epsilons, rng, *, lsrr_levels):
    """DP-TT-CMP (each variant, each per-step budget) against GEO, SM and L-SRR given
    its composed ε* (PLD at the setup's delta) and releasing as many neighbours.

    Returns ``(table, moved_by)``: one row per dataset, variant, step and method, and
    each method's released locations keyed by ``(dataset, variant, step)``.
    """
    rows, moved_by = [], {}
    for name, s in setups.items():
        q = s["queries"]
        for variant in variants:
            for step in step_epsilons:
                result = dptt(
                    s["tree"], q, step, "cmp", rng=rng, **parse_variant(variant)
                )
                eps_star = result.accountant.epsilon(s["delta"], "pld")
                k = max(1, int(round(result.released_counts.mean())))
                moved = _moved_points(s, result, eps_star, rng, lsrr_levels)
                answers = {"DP-TT-CMP": result}
                for method in ("GEO", "SM", "L-SRR"):
                    answers[method] = (
                        s["index"].query(moved[method], k=k)[1].reshape(len(q), k)
                    )
                moved_by[(name, variant, step)] = moved
                for method, answer in answers.items():
                    key = {"dataset": name, "variant": variant, "step": step}
                    rows.append(
                        key
                        | {"eps_star": eps_star, "k": k, "method": method}
                        | _accuracy_row(s, answer, moved[method])
                    )
    return pd.DataFrame(rows), moved_by


def _exact_mse(setup, q, lsrr_levels):
    """Each mechanism's exact MSE as a function of its budget: GEO's (at ε/D) in
    closed form, SM's and L-SRR's averaged over the queries ``q``."""
    d, domain = setup["points"].shape[1], setup["domain"]
    return {
        "GEO": lambda e: baselines.geo_mse(e / setup["diameter"], d),
        "SM": lambda e: local_mechanisms.square_mechanism_mse(q, e, domain).mean(),
        "L-SRR": lambda e: lsrr.lsrr_mse(q, e, domain, lsrr_levels).mean(),
    }


def _mse_per_query(setup, q, exact, lsrr_levels):
    """Exact MSE per query (rows) at each budget of :data:`MSE_BUDGETS` (columns)."""
    domain = setup["domain"]
    return {
        "GEO": np.array([[exact["GEO"](e) for e in MSE_BUDGETS["GEO"]]]),
        "SM": np.column_stack(
            [
                local_mechanisms.square_mechanism_mse(q, e, domain)
                for e in MSE_BUDGETS["SM"]
            ]
        ),
        "L-SRR": np.column_stack(
            [lsrr.lsrr_mse(q, e, domain, lsrr_levels) for e in MSE_BUDGETS["L-SRR"]]
        ),
    }


def equal_mse_comparison(
    setups,
    equal_privacy,
    moved_by,
    step_epsilons,
    rng,
    *,
    mse_queries,
    lsrr_levels,
    n_resamples,
):
    """The budget GEO, SM and L-SRR need to match DP-TT-CMP basic's mean squared
    displacement, as a multiple of its ε*, with a bootstrap interval over the queries
    (:func:`companion.claims.matched_epsilon_interval`); NaN where unreachable.

    Returns ``(table, tails)``: one row per dataset and step, and DP-TT's squared
    displacements per query, largest first, keyed by ``(dataset, step)``.
    """
    rows, tails = [], {}
    for name, s in setups.items():
        q = s["queries"][:mse_queries]
        exact = _exact_mse(s, q, lsrr_levels)
        per_query = _mse_per_query(s, q, exact, lsrr_levels)
        for step in step_epsilons:
            row = equal_privacy[
                (equal_privacy.dataset == name)
                & (equal_privacy.variant == "basic")
                & (equal_privacy.step == step)
            ].set_index("method")
            target, eps_star = (
                row.loc["DP-TT-CMP", "mse"],
                row.loc["DP-TT-CMP", "eps_star"],
            )
            squared = metrics.mean_squared_displacement(
                s["queries"], moved_by[(name, "basic", step)]["DP-TT-CMP"]
            )
            tails[(name, step)] = np.sort(squared)[::-1]
            out = {
                "dataset": name,
                "step": step,
                "eps_star": eps_star,
                "dptt_rmse_m": np.sqrt(target),
            }
            for method, mse in exact.items():
                lo_e, hi_e = MSE_BUDGETS[method][[0, -1]]
                feasible = mse(hi_e) <= target <= mse(lo_e)
                out[method] = (
                    baselines.epsilon_for_mse(mse, target, lo_e, hi_e) / eps_star
                    if feasible
                    else np.nan
                )
                _, lo_ratio, hi_ratio = claims.matched_epsilon_interval(
                    squared,
                    per_query[method],
                    MSE_BUDGETS[method],
                    rng,
                    n_resamples=n_resamples,
                )
                out[f"{method} low"] = lo_ratio / eps_star
                out[f"{method} high"] = hi_ratio / eps_star
            rows.append(out)
    return pd.DataFrame(rows), tails


def schedule_comparison(setup, totals, ratio, rng) -> pd.DataFrame:
    """DP-TT-CMP basic under each schedule family of :data:`dpnn.traversal.SCHEDULES`
    at each composed (PLD) budget of ``totals``: the share of queries reaching the
    leaf of the exact descent beside the product of expit(ε_ℓ/2) along their path,
    raw accuracy, mean distance to the release (in domain sides) and precision."""
    q, points, h = setup["queries"], setup["points"], setup["tree"].tree_height
    # the exact descent: every turn correct w.p. 1 - e^-100
    truthful = dptt(setup["tree"], q, 200.0, "cmp", rng=rng).indices
    side = setup["domain"][0, 1] - setup["domain"][0, 0]
    turns = setup["tree"].depth[setup["tree"].leaf_of_point()[truthful]]
    rows = []
    for total in totals:
        for family in SCHEDULES:
            schedule = epsilon_schedule(
                family, h, total, ratio=ratio, method="pld", delta=setup["delta"]
            )
            result = dptt(setup["tree"], q, schedule, "cmp", rng=rng)
            exact_leaf = result.indices == truthful
            raw = metrics.raw_accuracy(result, setup["truth"][:, 0])
            distance = np.linalg.norm(points[result.indices] - q, axis=1)
            precision, _, relevant = metrics.precision_recall_within_radius(
                result, points, q, setup["radius"]
            )
            p_all = np.cumprod(expit(schedule / 2))[turns - 1]  # all turns correct
            rows.append(
                {
                    "total": total,
                    "family": family,
                    "composed": result.accountant.epsilon(setup["delta"], "pld"),
                    "root": schedule[0],
                    "last": schedule[-1],
                    "all_turns_theory": p_all.mean(),
                    "all_turns_sd": np.sqrt(np.sum(p_all * (1 - p_all))) / len(q),
                    "exact_leaf": exact_leaf.mean(),
                    "exact_leaf_se": metrics.standard_error(exact_leaf),
                    "raw": raw.mean(),
                    "raw_se": metrics.standard_error(raw),
                    "distance": distance.mean() / side,
                    "distance_se": metrics.standard_error(distance) / side,
                    "precision": precision[relevant > 0].mean(),
                }
            )
    return pd.DataFrame(rows)


def _inference_row(result, diameter) -> dict:
    """One adversary result in domain diameters, and whether the optimal guess beats
    the guessing rule on every release."""
    D = diameter
    return {
        "error": result.error / D,
        "se": result.standard_error / D,
        "prior_only": result.prior_only / D,
        "grid_error": result.grid_error / D,
        "guess": result.naive.mean() / D,
        "guess_se": metrics.standard_error(result.naive) / D,
        "optimal_beats_guess": bool(
            np.all(result.per_release <= result.naive_per_release + 1e-9 * D)
        ),
    }


def inference_errors(setups, names, equal_privacy, rng, *, cells, releases):
    """The Bayes-optimal adversary's error (in domain diameters) against GEO at
    ε*/D and DP-TT-CMP basic at each step of ``equal_privacy``, on ``cells`` grid
    cells per axis, with a uniform prior on the datasets named ``uniform ...`` and
    the empirical prior of the points otherwise."""
    rows = []
    for name in names:
        s = setups[name]
        grid = adversary.domain_grid(s["domain"], cells)
        prior = (
            adversary.uniform_prior(grid)
            if name.startswith("uniform")
            else adversary.empirical_prior(grid, s["points"])
        )
        basic = equal_privacy[
            (equal_privacy.dataset == name)
            & (equal_privacy.variant == "basic")
            & (equal_privacy.method == "DP-TT-CMP")
        ]
        for step, eps_star in zip(basic.step, basic.eps_star):
            for mechanism in (
                adversary.Geo(eps_star / s["diameter"], s["domain"]),
                adversary.DPTT(s["tree"], step, "cmp", s["domain"]),
            ):
                result = adversary.adversary_error(
                    mechanism, grid, prior, releases, rng
                )
                key = {"dataset": name, "step": step, "eps_star": eps_star}
                rows.append(
                    key
                    | {"mechanism": mechanism.name}
                    | _inference_row(result, s["diameter"])
                )
    return pd.DataFrame(rows)


def accuracy_text(table, name, variant, step, method) -> str:
    """``'raw ± se'`` of one row of the equal-privacy table indexed by dataset,
    variant, step and method."""
    row = table.loc[(name, variant, step, method)]
    return f"{row.raw:.3f} ± {row.raw_se:.3f}"


def epsilon_text(table, name, variant, step) -> str:
    """DP-TT-CMP's composed ε* of one setting, to 3 significant digits."""
    return f"{table.loc[(name, variant, step, 'DP-TT-CMP')].eps_star:.3g}"


def ratio_range(equal_mse, method) -> str:
    """``'min to max'`` of a method's matched-ε ratios where it reaches DP-TT."""
    values = equal_mse[method].dropna()
    return f"{values.min():.2f} to {values.max():.2f}"


def settings_where(equal_mse, mask) -> str:
    """'ε* = 3.42, 120 (uniform 1-D); 2.36 (switzerland 2-D)', or 'no setting'."""
    parts = [
        ", ".join(f"{e:.3g}" for e in rows.eps_star) + f" ({name})"
        for name, rows in equal_mse[mask].groupby("dataset", sort=False)
    ]
    return "ε\\* = " + "; ".join(parts) if parts else "no setting"


def equal_privacy_lines(equal_privacy, steps, methods) -> list[str]:
    """One line per dataset, variant and step in ``steps``: each method's raw
    accuracy ± 1 SE and [recall within the radius]."""
    lines = []
    for (name, variant, step), part in equal_privacy[
        equal_privacy.step.isin(steps)
    ].groupby(["dataset", "variant", "step"], sort=False):
        part = part.set_index("method")
        lines.append(
            f"  {name:>16} {variant:>5} eps*={part.eps_star.iloc[0]:6.2f}: "
            + ", ".join(
                f"{m} {part.loc[m, 'raw']:.3f}±{part.loc[m, 'raw_se']:.3f} "
                f"[{part.loc[m, 'recall']:.2f}]"
                for m in methods
            )
        )
    return lines


def schedule_lines(schedules) -> list[str]:
    """Two lines per composed budget: each family's exact-leaf share ± 1 SE (and its
    theory), then its mean distance ± 1 SE."""
    lines = []
    for total, part in schedules.groupby("total"):
        part = part.set_index("family")
        lines.append(
            f"schedules at eps*={total:g}: exact leaf "
            + ", ".join(
                f"{f} {part.loc[f, 'exact_leaf']:.3f}"
                f"±{part.loc[f, 'exact_leaf_se']:.3f}"
                f" (theory {part.loc[f, 'all_turns_theory']:.3f})"
                for f in SCHEDULES
            )
        )
        lines.append(
            "    mean distance (domain sides) "
            + ", ".join(
                f"{f} {part.loc[f, 'distance']:.4f}±{part.loc[f, 'distance_se']:.4f}"
                for f in SCHEDULES
            )
        )
    return lines


def inference_lines(inference) -> list[str]:
    """One line per dataset and ε*: the prior-only error, then each mechanism's
    optimal error ± 1 SE and [the guessing rule's]."""
    lines = []
    for (name, eps_star), part in inference.groupby(
        ["dataset", "eps_star"], sort=False
    ):
        lines.append(
            f"  {name:>16} eps*={eps_star:7.2f}: prior only "
            f"{part.prior_only.iloc[0]:.4f}, "
            + ", ".join(
                f"{r.mechanism} {r.error:.4f}±{r.se:.4f} [{r.guess:.4f}]"
                for r in part.itertuples()
            )
        )
    return lines
