"""The controls the interactive figures share: a slider over a grid of values (the
figure's data are precomputed at each), the DIS / CMP choice and the readout line
under a figure."""

from __future__ import annotations

from bokeh.models import CustomJSTickFormatter, Div, Select, Slider

__all__ = ["grid_slider", "utility_select", "readout"]


def grid_slider(values, value, *, title: str, name: str, width: int) -> Slider:
    """A slider over the positions of ``values`` that shows the value at each; it
    starts at ``value`` (one of them). Its ``value`` in the browser is the position,
    which indexes the figure's precomputed data."""
    values = list(values)
    if value not in values:
        raise ValueError(f"value must be one of {values}, got {value!r}")
    return Slider(
        start=0,
        end=len(values) - 1,
        step=1,
        value=values.index(value),
        title=title,
        name=name,
        width=width,
        format=CustomJSTickFormatter(args={"grid": values}, code="return grid[tick];"),
    )


def utility_select(utility: str, width: int) -> Select:
    """The choice of DP-TT's utility, DIS or CMP, starting at ``utility``."""
    if utility.lower() not in ("dis", "cmp"):
        raise ValueError(f"utility must be 'dis' or 'cmp', got {utility!r}")
    return Select(
        title="utility",
        value=utility.upper(),
        options=["DIS", "CMP"],
        name="utility",
        width=width,
    )


def readout() -> Div:
    """The line under a figure that states its numbers at the controls' setting."""
    return Div(name="readout", width=720, styles={"font-size": "13px"})
