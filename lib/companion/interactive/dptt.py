"""Interactive figure of notebook 05: one basic DP-TT traversal of a small 1-D tree,
its turn probabilities level by level and the exact law of the released leaf.

Every number is computed at build time by :mod:`dpnn.adversary.turns` (the turn
probabilities and the path law of basic DP-TT) over the controls' whole grid: the
query's position, epsilon per level, the utility (DIS or CMP) and DIS's sensitivity
Delta. The browser only picks the precomputed row.
"""

from __future__ import annotations

import functools

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (
    ColumnDataSource,
    CustomJS,
    Select,
    Slider,
    Span,
)
from bokeh.plotting import figure

from dpnn.adversary import path_log_law, path_nodes, turn_log_probabilities
from dpnn.trees import build_tree

from . import controls
from .render import on_ready

__all__ = [
    "TRAVERSAL_POINTS",
    "TRAVERSAL_QUERIES",
    "TRAVERSAL_EPSILONS",
    "TRAVERSAL_DELTAS",
    "traversal_tree",
    "traversal_grid",
    "dptt_traversal_figure",
]

#: The tree's 16 points: uniform on [0, 100] (seed 0), as 05's explorer draws them.
TRAVERSAL_POINTS = tuple(
    float(v) for v in np.sort(np.random.default_rng(0).uniform(0, 100, 16))
)
#: The controls' grid: query position, epsilon per level, DIS's sensitivity Delta.
TRAVERSAL_QUERIES = tuple(float(q) for q in np.arange(0.0, 100.1, 2.5))
TRAVERSAL_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
TRAVERSAL_DELTAS = (25.0, 50.0, 100.0, 200.0)


def traversal_tree():
    """The leaf-only tree of :data:`TRAVERSAL_POINTS`
    (:func:`dpnn.trees.build_tree`)."""
    return build_tree(np.array(TRAVERSAL_POINTS))


def _settings():
    """The (utility, Delta) pairs of the grid: DIS at each Delta, then CMP."""
    return [("dis", d) for d in TRAVERSAL_DELTAS] + [("cmp", None)]


@functools.cache
def traversal_grid() -> dict:
    """For every (utility, Delta), epsilon and query of the grid: the law of the
    released leaf (``leaf``, leaves in the order of ``leaf_x``) and, level by level,
    the probability of turning towards the leaf of the query's nearest neighbour
    (``turns``). Rounded to 5 decimals."""
    tree = traversal_tree()
    queries = np.array(TRAVERSAL_QUERIES)[:, None]
    ends = None
    leaf, turns = [], []
    nearest_leaf = []
    for q in queries[:, 0]:
        nn = int(np.argmin(np.abs(np.array(TRAVERSAL_POINTS) - q)))
        nearest_leaf.append(
            int(np.flatnonzero((tree.left < 0) & (tree.point == nn))[0])
        )
    paths, rights = path_nodes(tree, nearest_leaf)
    for utility, delta in _settings():
        leaf_u, turns_u = [], []
        for epsilon in TRAVERSAL_EPSILONS:
            ends, log_law = path_log_law(tree, queries, epsilon, utility, delta)
            leaf_u.append(np.round(np.exp(log_law), 5).tolist())
            per_query = []
            for j, q in enumerate(queries):
                nodes = paths[j][paths[j] >= 0]
                left, right = turn_log_probabilities(
                    tree, nodes, q[None], epsilon, utility, delta
                )
                towards = np.where(rights[j][: len(nodes)], right[:, 0], left[:, 0])
                per_query.append(np.round(np.exp(towards), 5).tolist())
            turns_u.append(per_query)
        leaf.append(leaf_u)
        turns.append(turns_u)
    leaf_x = [float(tree.points[tree.point[e], 0]) for e in ends]
    nearest = [leaf_x.index(float(tree.points[tree.point[n], 0])) for n in nearest_leaf]
    return {"leaf": leaf, "turns": turns, "leaf_x": leaf_x, "nearest": nearest}


def dptt_traversal_figure(
    query: float = 37.5,
    epsilon: float = 10.0,
    utility: str = "dis",
    delta: float = 100.0,
):
    """Basic DP-TT on the 16-point tree: the exact law of the released leaf (left;
    the query a dotted line, the leaf of its nearest neighbour in green) and the
    probability of turning towards that leaf at each level (right). Controls: the
    query, epsilon per level, the utility and DIS's Delta. Each level spends epsilon,
    so the whole traversal is (levels x epsilon)-DP for the query."""
    for name, value, grid in (
        ("query", query, TRAVERSAL_QUERIES),
        ("epsilon", epsilon, TRAVERSAL_EPSILONS),
        ("delta", delta, TRAVERSAL_DELTAS),
    ):
        if value not in grid:
            raise ValueError(f"{name} must be one of {grid}, got {value!r}")
    if utility not in ("dis", "cmp"):
        raise ValueError(f"utility must be 'dis' or 'cmp', got {utility!r}")
    grid = traversal_grid()
    law = ColumnDataSource({"x": [], "p": [], "colour": []})
    bars = ColumnDataSource({"level": [], "p": []})
    left = figure(
        width=440,
        height=340,
        title="law of the released leaf",
        x_axis_label="leaf (its point)",
        y_axis_label="Pr[released]",
        toolbar_location=None,
        tools="",
        x_range=(-2, 102),
        y_range=(0, 1.02),
    )
    left.vbar("x", 1.6, "p", source=law, color="colour")
    left.scatter(
        list(TRAVERSAL_POINTS), [0.0] * 16, marker="triangle", size=7, color="#555555"
    )
    query_mark = Span(
        location=query,
        dimension="height",
        line_color="#d62728",
        line_dash="dotted",
        line_width=2,
    )
    left.add_layout(query_mark)
    right = figure(
        width=280,
        height=340,
        title="Pr[turn towards the nearest neighbour]",
        x_axis_label="level",
        toolbar_location=None,
        tools="",
        y_range=(0, 1.02),
    )
    right.vbar("level", 0.7, "p", source=bars, color="#2ca02c")
    right.add_layout(
        Span(location=0.5, dimension="width", line_color="#555555", line_dash="dotted")
    )
    right.xaxis.ticker = [0, 1, 2, 3]
    for fig in (left, right):
        fig.title.text_font_size = "11px"
    q_slider = Slider(
        start=0,
        end=100,
        step=2.5,
        value=query,
        title="query",
        name="query",
        format="0.0",
        width=250,
    )
    e_slider = controls.grid_slider(
        TRAVERSAL_EPSILONS, epsilon, title="ε per level", name="epsilon", width=220
    )
    u_select = controls.utility_select(utility, 90)
    d_select = Select(
        title="Δ (DIS)",
        value=f"{delta:g}",
        name="delta",
        width=90,
        options=[f"{d:g}" for d in TRAVERSAL_DELTAS],
    )
    readout = controls.readout()
    callback = CustomJS(
        args=dict(
            grid=grid,
            queries=list(TRAVERSAL_QUERIES),
            epsilons=list(TRAVERSAL_EPSILONS),
            deltas=[f"{d:g}" for d in TRAVERSAL_DELTAS],
            q_slider=q_slider,
            e_slider=e_slider,
            u_select=u_select,
            d_select=d_select,
            law=law,
            bars=bars,
            readout=readout,
            query_mark=query_mark,
        ),
        code="""
const qi = queries.indexOf(q_slider.value), e = e_slider.value;
const cmp = u_select.value === 'CMP';
d_select.disabled = cmp;
const s = cmp ? deltas.length : deltas.indexOf(d_select.value);
const p = grid.leaf[s][e][qi], t = grid.turns[s][e][qi], nn = grid.nearest[qi];
law.data = {x: grid.leaf_x, p: p,
            colour: p.map((_, i) => i === nn ? '#2ca02c' : '#1f77b4')};
bars.data = {level: t.map((_, i) => i), p: t};
query_mark.location = q_slider.value;
let err = 0;
p.forEach((v, i) => { err += v * Math.abs(grid.leaf_x[i] - q_slider.value); });
readout.text = `query ${q_slider.value.toFixed(1)}, ${u_select.value}`
  + (cmp ? '' : `, Δ = ${d_select.value}`) + `, ε = ${epsilons[e]} per level: `
  + `Pr[release the nearest neighbour (${grid.leaf_x[nn].toFixed(2)})] = `
  + `<b>${p[nn].toFixed(4)}</b>, expected distance to the query `
  + `<b>${err.toFixed(2)}</b>, turns towards it `
  + t.map(v => v.toFixed(3)).join(', ');
""",
    )
    for control in (q_slider, e_slider):
        control.js_on_change("value", callback)
    for control in (u_select, d_select):
        control.js_on_change("value", callback)
    layout = column(
        row(q_slider, e_slider, u_select, d_select), row(left, right), readout
    )
    return on_ready(layout, callback)
