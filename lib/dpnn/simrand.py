"""Privacy-preserving similarity search: SimHash, SimRand and a random-projection baseline.

Source: the SimRand blog post, a post on the thesis "Privacy-preserving Similarity Search"
(Edvardsen), which gives the eight steps of SimRand but no formulas. The
formulas, the neighbouring relation and the proofs here are ours and are
derived in ``notebooks/12_private_similarity_search.ipynb``.

* **SimHash** (Charikar, STOC 2002): ``R`` is a k x d matrix of i.i.d. N(0, 1)
  entries; a vector x is hashed to the k bits ``[R x >= 0]``. Two vectors at
  angle theta collide on each bit independently with probability
  ``1 - theta / pi`` (Goemans and Williamson 1995, Lemma 3.2.2).
* **SimRand**: each SimHash bit is flipped independently with probability
  ``p = 1 / (1 + e^(epsilon / K))`` (randomized response at ``epsilon / K``
  per bit), where K bounds how many bits two neighbouring rows can differ in,
  except with probability at most ``delta`` over ``R``.
* **Baseline**: the random-projection-plus-Gaussian-noise release compared
  against in the post (Dhaliwal et al., arXiv:1901.09858; analysis in the style
  of Kenthapadi et al., "Privacy via the Johnson-Lindenstrauss transform",
  J. Privacy and Confidentiality 2013), calibrated to the same neighbour
  relation.

Neighbouring relation (both methods): datasets X, X' with the same number of
rows that differ in one row, the two versions u, u' of that row making an angle
of at most ``alpha``. The baseline also needs bounded norms, so it releases the
rows scaled to unit length; SimHash is scale-free and needs no such step.

The projection R is drawn independently of the data and treated as public
(it is needed to hash queries), so every guarantee below holds for the pair
(R, Z) released together.

Mechanisms sample with floating point and are for research and teaching, not
for protecting real users without a vetted library.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

from dpnn import mechanisms
from dpnn.progress import progress
from dpnn._validation import (finite_array, generator, nonnegative_finite, positive_finite,
                              positive_int, probability_open)

__all__ = [
    "estimator_study",
    "projection",
    "simhash",
    "collision_probability",
    "hamming",
    "angle_from_hamming",
    "angles",
    "check_alpha",
    "sensitivity_bound",
    "flip_probability",
    "flip_bits",
    "SimRandRelease",
    "simrand",
    "flipped_difference_probability",
    "debiased_angle",
    "debiased_angle_std",
    "chebyshev_radius",
    "simulate_hamming",
    "exact_output_log_probabilities",
    "exact_delta",
    "gaussian_sigma_classical",
    "gaussian_sigma_analytic",
    "gaussian_delta",
    "projection_sensitivity",
    "GaussianRelease",
    "gaussian_projection",
    "squared_distance_estimate",
    "knn_hamming",
    "knn_euclidean",
    "exact_knn_angular",
    "recall_at",
    "recall_table",
    "clustered_vectors",
    "load_vectors",
]


# --- SimHash -------------------------------------------------------------------------------

def projection(k, d, rng) -> np.ndarray:
    """A k x d matrix of i.i.d. standard normal entries (SimHash's k random hyperplanes)."""
    k = positive_int(k, "k")
    d = positive_int(d, "d")
    return generator(rng).standard_normal((k, d))


def _rows(x, name="x") -> np.ndarray:
    array = finite_array(x, name, ndim=(1, 2))
    return array[None, :] if array.ndim == 1 else array


def simhash(x, r) -> np.ndarray:
    """SimHash bits ``[R x >= 0]`` of each row of ``x``: an (n, k) bool array.

    ``x`` is (n, d) or (d,); ``r`` is the (k, d) projection. A zero row hashes to
    all ones (the convention sign(0) = +1); its angle to anything is undefined.
    """
    x = _rows(x)
    r = finite_array(r, "r", ndim=(2,))
    if r.shape[1] != x.shape[1]:
        raise ValueError(f"r must have d = {x.shape[1]} columns to match x, got shape {r.shape}")
    return (x @ r.T) >= 0


def collision_probability(theta):
    """``1 - theta / pi``: the probability one SimHash bit agrees on two vectors at angle theta."""
    theta = np.asarray(theta, dtype=float)
    if np.any(~np.isfinite(theta)) or np.any(theta < 0) or np.any(theta > np.pi):
        raise ValueError("theta must lie in [0, pi]")
    return 1.0 - theta / np.pi


def hamming(a, b) -> np.ndarray:
    """Pairwise Hamming distances between the rows of bit arrays a (n, k) and b (m, k): (n, m).

    Computed as two matrix products, ``a (1 - b)^T + (1 - a) b^T``, so it is
    vectorized over all pairs.
    """
    a = np.atleast_2d(np.asarray(a)).astype(np.float32)
    b = np.atleast_2d(np.asarray(b)).astype(np.float32)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"a and b must have the same number of bits, got {a.shape} and {b.shape}")
    return np.rint(a @ (1 - b).T + (1 - a) @ b.T).astype(np.int64)


def angle_from_hamming(h, k):
    """Charikar's unbiased angle estimate ``pi * h / k`` from h differing bits out of k."""
    k = positive_int(k, "k")
    return np.pi * np.asarray(h, dtype=float) / k


def angles(a, b) -> np.ndarray:
    """Pairwise angles (radians) between the rows of a (n, d) and b (m, d): (n, m)."""
    a = _rows(a, "a")
    b = _rows(b, "b")
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError("rows must be non-zero to have an angle")
    cos = (a @ b.T) / np.outer(na, nb)
    return np.arccos(np.clip(cos, -1.0, 1.0))  # clip only absorbs rounding beyond +-1


# --- SimRand --------------------------------------------------------------------------------

def check_alpha(alpha) -> float:
    """Return ``alpha`` as a float if it lies in (0, pi]."""
    alpha = positive_finite(alpha, "alpha")
    if alpha > np.pi:
        raise ValueError(f"alpha must be an angle in (0, pi], got {alpha!r}")
    return alpha


def _kl_bernoulli(a, q):
    """KL(Bern(a) || Bern(q)) elementwise, with 0 log 0 = 0."""
    a = np.asarray(a, dtype=float)
    return special.xlogy(a, a / q) + special.xlogy(1 - a, (1 - a) / (1 - q))


def sensitivity_bound(k, alpha, delta, method: str = "exact") -> int:
    """K: the number of SimHash bits two neighbours can differ in, except with probability <= delta.

    Two rows at angle theta <= alpha differ in H ~ Binomial(k, theta / pi) bits,
    which is stochastically dominated by Binomial(k, alpha / pi). K is the
    smallest integer in [1, k] with Pr[Binomial(k, alpha/pi) > K] <= delta:

    * ``method="exact"``: the binomial tail itself (``scipy.stats.binom.sf``);
    * ``method="chernoff"``: the Chernoff-Hoeffding bound
      ``Pr[H >= a] <= exp(-k KL(a/k || q))`` for ``a >= k q`` (Hoeffding 1963,
      Thm 1), applied with a = K + 1. It is never smaller than the exact K.

    K is at least 1 (so the flip probability is defined) and at most k, where
    the event "more than K bits differ" is impossible.
    """
    k = positive_int(k, "k")
    alpha = check_alpha(alpha)
    delta = probability_open(delta, "delta")
    q = alpha / np.pi
    candidates = np.arange(1, k + 1)
    if method == "exact":
        tail = stats.binom.sf(candidates, k, q)
    elif method == "chernoff":
        a = np.minimum((candidates + 1) / k, 1.0)  # Pr[H > K] = Pr[H >= K + 1]
        if q < 1:
            bound = np.where(a <= q, 1.0, np.exp(-k * _kl_bernoulli(a, q)))
        else:
            bound = np.ones(k)
        tail = np.where(candidates >= k, 0.0, bound)
    else:
        raise ValueError(f"method must be 'exact' or 'chernoff', got {method!r}")
    ok = np.flatnonzero(tail <= delta)
    return int(candidates[ok[0]])


def flip_probability(epsilon, sensitivity) -> float:
    """``p = 1 / (1 + e^(epsilon / K))``: randomized response at ``epsilon / K`` per bit."""
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_int(sensitivity, "sensitivity")
    return float(special.expit(-epsilon / sensitivity))


def flip_bits(bits, epsilon, sensitivity, rng) -> np.ndarray:
    """SimRand's noise (steps 5-8): flip each bit independently with p = 1/(1 + e^(epsilon/K)).

    This is :func:`dpnn.mechanisms.randomized_response` at ``epsilon / K`` per
    bit (its keep probability e^(eps/K) / (1 + e^(eps/K)) is 1 - p).

    Privacy: for two bit vectors differing in h positions, every output's
    likelihood ratio is at most e^(epsilon h / K); epsilon-DP whenever h <= K.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_int(sensitivity, "sensitivity")
    return mechanisms.randomized_response(bits, epsilon / sensitivity, rng).astype(bool)


class SimRandRelease:
    """What SimRand publishes: the projection, the flipped bits and the parameters."""

    def __init__(self, r, bits, epsilon, delta, alpha, sensitivity, flip):
        self.r = r
        self.bits = bits
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.sensitivity = sensitivity
        self.flip = flip

    def __repr__(self):
        n, k = self.bits.shape
        return (f"SimRandRelease(n={n}, k={k}, epsilon={self.epsilon}, delta={self.delta}, "
                f"alpha={self.alpha:.4g}, K={self.sensitivity}, p={self.flip:.4g})")


def simrand(x, k, epsilon, delta, alpha, rng, method: str = "exact") -> SimRandRelease:
    """SimRand (the blog post's eight steps): SimHash to k bits, then flip each with p = 1/(1+e^(eps/K)).

    Steps: (1) R ~ N(0,1)^{k x d}; (2) Y = X R^T; (3) bits [Y >= 0];
    (4) K = :func:`sensitivity_bound` (k, alpha, delta); (5) p = :func:`flip_probability`;
    (6) U ~ Uniform[0,1)^{n x k}; (7) flips [U < p]; (8) Z = bits XOR flips.

    Privacy: (epsilon, delta)-DP for the pair (R, Z) under the relation "replace
    one row by one at angle <= alpha" (proof in notebook 12): given R, two
    neighbours' hashes differ in H bits and every output's likelihood ratio is
    at most e^(epsilon H / K) <= e^epsilon whenever H <= K; H > K has probability
    at most delta over R. Each row is released independently, so this also
    bounds the local privacy of each row's release.
    """
    x = _rows(x)
    k = positive_int(k, "k")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    alpha = check_alpha(alpha)
    rng = generator(rng)
    r = projection(k, x.shape[1], rng)  # step 1
    bits = simhash(x, r)  # steps 2-3
    sensitivity = sensitivity_bound(k, alpha, delta, method)  # step 4
    p = flip_probability(epsilon, sensitivity)  # step 5
    released = flip_bits(bits, epsilon, sensitivity, rng)  # steps 6-8: XOR with Bernoulli(p) flips
    return SimRandRelease(r, released, epsilon, delta, alpha, sensitivity, p)


def flipped_difference_probability(theta, p, both_flipped: bool = False):
    """Probability that one released bit differs from the compared bit, for vectors at angle theta.

    One side flipped (a released row against a query hashed exactly):
    ``p + (1 - 2p) theta / pi``. Both sides flipped independently: the same with
    ``p`` replaced by ``2 p (1 - p)``, the flip probability of an XOR of two flips.
    """
    p = _flip(p)
    if both_flipped:
        p = 2 * p * (1 - p)
    q = 1.0 - collision_probability(theta)
    return p + (1 - 2 * p) * q


def _flip(p) -> float:
    if isinstance(p, bool) or not isinstance(p, (float, int, np.floating, np.integer)):
        raise ValueError(f"p must be a flip probability in [0, 1/2), got {p!r}")
    p = float(p)
    if not (0.0 <= p < 0.5):
        raise ValueError(f"p must be a flip probability in [0, 1/2), got {p!r}")
    return p


def debiased_angle(h, k, p, both_flipped: bool = False):
    """Unbiased angle estimate from h differing bits out of k after flips with probability p.

    ``E[h] = k (p + (1 - 2p) theta / pi)``, so ``pi (h / k - p) / (1 - 2p)`` has
    expectation theta (with ``p -> 2p(1-p)`` when both sides were flipped). It
    can fall outside [0, pi]; clipping it would bias it, so it is not clipped.
    """
    k = positive_int(k, "k")
    p = _flip(p)
    if both_flipped:
        p = 2 * p * (1 - p)
    return np.pi * (np.asarray(h, dtype=float) / k - p) / (1 - 2 * p)


def debiased_angle_std(theta, k, p, both_flipped: bool = False):
    """Standard deviation of :func:`debiased_angle`: ``pi sqrt(P (1 - P) / k) / (1 - 2p)``.

    h ~ Binomial(k, P) with P from :func:`flipped_difference_probability`, since
    the k hyperplanes and the flips are independent.
    """
    k = positive_int(k, "k")
    big_p = flipped_difference_probability(theta, p, both_flipped)
    p = _flip(p)
    p_eff = 2 * p * (1 - p) if both_flipped else p
    return np.pi * np.sqrt(big_p * (1 - big_p) / k) / (1 - 2 * p_eff)


def chebyshev_radius(theta, k, p, failure, both_flipped: bool = False):
    """t with ``Pr[|theta_hat - theta| >= t] <= failure`` by Chebyshev: ``std / sqrt(failure)``."""
    failure = probability_open(failure, "failure")
    return debiased_angle_std(theta, k, p, both_flipped) / math.sqrt(failure)


def simulate_hamming(theta, k, epsilon, sensitivity, trials, rng, both_flipped: bool = False,
                     chunk: int = 2000) -> np.ndarray:
    """Differing bits between SimRand's release of u and the hash of v, ``trials`` independent runs.

    u and v are unit vectors at angle theta in the plane (only the span of u and
    v matters to SimHash, so d = 2 loses no generality). Each run draws a fresh
    k x 2 projection, hashes both, flips u's bits (and v's if ``both_flipped``)
    with :func:`flip_bits`, and counts the differing bits. Vectorized in chunks.
    """
    k = positive_int(k, "k")
    trials = positive_int(trials, "trials")
    chunk = positive_int(chunk, "chunk")
    theta = float(theta)
    if not 0 <= theta <= np.pi:
        raise ValueError(f"theta must lie in [0, pi], got {theta!r}")
    rng = generator(rng)
    u = np.array([1.0, 0.0])
    v = np.array([math.cos(theta), math.sin(theta)])
    out = np.empty(trials, dtype=np.int64)
    for start in range(0, trials, chunk):
        m = min(chunk, trials - start)
        r = rng.standard_normal((m, k, 2))
        zu = flip_bits((r @ u) >= 0, epsilon, sensitivity, rng)
        zv = (r @ v) >= 0
        if both_flipped:
            zv = flip_bits(zv, epsilon, sensitivity, rng)
        out[start:start + m] = np.sum(zu != zv, axis=1)
    return out


def estimator_study(theta, k_values, epsilon_values, alpha, delta, trials, rng):
    """Simulated mean, spread and 90% error of the de-biased angle estimator against its theory.

    One row per (k, epsilon): SimRand's K and flip probability p for angle bound
    ``alpha`` and ``delta``, the mean and standard error of
    :func:`debiased_angle` over ``trials`` simulated pairs at true angle
    ``theta``, its simulated and analytic standard deviation, and the simulated
    90% error quantile against the Chebyshev radius at failure 0.1.
    """
    import pandas as pd

    rows = []
    for k in k_values:
        sensitivity = sensitivity_bound(k, alpha, delta)
        for epsilon in epsilon_values:
            p = flip_probability(epsilon, sensitivity)
            estimate = debiased_angle(simulate_hamming(theta, k, epsilon, sensitivity, trials, rng), k, p)
            rows.append({"k": k, "epsilon": epsilon, "K": sensitivity, "p": p, "mean": estimate.mean(),
                         "se": estimate.std(ddof=1) / np.sqrt(trials), "std": estimate.std(ddof=1),
                         "std_theory": debiased_angle_std(theta, k, p),
                         "q90": np.quantile(np.abs(estimate - theta), 0.9),
                         "chebyshev90": chebyshev_radius(theta, k, p, 0.1)})
    return pd.DataFrame(rows)


def exact_output_log_probabilities(bits, p) -> np.ndarray:
    """Log-probability of each of the 2^k outputs of flipping ``bits`` (length k <= 20) with p.

    Output z is indexed by the integer whose binary digits (most significant
    first) are z's bits. ``log P(z) = m log p + (k - m) log(1 - p)``, m the
    number of positions where z differs from ``bits``.
    """
    bits = np.asarray(bits).astype(bool).ravel()
    k = bits.size
    if not 1 <= k <= 20:
        raise ValueError(f"bits must have between 1 and 20 entries, got {k}")
    p = _flip(p)
    if p == 0:
        raise ValueError("p must be > 0 for exact log-probabilities")
    outputs = ((np.arange(2**k)[:, None] >> np.arange(k - 1, -1, -1)) & 1).astype(bool)
    mismatches = np.sum(outputs != bits, axis=1)
    return mismatches * math.log(p) + (k - mismatches) * math.log1p(-p)


def exact_delta(epsilon, k, theta, sensitivity, epsilon_target=None) -> float:
    """The exact delta of SimRand at ``epsilon_target`` for one neighbouring pair at angle theta.

    With R public, delta(e) = E_R[ sum_z (P(z|u,R) - e^e P(z|u',R))_+ ]. Given
    H = h differing bits (H ~ Binomial(k, theta/pi)), only those h positions
    matter: if j of them keep u's bit, the ratio is ((1-p)/p)^(2j - h), with
    j ~ Binomial(h, 1 - p) under u. ``epsilon_target`` defaults to epsilon.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    k = positive_int(k, "k")
    sensitivity = positive_int(sensitivity, "sensitivity")
    e_target = (epsilon if epsilon_target is None
                else nonnegative_finite(epsilon_target, "epsilon_target"))
    theta = float(theta)
    if not 0 <= theta <= np.pi:
        raise ValueError(f"theta must lie in [0, pi], got {theta!r}")
    p = flip_probability(epsilon, sensitivity)
    total = 0.0
    h_values = np.arange(k + 1)
    weights = stats.binom.pmf(h_values, k, theta / np.pi)
    for h, weight in zip(h_values, weights):
        if weight == 0 or h == 0:
            continue
        j = np.arange(h + 1)
        mass_u = stats.binom.pmf(j, h, 1 - p)
        mass_v = stats.binom.pmf(j, h, p)
        total += weight * np.sum(np.maximum(mass_u - math.exp(e_target) * mass_v, 0.0))
    return float(total)


# --- The baseline: random projection plus Gaussian noise ----------------------------------------

def gaussian_sigma_classical(sensitivity, epsilon, delta) -> float:
    """Classical Gaussian calibration ``sigma = Delta sqrt(2 ln(1.25 / delta)) / epsilon``.

    Dwork and Roth, *The Algorithmic Foundations of Differential Privacy* (2014),
    Thm A.1: N(0, sigma^2) noise on a query of L2 sensitivity Delta is
    (epsilon, delta)-DP for epsilon in (0, 1). Larger epsilon raises ValueError.
    """
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    if epsilon >= 1:
        raise ValueError(f"epsilon must be in (0, 1) for the classical calibration, got {epsilon!r}")
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def gaussian_delta(sigma, sensitivity, epsilon) -> float:
    """Exact delta of the Gaussian mechanism at epsilon (Balle and Wang, ICML 2018, Thm 8).

    ``delta = Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta)``,
    the smallest delta for which N(0, sigma^2) noise is (epsilon, delta)-DP.
    Evaluated with log-CDFs so large epsilon does not overflow.
    """
    sigma = positive_finite(sigma, "sigma")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    first = stats.norm.cdf(a - b)
    second = math.exp(epsilon + stats.norm.logcdf(-a - b))
    return float(max(first - second, 0.0))


def gaussian_sigma_analytic(sensitivity, epsilon, delta) -> float:
    """The smallest sigma with (epsilon, delta)-DP: the analytic Gaussian mechanism.

    Balle and Wang (ICML 2018), Thm 8 and Alg. 1: :func:`gaussian_delta` is
    decreasing in sigma, so we solve ``gaussian_delta(sigma) = delta`` with
    Brent's method (relative tolerance 1e-12). Valid for every epsilon > 0 and
    never larger than the classical calibration where that applies.
    """
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    lo, hi = 1e-3 * sensitivity, sensitivity
    while gaussian_delta(hi, sensitivity, epsilon) > delta:
        hi *= 2
    while gaussian_delta(lo, sensitivity, epsilon) < delta:
        lo /= 2
    return float(optimize.brentq(lambda s: gaussian_delta(s, sensitivity, epsilon) - delta,
                                 lo, hi, xtol=1e-14 * sensitivity, rtol=1e-12))


def projection_sensitivity(k, alpha, delta) -> float:
    """L2 sensitivity of ``R u / sqrt(k)`` for unit rows at angle <= alpha, except w.p. delta over R.

    ``||u - u'|| <= 2 sin(alpha / 2)`` for unit vectors, and
    ``k ||R v / sqrt(k)||^2 / ||v||^2 ~ chi^2_k`` for any fixed v. So with
    probability >= 1 - delta the projected rows are within
    ``2 sin(alpha/2) sqrt(chi^2_k(1 - delta) / k)``, chi^2_k(.) the quantile
    (the exact form of the JL step in Kenthapadi et al. 2013, Lemma 2).
    """
    k = positive_int(k, "k")
    alpha = check_alpha(alpha)
    delta = probability_open(delta, "delta")
    return 2 * math.sin(alpha / 2) * math.sqrt(stats.chi2.isf(delta, k) / k)


class GaussianRelease:
    """What the baseline publishes: the projection, the noisy projected rows and the parameters."""

    def __init__(self, r, points, epsilon, delta, alpha, sensitivity, sigma, calibration):
        self.r = r
        self.points = points
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.sensitivity = sensitivity
        self.sigma = sigma
        self.calibration = calibration

    def project(self, queries) -> np.ndarray:
        """Queries mapped the same way as the released rows: unit length, then R q / sqrt(k)."""
        q = _unit(_rows(queries, "queries"))
        return q @ self.r.T / math.sqrt(self.r.shape[0])

    def __repr__(self):
        n, k = self.points.shape
        return (f"GaussianRelease(n={n}, k={k}, epsilon={self.epsilon}, delta={self.delta}, "
                f"alpha={self.alpha:.4g}, sensitivity={self.sensitivity:.4g}, sigma={self.sigma:.4g})")


def _unit(x) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("x must have no zero rows (they have no direction)")
    return x / norms


def gaussian_projection(x, k, epsilon, delta, alpha, rng, calibration: str = "analytic",
                        split: float = 0.5) -> GaussianRelease:
    """Baseline release: unit rows, ``R u / sqrt(k)`` plus N(0, sigma^2) noise per coordinate.

    The budget delta is split: ``split * delta`` for the event that R stretches
    the difference of two neighbours beyond :func:`projection_sensitivity`, the
    rest for the Gaussian mechanism on that sensitivity, calibrated with
    ``calibration="analytic"`` (Balle and Wang 2018) or ``"classical"``
    (Dwork and Roth Thm A.1, epsilon < 1 only).

    Privacy: (epsilon, delta)-DP for the pair (R, Z) under "replace one row by
    one at angle <= alpha" (same conditioning argument as SimRand; notebook 12).
    """
    x = _unit(_rows(x))
    k = positive_int(k, "k")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    alpha = check_alpha(alpha)
    split = probability_open(split, "split")
    rng = generator(rng)
    r = projection(k, x.shape[1], rng)
    sensitivity = projection_sensitivity(k, alpha, split * delta)
    if calibration == "analytic":
        sigma = gaussian_sigma_analytic(sensitivity, epsilon, (1 - split) * delta)
    elif calibration == "classical":
        sigma = gaussian_sigma_classical(sensitivity, epsilon, (1 - split) * delta)
    else:
        raise ValueError(f"calibration must be 'analytic' or 'classical', got {calibration!r}")
    points = x @ r.T / math.sqrt(k) + rng.normal(0.0, sigma, size=(x.shape[0], k))
    return GaussianRelease(r, points, epsilon, delta, alpha, sensitivity, sigma, calibration)


def squared_distance_estimate(released, projected_queries, sigma) -> np.ndarray:
    """Unbiased estimate of ``||u - q||^2`` for every (query, row) pair: (m, n).

    ``E||z - R q / sqrt(k)||^2 = ||u - q||^2 + k sigma^2`` (JL in expectation plus
    the noise), so subtract ``k sigma^2``. For unit vectors the angle follows
    from ``||u - q||^2 = 2 - 2 cos theta``.
    """
    z = np.atleast_2d(np.asarray(released, dtype=float))
    q = np.atleast_2d(np.asarray(projected_queries, dtype=float))
    sq = (np.sum(q**2, axis=1)[:, None] - 2 * q @ z.T + np.sum(z**2, axis=1)[None, :])
    return sq - z.shape[1] * sigma**2


# --- Private k-NN search ---------------------------------------------------------------------

def _top(scores, n_neighbours) -> np.ndarray:
    """Indices of the n smallest scores per row, sorted by score (ties by index)."""
    n_neighbours = positive_int(n_neighbours, "n_neighbours")
    if n_neighbours > scores.shape[1]:
        raise ValueError(f"n_neighbours must be at most the {scores.shape[1]} released rows, "
                         f"got {n_neighbours}")
    part = np.argpartition(scores, n_neighbours - 1, axis=1)[:, :n_neighbours]
    order = np.argsort(np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def knn_hamming(release: SimRandRelease, queries, n_neighbours, rng=None) -> np.ndarray:
    """k nearest released rows to each query in Hamming distance: (m, n_neighbours) indices.

    Queries are hashed exactly with the public R (they are the querier's own
    vectors). Hamming distances are integers with many ties; with ``rng`` ties
    are broken uniformly at random, else by row index. Post-processing of the
    release, so it costs no further privacy.
    """
    query_bits = simhash(queries, release.r)
    scores = hamming(query_bits, release.bits).astype(float)
    if rng is not None:
        scores += 0.5 * generator(rng).random(scores.shape)
    return _top(scores, n_neighbours)


def knn_euclidean(release: GaussianRelease, queries, n_neighbours) -> np.ndarray:
    """k nearest released rows to each projected query in Euclidean distance: (m, n_neighbours).

    Post-processing of the release, so it costs no further privacy.
    """
    scores = squared_distance_estimate(release.points, release.project(queries), release.sigma)
    return _top(scores, n_neighbours)


def exact_knn_angular(x, queries, n_neighbours) -> np.ndarray:
    """The true k nearest rows of x to each query by angle (cosine similarity): (m, n_neighbours)."""
    x = _unit(_rows(x))
    q = _unit(_rows(queries, "queries"))
    return _top(-(q @ x.T), n_neighbours)


def recall_at(found, truth) -> np.ndarray:
    """Per query: |found ∩ truth| / |truth| (recall@k with k = truth's width)."""
    found = np.asarray(found)
    truth = np.asarray(truth)
    if found.shape[0] != truth.shape[0]:
        raise ValueError(f"found and truth must have one row per query, got {found.shape} and {truth.shape}")
    hits = (found[:, :, None] == truth[:, None, :]).any(axis=2).sum(axis=1)
    return hits / truth.shape[1]


def recall_table(data, alphas, ks, epsilons, *, n_queries, n_neighbours, repeats, delta, rng, ceiling=False):
    """Recall@n_neighbours of SimRand and the Gaussian baseline over a grid: a pandas DataFrame.

    The rows of ``data`` are shuffled; the first ``n_queries`` become queries
    (hashed or projected exactly), the rest are released, ``repeats`` times per
    (alpha, k, epsilon) and method. Columns: alpha/pi, k, epsilon, method,
    recall (mean over queries and repeats), se (its standard error, treating
    the ``n_queries * repeats`` per-query recalls as independent).

    ``ceiling=True`` adds, per (alpha, k), the recall of the same searches without
    noise (methods "SimHash, no noise" and "JL projection, no noise": exact hashes and
    projections of the released rows), repeated on every epsilon row for plotting. Its
    projections come from a child generator (``rng.spawn``), so the private rows are
    drawn exactly as without it.
    """
    import pandas as pd

    data = _rows(data, "data")
    n_queries = positive_int(n_queries, "n_queries")
    repeats = positive_int(repeats, "repeats")
    if n_queries + n_neighbours > data.shape[0]:
        raise ValueError(f"n_queries + n_neighbours must be at most the {data.shape[0]} rows of data")
    rng = generator(rng)
    order = rng.permutation(data.shape[0])
    queries, database = data[order[:n_queries]], data[order[n_queries:]]
    truth = exact_knn_angular(database, queries, n_neighbours)
    rows = []
    ceiling_rng = rng.spawn(1)[0] if ceiling else None
    for alpha in progress(alphas, total=len(alphas), desc="SimRand recall, alphas"):
        for k in ks:
            for epsilon in epsilons:
                per_query = {"SimRand": [], "Gaussian RP": []}
                for _ in range(repeats):
                    sim = simrand(database, k, epsilon, delta, alpha, rng)
                    per_query["SimRand"].append(recall_at(knn_hamming(sim, queries, n_neighbours, rng), truth))
                    gau = gaussian_projection(database, k, epsilon, delta, alpha, rng)
                    per_query["Gaussian RP"].append(recall_at(knn_euclidean(gau, queries, n_neighbours), truth))
                for method, values in per_query.items():
                    values = np.concatenate(values)
                    rows.append({"alpha/pi": alpha / np.pi, "k": k, "epsilon": epsilon, "method": method,
                                 "recall": values.mean(), "se": values.std(ddof=1) / math.sqrt(values.size)})
    if ceiling:
        rows.extend(_ceiling_rows(database, queries, truth, alphas, ks, epsilons, n_neighbours, repeats, ceiling_rng))
    return pd.DataFrame(rows)


def _ceiling_rows(database, queries, truth, alphas, ks, epsilons, n_neighbours, repeats, rng):
    """Recall of SimHash (Hamming on exact bits) and of a JL projection (Euclidean, no noise)."""
    unit_db, unit_q = _unit(database), _unit(queries)
    rows = []
    for k in ks:
        per_query = {"SimHash, no noise": [], "JL projection, no noise": []}
        for _ in range(repeats):
            r = projection(k, database.shape[1], rng)
            bits = SimRandRelease(r, simhash(database, r), float("inf"), 0.0, 0.0, 0, 0.0)
            per_query["SimHash, no noise"].append(recall_at(knn_hamming(bits, queries, n_neighbours, rng), truth))
            pq, pd_ = unit_q @ r.T, unit_db @ r.T
            squared = (pq ** 2).sum(axis=1)[:, None] + (pd_ ** 2).sum(axis=1)[None, :] - 2 * pq @ pd_.T
            per_query["JL projection, no noise"].append(recall_at(_top(squared, n_neighbours), truth))
        for method, values in per_query.items():
            values = np.concatenate(values)
            for alpha in alphas:
                for epsilon in epsilons:
                    rows.append({"alpha/pi": alpha / np.pi, "k": k, "epsilon": epsilon, "method": method,
                                 "recall": values.mean(), "se": values.std(ddof=1) / math.sqrt(values.size)})
    return rows


# --- Data --------------------------------------------------------------------------------------

def clustered_vectors(n, d, n_clusters, spread, rng) -> tuple[np.ndarray, np.ndarray]:
    """n vectors in d dimensions around n_clusters random unit directions, with labels.

    Centres are uniform on the unit sphere; each point is its centre plus
    N(0, spread^2 / d) noise per coordinate, so ``spread`` is the typical
    distance from the centre (roughly the angle, for small spread).
    """
    n = positive_int(n, "n")
    d = positive_int(d, "d", minimum=2)
    n_clusters = positive_int(n_clusters, "n_clusters")
    spread = positive_finite(spread, "spread")
    rng = generator(rng)
    centres = _unit(rng.standard_normal((n_clusters, d)))
    labels = rng.integers(0, n_clusters, size=n)
    points = centres[labels] + rng.normal(0.0, spread / math.sqrt(d), size=(n, d))
    return points, labels


def load_vectors(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A dataset scikit-learn ships, offline: ``"digits"`` (1797 x 64) or ``"breast_cancer"`` (569 x 30).

    Digits are 8x8 pixel intensities 0..16 (non-negative, so all angles are at
    most pi/2); breast-cancer features are standardized to zero mean and unit
    variance so that no single feature's unit dominates the angle.
    """
    from sklearn import datasets

    if name == "digits":
        bunch = datasets.load_digits()
        return bunch.data.astype(float), bunch.target
    if name == "breast_cancer":
        bunch = datasets.load_breast_cancer()
        data = bunch.data.astype(float)
        return (data - data.mean(axis=0)) / data.std(axis=0), bunch.target
    raise ValueError(f"name must be 'digits' or 'breast_cancer', got {name!r}")
