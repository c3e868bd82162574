"""The experiments of notebook 12: the estimators' error and recall against the angle.

These drivers sit above the algorithms: nothing in the package imports them.
"""

from __future__ import annotations

import math

import numpy as np

from companion.claims.inference import clustered_mean, crossed_mean
from companion.progress import progress
from dpnn._validation import (
    generator,
    nonnegative_finite,
    positive_finite,
    positive_int,
)
from dpnn.simrand import estimators, flips, projection_baseline, search
from dpnn.simrand.projection_baseline import unit_rows
from dpnn.simrand.search import smallest_indices
from dpnn.simrand.simhash import check_rows, projection, simhash

__all__ = [
    "flip_pattern_counts",
    "estimator_study",
    "recall_table",
    "clustered_vectors",
    "COMPARED",
    "SPOKEN",
    "winners",
    "epsilons_won",
    "wins_by_setting",
    "won_at",
    "largest_win",
    "wins_sentence",
    "pi_text",
]


def estimator_study(theta, k_values, epsilon_values, alpha, delta, trials, rng):
    """Simulated mean, spread and 90% error of the de-biased angle estimator against its
    theory.

    One row per (k, epsilon): SimRand's K and flip probability p for angle bound
    ``alpha`` and ``delta``, the mean and standard error of
    :func:`debiased_angle` over ``trials`` simulated pairs at true angle
    ``theta``, its simulated and analytic standard deviation, and the simulated
    90% error quantile against the Chebyshev radius at failure 0.1.
    """
    import pandas as pd

    rows = []
    for k in k_values:
        sensitivity = flips.sensitivity_bound(k, alpha, delta)
        for epsilon in epsilon_values:
            p = flips.flip_probability(epsilon, sensitivity)
            estimate = estimators.debiased_angle(
                estimators.simulate_hamming(
                    theta, k, epsilon, sensitivity, trials, rng
                ),
                k,
                p,
            )
            rows.append(
                {
                    "k": k,
                    "epsilon": epsilon,
                    "K": sensitivity,
                    "q": p,
                    "mean": estimate.mean(),
                    "se": estimate.std(ddof=1) / np.sqrt(trials),
                    "std": estimate.std(ddof=1),
                    "std_theory": estimators.debiased_angle_std(theta, k, p),
                    "q90": np.quantile(np.abs(estimate - theta), 0.9),
                    "chebyshev90": estimators.chebyshev_radius(theta, k, p, 0.1),
                }
            )
    return pd.DataFrame(rows)


def recall_table(
    data,
    alphas,
    ks,
    epsilons,
    *,
    n_queries,
    n_neighbours,
    repeats,
    delta,
    rng,
    ceiling=False,
):
    """Recall@n_neighbours of SimRand and the Gaussian baseline over a grid: a pandas
    DataFrame.

    The rows of ``data`` are shuffled; the first ``n_queries`` become queries
    (hashed or projected exactly), the rest are released, ``repeats`` times per
    (alpha, k, epsilon) and method. Columns: alpha/pi, k, epsilon, method,
    recall (mean over queries and repeats); se, its standard error with the
    releases (each a new random projection) and the queries as crossed clusters
    (:func:`companion.claims.crossed_mean`: the variation between projections and
    between queries both count); se_queries, the standard error treating the
    ``n_queries * repeats`` per-query recalls as independent; se_projections, the
    standard error over the ``repeats`` releases alone. With one release the
    between-projection variation cannot be estimated: se is then se_queries and
    se_projections NaN.

    ``ceiling=True`` adds, per (alpha, k), the recall of the same searches without
    noise (methods "SimHash, no noise" and "JL projection, no noise": exact hashes and
    projections of the released rows), repeated on every epsilon row for plotting. Its
    projections come from a child generator (``rng.spawn``), so the private rows are
    drawn exactly as without it.
    """
    import pandas as pd

    data = check_rows(data, "data")
    n_queries = positive_int(n_queries, "n_queries")
    repeats = positive_int(repeats, "repeats")
    if n_queries + n_neighbours > data.shape[0]:
        raise ValueError(
            f"n_queries + n_neighbours must be at most the {data.shape[0]} rows of data"
        )
    rng = generator(rng)
    order = rng.permutation(data.shape[0])
    queries, database = data[order[:n_queries]], data[order[n_queries:]]
    truth = search.exact_knn_angular(database, queries, n_neighbours)
    rows = []
    ceiling_rng = rng.spawn(1)[0] if ceiling else None
    for alpha in progress(alphas, total=len(alphas), desc="SimRand recall, alphas"):
        for k in ks:
            for epsilon in epsilons:
                per_query = {"SimRand": [], "Gaussian RP": []}
                for _ in range(repeats):
                    sim = flips.simrand(database, k, epsilon, delta, alpha, rng)
                    per_query["SimRand"].append(
                        search.recall_at(
                            search.knn_hamming(sim, queries, n_neighbours, rng), truth
                        )
                    )
                    gau = projection_baseline.gaussian_projection(
                        database, k, epsilon, delta, alpha, rng
                    )
                    per_query["Gaussian RP"].append(
                        search.recall_at(
                            search.knn_euclidean(gau, queries, n_neighbours), truth
                        )
                    )
                for method, per_repeat in per_query.items():
                    rows.append(
                        {
                            "alpha/pi": alpha / np.pi,
                            "k": k,
                            "epsilon": epsilon,
                            "method": method,
                            **_errors(per_repeat),
                        }
                    )
    if ceiling:
        rows.extend(
            _ceiling_rows(
                database,
                queries,
                truth,
                alphas,
                ks,
                epsilons,
                n_neighbours,
                repeats,
                ceiling_rng,
            )
        )
    return pd.DataFrame(rows)


def _errors(per_repeat) -> dict:
    """Mean recall of ``per_repeat`` (one array of per-query recalls per release) and
    its standard errors: crossed (``se``), per query (``se_queries``) and between
    releases (``se_projections``); see :func:`recall_table`."""
    values = np.asarray(per_repeat, dtype=float)
    mean = float(values.mean())
    se_queries = float(values.std(ddof=1) / math.sqrt(values.size))
    if len(values) < 2:
        return {
            "recall": mean,
            "se": se_queries,
            "se_queries": se_queries,
            "se_projections": float("nan"),
        }
    _, se_projections = clustered_mean(values)
    _, se = crossed_mean(values)
    return {
        "recall": mean,
        "se": se,
        "se_queries": se_queries,
        "se_projections": se_projections,
    }


def _ceiling_rows(
    database, queries, truth, alphas, ks, epsilons, n_neighbours, repeats, rng
):
    """Recall of SimHash (Hamming on exact bits) and of a JL projection (Euclidean, no
    noise)."""
    unit_db, unit_q = unit_rows(database), unit_rows(queries)
    rows = []
    for k in ks:
        per_query = {"SimHash, no noise": [], "JL projection, no noise": []}
        for _ in range(repeats):
            r = projection(k, database.shape[1], rng)
            bits = flips.SimRandRelease(
                r, simhash(database, r), float("inf"), 0.0, 0.0, 0, 0.0
            )
            per_query["SimHash, no noise"].append(
                search.recall_at(
                    search.knn_hamming(bits, queries, n_neighbours, rng), truth
                )
            )
            pq, pd_ = unit_q @ r.T, unit_db @ r.T
            squared = (
                (pq**2).sum(axis=1)[:, None]
                + (pd_**2).sum(axis=1)[None, :]
                - 2 * pq @ pd_.T
            )
            per_query["JL projection, no noise"].append(
                search.recall_at(smallest_indices(squared, n_neighbours), truth)
            )
        for method, values in per_query.items():
            errors = _errors(values)
            for alpha in alphas:
                for epsilon in epsilons:
                    rows.append(
                        {
                            "alpha/pi": alpha / np.pi,
                            "k": k,
                            "epsilon": epsilon,
                            "method": method,
                            **errors,
                        }
                    )
    return rows


def clustered_vectors(n, d, n_clusters, spread, rng) -> tuple[np.ndarray, np.ndarray]:
    """n vectors in d dimensions around n_clusters random unit directions, with labels.

    Centres are uniform on the unit sphere; each point is its centre plus
    N(0, spread^2 / d) noise per coordinate, so ``spread`` is the typical
    distance from the centre (roughly the angle, for small spread).
    """
    n = positive_int(n, "n")
    d = positive_int(d, "d", minimum=2)
    n_clusters = positive_int(n_clusters, "n_clusters")
    spread = positive_finite(spread, "spread")
    rng = generator(rng)
    centres = unit_rows(rng.standard_normal((n_clusters, d)))
    labels = rng.integers(0, n_clusters, size=n)
    points = centres[labels] + rng.normal(0.0, spread / math.sqrt(d), size=(n, d))
    return points, labels


#: The two private methods of :func:`recall_table`, compared by :func:`winners`.
COMPARED = ("SimRand", "Gaussian RP")
#: How notebook 12's sentences name them.
SPOKEN = {"SimRand": "SimRand", "Gaussian RP": "the baseline"}


def winners(recall, win_margin):
    """Who wins each setting (alpha/pi, k, epsilon) of a :func:`recall_table`.

    One row per setting: ``recall <method>`` and ``se <method>`` of every method,
    ``difference`` (SimRand minus Gaussian RP), ``se difference`` (the two
    standard errors combined as independent) and ``winner``: the method ahead by
    more than both 3 standard errors of the difference and ``win_margin``, else
    "tie". A descriptive rule over many settings; the claims about them are
    judged by :mod:`companion.claims` with their own stated rule.
    """
    win_margin = nonnegative_finite(win_margin, "win_margin")
    wide = recall.pivot_table(
        index=["alpha/pi", "k", "epsilon"], columns="method", values=["recall", "se"]
    )
    wide.columns = [f"{stat} {method}" for stat, method in wide.columns]
    wide = wide.reset_index()
    first, second = COMPARED
    wide["difference"] = wide[f"recall {first}"] - wide[f"recall {second}"]
    wide["se difference"] = np.hypot(wide[f"se {first}"], wide[f"se {second}"])
    threshold = np.maximum(3 * wide["se difference"], win_margin)
    wide["winner"] = np.where(
        wide.difference > threshold,
        first,
        np.where(wide.difference < -threshold, second, "tie"),
    )
    return wide


def _budgets_won(group, who) -> str:
    """The budgets ``who`` wins in ``group`` (rows of :func:`winners`): "4, 8" or ""."""
    return ", ".join(f"{e:g}" for e in group.epsilon[group.winner == who])


def epsilons_won(group, who) -> str:
    """The budgets ``who`` wins in ``group`` (rows of :func:`winners`), or "none"."""
    return _budgets_won(group, who) or "none"


def wins_by_setting(wide):
    """Per (alpha/pi, k): the budgets each method wins (:func:`epsilons_won`)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "alpha/pi": a,
                "k": k,
                "SimRand wins at ε": epsilons_won(g, "SimRand"),
                "baseline wins at ε": epsilons_won(g, "Gaussian RP"),
            }
            for (a, k), g in wide.groupby(["alpha/pi", "k"])
        ]
    )


def won_at(group, who) -> str:
    """'at ε = 4, 8 for k = 16, 64; at ε = 128 for k = 256' (k sharing ε), or ''."""
    same = {}
    for k, g in group.groupby("k"):
        eps = _budgets_won(g, who)
        if eps:
            same.setdefault(eps, []).append(f"{k:g}")
    return "; ".join(
        f"at ε = {eps} for k = {', '.join(ks)}" for eps, ks in same.items()
    )


def largest_win(group, who) -> str:
    """'0.61 against 0.42 at k = 64, ε = 16': ``who``'s largest win in ``group``."""
    won = group[group.winner == who]
    row = won.loc[won.difference.abs().idxmax()]
    other = COMPARED[1] if who == COMPARED[0] else COMPARED[0]
    return (
        f"{row['recall ' + who]:.2f} against {row['recall ' + other]:.2f}"
        f" at k = {row.k:g}, ε = {row.epsilon:g}"
    )


def wins_sentence(group) -> str:
    """Where each method wins in ``group`` (one alpha of :func:`winners`), in words."""
    parts = []
    for who in COMPARED:
        where = won_at(group, who)
        parts.append(
            f"{SPOKEN[who]} wins {where} (largest win {largest_win(group, who)})"
            if where
            else f"{SPOKEN[who]} wins nowhere"
        )
    return "; ".join(parts)


def pi_text(fraction) -> str:
    """An angle given as a fraction of π, in words: 'π' or 'π/8'."""
    return "π" if fraction == 1 else f"π/{1 / fraction:g}"


def flip_pattern_counts(bits, n, epsilon, k_flip, rng) -> np.ndarray:
    """How often each of the 2^k outputs (read as binary numbers, first bit highest)
    comes out of ``n`` independent flips of the k-bit hash ``bits`` by
    :func:`dpnn.simrand.flip_bits` at ``epsilon`` with ``K = k_flip``."""
    k = len(bits)
    powers = 2 ** np.arange(k - 1, -1, -1)
    flipped = flips.flip_bits(np.tile(bits, (n, 1)), epsilon, k_flip, rng)
    return np.bincount(flipped.astype(int) @ powers, minlength=2**k)
