"""The differential-privacy primitives of thesis §2.1-2.2, vectorized and seeded.

Every sampler takes ``rng`` (a ``numpy.random.Generator`` or an integer seed) and
never touches numpy's global random state: the same seed gives the same output.

What is sampled keeps each docstring's promise: the additive mechanisms (Laplace,
planar Laplace, Gaussian) round to a fine grid and add integer noise drawn exactly
(:mod:`dpnn.exact_noise`); the choices (exponential mechanism, DP-TT's turns,
randomized response) compare a float uniform with a probability only where the
realised law is within 2^-30 of the ideal one and draw exactly elsewhere
(:mod:`dpnn.exact_choice`, :mod:`dpnn.exact_sampling`). :mod:`dpnn.float_laws`
computes the laws of the float samplers this replaces. They are for research and
teaching; protect real people with a vetted library.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.special import expit, gammaincinv, lambertw, softmax

from dpnn import exact_choice, exact_noise, exact_sampling, float_laws
from dpnn._validation import finite_array, generator, positive_finite
from dpnn.exact_sampling import turns_beyond_floor as _exact_beyond_floor

__all__ = [
    "laplace",
    "exponential",
    "exponential_probabilities",
    "exponential_binary",
    "randomized_response",
    "keep_probability",
    "planar_laplace",
    "planar_laplace_radius",
    "laplace_ball",
    "gaussian",
    "laplace_below",
]


def laplace(values, sensitivity, epsilon, rng):
    """Laplace mechanism (thesis Def. 2.4): ``values + Lap(sensitivity / epsilon)``,
    drawn on a grid so that the law of what is sampled is exactly the stated one.

    Each entry of ``values`` (any shape) is rounded to the nearest multiple n lam
    of a power of two ``lam`` (the one at or below ``sensitivity 2^-30``, coarser
    only when ``epsilon`` is below about 5e-7) and released as ``(n + Z) lam``,
    Z discrete Laplace with ``Pr[z] ~ e^{-|z| / t}`` and the integer scale
    ``t = ceil((sensitivity / lam + 1) / epsilon)``, drawn from uniform integers
    (:func:`dpnn.exact_noise.discrete_laplace`): Mironov's snapping (CCS 2012),
    as OpenDP's float Laplace does it. The noise has the Laplace spread
    ``b = sensitivity / epsilon`` up to a factor ``1 + lam / sensitivity``.

    Privacy: if ``values = f(D)`` and ``sensitivity`` bounds the L1 distance
    ``||f(D) - f(D')||_1`` over neighbouring datasets (Dwork and Roth, Thm 3.6),
    the grid points differ by at most ``sensitivity / lam + m`` in L1, m the
    number of entries that differ, so every output's two probabilities differ by
    at most ``e^{(sensitivity / lam + m) / t}``: exactly ``epsilon``-DP when one
    entry differs or the values are multiples of ``lam`` (counts are), and
    ``epsilon (sensitivity + m lam) / (sensitivity + lam)`` otherwise. Every grid
    point is an output of every input, so Mironov's attack on the float sampler
    (:func:`dpnn.float_laws.laplace_float`) finds no distinguishing output.
    Neighbouring relation: the one ``sensitivity`` was computed under. A count
    has sensitivity 1 both when one record is replaced by another (thesis §2.1,
    the relation of notebook 01) and when one record is added or removed
    (Gursoy et al.'s Def. 1, Cormode et al.'s PSDs).
    """
    values = finite_array(values, "values")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    _finite_scale(sensitivity, epsilon)
    rng = generator(rng)
    step, t = exact_noise.laplace_grid(sensitivity, epsilon)
    index = exact_noise.to_grid(values, step)
    noise = exact_noise.discrete_laplace(t, rng, values.size).reshape(values.shape)
    return exact_noise.from_grid(index, noise, step)


def laplace_below(values, bound, sensitivity, epsilon):
    """Coins: whether each entry of :func:`laplace` ``(values, sensitivity,
    epsilon)`` falls below ``bound``, to be tossed (``.draw(rng)``, once or pass
    after pass) instead of drawing the noise.

    The release ``(n + Z) lam`` is below ``bound`` exactly when ``Z <= m`` for the
    integer ``m = ceil(bound / lam - n) - 1``, and the discrete Laplace law gives
    that probability in closed form (:func:`dpnn.exact_noise.
    discrete_laplace_at_most`), tossed exactly. So a toss has exactly the law of
    comparing fresh releases of :func:`laplace` with ``bound`` (the same
    privacy: a post-processing of them), at the cost of one uniform per entry.
    The sparse vector technique asks only this.
    """
    values = finite_array(values, "values", ndim=(1,))
    bound = float(finite_array(bound, "bound", ndim=(0,)))
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    _finite_scale(sensitivity, epsilon)
    step, t = exact_noise.laplace_grid(sensitivity, epsilon)
    index = exact_noise.to_grid(values, step)
    if index.dtype != object and abs(bound / step) < 2.0**61:
        m = math.ceil(bound / step) - index - 1  # int64: |m| < 2^62
    else:
        top = math.ceil(Fraction(bound) / Fraction(step))
        m = np.array([top - int(k) - 1 for k in index], dtype=object)
    return exact_noise.discrete_laplace_at_most(m, t)


def _finite_scale(sensitivity: float, epsilon: float) -> float:
    """``sensitivity / epsilon``, which must be a finite float (else every output is
    infinite)."""
    with np.errstate(over="ignore"):
        scale = sensitivity / epsilon
    if not np.isfinite(scale):
        raise ValueError(
            f"sensitivity / epsilon must be finite, got {sensitivity!r} / {epsilon!r}"
        )
    return scale


def _scaled_utilities(utilities, epsilon, sensitivity):
    """Scores ``epsilon * (u - max u) / (2 * sensitivity)`` per row; every score <=
    0."""
    utilities = finite_array(utilities, "utilities", ndim=(1, 2))
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    scale = epsilon / (2.0 * sensitivity)
    if not np.isfinite(scale):
        raise ValueError(
            f"epsilon / (2 * sensitivity) must be finite, got {epsilon!r} / (2 * "
            f"{sensitivity!r})"
        )
    # Shifting by the row maximum keeps every score <= 0, so exp never overflows;
    # a difference that underflows to -inf simply has probability 0.
    with np.errstate(over="ignore"):
        shifted = utilities - utilities.max(axis=-1, keepdims=True)
        return shifted * scale


def exponential_probabilities(utilities, epsilon, sensitivity):
    """Exact selection probabilities of the exponential mechanism (thesis Def. 2.6).

    ``Pr[h] = exp(epsilon u(D, h) / (2 sensitivity))
    / sum_i exp(epsilon u(D, i) / (2 sensitivity))``
    for each row of ``utilities`` (shape ``(n_candidates,)`` or
    ``(n_rows, n_candidates)``), computed in the log domain: finite for any finite
    utilities and parameters.
    """
    return softmax(_scaled_utilities(utilities, epsilon, sensitivity), axis=-1)


def exponential(utilities, epsilon, sensitivity, rng):
    """Exponential mechanism (thesis Def. 2.6, McSherry and Talwar): one index per row.

    Samples candidate ``h`` of each row with probability proportional to
    ``exp(epsilon * u(D, h) / (2 * sensitivity))`` by the Gumbel-max trick
    (``argmax(score + Gumbel noise)`` has that law for real-valued Gumbel noise),
    which needs no exponentials and so cannot overflow, even for
    ``epsilon * u / sensitivity`` of order 1e18.

    As sampled: numpy's Gumbel noise ``-log(-log(1 - U))`` of a 53-bit uniform U
    lies in about [-3.6, 36.7], coarse near its top: a candidate of probability p
    is drawn with probability within ``2^-53`` of p (coupling each float draw with
    a continuous one a grid step away; enumerated on 7- and 11-bit grids in
    tests/test_float_laws.py), never once p is below about e^-40. So a row whose
    candidates are all at least 2^-20 likely (``exact_sampling.TURN_FLOOR``)
    keeps the Gumbel draw and is ``epsilon + 3e-10``-DP as sampled (within
    :data:`dpnn.float_laws.LOSS_SLACK`); in another row the lighter
    candidates are drawn exactly (:func:`dpnn.exact_choice.gumbel_beyond_floor`,
    from a child of ``rng``, whose own draws stay those of the float sampler).
    Up to the rounding of the scores themselves.

    ``utilities`` has shape ``(n_rows, n_candidates)`` (returns an int array of
    length ``n_rows``) or ``(n_candidates,)`` (returns one int).

    Privacy: if ``sensitivity`` bounds ``|u(D, h) - u(D', h)|`` for every candidate
    and neighbouring ``D, D'`` (Def. 2.5), each row's selection is ``epsilon``-DP
    (Lemma 2.7) and ``epsilon``-range-bounded (Durfee and Rogers, Lemma 4.3).
    """
    scores = _scaled_utilities(utilities, epsilon, sensitivity)
    rng = generator(rng)
    noisy = scores + rng.gumbel(size=scores.shape)
    choice = np.argmax(exact_choice.gumbel_beyond_floor(scores, noisy, rng), axis=-1)
    return int(choice) if scores.ndim == 1 else choice.astype(np.intp)


def exponential_binary(utility_left, utility_right, epsilon, sensitivity, rng):
    """The exponential mechanism over two candidates, as 0 (left) or 1 (right) per row.

    Exactly :func:`exponential` on ``column_stack([utility_left, utility_right])``:
    ``Pr[right] = e^{a u_R} / (e^{a u_L} + e^{a u_R}) = expit(a (u_R - u_L))`` with
    ``a = epsilon / (2 sensitivity)``, drawn with one uniform number per row (the
    hot path of DP-TT, thesis Alg. 12). Same guarantee as :func:`exponential`.

    As sampled: a float uniform has 53-bit resolution, so ``U < p`` realises
    ``ceil(p 2^53) / 2^53`` and a turn of probability below 2^-53 would never
    happen (an infinite loss between neighbours whose scaled gaps straddle about
    37). So the uniform decides only rows where both outcomes have probability at
    least 2^-20 (:data:`dpnn.exact_sampling.TURN_FLOOR`), where the realised law is
    within a factor 1 + 2^-33 of ``expit``; the other rows are drawn exactly
    (:func:`dpnn.exact_sampling.turns_beyond_floor`). Each row is then
    ``epsilon + 1e-9``-DP as sampled (:data:`dpnn.float_laws.LOSS_SLACK`), up to
    the rounding of the utilities themselves.
    """
    left = finite_array(utility_left, "utility_left", ndim=(1,))
    right = finite_array(utility_right, "utility_right", ndim=(1,))
    if left.shape != right.shape:
        raise ValueError(
            f"utility_left and utility_right must have equal shapes, got {left.shape} "
            f"and {right.shape}"
        )
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    scale = epsilon / (2.0 * sensitivity)
    if not np.isfinite(scale):
        raise ValueError(
            f"epsilon / (2 * sensitivity) must be finite, got {epsilon!r} / (2 * "
            f"{sensitivity!r})"
        )
    return _binary_turns(left, right, scale, generator(rng))


def _binary_turns(left, right, scale, rng):
    """Unchecked core of :func:`exponential_binary` for validated inputs (DP-TT's inner
    loop)."""
    with np.errstate(over="ignore"):
        z = scale * (right - left)
    z = np.asarray(z, dtype=float)
    return _exact_beyond_floor(z, rng.random(z.shape), rng)


def keep_probability(epsilon):
    """``e^epsilon / (1 + e^epsilon)``: the probability randomized response keeps a
    bit."""
    return float(expit(positive_finite(epsilon, "epsilon")))


def randomized_response(bits, epsilon, rng):
    """Binary randomized response (Warner 1965): keep each bit with probability e^eps /
    (1 + e^eps).

    ``bits`` is an array of 0/1 (or booleans) of any shape; each entry is flipped
    independently with probability ``1 / (1 + e^epsilon)``. The output has the
    dtype of the input.

    Privacy: each released bit is ``epsilon``-locally-DP for the bit it reports
    (the two output probabilities differ by exactly the factor e^epsilon).

    As sampled: the flip is ``U >= keep`` with a float uniform when the realised
    law (``ceil(keep 2^53) / 2^53``) has loss at most ``epsilon + 1e-9``
    (:data:`dpnn.float_laws.LOSS_SLACK`; a scan on a 0.01 grid finds it true below
    16.18, and it is decided per call above);
    above, where a float flip of probability below 2^-53 would never happen
    (from epsilon = 37), the bit is kept with probability exactly
    ``1 / (1 + e^-epsilon)`` (:func:`dpnn.exact_sampling.weighted_pair`).
    """
    original = np.asarray(bits)
    if original.size == 0:
        raise ValueError(f"bits must not be empty, got shape {original.shape}")
    if original.dtype != bool and not np.all((original == 0) | (original == 1)):
        raise ValueError("bits must contain only 0 and 1 (or booleans)")
    keep = keep_probability(epsilon)
    rng = generator(rng)
    sampled = float_laws.binary_loss(float_laws.uniform_below(keep))
    if sampled <= float(epsilon) + float_laws.LOSS_SLACK:
        flip = rng.random(original.shape) >= keep
    else:
        kept = exact_sampling.weighted_pair(1, 1, float(epsilon), rng, original.size)
        flip = ~kept.reshape(original.shape)
    return np.logical_xor(original.astype(bool), flip).astype(original.dtype)


#: Below this p, :func:`planar_laplace_radius` inverts the Gamma(2) CDF instead of W.
_GAMMA_BELOW = 2.0**-24


def planar_laplace_radius(p, epsilon):
    """Inverse CDF of the planar Laplace radius (Andrés et al. 2013, Eq. (2)).

    The radius of planar Laplace noise has CDF
    ``C(r) = 1 - (1 + epsilon r) e^{-epsilon r}`` (a Gamma(2, 1/epsilon) law), whose
    inverse is ``C^{-1}(p) = -(W_{-1}((p - 1) / e) + 1) / epsilon`` with ``W_{-1}`` the
    lower branch of the Lambert W function (``scipy.special.lambertw``). ``p`` must lie
    in [0, 1).

    Below ``p = 2^-24`` the same inverse is taken from the Gamma(2) law instead,
    ``scipy.special.gammaincinv(2, p) / epsilon``: there ``(p - 1) / e`` keeps too few
    digits of p and W_{-1} next to its branch point breaks down (at p = 1e-10 it gives
    the radius 3e-10 / epsilon instead of 1.4e-5 / epsilon, at p = 0 not 0): radii too
    small, so too much density at the true location. The relative error is below 1e-9
    (about 4e-10 just above 2^-24, 1e-14 or less below it and above p = 1e-3;
    tests/test_mechanisms.py).
    """
    p = finite_array(p, "p")
    epsilon = positive_finite(epsilon, "epsilon")
    _finite_scale(1.0, epsilon)
    if np.any((p < 0) | (p >= 1)):
        raise ValueError("p must lie in [0, 1)")
    # The branch point -1/e rounds to just below itself, where W_{-1} is NaN: the
    # arguments of the smallest p, replaced next, are kept inside W's domain.
    argument = np.maximum((p - 1.0) / np.e, np.nextafter(-1.0 / np.e, 0.0))
    scaled = np.asarray(-(lambertw(argument, k=-1).real + 1.0))  # epsilon r
    near_zero = p < _GAMMA_BELOW
    if np.any(near_zero):
        scaled[near_zero] = gammaincinv(2.0, p[near_zero])
    return np.maximum(scaled / epsilon, 0.0)


def _points(points, name, dimension=None):
    """Points as an (n, d) float array plus the shape to return."""
    array = finite_array(points, name, ndim=(1, 2))
    if dimension is not None:
        if array.shape[-1] != dimension:
            raise ValueError(
                f"{name} must have shape ({dimension},) "
                f"or (n, {dimension}), got {array.shape}"
            )
        return array.reshape(-1, dimension), array.shape
    if array.ndim == 1:  # n points on the line
        return array.reshape(-1, 1), array.shape
    return array, array.shape


def planar_laplace(points, epsilon, rng):
    """Planar Laplace mechanism (thesis §2.2; Andrés et al., CCS 2013, §4), drawn on
    a fine lattice so that the law of what is sampled is exactly the stated one.

    Perturbs each point of ``points`` (shape ``(2,)`` or ``(n, 2)``) with noise of
    density proportional to ``exp(-epsilon ||z||)``, in its lattice form: the
    point is rounded to ``lam Z^2`` (``lam`` the power of two at or below
    ``2^-30 / epsilon``) and released as ``(n + Z) lam`` with ``Pr[Z = z] ~
    e^{-epsilon lam ||z||}`` on Z^2 (:func:`dpnn.exact_noise.lattice_laplace`).
    Its radius has the Gamma(2, 1/epsilon) law of the continuous mechanism up
    to the lattice spacing (:func:`planar_laplace_radius` is that law's inverse
    CDF).

    Privacy: ``epsilon``-geo-indistinguishability with respect to Euclidean
    distance (Def. 2.15), up to an additive ``epsilon lam sqrt(2) < 1.4e-9``: two
    points at distance d round to lattice points at most ``d / lam + sqrt(2)``
    apart, so by the triangle inequality every output's probabilities differ by
    at most ``e^{epsilon d + epsilon lam sqrt(2)}``, exactly as sampled.
    ``epsilon`` is per unit of the coordinates; the privacy level within radius
    r is ``epsilon * r``.
    """
    array, shape = _points(points, "points", dimension=2)
    return _lattice_release(array, positive_finite(epsilon, "epsilon"), rng, shape)


def _lattice_release(array, epsilon, rng, shape):
    """``array`` (n, d) rounded to ``lam Z^d`` plus lattice Laplace noise of rate
    ``epsilon lam`` per lattice step (see :func:`planar_laplace`)."""
    _finite_scale(1.0, epsilon)
    rng = generator(rng)
    n, d = array.shape
    step = 2.0 ** (math.floor(math.log2(1.0 / epsilon)) - 30)
    index = exact_noise.to_grid(array, step)
    noise = exact_noise.lattice_laplace(epsilon * step, d, rng, n)
    return exact_noise.from_grid(index, noise, step).reshape(shape)


def laplace_ball(points, epsilon, rng):
    """d-dimensional Laplace mechanism with density proportional to
    ``exp(-epsilon ||z||)``, on a fine lattice as :func:`planar_laplace`.

    ``points`` has shape ``(n, d)``; a 1-D array of shape ``(n,)`` is n points on
    the line, where this is the (discrete) Laplace mechanism of scale
    ``1 / epsilon``. The radius of the noise has the Gamma(d, 1/epsilon) law up
    to the lattice spacing; for d = 2 this is :func:`planar_laplace`.

    Privacy: ``epsilon``-geo-indistinguishability with respect to Euclidean
    distance in R^d up to an additive ``epsilon lam sqrt(d)`` (below ``2^-30
    sqrt(d)``), exactly as sampled (:func:`dpnn.exact_noise.lattice_laplace`).
    """
    array, shape = _points(points, "points")
    return _lattice_release(array, positive_finite(epsilon, "epsilon"), rng, shape)


def gaussian(points, sigma, rng):
    """Gaussian mechanism: N(0, sigma^2) noise on every coordinate, drawn on a grid
    so that the law of what is sampled is exactly the stated one.

    ``points`` may have any shape. Each coordinate is rounded to the grid ``lam
    Z`` (``lam`` the power of two at or below ``sigma 2^-30``) and released as
    ``(n + Z) lam`` with Z discrete Gaussian, ``Pr[z] ~ e^{-z^2 lam^2 / (2
    sigma^2)}`` (:func:`dpnn.exact_noise.discrete_gaussian`; Canonne, Kamath and
    Steinke 2020), whose variance is sigma^2 up to a factor 1 + 1e-9.

    Privacy: for a query whose L2 sensitivity is Delta and m released
    coordinates, the grid points differ by at most ``Delta / lam + sqrt(m)`` in
    L2, so the release is ``rho``-zCDP with ``rho = (Delta + lam sqrt(m))^2 /
    (2 sigma^2)`` (their Thm 14 on the integers; the scaling is
    post-processing), that is ``Delta^2 / (2 sigma^2)`` (Bun and Steinke 2016,
    Prop. 1.6) up to a factor ``1 + 2^-29 sqrt(m)``. Applied to locations it is
    ``rho``-concentrated geo-privacy with ``rho = 1 / (2 sigma^2)`` per squared
    unit of distance (Liang and Yi 2023, Thm 3.1) up to the same factor. It
    gives no pure epsilon-DP guarantee.
    """
    array = finite_array(points, "points")
    sigma = positive_finite(sigma, "sigma")
    rng = generator(rng)
    step = 2.0 ** (math.floor(math.log2(sigma)) - 30)
    index = exact_noise.to_grid(array, step)
    noise = exact_noise.discrete_gaussian(sigma / step, rng, array.size)
    return exact_noise.from_grid(index, noise.reshape(array.shape), step)
