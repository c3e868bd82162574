"""DP-TT's turn probabilities as a function of the query's location, and the law of a
path.

At an inner node of the leaf-only k-d tree the client turns right with probability
``expit(scale * (u_R - u_L))``, ``scale = epsilon_level / (2 sensitivity)`` (thesis Alg.
12): for CMP (Alg. 14) ``u_R - u_L`` is -1 if the query lies below the node's split on
its axis and +1 otherwise (sensitivity 1); for DIS (Alg. 13) it is the query's distance
to the left child's value minus its distance to the right child's value. These are the
laws :func:`dpnn.traversal.dptt` samples (a test checks the leaf frequencies against
them). A basic transcript is the root-to-leaf path; E stops at the first node of height
at most ``s`` (Alg. 16). The probability of a transcript is the product of its turns'
probabilities, computed here in logs so that no path underflows.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit

from dpnn._validation import finite_array, positive_finite
from dpnn.trees import KDTree

__all__ = [
    "schedule_of",
    "parents",
    "turn_log_probabilities",
    "path_nodes",
    "path_log_law",
    "stop_height_of",
]


def schedule_of(tree: KDTree, epsilon) -> np.ndarray:
    """Per-level budgets: a number for every level, or one per level (length the tree
    height)."""
    height = max(tree.tree_height, 1)
    if np.ndim(epsilon) == 0:
        return np.full(height, positive_finite(epsilon, "epsilon"))
    schedule = finite_array(epsilon, "epsilon", ndim=(1,))
    if len(schedule) != tree.tree_height or np.any(schedule <= 0):
        raise ValueError(
            f"epsilon must be a number > 0 or {tree.tree_height} numbers > 0 "
            f"(one per tree level), got {len(schedule)} values"
        )
    return schedule


def stop_height_of(variant: str) -> int:
    """The height at which a transcript ends: 0 for ``basic`` and ``N<B>``, s for
    ``E<s>``.

    N releases the B nearest neighbours of the leaf found: the server does that
    itself, so the transcript it sees is basic's.
    """
    import re

    match = re.fullmatch(r"basic|N(\d+)|E(\d+)", str(variant))
    if not match:
        raise ValueError(f"variant must be basic, E<s> or N<B>, got {variant!r}")
    return int(match.group(2)) if match.group(2) else 0


def _check_utility(utility, sensitivity):
    if utility == "cmp":
        if sensitivity not in (None, 1, 1.0):
            raise ValueError(
                f"sensitivity of the CMP utility is 1; got {sensitivity!r}"
            )
        return 1.0
    if utility == "dis":
        if sensitivity is None:
            raise ValueError(
                "sensitivity must be given for the DIS utility (a number > 0)"
            )
        return positive_finite(sensitivity, "sensitivity")
    raise ValueError(f"utility must be 'cmp' or 'dis', got {utility!r}")


def parents(tree: KDTree) -> np.ndarray:
    """The parent of every node (-1 for the root)."""
    parent = np.full(tree.n_nodes, -1, dtype=np.intp)
    inner = np.flatnonzero(tree.left >= 0)
    parent[tree.left[inner]] = inner
    parent[tree.right[inner]] = inner
    return parent


def _gap(tree, nodes, locations, utility):
    """``u_R - u_L`` at each node (rows) for each location (columns)."""
    if utility == "cmp":
        below = locations[:, tree.axis[nodes]].T < tree.split[nodes][:, None]
        return np.where(below, -1.0, 1.0)
    return _distance(tree, tree.left[nodes], locations) - _distance(
        tree, tree.right[nodes], locations
    )


def _distance(tree, children, locations):
    """Euclidean distance from each child's value (rows) to each location
    (columns)."""
    return _distances(tree.points[tree.point[children]], locations)


def _distances(values, locations):
    """Euclidean distance from each of ``values`` (rows) to each location (columns),
    summed axis by axis (no (values, locations, d) array)."""
    squared = np.zeros((len(values), len(locations)))
    for k in range(locations.shape[1]):
        squared += np.square(values[:, k, None] - locations[None, :, k])
    return np.sqrt(squared)


def turn_log_probabilities(
    tree: KDTree, nodes, locations, epsilon, utility: str, sensitivity=None
):
    """``(log Pr[left], log Pr[right])`` at inner ``nodes`` for a query at each of
    ``locations``.

    ``epsilon`` is the budget of each node's level (a number, or one per node).
    Returns two arrays of shape (len(nodes), len(locations)).
    """
    sensitivity = _check_utility(utility, sensitivity)
    nodes = np.asarray(nodes, dtype=np.intp)
    if np.any(tree.left[nodes] < 0):
        raise ValueError("nodes must be inner nodes of the tree")
    x = finite_array(locations, "locations", ndim=(2,))
    scale = np.broadcast_to(np.asarray(epsilon, dtype=float), nodes.shape)[:, None] / (
        2 * sensitivity
    )
    if utility == "cmp":  # z = +-scale: log_expit of two values per node
        below = x[:, tree.axis[nodes]].T < tree.split[nodes][:, None]
        up, down = log_expit(scale), log_expit(-scale)
        return np.where(below, up, down), np.where(below, down, up)
    z = scale * _gap(tree, nodes, x, utility)
    return log_expit(-z), log_expit(z)


def path_nodes(tree: KDTree, ends, parent=None) -> tuple[np.ndarray, np.ndarray]:
    """The path from the root to each node of ``ends``: ``(nodes, right)``, shape
    (len(ends), depth).

    ``nodes[i, l]`` is the inner node at depth l on the path to ``ends[i]`` (-1
    past its end) and ``right[i, l]`` whether the path turned right there.
    """
    parent = parents(tree) if parent is None else parent
    ends = np.asarray(ends, dtype=np.intp)
    depth = int(tree.depth[ends].max()) if ends.size else 0
    nodes = np.full((len(ends), depth), -1, dtype=np.intp)
    right = np.zeros((len(ends), depth), dtype=bool)
    current = ends.copy()
    rows = np.arange(len(ends))
    while True:
        up = parent[current]
        live = up >= 0
        if not live.any():
            return nodes, right
        level = tree.depth[up[live]]
        nodes[rows[live], level] = up[live]
        right[rows[live], level] = current[live] == tree.right[up[live]]
        current = np.where(live, up, current)


def path_log_law(
    tree: KDTree,
    locations,
    epsilon,
    utility: str,
    sensitivity=None,
    stop_height: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The exact law of the transcript for a query at each location:
    ``(ends, log_probabilities)``.

    ``ends`` are the nodes a transcript can end at (the leaves for basic; the
    first node of height at most ``stop_height`` on each path for E), and
    ``log_probabilities[j, i]`` the log-probability that a query at
    ``locations[j]`` ends at ``ends[i]``. Computed level by level over every
    node of the tree at once: O(nodes x locations).
    """
    sensitivity = _check_utility(utility, sensitivity)
    schedule = schedule_of(tree, epsilon)
    x = finite_array(locations, "locations", ndim=(1, 2))
    x = x.reshape(1, -1) if x.ndim == 1 else x
    if x.shape[1] != tree.dimension:
        raise ValueError(
            f"locations must have dimension {tree.dimension}, got shape {x.shape}"
        )
    if (
        isinstance(stop_height, bool)
        or int(stop_height) != stop_height
        or stop_height < 0
    ):
        raise ValueError(f"stop_height must be an integer >= 0, got {stop_height!r}")
    log_p = np.zeros((tree.n_nodes, len(x)))
    levels, ends = _walk_of(tree, int(stop_height))
    for level, (nodes, left, right, axis, split, values) in enumerate(levels):
        if not nodes.size:
            continue
        scale = schedule[level] / (2 * sensitivity)
        if utility == "cmp":  # z = +-scale: log_expit of two values per level
            below = x[:, axis].T < split[:, None]
            up, down = log_expit(scale), log_expit(-scale)
            to_left, to_right = np.where(below, up, down), np.where(below, down, up)
        else:
            z = scale * (_distances(values[0], x) - _distances(values[1], x))
            to_left, to_right = log_expit(-z), log_expit(z)
        log_p[left] = log_p[nodes] + to_left
        log_p[right] = log_p[nodes] + to_right
    return ends, log_p[ends].T


def _walk_of(tree: KDTree, stop_height: int):
    """``(levels, ends)``: per depth, the inner nodes a transcript turns at with
    their children, axes, splits and children's values; and the nodes it can end
    at. Derived once per tree and stop height (kept in the tree's cache)."""
    key = ("adversary walk", stop_height)
    if key not in tree.cache:
        walking = (tree.left >= 0) & (tree.height > stop_height)
        by_depth = np.argsort(tree.depth, kind="stable")
        bounds = np.searchsorted(
            tree.depth[by_depth], np.arange(int(tree.depth.max()) + 2)
        )
        levels = []
        for level in range(len(bounds) - 1):
            nodes = by_depth[bounds[level] : bounds[level + 1]]
            nodes = nodes[walking[nodes]]
            left, right = tree.left[nodes], tree.right[nodes]
            values = (tree.points[tree.point[left]], tree.points[tree.point[right]])
            levels.append(
                (nodes, left, right, tree.axis[nodes], tree.split[nodes], values)
            )
        parent = parents(tree)
        ends = np.flatnonzero(
            ~walking & ((parent < 0) | walking[np.maximum(parent, 0)])
        )
        tree.cache[key] = (levels, ends)
    return tree.cache[key]
