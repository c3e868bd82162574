"""The Gaussian mechanism and the basic GP and CGP releases of a tuple (§3, §4.1).

The Gaussian mechanism adds ``K / sqrt(2 rho) N(0, I)`` to a K-Lipschitz query and is
``rho``-CGP (Thm 3.1). GP Basic releases each of the n points with planar Laplace at
``epsilon / n`` (``epsilon``-GP by basic composition); CGP Basic gives each point a
``(rho / n)``-CGP Gaussian mechanism (``rho``-CGP by Thm 3.2). Lemma 3.4's
construction shows that GP has no advanced composition.
"""

from __future__ import annotations

import math

import numpy as np

from dpnn import mechanisms
from dpnn._validation import (
    finite_array,
    generator,
    positive_finite,
    positive_int,
    probability_open,
)

__all__ = [
    "privacy_budget",
    "check_tuple",
    "check_query",
    "laplace_radius_bound",
    "gaussian_sigma",
    "gaussian_mechanism",
    "renyi_gaussian",
    "lemma_3_4_log_ratio",
    "noise_norms",
    "gp_basic",
    "cgp_basic",
    "identity_errors",
    "gp_basic_bound",
    "cgp_basic_bound",
]


def privacy_budget(epsilon, rho):
    """Which guarantee a release is asked for: ``("GP", epsilon)`` when only
    ``epsilon`` is given, ``("CGP", rho)`` when only ``rho`` is, each checked to be a
    finite number > 0; ValueError unless exactly one is given."""
    if (epsilon is None) == (rho is None):
        raise ValueError("give exactly one of epsilon (GP) and rho (CGP)")
    if epsilon is not None:
        return "GP", positive_finite(epsilon, "epsilon")
    return "CGP", positive_finite(rho, "rho")


def check_tuple(points, name="points"):
    """A user's tuple of points as an (n, d) float array of finite numbers; ValueError
    (naming the argument ``name``) otherwise."""
    return finite_array(points, name, ndim=(2,))


def check_query(query, dimension):
    """A public query point as a float array of shape ``(dimension,)``; ValueError
    otherwise."""
    query = finite_array(query, "query", ndim=(1,))
    if query.shape != (dimension,):
        raise ValueError(f"query must have shape ({dimension},), got {query.shape}")
    return query


def gaussian_sigma(rho, lipschitz=1.0) -> float:
    """Noise standard deviation ``K / sqrt(2 rho)`` of the rho-CGP Gaussian mechanism
    (Thm 3.1)."""
    return positive_finite(lipschitz, "lipschitz") / math.sqrt(
        2 * positive_finite(rho, "rho")
    )


def gaussian_mechanism(values, rho, rng, lipschitz=1.0):
    """Gaussian mechanism ``g(x) + K / sqrt(2 rho) N(0, I)`` (Liang and Yi, Thm 3.1).

    ``values = g(x)`` for a K-Lipschitz query g into R^d (Euclidean metric).
    Privacy: rho-CGP, since D_alpha(N(g(x), s^2 I) || N(g(x'), s^2 I))
    = alpha ||g(x) - g(x')||^2 / (2 s^2) <= alpha rho dist(x, x')^2 (Lemma 2.1(4)).
    Calls :func:`dpnn.mechanisms.gaussian`.
    """
    return mechanisms.gaussian(values, gaussian_sigma(rho, lipschitz), rng)


def renyi_gaussian(alpha, distance, sigma) -> float:
    """The Renyi divergence of two Gaussians (Lemma 2.1(4)):
    ``D_alpha(N(mu, sigma^2 I) || N(mu', sigma^2 I)) = alpha ||mu - mu'||^2
    / (2 sigma^2)``."""
    alpha = positive_finite(alpha, "alpha")
    if alpha <= 1:
        raise ValueError(f"alpha must be a finite real number > 1, got {alpha!r}")
    distance = float(np.sqrt(np.sum(finite_array(distance, "distance") ** 2)))
    return alpha * distance**2 / (2 * positive_finite(sigma, "sigma") ** 2)


def lemma_3_4_log_ratio(k, epsilon, delta, lam, distance):
    """Lower bound on the delta-approximate max-divergence of k composed 1-D epsilon-GP
    Laplace releases.

    The construction of Lemma 3.4: x' = x - Delta (``distance``), threshold s = x - lam
    Delta / 2, event S* = {all k outputs >= s}. Then Pr[M(x) in S*] = (1 - e^{-epsilon
    lam Delta / 2} / 2)^k, Pr[M(x') in S*] = (e^{-epsilon (1 - lam/2) Delta} / 2)^k, and
    D^delta_inf >= log((Pr[M(x) in S*] - delta) / Pr[M(x') in S*]) (returned; -inf if
    the numerator is <= 0). With Delta = 2 ln(k) / (lam epsilon) and delta < 1/4 this
    exceeds (1 - lam) k epsilon Delta, so the composition is not ((1 - lam) k epsilon,
    delta)-GP (Thm 3.5): no advanced composition for GP.
    """
    k = positive_int(k, "k")
    epsilon = positive_finite(epsilon, "epsilon")
    delta = probability_open(delta, "delta")
    lam = probability_open(lam, "lam")
    distance = finite_array(distance, "distance")
    if np.any(distance <= 0):
        raise ValueError("distance must contain only finite numbers > 0")
    log_p = k * np.log1p(-0.5 * np.exp(-epsilon * lam * distance / 2))
    log_q = k * (-epsilon * (1 - lam / 2) * distance - math.log(2))
    with np.errstate(divide="ignore", invalid="ignore"):
        numerator = np.log(np.maximum(np.exp(log_p) - delta, 0.0))
    return numerator - log_q


def noise_norms(dimension, n_samples, rng, *, epsilon=None, rho=None):
    """``||noise||`` of the d-dimensional Laplace (epsilon-GP) or Gaussian (rho-CGP)
    mechanism, n_samples draws.

    The Laplace norm is Gamma(d, 1/epsilon), mean d / epsilon (O(d)), drawn from
    that law (the norm of :func:`dpnn.mechanisms.laplace_ball`'s noise up to its
    lattice spacing, whose exact sampler slows down as d grows); the Gaussian norm
    is that of :func:`gaussian_mechanism`'s noise, sigma chi_d, mean about
    sqrt(d) / sqrt(2 rho) (O(sqrt d)) (§3.1, App. A).
    """
    kind, budget = privacy_budget(epsilon, rho)
    dimension = positive_int(dimension, "dimension")
    n_samples = positive_int(n_samples, "n_samples")
    rng = generator(rng)
    if kind == "GP":
        return rng.gamma(dimension, 1.0 / budget, size=n_samples)
    noisy = gaussian_mechanism(np.zeros((n_samples, dimension)), budget, rng)
    return np.linalg.norm(noisy, axis=1)


def gp_basic(points, epsilon, rng):
    """GP Basic: planar Laplace with epsilon / n on each of the n points (Thm 4.6).

    Each x -> x_i is 1-Lipschitz under dist_inf, so by basic composition (Lemma 2.7)
    the release of the tuple is epsilon-GP.
    """
    points = check_tuple(points)
    epsilon = positive_finite(epsilon, "epsilon")
    return mechanisms.planar_laplace(points, epsilon / len(points), rng)


def cgp_basic(points, rho, rng):
    """CGP Basic: Gaussian noise sqrt(n / (2 rho)) N(0, I) on each of the n points (Thm
    4.8).

    Each point gets a (rho / n)-CGP Gaussian mechanism; by Thm 3.2 the tuple is rho-CGP.
    """
    points = check_tuple(points)
    rho = positive_finite(rho, "rho")
    return gaussian_mechanism(points, rho / len(points), rng)


def _row_norms(vectors):
    """||v|| of each row; in 2-D as sqrt(dx^2 + dy^2) on the columns: the same floats as
    ``np.linalg.norm(vectors, axis=1)`` (the squares added in this order), faster."""
    if vectors.shape[1] != 2:
        return np.linalg.norm(vectors, axis=1)
    dx, dy = vectors[:, 0], vectors[:, 1]
    return np.sqrt(dx * dx + dy * dy)


def identity_errors(points, released):
    """(max_i ||x_i - y_i||, sqrt(sum_i ||x_i - y_i||^2)): the max and l2 errors of Fig.
    2."""
    points, released = check_tuple(points), check_tuple(released, "released")
    if points.shape != released.shape:
        raise ValueError(
            f"released must have the shape of points {points.shape}, got "
            f"{released.shape}"
        )
    norms = _row_norms(points - released)
    return float(norms.max()), float(np.sqrt(np.sum(norms**2)))


def laplace_radius_bound(epsilon, beta):
    """The radius ``r = (sqrt(2 ln(1/beta)) + ln(1/beta)) / epsilon`` that planar
    Laplace noise at ``epsilon`` exceeds with probability at most ``beta`` (Lemma 4.5).
    """
    log_term = math.log(1 / beta)
    return (math.sqrt(2 * log_term) + log_term) / epsilon


def gp_basic_bound(n, epsilon, beta) -> float:
    """Thm 4.6 with constants, with probability 1 - beta:
    dist_inf(GP Basic, x) <= (n / epsilon)(sqrt(2 ln(n/beta)) + ln(n/beta))."""
    n = positive_int(n, "n")
    return laplace_radius_bound(
        positive_finite(epsilon, "epsilon") / n, probability_open(beta, "beta") / n
    )


def cgp_basic_bound(n, rho, beta) -> float:
    """Thm 4.8: dist_inf(CGP Basic, x) <= sqrt(n ln(n / beta) / rho) with probability 1
    - beta."""
    n = positive_int(n, "n")
    return math.sqrt(
        n * math.log(n / probability_open(beta, "beta")) / positive_finite(rho, "rho")
    )
