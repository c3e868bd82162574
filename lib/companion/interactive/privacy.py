"""Interactive figures of notebooks 01 and 03: the privacy loss of three mechanisms on
two neighbouring inputs (01) and a planar Laplace cloud with its radius law (03).

The laws of 01 and 03 are closed forms that the browser evaluates (the same formulas
as :mod:`dpnn.mechanisms`; tests/test_interactive_browser.py compares the displayed
numbers with the library's at sample settings); 03's cloud is drawn by
:func:`dpnn.mechanisms.planar_laplace` at build time.
"""

from __future__ import annotations


import numpy as np
from bokeh.layouts import column, gridplot, row
from bokeh.models import (
    ColumnDataSource,
    CustomJS,
    Slider,
    Span,
)
from bokeh.plotting import figure

from dpnn import mechanisms

from . import controls
from .render import on_ready

__all__ = [
    "EM_UTILITIES",
    "privacy_loss_figure",
    "planar_laplace_figure",
]

#: Utilities of five candidates on D and on its neighbour D' (sensitivity 1): the
#: first two candidates trade one unit.
EM_UTILITIES = ((4.0, 3.0, 2.0, 1.0, 0.0), (3.0, 4.0, 2.0, 1.0, 0.0))

_BLUE, _ORANGE, _GREY = "#1f77b4", "#ff7f0e", "#555555"


def _panel(title, width=240, height=190, **options):
    fig = figure(
        width=width,
        height=height,
        title=title,
        toolbar_location=None,
        tools="",
        **options,
    )
    fig.title.text_font_size = "11px"
    fig.xaxis.axis_label_text_font_size = "11px"
    fig.yaxis.axis_label_text_font_size = "11px"
    return fig


def privacy_loss_figure(epsilon: float = 1.0):
    """Laplace (f(D) = 10, f(D') = 9, sensitivity 1), the exponential mechanism on
    :data:`EM_UTILITIES` and randomized response (true bit 1 on D, 0 on D'): each
    law on D and on D' (top) and the privacy loss ``ln p_D / p_D'`` of every
    outcome (bottom), which stays within ``[-epsilon, epsilon]``; a slider moves
    epsilon."""
    if not 0.05 <= float(epsilon) <= 5:
        raise ValueError(f"epsilon must be in [0.05, 5], got {epsilon!r}")
    slider = Slider(
        start=0.05,
        end=5,
        step=0.05,
        value=float(epsilon),
        title="ε",
        format="0.00",
        name="epsilon",
        width=360,
    )
    laws = ColumnDataSource({c: [] for c in ("z", "d", "d2", "loss")})
    em = ColumnDataSource({c: [] for c in ("x", "x1", "x2", "p", "p2", "loss")})
    rr = ColumnDataSource({c: [] for c in ("x", "x1", "x2", "p", "p2", "loss")})
    tops = [
        _panel("Laplace: density of the release", x_axis_label="released value"),
        _panel("exponential mechanism", x_axis_label="candidate"),
        _panel("randomized response", x_axis_label="reported bit"),
    ]
    bottoms = [
        _panel("privacy loss ln p_D / p_D'", x_axis_label="released value"),
        _panel("privacy loss per candidate", x_axis_label="candidate"),
        _panel("privacy loss per reported bit", x_axis_label="reported bit"),
    ]
    tops[0].line("z", "d", source=laws, color=_BLUE, line_width=2, legend_label="D")
    tops[0].line(
        "z",
        "d2",
        source=laws,
        color=_ORANGE,
        line_width=2,
        line_dash="dashed",
        legend_label="D'",
    )
    bottoms[0].line("z", "loss", source=laws, color="#2ca02c", line_width=2)
    for fig, source in ((tops[1], em), (tops[2], rr)):
        fig.vbar("x1", 0.36, "p", source=source, color=_BLUE, legend_label="D")
        fig.vbar("x2", 0.36, "p2", source=source, color=_ORANGE, legend_label="D'")
        fig.y_range.start = 0
    for fig, source in ((bottoms[1], em), (bottoms[2], rr)):
        fig.scatter("x", "loss", source=source, size=9, color="#2ca02c")
    bounds = []
    for fig in bottoms:
        for sign in (1, -1):
            span = Span(
                location=sign * float(epsilon),
                dimension="width",
                line_color=_GREY,
                line_dash="dotted",
                line_width=1.5,
            )
            fig.add_layout(span)
            bounds.append((span, sign))
    for fig in tops:
        fig.legend.label_text_font_size = "10px"
        fig.legend.padding = 2
        fig.legend.spacing = 0
    tops[2].xaxis.ticker = [0, 1]
    bottoms[2].xaxis.ticker = [0, 1]
    readout = controls.readout()
    code = """
const eps = slider.value;
const b = 1 / eps;  // Laplace scale, sensitivity 1
const lo = 9 - 7 * b, hi = 10 + 7 * b, n = 281;
const z = [], d = [], d2 = [], loss = [];
for (let i = 0; i < n; i++) {
  const x = lo + (hi - lo) * i / (n - 1);
  z.push(x);
  d.push(Math.exp(-Math.abs(x - 10) / b) / (2 * b));
  d2.push(Math.exp(-Math.abs(x - 9) / b) / (2 * b));
  loss.push((Math.abs(x - 9) - Math.abs(x - 10)) / b);
}
laws.data = {z, d, d2, loss};
function softmax(u) {
  const m = Math.max(...u);
  const w = u.map(v => Math.exp(eps * (v - m) / 2));
  const s = w.reduce((a, c) => a + c, 0);
  return w.map(v => v / s);
}
const p = softmax(U[0]), p2 = softmax(U[1]);
const xs = p.map((_, i) => i + 1);
const emloss = p.map((v, i) => Math.log(v / p2[i]));
em.data = {x: xs, x1: xs.map(v => v - 0.19), x2: xs.map(v => v + 0.19), p, p2,
           loss: emloss};
const keep = 1 / (1 + Math.exp(-eps));
rr.data = {x: [0, 1], x1: [-0.19, 0.81], x2: [0.19, 1.19], p: [1 - keep, keep],
           p2: [keep, 1 - keep],
           loss: [Math.log((1 - keep) / keep), Math.log(keep / (1 - keep))]};
for (const [span, sign] of bounds) span.location = sign * eps;
const worst = Math.max(...emloss.map(Math.abs));
readout.text = `ε = ${eps.toFixed(2)}: exponential mechanism `
  + `Pr[candidate 1 | D] = <b>${p[0].toFixed(4)}</b>, `
  + `Pr[candidate 1 | D'] = <b>${p2[0].toFixed(4)}</b>, `
  + `worst loss <b>${worst.toFixed(4)}</b>; randomized response keeps the bit `
  + `with <b>${keep.toFixed(4)}</b>; Laplace's loss reaches ±${eps.toFixed(2)}.`;
"""
    callback = CustomJS(
        args=dict(
            slider=slider,
            laws=laws,
            em=em,
            rr=rr,
            readout=readout,
            bounds=[s for s, _ in bounds],
            U=[list(u) for u in EM_UTILITIES],
        ),
        code=code.replace(
            "for (const [span, sign] of bounds) span.location = sign * eps;",
            "bounds.forEach((s, i) => { s.location = (i % 2 ? -1 : 1) * eps; });",
        ),
    )
    slider.js_on_change("value", callback)
    layout = column(slider, gridplot([tops, bottoms], toolbar_location=None), readout)
    return on_ready(layout, callback)


def planar_laplace_figure(
    epsilon_star: float = 1.0, radius_m: float = 200.0, n: int = 1500, seed: int = 0
):
    """Planar Laplace reports around one location at ``epsilon = epsilon_star /
    radius_m`` per metre (left; the privacy radius, the mean displacement ``2 /
    epsilon`` and the 95% radius as circles) and the radius law ``C(x) = 1 - (1 +
    epsilon x) e^{-epsilon x}`` with the cloud's empirical law (right). The cloud
    is :func:`dpnn.mechanisms.planar_laplace` at epsilon 1, scaled by ``1 /
    epsilon`` in the browser (the law scales exactly so)."""
    if not 0.1 <= float(epsilon_star) <= 10:
        raise ValueError(f"epsilon_star must be in [0.1, 10], got {epsilon_star!r}")
    if not 10 <= float(radius_m) <= 5000:
        raise ValueError(f"radius_m must be in [10, 5000], got {radius_m!r}")
    unit = mechanisms.planar_laplace(
        np.zeros((int(n), 2)), 1.0, np.random.default_rng(seed)
    )
    unit_r95 = float(mechanisms.planar_laplace_radius([0.95], 1.0)[0])
    radii = np.sort(np.hypot(unit[:, 0], unit[:, 1]))
    cloud = ColumnDataSource({"x": [], "y": []})
    circles = ColumnDataSource({"r": [], "colour": [], "label": []})
    law = ColumnDataSource({"x": [], "c": [], "emp": []})
    eps_slider = Slider(
        start=0.1,
        end=10,
        step=0.1,
        value=float(epsilon_star),
        title="ε*",
        name="epsilon_star",
        format="0.0",
        width=340,
    )
    r_slider = Slider(
        start=10,
        end=5000,
        step=10,
        value=float(radius_m),
        title="r (m)",
        name="radius_m",
        format="0",
        width=340,
    )
    left = _panel(
        "reported locations",
        width=360,
        height=360,
        match_aspect=True,
        x_axis_label="x (m)",
        y_axis_label="y (m)",
    )
    left.scatter("x", "y", source=cloud, size=2, alpha=0.4, color=_BLUE)
    left.scatter([0], [0], marker="star", size=14, color="#d62728")
    left.circle(
        0,
        0,
        radius="r",
        source=circles,
        fill_color=None,
        line_color="colour",
        line_width=2,
        legend_field="label",
    )
    left.legend.label_text_font_size = "9px"
    left.legend.location = "top_left"
    left.legend.background_fill_alpha = 0.6
    right = _panel(
        "radius law",
        width=360,
        height=360,
        x_axis_label="distance from the true location (m)",
        y_axis_label="Pr[report within distance]",
    )
    right.line(
        "x",
        "c",
        source=law,
        color="black",
        line_width=2,
        legend_label="C(x) = 1 - (1 + εx) e^(-εx)",
    )
    right.line(
        "x",
        "emp",
        source=law,
        color=_BLUE,
        line_dash="dashed",
        line_width=2,
        legend_label="the cloud's share",
    )
    right.legend.location = "bottom_right"
    right.legend.label_text_font_size = "10px"
    r_mark = Span(
        location=radius_m, dimension="height", line_color="#d62728", line_dash="dotted"
    )
    right.add_layout(r_mark)
    readout = controls.readout()
    callback = CustomJS(
        args=dict(
            ux=unit[:, 0].tolist(),
            uy=unit[:, 1].tolist(),
            radii=radii.tolist(),
            r95=unit_r95,
            eps_slider=eps_slider,
            r_slider=r_slider,
            cloud=cloud,
            circles=circles,
            law=law,
            readout=readout,
            r_mark=r_mark,
        ),
        code="""
const es = eps_slider.value, r = r_slider.value, eps = es / r;
cloud.data = {x: ux.map(v => v / eps), y: uy.map(v => v / eps)};
const fmt = v => Math.round(v).toLocaleString('en');
circles.data = {r: [r, 2 / eps, r95 / eps], colour: ['#d62728', '#2ca02c', '#555555'],
  label: [`privacy radius r = ${fmt(r)} m`,
          `mean displacement 2/ε = ${fmt(2 / eps)} m`,
          `95% within ${fmt(r95 / eps)} m`]};
const top = 1.3 * r95 / eps, n = 200, x = [], c = [], emp = [];
let j = 0;
for (let i = 0; i < n; i++) {
  const d = top * i / (n - 1);
  x.push(d);
  c.push(1 - (1 + eps * d) * Math.exp(-eps * d));
  while (j < radii.length && radii[j] / eps <= d) j++;
  emp.push(j / radii.length);
}
law.data = {x, c, emp};
r_mark.location = r;
const within = 1 - (1 + es) * Math.exp(-es);
readout.text = `ε = ${eps.toPrecision(4)} per metre: mean displacement `
  + `<b>${(2 / eps).toFixed(1)}</b> m, 95% of reports within `
  + `<b>${(r95 / eps).toFixed(1)}</b> m, Pr[report within r] = `
  + `<b>${within.toFixed(4)}</b>`;
""",
    )
    eps_slider.js_on_change("value", callback)
    r_slider.js_on_change("value", callback)
    layout = column(row(eps_slider, r_slider), row(left, right), readout)
    return on_ready(layout, callback)
