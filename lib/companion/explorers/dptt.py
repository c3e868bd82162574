"""The explorer of notebook 05: one DP-TT traversal, step by step."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit

from companion import plots
from dpnn.trees import build_tree

from .controls import explore, live_front_end, readout, slider

__all__ = ["dptt_trace", "dptt_figure", "dptt_step_probabilities", "explore_dptt"]


def dptt_trace(
    points,
    query: float,
    epsilon: float,
    utility: str = "dis",
    sensitivity=None,
    seed: int = 0,
):
    """One basic DP-TT traversal of a 1-D leaf-only tree, as a list of steps (dicts),
    plus the tree.

    Each step is one exponential-mechanism decision from
    :func:`dpnn.traversal.dptt_reference` (``node``, ``depth``, ``left_utility``,
    ``right_utility``, ``p_right``, ``bit``) with ``correct_bit``: the turn towards the
    query's exact nearest neighbour. The last entry is the ``finish`` step with the
    released ``leaf``.
    """
    from dpnn.traversal import dptt_reference

    tree = build_tree(np.asarray(points, dtype=float))
    trace = []
    released, _ = dptt_reference(
        tree,
        [query],
        epsilon,
        utility,
        sensitivity,
        rng=np.random.default_rng(seed),
        trace=trace,
    )
    nearest = int(np.argmin(np.abs(tree.points[:, 0] - query)))
    rank = int(np.flatnonzero(tree.order == nearest)[0])
    for step in trace:
        if step["action"] == "em":
            right = tree.right[step["node"]]
            step["correct_bit"] = int(tree.lo[right] <= rank < tree.hi[right])
        else:
            step["leaf"] = int(released[0])
    return tree, trace


def dptt_figure(
    n_points: int = 16,
    query: float = 37.0,
    epsilon: float = 10.0,
    utility: str = "dis",
    step: int | None = None,
    seed: int = 0,
):
    """DP-TT on ``n_points`` uniform points in [0, 100] (1-D, sensitivity 100 for DIS):
    the tree with the decisions made up to ``step`` (all if None) and, per level, the
    probability of the correct turn."""
    rng = np.random.default_rng(seed)
    points = np.sort(rng.uniform(0, 100, int(n_points)))
    tree, trace = dptt_trace(
        points, query, epsilon, utility, 100.0 if utility == "dis" else None, seed
    )
    decisions = [s for s in trace if s["action"] == "em"]
    shown = len(decisions) if step is None else max(0, min(int(step), len(decisions)))
    done = shown == len(decisions)
    fig, axes = plt.subplots(
        1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.6, 1]}
    )
    plots.tree_diagram(
        tree,
        em=[s["node"] for s in decisions[:shown]],
        released=[trace[-1]["node"]] if done else [],
        ax=axes[0],
        title=f"query {readout(query, '.1f')}, {utility.upper()}, "
        f"ε = {readout(epsilon, '.2f')} per step, seed {seed}",
    )
    p_correct = np.array(
        [s["p_right"] if s["correct_bit"] else 1 - s["p_right"] for s in decisions]
    )
    levels = np.arange(len(decisions))
    colours = ["C2" if s["bit"] == s["correct_bit"] else "C3" for s in decisions]
    axes[1].bar(levels[:shown], p_correct[:shown], color=colours[:shown])
    axes[1].bar(levels[shown:], p_correct[shown:], color="0.85")
    axes[1].axhline(0.5, color="0.4", ls=":")
    axes[1].set(
        xlabel="tree level (decision)",
        ylabel="Pr[turn towards the true NN]",
        ylim=(0, 1.05),
        title=f"step {shown} of {len(decisions)}" + (": released" if done else ""),
    )
    axes[1].set_xticks(levels)
    axes[1].legend(
        handles=[
            plt.Rectangle((0, 0), 1, 1, color="C2", label="turned towards the true NN"),
            plt.Rectangle((0, 0), 1, 1, color="C3", label="turned away"),
            plt.Rectangle((0, 0), 1, 1, color="0.85", label="not yet decided"),
        ],
        fontsize="x-small",
        loc="upper right",
    )
    return fig


def dptt_step_probabilities(trace, epsilon: float, sensitivity: float) -> np.ndarray:
    """Pr[right] of each decision recomputed from its utilities (Def. 2.6 with two
    candidates)."""
    return np.array(
        [
            expit(
                epsilon * (s["right_utility"] - s["left_utility"]) / (2 * sensitivity)
            )
            for s in trace
            if s["action"] == "em"
        ]
    )


def explore_dptt(
    n_points: int = 16,
    query: float = 37.0,
    epsilon: float = 10.0,
    utility: str = "dis",
    step: int | None = None,
    seed: int = 0,
    *,
    live=None,
):
    """Explorer (notebook 05): step through one DP-TT traversal and its per-level
    probabilities."""
    controls = {}
    defaults = {
        "n_points": n_points,
        "query": query,
        "epsilon": epsilon,
        "utility": utility,
        "step": step,
        "seed": seed,
    }
    if live or (live is None and live_front_end()):
        import ipywidgets as widgets

        height = int(np.ceil(np.log2(max(int(n_points), 2))))
        defaults["step"] = height if step is None else step
        controls = {
            "step": slider("IntSlider", "step", "d", min=0, max=height),
            "epsilon": slider(
                "FloatLogSlider", "ε per step", ".2f", min=-1, max=2, step=0.05
            ),
            "query": slider("FloatSlider", "query", ".1f", min=0, max=100, step=0.5),
            "utility": widgets.Dropdown(options=["dis", "cmp"], description="utility"),
            "seed": slider("IntSlider", "seed", "d", min=0, max=50),
        }
    return explore(dptt_figure, controls, defaults, live)
