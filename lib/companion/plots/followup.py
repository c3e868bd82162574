"""After the thesis (notebook 13): every mechanism at equal composed privacy and at
equal MSE, budget schedules, and the empirical audits of the synthesis."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from .common import curves
from .dptt import accuracy_curves

__all__ = [
    "equal_privacy_panels",
    "equal_mse_panels",
    "schedule_panels",
    "audit_bars",
]


def equal_privacy_panels(table, variants, datasets, methods):
    """Raw accuracy against DP-TT's composed ε* (± 1 SE), one panel per DP-TT
    variant (rows) and dataset (columns), one line per method; the legend on the
    first panel only."""
    fig, axes = plt.subplots(
        len(variants),
        len(datasets),
        figsize=(4.2 * len(datasets), 3.2 * len(variants)),
        squeeze=False,
        sharey=True,
    )
    for i, variant in enumerate(variants):
        for j, name in enumerate(datasets):
            part = table[(table.dataset == name) & (table.variant == variant)]
            x = part[part.method == "DP-TT-CMP"].eps_star.to_numpy()
            accuracy_curves(
                x,
                {m: part[part.method == m].raw.to_numpy() for m in methods},
                errors={m: part[part.method == m].raw_se.to_numpy() for m in methods},
                xlabel="composed ε* (PLD, δ = 1/N)",
                ylabel="raw accuracy",
                ax=axes[i, j],
            )
            axes[i, j].set_title(
                f"{name}, DP-TT {variant} (k = {part.k.iloc[-1]})", fontsize="small"
            )
            axes[i, j].xaxis.set_minor_formatter(NullFormatter())
            if (i, j) != (0, 0):
                axes[i, j].get_legend().remove()
    return fig


def equal_mse_panels(equal_mse, datasets):
    """The budget GEO, SM and L-SRR need for DP-TT-CMP basic's MSE over its ε*, one
    panel per dataset, with the bootstrap intervals shaded and equality dashed."""
    mechanisms = ("GEO", "SM", "L-SRR")
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(4.2 * len(datasets), 3.3), squeeze=False
    )
    for ax, name in zip(axes[0], datasets):
        part = equal_mse[equal_mse.dataset == name]
        curves(
            part.eps_star.to_numpy(),
            {m: part[m].to_numpy() for m in mechanisms},
            xlabel="DP-TT-CMP basic: composed ε*",
            ylabel="ε needed for the same MSE / ε*",
            logx=True,
            logy=True,
            ax=ax,
        )
        for line, m in zip(ax.get_lines(), mechanisms):
            lo_ratio, hi_ratio = part[f"{m} low"], part[f"{m} high"]
            ax.fill_between(
                part.eps_star,
                lo_ratio.where(lo_ratio > 0),
                hi_ratio.where(np.isfinite(hi_ratio)),
                color=line.get_color(),
                alpha=0.15,
                lw=0,
            )
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_title(name, fontsize="small")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
    return fig


def schedule_panels(schedules, totals, families):
    """Raw accuracy (left) and mean distance to the released point in domain sides
    (right, log-log) against the composed budget, ± 1 SE, one line per schedule
    family."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    by = {f: schedules[schedules.family == f] for f in families}
    accuracy_curves(
        totals,
        {f: by[f].raw.to_numpy() for f in families},
        errors={f: by[f].raw_se.to_numpy() for f in families},
        xlabel="composed ε* (PLD, δ = 1/N)",
        ylabel="raw accuracy",
        ax=axes[0],
    )
    for f in families:
        axes[1].errorbar(
            totals,
            by[f].distance,
            yerr=by[f].distance_se,
            marker="o",
            ms=4,
            capsize=2,
            label=f,
        )
    axes[1].set(
        xscale="log",
        yscale="log",
        xlabel="composed ε* (PLD, δ = 1/N)",
        ylabel="mean distance to the released point\n(domain sides)",
    )
    axes[1].legend(fontsize="small")
    for ax in axes:
        ax.xaxis.set_minor_formatter(NullFormatter())
    return fig


def audit_bars(audits):
    """Each audit's estimate (pale) and lower confidence bound as a fraction of its
    claimed ε (audits: name -> ``(claimed ε, result)``), the claim dashed at 1."""
    names = list(audits)
    fig, ax = plt.subplots(figsize=(7.5, 3.9))
    claimed = np.array([audits[k][0] for k in names])
    ax.barh(
        names,
        [audits[k][1].estimate / c for k, c in zip(names, claimed)],
        color="C0",
        alpha=0.45,
        label="estimate",
    )
    ax.barh(
        names,
        [audits[k][1].lower_bound / c for k, c in zip(names, claimed)],
        color="C0",
        label="lower confidence bound",
    )
    ax.axvline(1.0, color="C3", ls="--", label="claimed ε")
    ax.set_xlabel("audited loss / claimed ε")
    fig.legend(loc="outside lower center", ncols=3, fontsize="small")
    return fig
