"""DP tree traversal, DP-TT (thesis §5, Alg. 11-18), vectorized over a batch of queries.

The server walks its leaf-only k-d tree (Alg. 10); at every inner node the
client answers "left or right" through the exponential mechanism (Alg. 12)
with one of two utilities:

- ``"dis"`` (Alg. 13): the left child's utility is the query's distance to the
  *right* child and vice versa, so the closer child is favoured; the caller
  bounds the sensitivity. By the triangle inequality the utilities of two
  queries x, x' differ by at most ``||x - x'||``, so one step is
  ``epsilon``-DP for queries within distance ``sensitivity`` of each other,
  i.e. ``(epsilon / sensitivity)``-geo-indistinguishable.
- ``"cmp"`` (Alg. 14): utility 1 for the child on the query's side of the
  split, 0 for the other, sensitivity 1. Two outcomes, utilities {0, 1}: the
  step *is* randomized response keeping the correct turn with probability
  ``e^{epsilon/2} / (1 + e^{epsilon/2})``, so it is ``epsilon/2``-LDP for any
  two queries (and ``epsilon``-range-bounded; notebook 02).

Variants (§5.4): ``basic`` (Alg. 11); ``parallel`` (P, Alg. 15: ``splits`` data-
independent splits at the top, then a traversal in each subtree); ``early`` (E,
Alg. 16: stop ``splits`` levels above the leaves and release the whole
subtree); ``greedy`` (GS, Alg. 17: at every decision also start a non-splitting
traversal in the subtree not chosen); and ``neighborhood = B`` (N, Alg. 18:
release the B true nearest neighbours of every leaf found, the leaf included;
post-processing), combinable with any variant (GS-N).

All threads of all queries advance one tree level per step, so a batch of a
million queries costs one vectorized exponential-mechanism draw per level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import expit

from dpnn._validation import finite_array, generator, positive_finite, positive_int
from dpnn.accounting import Accountant
from dpnn.mechanisms import _binary_turns
from dpnn.trees import KDTree

__all__ = ["DPTTResult", "dptt", "dptt_ledger", "dptt_reference", "em_calls_formula", "parse_variant", "VARIANTS", "UTILITIES"]

VARIANTS = ("basic", "parallel", "early", "greedy")
UTILITIES = ("dis", "cmp")


@dataclass(frozen=True)
class DPTTResult:
    """What one DP-TT run released and what it cost, per query.

    ``indices[offsets[i]:offsets[i + 1]]`` are the points released to query i.
    """

    indices: np.ndarray
    offsets: np.ndarray
    em_calls: np.ndarray  # exponential-mechanism calls made for each query
    sent: np.ndarray  # node values the server sent to the client for each query
    epsilons: np.ndarray  # worst-case per-step budgets any query may spend, one entry per call
    accountant: Accountant  # charged with those steps; compose with accountant.epsilon(delta, method)

    @property
    def released(self) -> list:
        """One int array of indices into ``tree.points`` per query."""
        return np.split(self.indices, self.offsets[1:-1])

    @property
    def released_counts(self) -> np.ndarray:
        return np.diff(self.offsets)


def _schedule(tree: KDTree, epsilon) -> np.ndarray:
    """Per-level budgets: a scalar for every level or an array of length tree height."""
    if np.ndim(epsilon) == 0:
        return np.full(max(tree.tree_height, 1), positive_finite(epsilon, "epsilon"))
    schedule = finite_array(epsilon, "epsilon", ndim=(1,))
    if len(schedule) != tree.tree_height or np.any(schedule <= 0):
        raise ValueError(f"epsilon must be a number > 0 or an array of {tree.tree_height} numbers > 0 "
                         f"(one per tree level), got {len(schedule)} values")
    return schedule


def _check(tree, queries, utility, sensitivity, variant, splits, neighborhood):
    if not isinstance(tree, KDTree) or not tree.leaf_only:
        raise ValueError("tree must be a leaf-only KDTree (dpnn.trees.build_tree(points, leaf_only=True))")
    q = finite_array(queries, "queries", ndim=(1, 2))
    q = q.reshape(-1, 1) if q.ndim == 1 else q
    if q.shape[1] != tree.dimension:
        raise ValueError(f"queries must have dimension {tree.dimension} like the tree, got shape {np.shape(queries)}")
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    if utility == "dis":
        if sensitivity is None:
            raise ValueError("sensitivity must be given for the DIS utility (a number > 0, e.g. 1e9)")
        sensitivity = positive_finite(sensitivity, "sensitivity")
    elif sensitivity not in (None, 1, 1.0):
        raise ValueError(f"sensitivity of the CMP utility is 1; got {sensitivity!r}")
    else:
        sensitivity = 1.0
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if isinstance(splits, bool) or not isinstance(splits, (int, np.integer)):
        raise ValueError(f"splits must be an integer, got {splits!r}")
    if variant in ("parallel", "early"):
        if not 1 <= splits <= tree.tree_height:
            raise ValueError(f"splits must be between 1 and the tree height {tree.tree_height} "
                             f"for variant {variant!r}, got {splits}")
    elif splits != 0:
        raise ValueError(f"splits must be 0 for variant {variant!r}, got {splits}")
    if isinstance(neighborhood, bool) or not isinstance(neighborhood, (int, np.integer)) \
            or not 0 <= neighborhood <= len(tree.points):
        raise ValueError(f"neighborhood must be an integer between 0 and {len(tree.points)}, got {neighborhood!r}")
    return q, sensitivity


def _check_scale(schedule, sensitivity):
    """Every level's ``epsilon / (2 sensitivity)`` must be finite, else equal utilities give NaN turns."""
    with np.errstate(over="ignore"):
        scale = np.asarray(schedule) / (2.0 * sensitivity)
    if not np.all(np.isfinite(scale)):
        raise ValueError(f"epsilon / (2 * sensitivity) must be finite at every level, got "
                         f"max epsilon {float(np.max(schedule))!r} / (2 * {sensitivity!r})")


def parse_variant(name: str) -> dict:
    """The thesis's variant names as ``dptt`` keywords: ``"basic"``, ``"P4"``, ``"E8"``, ``"GS"``, ``"N20"``, ``"GS-N20"``.

    ``parse_variant("GS-N20") == {"variant": "greedy", "splits": 0, "neighborhood": 20}``.
    """
    import re

    match = re.fullmatch(r"(basic|P(\d+)|E(\d+)|GS|N(\d+)|GS-N(\d+))", str(name))
    if not match:
        raise ValueError(f"name must be basic, P<s>, E<s>, GS, N<B> or GS-N<B> (thesis §5.4), got {name!r}")
    _, p, e, n, gsn = match.groups()
    if p:
        return {"variant": "parallel", "splits": int(p), "neighborhood": 0}
    if e:
        return {"variant": "early", "splits": int(e), "neighborhood": 0}
    if name == "GS":
        return {"variant": "greedy", "splits": 0, "neighborhood": 0}
    if n:
        return {"variant": "basic", "splits": 0, "neighborhood": int(n)}
    if gsn:
        return {"variant": "greedy", "splits": 0, "neighborhood": int(gsn)}
    return {"variant": "basic", "splits": 0, "neighborhood": 0}


def em_calls_formula(variant: str, height: int, splits: int = 0) -> np.ndarray:
    """Worst-case exponential-mechanism calls per tree level for one query (thesis §5.4).

    On a complete tree of ``height`` levels the totals are ``height`` (basic),
    ``(height - s) 2^s`` (P), ``height - s`` (E) and ``height (height + 1) / 2``
    (GS); on other trees these are upper bounds, since no path is longer.
    Returns the count at each depth 0 .. height-1.
    """
    depth = np.arange(height)
    if variant == "basic":
        return np.ones(height, dtype=np.int64)
    if variant == "parallel":
        return np.where(depth >= splits, 2**splits, 0).astype(np.int64)
    if variant == "early":
        return (depth < height - splits).astype(np.int64)
    if variant == "greedy":
        return depth + 1
    raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")


def _utility_gap(tree, q, owner, node, utility):
    """``u_right - u_left`` for threads of queries ``owner`` at inner ``node`` (Alg. 13 / 14).

    With two candidates the exponential mechanism depends on the utilities only
    through this difference: ``Pr[right] = expit(epsilon (u_R - u_L) / (2 sensitivity))``.
    """
    if utility == "cmp":  # u_left = 1 iff query[axis] < split, u_right = 1 - u_left
        return np.where(q[owner, tree.axis[node]] < tree.split[node], -1.0, 1.0)
    rows = q[owner]
    # Alg. 13 inverts on purpose: u_left = distance to the right child, u_right = distance to the left.
    to_left = np.linalg.norm(rows - tree.points[tree.point[tree.left[node]]], axis=1)
    to_right = np.linalg.norm(rows - tree.points[tree.point[tree.right[node]]], axis=1)
    return to_left - to_right


def dptt(tree: KDTree, queries, epsilon, utility: str, sensitivity=None, variant: str = "basic",
         splits: int = 0, neighborhood: int = 0, *, rng) -> DPTTResult:
    """Run DP-TT for every query in ``queries`` (shape (n,) on a 1-D tree, or (n, d)).

    ``epsilon`` is the per-step budget each exponential-mechanism call
    (EMQUERY) receives, or an array giving it per tree level. The result's
    accountant is charged with the worst-case calls of the variant
    (:func:`em_calls_formula`): ``"randomized_response"`` at ``epsilon/2``
    per CMP step (its exact loss), ``"exponential"`` at ``epsilon`` per DIS
    step (with respect to queries within ``sensitivity`` of each other).
    """
    q, sensitivity = _check(tree, queries, utility, sensitivity, variant, splits, neighborhood)
    schedule = _schedule(tree, epsilon)
    _check_scale(schedule, sensitivity)
    rng = generator(rng, "rng")
    n_queries = len(q)
    owner = np.arange(n_queries)
    node = np.zeros(n_queries, dtype=np.intp)
    splitting = np.full(n_queries, variant == "greedy")
    if variant == "parallel":  # data-independent splits, no exponential mechanism (Alg. 15)
        for _ in range(splits):
            inner = tree.left[node] >= 0
            owner = np.concatenate([owner[~inner], owner[inner], owner[inner]])
            node = np.concatenate([node[~inner], tree.left[node[inner]], tree.right[node[inner]]])
        splitting = np.zeros(len(node), dtype=bool)
    starts = np.bincount(owner, minlength=n_queries)
    start_depth = tree.depth[node]  # a thread makes one call per level from its start to where it stops
    stop_height = splits if variant == "early" else 0
    finished = []
    while node.size:
        done = tree.height[node] <= stop_height  # a leaf, or E's stopping level (Alg. 16)
        if np.any(done):
            finished.append((owner[done], node[done], start_depth[done]))
            owner, node, splitting, start_depth = owner[~done], node[~done], splitting[~done], start_depth[~done]
            if not node.size:
                break
        level = tree.depth[node[0]]  # every live thread is at the same depth
        gap = _utility_gap(tree, q, owner, node, utility)
        scale = schedule[level] / (2 * sensitivity)
        if utility == "cmp":  # gap is +-1: keep the correct turn with probability expit(scale), as Def. 2.6 gives
            go_right = (gap > 0) == (rng.random(len(gap)) < expit(scale))
        else:
            go_right = _binary_turns(0.0, gap, scale, rng)
        chosen = tree.left[node] + go_right  # siblings are stored side by side: right == left + 1
        if variant == "greedy":  # Alg. 17: the splitting thread also walks the side not chosen
            other = tree.left[node[splitting]] + ~go_right[splitting]
            owner = np.concatenate([owner, owner[splitting]])
            chosen = np.concatenate([chosen, other])
            start_depth = np.concatenate([start_depth, tree.depth[other]])
            splitting = np.concatenate([splitting, np.zeros(len(other), dtype=bool)])
        node = chosen

    owner, node, start_depth = (np.concatenate(parts) for parts in zip(*finished))
    em_calls = np.bincount(owner, weights=tree.depth[node] - start_depth, minlength=n_queries).astype(np.int64)
    indices, offsets, from_leaves = _release(tree, owner, node, n_queries, neighborhood)
    leaf_threads = np.bincount(owner[tree.height[node] == 0], minlength=n_queries)
    spawned = em_calls * 0 if variant != "greedy" else np.bincount(owner, minlength=n_queries) - 1
    sent = starts + 2 * em_calls - spawned + np.maximum(np.diff(offsets) - leaf_threads, 0)
    per_level = em_calls_formula(variant, tree.tree_height, splits)
    epsilons = np.repeat(schedule[: tree.tree_height], per_level)
    return DPTTResult(indices, offsets, em_calls, sent, epsilons,
                      dptt_ledger(schedule[: tree.tree_height], utility, variant, splits))


def dptt_ledger(schedule, utility: str, variant: str = "basic", splits: int = 0) -> Accountant:
    """The accountant :func:`dptt` returns, without running it: the worst-case calls of a variant.

    ``schedule`` holds the per-step budget of each tree level (its length is
    the tree height). A CMP step is charged as ``"randomized_response"`` at
    ``epsilon/2`` (its exact loss), a DIS step as ``"exponential"`` at
    ``epsilon``; :func:`em_calls_formula` gives the calls per level. Used to
    compose one query's budget at another ``delta`` than a run used.
    """
    schedule = finite_array(schedule, "schedule", ndim=(1,), allow_empty=True)  # a one-point tree has no levels
    if np.any(schedule <= 0):
        raise ValueError("schedule must hold numbers > 0 (one per tree level)")
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    accountant = Accountant()
    for level_epsilon, count in zip(schedule, em_calls_formula(variant, len(schedule), splits)):
        if count:
            if utility == "cmp":
                accountant.spend("randomized_response", level_epsilon / 2, int(count))
            else:
                accountant.spend("exponential", level_epsilon, int(count))
    return accountant


_NEIGHBOUR_INDEX: dict = {}


def _neighbourhoods(tree, points, neighborhood):
    """The ``neighborhood`` nearest data points of each of ``points`` (indices), itself first.

    The leaf found is always its own first neighbour, also when other points
    share its coordinates (cKDTree may return a duplicate at distance 0 instead
    of the point itself); the rest are its nearest others.
    """
    key = (id(tree), len(tree.points))
    if key not in _NEIGHBOUR_INDEX:  # one cKDTree per tree, reused across calls
        _NEIGHBOUR_INDEX.clear()
        _NEIGHBOUR_INDEX[key] = (tree, cKDTree(tree.points))
    index = _NEIGHBOUR_INDEX[key][1]
    unique, inverse = np.unique(points, return_inverse=True)
    _, near = index.query(tree.points[unique], k=neighborhood, workers=-1)
    near = np.asarray(near).reshape(len(unique), neighborhood)
    others = near != unique[:, None]
    # Keep the first neighborhood - 1 entries other than the point itself, in distance order.
    rank = np.cumsum(others, axis=1)
    keep = others & (rank < neighborhood)
    rest = near[keep].reshape(len(unique), neighborhood - 1)
    return np.column_stack([unique, rest])[inverse]


def _release(tree, owner, node, n_queries, neighborhood):
    """Points released per query: each finished node's leaves, then neighbourhoods (deduplicated)."""
    sizes = tree.hi[node] - tree.lo[node]
    positions = np.repeat(tree.lo[node] - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes) \
        + np.arange(sizes.sum())
    points = tree.order[positions]
    who = np.repeat(owner, sizes)
    key = who.astype(np.int64) * len(tree.points) + points
    if neighborhood:
        points = _neighbourhoods(tree, points, neighborhood).ravel()
        who = np.repeat(who, neighborhood)
        key = np.sort(who.astype(np.int64) * len(tree.points) + points)
        key = key[np.concatenate([[True], key[1:] != key[:-1]])]  # neighbourhoods may overlap
    else:
        key = np.sort(key)  # finished subtrees of one query never overlap
    who, points = key // len(tree.points), key % len(tree.points)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(who, minlength=n_queries))])
    return points.astype(np.intp), offsets, sizes


def dptt_reference(tree: KDTree, query, epsilon: float, utility: str, sensitivity=None,
                   variant: str = "basic", splits: int = 0, neighborhood: int = 0, *, rng,
                   trace: list | None = None):
    """One query, written straight from Algorithms 11-18 with a Python loop: the slow reference.

    Returns ``(released point indices (sorted, unique), em_calls)``. Used to check
    :func:`dptt` and as the baseline of ``benchmarks/bench_dptt.py``. If ``trace``
    is a list, every step is appended to it as a dict: ``{"node", "action"}`` with
    action ``"em"`` (plus the utilities, the probability of turning right and the
    bit the client sent), ``"split"`` (a data-independent split) or ``"finish"``.
    """
    q, sensitivity = _check(tree, np.atleast_1d(query).reshape(1, -1), utility, sensitivity,
                            variant, splits, neighborhood)
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
        top = max(left_u, right_u)  # shifting both exponents by the max changes nothing but overflow
        left_prob = np.exp(epsilon * (left_u - top) / (2 * sensitivity))
        right_prob = np.exp(epsilon * (right_u - top) / (2 * sensitivity))
        calls[0] += 1
        bit = 0 if rng.random() < left_prob / (left_prob + right_prob) else 1
        if trace is not None:
            trace.append({"node": int(p), "action": "em", "depth": int(tree.depth[p]),
                          "left_utility": left_u, "right_utility": right_u,
                          "p_right": right_prob / (left_prob + right_prob), "bit": bit})
        return bit

    def leaves(p):
        if trace is not None:
            trace.append({"node": int(p), "action": "finish", "depth": int(tree.depth[p])})
        return list(tree.order[tree.lo[p]:tree.hi[p]])

    def walk(p, stop_height=0):  # Alg. 11 (Alg. 16 when stop_height > 0)
        while tree.height[p] > stop_height:
            p = tree.right[p] if em_query(p) == 1 else tree.left[p]
        return leaves(p)

    def split_top(p, remaining):  # Alg. 15
        if remaining == 0 or tree.left[p] < 0:
            return walk(p)
        if trace is not None:
            trace.append({"node": int(p), "action": "split", "depth": int(tree.depth[p])})
        return split_top(tree.left[p], remaining - 1) + split_top(tree.right[p], remaining - 1)

    def greedy(p, continue_split):  # Alg. 17
        while tree.left[p] >= 0:
            turn = em_query(p)
            chosen, other = (tree.right[p], tree.left[p]) if turn == 1 else (tree.left[p], tree.right[p])
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
    if neighborhood:  # Alg. 18: the B true nearest neighbours of each found value, itself first
        data = tree.points.reshape(len(tree.points), -1)
        near = []
        for p in found:  # brute force: distance to every point, the found point itself ranked first
            distance = np.linalg.norm(data - data[p], axis=1)
            distance[p] = -1.0
            near.extend(np.argsort(distance, kind="stable")[:neighborhood])
        found = near
    return np.unique(np.asarray(found, dtype=np.intp)), calls[0]


# --- issue 21: the follow-up's per-level budget schedules, at one composed budget ---------------
# The follow-up (d1shs0ap/dpnn, src/schedulers.py lines 3-7 and 19-21) gives each tree level its own
# EMQUERY budget: constant, linearly decreasing ("linear") and linearly increasing ("reverse_linear",
# tuned by hand for a tree of height 14). Here the three families share one shape parameter and are
# scaled so that the traversal's own accountant composes them to exactly the same budget.

SCHEDULES = ("constant", "decreasing", "increasing")
__all__ += ["SCHEDULES", "epsilon_schedule"]


def epsilon_schedule(family: str, tree_height: int, total, *, ratio=3.0, utility: str = "cmp",
                     variant: str = "basic", splits: int = 0, method: str = "basic", delta=None) -> np.ndarray:
    """Per-level EMQUERY budgets of one ``family`` whose composition is exactly ``total``.

    Shapes over the levels 0 (root) .. ``tree_height - 1``: ``"constant"`` (all
    equal), ``"decreasing"`` (linear from ``ratio`` at the root down to 1 at the
    last level) and ``"increasing"`` (the reverse). The shape is then scaled so
    that the ledger :func:`dptt` would charge for it (the worst-case calls of
    ``variant`` per level, :func:`em_calls_formula`; CMP steps as randomized
    response at epsilon/2, DIS steps as the exponential mechanism) composes to
    ``total`` under ``method`` of :meth:`dpnn.accounting.Accountant.epsilon`
    (at ``delta`` unless ``method="basic"``): in closed form for ``"basic"``,
    by bisection on the scale otherwise (relative error below 1e-9; ``"pld"`` is
    computed on a grid, so there the composition equals ``total`` up to the
    grid's stated error, :func:`dpnn.accounting.pld_discretisation`).

    Pass the result as ``epsilon`` to :func:`dptt` on a tree of that height.
    """
    from scipy.optimize import brentq

    if family not in SCHEDULES:
        raise ValueError(f"family must be one of {SCHEDULES}, got {family!r}")
    tree_height = positive_int(tree_height, "tree_height")
    total = positive_finite(total, "total")
    ratio = positive_finite(ratio, "ratio")
    if ratio < 1:
        raise ValueError(f"ratio must be >= 1 (root budget over last-level budget), got {ratio}")
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    splits = positive_int(splits, "splits", minimum=0)  # 2.5 is refused here, not by dptt
    if method not in Accountant.METHODS:
        raise ValueError(f"method must be one of {Accountant.METHODS}, got {method!r}")
    if method != "basic" and delta is None:
        raise ValueError(f"delta must be given (a number in (0, 1)) for method {method!r}")
    per_level = em_calls_formula(variant, tree_height, splits)
    if not per_level.any():
        raise ValueError(f"variant {variant!r} with splits={splits} makes no exponential-mechanism call "
                         f"on a tree of height {tree_height}; there is nothing to schedule")
    shape = {"constant": np.ones(tree_height), "decreasing": np.linspace(ratio, 1.0, tree_height),
             "increasing": np.linspace(1.0, ratio, tree_height)}[family]
    shape = shape / shape.max()

    def composed(scale):
        return dptt_ledger(scale * shape, utility, variant, splits).epsilon(delta, method)

    if method == "basic":  # homogeneous of degree one in the scale
        return shape * (total / composed(1.0))
    log_total = np.log(total)
    high = total / composed(1.0) if composed(1.0) > 0 else 1.0
    low = high  # composed(s) >= basic-free bounds are increasing in s: bracket by doubling
    while composed(low) > total:
        low /= 2
    while composed(high) < total:
        high *= 2
    # The PLD value is a step function of the scale (its grid), exact only to its stated discretisation
    # error, so searching it past a relative 1e-6 only costs evaluations; the others are smooth.
    tolerance = 1e-6 if method == "pld" else 1e-12
    scale = brentq(lambda s: np.log(composed(s)) - log_total, low, high, xtol=1e-14, rtol=tolerance)
    return shape * scale
