"""One visual language: every method has one colour, marker and line style, defined
once in companion.plots.methods and used by the figure functions."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import pandas as pd
import pytest

from companion import plots
from companion.plots import methods


def drawn_styles(names):
    """Draw every method's line on one axes; read back (colour, marker, line style)."""
    fig, ax = plt.subplots()
    for name in names:
        ax.plot([0, 1], [0, 1], label=name, **methods.method_style(name).kwargs())
    found = {
        line.get_label(): (
            mcolors.to_hex(line.get_color()).lower(),
            line.get_marker(),
            line.get_linestyle(),
        )
        for line in ax.get_lines()
    }
    plt.close(fig)
    return found


def test_no_two_methods_share_colour_and_marker():
    drawn = drawn_styles(methods.METHODS)
    assert len(drawn) == len(methods.METHODS) >= 30
    seen = {}
    for name, (colour, marker, _) in drawn.items():
        assert (colour, marker) not in seen, (
            f"{name} is drawn like {seen[colour, marker]}"
        )
        seen[colour, marker] = name
    palette = {c.lower() for c in methods.OKABE_ITO.values()}
    assert {colour for colour, _, _ in drawn.values()} <= palette  # colour-blind safe


def test_the_check_catches_two_methods_drawn_alike(monkeypatch):
    twin = methods.METHODS["GEO"]
    monkeypatch.setitem(methods.METHODS, "GEO twin", twin)
    with pytest.raises(AssertionError, match="GEO twin is drawn like GEO"):
        test_no_two_methods_share_colour_and_marker()


def test_every_method_family_of_the_issue_is_registered():
    for name in [
        "GEO",
        "DP-TT-DIS basic",
        "DP-TT-CMP E8",
        "DP-TT-DIS GS-N20",
        "SM",
        "L-SRR",
        "private k-NN",
        "PrivBayes",
        "quad-opt",
        "kd-hybrid",
        "CGP Basic",
        "CGP PCH",
        "SimRand",
        "Gaussian projection",
        "GEO (E rule)",
    ]:
        assert methods.method_style(name) in methods.METHODS.values()
    assert methods.method_style("DP-TT-CMP E8") == methods.METHODS["DP-TT-CMP E"]
    assert methods.method_style("dp-tt-dis") == methods.METHODS["DP-TT-DIS basic"]
    with pytest.raises(KeyError, match="name must be a method .* got 'Laplace-X'"):
        methods.method_style("Laplace-X")


def test_dis_and_geo_differ_in_the_thesis_panels():
    # Before: in 07 DP-TT-DIS and GEO were the same blue, both solid with error bars.
    table = pd.DataFrame(
        {
            "variant": ["basic"] * 2,
            "sensitivity": [1.0, 10.0],
            **{k: [0.5, 0.6] for k in ["raw", "raw_se", "top5", "top5_se"]},
            **{f"geo_{k}": [0.4, 0.5] for k in ["raw", "raw_se", "top5", "top5_se"]},
        }
    )
    fig = plots.variant_panels(
        table, "sensitivity", ["basic"], xlabel="Δ", label="DP-TT-DIS"
    )
    lines = {c.get_label(): c.lines[0] for c in fig.axes[0].containers}
    dis = next(v for k, v in lines.items() if k.startswith("DP-TT-DIS"))
    geo = next(v for k, v in lines.items() if k.startswith("GEO"))
    assert mcolors.to_hex(dis.get_color()) != mcolors.to_hex(geo.get_color())
    assert (dis.get_linestyle(), geo.get_linestyle()) == ("-", "--")
    legend = fig.axes[0].get_legend()
    from matplotlib.lines import Line2D

    styles = {line.get_linestyle() for line in legend.findobj(Line2D)}
    assert {"-", "--"} <= styles  # the legend shows the two line styles
    size = legend.get_texts()[0].get_fontsize()
    assert size >= methods.min_font_size(fig.get_figwidth())
    plt.close(fig)


def test_min_font_size_keeps_text_at_9_px_in_the_book():
    # a 12-inch figure at 100 dpi is 1200 px, shown at 740 px: 10.5 pt are 9 px
    assert methods.min_font_size(12) == pytest.approx(9 * 1200 / 740 * 72 / 100)
    assert methods.min_font_size(12) == pytest.approx(10.51, abs=0.01)
    # a PNG narrower than the column is shown at its own size
    assert methods.min_font_size(4, column_px=740) == pytest.approx(9 * 72 / 100)
    with pytest.raises(ValueError, match="width_in must be > 0 inches, got 0"):
        methods.min_font_size(0)


def test_the_adversary_panels_draw_each_mechanism_in_its_style():
    names = ["GEO", "SM", "L-SRR", "DP-TT-CMP basic", "DP-TT-CMP E3", "DP-TT-DIS basic"]
    errors = {name: [0.3 - 0.01 * i, 0.2, 0.1] for i, name in enumerate(names)}
    for fig in (
        plots.inference_error_panel([2.0, 8.0, 32.0], errors, 0.27),
        plots.error_against_rmse(errors, errors, 0.27),
    ):
        ax = fig.axes[0]
        drawn = {
            line.get_label(): line
            for line in ax.get_lines()
            if not line.get_label().startswith("_")
        } | {c.get_label(): c.lines[0] for c in ax.containers}
        for name in names:
            expected = methods.method_style(name)
            line = drawn[name]
            assert mcolors.to_hex(line.get_color()) == expected.color.lower(), name
            assert line.get_marker() == expected.marker, name
        size = ax.get_legend().get_texts()[0].get_fontsize()
        assert size >= methods.min_font_size(fig.get_figwidth())
        plt.close(fig)


def _styles_drawn(fig):
    """(colour, marker) of each labelled line and error-bar series of ``fig``."""
    drawn = {}
    for ax in fig.axes:
        for line in ax.get_lines():
            if not line.get_label().startswith("_"):
                drawn[line.get_label()] = line
        for container in ax.containers:
            if container.get_label() and container.lines[0] is not None:
                drawn[container.get_label()] = container.lines[0]
    return {
        label: (mcolors.to_hex(line.get_color()).lower(), line.get_marker())
        for label, line in drawn.items()
    }


def _assert_registered(fig, names):
    drawn = _styles_drawn(fig)
    for name in names:
        expected = methods.method_style(name)
        assert drawn[name] == (expected.color.lower(), expected.marker), name
    plt.close(fig)


def test_curves_and_theory_draw_methods_in_their_styles_and_others_in_the_cycle():
    # Before: 13's equal-MSE panel drew GEO, SM and L-SRR in the colour cycle.
    fig = plots.curves(
        [1, 2], {m: [1, 2] for m in ("GEO", "SM", "L-SRR")}, xlabel="", ylabel=""
    )
    _assert_registered(fig, ["GEO", "SM", "L-SRR"])
    fig = plots.curves([1, 2], {"uniform budget": [1, 2]}, xlabel="", ylabel="")
    first = mcolors.to_hex(plt.rcParams["axes.prop_cycle"].by_key()["color"][0])
    assert _styles_drawn(fig)["uniform budget"] == (first.lower(), "o")
    plt.close(fig)
    fig = plots.theory_vs_simulation(
        [1, 2],
        {"GEO": [1, 2], "SM": [2, 3]},
        {"GEO": [1, 2], "SM": [2, 3]},
        xlabel="",
        ylabel="",
    )
    drawn = _styles_drawn(fig)
    for name in ("GEO", "SM"):
        style = methods.method_style(name)
        assert drawn[f"{name} (simulated)"] == (style.color.lower(), style.marker)
        assert drawn[f"{name} (analytic)"][0] == style.color.lower()
    plt.close(fig)


def test_the_classifiers_of_09_are_drawn_in_their_styles():
    # the "method" values of 09's r-N, conversion, k-NN and Fig. 15 tables
    figures = {
        ("non-private", "baseline", "proposed", "PrivBayes"),
        ("interactive", "non-interactive"),
        ("non-private", "baseline", "private-INT", "private-NONINT", "PrivBayes"),
        ("DP logistic regression", "DP Gaussian naive Bayes", "private k-NN (ours)"),
    }
    for names in figures:
        summary = pd.DataFrame(
            [
                {"dataset": d, "x": x, "method": m, "mean": 0.5, "ci95": 0.1}
                for d in ("a", "b")
                for x in (1, 2)
                for m in names
            ]
        )
        fig = plots.summary_panels(
            summary, x="x", panel="dataset", series="method", xlabel="", ylabel=""
        )
        _assert_registered(fig, names)
    styles = [methods.method_style(n) for n in ("proposed", "private-INT", "baseline")]
    assert len(set(styles)) == 3


def test_the_decompositions_of_10_are_drawn_in_their_styles():
    names = [
        "kd-standard",
        "kd-hybrid",
        "kd-cell",
        "kd-noisymean",
        "kd-true",
        "kd-pure",
        "hilbert-r",
        "quad-baseline",
        "quad-geo",
        "quad-post",
        "quad-opt",
    ]
    table = pd.DataFrame(
        [
            {"shape": s, "epsilon": e, "variant": v, "error": 0.1 + i}
            for s in ("1x1", "5x5")
            for e in (0.1, 1.0)
            for i, v in enumerate(names)
        ]
    )
    fig = plots.error_bars_by_shape(table, style="points")
    _assert_registered(fig, names)
    fig = plots.error_bars_by_shape(table, style="bars")
    colours = {
        c.get_label(): mcolors.to_hex(c.patches[0].get_facecolor()).lower()
        for c in fig.axes[0].containers
    }
    for name in names:
        assert colours[name] == methods.method_style(name).color.lower(), name
    plt.close(fig)
    medians = {m: [1, 2] for m in ("EM", "EM_s", "SS", "SS_s", "NM", "cell")}
    _assert_registered(plots.curves([0, 1], medians, xlabel="", ylabel=""), medians)


def test_the_cgp_mechanisms_of_11_are_drawn_in_their_styles():
    names = ["GP Basic", "CGP Basic", "GP PNN", "CGP PNN", "GP PCH", "CGP PCH"]
    table = pd.DataFrame(
        [{"method": m, "rho": r, "error": 1.0 + r} for m in names for r in (1, 2)]
    )
    for band in ("bars", "fill"):
        fig = plots.quantile_curves(
            table, "rho", "error", xlabel="", ylabel="", band=band
        )
        _assert_registered(fig, names)


def test_simrand_and_its_baseline_are_drawn_in_their_styles():
    panels = {"α = π/8": {"SimRand": [0.2, 0.4], "Gaussian RP": [0.1, 0.3]}}
    references = {
        "α = π/8": {
            "SimHash, no noise": 0.6,
            "JL projection, no noise": 0.7,
            "chance": 0.01,
        }
    }
    fig = plots.recall_panels([1, 2], panels, references=references, xlabel="ε")
    drawn = _styles_drawn(fig)
    for name in ("SimRand", "Gaussian RP"):
        style = methods.method_style(name)
        assert drawn[name] == (style.color.lower(), style.marker), name
    simrand, baseline = (
        methods.method_style(n).color.lower()
        for n in ("SimRand", "Gaussian projection")
    )
    assert drawn["SimHash, no noise"][0] == simrand
    assert drawn["JL projection, no noise"][0] == baseline
    assert drawn["chance"][0] not in {simrand, baseline}
    plt.close(fig)


def test_actual_against_accounted_legend_is_readable_in_the_book():
    # Before: "x-small" (8 pt at 100 dpi), under 9 px once the figure is scaled down.
    fig, axes = plt.subplots(1, 2, figsize=(9.4, 3.6))
    plots.actual_against_accounted(
        [0.1, 1.0], {"random pairs, median": [1.0, 2.0]}, {"PLD": 3.0}, ax=axes[0]
    )
    size = axes[0].get_legend().get_texts()[0].get_fontsize()
    assert size >= methods.min_font_size(9.4)
    plt.close(fig)


def test_the_accuracy_panels_of_05_draw_dis_geo_and_cmp_in_their_styles():
    # Before: 05's panels (moved to the companion by main) drew DIS and GEO in the
    # colour cycle, both solid with circles.
    rows = [
        {"d": d, "method": m, "raw": 0.5, "raw s.e.": 0.1, "top-5": 0.7}
        | {"top-5 s.e.": 0.1}
        for d in (1, 2)
        for m in ("DP-TT-DIS", "GEO")
        for _ in range(2)
    ]
    fig = plots.dis_against_geo_panels(
        pd.DataFrame(rows), [1.0, 10.0], n_points=100, epsilon=1.0
    )
    _assert_registered(fig, ["DP-TT-DIS", "GEO"])
    table = pd.DataFrame(
        [
            {"d": d, "raw": 0.5, "raw s.e.": 0.1, "top-5": 0.7, "top-5 s.e.": 0.1}
            for d in (1, 2)
            for _ in range(2)
        ]
    )
    fig = plots.cmp_accuracy_panels(table, [0.5, 1.0], n_points=100)
    cmp = methods.method_style("DP-TT-CMP")
    drawn = _styles_drawn(fig)
    assert drawn["1-D"] == drawn["2-D"] == (cmp.color.lower(), cmp.marker)
    legend = fig.axes[0].get_legend()
    assert legend.get_texts()[0].get_fontsize() >= methods.min_font_size(11)
    plt.close(fig)


def test_the_exact_privacy_check_of_12_draws_simrand_in_its_style():
    import numpy as np

    fig = plots.exact_privacy_check(
        np.array([1.0, 2.0]),
        np.array([0.5, 1.0]),
        epsilon=1.0,
        k_flip=4,
        k=8,
        eps_prime=np.array([0.0, 0.5, 1.0]),
        delta_curve=np.array([0.1, 0.01, 0.0]),
        delta=1e-6,
    )
    simrand = methods.method_style("SimRand").color.lower()
    dots = fig.axes[0].collections[0]
    assert mcolors.to_hex(dots.get_facecolor()[0]).lower() == simrand
    drawn = _styles_drawn(fig)
    assert drawn["exact δ(ε') at angle α (0 beyond)"][0] == simrand
    # the references are not in SimRand's colour
    assert drawn["ε"][0] != simrand and drawn["target δ"][0] != simrand
    plt.close(fig)


def test_saved_figures_show_ticks_and_legends_at_the_books_minimum(
    tmp_path, monkeypatch
):
    """A legend drawn "x-small" and ticks at 5 pt in a 12-inch figure would show at
    about 4-5 px in the book's column; ``save`` raises them to ``min_font_size`` and
    leaves larger text alone."""
    import matplotlib.pyplot as plt

    from companion.plots import methods, save

    monkeypatch.setenv("DPNN_FIGURES_DIR", str(tmp_path))
    fig, ax = plt.subplots(figsize=(12, 4))
    ax.plot([0, 1], [0, 1], label="GEO")
    ax.legend(fontsize="x-small", title="method")
    ax.tick_params(labelsize=5)
    ax.set_title("kept", fontsize=30)
    size = methods.min_font_size(12, dpi=plt.rcParams["figure.dpi"])
    assert ax.get_legend().get_texts()[0].get_fontsize() < size  # the negative control
    save(fig, "legibility_probe")
    legend = ax.get_legend()
    assert all(t.get_fontsize() >= size for t in legend.get_texts())
    assert legend.get_title().get_fontsize() >= size
    assert all(t.get_fontsize() >= size for t in ax.get_xticklabels())
    assert ax.title.get_fontsize() == 30
    assert (tmp_path / "legibility_probe.png").exists()
    plt.close(fig)
