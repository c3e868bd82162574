"""Interactive figure of notebook 02: the composition bounds against the number of
steps k, computed by :mod:`dpnn.accounting` at build time over the controls' whole
grid (per-step epsilon, delta, k); the browser only picks the precomputed curves.
"""

from __future__ import annotations

import functools

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (
    ColumnDataSource,
    CustomJS,
    Select,
    Span,
)
from bokeh.plotting import figure

from dpnn import accounting

from . import controls
from .render import on_ready

__all__ = [
    "COMPOSITION_EPSILONS",
    "COMPOSITION_DELTAS",
    "COMPOSITION_KS",
    "PLD_KS",
    "composition_grid",
    "composition_figure",
]

_GREY = "#555555"

#: The grid of 02's controls: per-step epsilon, delta and the number of steps k.
COMPOSITION_EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
COMPOSITION_DELTAS = (1e-3, 1e-6, 1e-9)
COMPOSITION_KS = tuple(
    int(k) for k in np.unique(np.round(np.logspace(0, 3, 25)).astype(int))
)
#: The k at which the exact composition (PLD) is computed.
PLD_KS = (1, 10, 100, 1000)

_BOUNDS = {
    "basic": lambda e, d, k: accounting.basic_composition([e] * k),
    "advanced": lambda e, d, k: accounting.advanced_composition(e, k, d),
    "bounded range": lambda e, d, k: accounting.br_composition([e] * k, d),
    "zCDP": lambda e, d, k: accounting.dp_from_zcdp(
        k * accounting.zcdp_from_pure(e), d
    ),
    "optimal (KOV)": lambda e, d, k: accounting.optimal_pure_composition_epsilon(
        e, k, d
    ),
}


@functools.cache
def composition_grid() -> dict:
    """Total epsilon of k eps-DP steps at delta by each bound of
    :mod:`dpnn.accounting`, for every (epsilon, delta) of the grid: ``{"bounds":
    {name: [[value per k] per delta] per epsilon}, "pld": the same at PLD_KS}``. The
    exact composition is that of k randomized responses (the worst eps-DP step),
    by privacy loss distributions."""
    out = {"bounds": {}, "pld": []}
    for name, bound in _BOUNDS.items():
        out["bounds"][name] = [
            [
                [float(bound(e, d, k)) for k in COMPOSITION_KS]
                for d in COMPOSITION_DELTAS
            ]
            for e in COMPOSITION_EPSILONS
        ]
    out["pld"] = [
        [
            [
                float(
                    accounting.pld_epsilon(
                        [("randomized_response", e)] * k, d, numerical=True
                    )
                )
                for k in PLD_KS
            ]
            for d in COMPOSITION_DELTAS
        ]
        for e in COMPOSITION_EPSILONS
    ]
    return out


def composition_figure(epsilon: float = 0.1, delta: float = 1e-6, k: int = 100):
    """The composition bounds of :func:`composition_grid` against k (log-log), for
    the per-step epsilon and the delta the controls pick, with every bound's value
    at the k a third slider marks."""
    if epsilon not in COMPOSITION_EPSILONS:
        raise ValueError(
            f"epsilon must be one of {COMPOSITION_EPSILONS}, got {epsilon!r}"
        )
    if delta not in COMPOSITION_DELTAS:
        raise ValueError(f"delta must be one of {COMPOSITION_DELTAS}, got {delta!r}")
    if k not in COMPOSITION_KS:
        raise ValueError(f"k must be one of {COMPOSITION_KS}, got {k!r}")
    grid = composition_grid()
    names = list(grid["bounds"])
    colours = ["#1f77b4", "#ff7f0e", "#9467bd", "#2ca02c", "#d62728"]
    dashes = ["solid", "dashed", "dotdash", "dotted", "solid"]
    sources = {name: ColumnDataSource({"k": [], "y": []}) for name in names}
    pld = ColumnDataSource({"k": [], "y": []})
    fig = figure(
        width=720,
        height=380,
        x_axis_type="log",
        y_axis_type="log",
        x_axis_label="compositions k",
        y_axis_label="total ε",
        toolbar_location=None,
        tools="",
    )
    for name, colour, dash in zip(names, colours, dashes):
        fig.line(
            "k",
            "y",
            source=sources[name],
            color=colour,
            line_dash=dash,
            line_width=2,
            legend_label=name,
        )
    fig.scatter(
        "k",
        "y",
        source=pld,
        marker="diamond",
        size=11,
        color="black",
        legend_label="exact (PLD of randomized response)",
    )
    fig.legend.location = "top_left"
    fig.legend.label_text_font_size = "11px"
    marker = Span(location=k, dimension="height", line_color=_GREY, line_dash="dotted")
    fig.add_layout(marker)
    eps_slider = controls.grid_slider(
        COMPOSITION_EPSILONS, epsilon, title="ε per step", name="epsilon", width=300
    )
    k_slider = controls.grid_slider(COMPOSITION_KS, k, title="k", name="k", width=260)
    delta_select = Select(
        title="δ",
        value=f"{delta:.0e}",
        name="delta",
        width=100,
        options=[f"{d:.0e}" for d in COMPOSITION_DELTAS],
    )
    readout = controls.readout()
    callback = CustomJS(
        args=dict(
            grid=grid,
            names=names,
            sources=[sources[n] for n in names],
            pld=pld,
            eps_slider=eps_slider,
            k_slider=k_slider,
            delta_select=delta_select,
            deltas=[f"{d:.0e}" for d in COMPOSITION_DELTAS],
            epsilons=list(COMPOSITION_EPSILONS),
            ks=list(COMPOSITION_KS),
            pld_ks=list(PLD_KS),
            marker=marker,
            readout=readout,
        ),
        code="""
const e = eps_slider.value, d = deltas.indexOf(delta_select.value);
const ki = k_slider.value, k = ks[ki];
marker.location = k;
const parts = [];
names.forEach((name, i) => {
  const y = grid.bounds[name][e][d];
  sources[i].data = {k: ks, y: y};
  parts.push(`${name} <b>${y[ki].toPrecision(4)}</b>`);
});
pld.data = {k: pld_ks, y: grid.pld[e][d]};
const j = pld_ks.indexOf(k);
if (j >= 0) parts.push(`exact <b>${grid.pld[e][d][j].toPrecision(4)}</b>`);
readout.text = `ε = ${epsilons[e]} per step, δ = ${delta_select.value}, `
  + `k = ${k}: total ε by ` + parts.join(", ");
""",
    )
    for control in (eps_slider, k_slider):
        control.js_on_change("value", callback)
    delta_select.js_on_change("value", callback)
    layout = column(row(eps_slider, delta_select, k_slider), fig, readout)
    return on_ready(layout, callback)
