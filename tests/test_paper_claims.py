"""The claims of the four related papers registered from their own words: each judge
on a small table whose answer is known by construction (effects far larger than
their errors hold; reversed or absent ones do not)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from companion import claims
from companion.claims import (
    cormode,
    cormode_findings,
    cormode_kd,
    gursoy,
    gursoy_figures,
    liang_yi,
    liang_yi_figures,
    similarity_post,
)
from dpnn import psd


def claim(module, words):
    """The claim of ``module`` whose quotation holds ``words``."""
    found = [c for c in module.CLAIMS if words in c.quote]
    assert len(found) == 1, words
    return found[0]


def judged(module, words, **tables):
    return claim(module, words).judge(tables).word


def test_every_new_claim_is_registered_with_its_notebook():
    new = (cormode_findings, cormode_kd, gursoy_figures, liang_yi_figures)
    for module in (*new, similarity_post):
        registered = claims.claims_of(module.CLAIMS[0].notebook)
        assert all(c in registered for c in module.CLAIMS)


# --- Gursoy et al. -------------------------------------------------------------------

FOLDS = range(5)
WIGGLE = np.array([0.01, -0.01, 0.005, -0.005, 0.0])  # per fold, mean zero


def rn_rows(method, values, dataset="a"):
    """Per-fold rows of an r-N table: ``values`` maps (epsilon, |X|) to accuracy."""
    return [
        {
            "dataset": dataset,
            "epsilon": eps,
            "n_test": size,
            "method": method,
            "fold": f,
            "accuracy": acc + WIGGLE[f],
        }
        for (eps, size), acc in values.items()
        for f in FOLDS
    ]


def test_baseline_drifts_to_chance_only_when_it_reaches_chance():
    table = pd.DataFrame(rn_rows("baseline", {(1.0, 10): 0.9, (1.0, 100): 0.5}))
    words = "approaches a random guess"
    assert judged(gursoy_figures, words, rn_table=table, chance={"a": 0.5}) == (
        claims.AGREES
    )
    table = pd.DataFrame(rn_rows("baseline", {(1.0, 10): 0.9, (1.0, 100): 0.8}))
    # it falls (holds) but stays 0.3 above chance (opposite): partly
    assert judged(gursoy_figures, words, rn_table=table, chance={"a": 0.5}) == (
        claims.PARTLY
    )
    empty = pd.DataFrame(columns=["dataset", "epsilon", "n_test", "method"])
    assert judged(gursoy_figures, words, rn_table=empty, chance={}) == (
        claims.NOT_COMPARABLE
    )


def test_accuracy_rising_with_epsilon():
    rising = {(0.5, 10): 0.6, (1.0, 10): 0.7, (2.0, 10): 0.8}
    words = "increase in classification accuracy"
    table = pd.DataFrame(rn_rows("proposed", rising))
    assert judged(gursoy_figures, words, rn_table=table) == claims.AGREES
    falling = {k: 1.4 - v for k, v in rising.items()}
    table = pd.DataFrame(rn_rows("proposed", falling))
    assert judged(gursoy_figures, words, rn_table=table) == claims.DIFFERS


def test_outperforms_is_judged_at_every_batch_size():
    proposed = {(1.0, 10): 0.9, (1.0, 100): 0.9}
    baseline = {(1.0, 10): 0.9, (1.0, 100): 0.5}  # level at |X| = 10 only
    table = pd.DataFrame(rn_rows("proposed", proposed) + rn_rows("baseline", baseline))
    # at |X| = 10 the gap is zero: shown below the margin there (opposite), shown
    # positive at |X| = 100: partly
    verdict = claim(gursoy, "clearly outperforms").judge({"rn_table": table})
    assert verdict.word == claims.PARTLY
    assert "10" in verdict.why and "100" in verdict.why


def conversion_rows(values):
    """``values`` maps (epsilon_hat, method) to (avre, rmse)."""
    return pd.DataFrame(
        [
            {
                "dataset": "a",
                "epsilon_hat": e,
                "method": m,
                "fold": f,
                "avre": avre * (1 + WIGGLE[f]),
                "rmse": rmse * (1 + WIGGLE[f]),
            }
            for (e, m), (avre, rmse) in values.items()
            for f in FOLDS
        ]
    )


def test_avre_below_thirty_needs_one_conversion_below():
    words = "below 30% error on all"
    one = conversion_rows(
        {(0.5, "interactive"): (50, 9), (0.5, "non-interactive"): (10, 3)}
    )
    assert judged(gursoy_figures, words, conversion_table=one) == claims.AGREES
    none = conversion_rows(
        {(0.5, "interactive"): (60, 9), (0.5, "non-interactive"): (80, 3)}
    )
    assert judged(gursoy_figures, words, conversion_table=none) == claims.DIFFERS


def test_rmse_order_follows_the_avre_order():
    words = "it also performs better wrt to k"
    same = conversion_rows(
        {(1.0, "interactive"): (50, 20), (1.0, "non-interactive"): (10, 5)}
    )
    assert judged(gursoy_figures, words, conversion_table=same) == claims.AGREES
    reversed_ = conversion_rows(
        {(1.0, "interactive"): (50, 5), (1.0, "non-interactive"): (10, 20)}
    )
    assert judged(gursoy_figures, words, conversion_table=reversed_) == claims.DIFFERS


def other_rows(dataset, ours, theirs):
    return pd.DataFrame(
        [
            {
                "dataset": dataset,
                "epsilon": e,
                "method": m,
                "fold": f,
                "accuracy": acc + WIGGLE[f],
            }
            for e in (0.5, 1.0)
            for m, acc in (
                ("private k-NN (ours)", ours),
                ("LogisticRegression", theirs),
            )
            for f in FOLDS
        ]
    )


def test_fig15_banana_is_judged_on_the_dataset_in_its_role():
    assert gursoy_figures.banana_role() == "moons"
    words = "completely on banana"
    win = other_rows("moons", 0.9, 0.6)
    assert judged(gursoy_figures, words, other_table=win) == claims.AGREES
    lose = other_rows("moons", 0.6, 0.9)
    assert judged(gursoy_figures, words, other_table=lose) == claims.DIFFERS
    elsewhere = other_rows("iris", 0.9, 0.6)
    assert judged(gursoy_figures, words, other_table=elsewhere) == (
        claims.NOT_COMPARABLE
    )


# --- Cormode et al. ------------------------------------------------------------------

TREES = np.array([0.01, -0.01, 0.005, -0.005, 0.0])


def tree_rows(values, keys, trees=5, value="error", extra=None):
    """One row per tree: ``values`` maps a key tuple (named ``keys``) to a mean."""
    rows = []
    for key, mean in values.items():
        for t in range(trees):
            row = dict(zip(keys, key)) | {"tree": t, value: mean * (1 + TREES[t])}
            rows.append(row | (extra or {}))
    return pd.DataFrame(rows)


def test_worst_case_budget_ratio_is_exact():
    heights = range(1, 9)
    errors = pd.DataFrame(
        {
            "height": list(heights),
            "uniform": [
                psd.worst_case_error(psd.uniform_budget(1.0, h)) for h in heights
            ],
            "geometric": [
                psd.worst_case_error(psd.geometric_budget(1.0, h)) for h in heights
            ],
        }
    )
    words = "grows much faster"
    assert judged(cormode_findings, words, budget_errors=errors) == claims.AGREES
    swapped = errors.rename(columns={"uniform": "geometric", "geometric": "uniform"})
    assert judged(cormode_findings, words, budget_errors=swapped) == claims.DIFFERS


def quad_table(factor):
    values = {}
    for eps in (0.1, 1.0):
        for shape in ("(1,1)", "(5,5)"):
            base = 1.0 / eps
            values |= {
                (eps, shape, "quad-baseline"): base,
                (eps, shape, "quad-geo"): base / 2,
                (eps, shape, "quad-post"): base / 2,
                (eps, shape, "quad-opt"): base / factor[eps],
            }
    return tree_rows(values, ["epsilon", "shape", "variant"])


def test_fig3_optimizations_and_their_size():
    words = "each optimization significantly improves"
    # ten times at ε = 0.1, four times at ε = 1: all parts hold
    assert (
        judged(cormode_findings, words, quad_table=quad_table({0.1: 10, 1.0: 4}))
        == claims.AGREES
    )
    # the same factor 4 everywhere: not larger at 0.1 (opposite) while the rest
    # holds: partly
    verdict = claim(cormode_findings, words).judge(
        {"quad_table": quad_table({0.1: 4, 1.0: 4})}
    )
    assert verdict.word == claims.PARTLY and "larger at ε 0.1" in verdict.why


def median_runs(errors, seconds):
    """``errors`` and ``seconds`` map a method to its per-depth values."""
    rows = []
    for m in errors:
        for d, (e, s) in enumerate(zip(errors[m], seconds[m])):
            for t in range(5):
                rows.append(
                    {
                        "method": m,
                        "depth": d,
                        "tree": t,
                        "rank_error": e * (1 + TREES[t]),
                        "seconds": s * (1 + TREES[t]),
                    }
                )
    return pd.DataFrame(rows)


def test_em_best_and_sampling():
    errors = {
        "EM": [0.001, 0.05, 0.2],
        "EM_s": [0.1, 0.2, 0.4],
        "SS": [0.8, 0.8, 0.9],
        "SS_s": [0.3, 0.4, 0.5],
    }
    seconds = {"EM": [1.0] * 3, "EM_s": [0.1] * 3, "SS": [1.0] * 3, "SS_s": [0.1] * 3}
    runs = median_runs(errors, seconds)
    assert judged(cormode_findings, "always the most accurate", median_runs=runs) == (
        claims.AGREES
    )
    assert judged(cormode_findings, "sampling (SS_s)", median_runs=runs) == (
        claims.AGREES
    )
    slow = median_runs(errors, {m: [1.0] * 3 for m in errors})  # no speed-up
    assert judged(cormode_findings, "sampling (SS_s)", median_runs=slow) == (
        claims.PARTLY
    )
    one = runs[runs["tree"] == 0]
    assert judged(cormode_findings, "always the most accurate", median_runs=one) == (
        claims.NOT_COMPARABLE
    )


def kd_table(values):
    return tree_rows(values, ["epsilon", "shape", "variant"])


def test_kd_error_bounds_and_kd_cell_on_small_squares():
    small = {
        (0.1, s, v): 0.05 for s in ("(1,1)", "(10,10)") for v in cormode.PRIVATE_KD
    }
    assert judged(cormode_kd, "less than 10%", kd_table=kd_table(small)) == (
        claims.AGREES
    )
    large = {k: 0.5 for k in small}
    assert judged(cormode_kd, "less than 10%", kd_table=kd_table(large)) == (
        claims.DIFFERS
    )
    true = {(e, "(1,1)", "kd-true"): 0.004 for e in (0.1, 1.0)}
    assert judged(cormode_kd, "below 1%", kd_table=kd_table(true)) == (claims.AGREES)
    edge = {}
    for e in (0.1, 1.0):
        edge |= {
            (e, "(1,1)", "kd-cell"): 0.1,
            (e, "(1,1)", "kd-hybrid"): 0.3,
            (e, "(10,10)", "kd-cell"): 0.3,
            (e, "(10,10)", "kd-hybrid"): 0.1,
        }
    words = "small and square"
    assert judged(cormode_kd, words, kd_table=kd_table(edge)) == claims.AGREES
    flipped = {k: 0.4 - v for k, v in edge.items()}
    assert judged(cormode_kd, words, kd_table=kd_table(flipped)) == (claims.DIFFERS)


def test_build_time_order():
    order = {
        "quad-opt": 0.1,
        "kd-hybrid": 0.5,
        "kd-standard": 2.0,
        "kd-cell": 2.0,
        "hilbert-r": 8.0,
    }
    rows = []
    for e in (0.1, 1.0):
        for v, s in order.items():
            for t in range(5):
                for shape in ("(1,1)", "(5,5)"):
                    rows.append(
                        {
                            "epsilon": e,
                            "variant": v,
                            "tree": t,
                            "shape": shape,
                            "error": 0.1,
                            "seconds": s * (1 + TREES[t]),
                        }
                    )
    table = pd.DataFrame(rows)
    words = "only divide the domain"
    assert judged(cormode_kd, words, kd_table=table) == claims.AGREES
    table["seconds"] = 1.0 + 0.01 * table["tree"]  # all alike: every order opposite
    assert judged(cormode_kd, words, kd_table=table) == claims.DIFFERS


def test_count_share():
    words = "biased towards the node counts"
    best_07 = {(0.3,): 0.3, (0.5,): 0.2, (0.7,): 0.1, (0.9,): 0.15}
    table = tree_rows(best_07, ["count_share"], extra={"shape": "(1,1)"})
    assert judged(cormode_kd, words, share_table=table) == claims.AGREES
    best_09 = {(0.3,): 0.3, (0.5,): 0.2, (0.7,): 0.15, (0.9,): 0.1}
    table = tree_rows(best_09, ["count_share"], extra={"shape": "(1,1)"})
    # biased towards counts holds; 0.7 the best does not (0.9 lower): partly
    assert judged(cormode_kd, words, share_table=table) == claims.PARTLY


# --- Liang and Yi --------------------------------------------------------------------


def test_cluster_median_and_band_outcome():
    med, low, high = liang_yi.cluster_median([1.0] * 6, [0, 0, 1, 1, 2, 2])
    assert med == low == high == 1.0
    values = np.r_[np.zeros(3), np.ones(3)]
    med, low, high = liang_yi.cluster_median(values, [0, 0, 0, 1, 1, 1], seed=3)
    assert med == 0.5 and low == 0.0 and high == 1.0  # one cluster, then the other
    assert liang_yi.band_outcome(0.6, 0.9, 0.5, 1.0) == "holds"
    assert liang_yi.band_outcome(0.1, 0.4, 0.5, 1.0) == "opposite"
    assert liang_yi.band_outcome(0.4, 0.6, 0.5, 1.0) == "level"
    with pytest.raises(ValueError, match="values"):
        liang_yi.cluster_median([], [])


def runs(settings, column, value_of, methods, extra=None):
    """Six trajectories, two repetitions: ``value_of(method, setting, trajectory)``."""
    rows = []
    for s in settings:
        for m in methods:
            for t in range(6):
                for r in range(2):
                    v = {
                        k: x * (1 + 0.01 * r) if k != "n_actual" else x
                        for k, x in value_of(m, s, t).items()
                    }
                    key = {column: s, "method": m, "trajectory": t, "repetition": r}
                    rows.append(key | v | (extra or {}))
    return pd.DataFrame(rows)


def identity(settings, column, n_of):
    def value(m, s, t):
        n = n_of(s)
        rho = s if column == "rho" else 5e-4
        cgp = np.sqrt(n / rho) * (1 + 0.02 * t)
        e = cgp * (np.sqrt(n) if m == "GP Basic" else 1.0)
        return {"max error": e, "l2 error": 3 * e, "n_actual": n}

    return runs(settings, column, value, ("GP Basic", "CGP Basic"))


def test_fig2_identity_query():
    ident_rho = identity([5e-6, 5e-5, 5e-4], "rho", lambda s: 1000)
    ident_rho["n"] = 1000
    ident_n = identity([1000, 5000, 20000], "n", lambda s: s)
    ident_n["rho"] = 5e-4
    words = "Both algorithms have smaller error"
    tables = {"ident_rho": ident_rho, "ident_n": ident_n, "seed": 0}
    assert judged(liang_yi_figures, words, **tables) == claims.AGREES
    flat = ident_n.copy()
    flat.loc[flat["method"] == "GP Basic", ["max error", "l2 error"]] *= 10
    tables["ident_n"] = flat  # GP ≈ 10 √n × CGP at every n: outside the band
    assert judged(liang_yi_figures, words, **tables) == claims.PARTLY


def hull(settings, column, jaccard):
    methods = ("CGP PCH", "GP PCH", "CGP Basic", "GP Basic")
    return runs(
        settings,
        column,
        lambda m, s, t: {"jaccard": jaccard(m, s) + 0.001 * t},
        methods,
    )


def test_fig5_trends_and_pch_high_at_every_n():
    rho = [5e-6, 5e-5, 5e-4]
    up = hull(rho, "rho", lambda m, s: 0.2 + 0.2 * rho.index(s))
    tables = {"hull_rho": up, "seed": 0}
    assert judged(liang_yi_figures, "All four", **tables) == claims.AGREES
    down = hull(rho, "rho", lambda m, s: 0.8 - 0.2 * rho.index(s))
    assert judged(liang_yi_figures, "All four", hull_rho=down, seed=0) == (
        claims.DIFFERS
    )
    ns = [1000, 5000, 20000]
    hull_n = hull(
        ns,
        "n",
        lambda m, s: 0.8 if "PCH" in m else 0.6 - 0.2 * ns.index(s),
    )
    words = "lose utility as the number"
    assert judged(liang_yi_figures, words, hull_n=hull_n, seed=0) == claims.AGREES
    words = "maintain consistently high utility"
    assert judged(liang_yi, words, hull_n=hull_n, seed=0) == claims.AGREES
    low_at_last = hull(
        ns,
        "n",
        lambda m, s: (0.3 if s == ns[-1] else 0.8) if "PCH" in m else 0.1,
    )
    verdict = claim(liang_yi, words).judge({"hull_n": low_at_last, "seed": 0})
    assert verdict.word == claims.PARTLY and "below at 1" in verdict.why


# --- SimRand -------------------------------------------------------------------------


def test_simrand_privacy_and_unbiasedness():
    privacy = {"epsilon": 4.0, "delta": 1e-5, "exact_delta": 2e-8, "audit_lower": 3.1}
    words = "(ε, δ)-differentially private"
    assert judged(similarity_post, words, privacy=privacy) == claims.AGREES
    leaky = privacy | {"exact_delta": 2e-5}
    assert judged(similarity_post, words, privacy=leaky) == claims.PARTLY
    estimator = pd.DataFrame(
        {
            "k": [16, 64],
            "epsilon": [4.0, 4.0],
            "mean": [1.001, 0.999],
            "se": [0.01, 0.01],
            "std_theory": [2.0, 2.0],
        }
    )
    words = "unbiased estimator"
    assert judged(similarity_post, words, estimator=estimator, theta=1.0) == (
        claims.AGREES
    )
    biased = estimator.assign(mean=[1.5, 1.5])
    assert judged(similarity_post, words, estimator=biased, theta=1.0) == (
        claims.DIFFERS
    )
    noisy = estimator.assign(se=[1.0, 1.0])
    assert judged(similarity_post, words, estimator=noisy, theta=1.0) == (
        claims.INCONCLUSIVE
    )


def test_liang_yi_figures_record_each_step_and_ratio_with_its_interval():
    from companion.claims.liang_yi import cluster_gap, cluster_median

    ident_n = identity([1000, 5000], "n", lambda s: s)
    ident_n["rho"] = 5e-4
    verdict = claim(liang_yi_figures, "Both algorithms have smaller error").judge(
        {"ident_n": ident_n, "seed": 0}
    )
    by = {(p.part, p.x): p for p in verdict.evidence}
    # the step n 1000 -> 5000 of GP Basic's max error: the rise of the medians and
    # its cluster bootstrap interval, drawn at the step's end
    gp = ident_n[ident_n["method"] == "GP Basic"]
    step = cluster_gap(gp[gp["n"] == 1000], gp[gp["n"] == 5000], "max error", seed=0)
    p = by["max error grows with n · GP Basic", 5000.0]
    assert (p.value, p.low, p.high) == step
    assert (p.lo, p.hi, p.outcome) == (0.0, np.inf, "holds")
    # GP over CGP over √n at n = 1000: exactly 1 in every run
    ratio = by["GP ≈ √n × CGP at each n · max error", 1000.0]
    paired = ident_n[ident_n["n"] == 1000].pivot_table(
        index=["trajectory", "repetition"], columns="method", values="max error"
    )
    r = paired["GP Basic"] / paired["CGP Basic"] / np.sqrt(1000)
    trajectories = paired.index.get_level_values("trajectory")
    assert (ratio.value, ratio.low, ratio.high) == pytest.approx(
        cluster_median(r.to_numpy(), trajectories, seed=0)
    )
    assert ratio.value == pytest.approx(1.0)
    assert (ratio.lo, ratio.hi, ratio.outcome) == (2 / 3, 1.5, "holds")


def test_simrand_unbiasedness_records_each_bias_in_its_own_band():
    estimator = pd.DataFrame(
        {
            "k": [16, 64],
            "epsilon": [4.0, 4.0],
            "mean": [1.001, 1.5],
            "se": [0.01, 0.02],
            "std_theory": [2.0, 4.0],
        }
    )
    verdict = claim(similarity_post, "unbiased estimator").judge(
        {"estimator": estimator, "theta": 1.0}
    )
    z = stats.norm.isf(0.05)
    expected = [
        (16.0, 0.001, 0.01, 0.1, "holds"),  # band ±0.05 x 2
        (64.0, 0.5, 0.02, 0.2, "opposite"),  # band ±0.05 x 4: 0.5 outside
    ]
    for p, (x, bias, se, band, outcome) in zip(verdict.evidence, expected):
        assert (p.part, p.x, p.outcome) == ("ε 4", x, outcome)
        assert (p.value, p.low, p.high) == pytest.approx(
            (bias, bias - z * se, bias + z * se)
        )
        assert (p.lo, p.hi) == pytest.approx((-band, band))
