"""dpnn.adversary: the Bayes-optimal adversary and the exact privacy of DP-TT
transcripts.

Independent references: mpmath quadrature of a closed-form 1-D posterior; the
library's own exact laws (``lsrr_probabilities``); a brute-force recursion over
every outcome of a small tree written from Alg. 12-14; Kairouz, Oh and
Viswanath's exact composition of randomized response; ``companion.audit``'s
empirical estimate. Statistical tests reject at ALPHA = 1e-3 (the false-failure
rate of a correct implementation were the seed random), shared equally among
the families of one test. Seeds are fixed.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from companion import audit
from dpnn import accounting, lsrr
from dpnn.adversary import (
    DPTT,
    LSRR,
    Geo,
    SquareMechanism,
    accounted_epsilon,
    adversary_error,
    bayes_estimate,
    check_prior,
    corner_pair,
    domain_grid,
    empirical_prior,
    exact_epsilon,
    exact_epsilons,
    geometric_median,
    hockey_stick,
    mechanisms_at,
    pair_epsilon,
    pair_laws,
    path_log_law,
    path_nodes,
    posterior,
    prior_only,
    turn_log_probabilities,
    uniform_prior,
    worst_pair_at_distance,
)
from dpnn.traversal import dptt, dptt_ledger
from dpnn.trees import build_tree

ALPHA = 1e-3
UNIT_SQUARE = np.array([[0.0, 1.0], [0.0, 1.0]])


# --- the grid and priors --------------------------------------------------------------


def test_grid_error_is_half_a_cell_diagonal_and_cells_hold_their_points():
    grid = domain_grid([[0, 4], [0, 3]], [4, 3])
    assert grid.error == pytest.approx(math.hypot(1, 1) / 2)
    assert grid.size == 12 and grid.points.shape == (12, 2)
    assert np.array_equal(grid.cell_of(grid.points), np.arange(12))
    assert (
        grid.cell_of([[4.0, 3.0]])[0] == 11
    )  # the domain's far edge belongs to the last cell
    assert np.allclose(
        grid.distances([[0.5, 0.5]])[0], np.linalg.norm(grid.points - 0.5, axis=1)
    )


@pytest.mark.parametrize(
    "domain, cells",
    [
        ([[0, 1], [1, 1]], 4),
        ([[0, 1]], 0),
        ([[0, 1]], 2.5),
        ([[0, 1], [0, 1]], [2, 2, 2]),
        ([[0, np.nan]], 2),
    ],
)
def test_grid_rejects_bad_input(domain, cells):
    with pytest.raises(ValueError, match="domain|cells"):
        domain_grid(domain, cells)


def test_priors_sum_to_one_and_bad_priors_are_rejected():
    grid = domain_grid(UNIT_SQUARE, 4)
    points = np.array([[0.1, 0.1], [0.1, 0.12], [0.9, 0.9]])
    prior = empirical_prior(grid, points)
    assert prior[grid.cell_of(points[:1])[0]] == pytest.approx(2 / 3)
    assert uniform_prior(grid).sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="prior"):
        check_prior(np.full(16, 0.1), grid)
    with pytest.raises(ValueError, match="locations"):
        empirical_prior(grid, [[2.0, 0.5]])
    with pytest.raises(ValueError, match="points"):
        empirical_prior(grid, np.empty((0, 2)))


def test_prior_only_error_converges_to_the_mean_distance_from_the_square_centre():
    # mean distance of a uniform point of the unit square from its centre: (sqrt 2 +
    # asinh 1) / 6
    exact = (math.sqrt(2) + math.asinh(1)) / 6
    gaps = []
    for cells in (8, 32, 128):
        grid = domain_grid(UNIT_SQUARE, cells)
        gaps.append(abs(prior_only(grid, uniform_prior(grid)) - exact))
        assert gaps[-1] <= grid.error
    assert gaps[0] > gaps[1] > gaps[2]


# --- the Bayes estimate against a closed-form 1-D posterior ---------------------------


def laplace_posterior_reference(y, epsilon):
    """Uniform prior on [0, 1], Laplace release y: posterior median, E|x - m|, mean,
    variance (mpmath)."""
    mpmath.mp.dps = 30
    density = lambda x: mpmath.exp(-epsilon * abs(x - y))  # noqa: E731
    points = [0, min(max(y, 0), 1), 1]
    mass = mpmath.quad(density, points)
    cdf = lambda t: (
        mpmath.quad(density, [0, min(max(y, 0), t), t] if 0 < y < t else [0, t]) / mass
    )  # noqa: E731
    median = mpmath.findroot(
        lambda t: cdf(t) - 0.5,
        (mpmath.mpf("1e-9"), 1 - mpmath.mpf("1e-9")),
        solver="anderson",
    )
    error = (
        mpmath.quad(
            lambda x: abs(x - median) * density(x), sorted(set(points + [median]))
        )
        / mass
    )
    mean = mpmath.quad(lambda x: x * density(x), points) / mass
    variance = mpmath.quad(lambda x: (x - mean) ** 2 * density(x), points) / mass
    return float(median), float(error), float(mean), float(variance)


@pytest.mark.parametrize(
    "y, epsilon", [(0.3, 5.0), (0.95, 20.0), (-0.4, 3.0), (0.5, 0.5)]
)
def test_bayes_estimate_matches_the_closed_form_laplace_posterior(y, epsilon):
    grid = domain_grid([[0.0, 1.0]], 4096)
    weights = posterior(
        Geo(epsilon, [[0.0, 1.0]]).log_likelihood([[y]], grid), uniform_prior(grid)
    )
    median, error, mean, variance = laplace_posterior_reference(y, epsilon)
    guess, value = bayes_estimate(weights, grid, "euclidean")
    # moving every location by at most the grid error moves the median and E|x - m| by
    # at most that
    assert abs(guess[0, 0] - median) <= 2 * grid.error
    assert abs(value[0] - error) <= 2 * grid.error
    guess, value = bayes_estimate(weights, grid, "squared")
    assert abs(guess[0, 0] - mean) <= grid.error
    assert abs(value[0] - variance) <= 2 * grid.error


def test_per_release_error_converges_as_the_grid_refines():
    releases = np.array([[0.2], [0.7], [1.3]])
    reference = np.array(
        [laplace_posterior_reference(y, 4.0)[1] for y in releases[:, 0]]
    )
    gaps = []
    for cells in (16, 64, 256):
        grid = domain_grid([[0.0, 1.0]], cells)
        weights = posterior(
            Geo(4.0, [[0.0, 1.0]]).log_likelihood(releases, grid), uniform_prior(grid)
        )
        gaps.append(np.max(np.abs(bayes_estimate(weights, grid)[1] - reference)))
        assert gaps[-1] <= 2 * grid.error
    assert gaps[0] > gaps[1] > gaps[2]


def test_geometric_median_of_a_heavy_point_is_that_point():
    grid = domain_grid(UNIT_SQUARE, 8)
    weights = np.full((1, 64), 0.4 / 63)
    weights[0, 10] = 0.6  # more than half the mass: the median sits on it
    assert np.allclose(geometric_median(weights, grid)[0], grid.points[10])


# --- likelihoods against the library's laws -------------------------------------------


def test_lsrr_likelihood_is_the_library_law_of_the_released_cell():
    rng = np.random.default_rng(5)
    grid = domain_grid(UNIT_SQUARE, 16)
    mechanism = LSRR(2.0, UNIT_SQUARE, levels=4)
    releases = mechanism.sample(rng.uniform(0, 1, (20, 2)), rng)
    likelihood = np.exp(mechanism.log_likelihood(releases, grid))
    for column in rng.choice(grid.size, 6, replace=False):
        law = lsrr.lsrr_probabilities(grid.points[column], 2.0, UNIT_SQUARE, levels=4)
        cells = np.minimum((releases * 8).astype(int), 7)
        assert np.allclose(
            likelihood[:, column], law[cells[:, 0], cells[:, 1]], rtol=1e-12
        )


def test_square_mechanism_releases_land_in_the_likelihood_square_at_the_stated_rate():
    rng = np.random.default_rng(6)
    grid = domain_grid(UNIT_SQUARE, 10)
    mechanism = SquareMechanism(2.0, UNIT_SQUARE)
    column = 13
    releases = mechanism.sample(np.repeat(grid.points[[column]], 20000, axis=0), rng)
    inside = mechanism.log_likelihood(releases, grid)[:, column] == 2.0
    s = (
        mechanism.side
    )  # the square mechanism's docstring: Pr[inside] = p s^d, p = e^eps q
    expected = math.exp(2.0) * s**2 / (math.exp(2.0) * s**2 + 1 - s**2)
    assert stats.binomtest(int(inside.sum()), len(inside), expected).pvalue > ALPHA


# --- DP-TT transcripts against brute force and against dptt's samples -----------------


def brute_force_leaf_laws(tree, query, epsilon, utility, sensitivity=1.0):
    """Every root-to-leaf path by recursion, each turn from Alg. 12 with Alg. 13/14's
    utilities."""
    laws = {}

    def walk(node, probability):
        if tree.left[node] < 0:
            laws[int(node)] = probability
            return
        if utility == "cmp":
            correct_right = not query[tree.axis[node]] < tree.split[node]
            u_left, u_right = (0.0, 1.0) if correct_right else (1.0, 0.0)
        else:
            u_left = float(
                np.linalg.norm(query - tree.points[tree.point[tree.right[node]]])
            )
            u_right = float(
                np.linalg.norm(query - tree.points[tree.point[tree.left[node]]])
            )
        w_left = math.exp(epsilon * u_left / (2 * sensitivity))
        w_right = math.exp(epsilon * u_right / (2 * sensitivity))
        walk(tree.left[node], probability * w_left / (w_left + w_right))
        walk(tree.right[node], probability * w_right / (w_left + w_right))

    walk(0, 1.0)
    return laws


@pytest.mark.parametrize("utility, sensitivity", [("cmp", None), ("dis", 0.7)])
def test_path_law_and_grid_likelihood_match_brute_force_on_a_small_tree(
    utility, sensitivity
):
    rng = np.random.default_rng(7)
    tree = build_tree(rng.uniform(0, 1, (13, 2)))  # 13 leaves: paths of two lengths
    grid = domain_grid(UNIT_SQUARE, 5)
    ends, log_p = path_log_law(tree, grid.points, 1.3, utility, sensitivity)
    mechanism = DPTT(tree, 1.3, utility, UNIT_SQUARE, sensitivity)
    on_grid = mechanism.log_likelihood(ends, grid)
    for j, query in enumerate(grid.points):
        laws = brute_force_leaf_laws(tree, query, 1.3, utility, sensitivity or 1.0)
        assert sorted(laws) == sorted(ends.tolist())
        expected = np.array([laws[int(e)] for e in ends])
        assert np.allclose(np.exp(log_p[j]), expected, rtol=1e-12, atol=0)
        assert np.allclose(np.exp(on_grid[:, j]), expected, rtol=1e-12, atol=0)


def test_early_variant_law_sums_the_leaf_law_over_each_subtree():
    rng = np.random.default_rng(8)
    tree = build_tree(rng.uniform(0, 1, (40, 2)))
    x = np.array([[0.3, 0.6]])
    leaves, leaf_law = path_log_law(tree, x, 0.9, "cmp")
    ends, end_law = path_log_law(tree, x, 0.9, "cmp", stop_height=2)
    assert np.all(tree.height[ends] <= 2)
    for end, value in zip(ends, np.exp(end_law[0])):
        below = (tree.lo[leaves] >= tree.lo[end]) & (tree.hi[leaves] <= tree.hi[end])
        assert value == pytest.approx(np.exp(leaf_law[0, below]).sum(), rel=1e-12)


@pytest.mark.parametrize(
    "utility, sensitivity, variant",
    [
        ("cmp", None, "basic"),
        ("dis", 0.5, "basic"),
        ("cmp", None, "E2"),
        ("cmp", None, "N3"),
    ],
)
def test_dptt_samples_follow_the_path_law(utility, sensitivity, variant):
    rng = np.random.default_rng(9)
    tree = build_tree(rng.uniform(0, 1, (16, 2)))
    query = np.array([0.35, 0.55])
    mechanism = DPTT(tree, 1.5, utility, UNIT_SQUARE, sensitivity, variant)
    samples = mechanism.sample(np.repeat(query[None], 40000, axis=0), rng)
    ends, log_p = path_log_law(
        tree, query, 1.5, utility, sensitivity, mechanism.stop_height
    )
    observed = np.array([(samples == e).sum() for e in ends])
    assert observed.sum() == 40000  # every sample ends at one of the law's outcomes
    assert stats.chisquare(observed, np.exp(log_p[0]) * 40000).pvalue > ALPHA


def test_path_nodes_walks_from_the_root():
    tree = build_tree(np.random.default_rng(1).uniform(0, 1, (8, 2)))
    leaf = np.flatnonzero(tree.left < 0)[5]
    nodes, right = path_nodes(tree, [leaf])
    node = 0
    for level in range(nodes.shape[1]):
        assert nodes[0, level] == node
        node = tree.right[node] if right[0, level] else tree.left[node]
    assert node == leaf


def test_turn_probabilities_reject_leaves_and_bad_utilities():
    tree = build_tree(np.random.default_rng(1).uniform(0, 1, (8, 2)))
    leaf = np.flatnonzero(tree.left < 0)[:1]
    with pytest.raises(ValueError, match="inner"):
        turn_log_probabilities(tree, leaf, [[0.5, 0.5]], 1.0, "cmp")
    with pytest.raises(ValueError, match="utility"):
        turn_log_probabilities(tree, [0], [[0.5, 0.5]], 1.0, "near")
    with pytest.raises(ValueError, match="sensitivity"):
        turn_log_probabilities(tree, [0], [[0.5, 0.5]], 1.0, "dis")


# --- the optimal adversary against the prior-only error and the naive guesses ---------


def mechanisms(tree, domain):
    diameter = float(np.linalg.norm(domain[:, 1] - domain[:, 0]))
    return [
        Geo(4 / diameter, domain),
        SquareMechanism(3.0, domain),
        LSRR(3.0, domain, levels=4),
        DPTT(tree, 0.8, "cmp", domain),
        DPTT(tree, 0.8, "dis", domain, sensitivity=diameter / 8),
        DPTT(tree, 0.8, "cmp", domain, variant="E2"),
        DPTT(tree, 0.8, "cmp", domain, variant="N4"),
    ]


@pytest.mark.parametrize("prior_kind", ["uniform", "empirical"])
def test_optimal_error_never_exceeds_prior_only_nor_the_naive_guesses(prior_kind):
    rng = np.random.default_rng(10)
    points = np.clip(rng.normal(0.3, 0.15, (300, 2)), 0, 1)
    tree = build_tree(points)
    grid = domain_grid(UNIT_SQUARE, 24)
    prior = (
        uniform_prior(grid)
        if prior_kind == "uniform"
        else empirical_prior(grid, points)
    )
    z = stats.norm.isf(
        ALPHA / 28
    )  # 7 mechanisms x (one one-sided + one two-sided test)
    for mechanism in mechanisms(tree, UNIT_SQUARE):
        result = adversary_error(mechanism, grid, prior, 300, rng, block=50)
        # given each release, the optimal guess's posterior error is at most the naive
        # guess's
        assert np.all(
            result.per_release <= result.naive_per_release + 1e-9 * grid.diameter
        )
        # and on average at most the prior-only error (beyond Monte Carlo error)
        assert result.error <= result.prior_only + z * result.standard_error
        # the posterior is calibrated (the likelihood is the sampler's law): the prior-
        # only
        # guess's posterior loss averages to the prior-only error
        fixed = result.fixed - result.prior_only
        assert abs(fixed.mean()) <= z * fixed.std(ddof=1) / math.sqrt(len(fixed))
        difference = result.optimal_realised - result.naive  # realised errors, paired
        assert difference.mean() <= z * difference.std(ddof=1) / math.sqrt(
            len(difference)
        )


def test_squared_loss_adversary_uses_the_posterior_mean():
    rng = np.random.default_rng(11)
    grid = domain_grid(UNIT_SQUARE, 16)
    mechanism = Geo(3.0, UNIT_SQUARE)
    result = adversary_error(
        mechanism, grid, uniform_prior(grid), 100, rng, loss="squared"
    )
    assert result.loss == "squared" and result.error <= result.prior_only
    assert result.prior_only == pytest.approx(
        1 / 6, abs=2 * grid.error
    )  # 2 x Var U(0, 1) = 1/6


def test_adversary_error_rejects_bad_input():
    grid = domain_grid(UNIT_SQUARE, 4)
    with pytest.raises(ValueError, match="loss"):
        adversary_error(
            Geo(1.0, UNIT_SQUARE), grid, uniform_prior(grid), 10, 0, loss="hamming"
        )
    with pytest.raises(ValueError, match="n_releases"):
        adversary_error(Geo(1.0, UNIT_SQUARE), grid, uniform_prior(grid), 1, 0)
    with pytest.raises(ValueError, match="grid"):
        Geo(1.0, UNIT_SQUARE).log_likelihood([[0.5, 0.5]], domain_grid([[0, 1]], 4))


# --- the exact privacy of a whole transcript ------------------------------------------


def test_hockey_stick_and_exact_epsilon_against_direct_sums():
    rng = np.random.default_rng(12)
    p, q = rng.dirichlet(np.ones(30)), rng.dirichlet(np.ones(30))
    log_p, log_q = np.log(p), np.log(q)
    for e in (0.0, 0.3, 1.0, 2.5):
        direct = max(
            np.maximum(p - np.exp(e) * q, 0).sum(),
            np.maximum(q - np.exp(e) * p, 0).sum(),
        )
        assert hockey_stick(log_p, log_q, e) == pytest.approx(
            direct, rel=1e-12, abs=1e-15
        )
    for delta in (1e-6, 1e-3, 0.05, 0.2):
        e = exact_epsilon(log_p, log_q, delta)
        assert hockey_stick(log_p, log_q, e) <= delta * (1 + 1e-9)
        if e > 0:
            assert hockey_stick(log_p, log_q, e * (1 - 1e-7)) > delta
    assert exact_epsilon(log_p, log_p, 0.0) == 0.0
    with pytest.raises(ValueError, match="delta"):
        exact_epsilon(log_p, log_q, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        hockey_stick(log_p, log_q, -1.0)


def test_exact_epsilons_is_exact_epsilon_row_by_row():
    # random laws, laws equal on half their outcomes (ties in the loss), equal laws
    # and one-outcome laws, at delta 0 and above: the same numbers as the
    # one-pair function (a batch of one), pair by pair
    rng = np.random.default_rng(21)
    for m in (1, 2, 7, 40):
        log_p = np.log(rng.dirichlet(np.full(m, 0.5), size=12))
        log_q = np.log(rng.dirichlet(np.ones(m), size=12))
        log_q[:4, : m // 2] = log_p[:4, : m // 2]
        log_q[4] = log_p[4]
        for delta in (0.0, 1e-5, 0.05, 0.5):
            expected = [exact_epsilon(a, b, delta) for a, b in zip(log_p, log_q)]
            found = exact_epsilons(log_p, log_q, delta)
            np.testing.assert_allclose(found, expected, rtol=1e-13, atol=0)
            # and each is the least epsilon of the hockey-stick divergence (its own
            # sums, outcome by outcome): delta(e) <= delta, delta(e (1 - 1e-6)) > it
            for a, b, e in zip(log_p, log_q, found, strict=True):
                assert hockey_stick(a, b, e) <= delta + 1e-12
                if e > 1e-9:
                    assert hockey_stick(a, b, e * (1 - 1e-6)) > delta
    assert exact_epsilons(np.zeros((0, 3)), np.zeros((0, 3)), 0.1).shape == (0,)
    with pytest.raises(ValueError, match="delta"):
        exact_epsilons(log_p, log_q, 1.0)
    with pytest.raises(ValueError, match="2-D"):
        exact_epsilons(log_p[0], log_q[0], 0.1)
    with pytest.raises(ValueError, match="finite"):
        exact_epsilons(np.array([[-np.inf, 0.0]]), np.log([[0.5, 0.5]]), 0.1)


def test_cmp_corner_pair_is_exactly_randomized_response_composed_at_h17():
    tree = build_tree(np.random.default_rng(13).uniform(0, 1, (2**17, 2)))
    x, x_prime = corner_pair(UNIT_SQUARE)
    _, log_p, log_q = pair_laws(tree, x, x_prime, 1.0, "cmp")
    for e in (
        2.0,
        5.0,
        8.0,
    ):  # Kairouz, Oh and Viswanath's exact composition of 17 steps at eps/2
        exact = accounting.optimal_pure_composition_delta(0.5, 17, e)
        assert hockey_stick(log_p, log_q, e) == pytest.approx(exact, rel=1e-9)
    actual = exact_epsilon(log_p, log_q, 1e-5)
    assert actual == pytest.approx(
        accounting.optimal_pure_composition_epsilon(0.5, 17, 1e-5), rel=1e-9
    )


@pytest.mark.parametrize("utility", ["cmp", "dis"])
def test_exact_transcript_epsilon_never_exceeds_the_ledger(utility):
    rng = np.random.default_rng(14)
    tree = build_tree(rng.uniform(0, 1, (3000, 2)))
    sensitivity = 0.3 if utility == "dis" else None
    delta = 1e-4
    charged = accounted_epsilon(tree, 0.6, utility, delta)
    pairs = [corner_pair(UNIT_SQUARE)] if utility == "cmp" else []
    for _ in range(40):  # DIS's ledger covers pairs within the sensitivity
        a = rng.uniform(0, 1, 2)
        step = rng.standard_normal(2)
        b = np.clip(
            a
            + step
            / np.linalg.norm(step)
            * rng.uniform(0, 0.3 if utility == "dis" else 1.4),
            0,
            1,
        )
        pairs.append((a, b))
    for a, b in pairs:
        _, log_p, log_q = pair_laws(tree, a, b, 0.6, utility, sensitivity)
        actual = exact_epsilon(log_p, log_q, delta)
        for method, value in charged.items():
            assert actual <= value * (1 + 1e-9), (method, a, b, actual, value)


def test_exact_loss_agrees_with_the_audit_within_its_confidence():
    rng = np.random.default_rng(15)
    tree = build_tree(rng.uniform(0, 1, (16, 2)))
    x, x_prime = np.array([0.2, 0.3]), np.array([0.7, 0.6])
    ends, log_p, log_q = pair_laws(tree, x, x_prime, 1.2, "cmp")
    leaf = tree.leaf_of_point()
    counts = []
    for query in (x, x_prime):
        result = dptt(tree, np.repeat(query[None], 200000, axis=0), 1.2, "cmp", rng=rng)
        landed = leaf[result.indices]
        counts.append(np.array([(landed == e).sum() for e in ends]))
    loss = audit.binned_loss(counts[0], counts[1], false_alarm=ALPHA / 2)
    exact = (log_p - log_q)[loss.bins]
    # each kept bin's estimate within z standard errors of the exact loss (Bonferroni
    # over bins, two sides)
    assert np.all(np.abs(loss.log_ratio - exact) <= loss.z * loss.standard_error)
    assert loss.lower_bound <= np.max(np.abs(log_p - log_q))


def test_control_variate_estimate_agrees_with_the_plain_mean():
    rng = np.random.default_rng(16)
    grid = domain_grid(UNIT_SQUARE, 20)
    z = stats.norm.isf(ALPHA / 4)  # two mechanisms, two sides
    for mechanism in (Geo(2.0, UNIT_SQUARE), SquareMechanism(6.0, UNIT_SQUARE)):
        result = adversary_error(mechanism, grid, uniform_prior(grid), 400, rng)
        assert np.all(
            result.per_release <= result.fixed + 1e-9
        )  # optimal <= prior guess
        assert 0 <= result.beta <= 1
        assert result.standard_error <= result.per_release.std(ddof=1) / math.sqrt(400)
        # the two estimates of one expectation differ by beta (mean(fixed) - prior only)
        difference = result.fixed - result.prior_only
        assert abs(difference.mean()) <= z * difference.std(ddof=1) / math.sqrt(400)


def test_early_variant_exact_epsilon_never_exceeds_its_ledger():
    rng = np.random.default_rng(17)
    tree = build_tree(rng.uniform(0, 1, (2000, 2)))
    charged = accounted_epsilon(tree, 0.8, "cmp", 1e-4, splits=3)
    full = accounted_epsilon(tree, 0.8, "cmp", 1e-4)
    assert charged["pld"] < full["pld"]  # E3 walks three levels fewer
    x, x_prime = corner_pair(UNIT_SQUARE)
    _, log_p, log_q = pair_laws(tree, x, x_prime, 0.8, "cmp", stop_height=3)
    actual = exact_epsilon(log_p, log_q, 1e-4)
    assert all(actual <= value * (1 + 1e-9) for value in charged.values())
    # the corners lose +-eps/2 at each walked level: randomized response composed
    walked = tree.tree_height - 3
    expected = accounting.optimal_pure_composition_epsilon(0.4, walked, 1e-4)
    assert actual == pytest.approx(expected, rel=1e-9)


def test_worst_pair_search_returns_a_pair_at_the_distance_with_its_epsilon():
    rng = np.random.default_rng(18)
    tree = build_tree(rng.uniform(0, 1, (500, 2)))
    a, b, value = worst_pair_at_distance(
        tree, UNIT_SQUARE, 0.3, 0.7, "cmp", 1e-3, rng, candidates=6
    )
    assert np.linalg.norm(b - a) == pytest.approx(0.3)
    assert np.all((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1))
    assert value == pytest.approx(pair_epsilon(tree, a, b, 0.7, "cmp", 1e-3))
    with pytest.raises(ValueError, match="distance"):
        worst_pair_at_distance(
            tree, UNIT_SQUARE, 5.0, 0.7, "cmp", 1e-3, rng, candidates=3
        )


@pytest.mark.parametrize("variant", ["GS", "P2", "E", "basic2"])
def test_dptt_adversary_rejects_variants_without_an_enumerable_transcript(variant):
    tree = build_tree(np.random.default_rng(1).uniform(0, 1, (8, 2)))
    with pytest.raises(ValueError, match="variant"):
        DPTT(tree, 1.0, "cmp", UNIT_SQUARE, variant=variant)


def test_per_level_budgets_must_match_the_tree_height():
    tree = build_tree(np.random.default_rng(1).uniform(0, 1, (8, 2)))
    with pytest.raises(ValueError, match="epsilon"):
        path_log_law(tree, [[0.5, 0.5]], [1.0, 1.0], "cmp")
    with pytest.raises(ValueError, match="epsilon"):
        path_log_law(tree, [[0.5, 0.5]], -1.0, "cmp")


def test_mechanisms_at_one_composed_epsilon_are_at_equal_worst_case_privacy():
    """GEO at eps*/D, SM and L-SRR at eps*, every DP-TT ledger composing to eps*
    (PLD)."""
    tree = build_tree(np.random.default_rng(4).uniform(0, 1, (256, 2)))
    grid, delta, eps_star = domain_grid(UNIT_SQUARE, 8), 1 / 256, 4.0
    geo, sm, lsrr, cmp, early, dis = mechanisms_at(
        eps_star, tree, grid, UNIT_SQUARE, delta, lsrr_levels=4, e_splits=2
    )
    assert geo.epsilon * math.sqrt(2) == pytest.approx(eps_star, rel=1e-12)
    assert sm.epsilon == lsrr.epsilon == eps_star
    assert (early.variant, dis.sensitivity) == ("E2", grid.diameter)
    ledgers = [
        dptt_ledger(cmp.schedule, "cmp"),
        dptt_ledger(early.schedule, "cmp", "early", 2),
        dptt_ledger(dis.schedule, "dis"),
    ]
    for ledger in ledgers:  # PLD's stated grid error is about 1e-3 relative
        assert ledger.epsilon(delta, "pld") == pytest.approx(eps_star, rel=2e-3)
