"""Figures of the thesis's evaluation (ch. 6): one panel per dataset and utility."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullLocator

from .dptt import labelled_scatter, tree_diagram
from .methods import METHODS, method_style, min_font_size

__all__ = ["variant_panels", "variant_walks_panels", "variant_accuracy_panels"]


def variant_panels(
    table,
    x,
    variants,
    *,
    xlabel,
    geo=True,
    label="DP-TT",
    invert_x=False,
    logx=True,
    suptitle=None,
    geo_table=None,
    geo_x=None,
    geo_xlabel=None,
    by="variant",
    names=None,
    geo_name="GEO (top axis)",
):
    """Thesis-style figure: (a) raw and (b) top-5 accuracy against ``x``, one curve per
    variant.

    ``table`` has columns ``by`` (default ``variant``), ``x``, ``raw``, ``raw_se``,
    ``top5``, ``top5_se`` (and ``geo_*`` when ``geo``). Each series that is a method
    (``f"{label} {series}"``, e.g. "DP-TT-DIS E8") has its style of
    :mod:`companion.plots.methods`; other series (sizes, dimensions) take the colours
    and markers of the DP-TT variants in turn. GEO is GEO's black dashed line, with
    the hollow marker of the series whose budget rule it follows. With
    ``geo_table`` GEO is drawn against its own x (``geo_x``) on a top axis, as in thesis
    Fig. 6.17. ``names`` maps a series to its legend text (default
    ``f"{label} {series}"``), e.g. to state each variant's composed budget.
    """
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    text_size = min_font_size(fig.get_figwidth())
    dptt = [s for n, s in METHODS.items() if n.startswith("DP-TT-DIS")]
    geo_style = METHODS["GEO"]
    for ax, metric, name in zip(
        axes, ("raw", "top5"), ("(a) raw accuracy", "(b) top-5 accuracy")
    ):
        for i, variant in enumerate(variants):
            part = table[table[by] == variant].sort_values(x)
            if part.empty:
                continue
            try:
                style = method_style(f"{label} {variant}")
            except KeyError:  # a size or a dimension, not a method
                style = dptt[i % len(dptt)]
            ax.errorbar(
                part[x],
                part[metric],
                yerr=part[f"{metric}_se"],
                **style.kwargs(),
                ms=4,
                capsize=2,
                label=(names or {}).get(variant, f"{label} {variant}"),
            )
            if geo and f"geo_{metric}" in part:
                ax.errorbar(
                    part[x],
                    part[f"geo_{metric}"],
                    yerr=part[f"geo_{metric}_se"],
                    color=geo_style.color,
                    ls=geo_style.linestyle,
                    marker=style.marker,
                    mfc="white",
                    ms=4,
                    capsize=2,
                    label=f"GEO ({variant} rule)",
                )
        if logx:
            ax.set_xscale("log")
            # one tick per decade: readable, and half the drawing time
            ax.xaxis.set_minor_locator(NullLocator())
        if invert_x:
            ax.invert_xaxis()
        ax.set(
            xlabel=xlabel, ylabel=name.split(" ", 1)[1], title=name, ylim=(-0.02, 1.02)
        )
        if geo_table is not None:
            top = ax.twiny()
            top.errorbar(
                geo_table[geo_x],
                geo_table[f"geo_{metric}"],
                yerr=geo_table[f"geo_{metric}_se"],
                **geo_style.kwargs(),
                ms=4,
                capsize=2,
                label=geo_name,
            )
            top.set_xscale("log")
            top.xaxis.set_minor_locator(NullLocator())
            top.set_xlabel(geo_xlabel)
            top.grid(False)
            handles, labels = ax.get_legend_handles_labels()
            top_handles, top_labels = top.get_legend_handles_labels()
            # accuracy is low on the left in every thesis figure
            ax.legend(
                handles + top_handles,
                labels + top_labels,
                fontsize=text_size,
                loc="upper left",
            )
            top.tick_params(labelsize=text_size)
        else:
            ax.legend(fontsize=text_size, loc="upper left")
        ax.tick_params(labelsize=text_size)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def variant_walks_panels(tree, query, walks, nearest, epsilon):
    """One tree diagram per DP-TT walk of ``query`` (as returned by
    :func:`companion.studies.thesis_variants.variant_walks`): its calls, splits and
    released leaves, with the leaf of the true nearest neighbour ``nearest``."""
    leaf_of = tree.leaf_of_point()
    fig, axes = plt.subplots(len(walks), 1, figsize=(10, 3.0 * len(walks)))
    for ax, walk in zip(axes, walks):
        released = walk["released"]
        found = ", true NN found" if nearest in released else ", true NN missed"
        tree_diagram(
            tree,
            em=walk["em"],
            split=walk["split"],
            released=leaf_of[released],
            target=[leaf_of[nearest]],
            ax=ax,
            title=f"DP-TT {walk['name']}: {walk['calls']} exponential-mechanism "
            f"calls, {len(released)} released" + found,
        )
    axes[0].set_title(
        f"One query ({query[0]:.1f}, {query[1]:.1f}) on a {len(tree.points)}-leaf "
        f"tree, CMP, ε = {epsilon:g} per step\n" + axes[0].get_title()
    )
    return fig


def variant_accuracy_panels(accuracy, *, n_points, epsilon):
    """Raw and top-5 accuracy of each DP-TT variant against the values it releases,
    1-D above and 2-D below, coloured by the log of its exact composed ε; ``accuracy``
    as returned by :func:`companion.studies.thesis_variants.variant_accuracy`."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    colour_range = {
        "vmin": np.log(accuracy["ε exact"].min()),
        "vmax": np.log(accuracy["ε exact"].max()),
        "cmap": "viridis",
    }
    for i, d in enumerate((1, 2)):
        part = accuracy[accuracy["d"] == d]
        for j, column in enumerate(("raw", "top-5")):
            labelled_scatter(
                part["released"],
                part[column],
                part["variant"],
                xlabel="values released per query",
                ylabel=f"{column} accuracy",
                ax=axes[i, j],
                c=np.log(part["ε exact"]),
                **colour_range,
                label_offsets={"N5": (4, -11), "P4": (4, -11), "E8": (-14, -11)},
            )
            axes[i, j].set_ylim(-0.02, 1.05)
            axes[i, j].set_title(f"{d}-D, N = {n_points:,}, per-step ε = {epsilon:g}")
    fig.colorbar(axes[0, 0].collections[0], ax=axes, label="ln(composed ε, exact)")
    return fig
