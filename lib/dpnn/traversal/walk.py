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

The descent reads each tree's columns once built (:mod:`dpnn.traversal.tables`): per
level one query column is compared with the split values gathered for the threads'
nodes, or, for DIS, the distances to both children are computed column by column;
the leaf check's lookup of the left child is the step's own. The output is written
per query (:mod:`dpnn.traversal.release`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from dpnn._validation import generator
from dpnn.accounting import Accountant
from dpnn.traversal.release import release
from dpnn.traversal.tables import left_until, node_columns
from dpnn.traversal.variants import (
    _check,
    _check_scale,
    _schedule,
    dptt_ledger,
    em_calls_formula,
)
from dpnn.trees import KDTree

__all__ = ["DPTTResult", "dptt"]


@dataclass(frozen=True)
class DPTTResult:
    """What one DP-TT run released and what it cost, per query.

    ``indices[offsets[i]:offsets[i + 1]]`` are the points released to query i.
    """

    indices: np.ndarray
    offsets: np.ndarray
    em_calls: np.ndarray  # exponential-mechanism calls made for each query
    sent: np.ndarray  # node values the server sent to the client for each query
    epsilons: (
        np.ndarray
    )  # worst-case per-step budgets any query may spend, one entry per call
    # charged with those steps; compose with accountant.epsilon(delta, method)
    accountant: Accountant

    @property
    def released(self) -> list:
        """One int array of indices into ``tree.points`` per query."""
        return np.split(self.indices, self.offsets[1:-1])

    @property
    def released_counts(self) -> np.ndarray:
        return np.diff(self.offsets)


def dptt(
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
    """Run DP-TT for every query in ``queries`` (shape (n,) on a 1-D tree, or (n, d)).

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
    n = len(q)
    owner, node, slot, starts = _descend(
        tree, q, schedule, sensitivity, utility, variant, splits, rng
    )
    if variant == "greedy":  # slot: the depth a thread started at
        calls = tree.depth[node] - slot
    # a thread that reached a leaf while splitting made none
    elif variant == "parallel":
        calls = np.maximum(tree.depth[node] - splits, 0)
    else:  # slot: the depth where the query's thread stopped
        calls, slot = slot, None
    stop_height = splits if variant == "early" else 0
    width = {"parallel": 2**splits, "greedy": tree.tree_height + 1}.get(variant, 1)
    indices, offsets = release(
        tree, owner, node, slot, n, neighborhood, width, stop_height
    )
    if slot is None:  # thread i is query i
        em_calls = calls.astype(np.int64)
        threads = leaf_threads = np.ones(n, dtype=np.int64)
        if stop_height:
            leaf_threads = (tree.height[node] == 0).astype(np.int64)
    else:  # every thread of P and GS ends at a leaf
        em_calls = np.bincount(owner, weights=calls, minlength=n).astype(np.int64)
        threads = leaf_threads = np.bincount(owner, minlength=n)
    spawned = threads - 1 if variant == "greedy" else np.zeros(n, dtype=np.int64)
    if variant == "basic" and not neighborhood:  # one start, one leaf, one point
        sent = 2 * em_calls + 1
    else:
        sent = starts + 2 * em_calls - spawned
        sent += np.maximum(np.diff(offsets) - leaf_threads, 0)
    per_level = em_calls_formula(variant, tree.tree_height, splits)
    epsilons = np.repeat(schedule[: tree.tree_height], per_level)
    ledger = dptt_ledger(schedule[: tree.tree_height], utility, variant, splits)
    return DPTTResult(indices, offsets, em_calls, sent, epsilons, ledger)


def _descend(tree, q, schedule, sensitivity, utility, variant, splits, rng):
    """Walk all threads down one level per step; return ``(owner, node, slot, starts)``.

    Thread t belongs to query ``owner[t]`` (None: thread i is query i) and ended at
    ``node[t]``; ``slot`` numbers the threads of one query (P; for GS the depth where
    the thread started; None otherwise: one thread per query). ``starts`` counts each
    query's threads at the start. Threads stay in place in their arrays (GS's new
    threads are appended), so a step draws one turn for each thread still walking, in
    array order, and no array is compacted.
    """
    n = len(q)
    greedy = variant == "greedy"
    owner, node, slot = None, np.zeros(n, dtype=np.intp), None
    starts = np.ones(n, dtype=np.int64)
    if variant == "parallel":  # data-independent splits, no exponential mechanism
        owner, node, slot = _split_top(tree, n, splits)  # (Alg. 15)
        starts = np.bincount(owner, minlength=n)
    query = [
        np.ascontiguousarray(q[:, a] if owner is None else q[owner, a])
        for a in range(q.shape[1])
    ]
    count = len(node)
    if greedy:  # room for the thread each splitting thread starts at every level
        owner, slot = np.arange(n), np.zeros(n, dtype=np.intp)
        owner, node, slot, *query = (
            _room(array, n * (tree.tree_height + 1))
            for array in (owner, node, slot, *query)
        )
    child_of, earliest, latest = left_until(tree, splits if variant == "early" else 0)
    # No thread stops above depth `earliest`; above `heap`, i's left child is 2i + 1.
    heap = min(earliest, node_columns(tree).heap_depth)
    level = -1 if variant == "parallel" else 0  # the depth of the walking threads
    reached = [] if slot is None else None  # (depth, threads stopped by then)
    while level < latest:  # at depth `latest` every thread has stopped
        nodes = node[:count]
        stopped = None  # where some threads have stopped, a mask of them
        if 0 <= level < heap:
            child = np.multiply(nodes, 2)
            child += 1
        else:
            child = child_of[nodes]
            stopped = child < 0
            if stopped.all():
                if reached is not None:
                    reached.append((level, stopped))
                break
            first = int(np.argmin(stopped))  # the first thread still walking
            stopped = stopped if stopped.any() else None
            if reached is not None and stopped is not None:
                reached.append((level, stopped))
            level = int(tree.depth[nodes[first]])
        scale = schedule[level] / (2 * sensitivity)
        values = [column[:count] for column in query]
        go_right = _turns(
            tree, values, nodes, child, level, scale, utility, rng, stopped
        )
        # Alg. 17: the splitting threads (the first n) also walk the other side
        if greedy:
            other = child[:n] + ~go_right[:n]
            splitting = slice(0, n) if stopped is None else np.flatnonzero(~stopped[:n])
            k = len(other) if stopped is None else len(splitting)
            new = slice(count, count + k)
            node[new] = other if stopped is None else other[splitting]
            owner[new], slot[new] = owner[splitting], level + 1
            for column in query:
                column[new] = column[splitting]
            count += k
        if stopped is None:  # siblings side by side: right == left + 1
            np.add(child, go_right, out=nodes)
        else:
            np.copyto(nodes, child + go_right, where=~stopped)
        level += 1
    owner = None if owner is None else owner[:count]
    if reached is not None:  # basic, E: the depth where each thread stopped
        slot = np.full(n, level, dtype=np.int64)
        for depth, stopped in reversed(reached):  # a thread stops at its least depth
            slot[stopped] = depth
    return owner, node[:count], (None if slot is None else slot[:count]), starts


def _room(array, capacity):
    """``array`` at the start of a new array of length ``capacity``."""
    grown = np.empty(capacity, dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def _split_top(tree, n, splits):
    """P's threads after ``splits`` data-independent levels: (owner, node, slot)."""
    owner, node, slot = (
        np.arange(n),
        np.zeros(n, dtype=np.intp),
        np.zeros(n, dtype=np.intp),
    )
    for _ in range(splits):
        inner = tree.left[node] >= 0
        owner = np.concatenate([owner[~inner], owner[inner], owner[inner]])
        slot = np.concatenate([2 * slot[~inner], 2 * slot[inner], 2 * slot[inner] + 1])
        node = np.concatenate(
            [node[~inner], tree.left[node[inner]], tree.right[node[inner]]]
        )
    return owner, node, slot


def _turns(tree, values, nodes, child, level, scale, utility, rng, stopped=None):
    """One exponential-mechanism turn per thread (Alg. 12): True for the right child.

    ``values`` holds the threads' query coordinates, one column per axis; ``child`` is
    each node's left child. CMP (Alg. 14): randomized response on "the query is not
    left of the split", kept with probability ``expit(scale)``. DIS (Alg. 13): the
    right child with probability ``expit(scale (u_R - u_L))``, ``u_R - u_L`` = the
    distance to the left child minus the distance to the right one. Threads in the
    mask ``stopped`` draw nothing and their turns mean nothing.
    """
    columns = node_columns(tree)
    uniform = _uniforms(rng, len(nodes), stopped)
    if utility == "cmp":
        if columns.axis_of_depth is None:  # a tree whose axes do not cycle by depth
            here = np.column_stack(values)[np.arange(len(nodes)), tree.axis[nodes]]
        else:
            here = values[columns.axis_of_depth[level]]
        keep = uniform < expit(scale)
        return np.bitwise_xor(np.less(here, columns.split[nodes]), keep, out=keep)
    to_left = _squared_distance(values, columns.coordinates, child)
    to_right = _squared_distance(values, columns.coordinates, child + 1)
    gap = np.sqrt(to_left, out=to_left) - np.sqrt(to_right, out=to_right)
    with np.errstate(over="ignore"):  # as mechanisms.exponential_binary(0, gap, ...)
        probability_right = expit(scale * gap)
    return uniform < probability_right


def _uniforms(rng, count, stopped):
    """One uniform draw per thread not ``stopped``, in thread order (0 for the
    others)."""
    if stopped is None:
        return rng.random(count)
    uniform = np.zeros(count)
    walking = ~stopped
    uniform[walking] = rng.random(int(np.count_nonzero(walking)))
    return uniform


def _squared_distance(values, coordinates, nodes):
    """Squared distance from each thread's query to the point of ``nodes``, by axis."""
    total = None
    for column, along in zip(values, coordinates):
        difference = np.subtract(column, along[nodes])
        np.multiply(difference, difference, out=difference)
        total = difference if total is None else np.add(total, difference, out=total)
    return total
