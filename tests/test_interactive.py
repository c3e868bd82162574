"""How a notebook shows an interactive figure: a deterministic placeholder in stored
outputs (papermill, nbval), the figure itself in a live JupyterLab kernel, and the
book's substitution of the one by the other."""

import json

import nbformat
import pytest

from companion import book, interactive
from companion.interactive.render import MIME_TYPE, placeholder_bundle


@pytest.fixture
def shown(monkeypatch):
    """What ``show_interactive`` displays: a list of (object, keywords)."""
    import IPython.display

    calls = []
    monkeypatch.setattr(IPython.display, "display", lambda o, **k: calls.append((o, k)))
    return calls


def test_stored_output_is_a_deterministic_placeholder_without_script(shown):
    interactive.show_interactive("privacy_loss")
    interactive.show_interactive("privacy_loss")
    (first, keywords), (second, _) = shown
    assert keywords == {"raw": True}
    assert first == second
    assert first[MIME_TYPE] == {"figure": "privacy_loss", "settings": {}}
    assert set(first) == {MIME_TYPE, "text/plain"}
    assert "<script" not in json.dumps(first)


def test_a_live_kernel_shows_the_figure_with_bokeh_inline(shown, monkeypatch):
    import html

    monkeypatch.setattr("companion.explorers.live_front_end", lambda: True)
    interactive.show_interactive("planar_laplace", epsilon_star=2.0)
    ((frame, _),) = shown
    page = html.unescape(frame.data.split('srcdoc="', 1)[1].split('" style=', 1)[0])
    assert page.startswith("<!DOCTYPE html>")
    assert "<script src=" not in page  # Bokeh inline: nothing is fetched
    assert page.count("<script>") >= 2 and 'data-figure="planar_laplace"' in page


def test_an_unknown_figure_is_refused_before_anything_is_shown(shown):
    with pytest.raises(ValueError, match="name must be one of"):
        interactive.show_interactive("nothing")
    assert shown == []


def test_the_book_replaces_each_placeholder_by_the_figure_loading_bokeh_once():
    bundle = placeholder_bundle("privacy_loss", {}, "caption")
    nb = nbformat.v4.new_notebook()
    for _ in range(2):
        cell = nbformat.v4.new_code_cell("show_interactive('privacy_loss')")
        cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
        nb.cells.append(cell)
    out = book.embed_interactive(nb)
    first, second = (c.outputs[0]["data"] for c in out.cells)
    assert set(first) == set(second) == {"text/html"}
    assert first["text/html"].count('src="../_static/bokeh/') == 2
    assert "_static/bokeh" not in second["text/html"]
    assert nb.cells[0].outputs[0]["data"] == bundle  # the notebook is not changed


def test_accuracy_curves_read_the_cmp_sweep_on_its_composed_budget():
    import pandas as pd

    from companion.interactive.accuracy import GEO, accuracy_curves

    rows = [
        {
            "dataset": "uniform",
            "N": 100,
            "d": d,
            "variant": "basic",
            "sensitivity": 1.0,
            "epsilon_thesis": eps,
            "top5": 0.1 * i,
            "top5_se": 0.01,
            "raw": 0.05 * i,
            "raw_se": 0.01,
        }
        for d in (1, 2)
        for i, eps in enumerate((2.0, 8.0, 32.0))
    ]
    curves = accuracy_curves(pd.DataFrame(rows), ["basic", "E8"], 100, utility="cmp")
    assert curves["2"]["basic"]["x"] == [2.0, 8.0, 32.0]  # ε*, not ε*/Δ
    assert curves["1"]["basic"]["raw"] == pytest.approx([0.0, 0.05, 0.1])
    assert GEO not in curves["1"] and "E8" not in curves["1"]  # not in this sweep
    with pytest.raises(ValueError, match="utility"):
        accuracy_curves(pd.DataFrame(rows), ["basic"], 100, utility="geo")


def test_a_grid_slider_indexes_its_values_and_refuses_another():
    from companion.interactive import controls

    slider = controls.grid_slider(
        (0.1, 0.5, 2.0), 0.5, title="ε", name="epsilon", width=100
    )
    assert (slider.start, slider.end, slider.step, slider.value) == (0, 2, 1, 1)
    assert slider.format.args["grid"] == [0.1, 0.5, 2.0]
    with pytest.raises(ValueError, match="value must be one of"):
        controls.grid_slider((0.1, 0.5), 0.3, title="ε", name="epsilon", width=100)
    with pytest.raises(ValueError, match="utility must be"):
        controls.utility_select("geo", 80)
