"""The interactive explorers: exact figure contents, static without a front end, live
sliders that redraw."""

import importlib

import matplotlib

matplotlib.use("agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.special import expit  # noqa: E402

from companion import explorers  # noqa: E402
from dpnn import accounting, mechanisms  # noqa: E402


def test_without_a_front_end_every_explorer_draws_one_static_figure(monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert not explorers.live_front_end()
    for explore in (
        explorers.explore_laplace,
        explorers.explore_composition,
        explorers.explore_planar_laplace,
        explorers.explore_dptt,
    ):
        result = explore()
        assert isinstance(result, matplotlib.figure.Figure), explore.__name__


def test_a_jupyter_server_session_alone_is_not_enough_outside_a_kernel(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/01_dp_primer.ipynb")
    assert not explorers.live_front_end()  # no IPython kernel in pytest


def test_live_explorer_redraws_when_a_slider_moves(monkeypatch):
    import ipywidgets

    drawn = []
    original = explorers.laplace_figure
    monkeypatch.setattr(
        explorers.privacy,
        "laplace_figure",
        lambda **kw: drawn.append(kw) or original(**kw),
    )
    box = explorers.explore_laplace(epsilon=1.0, live=True)
    assert isinstance(box, ipywidgets.VBox)
    slider = box.children[0].children[0]
    assert slider.description == "ε" and slider.value == pytest.approx(1.0)
    slider.value = 0.5
    assert [d["epsilon"] for d in drawn] == [1.0, pytest.approx(0.5)]
    for explore in (
        explorers.explore_composition,
        explorers.explore_planar_laplace,
        explorers.explore_dptt,
    ):
        assert isinstance(explore(live=True), ipywidgets.VBox)


def test_laplace_explorer_draws_the_exact_densities_and_a_loss_that_reaches_epsilon():
    fig = explorers.laplace_figure(epsilon=0.7, sensitivity=2.0, count=5.0)
    density, neighbour = fig.axes[0].lines[:2]
    z = density.get_xdata()
    scale = 2.0 / 0.7
    assert np.allclose(
        density.get_ydata(), np.exp(-np.abs(z - 5.0) / scale) / (2 * scale)
    )
    assert np.allclose(
        neighbour.get_ydata(), np.exp(-np.abs(z - 3.0) / scale) / (2 * scale)
    )
    loss = fig.axes[1].lines[0].get_ydata()
    assert np.allclose(loss, np.log(density.get_ydata() / neighbour.get_ydata()))
    assert loss.max() == pytest.approx(0.7) and loss.min() == pytest.approx(-0.7)
    with pytest.raises(ValueError, match="epsilon"):
        explorers.laplace_figure(epsilon=0.0)


def test_composition_explorer_plots_the_accounting_values():
    fig = explorers.composition_figure(epsilon=0.2, delta=1e-5, k_max=100)
    lines = {line.get_label(): line for line in fig.axes[0].lines}
    ks = lines["basic (Thm 2.9)"].get_xdata()
    assert ks[0] == 1 and ks[-1] == 100
    assert np.allclose(lines["basic (Thm 2.9)"].get_ydata(), 0.2 * ks)
    k = int(ks[-1])
    assert lines["advanced (Thm 2.10)"].get_ydata()[-1] == pytest.approx(
        np.sqrt(2 * k * np.log(1e5)) * 0.2 + k * 0.2 * (np.exp(0.2) - 1)
    )
    assert lines["optimal for ε-DP (KOV)"].get_ydata()[-1] == pytest.approx(
        accounting.optimal_pure_composition_epsilon(0.2, k, 1e-5)
    )
    with pytest.raises(ValueError, match="delta"):
        explorers.composition_figure(delta=1.0)


def test_planar_laplace_explorer_draws_the_mechanisms_cloud_in_metres():
    fig = explorers.planar_laplace_figure(
        epsilon_star=2.0, radius_m=400.0, n=300, seed=7
    )
    cloud = fig.axes[0].collections[0].get_offsets()
    expected = mechanisms.planar_laplace(
        np.zeros((300, 2)), 2.0 / 400.0, np.random.default_rng(7)
    )
    assert np.allclose(cloud, expected)
    radii = [np.max(np.hypot(*line.get_data())) for line in fig.axes[0].lines[1:]]
    from scipy import stats

    assert radii == pytest.approx(
        [400.0, 2 / 0.005, stats.gamma(a=2, scale=200.0).ppf(0.95)], rel=1e-6
    )


def test_dptt_trace_matches_the_reference_and_definition_2_6():
    points = np.array([3.0, 11.0, 19.0, 28.0, 40.0, 52.0, 66.0, 90.0])
    for utility, sensitivity in (("dis", 100.0), ("cmp", None)):
        tree, trace = explorers.dptt_trace(
            points, 37.0, 4.0, utility, sensitivity, seed=3
        )
        decisions = [s for s in trace if s["action"] == "em"]
        assert len(decisions) == 3 and trace[-1]["action"] == "finish"
        gaps = np.array([s["right_utility"] - s["left_utility"] for s in decisions])
        assert np.allclose(
            [s["p_right"] for s in decisions],
            expit(4.0 * gaps / (2 * (sensitivity or 1.0))),
        )
        # the first decision's correct turn: the true NN (40) lies in the right half
        # (40, 52, 66, 90)
        assert decisions[0]["correct_bit"] == 1
        from dpnn.traversal import dptt_reference

        released, _ = dptt_reference(
            tree, [37.0], 4.0, utility, sensitivity, rng=np.random.default_rng(3)
        )
        assert trace[-1]["leaf"] == released[0]


def test_dptt_figure_shows_the_decisions_up_to_the_step():
    fig = explorers.dptt_figure(n_points=16, step=2)
    bars = fig.axes[1].patches  # one bar per level of the 16-point tree (4 decisions)
    grey = [
        b
        for b in bars
        if np.allclose(b.get_facecolor()[:3], matplotlib.colors.to_rgb("0.85"))
    ]
    assert len(bars) == 4 and len(grey) == 2
    assert "step 2 of 4" in fig.axes[1].get_title()
    assert "released" in explorers.dptt_figure(n_points=16).axes[1].get_title()


SHOWN = [  # control description: (value set, what the slider's d3 readout shows)
    ("explore_laplace", "laplace_figure", {"ε": (0.1122, "0.11"), "Δf": (2.5, "2.5")}),
    (
        "explore_composition",
        "composition_figure",
        {"ε per step": (0.0126, "0.013"), "δ": (1e-7, "1e-7"), "k max": (250, "250")},
    ),
    (
        "explore_planar_laplace",
        "planar_laplace_figure",
        {"ε*": (3.162, "3.16"), "r (m)": (750, "750")},
    ),
    (
        "explore_dptt",
        "dptt_figure",
        {"ε per step": (0.5623, "0.56"), "query": (12.5, "12.5"), "seed": (7, "7")},
    ),
]


@pytest.mark.parametrize("explore, figure, shown", SHOWN)
def test_the_figure_title_shows_what_the_controls_show(
    monkeypatch, explore, figure, shown
):
    # Old explorers: titles used .3g and .4g while sliders showed .2f or d3's .3g
    # (0.00000100 for δ).
    drawn = []
    original = getattr(explorers, figure)
    defining = importlib.import_module(original.__module__)  # patch where it is called
    monkeypatch.setattr(
        defining, figure, lambda **kw: drawn.append(original(**kw)) or drawn[-1]
    )
    box = getattr(explorers, explore)(live=True)
    controls = {c.description: c for c in box.children[0].children}
    for description, (value, text) in shown.items():
        controls[description].value = value
        titles = " ".join(ax.get_title() for ax in drawn[-1].axes)
        assert text in titles, (description, text, titles)
        assert (
            explorers.readout(
                controls[description].value, controls[description].readout_format
            )
            == text
        )
    matplotlib.pyplot.close("all")


def test_the_controls_are_laid_out_in_rows_of_wide_sliders():
    # Old explorers: one HBox row; at 1366 px notebook 05's five sliders were 7 px wide
    # each.
    import ipywidgets

    for explore in (
        explorers.explore_laplace,
        explorers.explore_composition,
        explorers.explore_planar_laplace,
        explorers.explore_dptt,
    ):
        grid = explore(live=True).children[0]
        assert isinstance(grid, ipywidgets.GridBox)
        assert "auto-fill" in grid.layout.grid_template_columns
        for control in grid.children:
            assert control.layout.width == f"{explorers.CONTROL_WIDTH}px"
            if isinstance(
                control, ipywidgets.widgets.widget_float._Float | ipywidgets.IntSlider
            ):
                assert control.continuous_update is False
    # description, readout: a track of >= 200 px
    assert explorers.CONTROL_WIDTH - 110 - 90 >= 200
    matplotlib.pyplot.close("all")


def test_slider_and_explore_draw_the_defaults_and_redraw_on_a_move():
    import ipywidgets

    control = explorers.slider("FloatSlider", "x", ".2f", min=0, max=2, step=0.5)
    assert isinstance(control, ipywidgets.FloatSlider)
    assert (control.description, control.readout_format) == ("x", ".2f")
    assert control.continuous_update is False and control.max == 2
    drawn = []

    def draw(x, title):
        drawn.append((x, title))
        return matplotlib.pyplot.figure()

    defaults = {"x": 1.0, "title": "t"}
    figure = explorers.explore(draw, {"x": control}, defaults, live=False)
    assert isinstance(figure, matplotlib.figure.Figure) and drawn == [(1.0, "t")]
    box = explorers.explore(draw, {"x": control}, defaults, live=True)
    assert isinstance(box, ipywidgets.VBox) and control.value == 1.0
    control.value = 1.5
    assert drawn[1:] == [(1.0, "t"), (1.5, "t")]
    matplotlib.pyplot.close("all")
