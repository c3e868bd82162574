"""DP-TT written straight from the thesis, and the first vectorised DP-TT: references.

:func:`dptt_reference` answers one query with a Python loop over Algorithms 11-18,
step by step (notebook 05's explorer shows its trace). :func:`_dptt_previous` is the
first batched implementation of :func:`dpnn.traversal.dptt`, kept unchanged as the
reference the faster one is tested against, bit for bit (tests/test_fast_paths.py).
Both spend exactly the privacy :func:`dpnn.traversal.dptt` reports.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import expit

from dpnn._validation import generator, positive_finite
from dpnn.mechanisms import _binary_turns
from dpnn.traversal.variants import (
    _check,
    _check_scale,
    _schedule,
    dptt_ledger,
    em_calls_formula,
)
from dpnn.traversal.walk import DPTTResult
from dpnn.trees import KDTree

__all__ = ["dptt_reference"]


def dptt_reference(
    tree: KDTree,
    query,
    epsilon: float,
    utility: str,
    sensitivity=None,
    variant: str = "basic",
    splits: int = 0,
    neighborhood: int = 0,
    *,
    rng,
    trace: list | None = None,
):
    """One query, written straight from Algorithms 11-18 with a Python loop: the slow
    reference.

    Returns ``(released point indices (sorted, unique), em_calls)``. Used to check
    :func:`dptt` and as the baseline of ``benchmarks/bench_dptt.py``. If ``trace``
    is a list, every step is appended to it as a dict: ``{"node", "action"}`` with
    action ``"em"`` (plus the utilities, the probability of turning right and the
    bit the client sent), ``"split"`` (a data-independent split) or ``"finish"``.
    """
    q, sensitivity = _check(
        tree,
        np.atleast_1d(query).reshape(1, -1),
        utility,
        sensitivity,
        variant,
        splits,
        neighborhood,
    )
    q = q[0]
    epsilon = positive_finite(epsilon, "epsilon")
    _check_scale([epsilon], sensitivity)
    rng = generator(rng, "rng")
    calls = [0]

    def em_query(p):  # Alg. 12 with the utility of Alg. 13 or 14
        left, right = tree.left[p], tree.right[p]
        if utility == "cmp":
            true_answer = not q[tree.axis[p]] < tree.split[p]
            left_u, right_u = (0.0, 1.0) if true_answer else (1.0, 0.0)
        else:
            left_u = float(np.linalg.norm(q - tree.points[tree.point[right]]))
            right_u = float(np.linalg.norm(q - tree.points[tree.point[left]]))
        # shifting both exponents by the max changes nothing but overflow
        top = max(left_u, right_u)
        left_prob = np.exp(epsilon * (left_u - top) / (2 * sensitivity))
        right_prob = np.exp(epsilon * (right_u - top) / (2 * sensitivity))
        calls[0] += 1
        bit = 0 if rng.random() < left_prob / (left_prob + right_prob) else 1
        if trace is not None:
            trace.append(
                {
                    "node": int(p),
                    "action": "em",
                    "depth": int(tree.depth[p]),
                    "left_utility": left_u,
                    "right_utility": right_u,
                    "p_right": right_prob / (left_prob + right_prob),
                    "bit": bit,
                }
            )
        return bit

    def leaves(p):
        if trace is not None:
            trace.append(
                {"node": int(p), "action": "finish", "depth": int(tree.depth[p])}
            )
        return list(tree.order[tree.lo[p] : tree.hi[p]])

    def walk(p, stop_height=0):  # Alg. 11 (Alg. 16 when stop_height > 0)
        while tree.height[p] > stop_height:
            p = tree.right[p] if em_query(p) == 1 else tree.left[p]
        return leaves(p)

    def split_top(p, remaining):  # Alg. 15
        if remaining == 0 or tree.left[p] < 0:
            return walk(p)
        if trace is not None:
            trace.append(
                {"node": int(p), "action": "split", "depth": int(tree.depth[p])}
            )
        return split_top(tree.left[p], remaining - 1) + split_top(
            tree.right[p], remaining - 1
        )

    def greedy(p, continue_split):  # Alg. 17
        while tree.left[p] >= 0:
            turn = em_query(p)
            chosen, other = (
                (tree.right[p], tree.left[p])
                if turn == 1
                else (tree.left[p], tree.right[p])
            )
            if continue_split:
                return greedy(chosen, True) + greedy(other, False)
            p = chosen
        return leaves(p)

    if variant == "basic":
        found = walk(0)
    elif variant == "parallel":
        found = split_top(0, splits)
    elif variant == "early":
        found = walk(0, splits)
    else:
        found = greedy(0, True)
    # Alg. 18: the B true nearest neighbours of each found value, itself first
    if neighborhood:
        data = tree.points.reshape(len(tree.points), -1)
        near = []
        # brute force: distance to every point, the found point itself ranked first
        for p in found:
            distance = np.linalg.norm(data - data[p], axis=1)
            distance[p] = -1.0
            near.extend(np.argsort(distance, kind="stable")[:neighborhood])
        found = near
    return np.unique(np.asarray(found, dtype=np.intp)), calls[0]


def _utility_gap_previous(tree, q, owner, node, utility):
    """``u_right - u_left`` for threads of queries ``owner`` at inner ``node``
    (Alg. 13 or 14).

    With two candidates the exponential mechanism depends on the utilities only through
    this difference: ``Pr[right] = expit(epsilon (u_R - u_L) / (2 sensitivity))``.
    """
    if utility == "cmp":  # u_left = 1 iff query[axis] < split, u_right = 1 - u_left
        return np.where(q[owner, tree.axis[node]] < tree.split[node], -1.0, 1.0)
    rows = q[owner]
    # Alg. 13 inverts on purpose: u_left = distance to the right child, u_right =
    # distance to the left.
    to_left = np.linalg.norm(rows - tree.points[tree.point[tree.left[node]]], axis=1)
    to_right = np.linalg.norm(rows - tree.points[tree.point[tree.right[node]]], axis=1)
    return to_left - to_right


def _dptt_previous(
    tree: KDTree,
    queries,
    epsilon,
    utility: str,
    sensitivity=None,
    variant: str = "basic",
    splits: int = 0,
    neighborhood: int = 0,
    *,
    rng,
) -> DPTTResult:
    """:func:`dpnn.traversal.dptt` as first vectorised, kept to check the fast path
    against.

    Same arguments and the same result, bit for bit, as :func:`dptt`; slower: it
    gathers every thread's query row and children's points at every level, writes the
    output with a global sort and looks up the neighbours of every found leaf anew.
    The original description follows.

    Run DP-TT for every query in ``queries`` (shape (n,) on a 1-D tree, or (n, d)).

    ``epsilon`` is the per-step budget each exponential-mechanism call
    (EMQUERY) receives, or an array giving it per tree level. The result's
    accountant is charged with the worst-case calls of the variant
    (:func:`em_calls_formula`): ``"randomized_response"`` at ``epsilon/2``
    per CMP step (its exact loss), ``"exponential"`` at ``epsilon`` per DIS
    step (with respect to queries within ``sensitivity`` of each other).
    """
    q, sensitivity = _check(
        tree, queries, utility, sensitivity, variant, splits, neighborhood
    )
    schedule = _schedule(tree, epsilon)
    _check_scale(schedule, sensitivity)
    rng = generator(rng, "rng")
    n_queries = len(q)
    owner = np.arange(n_queries)
    node = np.zeros(n_queries, dtype=np.intp)
    splitting = np.full(n_queries, variant == "greedy")
    # data-independent splits, no exponential mechanism (Alg. 15)
    if variant == "parallel":
        for _ in range(splits):
            inner = tree.left[node] >= 0
            owner = np.concatenate([owner[~inner], owner[inner], owner[inner]])
            node = np.concatenate(
                [node[~inner], tree.left[node[inner]], tree.right[node[inner]]]
            )
        splitting = np.zeros(len(node), dtype=bool)
    starts = np.bincount(owner, minlength=n_queries)
    # a thread makes one call per level from its start to where it stops
    start_depth = tree.depth[node]
    stop_height = splits if variant == "early" else 0
    finished = []
    while node.size:
        # a leaf, or E's stopping level (Alg. 16)
        done = tree.height[node] <= stop_height
        if np.any(done):
            finished.append((owner[done], node[done], start_depth[done]))
            owner, node, splitting, start_depth = (
                owner[~done],
                node[~done],
                splitting[~done],
                start_depth[~done],
            )
            if not node.size:
                break
        level = tree.depth[node[0]]  # every live thread is at the same depth
        gap = _utility_gap_previous(tree, q, owner, node, utility)
        scale = schedule[level] / (2 * sensitivity)
        # gap is +-1: keep the correct turn with probability expit(scale), as Def. 2.6
        # gives
        if utility == "cmp":
            go_right = (gap > 0) == (rng.random(len(gap)) < expit(scale))
        else:
            go_right = _binary_turns(0.0, gap, scale, rng)
        # siblings are stored side by side: right == left + 1
        chosen = tree.left[node] + go_right
        # Alg. 17: the splitting thread also walks the side not chosen
        if variant == "greedy":
            other = tree.left[node[splitting]] + ~go_right[splitting]
            owner = np.concatenate([owner, owner[splitting]])
            chosen = np.concatenate([chosen, other])
            start_depth = np.concatenate([start_depth, tree.depth[other]])
            splitting = np.concatenate([splitting, np.zeros(len(other), dtype=bool)])
        node = chosen

    owner, node, start_depth = (np.concatenate(parts) for parts in zip(*finished))
    em_calls = np.bincount(
        owner, weights=tree.depth[node] - start_depth, minlength=n_queries
    ).astype(np.int64)
    indices, offsets, from_leaves = _release_previous(
        tree, owner, node, n_queries, neighborhood
    )
    leaf_threads = np.bincount(owner[tree.height[node] == 0], minlength=n_queries)
    spawned = (
        em_calls * 0
        if variant != "greedy"
        else np.bincount(owner, minlength=n_queries) - 1
    )
    sent = (
        starts + 2 * em_calls - spawned + np.maximum(np.diff(offsets) - leaf_threads, 0)
    )
    per_level = em_calls_formula(variant, tree.tree_height, splits)
    epsilons = np.repeat(schedule[: tree.tree_height], per_level)
    return DPTTResult(
        indices,
        offsets,
        em_calls,
        sent,
        epsilons,
        dptt_ledger(schedule[: tree.tree_height], utility, variant, splits),
    )


_PREVIOUS_INDEX: dict = {}


def _neighbourhoods_previous(tree, points, neighborhood):
    """The ``neighborhood`` nearest data points of each of ``points`` (indices), itself
    first.

    The leaf found is always its own first neighbour, also when other points
    share its coordinates (cKDTree may return a duplicate at distance 0 instead
    of the point itself); the rest are its nearest others.
    """
    key = (id(tree), len(tree.points))
    if key not in _PREVIOUS_INDEX:  # one cKDTree per tree, reused across calls
        _PREVIOUS_INDEX.clear()
        _PREVIOUS_INDEX[key] = (tree, cKDTree(tree.points))
    index = _PREVIOUS_INDEX[key][1]
    unique, inverse = np.unique(points, return_inverse=True)
    _, near = index.query(tree.points[unique], k=neighborhood, workers=-1)
    near = np.asarray(near).reshape(len(unique), neighborhood)
    others = near != unique[:, None]
    # Keep the first neighborhood - 1 entries other than the point itself, in distance
    # order.
    rank = np.cumsum(others, axis=1)
    keep = others & (rank < neighborhood)
    rest = near[keep].reshape(len(unique), neighborhood - 1)
    return np.column_stack([unique, rest])[inverse]


def _release_previous(tree, owner, node, n_queries, neighborhood):
    """Points released per query: each finished node's leaves, then neighbourhoods
    (deduplicated)."""
    sizes = tree.hi[node] - tree.lo[node]
    positions = np.repeat(
        tree.lo[node] - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes
    ) + np.arange(sizes.sum())
    points = tree.order[positions]
    who = np.repeat(owner, sizes)
    key = who.astype(np.int64) * len(tree.points) + points
    if neighborhood:
        points = _neighbourhoods_previous(tree, points, neighborhood).ravel()
        who = np.repeat(who, neighborhood)
        key = np.sort(who.astype(np.int64) * len(tree.points) + points)
        # neighbourhoods may overlap
        key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    else:
        key = np.sort(key)  # finished subtrees of one query never overlap
    who, points = key // len(tree.points), key % len(tree.points)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(who, minlength=n_queries))])
    return points.astype(np.intp), offsets, sizes
