"""Figure helpers and the one style of the companion.

Every helper draws on an ``ax`` it is given (or a new one), returns the Figure,
and touches no global state: no ``plt.show()``, no ``rcParams`` changes. The
style is applied once per notebook by :func:`use_style`, and figures are
written one way, by :func:`save`.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullLocator
import seaborn as sns

__all__ = [
    "use_style",
    "figures_dir",
    "save",
    "output_histograms",
    "log_ratio_bins",
    "selection_probabilities",
    "noise_cloud",
    "ecdf_against_cdf",
    "geo_query_map",
    "curves",
    "kd_partition",
    "tree_diagram",
    "accuracy_curves",
    "protocol_sequence",
    "labelled_scatter",
    "variant_panels",
    "theory_vs_simulation",
    "recall_panels",
]

_STYLE = "dpnn.mplstyle"


def use_style() -> None:
    """Apply the companion's seaborn theme and matplotlib style (call once per notebook)."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    with resources.as_file(resources.files("dpnn") / _STYLE) as path:
        plt.style.use(str(path))


def figures_dir() -> Path:
    """Where :func:`save` writes: ``$DPNN_FIGURES_DIR`` if set, else ``build/interactive/figures``.

    The runner sets ``$DPNN_FIGURES_DIR`` (the committed ``figures/`` only for a plain
    default run); a JupyterLab session or papermill's own command line leaves it unset
    and so writes to the git-ignored ``build/``, never over the committed figures.
    """
    configured = os.environ.get("DPNN_FIGURES_DIR")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "build" / "interactive" / "figures"


def save(fig, name: str) -> Path:
    """Write ``fig`` to ``<figures_dir>/<name>.png`` and return the path.

    ``name`` says what the figure reproduces, e.g. ``thesis_fig6_14_dis_variants_1d``.
    PNG metadata carries no date, so the same figure gives the same bytes.
    """
    if not name or "/" in name or name.endswith(".png"):
        raise ValueError(f"name must be a bare figure name without '/' or '.png', got {name!r}")
    directory = figures_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    partial = directory / f".{name}.png.partial"
    draft = {}
    if os.environ.get("DPNN_DRAFT_FIGURES"):  # the ci smoke run: low resolution, no layout pass
        fig.set_layout_engine("none")
        draft = {"dpi": 50, "bbox_inches": None}
    fig.savefig(partial, format="png", metadata={"Software": None}, **draft)
    os.replace(partial, path)  # a reader (or an interrupted run) never sees half a PNG
    return path


def _axes(ax):
    if ax is None:
        fig, ax = plt.subplots()
        return fig, ax
    return ax.figure, ax


def output_histograms(samples_a, samples_b, bins, *, labels=("M(D)", "M(D')"), ax=None):
    """Overlaid density histograms of a mechanism's outputs on two neighbouring inputs."""
    fig, ax = _axes(ax)
    for samples, label in zip((samples_a, samples_b), labels):
        ax.hist(samples, bins=bins, density=True, histtype="stepfilled", alpha=0.45, label=label)
    ax.set_xlabel("output")
    ax.set_ylabel("density")
    ax.legend()
    return fig


def log_ratio_bins(centers, log_ratio, standard_error, epsilon, *, z=2.0, ax=None):
    """Per-bin empirical log-ratio log(p_D / p_D') with +-z standard errors, against +-epsilon."""
    fig, ax = _axes(ax)
    ax.errorbar(centers, log_ratio, yerr=z * np.asarray(standard_error), fmt="o", ms=3,
                lw=1, label=f"empirical log-ratio (±{z:g} s.e.)")
    for sign in (1, -1):
        ax.axhline(sign * epsilon, color="C3", ls="--", label="±ε (the guarantee)" if sign > 0 else None)
    ax.set_xlabel("output bin")
    ax.set_ylabel("log Pr[M(D) ∈ bin] / Pr[M(D') ∈ bin]")
    ax.legend(loc="center right")
    return fig


def selection_probabilities(epsilons, probabilities, labels, *, ax=None):
    """Selection probability of each candidate (columns of ``probabilities``) against epsilon."""
    fig, ax = _axes(ax)
    probabilities = np.asarray(probabilities)
    for column, label in enumerate(labels):
        ax.plot(epsilons, probabilities[:, column], label=label)
    ax.set_xscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("selection probability")
    ax.set_ylim(0, 1)
    ax.legend(title="candidate")
    return fig


def noise_cloud(clouds, origin, *, ax=None, s=2):
    """Scatter of perturbed locations, one colour per label in ``clouds`` (label -> (n, 2))."""
    fig, ax = _axes(ax)
    for label, points in clouds.items():
        points = np.asarray(points)
        ax.scatter(points[:, 0], points[:, 1], s=s, alpha=0.5, label=label, rasterized=True)
    ax.scatter([origin[0]], [origin[1]], marker="*", s=200, color="black", label="true location",
               zorder=3)
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    for handle in legend.legend_handles[:-1]:  # enlarge the cloud dots, not the star
        handle.set_sizes([30])
        handle.set_alpha(1)
    return fig


def ecdf_against_cdf(samples, grid, cdf, *, label="analytic CDF", ax=None):
    """Empirical CDF of ``samples`` against an analytic CDF evaluated on ``grid``."""
    fig, ax = _axes(ax)
    sns.ecdfplot(x=np.asarray(samples), ax=ax, label="empirical CDF")
    ax.plot(grid, cdf, ls="--", color="black", label=label)
    ax.set_ylabel("Pr[R ≤ r]")
    ax.legend()
    return fig


def geo_query_map(points, query, perturbed, true_index, released_index, *, ax=None):
    """One GEO query drawn on the map: places, true and perturbed query, true and released neighbour."""
    fig, ax = _axes(ax)
    points = np.asarray(points)
    ax.scatter(points[:, 0], points[:, 1], s=6, color="0.6", label="places", rasterized=True)
    ax.scatter(*query, marker="*", s=220, color="black", label="true query", zorder=3)
    ax.scatter(*perturbed, marker="X", s=120, color="C3", label="perturbed query (sent)", zorder=3)
    ax.scatter(*points[true_index], s=90, facecolors="none", edgecolors="C0", lw=2,
               label="true nearest neighbour", zorder=3)
    ax.scatter(*points[released_index], s=160, facecolors="none", edgecolors="C3", lw=2,
               label="GEO's answer", zorder=3)
    ax.plot(*np.column_stack([query, perturbed]), color="C3", lw=1, ls=":")
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.yaxis.set_major_locator(plt.MaxNLocator(5))
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def curves(x, series, *, xlabel, ylabel, logx=False, logy=False, ax=None, marker="o", **line_kwargs):
    """Line plot of several named series (label -> y values) over a shared x."""
    fig, ax = _axes(ax)
    for label, y in series.items():
        ax.plot(x, y, marker=marker, ms=4, label=label, **line_kwargs)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return fig


# --- tree and DP-TT figures ---------------------------------------------------------------

def kd_partition(tree, *, ax=None, labels=True):
    """Planar picture of a 2-D k-d tree (thesis Fig. 2.4): points and the split line of every inner node.

    With ``labels`` each point carries its index and each split line its node
    number ``n<k>``, the labels :func:`tree_diagram` draws with ``labels=True``.
    """
    fig, ax = _axes(ax)
    points = tree.points
    low, high = points.min(axis=0), points.max(axis=0)
    pad = 0.05 * (high - low)
    box = {0: (low - pad, high + pad)}
    for node in range(tree.n_nodes):  # breadth-first: a parent's box is known before its children
        lo, hi = box[node]
        if tree.left[node] < 0:
            continue
        axis, split = tree.axis[node], tree.split[node]
        if axis == 0:
            ax.plot([split, split], [lo[1], hi[1]], color="C0" if tree.depth[node] == 0 else "0.5",
                    lw=2.5 / (1 + tree.depth[node]) + 0.5)
        else:
            ax.plot([lo[0], hi[0]], [split, split], color="0.5", lw=2.5 / (1 + tree.depth[node]) + 0.5)
        if labels:  # the node number at the middle of its split line
            middle = [split, (lo[1] + hi[1]) / 2] if axis == 0 else [(lo[0] + hi[0]) / 2, split]
            ax.text(*middle, f"n{node}", fontsize=6, color="C0", ha="center", va="center",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8}, zorder=4)
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[axis], right_lo[axis] = split, split
        box[tree.left[node]] = (lo, left_hi)
        box[tree.right[node]] = (right_lo, hi)
    ax.scatter(points[:, 0], points[:, 1], color="black", s=18, zorder=3)
    if labels:
        for i, (x, y) in enumerate(points):
            ax.annotate(str(i), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7)
    ax.set_xlabel("coordinate 0")
    ax.set_ylabel("coordinate 1")
    return fig


def tree_diagram(tree, *, em=(), split=(), released=(), target=(), ax=None, title=None, labels=False):
    """A small leaf-only tree drawn top-down (thesis Figs. 5.1-5.3).

    Nodes in ``em`` are green (an exponential-mechanism decision), in ``split``
    blue (a data-independent split), leaves in ``released`` ringed in red,
    leaves in ``target`` (e.g. the query's true nearest neighbour) starred.
    With ``labels`` inner nodes show their number ``n<k>`` and leaves the index
    of their point, as :func:`kd_partition` labels them.
    """
    fig, ax = _axes(ax)
    x = np.zeros(tree.n_nodes)
    leaves = np.flatnonzero(tree.is_leaf)
    x[leaves] = tree.lo[leaves]
    for node in range(tree.n_nodes - 1, -1, -1):  # children come after parents in breadth-first order
        if tree.left[node] >= 0:
            x[node] = (x[tree.left[node]] + x[tree.right[node]]) / 2
    y = -tree.depth.astype(float)
    for node in range(tree.n_nodes):
        for child in (tree.left[node], tree.right[node]):
            if child >= 0:
                ax.plot([x[node], x[child]], [y[node], y[child]], color="0.7", lw=1, zorder=1)
    colour = np.array(["0.85"] * tree.n_nodes, dtype=object)
    colour[list(em)] = "#009E73"
    colour[list(split)] = "#0072B2"
    ax.scatter(x, y, c=list(colour), s=60, zorder=2, edgecolors="0.3", linewidths=0.5)
    rel = list(released)
    ax.scatter(x[rel], y[rel], s=160, facecolors="none", edgecolors="#D55E00", linewidths=2, zorder=3)
    if labels:
        for node in range(tree.n_nodes):
            text = str(tree.point[node]) if tree.left[node] < 0 else f"n{node}"
            ax.annotate(text, (x[node], y[node]), textcoords="offset points", fontsize=6, ha="center",
                        xytext=(0, -11) if tree.left[node] < 0 else (0, 6))
    goal = list(target)
    ax.scatter(x[goal], y[goal] - 0.45, marker="*", s=120, color="#E69F00", edgecolors="0.2", linewidths=0.5, zorder=4)
    handles = [plt.Line2D([], [], marker="o", ls="", color="#009E73", label="exponential mechanism"),
               plt.Line2D([], [], marker="o", ls="", color="#0072B2", label="split (no mechanism)"),
               plt.Line2D([], [], marker="o", ls="", mfc="none", mec="#D55E00", mew=2, label="released"),
               plt.Line2D([], [], marker="*", ls="", color="#E69F00", mec="0.2", ms=10, label="true nearest neighbour")]
    shown = [h for h, used in zip(handles, (em, split, released, target)) if len(used)]
    if shown:
        ax.legend(handles=shown, loc="lower center", bbox_to_anchor=(0.5, -0.2), ncol=4, fontsize="x-small")
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return fig


def accuracy_curves(x, series, *, xlabel, ylabel="accuracy", errors=None, logx=True, ax=None):
    """Accuracy (0-1) of several methods against a shared x, with optional standard-error bars."""
    fig, ax = _axes(ax)
    for label, y in series.items():
        err = None if errors is None else errors.get(label)
        ax.errorbar(x, y, yerr=err, marker="o", ms=4, capsize=2, label=label)
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")
    return fig


def protocol_sequence(messages, *, ax=None, title=None):
    """Sequence diagram of a client/server exchange: ``messages`` is a list of (sender, text).

    ``sender`` is ``"server"`` or ``"client"``; arrows run top to bottom in order.
    """
    fig, ax = _axes(ax)
    n = len(messages)
    for x, name in ((0.0, "server"), (1.0, "client")):
        ax.plot([x, x], [0.5, -n - 0.2], color="0.4", lw=1.5)
        ax.text(x, 0.8, name, ha="center", va="bottom", fontweight="bold")
    for i, (sender, text) in enumerate(messages):
        start, end = (0.0, 1.0) if sender == "server" else (1.0, 0.0)
        colour = "#0072B2" if sender == "server" else "#D55E00"
        ax.annotate("", xy=(end, -i - 0.5), xytext=(start, -i - 0.5),
                    arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.5})
        ax.text(0.5, -i - 0.42, text, ha="center", va="bottom", fontsize="x-small", color=colour)
    ax.set_xlim(-0.25, 1.25)
    ax.set_ylim(-n - 0.4, 1.4)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return fig


def labelled_scatter(x, y, labels, *, xlabel, ylabel, logx=True, ax=None, label_offsets=None, **scatter_kwargs):
    """Points with a text label each (e.g. one DP-TT variant per point).

    ``label_offsets`` maps a label to its (dx, dy) offset in points (default
    (4, 4)), to move labels of nearby points apart.
    """
    fig, ax = _axes(ax)
    ax.scatter(x, y, **scatter_kwargs)
    for xi, yi, label in zip(x, y, labels):
        ax.annotate(str(label), (xi, yi), textcoords="offset points", xytext=(label_offsets or {}).get(label, (4, 4)),
                    fontsize="x-small")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig


def variant_panels(table, x, variants, *, xlabel, geo=True, label="DP-TT", invert_x=False, logx=True,
                   suptitle=None, geo_table=None, geo_x=None, geo_xlabel=None, by="variant", names=None,
                   geo_name="GEO (top axis)"):
    """Thesis-style figure: (a) raw and (b) top-5 accuracy against ``x``, one curve per variant.

    ``table`` has columns ``by`` (default ``variant``), ``x``, ``raw``, ``raw_se``, ``top5``,
    ``top5_se`` (and ``geo_*`` when ``geo``: dashed, same colour). With
    ``geo_table`` GEO is drawn against its own x (``geo_x``) on a top axis, as
    in thesis Fig. 6.17. ``names`` maps a series to its legend text (default
    ``f"{label} {series}"``), e.g. to state each variant's composed budget.
    """
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, metric, name in zip(axes, ("raw", "top5"), ("(a) raw accuracy", "(b) top-5 accuracy")):
        for i, variant in enumerate(variants):
            part = table[table[by] == variant].sort_values(x)
            if part.empty:
                continue
            ax.errorbar(part[x], part[metric], yerr=part[f"{metric}_se"], color=f"C{i}", marker="o", ms=3,
                        capsize=2, label=(names or {}).get(variant, f"{label} {variant}"))
            if geo and f"geo_{metric}" in part:
                ax.errorbar(part[x], part[f"geo_{metric}"], yerr=part[f"geo_{metric}_se"], color=f"C{i}",
                            ls="--", marker="s", ms=3, capsize=2, label=f"GEO ({variant} rule)")
        if logx:
            ax.set_xscale("log")
            ax.xaxis.set_minor_locator(NullLocator())  # one tick per decade: readable, and half the drawing time
        if invert_x:
            ax.invert_xaxis()
        ax.set(xlabel=xlabel, ylabel=name.split(" ", 1)[1], title=name, ylim=(-0.02, 1.02))
        if geo_table is not None:
            top = ax.twiny()
            top.errorbar(geo_table[geo_x], geo_table[f"geo_{metric}"], yerr=geo_table[f"geo_{metric}_se"],
                         color="black", ls="--", marker="s", ms=3, capsize=2, label=geo_name)
            top.set_xscale("log")
            top.xaxis.set_minor_locator(NullLocator())
            top.set_xlabel(geo_xlabel)
            top.grid(False)
            handles, labels = ax.get_legend_handles_labels()
            top_handles, top_labels = top.get_legend_handles_labels()
            ax.legend(handles + top_handles, labels + top_labels, fontsize="x-small", loc="upper left")  # accuracy is low on the left in every thesis figure
        else:
            ax.legend(fontsize="x-small", loc="upper left")
    if suptitle:
        fig.suptitle(suptitle)
    return fig


# --- simrand figures -------------------------------------------------------------------------

def theory_vs_simulation(x, analytic, simulated, *, errors=None, xlabel, ylabel, logx=False,
                         logy=False, legend=None, ax=None):
    """Analytic curves (lines) with simulated values (markers, optional error bars), same colour per label.

    ``analytic`` and ``simulated`` map a label to y values over the shared ``x``;
    ``errors`` maps a label to error-bar half-widths of the simulated values;
    ``legend`` optionally maps a simulated label to its own legend text. With
    ``logx`` the x values themselves are the tick labels.
    """
    fig, ax = _axes(ax)
    colours = sns.color_palette("colorblind", max(len(analytic), len(simulated)))
    labels = list(dict.fromkeys(list(analytic) + list(simulated)))
    for colour, label in zip(colours, labels):
        if label in analytic:
            ax.plot(x, analytic[label], color=colour, lw=1.5, label=f"{label} (analytic)")
        if label in simulated:
            err = None if errors is None else errors.get(label)
            text = (legend or {}).get(label, f"{label} (simulated)")
            ax.errorbar(x, simulated[label], yerr=err, color=colour, ls="none", marker="o", ms=4,
                        capsize=2, label=text)
    if logx:
        ax.set_xscale("log")
        ax.set_xticks(list(x), labels=[f"{v:g}" for v in x])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="x-small")
    return fig


def pi_fraction(fraction) -> str:
    """An angle given as a fraction of pi, written as one: 0.125 -> 'π/8', 0.75 -> '3π/4', 1 -> 'π'."""
    from fractions import Fraction

    f = Fraction(float(fraction)).limit_denominator(256)
    if f <= 0:
        raise ValueError(f"fraction must be > 0, got {fraction!r}")
    return "π" if f == 1 else (f"π/{f.denominator}" if f.numerator == 1 else f"{f.numerator}π/{f.denominator}")


def recall_panel_data(table, by, chance, private, *, z=1.96):
    """The inputs of :func:`recall_panels` from a long recall table.

    ``table`` has columns ``method``, ``epsilon``, ``recall``, ``se`` and the
    columns ``by``; one panel per group of ``by`` (a column named ``alpha/pi`` is
    titled as an angle, ``α = π/8``). The ``private`` methods become series over
    epsilon with error bars of ``z`` standard errors; every other method (a
    non-private ceiling, constant in epsilon) and ``chance`` become dashed
    references. Returns ``(panels, errors, references)``.
    """
    panels, errors, references = {}, {}, {}
    for key, group in table.groupby(list(by)):
        key = key if isinstance(key, tuple) else (key,)
        title = ", ".join(f"α = {pi_fraction(value)}" if name == "alpha/pi" else f"{name} = {value:g}"
                          for name, value in zip(by, key))
        mine = group[group["method"].isin(private)]
        series = {m: g.sort_values("epsilon") for m, g in mine.groupby("method")}
        panels[title] = {m: g["recall"].to_numpy() for m, g in series.items()}
        errors[title] = {m: z * g["se"].to_numpy() for m, g in series.items()}
        references[title] = {m: float(g["recall"].iloc[0]) for m, g in group[~group["method"].isin(private)].groupby("method")}
        references[title]["chance"] = chance
    return panels, errors, references


def recall_panels(x, panels, *, xlabel, ylabel="recall@10", ncols=3, errors=None, logx=True,
                  panel_width=3.6, panel_height=2.9, references=None):
    """A grid of small accuracy plots: ``panels`` maps a panel title to {method: y over x}.

    ``errors`` (optional) has the same shape as ``panels`` and gives error-bar
    half-widths. ``references`` (optional) maps a panel title to {label: y}, drawn as
    dashed horizontal lines (e.g. a non-private ceiling, chance). Returns the Figure;
    the legend is drawn once, on the first panel.
    """
    n = len(panels)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_width * ncols, panel_height * nrows),
                             sharex=True, sharey=True, squeeze=False)
    for ax, (title, series) in zip(axes.ravel(), panels.items()):
        for label, y in series.items():
            err = None if errors is None else errors[title].get(label)
            ax.errorbar(x, y, yerr=err, marker="o", ms=3, capsize=2, label=label)
        for r, (label, y) in enumerate(((references or {}).get(title) or {}).items()):
            ax.axhline(y, color=f"C{len(series) + r}", ls=(0, (4, 2)) if r % 2 == 0 else ":", lw=1.2, label=label)
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


# --- issue 6: private k-NN classification (notebook 09) -------------------------------------

def summary_panels(summary, *, x, panel, series, value="mean", error="ci95", xlabel, ylabel, logx=False,
                   logy=False, ncols=3, panel_titles=None, ylim=None, sharey=True, title=None, xticks=None,
                   reference=None, reference_label=None):
    """One panel per value of ``panel``; in each, one line per value of ``series`` against ``x``.

    ``title``, if given, heads the shared legend above the panels. ``xticks``: the x values to
    label (plain numbers, also on a log axis). ``reference``: {panel value: y} of a dashed grey
    line per panel (e.g. chance or the majority-class rate), named ``reference_label`` in the
    legend. On a log y axis an error bar reaching 0 or below is cut at a tenth of the mean (the
    bar's lower end is then not the interval's).

    ``summary`` is a long table (e.g. from ``classification.summarize``) with the
    columns named here; ``error`` gives the half-width of the error bars.
    """
    names = list(dict.fromkeys(summary[panel]))
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.3 * nrows), squeeze=False, sharey=sharey)
    colour_of = {value: f"C{i % 10}" for i, value in enumerate(dict.fromkeys(summary[series]))}  # one colour per series
    legend = {}
    for ax, name in zip(axes.flat, names):
        part = summary[summary[panel] == name]
        for label, line in part.groupby(series, sort=False):
            line = line.sort_values(x)
            yerr = None
            if error:
                yerr = np.asarray(line[error], dtype=float)
                if logy:
                    yerr = np.vstack([np.minimum(yerr, 0.9 * np.asarray(line[value], dtype=float)), yerr])
            legend[str(label)] = ax.errorbar(line[x], line[value], yerr=yerr, marker="o", ms=3.5, capsize=2,
                                             color=colour_of[label], label=str(label))
        if reference is not None and reference.get(name) is not None:
            legend[reference_label] = ax.axhline(reference[name], color="0.45", ls="--", lw=1.0, label=reference_label)
        ax.set_title((panel_titles or {}).get(name, str(name)), fontsize="medium")
        ax.set_xlabel(xlabel)
        ax.set_xscale("log" if logx else "linear")
        ax.set_yscale("log" if logy else "linear")
        if xticks is not None:
            ax.set_xticks(list(xticks), [f"{t:g}" for t in xticks])
            ax.xaxis.set_minor_locator(plt.NullLocator())
        if ylim is not None:
            ax.set_ylim(*ylim)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    labels, handles = list(legend), list(legend.values())  # every series of every panel, once
    # The style's constrained layout reserves room above the panels for the legend and its title.
    fig.legend(handles, labels, loc="outside upper center", ncol=min(len(labels), 6), frameon=False, title=title,
               title_fontsize="medium")
    return fig


def overlap_picture(queries, radii, graph, *, mcs_of=None, points=None, point_labels=None):
    """Proximity regions of test instances (left) and their region overlap graph (right), as in Fig. 3.

    ``mcs_of`` maps a vertex to the MCS of its component, written next to it.
    """
    import networkx as nx

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6))
    colours = sns.color_palette("colorblind", 10)
    components = sorted(nx.connected_components(graph), key=min)
    colour_of = {v: colours[i % 10] for i, nodes in enumerate(components) for v in nodes}
    if points is not None:
        for value, colour in ((0, "0.7"), (1, "k")):
            chosen = np.asarray(point_labels) == value
            left.scatter(points[chosen, 0], points[chosen, 1], c=colour, s=6, zorder=1,
                         label=f"training record, label {value}")
        left.legend(loc="upper right", fontsize="x-small", framealpha=0.9)
    left.set_xlabel("feature 1 (scaled to [0, 1])")
    left.set_ylabel("feature 2 (scaled to [0, 1])")
    for i, (centre, r) in enumerate(zip(queries, radii)):
        left.add_patch(plt.Circle(centre, r, fill=False, lw=1.5, color=colour_of[i]))
        left.annotate(f"x{i + 1}", centre, ha="center", va="center", fontsize="small", color=colour_of[i])
    left.set_aspect("equal")
    left.set_xlim(0, 1)
    left.set_ylim(0, 1)
    left.set_title("test instances and proximity regions")
    layout = {i: queries[i] for i in range(len(queries))}
    nx.draw_networkx(graph, pos=layout, ax=right, node_color=[colour_of[v] for v in graph.nodes],
                     labels={v: f"x{v + 1}" for v in graph.nodes}, font_size=8, node_size=380)
    if mcs_of is not None:
        for nodes in components:
            anchor = min(nodes)
            right.annotate(f"MCS {mcs_of[anchor]}", queries[anchor], xytext=(0, -22), textcoords="offset points",
                           ha="center", fontsize="small", color=colour_of[anchor])
    right.set_xlim(0, 1)
    right.set_ylim(0, 1)
    right.set_aspect("equal")
    right.set_title("region overlap graph")
    right.axis("off")
    return fig
def _points_by_shape(table, *, group, hue, value, ncols, logy, xlabel, ylabel, sharey):
    shapes = list(dict.fromkeys(table["shape"]))
    hues = list(dict.fromkeys(table[hue]))
    ncols = min(ncols, len(shapes))
    nrows = int(np.ceil(len(shapes) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 3.2 * nrows), squeeze=False, sharey=sharey)
    width = 0.7 / max(len(hues), 1)
    for ax, shape in zip(axes.ravel(), shapes):
        stats = table[table["shape"] == shape].groupby([group, hue])[value].agg(["mean", "min", "max"])
        groups = sorted(set(stats.index.get_level_values(0)))
        positions = np.arange(len(groups))
        for k, name in enumerate(hues):
            rows = stats.xs(name, level=1).reindex(groups)
            x = positions + (k - (len(hues) - 1) / 2) * width
            spread = [np.maximum(rows["mean"] - rows["min"], 0.0), np.maximum(rows["max"] - rows["mean"], 0.0)]
            ax.errorbar(x, rows["mean"], yerr=spread,  # clipped at 0: a mean of equal values may round past them
                        marker="o", ms=4, capsize=2, lw=1.0, color=f"C{k % 10}", label=name)
        ax.set_xticks(positions, [f"{g:g}" for g in groups])
        ax.set_title(f"query {shape}")
        ax.set_xlabel(xlabel)
        if logy:
            ax.set_yscale("log")
    for ax in axes.ravel()[len(shapes):]:
        ax.set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=min(len(labels), 5), frameon=False,
               fontsize="small")
    return fig


# --- issue 8 ---

def quantile_curves(table, x, value, *, by="method", xlabel, ylabel, logx=True, logy=True, ax=None,
                    center="median", band="fill"):
    """One line per ``by`` group: the ``center`` (median or mean) of ``value`` against ``x``, with a 25-75% band.

    ``table`` is a long pandas DataFrame (one row per run), as the CGP experiments
    return; this is the presentation of Liang and Yi's Fig. 2-5 (centre and quartiles).
    ``band="bars"`` draws the quartiles as error bars, each group's points shifted a little
    along x so that four groups stay readable (``"fill"``: translucent bands).
    """
    if band not in ("fill", "bars"):
        raise ValueError(f"band must be 'fill' or 'bars', got {band!r}")
    fig, ax = _axes(ax)
    groups = list(table.groupby(by, sort=False))
    for g, (label, group) in enumerate(groups):
        stats = group.groupby(x)[value]
        xs = np.array(sorted(group[x].unique()))
        mid = (stats.median() if center == "median" else stats.mean()).loc[xs].to_numpy()
        low, high = stats.quantile(0.25).loc[xs].to_numpy(), stats.quantile(0.75).loc[xs].to_numpy()
        if band == "bars":
            shift = (g - (len(groups) - 1) / 2) * 0.06
            xs_drawn = xs * np.exp(shift) if logx else xs + shift * (np.ptp(xs) or 1.0) / 3
            ax.errorbar(xs_drawn, mid, yerr=[mid - low, high - mid], marker="o", ms=4, capsize=2.5, lw=1.5,
                        elinewidth=1.0, label=label)
        else:
            ax.plot(xs, mid, marker="o", ms=4, label=label)
            ax.fill_between(xs, low, high, alpha=0.15)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")
    return fig


def hull_release_map(points, release, *, ax=None):
    """A trajectory's points, its convex hull, PCH's probe circle, anchors and the private hull (Liang and Yi §4.4)."""
    from scipy.spatial import ConvexHull

    fig, ax = _axes(ax)
    ax.scatter(points[:, 0], points[:, 1], s=1, color="0.6", label="user's points")
    for pts, style, label in ((points, "-", "true hull"), (release.released, "--", "private hull")):
        hull = ConvexHull(pts)
        ring = np.append(hull.vertices, hull.vertices[0])
        ax.plot(pts[ring, 0], pts[ring, 1], style, label=label)
    theta = np.linspace(0, 2 * np.pi, 200)
    ax.plot(release.centre[0] + release.radius * np.cos(theta), release.centre[1] + release.radius * np.sin(theta),
            ":", color="0.3", label="probe circle (ĉ, R)")
    anchors = points[release.anchors]
    ax.scatter(anchors[:, 0], anchors[:, 1], s=18, marker="s", label="anchors x_A (PNN)")
    ax.scatter(release.released[:, 0], release.released[:, 1], s=18, marker="x", label="released anchors")
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.yaxis.set_major_locator(plt.MaxNLocator(5))
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return fig


__all__ += ["quantile_curves", "hull_release_map"]
# --- issue 7 ---

def psd_tree(boxes, counts, *, rect=None, canonical=(), points=None, ax=None):
    """A small private spatial decomposition drawn like Cormode et al. Fig. 1.

    Every node box is outlined (thicker for shallower nodes), each leaf shows its
    released count, ``points`` are drawn faintly, the query ``rect`` dashed red,
    and the ``canonical`` nodes ``(depth, index, weight)`` shaded with their count.
    """
    fig, ax = _axes(ax)
    if points is not None:
        ax.scatter(points[:, 0], points[:, 1], s=2, color="0.6", zorder=1)
    height = len(boxes) - 1
    for d, b in enumerate(boxes):
        for x0, y0, x1, y1 in b:
            ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec="0.2",
                                       lw=2.5 - 2 * d / max(height, 1), zorder=2))
    for (x0, y0, x1, y1), c in zip(boxes[-1], counts[-1]):
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, f"{c:.0f}", ha="center", va="center", fontsize=7, zorder=4,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    for d, j, weight in canonical:
        x0, y0, x1, y1 = boxes[d][j]
        colour = "#0072B2" if weight == 1.0 else "#E69F00"
        ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, color=colour, alpha=0.25, zorder=1))
        if d < height:
            ax.text(x0 + 0.04 * (x1 - x0), y1 - 0.04 * (y1 - y0), f"{counts[d][j]:.0f}", ha="left",
                    va="top", fontsize=8, color=colour, weight="bold", zorder=4)
    if rect is not None:
        x0, y0, x1, y1 = np.ravel(rect)
        ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec="#D55E00", ls="--", lw=2, zorder=5))
    ax.set_xlim(boxes[0][0][0], boxes[0][0][2])
    ax.set_ylim(boxes[0][0][1], boxes[0][0][3])
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    handles = [plt.Rectangle((0, 0), 1, 1, color="#0072B2", alpha=0.4, label="node inside the query"),
               plt.Rectangle((0, 0), 1, 1, color="#E69F00", alpha=0.4, label="leaf cut (uniformity)"),
               plt.Line2D([], [], color="#D55E00", ls="--", label="query")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return fig


def error_bars_by_shape(table, *, group="epsilon", hue="variant", value="error", ncols=4, logy=True,
                        xlabel="epsilon", ylabel="median relative error", style="bars", sharey=False):
    """One panel per query shape: ``value`` (mean over trees) for each ``hue`` at each ``group``.

    ``table`` is a DataFrame with columns ``shape``, ``group``, ``hue`` and ``value``
    (e.g. the output of :func:`dpnn.psd.quadtree_study`); like Cormode et al. Fig. 3/5.
    ``style="points"`` draws each mean as a point with a bar from the smallest to the largest
    tree (the spread over independent trees), the hues side by side, joined by lines over
    ``group``: readable on a log axis, unlike bars. ``sharey`` gives every panel one y scale.
    """
    if style not in ("bars", "points"):
        raise ValueError(f"style must be 'bars' or 'points', got {style!r}")
    if style == "points":
        return _points_by_shape(table, group=group, hue=hue, value=value, ncols=ncols, logy=logy, xlabel=xlabel,
                                ylabel=ylabel, sharey=sharey)
    shapes = list(dict.fromkeys(table["shape"]))
    hues = list(dict.fromkeys(table[hue]))
    nrows = int(np.ceil(len(shapes) / ncols))
    fig, axes = plt.subplots(nrows, min(ncols, len(shapes)), figsize=(3.2 * min(ncols, len(shapes)), 3.0 * nrows),
                             squeeze=False, layout="constrained")
    width = 0.8 / len(hues)
    for ax, shape in zip(axes.ravel(), shapes):
        sub = table[table["shape"] == shape].groupby([group, hue])[value].mean().unstack()
        positions = np.arange(len(sub.index))
        for k, name in enumerate(hues):
            ax.bar(positions + (k - (len(hues) - 1) / 2) * width, sub[name].to_numpy(), width, label=name)
        ax.set_xticks(positions, [f"{g:g}" for g in sub.index])
        ax.set_title(f"query {shape}")
        ax.set_xlabel(xlabel)
        if logy:
            ax.set_yscale("log")
    for ax in axes.ravel()[len(shapes):]:
        ax.set_axis_off()
    axes[0, 0].set_ylabel(ylabel)
    axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return fig
__all__ += ["pi_fraction", "recall_panel_data"]
