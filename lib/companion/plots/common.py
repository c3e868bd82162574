"""Shared helpers: a fresh or given axis, curves, theory against simulation."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from .methods import styles_if_methods

__all__ = ["figure_and_axes", "curves", "theory_vs_simulation"]


def figure_and_axes(ax):
    """``(figure, axes)`` to draw on: ``ax`` and its figure, or a new figure with one
    axes when ``ax`` is None."""
    if ax is None:
        fig, ax = plt.subplots()
        return fig, ax
    return ax.figure, ax


def curves(
    x,
    series,
    *,
    xlabel,
    ylabel,
    logx=False,
    logy=False,
    ax=None,
    marker="o",
    **line_kwargs,
):
    """Line plot of several named series (label -> y values) over a shared x.

    When every label is a method of :mod:`companion.plots.methods` ("GEO", "SM"),
    each is drawn in its registered colour, line style and marker (``marker=None`` or
    ``""``: lines only); other series take the colour cycle and ``marker``."""
    fig, ax = figure_and_axes(ax)
    styles = styles_if_methods(series)
    for label, y in series.items():
        kwargs = {"marker": marker}
        if styles is not None:
            kwargs = styles[label].kwargs() | ({} if marker else {"marker": marker})
        ax.plot(x, y, ms=4, label=label, **(kwargs | line_kwargs))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return fig


def theory_vs_simulation(
    x,
    analytic,
    simulated,
    *,
    errors=None,
    xlabel,
    ylabel,
    logx=False,
    logy=False,
    legend=None,
    ax=None,
):
    """Analytic curves (lines) with simulated values (markers, optional error bars),
    same colour per label.

    ``analytic`` and ``simulated`` map a label to y values over the shared ``x``;
    ``errors`` maps a label to error-bar half-widths of the simulated values;
    ``legend`` optionally maps a simulated label to its own legend text. With
    ``logx`` the x values themselves are the tick labels. Labels that are all methods
    of :mod:`companion.plots.methods` take their registered colour, line style (the
    analytic line) and marker (the simulated values).
    """
    fig, ax = figure_and_axes(ax)
    labels = list(dict.fromkeys(list(analytic) + list(simulated)))
    styles = styles_if_methods(labels)
    if styles is None:
        colours = sns.color_palette("colorblind", len(labels))
        markers = ["o"] * len(labels)
        lines = ["-"] * len(labels)
    else:
        colours = [styles[label].color for label in labels]
        markers = [styles[label].marker for label in labels]
        lines = [styles[label].linestyle for label in labels]
    for colour, marker, line, label in zip(colours, markers, lines, labels):
        if label in analytic:
            ax.plot(
                x,
                analytic[label],
                color=colour,
                ls=line,
                lw=1.5,
                label=f"{label} (analytic)",
            )
        if label in simulated:
            err = None if errors is None else errors.get(label)
            text = (legend or {}).get(label, f"{label} (simulated)")
            ax.errorbar(
                x,
                simulated[label],
                yerr=err,
                color=colour,
                ls="none",
                marker=marker,
                ms=4,
                capsize=2,
                label=text,
            )
    if logx:
        ax.set_xscale("log")
        ax.set_xticks(list(x), labels=[f"{v:g}" for v in x])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="x-small")
    return fig
