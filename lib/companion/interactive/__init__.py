"""Interactive figures for the book and JupyterLab: Bokeh layouts whose controls
redraw them in the reader's browser, with no kernel and no network.

Each figure's numbers come from the library: computed at build time over the
controls' whole grid (02's composition bounds, 05's traversal laws, 03's cloud), or
evaluated in the browser by closed forms (01's laws, 03's radius law) whose displayed
values tests/test_interactive_browser.py compares with :mod:`dpnn`'s at sample
settings.

===============  ===============================================================
``render``       Bokeh's scripts, a figure as a page fragment or a standalone
                 page, the notebook's stored placeholder
``privacy``      01's privacy loss of three mechanisms, 03's planar Laplace
                 cloud and radius law
``composition``  02's composition bounds against the number of steps
``dptt``         05's DP-TT traversal: turn probabilities and the leaf law
``accuracy``     07's accuracy against the composed budget, variants and GEO
``adversary``    14's posterior given a release, the transcript's privacy curve
``figures``      the figures by name; ``show_interactive`` for a notebook cell
===============  ===============================================================
"""

from __future__ import annotations

from .figures import FIGURES, book_fragment, build_figure, show_interactive

__all__ = ["FIGURES", "build_figure", "book_fragment", "show_interactive"]
