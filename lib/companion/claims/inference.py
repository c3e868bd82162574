"""Tests for comparisons whose samples are not independent.

* Cross-validation folds share most of their training data, so the plain paired
  t-test over folds is anti-conservative. :func:`corrected_resampled_ttest` is the
  corrected resampled t-test of Nadeau and Bengio (Machine Learning 52, 2003):
  the variance of the mean difference over ``J`` train/test splits is inflated
  from ``s^2 / J`` to ``(1 / J + n_test / n_train) s^2``.
* A claim "at some setting" of several datasets or budgets is several tests:
  :func:`holm` adjusts their p-values (Holm 1979, step-down), controlling the
  family-wise error rate (a claim at *every* setting needs no correction).
* Recall over random projections varies between projections as well as between
  queries: :func:`clustered_mean` gives the standard error of the mean over
  projections, each projection's queries averaged first.
* Medians of heavy-tailed errors over runs on a few trajectories: :func:`median_gap`
  gives a cluster bootstrap interval (whole trajectories resampled, so the
  variation between trajectories is kept).

No library we pin has the first two (statsmodels is not a dependency; scipy has
no Holm adjustment), so they are written here, tested against hand computations
and a brute-force Holm. They read accuracy tables only: no privacy is spent.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "corrected_resampled_ttest",
    "holm",
    "clustered_mean",
    "crossed_mean",
    "matched_epsilon",
    "matched_epsilon_interval",
    "outcome_at",
    "median_gap",
]


def corrected_resampled_ttest(
    differences, n_train: int, n_test: int
) -> tuple[float, float]:
    """Nadeau and Bengio's corrected resampled t statistic and two-sided p-value.

    ``differences`` are the score differences of two methods on ``J`` splits, each
    with ``n_train`` training and ``n_test`` test instances (k-fold cross-validation:
    ``n_test / n_train = 1 / (k - 1)``). t = mean / sqrt((1/J + n_test/n_train) s^2)
    with ``J - 1`` degrees of freedom.
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or len(d) < 2 or not np.all(np.isfinite(d)):
        raise ValueError("differences must hold at least two finite values")
    if n_train < 1 or n_test < 1:
        raise ValueError(
            f"n_train and n_test must be positive, got {n_train}, {n_test}"
        )
    j = len(d)
    variance = (1 / j + n_test / n_train) * d.var(ddof=1)
    if variance == 0:
        t = 0.0 if d.mean() == 0 else float(np.sign(d.mean()) * np.inf)
        return t, 1.0 if d.mean() == 0 else 0.0
    t = float(d.mean() / np.sqrt(variance))
    return t, float(2 * stats.t.sf(abs(t), df=j - 1))


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the order given.

    The i-th smallest of m p-values is multiplied by (m - i + 1), the running maximum
    is taken and capped at 1; reject where the adjusted p-value is below alpha.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1 or np.any((p < 0) | (p > 1)) or not np.all(np.isfinite(p)):
        raise ValueError("pvalues must be a 1-D array of values in [0, 1]")
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def clustered_mean(values) -> tuple[float, float]:
    """Mean and standard error over projections (rows) of per-query values (columns).

    Each projection's queries are averaged first; the standard error is that of the
    mean of those averages (between-projection spread, ddof = 1), so it includes the
    variation between random projections as well as between queries.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[0] < 2 or v.shape[1] < 1 or not np.all(np.isfinite(v)):
        raise ValueError(
            "values must be a 2-D array with at least two projections (rows)"
        )
    means = v.mean(axis=1)
    return float(means.mean()), float(means.std(ddof=1) / np.sqrt(len(means)))


def crossed_mean(values) -> tuple[float, float]:
    """Mean and standard error over projections (rows) crossed with queries (columns).

    Every projection is scored on the same queries, so both are random samples: the
    variance of the grand mean is estimated by two-way clustering (Cameron, Gelbach
    and Miller 2011), ``V = V_rows + V_columns - V_cells``, where ``V_rows`` is the
    squared standard error of the mean of the row means (the between-projection
    spread, as :func:`clustered_mean`), ``V_columns`` that of the column means (the
    between-query spread) and ``V_cells`` that of all cells taken as independent
    (counted in both). Where sampling error makes ``V`` smaller than either one-way
    variance, the larger one-way variance is used, so the error is never below
    either clustering's.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or min(v.shape) < 2 or not np.all(np.isfinite(v)):
        raise ValueError(
            "values must be a 2-D array with at least two projections "
            "(rows) and two queries (columns)"
        )
    rows = v.mean(axis=1).var(ddof=1) / v.shape[0]
    columns = v.mean(axis=0).var(ddof=1) / v.shape[1]
    cells = v.var(ddof=1) / v.size
    return float(v.mean()), float(np.sqrt(max(rows + columns - cells, rows, columns)))


def matched_epsilon(target: float, curve, epsilons) -> float:
    """The ε at which a decreasing MSE ``curve`` (on the grid ``epsilons``) equals
    ``target``, interpolated linearly in log MSE against log ε; ``inf`` for a target
    below the curve's smallest value (no ε of the grid reaches it), 0 for one above
    its largest (every ε of the grid does better)."""
    curve = np.minimum.accumulate(np.asarray(curve, dtype=float))
    if target < curve[-1]:
        return float("inf")
    if target > curve[0]:
        return 0.0
    return float(
        np.exp(
            np.interp(
                np.log(target),
                np.log(curve[::-1]),
                np.log(np.asarray(epsilons, float)[::-1]),
            )
        )
    )


def matched_epsilon_interval(
    target, mse_grid, epsilons, rng, *, n_resamples: int = 2000, level: float = 0.95
) -> tuple[float, float, float]:
    """The ε at which a mechanism's mean MSE equals a reference's mean squared
    displacement, and its percentile bootstrap interval over queries.

    ``target`` holds the reference's (DP-TT's) squared displacement per query;
    ``mse_grid`` the mechanism's exact MSE per query (rows) at each ε of the
    increasing grid ``epsilons`` (columns; one row for a mechanism whose MSE does
    not depend on the query, such as GEO). Each resample draws the reference's
    queries and the mechanism's queries with replacement, independently (the two
    means are taken over their own query samples), and solves
    :func:`matched_epsilon`; an interval end is an order statistic of the
    resamples (so ``inf`` and 0 stay meaningful). ``rng`` fixes the resampling.
    """
    t = np.asarray(target, dtype=float)
    grid = np.atleast_2d(np.asarray(mse_grid, dtype=float))
    eps = np.asarray(epsilons, dtype=float)
    if t.ndim != 1 or len(t) < 2 or not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("target must hold two or more finite non-negative values")
    if eps.ndim != 1 or len(eps) < 2 or np.any(eps <= 0) or np.any(np.diff(eps) <= 0):
        raise ValueError("epsilons must be an increasing grid of positive budgets")
    if grid.shape[1] != len(eps) or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(
            "mse_grid must hold positive finite MSEs, one column per epsilon"
        )
    if n_resamples < 100:
        raise ValueError(f"n_resamples must be at least 100, got {n_resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    targets = (
        rng.multinomial(len(t), np.full(len(t), 1 / len(t)), size=n_resamples)
        @ t
        / len(t)
    )
    picks = rng.multinomial(
        len(grid), np.full(len(grid), 1 / len(grid)), size=n_resamples
    )
    curves = picks @ grid / len(grid)
    found = np.array([matched_epsilon(a, c, eps) for a, c in zip(targets, curves)])
    low, high = np.quantile(
        found, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf"
    )
    return matched_epsilon(t.mean(), grid.mean(axis=0), eps), float(low), float(high)


def outcome_at(outcome: str, settings: list, total: int) -> str:
    """Where a verdict's ``outcome`` was found, for its "why": ``"holds at a, b"``
    naming the ``settings``, or past six of them ``"holds at 9 of 24 settings"`` with
    ``total`` the number of settings judged."""
    if len(settings) > 6:
        return f"{outcome} at {len(settings)} of {total} settings"
    return f"{outcome} at {', '.join(str(k) for k in settings)}"


def median_gap(
    runs,
    a: str,
    b: str,
    value: str,
    *,
    cluster: str = "trajectory",
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """median(b) - median(a) of ``value`` and its percentile bootstrap interval.

    ``runs`` has one row per run with a ``method`` column; each resample draws the
    ``cluster`` groups (trajectories) with replacement and keeps all their runs of
    both methods, so runs sharing a trajectory move together. ``seed`` fixes the
    resampling (same seed, same interval).
    """
    if n_resamples < 100:
        raise ValueError(f"n_resamples must be at least 100, got {n_resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    parts = {m: runs[runs["method"] == m] for m in (a, b)}
    if any(p.empty for p in parts.values()):
        raise ValueError(f"runs must hold both methods {a!r} and {b!r}")
    groups = sorted(set(runs[cluster]))
    by = {
        m: {g: p.loc[p[cluster] == g, value].to_numpy(float) for g in groups}
        for m, p in parts.items()
    }
    rng = np.random.default_rng(seed)
    gaps = np.empty(n_resamples)
    for i in range(n_resamples):
        pick = rng.choice(len(groups), size=len(groups))
        gaps[i] = np.median(
            np.concatenate([by[b][groups[j]] for j in pick])
        ) - np.median(np.concatenate([by[a][groups[j]] for j in pick]))
    point = float(np.median(parts[b][value]) - np.median(parts[a][value]))
    low, high = np.quantile(gaps, [(1 - level) / 2, (1 + level) / 2])
    return point, float(low), float(high)
