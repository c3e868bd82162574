"""The interactive figures in a real browser (Debian's chromium through playwright):
each control moved, the figure redrawn within 100 ms, the displayed numbers equal to
the library's at that setting, and nothing requested outside the disk.

Each figure is written as a standalone page beside a copy of Bokeh's scripts (as the
book loads them from ``_static/bokeh/``), so no book build is needed here; a screenshot
of each figure in two states at 1366 x 768 is kept in the test's temporary folder.
"""

import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from companion.claims.sweeps import composed_curve
from companion.interactive import FIGURES, build_figure
from companion.interactive.accuracy import accuracy_curves
from companion.interactive.dptt import traversal_tree
from companion.interactive.privacy import EM_UTILITIES
from companion.interactive.render import bokeh_scripts, standalone_page
from dpnn import accounting, mechanisms
from dpnn.adversary import hockey_stick, path_log_law, posterior

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BOLD = re.compile(r"<b>([-+0-9.e]+)</b>")

pytestmark = pytest.mark.browser


VARIANTS = ["basic", "E8", "GS", "P8"]


def sweep() -> pd.DataFrame:
    """A small table shaped as a DIS sweep's (companion.studies.thesis.run_grid): five
    radii per variant and dimension, accuracies from a smooth law of the budget."""
    rng = np.random.default_rng(7)
    rows = []
    for d in (1, 2):
        for variant in VARIANTS:
            for radius in (1e5, 3e4, 1e4, 3e3, 1e3):
                eps = 10.0 * (1.3 if variant == "E8" else 1.0)
                acc = 1 / (1 + np.exp(-(np.log10(eps / radius) + 3.5 + d / 5)))
                acc = float(np.clip(acc + rng.normal(0, 0.01), 0, 1))
                rows.append(
                    {
                        "dataset": "uniform", "N": 1000, "d": d, "variant": variant,
                        "sensitivity": radius, "epsilon_thesis": eps,
                        "top5": acc, "top5_se": 0.01, "raw": 0.8 * acc, "raw_se": 0.01,
                        "geo_top5": acc**0.7, "geo_top5_se": 0.01,
                        "geo_raw": acc**0.9, "geo_raw_se": 0.01,
                    }
                )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("interactive")
    (folder / "bokeh").mkdir()
    for script in bokeh_scripts():
        shutil.copyfile(script, folder / "bokeh" / script.name)
    settings = {"accuracy": {"curves": accuracy_curves(sweep(), VARIANTS, 1000)}}
    for name in FIGURES:
        (folder / f"{name}.html").write_text(
            standalone_page(
                build_figure(name, **settings.get(name, {})), name, prefix="bokeh/"
            ),
            encoding="utf-8",
        )
    return folder


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("chromium is not installed: `make test` installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], headless=True
        )
        yield launched
        launched.close()


class Figure:
    """One figure's page: its readout, its controls, the time a redraw takes."""

    def __init__(self, browser, path):
        self.name = path.stem
        self.problems = []
        self.page = browser.new_page(viewport={"width": 1366, "height": 768})
        self.page.on("pageerror", lambda e: self.problems.append(f"script: {e}"))
        self.page.on(
            "console",
            lambda m: self.problems.append(m.text) if m.type == "error" else None,
        )

        def offline_only(route):
            if route.request.url.startswith(("file://", "data:", "blob:")):
                route.continue_()
            else:
                self.problems.append(f"network request: {route.request.url}")
                route.abort()

        self.page.route("**/*", offline_only)
        self.page.goto(path.as_uri(), wait_until="load")
        self.page.wait_for_function(
            "() => window.Bokeh && Bokeh.documents.length && "
            "Bokeh.documents[0].get_model_by_name('readout').text.length"
        )

    def readout(self) -> str:
        return self.page.evaluate(
            "() => Bokeh.documents[0].get_model_by_name('readout').text"
        )

    def numbers(self) -> list[float]:
        return [float(v) for v in BOLD.findall(self.readout())]

    def data(self) -> str:
        """Every data source's columns and every marker line's place, as JSON: what
        the plots draw."""
        return self.page.evaluate(
            """() => JSON.stringify(Array.from(Bokeh.documents[0].all_models)
                .filter(m => ['ColumnDataSource', 'Span']
                    .includes(m.constructor.__name__))
                .map(m => m.constructor.__name__ === 'Span' ? m.location
                     : m.data instanceof Map ? Object.fromEntries(m.data) : m.data))"""
        )

    def set(self, name: str, value, prop: str = "value") -> float:
        """Set control ``name`` (as the reader's move does) and return the ms until
        the next frame after the redraw is painted."""
        return self.page.evaluate(
            """async ([name, value, prop]) => {
                const model = Bokeh.documents[0].get_model_by_name(name);
                const start = performance.now();
                model[prop] = value;
                await new Promise(r => requestAnimationFrame(
                    () => requestAnimationFrame(r)));
                return performance.now() - start;
            }""",
            [name, value, prop],
        )

    def move(self, name: str, value, shots=None, shot=None, prop: str = "value"):
        """Move a control; assert the figure and the readout change. The redraw's
        time (the fastest of three moves, to ``value``, back and to ``value`` again,
        as timeit takes it) is recorded, not asserted: a timed test fails by chance
        on a loaded machine; ``benchmarks/bench_interactive.py`` reports it."""
        before_text, before_data = self.readout(), self.data()
        original = self.page.evaluate(
            "([name, prop]) => Bokeh.documents[0].get_model_by_name(name)[prop]",
            [name, prop],
        )
        times = [self.set(name, value, prop), self.set(name, original, prop)]
        times.append(self.set(name, value, prop))
        record_timing("redraw_ms", f"{self.name} {name}", min(times))
        assert self.readout() != before_text
        assert self.data() != before_data, f"{name} = {value}: nothing redrawn"
        if shots is not None:
            self.page.screenshot(path=str(shots / shot), full_page=True)

    def close(self):
        self.page.close()
        assert not self.problems, self.problems


def test_privacy_loss_shows_the_librarys_laws(pages, browser, tmp_path):
    figure = Figure(browser, pages / "privacy_loss.html")
    figure.page.screenshot(path=str(tmp_path / "privacy_loss_1.png"))
    figure.move("epsilon", 2.5, tmp_path, "privacy_loss_2.png")
    p = mechanisms.exponential_probabilities(EM_UTILITIES[0], 2.5, 1.0)
    p2 = mechanisms.exponential_probabilities(EM_UTILITIES[1], 2.5, 1.0)
    worst = np.max(np.abs(np.log(p / p2)))
    keep = mechanisms.keep_probability(2.5)
    assert figure.numbers() == pytest.approx(
        [round(p[0], 4), round(p2[0], 4), round(worst, 4), round(keep, 4)], abs=1e-12
    )
    assert worst <= 2.5
    figure.close()


def test_composition_shows_the_accountants_bounds(pages, browser, tmp_path):
    figure = Figure(browser, pages / "composition.html")
    figure.page.screenshot(path=str(tmp_path / "composition_1.png"))
    figure.move("epsilon", 5)  # 0.5 per step
    figure.move("delta", "1e-09")
    figure.move("k", 22, tmp_path, "composition_2.png")  # k = 1000
    e, d, k = 0.5, 1e-9, 1000
    expected = [
        accounting.basic_composition([e] * k),
        accounting.advanced_composition(e, k, d),
        accounting.br_composition([e] * k, d),
        accounting.dp_from_zcdp(k * accounting.zcdp_from_pure(e), d),
        accounting.optimal_pure_composition_epsilon(e, k, d),
        accounting.pld_epsilon([("randomized_response", e)] * k, d, numerical=True),
    ]
    shown = figure.numbers()
    assert len(shown) == 6
    for value, want in zip(shown, expected):
        assert value == float(f"{want:.4g}")
    assert "k = 1000" in figure.readout()
    figure.close()


def test_planar_laplace_shows_the_radius_law(pages, browser, tmp_path):
    figure = Figure(browser, pages / "planar_laplace.html")
    figure.page.screenshot(path=str(tmp_path / "planar_laplace_1.png"))
    figure.move("epsilon_star", 3.0)
    figure.move("radius_m", 500, tmp_path, "planar_laplace_2.png")
    epsilon = 3.0 / 500
    mean, r95, within = figure.numbers()
    assert mean == round(2 / epsilon, 1)
    assert r95 == round(float(mechanisms.planar_laplace_radius([0.95], epsilon)[0]), 1)
    # the radius is Gamma(2, 1/epsilon): an independent law from scipy
    assert within == round(stats.gamma.cdf(500, 2, scale=1 / epsilon), 4)
    figure.close()


def test_dptt_traversal_shows_the_path_law(pages, browser, tmp_path):
    figure = Figure(browser, pages / "dptt_traversal.html")
    figure.page.screenshot(path=str(tmp_path / "dptt_traversal_1.png"))
    figure.move("query", 62.5)
    figure.move("epsilon", 4)  # 2 per level
    figure.move("delta", "25")
    figure.move("utility", "CMP", tmp_path, "dptt_traversal_2.png")
    tree = traversal_tree()
    ends, log_law = path_log_law(tree, np.array([[62.5]]), 2.0, "cmp")
    leaves = tree.points[tree.point[ends], 0]
    law = np.exp(log_law[0])
    nearest = int(np.argmin(np.abs(leaves - 62.5)))
    p_nn, distance = figure.numbers()
    assert p_nn == round(law[nearest], 4)
    assert distance == pytest.approx(float(law @ np.abs(leaves - 62.5)), abs=0.006)
    assert math.isclose(law.sum(), 1.0)
    figure.close()


def test_posterior_and_privacy_curve_are_the_adversarys(pages, browser, tmp_path):
    figure = Figure(browser, pages / "posterior.html")
    figure.page.screenshot(path=str(tmp_path / "posterior_1.png"))
    figure.move("leaf", 10)
    figure.move("epsilon", 2)  # 2 per level
    figure.move("x1", 35)
    figure.move("x2", 70)
    figure.move("utility", "CMP", tmp_path, "posterior_2.png")
    tree = traversal_tree()
    cells = np.arange(101.0)
    ends, log_law = path_log_law(tree, cells[:, None], 2.0, "cmp")
    leaves = np.argsort(tree.points[tree.point[ends], 0])
    assert np.array_equal(leaves, np.arange(16))  # the leaves run left to right
    weights = posterior(log_law[:, 10][None, :], np.full(101, 1 / 101))[0]
    mean, delta_0, delta_1 = figure.numbers()
    assert mean == pytest.approx(weights @ cells, abs=0.006)
    curve = hockey_stick(log_law[35], log_law[70], [0.0, 1.0])
    # the page holds the log-laws to 4 decimals: relative error below 1e-4
    assert delta_0 == pytest.approx(curve[0], abs=1e-4 * curve[0] + 6e-5)
    assert delta_1 == pytest.approx(curve[1], abs=1e-4 * curve[0] + 6e-5)
    figure.close()


def test_accuracy_reads_the_sweeps_curves_as_the_claims_do(pages, browser, tmp_path):
    figure = Figure(browser, pages / "accuracy.html")
    figure.page.screenshot(path=str(tmp_path / "accuracy_1.png"))
    figure.move("d", "2-D")
    figure.move("metric", "raw")
    figure.move("level", -3.2)
    figure.move("variants", [1, 3], tmp_path, "accuracy_2.png", prop="active")
    table = sweep()

    def interpolated(c, level):  # log-linear between grid points, as the figure reads
        return (float(np.interp(np.log10(level), np.log10(c.x), c.y)),)

    expected = [
        interpolated(composed_curve(table, v, "raw", utility="dis", n=1000, d=2), l)[0]
        for v, l in (("E8", 10**-3.2), ("P8", 10**-3.2))
    ]
    geo = composed_curve(table, "basic", "raw", utility="dis", n=1000, d=2, geo=True)
    expected.append(interpolated(geo, 10**-3.2)[0])
    assert figure.numbers() == [round(v, 4) for v in expected]
    assert figure.readout().startswith("2-D, raw, at ε*/Δ = 0.000631: E8")
    figure.close()


def record_timing(kind: str, what: str, value: float) -> None:
    """Append a measured time to the JSON-lines file ``$DPNN_TIMINGS`` (if set)."""
    import json
    import os

    path = os.environ.get("DPNN_TIMINGS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": kind, "what": what, "value": value}) + "\n")


def test_a_figure_outside_the_registry_is_refused():
    with pytest.raises(ValueError, match="name must be one of"):
        build_figure("no such figure")
    with pytest.raises(ValueError, match="epsilon must be one of"):
        build_figure("composition", epsilon=0.3)
