"""What the server learns (notebook 14): the optimal adversary's error, actual against
accounted epsilon."""

from __future__ import annotations

import numpy as np

from .common import figure_and_axes
from .methods import min_font_size, series_styles

#: The prior-only reference: grey and dotted, unlike any method.
_PRIOR = {"color": "0.5", "ls": ":", "lw": 1.2, "label": "prior only (no release)"}

__all__ = [
    "inference_error_panel",
    "actual_against_accounted",
    "error_against_rmse",
    "measure_by_eps_panel",
]


def inference_error_panel(
    eps_star, errors, prior_only, *, standard_errors=None, title="", ax=None
):
    """The optimal adversary's error against the composed eps*, one line per mechanism.

    ``errors`` maps a mechanism's name to its errors at each ``eps_star``
    (in domain diameters); ``standard_errors`` the same for error bars;
    ``prior_only`` is drawn as a dashed horizontal reference line.
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
        xlabel="composed ε* (δ = 1/N)",
        ylabel="optimal adversary's error (D)",
        title=title,
    )
    ax.set_ylim(bottom=0)
    size = min_font_size(ax.figure.get_figwidth())
    ax.legend(fontsize=size)
    ax.tick_params(labelsize=size)
    return fig


def actual_against_accounted(
    distance, actual, accounted, *, marked=None, title="", legend="best", ax=None
):
    """Actual epsilon of query pairs against their distance, with the ledger's bounds as
    lines.

    ``actual`` maps a label (e.g. "random pairs, median") to values over
    ``distance``; ``accounted`` maps an accounting method to its epsilon;
    ``marked`` optionally maps a label to ``(distance, epsilon)`` of single
    pairs (the worst found), drawn as markers. Both axes are logarithmic.
    ``legend`` is the legend's matplotlib location, or None for no legend.
    """
    fig, ax = figure_and_axes(ax)
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


def error_against_rmse(rmse, errors, prior_only, *, title="", ax=None):
    """The optimal adversary's error against each mechanism's perturbation RMSE.

    ``rmse`` and ``errors`` map a mechanism's name to values at the same budgets
    (both in domain diameters); one line per mechanism, x logarithmic, the
    prior-only error as a dashed line.
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
    ax.set(
        xscale="log",
        xlabel="perturbation RMSE of the released point(s) (D)",
        ylabel="optimal adversary's error (D)",
        title=title,
    )
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
