"""The exact privacy of a whole basic DP-TT transcript, against what the ledger charges.

What the server sees from one basic DP-TT run is the root-to-leaf path (E: the
path to a subtree). For two client queries x and x' the two laws P and Q of the
path are computed over every leaf (:func:`dpnn.adversary.turns.path_log_law`),
and the run is (epsilon, delta)-indistinguishable for this pair exactly when
the hockey-stick divergence

    ``delta(epsilon) = max( sum_o (P(o) - e^eps Q(o))_+, sum_o (Q(o) - e^eps P(o))_+ )``

is at most delta. That is the privacy curve of the pair; the smallest epsilon
with ``delta(epsilon) <= delta`` is the pair's actual epsilon. The ledger
(:func:`dpnn.traversal.dptt_ledger`, composed by :class:`dpnn.accounting.Accountant`)
bounds the curve of *every* pair (for DIS: every pair within ``sensitivity``),
so no pair's actual epsilon may exceed the accounted one.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, nonnegative_finite, probability_open
from dpnn.adversary.turns import path_log_law, schedule_of
from dpnn.traversal import dptt_ledger
from dpnn.trees import KDTree

__all__ = [
    "ACCOUNTING_METHODS",
    "hockey_stick",
    "exact_epsilon",
    "pair_laws",
    "pair_epsilon",
    "pair_delta",
    "accounted_epsilon",
    "corner_pair",
    "worst_pair_at_distance",
]

# : The ledger's methods set beside the exact curve: the thesis's Thm 2.13 reading, Thm
# 2.13 over
#: range-bounded steps, zCDP and the PLD composition.
ACCOUNTING_METHODS = ("thesis", "br", "zcdp", "pld")


def _one_sided(log_p, log_q, epsilon):
    """``sum_o (P(o) - e^eps Q(o))_+`` for each epsilon (array), as
    ``P (1 - e^(eps - L))`` on L > eps."""
    loss = log_p - log_q
    order = np.argsort(-loss)
    loss, p = loss[order], np.exp(log_p[order])
    epsilon = np.asarray(epsilon, dtype=float)
    out = np.empty(epsilon.shape)
    for i, e in np.ndenumerate(epsilon):
        k = np.searchsorted(-loss, -e, side="left")  # loss[:k] > e
        out[i] = np.sum(p[:k] * -np.expm1(e - loss[:k]))
    return out


def _check_laws(log_p, log_q):
    log_p = np.asarray(log_p, dtype=float)
    log_q = np.asarray(log_q, dtype=float)
    if (
        log_p.shape != log_q.shape
        or log_p.ndim != 1
        or not np.all(np.isfinite(log_p))
        or not np.all(np.isfinite(log_q))
    ):
        raise ValueError(
            "log_p and log_q must be 1-D arrays of equal length "
            "of finite log-probabilities"
        )
    return log_p, log_q


def hockey_stick(log_p, log_q, epsilon) -> np.ndarray:
    """``delta(epsilon)`` of two laws given by their log-probabilities on the same
    outcomes (symmetric)."""
    log_p, log_q = _check_laws(log_p, log_q)
    e = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(e)) or np.any(e < 0):
        raise ValueError("epsilon must hold finite numbers >= 0")
    return np.maximum(_one_sided(log_p, log_q, e), _one_sided(log_q, log_p, e))


def _one_sided_epsilon(log_p, log_q, delta):
    """Smallest eps >= 0 with ``sum (P - e^eps Q)_+ <= delta``, exactly, from the sorted
    losses."""
    loss = log_p - log_q
    order = np.argsort(-loss, kind="stable")
    loss, p, q = loss[order], np.exp(log_p[order]), np.exp(log_q[order])
    tail_p, tail_q = np.cumsum(p), np.cumsum(q)
    # at eps = loss[k] the sum runs over the outcomes ranked before k (ties add 0)
    at_loss = np.concatenate([[0.0], tail_p[:-1]]) - np.exp(loss) * np.concatenate(
        [[0.0], tail_q[:-1]]
    )
    # delta(loss[k]) grows with k (the losses fall); the answer lies in (loss[k], loss[k
    # - 1]] for
    # the first k with delta(loss[k]) > delta, where the top k outcomes count
    above = np.flatnonzero(at_loss > delta)
    if (
        not above.size
    ):  # delta(eps) <= delta already at the smallest loss, which is <= 0
        return 0.0
    return _solve(tail_p, tail_q, loss, delta, int(above[0]))


def _solve(tail_p, tail_q, loss, delta, k):
    """On the segment where the top k outcomes (by loss) count:
    ``S_P - e^eps S_Q = delta``."""
    s_p, s_q = tail_p[k - 1], tail_q[k - 1]
    if s_q <= 0:
        return float(loss[k - 1])
    value = np.log(max(s_p - delta, np.finfo(float).tiny) / s_q)
    return float(max(value, 0.0))


def exact_epsilon(log_p, log_q, delta) -> float:
    """The smallest epsilon >= 0 at which the two laws are (epsilon,
    delta)-indistinguishable, both ways."""
    log_p, log_q = _check_laws(log_p, log_q)
    delta = nonnegative_finite(delta, "delta")
    if delta >= 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    return max(
        _one_sided_epsilon(log_p, log_q, delta), _one_sided_epsilon(log_q, log_p, delta)
    )


def pair_laws(
    tree: KDTree,
    x,
    x_prime,
    epsilon,
    utility: str,
    sensitivity=None,
    stop_height: int = 0,
):
    """The two transcript laws ``(ends, log P, log Q)`` for queries x and x' (see
    ``path_log_law``)."""
    ends, log_p = path_log_law(
        tree,
        np.vstack([np.atleast_1d(x), np.atleast_1d(x_prime)]),
        epsilon,
        utility,
        sensitivity,
        stop_height,
    )
    return ends, log_p[0], log_p[1]


def pair_epsilon(
    tree, x, x_prime, epsilon, utility, delta, sensitivity=None, stop_height=0
) -> float:
    """The actual epsilon at ``delta`` of the transcript for the pair (x, x')."""
    _, log_p, log_q = pair_laws(
        tree, x, x_prime, epsilon, utility, sensitivity, stop_height
    )
    return exact_epsilon(log_p, log_q, delta)


def pair_delta(
    tree, x, x_prime, epsilon, utility, at_epsilon, sensitivity=None, stop_height=0
):
    """The exact privacy curve ``delta(at_epsilon)`` of the transcript for the pair (x,
    x')."""
    _, log_p, log_q = pair_laws(
        tree, x, x_prime, epsilon, utility, sensitivity, stop_height
    )
    return hockey_stick(log_p, log_q, at_epsilon)


def accounted_epsilon(
    tree: KDTree,
    epsilon,
    utility: str,
    delta,
    methods=ACCOUNTING_METHODS,
    splits: int = 0,
) -> dict:
    """What the ledger charges one basic (``splits=0``) or E<splits> run:
    ``{method: epsilon at delta}``."""
    delta = probability_open(delta, "delta")
    ledger = dptt_ledger(
        schedule_of(tree, epsilon)[: tree.tree_height],
        utility,
        "early" if splits else "basic",
        splits,
    )
    return {method: ledger.epsilon(delta, method) for method in methods}


def corner_pair(domain) -> tuple[np.ndarray, np.ndarray]:
    """The domain's lowest and highest corners.

    For CMP this pair is a worst case: every split separates them, so at every
    node of either path one query turns correctly and the other wrongly, and the
    privacy loss of each turn is exactly +-epsilon/2 (randomized response), the
    most a CMP step can lose. Ties (a coordinate equal to a split) go right as
    in :func:`dpnn.traversal.dptt`, so the highest corner always turns right.
    """
    box = finite_array(domain, "domain", ndim=(2,))
    return box[:, 0].copy(), box[:, 1].copy()


def _fit(box, centre, direction, distance):
    """The pair at ``distance`` along ``direction`` about ``centre``, its centre moved
    the least to fit the domain; None when the direction does not fit."""
    norm = np.linalg.norm(direction)
    if not np.isfinite(norm) or norm == 0:
        return None
    half = np.abs(direction / norm) * distance / 2
    if np.any(2 * half > box[:, 1] - box[:, 0]):
        return None
    centre = np.clip(centre, box[:, 0] + half, box[:, 1] - half)
    step = direction / norm * distance / 2
    return centre - step, centre + step


def _directions(box):
    """Each axis and each diagonal of the domain (one sign per diagonal)."""
    d, widths = box.shape[0], box[:, 1] - box[:, 0]
    signs = np.array(np.meshgrid(*[[1.0, -1.0]] * d, indexing="ij")).reshape(d, -1).T
    return list(np.eye(d)) + [s * widths for s in signs if s[0] > 0]


def _structured_pairs(tree, box, distance, bounds, depth):
    """Seeds from the tree: the domain's diagonals (centred, and from each corner),
    and for the nodes of depth at most ``depth`` and those with the largest turn
    bounds, pairs about each split (across it, and along each diagonal) and, for
    DIS, along the line between the children's values."""
    from dpnn.trees import cell_boxes

    low, high = cell_boxes(tree, box)
    centre, directions = (box[:, 0] + box[:, 1]) / 2, _directions(box)
    d = len(box)
    seeds = [(centre, u) for u in directions]
    corners = np.array(np.meshgrid(*box, indexing="ij")).reshape(len(box), -1).T
    for corner in corners:
        inward = centre - corner
        seeds.append((corner + inward / np.linalg.norm(inward) * distance / 2, inward))
    inner = np.flatnonzero((tree.left >= 0) & (bounds > 0))
    top = inner[np.argsort(-bounds[inner], kind="stable")[:4]]
    shallow = inner[tree.depth[inner] <= depth]
    for n in np.unique(np.concatenate([shallow, top])):
        middle = (low[n] + high[n]) / 2
        middle[tree.axis[n]] = tree.split[n]
        seeds += [(middle, u) for u in directions]
        values = tree.points[tree.point[[tree.left[n], tree.right[n]]]]
        seeds.append(((values[0] + values[1]) / 2, values[1] - values[0]))
        for child in (tree.left[n], tree.right[n]):  # where its split crosses a child's
            if tree.left[child] >= 0 and tree.axis[child] != tree.axis[n]:
                crossing = middle.copy()
                crossing[tree.axis[child]] = tree.split[child]
                seeds += [(crossing, u) for u in directions[d:]]
    return seeds


def worst_pair_at_distance(
    tree: KDTree,
    domain,
    distance,
    epsilon,
    utility,
    delta,
    rng,
    sensitivity=None,
    candidates: int = 16,
    stop_height: int = 0,
    refine: int = 2,
    depth: int = 2,
):
    """A pair at ``distance`` whose transcripts lose the most, and its actual epsilon.

    Seeds: the structured pairs of the tree (the domain's diagonals, centred and
    from each corner; pairs about the split of every node of depth at most
    ``depth`` and of the four nodes with the largest turn-loss bounds
    :func:`dpnn.adversary.certified.turn_loss_bounds`, across the split and
    along each diagonal, and along the line between the children's values) and
    ``candidates`` random pairs (a uniform direction that fits, then a uniform
    first point that keeps both inside). Each seed is scored by its exact
    epsilon (:func:`pair_epsilon`); the ``refine`` best are refined by
    Nelder-Mead on the exact epsilon over the pair's centre and direction, at two
    scales (a fifth, a twentieth and a hundredth of the domain). A search, not a proof:
    returns ``(x, x', epsilon)`` of the worst pair found; set it against
    :func:`dpnn.adversary.certified.certified_epsilon`.
    """
    from scipy.optimize import minimize

    from dpnn.adversary.certified import turn_loss_bounds

    box = finite_array(domain, "domain", ndim=(2,))
    distance = nonnegative_finite(distance, "distance")
    d, widths = box.shape[0], box[:, 1] - box[:, 0]
    if distance > np.linalg.norm(widths):
        raise ValueError(
            "distance must be at most the domain's diameter "
            f"{np.linalg.norm(widths)}, got {distance}"
        )

    def score(p):
        return pair_epsilon(
            tree, p[0], p[1], epsilon, utility, delta, sensitivity, stop_height
        )

    bounds = turn_loss_bounds(tree, epsilon, utility, sensitivity, stop_height)
    seeds = _structured_pairs(tree, box, distance, bounds, depth)
    for _ in range(candidates):
        for _ in range(1000):  # a uniform direction that fits, then a start in it
            direction = rng.standard_normal(d)
            step = direction / np.linalg.norm(direction) * distance
            if np.all(np.abs(step) <= widths):
                break
        else:  # (almost) no direction fits: only the diagonals, already seeded
            break
        start = rng.uniform(
            box[:, 0] + np.maximum(-step, 0), box[:, 1] - np.maximum(step, 0)
        )
        seeds.append((start + step / 2, step))
    pairs = [p for c, u in seeds if (p := _fit(box, c, u, distance)) is not None]
    values = np.array([score(p) for p in pairs])
    best = int(np.argmax(values))
    best_pair, best_value = pairs[best], values[best]

    def objective(theta):
        p = _fit(box, box[:, 0] + theta[:d] * widths, theta[d:] * widths, distance)
        return np.inf if p is None else -score(p)

    for start in np.argsort(-values, kind="stable")[:refine]:
        a, b = pairs[start]
        theta = np.concatenate([((a + b) / 2 - box[:, 0]) / widths, (b - a) / widths])
        value = values[start]
        for scale in (0.2, 0.05, 0.01):
            simplex = theta + np.vstack([np.zeros(2 * d), scale * np.eye(2 * d)])
            found = minimize(
                objective,
                theta,
                method="Nelder-Mead",
                options={"initial_simplex": simplex, "maxfev": 20 * d, "xatol": 0},
            )
            if -found.fun > value:
                theta, value = found.x, -found.fun
        if value > best_value:
            best_value = value
            best_pair = _fit(
                box, box[:, 0] + theta[:d] * widths, theta[d:] * widths, distance
            )
    return best_pair[0], best_pair[1], float(best_value)
