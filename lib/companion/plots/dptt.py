"""Figures of k-d trees and DP-TT (thesis ch. 4-5): partitions, paths, accuracy."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .common import figure_and_axes
from .methods import method_style, min_font_size, styles_if_methods

__all__ = [
    "kd_partition",
    "tree_diagram",
    "accuracy_curves",
    "protocol_sequence",
    "labelled_scatter",
    "protocol_with_draws",
    "dis_against_geo_panels",
    "cmp_accuracy_panels",
]


def kd_partition(tree, *, ax=None, labels=True):
    """Planar picture of a 2-D k-d tree (thesis Fig. 2.4): points and the split line of
    every inner node.

    With ``labels`` each point carries its index and each split line its node
    number ``n<k>``, the labels :func:`tree_diagram` draws with ``labels=True``.
    """
    fig, ax = figure_and_axes(ax)
    points = tree.points
    low, high = points.min(axis=0), points.max(axis=0)
    pad = 0.05 * (high - low)
    box = {0: (low - pad, high + pad)}
    # breadth-first: a parent's box is known before its children
    for node in range(tree.n_nodes):
        lo, hi = box[node]
        if tree.left[node] < 0:
            continue
        axis, split = tree.axis[node], tree.split[node]
        if axis == 0:
            ax.plot(
                [split, split],
                [lo[1], hi[1]],
                color="C0" if tree.depth[node] == 0 else "0.5",
                lw=2.5 / (1 + tree.depth[node]) + 0.5,
            )
        else:
            ax.plot(
                [lo[0], hi[0]],
                [split, split],
                color="0.5",
                lw=2.5 / (1 + tree.depth[node]) + 0.5,
            )
        if labels:  # the node number at the middle of its split line
            middle = (
                [split, (lo[1] + hi[1]) / 2]
                if axis == 0
                else [(lo[0] + hi[0]) / 2, split]
            )
            ax.text(
                *middle,
                f"n{node}",
                fontsize=6,
                color="C0",
                ha="center",
                va="center",
                bbox={
                    "boxstyle": "round,pad=0.1",
                    "fc": "white",
                    "ec": "none",
                    "alpha": 0.8,
                },
                zorder=4,
            )
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[axis], right_lo[axis] = split, split
        box[tree.left[node]] = (lo, left_hi)
        box[tree.right[node]] = (right_lo, hi)
    ax.scatter(points[:, 0], points[:, 1], color="black", s=18, zorder=3)
    if labels:
        for i, (x, y) in enumerate(points):
            ax.annotate(
                str(i), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7
            )
    ax.set_xlabel("coordinate 0")
    ax.set_ylabel("coordinate 1")
    return fig


def tree_diagram(
    tree, *, em=(), split=(), released=(), target=(), ax=None, title=None, labels=False
):
    """A small leaf-only tree drawn top-down (thesis Figs. 5.1-5.3).

    Nodes in ``em`` are green (an exponential-mechanism decision), in ``split``
    blue (a data-independent split), leaves in ``released`` ringed in red,
    leaves in ``target`` (e.g. the query's true nearest neighbour) starred.
    With ``labels`` inner nodes show their number ``n<k>`` and leaves the index
    of their point, as :func:`kd_partition` labels them.
    """
    fig, ax = figure_and_axes(ax)
    x = np.zeros(tree.n_nodes)
    leaves = np.flatnonzero(tree.is_leaf)
    x[leaves] = tree.lo[leaves]
    # children come after parents in breadth-first order
    for node in range(tree.n_nodes - 1, -1, -1):
        if tree.left[node] >= 0:
            x[node] = (x[tree.left[node]] + x[tree.right[node]]) / 2
    y = -tree.depth.astype(float)
    for node in range(tree.n_nodes):
        for child in (tree.left[node], tree.right[node]):
            if child >= 0:
                ax.plot(
                    [x[node], x[child]],
                    [y[node], y[child]],
                    color="0.7",
                    lw=1,
                    zorder=1,
                )
    colour = np.array(["0.85"] * tree.n_nodes, dtype=object)
    colour[list(em)] = "#009E73"
    colour[list(split)] = "#0072B2"
    ax.scatter(x, y, c=list(colour), s=60, zorder=2, edgecolors="0.3", linewidths=0.5)
    rel = list(released)
    ax.scatter(
        x[rel],
        y[rel],
        s=160,
        facecolors="none",
        edgecolors="#D55E00",
        linewidths=2,
        zorder=3,
    )
    if labels:
        for node in range(tree.n_nodes):
            text = str(tree.point[node]) if tree.left[node] < 0 else f"n{node}"
            ax.annotate(
                text,
                (x[node], y[node]),
                textcoords="offset points",
                fontsize=6,
                ha="center",
                xytext=(0, -11) if tree.left[node] < 0 else (0, 6),
            )
    goal = list(target)
    ax.scatter(
        x[goal],
        y[goal] - 0.45,
        marker="*",
        s=120,
        color="#E69F00",
        edgecolors="0.2",
        linewidths=0.5,
        zorder=4,
    )
    handles = [
        plt.Line2D(
            [], [], marker="o", ls="", color="#009E73", label="exponential mechanism"
        ),
        plt.Line2D(
            [], [], marker="o", ls="", color="#0072B2", label="split (no mechanism)"
        ),
        plt.Line2D(
            [],
            [],
            marker="o",
            ls="",
            mfc="none",
            mec="#D55E00",
            mew=2,
            label="released",
        ),
        plt.Line2D(
            [],
            [],
            marker="*",
            ls="",
            color="#E69F00",
            mec="0.2",
            ms=10,
            label="true nearest neighbour",
        ),
    ]
    shown = [h for h, used in zip(handles, (em, split, released, target)) if len(used)]
    if shown:
        ax.legend(
            handles=shown,
            loc="lower center",
            bbox_to_anchor=(0.5, -0.2),
            ncol=4,
            fontsize="x-small",
        )
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return fig


def accuracy_curves(
    x,
    series,
    *,
    xlabel,
    ylabel="accuracy",
    errors=None,
    logx=True,
    ax=None,
    styles=None,
):
    """Accuracy (0-1) of several methods against a shared x, with optional
    standard-error bars.

    ``styles`` maps a label to keyword arguments of ``ax.errorbar`` (colour, marker,
    line style); by default, when every label is a method of
    :mod:`companion.plots.methods` ("GEO", "DP-TT-DIS"), each is drawn in its
    registered style, and other series take the colour cycle with circles."""
    fig, ax = figure_and_axes(ax)
    if styles is None:
        registered = styles_if_methods(series)
        if registered is not None:
            styles = {label: style.kwargs() for label, style in registered.items()}
    for label, y in series.items():
        err = None if errors is None else errors.get(label)
        style = {"marker": "o"} if styles is None else styles[label]
        ax.errorbar(x, y, yerr=err, **style, ms=4, capsize=2, label=label)
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")
    return fig


def protocol_sequence(messages, *, ax=None, title=None):
    """Sequence diagram of a client/server exchange: ``messages`` is a list of (sender,
    text).

    ``sender`` is ``"server"`` or ``"client"``; arrows run top to bottom in order.
    """
    fig, ax = figure_and_axes(ax)
    n = len(messages)
    for x, name in ((0.0, "server"), (1.0, "client")):
        ax.plot([x, x], [0.5, -n - 0.2], color="0.4", lw=1.5)
        ax.text(x, 0.8, name, ha="center", va="bottom", fontweight="bold")
    for i, (sender, text) in enumerate(messages):
        start, end = (0.0, 1.0) if sender == "server" else (1.0, 0.0)
        colour = "#0072B2" if sender == "server" else "#D55E00"
        ax.annotate(
            "",
            xy=(end, -i - 0.5),
            xytext=(start, -i - 0.5),
            arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.5},
        )
        ax.text(
            0.5,
            -i - 0.42,
            text,
            ha="center",
            va="bottom",
            fontsize="x-small",
            color=colour,
        )
    ax.set_xlim(-0.25, 1.25)
    ax.set_ylim(-n - 0.4, 1.4)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return fig


def labelled_scatter(
    x,
    y,
    labels,
    *,
    xlabel,
    ylabel,
    logx=True,
    ax=None,
    label_offsets=None,
    **scatter_kwargs,
):
    """Points with a text label each (e.g. one DP-TT variant per point).

    ``label_offsets`` maps a label to its (dx, dy) offset in points (default
    (4, 4)), to move labels of nearby points apart.
    """
    fig, ax = figure_and_axes(ax)
    ax.scatter(x, y, **scatter_kwargs)
    for xi, yi, label in zip(x, y, labels):
        ax.annotate(
            str(label),
            (xi, yi),
            textcoords="offset points",
            xytext=(label_offsets or {}).get(label, (4, 4)),
            fontsize="x-small",
        )
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig


def protocol_with_draws(steps, *, title=None):
    """Sequence diagram of the first DP-TT exchanges, one row of ``steps`` each.

    ``steps`` has the columns ``node``, ``left child``, ``right child``, ``bit`` and
    ``p_right``; beside each bit, in grey, the probability the client drew it with
    (which stays with the client).
    """
    messages = []
    for node, left, right, bit in zip(
        steps["node"], steps["left child"], steps["right child"], steps["bit"]
    ):
        messages.append(("server", f"node {node}: children {left:,.0f} | {right:,.0f}"))
        messages.append(("client", f"bit {bit}"))
    messages.append(("server", "… one exchange per level …  then the leaf's value"))
    fig = protocol_sequence(messages, title=title)
    ax = fig.axes[0]
    for i, p_right in enumerate(steps["p_right"]):
        ax.text(
            1.04,
            -(2 * i + 1) - 0.5,
            f"drawn with\nPr[right] = {p_right:.2f}",
            fontsize="xx-small",
            va="center",
            color="0.35",
        )
    ax.set_xlim(-0.25, 1.45)
    fig.set_size_inches(8.5, 6)
    return fig


def dis_against_geo_panels(table, sensitivities, *, n_points, epsilon):
    """Raw and top-5 accuracy of DP-TT-DIS and GEO against the sensitivity, 1-D above
    and 2-D below, privacy decreasing to the right; ``table`` as returned by
    :func:`companion.studies.thesis.dis_against_geo`."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    methods = ("DP-TT-DIS", "GEO")
    for i, d in enumerate((1, 2)):
        for j, column in enumerate(("raw", "top-5")):
            part = table[table["d"] == d]
            accuracy_curves(
                sensitivities,
                {m: part[part["method"] == m][column] for m in methods},
                errors={
                    m: part[part["method"] == m][f"{column} s.e."] for m in methods
                },
                xlabel="sensitivity Δ (= privacy radius r)",
                ylabel=f"{column} accuracy",
                ax=axes[i, j],
            )
            axes[i, j].set_title(f"{d}-D, N = {n_points:,}, per-step ε = {epsilon:g}")
    _readable(fig)
    axes[0, 0].invert_xaxis()  # shared x
    return fig


def cmp_accuracy_panels(table, epsilons, *, n_points):
    """Raw and top-5 accuracy of DP-TT-CMP against the per-step ε, one curve per
    dimension; ``table`` as returned by :func:`companion.studies.thesis.cmp_sweep`."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    # both curves are DP-TT-CMP: its colour, line and marker, hollow in 2-D
    cmp = method_style("DP-TT-CMP").kwargs()
    styles = {"1-D": cmp, "2-D": cmp | {"mfc": "white"}}
    for ax, column in zip(axes, ("raw", "top-5")):
        accuracy_curves(
            epsilons,
            {f"{d}-D": table[table["d"] == d][column] for d in (1, 2)},
            errors={f"{d}-D": table[table["d"] == d][f"{column} s.e."] for d in (1, 2)},
            xlabel="per-step ε",
            ylabel=f"{column} accuracy",
            ax=ax,
            styles=styles,
        )
        panel = "ab"[column == "top-5"]
        ax.set_title(f"({panel}) {column} accuracy, DP-TT-CMP, N = {n_points:,}")
    _readable(fig)
    return fig


def _readable(fig):
    """Legends and tick labels of every axes of ``fig`` at the book's smallest
    readable size (:func:`companion.plots.methods.min_font_size`)."""
    size = min_font_size(fig.get_figwidth())
    for ax in fig.axes:
        ax.tick_params(labelsize=size)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_fontsize(size)
