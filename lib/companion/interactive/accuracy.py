"""Interactive figure of notebook 07: accuracy against the composed budget per unit
distance (epsilon*/Delta, the thesis's accounting) for the DP-TT-DIS variants the
reader selects, against GEO at the same budget.

The curves are the sweep's (:func:`companion.claims.sweeps.composed_curve`), handed
over by the notebook that ran it (:func:`accuracy_curves`): they are stored in the
notebook's output, so the book draws the same numbers the chapter's static figures
show. The browser reads each curve at the budget the slider marks by log-linear
interpolation between grid points (a display only: the claims judge measured points;
a test compares with numpy's interpolation).
"""

from __future__ import annotations

import math

from bokeh.layouts import column, row
from bokeh.models import (
    CheckboxGroup,
    ColumnDataSource,
    CustomJS,
    CustomJSTickFormatter,
    Legend,
    LegendItem,
    Select,
    Slider,
    Span,
)
from bokeh.plotting import figure

from companion.claims.sweeps import METRICS, composed_curve

from . import controls
from .render import on_ready

__all__ = ["GEO", "accuracy_curves", "accuracy_figure"]

#: The name of GEO's curve (GEO at the budgets of the basic variant's grid points).
GEO = "GEO"

_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def accuracy_curves(table, variants, n, utility: str = "dis") -> dict:
    """``{d: {variant: {"x": budgets, metric: values, ...}}}`` for 1-D and 2-D: each
    variant's :func:`~companion.claims.sweeps.composed_curve` (``utility`` "dis" on
    ε*/Δ or "cmp" on ε*, uniform data of size ``n``) for each metric of
    :data:`~companion.claims.sweeps.METRICS`, and :data:`GEO`'s at the basic
    variant's budgets where the sweep ran GEO beside it. Variants the table lacks
    are left out."""
    if utility not in ("dis", "cmp"):
        raise ValueError(f"utility must be 'dis' or 'cmp', got {utility!r}")
    with_geo = all(f"geo_{m}" in table.columns for m in METRICS)
    out = {}
    for d in (1, 2):
        per = {}
        for name, variant, geo in [(v, v, False) for v in variants] + (
            [(GEO, "basic", True)] if with_geo else []
        ):
            entry = {}
            for metric in METRICS:
                c = composed_curve(
                    table, variant, metric, utility=utility, n=n, d=d, geo=geo
                )
                if c is None:
                    break
                entry["x"] = [float(v) for v in c.x]
                entry[metric] = [float(v) for v in c.y]
            else:
                per[name] = entry
        out[str(d)] = per
    return out


def accuracy_figure(
    curves: dict,
    d: int = 1,
    metric: str = "top5",
    selected=None,
    axis: str = "ε*/Δ",
):
    """The ``curves`` of :func:`accuracy_curves` against their budget ``axis``
    (epsilon*/Delta for DIS, epsilon* for CMP; log scale): controls pick the
    dimension, the metric, the variants shown and a budget at which every shown
    curve is read."""
    if str(d) not in curves:
        raise ValueError(f"d must be one of {sorted(curves)}, got {d!r}")
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    names = list(dict.fromkeys(n for per in curves.values() for n in per if n != GEO))
    if not names:
        raise ValueError("curves must hold at least one variant")
    selected = names[:3] if selected is None else list(selected)
    unknown = set(selected) - set(names)
    if unknown:
        raise ValueError(f"selected must be among {names}, got {sorted(unknown)}")
    xs = [x for per in curves.values() for c in per.values() for x in c["x"]]
    low, high = math.log10(min(xs)), math.log10(max(xs))
    sources = [ColumnDataSource({"x": [], "y": []}) for _ in names]
    geo_source = ColumnDataSource({"x": [], "y": []})
    fig = figure(
        width=720,
        height=360,
        x_axis_type="log",
        x_axis_label=f"{axis}: composed budget of one query"
        + (" per unit distance" if "Δ" in axis else ""),
        y_axis_label="accuracy",
        y_range=(-0.02, 1.02),
        toolbar_location=None,
        tools="",
    )
    renderers = []
    for i, (name, source) in enumerate(zip(names, sources)):
        colour = _COLOURS[i % len(_COLOURS)]
        line = fig.line("x", "y", source=source, color=colour, line_width=2)
        dots = fig.scatter("x", "y", source=source, color=colour, size=5)
        renderers.append([line, dots])
    geo_renderers = [
        fig.line(
            "x", "y", source=geo_source, color="black", line_dash="dashed", line_width=2
        ),
        fig.scatter(
            "x", "y", source=geo_source, fill_color="white", color="black", size=6
        ),
    ]
    items = [LegendItem(label=n, renderers=r) for n, r in zip(names, renderers)]
    items.append(LegendItem(label=f"GEO (same {axis})", renderers=geo_renderers))
    fig.add_layout(
        Legend(items=items, location="top_left", label_text_font_size="11px")
    )
    mid = (low + high) / 2
    mark = Span(
        location=10**mid, dimension="height", line_color="#555", line_dash="dotted"
    )
    fig.add_layout(mark)
    d_select = Select(
        title="data",
        value=f"{d}-D",
        options=[f"{k}-D" for k in sorted(curves)],
        name="d",
        width=90,
    )
    m_select = Select(
        title="accuracy", value=metric, options=list(METRICS), name="metric", width=90
    )
    boxes = CheckboxGroup(
        labels=names,
        active=[names.index(s) for s in selected],
        name="variants",
        inline=True,
        width=520,
    )
    level = Slider(
        start=round(low, 2),
        end=round(high, 2),
        step=0.01,
        value=round(mid, 2),
        title=f"read at {axis}",
        name="level",
        width=300,
        format=CustomJSTickFormatter(code="return (10 ** tick).toPrecision(3);"),
    )
    readout = controls.readout()
    callback = CustomJS(
        args={
            "curves": curves,
            "names": names,
            "geo": GEO,
            "sources": sources,
            "geo_source": geo_source,
            "d_select": d_select,
            "m_select": m_select,
            "boxes": boxes,
            "level": level,
            "mark": mark,
            "readout": readout,
            "renderers": renderers,
            "axis": axis,
        },
        code="""
const per = curves[d_select.value.replace('-D', '')], m = m_select.value;
const at = 10 ** level.value, lx = level.value;
mark.location = at;
function read(c) {  // numpy's interp in log10(x), NaN outside the measured range
  const x = c.x.map(Math.log10), y = c[m];
  if (lx < x[0] || lx > x[x.length - 1]) return NaN;
  for (let i = 1; i < x.length; i++) {
    if (lx <= x[i]) {
      if (x[i] === x[i - 1]) return y[i];
      return y[i - 1] + (y[i] - y[i - 1]) * (lx - x[i - 1]) / (x[i] - x[i - 1]);
    }
  }
  return y[0];
}
const show = v => isNaN(v) ? 'outside its budgets' : `<b>${v.toFixed(4)}</b>`;
const parts = [];
names.forEach((name, i) => {
  const on = boxes.active.includes(i) && name in per;
  renderers[i].forEach(r => { r.visible = on; });
  sources[i].data = on ? {x: per[name].x, y: per[name][m]} : {x: [], y: []};
  if (on) parts.push(`${name} ${show(read(per[name]))}`);
});
if (geo in per) {
  geo_source.data = {x: per[geo].x, y: per[geo][m]};
  parts.push(`GEO ${show(read(per[geo]))}`);
}
readout.text = `${d_select.value}, ${m}, at ${axis} = ${at.toPrecision(3)}: `
  + parts.join(', ');
""",
    )
    for control in (d_select, m_select):
        control.js_on_change("value", callback)
    boxes.js_on_change("active", callback)
    level.js_on_change("value", callback)
    layout = column(row(d_select, m_select, level), boxes, fig, readout)
    return on_ready(layout, callback)
