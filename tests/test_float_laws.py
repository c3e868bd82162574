"""Sampled laws of the float samplers, the exact samplers, and the switch between them.

The laws of :mod:`dpnn.float_laws` are checked against brute force: every uniform
of a reduced grid (2^-bits) pushed through numpy's own arithmetic, and numpy's
53-bit samplers replayed from a cloned generator. Statistical checks of the exact
samplers fail falsely with probability below 1e-6 each (a binomial two-sided
bound at 5.3 standard deviations).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpnn import (
    exact_choice,
    exact_sampling,
    float_laws,
    local_mechanisms,
    lsrr,
    mechanisms,
)

#: Standard deviations of a two-sided binomial check failing with probability < 1e-6.
Z = 5.3


def _binomial_ok(hits, n, p):
    return abs(hits - n * p) <= Z * math.sqrt(n * p * (1 - p)) + 1


# --- the laws of numpy's samplers -----------------------------------------------------


@pytest.mark.parametrize("bits", [6, 9])
def test_choice_law_is_the_count_of_uniforms_on_a_reduced_grid(bits):
    p = np.array([0.5, 0.3, 0.2 - 3e-3, 3e-3])
    cdf = p.cumsum()
    cdf /= cdf[-1]
    uniforms = np.arange(2**bits) / 2.0**bits
    counts = np.bincount(cdf.searchsorted(uniforms, side="right"), minlength=4)
    assert np.array_equal(float_laws.choice_law(p, bits), counts / 2.0**bits)


def test_choice_law_models_numpy_choice_draw_for_draw():
    p = np.array([0.7, 0.2, 0.1 - 1e-17, 1e-17])
    drawn = np.random.default_rng(3).choice(4, size=5000, p=p)
    uniforms = np.random.default_rng(3).random(5000)
    cdf = p.cumsum() / p.cumsum()[-1]
    assert np.array_equal(drawn, cdf.searchsorted(uniforms, side="right"))


@pytest.mark.parametrize("bits", [5, 8])
def test_uniform_below_counts_the_grid(bits):
    uniforms = np.arange(2**bits) / 2.0**bits
    for p in [0.0, 1e-9, 0.3, 0.5, 1 - 1e-9, 1.0]:
        assert float_laws.uniform_below(p, bits) == np.mean(uniforms < p)


def test_laplace_from_uniform_replays_numpy():
    uniforms = np.random.default_rng(5).random(3000)
    drawn = 1.0 + np.random.default_rng(5).laplace(0.0, 2.0, 3000)
    replay = [float_laws.laplace_from_uniform(1.0, 2.0, u) for u in uniforms]
    assert np.array_equal(drawn, replay)


def test_laplace_reachability_accepts_own_outputs_and_rejects_others():
    rng = np.random.default_rng(0)
    own = float_laws.laplace_float(np.zeros(300), 1.0, 1.0, rng)
    assert all(float_laws.laplace_reachable(y, 0.0, 1.0) for y in own)
    # a float between two consecutive outputs of the sampler is never reachable
    u = 0.25
    y = float_laws.laplace_from_uniform(0.0, 1.0, u)
    neighbour = float_laws.laplace_from_uniform(0.0, 1.0, u + 2.0**-53)
    between = np.nextafter(y, neighbour)
    if between != neighbour:
        assert not float_laws.laplace_reachable(between, 0.0, 1.0)


# --- the cases of the review: loss within the claim, or exact -------------------------


@pytest.mark.parametrize(
    "levels, d, epsilon, float_loss, exact",
    [
        (4, 1, 15.0, 15.0, False),
        (4, 1, 36.0, 36.177, True),
        (4, 1, 38.0, math.inf, True),
        (6, 2, 30.0, 30.0, False),
        (6, 2, 40.0, math.inf, True),
        (6, 2, 120.0, math.inf, True),
    ],
)
def test_lsrr_uses_the_float_law_only_within_its_claim(
    levels, d, epsilon, float_loss, exact, monkeypatch
):
    # Old code: the float law at every budget (loss 36.18 at 36, infinite from 38).
    assert lsrr.lsrr_sampled_loss(epsilon, levels, d) == pytest.approx(
        float_loss, abs=1e-3
    )
    calls = []
    original = lsrr._lsrr_groups_exact
    monkeypatch.setattr(
        lsrr, "_lsrr_groups_exact", lambda *a: calls.append(a) or original(*a)
    )
    points = np.full((50, d), 0.01)
    lsrr.lsrr(points, epsilon, [[0.0, 1.0]] * d, np.random.default_rng(1), levels)
    assert bool(calls) == exact


@pytest.mark.parametrize("epsilon", [38.0, 96.0, 120.0])
def test_lsrr_exact_groups_have_the_staircase_law(epsilon):
    # At these budgets the far groups have probability ~e^-epsilon: the draws land in
    # the groups of the e^eps component with the integer weights (L-1-g)|G_g|.
    n, levels, d = 60000, 4, 1
    group = lsrr._lsrr_groups_exact(epsilon, levels, d, np.random.default_rng(4), n)
    weights = np.array([3, 2, 2, 0]) / 7
    for g in range(levels):
        assert _binomial_ok(np.sum(group == g), n, weights[g])


def test_lsrr_exact_groups_law_at_a_moderate_budget():
    n, levels, d, epsilon = 60000, 4, 1, 1.5
    group = lsrr._lsrr_groups_exact(epsilon, levels, d, np.random.default_rng(5), n)
    a, sizes = lsrr._lsrr_constants(epsilon, levels, d)
    law = a * sizes
    for g in range(levels):
        assert _binomial_ok(np.sum(group == g), n, law[g])


@pytest.mark.parametrize(
    "side, epsilon, float_loss", [(0.1, 36.0, 36.1008), (0.25, 40.0, math.inf)]
)
def test_square_mechanism_float_law_and_the_switch(side, epsilon, float_loss):
    loss = local_mechanisms.square_sampled_loss(epsilon, [[0.0, 1.0]], side)
    assert loss == pytest.approx(float_loss, abs=1e-3)
    # above the claim the sampler draws exactly: outside happens with probability
    # (1 - s) e^-eps / (s + (1 - s) e^-eps), tested through the exact sampler at a
    # budget where it is measurable
    rng = np.random.default_rng(6)
    inside = exact_sampling.weighted_pair(side, 1 - side, 3.0, rng, 50000)
    p = side / (side + (1 - side) * math.exp(-3.0))
    assert _binomial_ok(inside.sum(), 50000, p)


def test_square_mechanism_at_40_releases_outside_the_square_sometimes():
    # Float sampler: none of 10^6 draws outside a side-0.25 square; exact: the
    # probability is 0.75 e^-40 / 0.25 ~ 1.3e-17, so the test checks the code path:
    # the release is computed and lies in the domain.
    out = local_mechanisms.square_mechanism(
        np.full(1000, 0.5), 40.0, [[0.0, 1.0]], np.random.default_rng(7), side=0.25
    )
    assert np.all((out >= 0) & (out <= 1))


# --- DP-TT turns and randomized response ----------------------------------------------


def test_turns_within_the_floor_are_the_float_comparison_bit_for_bit():
    z = np.linspace(-13.8, 13.8, 1001)
    uniform = np.random.default_rng(8).random(z.size)
    turns = mechanisms._exact_beyond_floor(z, uniform, np.random.default_rng(9))
    from scipy.special import expit

    assert np.array_equal(turns, uniform < expit(z))


@pytest.mark.parametrize("gap", [36.0, 37.0])
def test_turns_beyond_the_floor_are_exact(gap):
    # Old code: U < expit(gap) made the wrong turn 2.2e-16 likely at 36, never at 37.
    from scipy.special import expit

    wrong = 1 - float_laws.uniform_below(expit(gap))
    assert wrong == {36.0: 2.0**-52, 37.0: 0.0}[gap]
    # the exact path at a measurable gap (the same code beyond the floor): 15
    n, z = 400000, 15.0
    turns = mechanisms._exact_beyond_floor(
        np.full(n, -z), np.zeros(n), np.random.default_rng(10)
    )
    assert _binomial_ok(turns.sum(), n, 1 / (1 + math.exp(z)))


def _turns_by_intervals(z, uniform, rng):
    """Turns beyond the floor drawn one |z| at a time by weighted_pair (interval
    arithmetic for every draw), in the order turns_beyond_floor promises."""
    from scipy.special import expit

    turns = uniform < expit(z)
    where = np.flatnonzero(np.abs(z) > exact_sampling.TURN_Z_FLOOR)
    size = np.abs(z[where])
    for value in np.unique(size[np.isfinite(size)]):
        rows = where[size == value]
        first = exact_sampling.weighted_pair(1, 1, float(value), rng, rows.size)
        turns[rows] = first == (z[rows] > 0)
    turns[where[~np.isfinite(size)]] = z[where[~np.isfinite(size)]] > 0
    return turns


@pytest.mark.parametrize("forced", [False, True])
def test_turns_beyond_the_floor_equal_the_interval_draws_one_for_one(
    forced, monkeypatch
):
    # forced: a margin of 2^61 leaves every uniform undecided by the float threshold,
    # so the generator is put back and every turn drawn by the intervals
    if forced:
        monkeypatch.setattr(exact_sampling, "_THRESHOLD_MARGIN", 2**61)
    rng = np.random.default_rng(31)
    gaps = np.concatenate(
        [rng.uniform(13.9, 60.0, 300), np.full(50, 14.5), [1e6, 40.0, 40.0]]
    )
    z = np.concatenate([gaps * rng.choice([-1.0, 1.0], gaps.size), [np.inf, -3.0]])
    rng.shuffle(z)
    uniform = rng.random(z.size)
    fast, slow = np.random.default_rng(5), np.random.default_rng(5)
    turns = exact_sampling.turns_beyond_floor(z, uniform, fast)
    assert np.array_equal(turns, _turns_by_intervals(z, uniform, slow))
    assert fast.bit_generator.state == slow.bit_generator.state


@pytest.mark.parametrize("gamma", [13.9, 20.0, 41.5, 700.0])
def test_the_float_threshold_decides_as_the_intervals_next_to_it(gamma):
    import mpmath

    # the exact threshold of weighted_pair(1, 1, gamma): True iff U < p
    with mpmath.workprec(400):
        p = 1 / (1 + mpmath.exp(-mpmath.mpf(gamma)))
        edge = int(mpmath.floor(p * 2**62))
    margin = exact_sampling._THRESHOLD_MARGIN
    u = np.array(
        [0, edge - margin - 4, edge - margin - 1, edge + margin + 2, 2**62 - 1]
    )
    # those the float threshold decides (more than the margin away from it)
    u = u[(u >= 0) & (u < 2**62) & (np.abs(u - edge) > margin)]

    class Fixed:  # a generator whose next 62-bit uniforms are u
        bit_generator = np.random.default_rng(0).bit_generator

        def integers(self, low, high, size):
            return u.copy()

    fast = exact_sampling._likely_turns(np.full(u.size, gamma), Fixed())
    share = lambda iv: 1 / (1 + iv.exp(-iv.mpf(gamma)))  # noqa: E731
    exact = exact_sampling.bernoulli_from_bounds(
        exact_sampling.interval_bounds(share), np.random.default_rng(1), u.size, u
    )
    assert np.array_equal(fast, exact)
    assert np.array_equal(fast, u < edge)


def test_randomized_response_switches_to_the_exact_keep_above_its_safe_budget():
    keep = float_laws.uniform_below(mechanisms.keep_probability(40.0))
    assert float_laws.binary_loss(keep) == math.inf
    bits = np.zeros(200000, dtype=int)
    out = mechanisms.randomized_response(bits, 3.0, np.random.default_rng(11))
    assert _binomial_ok(out.sum(), bits.size, 1 / (1 + math.exp(3.0)))
    out = mechanisms.randomized_response(bits[:1000], 40.0, np.random.default_rng(11))
    assert out.shape == (1000,)


# --- the exact samplers ---------------------------------------------------------------


@pytest.mark.parametrize("gamma", [0.0, 0.4, 1.0, 2.75])
def test_bernoulli_exp_law(gamma):
    n = 200000
    hits = exact_sampling.bernoulli_exp(gamma, np.random.default_rng(12), n).sum()
    assert _binomial_ok(hits, n, math.exp(-gamma))


def test_categorical_with_weights_beyond_int64():
    weights = [2**70, 3 * 2**70]
    draw = exact_sampling.categorical(weights, np.random.default_rng(13), 40000)
    assert _binomial_ok(np.sum(draw == 1), 40000, 0.75)


def test_discrete_laplace_law():
    n, t = 20000, 2.5
    z = exact_sampling.discrete_laplace(t, np.random.default_rng(14), n).astype(float)
    r = math.exp(-1 / t)
    for value in [0, 1, -1, 3]:
        p = (1 - r) / (1 + r) * r ** abs(value)
        assert _binomial_ok(np.sum(z == value), n, p)


def test_exact_samplers_are_seeded():
    a = exact_sampling.weighted_pair(1, 2, 5.0, np.random.default_rng(15), 100)
    b = exact_sampling.weighted_pair(1, 2, 5.0, np.random.default_rng(15), 100)
    assert np.array_equal(a, b)


def test_float_laplace_outputs_are_mostly_impossible_for_a_neighbour():
    # Mironov's attack on the float sampler: value 1 vs value 0, scale 1. Of 400
    # outputs from 0, the share no uniform maps to from 1 is far from 0 (it is about
    # 0.8; a binomial check that it exceeds 0.5 fails falsely below 1e-6).
    y = float_laws.laplace_float(np.zeros(400), 1.0, 1.0, np.random.default_rng(16))
    unreachable = np.mean([not float_laws.laplace_reachable(v, 1.0, 1.0) for v in y])
    assert unreachable > 0.5 + Z * math.sqrt(0.25 / 400)


# --- the exponential mechanism's Gumbel-max draw --------------------------------------


def _gumbel_grid_law(scores, bits):
    """The law of argmax(scores + G) for numpy's Gumbel on a 2^-bits grid: every
    tuple of uniforms enumerated (U = 1 - k 2^-bits, k >= 1; the first maximum
    wins)."""
    k = np.arange(1, 2**bits)
    noise = -np.log(-np.log(1 - k / 2.0**bits))
    grids = np.meshgrid(*[noise] * len(scores), indexing="ij")
    win = np.argmax(np.stack([s + g for s, g in zip(scores, grids)]), axis=0)
    return np.bincount(win.ravel(), minlength=len(scores)) / win.size


@pytest.mark.parametrize(
    "bits, scores",
    [
        (11, [0.0, 0.0]),
        (11, [0.0, -1.0]),
        (11, [0.0, -3.0]),
        (11, [0.0, -6.0]),
        (7, [0.0, -1.0, -2.0]),
        (7, [0.0, 0.0, -3.0]),
    ],
)
def test_float_gumbel_law_is_within_one_grid_step_of_each_probability(bits, scores):
    # The bound the exponential mechanism's floor rests on: |sampled / p - 1| is at
    # most 2^-bits / p for every candidate (at 53 bits and p >= 2^-20: 2^-33).
    from scipy.special import softmax

    p = softmax(np.array(scores))
    sampled = _gumbel_grid_law(scores, bits)
    assert np.all(np.abs(sampled - p) <= 2.0**-bits)
    assert np.any(np.abs(sampled - p) > 0.2 * 2.0**-bits)  # the bound is not loose


def test_float_gumbel_never_draws_a_candidate_41_below():
    # Old code: the float Gumbel lies in [g(2^-53), g(1 - 2^-53)], 40.3 wide, so a
    # candidate 41 below the best had sampled probability 0 (an infinite loss).
    def g(u):
        return -math.log(-math.log(u))

    assert g(1 - 2.0**-53) - g(2.0**-53) < 41
    scores = np.array([[0.0, -41.0]])
    rng = np.random.default_rng(0)
    light = exact_choice.gumbel_beyond_floor(scores, scores.copy(), rng)
    assert light[0, 1] == -np.inf or light[0, 0] == -np.inf  # decided exactly


def test_exponential_rows_above_the_floor_are_the_gumbel_draw_bit_for_bit():
    utilities = np.random.default_rng(18).uniform(0, 10, (3000, 5))
    chosen = mechanisms.exponential(utilities, 2.0, 1.0, np.random.default_rng(19))
    noise = np.random.default_rng(19).gumbel(size=utilities.shape)
    scores = (utilities - utilities.max(axis=1, keepdims=True)) * (2.0 / 2)
    assert np.array_equal(chosen, np.argmax(scores + noise, axis=1))


def test_exponential_rows_with_light_candidates_draw_them_exactly(monkeypatch):
    # Below the floor the light side is drawn with exactly its probability (here
    # made measurable by calling the light side of a candidate of probability 0.3,
    # with the float enclosure and with every row refined in intervals).
    from dpnn import exact_choice as es

    n = 40000
    rows = np.tile([math.log(0.3), math.log(0.7)], (n, 1))
    light = np.tile([True, False], (n, 1))
    drawn = es._light_side(rows, light, np.random.default_rng(20))
    assert _binomial_ok(drawn.size, n, 0.3)
    monkeypatch.setattr(es, "_SHARE_MARGIN", 0.9)
    drawn = es._light_side(rows[:3000], light[:3000], np.random.default_rng(21))
    assert _binomial_ok(drawn.size, 3000, 0.3)


def test_exponential_uses_the_exact_side_only_below_the_floor(monkeypatch):
    from dpnn import exact_choice as es

    calls = []
    original = es._light_side
    monkeypatch.setattr(
        es, "_light_side", lambda *a: calls.append(a[0].shape) or original(*a)
    )
    gap = np.array([[0.0, exact_sampling.TURN_Z_FLOOR - 0.01]])
    mechanisms.exponential(gap, 2.0, 1.0, np.random.default_rng(22))  # scaled gap
    assert not calls
    mechanisms.exponential(gap + [[0.0, 0.02]], 2.0, 1.0, np.random.default_rng(22))
    assert calls == [(1, 2)]


@pytest.mark.parametrize("weights", [[0.0, -1.0, -np.inf, -2.5, 0.3], [-700.0, -701.0]])
@pytest.mark.parametrize("forced", [False, True])
def test_categorical_log_law(weights, forced, monkeypatch):
    # forced: a margin of 1 sends every draw through the mpmath intervals
    monkeypatch.setattr(exact_choice, "_CDF_MARGIN", 1.0 if forced else 1e-12)
    n = 3000
    rng = np.random.default_rng(23)
    drawn = np.array([exact_choice.categorical_log(weights, rng) for _ in range(n)])
    w = np.array(weights)
    p = np.exp(w - w.max())
    p /= p.sum()
    for i in range(len(w)):
        assert _binomial_ok(np.sum(drawn == i), n, p[i])


def test_simrand_flips_draw_exactly_where_the_float_flip_would_never_happen(
    monkeypatch,
):
    # epsilon / K = 40: a float flip U >= keep has probability 0 (an infinite loss).
    from dpnn.simrand import flip_bits

    keep = float_laws.uniform_below(mechanisms.keep_probability(40.0))
    assert keep == 1.0
    calls = []
    original = exact_sampling.weighted_pair
    monkeypatch.setattr(
        exact_sampling, "weighted_pair", lambda *a: calls.append(a) or original(*a)
    )
    bits = np.zeros((20, 8), dtype=bool)
    flip_bits(bits, 10.0, 1, np.random.default_rng(24))  # 10 per bit: float draw
    assert not calls
    flip_bits(bits, 80.0, 2, np.random.default_rng(24))  # 40 per bit: exact
    assert calls and calls[0][2] == 40.0
    # the flips' law at a measurable budget per bit (3 = 6 / K with K = 2)
    out = flip_bits(np.zeros(200000, dtype=bool), 6.0, 2, np.random.default_rng(25))
    assert _binomial_ok(out.sum(), out.size, 1 / (1 + math.exp(3.0)))


def test_noisy_argmax_float_noise_is_bounded_and_the_exact_noise_is_not():
    # Float Laplace noise lies in [-52 ln 2, 53 ln 2] / epsilon (U = 2^-53 and
    # 1 - 2^-53 are its extremes), so counts 73 apart at epsilon = 1 never swap: the
    # lower label's probability is 0 (the float noise), positive one count closer.
    # noisy_argmax draws exact noise instead, whose law at a gap of 1 is checked.
    from dpnn.classification import noisy_argmax

    extreme = float_laws.laplace_from_uniform(0.0, 1.0, 2.0**-53)
    assert extreme == pytest.approx(-52 * math.log(2), rel=1e-12)
    top = float_laws.laplace_from_uniform(0.0, 1.0, 1 - 2.0**-53)
    assert top == pytest.approx(53 * math.log(2), rel=1e-12)
    counts = np.array([[0, 73]])
    rng = np.random.default_rng(27)
    noisy = float_laws.laplace_float(np.repeat(counts, 20000, 0), 1.0, 1.0, rng)
    assert 0 not in np.argmax(noisy, axis=1)
    # exact noise: the law of argmax(c + L) for continuous Laplace(1) at a gap of 1,
    # Pr[L0 - L1 > 1] = e^-1 (2 + 1) / 4 (to the grid's 2^-30)
    n = 4000
    chosen = noisy_argmax(np.repeat([[0, 1]], n, 0), 1.0, np.random.default_rng(26))
    assert _binomial_ok(np.sum(chosen == 0), n, 3 / 4 * math.exp(-1))


# --- PSD noise --------------------------------------------------------------------


def test_psd_exact_counts_are_on_the_grid_with_laplace_spread():
    from dpnn.psd import quadtree

    counts = (np.zeros(1), np.zeros(4), np.zeros(16), np.zeros(64), np.zeros(256))
    epsilons = np.array([0.5, 0.3, 0.1, 0.05, 0.05])  # leaves first
    noisy = quadtree.noisy_counts(counts, epsilons, np.random.default_rng(28))
    leaves = noisy[-1]
    assert np.array_equal(leaves * 2.0**30, np.round(leaves * 2.0**30))
    # E|L| = 1 / epsilon and sd |L| = 1 / epsilon: 256 leaves at epsilon 0.5
    assert abs(np.mean(np.abs(leaves)) - 2.0) <= Z * 2.0 / 16


@pytest.mark.parametrize("n, epsilon, light", [(4, 0.5, False), (60, 2.0, True)])
def test_em_median_segments_draw_light_intervals_exactly(
    n, epsilon, light, monkeypatch
):
    # 60 values at epsilon 2: the extreme ranks are e^-30 likely, never drawn by
    # float Gumbel noise beyond a gap of 40.3 (old code); they are drawn exactly.
    from dpnn.psd import medians

    calls = []
    original = exact_choice.light_sides
    monkeypatch.setattr(
        exact_choice, "light_sides", lambda *a: calls.append(len(a[0])) or original(*a)
    )
    values = np.sort(np.random.default_rng(29).uniform(0, 1, n))
    segment = np.zeros(n, dtype=np.int64)
    out = medians.segment_medians(
        values, segment, [0.0], [1.0], "em", epsilon, np.random.default_rng(30)
    )
    assert 0 <= out[0] <= 1
    assert calls == ([1] if light else [])  # one segment with light intervals


def test_discrete_gaussian_law_and_gaussian_exact_on_the_grid():
    n, sigma = 3000, 1.5
    z = exact_sampling.discrete_gaussian(sigma, np.random.default_rng(31), n)
    z = z.astype(float)
    support = np.arange(-20, 21)
    law = np.exp(-(support**2) / (2 * sigma**2))
    law /= law.sum()
    for value in [0, 1, -2, 3]:
        assert _binomial_ok(np.sum(z == value), n, law[20 + value])
    out = mechanisms.gaussian(np.full((200, 2), 0.3), 2.0, np.random.default_rng(32))
    # step 2^(1 - 30): every output is on that grid, whatever the input
    assert np.array_equal(out * 2.0**29, np.round(out * 2.0**29))


def test_planar_laplace_float_radius_is_bounded_and_the_exact_law_is_the_lattice():
    # The float radius never exceeds 40.46 / epsilon (an infinite loss for outputs
    # beyond it from one input); the exact sampler draws Pr[z] ~ e^{-c ||z||} on Z^2.
    largest = mechanisms.planar_laplace_radius(np.array([1 - 2.0**-53]), 1.0)[0]
    assert largest == pytest.approx(40.4616, abs=1e-3)
    n, c = 3000, 1.0
    z = exact_sampling.discrete_planar_laplace(c, np.random.default_rng(33), n)
    z = z.astype(float)
    grid = np.arange(-60, 61)
    x, y = np.meshgrid(grid, grid)
    law = np.exp(-c * np.hypot(x, y))
    law /= law.sum()
    for a, b in [(0, 0), (1, 0), (1, 1), (2, -1)]:
        hits = np.sum((z[:, 0] == a) & (z[:, 1] == b))
        assert _binomial_ok(hits, n, law[60 + b, 60 + a])
    out = mechanisms.planar_laplace(
        np.full((20, 2), 0.3), 1.0, np.random.default_rng(34)
    )
    assert np.array_equal(out * 2.0**30, np.round(out * 2.0**30))  # the lattice
