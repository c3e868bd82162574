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

Ideal or sampled law: P and Q are the ideal laws (``expit`` of each turn). What
:func:`dpnn.traversal.dptt` samples agrees with them turn by turn within a factor
e^(1e-9) (:data:`dpnn.float_laws.LOSS_SLACK`): a float uniform decides a turn only
where both outcomes are at least 2^-20 likely, and every rarer turn is drawn
exactly (:func:`dpnn.mechanisms.exponential_binary`). So a path of h turns has
sampled log-likelihoods within h * 1e-9 of these.
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
    "exact_epsilons",
    "pair_laws",
    "pair_epsilon",
    "pair_delta",
    "accounted_epsilon",
    "corner_pair",
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


def _one_sided_epsilons(loss, p, q, delta):
    """Per row, the smallest eps >= 0 with ``sum (P - e^eps Q)_+ <= delta``,
    exactly, from the losses ``log P - log Q`` sorted from the largest along each row
    and the probabilities ``p``, ``q`` in that order (ties in any order: a tied
    outcome adds ``P - e^L Q = 0`` at eps = L)."""
    tail_p, tail_q = np.cumsum(p, axis=1), np.cumsum(q, axis=1)
    # at eps = loss[k] the sum runs over the outcomes ranked before k (ties add 0)
    zero = np.zeros((len(loss), 1))
    at_loss = np.concatenate([zero, tail_p[:, :-1]], axis=1) - np.exp(
        loss
    ) * np.concatenate([zero, tail_q[:, :-1]], axis=1)
    # delta(loss[k]) grows with k (the losses fall); the answer lies in
    # (loss[k], loss[k - 1]] for the first k with delta(loss[k]) > delta, where the
    # top k outcomes count and S_P - e^eps S_Q = delta; a row with no such k has
    # delta(eps) <= delta already at its smallest loss, <= 0
    above = at_loss > delta
    out = np.zeros(len(loss))
    rows = np.flatnonzero(above.any(axis=1))
    k = np.argmax(above[rows], axis=1)  # >= 1: at_loss starts at 0 <= delta
    s_p, s_q = tail_p[rows, k - 1], tail_q[rows, k - 1]
    with np.errstate(divide="ignore"):
        value = np.log(np.maximum(s_p - delta, np.finfo(float).tiny) / s_q)
    out[rows] = np.where(s_q <= 0, loss[rows, k - 1], np.maximum(value, 0.0))
    return out


def exact_epsilon(log_p, log_q, delta) -> float:
    """The smallest epsilon >= 0 at which the two laws are (epsilon,
    delta)-indistinguishable, both ways."""
    log_p, log_q = _check_laws(log_p, log_q)
    return float(exact_epsilons(log_p[None], log_q[None], delta)[0])


def exact_epsilons(log_p, log_q, delta) -> np.ndarray:
    """:func:`exact_epsilon` of each pair of rows: ``log_p[i]`` and ``log_q[i]``
    are the two laws of pair i (2-D arrays of equal shape, finite
    log-probabilities), all pairs at once."""
    log_p = np.asarray(log_p, dtype=float)
    log_q = np.asarray(log_q, dtype=float)
    if (
        log_p.shape != log_q.shape
        or log_p.ndim != 2
        or not np.all(np.isfinite(log_p))
        or not np.all(np.isfinite(log_q))
    ):
        raise ValueError(
            "log_p and log_q must be 2-D arrays of equal shape "
            "of finite log-probabilities"
        )
    delta = nonnegative_finite(delta, "delta")
    if delta >= 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    if log_p.size == 0:
        return np.zeros(len(log_p))
    loss = log_p - log_q
    # one sort serves both directions; the order within ties does not matter (a tied
    # outcome adds P - e^L Q = 0), so the faster unstable sort is exact
    order = np.argsort(-loss, axis=1)
    back = order[:, ::-1]
    p, q = np.exp(log_p), np.exp(log_q)
    take = np.take_along_axis
    return np.maximum(
        _one_sided_epsilons(
            take(loss, order, 1), take(p, order, 1), take(q, order, 1), delta
        ),
        _one_sided_epsilons(
            -take(loss, back, 1), take(q, back, 1), take(p, back, 1), delta
        ),
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
