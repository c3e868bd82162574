"""companion.plots: saving, style, no global state."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from companion import plots  # noqa: E402


def test_save_writes_named_png_with_stable_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("DPNN_FIGURES_DIR", str(tmp_path))
    digests = []
    for _ in range(2):
        fig = plots.output_histograms(np.arange(10.0), np.arange(10.0) + 1, bins=5)
        path = plots.save(fig, "demo_histograms")
        plt.close(fig)
        digests.append(path.read_bytes())
    assert path == tmp_path / "demo_histograms.png"
    assert digests[0] == digests[1]


@pytest.mark.parametrize("name", ["", "a/b", "x.png"])
def test_save_rejects_bad_names(name):
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match="name must be a bare figure name"):
        plots.save(fig, name)
    plt.close(fig)


def test_helpers_do_not_change_rcparams():
    before = dict(matplotlib.rcParams)
    figures = [
        plots.selection_probabilities([0.1, 1, 10], np.full((3, 2), 0.5), ["a", "b"]),
        plots.noise_cloud({"e": np.zeros((3, 2))}, (0, 0)),
        plots.ecdf_against_cdf(np.arange(5.0), np.arange(5.0), np.linspace(0, 1, 5)),
        plots.log_ratio_bins(np.arange(3), np.zeros(3), np.ones(3), 1.0),
    ]
    for fig in figures:
        plt.close(fig)
    assert dict(matplotlib.rcParams) == before


def test_use_style_loads_the_packaged_style():
    with matplotlib.rc_context():
        plots.use_style()
        assert matplotlib.rcParams["savefig.dpi"] == 150


def test_figure_and_axes_draws_on_the_given_axes_or_on_a_new_figure():
    fig, ax = plt.subplots(1, 2)
    assert plots.figure_and_axes(ax[1]) == (fig, ax[1])
    new_fig, new_ax = plots.figure_and_axes(None)
    assert new_fig is not fig and new_fig.axes == [new_ax]
    plt.close("all")


def test_every_helper_returns_its_figure():
    import pandas as pd

    table = pd.DataFrame(
        {
            "variant": ["a", "a"],
            "x": [1.0, 10.0],
            "raw": [0.1, 0.2],
            "raw_se": [0.01, 0.01],
            "top5": [0.3, 0.4],
            "top5_se": [0.01, 0.01],
        }
    )
    figures = [
        plots.variant_panels(table, "x", ["a"], xlabel="x", geo=False),
        plots.accuracy_curves([1, 2], {"a": [0.1, 0.2]}, xlabel="x"),
        plots.labelled_scatter([1, 2], [0.1, 0.2], ["p", "q"], xlabel="x", ylabel="y"),
        plots.protocol_sequence([("server", "hello"), ("client", "bit 1")]),
    ]
    for fig in figures:
        assert isinstance(fig, matplotlib.figure.Figure)
        plt.close(fig)


def test_variant_panels_legend_names_a_series_as_asked():
    import pandas as pd

    table = pd.DataFrame(
        {
            "variant": ["a", "a", "b", "b"],
            "x": [1.0, 10.0] * 2,
            "raw": [0.1, 0.2] * 2,
            "raw_se": [0.01] * 4,
            "top5": [0.3, 0.4] * 2,
            "top5_se": [0.01] * 4,
        }
    )
    fig = plots.variant_panels(
        table, "x", ["a", "b"], xlabel="x", geo=False, names={"a": "DP-TT a (ε* = 12)"}
    )
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == ["DP-TT a (ε* = 12)", "DP-TT b"]
    plt.close(fig)


def test_tree_diagram_stars_the_target_and_labelled_scatter_moves_labels():
    import numpy as np

    from dpnn.trees import build_tree

    tree = build_tree(np.arange(8.0))
    leaf = int(np.flatnonzero(tree.is_leaf)[3])
    fig = plots.tree_diagram(tree, released=[leaf], target=[leaf])
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["released", "true nearest neighbour"]
    plt.close(fig)
    fig = plots.labelled_scatter(
        [1, 2],
        [0.1, 0.2],
        ["p", "q"],
        xlabel="x",
        ylabel="y",
        label_offsets={"q": (4, -12)},
    )
    offsets = [t.xyann for t in fig.axes[0].texts]
    assert offsets == [(4, 4), (4, -12)]
    plt.close(fig)


def test_tree_diagram_and_partition_use_the_same_node_labels():
    import numpy as np

    from dpnn.trees import build_tree

    tree = build_tree(np.array([[1.0, 5.0], [2.0, 3.0], [7.0, 1.0], [4.0, 4.0]]))
    diagram = {
        t.get_text() for t in plots.tree_diagram(tree, labels=True).axes[0].texts
    }
    partition = {t.get_text() for t in plots.kd_partition(tree).axes[0].texts}
    inner = {f"n{k}" for k in np.flatnonzero(~tree.is_leaf)}
    leaves = {str(i) for i in range(4)}
    assert diagram == inner | leaves and partition == inner | leaves
    plt.close("all")


def test_pi_fraction_writes_angles_as_fractions_of_pi():
    assert [plots.pi_fraction(f) for f in (1, 0.5, 0.125, 0.75, 1 / 3)] == [
        "π",
        "π/2",
        "π/8",
        "3π/4",
        "π/3",
    ]
    with pytest.raises(ValueError, match="fraction must be > 0"):
        plots.pi_fraction(0)


def test_recall_panel_data_splits_series_errors_and_references():
    import pandas as pd

    rows = []
    for alpha in (0.5, 0.25):
        # out of order on purpose
        for eps, recall, se in ((2.0, 0.3, 0.02), (1.0, 0.1, 0.01)):
            rows.append(
                {
                    "alpha/pi": alpha,
                    "k": 16,
                    "method": "SimRand",
                    "epsilon": eps,
                    "recall": recall + alpha,
                    "se": se,
                }
            )
        rows.append(
            {
                "alpha/pi": alpha,
                "k": 16,
                "method": "SimHash, no noise",
                "epsilon": 1.0,
                "recall": 0.9,
                "se": 0.0,
            }
        )
    panels, errors, references = plots.recall_panel_data(
        pd.DataFrame(rows), ["alpha/pi", "k"], 0.01, ["SimRand"]
    )
    # sorted by the grouping columns
    assert list(panels) == ["α = π/4, k = 16", "α = π/2, k = 16"]
    # sorted by epsilon
    np.testing.assert_allclose(panels["α = π/2, k = 16"]["SimRand"], [0.6, 0.8])
    np.testing.assert_allclose(
        errors["α = π/2, k = 16"]["SimRand"], [1.96 * 0.01, 1.96 * 0.02]
    )
    assert references["α = π/4, k = 16"] == {"SimHash, no noise": 0.9, "chance": 0.01}
    # the chapter's letter for a column (notebook 12 writes m for the number of bits)
    renamed, _, _ = plots.recall_panel_data(
        pd.DataFrame(rows), ["alpha/pi", "k"], 0.01, ["SimRand"], symbols={"k": "m"}
    )
    assert list(renamed) == ["α = π/4, m = 16", "α = π/2, m = 16"]


def test_adversary_helpers_draw_their_lines_without_changing_rcparams():
    before = dict(matplotlib.rcParams)
    fig = plots.inference_error_panel(
        [2.0, 8.0], {"GEO": [0.25, 0.17]}, 0.27, standard_errors={"GEO": [0.01, 0.01]}
    )
    assert len(fig.axes[0].lines) >= 2  # the mechanism and the prior-only line
    plt.close(fig)
    fig = plots.actual_against_accounted(
        [0.01, 0.1],
        {"median": [0.5, 2.0]},
        {"pld": 8.0},
        marked={"corners": (1.0, 8.0)},
        legend=None,
    )
    assert fig.axes[0].get_legend() is None and fig.axes[0].get_yscale() == "log"
    plt.close(fig)
    fig = plots.error_against_rmse({"GEO": [0.3, 0.1]}, {"GEO": [0.2, 0.05]}, 0.27)
    assert list(fig.axes[0].lines[0].get_xdata()) == [0.1, 0.3]  # sorted by RMSE
    # linear from 0: an RMSE of 1e-4 does not stretch the axis over decades
    assert fig.axes[0].get_xscale() == "linear" and fig.axes[0].get_xlim()[0] == 0
    plt.close(fig)
    assert dict(matplotlib.rcParams) == before


def test_verdict_evidence_draws_one_panel_per_claim_with_points():
    from companion import claims

    x = np.array([1.0, 10.0, 100.0])
    a = claims.Curve(x, np.array([0.6, 0.7, 0.8]), np.full(3, 0.01), "a")
    b = claims.Curve(x, np.array([0.4, 0.5, 0.6]), np.full(3, 0.01), "b")
    shown = claims.above(a, b)
    assert [p.outcome for p in shown.evidence] == ["holds"] * 3
    assert shown.evidence[0].low == pytest.approx(0.2 - 1.6449 * 0.01 * 2**0.5, 1e-4)
    ledger = pd.DataFrame(
        {
            "id": ["x", "y"],
            "verdict": [shown.word, claims.NOT_COMPARABLE],
            "evidence": [shown.evidence, ()],
        }
    )
    fig = plots.verdict_evidence(ledger)
    assert len([ax for ax in fig.axes if ax.get_visible() and ax.has_data()]) == 1
    assert fig.axes[0].get_title(loc="left") == "x: agrees"
    plt.close(fig)
    assert plots.verdict_evidence(ledger.iloc[1:]) is None
    with pytest.raises(ValueError, match="evidence"):
        plots.verdict_evidence(ledger.drop(columns="evidence"))


def test_verdict_evidence_splits_parts_and_shades_each_points_band():
    from matplotlib.collections import PolyCollection

    from companion.claims.core import Point, combine

    rise = Point("", 10.0, 2.0e6, 1.5e6, 2.5e6, 0.0, np.inf, "holds")
    ratio = Point("", 10.0, 1.0, 0.9, 1.1, 2 / 3, 1.5, "holds")
    verdict = combine(
        {
            "falls": claims_verdict(rise),
            "close": claims_verdict(ratio),
        }
    )
    ledger = pd.DataFrame(
        {"id": ["F"], "verdict": [verdict.word], "evidence": [verdict.evidence]}
    )
    fig = plots.verdict_evidence(ledger, split=["F"], interval="95% interval")
    shown = [ax for ax in fig.axes if ax.has_data()]
    assert [ax.get_xlabel() for ax in shown] == ["falls", "close"]
    # the ratio's panel is on its own scale: its band (2/3 to 1.5) fills it
    assert shown[1].get_ylim()[1] < 2
    plt.close(fig)
    fig = plots.verdict_evidence(ledger)  # one panel: each point's own band
    (ax,) = [ax for ax in fig.axes if ax.has_data()]
    shaded = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(shaded) == 2  # a shaded band under each point
    plt.close(fig)
    with pytest.raises(ValueError, match="split"):
        plots.verdict_evidence(ledger, split=["G"])


def claims_verdict(point):
    from companion.claims.core import Verdict

    return Verdict("agrees", "", "", (point,))


def test_adversary_panels_name_their_footing_and_the_certified_bound():
    fig = plots.inference_error_panel(
        [2.0, 8.0], {"GEO": [0.25, 0.17]}, 0.27, xlabel="actual worst-case ε"
    )
    assert fig.axes[0].get_xlabel() == "actual worst-case ε"
    plt.close(fig)
    fig = plots.actual_against_accounted(
        [0.01, 0.1],
        {"median": [0.5, 2.0]},
        {"pld": 8.0},
        marked={"worst found": ([0.01, 0.1], [0.7, 2.5])},
        certified=8.0,
    )
    labels = [line.get_label() for line in fig.axes[0].lines]
    assert "certified bound" in labels and "worst found" in labels
    worst = fig.axes[0].lines[labels.index("worst found")]
    assert list(worst.get_ydata()) == [0.7, 2.5]  # one marker per distance
    plt.close(fig)


def test_dis_against_geo_footings_one_panel_per_footing():
    rows = [
        {
            "footing": f,
            "radius": r,
            "eps": 12.0,
            "eps_per_unit": 12.0 / r,
            **{
                f"{m}_{k}": v
                for m in ("dis", "geo")
                for k, v in (("top5", 0.5), ("top5_se", 0.01))
            },
        }
        for f in ("accounted", "actual")
        for r in (1e9, 1e5)
    ]
    fig = plots.dis_against_geo_footings(pd.DataFrame(rows), "top5")
    assert len(fig.axes) == 2
    assert [ax.get_title() for ax in fig.axes] == [
        "equal accounted privacy",
        "equal actual privacy",
    ]
    assert all("ε/Δ" in ax.get_xlabel() for ax in fig.axes)
    assert (
        "accounted" in fig.axes[0].get_xlabel() and "actual" in fig.axes[1].get_xlabel()
    )
    plt.close(fig)


def _named_ledger(points, claims):
    """A ledger of ``claims`` claims whose evidence is the named ``points``."""
    return pd.DataFrame(
        {"id": [f"c{i}" for i in range(claims)], "verdict": ["agrees"] * claims}
    ).assign(evidence=[points] * claims)


def test_named_settings_never_overlap_at_the_books_text_size():
    from companion.claims.core import Point

    # two named settings (x = 0) whose labels, wrapped at 11 characters, overlap
    # at the book's text size in a panel of six columns
    points = tuple(
        Point(name, 0.0, 0.9, 0.85, 0.95, 0.8, 1.0, "holds")
        for name in ("GEO at Δ = 1e5", "DP-TT-DIS at Δ = 1e3")
    )
    ledger = _named_ledger(points, 6)
    fig = plots.verdict_evidence(ledger)
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        labels = ax.get_xticklabels()
        # wrapped at 7 characters instead of 11
        assert [t.get_text() for t in labels] == [
            "GEO at\nΔ = 1e5",
            "DP-TT-DIS\nat Δ =\n1e3",
        ]
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert boxes[0].x1 <= boxes[1].x0
    plt.close(fig)


def test_named_settings_with_long_words_break_at_hyphens_when_crowded():
    from companion.claims.core import Point

    points = tuple(
        Point(name, 0.0, 0.9, 0.85, 0.95, 0.8, 1.0, "holds")
        for name in ("iris (non-interactive)", "moons (non-interactive)")
    )
    ledger = _named_ledger(points, 4)
    fig = plots.verdict_evidence(ledger, columns=4)  # as 09's figure
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        labels = ax.get_xticklabels()
        assert "non-\ninteractive)" in labels[0].get_text()  # broken at the hyphen
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert boxes[0].x1 <= boxes[1].x0
    plt.close(fig)
