"""Private medians for kd-tree splits (Cormode et al. §VI-A): exponential mechanism,
smooth sensitivity, noisy mean, cell-based."""

from __future__ import annotations

import math

import numpy as np

from dpnn import exact_choice, exact_sampling, mechanisms
from dpnn._validation import finite_array, generator, positive_finite

from . import quadtree

__all__ = [
    "MEDIAN_METHODS",
    "em_median_intervals",
    "em_median",
    "smooth_sensitivity_median",
    "ss_median",
    "noisy_mean_median",
    "cell_median",
    "segment_medians",
    "segment_medians_unchecked",
    "check_interval",
    "check_values_in",
]


# --- private medians (§VI-A) ----------------------------------------------------------

MEDIAN_METHODS = ("em", "ss", "noisymean", "cell", "true")


def check_interval(lo, hi):
    """``(lo, hi)`` as floats, checked: finite numbers with ``lo < hi``; ValueError
    otherwise."""
    lo, hi = (
        float(finite_array(lo, "lo", ndim=(0,))),
        float(finite_array(hi, "hi", ndim=(0,))),
    )
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got lo = {lo}, hi = {hi}")
    return lo, hi


def check_values_in(values, lo, hi):
    """The private values as a sorted 1-D float array, checked to lie in [lo, hi]
    (ValueError otherwise); none at all is allowed (|D| is private)."""
    values = np.sort(finite_array(values, "values", ndim=(1,), allow_empty=True))
    if values.size and (values[0] < lo or values[-1] > hi):
        raise ValueError(f"values must lie in [lo, hi] = [{lo}, {hi}]")
    return values


def em_median_intervals(values, lo, hi, epsilon):
    """Intervals and probabilities of the exponential-mechanism median (Def. 5, as
    re-derived).

    With ``x_1 <= ... <= x_n`` sorted, ``x_0 = lo`` and ``x_(n+1) = hi``, interval
    ``I_k = [x_k, x_(k+1))`` holds the outputs of rank ``k``; it is chosen with
    probability proportional to ``|I_k| exp(-epsilon |k - n/2| / 2)``, then the output
    is uniform in it. Returns ``(left, right, probability)`` per interval, computed in
    the log domain by :func:`dpnn.mechanisms.exponential_probabilities`. Privacy: the
    utility ``-|rank(x) - n/2|`` changes by at most 1 when one point is added or
    removed, so this is the exponential mechanism with sensitivity 1 and is
    ``epsilon``-DP (McSherry and Talwar 2007). The paper writes the rate as ``xi / 2``;
    ``xi`` belongs to Def. 4 (smooth sensitivity) and ``epsilon`` is meant. This
    calibration is conservative: adding or removing a point moves ``rank(x)`` of every
    output ``x`` by 0 or 1 and ``n/2`` by 1/2, so ``rank(x) - n/2`` moves by exactly 1/2
    and the mechanism is in fact ``epsilon/2``-DP; we keep the rate of Def. 5.
    """
    left, right, utility = _em_median_utility(values, lo, hi, epsilon)
    return left, right, mechanisms.exponential_probabilities(utility, epsilon, 1.0)


def _em_median_utility(values, lo, hi, epsilon):
    """Intervals of positive length and their utilities (validated inputs)."""
    lo, hi = check_interval(lo, hi)
    epsilon = positive_finite(epsilon, "epsilon")
    x = check_values_in(values, lo, hi)
    left, right = np.concatenate([[lo], x]), np.concatenate([x, [hi]])
    length = right - left
    keep = length > 0
    k = np.arange(len(x) + 1)[keep]
    utility = -np.abs(k - len(x) / 2) + (2 / epsilon) * np.log(length[keep])
    return left[keep], right[keep], utility


def em_median(values, lo, hi, epsilon, rng) -> float:
    """Exponential-mechanism median (Def. 5): an interval by the exponential mechanism,
    then uniform in it.

    ``O(n log n)`` (one sort). Privacy: ``epsilon``-DP, see :func:`em_median_intervals`;
    the interval is drawn by :func:`dpnn.mechanisms.exponential`, which keeps that
    promise as sampled (its Gumbel draw where every interval is at least 2^-20
    likely, the lighter ones exactly elsewhere).
    """
    left, right, utility = _em_median_utility(values, lo, hi, epsilon)
    rng = generator(rng)
    k = mechanisms.exponential(utility, epsilon, 1.0, rng)
    return float(rng.uniform(left[k], right[k]))


def smooth_sensitivity_median(values, lo, hi, epsilon, delta) -> float:
    """Smooth sensitivity of the median (Def. 4; Nissim, Raskhodnikova, Smith 2007,
    Claim 3.3).

    ``max_k e^(-k xi) max_(0<=t<=k+1) (x_(m+t) - x_(m+t-k-1))`` with
    ``xi = epsilon / (4 (1 + ln(2 / delta)))``, ``x_i = lo`` for ``i < 1`` and ``hi``
    for ``i > n``. Exact, by branch and bound over ``k``: the inner maximum ``A(k)`` is
    non-decreasing in ``k``, so ``e^(-a xi) A(b)`` bounds every ``k`` in ``[a, b]`` and
    only ranges whose bound beats the running maximum are split.
    """
    lo, hi = check_interval(lo, hi)
    epsilon, delta = _ss_arguments(epsilon, delta)
    x = check_values_in(values, lo, hi)
    n, xi = len(x), epsilon / (4 * (1 + math.log(2 / delta)))
    m = (n + 1) // 2  # 1-indexed median position
    pad = n + 2
    # x_i at padded[i - 1 + pad]
    padded = np.concatenate([np.full(pad, lo), x, np.full(pad, hi)])

    # A(k) = max_(0<=t<=k+1) (x_(m+t) - x_(m+t-k-1)), non-decreasing in k
    def widest(k):
        t = np.arange(k + 2)
        return float(np.max(padded[m + t - 1 + pad] - padded[m + t - k - 2 + pad]))

    # Branch and bound over k: on [a, b], e^(-k xi) A(k) <= e^(-a xi) A(b) because A is
    # monotone.
    grid = np.unique(
        np.concatenate([[0, n], np.geomspace(1, max(n, 1), 32).astype(int)])
    )
    value = {int(k): widest(int(k)) for k in grid}
    best = max(math.exp(-k * xi) * a for k, a in value.items())
    stack = [(int(a), int(b)) for a, b in zip(grid[:-1], grid[1:])]
    while stack:
        a, b = stack.pop()
        if b - a < 2 or math.exp(-a * xi) * value[b] <= best:
            continue
        c = (a + b) // 2
        value[c] = widest(c)
        best = max(best, math.exp(-c * xi) * value[c])
        stack += [(a, c), (c, b)]
    return best


def _ss_arguments(epsilon, delta):
    epsilon = positive_finite(epsilon, "epsilon")
    if not 0 < epsilon < 1:
        raise ValueError(
            f"epsilon must be in (0, 1) for smooth sensitivity (Def. 4), got {epsilon}"
        )
    delta = float(finite_array(delta, "delta", ndim=(0,)))
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    return epsilon, delta


def ss_median(values, lo, hi, epsilon, delta, rng) -> float:
    """Smooth-sensitivity median (§VI-A): ``x_m + (2 sigma_s / epsilon) Lap(1)``, then
    clamped to [lo, hi].

    Privacy: ``(epsilon, delta)``-DP (Nissim et al. 2007, Cor. 2.4 with the
    Laplace distribution and Claim 3.3) for the continuous law, not exactly as
    sampled: the noise scale depends on the data, and their sliding and dilation
    argument is not proved for a discrete law. Clamping to the public node range
    is post-processing; the paper reports the unclamped value often leaves it.
    """
    sigma = smooth_sensitivity_median(values, lo, hi, epsilon, delta)
    x = np.sort(np.asarray(values, dtype=float))
    # x_m with m = ceil(n/2) and Def. 4's padding x_0 = lo: on no data at all the centre
    # is lo.
    median = x[(len(x) + 1) // 2 - 1] if len(x) else check_interval(lo, hi)[0]
    noisy = (
        median
        + mechanisms.laplace(np.zeros(1), 2 * max(sigma, 1e-300), epsilon, rng)[0]
    )
    return float(np.clip(noisy, *check_interval(lo, hi)))


def noisy_mean_median(values, lo, hi, epsilon, rng) -> float:
    """Noisy mean as a median surrogate (Inan et al. 2010): noisy sum / noisy count,
    clamped to [lo, hi].

    Half of ``epsilon`` goes to the count (sensitivity 1), half to the sum of
    ``x - lo`` (sensitivity ``hi - lo``); ``epsilon``-DP by composition. The ratio is
    clamped to the public range [lo, hi] (post-processing); a noisy count <= 0
    gives the middle of the range.
    """
    lo, hi = check_interval(lo, hi)
    x = np.asarray(values, dtype=float)
    x = check_values_in(x, lo, hi) if x.size else x
    return float(
        _noisy_mean_segments(
            x,
            np.zeros(len(x), dtype=np.int64),
            np.array([lo]),
            np.array([hi]),
            positive_finite(epsilon, "epsilon"),
            generator(rng),
        )[0]
    )


def _noisy_mean_segments(values, segment, lo, hi, epsilon, rng):
    s = len(lo)
    count = mechanisms.laplace(
        np.bincount(segment, minlength=s).astype(float), 1.0, epsilon / 2, rng
    )
    total = np.bincount(segment, weights=values - lo[segment], minlength=s).astype(
        float
    )
    # Lap((hi - lo) / (epsilon / 2)): the sum in units of hi - lo has sensitivity 1
    units = np.divide(total, hi - lo, out=np.zeros(s), where=hi > lo)
    total = mechanisms.laplace(units, 1.0, epsilon / 2, rng) * (hi - lo)
    mean = lo + np.divide(total, count, out=(hi - lo) / 2, where=count > 0)
    return np.clip(mean, lo, hi)


def cell_median(values, lo, hi, epsilon, cell_length, rng) -> float:
    """Cell-based median (Xiao et al. 2010): noisy counts on a fixed grid, then the
    median cell's centre.

    [lo, hi] is cut into ``c = ceil((hi - lo) / cell_length)`` equal cells of width
    ``(hi - lo) / c`` (at most ``cell_length``; equal to it when it divides
    ``hi - lo``), whose counts get Laplace noise (sensitivity 1, ``epsilon``-DP);
    the output is the centre of the first cell at which the cumulative (negatives
    zeroed) noisy count reaches half the total (post-processing).
    """
    lo, hi = check_interval(lo, hi)
    cell_length = positive_finite(cell_length, "cell_length")
    x = np.asarray(values, dtype=float)
    x = check_values_in(x, lo, hi) if x.size else x
    cells = max(1, int(math.ceil((hi - lo) / cell_length)))
    counts = np.bincount(quadtree.cell_index(x, lo, hi, cells), minlength=cells).astype(
        float
    )
    noisy = np.maximum(mechanisms.laplace(counts, 1.0, epsilon, rng), 0)
    return _grid_median(noisy, lo, hi)


def _grid_median(noisy, lo, hi):
    cumulative = np.cumsum(noisy)
    k = (
        int(np.searchsorted(cumulative, cumulative[-1] / 2))
        if cumulative[-1] > 0
        else len(noisy) // 2
    )
    return lo + (min(k, len(noisy) - 1) + 0.5) * (hi - lo) / len(noisy)


def _em_median_segments(values, segment, lo, hi, epsilon, rng):
    """The EM median of every segment at once (Gumbel-max over all intervals, one
    segmented argmax).

    ``values`` sorted by (segment, value); ``lo``, ``hi`` the ranges of the
    ``S`` segments. Segment ``s`` owns ``n_s + 1`` consecutive intervals (its values'
    left gaps, then the gap up to ``hi_s``), so no sort is needed. Same distribution
    as :func:`em_median` on each segment, as sampled too: segments with an interval
    below 2^-20 likely draw their light intervals exactly
    (:func:`_light_intervals_exactly`).
    """
    s = len(lo)
    n = np.bincount(segment, minlength=s)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    offset = start + np.arange(s)  # first interval of each segment
    rank = np.arange(len(values)) - start[segment]
    size = len(values) + s
    left, right, k = np.empty(size), np.empty(size), np.empty(size)
    at = rank + offset[segment]
    left[at] = np.where(rank > 0, np.concatenate([[0.0], values[:-1]]), lo[segment])
    right[at], k[at] = values, rank
    final = offset + n
    left[final] = np.where(
        n > 0, values[np.maximum(start + n - 1, 0)] if len(values) else lo, lo
    )
    right[final], k[final] = hi, n
    owner_n = np.repeat(n, n + 1)
    with np.errstate(divide="ignore"):
        base = np.log(right - left) - epsilon / 2 * np.abs(k - owner_n / 2)
    score = _light_intervals_exactly(base, base + rng.gumbel(size=size), offset, rng)
    best = np.repeat(np.maximum.reduceat(score, offset), n + 1)
    owner = np.repeat(np.arange(s), n + 1)
    # ties have probability 0 unless lo = hi
    top = np.flatnonzero(score == best)
    # the first best interval of each segment
    winner = top[np.unique(owner[top], return_index=True)[1]]
    return rng.uniform(left[winner], right[winner])


def _light_intervals_exactly(base, score, offset, rng):
    """``score`` (``base`` plus float Gumbel noise) with, in each segment where an
    interval of positive length is below 2^-20 likely, the light intervals drawn
    exactly: together with exactly their probability
    (:func:`dpnn.exact_choice.light_sides`), then one of them
    (:func:`dpnn.exact_choice.categorical_log`); otherwise the Gumbel draw among
    the others decides. The exact draws come from a child of ``rng``, whose own
    stream is unchanged."""
    sizes = np.diff(np.append(offset, base.size))
    top = np.repeat(np.maximum.reduceat(base, offset), sizes)
    with np.errstate(invalid="ignore"):
        weight = np.exp(base - top)
    total = np.add.reduceat(weight, offset)
    light = (weight / np.repeat(total, sizes) < exact_sampling.TURN_FLOOR) & (
        base > -np.inf
    )
    flagged = np.flatnonzero(np.maximum.reduceat(light, offset))
    if not flagged.size:
        return score
    score = np.where(light, -np.inf, score)
    shares = np.add.reduceat(np.where(light, weight, 0.0), offset)[flagged]
    exact = exact_choice.spawned(rng)

    def part(s):
        return slice(offset[s], offset[s] + sizes[s])

    def sides(i):
        segment, mask = base[part(flagged[i])], light[part(flagged[i])]
        return segment[mask], segment[~mask]

    drawn = exact_choice.light_sides(shares / total[flagged], sides, exact)
    for s in flagged[drawn]:
        segment, mask = base[part(s)], light[part(s)]
        pick = np.flatnonzero(mask)[exact_choice.categorical_log(segment[mask], exact)]
        score[part(s)] = -np.inf
        score[offset[s] + pick] = 0.0
    return score


def _true_median_segments(values, segment, lo, hi):
    s = len(lo)
    n = np.bincount(segment, minlength=s)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    top = max(len(values) - 1, 0)
    middle = (
        (
            values[np.clip(start + (n - 1) // 2, 0, top)]
            + values[np.clip(start + n // 2, 0, top)]
        )
        / 2
        if len(values)
        else lo
    )
    return np.where(n > 0, middle, (lo + hi) / 2)


def segment_medians(values, segment, lo, hi, method, epsilon, rng):
    """One median per segment: ``method`` in ``"em"``, ``"noisymean"``, ``"true"`` (not
    private), ``"mid"``.

    ``values`` sorted by (segment, value), ``segment`` the index in ``[0, S)`` of each
    value's segment, ``lo``, ``hi`` the public ranges of the ``S`` segments; every value
    must lie in its segment's ``[lo, hi]``. ``epsilon`` (> 0) is required for ``"em"``
    and ``"noisymean"`` and ignored otherwise; ``rng`` is a Generator or a seed.
    Returns the ``S`` medians. Privacy: each segment's median is ``epsilon``-DP for
    ``em`` and ``noisymean`` and the disjoint segments compose in parallel, so all of
    them together are ``epsilon``-DP; ``"true"`` is not private; ``"mid"`` is the
    data-independent midpoint (quadtree split) and costs nothing.
    """
    if method not in ("em", "noisymean", "true", "mid"):
        raise ValueError(
            f"method must be one of 'em', 'noisymean', 'true', 'mid', got {method!r}"
        )
    values, segment, lo, hi = _segments(values, segment, lo, hi)
    if method in ("em", "noisymean"):
        epsilon, rng = positive_finite(epsilon, "epsilon"), generator(rng)
    return segment_medians_unchecked(values, segment, lo, hi, method, epsilon, rng)


def segment_medians_unchecked(values, segment, lo, hi, method, epsilon, rng):
    """:func:`segment_medians` without its input checks: the same medians, drawn the
    same way, with the same privacy.

    For callers whose segments are valid by construction (the tree builders): ``values``
    sorted by (segment, value), ``segment`` int64, ``lo``, ``hi`` float arrays,
    ``epsilon`` a float > 0 and ``rng`` a Generator for ``"em"`` and ``"noisymean"``.
    """
    if method == "mid":
        return (lo + hi) / 2
    if method == "true":
        return _true_median_segments(values, segment, lo, hi)
    if method == "em":
        return _em_median_segments(values, segment, lo, hi, epsilon, rng)
    return _noisy_mean_segments(values, segment, lo, hi, epsilon, rng)


def _segments(values, segment, lo, hi):
    """Checked inputs of :func:`segment_medians` (empty ``values`` allowed: every
    segment empty)."""
    lo = finite_array(lo, "lo", ndim=(1,))
    hi = finite_array(hi, "hi", ndim=(1,))
    if lo.shape != hi.shape or np.any(lo > hi):
        raise ValueError(
            "lo and hi must have the same length with lo <= hi in every segment"
        )
    values = np.asarray(values, dtype=float)
    segment = np.asarray(segment)
    if values.ndim != 1 or segment.shape != values.shape:
        raise ValueError(
            f"values and segment must be 1-D of equal length, got {values.shape} and "
            f"{segment.shape}"
        )
    if not values.size:
        return values, segment.astype(np.int64), lo, hi
    values = finite_array(values, "values", ndim=(1,))
    if (
        not np.issubdtype(segment.dtype, np.integer)
        or segment.min() < 0
        or segment.max() >= len(lo)
    ):
        raise ValueError(
            f"segment must hold integers in [0, {len(lo)}) (one range per segment)"
        )
    if np.any((values < lo[segment]) | (values > hi[segment])):
        raise ValueError("values must lie in the [lo, hi] of their segment")
    step = np.diff(segment)
    if np.any(step < 0) or np.any((step == 0) & (np.diff(values) < 0)):
        raise ValueError("values must be sorted by (segment, value)")
    return values, segment.astype(np.int64), lo, hi
