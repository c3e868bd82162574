"""Interactive figure of notebook 14: what the server learns from one basic DP-TT
release on the 16-point tree of 05's figure.

Left, the Bayes-optimal adversary's posterior over the domain (a uniform prior on the
cells 0, 1, ..., 100) given the leaf the reader picks; right, the exact privacy curve
``delta(eps')`` of the whole transcript for two queries the reader places. The laws
are :func:`dpnn.adversary.path_log_law`'s, computed at build time for every cell,
epsilon and utility of the controls' grid; the browser normalises the posterior and
sums the hockey-stick divergence (the formulas of :func:`dpnn.adversary.posterior`
and :func:`dpnn.adversary.hockey_stick`; tests/test_interactive_browser.py compares
the displayed numbers with theirs).
"""

from __future__ import annotations

import functools

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (
    ColumnDataSource,
    CustomJS,
    CustomJSTickFormatter,
    Slider,
    Span,
)
from bokeh.plotting import figure

from dpnn.adversary import path_log_law

from .dptt import traversal_tree
from . import controls
from .render import on_ready

__all__ = [
    "POSTERIOR_CELLS",
    "POSTERIOR_EPSILONS",
    "POSTERIOR_DELTA",
    "posterior_grid",
    "posterior_figure",
]

#: The domain's cells (the adversary's grid and the queries' places).
POSTERIOR_CELLS = tuple(float(x) for x in range(101))
#: Epsilon per level of the controls; DIS uses the sensitivity Delta below.
POSTERIOR_EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
POSTERIOR_DELTA = 100.0


@functools.cache
def posterior_grid() -> dict:
    """``log_law[utility][epsilon][cell][leaf]``: the log-probability that a query at
    each cell ends at each leaf (rounded to 4 decimals; the leaves in the order of
    ``leaf_x``), for DIS (Delta = 100) and CMP."""
    tree = traversal_tree()
    cells = np.array(POSTERIOR_CELLS)[:, None]
    out = {"log_law": []}
    for utility, delta in (("dis", POSTERIOR_DELTA), ("cmp", None)):
        per_eps = []
        for epsilon in POSTERIOR_EPSILONS:
            ends, log_law = path_log_law(tree, cells, epsilon, utility, delta)
            per_eps.append(np.round(log_law, 4).tolist())
        out["log_law"].append(per_eps)
    out["leaf_x"] = [round(float(tree.points[tree.point[e], 0]), 2) for e in ends]
    return out


def posterior_figure(
    leaf: int = 5, epsilon: float = 10.0, utility: str = "dis", x1=20.0, x2=60.0
):
    """The posterior over the domain after the release of leaf number ``leaf`` (0-15,
    left to right) and the privacy curve of the transcript for queries ``x1`` and
    ``x2``, at ``epsilon`` per level (4 levels: the ledger charges 4 epsilon)."""
    if not (isinstance(leaf, int) and 0 <= leaf < 16):
        raise ValueError(f"leaf must be an integer in [0, 15], got {leaf!r}")
    if epsilon not in POSTERIOR_EPSILONS:
        raise ValueError(
            f"epsilon must be one of {POSTERIOR_EPSILONS}, got {epsilon!r}"
        )
    if utility not in ("dis", "cmp"):
        raise ValueError(f"utility must be 'dis' or 'cmp', got {utility!r}")
    for name, x in (("x1", x1), ("x2", x2)):
        if x not in POSTERIOR_CELLS:
            raise ValueError(f"{name} must be an integer place in [0, 100], got {x!r}")
    grid = posterior_grid()
    post = ColumnDataSource({"x": [], "w": []})
    curve = ColumnDataSource({"e": [], "d": []})
    left = figure(
        width=400,
        height=330,
        title="posterior over the domain given the released leaf",
        x_axis_label="query's place",
        y_axis_label="posterior weight per cell",
        toolbar_location=None,
        tools="",
        x_range=(-1, 101),
    )
    left.varea("x", 0, "w", source=post, fill_color="#1f77b4", fill_alpha=0.5)
    left.line("x", "w", source=post, color="#1f77b4", line_width=2)
    left.scatter(grid["leaf_x"], [0.0] * 16, marker="triangle", size=7, color="#555")
    leaf_mark = Span(
        location=grid["leaf_x"][leaf],
        dimension="height",
        line_color="#d62728",
        line_width=2,
    )
    left.add_layout(leaf_mark)
    right = figure(
        width=320,
        height=330,
        title="privacy curve of the transcript for x1, x2",
        x_axis_label="ε'",
        y_axis_label="δ(ε')",
        toolbar_location=None,
        tools="",
        y_range=(0, 1.02),
    )
    right.line("e", "d", source=curve, color="#2ca02c", line_width=2)
    for fig in (left, right):
        fig.title.text_font_size = "11px"
    leaf_slider = Slider(
        start=0,
        end=15,
        step=1,
        value=leaf,
        title="released leaf",
        name="leaf",
        width=180,
        format=CustomJSTickFormatter(
            args={"grid": grid["leaf_x"]}, code="return grid[tick];"
        ),
    )
    e_slider = controls.grid_slider(
        POSTERIOR_EPSILONS, epsilon, title="ε per level", name="epsilon", width=150
    )
    u_select = controls.utility_select(utility, 80)
    x1_slider = Slider(
        start=0, end=100, step=1, value=x1, title="x1", name="x1", width=140
    )
    x2_slider = Slider(
        start=0, end=100, step=1, value=x2, title="x2", name="x2", width=140
    )
    readout = controls.readout()
    callback = CustomJS(
        args={
            "grid": grid,
            "epsilons": list(POSTERIOR_EPSILONS),
            "leaf_slider": leaf_slider,
            "e_slider": e_slider,
            "u_select": u_select,
            "x1_slider": x1_slider,
            "x2_slider": x2_slider,
            "post": post,
            "curve": curve,
            "readout": readout,
            "leaf_mark": leaf_mark,
        },
        code="""
const s = u_select.value === 'DIS' ? 0 : 1, e = e_slider.value;
const law = grid.log_law[s][e], leaf = leaf_slider.value;
// posterior: uniform prior times the likelihood of the released leaf, normalised
const ll = law.map(row => row[leaf]);
const top = Math.max(...ll);
const w = ll.map(v => Math.exp(v - top));
const total = w.reduce((a, c) => a + c, 0);
const x = law.map((_, i) => i), weights = w.map(v => v / total);
post.data = {x: x, w: weights};
let mean = 0;
weights.forEach((v, i) => { mean += v * i; });
leaf_mark.location = grid.leaf_x[leaf];
// hockey-stick divergence of the two transcript laws, both ways
const lp = law[x1_slider.value], lq = law[x2_slider.value];
function delta(eps) {
  let a = 0, b = 0;
  for (let i = 0; i < lp.length; i++) {
    a += Math.max(0, Math.exp(lp[i]) - Math.exp(eps + lq[i]));
    b += Math.max(0, Math.exp(lq[i]) - Math.exp(eps + lp[i]));
  }
  return Math.max(a, b);
}
const charged = 4 * epsilons[e], es = [], ds = [];
let reach = 0;  // the largest privacy loss of any transcript: delta is 0 beyond
lp.forEach((v, i) => { reach = Math.max(reach, Math.abs(v - lq[i])); });
reach = Math.max(1.1 * reach, 0.05);
for (let i = 0; i <= 120; i++) {
  const v = reach * i / 120;
  es.push(v);
  ds.push(delta(v));
}
curve.data = {e: es, d: ds};
readout.text = `leaf ${grid.leaf_x[leaf]} released (${u_select.value}, `
  + `ε = ${epsilons[e]} per level): posterior mean <b>${mean.toFixed(2)}</b>; `
  + `queries ${x1_slider.value} and ${x2_slider.value}: δ(0) = `
  + `<b>${delta(0).toFixed(4)}</b>, δ(1) = <b>${delta(1).toFixed(4)}</b>, `
  + `largest loss ${(reach / 1.1).toFixed(3)}; the ledger charges ${charged}`;
""",
    )
    for control in (leaf_slider, e_slider, x1_slider, x2_slider):
        control.js_on_change("value", callback)
    u_select.js_on_change("value", callback)
    layout = column(
        row(leaf_slider, e_slider, u_select, x1_slider, x2_slider),
        row(left, right),
        readout,
    )
    return on_ready(layout, callback)
