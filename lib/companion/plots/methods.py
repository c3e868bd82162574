"""One colour, marker and line style per method, for every figure of the companion.

A reader who has learnt that GEO is the black dashed line with squares finds it so in
every chapter. Colours are the Okabe-Ito palette (Okabe and Ito 2008), which readers
with any of the common colour-vision deficiencies can tell apart; no two methods share
both colour and marker, so a figure printed in grey still separates them by marker.

DP-TT's variants each have a colour; its two utilities differ by marker and line (DIS
solid with circles, CMP dash-dotted with triangles). Names are matched without regard
to case, and a parenthesis after the name ("GEO (E rule)") is ignored.

The text of a figure has to stay readable in the book, which shows each notebook's
inline PNG (drawn at ``figure.dpi``, 100) scaled to the text column (about
``BOOK_COLUMN_PX`` pixels at a 1366 x 768 screen): :func:`min_font_size` gives the
point size that keeps legends and tick labels at ``MIN_TEXT_PX`` pixels or more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "BOOK_COLUMN_PX",
    "METHODS",
    "MIN_TEXT_PX",
    "OKABE_ITO",
    "MethodStyle",
    "is_method",
    "method_style",
    "min_font_size",
    "series_styles",
    "styles_if_methods",
]

#: The Okabe-Ito palette: eight colours distinguishable with colour-vision deficiency.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
_C = OKABE_ITO


@dataclass(frozen=True)
class MethodStyle:
    """How one method is drawn: matplotlib's ``color``, ``marker`` and ``linestyle``."""

    color: str
    marker: str
    linestyle: str

    def kwargs(self) -> dict:
        """Keyword arguments for ``ax.plot`` and ``ax.errorbar``."""
        return {"color": self.color, "marker": self.marker, "ls": self.linestyle}


def _dptt() -> dict[str, MethodStyle]:
    colours = {
        "basic": _C["blue"],
        "P": _C["sky blue"],
        "E": _C["bluish green"],
        "GS": _C["orange"],
        "N": _C["vermillion"],
        "GS-N": _C["reddish purple"],
    }
    styles = {}
    for variant, colour in colours.items():
        styles[f"DP-TT-DIS {variant}"] = MethodStyle(colour, "o", "-")
        styles[f"DP-TT-CMP {variant}"] = MethodStyle(colour, "^", "-.")
    return styles


#: Every method the companion draws, by its name in the legends.
METHODS: dict[str, MethodStyle] = {
    # geo-indistinguishability and the local mechanisms (notebooks 03, 05-08, 13, 14)
    "GEO": MethodStyle(_C["black"], "s", "--"),
    **_dptt(),
    "SM": MethodStyle(_C["black"], "D", ":"),
    "L-SRR": MethodStyle(_C["black"], "v", ":"),
    # the optimal mechanism and Bayesian remapping (notebook 15): remapped in vermillion
    "OPT": MethodStyle(_C["orange"], "*", "--"),
    "OPT remapped": MethodStyle(_C["orange"], "h", ":"),
    "GEO remapped": MethodStyle(_C["vermillion"], "s", "--"),
    "SM remapped": MethodStyle(_C["vermillion"], "D", ":"),
    "L-SRR remapped": MethodStyle(_C["vermillion"], "v", ":"),
    "DP-TT-CMP basic remapped": MethodStyle(_C["blue"], "X", ":"),
    # Gursoy et al. (notebook 09), by the names of its tables' "method" column
    "private r-N": MethodStyle(_C["blue"], "P", "-"),
    "private k-NN": MethodStyle(_C["vermillion"], "P", "-"),
    "private-INT": MethodStyle(_C["vermillion"], "X", "--"),
    "baseline": MethodStyle(_C["orange"], "P", "--"),
    "interactive conversion": MethodStyle(_C["bluish green"], "X", "-"),
    "uniform grid conversion": MethodStyle(_C["orange"], "X", "-"),
    "PrivBayes": MethodStyle(_C["reddish purple"], "h", "--"),
    "logistic regression": MethodStyle(_C["sky blue"], "h", "--"),
    "naive Bayes": MethodStyle(_C["bluish green"], "h", "--"),
    "non-private": MethodStyle(_C["black"], "P", ":"),
    # Cormode et al. (notebook 10): the decompositions, then the private medians
    "quad-baseline": MethodStyle(_C["blue"], "<", "-"),
    "quad-geo": MethodStyle(_C["sky blue"], "<", "-"),
    "quad-post": MethodStyle(_C["bluish green"], "<", "-"),
    "quad-opt": MethodStyle(_C["orange"], "<", "-"),
    "kd-standard": MethodStyle(_C["vermillion"], ">", "--"),
    "kd-hybrid": MethodStyle(_C["reddish purple"], ">", "--"),
    "kd-cell": MethodStyle(_C["sky blue"], ">", "--"),
    "kd-noisymean": MethodStyle(_C["blue"], ">", "--"),
    "kd-true": MethodStyle(_C["bluish green"], ">", "--"),
    "kd-pure": MethodStyle(_C["orange"], ">", "--"),
    "Hilbert R-tree": MethodStyle(_C["black"], ">", "--"),
    "EM": MethodStyle(_C["blue"], "d", "-"),
    "EM_s": MethodStyle(_C["sky blue"], "d", "--"),
    "SS": MethodStyle(_C["vermillion"], "d", "-"),
    "SS_s": MethodStyle(_C["orange"], "d", "--"),
    "NM": MethodStyle(_C["bluish green"], "d", "-"),
    "cell": MethodStyle(_C["black"], "d", "-"),
    # Liang and Yi (notebook 11): GP blue, CGP vermillion; a marker per algorithm
    "GP Basic": MethodStyle(_C["blue"], "*", "-"),
    "CGP Basic": MethodStyle(_C["vermillion"], "*", "-"),
    "GP PNN": MethodStyle(_C["blue"], "8", "-."),
    "CGP PNN": MethodStyle(_C["vermillion"], "8", "-."),
    "GP PCH": MethodStyle(_C["blue"], "H", "--"),
    "CGP PCH": MethodStyle(_C["vermillion"], "H", "--"),
    # SimRand (notebook 12)
    "SimRand": MethodStyle(_C["vermillion"], "p", "-"),
    "Gaussian projection": MethodStyle(_C["black"], "p", "--"),
}

#: Other names the notebooks use for the same methods.
_ALIASES = {
    "dp-tt-dis": "DP-TT-DIS basic",
    "dp-tt-cmp": "DP-TT-CMP basic",
    "square mechanism": "SM",
    "optimal mechanism": "OPT",
    "gaussian random projection": "Gaussian projection",
    "random projection": "Gaussian projection",
    "gaussian rp": "Gaussian projection",
    "r-n": "private r-N",
    "proposed": "private r-N",
    "k-nn": "private k-NN",
    "private-nonint": "private k-NN",
    "non-private k-nn": "non-private",
    "non-private r-n": "non-private",
    "interactive": "interactive conversion",
    "non-interactive": "uniform grid conversion",
    "dp logistic regression": "logistic regression",
    "dp gaussian naive bayes": "naive Bayes",
    "hilbert": "Hilbert R-tree",
    "hilbert-r": "Hilbert R-tree",
}


def _key(name: str) -> str:
    name = re.sub(r"\s*\(.*\)\s*$", "", str(name)).strip().lower()
    # DP-TT variants with a parameter: "DP-TT-DIS E8", "DP-TT-CMP GS-N20", "P2"
    match = re.fullmatch(r"(dp-tt-(?:dis|cmp)) (basic|p|e|gs|n|gs-n)\d*", name)
    return f"{match.group(1)} {match.group(2)}" if match else name


def method_style(name: str) -> MethodStyle:
    """The style of method ``name`` ("GEO", "DP-TT-CMP E8", "SimRand", ...)."""
    key = _key(name)
    known = {method.lower(): method for method in METHODS} | _ALIASES
    if key not in known:
        raise KeyError(
            f"name must be a method of companion.plots.methods.METHODS, got {name!r}; "
            f"known: {', '.join(METHODS)}"
        )
    return METHODS[known[key]]


def is_method(name: str) -> bool:
    """Whether ``name`` is a registered method (or one of its other names)."""
    try:
        method_style(name)
    except KeyError:
        return False
    return True


def styles_if_methods(names) -> dict[str, MethodStyle] | None:
    """The registered style of each of ``names`` when every one is a method, else None
    (a figure of other series, bounds or query shapes, keeps the colour cycle)."""
    names = list(names)
    if not names or not all(is_method(name) for name in names):
        return None
    return {name: method_style(name) for name in names}


def series_styles(names) -> dict[str, MethodStyle]:
    """A style for each of ``names``: a method's own (:func:`method_style`), and for a
    series that is not a method the DP-TT-DIS variants' styles in turn."""
    spare = [s for n, s in METHODS.items() if n.startswith("DP-TT-DIS")]
    styles, other = {}, 0
    for name in names:
        try:
            styles[name] = method_style(name)
        except KeyError:
            styles[name] = spare[other % len(spare)]
            other += 1
    return styles


#: The width of the book's text column at a 1366 x 768 screen, in CSS pixels (a
#: chapter's figures measured 757 in chromium; 740 leaves room for nested outputs).
BOOK_COLUMN_PX = 740
#: The smallest legend and tick text the book may show, in CSS pixels.
MIN_TEXT_PX = 9


def min_font_size(
    width_in: float, dpi: float = 100, column_px: float | None = None
) -> float:
    """The smallest font size in points that shows at ``MIN_TEXT_PX`` pixels or more
    when a figure ``width_in`` inches wide, saved at ``dpi``, is scaled to the book's
    column (``column_px``, default ``BOOK_COLUMN_PX``; a narrower PNG is not
    enlarged)."""
    if not width_in > 0:
        raise ValueError(f"width_in must be > 0 inches, got {width_in!r}")
    column_px = BOOK_COLUMN_PX if column_px is None else column_px
    if not column_px > 0:
        raise ValueError(f"column_px must be > 0 pixels, got {column_px!r}")
    png_px = width_in * dpi
    shown = min(1.0, column_px / png_px)  # the scale at which the book shows the PNG
    # a point is dpi / 72 pixels of the PNG
    return MIN_TEXT_PX / (shown * dpi / 72)
