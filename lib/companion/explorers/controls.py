"""The explorers' controls: live or static, sliders in a grid laid out for
1366 x 768, and titles that print what the sliders show.
"""

from __future__ import annotations

import os
import re

import matplotlib.pyplot as plt

from companion.plots import legible

__all__ = [
    "live_front_end",
    "CONTROL_WIDTH",
    "DESCRIPTION_WIDTH",
    "readout",
    "slider",
    "explore",
]


def live_front_end() -> bool:
    """True inside a kernel started by a Jupyter server (JupyterLab, Notebook), where
    widgets render.

    The server starts each notebook's kernel with ``JPY_SESSION_NAME`` in its
    environment; papermill, nbval and the book's build start kernels without it.
    """
    if "JPY_SESSION_NAME" not in os.environ:
        return False
    try:
        import ipywidgets  # noqa: F401
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def _show(fig) -> None:
    """Display ``fig`` once in a notebook and close it (so the inline backend does not
    show it again)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return
    if get_ipython() is not None:
        display(fig)
        plt.close(fig)


#: Width of one control in px: a 110 px description, a track of at least 200 px, the
#: readout.
CONTROL_WIDTH = 420


DESCRIPTION_WIDTH = "110px"


def readout(value, fmt: str) -> str:
    """``value`` as a slider shows it with ``readout_format`` ``fmt`` (d3-format's
    ``.Nf``, ``.Ne`` and ``d``), so a figure's title prints what the controls show."""
    if fmt == "d":
        return f"{int(value)}"
    text = format(float(value), fmt)
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", text) if fmt.endswith("e") else text


def slider(kind: str, description: str, fmt: str, **options):
    """A new ipywidgets slider of class ``kind`` (e.g. ``"FloatSlider"``) with the
    explorers' layout: ``description``, readout format ``fmt``, and a redraw only when
    released; ``options`` (min, max, step, ...) go to the widget."""
    import ipywidgets as widgets

    return getattr(widgets, kind)(
        description=description, readout_format=fmt, continuous_update=False, **options
    )


def _controls_grid(controls: dict):
    """The controls in rows: a grid of :data:`CONTROL_WIDTH` px cells that wraps."""
    import ipywidgets as widgets

    for control in controls.values():
        control.layout = widgets.Layout(width=f"{CONTROL_WIDTH}px")
        control.style.description_width = DESCRIPTION_WIDTH
    columns = f"repeat(auto-fill, {CONTROL_WIDTH}px)"
    return widgets.GridBox(
        list(controls.values()),
        layout=widgets.Layout(
            grid_template_columns=columns, grid_gap="4px 16px", width="100%"
        ),
    )


def explore(draw, controls: dict, defaults: dict, live):
    """Show the figure ``draw(**defaults)``: as is when ``live`` is false (for ``None``:
    outside a live front end, see :func:`live_front_end`), and return it; else under
    the sliders ``controls`` (name -> widget, set to ``defaults``), each redrawing it
    with its value, and return the box of sliders and figure."""
    if live is None:
        live = live_front_end()
    if not live:
        fig = legible(draw(**defaults))
        _show(fig)
        return fig
    import ipywidgets as widgets
    from IPython.display import display

    output = widgets.Output()
    for name, control in controls.items():
        control.value = defaults[name]

    def redraw(*_):
        with output:
            output.clear_output(wait=True)
            fig = draw(
                **{**defaults, **{name: c.value for name, c in controls.items()}}
            )
            display(legible(fig))
            plt.close(fig)

    for control in controls.values():
        control.observe(redraw, names="value")
    redraw()
    box = widgets.VBox([_controls_grid(controls), output])
    display(box)
    return box
