"""The region overlap graph and the proposed batch classifier (Def. 10, Alg. 3).

Two test regions overlap when their balls intersect; a training instance lies in a
clique of overlapping regions at most, so a connected component's budget divided by
its maximum clique size makes the whole batch ``epsilon``-DP (Lemmas 1-3, Thm 2).
The clique number is found exactly (a bitset branch and bound) with a greedy bound
as a check. :func:`rn_classify_baseline` gives every instance ``epsilon / |X|``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy.spatial import cKDTree

from dpnn import mechanisms
from dpnn._validation import finite_array, generator, positive_finite

from . import rn
from .inputs import check_batch, check_radii, remember_last
from .rn import label_counts_unchecked, noisy_argmax

__all__ = [
    "OVERLAP_SLACK",
    "region_overlap_graph",
    "max_clique_size",
    "overlap_components",
    "overlap_depth",
    "RNResult",
    "rn_classify_batch",
    "rn_classify_baseline",
]


#: Slack of the overlap test, relative to ``r_i + r_j`` and absolute in units of the
#: coordinates' size.
OVERLAP_SLACK = 1e-9


def region_overlap_graph(queries, radii):
    """The region overlap graph (Def. 10): vertex i per test instance, edge iff
    ``|x_i - x_j| <= r_i + r_j``.

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
    radii = check_radii(radii, queries.shape[0])
    graph = nx.Graph()
    graph.add_nodes_from(range(queries.shape[0]))
    graph.add_edges_from(map(tuple, _overlap_pairs(queries, radii)))
    return graph


def _overlap_pairs(queries, radii):
    """The edges (i, j), i < j, of :func:`region_overlap_graph` as an (m, 2) array, for
    checked inputs."""
    # rounding of coordinates, independent of r
    absolute = OVERLAP_SLACK * (1.0 + np.abs(queries).max())
    # The search radius exceeds every threshold below by a further slack, covering
    # query_pairs' own rounding.
    reach = 2.0 * radii.max() * (1.0 + 2.0 * OVERLAP_SLACK) + 2.0 * absolute
    pairs = cKDTree(queries).query_pairs(reach, output_type="ndarray")
    if not pairs.size:
        return pairs.reshape(0, 2)
    distance = np.linalg.norm(queries[pairs[:, 0]] - queries[pairs[:, 1]], axis=1)
    keep = (
        distance
        <= (radii[pairs[:, 0]] + radii[pairs[:, 1]]) * (1.0 + OVERLAP_SLACK) + absolute
    )
    return pairs[keep]


def _greedy_clique_size(graph) -> int:
    """Size of a clique grown greedily by degree: a lower bound on MCS."""
    candidates = set(graph.nodes)
    size = 0
    while candidates:
        best = max(
            candidates, key=lambda v: (len(candidates.intersection(graph[v])), -v)
        )
        candidates = candidates.intersection(graph[best])
        size += 1
    return size


def _clique_number(adjacency) -> int:
    """Exact clique number of the graph whose vertex i has neighbours ``adjacency[i]``
    (a bitset int).

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
    """MCS of the subgraph on ``nodes``, a union of connected components of ``graph``
    (no neighbour outside)."""
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
    """:func:`max_clique_size` as it was (networkx's branch and bound); the reference of
    the tests."""
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
    """Connected components of the region overlap graph with their MCS, as (vertex list,
    MCS) pairs."""
    components = []
    for nodes in nx.connected_components(graph):
        nodes = sorted(nodes)
        components.append((nodes, _component_clique_number(graph, nodes)))
    return components


@remember_last
def _batch_components(queries, radii):
    """``overlap_components(region_overlap_graph(queries, radii))``, remembered for the
    next call on the same batch.

    Computed from the edge array without building a networkx graph: the components in
    the same order (by smallest vertex), each vertex list sorted, and each MCS from the
    same bitsets, so the same values (tests/test_fast_paths.py).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = queries.shape[0]
    pairs = _overlap_pairs(queries, radii)
    _, owner = connected_components(
        coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n)),
        directed=False,
    )
    neighbours = [[] for _ in range(n)]
    for i, j in pairs.tolist():
        neighbours[i].append(j)
        neighbours[j].append(i)
    components, seen = [], {}
    # components in the order of their smallest vertex, as networkx lists them
    for v in range(n):
        seen.setdefault(owner[v], []).append(v)
    for nodes in seen.values():
        index = {v: i for i, v in enumerate(nodes)}
        adjacency = [sum(1 << index[u] for u in neighbours[v]) for v in nodes]
        complete = all(bits.bit_count() == len(nodes) - 1 for bits in adjacency)
        components.append(
            (nodes, len(nodes) if complete else _clique_number(adjacency))
        )
    return components


def overlap_depth(queries, radii, locations):
    """For each location, the number of test regions containing it (what adding a point
    there changes).

    A training instance added at ``p`` changes the count of its label for
    exactly these test instances, so the largest depth is the true sensitivity
    of the batch; Lemma 3 says it is at most the MCS of the component.
    """
    queries = finite_array(queries, "queries", ndim=(2,))
    radii = check_radii(radii, queries.shape[0])
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
    points, labels, n_labels, queries, radii = check_batch(
        points, labels, queries, radii, n_labels
    )
    counts = label_counts_unchecked(points, labels, n_labels, queries, radii)
    components = _batch_components(queries, radii)
    component = np.empty(counts.shape[0], dtype=np.intp)
    mcs = np.array([size for _, size in components], dtype=np.intp)
    for index, (nodes, _) in enumerate(components):
        component[nodes] = index
    epsilons = epsilon / mcs[component]
    return RNResult(
        noisy_argmax(counts, epsilons, rng), epsilons, component, divisors=mcs
    )


def rn_classify_baseline(
    points, labels, queries, radii, epsilon, rng, *, n_labels, mechanism="laplace"
):
    """The baseline private r-N classifier (§3.1): Alg. 1 or 2 on each instance at
    ``epsilon / |X|``.

    Privacy: sequential composition of |X| mechanisms, each ``epsilon / |X|``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    rng = generator(rng)
    counts = rn.label_counts(points, labels, queries, radii, n_labels)
    share = epsilon / counts.shape[0]
    if mechanism == "laplace":
        predicted = noisy_argmax(counts, share, rng)
    elif mechanism == "exponential":
        predicted = mechanisms.exponential(counts, share, 1.0, rng)
    else:
        raise ValueError(
            f"mechanism must be 'laplace' or 'exponential', got {mechanism!r}"
        )
    n = counts.shape[0]
    return RNResult(
        predicted, np.full(n, share), np.zeros(n, dtype=np.intp), divisors=np.array([n])
    )
