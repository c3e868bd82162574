"""``make lab`` in a real browser: JupyterLab on the reader's copies, not the checkout.

The server is started as ``make lab`` starts it (:func:`companion.lab.prepare` and
:func:`companion.lab.command`), on copies in a temporary folder, with JupyterLab's
autosave
interval shortened to 2 s (a settings override in a temporary settings folder; the
default is 120 s) and every cell rendered (no windowing), so the test can click any
cell. Debian's chromium, driven by playwright, opens notebook 05, runs its parameters
and imports cells and its explorer, drags the explorer's ε slider with the mouse and
waits for autosave. Then the copy holds the session (so autosave did happen), while
``notebooks/``, ``figures/`` and ``git status`` are exactly as before.
"""

import hashlib
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import nbformat
import pytest

from companion import lab
from companion.catalog import repository_root

ROOT = repository_root()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TOKEN = "dpnn-lab-test"
NOTEBOOK = "05_dptt_basic.ipynb"
EXPLORER_CELL = 10  # explorers.explore_dptt(...) in notebook 05
CELLS = (
    ".jp-Notebook .jp-Cell"  # each test opens its notebook alone, in its own workspace
)

pytestmark = pytest.mark.browser  # chromium; not part of make unit


def checkout_state() -> tuple[str, dict]:
    """``git status --porcelain`` and a digest of each file of notebooks/, figures/."""
    status = subprocess.run(
        ["git", "status", "--porcelain"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    digests = {
        str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
        for folder in ("notebooks", "figures")
        for p in sorted((ROOT / folder).rglob("*"))
        if p.is_file()
    }
    return status, digests


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A JupyterLab server on copies in a temporary folder; yields (url, copies)."""
    base = tmp_path_factory.mktemp("lab")
    copies = base / "copies"
    copied, _ = lab.prepare(ROOT, copies)
    assert {p.name for p in copied} >= {NOTEBOOK, "profiles.yml"}
    settings = base / "settings"
    for plugin, values in {
        "@jupyterlab/docmanager-extension/plugin": {"autosaveInterval": 2},
        "@jupyterlab/apputils-extension/notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
        # every cell rendered, so a cell out of view can still be clicked
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
    }
    env.pop("DPNN_FIGURES_DIR", None)
    port = free_port()
    line = lab.command(copies, port, browser=False) + [
        f"--IdentityProvider.token={TOKEN}"
    ]
    assert "--ip=127.0.0.1" in line
    process = subprocess.Popen(
        line, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail(
                        f"JupyterLab exited: {process.stderr.read().decode()[-2000:]}"
                    )
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within 60 s")
        yield url, copies
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail(
            "chromium is not installed: `make test` "
            "installs it (apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], headless=True
        )
        yield launched
        launched.close()


def test_prepare_copies_once_and_never_overwrites(tmp_path):
    copies = tmp_path / "lab"
    copied, differing = lab.prepare(ROOT, copies)
    assert sorted(p.name for p in copied) == sorted(
        [p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")]
        + ["profiles.yml"]
    )
    assert differing == []
    (copies / NOTEBOOK).write_text("the reader's own edit")
    (copies / "01_dp_primer.ipynb").unlink()
    copied, differing = lab.prepare(ROOT, copies)
    assert [p.name for p in copied] == ["01_dp_primer.ipynb"] and differing == [
        NOTEBOOK
    ]
    assert (copies / NOTEBOOK).read_text() == "the reader's own edit"
    with pytest.raises(
        ValueError, match="target must not be the tracked notebooks/ folder"
    ):
        lab.prepare(ROOT, ROOT / "notebooks")


def test_the_command_binds_to_localhost_and_allows_root(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    line = lab.command(tmp_path, 8123, browser=False)
    assert f"--ServerApp.root_dir={tmp_path}" in line and "--ip=127.0.0.1" in line
    assert "--allow-root" in line and "--no-browser" in line
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "--allow-root" not in lab.command(tmp_path)


def _run_cell(page, index: int) -> None:
    cell = page.locator(CELLS).nth(index)
    cell.scroll_into_view_if_needed(timeout=60_000)
    cell.locator(".jp-InputArea-prompt").click(timeout=60_000)
    page.keyboard.press("Shift+Enter")


def _figure(page) -> str:
    """The ``src`` of the explorer's current figure (a data URL of its PNG)."""
    images = page.locator(CELLS).nth(EXPLORER_CELL).locator(".widget-output img")
    images.first.wait_for(timeout=30_000)
    return images.first.get_attribute("src")


def test_a_lab_session_with_a_live_explorer_leaves_the_checkout_clean(server, browser):
    url, copies = server
    before = checkout_state()
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/lab/workspaces/session05/tree/{NOTEBOOK}?token={TOKEN}")
    page.locator(CELLS).nth(EXPLORER_CELL).wait_for(timeout=60_000)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
        timeout=60_000
    )
    try:
        for index in (1, 2, EXPLORER_CELL):
            _run_cell(page, index)
        first = _figure(page)
    finally:
        page.screenshot(path=str(copies.parent / "notebook_05_ran.png"))
    explorer = page.locator(CELLS).nth(EXPLORER_CELL)
    slider = explorer.locator(".widget-slider", has_text="ε per step").locator(
        ".noUi-target"
    )
    handle = slider.locator(".noUi-handle")
    slider.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    track, knob = slider.bounding_box(), handle.bounding_box()
    assert track["width"] >= 200, (
        f"the ε slider is {track['width']:.0f} px wide at 1366 px"
    )
    page.mouse.move(knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2)
    page.mouse.down()
    page.mouse.move(
        track["x"] + 0.2 * track["width"], knob["y"] + knob["height"] / 2, steps=5
    )
    page.mouse.up()
    page.wait_for_function(
        "([index, old, cells]) => { const img = document.querySelectorAll(cells)[index]"
        ".querySelector('.widget-output img'); return img && img.src !== old; }",
        arg=[EXPLORER_CELL, first, CELLS],
        timeout=30_000,
    )
    explorer.scroll_into_view_if_needed()
    page.screenshot(
        path=str(copies.parent / "explorer_05.png")
    )  # for a person to look at
    for _ in range(
        60
    ):  # autosave every 2 s: wait for a save after the explorer's output
        saved = nbformat.read(copies / NOTEBOOK, as_version=4)
        mimes = {
            key
            for output in saved.cells[EXPLORER_CELL].outputs
            for key in output.get("data", {})
        }
        if "application/vnd.jupyter.widget-view+json" in mimes:
            break
        time.sleep(0.5)
    page.close()
    assert "application/vnd.jupyter.widget-view+json" in mimes, (
        "autosave did not write the session"
    )
    assert checkout_state() == before, (
        "the lab session changed notebooks/, figures/ or git status"
    )
    assert not errors, errors


EXPLORERS = [
    "explore_laplace",
    "explore_composition",
    "explore_planar_laplace",
    "explore_dptt",
]


def test_every_explorer_fits_1366_px_and_its_first_slider_moves_the_figure(
    server, browser
):
    """At 1366 x 768 every slider is >= 200 px, no readout or control is cut, and
    each explorer's first slider with the mouse redraws its figure."""
    url, copies = server
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "dpnn",
        "display_name": "Python (dpnn .venv)",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell("from companion import explorers")] + [
        nbformat.v4.new_code_cell(f"explorers.{name}();") for name in EXPLORERS
    ]
    nbformat.write(nb, copies / "explorers_probe.ipynb")
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(f"{url}/lab/workspaces/probe/tree/explorers_probe.ipynb?token={TOKEN}")
    cells = page.locator(CELLS)
    cells.nth(len(EXPLORERS)).wait_for(timeout=60_000)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
        timeout=60_000
    )
    try:
        for index in range(len(EXPLORERS) + 1):
            _run_cell(page, index)
    finally:
        page.screenshot(path=str(copies.parent / "explorers_probe_ran.png"))
    problems = []
    for number, name in enumerate(EXPLORERS, 1):
        cell = cells.nth(number)
        image = cell.locator(".widget-output img").first
        image.wait_for(timeout=60_000)
        first = image.get_attribute("src")
        found = cell.evaluate("""cell => {
            const area = cell.querySelector('.jp-OutputArea').getBoundingClientRect();
            const tracks = [...cell.querySelectorAll('.noUi-target')]
                .map(t => Math.round(t.getBoundingClientRect().width));
            const cut = [...cell.querySelectorAll('.widget-readout, .widget-label')]
                .filter(r => r.scrollWidth > r.clientWidth + 1).map(r => r.textContent);
            const controls = '.widget-slider, .widget-dropdown';
            const outside = [...cell.querySelectorAll(controls)]
                .filter(c => c.getBoundingClientRect().right > area.right + 1)
                .map(c => c.textContent);
            return {tracks, cut, outside};
        }""")
        if min(found["tracks"]) < 200:
            problems.append(f"{name}: slider tracks {found['tracks']} px")
        if found["cut"] or found["outside"]:
            problems.append(
                f"{name}: cut {found['cut']}, outside the output {found['outside']}"
            )
        slider = cell.locator(".noUi-target").first
        slider.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        track, knob = (
            slider.bounding_box(),
            slider.locator(".noUi-handle").bounding_box(),
        )
        target = 0.15 if knob["x"] > track["x"] + track["width"] / 2 else 0.85
        page.mouse.move(knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2)
        page.mouse.down()
        page.mouse.move(
            track["x"] + target * track["width"],
            knob["y"] + knob["height"] / 2,
            steps=5,
        )
        page.mouse.up()
        try:
            page.wait_for_function(
                "([index, old, cells]) => { const img = document"
                ".querySelectorAll(cells)[index].querySelector('.widget-output img');"
                " return img && img.src !== old; }",
                arg=[number, first, CELLS],
                timeout=30_000,
            )
        except Exception:  # playwright's TimeoutError
            problems.append(
                f"{name}: dragging the first slider did not change the figure"
            )
    page.screenshot(path=str(copies.parent / "explorers_probe.png"))
    page.close()
    assert not problems, problems
