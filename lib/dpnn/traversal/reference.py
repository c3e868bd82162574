"""DP-TT written straight from the thesis: one query, Algorithms 11-18, a Python loop.

:func:`dptt_reference` is the readable DP-TT (notebook 05's explorer shows its trace);
:func:`dpnn.traversal.dptt` runs the same algorithm on a batch of queries. Both spend
exactly the privacy :func:`dpnn.traversal.dptt` reports.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import generator, positive_finite
from dpnn.traversal.variants import _check, _check_scale
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
