"""Figures of Gursoy et al.: accuracy summaries and the region overlap picture."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from .methods import styles_if_methods

__all__ = ["summary_panels", "overlap_picture"]


def summary_panels(
    summary,
    *,
    x,
    panel,
    series,
    value="mean",
    error="ci95",
    xlabel,
    ylabel,
    logx=False,
    logy=False,
    ncols=3,
    panel_titles=None,
    ylim=None,
    sharey=True,
    title=None,
    xticks=None,
    reference=None,
    reference_label=None,
):
    """One panel per value of ``panel``; in each, one line per value of ``series``
    against ``x``.

    ``title``, if given, heads the shared legend above the panels. ``xticks``: the x
    values to label (plain numbers, also on a log axis). ``reference``: {panel value: y}
    of a dashed grey line per panel (e.g. chance or the majority-class rate), named
    ``reference_label`` in the legend. On a log y axis an error bar reaching 0 or below
    is cut at a tenth of the mean (the bar's lower end is then not the interval's).

    ``summary`` is a long table (e.g. from ``classification.summarize``) with the
    columns named here; ``error`` gives the half-width of the error bars. When every
    value of ``series`` is a classifier of :mod:`companion.plots.methods` ("proposed",
    "baseline", "PrivBayes", ...), each is drawn in its registered style.
    """
    names = list(dict.fromkeys(summary[panel]))
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(4.2 * ncols, 3.3 * nrows), squeeze=False, sharey=sharey
    )
    # each classifier in its registered style, else one colour per series
    values = list(dict.fromkeys(summary[series]))
    styles = styles_if_methods(str(value) for value in values)
    style_of = {
        value: (
            styles[str(value)].kwargs()
            if styles
            else {"color": f"C{i % 10}", "marker": "o"}
        )
        for i, value in enumerate(values)
    }
    legend = {}
    for ax, name in zip(axes.flat, names):
        part = summary[summary[panel] == name]
        for label, line in part.groupby(series, sort=False):
            line = line.sort_values(x)
            yerr = None
            if error:
                yerr = np.asarray(line[error], dtype=float)
                if logy:
                    yerr = np.vstack(
                        [
                            np.minimum(
                                yerr, 0.9 * np.asarray(line[value], dtype=float)
                            ),
                            yerr,
                        ]
                    )
            legend[str(label)] = ax.errorbar(
                line[x],
                line[value],
                yerr=yerr,
                ms=3.5,
                capsize=2,
                label=str(label),
                **style_of[label],
            )
        if reference is not None and reference.get(name) is not None:
            legend[reference_label] = ax.axhline(
                reference[name], color="0.45", ls="--", lw=1.0, label=reference_label
            )
        ax.set_title((panel_titles or {}).get(name, str(name)), fontsize="medium")
        ax.set_xlabel(xlabel)
        ax.set_xscale("log" if logx else "linear")
        ax.set_yscale("log" if logy else "linear")
        if xticks is not None:
            ax.set_xticks(list(xticks), [f"{t:g}" for t in xticks])
            ax.xaxis.set_minor_locator(plt.NullLocator())
        if ylim is not None:
            ax.set_ylim(*ylim)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    # every series of every panel, once
    labels, handles = list(legend), list(legend.values())
    # The style's constrained layout reserves room above the panels for the legend and
    # its title.
    fig.legend(
        handles,
        labels,
        loc="outside upper center",
        ncol=min(len(labels), 6),
        frameon=False,
        title=title,
        title_fontsize="medium",
    )
    return fig


def overlap_picture(
    queries, radii, graph, *, mcs_of=None, points=None, point_labels=None
):
    """Proximity regions of test instances (left) and their region overlap graph
    (right), as in Fig. 3.

    ``mcs_of`` maps a vertex to the MCS of its component, written next to it.
    """
    import networkx as nx

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6))
    colours = sns.color_palette("colorblind", 10)
    components = sorted(nx.connected_components(graph), key=min)
    colour_of = {
        v: colours[i % 10] for i, nodes in enumerate(components) for v in nodes
    }
    if points is not None:
        for value, colour in ((0, "0.7"), (1, "k")):
            chosen = np.asarray(point_labels) == value
            left.scatter(
                points[chosen, 0],
                points[chosen, 1],
                c=colour,
                s=6,
                zorder=1,
                label=f"training record, label {value}",
            )
        left.legend(loc="upper right", fontsize="x-small", framealpha=0.9)
    left.set_xlabel("feature 1 (scaled to [0, 1])")
    left.set_ylabel("feature 2 (scaled to [0, 1])")
    for i, (centre, r) in enumerate(zip(queries, radii)):
        left.add_patch(plt.Circle(centre, r, fill=False, lw=1.5, color=colour_of[i]))
        left.annotate(
            f"x{i + 1}",
            centre,
            ha="center",
            va="center",
            fontsize="small",
            color=colour_of[i],
        )
    left.set_aspect("equal")
    left.set_xlim(0, 1)
    left.set_ylim(0, 1)
    left.set_title("test instances and proximity regions")
    layout = {i: queries[i] for i in range(len(queries))}
    nx.draw_networkx(
        graph,
        pos=layout,
        ax=right,
        node_color=[colour_of[v] for v in graph.nodes],
        labels={v: f"x{v + 1}" for v in graph.nodes},
        font_size=8,
        node_size=380,
    )
    if mcs_of is not None:
        for nodes in components:
            anchor = min(nodes)
            right.annotate(
                f"MCS {mcs_of[anchor]}",
                queries[anchor],
                xytext=(0, -22),
                textcoords="offset points",
                ha="center",
                fontsize="small",
                color=colour_of[anchor],
            )
    right.set_xlim(0, 1)
    right.set_ylim(0, 1)
    right.set_aspect("equal")
    right.set_title("region overlap graph")
    right.axis("off")
    return fig
