"""A certified bound on the privacy a basic (or E) DP-TT transcript loses, for every
pair.

The ledger (:func:`dpnn.traversal.dptt_ledger`) charges each DIS turn its full
budget, as if two queries could move ``u_R - u_L`` by the whole sensitivity. They
cannot by more than the gap between the children's values:

**Per turn.** At an inner node n with children values ``c_L, c_R`` and
``g_n = ||c_L - c_R||``, a query x turns right with probability
``expit(z)``, ``z = s (||x - c_L|| - ||x - c_R||)``, ``s = epsilon_l / (2 Delta)``
(thesis Alg. 12-13). By the triangle inequality ``|z| <= s g_n`` for every x in
R^d, and ``log expit`` increases, so for any two queries x, x'

    ``log Pr_x[right] - log Pr_x'[right] <= log expit(s g_n) - log expit(-s g_n)
    = s g_n``,

and the same for left: each turn is ``a_n``-indistinguishable, ``a_n = epsilon_l
g_n / (2 Delta)``, for *every* pair of queries (no sensitivity assumption). The
bound is attained at x = c_R, x' = c_L, so no per-turn bound is smaller. For CMP
``u_R - u_L`` is +-1 and ``a_n = epsilon_l / 2`` (randomized response).

**Within a radius.** For two queries at most r apart each of the two distances
in z moves by at most r, so ``|z(x) - z(x')| <= 2 s r``; ``log expit`` is
1-Lipschitz, so each turn is ``s min(g_n, 2 r)``-indistinguishable for every such
pair (the geo-indistinguishability footing of the thesis's §6.2: a privacy radius
r = Delta gives at most ``epsilon_l`` per turn).

**Pure.** A transcript's log-likelihood ratio is the sum of its turns' ratios,
so every pair is ``(A, 0)``-indistinguishable with ``A`` the largest sum of
``a_n`` over a root-to-end path.

**At delta.** Given the turns so far, the next turn (at depth l) is a binary
release that is ``(A_l, 0)``-DP, ``A_l = max a_n`` over depth l; every
(A, 0)-DP pair of laws has a trade-off curve at least that of randomized
response RR(A) (Kairouz, Oh and Viswanath, "The composition theorem for
differential privacy", ICML 2015, and Dong, Roth and Su, "Gaussian differential
privacy", JRSS-B 2022, Prop. 2.5), and adaptive composition of trade-off curves
holds (Dong, Roth and Su, Thm. 4). So the transcript's privacy curve is at most
the hockey-stick curve of the product of ``RR(A_l)``, computed exactly here by
enumerating its 2^h outcomes. The certified epsilon at ``delta`` is the smaller
of the two bounds.

Footing: the bound holds at any delta and for every pair in R^d; for CMP it
equals the corner pair's exact epsilon (every turn separates the corners), so it
is the exact worst case.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import nonnegative_finite, positive_finite
from dpnn.adversary.transcript import exact_epsilon
from dpnn.adversary.turns import schedule_of
from dpnn.trees import KDTree

__all__ = ["turn_loss_bounds", "certified_epsilon", "calibrated_epsilon"]

#: Most levels whose randomized-response product is enumerated (2^h outcomes).
_MAX_ENUMERATED_LEVELS = 22


def _check_radius(radius):
    return None if radius is None else positive_finite(radius, "radius")


def _check(tree, utility, sensitivity, stop_height):
    if not isinstance(tree, KDTree) or not tree.leaf_only:
        raise ValueError("tree must be a leaf-only KDTree (dpnn.trees.build_tree)")
    if utility == "dis":
        sensitivity = positive_finite(sensitivity, "sensitivity")
    elif utility == "cmp":
        if sensitivity not in (None, 1, 1.0):
            raise ValueError(
                f"sensitivity of the CMP utility is 1; got {sensitivity!r}"
            )
        sensitivity = 1.0
    else:
        raise ValueError(f"utility must be 'cmp' or 'dis', got {utility!r}")
    if isinstance(stop_height, bool) or int(stop_height) != stop_height:
        raise ValueError(f"stop_height must be an integer >= 0, got {stop_height!r}")
    if stop_height < 0:
        raise ValueError(f"stop_height must be an integer >= 0, got {stop_height!r}")
    return sensitivity


def turn_loss_bounds(
    tree: KDTree,
    epsilon,
    utility: str,
    sensitivity=None,
    stop_height: int = 0,
    radius=None,
) -> np.ndarray:
    """``a_n``, the most any two queries' turn laws differ at node n (log ratio).

    ``epsilon_l g_n / (2 sensitivity)`` for DIS (``g_n`` the distance between the
    children's values; with ``radius`` r, ``epsilon_l min(g_n, 2 r) / (2
    sensitivity)`` for pairs at most r apart), ``epsilon_l / 2`` for CMP, 0 at
    nodes the transcript never turns at (leaves, and nodes of height at most
    ``stop_height``). Every turn at n is ``(a_n, 0)``-indistinguishable for every
    pair of queries (within ``radius``; proof in the module's docstring).
    """
    sensitivity = _check(tree, utility, sensitivity, stop_height)
    radius = _check_radius(radius)
    schedule = schedule_of(tree, epsilon)
    walking = (tree.left >= 0) & (tree.height > stop_height)
    bounds = np.zeros(tree.n_nodes)
    nodes = np.flatnonzero(walking)
    level = schedule[np.minimum(tree.depth[nodes], len(schedule) - 1)]
    if utility == "cmp":
        bounds[nodes] = level / 2
    else:
        gap = (
            tree.points[tree.point[tree.left[nodes]]]
            - tree.points[tree.point[tree.right[nodes]]]
        )
        gap = np.linalg.norm(gap, axis=1)
        if radius is not None:
            gap = np.minimum(gap, 2 * radius)
        bounds[nodes] = level * gap / (2 * sensitivity)
    return bounds


def _largest_path_sum(tree, bounds):
    """``max`` over root-to-leaf paths of the sum of ``bounds``, from the leaves up."""
    best = bounds.copy()
    inner = np.flatnonzero(tree.left >= 0)
    for depth in range(int(tree.depth.max()) - 1, -1, -1):
        nodes = inner[tree.depth[inner] == depth]
        best[nodes] += np.maximum(best[tree.left[nodes]], best[tree.right[nodes]])
    return float(best[0])


def _composed_randomized_response(levels, delta):
    """The exact epsilon at ``delta`` of the product of ``RR(A_l)`` (enumerated)."""
    log_p = np.zeros(1)
    log_q = np.zeros(1)
    for a in levels[levels > 0]:
        truthful, lying = -np.logaddexp(0, -a), -np.logaddexp(0, a)
        log_p = (log_p[:, None] + np.array([truthful, lying])).ravel()
        log_q = (log_q[:, None] + np.array([lying, truthful])).ravel()
    return exact_epsilon(log_p, log_q, delta)


def certified_epsilon(
    tree: KDTree,
    epsilon,
    utility: str,
    delta=0.0,
    sensitivity=None,
    stop_height: int = 0,
    radius=None,
) -> float:
    """An epsilon at ``delta`` that no pair of queries' transcripts exceeds, certified.

    The smaller of the path-maximised pure bound and, for ``delta > 0``, the
    randomized-response composition of the per-level maxima (module docstring;
    the latter only for trees of at most 22 levels). For CMP it is the exact worst
    case (the corner pair attains it); for DIS an upper bound on every pair, or
    with ``radius`` on every pair at most ``radius`` apart.
    """
    delta = nonnegative_finite(delta, "delta")
    if delta >= 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    bounds = turn_loss_bounds(tree, epsilon, utility, sensitivity, stop_height, radius)
    pure = _largest_path_sum(tree, bounds)
    depth = tree.depth
    levels = np.zeros(int(depth.max()) + 1)
    np.maximum.at(levels, depth, bounds)
    if delta == 0 or np.count_nonzero(levels) > _MAX_ENUMERATED_LEVELS:
        return pure
    return min(pure, _composed_randomized_response(levels, delta))


def calibrated_epsilon(
    tree: KDTree,
    target,
    utility: str,
    delta=0.0,
    sensitivity=None,
    stop_height: int = 0,
    tolerance: float = 1e-9,
    radius=None,
) -> float:
    """The constant per-step epsilon whose :func:`certified_epsilon` is ``target``
    (for every pair, or every pair at most ``radius`` apart).

    The certified bound grows with the per-step epsilon (each ``a_n`` does), so
    bisection on it finds the largest per-step epsilon at which every pair of
    queries is certified ``(target, delta)``-indistinguishable, to a relative
    ``tolerance`` (the value returned is never above it).
    """
    target = positive_finite(target, "target")

    def certified(epsilon, at_delta):
        return certified_epsilon(
            tree, epsilon, utility, at_delta, sensitivity, stop_height, radius
        )

    unit = certified(1.0, 0.0)
    if unit <= 0:
        raise ValueError("tree must have at least one turn for the transcript to lose")
    low, high = target / unit, target / unit  # the pure bound is linear in epsilon
    while certified(high, delta) < target:
        high *= 2
    while high - low > tolerance * high:
        middle = (low + high) / 2
        value = certified(middle, delta)
        low, high = (middle, high) if value <= target else (low, middle)
    return low
