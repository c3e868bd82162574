"""Debiased angles from flipped bits, and the exact law and delta of the flips."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpnn._validation import (
    generator,
    nonnegative_finite,
    positive_finite,
    positive_int,
    probability_open,
)

from . import flips, simhash

__all__ = [
    "flipped_difference_probability",
    "debiased_angle",
    "debiased_angle_std",
    "chebyshev_radius",
    "simulate_hamming",
    "exact_output_log_probabilities",
    "exact_delta",
]


def flipped_difference_probability(theta, p, both_flipped: bool = False):
    """Probability that one released bit differs from the compared bit, for vectors at
    angle theta.

    One side flipped (a released row against a query hashed exactly):
    ``p + (1 - 2p) theta / pi``. Both sides flipped independently: the same with
    ``p`` replaced by ``2 p (1 - p)``, the flip probability of an XOR of two flips.
    """
    p = _flip(p)
    if both_flipped:
        p = 2 * p * (1 - p)
    q = 1.0 - simhash.collision_probability(theta)
    return p + (1 - 2 * p) * q


def _flip(p) -> float:
    if isinstance(p, bool) or not isinstance(p, (float, int, np.floating, np.integer)):
        raise ValueError(f"p must be a flip probability in [0, 1/2), got {p!r}")
    p = float(p)
    if not (0.0 <= p < 0.5):
        raise ValueError(f"p must be a flip probability in [0, 1/2), got {p!r}")
    return p


def debiased_angle(h, k, p, both_flipped: bool = False):
    """Unbiased angle estimate from h differing bits out of k after flips with
    probability p.

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
    """Standard deviation of :func:`debiased_angle`:
    ``pi sqrt(P (1 - P) / k) / (1 - 2p)``.

    h ~ Binomial(k, P) with P from :func:`flipped_difference_probability`, since
    the k hyperplanes and the flips are independent.
    """
    k = positive_int(k, "k")
    big_p = flipped_difference_probability(theta, p, both_flipped)
    p = _flip(p)
    p_eff = 2 * p * (1 - p) if both_flipped else p
    return np.pi * np.sqrt(big_p * (1 - big_p) / k) / (1 - 2 * p_eff)


def chebyshev_radius(theta, k, p, failure, both_flipped: bool = False):
    """t with ``Pr[|theta_hat - theta| >= t] <= failure`` by Chebyshev:
    ``std / sqrt(failure)``."""
    failure = probability_open(failure, "failure")
    return debiased_angle_std(theta, k, p, both_flipped) / math.sqrt(failure)


def simulate_hamming(
    theta,
    k,
    epsilon,
    sensitivity,
    trials,
    rng,
    both_flipped: bool = False,
    chunk: int = 2000,
) -> np.ndarray:
    """Differing bits between SimRand's release of u and the hash of v, ``trials``
    independent runs.

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
        zu = flips.flip_bits((r @ u) >= 0, epsilon, sensitivity, rng)
        zv = (r @ v) >= 0
        if both_flipped:
            zv = flips.flip_bits(zv, epsilon, sensitivity, rng)
        out[start : start + m] = np.sum(zu != zv, axis=1)
    return out


def exact_output_log_probabilities(bits, p) -> np.ndarray:
    """Log-probability of each of the 2^k outputs of flipping ``bits`` (length k <= 20)
    with p.

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
    """The exact delta of SimRand at ``epsilon_target`` for one neighbouring pair at
    angle theta.

    With R public, delta(e) = E_R[ sum_z (P(z|u,R) - e^e P(z|u',R))_+ ]. Given
    H = h differing bits (H ~ Binomial(k, theta/pi)), only those h positions
    matter: if j of them keep u's bit, the ratio is ((1-p)/p)^(2j - h), with
    j ~ Binomial(h, 1 - p) under u. ``epsilon_target`` defaults to epsilon.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    k = positive_int(k, "k")
    sensitivity = positive_int(sensitivity, "sensitivity")
    e_target = (
        epsilon
        if epsilon_target is None
        else nonnegative_finite(epsilon_target, "epsilon_target")
    )
    theta = float(theta)
    if not 0 <= theta <= np.pi:
        raise ValueError(f"theta must lie in [0, pi], got {theta!r}")
    p = flips.flip_probability(epsilon, sensitivity)
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
