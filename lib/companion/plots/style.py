"""The companion's one style and the one way figures are written."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns

from .methods import min_font_size

__all__ = ["use_style", "figures_dir", "legible", "save"]


_STYLE = "companion.mplstyle"


def use_style() -> None:
    """Apply the companion's seaborn theme and matplotlib style (call once per
    notebook)."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    with resources.as_file(resources.files("companion.plots") / _STYLE) as path:
        plt.style.use(str(path))


def figures_dir() -> Path:
    """Where :func:`save` writes: ``$DPNN_FIGURES_DIR`` if set, else
    ``build/interactive/figures``.

    The runner sets ``$DPNN_FIGURES_DIR`` (the committed ``figures/`` only for a plain
    default run); a JupyterLab session or papermill's own command line leaves it unset
    and so writes to the git-ignored ``build/``, never over the committed figures.
    """
    configured = os.environ.get("DPNN_FIGURES_DIR")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / "build" / "interactive" / "figures"


def legible(fig, dpi: float | None = None):
    """Raise every tick label and legend text of ``fig`` that would show below the
    book's minimum text height (:func:`companion.plots.methods.min_font_size` for the
    figure's width at ``dpi``, default the inline display's ``figure.dpi``) to that
    size; larger text is left as it is. Returns ``fig``."""
    dpi = plt.rcParams["figure.dpi"] if dpi is None else dpi
    size = min_font_size(fig.get_figwidth(), dpi=dpi)
    legends = list(fig.legends)
    for ax in fig.axes:
        for axis, labels in (("x", ax.get_xticklabels()), ("y", ax.get_yticklabels())):
            if any(label.get_fontsize() < size for label in labels):
                ax.tick_params(axis=axis, labelsize=size)
        legends.append(ax.get_legend())
    for legend in filter(None, legends):
        for text in [*legend.get_texts(), legend.get_title()]:
            if text.get_fontsize() < size:
                text.set_fontsize(size)
    return fig


def save(fig, name: str) -> Path:
    """Write ``fig`` to ``<figures_dir>/<name>.png`` and return the path.

    ``name`` says what the figure reproduces, e.g. ``thesis_fig6_14_dis_variants_1d``.
    PNG metadata carries no date, so the same figure gives the same bytes. Tick
    labels and legends are first made :func:`legible` at the book's size (the same
    figure is then shown inline).
    """
    if not name or "/" in name or name.endswith(".png"):
        raise ValueError(
            f"name must be a bare figure name without '/' or '.png', got {name!r}"
        )
    legible(fig)
    directory = figures_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    partial = directory / f".{name}.png.partial"
    draft = {}
    # the ci smoke run: low resolution, no layout pass
    if os.environ.get("DPNN_DRAFT_FIGURES"):
        fig.set_layout_engine("none")
        draft = {"dpi": 50, "bbox_inches": None}
    fig.savefig(partial, format="png", metadata={"Software": None}, **draft)
    os.replace(partial, path)  # a reader (or an interrupted run) never sees half a PNG
    return path
