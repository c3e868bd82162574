"""Figures of the primitives (thesis ch. 2-3): outputs, privacy loss, planar noise."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from .common import curves, figure_and_axes

__all__ = [
    "output_histograms",
    "log_ratio_bins",
    "selection_probabilities",
    "noise_cloud",
    "ecdf_against_cdf",
    "geo_query_map",
    "composition_bounds",
]


def output_histograms(samples_a, samples_b, bins, *, labels=("M(D)", "M(D')"), ax=None):
    """Overlaid density histograms of a mechanism's outputs on two neighbouring
    inputs."""
    fig, ax = figure_and_axes(ax)
    for samples, label in zip((samples_a, samples_b), labels):
        ax.hist(
            samples,
            bins=bins,
            density=True,
            histtype="stepfilled",
            alpha=0.45,
            label=label,
        )
    ax.set_xlabel("output")
    ax.set_ylabel("density")
    ax.legend()
    return fig


def log_ratio_bins(centers, log_ratio, standard_error, epsilon, *, z=2.0, ax=None):
    """Per-bin empirical log-ratio log(p_D / p_D') with +-z standard errors, against
    +-epsilon."""
    fig, ax = figure_and_axes(ax)
    ax.errorbar(
        centers,
        log_ratio,
        yerr=z * np.asarray(standard_error),
        fmt="o",
        ms=3,
        lw=1,
        label=f"empirical log-ratio (±{z:g} s.e.)",
    )
    for sign in (1, -1):
        ax.axhline(
            sign * epsilon,
            color="C3",
            ls="--",
            label="±ε (the guarantee)" if sign > 0 else None,
        )
    ax.set_xlabel("output bin")
    ax.set_ylabel("log Pr[M(D) ∈ bin] / Pr[M(D') ∈ bin]")
    ax.legend(loc="center right")
    return fig


def selection_probabilities(epsilons, probabilities, labels, *, ax=None):
    """Selection probability of each candidate (columns of ``probabilities``) against
    epsilon."""
    fig, ax = figure_and_axes(ax)
    probabilities = np.asarray(probabilities)
    for column, label in enumerate(labels):
        ax.plot(epsilons, probabilities[:, column], label=label)
    ax.set_xscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("selection probability")
    ax.set_ylim(0, 1)
    ax.legend(title="candidate")
    return fig


def noise_cloud(clouds, origin, *, ax=None, s=2):
    """Scatter of perturbed locations, one colour per label in ``clouds`` (label -> (n,
    2))."""
    fig, ax = figure_and_axes(ax)
    for label, points in clouds.items():
        points = np.asarray(points)
        ax.scatter(
            points[:, 0], points[:, 1], s=s, alpha=0.5, label=label, rasterized=True
        )
    ax.scatter(
        [origin[0]],
        [origin[1]],
        marker="*",
        s=200,
        color="black",
        label="true location",
        zorder=3,
    )
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    for handle in legend.legend_handles[:-1]:  # enlarge the cloud dots, not the star
        handle.set_sizes([30])
        handle.set_alpha(1)
    return fig


def ecdf_against_cdf(samples, grid, cdf, *, label="analytic CDF", ax=None):
    """Empirical CDF of ``samples`` against an analytic CDF evaluated on ``grid``."""
    fig, ax = figure_and_axes(ax)
    sns.ecdfplot(x=np.asarray(samples), ax=ax, label="empirical CDF")
    ax.plot(grid, cdf, ls="--", color="black", label=label)
    ax.set_ylabel("Pr[R ≤ r]")
    ax.legend()
    return fig


def geo_query_map(points, query, perturbed, true_index, released_index, *, ax=None):
    """One GEO query drawn on the map: places, true and perturbed query, true and
    released neighbour."""
    fig, ax = figure_and_axes(ax)
    points = np.asarray(points)
    ax.scatter(
        points[:, 0], points[:, 1], s=6, color="0.6", label="places", rasterized=True
    )
    ax.scatter(*query, marker="*", s=220, color="black", label="true query", zorder=3)
    ax.scatter(
        *perturbed,
        marker="X",
        s=120,
        color="C3",
        label="perturbed query (sent)",
        zorder=3,
    )
    ax.scatter(
        *points[true_index],
        s=90,
        facecolors="none",
        edgecolors="C0",
        lw=2,
        label="true nearest neighbour",
        zorder=3,
    )
    ax.scatter(
        *points[released_index],
        s=160,
        facecolors="none",
        edgecolors="C3",
        lw=2,
        label="GEO's answer",
        zorder=3,
    )
    ax.plot(*np.column_stack([query, perturbed]), color="C3", lw=1, ls=":")
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.yaxis.set_major_locator(plt.MaxNLocator(5))
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def composition_bounds(curves_by_epsilon, pld_checkpoints, pld_points, delta):
    """One log-log panel per per-step ε: each bound's total ε against the number of
    compositions (``curves_by_epsilon[e]``, indexed by k), with the PLD's value of
    k-fold randomized response at ``pld_checkpoints`` as crosses."""
    epsilons = list(curves_by_epsilon)
    fig, axes = plt.subplots(
        1, len(epsilons), figsize=(5 * len(epsilons), 4.4), sharey=False
    )
    for ax, e in zip(np.atleast_1d(axes), epsilons):
        table = curves_by_epsilon[e]
        curves(
            table.index,
            {c: table[c] for c in table},
            xlabel="compositions k",
            ylabel="total ε",
            logx=True,
            logy=True,
            ax=ax,
            marker=None,
        )
        ax.plot(
            pld_checkpoints,
            pld_points[e],
            "kx",
            ms=9,
            mew=2,
            label="dp_accounting PLD (RR)",
        )
        ax.set_title(f"per-step ε = {e:g}, δ = {delta:g}")
        ax.legend(fontsize="x-small")
    return fig
