"""Differentially private r-N and k-NN classification (Gursoy, Inan, Nergiz, Saygin, DMKD 2017).

Source: Gursoy, Inan, Nergiz and Saygin (DMKD 2017). The setting: a data owner holds a private labelled training
set ``D`` (points in the unit cube ``[0, 1]^d``, one label each); an untrusted
analyst sends a list of public test instances and receives one label per
instance. Neighbouring datasets differ by adding or removing one training
instance (the paper's Def. 1), so every counting query has sensitivity 1.

Labels are integers ``0 .. n_labels - 1``; ``n_labels`` is public (the paper's
label set ``L`` is an input, not read from ``D``).

* :func:`rn_classify_laplace` (Alg. 1) and :func:`rn_classify_exponential`
  (Alg. 2): one test instance ``(x, r)`` at budget ``epsilon'``.
* :func:`region_overlap_graph` (Def. 10), :func:`overlap_components` and
  :func:`rn_classify_batch` (Alg. 3, the proposed classifier): one budget per
  connected component, divided by its maximum clique size (Lemmas 1-3, Thm 2).
* :func:`rn_classify_baseline`: the baseline that gives every test instance
  ``epsilon / |X|``.
* k-NN to r-N conversion: :func:`convert_interactive` (Alg. 6) and
  :func:`convert_noninteractive` (Alg. 7) over a :func:`private_uniform_grid`.
* :func:`knn_classify_private` (Alg. 5) and :func:`knn_classify_baseline` (Alg. 4).

Mechanisms sample with floating point and are for research and teaching.
"""

from __future__ import annotations

import copy
import math
import sys
import warnings
from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy import special, stats
from scipy.spatial import cKDTree

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite, positive_int, probability_open

__all__ = [
    "label_counts",
    "rn_classify_nonprivate",
    "rn_classify_laplace",
    "rn_classify_exponential",
    "laplace_label_probabilities",
    "exponential_label_probabilities",
    "region_overlap_graph",
    "overlap_components",
    "max_clique_size",
    "overlap_depth",
    "RNResult",
    "rn_classify_batch",
    "rn_classify_baseline",
    "noisy_size",
    "r_unif",
    "interactive_candidates",
    "convert_interactive",
    "grid_size",
    "PrivateGrid",
    "private_uniform_grid",
    "grid_mass",
    "convert_noninteractive",
    "knn_radii",
    "knn_classify_nonprivate",
    "knn_classify_baseline",
    "knn_classify_private",
    "avre",
    "rmse_k",
]

#: Share of the conversion budget spent on a noisy |D| (Laplace, sensitivity 1).
SIZE_SHARE = 0.05


# --------------------------------------------------------------------------- inputs

def _private_points(points, ndim=(2,)):
    """The private training points as an (n, d) array in [0, 1]^d; n = 0 is allowed.

    |D| is private, so zero records is an answerable dataset, not an error; the
    dimension d (from the array's shape, e.g. (0, d)) and the domain are public
    and checked.
    """
    points = finite_array(points, "points", ndim=ndim, allow_empty=True)
    points = points[:, None] if points.ndim == 1 else points
    if points.size and (points.min() < 0 or points.max() > 1):
        raise ValueError("points must lie in the unit cube [0, 1]^d (scale the features first)")
    return points


def _training(points, labels, n_labels):
    """Validated training set: points (n, d) in [0, 1]^d, integer labels in [0, n_labels); n may be 0."""
    points = _private_points(points, ndim=(1, 2))
    n_labels = positive_int(n_labels, "n_labels", minimum=2)
    labels = np.asarray(labels)
    if labels.shape != (points.shape[0],):
        raise ValueError(f"labels must have one entry per training point ({points.shape[0]}), got shape {labels.shape}")
    if labels.size and (not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= n_labels):
        raise ValueError(f"labels must be integers in [0, n_labels) = [0, {n_labels})")
    return points, labels.astype(np.intp), n_labels


def _queries(queries, dimension):
    """Validated test instances as an (m, d) array."""
    queries = finite_array(queries, "queries", ndim=(1, 2))
    if queries.ndim == 1:
        queries = queries[None, :] if dimension > 1 else queries[:, None]
    if queries.shape[1] != dimension:
        raise ValueError(f"queries must have {dimension} columns like the training points, got {queries.shape[1]}")
    return queries


def _per_instance(values, n_queries, name):
    """``values`` (a scalar or one entry per test instance) as a length-n_queries array."""
    values = np.asarray(values)
    if values.ndim > 1 or (values.ndim == 1 and values.shape[0] not in (1, n_queries)):
        raise ValueError(f"{name} must be a scalar or have one entry per test instance "
                         f"(length {n_queries}), got shape {values.shape}")
    return np.broadcast_to(values, (n_queries,))


def _radii(radii, n_queries, name="radii"):
    """Radii as a length-n_queries array of finite numbers > 0."""
    radii = _per_instance(finite_array(radii, name), n_queries, name).astype(float)
    if np.any(radii <= 0):
        raise ValueError(f"{name} must be > 0 (a proximity region needs a positive radius)")
    return radii


def _k_values(k, n_queries):
    """k per test instance as integers >= 1 (a scalar or one per instance).

    No upper bound: in the private functions ``|D|`` is private, and refusing
    ``k > |D|`` would reveal that ``|D| < k`` (one dataset answers, its
    neighbour raises). Each private function documents what such a k means.
    """
    given = k
    k = _per_instance(k, n_queries, "k")
    if not np.issubdtype(k.dtype, np.integer) or k.min() < 1:
        shown = np.array2string(np.asarray(given), threshold=6) if np.ndim(given) else repr(given)
        raise ValueError(f"k must be an integer >= 1 (a scalar or one per test instance), got {shown}")
    return k.astype(np.intp)


def _k_at_most(k, n_queries, n_points):
    """k per test instance as integers in [1, n_points]; only for non-private functions (|D| is read openly)."""
    k = _k_values(k, n_queries)
    if k.max() > n_points:
        raise ValueError(f"k must be an integer in [1, |D|] = [1, {n_points}], got {k.min()}..{k.max()}")
    return k


# --------------------------------------------------------------------------- a one-call memo of exact counts

def _same(a, b) -> bool:
    """Whether two arguments are the same value: arrays bit for bit (shape, dtype, bytes), others by ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return (a.shape == b.shape and a.dtype == b.dtype
                and np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)))
    return type(a) is type(b) and a == b


def _remember_last(function):
    """Answer a call with the same arguments as the previous one from memory (a copy), else compute.

    For deterministic, non-private computations the studies repeat on one batch (the exact
    counts of a batch are read once per method and budget). Only the last call is kept, so
    memory stays one result; the value returned is the one the function would compute.
    """
    last = {}

    def remembered(*args, **options):
        call = args + tuple(sorted(options.items()))
        if "call" in last and len(call) == len(last["call"]) and all(map(_same, call, last["call"])):
            return copy.deepcopy(last["result"])
        result = function(*args, **options)
        last.clear()
        last.update(call=tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in call),
                    result=copy.deepcopy(result))
        return result

    remembered.__wrapped__ = function
    remembered.__doc__ = function.__doc__
    return remembered


# --------------------------------------------------------------------------- r-N classifiers (Alg. 1-2)

def _batch(points, labels, queries, radii, n_labels):
    """Validated (points, labels, n_labels, queries, radii) of a batch of r-N test instances."""
    points, labels, n_labels = _training(points, labels, n_labels)
    queries = _queries(queries, points.shape[1])
    return points, labels, n_labels, queries, _radii(radii, queries.shape[0])


@_remember_last
def _counts(points, labels, n_labels, queries, radii):
    """Unchecked core of :func:`label_counts`."""
    counts = np.zeros((queries.shape[0], n_labels), dtype=np.int64)
    for label in range(n_labels):
        members = points[labels == label]
        if members.shape[0]:
            counts[:, label] = cKDTree(members).query_ball_point(queries, radii, return_length=True)
    return counts


def label_counts(points, labels, queries, radii, n_labels):
    """The counting queries ``c_{x,r}(I)`` (Def. 8): a (|X|, n_labels) array of exact counts.

    One k-d tree per label, so each count is one ``query_ball_point`` call
    (Euclidean distance, closed ball ``delta(x, t) <= r``). Not private.
    """
    return _counts(*_batch(points, labels, queries, radii, n_labels))


def _argmax_random_ties(scores, rng):
    """Row-wise argmax; ties broken uniformly at random (the paper's rule for ties)."""
    jitter = rng.random(scores.shape)
    best = scores == scores.max(axis=1, keepdims=True)
    return np.argmax(np.where(best, jitter, -1.0), axis=1)


def rn_classify_nonprivate(counts, rng):
    """The r-N classifier (Def. 9): ``argmax_I c_{x,r}(I)`` per row, ties at random. Not private."""
    counts = finite_array(counts, "counts", ndim=(2,))
    return _argmax_random_ties(counts, generator(rng))


def _noisy_argmax(counts, epsilon, rng):
    """Alg. 1 on each row of ``counts``: argmax of ``c(I) + Lap(1/epsilon)``; ``epsilon`` per row."""
    epsilon = np.broadcast_to(epsilon, (counts.shape[0],))[:, None]
    noisy = counts + rng.laplace(0.0, 1.0, size=counts.shape) / epsilon
    return np.argmax(noisy, axis=1)


def _one_instance_counts(points, labels, query, radius, n_labels):
    """Validated label counts ``c_{x,r}(I)`` of one test instance ``(x, r)``, shape (n_labels,)."""
    radius = positive_finite(radius, "radius")
    points, labels, n_labels = _training(points, labels, n_labels)
    query = finite_array(query, "query", ndim=(1, 2))
    query = query[None, :] if query.ndim == 1 else query
    if query.shape != (1, points.shape[1]):
        raise ValueError(f"query must be one test instance (one row of {points.shape[1]} coordinates), "
                         f"got shape {query.shape}")
    return _counts(points, labels, n_labels, query, np.array([radius]))[0]


def rn_classify_laplace(points, labels, query, radius, epsilon, rng, *, n_labels):
    """Alg. 1: label one test instance ``(x, r)`` by ``argmax_I c_{x,r}(I) + Lap(1/epsilon)``.

    Privacy (Thm 1): each count has sensitivity 1 and the counts of different
    labels read disjoint parts of ``D`` (one label per instance), so by the
    Laplace mechanism and parallel composition the label is ``epsilon``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    counts = _one_instance_counts(points, labels, query, radius, n_labels)
    return int(_noisy_argmax(counts[None, :], epsilon, generator(rng))[0])


def rn_classify_exponential(points, labels, query, radius, epsilon, rng, *, n_labels):
    """Alg. 2: label ``I`` with probability proportional to ``exp(epsilon c_{x,r}(I) / 2)``.

    Privacy: the exponential mechanism with utility ``c_{x,r}(I)`` of
    sensitivity 1 (McSherry and Talwar), so ``epsilon``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    counts = _one_instance_counts(points, labels, query, radius, n_labels)
    return int(mechanisms.exponential(counts, epsilon, 1.0, generator(rng)))


def exponential_label_probabilities(counts, epsilon):
    """Exact label probabilities of Alg. 2 for each row of ``counts`` (the paper's 57% example)."""
    return mechanisms.exponential_probabilities(counts, epsilon, 1.0)


def laplace_label_probabilities(count_a, count_b, epsilon):
    """Exact probability that Alg. 1 returns label a between two labels with counts ``count_a, count_b``.

    With ``L1, L2 ~ Lap(b)``, ``b = 1/epsilon``, ``Pr[c_a + L1 > c_b + L2] = F(c_a - c_b)``
    where ``F`` is the CDF of ``L2 - L1``: ``F(t) = 1 - (1/2) e^{-t/b} (1 + t/(2b))``
    for ``t >= 0`` and ``F(t) = 1 - F(-t)`` for ``t < 0``.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    t = np.asarray(count_a, dtype=float) - np.asarray(count_b, dtype=float)
    a = np.abs(t) * epsilon
    upper = 1.0 - 0.5 * np.exp(-a) * (1.0 + a / 2.0)
    return np.where(t >= 0, upper, 1.0 - upper)


# --------------------------------------------------------------------------- region overlap graph (Alg. 3)

#: Slack of the overlap test, relative to ``r_i + r_j`` and absolute in units of the coordinates' size.
OVERLAP_SLACK = 1e-9


def region_overlap_graph(queries, radii):
    """The region overlap graph (Def. 10): vertex i per test instance, edge iff ``|x_i - x_j| <= r_i + r_j``.

    Built from public test instances only. Candidate pairs come from
    ``cKDTree.query_pairs`` and are kept when the two closed balls intersect,
    tested conservatively: ``|x_i - x_j| <= (r_i + r_j)(1 + s) + s (1 + max |x|)``
    with ``s`` = :data:`OVERLAP_SLACK`. The counts are closed-ball tests in
    floating point (``cKDTree.query_ball_point``); without the slack, two
    balls one ulp short of tangency get no edge while one training point is
    counted by both, so two components would each spend the full epsilon on
    one record (loss 2 epsilon). An extra edge only lowers budgets (the
    components merge, the MCS can only grow), so the slack keeps Alg. 3
    epsilon-DP; it adds edges only between balls within about 1e-9 of touching.
    """
    queries = finite_array(queries, "queries", ndim=(2,))
    radii = _radii(radii, queries.shape[0])
    graph = nx.Graph()
    graph.add_nodes_from(range(queries.shape[0]))
    graph.add_edges_from(map(tuple, _overlap_pairs(queries, radii)))
    return graph


def _overlap_pairs(queries, radii):
    """The edges (i, j), i < j, of :func:`region_overlap_graph` as an (m, 2) array, for checked inputs."""
    absolute = OVERLAP_SLACK * (1.0 + np.abs(queries).max())  # rounding of coordinates, independent of r
    # The search radius exceeds every threshold below by a further slack, covering query_pairs' own rounding.
    reach = 2.0 * radii.max() * (1.0 + 2.0 * OVERLAP_SLACK) + 2.0 * absolute
    pairs = cKDTree(queries).query_pairs(reach, output_type="ndarray")
    if not pairs.size:
        return pairs.reshape(0, 2)
    distance = np.linalg.norm(queries[pairs[:, 0]] - queries[pairs[:, 1]], axis=1)
    keep = distance <= (radii[pairs[:, 0]] + radii[pairs[:, 1]]) * (1.0 + OVERLAP_SLACK) + absolute
    return pairs[keep]


def _greedy_clique_size(graph) -> int:
    """Size of a clique grown greedily by degree: a lower bound on MCS."""
    candidates = set(graph.nodes)
    size = 0
    while candidates:
        best = max(candidates, key=lambda v: (len(candidates.intersection(graph[v])), -v))
        candidates = candidates.intersection(graph[best])
        size += 1
    return size


def _clique_number(adjacency) -> int:
    """Exact clique number of the graph whose vertex i has neighbours ``adjacency[i]`` (a bitset int).

    Branch and bound with greedy-colouring bounds on bitsets (Tomita and Seki's MCQ,
    San Segundo's bitset form): vertices renumbered by degree, largest first; a
    branch stops when its clique plus the colours left cannot beat the best clique.
    """
    n = len(adjacency)
    order = sorted(range(n), key=lambda v: (-adjacency[v].bit_count(), v))
    position = [0] * n
    for i, v in enumerate(order):
        position[v] = i
    adj = []
    for v in order:
        bits, mask = 0, adjacency[v]
        while mask:
            low = mask & -mask
            bits |= 1 << position[low.bit_length() - 1]
            mask ^= low
        adj.append(bits)
    best = 0

    def expand(size, candidates):
        nonlocal best
        vertices, bounds, uncoloured, colour = [], [], candidates, 0
        while uncoloured:  # greedy colouring: each colour class is an independent set
            colour += 1
            available = uncoloured
            while available:
                low = available & -available
                v = low.bit_length() - 1
                available &= ~adj[v] & ~low
                uncoloured ^= low
                vertices.append(v)
                bounds.append(colour)
        for i in range(len(vertices) - 1, -1, -1):
            if size + bounds[i] <= best:
                return
            v = vertices[i]
            inner = candidates & adj[v]
            if inner:
                expand(size + 1, inner)
            elif size + 1 > best:
                best = size + 1
            candidates &= ~(1 << v)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, n + 200))  # one level per clique vertex
    try:
        expand(0, (1 << n) - 1)
    finally:
        sys.setrecursionlimit(limit)
    return best


def _component_clique_number(graph, nodes) -> int:
    """MCS of the subgraph on ``nodes``, a union of connected components of ``graph`` (no neighbour outside)."""
    index = {v: i for i, v in enumerate(nodes)}
    adjacency = []
    for v in nodes:
        bits = 0
        for u in graph.adj[v]:
            if u != v:
                bits |= 1 << index[u]
        adjacency.append(bits)
    if all(bits.bit_count() == len(nodes) - 1 for bits in adjacency):
        return len(nodes)  # complete
    return _clique_number(adjacency)


def _max_clique_size_networkx(graph) -> int:
    """:func:`max_clique_size` as it was (networkx's branch and bound); the reference of the tests."""
    n = graph.number_of_nodes()
    if n == 0:
        raise ValueError("graph must have at least one vertex")
    if graph.number_of_edges() == n * (n - 1) // 2:
        return n
    upper = max(nx.greedy_color(graph, strategy="largest_first").values()) + 1
    if _greedy_clique_size(graph) == upper:
        return upper
    return int(nx.max_weight_clique(graph, weight=None)[1])


def max_clique_size(graph) -> int:
    """``MCS(G)`` (Def. 7): the size of a maximum clique, exactly.

    Complete graphs at once; otherwise an exact branch and bound on bitsets
    (:func:`_clique_number`). NP-hard in general; milliseconds on the overlap
    graphs here (|X| <= 400), where networkx's took seconds.
    """
    if graph.number_of_nodes() == 0:
        raise ValueError("graph must have at least one vertex")
    return _component_clique_number(graph, list(graph.nodes))


def overlap_components(graph):
    """Connected components of the region overlap graph with their MCS, as (vertex list, MCS) pairs."""
    components = []
    for nodes in nx.connected_components(graph):
        nodes = sorted(nodes)
        components.append((nodes, _component_clique_number(graph, nodes)))
    return components


@_remember_last
def _batch_components(queries, radii):
    """``overlap_components(region_overlap_graph(queries, radii))``, remembered for the next call on the same batch.

    Computed from the edge array without building a networkx graph: the components in the
    same order (by smallest vertex), each vertex list sorted, and each MCS from the same
    bitsets, so the same values (tests/test_fast_paths.py).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = queries.shape[0]
    pairs = _overlap_pairs(queries, radii)
    _, owner = connected_components(coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n)),
                                    directed=False)
    neighbours = [[] for _ in range(n)]
    for i, j in pairs.tolist():
        neighbours[i].append(j)
        neighbours[j].append(i)
    components, seen = [], {}
    for v in range(n):  # components in the order of their smallest vertex, as networkx lists them
        seen.setdefault(owner[v], []).append(v)
    for nodes in seen.values():
        index = {v: i for i, v in enumerate(nodes)}
        adjacency = [sum(1 << index[u] for u in neighbours[v]) for v in nodes]
        complete = all(bits.bit_count() == len(nodes) - 1 for bits in adjacency)
        components.append((nodes, len(nodes) if complete else _clique_number(adjacency)))
    return components


def overlap_depth(queries, radii, locations):
    """For each location, the number of test regions containing it (what adding a point there changes).

    A training instance added at ``p`` changes the count of its label for
    exactly these test instances, so the largest depth is the true sensitivity
    of the batch; Lemma 3 says it is at most the MCS of the component.
    """
    queries = finite_array(queries, "queries", ndim=(2,))
    radii = _radii(radii, queries.shape[0])
    locations = finite_array(locations, "locations", ndim=(2,))
    distance = np.linalg.norm(locations[:, None, :] - queries[None, :, :], axis=2)
    return distance <= radii[None, :]


@dataclass(frozen=True)
class RNResult:
    """Labels of a batch of r-N test instances and the budget each one received.

    ``epsilons[i] = epsilon / divisors[component[i]]`` is the budget of
    instance i. For Alg. 3, ``component[i]`` is i's connected component of the
    region overlap graph and the divisor is that component's MCS. The baseline
    ignores the graph: all instances form one group (``component`` all 0) whose
    divisor is ``|X|``, the number of mechanisms composed, not an MCS.
    """

    labels: np.ndarray
    epsilons: np.ndarray
    component: np.ndarray
    divisors: np.ndarray


def rn_classify_batch(points, labels, queries, radii, epsilon, rng, *, n_labels):
    """Alg. 3, the proposed private r-N classifier: ``epsilon``-DP for the whole batch.

    Each connected component of the region overlap graph gets the full
    ``epsilon`` (Lemma 1: components read disjoint parts of the space, parallel
    composition); inside a component every instance runs Alg. 1 at
    ``epsilon / MCS`` because one training instance changes at most MCS of the
    component's counts of its label (Lemmas 2-3), so the per-label count vector
    has L1 sensitivity at most MCS (Thm 2).
    """
    epsilon = positive_finite(epsilon, "epsilon")
    rng = generator(rng)
    points, labels, n_labels, queries, radii = _batch(points, labels, queries, radii, n_labels)
    counts = _counts(points, labels, n_labels, queries, radii)
    components = _batch_components(queries, radii)
    component = np.empty(counts.shape[0], dtype=np.intp)
    mcs = np.array([size for _, size in components], dtype=np.intp)
    for index, (nodes, _) in enumerate(components):
        component[nodes] = index
    epsilons = epsilon / mcs[component]
    return RNResult(_noisy_argmax(counts, epsilons, rng), epsilons, component, divisors=mcs)


def rn_classify_baseline(points, labels, queries, radii, epsilon, rng, *, n_labels, mechanism="laplace"):
    """The baseline private r-N classifier (§3.1): Alg. 1 or 2 on each instance at ``epsilon / |X|``.

    Privacy: sequential composition of |X| mechanisms, each ``epsilon / |X|``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    rng = generator(rng)
    counts = label_counts(points, labels, queries, radii, n_labels)
    share = epsilon / counts.shape[0]
    if mechanism == "laplace":
        predicted = _noisy_argmax(counts, share, rng)
    elif mechanism == "exponential":
        predicted = mechanisms.exponential(counts, share, 1.0, rng)
    else:
        raise ValueError(f"mechanism must be 'laplace' or 'exponential', got {mechanism!r}")
    n = counts.shape[0]
    return RNResult(predicted, np.full(n, share), np.zeros(n, dtype=np.intp), divisors=np.array([n]))


# --------------------------------------------------------------------------- k-NN to r-N conversion

def noisy_size(n_points, epsilon, rng) -> float:
    """``|D| + Lap(1/epsilon)``, floored at 1 afterwards (post-processing): ``epsilon``-DP."""
    value = mechanisms.laplace(np.array([float(n_points)]), 1.0, epsilon, rng)[0]
    return max(1.0, float(value))


def r_unif(k, n_points, dimension, volume=1.0):
    """The radius whose ball holds ``k`` points if ``n_points`` were uniform (Alg. 6, line 3).

    ``r = (Gamma(d/2 + 1) k vol(Omega) / (n pi^{d/2}))^{1/d}``, in the log domain.
    """
    dimension = positive_int(dimension, "dimension")
    k = finite_array(k, "k")
    if np.any(k < 1):
        raise ValueError("k must be >= 1")
    n_points = positive_finite(n_points, "n_points")
    volume = positive_finite(volume, "volume")
    log_r = (special.gammaln(dimension / 2 + 1) + np.log(k) + math.log(volume)
             - math.log(n_points) - dimension / 2 * math.log(math.pi)) / dimension
    return np.exp(log_r)


def interactive_candidates(r_uniform, n_candidates):
    """Alg. 6, line 4: candidates ``o_j = 2 j r_UNIF / n`` for ``j = 1..n``, one row per instance."""
    n_candidates = positive_int(n_candidates, "n_candidates")
    return np.asarray(r_uniform, float)[:, None] * (2.0 * np.arange(1, n_candidates + 1) / n_candidates)


def convert_interactive(points, queries, k, epsilon_hat, rng, *, n_candidates=10, size_share=SIZE_SHARE):
    """Alg. 6: a private radius per k-NN test instance; ``epsilon_hat``-DP in total.

    ``size_share * epsilon_hat`` buys a noisy ``|D|`` for ``r_UNIF`` (the paper
    allows this, §4.3); each of the |X| instances then runs the exponential
    mechanism over the candidates with utility ``-|c_{x,o_j} - k|`` (sensitivity
    1: adding or removing one instance changes every ball count by at most 1) at
    ``(1 - size_share) epsilon_hat / |X|``. Sequential composition gives
    ``epsilon_hat``. Returns the radii, shape (|X|,).

    ``k`` is an integer >= 1 (a scalar or one per instance) and may exceed
    ``|D|``: the utility ``-|c - k|`` needs no change then (it favours the
    candidate holding the most points). Refusing such a k would be a
    deterministic distinguisher of ``|D| < k``.
    """
    points = _private_points(points)
    queries = _queries(queries, points.shape[1])
    k = _k_values(k, queries.shape[0])
    epsilon_hat = positive_finite(epsilon_hat, "epsilon_hat")
    size_share = probability_open(size_share, "size_share")
    rng = generator(rng)
    n_estimate = noisy_size(points.shape[0], size_share * epsilon_hat, rng)
    candidates = interactive_candidates(r_unif(k, n_estimate, points.shape[1]), n_candidates)
    totals = _ball_counts(points, queries, candidates)
    utilities = -np.abs(totals - k[:, None])
    epsilon_each = (1.0 - size_share) * epsilon_hat / queries.shape[0]
    chosen = mechanisms.exponential(utilities, epsilon_each, 1.0, rng)
    return candidates[np.arange(queries.shape[0]), chosen]


#: Up to this dimension ball counts use a k-d tree; above it, one distance row per test instance.
_TREE_DIMENSIONS = 8


def _ball_counts(points, queries, radii, chunk=1 << 22):
    """``(m, c)`` exact counts of points within distance ``radii[i, j]`` (closed ball) of ``queries[i]``.

    In few dimensions a k-d tree answers each radius quickly. Above
    ``_TREE_DIMENSIONS``, one distance row per test instance answers all its candidate
    radii at once (a ``query_ball_point`` per radius rescans the data, which in 64
    dimensions with radii near the diameter is a full scan each time). Each distance is summed over one
    pair's coordinates only, so whether a record is inside a ball never depends on
    the other records: a count still changes by at most 1 per added record.
    """
    n, d = points.shape
    totals = np.zeros(radii.shape, dtype=np.int64)
    if n == 0:
        return totals
    if d <= _TREE_DIMENSIONS:  # a k-d tree prunes well in few dimensions: one ball query per radius
        tree = cKDTree(points)
        return np.stack([tree.query_ball_point(queries, radii[:, j], return_length=True)
                         for j in range(radii.shape[1])], axis=1).astype(np.int64)
    rows = max(1, chunk // (n * max(d, radii.shape[1])))
    for start in range(0, queries.shape[0], rows):
        block = queries[start:start + rows]
        distance = np.sqrt(((block[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
        totals[start:start + rows] = (distance[:, :, None] <= radii[start:start + rows, None, :]).sum(axis=1)
    return totals


def grid_size(n_estimate, epsilon, dimension, *, c=10.0, max_cells=2**20):
    """Cells per dimension ``m`` of the uniform grid: ``(N epsilon / c)^{2/(d+2)}``, at least 1.

    For d = 2 this is Qardaji et al.'s ``sqrt(N epsilon / c)`` with c = 10. For
    general d the same balance of noise error (grows like ``m^{d/2} / epsilon``)
    against non-uniformity error (falls like ``N / m``) gives the exponent
    ``2 / (d + 2)``, the rule of Su et al.'s extended uniform grids. Capped so
    that ``m^d <= max_cells``.
    """
    dimension = positive_int(dimension, "dimension")
    n_estimate = positive_finite(n_estimate, "n_estimate")
    epsilon = positive_finite(epsilon, "epsilon")
    m = max(1, int(math.floor((n_estimate * epsilon / c) ** (2.0 / (dimension + 2)))))
    cap = max(1, int(math.floor(max_cells ** (1.0 / dimension) + 1e-9)))
    return min(m, cap)


@dataclass(frozen=True)
class PrivateGrid:
    """An ``epsilon``-DP uniform grid over ``[0, 1]^d``: ``m`` cells per side, noisy counts."""

    counts: np.ndarray  # shape (m,) * d, noisy (may be negative)
    m: int
    epsilon: float

    @property
    def dimension(self) -> int:
        return self.counts.ndim

    def densities(self) -> np.ndarray:
        """Counts clipped at 0 divided by the cell volume ``m^-d`` (post-processing)."""
        return np.clip(self.counts, 0.0, None) * float(self.m) ** self.dimension


def private_uniform_grid(points, epsilon, rng, *, size_share=SIZE_SHARE, c=10.0, max_cells=2**20):
    """Alg. 7, line 1: the uniform grid of Qardaji et al. with Laplace counts; ``epsilon``-DP.

    ``size_share * epsilon`` buys a noisy ``|D|`` to choose ``m`` (:func:`grid_size`);
    the rest goes to ``Lap(1 / ((1 - size_share) epsilon))`` on every cell count
    (one instance lies in one cell: sensitivity 1, parallel composition over cells).
    """
    points = _private_points(points)
    epsilon = positive_finite(epsilon, "epsilon")
    size_share = probability_open(size_share, "size_share")
    rng = generator(rng)
    dimension = points.shape[1]
    m = grid_size(noisy_size(points.shape[0], size_share * epsilon, rng), (1 - size_share) * epsilon,
                  dimension, c=c, max_cells=max_cells)
    cells = np.minimum((points * m).astype(np.intp), m - 1)
    exact = np.zeros((m,) * dimension)
    np.add.at(exact, tuple(cells.T), 1.0)
    counts = mechanisms.laplace(exact, 1.0, (1 - size_share) * epsilon, rng)
    return PrivateGrid(counts, m, epsilon)


def _quadrant_area(x, y, r):
    """Signed area of the disc of radius r at 0 inside ``[0, x] x [0, y]`` (odd in x and in y)."""
    sx, sy = np.sign(x), np.sign(y)
    x, y = np.minimum(np.abs(x), r), np.minimum(np.abs(y), r)

    def chord(t):  # integral_0^t sqrt(r^2 - u^2) du
        return 0.5 * (t * np.sqrt(np.maximum(r * r - t * t, 0.0)) + r * r * np.arcsin(np.clip(t / r, -1, 1)))

    t0 = np.sqrt(np.maximum(r * r - y * y, 0.0))  # where the circle's height drops below y
    area = y * np.minimum(x, t0) + np.where(x > t0, chord(x) - chord(np.minimum(t0, x)), 0.0)
    return sx * sy * area


def disc_rectangle_area(centre, r, lower, upper):
    """Exact area of the disc ``B(centre, r)`` inside the rectangle ``[lower, upper]`` (broadcasts).

    Inclusion-exclusion over the four corners of the signed quadrant area.
    """
    dx0, dx1 = lower[..., 0] - centre[..., 0], upper[..., 0] - centre[..., 0]
    dy0, dy1 = lower[..., 1] - centre[..., 1], upper[..., 1] - centre[..., 1]
    return (_quadrant_area(dx1, dy1, r) - _quadrant_area(dx0, dy1, r)
            - _quadrant_area(dx1, dy0, r) + _quadrant_area(dx0, dy0, r))


def _ball_directions(dimension, n_samples, rng):
    """``n_samples`` points uniform in the unit ball of R^d (fixed per conversion: common numbers)."""
    direction = rng.standard_normal((n_samples, dimension))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    return direction * rng.random((n_samples, 1)) ** (1.0 / dimension)


def _box_mass(density, m, centre, r):
    """Exact mass of one ball under a 1-D or 2-D grid, summed over the cells its bounding box touches."""
    first = np.clip(np.floor((centre - r) * m).astype(int), 0, m - 1)
    last = np.clip(np.floor((centre + r) * m).astype(int), 0, m - 1)
    if centre.size == 1:
        edges = np.arange(first[0], last[0] + 2) / m
        covered = np.clip(centre[0] + r, edges[:-1], edges[1:]) - np.clip(centre[0] - r, edges[:-1], edges[1:])
        return float(covered @ density[first[0]:last[0] + 1])
    index = np.indices(last - first + 1).reshape(2, -1).T + first
    area = disc_rectangle_area(centre, r, index / m, (index + 1) / m)
    return float(area @ density[index[:, 0], index[:, 1]])


def _disc_masses(density, m, queries, radii, cells=1 << 20):
    """:func:`_box_mass` of every 2-D query at once: the same floats, one array pass per block of queries.

    The areas are elementwise, so computing them for many queries together changes no
    value; each query's sum stays one dot product over its own cells, in the same order.
    """
    first = np.clip(np.floor((queries - radii[:, None]) * m).astype(int), 0, m - 1)
    last = np.clip(np.floor((queries + radii[:, None]) * m).astype(int), 0, m - 1)
    width = last - first + 1
    sizes = width[:, 0] * width[:, 1]
    out = np.empty(len(queries))
    start = 0
    while start < len(queries):  # blocks of queries with at most ``cells`` cells (at least one query)
        stop = start + max(1, int(np.searchsorted(np.cumsum(sizes[start:]), cells, side="right")))
        owner = np.repeat(np.arange(start, stop), sizes[start:stop])
        bounds = np.concatenate([[0], np.cumsum(sizes[start:stop])])
        offset = np.arange(bounds[-1]) - bounds[owner - start]
        index = np.column_stack([first[owner, 0] + offset // width[owner, 1], first[owner, 1] + offset % width[owner, 1]])
        area = disc_rectangle_area(queries[owner], radii[owner], index / m, (index + 1) / m)
        mass = density[index[:, 0], index[:, 1]]
        for q in range(stop - start):
            out[start + q] = float(area[bounds[q]:bounds[q + 1]] @ mass[bounds[q]:bounds[q + 1]])
        start = stop
    return out


def _sample_reach(queries, samples):
    """``reach[q, s]``: about the largest r with ``x_q + r u_s`` in [0, 1]^d (inf if no coordinate leaves).

    For ``x_q`` in [0, 1]^d and r >= 0, each coordinate of the rounded ``x + r u`` moves
    monotonically with r (rounding preserves order), away from the side it cannot cross, so
    the sample is inside exactly for r up to a threshold; ``reach`` computes that threshold
    by division, within a few units in the last place. :func:`_one_cell_masses` decides by
    it only where r is farther from it than a relative 1e-9 and evaluates the rest exactly.
    """
    x = queries[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        upward = np.where(samples > 0, (1.0 - x) / samples[None], np.inf)
        downward = np.where(samples < 0, x / -samples[None], np.inf)
    return np.minimum(upward, downward).min(axis=2)


def _one_cell_inside(queries, radii, samples, reach):
    """``all(0 <= x_q + r_q u_s <= 1)`` per (q, s), the same booleans as evaluating every location."""
    r = radii[:, None]
    inside = r < reach
    close = np.isfinite(reach) & (np.abs(r - reach) <= 1e-9 * np.maximum(r, reach))
    rows, columns = np.nonzero(close)
    if rows.size:
        locations = queries[rows] + radii[rows, None] * samples[columns]
        inside[rows, columns] = np.all((locations >= 0) & (locations <= 1), axis=1)
    return inside


def grid_mass(grid, queries, radii, *, samples=None, reach=None):
    """Expected number of points in ``B(x_i, r_i)`` under the grid (Alg. 7, lines 6-10).

    ``sum_C vol(B ∩ C) |C| / vol(C)`` with counts clipped at 0. Exact in 1-D
    and 2-D (interval lengths; disc-rectangle areas over the cells the ball's
    bounding box touches); in higher d a Monte Carlo estimate
    ``vol(B) mean_s density(x + r u_s)`` over ``samples`` (points uniform in the
    unit ball, required then). Post-processing of the grid. ``reach``: :func:`_sample_reach` of
    ``queries`` and ``samples``, which a one-cell grid (m = 1) then uses for the same masses, faster.
    """
    density = grid.densities()
    m, d = grid.m, grid.dimension
    radii = np.broadcast_to(np.asarray(radii, float), (queries.shape[0],))
    if d == 2:
        return _disc_masses(density, m, queries, radii)
    if d == 1:
        return np.array([_box_mass(density, m, centre, r) for centre, r in zip(queries, radii)])
    if samples is None:
        raise ValueError("samples (points uniform in the unit ball) are required for dimension > 2")
    volume = np.exp(d / 2 * math.log(math.pi) - special.gammaln(d / 2 + 1)) * radii ** d
    if m == 1 and reach is not None:  # one cell: only whether each sample is inside matters
        inside = _one_cell_inside(queries, radii, samples, reach)
        return volume * np.mean(np.where(inside, density.ravel()[0], 0.0), axis=1)
    locations = queries[:, None, :] + radii[:, None, None] * samples[None]
    inside = np.all((locations >= 0) & (locations <= 1), axis=2)
    if m == 1:  # one cell (the grid of a small budget in high d): every sample reads its density
        return volume * np.mean(np.where(inside, density.ravel()[0], 0.0), axis=1)
    cells = np.minimum((np.clip(locations, 0, 1) * m).astype(np.intp), m - 1)
    flat = cells @ (m ** np.arange(d - 1, -1, -1, dtype=np.int64))  # C order, like ravel()
    return volume * np.mean(np.where(inside, density.ravel()[flat], 0.0), axis=1)


def _reached(grid, queries, j, k, gamma, samples, reach=None):
    """Whether the grid mass of ``B(x, j gamma)`` reaches k, for each row (only the rows given)."""
    return grid_mass(grid, queries, j * gamma, samples=samples, reach=reach) >= k


def convert_noninteractive(grid, queries, k, gamma, rng, *, n_samples=256):
    """Alg. 7, lines 2-18: the smallest ``r = j gamma`` whose grid mass reaches ``k``, per instance.

    Post-processing of the ``grid.epsilon``-DP grid: no further privacy cost,
    and the grid can serve any number of later batches. The paper scans
    ``r = gamma, 2 gamma, ...``; the mass is non-decreasing in r (clipped
    densities are >= 0), so doubling j until the mass reaches k and then
    bisecting returns the same radius with logarithmically many evaluations
    (exactly so in 1-D and 2-D; in higher d the Monte Carlo mass uses the same
    samples at every r). When the mass never reaches k before the domain's
    diameter ``sqrt(d)``, the paper's loop adds no instance; we return the
    diameter (the ball then covers the whole domain). ``k`` is an integer >= 1
    (a scalar or one per instance) and may exceed ``|D|`` (the grid's mass then
    rarely reaches k, and the radius is the diameter); the conversion never
    reads ``|D|``, and refusing ``k > |D|`` would leak it.
    """
    queries = _queries(queries, grid.dimension)
    k = _k_values(k, queries.shape[0])
    gamma = positive_finite(gamma, "gamma")
    diameter = math.sqrt(grid.dimension)
    steps = max(1, int(math.floor(diameter / gamma)))
    samples = _ball_directions(grid.dimension, n_samples, generator(rng)) if grid.dimension > 2 else None
    # one cell in high d: where each sample leaves the domain, once for all radii (the same masses)
    one_cell = samples is not None and grid.m == 1 and queries.min() >= 0 and queries.max() <= 1
    reach = _sample_reach(queries, samples) if one_cell else None
    low = np.zeros(queries.shape[0], dtype=np.int64)  # invariant: mass(low gamma) < k
    high = np.ones(queries.shape[0], dtype=np.int64)  # after galloping: mass(high gamma) >= k, or high > steps
    searching = np.ones(queries.shape[0], dtype=bool)
    while np.any(searching):
        rows = np.flatnonzero(searching)
        hit = _reached(grid, queries[rows], high[rows], k[rows], gamma, samples, None if reach is None else reach[rows])
        searching[rows[hit]] = False
        missed = rows[~hit]
        low[missed] = high[missed]
        high[missed] = np.where(high[missed] >= steps, steps + 1, np.minimum(2 * high[missed], steps))
        searching[missed[high[missed] > steps]] = False
    while np.any(high - low > 1):
        rows = np.flatnonzero((high - low > 1) & (high <= steps))
        if rows.size == 0:
            break
        middle = (low[rows] + high[rows]) // 2
        hit = _reached(grid, queries[rows], middle, k[rows], gamma, samples, None if reach is None else reach[rows])
        high[rows[hit]] = middle[hit]
        low[rows[~hit]] = middle[~hit]
    return np.where(high > steps, diameter, high * gamma)


# --------------------------------------------------------------------------- k-NN classifiers (Alg. 4-5)

def knn_radii(points, queries, k):
    """The non-private conversion: ``r = delta(x, x^k)``, the distance to the k-th nearest neighbour."""
    points = finite_array(points, "points", ndim=(2,))
    queries = _queries(queries, points.shape[1])
    k = _k_at_most(k, queries.shape[0], points.shape[0])
    distance, _ = cKDTree(points).query(queries, k=int(k.max()))
    distance = distance.reshape(queries.shape[0], -1)
    return distance[np.arange(queries.shape[0]), k - 1]


def _record_order(points, labels):
    """Rank of each record in a fixed, data-independent total order: by coordinates, then label.

    Whether record a precedes record b depends on a and b alone, never on the
    rest of the dataset; only exact duplicates (same coordinates and label) tie,
    and those are interchangeable.
    """
    keys = (labels,) + tuple(points[:, j] for j in range(points.shape[1] - 1, -1, -1))
    rank = np.empty(len(labels), dtype=np.intp)
    rank[np.lexsort(keys)] = np.arange(len(labels))
    return rank


@_remember_last
def _knn_counts(points, labels, queries, k, n_labels, chunk=1 << 22):
    """Label counts among the k nearest neighbours (Def. 11), shape (|X|, n_labels).

    "Nearest" is a total order on records: by distance to the query, ties broken
    by :func:`_record_order` (coordinates, then label). Under any such order,
    adding one record to D changes the k nearest by at most one record in and one
    out, so every label count moves by at most 1 (the sensitivity Alg. 4 assumes).
    ``cKDTree.query`` breaks distance ties by the tree's layout, which depends on
    the whole dataset: one added record could then swap several tied records and
    move a count by more than 1. When ``|D| < k`` the k nearest are all of ``D``
    (the counts sum to |D|); with ``|D| = 0`` every count is 0.
    """
    n, m = points.shape[0], queries.shape[0]
    counts = np.zeros((m, n_labels), dtype=np.int64)
    k = min(int(k), n)
    if k == 0:
        return counts
    rank = _record_order(points, labels)
    rows = max(1, chunk // (n * points.shape[1]))  # bound the (rows, n, d) difference block
    # Each distance is summed over the d coordinates of one pair only (no matrix product, whose
    # rounding could depend on the other records), so a record's place in the order is its own.
    for start in range(0, m, rows):
        block = queries[start:start + rows]
        distance = np.sqrt(((block[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
        # The first k in the order (distance, rank): all records nearer than the k-th distance, then
        # the tied ones at the k-th distance by rank (the same records as a full lexsort, without it).
        kth = np.partition(distance, k - 1, axis=1)[:, k - 1:k]
        chosen = distance < kth
        tied = distance == kth
        need = k - chosen.sum(axis=1)
        exact = tied.sum(axis=1) == need
        chosen[exact] |= tied[exact]
        for row in np.flatnonzero(~exact):  # more ties than places: the smallest ranks win
            candidates = np.flatnonzero(tied[row])
            chosen[row, candidates[np.argsort(rank[candidates])[:need[row]]]] = True
        row, column = np.nonzero(chosen)
        np.add.at(counts, (start + row, labels[column]), 1)
    return counts


def _knn_counts_lexsort(points, labels, queries, k, n_labels, chunk=1 << 22):
    """:func:`_knn_counts` as it was (a full lexsort of every distance row); the reference of the tests."""
    n, m = points.shape[0], queries.shape[0]
    counts = np.zeros((m, n_labels), dtype=np.int64)
    k = min(int(k), n)
    if k == 0:
        return counts
    rank = _record_order(points, labels)
    rows = max(1, chunk // (n * points.shape[1]))
    for start in range(0, m, rows):
        block = queries[start:start + rows]
        distance = np.sqrt(((block[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
        order = np.lexsort((np.broadcast_to(rank, distance.shape), distance), axis=-1)[:, :k]
        np.add.at(counts, (np.repeat(np.arange(start, start + len(block)), k), labels[order].ravel()), 1)
    return counts


def knn_classify_nonprivate(points, labels, queries, k, rng, *, n_labels):
    """The k-NN classifier (Def. 12), majority vote with random tie-breaks. Not private: k must be <= |D|."""
    points, labels, n_labels = _training(points, labels, n_labels)
    queries = _queries(queries, points.shape[1])
    k = int(_k_at_most(k, 1, points.shape[0])[0])
    return _argmax_random_ties(_knn_counts(points, labels, queries, k, n_labels), generator(rng))


def knn_classify_baseline(points, labels, queries, k, epsilon, rng, *, n_labels):
    """Alg. 4 for every instance at ``epsilon / |X|``: ``epsilon``-DP by sequential composition.

    The utility ``q_{x,k}(I)`` changes by at most 1 per label when one
    instance is added or removed (it can enter the k nearest and push one out),
    so each call is the exponential mechanism with sensitivity 1.

    ``k`` is one integer >= 1. When ``|D| < k``, "the k nearest" are all of
    ``D`` (adding a record then raises one label's count by 1: sensitivity
    still 1); ``|D|`` is private, so a larger k is not an error.
    """
    points, labels, n_labels = _training(points, labels, n_labels)
    queries = _queries(queries, points.shape[1])
    k = int(_k_values(k, 1)[0])
    epsilon = positive_finite(epsilon, "epsilon")
    counts = _knn_counts(points, labels, queries, k, n_labels)
    return mechanisms.exponential(counts, epsilon / queries.shape[0], 1.0, generator(rng))


def knn_classify_private(points, labels, queries, k, epsilon, rng, *, n_labels, conversion="interactive",
                         w=0.5, n_candidates=10, gamma=None):
    """Alg. 5, the proposed private k-NN classifier: ``epsilon``-DP by sequential composition.

    ``w epsilon`` converts each (x, k) to (x, r) (Alg. 6 ``"interactive"`` or
    Alg. 7 ``"noninteractive"``, whose ``gamma`` defaults to 0.1% of the domain
    diameter); ``(1 - w) epsilon`` runs Alg. 3 on the converted instances.
    Returns ``(labels, radii)``. ``k`` is an integer >= 1 (a scalar or one per
    instance) and may exceed the private ``|D|``; each conversion says what
    radius it then returns.
    """
    points, labels, n_labels = _training(points, labels, n_labels)
    queries = _queries(queries, points.shape[1])
    k = _k_values(k, queries.shape[0])
    epsilon = positive_finite(epsilon, "epsilon")
    w = probability_open(w, "w")
    rng = generator(rng)
    if conversion == "interactive":
        radii = convert_interactive(points, queries, k, w * epsilon, rng, n_candidates=n_candidates)
    elif conversion == "noninteractive":
        gamma = 1e-3 * math.sqrt(points.shape[1]) if gamma is None else gamma
        grid = private_uniform_grid(points, w * epsilon, rng)
        radii = convert_noninteractive(grid, queries, k, gamma, rng)
    else:
        raise ValueError(f"conversion must be 'interactive' or 'noninteractive', got {conversion!r}")
    result = rn_classify_batch(points, labels, queries, radii, (1 - w) * epsilon, rng, n_labels=n_labels)
    return result.labels, radii


# --------------------------------------------------------------------------- conversion metrics (§5.2)

def avre(radii, true_radii) -> float:
    """Average relative error in r, in percent: ``mean |r' - r| / r * 100``."""
    radii, true_radii = np.asarray(radii, float), np.asarray(true_radii, float)
    return float(np.mean(np.abs(radii - true_radii) / true_radii) * 100.0)


def rmse_k(points, queries, radii, true_radii) -> float:
    """RMSE in k (§5.2): ``sqrt(mean (c_{x,r} - c_{x,r'})^2)``, c the number of training points within a radius.

    ``true_radii`` are the exact k-th neighbour distances, so ``c_{x,r} >= k``
    (equal to k unless distances tie, as they do on integer-valued data).
    """
    tree = cKDTree(finite_array(points, "points", ndim=(2,)))
    queries = _queries(queries, tree.m)
    exact = tree.query_ball_point(queries, _radii(true_radii, queries.shape[0]), return_length=True)
    reached = tree.query_ball_point(queries, _radii(radii, queries.shape[0]), return_length=True)
    return float(np.sqrt(np.mean((exact - reached) ** 2.0)))


# --------------------------------------------------------------------------- evaluation (§5)

def cv_splits(n_points, n_folds, rng):
    """``n_folds``-fold cross-validation index pairs (train, test) over a seeded shuffle (§5: 80/20, 5 folds)."""
    from sklearn.model_selection import KFold

    n_folds = positive_int(n_folds, "n_folds", minimum=2)
    seed = int(generator(rng).integers(2**31))
    return list(KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.arange(n_points)))


def tuned_radius(train, test, neighbours=10) -> float:
    """Median distance from the test instances to their ``neighbours``-th nearest training point.

    The paper sets r so that a test instance has 5 to 20 training instances in
    its region on average (§5.1): a non-private tuning step, as there.
    """
    return float(np.median(knn_radii(train, test, neighbours)))


def _sample(test, n_test, rng):
    """``n_test`` distinct test indices (all of them when the fold is that small)."""
    return rng.choice(test, size=min(n_test, test.size), replace=False)


def _over_folds(fold_rows, n_points, n_folds, rng, n_jobs, desc, *arguments):
    """The rows of ``fold_rows(fold, train, test, seed, *arguments)`` over the folds of a seeded split.

    One draw of ``rng`` splits the data (:func:`cv_splits`) and one more gives a root; fold f
    draws from ``default_rng([root, f])``. The folds run over ``n_jobs`` processes
    (:func:`dpnn.experiments.run_cases`), and the table is the same for any ``n_jobs``.
    """
    import pandas as pd

    from dpnn.experiments import run_cases

    rng = generator(rng)
    splits = cv_splits(n_points, n_folds, rng)
    root = int(rng.integers(2**63))
    cases = [(fold, train, test, [root, fold], *arguments) for fold, (train, test) in enumerate(splits)]
    return pd.DataFrame([row for rows in run_cases(fold_rows, cases, n_jobs=n_jobs, desc=desc) for row in rows])


def rn_study(points, labels, n_labels, epsilons, test_counts, n_folds, repeats, rng, *, neighbours=10,
             privbayes=None, n_jobs=1):
    """Fig. 7-9 analogue: accuracy of non-private, baseline and proposed r-N against |X|.

    One row per (fold, repeat, |X|, epsilon, method) with the accuracy and,
    for the proposed classifier, the mean MCS of the instances' components and
    the density of the region overlap graph (edges / pairs). Test counts
    larger than a fold are skipped. Each fold has its own seed and the folds run
    over ``n_jobs`` processes (:func:`_over_folds`): the table does not depend on ``n_jobs``.

    The radius is tuned on each fold **non-privately**, as in the paper
    (§5.1): :func:`tuned_radius` reads the training and test points. The
    privacy guarantees of the classifiers hold for a fixed, public radius; a
    deployment would fix r in advance or pay for choosing it.

    ``privbayes``: None (default) or a dict of options for
    :func:`dpnn.privbayes.privbayes_copies` (``degree``, ``bins``, ...); then each fold also gets an
    epsilon-DP PrivBayes copy of its training data per epsilon, and the
    method "PrivBayes" is the non-private r-N classifier on that copy (the
    paper's comparator, Figs. 7-9; features must lie in [0, 1]).
    """
    return _over_folds(_rn_fold, len(labels), n_folds, rng, n_jobs, "r-N study (Figs. 7-9), folds",
                       points, labels, n_labels, epsilons, test_counts, repeats, neighbours, privbayes)


def _rn_fold(fold, train, test, seed, points, labels, n_labels, epsilons, test_counts, repeats, neighbours,
             privbayes):
    """The rows of one fold of :func:`rn_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    radius = tuned_radius(points[train], points[test], neighbours)
    synthetic = _privbayes_copies(points[train], labels[train], n_labels, epsilons, rng, privbayes)
    for n_test in (n for n in test_counts if n <= test.size):
        for repeat in range(repeats):
            chosen = _sample(test, n_test, rng)
            args = (points[train], labels[train], points[chosen], radius)
            truth = labels[chosen]
            counts = label_counts(*args, n_labels)
            density = nx.density(region_overlap_graph(points[chosen], radius))
            base = dict(fold=fold, repeat=repeat, n_test=n_test, radius=radius)
            for epsilon in epsilons:
                rows.append(base | dict(epsilon=epsilon, method="non-private", mcs=np.nan, density=np.nan,
                                        accuracy=np.mean(rn_classify_nonprivate(counts, rng) == truth)))
                baseline = rn_classify_baseline(*args, epsilon, rng, n_labels=n_labels)
                rows.append(base | dict(epsilon=epsilon, method="baseline", mcs=np.nan, density=np.nan,
                                        accuracy=np.mean(baseline.labels == truth)))
                proposed = rn_classify_batch(*args, epsilon, rng, n_labels=n_labels)
                rows.append(base | dict(epsilon=epsilon, method="proposed", density=density,
                                        mcs=float(np.mean(proposed.divisors[proposed.component])),
                                        accuracy=np.mean(proposed.labels == truth)))
                if synthetic:
                    fake = label_counts(*synthetic[epsilon], points[chosen], radius, n_labels)
                    rows.append(base | dict(epsilon=epsilon, method="PrivBayes", mcs=np.nan, density=np.nan,
                                            accuracy=np.mean(rn_classify_nonprivate(fake, rng) == truth)))
    return rows


def _privbayes_copies(points, labels, n_labels, epsilons, rng, options):
    """{epsilon: PrivBayes synthetic (points, labels)} for each budget, or {} when ``options`` is None."""
    if options is None:
        return {}
    from .privbayes import privbayes_copies

    return dict(zip(epsilons, privbayes_copies(points, labels, n_labels, epsilons, rng, **options)))


def conversion_study(points, epsilon_hats, k, n_test, n_folds, repeats, rng, *, n_candidates=10, gamma=None,
                     n_jobs=1):
    """Fig. 10-11 analogue: AvRE in r and RMSE in k of Alg. 6 and Alg. 7 against the conversion budget.

    Folds seeded and run over ``n_jobs`` processes as in :func:`rn_study`.
    """
    gamma = 1e-3 * math.sqrt(points.shape[1]) if gamma is None else gamma
    return _over_folds(_conversion_fold, points.shape[0], n_folds, rng, n_jobs,
                       "conversion study (Figs. 10-11), folds", points, epsilon_hats, k, n_test, repeats,
                       n_candidates, gamma)


def _conversion_fold(fold, train, test, seed, points, epsilon_hats, k, n_test, repeats, n_candidates, gamma):
    """The rows of one fold of :func:`conversion_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    for repeat in range(repeats):
        queries = points[_sample(test, n_test, rng)]
        truth = knn_radii(points[train], queries, k)
        for epsilon_hat in epsilon_hats:
            found = {"interactive": convert_interactive(points[train], queries, k, epsilon_hat, rng,
                                                        n_candidates=n_candidates),
                     "non-interactive": convert_noninteractive(
                         private_uniform_grid(points[train], epsilon_hat, rng), queries, k, gamma, rng)}
            for method, radii in found.items():
                rows.append(dict(fold=fold, repeat=repeat, epsilon_hat=epsilon_hat, method=method,
                                 avre=avre(radii, truth), rmse=rmse_k(points[train], queries, radii, truth)))
    return rows


def knn_study(points, labels, n_labels, epsilons, ks, n_test, n_folds, repeats, rng, *, w=0.5, privbayes=None,
              n_jobs=1):
    """Fig. 12-14 analogue: accuracy of non-private, private-INT, private-NONINT and baseline k-NN against k.

    ``privbayes`` as in :func:`rn_study`: the method "PrivBayes" is the
    non-private k-NN classifier trained on an epsilon-DP PrivBayes copy of the
    fold's training data (k capped by the copy's size). Folds seeded and run over
    ``n_jobs`` processes as in :func:`rn_study`.
    """
    return _over_folds(_knn_fold, len(labels), n_folds, rng, n_jobs, "k-NN study (Figs. 12-14), folds",
                       points, labels, n_labels, epsilons, ks, n_test, repeats, w, privbayes)


def _knn_fold(fold, train, test, seed, points, labels, n_labels, epsilons, ks, n_test, repeats, w, privbayes):
    """The rows of one fold of :func:`knn_study`."""
    rng = np.random.default_rng(seed)
    rows = []
    data = (points[train], labels[train])
    synthetic = _privbayes_copies(*data, n_labels, epsilons, rng, privbayes)
    for repeat in range(repeats):
        chosen = _sample(test, n_test, rng)
        truth = labels[chosen]
        for k in ks:
            base = dict(fold=fold, repeat=repeat, k=k)
            plain = knn_classify_nonprivate(*data, points[chosen], k, rng, n_labels=n_labels)
            for epsilon in epsilons:
                predicted = {"non-private": plain,
                             "baseline": knn_classify_baseline(*data, points[chosen], k, epsilon, rng,
                                                               n_labels=n_labels)}
                for name, conversion in (("private-INT", "interactive"), ("private-NONINT", "noninteractive")):
                    predicted[name] = knn_classify_private(*data, points[chosen], k, epsilon, rng,
                                                           n_labels=n_labels, conversion=conversion, w=w)[0]
                if synthetic:
                    fake = synthetic[epsilon]
                    predicted["PrivBayes"] = knn_classify_nonprivate(*fake, points[chosen], min(k, len(fake[1])),
                                                                     rng, n_labels=n_labels)
                rows.extend(base | dict(epsilon=epsilon, method=name, accuracy=np.mean(label == truth))
                            for name, label in predicted.items())
    return rows


def diffprivlib_models():
    """diffprivlib's ``LogisticRegression`` and ``GaussianNB`` (IBM's official package, 0.6.6).

    diffprivlib 0.6.6 passes ``multi_class`` to scikit-learn's
    ``LogisticRegression``, which scikit-learn 1.8 removed; that is why
    scikit-learn is pinned to 1.7.2 (the README says so).
    """
    from diffprivlib.models import GaussianNB, LogisticRegression

    return LogisticRegression, GaussianNB


def other_classifiers_study(points, labels, n_labels, epsilons, k, n_test, n_folds, repeats, rng, *,
                            conversion="noninteractive", n_jobs=1):
    """Fig. 15 analogue: private k-NN (Alg. 5) against diffprivlib's logistic regression and naive Bayes.

    The baselines get the feature bounds [0, 1] (and row norm ``sqrt(d)``)
    as public knowledge, so they spend no budget on them and emit no warning.
    Folds seeded and run over ``n_jobs`` processes as in :func:`rn_study`.
    """
    return _over_folds(_other_classifiers_fold, len(labels), n_folds, rng, n_jobs,
                       "diffprivlib comparison (Fig. 15), folds", points, labels, n_labels, epsilons, k, n_test,
                       repeats, conversion)


def _other_classifiers_fold(fold, train, test, seed, points, labels, n_labels, epsilons, k, n_test, repeats,
                            conversion):
    """The rows of one fold of :func:`other_classifiers_study`."""
    LogisticRegression, GaussianNB = diffprivlib_models()
    rng = np.random.default_rng(seed)
    dimension = points.shape[1]
    rows = []
    for repeat in range(repeats):
        chosen = _sample(test, n_test, rng)
        truth = labels[chosen]
        for epsilon in epsilons:
            model_seed = int(rng.integers(2**31))
            models = {"DP logistic regression": LogisticRegression(
                          epsilon=epsilon, data_norm=math.sqrt(dimension), random_state=model_seed),
                      "DP Gaussian naive Bayes": GaussianNB(
                          epsilon=epsilon, bounds=(np.zeros(dimension), np.ones(dimension)),
                          random_state=model_seed)}
            with warnings.catch_warnings():  # diffprivlib passes options SciPy 1.17 deprecates
                warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*L-BFGS-B.*")
                predicted = {name: model.fit(points[train], labels[train]).predict(points[chosen])
                             for name, model in models.items()}
            predicted["private k-NN (ours)"] = knn_classify_private(
                points[train], labels[train], points[chosen], k, epsilon, rng, n_labels=n_labels,
                conversion=conversion)[0]
            rows.extend(dict(fold=fold, repeat=repeat, epsilon=epsilon, method=name,
                             accuracy=np.mean(label == truth)) for name, label in predicted.items())
    return rows


def summarize(table, by, value="accuracy"):
    """Mean, standard deviation, count and 95% confidence half-width of the mean per group.

    The half-width is Student's ``t_{0.975, n-1} sd / sqrt(n)`` over the n
    rows of a group (folds x repeats, often 5: the normal 1.96 would be far
    too narrow). One row gives no estimate of the spread, so every group must
    have n >= 2 (ValueError otherwise; no interval is invented).
    """
    grouped = table.groupby(by)[value]
    summary = grouped.agg(["mean", "std", "count"]).reset_index()
    if summary["count"].min() < 2:
        lonely = summary.loc[summary["count"] < 2].iloc[0]
        raise ValueError(f"every group of {value!r} needs at least 2 rows for a confidence interval, "
                         f"got {int(lonely['count'])} in group {lonely[by].to_dict() if isinstance(by, list) else lonely[by]}")
    summary["ci95"] = stats.t.ppf(0.975, summary["count"] - 1) * summary["std"] / np.sqrt(summary["count"])
    return summary


def paired_difference(table, method_a, method_b, by, value="accuracy", pair=("fold", "repeat")):
    """Paired comparison of two methods across folds: does ``method_a`` beat ``method_b``?

    Within each group of ``by`` (e.g. dataset and epsilon), the rows of the two methods are
    matched on ``pair`` (the same fold and repeat: the same training data and test batch), and
    the differences a - b are summarized: their mean, Student-t 95% half-width, the two-sided
    p-value of the paired t test, the number of pairs and how many of them a wins. A group with
    fewer than 2 pairs raises ValueError (no interval from one pair).
    """
    import pandas as pd

    by = [by] if isinstance(by, str) else list(by)
    keys = by + list(pair)
    left = table[table.method == method_a].set_index(keys)[value]
    right = table[table.method == method_b].set_index(keys)[value]
    if left.index.has_duplicates or right.index.has_duplicates:
        raise ValueError(f"pair={pair!r} must identify one row per method within each group of by={by!r}")
    difference = (left - right).dropna().rename("difference").reset_index()
    rows = []
    for group, part in difference.groupby(by):
        values = part["difference"].to_numpy(dtype=float)
        if values.size < 2:
            raise ValueError(f"group {group} has {values.size} pair(s) of {method_a!r} and {method_b!r}; need >= 2")
        sd = values.std(ddof=1)
        half = stats.t.ppf(0.975, values.size - 1) * sd / np.sqrt(values.size)
        p_value = float(stats.ttest_1samp(values, 0.0).pvalue) if sd > 0 else (0.0 if values.mean() else 1.0)
        rows.append(dict(zip(by, group if isinstance(group, tuple) else (group,))) |
                     dict(difference=values.mean(), ci95=half, p_value=p_value, pairs=values.size,
                          wins=int(np.sum(values > 0))))
    return pd.DataFrame(rows)
