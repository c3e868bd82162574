"""The flat layout of a PSD's tree and the released-tree container (§III).

A tree of height ``h`` and fanout ``f`` is a tuple of ``h + 1`` flat arrays, one per
depth; the children of node ``j`` are nodes ``f j .. f j + f - 1`` one depth below.
Every builder returns a :class:`PSD`, and the post-processing and queries read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["PSD", "sum_children"]


def sum_children(values, fanout):
    """The parents' values of one depth: the sums of ``values`` over each run of
    ``fanout`` consecutive children (node ``j``'s children are ``f j .. f j + f - 1``).
    """
    return values.reshape(-1, fanout).sum(axis=1)


@dataclass(frozen=True)
class PSD:
    """A released private spatial decomposition.

    ``counts[d]`` are the released counts of the nodes at depth ``d`` (children of
    node ``j`` are ``4 j .. 4 j + 3``); ``epsilons[i]`` the count budget of level
    ``i`` (0 = leaves); ``median_epsilon`` the budget spent on splits along a path
    (0 for a quadtree); ``boxes[d]`` the node rectangles, or ``None`` for a
    quadtree over ``box`` (then queries use the grid directly). ``leaf[d]`` marks
    the nodes that are leaves after pruning (``None``: only the last depth).
    """

    box: np.ndarray
    counts: tuple
    epsilons: np.ndarray
    boxes: tuple | None = None
    median_epsilon: float = 0.0
    leaf: tuple | None = None
    name: str = "quadtree"
    fanout: int = field(default=4)

    @property
    def height(self) -> int:
        return len(self.counts) - 1

    @property
    def epsilon(self) -> float:
        """Total privacy budget along any root-to-leaf path (Lemma 1)."""
        return float(np.sum(self.epsilons) + self.median_epsilon)
