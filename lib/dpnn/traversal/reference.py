"""DP-TT written straight from the thesis: one query, Algorithms 11-18, a Python loop.

:func:`dptt_reference` is the readable DP-TT (notebook 05's explorer shows its trace);
:func:`dpnn.traversal.dptt` runs the same algorithm on a batch of queries and is
tested equal to it (tests/test_fast_paths.py). Both spend exactly the privacy
:func:`dpnn.traversal.dptt` reports.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from dpnn._validation import generator, positive_finite
from dpnn.mechanisms import exponential_binary, randomized_response
from dpnn.traversal.variants import check_arguments as _check
from dpnn.traversal.variants import check_scale as _check_scale
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
    """DP-TT for one query, written straight from Algorithms 11-18 with a Python loop.

    Same arguments as :func:`dpnn.traversal.dptt` for one query and one ``epsilon``
    per step; returns ``(released point indices (sorted, unique), em_calls)``. Each
    exponential-mechanism step (Alg. 12) is :func:`dpnn.mechanisms.exponential_binary`
    for DIS and :func:`dpnn.mechanisms.randomized_response` at ``epsilon / 2`` for CMP
    (the same law with CMP's 0/1 utilities), one uniform number each, so the privacy
    is that of :func:`dpnn.traversal.dptt`: ``epsilon``-DP per DIS step for queries
    within ``sensitivity`` of each other, ``epsilon/2``-LDP per CMP step.

    If ``trace`` is a list, every step is appended to it as a dict:
    ``{"node", "action", "depth"}`` with action ``"em"`` (plus the utilities, the
    probability of turning right and the bit the client sent), ``"split"`` (a
    data-independent split) or ``"finish"``.
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
    calls = 0

    def data(p):  # the value of node p: its median, or a leaf's point
        return tree.points[tree.point[p]]

    def euclidean_distance(a, b):  # Alg. 7, summed axis after axis
        total = 0.0
        for x, y in zip(a, b):
            total += (x - y) * (x - y)
        return math.sqrt(total)

    def utilities(p):  # UTILITY at inner node p: (L_u, R_u)
        if utility == "dis":  # Alg. 13: the distances, swapped (lines 2-6)
            left_dis = euclidean_distance(data(tree.left[p]), q)
            right_dis = euclidean_distance(data(tree.right[p]), q)
            return right_dis, left_dis
        # Alg. 14: the query's side of the split on the node's axis (line 2)
        true_answer = not q[tree.axis[p]] < tree.split[p]
        return (0.0, 1.0) if true_answer else (1.0, 0.0)  # lines 3-8

    def em_query(p):  # EMQUERY (Alg. 12) at inner node p: 0 left, 1 right
        nonlocal calls
        calls += 1
        left_u, right_u = utilities(p)  # line 2
        # Lines 3-6: X = 1 with probability rightProb / totalProb, which is
        # expit(epsilon (R_u - L_u) / (2 sensitivity)).
        if utility == "dis":
            bit = exponential_binary([left_u], [right_u], epsilon, sensitivity, rng)
        else:  # utility 1 for the true answer: kept with probability expit(epsilon/2)
            bit = randomized_response([right_u == 1.0], epsilon / 2, rng)
        bit = int(bit[0])
        if trace is not None:
            p_right = expit(epsilon / (2 * sensitivity) * (right_u - left_u))
            trace.append(
                {
                    "node": int(p),
                    "action": "em",
                    "depth": int(tree.depth[p]),
                    "left_utility": left_u,
                    "right_utility": right_u,
                    "p_right": float(p_right),
                    "bit": bit,
                }
            )
        return bit

    def step(p):  # Alg. 11 lines 3-9: one exponential-mechanism turn
        return tree.right[p] if em_query(p) == 1 else tree.left[p]

    def release(p):  # the leaves below node p (p itself if it is a leaf)
        if trace is not None:
            trace.append(
                {"node": int(p), "action": "finish", "depth": int(tree.depth[p])}
            )
        return list(tree.order[tree.lo[p] : tree.hi[p]])

    def nn_search(p):  # NNSEARCH (Alg. 11)
        while tree.left[p] >= 0:  # line 2: P is not a leaf
            p = step(p)
        return release(p)  # line 10

    def split(p, search, *arguments):  # search in both subtrees, without a turn
        if trace is not None:
            trace.append(
                {"node": int(p), "action": "split", "depth": int(tree.depth[p])}
            )
        return search(tree.left[p], *arguments) + search(tree.right[p], *arguments)

    def nn_search_parallel(p, s):  # NNSEARCHPARALLEL (Alg. 15)
        if s == 0 or tree.left[p] < 0:  # lines 3-10: no split left
            return nn_search(p)
        return split(p, nn_search_parallel, s - 1)  # lines 11-14

    def nn_search_early_stop(p):  # NNSEARCHEARLYSTOP (Alg. 16)
        while tree.height[p] > splits:  # lines 2-10
            p = step(p)
        # lines 11-14: split down to the leaves, which are all released
        return release(p)

    def nn_search_greedy_split(p, continue_split):  # NNSEARCHGREEDYSPLIT (Alg. 17)
        while tree.left[p] >= 0:  # line 2
            left, right = tree.left[p], tree.right[p]
            bit = em_query(p)  # line 5
            chosen, other = (right, left) if bit == 1 else (left, right)
            if continue_split:  # lines 11-19: the other side too, without splitting
                return nn_search_greedy_split(chosen, True) + nn_search_greedy_split(
                    other, False
                )
            p = chosen  # lines 6-10
        return release(p)

    if variant == "basic":
        found = nn_search(0)
    elif variant == "parallel":
        found = nn_search_parallel(0, splits)
    elif variant == "early":
        found = nn_search_early_stop(0)
    else:
        found = nn_search_greedy_split(0, True)
    if neighborhood:  # KNNSEARCH (Alg. 18) line 12, for every point found
        found = [k for p in found for k in _knn(tree, p, neighborhood)]
    return np.unique(np.asarray(found, dtype=np.intp)), calls


def _knn(tree: KDTree, p: int, k: int) -> np.ndarray:
    """KNN of Alg. 18: the ``k`` true nearest neighbours of data point ``p``, by brute
    force, ``p`` first.

    The other points follow by distance, ties by index. Post-processing of the point
    found: it spends no privacy.
    """
    distance = np.linalg.norm(tree.points - tree.points[p], axis=1)
    distance[p] = -1.0  # p itself first, also among points equal to it
    return np.argsort(distance, kind="stable")[:k]
