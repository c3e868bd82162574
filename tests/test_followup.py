"""The follow-up's mechanisms (square mechanism, L-SRR), metrics and schedules (issue 21).

Laws are checked exactly: output probabilities on a small domain computed independently of the
sampler, against samples by a chi-square test (false-failure rate 1e-4 each). Privacy is audited
with dpnn.audit (false-alarm rate 1e-3) beside a negative control the audit must catch.
"""

import numpy as np
import pytest
from scipy.stats import chisquare

from dpnn.audit import binned_loss
from dpnn.baselines import lsrr, lsrr_mse, lsrr_probabilities, square_mechanism, square_mechanism_mse, square_side

ALPHA = 1e-4
FALSE_ALARM = 1e-3


def _overlap(lo, hi, a, b):
    return np.clip(np.minimum(hi, b) - np.maximum(lo, a), 0, None)


def _sm_bin_probabilities(x, epsilon, side, edges, domain):
    """Independent exact law of SM on a grid of bins: p |bin ∩ S| + q |bin \\ S| (S shifted inside)."""
    d = len(domain)
    area = np.prod([hi - lo for lo, hi in domain])
    q = 1 / (np.exp(epsilon) * side**d + area - side**d)
    p = np.exp(epsilon) * q
    centre = [min(max(x[j], domain[j][0] + side / 2), domain[j][1] - side / 2) for j in range(d)]
    per_axis_in, per_axis_len = [], []
    for j in range(d):
        lo, hi = edges[j][:-1], edges[j][1:]
        per_axis_in.append(_overlap(lo, hi, centre[j] - side / 2, centre[j] + side / 2))
        per_axis_len.append(hi - lo)
    inside = per_axis_in[0] if d == 1 else np.outer(per_axis_in[0], per_axis_in[1])
    volume = per_axis_len[0] if d == 1 else np.outer(per_axis_len[0], per_axis_len[1])
    return p * inside + q * (volume - inside)


@pytest.mark.parametrize("x", [0.3, 0.02, 1.0])
def test_square_mechanism_1d_law_is_exact(x):
    domain, epsilon, side, n = [[0.0, 1.0]], 1.5, 0.3, 200_000
    edges = np.linspace(0, 1, 41)
    y = square_mechanism(np.full(n, x), epsilon, domain, np.random.default_rng(1), side=side)
    assert y.shape == (n,) and y.min() >= 0 and y.max() <= 1
    expected = _sm_bin_probabilities([x], epsilon, side, [edges], domain)
    assert abs(expected.sum() - 1) < 1e-12
    assert chisquare(np.histogram(y, edges)[0], n * expected).pvalue > ALPHA


def test_square_mechanism_2d_law_is_exact():
    domain, epsilon, side, n = [[0.0, 2.0], [0.0, 1.0]], 2.0, 0.5, 300_000
    x = np.array([1.9, 0.4])
    edges = [np.linspace(0, 2, 11), np.linspace(0, 1, 6)]
    y = square_mechanism(np.tile(x, (n, 1)), epsilon, domain, np.random.default_rng(2), side=side)
    counts = np.histogram2d(y[:, 0], y[:, 1], edges)[0]
    expected = _sm_bin_probabilities(x, epsilon, side, edges, domain)
    assert abs(expected.sum() - 1) < 1e-12
    assert chisquare(counts.ravel(), n * expected.ravel()).pvalue > ALPHA


def test_square_mechanism_mse_matches_samples_and_side_minimises_it():
    domain, epsilon, n = [[0.0, 1.0], [0.0, 1.0]], 3.0, 200_000
    x = np.array([[0.2, 0.7]])
    y = square_mechanism(np.repeat(x, n, axis=0), epsilon, domain, np.random.default_rng(3), side=0.4)
    d2 = np.sum((y - x) ** 2, axis=1)
    exact = square_mechanism_mse(x, epsilon, domain, 0.4)[0]
    assert abs(d2.mean() - exact) < 5 * d2.std() / np.sqrt(n)
    side = square_side(epsilon, domain)
    grid = np.random.default_rng(4).uniform(0, 1, (4000, 2))
    best = square_mechanism_mse(grid, epsilon, domain, side).mean()
    for other in (0.7 * side, min(1.3 * side, 0.999)):
        assert best < square_mechanism_mse(grid, epsilon, domain, other).mean()


def test_lsrr_probabilities_by_hand_1d():
    # levels 3 on [0, 1]: 4 cells; x in cell 0: groups 0, 1, 2, 2 with a staircase c a, (c+1)/2 a, a.
    epsilon = 1.0
    c = np.exp(epsilon)
    a_min = 1 / (c + (c + 1) / 2 + 2)
    expected = a_min * np.array([c, (c + 1) / 2, 1, 1])
    np.testing.assert_allclose(lsrr_probabilities([0.1], epsilon, [[0, 1]], levels=3), expected, rtol=1e-12)
    np.testing.assert_allclose(lsrr_probabilities([0.9], epsilon, [[0, 1]], levels=3), expected[::-1], rtol=1e-12)


@pytest.mark.parametrize("d, levels", [(1, 4), (2, 3)])
def test_lsrr_law_is_exact_and_ratio_is_e_epsilon(d, levels):
    domain, epsilon, n = [[0.0, 1.0]] * d, 1.2, 200_000
    x = np.full(d, 0.37)
    y = lsrr(np.tile(x, (n, 1)), epsilon, domain, np.random.default_rng(5), levels=levels)
    assert y.shape == (n, d) and y.min() >= 0 and y.max() <= 1
    per_side = 2 ** (levels - 1)
    cells = np.minimum((y * per_side).astype(int), per_side - 1)
    flat = np.ravel_multi_index(cells.T, (per_side,) * d)
    counts = np.bincount(flat, minlength=per_side**d)
    expected = lsrr_probabilities(x, epsilon, domain, levels).ravel()
    assert abs(expected.sum() - 1) < 1e-12
    assert chisquare(counts, n * expected).pvalue > ALPHA
    # the worst ratio over all pairs of inputs (one per cell) and outputs is exactly e^epsilon
    inputs = (np.stack(np.meshgrid(*[np.arange(per_side)] * d, indexing="ij"), -1).reshape(-1, d) + 0.5) / per_side
    table = np.array([lsrr_probabilities(u, epsilon, domain, levels).ravel() for u in inputs])
    assert np.isclose(np.log(table.max(axis=0) / table.min(axis=0)).max(), epsilon)
    # the exact MSE against the samples
    d2 = np.sum((y - x) ** 2, axis=1)
    assert abs(d2.mean() - lsrr_mse(x[None], epsilon, domain, levels)[0]) < 5 * d2.std() / np.sqrt(n)


def test_square_mechanism_audit_and_negative_control():
    epsilon, n, domain, side = 1.0, 400_000, [[0.0, 1.0]], 0.25
    edges = np.linspace(0, 1, 21)
    rng = np.random.default_rng(6)

    def loss(eps):
        a = square_mechanism(np.zeros(n), eps, domain, rng, side=side)
        b = square_mechanism(np.ones(n), eps, domain, rng, side=side)
        return binned_loss(np.histogram(a, edges)[0], np.histogram(b, edges)[0], FALSE_ALARM)

    honest = loss(epsilon)
    assert honest.lower_bound <= epsilon and honest.estimate >= 0.9 * epsilon
    assert loss(2 * epsilon).lower_bound > epsilon  # twice the budget (half the noise) is caught


def test_lsrr_audit_and_negative_control():
    epsilon, n, domain, levels = 1.0, 400_000, [[0.0, 1.0], [0.0, 1.0]], 3
    rng = np.random.default_rng(7)
    edges = [np.linspace(0, 1, 5)] * 2

    def loss(eps):
        a = lsrr(np.full((n, 2), 0.1), eps, domain, rng, levels=levels)
        b = lsrr(np.full((n, 2), 0.9), eps, domain, rng, levels=levels)
        return binned_loss(np.histogram2d(*a.T, edges)[0], np.histogram2d(*b.T, edges)[0], FALSE_ALARM)

    honest = loss(epsilon)
    assert honest.lower_bound <= epsilon and honest.estimate >= 0.9 * epsilon
    assert loss(2 * epsilon).lower_bound > epsilon


@pytest.mark.parametrize("function", [square_mechanism, lsrr])
@pytest.mark.parametrize("change, name", [({"epsilon": 0.0}, "epsilon"), ({"domain": [[1.0, 0.0]]}, "domain"),
                                          ({"points": [[2.0]]}, "points"), ({"points": [[0.5, 0.5]]}, "points"),
                                          ({"rng": "seed"}, "rng"), ({"points": [[np.nan]]}, "points")])
def test_followup_mechanisms_reject_bad_input(function, change, name):
    arguments = {"points": [[0.5]], "epsilon": 1.0, "domain": [[0.0, 1.0]], "rng": 0, **change}
    with pytest.raises(ValueError, match=name):
        function(**arguments)


def test_bad_side_and_levels_are_rejected():
    with pytest.raises(ValueError, match="side"):
        square_mechanism([[0.5]], 1.0, [[0.0, 1.0]], 0, side=1.0)
    with pytest.raises(ValueError, match="levels"):
        lsrr([[0.5]], 1.0, [[0.0, 1.0]], 0, levels=1)
