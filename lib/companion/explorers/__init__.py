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

from .controls import (
    CONTROL_WIDTH,
    DESCRIPTION_WIDTH,
    explore,
    live_front_end,
    readout,
    slider,
)
from .dptt import dptt_figure, dptt_step_probabilities, dptt_trace, explore_dptt
from .privacy import (
    composition_bounds,
    composition_figure,
    explore_composition,
    explore_laplace,
    explore_planar_laplace,
    laplace_figure,
    planar_laplace_figure,
)

__all__ = [
    "live_front_end",
    "CONTROL_WIDTH",
    "DESCRIPTION_WIDTH",
    "readout",
    "slider",
    "explore",
    "laplace_figure",
    "explore_laplace",
    "composition_bounds",
    "composition_figure",
    "explore_composition",
    "planar_laplace_figure",
    "explore_planar_laplace",
    "dptt_trace",
    "dptt_figure",
    "dptt_step_probabilities",
    "explore_dptt",
]
