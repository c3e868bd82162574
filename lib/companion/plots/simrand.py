"""Figures of SimRand: recall against the angle, with its no-noise references."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .methods import method_style, min_font_size, styles_if_methods

__all__ = [
    "CEILING_OF",
    "pi_fraction",
    "recall_panel_data",
    "recall_panels",
    "exact_privacy_check",
]

#: Each no-noise reference drawn in the colour of the private method it is the ceiling
#: of.
CEILING_OF = {
    "SimHash, no noise": "SimRand",
    "JL projection, no noise": "Gaussian projection",
}


def pi_fraction(fraction) -> str:
    """An angle given as a fraction of pi, written as one: 0.125 -> 'π/8', 0.75 ->
    '3π/4', 1 -> 'π'."""
    from fractions import Fraction

    f = Fraction(float(fraction)).limit_denominator(256)
    if f <= 0:
        raise ValueError(f"fraction must be > 0, got {fraction!r}")
    return (
        "π"
        if f == 1
        else (
            f"π/{f.denominator}"
            if f.numerator == 1
            else f"{f.numerator}π/{f.denominator}"
        )
    )


def recall_panel_data(table, by, chance, private, *, z=1.96, symbols=None):
    """The inputs of :func:`recall_panels` from a long recall table.

    ``table`` has columns ``method``, ``epsilon``, ``recall``, ``se`` and the
    columns ``by``; one panel per group of ``by`` (a column named ``alpha/pi`` is
    titled as an angle, ``α = π/8``). The ``private`` methods become series over
    epsilon with error bars of ``z`` standard errors; every other method (a
    non-private ceiling, constant in epsilon) and ``chance`` become dashed
    references. ``symbols`` maps a column of ``by`` to the letter its titles use
    (``{"k": "m"}``: the chapter writes m for the number of bits). Returns
    ``(panels, errors, references)``.
    """
    symbols = symbols or {}
    panels, errors, references = {}, {}, {}
    for key, group in table.groupby(list(by)):
        key = key if isinstance(key, tuple) else (key,)
        title = ", ".join(
            f"α = {pi_fraction(value)}"
            if name == "alpha/pi"
            else f"{symbols.get(name, name)} = {value:g}"
            for name, value in zip(by, key)
        )
        mine = group[group["method"].isin(private)]
        series = {m: g.sort_values("epsilon") for m, g in mine.groupby("method")}
        panels[title] = {m: g["recall"].to_numpy() for m, g in series.items()}
        errors[title] = {m: z * g["se"].to_numpy() for m, g in series.items()}
        references[title] = {
            m: float(g["recall"].iloc[0])
            for m, g in group[~group["method"].isin(private)].groupby("method")
        }
        references[title]["chance"] = chance
    return panels, errors, references


def recall_panels(
    x,
    panels,
    *,
    xlabel,
    ylabel="recall@10",
    ncols=3,
    errors=None,
    logx=True,
    panel_width=3.6,
    panel_height=2.9,
    references=None,
):
    """A grid of small accuracy plots: ``panels`` maps a panel title to {method: y over
    x}.

    ``errors`` (optional) has the same shape as ``panels`` and gives error-bar
    half-widths. ``references`` (optional) maps a panel title to {label: y}, drawn as
    dashed horizontal lines (e.g. a non-private ceiling, chance). Methods of
    :mod:`companion.plots.methods` (SimRand, its Gaussian-projection baseline) take
    their registered styles, each no-noise ceiling its method's colour and any other
    reference grey. Returns the Figure; the legend is drawn once, on the first panel.
    """
    n = len(panels)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_width * ncols, panel_height * nrows),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    for ax, (title, series) in zip(axes.ravel(), panels.items()):
        styles = styles_if_methods(series)
        for label, y in series.items():
            err = None if errors is None else errors[title].get(label)
            style = styles[label].kwargs() if styles else {"marker": "o"}
            ax.errorbar(x, y, yerr=err, ms=3, capsize=2, label=label, **style)
        for r, (label, y) in enumerate(((references or {}).get(title) or {}).items()):
            colour = f"C{len(series) + r}"
            if styles and label in CEILING_OF:
                colour = method_style(CEILING_OF[label]).color
            elif styles:
                colour = "0.5"
            ax.axhline(
                y,
                color=colour,
                ls=(0, (4, 2)) if r % 2 == 0 else ":",
                lw=1.2,
                label=label,
            )
        ax.set_title(title, fontsize="small")
        if logx:
            ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
    for ax in axes.ravel()[n:]:
        ax.set_axis_off()
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    axes.ravel()[0].legend(fontsize="x-small")
    return fig


def exact_privacy_check(
    jittered_h, worst, *, epsilon, k_flip, k, eps_prime, delta_curve, delta
):
    """Left: the largest |log-ratio| of SimRand's outputs against the bits ``H`` in
    which two neighbours' hashes differ (``jittered_h``, one dot per projection),
    with the line ε H / K; right: the exact δ(ε') on a log axis, where positive."""
    h_values = np.arange(k + 1)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    simrand = method_style("SimRand")
    text_size = min_font_size(fig.get_figwidth())
    axes[0].scatter(
        jittered_h,
        worst,
        s=6,
        alpha=0.4,
        color=simrand.color,
        marker=simrand.marker,
        label="exact, one projection each",
    )
    axes[0].plot(
        h_values, epsilon * h_values / k_flip, color="k", lw=1, label="ε H / K"
    )
    # references in black and grey, apart from SimRand's own colour
    axes[0].axhline(epsilon, color="k", ls="--", label="ε")
    axes[0].axvline(k_flip + 0.5, color="0.5", ls=":", label="H = K")
    axes[0].set(
        xlabel="bits H in which the neighbours' hashes differ",
        ylabel="largest |log-ratio| over 2^k outputs",
    )
    axes[0].legend(fontsize=text_size)
    # δ(ε') is exactly 0 beyond the largest log-ratio: not drawn on a log axis
    positive = np.asarray(delta_curve) > 0
    axes[1].semilogy(
        eps_prime[positive],
        np.asarray(delta_curve)[positive],
        color=simrand.color,
        ls=simrand.linestyle,
        marker=".",
        label="exact δ(ε') at angle α (0 beyond)",
    )
    axes[1].axhline(delta, color="k", ls="--", label="target δ")
    axes[1].axvline(epsilon, color="0.5", ls=":", label="ε")
    axes[1].set(xlabel="ε'", ylabel="δ(ε')", ylim=(1e-14, 1.5))
    axes[1].legend(fontsize=text_size)
    for ax in axes:
        ax.tick_params(labelsize=text_size)
    return fig
