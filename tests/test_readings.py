"""The summary paragraphs written from a run's tables (companion.readings): each
number is read from the table it names, and a budget is placed by the grid error."""

import pandas as pd

from companion.readings import best_mechanisms, cormode, followup


def inference_table():
    """DP-TT against GEO at three budgets: ahead by more than the grid error at 1,
    within it at 2, behind at 4; both at the prior-only ceiling at 8."""
    rows = []
    for eps, geo, dptt in ((1, 0.20, 0.25), (2, 0.15, 0.155), (4, 0.10, 0.05)):
        for m, e in (("GEO", geo), ("DP-TT-CMP basic", dptt)):
            rows.append((m, eps, e))
    rows += [("GEO", 8, 0.268), ("DP-TT-CMP basic", 8, 0.269)]
    return pd.DataFrame(
        [
            {
                "dataset": "uniform 2-D",
                "eps_star": eps,
                "mechanism": m,
                "error": e,
                "se": 0.001,
                "grid_error": 0.01,
                "prior_only": 0.27,
                "guess": 0.3 if eps == 1 else 0.1,
            }
            for m, eps, e in rows
        ]
    )


def test_the_inference_item_places_each_budget_by_the_grid_error():
    text = followup.inference_item(inference_table())
    assert "larger (the server learns less from the transcript) at ε\\* = 1 " in text
    assert "within the grid error of GEO's at ε\\* = 2 " in text
    assert "smaller (the server learns more) at ε\\* = 4 " in text
    assert "prior-only one at ε\\* = 8;" in text
    # the guessing rules miss by more than the prior-only error in the two rows at 1
    assert "in 2 of 8 rows" in text and "none in this run" in text


def test_the_best_mechanisms_summary_reads_its_numbers_from_the_table():
    rows = [
        {
            "setting": setting,
            "eps_star": eps,
            "mechanism": m,
            "quality_loss": 1.5 if (m, eps) == ("GEO", 2.0) else 0.2,
            "accuracy": 0.4 if m == "DP-TT-CMP E3" else 0.01,
            "adversary_error": 0.12,
            "prior_only": 0.27,
        }
        for setting in ("flat", "places")
        for eps in (2.0, 8.0, 32.0)
        for m in best_mechanisms.FIGURE_ORDER
    ]
    text = best_mechanisms.summary(
        pd.DataFrame(rows),
        eps_stars=[2.0, 8.0, 32.0],
        lp_loss=0.25,
        lp_remapped=0.25,
        n_points=1000,
    )
    assert "GEO's release lies beyond the domain's diameter (1.500 D" in text
    assert "E3 finds 0.40 (uniform) and 0.40 (places)" in text
    assert "stay at 0.01 or below" in text
    for word in ("agrees", "partly", "differs", "inconclusive"):
        assert word not in text  # the verdicts are the ledger's


def test_the_medians_findings_name_where_the_cell_median_is_below_em():
    ranks = pd.DataFrame(
        {"EM": [0.01, 0.02, 0.05], "SS": [0.3, 0.3, 0.3], "NM": [0.2, 0.2, 0.2]}
        | {"cell": [0.05, 0.03, 0.04]},
        index=[0, 1, 2],
    )
    skewed = {h: {"EM": 0.1, "NM": 0.2, "cell": 0.05} for h in ("upper", "lower")}
    text = cormode.medians_findings(
        ranks,
        skewed,
        closed_gap=1e-12,
        budget_ratio=3.0,
        quad_height=10,
        epsilon=0.01,
        points_per_cell=5.0,
    )
    assert (
        "At depths 2, however, the cell-based median has the lower error "
        "(0.040 vs 0.050)" in text
    )
    assert "down to depth 1 no method beats it" in text
