"""What the server learns (notebook 14): the optimal adversary's error, actual against
accounted epsilon."""

from __future__ import annotations

import numpy as np

from .common import figure_and_axes
from .methods import min_font_size, series_styles

#: The prior-only reference: grey and dotted, unlike any method.
_PRIOR = {"color": "0.5", "ls": ":", "lw": 1.2, "label": "prior only (no release)"}

__all__ = [
    "actual_against_accounted",
    "dis_against_geo_footings",
    "error_against_rmse",
    "inference_error_panel",
    "measure_by_eps_panel",
]


def inference_error_panel(
    eps_star,
    errors,
    prior_only,
    *,
    standard_errors=None,
    title="",
    ax=None,
    xlabel="composed ε* (δ = 1/N)",
):
    """The optimal adversary's error against the privacy each mechanism is given, one
    line per mechanism.

    ``errors`` maps a mechanism's name to its errors at each ``eps_star``
    (in domain diameters); ``standard_errors`` the same for error bars;
    ``prior_only`` is drawn as a dotted horizontal reference line; ``xlabel``
    names the footing of the privacy axis.
    """
    fig, ax = figure_and_axes(ax)
    styles = series_styles(errors)
    for name, values in errors.items():
        err = None if standard_errors is None else standard_errors.get(name)
        ax.errorbar(
            eps_star,
            values,
            yerr=err,
            **styles[name].kwargs(),
            ms=5,
            capsize=2,
            label=name,
        )
    ax.axhline(prior_only, **_PRIOR)
    ax.set_xscale("log")
    ax.set_xticks(list(eps_star), labels=[f"{v:g}" for v in eps_star])
    ax.minorticks_off()
    ax.set(
        xlabel=xlabel,
        ylabel="optimal adversary's error (D)",
        title=title,
    )
    ax.set_ylim(bottom=0)
    size = min_font_size(ax.figure.get_figwidth())
    ax.legend(fontsize=size)
    ax.tick_params(labelsize=size)
    return fig


def actual_against_accounted(
    distance,
    actual,
    accounted,
    *,
    marked=None,
    certified=None,
    title="",
    legend="best",
    ax=None,
):
    """Actual epsilon of query pairs against their distance, with the ledger's bounds as
    lines.

    ``actual`` maps a label (e.g. "random pairs, median") to values over
    ``distance``; ``accounted`` maps an accounting method to its epsilon;
    ``marked`` optionally maps a label to ``(distances, epsilons)`` of single
    pairs (the worst found at each distance, the corners), drawn as black markers;
    ``certified`` is the bound no pair exceeds, drawn as a thick grey line. Both
    axes are logarithmic. ``legend`` is the legend's matplotlib location, or None
    for no legend.
    """
    fig, ax = figure_and_axes(ax)
    if certified is not None:
        ax.axhline(certified, color="0.75", lw=4, zorder=0, label="certified bound")
    for name, values in actual.items():
        ax.plot(distance, values, marker="o", ms=4, label=name)
    for (name, point), shape in zip((marked or {}).items(), "*Ds^"):
        ax.plot(
            *point,
            marker=shape,
            ms=9,
            ls="none",
            color="black",
            label=name,
            fillstyle="none" if shape != "*" else "full",
        )
    styles = ["--", ":", "-.", (0, (5, 1))]
    for style, (method, value) in zip(styles, accounted.items()):
        ax.axhline(value, color="0.35", ls=style, lw=1, label=f"ledger: {method}")
    ax.set(
        xlabel="distance between the two queries (D)",
        ylabel="ε at δ = 1/N",
        title=title,
        xscale="log",
        yscale="log",
    )
    if legend is not None:
        ax.legend(fontsize=min_font_size(ax.figure.get_figwidth()), loc=legend)
    return fig


def error_against_rmse(
    rmse,
    errors,
    prior_only,
    *,
    title="",
    ax=None,
    xlabel="RMSE of the release, clipped to the domain (D)",
):
    """The optimal adversary's error against each mechanism's perturbation RMSE.

    ``rmse`` and ``errors`` map a mechanism's name to values at the same budgets
    (both in domain diameters); one line per mechanism, both axes linear from 0
    (an RMSE below the grid error is drawn at its value, not stretched), the
    prior-only error as a dotted line.
    """
    fig, ax = figure_and_axes(ax)
    styles = series_styles(errors)
    for name in errors:
        order = np.argsort(rmse[name])
        ax.plot(
            np.asarray(rmse[name])[order],
            np.asarray(errors[name])[order],
            **styles[name].kwargs(),
            ms=5,
            label=name,
        )
    ax.axhline(prior_only, **_PRIOR)
    ax.set(xlabel=xlabel, ylabel="optimal adversary's error (D)", title=title)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    size = min_font_size(ax.figure.get_figwidth())
    ax.legend(fontsize=size)
    ax.tick_params(labelsize=size)
    return fig


def measure_by_eps_panel(
    eps_star,
    values,
    *,
    standard_errors=None,
    ylabel="",
    title="",
    reference=None,
    legend=True,
    ax=None,
):
    """One measure (accuracy, a loss, an error) against the composed eps*, one line per
    mechanism, with error bars of one standard error.

    ``values`` maps a mechanism's name to its values at each ``eps_star``;
    ``reference`` an optional ``(value, label)`` drawn as a grey dotted line.
    """
    fig, ax = figure_and_axes(ax)
    styles = series_styles(values)
    for name, series in values.items():
        err = None if standard_errors is None else standard_errors.get(name)
        ax.errorbar(
            eps_star,
            series,
            yerr=err,
            **styles[name].kwargs(),
            ms=5,
            capsize=2,
            label=name,
        )
    if reference is not None:
        ax.axhline(reference[0], **{**_PRIOR, "label": reference[1]})
    ax.set_xscale("log")
    ax.set_xticks(list(eps_star), labels=[f"{v:g}" for v in eps_star])
    ax.minorticks_off()
    ax.set(xlabel="composed ε* (accounted)", ylabel=ylabel, title=title)
    ax.set_ylim(bottom=0)
    size = min_font_size(ax.figure.get_figwidth())
    if legend:
        ax.legend(fontsize=size)
    ax.tick_params(labelsize=size)
    return fig


def dis_against_geo_footings(table, metric="top5", *, title=""):
    """Basic DP-TT-DIS against GEO on two footings: ``metric`` accuracy against the
    budget per unit distance ε/Δ, one panel per footing (``table`` as
    :func:`companion.studies.true_footing.dis_against_geo` returns), one line per
    mechanism and budget ε, error bars one standard error; the footing named on
    each panel's axis."""
    import matplotlib.pyplot as plt

    footings = list(dict.fromkeys(table["footing"]))
    fig, axes = plt.subplots(
        1, len(footings), figsize=(4.7 * len(footings), 3.7), sharey=True
    )
    axes = np.atleast_1d(axes)
    styles = series_styles(["DP-TT-DIS basic", "GEO"])
    words = {
        "accounted": "accounted ε* (thesis's ledger)",
        "actual": "actual worst-case ε within Δ",
    }
    budgets = sorted(table["eps"].unique())
    for ax, footing in zip(axes, footings):
        part = table[table["footing"] == footing].sort_values("eps_per_unit")
        for name, key in (("DP-TT-DIS basic", "dis"), ("GEO", "geo")):
            for eps in budgets:
                line = part[part["eps"] == eps]
                label = name if len(budgets) == 1 else f"{name}, ε = {eps:.3g}"
                ax.errorbar(
                    line["eps_per_unit"],
                    line[f"{key}_{metric}"],
                    yerr=line[f"{key}_{metric}_se"],
                    **styles[name].kwargs(),
                    ms=5,
                    capsize=2,
                    label=label,
                )
        ax.set(
            xscale="log",
            xlabel=f"{words.get(footing, footing)} per unit distance, ε/Δ",
            ylabel=f"{metric} accuracy",
            title=f"equal {footing} privacy",
            ylim=(-0.02, 1.02),
        )
        size = min_font_size(fig.get_figwidth())
        ax.legend(fontsize=size)
        ax.tick_params(labelsize=size)
    if title:
        fig.suptitle(title)
    return fig
