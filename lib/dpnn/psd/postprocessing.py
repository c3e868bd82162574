"""The linear-time OLS post-processing of Cormode et al. (§V, Lemma 4, Theorem 5),
consistency and pruning."""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, positive_int

from . import budgets, decomposition

__all__ = ["ols", "is_consistent", "prune"]


# --- OLS post-processing (§V, Lemma 4, Theorem 5) -------------------------------------


def ols(counts, epsilons, fanout=4):
    """The OLS estimate of Definition 3 by the three linear-time phases after Lemma 4.

    ``counts[d]`` are the noisy counts at depth ``d`` of a complete tree of fanout
    ``f`` (children of ``j``: ``f j .. f j + f - 1``); ``epsilons[i]`` the Laplace
    budget of level ``i`` (0 = leaves). Returns ``beta`` in the same layout: the
    consistent counts (each parent equals the sum of its children) minimizing
    ``sum_v epsilon_v^2 (Y_v - beta_v)^2``. Each phase is one vectorized pass per
    level, so the cost is linear in the number of nodes (Theorem 5).
    Post-processing of a DP release: no privacy cost.
    """
    fanout = positive_int(fanout, "fanout", minimum=2)
    counts = tuple(
        finite_array(c, f"counts[{d}]", ndim=(1,)) for d, c in enumerate(counts)
    )
    height = len(counts) - 1
    for d, c in enumerate(counts):
        if c.shape != (fanout**d,):
            raise ValueError(
                f"counts[{d}] must have fanout^{d} = "
                f"{fanout**d} entries, got {c.shape[0]}"
            )
    eps2 = budgets.check_level_epsilons(epsilons, height) ** 2
    # epsilon^2 of each depth
    weight = [eps2[height - d] for d in range(height + 1)]
    e = np.cumsum(float(fanout) ** np.arange(height + 1) * eps2)  # E_l, l = level
    # Phase I: alpha_u = alpha_par(u) + eps_h(u)^2 Y_u, top-down; Z_leaf = alpha_leaf.
    alpha = weight[0] * counts[0]
    for d in range(1, height + 1):
        alpha = np.repeat(alpha, fanout) + weight[d] * counts[d]
    # Phase II: Z_v = sum of Z over the children, bottom-up.
    z = [alpha]
    for _ in range(height):
        z.append(decomposition.sum_children(z[-1], fanout))
    z = z[::-1]
    # Phase III: beta_v = (Z_v - f^h(v) F_v) / E_h(v), F_v = F_par + beta_par eps_par^2,
    # top-down.
    beta = [z[0] / e[height]]
    f_acc = np.zeros(1)
    for d in range(1, height + 1):
        f_acc = np.repeat(f_acc + beta[-1] * weight[d - 1], fanout)
        level = height - d
        beta.append((z[d] - float(fanout) ** level * f_acc) / e[level])
    return tuple(beta)


def is_consistent(counts, fanout=4, rtol=1e-9, atol=1e-6) -> bool:
    """True if every parent count equals the sum of its children's (Definition 3)."""
    return all(
        np.allclose(
            counts[d],
            decomposition.sum_children(counts[d + 1], fanout),
            rtol=rtol,
            atol=atol,
        )
        for d in range(len(counts) - 1)
    )


def prune(tree: decomposition.PSD, threshold) -> decomposition.PSD:
    """Pruning of §VII: cut the subtree below every node whose (post-processed) count
    is below ``threshold``.

    The decision reads only released counts, so it is post-processing (no privacy
    cost). A cut node becomes a leaf and is answered with the uniformity assumption.
    """
    threshold = float(finite_array(threshold, "threshold", ndim=(0,)))
    leaf, active = [], np.ones(1, dtype=bool)
    for d, c in enumerate(tree.counts):
        stop = active & ((c < threshold) if d < tree.height else True)
        leaf.append(stop)
        active = np.repeat(active & ~stop, tree.fanout)
    return decomposition.PSD(
        box=tree.box,
        counts=tree.counts,
        epsilons=tree.epsilons,
        boxes=tree.boxes,
        median_epsilon=tree.median_epsilon,
        leaf=tuple(leaf),
        name=tree.name,
        fanout=tree.fanout,
    )
