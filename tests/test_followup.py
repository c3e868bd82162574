"""The follow-up's mechanisms (square mechanism, L-SRR), metrics and schedules (issue
21).

Laws are checked exactly: output probabilities on a small domain computed independently
of the sampler, against samples by a chi-square test (false-failure rate 1e-4 each).
Privacy is audited with companion.audit (false-alarm rate 1e-3) beside a negative
control the
audit must catch.
"""

import numpy as np
import pytest
from scipy.stats import chisquare

from companion.audit import binned_loss
from dpnn.local_mechanisms import (
    square_mechanism,
    square_mechanism_mse,
    square_side,
)
from dpnn.lsrr import lsrr, lsrr_mse, lsrr_probabilities

ALPHA = 1e-4
FALSE_ALARM = 1e-3


def _overlap(lo, hi, a, b):
    return np.clip(np.minimum(hi, b) - np.maximum(lo, a), 0, None)


def _sm_bin_probabilities(x, epsilon, side, edges, domain):
    """Independent exact law of SM on a grid of bins: p |bin ∩ S| + q |bin \\ S| (S
    shifted inside)."""
    d = len(domain)
    area = np.prod([hi - lo for lo, hi in domain])
    q = 1 / (np.exp(epsilon) * side**d + area - side**d)
    p = np.exp(epsilon) * q
    centre = [
        min(max(x[j], domain[j][0] + side / 2), domain[j][1] - side / 2)
        for j in range(d)
    ]
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
    y = square_mechanism(
        np.full(n, x), epsilon, domain, np.random.default_rng(1), side=side
    )
    assert y.shape == (n,) and y.min() >= 0 and y.max() <= 1
    expected = _sm_bin_probabilities([x], epsilon, side, [edges], domain)
    assert abs(expected.sum() - 1) < 1e-12
    assert chisquare(np.histogram(y, edges)[0], n * expected).pvalue > ALPHA


def test_square_mechanism_2d_law_is_exact():
    domain, epsilon, side, n = [[0.0, 2.0], [0.0, 1.0]], 2.0, 0.5, 300_000
    x = np.array([1.9, 0.4])
    edges = [np.linspace(0, 2, 11), np.linspace(0, 1, 6)]
    y = square_mechanism(
        np.tile(x, (n, 1)), epsilon, domain, np.random.default_rng(2), side=side
    )
    counts = np.histogram2d(y[:, 0], y[:, 1], edges)[0]
    expected = _sm_bin_probabilities(x, epsilon, side, edges, domain)
    assert abs(expected.sum() - 1) < 1e-12
    assert chisquare(counts.ravel(), n * expected.ravel()).pvalue > ALPHA


def test_square_mechanism_mse_matches_samples_and_side_minimises_it():
    domain, epsilon, n = [[0.0, 1.0], [0.0, 1.0]], 3.0, 200_000
    x = np.array([[0.2, 0.7]])
    y = square_mechanism(
        np.repeat(x, n, axis=0), epsilon, domain, np.random.default_rng(3), side=0.4
    )
    d2 = np.sum((y - x) ** 2, axis=1)
    exact = square_mechanism_mse(x, epsilon, domain, 0.4)[0]
    assert abs(d2.mean() - exact) < 5 * d2.std() / np.sqrt(n)
    side = square_side(epsilon, domain)
    grid = np.random.default_rng(4).uniform(0, 1, (4000, 2))
    best = square_mechanism_mse(grid, epsilon, domain, side).mean()
    for other in (0.7 * side, min(1.3 * side, 0.999)):
        assert best < square_mechanism_mse(grid, epsilon, domain, other).mean()


def test_lsrr_probabilities_by_hand_1d():
    # levels 3 on [0, 1]: 4 cells; x in cell 0: groups 0, 1, 2, 2 with a staircase c a,
    # (c+1)/2 a, a.
    epsilon = 1.0
    c = np.exp(epsilon)
    a_min = 1 / (c + (c + 1) / 2 + 2)
    expected = a_min * np.array([c, (c + 1) / 2, 1, 1])
    np.testing.assert_allclose(
        lsrr_probabilities([0.1], epsilon, [[0, 1]], levels=3), expected, rtol=1e-12
    )
    np.testing.assert_allclose(
        lsrr_probabilities([0.9], epsilon, [[0, 1]], levels=3),
        expected[::-1],
        rtol=1e-12,
    )


@pytest.mark.parametrize("d, levels", [(1, 4), (2, 3)])
def test_lsrr_law_is_exact_and_ratio_is_e_epsilon(d, levels):
    domain, epsilon, n = [[0.0, 1.0]] * d, 1.2, 200_000
    x = np.full(d, 0.37)
    y = lsrr(
        np.tile(x, (n, 1)), epsilon, domain, np.random.default_rng(5), levels=levels
    )
    assert y.shape == (n, d) and y.min() >= 0 and y.max() <= 1
    per_side = 2 ** (levels - 1)
    cells = np.minimum((y * per_side).astype(int), per_side - 1)
    flat = np.ravel_multi_index(cells.T, (per_side,) * d)
    counts = np.bincount(flat, minlength=per_side**d)
    expected = lsrr_probabilities(x, epsilon, domain, levels).ravel()
    assert abs(expected.sum() - 1) < 1e-12
    assert chisquare(counts, n * expected).pvalue > ALPHA
    # the worst ratio over all pairs of inputs (one per cell) and outputs is exactly
    # e^epsilon
    inputs = (
        np.stack(np.meshgrid(*[np.arange(per_side)] * d, indexing="ij"), -1).reshape(
            -1, d
        )
        + 0.5
    ) / per_side
    table = np.array(
        [lsrr_probabilities(u, epsilon, domain, levels).ravel() for u in inputs]
    )
    assert np.isclose(np.log(table.max(axis=0) / table.min(axis=0)).max(), epsilon)
    # the exact MSE against the samples
    d2 = np.sum((y - x) ** 2, axis=1)
    assert abs(
        d2.mean() - lsrr_mse(x[None], epsilon, domain, levels)[0]
    ) < 5 * d2.std() / np.sqrt(n)


def test_square_mechanism_audit_and_negative_control():
    epsilon, n, domain, side = 1.0, 400_000, [[0.0, 1.0]], 0.25
    edges = np.linspace(0, 1, 21)
    rng = np.random.default_rng(6)

    def loss(eps):
        a = square_mechanism(np.zeros(n), eps, domain, rng, side=side)
        b = square_mechanism(np.ones(n), eps, domain, rng, side=side)
        return binned_loss(
            np.histogram(a, edges)[0], np.histogram(b, edges)[0], FALSE_ALARM
        )

    honest = loss(epsilon)
    assert honest.lower_bound <= epsilon and honest.estimate >= 0.9 * epsilon
    # twice the budget (half the noise) is caught
    assert loss(2 * epsilon).lower_bound > epsilon


def test_lsrr_audit_and_negative_control():
    epsilon, n, domain, levels = 1.0, 400_000, [[0.0, 1.0], [0.0, 1.0]], 3
    rng = np.random.default_rng(7)
    edges = [np.linspace(0, 1, 5)] * 2

    def loss(eps):
        a = lsrr(np.full((n, 2), 0.1), eps, domain, rng, levels=levels)
        b = lsrr(np.full((n, 2), 0.9), eps, domain, rng, levels=levels)
        return binned_loss(
            np.histogram2d(*a.T, edges)[0], np.histogram2d(*b.T, edges)[0], FALSE_ALARM
        )

    honest = loss(epsilon)
    assert honest.lower_bound <= epsilon and honest.estimate >= 0.9 * epsilon
    assert loss(2 * epsilon).lower_bound > epsilon


@pytest.mark.parametrize("function", [square_mechanism, lsrr])
@pytest.mark.parametrize(
    "change, name",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"domain": [[1.0, 0.0]]}, "domain"),
        ({"points": [[2.0]]}, "points"),
        ({"points": [[0.5, 0.5]]}, "points"),
        ({"rng": "seed"}, "rng"),
        ({"points": [[np.nan]]}, "points"),
    ],
)
def test_followup_mechanisms_reject_bad_input(function, change, name):
    arguments = {
        "points": [[0.5]],
        "epsilon": 1.0,
        "domain": [[0.0, 1.0]],
        "rng": 0,
        **change,
    }
    with pytest.raises(ValueError, match=name):
        function(**arguments)


def test_bad_side_and_levels_are_rejected():
    with pytest.raises(ValueError, match="side"):
        square_mechanism([[0.5]], 1.0, [[0.0, 1.0]], 0, side=1.0)
    with pytest.raises(ValueError, match="levels"):
        lsrr([[0.5]], 1.0, [[0.0, 1.0]], 0, levels=1)


# --- per-level schedules at one composed budget ---------------------------------------

from scipy.integrate import dblquad  # noqa: E402
from scipy.special import logsumexp  # noqa: E402

from companion import metrics  # noqa: E402
from dpnn.baselines import epsilon_for_mse, geo_mse, perturb_location  # noqa: E402
from dpnn.traversal import SCHEDULES, dptt, epsilon_schedule  # noqa: E402
from dpnn.trees import build_tree, cell_boxes  # noqa: E402


def _tree(n=300, d=2, seed=11):
    points = np.random.default_rng(seed).uniform(0, 1, (n, d))
    return points, build_tree(points)


@pytest.mark.parametrize("family", SCHEDULES)
@pytest.mark.parametrize(
    "utility, variant, per_step",
    [
        ("cmp", "basic", 0.5),
        ("dis", "basic", 1.0),
        ("cmp", "greedy", 0.5),
        ("dis", "early", 1.0),
    ],
)
def test_schedules_compose_to_the_same_basic_budget(family, utility, variant, per_step):
    points, tree = _tree()
    h, total = tree.tree_height, 2.5
    splits = 2 if variant == "early" else 0
    schedule = epsilon_schedule(
        family, h, total, utility=utility, variant=variant, splits=splits
    )
    # independent: the worst-case calls per level of the variant, each charged per_step
    # * epsilon
    calls = {
        "basic": np.ones(h),
        "greedy": np.arange(1, h + 1),
        "early": (np.arange(h) < h - splits) * 1.0,
    }[variant]
    assert abs(per_step * np.sum(calls * schedule) - total) < 1e-12 * total
    result = dptt(
        tree,
        points[:5],
        schedule,
        utility,
        1.0 if utility == "dis" else None,
        variant=variant,
        splits=splits,
        rng=np.random.default_rng(0),
    )
    assert abs(result.accountant.epsilon(method="basic") - total) < 1e-12 * total
    assert np.all(schedule > 0)


def test_schedule_shapes():
    constant, down, up = (
        epsilon_schedule(f, 10, 1.0, ratio=4.0)
        for f in ("constant", "decreasing", "increasing")
    )
    assert np.ptp(constant) == 0
    assert np.all(np.diff(down) < 0) and np.isclose(down[0] / down[-1], 4.0)
    np.testing.assert_allclose(up, down[::-1], rtol=1e-15)
    np.testing.assert_allclose(np.diff(down), np.diff(down)[0], rtol=1e-9)  # linear


@pytest.mark.parametrize("method", ["pld", "br", "zcdp"])
def test_schedules_compose_to_the_same_budget_under_other_accountings(method):
    points, tree = _tree()
    delta, total = 1e-5, 1.5
    for family in SCHEDULES:
        schedule = epsilon_schedule(
            family, tree.tree_height, total, method=method, delta=delta
        )
        result = dptt(tree, points[:3], schedule, "cmp", rng=np.random.default_rng(1))
        assert abs(result.accountant.epsilon(delta, method) - total) <= 1e-8 * total


@pytest.mark.parametrize(
    "change, name",
    [
        ({"family": "quadratic"}, "family"),
        ({"total": 0.0}, "total"),
        ({"ratio": 0.5}, "ratio"),
        ({"tree_height": 0}, "tree_height"),
        ({"method": "pld"}, "delta"),
        ({"utility": "x"}, "utility"),
        ({"method": "nope"}, "method"),
    ],
)
def test_schedule_rejects_bad_input(change, name):
    arguments = {"family": "constant", "tree_height": 8, "total": 1.0, **change}
    with pytest.raises(ValueError, match=name):
        epsilon_schedule(**arguments)


# --- cells, the adversary's inference error -------------------------------------------


def test_cell_boxes_partition_the_domain_and_hold_their_points():
    points, tree = _tree(n=257)
    domain = [[0.0, 1.0], [0.0, 1.0]]
    low, high = cell_boxes(tree, domain)
    leaves = np.flatnonzero(tree.is_leaf)
    assert np.all(high >= low)
    # each point lies in its leaf's cell, and in every ancestor's
    leaf = tree.leaf_of_point()
    assert np.all((points >= low[leaf] - 1e-15) & (points <= high[leaf] + 1e-15))
    # children tile their parent: areas add up, the leaves' areas to the domain's
    area = np.prod(high - low, axis=1)
    inner = np.flatnonzero(~tree.is_leaf)
    np.testing.assert_allclose(
        area[tree.left[inner]] + area[tree.right[inner]], area[inner], rtol=1e-12
    )
    assert abs(area[leaves].sum() - 1.0) < 1e-12
    # a uniform point walked down by the split rule ends in the leaf whose cell holds it
    u = np.random.default_rng(12).uniform(0, 1, (500, 2))
    node = np.zeros(len(u), dtype=int)
    for _ in range(tree.tree_height):
        inner_now = tree.left[node] >= 0
        go_right = u[np.arange(len(u)), tree.axis[node]] >= tree.split[node]
        node = np.where(inner_now, tree.left[node] + go_right, node)
    assert np.all((u >= low[node]) & (u <= high[node]))
    with pytest.raises(ValueError, match="domain"):
        cell_boxes(tree, [[0.0, 0.5], [0.0, 1.0]])


def test_inference_error_is_exact_against_an_integral_and_monte_carlo():
    boxes = np.array(
        [[[0.0, 0.0], [1.0, 1.0]], [[2.0, -1.0], [2.3, 3.0]], [[0.0, 0.0], [0.05, 5.0]]]
    )
    exact = metrics.cell_inference_error(boxes[:, 0], boxes[:, 1])
    rng = np.random.default_rng(13)
    for (lo, hi), value in zip(boxes, exact):
        centre = (lo + hi) / 2
        integral = dblquad(
            lambda y, x: np.hypot(x - centre[0], y - centre[1]),
            lo[0],
            hi[0],
            lo[1],
            hi[1],
            epsabs=1e-12,
            epsrel=1e-10,
        )[0] / np.prod(hi - lo)
        assert abs(value - integral) < 1e-8 * integral
        # Monte Carlo: 5 standard errors, false failure below 1e-6 per box
        distance = np.linalg.norm(rng.uniform(lo, hi, (200_000, 2)) - centre, axis=1)
        assert abs(distance.mean() - value) < 5 * distance.std() / np.sqrt(
            len(distance)
        )
    # the unit square: (sqrt 2 + asinh 1) / 6, the classic mean distance to the centre
    assert abs(exact[0] - (np.sqrt(2) + np.arcsinh(1)) / 6) < 1e-14
    np.testing.assert_allclose(
        metrics.cell_inference_error([[0.0], [1.0]], [[2.0], [1.5]]), [0.5, 0.125]
    )


def test_the_centre_is_the_optimal_guess():
    lo, hi = np.array([0.0, 0.0]), np.array([2.0, 0.5])
    sample = np.random.default_rng(14).uniform(lo, hi, (100_000, 2))
    centre = (lo + hi) / 2
    at_centre = np.linalg.norm(sample - centre, axis=1).mean()
    # common random numbers: sampling error cancels
    for shift in ([0.05, 0], [0, 0.05], [-0.1, 0.02]):
        assert np.linalg.norm(sample - centre - shift, axis=1).mean() > at_centre


def test_inference_error_rejects_bad_boxes():
    with pytest.raises(ValueError, match="high"):
        metrics.cell_inference_error([[1.0, 1.0]], [[0.0, 2.0]])
    with pytest.raises(ValueError, match="dimension"):
        metrics.cell_inference_error(np.zeros((2, 3)), np.ones((2, 3)))


# --- precision and recall within a radius, displacement -------------------------------


def test_precision_recall_within_radius_against_sets():
    rng = np.random.default_rng(15)
    points = rng.uniform(0, 1, (200, 2))
    queries = rng.uniform(0, 1, (40, 2))
    queries[0] = [3.0, 3.0]  # nothing within the radius
    near = np.argsort(np.linalg.norm(points[None] - queries[:, None], axis=2), axis=1)[
        :, :15
    ]
    # duplicates allowed
    released = [
        np.concatenate(
            [
                rng.choice(near[i], size=rng.integers(0, 6)),
                rng.choice(200, size=rng.integers(0, 6)),
            ]
        )
        for i in range(40)
    ]
    precision, recall, n_relevant = metrics.precision_recall_within_radius(
        released, points, queries, 0.12
    )
    for i, r in enumerate(released):
        relevant = set(
            np.flatnonzero(np.linalg.norm(points - queries[i], axis=1) <= 0.12)
        )
        got = set(r.tolist())
        assert n_relevant[i] == len(relevant)
        assert precision[i] == (len(got & relevant) / len(got) if got else 0.0)
        assert recall[i] == (len(got & relevant) / len(relevant) if relevant else 1.0)
    assert (
        0 < precision.mean() < 1 and (n_relevant == 0).any() and (n_relevant > 0).any()
    )
    with pytest.raises(ValueError, match="radius"):
        metrics.precision_recall_within_radius(released, points, queries, -1.0)
    with pytest.raises(ValueError, match="queries"):
        metrics.precision_recall_within_radius(released, points, queries[:3], 0.1)


def test_mean_squared_displacement_and_the_exact_geo_mse():
    x = np.array([[0.0, 0.0], [1.0, 2.0]])
    np.testing.assert_array_equal(
        metrics.mean_squared_displacement(x, x + [[3.0, 4.0], [0.0, -1.0]]), [25.0, 1.0]
    )
    with pytest.raises(ValueError, match="released"):
        metrics.mean_squared_displacement(x, x[:1])
    rng = np.random.default_rng(16)
    for d in (1, 2, 3):  # d (d + 1) / epsilon^2, against samples (5 SE)
        origin = np.zeros((200_000, d))
        squared = metrics.mean_squared_displacement(
            origin, perturb_location(origin, 2.0, rng)
        )
        assert abs(squared.mean() - geo_mse(2.0, d)) < 5 * squared.std() / np.sqrt(
            len(squared)
        )
    assert geo_mse(2.0, 2) == 1.5
    assert abs(epsilon_for_mse(lambda e: geo_mse(e, 2), 0.06) - 10.0) < 1e-8
    mean_sm = lambda e: square_mechanism_mse(
        np.full((50, 1), 0.3), e, [[0.0, 1.0]]
    ).mean()  # noqa: E731
    eps = epsilon_for_mse(mean_sm, 0.05, low=0.01, high=50)
    assert abs(mean_sm(eps) / 0.05 - 1) < 1e-8
    with pytest.raises(ValueError, match="target"):
        # beyond the bounded domain's largest MSE
        epsilon_for_mse(mean_sm, 10.0, low=0.01, high=50)


@pytest.mark.parametrize("epsilon", [40.0, 60.0, 100.0, 300.0])
def test_lsrr_staircase_stays_exact_at_large_epsilon(epsilon):
    # independent: a_g proportional to e^eps (1 - t) + t, t = g / (levels - 1), in log
    # space
    levels, d = 6, 2
    groups = np.arange(levels)
    sizes = np.where(groups == 0, 1, (2**d - 1) * 2.0 ** ((groups - 1) * d))
    t = groups / (levels - 1)
    # log(e^eps (1 - t) + t)
    log_shape = epsilon + np.log((1 - t) + t * np.exp(-epsilon))
    log_a = log_shape - logsumexp(log_shape + np.log(sizes))
    probabilities = lsrr_probabilities(
        [0.1, 0.1], epsilon, [[0.0, 1.0]] * 2, levels
    ).ravel()
    assert np.all(probabilities > 0) and abs(probabilities.sum() - 1) < 1e-12
    np.testing.assert_allclose(
        np.log(np.unique(probabilities)), np.sort(log_a), rtol=1e-12
    )
    y = lsrr(
        np.full((1000, 2), 0.1),
        epsilon,
        [[0.0, 1.0]] * 2,
        np.random.default_rng(17),
        levels=levels,
    )
    assert np.all((y >= 0) & (y <= 1))
