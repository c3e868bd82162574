"""Empirical privacy audits: estimate a mechanism's privacy loss from samples.

A mechanism M is epsilon-DP for neighbours D, D' iff every event S has
``Pr[M(D) in S] <= e^epsilon Pr[M(D') in S]``. Binning the outputs is
post-processing, so the bound holds bin by bin. From N samples on each input
we estimate each bin's log-ratio ``log(p_a / p_b)`` and its standard error
``sqrt(1/c_a - 1/N_a + 1/c_b - 1/N_b)`` (delta method on the two binomial
counts c_a, c_b) and report a one-sided lower confidence bound on the largest
loss. If the mechanism is epsilon-DP the bound exceeds epsilon with
probability at most ``false_alarm`` (Bonferroni over the bins, normal
approximation, adequate once every kept bin has ``min_count`` samples).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from dpnn._validation import positive_int, probability_open

__all__ = ["BinnedLoss", "binned_loss", "gaussian_privacy_loss"]


@dataclass(frozen=True)
class BinnedLoss:
    """Per-bin privacy-loss estimates over the bins that were populated enough."""

    bins: np.ndarray  # flat indices of the kept bins
    log_ratio: np.ndarray  # log(p_a / p_b) in each kept bin
    standard_error: np.ndarray
    z: float  # one-sided normal quantile after Bonferroni over the kept bins

    @property
    def estimate(self) -> float:
        """The largest |log-ratio| over kept bins (a point estimate, biased upwards)."""
        return float(np.max(np.abs(self.log_ratio)))

    @property
    def lower_bound(self) -> float:
        """A lower confidence bound on the largest loss: max |log-ratio| - z * se."""
        return float(np.max(np.abs(self.log_ratio) - self.z * self.standard_error))


def binned_loss(
    counts_a, counts_b, false_alarm: float = 1e-3, min_count: int = 100
) -> BinnedLoss:
    """Estimate the privacy loss from output counts of M(D) and M(D') over the same
    bins.

    ``counts_a`` and ``counts_b`` are histograms of equal shape (any number of
    dimensions). Bins where either count is below ``min_count`` are dropped.
    """
    a = np.asarray(counts_a, dtype=float).ravel()
    b = np.asarray(counts_b, dtype=float).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(
            f"counts_a and counts_b must be non-empty histograms of equal shape, "
            f"got {np.shape(counts_a)} and {np.shape(counts_b)}"
        )
    if (
        np.any(a < 0)
        or np.any(b < 0)
        or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)))
    ):
        raise ValueError("counts_a and counts_b must contain finite counts >= 0")
    false_alarm = probability_open(false_alarm, "false_alarm")
    min_count = positive_int(min_count, "min_count")
    kept = np.flatnonzero((a >= min_count) & (b >= min_count))
    if kept.size == 0:
        raise ValueError(
            f"no bin has min_count={min_count} samples on both inputs; use more samples"
        )
    n_a, n_b = a.sum(), b.sum()
    c_a, c_b = a[kept], b[kept]
    log_ratio = np.log(c_a / n_a) - np.log(c_b / n_b)
    standard_error = np.sqrt(1 / c_a - 1 / n_a + 1 / c_b - 1 / n_b)
    z = float(norm.isf(false_alarm / kept.size))
    return BinnedLoss(kept, log_ratio, standard_error, z)


def gaussian_privacy_loss(samples, mean_a, mean_b, sigma):
    """Privacy-loss random variable ``log p_a(Y) / p_b(Y)`` of Gaussian outputs Y.

    For Y ~ N(mean_a, sigma^2 I) it is distributed N(rho, 2 rho) with
    ``rho = ||mean_a - mean_b||^2 / (2 sigma^2)``, which is exactly the statement
    that the Gaussian mechanism is rho-zCDP and no better (Bun and Steinke 2016,
    Lemma 2.5). ``samples`` has shape (n, d); the means have shape (d,).
    """
    y = np.atleast_2d(np.asarray(samples, dtype=float))
    mean_a = np.asarray(mean_a, dtype=float)
    mean_b = np.asarray(mean_b, dtype=float)
    return (np.sum((y - mean_b) ** 2, axis=1) - np.sum((y - mean_a) ** 2, axis=1)) / (
        2 * sigma**2
    )
