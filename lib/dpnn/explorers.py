"""Interactive explorers: a few figures where moving a slider teaches more than a static
picture.

Each explorer is a pure figure function (``*_figure``, tested like any plot helper) and
an ``explore_*`` wrapper. In a live JupyterLab (or Jupyter Notebook) kernel the wrapper
shows ipywidgets sliders that redraw the figure; everywhere else (papermill, nbval, the
book, a plain Python session) it draws the figure of its default state once and creates
no widget at all, so stored outputs hold a static PNG and no widget state, and nothing
fails without a front end. ``live=True`` or ``live=False`` forces either mode.

Laid out for a 1366 x 768 laptop screen: the controls sit in rows of a grid, each
:data:`CONTROL_WIDTH` px wide, so every slider's track is at least 200 px and its
readout is never cut; a slider redraws when released. Each figure's title prints the
controls' values with the readout's own format (:func:`readout`), so title and controls
always agree.

The explorers, their notebooks and what moves:

* :func:`explore_laplace` (01): epsilon; the two neighbouring datasets' Laplace output
  densities and their log-ratio.
* :func:`explore_composition` (02): per-step epsilon and delta; the composition bounds
  against the number of steps k.
* :func:`explore_planar_laplace` (03): epsilon* and the radius in metres; a planar
  Laplace cloud around one point.
* :func:`explore_dptt` (05): epsilon, utility, query and step; one DP-TT traversal,
  level by level.
"""

from __future__ import annotations

import os
import re

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit

from dpnn import accounting, mechanisms, plots
from dpnn._validation import positive_finite
from dpnn.trees import build_tree

__all__ = [
    "live_front_end",
    "laplace_figure",
    "composition_figure",
    "planar_laplace_figure",
    "dptt_trace",
    "dptt_figure",
    "explore_laplace",
    "explore_composition",
    "explore_planar_laplace",
    "explore_dptt",
]


def live_front_end() -> bool:
    """True inside a kernel started by a Jupyter server (JupyterLab, Notebook), where
    widgets render.

    The server starts each notebook's kernel with ``JPY_SESSION_NAME`` in its
    environment; papermill, nbval and the book's build start kernels without it.
    """
    if "JPY_SESSION_NAME" not in os.environ:
        return False
    try:
        from IPython import get_ipython

        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def _show(fig) -> None:
    """Display ``fig`` once in a notebook and close it (so the inline backend does not
    show it again)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return
    if get_ipython() is not None:
        display(fig)
        plt.close(fig)


#: Width of one control in px: a 110 px description, a track of at least 200 px, the
#: readout.
CONTROL_WIDTH = 420
DESCRIPTION_WIDTH = "110px"


def readout(value, fmt: str) -> str:
    """``value`` as a slider shows it with ``readout_format`` ``fmt`` (d3-format's
    ``.Nf``, ``.Ne`` and ``d``), so a figure's title prints what the controls show."""
    if fmt == "d":
        return f"{int(value)}"
    text = format(float(value), fmt)
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", text) if fmt.endswith("e") else text


def _slider(kind: str, description: str, fmt: str, **options):
    """One ipywidgets slider of the explorers' layout, redrawing on release."""
    import ipywidgets as widgets

    return getattr(widgets, kind)(
        description=description, readout_format=fmt, continuous_update=False, **options
    )


def _controls_grid(controls: dict):
    """The controls in rows: a grid of :data:`CONTROL_WIDTH` px cells that wraps."""
    import ipywidgets as widgets

    for control in controls.values():
        control.layout = widgets.Layout(width=f"{CONTROL_WIDTH}px")
        control.style.description_width = DESCRIPTION_WIDTH
    columns = f"repeat(auto-fill, {CONTROL_WIDTH}px)"
    return widgets.GridBox(
        list(controls.values()),
        layout=widgets.Layout(
            grid_template_columns=columns, grid_gap="4px 16px", width="100%"
        ),
    )


def _explore(draw, controls: dict, defaults: dict, live):
    """Static figure of ``draw(**defaults)``, or sliders (``controls``: name -> widget)
    that redraw it."""
    if live is None:
        live = live_front_end()
    if not live:
        fig = draw(**defaults)
        _show(fig)
        return fig
    import ipywidgets as widgets
    from IPython.display import display

    output = widgets.Output()
    for name, control in controls.items():
        control.value = defaults[name]

    def redraw(*_):
        with output:
            output.clear_output(wait=True)
            fig = draw(
                **{**defaults, **{name: c.value for name, c in controls.items()}}
            )
            display(fig)
            plt.close(fig)

    for control in controls.values():
        control.observe(redraw, names="value")
    redraw()
    box = widgets.VBox([_controls_grid(controls), output])
    display(box)
    return box


# --- (a) notebook 01: epsilon and the two neighbouring datasets' output densities -----


def laplace_figure(epsilon: float = 1.0, sensitivity: float = 1.0, count: float = 10.0):
    """Laplace output densities on two neighbouring datasets (true answers ``count`` and
    ``count - sensitivity``) and their log-ratio, which stays within
    ``[-epsilon, epsilon]``."""
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    scale = sensitivity / epsilon
    neighbour = count - sensitivity
    z = np.linspace(
        neighbour - 6 * scale - sensitivity, count + 6 * scale + sensitivity, 801
    )
    density = np.exp(-np.abs(z - count) / scale) / (2 * scale)
    density_neighbour = np.exp(-np.abs(z - neighbour) / scale) / (2 * scale)
    # log p_D(z) - log p_D'(z), exactly
    loss = (np.abs(z - neighbour) - np.abs(z - count)) / scale
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    axes[0].plot(z, density, label=f"M(D), f(D) = {count:g}")
    axes[0].plot(z, density_neighbour, ls="--", label=f"M(D'), f(D') = {neighbour:g}")
    title = (
        f"Laplace, ε = {readout(epsilon, '.2f')}, Δf = {readout(sensitivity, '.1f')}"
    )
    axes[0].set(xlabel="released value", ylabel="density", title=title)
    axes[0].legend(fontsize="small")
    axes[1].plot(z, loss, color="C2", label="log p_D(z) / p_D'(z)")
    for bound in (epsilon, -epsilon):
        axes[1].axhline(bound, color="0.4", ls=":")
    axes[1].set(
        xlabel="released value", ylabel="privacy loss", title="log-ratio, within ±ε"
    )
    axes[1].set_ylim(-1.3 * epsilon, 1.3 * epsilon)
    return fig


def explore_laplace(epsilon: float = 1.0, sensitivity: float = 1.0, *, live=None):
    """Explorer (notebook 01): move epsilon and watch the two densities merge or
    separate."""
    controls = {}
    if live or (live is None and live_front_end()):
        controls = {
            "epsilon": _slider("FloatLogSlider", "ε", ".2f", min=-2, max=1, step=0.05),
            "sensitivity": _slider(
                "FloatSlider", "Δf", ".1f", min=0.5, max=5, step=0.5
            ),
        }
    return _explore(
        laplace_figure, controls, {"epsilon": epsilon, "sensitivity": sensitivity}, live
    )


# --- (b) notebook 02: composition bounds against k ------------------------------------


def composition_bounds(epsilon: float, delta: float, ks) -> dict:
    """Total epsilon after k steps of per-step ``epsilon`` by each bound
    (dpnn.accounting), per k."""
    ks = [int(k) for k in ks]
    return {
        "basic (Thm 2.9)": np.array(
            [accounting.basic_composition([epsilon] * k) for k in ks]
        ),
        "advanced (Thm 2.10)": np.array(
            [accounting.advanced_composition(epsilon, k, delta) for k in ks]
        ),
        "zCDP (ρ = kε²/2)": np.array(
            [
                accounting.dp_from_zcdp(k * accounting.zcdp_from_pure(epsilon), delta)
                for k in ks
            ]
        ),
        "bounded range (Thm 2.13), ε-BR steps": np.array(
            [accounting.br_composition([epsilon] * k, delta) for k in ks]
        ),
        "optimal for ε-DP (KOV)": np.array(
            [accounting.optimal_pure_composition_epsilon(epsilon, k, delta) for k in ks]
        ),
    }


def composition_figure(epsilon: float = 0.1, delta: float = 1e-6, k_max: int = 1000):
    """Composition bounds against the number of steps k, for per-step ``epsilon`` at
    ``delta``."""
    epsilon = positive_finite(epsilon, "epsilon")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if int(k_max) < 1:
        raise ValueError(f"k_max must be an integer >= 1, got {k_max!r}")
    ks = np.unique(np.round(np.logspace(0, np.log10(int(k_max)), 25)).astype(int))
    fig = plots.curves(
        ks,
        composition_bounds(epsilon, delta, ks),
        xlabel="compositions k",
        ylabel="total ε",
        logx=True,
        logy=True,
        marker=None,
    )
    fig.axes[0].set_title(
        f"per-step ε = {readout(epsilon, '.3f')}, δ = {readout(delta, '.0e')}, "
        f"k up to {readout(k_max, 'd')}"
    )
    fig.axes[0].legend(fontsize="x-small")
    return fig


def explore_composition(
    epsilon: float = 0.1, delta: float = 1e-6, k_max: int = 1000, *, live=None
):
    """Explorer (notebook 02): per-step epsilon and delta against the composition
    bounds."""
    controls = {}
    if live or (live is None and live_front_end()):
        controls = {
            "epsilon": _slider(
                "FloatLogSlider", "ε per step", ".3f", min=-3, max=1, step=0.1
            ),
            "delta": _slider("FloatLogSlider", "δ", ".0e", min=-12, max=-2, step=1),
            "k_max": _slider("IntSlider", "k max", "d", min=10, max=10_000, step=10),
        }
    return _explore(
        composition_figure,
        controls,
        {"epsilon": epsilon, "delta": delta, "k_max": k_max},
        live,
    )


# --- (c) notebook 03: a planar Laplace cloud, epsilon in metres -----------------------


def planar_laplace_figure(
    epsilon_star: float = 1.0, radius_m: float = 200.0, n: int = 2000, seed: int = 0
):
    """``n`` planar Laplace reports around one location at
    ``epsilon = epsilon_star / radius_m`` per metre, with the privacy radius, the mean
    displacement ``2 / epsilon`` and the 95% radius drawn as circles."""
    epsilon = positive_finite(epsilon_star, "epsilon_star") / positive_finite(
        radius_m, "radius_m"
    )
    cloud = mechanisms.planar_laplace(
        np.zeros((int(n), 2)), epsilon, np.random.default_rng(seed)
    )
    fig, ax = plt.subplots(figsize=(5.6, 6.4))
    ax.scatter(
        cloud[:, 0], cloud[:, 1], s=2, alpha=0.4, color="C0", label="reported locations"
    )
    ax.plot(0, 0, marker="*", ms=14, color="C3", ls="", label="true location")
    circles = {
        f"privacy radius r = {radius_m:.4g} m": (radius_m, "C3"),
        f"mean displacement 2/ε = {2 / epsilon:,.0f} m": (2 / epsilon, "C2"),
        f"95% within {mechanisms.planar_laplace_radius([0.95], epsilon)[0]:,.0f} m": (
            float(mechanisms.planar_laplace_radius([0.95], epsilon)[0]),
            "0.3",
        ),
    }
    angle = np.linspace(0, 2 * np.pi, 200)
    for label, (r, colour) in circles.items():
        ax.plot(r * np.cos(angle), r * np.sin(angle), color=colour, lw=1.5, label=label)
    reach = 1.05 * max(r for r, _ in circles.values())
    ax.set(
        xlim=(-reach, reach),
        ylim=(-reach, reach),
        aspect="equal",
        xlabel="x (m)",
        ylabel="y (m)",
        title=f"ε* = {readout(epsilon_star, '.2f')} within "
        f"{readout(radius_m, '.0f')} m: ε = {epsilon:.3g} per metre",
    )
    ax.legend(
        fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2
    )
    return fig


def explore_planar_laplace(
    epsilon_star: float = 1.0, radius_m: float = 200.0, *, live=None
):
    """Explorer (notebook 03): the privacy level and radius against the spread of the
    reports."""
    controls = {}
    if live or (live is None and live_front_end()):
        controls = {
            "epsilon_star": _slider(
                "FloatLogSlider", "ε*", ".2f", min=-1, max=2, step=0.05
            ),
            "radius_m": _slider(
                "FloatSlider", "r (m)", ".0f", min=10, max=5000, step=10
            ),
        }
    return _explore(
        planar_laplace_figure,
        controls,
        {"epsilon_star": epsilon_star, "radius_m": radius_m},
        live,
    )


# --- (d) notebook 05: one DP-TT traversal, step by step -------------------------------


def dptt_trace(
    points,
    query: float,
    epsilon: float,
    utility: str = "dis",
    sensitivity=None,
    seed: int = 0,
):
    """One basic DP-TT traversal of a 1-D leaf-only tree, as a list of steps (dicts),
    plus the tree.

    Each step is one exponential-mechanism decision from
    :func:`dpnn.traversal.dptt_reference` (``node``, ``depth``, ``left_utility``,
    ``right_utility``, ``p_right``, ``bit``) with ``correct_bit``: the turn towards the
    query's exact nearest neighbour. The last entry is the ``finish`` step with the
    released ``leaf``.
    """
    from dpnn.traversal import dptt_reference

    tree = build_tree(np.asarray(points, dtype=float))
    trace = []
    released, _ = dptt_reference(
        tree,
        [query],
        epsilon,
        utility,
        sensitivity,
        rng=np.random.default_rng(seed),
        trace=trace,
    )
    nearest = int(np.argmin(np.abs(tree.points[:, 0] - query)))
    rank = int(np.flatnonzero(tree.order == nearest)[0])
    for step in trace:
        if step["action"] == "em":
            right = tree.right[step["node"]]
            step["correct_bit"] = int(tree.lo[right] <= rank < tree.hi[right])
        else:
            step["leaf"] = int(released[0])
    return tree, trace


def dptt_figure(
    n_points: int = 16,
    query: float = 37.0,
    epsilon: float = 10.0,
    utility: str = "dis",
    step: int | None = None,
    seed: int = 0,
):
    """DP-TT on ``n_points`` uniform points in [0, 100] (1-D, sensitivity 100 for DIS):
    the tree with the decisions made up to ``step`` (all if None) and, per level, the
    probability of the correct turn."""
    rng = np.random.default_rng(seed)
    points = np.sort(rng.uniform(0, 100, int(n_points)))
    tree, trace = dptt_trace(
        points, query, epsilon, utility, 100.0 if utility == "dis" else None, seed
    )
    decisions = [s for s in trace if s["action"] == "em"]
    shown = len(decisions) if step is None else max(0, min(int(step), len(decisions)))
    done = shown == len(decisions)
    fig, axes = plt.subplots(
        1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.6, 1]}
    )
    plots.tree_diagram(
        tree,
        em=[s["node"] for s in decisions[:shown]],
        released=[trace[-1]["node"]] if done else [],
        ax=axes[0],
        title=f"query {readout(query, '.1f')}, {utility.upper()}, "
        f"ε = {readout(epsilon, '.2f')} per step, seed {seed}",
    )
    p_correct = np.array(
        [s["p_right"] if s["correct_bit"] else 1 - s["p_right"] for s in decisions]
    )
    levels = np.arange(len(decisions))
    colours = ["C2" if s["bit"] == s["correct_bit"] else "C3" for s in decisions]
    axes[1].bar(levels[:shown], p_correct[:shown], color=colours[:shown])
    axes[1].bar(levels[shown:], p_correct[shown:], color="0.85")
    axes[1].axhline(0.5, color="0.4", ls=":")
    axes[1].set(
        xlabel="tree level (decision)",
        ylabel="Pr[turn towards the true NN]",
        ylim=(0, 1.05),
        title=f"step {shown} of {len(decisions)}" + (": released" if done else ""),
    )
    axes[1].set_xticks(levels)
    axes[1].legend(
        handles=[
            plt.Rectangle((0, 0), 1, 1, color="C2", label="turned towards the true NN"),
            plt.Rectangle((0, 0), 1, 1, color="C3", label="turned away"),
            plt.Rectangle((0, 0), 1, 1, color="0.85", label="not yet decided"),
        ],
        fontsize="x-small",
        loc="upper right",
    )
    return fig


def dptt_step_probabilities(trace, epsilon: float, sensitivity: float) -> np.ndarray:
    """Pr[right] of each decision recomputed from its utilities (Def. 2.6 with two
    candidates)."""
    return np.array(
        [
            expit(
                epsilon * (s["right_utility"] - s["left_utility"]) / (2 * sensitivity)
            )
            for s in trace
            if s["action"] == "em"
        ]
    )


def explore_dptt(
    n_points: int = 16,
    query: float = 37.0,
    epsilon: float = 10.0,
    utility: str = "dis",
    step: int | None = None,
    seed: int = 0,
    *,
    live=None,
):
    """Explorer (notebook 05): step through one DP-TT traversal and its per-level
    probabilities."""
    controls = {}
    defaults = {
        "n_points": n_points,
        "query": query,
        "epsilon": epsilon,
        "utility": utility,
        "step": step,
        "seed": seed,
    }
    if live or (live is None and live_front_end()):
        import ipywidgets as widgets

        height = int(np.ceil(np.log2(max(int(n_points), 2))))
        defaults["step"] = height if step is None else step
        controls = {
            "step": _slider("IntSlider", "step", "d", min=0, max=height),
            "epsilon": _slider(
                "FloatLogSlider", "ε per step", ".2f", min=-1, max=2, step=0.05
            ),
            "query": _slider("FloatSlider", "query", ".1f", min=0, max=100, step=0.5),
            "utility": widgets.Dropdown(options=["dis", "cmp"], description="utility"),
            "seed": _slider("IntSlider", "seed", "d", min=0, max=50),
        }
    return _explore(dptt_figure, controls, defaults, live)
