"""The differential-privacy primitives of thesis §2.1-2.2, vectorized and seeded.

Every sampler takes ``rng`` (a ``numpy.random.Generator`` or an integer seed) and
never touches numpy's global random state: the same seed gives the same output.

These samplers use floating-point arithmetic. They are for research and teaching;
floating-point Laplace noise is attackable (Mironov, CCS 2012), so do not use them
to protect real people without a vetted library.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.special import expit, gammaincinv, lambertw, softmax

from dpnn import exact_choice, exact_sampling, float_laws
from dpnn._validation import finite_array, generator, positive_finite
from dpnn.exact_sampling import turns_beyond_floor as _exact_beyond_floor

__all__ = [
    "laplace",
    "laplace_exact",
    "exponential",
    "exponential_probabilities",
    "exponential_binary",
    "randomized_response",
    "keep_probability",
    "planar_laplace",
    "planar_laplace_radius",
    "laplace_ball",
    "gaussian",
    "gaussian_exact",
]


def laplace(values, sensitivity, epsilon, rng):
    """Laplace mechanism (thesis Def. 2.4): ``values + Lap(sensitivity / epsilon)``.

    Adds independent Laplace noise of scale ``b = sensitivity / epsilon`` to every
    entry of ``values`` (any shape).

    Privacy: if ``values = f(D)`` and ``sensitivity`` bounds the L1 distance
    ``||f(D) - f(D')||_1`` over neighbouring datasets, the release is
    ``epsilon``-DP (Dwork and Roth, Thm 3.6). Neighbouring relation: the one
    ``sensitivity`` was computed under. A count has sensitivity 1 both when one
    record is replaced by another (thesis §2.1, the relation of notebook 01)
    and when one record is added or removed (Gursoy et al.'s Def. 1, Cormode et
    al.'s PSDs).

    As sampled: no budget keeps this promise exactly. The noise is
    ``scale log(2U)`` of a float uniform, and the float sum ``value + noise``
    reaches only some floats, a different set for each value: most outputs of
    one value are impossible for a neighbouring one (Mironov, CCS 2012;
    :func:`dpnn.float_laws.laplace_reachable`). The companion keeps this sampler
    for its figures (same seed, same numbers); :func:`laplace_exact` is the
    sampler whose law is exact.
    """
    values = finite_array(values, "values")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    scale = _finite_scale(sensitivity, epsilon)
    rng = generator(rng)
    return values + rng.laplace(0.0, scale, size=values.shape)


def laplace_exact(values, sensitivity, epsilon, rng, grid_bits=30):
    """Laplace mechanism with an exact law: discrete Laplace noise on a grid
    (the snapping idea of Mironov, CCS 2012, as OpenDP's float Laplace does it).

    The grid step is the power of two ``lam`` just below ``sensitivity / 2^grid_bits``;
    each value is rounded to the grid (``n = round(v / lam)``) and released as
    ``(n + Z) lam`` with Z drawn exactly from the discrete Laplace law
    ``Pr[z] ~ e^{-|z| / t}``, ``t = (sensitivity + lam) / (epsilon lam)``
    (:func:`discrete_laplace`).

    Privacy: two values within ``sensitivity`` round to grid points at most
    ``sensitivity / lam + 1`` apart, so the two laws of ``n + Z`` differ by at
    most ``e^{(sensitivity / lam + 1) / t} = e^epsilon`` at every integer: the
    release is ``epsilon``-DP exactly (Z is exact integers; multiplying by a
    power of two is post-processing). Every grid point is an output of every
    input, so the attack on ``mechanisms.laplace`` finds no distinguishing output. Cost:
    the scale grows by the factor ``1 + lam / sensitivity`` (about 1 + 1e-9) and
    the rounding moves a value by at most ``lam / 2``; the sampler is a Python
    loop, about 50 microseconds per value.
    """
    values = finite_array(values, "values")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    epsilon = positive_finite(epsilon, "epsilon")
    with np.errstate(over="ignore"):
        ratio = np.float64(sensitivity) / np.float64(epsilon)
    if not np.isfinite(ratio):
        raise ValueError(
            f"sensitivity / epsilon must be finite, got {sensitivity!r} / {epsilon!r}"
        )
    rng = generator(rng)
    step = 2.0 ** (np.floor(np.log2(sensitivity)) - grid_bits)
    scale = (Fraction(sensitivity) + Fraction(step)) / (
        Fraction(epsilon) * Fraction(step)
    )
    noise = exact_sampling.discrete_laplace(scale, rng, values.size)
    rounded = [round(v / step) for v in values.ravel()]
    out = np.array([float(n + z) * step for n, z in zip(rounded, noise)])
    return out.reshape(values.shape)


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
    """Planar Laplace mechanism (thesis §2.2; Andrés et al., CCS 2013, §4).

    Perturbs each point of ``points`` (shape ``(2,)`` or ``(n, 2)``) with noise of
    density ``epsilon^2 / (2 pi) * exp(-epsilon ||z||)``, drawn in polar form: the
    angle uniform on [0, 2 pi), the radius by the Lambert-W inverse CDF
    (:func:`planar_laplace_radius`).

    Privacy: ``epsilon``-geo-indistinguishability with respect to Euclidean
    distance (Def. 2.15): for any two true locations x, x' the output densities
    differ by at most ``e^{epsilon d(x, x')}``. ``epsilon`` is per unit of the
    coordinates (per metre if points are in metres); the privacy level within
    radius r is ``epsilon * r``. Outputs are continuous (no grid remapping).

    As sampled: no budget keeps this promise exactly. The radius (inverse CDF of
    a 53-bit uniform) is at most ``40.46 / epsilon``, so an output within that of
    x but not of x' has an infinite ratio, and float outputs differ by input (as
    for :func:`laplace`); :func:`dpnn.baselines.planar_laplace_exact` is exact.
    """
    array, shape = _points(points, "points", dimension=2)
    epsilon = positive_finite(epsilon, "epsilon")
    rng = generator(rng)
    n = array.shape[0]
    theta = rng.uniform(0.0, 2.0 * np.pi, size=n)
    radius = planar_laplace_radius(rng.random(n), epsilon)
    noise = np.column_stack([radius * np.cos(theta), radius * np.sin(theta)])
    return (array + noise).reshape(shape)


def laplace_ball(points, epsilon, rng):
    """d-dimensional Laplace mechanism with density proportional to
    ``exp(-epsilon ||z||)``.

    ``points`` has shape ``(n, d)``; a 1-D array of shape ``(n,)`` is n points on
    the line, where this is the ordinary Laplace mechanism with scale
    ``1 / epsilon``. The noise has a uniform direction (a normalized Gaussian
    vector) and a radius distributed Gamma(d, 1/epsilon), which is the law of
    ``||z||`` under that density (surface area of the sphere grows as r^(d-1)).
    For d = 2 it has the same law as :func:`planar_laplace`.

    Privacy: ``epsilon``-geo-indistinguishability with respect to Euclidean
    distance in R^d (by the triangle inequality, the density ratio at any output
    is at most ``e^{epsilon ||x - x'||}``).
    """
    array, shape = _points(points, "points")
    epsilon = positive_finite(epsilon, "epsilon")
    scale = _finite_scale(1.0, epsilon)
    rng = generator(rng)
    n, d = array.shape
    direction = rng.standard_normal((n, d))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = rng.gamma(shape=d, scale=scale, size=(n, 1))
    return (array + radius * direction).reshape(shape)


def gaussian(points, sigma, rng):
    """Gaussian mechanism: adds independent N(0, sigma^2) noise to every coordinate.

    ``points`` may have any shape.

    Privacy: for a query whose L2 sensitivity is Delta, the release is
    ``rho``-zCDP with ``rho = Delta^2 / (2 sigma^2)`` (Bun and Steinke 2016,
    Prop. 1.6). Applied to locations it is ``rho``-concentrated geo-privacy with
    ``rho = 1 / (2 sigma^2)`` per squared unit of distance (Liang and Yi 2023,
    Thm 3.1). It gives no pure epsilon-DP guarantee.

    As sampled: no sigma keeps this promise exactly (float noise reaches its own
    set of floats from each input, as for :func:`laplace`, with a bounded
    tail); :func:`gaussian_exact` draws an exact law.
    """
    array = finite_array(points, "points")
    sigma = positive_finite(sigma, "sigma")
    rng = generator(rng)
    return array + rng.normal(0.0, sigma, size=array.shape)


def gaussian_exact(points, sigma, rng, grid_bits=30):
    """Gaussian mechanism with an exact law: discrete Gaussian noise on a grid.

    The step ``lam`` is the power of two just below ``sigma / 2^grid_bits``; each
    coordinate is rounded to the grid and released as ``(n + Z) lam`` with Z drawn
    exactly from ``Pr[z] ~ e^{-z^2 lam^2 / (2 sigma^2)}``
    (:func:`dpnn.exact_sampling.discrete_gaussian`, Canonne, Kamath and Steinke
    2020). Privacy: two inputs at L2 distance Delta round to grid points at most
    ``Delta / lam + sqrt(d)`` apart (d coordinates per release), so the release is
    ``(Delta + lam sqrt(d))^2 / (2 sigma^2)``-zCDP exactly (their Thm 14 on the
    integers; the scaling is post-processing). Cost: about 0.6 ms a coordinate.
    """
    array = finite_array(points, "points")
    sigma = positive_finite(sigma, "sigma")
    rng = generator(rng)
    step = 2.0 ** (np.floor(np.log2(sigma)) - grid_bits)
    noise = exact_sampling.discrete_gaussian(
        Fraction(sigma) / Fraction(step), rng, array.size
    )
    rounded = [round(v / step) for v in array.ravel()]
    out = np.array([float(n + z) * step for n, z in zip(rounded, noise)])
    return out.reshape(array.shape)
