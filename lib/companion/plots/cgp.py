"""Figures of Liang and Yi: error quantiles against budget and a convex hull release."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .common import figure_and_axes
from .methods import styles_if_methods

__all__ = [
    "quantile_curves",
    "hull_release_map",
    "identity_error_panels",
    "knn_error_panels",
    "hull_jaccard_panels",
]


def quantile_curves(
    table,
    x,
    value,
    *,
    by="method",
    xlabel,
    ylabel,
    logx=True,
    logy=True,
    ax=None,
    center="median",
    band="fill",
):
    """One line per ``by`` group: the ``center`` (median or mean) of ``value`` against
    ``x``, with a 25-75% band.

    ``table`` is a long pandas DataFrame (one row per run), as the CGP experiments
    return; this is the presentation of Liang and Yi's Fig. 2-5 (centre and quartiles).
    ``band="bars"`` draws the quartiles as error bars, each group's points shifted a
    little along x so that four groups stay readable (``"fill"``: translucent bands).
    Groups that are all mechanisms of :mod:`companion.plots.methods` ("GP Basic",
    "CGP PNN", ...) are drawn in their registered styles.
    """
    if band not in ("fill", "bars"):
        raise ValueError(f"band must be 'fill' or 'bars', got {band!r}")
    fig, ax = figure_and_axes(ax)
    groups = list(table.groupby(by, sort=False))
    styles = styles_if_methods(str(label) for label, _ in groups)
    for g, (label, group) in enumerate(groups):
        style = {"marker": "o", "color": f"C{g % 10}"}
        if styles:
            style = styles[str(label)].kwargs()
        stats = group.groupby(x)[value]
        xs = np.array(sorted(group[x].unique()))
        mid = (
            (stats.median() if center == "median" else stats.mean()).loc[xs].to_numpy()
        )
        low, high = (
            stats.quantile(0.25).loc[xs].to_numpy(),
            stats.quantile(0.75).loc[xs].to_numpy(),
        )
        if band == "bars":
            shift = (g - (len(groups) - 1) / 2) * 0.06
            xs_drawn = (
                xs * np.exp(shift) if logx else xs + shift * (np.ptp(xs) or 1.0) / 3
            )
            ax.errorbar(
                xs_drawn,
                mid,
                yerr=[mid - low, high - mid],
                ms=4,
                capsize=2.5,
                lw=1.5,
                elinewidth=1.0,
                label=label,
                **style,
            )
        else:
            ax.plot(xs, mid, ms=4, label=label, **style)
            ax.fill_between(xs, low, high, color=style["color"], alpha=0.15)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")
    return fig


def hull_release_map(points, release, *, ax=None):
    """A trajectory's points, its convex hull, PCH's probe circle, anchors and the
    private hull (Liang and Yi §4.4)."""
    from scipy.spatial import ConvexHull

    fig, ax = figure_and_axes(ax)
    ax.scatter(points[:, 0], points[:, 1], s=1, color="0.6", label="user's points")
    for pts, style, label in (
        (points, "-", "true hull"),
        (release.released, "--", "private hull"),
    ):
        hull = ConvexHull(pts)
        ring = np.append(hull.vertices, hull.vertices[0])
        ax.plot(pts[ring, 0], pts[ring, 1], style, label=label)
    theta = np.linspace(0, 2 * np.pi, 200)
    ax.plot(
        release.centre[0] + release.radius * np.cos(theta),
        release.centre[1] + release.radius * np.sin(theta),
        ":",
        color="0.3",
        label="probe circle (ĉ, R)",
    )
    anchors = points[release.anchors]
    ax.scatter(
        anchors[:, 0], anchors[:, 1], s=18, marker="s", label="anchors x_A (PNN)"
    )
    ax.scatter(
        release.released[:, 0],
        release.released[:, 1],
        s=18,
        marker="x",
        label="released anchors",
    )
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.yaxis.set_major_locator(plt.MaxNLocator(5))
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return fig


def identity_error_panels(by_rho, by_n, *, n_points, rho):
    """Fig. 2: the identity query's max and l2 errors (columns) against ρ at
    ``n_points`` and against n at ``rho`` (rows), quantile bars per method."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for row, (table, x, label) in enumerate(
        [
            (by_rho, "rho", f"ρ (per m²), n = {n_points}"),
            (by_n, "n", f"n, ρ = {rho:g}"),
        ]
    ):
        for col, value in enumerate(["max error", "l2 error"]):
            quantile_curves(
                table,
                x,
                value,
                xlabel=label,
                ylabel=f"{value} (m)",
                logx=True,
                ax=axes[row, col],
                band="bars",
            )
    return fig


def knn_error_panels(by_rho, by_k, by_n, *, rho, k, n_points):
    """Figs. 3-4: the normalized kNN error against ρ, k and n (the others fixed at
    ``rho``, ``k`` and ``n_points``), quantile bars per method."""
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    for ax, (table, x, label) in zip(
        axes,
        [
            (by_rho, "rho", f"ρ (per m²), k = {k}, n = {n_points}"),
            (by_k, "k", f"k, ρ = {rho:g}, n = {n_points}"),
            (by_n, "n", f"n, ρ = {rho:g}, k = {k}"),
        ],
    ):
        quantile_curves(
            table,
            x,
            "error",
            xlabel=label,
            ylabel="normalized kNN error",
            ax=ax,
            band="bars",
        )
    return fig


def hull_jaccard_panels(by_rho, by_n, *, n_points, rho):
    """Fig. 5: the private hulls' Jaccard index against ρ at ``n_points`` and against
    n at ``rho``, quantile bands per method on a linear axis from 0 to 1."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (table, x, label) in zip(
        axes,
        [
            (by_rho, "rho", f"ρ (per m²), n = {n_points}"),
            (by_n, "n", f"n, ρ = {rho:g}"),
        ],
    ):
        quantile_curves(
            table, x, "jaccard", xlabel=label, ylabel="Jaccard index", logy=False, ax=ax
        )
    for ax in axes:
        ax.set_ylim(-0.02, 1.02)
    return fig
