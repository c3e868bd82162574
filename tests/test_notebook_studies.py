"""The computations and figures the narrative notebooks call, on small known cases."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from companion import claims, metrics, plots  # noqa: E402
from companion.studies import (  # noqa: E402
    composition,
    cormode,
    followup,
    gursoy,
    leakage,
    liang_yi_tables,
    synthesis,
    thesis,
    thesis_basic,
    thesis_comparison,
    thesis_distance,
    thesis_variants,
)
from companion.studies import (
    simrand as simrand_studies,
)
from dpnn import accounting, adversary, baselines, data, traversal, trees  # noqa: E402


def rng(seed):
    return np.random.default_rng(seed)


@pytest.fixture
def line():
    points = data.uniform_points(64, 1, np.random.default_rng(0))
    return points, trees.build_tree(points)


def test_dis_against_geo_exact_geo_and_thesis_budget(line):
    points, tree = line
    table = thesis_basic.dis_against_geo(
        points, tree, 30, 1e6, [1e9, 1.0], np.random.default_rng(1)
    )
    assert list(table.columns) == [
        "d", "Δ", "method", "raw", "raw s.e.", "top-5", "top-5 s.e.", "ε*"
    ]  # fmt: skip
    assert len(table) == 2 * 2 * 2
    assert table["ε*"].iloc[0] == accounting.br_composition(
        [1e6] * tree.tree_height, 1 / 64
    )
    # at ε*/Δ of about 1e7 per unit GEO's noise is nil: it finds every true NN
    geo = table[(table["method"] == "GEO") & (table["Δ"] == 1.0)]
    assert list(geo["raw"]) == [1.0, 1.0] and list(geo["top-5"]) == [1.0, 1.0]


def test_dis_against_geo_draws_like_one_loop(line):
    points, tree = line
    a = thesis_basic.dis_against_geo(
        points, tree, 10, 1.0, [1e3], np.random.default_rng(2)
    )
    b = thesis_basic.dis_against_geo(
        points, tree, 10, 1.0, [1e3], np.random.default_rng(2)
    )
    pd.testing.assert_frame_equal(a, b)


def test_cmp_sweep_coin_flips_and_certain_turns(line):
    points, tree = line
    table = thesis_basic.cmp_sweep(
        points, tree, 200, [1e-9, 1e3], np.random.default_rng(3)
    )
    assert list(table["d"]) == [1, 1, 2, 2]
    assert list(table["per-step ε"]) == [1e-9, 1e3] * 2
    assert table["composed ε (thesis)"].iloc[1] == accounting.br_composition(
        [1e3] * tree.tree_height, 1 / 64
    )
    # certain turns release the noiseless descent's leaf, nearly always a top-5 in 1-D
    assert table["top-5"].iloc[1] > 0.9
    # coin flips release a uniform leaf: the true NN about once in 64
    assert table["raw"].iloc[0] < 0.1


def test_dis_against_geo_panels_layout():
    table = pd.DataFrame(
        [
            {"d": d, "method": m, "raw": 0.5, "raw s.e.": 0.1, "top-5": 0.7,
             "top-5 s.e.": 0.1}
            for d in (1, 2) for _ in (1e9, 1e3) for m in ("DP-TT-DIS", "GEO")
        ]
    )  # fmt: skip
    table = table.sort_values(["d", "method"], kind="stable")
    fig = plots.dis_against_geo_panels(table, [1e9, 1e3], n_points=100, epsilon=1.0)
    assert len(fig.axes) == 4
    assert fig.axes[3].get_title() == "2-D, N = 100, per-step ε = 1"
    assert fig.axes[0].xaxis_inverted()
    plt.close(fig)


def test_cmp_accuracy_panels_titles():
    table = pd.DataFrame(
        [
            {"d": d, "raw": 0.1, "raw s.e.": 0.0, "top-5": 0.2, "top-5 s.e.": 0.0}
            for d in (1, 2) for _ in range(3)
        ]
    )  # fmt: skip
    fig = plots.cmp_accuracy_panels(table, [0.1, 1, 10], n_points=1000)
    assert [ax.get_title() for ax in fig.axes] == [
        "(a) raw accuracy, DP-TT-CMP, N = 1,000",
        "(b) top-5 accuracy, DP-TT-CMP, N = 1,000",
    ]
    plt.close(fig)


def test_protocol_with_draws_one_note_per_step():
    steps = pd.DataFrame(
        {"node": [0, 1], "left child": [1.0, 2.0], "right child": [3.0, 4.0],
         "bit": [1, 0], "p_right": [0.25, 0.75]}
    )  # fmt: skip
    fig = plots.protocol_with_draws(steps, title="t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "node 0: children 1 | 3" in texts and "bit 0" in texts
    assert "drawn with\nPr[right] = 0.75" in texts
    assert tuple(fig.get_size_inches()) == (8.5, 6)
    plt.close(fig)


# --- what the server learns (notebook 14) ---------------------------------------------


@pytest.fixture
def square():
    points = np.random.default_rng(4).uniform(0, 1, (64, 2))
    domain = np.array([[0.0, 1.0], [0.0, 1.0]])
    return {
        "points": points,
        "tree": trees.build_tree(points),
        "domain": domain,
        "grid": adversary.domain_grid(domain, 8),
        "delta": 1 / 64,
    }


def test_random_pair_at_distance_is_inside_and_that_far(square):
    rng = np.random.default_rng(5)
    for r in (0.1, 0.3, 0.6):
        a, b = leakage.random_pair_at_distance(square["domain"], r, rng, unit=2.0)
        assert np.linalg.norm(b - a) == pytest.approx(2 * r)
        assert np.all((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1))


def test_released_locations_leaf_point_and_root_centroid(square):
    tree, domain = square["tree"], square["domain"]
    queries = np.array([[0.1, 0.2], [0.8, 0.9]])
    basic = adversary.DPTT(tree, 50.0, "cmp", domain)
    where = leakage.released_locations(basic, queries, np.random.default_rng(6))
    assert all(np.any(np.all(tree.points == w, axis=1)) for w in where)
    # E stopping at the root's height releases every point: their centroid
    everything = adversary.DPTT(
        tree, 1.0, "cmp", domain, variant=f"E{tree.tree_height}"
    )
    where = leakage.released_locations(everything, queries, np.random.default_rng(6))
    np.testing.assert_allclose(where, [square["points"].mean(axis=0)] * 2)


def test_perturbation_rmse_one_row_per_footing_mechanism_and_budget(square):
    table = leakage.perturbation_rmse(
        square, [1.0, 100.0], 40, np.random.default_rng(7), lsrr_levels=3, e_splits=2
    )
    assert len(table) == 2 * 2 * 6 and list(table.columns) == [
        "footing", "eps_star", "mechanism", "rmse"
    ]  # fmt: skip
    assert (table["rmse"] >= 0).all()
    accounted = table[table.footing == "accounted"]
    geo = accounted[accounted["mechanism"] == "GEO"]["rmse"].to_numpy()
    assert geo[1] < 0.05 < geo[0]  # at ε* = 100 GEO barely moves the query
    # every release is clipped into the domain: no displacement beyond its diameter
    assert (table["rmse"] <= 1.0).all()


def test_perturbation_rmse_clips_geo_into_the_domain(square):
    """At ε* = 0.01 GEO's raw release lies ~100 D away; clipped, the RMSE between a
    uniform query and a point of the unit square is below its diameter (1 D)."""
    table = leakage.perturbation_rmse(
        square,
        [0.01],
        200,
        np.random.default_rng(7),
        lsrr_levels=3,
        e_splits=2,
        footings=("accounted",),
    )
    geo = table[table.mechanism == "GEO"]["rmse"].iloc[0]
    assert 0.3 < geo < 1.0


def test_mechanisms_on_footings_and_bad_footing(square):
    accounted = leakage.mechanisms_on(
        "accounted", 4.0, square, lsrr_levels=3, e_splits=2
    )
    actual = leakage.mechanisms_on("actual", 4.0, square, lsrr_levels=3, e_splits=2)
    assert [m.name for m in accounted] == [m.name for m in actual]
    # DIS's certified bound lies far below its ledger: on the actual footing it gets
    # a larger per-step budget for the same eps*
    dis = [m for m in accounted + actual if m.name == "DP-TT-DIS basic"]
    assert np.all(dis[1].schedule > dis[0].schedule)
    with pytest.raises(ValueError, match="footing"):
        leakage.mechanisms_on("nominal", 4.0, square, lsrr_levels=3, e_splits=2)


def test_pair_epsilons_corners_are_randomized_response(square):
    pairs, accounted, corners = leakage.pair_epsilons(
        square, 2.0, [0.1, 0.5], 3, np.random.default_rng(8)
    )
    assert list(pairs.groupby("utility").size()) == [6, 6]
    # every CMP split separates opposite corners: k-fold randomized response, the PLD
    assert corners["cmp"] == pytest.approx(accounted["cmp"]["pld"], abs=1e-3)
    for utility in ("cmp", "dis"):
        largest = pairs[pairs.utility == utility].epsilon.max()
        assert all(largest <= v + 1e-3 for v in accounted[utility].values())


def test_worst_pairs_at_every_distance_below_the_certified_bound(square):
    table = leakage.worst_pairs(square, 2.0, [0.1, 0.5], np.random.default_rng(9))
    assert len(table) == 4 and set(table.utility) == {"cmp", "dis"}
    assert (table["search"] <= table["certified"] + 1e-9).all()
    assert np.allclose(table["gap"], table["certified"] - table["search"])
    # farther pairs are separated by more splits: the worst CMP pair loses more
    cmp = table[table.utility == "cmp"].sort_values("distance")["search"].to_numpy()
    assert cmp[1] > cmp[0]


# --- composition (notebook 02) --------------------------------------------------------


def test_composition_curves_known_values():
    table = composition.composition_curves(0.5, np.array([1, 4]), 1e-5)
    assert list(table.index) == [1, 4]
    assert list(table["basic (Thm 2.9)"]) == [0.5, 2.0]
    # one ε-DP step composes to itself, a hair less for δ > 0
    assert 0.499 < table["optimal for ε-DP (KOV)"].iloc[0] <= 0.5
    # zCDP of ε-BR steps charges a quarter of the ρ of ε-DP steps, so less ε
    assert (table["zCDP, ε-BR steps (ρ = kε²/8)"] < table["zCDP (ρ = kε²/2)"]).all()


def test_first_crossing():
    ks = np.array([1, 2, 5, 10])
    assert composition.first_crossing(ks, [False, False, True, True]) == 5
    assert composition.first_crossing(ks, [False] * 4) is None


def test_composition_bounds_one_panel_per_epsilon():
    curves = {
        e: composition.composition_curves(e, np.array([1, 10]), 1e-5)
        for e in (0.1, 1.0)
    }
    fig = plots.composition_bounds(curves, [1, 10], {0.1: [0.1, 1], 1.0: [1, 9]}, 1e-5)
    assert [ax.get_title() for ax in fig.axes] == [
        "per-step ε = 0.1, δ = 1e-05",
        "per-step ε = 1, δ = 1e-05",
    ]
    assert fig.axes[0].get_xscale() == "log" == fig.axes[0].get_yscale()
    plt.close(fig)


# --- the DP-TT variants (notebook 06) -------------------------------------------------


@pytest.fixture
def complete_line():
    return trees.build_tree(np.arange(16.0))  # a complete tree of height 4


def test_variant_walks_counts_of_calls_and_releases(complete_line):
    walks = thesis_variants.variant_walks(
        complete_line, np.array([5.2]), 3.0, ["basic", "P1", "GS", "N3"], rng(9)
    )
    assert [w["name"] for w in walks] == ["basic", "P1", "GS", "N3"]
    assert [w["calls"] for w in walks] == [4, 2 * 3, 4 * 5 // 2, 4]
    assert [len(w["released"]) for w in walks] == [1, 2, 5, 3]
    assert len(walks[0]["em"]) == 4 and walks[0]["split"] == []


def test_variant_accuracy_skips_variants_deeper_than_the_tree(complete_line):
    queries = np.array([0.1, 7.4, 15.0])
    truth = np.argsort(np.abs(np.arange(16.0)[None, :] - queries[:, None]), axis=1)
    table = thesis_variants.variant_accuracy(
        complete_line, queries, truth[:, :5], ["basic", "E8", "N5"], 1e3, rng(10)
    )
    assert list(table["variant"]) == ["basic", "N5"] and set(table["d"]) == {1}
    assert list(table["released"]) == [1.0, 5.0]
    assert list(table["calls c"]) == [4.0, 4.0]
    assert (table["raw"] <= table["top-5"]).all()


def test_greedy_call_counts_match_the_formula():
    table = thesis_variants.greedy_call_counts([1, 2, 3], 1.0, 5, rng(11))
    assert list(table["measured min"]) == list(table["h(h+1)/2"]) == [1, 3, 6]
    assert list(table["measured max"]) == [1, 3, 6]
    assert list(table["released"]) == [2, 3, 4]
    assert table["k+1 at depth k"].all()


def test_gs_schedules_spend_the_same_total(complete_line):
    queries = np.array([0.1, 7.4, 15.0])
    truth = np.argsort(np.abs(np.arange(16.0)[None, :] - queries[:, None]), axis=1)
    total, table = thesis_variants.gs_schedules(
        complete_line, queries, truth[:, :5], 2.0, rng(12)
    )
    assert len(table) == len(traversal.SCHEDULES)
    np.testing.assert_allclose(table["composed (PLD)"], total, rtol=1e-9)


def test_variant_panels_titles():
    points = np.random.default_rng(13).uniform(0, 100, (8, 2))
    tree = trees.build_tree(points)
    query = np.array([50.0, 50.0])
    walks = thesis_variants.variant_walks(tree, query, 3.0, ["basic", "GS"], rng(14))
    fig = plots.variant_walks_panels(tree, query, walks, 0, 3.0)
    assert len(fig.axes) == 2
    first, second = fig.axes[0].get_title().split("\n")
    assert first == "One query (50.0, 50.0) on a 8-leaf tree, CMP, ε = 3 per step"
    assert second.startswith("DP-TT basic: 3 exponential-mechanism calls, 1 released")
    plt.close(fig)
    accuracy = pd.DataFrame(
        {"d": [1, 1, 2, 2], "variant": ["basic", "GS"] * 2,
         "released": [1.0, 5.0] * 2, "raw": [0.5] * 4, "top-5": [0.6] * 4,
         "ε exact": [1.0, 3.0, 1.0, 3.0]}
    )  # fmt: skip
    fig = plots.variant_accuracy_panels(accuracy, n_points=10, epsilon=7.0)
    assert len(fig.axes) == 5  # four panels and the colour bar
    assert fig.axes[2].get_title() == "2-D, N = 10, per-step ε = 7"
    plt.close(fig)


# --- SimRand (notebook 12) ------------------------------------------------------------


def test_flip_pattern_counts_reads_outputs_as_binary_numbers():
    bits = np.array([True, False, True])
    # ε huge: no bit flips, every output is the hash itself, 101 = 5
    counts = simrand_studies.flip_pattern_counts(bits, 50, 1e6, 1, rng(15))
    assert counts.shape == (8,) and counts[5] == 50 and counts.sum() == 50
    # ε tiny: each bit is a coin flip, every pattern about 1/8 of the time
    counts = simrand_studies.flip_pattern_counts(bits, 8000, 1e-9, 1, rng(16))
    assert np.all(np.abs(counts - 1000) < 4 * np.sqrt(1000))


def test_exact_privacy_check_draws_only_positive_deltas():
    fig = plots.exact_privacy_check(
        np.array([0.0, 1.0, 2.0]),
        np.array([0.0, 1.0, 2.0]),
        epsilon=2.0,
        k_flip=2,
        k=4,
        eps_prime=np.array([0.0, 1.0, 2.0, 3.0]),
        delta_curve=[0.5, 0.1, 1e-3, 0.0],
        delta=1e-2,
    )
    left, right = fig.axes
    np.testing.assert_array_equal(left.lines[0].get_ydata(), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(right.lines[0].get_xdata(), [0.0, 1.0, 2.0])
    assert right.get_yscale() == "log"
    plt.close(fig)


def test_ratio_range():
    assert cormode.ratio_range(pd.Series([3.071, 1.5, 2.0])) == "1.50–3.07×"


def _followup_setup(n_points=64, n_queries=40, seed=0):
    """A 2-D uniform setup on the unit square, as notebook 13 builds them."""
    from scipy.spatial import cKDTree

    points = np.random.default_rng(seed).uniform(size=(n_points, 2))
    queries = np.random.default_rng(seed + 1).uniform(size=(n_queries, 2))
    index = cKDTree(points)
    return {
        "points": points,
        "domain": np.array([[0.0, 1.0], [0.0, 1.0]]),
        "tree": trees.build_tree(points),
        "index": index,
        "queries": queries,
        "truth": index.query(queries, k=5)[1],
        "delta": 1 / n_points,
        "radius": 0.2,
        "diameter": float(np.sqrt(2.0)),
    }


@pytest.fixture(scope="module")
def followup_runs():
    setups = {"uniform 2-D": _followup_setup()}
    table, moved = followup.equal_privacy_comparison(
        setups, ["basic"], [2.0, 200.0], rng(40), lsrr_levels=3
    )
    return setups, table, moved


def test_equal_privacy_comparison_one_budget_per_setting(followup_runs):
    setups, table, moved = followup_runs
    assert len(table) == 2 * 4 and set(table.method) == {
        "DP-TT-CMP",
        "GEO",
        "SM",
        "L-SRR",
    }
    assert (table.groupby("step").eps_star.nunique() == 1).all()
    # at step 200 every turn is correct: DP-TT-CMP's accuracy is the exact descent's
    s = setups["uniform 2-D"]
    descent = traversal.dptt(s["tree"], s["queries"], 200.0, "cmp", rng=rng(0))
    expected = metrics.raw_accuracy(descent, s["truth"][:, 0]).mean()
    exact = table[(table.step == 200.0) & (table.method == "DP-TT-CMP")]
    assert exact.raw.iloc[0] == pytest.approx(expected)
    assert moved[("uniform 2-D", "basic", 2.0)]["SM"].shape == (40, 2)


def test_equal_mse_comparison_geo_matches_the_target_exactly(followup_runs):
    setups, table, moved = followup_runs
    mse, tails = followup.equal_mse_comparison(
        setups,
        table,
        moved,
        [2.0],
        rng(41),
        mse_queries=20,
        lsrr_levels=3,
        n_resamples=200,
    )
    row = mse.iloc[0]
    target = row.dptt_rmse_m**2
    eps_geo = row.GEO * row.eps_star / setups["uniform 2-D"]["diameter"]
    assert np.isclose(baselines.geo_mse(eps_geo, 2), target, rtol=1e-6)
    assert row["GEO low"] <= row.GEO <= row["GEO high"]
    tail = tails[("uniform 2-D", 2.0)]
    assert len(tail) == 40 and np.all(np.diff(tail) <= 0)


def test_schedule_comparison_composes_each_family_to_the_total():
    table = followup.schedule_comparison(_followup_setup(), [8.0, 64.0], 3.0, rng(42))
    assert len(table) == 2 * len(traversal.SCHEDULES)
    assert np.all(np.abs(table.composed - table.total) < 1e-2)
    assert np.all(
        np.abs(table.exact_leaf - table.all_turns_theory)
        <= 4.5 * table.all_turns_sd + 1e-12
    )


def test_inference_errors_never_worse_than_the_prior(followup_runs):
    setups, table, _ = followup_runs
    errors = followup.inference_errors(
        setups, ["uniform 2-D"], table, rng(43), cells=8, releases=20
    )
    assert len(errors) == 4 and errors.mechanism.nunique() == 2
    assert np.all(errors.error <= errors.prior_only + 4.5 * errors.se)
    assert errors.optimal_beats_guess.all()


def test_empirical_audits_pass_and_the_cgp_loss_has_mean_rho():
    audits = synthesis.empirical_audits(4000, 1e-3, rng(44))
    assert list(audits)[:3] == ["GEO", "DP-TT-CMP", "DP-TT-DIS"]
    assert len(audits) == 8
    table = synthesis.audit_table(audits)
    assert table["passes"].all() and list(table.index) == list(audits)
    loss = synthesis.cgp_privacy_loss(20000, 0.5, rng(45))
    assert abs(loss.mean() - 0.5) < 4.5 * loss.std() / np.sqrt(20000)


def test_synthesis_table_reads_each_audit():
    result = type("R", (), {"lower_bound": 0.8, "estimate": 0.95})()
    audits = {"GEO": (1.0, result)}
    assert synthesis.audit_verdict(audits, "GEO") == "0.80 <= 1 (estimate 0.95)"
    assert synthesis.audit_verdict(audits, "SM") == "not audited here"
    table = synthesis.synthesis_table(audits, "own")
    assert len(table) == len(synthesis.SYNTHESIS) and table.shape[1] == 8
    last = table.columns[-1]
    assert table[last].iloc[0] == "0.80 <= 1 (estimate 0.95)"
    assert table.set_index("method").loc["SM", last] == "not audited here"
    assert "own" in set(table[last])


def test_followup_texts_on_a_small_table():
    table = pd.DataFrame(
        {
            "dataset": ["a", "a"],
            "variant": ["basic", "basic"],
            "step": [1.0, 1.0],
            "method": ["DP-TT-CMP", "GEO"],
            "eps_star": [3.14159, 3.14159],
            "raw": [0.5, 0.25],
            "raw_se": [0.01, 0.02],
            "recall": [0.7, 0.6],
        }
    )
    indexed = table.set_index(["dataset", "variant", "step", "method"])
    assert followup.accuracy_text(indexed, "a", "basic", 1.0, "GEO") == "0.250 ± 0.020"
    assert followup.epsilon_text(indexed, "a", "basic", 1.0) == "3.14"
    assert followup.equal_privacy_lines(table, [1.0], ["DP-TT-CMP", "GEO"]) == [
        "                 a basic eps*=  3.14: DP-TT-CMP 0.500±0.010 [0.70], "
        "GEO 0.250±0.020 [0.60]"
    ]
    mse = pd.DataFrame(
        {
            "dataset": ["x", "x", "y"],
            "eps_star": [1.0, 20.0, 3.0],
            "SM": [0.1, 0.3, np.nan],
        }
    )
    assert followup.ratio_range(mse, "SM") == "0.10 to 0.30"
    assert followup.settings_where(mse, mse.SM.isna()) == "ε\\* = 3 (y)"
    assert followup.settings_where(mse, mse.eps_star > 99) == "no setting"


def test_schedule_and_inference_lines():
    schedules = pd.DataFrame(
        {
            "total": 8.0,
            "family": list(traversal.SCHEDULES),
            "exact_leaf": 0.5,
            "exact_leaf_se": 0.1,
            "all_turns_theory": 0.45,
            "distance": 0.01,
            "distance_se": 0.001,
        }
    )
    lines = followup.schedule_lines(schedules)
    assert len(lines) == 2 and lines[0].startswith("schedules at eps*=8: exact leaf ")
    assert "0.500±0.100 (theory 0.450)" in lines[0]
    assert "0.0100±0.0010" in lines[1]
    inference = pd.DataFrame(
        {
            "dataset": ["u", "u"],
            "eps_star": [2.0, 2.0],
            "mechanism": ["GEO", "DP-TT"],
            "prior_only": [0.4, 0.4],
            "error": [0.3, 0.2],
            "se": [0.01, 0.02],
            "guess": [0.35, 0.25],
        }
    )
    assert followup.inference_lines(inference) == [
        "                 u eps*=   2.00: prior only 0.4000, GEO 0.3000±0.0100 "
        "[0.3500], DP-TT 0.2000±0.0200 [0.2500]"
    ]


def test_gursoy_findings_helpers_on_small_tables():
    loaded = {
        "a": (np.zeros((10, 2)), np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])),
        "b": (np.zeros((4, 30)), np.array([0, 1, 1, 1])),
    }
    chance, majority = gursoy.label_rates(loaded)
    assert chance == {"a": pytest.approx(1 / 3), "b": 0.5}
    assert majority == {"a": 0.4, "b": 0.75}
    assert gursoy.privbayes_options({"a": 2}, "a") == {"degree": 2}
    assert gursoy.privbayes_options({"a": 2}, "b") is None
    sizes = gursoy.grid_sizes(loaded)
    assert set(sizes) == {"a", "b"} and sizes["b"] == 1  # 30 features: one cell
    rn = pd.DataFrame(
        {
            "dataset": ["a", "a", "a", "b"],
            "n_test": [10, 10, 25, 10],
            "method": ["proposed", "proposed", "proposed", "baseline"],
            "mcs": [2.0, 4.0, 5.0, 9.0],
        }
    )
    means = gursoy.proposed_means(rn, "mcs", 1)
    assert means.loc["a", 10] == 3.0 and means.loc["a", 25] == 5.0
    assert list(means.index) == ["a"]


def test_gursoy_rn_findings_at_the_largest_batch():
    rows = [
        {
            "dataset": "a",
            "epsilon": 1.0,
            "n_test": n,
            "method": m,
            "mean": v,
            "ci95": 0.01,
        }
        for n, v0 in ((10, 0.1), (25, 0.5))
        for m, v in zip(("non-private", "baseline", "proposed"), (v0, v0 / 2, v0 / 4))
    ]
    summary = pd.DataFrame(rows)
    assert gursoy.summary_cell(summary, n_test=25, method="baseline") == (0.25, 0.01)
    table = gursoy.rn_findings(summary, ["a"], [1.0], {})
    assert table.to_dict("records") == [
        {
            "dataset": "a",
            "epsilon": 1.0,
            "|X|": 25,
            "non-private": "0.500 ± 0.010",
            "baseline": "0.250 ± 0.010",
            "proposed": "0.125 ± 0.010",
            "PrivBayes": "-",
        }
    ]
    assert "Fig. 15" in gursoy.READINGS


def test_paired_identity_ratios_pairs_gp_with_cgp_per_run():
    identity = pd.DataFrame(
        {
            "n": [100, 100, 100, 100],
            "trajectory": [0, 0, 1, 1],
            "repetition": [0, 0, 0, 0],
            "n_actual": [100, 100, 25, 25],
            "method": ["GP Basic", "CGP Basic"] * 2,
            "max error": [30.0, 3.0, 10.0, 5.0],
        }
    )
    paired = liang_yi_tables.paired_identity_ratios(identity)
    assert list(paired.ratio) == [10.0, 2.0]  # sorted by trajectory
    assert list(paired["ratio / sqrt(n_actual)"]) == [1.0, 0.4]


def test_pnn_median_intervals_one_row_per_k_and_method():
    knn = pd.DataFrame(
        {
            "k": [1] * 6,
            "method": ["GP PNN"] * 3 + ["CGP PNN"] * 3,
            "error": [1.0, 2.0, 9.0, 4.0, 4.0, 4.0],
        }
    )
    table = liang_yi_tables.pnn_median_intervals(knn, [1], rng(50), n_boot=200)
    assert list(table.method) == ["GP PNN", "CGP PNN"]
    assert list(table["median"]) == [2.0, 4.0]
    assert table.low.iloc[1] == table.high.iloc[1] == 4.0
    assert table.low.iloc[0] >= 1.0 and table.high.iloc[0] <= 9.0


def test_authors_settings_rows_on_two_short_walks():
    from dpnn import cgp

    walks = [w[:300] for w in cgp.taxi_trajectories(2, rng(51))]
    gamma = liang_yi_tables.gamma_settings(walks, 5e-4, [1], 200, 1, rng(52), n_boot=50)
    assert [r["setting"] for r in gamma] == ["text: gamma0 = 0"] * 2 + [
        "scripts: gamma0 = -6/epsilon"
    ] * 2
    assert {r["method"] for r in gamma} == {"GP PNN", "CGP PNN"}
    hull = liang_yi_tables.hull_settings(walks, 5e-4, 200, 1, rng(53), n_boot=50)
    assert len(hull) == 2 * len(liang_yi_tables.PCH_VARIANTS)
    assert all(0 <= r["median"] <= 1 for r in hull)


def test_liang_yi_error_panels_draw_one_axis_per_sweep():
    table = pd.DataFrame(
        {
            "rho": [1e-4, 1e-3] * 2,
            "n": [10, 20] * 2,
            "k": [1, 4] * 2,
            "method": ["GP Basic"] * 2 + ["CGP Basic"] * 2,
            "max error": [4.0, 2.0, 3.0, 1.0],
            "l2 error": [2.0, 1.0, 1.5, 0.5],
            "error": [1.5, 1.2, 1.4, 1.1],
        }
    )
    fig = plots.identity_error_panels(table, table, n_points=20, rho=1e-3)
    assert len(fig.axes) == 4 and fig.axes[1].get_ylabel() == "l2 error (m)"
    plt.close(fig)
    fig = plots.knn_error_panels(table, table, table, rho=1e-3, k=4, n_points=20)
    assert [ax.get_xlabel()[0] for ax in fig.axes] == ["ρ", "k", "n"]
    plt.close(fig)


def test_rho_text_and_rises_from():
    assert liang_yi_tables.rho_text(5e-4) == "5·10⁻⁴"
    assert liang_yi_tables.rho_text(5e-10) == "5·10⁻¹⁰"
    rising = pd.Series([0.5, 0.4, 0.41, 0.6], index=[1e-6, 1e-5, 1e-4, 1e-3])
    assert liang_yi_tables.rises_from(rising) == 1e-5
    assert liang_yi_tables.rises_from(pd.Series([0.3, 0.4, 0.4005])) is None


def test_hull_jaccard_panels_on_a_unit_scale():
    table = pd.DataFrame(
        {
            "rho": [1e-4, 1e-3],
            "n": [10, 20],
            "method": ["GP PCH"] * 2,
            "jaccard": [0.2, 0.7],
        }
    )
    fig = plots.hull_jaccard_panels(table, table, n_points=20, rho=1e-3)
    assert [ax.get_ylim() for ax in fig.axes] == [(-0.02, 1.02)] * 2
    assert fig.axes[0].get_yscale() == "linear"
    plt.close(fig)


def test_followup_figures_one_panel_per_setting(followup_runs):
    setups, table, moved = followup_runs
    fig = plots.equal_privacy_panels(
        table, ["basic"], list(setups), ["DP-TT-CMP", "GEO", "SM", "L-SRR"]
    )
    assert len(fig.axes) == 1 and fig.axes[0].get_title().startswith("uniform 2-D")
    assert len(fig.axes[0].get_legend().get_texts()) == 4
    plt.close(fig)
    mse = pd.DataFrame(
        {
            "dataset": ["u", "u"],
            "eps_star": [1.0, 4.0],
            **{m: [0.5, 2.0] for m in ("GEO", "SM", "L-SRR")},
            **{f"{m} low": [0.4, 1.5] for m in ("GEO", "SM", "L-SRR")},
            **{f"{m} high": [0.6, np.inf] for m in ("GEO", "SM", "L-SRR")},
        }
    )
    fig = plots.equal_mse_panels(mse, ["u"])
    ax = fig.axes[0]
    assert ax.get_title() == "u" and len(ax.collections) == 3  # one band per mechanism
    plt.close(fig)


def test_schedule_panels_and_audit_bars():
    schedules = pd.DataFrame(
        {
            "family": [f for f in traversal.SCHEDULES for _ in range(2)],
            "raw": 0.5,
            "raw_se": 0.1,
            "distance": 0.01,
            "distance_se": 0.001,
        }
    )
    fig = plots.schedule_panels(schedules, [8.0, 16.0], traversal.SCHEDULES)
    assert fig.axes[1].get_yscale() == "log"
    assert len(fig.axes[1].get_legend().get_texts()) == len(traversal.SCHEDULES)
    plt.close(fig)
    result = type("R", (), {"lower_bound": 0.5, "estimate": 1.5})()
    fig = plots.audit_bars({"GEO": (2.0, result)})
    widths = [bar.get_width() for bar in fig.axes[0].patches]
    assert widths == [0.75, 0.25]  # estimate and lower bound over the claim
    plt.close(fig)


def test_variant_names_in_the_thesis_order():
    assert thesis.variant_names([2], [4], [5], [20]) == [
        "basic", "P2", "E4", "GS", "N5", "GS-N20"
    ]  # fmt: skip


def test_cmp_grid_counts_and_communication_points():
    points = thesis_comparison.cmp_grid(
        [100, 1000], ["basic", "E2"], ["GS"], ["benelux"], [1, 7], 50, [10, 20]
    )
    # 2 d x 2 variants x 2 ε, then 2 d x 2 ε at N = 1000, 2 ε on benelux, 2 N x 2
    assert len(points) == 8 + 4 + 2 + 4
    assert [p["n"] for p in points[:8]] == [100] * 8
    assert points[8]["n"] == 1000 and points[8]["variant"] == "basic"
    assert points[12]["dataset"] == "benelux" and points[12]["variant"] == "GS"
    last = points[14:]
    assert [p["n_queries"] for p in last] == [100] * 4
    assert {p["epsilon"] for p in last} == {7} and {p["d"] for p in last} == {2}
    assert all(p["utility"] == "cmp" for p in points)


def test_communication_shares_of_the_whole_tree():
    table = pd.DataFrame(
        {
            "dataset": ["uniform", "uniform", "uniform"],
            "n_queries": [100, 100, 700],
            "d": [2, 1, 2],
            "N": [4, 4, 4],
            "sent_fraction": [0.5, 0.5, 0.5],
        }
    )
    rows = thesis_comparison.communication_shares(table)
    # half of N = 4 values is 2 of the tree's 7
    assert len(rows) == 1 and rows["sent_share"].iloc[0] == pytest.approx(2 / 7)


def test_delta_moves_smaller_delta_costs_more(line):
    _, tree = line
    synthetic = pd.DataFrame(
        {
            "variant": ["basic", "E2", "GS"],
            "epsilon": [1.0, 1.0, 1.0],
            "tree_height": [tree.tree_height] * 3,
        }
    )
    moved = thesis_comparison.delta_moves(synthetic, ["basic", "E2"], 64)
    assert list(moved["variant"]) == ["basic", "E2"]
    height = tree.tree_height
    text = traversal.dptt_ledger(np.full(height, 1.0), "cmp").epsilon(1 / 64, "thesis")
    assert moved["ε* (δ = 1/N)"].iloc[0] == text
    assert np.all(moved["ratio"] >= 1)


def test_at_composed_budgets_runs_each_variant_at_the_named_budgets():
    table = thesis_comparison.at_composed_budgets(
        ["E2", "GS"],
        [5.0, 20.0],
        n=64,
        height=6,
        n_queries=10,
        delta_exponent=1.0,
        seed=3,
        n_jobs=1,
        progress=False,
    )
    assert sorted(table["variant"].unique()) == ["E2", "GS"]
    assert sorted(table["d"].unique()) == [1, 2] and len(table) == 8
    assert (table["tree_height"] == 6).all()
    # the thesis's accounting of each run composes back to the budget asked for
    for variant, part in table.groupby("variant"):
        spec = traversal.parse_variant(variant)
        for _, row in part.iterrows():
            composed = traversal.dptt_ledger(
                np.full(6, row["epsilon"]), "cmp", spec["variant"], spec["splits"]
            ).epsilon(1 / 64, "thesis")
            assert composed == pytest.approx(row["epsilon_thesis"], rel=1e-12)
    assert sorted(table["epsilon_thesis"].round(9).unique()) == [5.0, 20.0]


def test_archived_early_stopping_arithmetic():
    synthetic = pd.DataFrame(
        {
            "d": [1, 1, 1, 2],
            "variant": ["E8"] * 4,
            "epsilon_thesis": [40.0, 60.0, 95.0, 40.0],
            "top5": [0.5, 0.7, 0.9, 0.1],
            "top5_se": [0.01, 0.02, 0.03, 0.04],
        }
    )
    archived, near_50, past_90 = thesis_comparison.archived_early_stopping(
        synthetic, 100_000, 8
    )
    values = archived["value"].to_numpy()
    assert values[0] == 9  # ceil(log2 1e5) = 17 turns, less 8
    keep = np.exp(values[1] / 2) / (1 + np.exp(values[1] / 2))
    assert keep**9 == pytest.approx(0.95)
    assert values[2] == accounting.br_composition([values[1]] * 9, 1e-5)
    assert near_50["top5"] == 0.5 and past_90["top5"] == 0.9
    assert list(values[4:]) == [0.5, 0.01, 0.9, 0.03]


def test_panel_figures_select_the_dimension():
    table = pd.DataFrame(
        {
            "d": [1, 1, 2, 2],
            "variant": ["basic"] * 4,
            "x": [1.0, 10.0, 1.0, 10.0],
            "raw": [0.1, 0.2, 0.3, 0.4],
            "raw_se": [0.01] * 4,
            "top5": [0.5, 0.6, 0.7, 0.8],
            "top5_se": [0.01] * 4,
        }
    )
    specs = [
        {"d": 2, "variants": ["basic"], "file": "two", "suptitle": "2-D"},
        {"variants": ["basic"], "file": "both"},
    ]
    drawn = list(plots.panel_figures(table, specs, x="x", xlabel="x", geo=False))
    assert [name for name, _ in drawn] == ["two", "both"]
    line = drawn[0][1].axes[0].lines[0]
    assert list(line.get_ydata()) == [0.3, 0.4]
    assert len(drawn[1][1].axes[0].lines[0].get_ydata()) == 4
    plt.close("all")


def test_cmp_specs_files_and_geo_tables():
    geo, block = {1: "g1", 2: "g2"}, {1: "b1", 2: "b2"}
    specs = plots.cmp_variant_specs([4], [2, 8], [5], [20], geo, block)
    assert [s["file"] for s in specs[:4]] == [
        "thesis_fig6_19_cmp_parallel_1d",
        "thesis_fig6_21_cmp_early_1d",
        "thesis_fig6_24_cmp_neighbourhood_1d",
        "thesis_fig6_26_cmp_gs_n_1d",
    ]
    assert specs[1]["geo_table"] == "b1" and specs[5]["geo_table"] == "b2"
    assert specs[1]["geo_name"] == "GEO, 256 neighbours (top axis)"
    assert specs[7]["variants"] == ["GS", "GS-N20"] and specs[7]["d"] == 2
    real = plots.cmp_real_specs("benelux", 1234, ["basic"], ["E8"], [3e5, 3e2], "g")
    assert [s["file"] for s in real] == [
        "thesis_fig6_30_cmp_real_benelux",
        "thesis_fig6_31_cmp_real_best_benelux",
    ]
    assert real[0]["suptitle"] == "DP-TT-CMP variants on benelux (N = 1,234)"
    assert real[1]["geo_name"] == "GEO, Δ from 300000 to 300 m (top axis)"


def test_communication_and_delta_panels_draw_every_curve():
    communication = pd.DataFrame(
        {"variant": ["basic", "basic"], "N": [10, 100], "sent_share": [0.5, 0.1]}
    )
    fig = plots.communication_panel(communication, ["basic"], [10, 100], 17)
    ax = fig.axes[0]
    assert list(ax.lines[0].get_ydata()) == [50.0, 10.0]
    assert ax.get_title().endswith("per-step ε = 17")
    moved = pd.DataFrame(
        {
            "d": [1, 2],
            "variant": ["basic", "basic"],
            "epsilon": [1.0, 1.0],
            "ε* (δ = 1/N)": [2.0, 2.0],
            "ε* (δ = N^-1.1)": [2.1, 2.1],
            "top5": [0.4, 0.3],
        }
    )
    fig = plots.delta_moves_panels(moved, ["basic"], 1000)
    assert [len(ax.lines) for ax in fig.axes] == [2, 2]
    assert fig.axes[1].get_title() == "(b) 2-D, N = 1,000"
    plt.close("all")


def test_dis_grid_counts_in_order():
    points = thesis_distance.dis_grid(
        [100, 1000], ["basic", "GS"], ["E8"], ["benelux"], 1.0, [1e9, 1e3], [3e2], 50
    )
    # 2 d x 2 variants x 2 Δ, then 2 d x 2 Δ at N = 1000, 1 Δ on benelux
    assert len(points) == 8 + 4 + 1
    assert [p["sensitivity"] for p in points[:4]] == [1e9, 1e3] * 2
    assert [p["variant"] for p in points[:4]] == ["basic", "basic", "GS", "GS"]
    assert points[8]["n"] == 1000 and points[-1]["dataset"] == "benelux"
    assert all(p["utility"] == "dis" and p["n_queries"] == 50 for p in points)


def test_with_distance_axes_and_preview():
    table = pd.DataFrame(
        {
            "sensitivity": [1e3, 1e5],
            "epsilon_thesis": [10.0, 10.0],
            "epsilon_pld": [8.0, 8.0],
        }
    )
    wide = thesis_distance.with_distance_axes(table)
    assert list(wide["ε*/Δ"]) == [1e-2, 1e-4] and list(wide["ε_PLD/Δ"]) == [8e-3, 8e-5]
    assert list(wide["Δ"]) == [1e3, 1e5] and "Δ" not in table
    columns = ["dataset", "N", "d", "variant", "raw", "top5", "geo_raw", "geo_top5"]
    full = wide.assign(**{c: 0.12345 for c in columns + ["released"]})
    preview = thesis_distance.sweep_preview(full, rows=1)
    assert len(preview) == 1 and preview["raw"].iloc[0] == 0.123


def test_composed_budgets_basic_and_greedy():
    budgets = thesis_distance.composed_budgets(["basic", "GS"], 4, 1.0, 100)
    basic = traversal.dptt_ledger(np.full(4, 1.0), "dis")
    assert budgets.loc["basic", "ε* (δ = 1/N)"] == basic.epsilon(0.01, "thesis")
    assert budgets.loc["basic", "PLD (δ = 1/N)"] == basic.epsilon(0.01, "pld")
    # GS composes h(h+1)/2 = 10 steps against basic's 4
    assert budgets.loc["GS", "ε* (δ = 1/N)"] > budgets.loc["basic", "ε* (δ = 1/N)"]
    assert np.all(budgets["code / text"] >= 1)


def test_level_reached_interpolates_in_log_x():
    curve = pd.DataFrame({"x": [1e-4, 1e-2, 1e-3], "top5": [0.2, 0.8, 0.4]})
    # 0.5 is a quarter of the way from 0.4 at 1e-3 to 0.8 at 1e-2, in log10(x)
    level = thesis_distance.level_reached(curve, "x", "top5", 0.5)
    assert level == pytest.approx(10**-2.75)
    assert thesis_distance.level_reached(curve, "x", "top5", 0.1) == pytest.approx(1e-4)
    assert np.isnan(thesis_distance.level_reached(curve, "x", "top5", 0.9))


def test_dis_figure_specs_numbers_and_comparison_without_geo():
    specs = plots.dis_figure_specs({"P": ["basic", "P2"], "variants": ["basic"]}, 10)
    assert [s["file"] for s in specs] == [
        "thesis_fig6_5_dis_parallel_1d",
        "thesis_fig6_14_dis_comparison_1d",
        "thesis_fig6_6_dis_parallel_2d",
        "thesis_fig6_15_dis_comparison_2d",
    ]
    assert specs[3]["suptitle"] == "DP-TT-DIS variants, 2-D, N = 10"
    assert specs[3]["geo"] is False and "geo" not in specs[0]


def test_pld_comparison_panels_legend_gives_the_budget():
    synthetic = pd.DataFrame(
        {
            "d": [1, 2],
            "variant": ["basic", "basic"],
            "ε_PLD/Δ": [1e-4, 1e-4],
            "top5": [0.5, 0.4],
            "top5_se": [0.01, 0.01],
        }
    )
    used = pd.DataFrame({"epsilon_pld": [12.34]}, index=["basic"])
    fig = plots.pld_comparison_panels(synthetic, ["basic"], used, 100)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["basic (PLD ε* = 12.3)"]
    plt.close(fig)


def test_departures_lists_only_the_claims_that_part():
    ledger = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "verdict": [claims.AGREES, claims.PARTLY, claims.DIFFERS],
            "why": ["", "holds at x 1; opposite at x 2", ""],
        }
    )
    text = claims.departures(ledger)
    assert text.endswith(
        "- **b** (partly): holds at x 1; opposite at x 2\n"
        "- **c** (differs): no reason recorded"
    )
    assert "not established" in text and "- **a**" not in text


# --- DIS against GEO on two footings (notebook 07's last section) --------------------


def test_true_footing_budgets_meet_eps_on_each_footing():
    from companion.studies import true_footing
    from dpnn.traversal import dptt_ledger

    tree = trees.build_tree(np.random.default_rng(12).uniform(0, 1, (128, 2)))
    delta, radius = 1 / 128, 0.05
    schedule, rate = true_footing.budgets_on("accounted", tree, 4.0, radius, delta)
    ledger = dptt_ledger(schedule, "dis", "basic", 0)
    assert ledger.epsilon(delta, "thesis") == pytest.approx(4.0, rel=1e-6)
    assert rate == pytest.approx(4.0 / radius)
    schedule, rate = true_footing.budgets_on("actual", tree, 4.0, radius, delta)
    certified = adversary.certified_epsilon(
        tree, schedule, "dis", delta, radius, radius=radius
    )
    pld = dptt_ledger(schedule, "dis", "basic", 0).epsilon(delta, "pld")
    assert min(certified, pld) <= 4.0 + 1e-6  # one valid bound certifies eps
    assert adversary.geo_epsilon(rate, radius, delta) == pytest.approx(4.0, rel=1e-6)
    with pytest.raises(ValueError, match="footing"):
        true_footing.budgets_on("nominal", tree, 4.0, radius, delta)


def test_dis_against_geo_rows_and_reproducible():
    from companion.studies import true_footing

    run = [
        true_footing.dis_against_geo(256, [1e9, 1e6], [4.0], 30, seed=5) for _ in "ab"
    ]
    pd.testing.assert_frame_equal(run[0], run[1])
    table = run[0]
    assert len(table) == 2 * 2 and set(table.footing) == {"accounted", "actual"}
    accuracies = table[["dis_raw", "dis_top5", "geo_raw", "geo_top5"]].to_numpy()
    assert np.all((accuracies >= 0) & (accuracies <= 1))
    assert np.all(table.dis_top5 >= table.dis_raw)  # the nearest is among the five
    # at Δ = 1e9 (the domain's size) the certified bound gives DIS more per step
    wide = table[table.radius == 1e9].set_index("footing")
    assert wide.loc["actual", "per_step"] > wide.loc["accounted", "per_step"]
