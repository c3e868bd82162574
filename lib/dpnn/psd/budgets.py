"""Per-level budgets of a PSD: uniform and geometric (Cormode et al. Lemma 3), and the
worst-case error they give."""

from __future__ import annotations

import math

import numpy as np

from dpnn._validation import finite_array, positive_finite, positive_int

__all__ = [
    "MAX_QUADTREE_HEIGHT",
    "uniform_budget",
    "geometric_budget",
    "worst_case_error",
    "worst_case_error_closed_form",
    "check_level_epsilons",
    "per_level_budget",
]


MAX_QUADTREE_HEIGHT = 15


# --- budgets (§IV-B) ------------------------------------------------------------------


def _height(height, minimum=0):
    return positive_int(height, "height", minimum=minimum)


def uniform_budget(epsilon, height) -> np.ndarray:
    """Uniform budget ``epsilon_i = epsilon / (h + 1)`` for levels
    ``i = 0 (leaves), ..., h (root)``.

    Privacy: every root-to-leaf path crosses one node per level, so Laplace counts
    with these budgets compose to ``epsilon``-DP (Lemma 1).
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    return np.full(height + 1, epsilon / (height + 1))


def geometric_budget(epsilon, height, fanout=4) -> np.ndarray:
    """Geometric budget of Lemma 3: ``epsilon_i`` proportional to ``2^((h - i)/3)``,
    summing to epsilon.

    Index ``i`` is the level (0 = leaves, ``h`` = root), so the leaves get the largest
    share and each level up gets ``2^(-1/3)`` times less. This minimizes the
    worst-case variance bound ``sum_i 2^(h-i) / epsilon_i^2`` of a quadtree query
    (Lemma 2 (i) and Cauchy-Schwarz). For general fanout ``f`` the same argument
    (``n_i`` grows by ``sqrt(f)`` per level in 2-D) gives ratio ``f^(1/6)``; ``f = 4``
    is the paper's case. The budgets sum to ``epsilon`` so the tree is ``epsilon``-DP.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    fanout = positive_int(fanout, "fanout", minimum=2)
    levels = np.arange(height + 1)
    weights = float(fanout) ** ((height - levels) / 6.0)
    return epsilon * weights / weights.sum()


def _max_nodes_per_level(height):
    """Lemma 2 (i) bound ``n_i <= 8 * 2^(h - i)`` for a quadtree, i = 0..h."""
    return 8.0 * 2.0 ** (height - np.arange(height + 1))


def worst_case_error(epsilons) -> float:
    """``Err(Q) = sum_i 2 n_i / epsilon_i^2`` (Eq. (1)) for the worst-case quadtree
    query of Lemma 2.

    ``epsilons[i]`` is the budget of level ``i`` (0 = leaves); ``n_i = 8 * 2^(h - i)``.
    """
    epsilons = finite_array(epsilons, "epsilons", ndim=(1,))
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    height = len(epsilons) - 1
    return float(np.sum(2.0 * _max_nodes_per_level(height) / epsilons**2))


def worst_case_error_closed_form(epsilon, height, budget) -> float:
    """The paper's closed forms of the worst-case error (§IV-B, Lemma 3), times
    ``16 / epsilon^2``.

    ``budget="uniform"``: ``16 (h + 1)^2 (2^(h+1) - 1) / epsilon^2``;
    ``budget="geometric"``: ``16 (2^((h+1)/3) - 1)^3 / (epsilon^2 (2^(1/3) - 1)^3)``.
    Fig. 2 plots these without the factor ``16 / epsilon^2``.
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    if budget == "uniform":
        core = (height + 1) ** 2 * (2.0 ** (height + 1) - 1)
    elif budget == "geometric":
        core = (2.0 ** ((height + 1) / 3) - 1) ** 3 / (2.0 ** (1 / 3) - 1) ** 3
    else:
        raise ValueError(f"budget must be 'uniform' or 'geometric', got {budget!r}")
    return 16.0 * core / epsilon**2


def check_level_epsilons(epsilons, height) -> np.ndarray:
    """The per-level budgets ``epsilons`` of a tree of height ``h`` as a float array,
    checked: ``h + 1`` finite numbers, all > 0 (``epsilons[i]`` is level ``i``'s, 0 =
    leaves); ValueError otherwise."""
    epsilons = finite_array(epsilons, "epsilons", ndim=(1,))
    if len(epsilons) != height + 1:
        raise ValueError(
            f"epsilons must have height + 1 = {height + 1} entries, got {len(epsilons)}"
        )
    if np.any(epsilons <= 0):
        raise ValueError(
            "epsilons must all be > 0 (a level with no budget has no count to weight)"
        )
    return epsilons


def per_level_budget(budget, epsilon, height) -> np.ndarray:
    """The per-level budgets (leaves first) of a tree of height ``h`` at total
    ``epsilon``: ``budget`` is ``"uniform"``, ``"geometric"`` (Lemma 3) or an array of
    ``h + 1`` budgets > 0 summing to ``epsilon`` (checked), returned as floats.

    Privacy: Laplace counts at these budgets compose to ``epsilon``-DP (Lemma 1).
    """
    epsilon = positive_finite(epsilon, "epsilon")
    height = _height(height)
    if isinstance(budget, str):
        if budget == "uniform":
            return uniform_budget(epsilon, height)
        if budget == "geometric":
            return geometric_budget(epsilon, height)
        raise ValueError(
            f"budget must be 'uniform', 'geometric' or an array, got {budget!r}"
        )
    epsilons = check_level_epsilons(budget, height)
    if not math.isclose(float(epsilons.sum()), epsilon, rel_tol=1e-9):
        raise ValueError(
            f"budget must sum to epsilon = {epsilon}, got {float(epsilons.sum())}"
        )
    return epsilons
