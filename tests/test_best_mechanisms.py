"""Notebook 15's claims flip with the data, and its study checks its grids."""

import numpy as np
import pandas as pd
import pytest

from companion import claims
from companion.claims import best_mechanisms as best_claims
from companion.studies import best_mechanisms


def table(dptt_accuracy, other_accuracy):
    """Two settings, three budgets; DP-TT variants at one accuracy, the rest at
    another; every standard error 0.01; quality losses with remapping 0.05 lower."""
    rows = []
    for setting in ("uniform", "places"):
        for eps in (2.0, 8.0, 32.0):
            for name in ("GEO", "OPT", "SM", "L-SRR", *best_claims.DPTT):
                for remapped in (False, True):
                    if remapped and name == "DP-TT-CMP E3":
                        continue
                    dptt = name in best_claims.DPTT and not remapped
                    rows.append(
                        {
                            "setting": setting,
                            "eps_star": eps,
                            "mechanism": f"{name} remapped" if remapped else name,
                            "accuracy": dptt_accuracy if dptt else other_accuracy,
                            "accuracy_se": 0.01,
                            "quality_loss": 0.2 - 0.05 * remapped,
                            "quality_loss_se": 0.01,
                            "nn_distance": 0.2,
                            "nn_distance_se": 0.01,
                        }
                    )
    return pd.DataFrame(rows)


def verdicts(best):
    ledger = claims.judge(best_claims.NOTEBOOK, best=best)
    return dict(zip(ledger["claim"], ledger["verdict"]))


def test_the_survival_claims_agree_then_differ_when_reversed():
    up = verdicts(table(0.6, 0.3))
    down = verdicts(table(0.3, 0.6))
    for claim in best_claims.CLAIMS[:3]:
        assert up[claim.quote] == claims.AGREES
        assert down[claim.quote] == claims.DIFFERS
    # remapping 0.05 lower with standard errors 0.01: it holds everywhere
    assert up[best_claims.CLAIMS[4].quote] == claims.AGREES


def test_effects_are_differences_with_root_sum_of_squares_errors():
    found = best_claims.effects(
        {"best": table(0.6, 0.3)}, "DP-TT-CMP E3", "GEO", "accuracy"
    )
    assert len(found) == 6
    np.testing.assert_allclose(found["effect"], 0.3)
    np.testing.assert_allclose(found["se"], np.hypot(0.01, 0.01))


def test_setting_needs_nested_grids():
    points = np.random.default_rng(0).uniform(0, 1, (50, 2))
    with pytest.raises(ValueError, match="cells"):
        best_mechanisms.setting(points, [[0, 1], [0, 1]], 10, 4, "uniform")
