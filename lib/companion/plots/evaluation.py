"""Figures of the thesis's evaluation (ch. 6): one panel per dataset and utility."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullLocator

from .dptt import labelled_scatter, tree_diagram
from .methods import METHODS, method_style, min_font_size

__all__ = [
    "variant_panels",
    "variant_walks_panels",
    "variant_accuracy_panels",
    "cmp_composed_axes",
    "panel_figures",
    "communication_panel",
    "delta_moves_panels",
    "cmp_variant_specs",
    "cmp_real_specs",
    "dis_figure_specs",
    "pld_comparison_panels",
]


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


def cmp_composed_axes(delta_exponent, geo_epsilon_star):
    """The keywords of :func:`variant_panels` for DP-TT-CMP against its composed ε*
    (the thesis's accounting at δ = N^-``delta_exponent``), and those of GEO's top
    axis at level ``geo_epsilon_star``."""
    composed = {
        "x": "epsilon_thesis",
        "xlabel": "composed ε* of one query\n(the thesis's accounting: Thm 2.13 at the "
        "full per-step ε, δ = N^-%g)" % delta_exponent,
        "geo": False,
        "label": "DP-TT-CMP",
    }
    geo = {
        "geo_x": "geo_epsilon",
        "geo_xlabel": f"GEO: ε*/Δ per unit distance (ε* = {geo_epsilon_star:g})",
    }
    return composed, geo


def panel_figures(table, specs, **common):
    """For each spec in turn, its file name and the :func:`variant_panels` figure of
    ``table`` (its rows of dimension ``spec["d"]`` when the spec has one).

    A spec is a dict with ``file``, optional ``d`` and keywords of
    :func:`variant_panels`; ``common`` are the keywords every figure shares.
    """
    for spec in specs:
        spec = dict(spec)
        name, d = spec.pop("file"), spec.pop("d", None)
        rows = table if d is None else table[table["d"] == d]
        yield name, variant_panels(rows, **common, **spec)


def communication_panel(communication, variants, sizes, epsilon):
    """Thesis Fig. 6.1: the share of the tree's 2N − 1 node values sent per query
    against N, one curve per variant, on log-log axes, with the whole tree dashed."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, variant in enumerate(variants):
        part = communication[communication["variant"] == variant].sort_values("N")
        ax.plot(
            part["N"],
            100 * part["sent_share"],
            marker="os^Dv"[i % 5],
            color=plt.cm.tab20(i),
            label=variant,
        )
    ax.plot(sizes, [100] * len(sizes), color="black", ls="--", label="whole tree")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="database size N",
        ylabel="% of the tree's 2N − 1 node values sent per query",
        title="Communication of DP-TT (thesis Fig. 6.1), 2-D, per-step ε = "
        f"{epsilon:g}",
    )
    ax.legend(fontsize="x-small", ncol=2, loc="lower left")
    return fig


def delta_moves_panels(moved, variants, n):
    """Top-5 accuracy of each variant against its composed ε* at δ = 1/N (solid) and
    at δ = N^-1.1 (dotted), one panel per dimension (columns of
    :func:`companion.studies.thesis_comparison.delta_moves`)."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, d in zip(axes, (1, 2)):
        part = moved[moved["d"] == d]
        for i, variant in enumerate(variants):
            rows = part[part["variant"] == variant].sort_values("epsilon")
            for column, style, delta in (
                ("ε* (δ = 1/N)", {"marker": "o", "ms": 3}, "1/N"),
                ("ε* (δ = N^-1.1)", {"ls": ":", "marker": "x", "ms": 4}, "N^-1.1"),
            ):
                ax.plot(
                    rows[column],
                    rows["top5"],
                    color=f"C{i}",
                    label=f"{variant}, δ = {delta}",
                    **style,
                )
        ax.set(
            xscale="log",
            xlabel="composed ε* of one query (the thesis's accounting)",
            ylabel="top-5 accuracy",
            title=f"({'ab'[d - 1]}) {d}-D, N = {n:,}",
            ylim=(-0.02, 1.02),
        )
        ax.legend(fontsize="xx-small", ncol=2, loc="upper left")
    fig.suptitle(
        "DP-TT-CMP at the companion's δ = 1/N and the thesis code's δ = N^-1.1"
    )
    return fig


def cmp_variant_specs(
    p_splits, e_splits, neighbourhoods, gsn_neighbourhoods, geo, block
):
    """The :func:`panel_figures` specs of thesis Figs. 6.19-6.22 and 6.24-6.27 (P, E,
    N and GS-N against basic or GS, 1-D then 2-D) with GEO on the top axis: ``geo[d]``,
    or for E ``block[d]``, GEO releasing as many neighbours as E8."""
    specs = []
    for d in (1, 2):
        top = {"geo_table": geo[d], "geo_name": "GEO (top axis)"}
        specs += [
            {
                "d": d,
                "variants": ["basic"] + [f"P{s}" for s in p_splits],
                "file": f"thesis_fig6_{19 if d == 1 else 20}_cmp_parallel_{d}d",
                "suptitle": f"DP-TT-CMP P, {d}-D",
                **top,
            },
            {
                "d": d,
                "variants": ["basic"] + [f"E{s}" for s in e_splits],
                "file": f"thesis_fig6_{21 if d == 1 else 22}_cmp_early_{d}d",
                "suptitle": f"DP-TT-CMP E, {d}-D",
                "geo_table": block[d],
                "geo_name": f"GEO, {2 ** max(e_splits)} neighbours (top axis)",
            },
            {
                "d": d,
                "variants": ["basic"] + [f"N{b}" for b in neighbourhoods],
                "file": f"thesis_fig6_{24 if d == 1 else 25}_cmp_neighbourhood_{d}d",
                "suptitle": f"DP-TT-CMP N, {d}-D",
                **top,
            },
            {
                "d": d,
                "variants": ["GS"] + [f"GS-N{b}" for b in gsn_neighbourhoods],
                "file": f"thesis_fig6_{26 if d == 1 else 27}_cmp_gs_n_{d}d",
                "suptitle": f"DP-TT-CMP GS-N, {d}-D",
                **top,
            },
        ]
    return specs


def cmp_real_specs(name, n, variants, best, sensitivities, geo_table):
    """The :func:`panel_figures` specs of thesis Figs. 6.30-6.31 on the real dataset
    ``name`` of size ``n``: ``variants``, then the ``best`` ones, with GEO over the
    radii ``sensitivities`` (metres) on the top axis."""
    top = {
        "geo_table": geo_table,
        "geo_name": f"GEO, Δ from {max(sensitivities):g} "
        f"to {min(sensitivities):g} m (top axis)",
    }
    return [
        {
            "variants": variants,
            "file": f"thesis_fig6_30_cmp_real_{name}",
            "suptitle": f"DP-TT-CMP variants on {name} (N = {n:,})",
            **top,
        },
        {
            "variants": best,
            "file": f"thesis_fig6_31_cmp_real_best_{name}",
            "suptitle": f"Best DP-TT-CMP variants on {name}",
            **top,
        },
    ]


_DIS_FIGURES = {
    "P": (5, "parallel"),
    "E": (7, "early"),
    "N": (10, "neighbourhood"),
    "GS-N": (12, "gs_n"),
    "variants": (14, "comparison"),
}


def dis_figure_specs(families: dict, n: int) -> list[dict]:
    """The :func:`panel_figures` specs of DP-TT-DIS figures, 1-D then 2-D, for each
    family in turn: ``families`` maps P, E, N, GS-N or ``variants`` (the comparison,
    without GEO) to the variants drawn, giving thesis Figs. 6.5-6.8 and 6.10-6.15."""
    specs = []
    for d in (1, 2):
        for kind, variants in families.items():
            first, slug = _DIS_FIGURES[kind]
            spec = {
                "d": d,
                "variants": variants,
                "file": f"thesis_fig6_{first + d - 1}_dis_{slug}_{d}d",
                "suptitle": f"DP-TT-DIS {kind}, {d}-D, N = {n:,}",
            }
            specs.append(spec | ({"geo": False} if kind == "variants" else {}))
    return specs


def pld_comparison_panels(synthetic, variants, used, n):
    """Top-5 accuracy of each variant against its exact composed budget per unit
    distance ``ε_PLD/Δ``, one panel per dimension; the legend gives each variant's
    PLD ε* (``used.loc[variant, "epsilon_pld"]``)."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, d in zip(axes, (1, 2)):
        part = synthetic[synthetic["d"] == d]
        for i, variant in enumerate(variants):
            rows = part[part["variant"] == variant].sort_values("ε_PLD/Δ")
            ax.errorbar(
                rows["ε_PLD/Δ"],
                rows["top5"],
                yerr=rows["top5_se"],
                color=f"C{i}",
                marker="o",
                ms=3,
                capsize=2,
                label=f"{variant} (PLD ε* = {used.loc[variant, 'epsilon_pld']:.1f})",
            )
        ax.set(
            xscale="log",
            xlabel="exact composed budget per unit distance ε_PLD/Δ (δ = 1/N)",
            ylabel="top-5 accuracy",
            title=f"({'ab'[d - 1]}) {d}-D, top-5",
            ylim=(-0.02, 1.02),
        )
        ax.legend(fontsize="x-small", loc="upper left")
    fig.suptitle(f"DP-TT-DIS variants against the exact composed budget, N = {n:,}")
    return fig
