"""SimRand: SimHash bits flipped by randomized response, with the bound K.

Each bit is flipped with probability ``1 / (1 + e^(epsilon / K))``; K bounds how many
bits two neighbouring rows (at angle at most alpha) can differ in, except with
probability ``delta`` over R, so the release is ``(epsilon, delta)``-DP (derived in
notebook 12).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from dpnn import mechanisms
from dpnn._validation import generator, positive_finite, positive_int, probability_open

from . import simhash
from .simhash import check_rows

__all__ = [
    "check_alpha",
    "sensitivity_bound",
    "flip_probability",
    "flip_bits",
    "SimRandRelease",
    "simrand",
]


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
    """K: the number of SimHash bits two neighbours can differ in, except with
    probability <= delta.

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
    """``q = 1 / (1 + e^(epsilon / K))``: randomized response at ``epsilon / K`` per
    bit."""
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_int(sensitivity, "sensitivity")
    return float(special.expit(-epsilon / sensitivity))


def flip_bits(bits, epsilon, sensitivity, rng) -> np.ndarray:
    """SimRand's noise (steps 5-8): flip each bit independently with
    q = 1/(1 + e^(epsilon/K)).

    This is :func:`dpnn.mechanisms.randomized_response` at ``epsilon / K`` per
    bit (its keep probability e^(eps/K) / (1 + e^(eps/K)) is 1 - q).

    Privacy: for two bit vectors differing in h positions, every output's
    likelihood ratio is at most e^(epsilon h / K); epsilon-DP whenever h <= K.

    As sampled: each bit's law is that of randomized response, which draws the
    flip with a float uniform while its sampled loss is within ``epsilon / K +
    1e-9`` (``epsilon / K`` up to about 20) and exactly above (from
    ``epsilon / K`` = 37 a float flip of probability below 2^-53 would never
    happen); so every bit, and every output's likelihood ratio, keeps the bound
    above up to a factor ``e^(1e-9 h)``.
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
        return (
            f"SimRandRelease(n={n}, k={k}, epsilon={self.epsilon}, delta={self.delta}, "
            f"alpha={self.alpha:.4g}, K={self.sensitivity}, p={self.flip:.4g})"
        )


def simrand(x, k, epsilon, delta, alpha, rng, method: str = "exact") -> SimRandRelease:
    """SimRand (the blog post's eight steps): SimHash to k bits, then flip each bit
    with q = 1/(1+e^(eps/K)).

    Steps: (1) R ~ N(0,1)^{k x d}; (2) Y = X R^T; (3) bits [Y >= 0];
    (4) K = :func:`sensitivity_bound` (k, alpha, delta);
    (5) q = :func:`flip_probability`; (6) U ~ Uniform[0,1)^{n x k};
    (7) flips [U < q]; (8) Z = bits XOR flips.

    Privacy: (epsilon, delta)-DP for the pair (R, Z) under the relation "replace
    one row by one at angle <= alpha" (proof in notebook 12): given R, two
    neighbours' hashes differ in H bits and every output's likelihood ratio is
    at most e^(epsilon H / K) <= e^epsilon whenever H <= K; H > K has probability
    at most delta over R. Each row is released independently, so this also
    bounds the local privacy of each row's release.
    """
    x = check_rows(x)
    k = positive_int(k, "k")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    alpha = check_alpha(alpha)
    rng = generator(rng)
    r = simhash.projection(k, x.shape[1], rng)  # step 1
    bits = simhash.simhash(x, r)  # steps 2-3
    sensitivity = sensitivity_bound(k, alpha, delta, method)  # step 4
    p = flip_probability(epsilon, sensitivity)  # step 5
    # steps 6-8: XOR with Bernoulli(p) flips
    released = flip_bits(bits, epsilon, sensitivity, rng)
    return SimRandRelease(r, released, epsilon, delta, alpha, sensitivity, p)
