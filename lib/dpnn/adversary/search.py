"""The search for the pair of queries whose DP-TT transcripts lose the most.

A search, not a proof: it scores pairs by their exact epsilon
(:func:`dpnn.adversary.transcript.pair_epsilon`) and is set against the certified
bound that holds for every pair (:func:`dpnn.adversary.certified.certified_epsilon`).
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, nonnegative_finite
from dpnn.adversary.certified import certified_epsilon, turn_loss_bounds
from dpnn.adversary.transcript import exact_epsilon
from dpnn.adversary.turns import path_log_law
from dpnn.trees import KDTree

__all__ = ["worst_pair_at_distance"]

#: Pairs whose transcript laws are computed in one pass over the tree.
_BATCH = 8
#: A pair within this relative distance of the certified bound has reached it: the
#: search stops (no pair can lose more).
_REACHED = 1e-9


def _fit(box, centre, direction, distance):
    """The pair at ``distance`` along ``direction`` about ``centre``, its centre moved
    the least to fit the domain; None when the direction does not fit."""
    norm = np.linalg.norm(direction)
    if not np.isfinite(norm) or norm == 0:
        return None
    half = np.abs(direction / norm) * distance / 2
    if np.any(2 * half > box[:, 1] - box[:, 0]):
        return None
    centre = np.clip(centre, box[:, 0] + half, box[:, 1] - half)
    step = direction / norm * distance / 2
    return centre - step, centre + step


def _directions(box):
    """Each axis and each diagonal of the domain (one sign per diagonal)."""
    d, widths = box.shape[0], box[:, 1] - box[:, 0]
    signs = np.array(np.meshgrid(*[[1.0, -1.0]] * d, indexing="ij")).reshape(d, -1).T
    return list(np.eye(d)) + [s * widths for s in signs if s[0] > 0]


def _structured_pairs(tree, box, distance, bounds, depth):
    """Seeds from the tree: the domain's diagonals (centred, and from each corner),
    and for the nodes of depth at most ``depth`` and those with the largest turn
    bounds, pairs about each split (across it, and along each diagonal) and, for
    DIS, along the line between the children's values."""
    from dpnn.trees import cell_boxes

    low, high = cell_boxes(tree, box)
    centre, directions = (box[:, 0] + box[:, 1]) / 2, _directions(box)
    d = len(box)
    seeds = [(centre, u) for u in directions]
    corners = np.array(np.meshgrid(*box, indexing="ij")).reshape(len(box), -1).T
    for corner in corners:
        inward = centre - corner
        seeds.append((corner + inward / np.linalg.norm(inward) * distance / 2, inward))
    inner = np.flatnonzero((tree.left >= 0) & (bounds > 0))
    top = inner[np.argsort(-bounds[inner], kind="stable")[:4]]
    shallow = inner[tree.depth[inner] <= depth]
    for n in np.unique(np.concatenate([shallow, top])):
        middle = (low[n] + high[n]) / 2
        middle[tree.axis[n]] = tree.split[n]
        seeds += [(middle, u) for u in directions]
        values = tree.points[tree.point[[tree.left[n], tree.right[n]]]]
        seeds.append(((values[0] + values[1]) / 2, values[1] - values[0]))
        for child in (tree.left[n], tree.right[n]):  # where its split crosses a child's
            if tree.left[child] >= 0 and tree.axis[child] != tree.axis[n]:
                crossing = middle.copy()
                crossing[tree.axis[child]] = tree.split[child]
                seeds += [(crossing, u) for u in directions[d:]]
    return seeds


def _scores(tree, pairs, epsilon, utility, delta, sensitivity, stop_height):
    """The exact epsilon at ``delta`` of each pair, the laws computed
    :data:`_BATCH` pairs at a time (one pass over the tree per batch)."""
    values = []
    for start in range(0, len(pairs), _BATCH):
        batch = pairs[start : start + _BATCH]
        _, log_p = path_log_law(
            tree,
            np.vstack([np.vstack(p) for p in batch]),
            epsilon,
            utility,
            sensitivity,
            stop_height,
        )
        values += [
            exact_epsilon(log_p[2 * k], log_p[2 * k + 1], delta)
            for k in range(len(batch))
        ]
    return np.array(values)


def worst_pair_at_distance(
    tree: KDTree,
    domain,
    distance,
    epsilon,
    utility,
    delta,
    rng,
    sensitivity=None,
    candidates: int = 16,
    stop_height: int = 0,
    refine: int = 2,
    depth: int = 2,
):
    """A pair at ``distance`` whose transcripts lose the most, and its actual epsilon.

    Seeds: the structured pairs of the tree (the domain's diagonals, centred and
    from each corner; pairs about the split of every node of depth at most
    ``depth`` and of the four nodes with the largest turn-loss bounds
    :func:`dpnn.adversary.certified.turn_loss_bounds`, across the split and
    along each diagonal, and along the line between the children's values) and
    ``candidates`` random pairs (a uniform direction that fits, then a uniform
    first point that keeps both inside). Each seed is scored by its exact
    epsilon (:func:`pair_epsilon`); the ``refine`` best are refined by
    Nelder-Mead on the exact epsilon over the pair's centre and direction, at two
    scales (a fifth, a twentieth and a hundredth of the domain). The search stops
    early once a pair reaches :func:`dpnn.adversary.certified.certified_epsilon`
    (then no pair loses more; for CMP the bound is the exact worst case). A
    search, not a proof: returns ``(x, x', epsilon)`` of the worst pair found; set
    it against the certified bound.
    """
    from scipy.optimize import minimize

    box = finite_array(domain, "domain", ndim=(2,))
    distance = nonnegative_finite(distance, "distance")
    d, widths = box.shape[0], box[:, 1] - box[:, 0]
    if distance > np.linalg.norm(widths):
        raise ValueError(
            "distance must be at most the domain's diameter "
            f"{np.linalg.norm(widths)}, got {distance}"
        )

    def score(p):
        return _scores(tree, [p], epsilon, utility, delta, sensitivity, stop_height)[0]

    bounds = turn_loss_bounds(tree, epsilon, utility, sensitivity, stop_height)
    ceiling = certified_epsilon(tree, epsilon, utility, delta, sensitivity, stop_height)
    seeds = _structured_pairs(tree, box, distance, bounds, depth)
    for _ in range(candidates):
        for _ in range(1000):  # a uniform direction that fits, then a start in it
            direction = rng.standard_normal(d)
            step = direction / np.linalg.norm(direction) * distance
            if np.all(np.abs(step) <= widths):
                break
        else:  # (almost) no direction fits: only the diagonals, already seeded
            break
        start = rng.uniform(
            box[:, 0] + np.maximum(-step, 0), box[:, 1] - np.maximum(step, 0)
        )
        seeds.append((start + step / 2, step))
    pairs = [p for c, u in seeds if (p := _fit(box, c, u, distance)) is not None]
    values = _scores(tree, pairs, epsilon, utility, delta, sensitivity, stop_height)
    best = int(np.argmax(values))
    best_pair, best_value = pairs[best], values[best]
    if best_value >= ceiling * (1 - _REACHED):  # no pair loses more: done
        return best_pair[0], best_pair[1], float(best_value)

    def objective(theta):
        p = _fit(box, box[:, 0] + theta[:d] * widths, theta[d:] * widths, distance)
        return np.inf if p is None else -score(p)

    for start in np.argsort(-values, kind="stable")[:refine]:
        a, b = pairs[start]
        theta = np.concatenate([((a + b) / 2 - box[:, 0]) / widths, (b - a) / widths])
        value = values[start]
        for scale in (0.2, 0.05, 0.01):
            simplex = theta + np.vstack([np.zeros(2 * d), scale * np.eye(2 * d)])
            found = minimize(
                objective,
                theta,
                method="Nelder-Mead",
                options={"initial_simplex": simplex, "maxfev": 20 * d, "xatol": 0},
            )
            if -found.fun > value:
                theta, value = found.x, -found.fun
            if value >= ceiling * (1 - _REACHED):
                break
        if value > best_value:
            best_value = value
            best_pair = _fit(
                box, box[:, 0] + theta[:d] * widths, theta[d:] * widths, distance
            )
    return best_pair[0], best_pair[1], float(best_value)
