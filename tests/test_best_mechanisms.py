"""Notebook 15's claims flip with the data, and its study checks its grids."""

import numpy as np
import pandas as pd
import pytest

from companion import claims
from companion.claims import best_mechanisms as best_claims
from companion.studies import best_mechanisms
from dpnn import optimal_geo
from dpnn.optimal_geo import warm


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


def test_the_actual_footing_claims_read_their_own_table():
    # the accounted table says DP-TT finds more, the actual one says less: the
    # claims of §3 follow the actual table, those of §2 the accounted one
    ledger = claims.judge(
        best_claims.NOTEBOOK, best=table(0.6, 0.3), best_actual=table(0.3, 0.6)
    )
    found = dict(zip(ledger["claim"], ledger["verdict"]))
    for claim in best_claims.CLAIMS[:3]:
        assert found[claim.quote] == claims.AGREES
    for claim in best_claims.CLAIMS[5:]:
        assert claim.figure == "15 §3" and found[claim.quote] == claims.DIFFERS


def test_worst_pair_epsilon_is_the_exact_epsilon_of_the_worst_rows():
    # randomized response on two inputs: both rows differ by e^eps exactly; a third
    # row equal to the first adds nothing; at delta > 0 the exact value is smaller.
    # By hand: rows (p, 1 - p) and (1 - p, p); at delta, eps = log((p - delta) /
    # (1 - p)) (the excess of the larger output is all that delta can absorb).
    eps = 1.5
    p = np.exp(eps) / (1 + np.exp(eps))
    matrix = np.array([[p, 1 - p], [1 - p, p], [p, 1 - p]])
    assert best_mechanisms.worst_pair_epsilon(matrix, 0.0) == pytest.approx(eps)
    assert best_mechanisms.worst_pair_epsilon(matrix, 0.1) == pytest.approx(
        np.log((p - 0.1) / (1 - p))
    )
    blocked = np.array([[1.0, 0.0], [0.5, 0.5]])
    assert best_mechanisms.worst_pair_epsilon(blocked, 0.0) == np.inf


def test_optimal_actual_loses_at_most_eps_star_and_more_than_the_accounted():
    points = np.random.default_rng(3).uniform(0, 1, (200, 2))
    s = best_mechanisms.setting(points, [[0, 1], [0, 1]], 8, 4, "uniform")
    _, _, accounted, one = best_mechanisms.optimal_at(s, 4.0, None)
    _, _, actual, solves = best_mechanisms.optimal_actual(s, 4.0, None)
    loss = best_mechanisms.worst_pair_epsilon(actual.matrix, s["delta"])
    assert one == 1 and 1 <= solves <= 8
    assert loss <= 4.0
    assert loss > best_mechanisms.worst_pair_epsilon(accounted.matrix, s["delta"])
    assert actual.loss <= accounted.loss  # a larger rate: no larger expected loss


def test_the_optimal_mechanisms_are_optima_of_optimal_mechanisms_program(monkeypatch):
    # the accounted solve is optimal_mechanism's matrix itself (kept in the setting
    # and shared by both footings); every solve of the calibration, warm-started or
    # not, has the least expected loss of optimal_mechanism's program at its rate
    solve, seen = warm.OptimalProgram.solve, []

    def spy(program, epsilon, start=None):
        seen.append(solve(program, epsilon, start))
        return seen[-1]

    monkeypatch.setattr(warm.OptimalProgram, "solve", spy)
    points = np.random.default_rng(5).uniform(0, 1, (300, 2))
    s = best_mechanisms.setting(points, [[0, 1], [0, 1]], 12, 6, "empirical")
    grid = s["lp_grid"]
    for eps_star in (2.0, 5.0):
        _, seconds, accounted, _ = best_mechanisms.optimal_at(s, eps_star, 1.1)
        old = optimal_geo.optimal_mechanism(
            grid.points, s["lp_prior"], eps_star / grid.diameter, dilation=1.1
        )
        np.testing.assert_array_equal(accounted.matrix, old.matrix)
        again = best_mechanisms.optimal_at(s, eps_star, 1.1)
        assert again[2] is accounted and again[1] == seconds  # not solved again
        before = len(seen)
        _, _, actual, solves = best_mechanisms.optimal_actual(s, eps_star, 1.1)
        assert solves == 1 + len(seen) - before  # the first is the accounted solve
        assert best_mechanisms.worst_pair_epsilon(actual.matrix, s["delta"]) <= eps_star
        assert any(found.mechanism is actual for found in seen)
    assert {found.path for found in seen} == {"ipm", "simplex"}
    for found in seen:
        at_its_rate = optimal_geo.optimal_mechanism(
            grid.points, s["lp_prior"], found.mechanism.epsilon, dilation=1.1
        )
        assert found.mechanism.loss == pytest.approx(
            at_its_rate.loss, abs=1e-6 * grid.diameter
        )
        assert found.mechanism.actual <= found.mechanism.epsilon * (1 + 1e-9)
