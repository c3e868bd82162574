"""The readings of notebook 13's first finding, judged on small tables whose
answer is known by hand."""

from __future__ import annotations

import pandas as pd

from companion import claims
from companion.claims import equal_privacy


def table(sm=0.9, cmp_uniform=0.5, geo_uniform=0.3, geo_real=0.6, lsrr=0.01, se=0.01):
    rows = []
    for dataset in ("uniform 2-D", "swiss 2-D"):
        real = dataset == "swiss 2-D"
        for step in (1.0, 4.0):
            values = {
                "SM": sm,
                "DP-TT-CMP": 0.4 if real else cmp_uniform,
                "GEO": geo_real if real else geo_uniform,
                "L-SRR": lsrr,
            }
            for method, raw in values.items():
                rows.append(
                    {
                        "dataset": dataset,
                        "variant": "basic",
                        "step": step,
                        "method": method,
                        "eps_star": 8 * step,
                        "raw": raw,
                        "raw_se": se,
                    }
                )
    return {"equal_privacy": pd.DataFrame(rows)}


def judge(index, tables):
    return equal_privacy.CLAIMS[index].judge(tables).word


def test_sm_wins_by_far_only_with_a_lead_of_more_than_a_tenth():
    # SM 0.9 against the best other 0.6 (real) and 0.5 (uniform): 0.3 ahead everywhere
    assert judge(0, table()) == claims.AGREES
    # 0.65 against 0.6 on the real rows: ahead, but shown by less than 0.1
    assert judge(0, table(sm=0.65)) == claims.PARTLY
    # 0.7 against 0.6: a lead of 0.1 exactly on the real rows, neither shown above
    # nor below it, while the uniform rows (0.2 ahead) hold: inconclusive
    assert judge(0, table(sm=0.7)) == claims.INCONCLUSIVE
    assert judge(0, table(sm=0.2)) == claims.DIFFERS


def test_dptt_ahead_on_synthetic_geo_ahead_on_places_lsrr_near_chance():
    assert judge(1, table()) == claims.AGREES
    assert judge(1, table(geo_uniform=0.7)) == claims.DIFFERS
    assert judge(2, table()) == claims.AGREES  # GEO 0.6 against DP-TT 0.4
    assert judge(2, table(geo_real=0.41, se=0.05)) == claims.INCONCLUSIVE
    assert judge(3, table()) == claims.AGREES  # 0.01 +- 0.01 below 0.05
    assert judge(3, table(lsrr=0.2)) == claims.DIFFERS
    assert judge(3, table(lsrr=0.04)) == claims.INCONCLUSIVE


def test_no_table_is_not_comparable():
    for claim in equal_privacy.CLAIMS:
        assert claim.judge({}).word == claims.NOT_COMPARABLE
