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

The readable version is :func:`dpnn.traversal.dptt_reference`: one query, the
pseudo-code's loops, tested equal to :func:`dptt` (tests/test_fast_paths.py). Each of
its traversals (a ``while`` loop of ``nn_search``, ``nn_search_early_stop`` or
``nn_search_greedy_split``) is a *thread* here, and all threads of all queries
advance one tree level per step (:func:`_descend`), so a batch of a million queries
costs one vectorized exponential-mechanism draw per level. A thread turns where the
reference's ``em_query`` would (:func:`_turns`), by the same comparison of one uniform
number with the same probability; its draws come in another order (level by level,
not depth-first), which for one query of basic, E or N is the same order.

The descent reads each tree's columns once built (:mod:`dpnn.traversal.tree_arrays`):
per
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
from dpnn.exact_sampling import TURN_Z_FLOOR as _Z_FLOOR
from dpnn.exact_sampling import turns_beyond_floor as _exact_beyond_floor
from dpnn.traversal.release import release
from dpnn.traversal.tree_arrays import left_until, node_columns
from dpnn.traversal.variants import check_arguments as _check
from dpnn.traversal.variants import check_scale as _check_scale
from dpnn.traversal.variants import check_schedule as _schedule
from dpnn.traversal.variants import dptt_ledger, em_calls_formula
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

    For one query and a scalar ``epsilon`` this is :func:`dptt_reference`: the
    descent (:func:`_descend`) runs its traversals, ``em_calls`` is its ``calls``,
    and :func:`~dpnn.traversal.release.release` its ``release`` of each thread's
    node, ``_knn`` (Alg. 18) and the final ``np.unique``. ``sent`` and the ledger
    have no counterpart there.

    As sampled: a turn is drawn with a float uniform only where both outcomes
    have probability at least 2^-20; rarer turns (scaled gaps beyond 13.86) are
    drawn exactly (:func:`dpnn.mechanisms.exponential_binary`), so each step is
    within 1e-9 of its budget as sampled (:data:`dpnn.float_laws.LOSS_SLACK`).
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
    # The reference's calls: one per level a thread walked.
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

    The blocks, as steps of :func:`dptt_reference` (thesis Alg. 11, 15-17):

    - P's start, :func:`_split_top`: ``nn_search_parallel``'s splits without a turn
      (Alg. 15 lines 11-14), each subtree then walked by its own thread;
    - the loop, one level per pass: the ``while`` loops of ``nn_search`` (Alg. 11
      lines 2-9), ``nn_search_early_stop`` (Alg. 16 lines 2-10) and
      ``nn_search_greedy_split`` (Alg. 17 lines 2-10), one ``step`` of every thread
      still walking;
    - the stop test, ``child_of`` of :func:`~dpnn.traversal.tables.left_until`: -1
      where those loops end, at a leaf (Alg. 11 line 2) or, for E, at the first node
      of height at most ``splits`` (Alg. 16 line 3); in the top ``heap`` levels no
      thread stops and the left child is 2i + 1;
    - :func:`_turns`: ``em_query`` (Alg. 12 with Alg. 13 or 14) for every walking
      thread, the reference's uniform numbers drawn level by level;
    - the GS block: ``nn_search_greedy_split``'s recursion (Alg. 17 lines 11-19): each
      splitting thread (the first n) starts a thread that does not split at the child
      not chosen, walking from the next level;
    - the move, ``child + go_right``: ``step``'s choice of ``tree.right[p]`` or
      ``tree.left[p]`` (siblings are stored side by side);
    - ``reached``: for basic and E, the depth where each thread stopped, which is its
      number of calls.
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
    # One pass: one reference `step` of every walking thread (the while loops of Alg.
    # 11, 16 and 17). At depth `latest` every thread has stopped.
    while level < latest:
        nodes = node[:count]
        stopped = None  # where some threads have stopped, a mask of them
        if 0 <= level < heap:
            child = np.multiply(nodes, 2)
            child += 1
        else:  # where the reference's loops end (Alg. 11 line 2, Alg. 16 line 3)
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
        # the reference's em_query (Alg. 12) at every walking thread's node
        go_right = _turns(
            tree, values, nodes, child, level, scale, utility, rng, stopped
        )
        # Alg. 17 lines 11-19: the splitting threads (the first n) also walk the other
        # side, from the next level and without splitting
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
        # the reference's step: tree.right[p] or tree.left[p], side by side
        if stopped is None:
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
    """P's threads after ``splits`` data-independent levels: (owner, node, slot).

    ``nn_search_parallel`` of :func:`dptt_reference` (Alg. 15 lines 11-14): every
    inner node splits into both children, a leaf keeps its thread.
    """
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

    This is ``em_query`` of :func:`dptt_reference` for every thread at once, the same
    floats: CMP is its ``utilities`` (Alg. 14 line 2) and
    :func:`~dpnn.mechanisms.randomized_response` at ``epsilon / 2`` (a uniform below
    ``expit(scale)`` keeps the query's side); DIS is its ``utilities`` (Alg. 13, the
    distances summed axis after axis as its ``euclidean_distance``) and
    :func:`~dpnn.mechanisms.exponential_binary` (right iff the uniform is below
    ``expit(scale (u_R - u_L))``).
    """
    columns = node_columns(tree)
    uniform = _uniforms(rng, len(nodes), stopped)
    if utility == "cmp":
        if columns.axis_of_depth is None:  # a tree whose axes do not cycle by depth
            here = np.column_stack(values)[np.arange(len(nodes)), tree.axis[nodes]]
        else:
            here = values[columns.axis_of_depth[level]]
        if abs(scale) > _Z_FLOOR:  # a keep of probability near 1: exact draws
            z = np.full(len(uniform), scale)
            keep = _exact_beyond_floor(z, uniform, rng, stopped)
        else:
            keep = uniform < expit(scale)
        return np.bitwise_xor(np.less(here, columns.split[nodes]), keep, out=keep)
    to_left = _squared_distance(values, columns.coordinates, child)
    to_right = _squared_distance(values, columns.coordinates, child + 1)
    gap = np.sqrt(to_left, out=to_left) - np.sqrt(to_right, out=to_right)
    with np.errstate(over="ignore"):  # as mechanisms.exponential_binary(0, gap, ...)
        z = scale * gap
    return _exact_beyond_floor(z, uniform, rng, stopped)


def _uniforms(rng, count, stopped):
    """One uniform draw per thread not ``stopped``, in thread order (0 for the
    others): the draw of each walking thread's ``em_query`` in :func:`dptt_reference`.
    """
    if stopped is None:
        return rng.random(count)
    uniform = np.zeros(count)
    walking = ~stopped
    uniform[walking] = rng.random(int(np.count_nonzero(walking)))
    return uniform


def _squared_distance(values, coordinates, nodes):
    """Squared distance from each thread's query to the point of ``nodes``, by axis:
    ``euclidean_distance`` of :func:`dptt_reference` (Alg. 7) before its square root.
    """
    total = None
    for column, along in zip(values, coordinates):
        difference = np.subtract(column, along[nodes])
        np.multiply(difference, difference, out=difference)
        total = difference if total is None else np.add(total, difference, out=total)
    return total
