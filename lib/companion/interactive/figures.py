"""The interactive figures by name, and their display in a notebook.

``show_interactive(name, **settings)`` in a notebook cell shows the figure: in a live
JupyterLab (or Jupyter Notebook) kernel as a standalone page in an ``<iframe>``, with
Bokeh inline so nothing is fetched; anywhere else (papermill, nbval, a plain session)
it stores only :func:`~companion.interactive.render.placeholder_bundle`, which holds no
random ids and no script, and which the book replaces by the figure itself
(:func:`book_fragment`).
"""

from __future__ import annotations

import html

from .dptt import dptt_traversal_figure
from .accuracy import accuracy_figure
from .adversary import posterior_figure
from .composition import composition_figure
from .privacy import planar_laplace_figure, privacy_loss_figure
from .render import fragment, placeholder_bundle, standalone_page

__all__ = ["FIGURES", "build_figure", "book_fragment", "show_interactive"]

#: Each figure's builder and a one-line caption.
FIGURES = {
    "privacy_loss": (
        privacy_loss_figure,
        "Laplace, the exponential mechanism and randomized response on D and D' "
        "against ε",
    ),
    "composition": (
        composition_figure,
        "composition bounds against the number of steps",
    ),
    "planar_laplace": (
        planar_laplace_figure,
        "a planar Laplace cloud and its radius law against ε* and r",
    ),
    "dptt_traversal": (
        dptt_traversal_figure,
        "one DP-TT traversal: turn probabilities per level and the leaf law",
    ),
    "accuracy": (
        accuracy_figure,
        "accuracy against the composed budget (per unit distance for DIS) of the DP-TT "
        "variants, with GEO where the sweep ran it at the same budget",
    ),
    "posterior": (
        posterior_figure,
        "the adversary's posterior given a released leaf, and the transcript's "
        "privacy curve for two queries",
    ),
}


def _check_name(name: str) -> None:
    if name not in FIGURES:
        raise ValueError(f"name must be one of {sorted(FIGURES)}, got {name!r}")


def build_figure(name: str, **settings):
    """The Bokeh layout of figure ``name`` in the state ``settings``."""
    _check_name(name)
    return FIGURES[name][0](**settings)


def book_fragment(name: str, settings: dict, prefix: str | None) -> str:
    """Figure ``name`` as HTML for a book page: Bokeh from ``prefix`` (None: the page
    loads it already)."""
    return fragment(build_figure(name, **settings), name, prefix)


def show_interactive(name: str, **settings) -> None:
    """Show figure ``name`` in a notebook (see the module's docstring)."""
    from IPython.display import HTML, display

    from companion.explorers import live_front_end

    _check_name(name)
    if live_front_end():
        page = standalone_page(build_figure(name, **settings), name, prefix=None)
        display(
            HTML(  # in a div: IPython warns of an <iframe> on its own
                f'<div><iframe srcdoc="{html.escape(page)}" style="width: 100%; '
                'height: 560px; border: 0"></iframe></div>'
            )
        )
        return
    display(placeholder_bundle(name, settings, FIGURES[name][1]), raw=True)
