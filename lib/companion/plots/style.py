"""The companion's one style and the one way figures are written."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns

__all__ = ["use_style", "figures_dir", "save"]


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


def save(fig, name: str) -> Path:
    """Write ``fig`` to ``<figures_dir>/<name>.png`` and return the path.

    ``name`` says what the figure reproduces, e.g. ``thesis_fig6_14_dis_variants_1d``.
    PNG metadata carries no date, so the same figure gives the same bytes.
    """
    if not name or "/" in name or name.endswith(".png"):
        raise ValueError(
            f"name must be a bare figure name without '/' or '.png', got {name!r}"
        )
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
