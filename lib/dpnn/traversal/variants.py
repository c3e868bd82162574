"""DP-TT's variants and utilities by name, their argument checks, and their privacy
ledger.

:func:`parse_variant` reads the thesis's names (basic, P<s>, E<s>, GS, N<B>, GS-N<B>);
:func:`em_calls_formula` counts the worst-case exponential-mechanism calls per tree
level of a variant (thesis §5.4), and :func:`dptt_ledger` charges them to an
accountant: the privacy every DP-TT run reports.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, positive_finite
from dpnn.accounting import Accountant
from dpnn.trees import KDTree

__all__ = [
    "dptt_ledger",
    "em_calls_formula",
    "parse_variant",
    "check_arguments",
    "check_schedule",
    "check_scale",
    "VARIANTS",
    "UTILITIES",
]

VARIANTS = ("basic", "parallel", "early", "greedy")
UTILITIES = ("dis", "cmp")


def check_schedule(tree: KDTree, epsilon) -> np.ndarray:
    """The per-level budgets of a run on ``tree``: ``epsilon`` repeated on every level
    if it is one number > 0, else ``epsilon`` itself, which must hold one number > 0
    per tree level (``tree.tree_height`` of them); ValueError otherwise."""
    if np.ndim(epsilon) == 0:
        return np.full(max(tree.tree_height, 1), positive_finite(epsilon, "epsilon"))
    schedule = finite_array(epsilon, "epsilon", ndim=(1,))
    if len(schedule) != tree.tree_height or np.any(schedule <= 0):
        raise ValueError(
            "epsilon must be a number > 0 or an "
            f"array of {tree.tree_height} numbers > 0 "
            f"(one per tree level), got {len(schedule)} values"
        )
    return schedule


def check_arguments(tree, queries, utility, sensitivity, variant, splits, neighborhood):
    """The arguments of :func:`dpnn.traversal.dptt` checked: ``(queries, sensitivity)``.

    ``queries`` come back as an (m, d) float array (a 1-D array is m queries of one
    coordinate) and ``sensitivity`` as a float (1 for CMP, which takes ``None``).
    ValueError unless ``tree`` is a leaf-only :class:`~dpnn.trees.KDTree` of dimension
    d, ``utility`` and ``variant`` are known, DIS has a sensitivity > 0, ``splits`` is
    between 1 and the tree height for P and E and 0 otherwise, and ``neighborhood`` is
    an integer between 0 and the number of points.
    """
    if not isinstance(tree, KDTree) or not tree.leaf_only:
        raise ValueError(
            "tree must be a leaf-only KDTree (dpnn.trees.build_tree(points, "
            "leaf_only=True))"
        )
    q = finite_array(queries, "queries", ndim=(1, 2))
    q = q.reshape(-1, 1) if q.ndim == 1 else q
    if q.shape[1] != tree.dimension:
        raise ValueError(
            f"queries must have dimension {tree.dimension} like the tree, got shape "
            f"{np.shape(queries)}"
        )
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    if utility == "dis":
        if sensitivity is None:
            raise ValueError(
                "sensitivity must be given for the DIS utility (a number > 0, e.g. 1e9)"
            )
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
            raise ValueError(
                f"splits must be between 1 and the tree height {tree.tree_height} "
                f"for variant {variant!r}, got {splits}"
            )
    elif splits != 0:
        raise ValueError(f"splits must be 0 for variant {variant!r}, got {splits}")
    if (
        isinstance(neighborhood, bool)
        or not isinstance(neighborhood, (int, np.integer))
        or not 0 <= neighborhood <= len(tree.points)
    ):
        raise ValueError(
            f"neighborhood must be an integer between 0 and {len(tree.points)}, got "
            f"{neighborhood!r}"
        )
    return q, sensitivity


def check_scale(schedule, sensitivity):
    """Raise ValueError unless every level's ``epsilon / (2 sensitivity)`` is finite
    (else equal utilities give NaN turns); return nothing."""
    with np.errstate(over="ignore"):
        scale = np.asarray(schedule) / (2.0 * sensitivity)
    if not np.all(np.isfinite(scale)):
        raise ValueError(
            f"epsilon / (2 * sensitivity) must be finite at every level, got "
            f"max epsilon {float(np.max(schedule))!r} / (2 * {sensitivity!r})"
        )


def parse_variant(name: str) -> dict:
    """The thesis's variant names as ``dptt`` keywords: ``"basic"``, ``"P4"``, ``"E8"``,
    ``"GS"``, ``"N20"``, ``"GS-N20"``.

    ``parse_variant("GS-N20")`` is
    ``{"variant": "greedy", "splits": 0, "neighborhood": 20}``.
    """
    import re

    match = re.fullmatch(r"(basic|P(\d+)|E(\d+)|GS|N(\d+)|GS-N(\d+))", str(name))
    if not match:
        raise ValueError(
            "name must be basic, P<s>, E<s>, GS, N<B> "
            f"or GS-N<B> (thesis §5.4), got {name!r}"
        )
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
    """Worst-case exponential-mechanism calls per tree level for one query (thesis
    §5.4).

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


def dptt_ledger(
    schedule, utility: str, variant: str = "basic", splits: int = 0
) -> Accountant:
    """The accountant :func:`dptt` returns, without running it: the worst-case calls of
    a variant.

    ``schedule`` holds the per-step budget of each tree level (its length is
    the tree height). A CMP step is charged as ``"randomized_response"`` at
    ``epsilon/2`` (its exact loss), a DIS step as ``"exponential"`` at
    ``epsilon``; :func:`em_calls_formula` gives the calls per level. Used to
    compose one query's budget at another ``delta`` than a run used.
    """
    # a one-point tree has no levels
    schedule = finite_array(schedule, "schedule", ndim=(1,), allow_empty=True)
    if np.any(schedule <= 0):
        raise ValueError("schedule must hold numbers > 0 (one per tree level)")
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    accountant = Accountant()
    for level_epsilon, count in zip(
        schedule, em_calls_formula(variant, len(schedule), splits)
    ):
        if count:
            if utility == "cmp":
                accountant.spend("randomized_response", level_epsilon / 2, int(count))
            else:
                accountant.spend("exponential", level_epsilon, int(count))
    return accountant
