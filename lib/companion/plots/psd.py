"""Figures of Cormode et al.: a decomposition's cells, errors by query shape."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .common import figure_and_axes
from .methods import styles_if_methods

__all__ = ["psd_tree", "error_bars_by_shape"]


def _points_by_shape(table, *, group, hue, value, ncols, logy, xlabel, ylabel, sharey):
    shapes = list(dict.fromkeys(table["shape"]))
    hues = list(dict.fromkeys(table[hue]))
    ncols = min(ncols, len(shapes))
    nrows = int(np.ceil(len(shapes) / ncols))
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(3.4 * ncols, 3.2 * nrows), squeeze=False, sharey=sharey
    )
    width = 0.7 / max(len(hues), 1)
    styles = styles_if_methods(str(name) for name in hues)
    for ax, shape in zip(axes.ravel(), shapes):
        stats = (
            table[table["shape"] == shape]
            .groupby([group, hue])[value]
            .agg(["mean", "min", "max"])
        )
        groups = sorted(set(stats.index.get_level_values(0)))
        positions = np.arange(len(groups))
        for k, name in enumerate(hues):
            rows = stats.xs(name, level=1).reindex(groups)
            x = positions + (k - (len(hues) - 1) / 2) * width
            spread = [
                np.maximum(rows["mean"] - rows["min"], 0.0),
                np.maximum(rows["max"] - rows["mean"], 0.0),
            ]
            # clipped at 0: a mean of equal values may round past them
            ax.errorbar(
                x,
                rows["mean"],
                yerr=spread,
                ms=4,
                capsize=2,
                lw=1.0,
                label=name,
                **(
                    styles[str(name)].kwargs()
                    if styles
                    else {"marker": "o", "color": f"C{k % 10}"}
                ),
            )
        ax.set_xticks(positions, [f"{g:g}" for g in groups])
        ax.set_title(f"query {shape}")
        ax.set_xlabel(xlabel)
        if logy:
            ax.set_yscale("log")
    for ax in axes.ravel()[len(shapes) :]:
        ax.set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="outside upper center",
        ncol=min(len(labels), 5),
        frameon=False,
        fontsize="small",
    )
    return fig


def psd_tree(boxes, counts, *, rect=None, canonical=(), points=None, ax=None):
    """A small private spatial decomposition drawn like Cormode et al. Fig. 1.

    Every node box is outlined (thicker for shallower nodes), each leaf shows its
    released count, ``points`` are drawn faintly, the query ``rect`` dashed red,
    and the ``canonical`` nodes ``(depth, index, weight)`` shaded with their count.
    """
    fig, ax = figure_and_axes(ax)
    if points is not None:
        ax.scatter(points[:, 0], points[:, 1], s=2, color="0.6", zorder=1)
    height = len(boxes) - 1
    for d, b in enumerate(boxes):
        for x0, y0, x1, y1 in b:
            ax.add_patch(
                plt.Rectangle(
                    (x0, y0),
                    x1 - x0,
                    y1 - y0,
                    fill=False,
                    ec="0.2",
                    lw=2.5 - 2 * d / max(height, 1),
                    zorder=2,
                )
            )
    for (x0, y0, x1, y1), c in zip(boxes[-1], counts[-1]):
        ax.text(
            (x0 + x1) / 2,
            (y0 + y1) / 2,
            f"{c:.0f}",
            ha="center",
            va="center",
            fontsize=7,
            zorder=4,
            bbox={
                "boxstyle": "round,pad=0.15",
                "fc": "white",
                "ec": "none",
                "alpha": 0.8,
            },
        )
    for d, j, weight in canonical:
        x0, y0, x1, y1 = boxes[d][j]
        colour = "#0072B2" if weight == 1.0 else "#E69F00"
        ax.add_patch(
            plt.Rectangle(
                (x0, y0), x1 - x0, y1 - y0, color=colour, alpha=0.25, zorder=1
            )
        )
        if d < height:
            ax.text(
                x0 + 0.04 * (x1 - x0),
                y1 - 0.04 * (y1 - y0),
                f"{counts[d][j]:.0f}",
                ha="left",
                va="top",
                fontsize=8,
                color=colour,
                weight="bold",
                zorder=4,
            )
    if rect is not None:
        x0, y0, x1, y1 = np.ravel(rect)
        ax.add_patch(
            plt.Rectangle(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                fill=False,
                ec="#D55E00",
                ls="--",
                lw=2,
                zorder=5,
            )
        )
    ax.set_xlim(boxes[0][0][0], boxes[0][0][2])
    ax.set_ylim(boxes[0][0][1], boxes[0][0][3])
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    handles = [
        plt.Rectangle(
            (0, 0), 1, 1, color="#0072B2", alpha=0.4, label="node inside the query"
        ),
        plt.Rectangle(
            (0, 0), 1, 1, color="#E69F00", alpha=0.4, label="leaf cut (uniformity)"
        ),
        plt.Line2D([], [], color="#D55E00", ls="--", label="query"),
    ]
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small"
    )
    return fig


def error_bars_by_shape(
    table,
    *,
    group="epsilon",
    hue="variant",
    value="error",
    ncols=4,
    logy=True,
    xlabel="epsilon",
    ylabel="median relative error",
    style="bars",
    sharey=False,
):
    """One panel per query shape: ``value`` (mean over trees) for each ``hue`` at each
    ``group``.

    ``table`` is a DataFrame with columns ``shape``, ``group``, ``hue`` and ``value``
    (e.g. the output of :func:`dpnn.psd.quadtree_study`); like Cormode et al. Fig. 3/5.
    ``style="points"`` draws each mean as a point with a bar from the smallest to the
    largest tree (the spread over independent trees), the hues side by side, joined by
    lines over ``group``: readable on a log axis, unlike bars. ``sharey`` gives every
    panel one y scale. When every ``hue`` is a decomposition of
    :mod:`companion.plots.methods` ("quad-opt", "kd-hybrid", ...), each is drawn in
    its registered colour (and, as points, marker and line style).
    """
    if style not in ("bars", "points"):
        raise ValueError(f"style must be 'bars' or 'points', got {style!r}")
    if style == "points":
        return _points_by_shape(
            table,
            group=group,
            hue=hue,
            value=value,
            ncols=ncols,
            logy=logy,
            xlabel=xlabel,
            ylabel=ylabel,
            sharey=sharey,
        )
    shapes = list(dict.fromkeys(table["shape"]))
    hues = list(dict.fromkeys(table[hue]))
    nrows = int(np.ceil(len(shapes) / ncols))
    fig, axes = plt.subplots(
        nrows,
        min(ncols, len(shapes)),
        figsize=(3.2 * min(ncols, len(shapes)), 3.0 * nrows),
        squeeze=False,
        layout="constrained",
    )
    width = 0.8 / len(hues)
    styles = styles_if_methods(str(name) for name in hues)
    for ax, shape in zip(axes.ravel(), shapes):
        sub = (
            table[table["shape"] == shape].groupby([group, hue])[value].mean().unstack()
        )
        positions = np.arange(len(sub.index))
        for k, name in enumerate(hues):
            ax.bar(
                positions + (k - (len(hues) - 1) / 2) * width,
                sub[name].to_numpy(),
                width,
                label=name,
                color=styles[str(name)].color if styles else f"C{k % 10}",
            )
        ax.set_xticks(positions, [f"{g:g}" for g in sub.index])
        ax.set_title(f"query {shape}")
        ax.set_xlabel(xlabel)
        if logy:
            ax.set_yscale("log")
    for ax in axes.ravel()[len(shapes) :]:
        ax.set_axis_off()
    axes[0, 0].set_ylabel(ylabel)
    axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return fig
