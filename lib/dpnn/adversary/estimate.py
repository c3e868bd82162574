"""The Bayes-optimal adversary: posterior, optimal estimate and its expected error.

A server with a prior pi on the client's location x and a release y of
likelihood f(y | x) holds the posterior ``pi(x | y) prop. to pi(x) f(y | x)``. For a
loss l(x, g), the guess minimising the expected loss is ``argmin_g E[l(x, g) | y]``,
and the adversary's expected error ``E_y[min_g E[l(x, g) | y]]`` is the measure
of location privacy of Shokri, Theodorakopoulos, Le Boudec and Hubaux
("Quantifying location privacy", IEEE S&P 2011): no estimate of x from y does
better on average.

- ``loss="euclidean"`` (the default): l = ||x - g||, minimised by the
  posterior's spatial (geometric) median, found by Weiszfeld's iteration;
- ``loss="squared"``: l = ||x - g||^2, minimised by the posterior mean, with
  expected loss the posterior's total variance.

Without a release the best guess is the prior's median (mean) and its error the
*prior-only* error: what the server knows before the client says anything.
Everything here is on a :class:`~dpnn.adversary.grid.Grid`: the prior and the
posterior are weights per cell centre.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpnn._validation import generator, positive_int
from dpnn.adversary.grid import Grid, check_prior, domain_grid

__all__ = [
    "LOSSES",
    "posterior",
    "geometric_median",
    "bayes_estimate",
    "prior_only",
    "AdversaryError",
    "adversary_error",
]

LOSSES = ("euclidean", "squared")


def _check_loss(loss):
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    return loss


def posterior(log_likelihood, prior) -> np.ndarray:
    """Posterior weights per cell, shape (n, size), from log-likelihoods (n, size) and a
    prior (size,).

    Normalised after subtracting each row's largest log-weight, so no row
    underflows; cells of prior weight 0 get posterior weight 0.
    """
    log_post = np.array(log_likelihood, dtype=float)  # a copy: the caller keeps its own
    prior = np.asarray(prior, dtype=float)
    if np.ptp(prior) > 0:  # a uniform prior only shifts every row by a constant
        with np.errstate(divide="ignore"):
            log_post += np.log(prior)[None, :]
    log_post -= log_post.max(axis=1, keepdims=True)
    weights = np.exp(log_post, out=log_post)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def _weighted_sums(weights, grid: Grid) -> np.ndarray:
    """``sum_x w(x) x`` per row, shape (n, d), summing the grid's axes separately."""
    shaped = weights.reshape((len(weights),) + grid.shape)
    sums = []
    for a, axis in enumerate(grid.axes):
        other = tuple(b + 1 for b in range(grid.dimension) if b != a)
        sums.append(shaped.sum(axis=other) @ axis)
    return np.stack(sums, axis=1)


def _expected_distance(weights, grid, guess):
    """``sum_x w(x) ||x - g||`` per row, for guesses (n, d)."""
    return np.einsum("nm,nm->n", weights, grid.distances(guess))


def _weiszfeld(w, grid: Grid, guess, tolerance, max_iterations):
    """Weiszfeld's iteration from ``guess`` until no row moves by ``tolerance`` x
    diameter."""
    scale = grid.diameter
    live = np.arange(len(w))
    for _ in range(max_iterations):
        inverse = w[live] / np.maximum(grid.distances(guess[live]), 1e-12 * scale)
        step = _weighted_sums(inverse, grid) / inverse.sum(axis=1, keepdims=True)
        moved = np.linalg.norm(step - guess[live], axis=1)
        guess[live] = step
        live = live[moved > tolerance * scale]
        if not live.size:
            break
    return guess


def _coarser(w, grid: Grid):
    """The posterior summed over 2 x 2 (x 2 ...) blocks of cells, on the grid of half
    the cells."""
    if any(n % 2 for n in grid.shape):
        return None, None
    shape = [len(w)] + [m for n in grid.shape for m in (n // 2, 2)]
    summed = w.reshape(shape).sum(axis=tuple(range(2, 2 * grid.dimension + 1, 2)))
    return summed.reshape(len(w), -1), domain_grid(
        grid.domain, [n // 2 for n in grid.shape]
    )


def geometric_median(
    weights, grid: Grid, tolerance=1e-6, max_iterations=1000
) -> np.ndarray:
    """The point minimising ``sum_x w(x) ||x - g||`` for each row of ``weights``.

    ``weights`` has shape (n, grid.size). Weiszfeld's iteration, with distances
    below ``1e-12`` of the grid's diameter floored there (so a cell centre that
    is the median is reached, not divided by zero), stopped when no guess moves
    by more than ``tolerance`` times the diameter. Each iterate never increases
    the objective (Weiszfeld 1937; Vardi and Zhang 2000 for the floor). It
    starts from the median of the posterior summed on coarser grids (halving
    the cells per axis down to about 4096 cells), which is within a coarse cell
    of the answer and costs a fraction of one fine iteration. The result is also
    compared with the heaviest cell and the better of the two returned.
    """
    w = np.asarray(weights, dtype=float)
    w = w / w.sum(axis=1, keepdims=True)
    levels = [(w, grid)]
    while levels[-1][1].size > 4096:
        coarse = _coarser(*levels[-1])
        if coarse[0] is None:
            break
        levels.append(coarse)
    guess = _weighted_sums(levels[-1][0], levels[-1][1])
    for level_w, level_grid in reversed(levels):
        guess = _weiszfeld(level_w, level_grid, guess, tolerance, max_iterations)
    heaviest = grid.points[np.argmax(w, axis=1)]
    better = _expected_distance(w, grid, heaviest) < _expected_distance(w, grid, guess)
    return np.where(better[:, None], heaviest, guess)


def bayes_estimate(weights, grid: Grid, loss: str = "euclidean"):
    """``(guesses, expected losses)`` of the Bayes-optimal guess for each row of
    posterior ``weights``."""
    _check_loss(loss)
    w = np.asarray(weights, dtype=float)
    if loss == "squared":
        mean = _weighted_sums(w, grid)
        return mean, w @ np.sum(grid.points**2, axis=1) - np.sum(mean**2, axis=1)
    guess = geometric_median(w, grid)
    return guess, _expected_distance(w, grid, guess)


def prior_only(grid: Grid, prior, loss: str = "euclidean") -> float:
    """The prior-only error: the expected loss of the best guess made without any
    release."""
    prior = check_prior(prior, grid)
    _, value = bayes_estimate(prior[None], grid, loss)
    return float(value[0])


@dataclass(frozen=True)
class AdversaryError:
    """The optimal adversary's expected error against one mechanism, from simulated
    releases.

    ``per_release`` holds ``min_g E[l(x, g) | y]`` for each release y: its mean
    is an unbiased estimate of the adversary's expected error (the truths are
    drawn from the prior). ``fixed`` holds ``E[l(x, g0) | y]``, the posterior
    loss of the prior-only guess g0, whose mean over releases is exactly the
    prior-only error; :attr:`error` uses it as a control variate,
    ``mean(per_release) - beta (mean(fixed) - prior_only)`` with ``beta`` the
    regression coefficient clipped to [0, 1] (Glasserman, *Monte Carlo Methods
    in Financial Engineering*, §4.1): when a release says little, ``per_release``
    and ``fixed`` move together and the estimate's spread all but vanishes.
    ``naive`` is the realised loss of the mechanism's naive guess (released
    point or cell centre), ``naive_per_release`` its posterior loss, and
    ``optimal_realised`` the realised loss of the optimal guess.
    """

    mechanism: str
    loss: str
    per_release: np.ndarray
    fixed: np.ndarray
    optimal_realised: np.ndarray
    naive_per_release: np.ndarray
    naive: np.ndarray
    prior_only: float
    grid_error: float
    diameter: float

    @property
    def beta(self) -> float:
        """The control variate's coefficient: cov(per_release, fixed) / var(fixed), in
        [0, 1]."""
        spread = np.var(self.fixed)
        if spread <= 0:
            return 0.0
        covariance = np.mean(
            (self.per_release - self.per_release.mean())
            * (self.fixed - self.fixed.mean())
        )
        return float(np.clip(covariance / spread, 0.0, 1.0))

    def _terms(self):
        return self.per_release - self.beta * (self.fixed - self.prior_only)

    @property
    def error(self) -> float:
        return float(self._terms().mean())

    @property
    def standard_error(self) -> float:
        return float(self._terms().std(ddof=1) / np.sqrt(len(self.per_release)))


def _loss(truth, guess, loss):
    squared = np.sum((truth - guess) ** 2, axis=1)
    return squared if loss == "squared" else np.sqrt(squared)


def _posterior_loss(weights, grid, guess, loss):
    """``E[l(x, g) | y]`` per row for guesses (n, d) under posterior ``weights``."""
    if loss == "euclidean":
        return _expected_distance(weights, grid, guess)
    return (
        weights @ np.sum(grid.points**2, axis=1)
        - 2 * np.sum(_weighted_sums(weights, grid) * guess, axis=1)
        + np.sum(guess**2, axis=1)
    )


def adversary_error(
    mechanism,
    grid: Grid,
    prior,
    n_releases: int,
    rng,
    loss: str = "euclidean",
    block: int = 32,
) -> AdversaryError:
    """Simulate ``n_releases`` clients drawn from ``prior`` and score the optimal
    adversary.

    Each client sits at a cell centre drawn from the prior (the discretised
    problem: the posterior on the grid is then exact), releases through
    ``mechanism.sample``, and the adversary computes the posterior with
    ``mechanism.log_likelihood`` and the Bayes-optimal guess for ``loss``.
    Releases are processed ``block`` at a time (memory: block x grid.size floats).
    """
    _check_loss(loss)
    prior = check_prior(prior, grid)
    n_releases = positive_int(n_releases, "n_releases", minimum=2)
    block = positive_int(block, "block")
    rng = generator(rng)
    prior_guess, prior_value = bayes_estimate(prior[None], grid, loss)
    truth = grid.points[rng.choice(grid.size, size=n_releases, p=prior)]
    releases = mechanism.sample(truth, rng)
    parts = []
    for start in range(0, n_releases, block):
        stop = min(start + block, n_releases)
        weights = posterior(mechanism.log_likelihood(releases[start:stop], grid), prior)
        guess, value = bayes_estimate(weights, grid, loss)
        naive = mechanism.naive_guess(releases[start:stop])
        fixed = _posterior_loss(
            weights, grid, np.repeat(prior_guess, len(value), 0), loss
        )
        parts.append(
            (
                value,
                fixed,
                _loss(truth[start:stop], guess, loss),
                _posterior_loss(weights, grid, naive, loss),
                _loss(truth[start:stop], naive, loss),
            )
        )
    value, fixed, realised, naive_value, naive = (
        np.concatenate(p) for p in zip(*parts)
    )
    name = getattr(mechanism, "name", type(mechanism).__name__)
    return AdversaryError(
        name,
        loss,
        value,
        fixed,
        realised,
        naive_value,
        naive,
        float(prior_value[0]),
        grid.error,
        grid.diameter,
    )
