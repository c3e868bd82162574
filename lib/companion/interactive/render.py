"""How an interactive figure reaches a page: Bokeh's JavaScript from the installed
package, the figure as an embeddable fragment or a standalone page, and the
notebook's display.

A figure is a Bokeh layout whose controls redraw it through ``CustomJS`` callbacks, so
it runs in the reader's browser with no kernel and no network. In the book the
fragment loads Bokeh's two scripts from the book's own ``_static/bokeh/`` (copied from
the installed ``bokeh`` package, :func:`bokeh_scripts`); a standalone page either
points at such a folder or carries the scripts inline.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

__all__ = [
    "BOKEH_SCRIPTS",
    "MIME_TYPE",
    "bokeh_scripts",
    "script_tags",
    "fragment",
    "standalone_page",
    "placeholder_bundle",
    "on_ready",
]

#: Bokeh's scripts an interactive figure needs (the core and the widgets).
BOKEH_SCRIPTS = ("bokeh.min.js", "bokeh-widgets.min.js")

#: The MIME type of a figure's stored output in a notebook: ``{"figure": name,
#: "settings": {...}}``, deterministic, which the book replaces by the figure.
MIME_TYPE = "application/vnd.dpnn.interactive+json"


def bokeh_scripts() -> list[Path]:
    """The files of :data:`BOKEH_SCRIPTS` inside the installed ``bokeh`` package."""
    import bokeh

    folder = Path(bokeh.__file__).parent / "server" / "static" / "js"
    return [folder / name for name in BOKEH_SCRIPTS]


def script_tags(prefix: str | None) -> str:
    """``<script>`` tags loading Bokeh from the folder ``prefix`` (a relative URL
    ending in ``/``), or inline when ``prefix`` is None."""
    if prefix is None:
        return "\n".join(
            f"<script>{path.read_text(encoding='utf-8')}</script>"
            for path in bokeh_scripts()
        )
    return "\n".join(
        f'<script src="{html.escape(prefix)}{name}"></script>' for name in BOKEH_SCRIPTS
    )


def fragment(layout, name: str, prefix: str | None = None) -> str:
    """The HTML of ``layout`` to paste into a page: a ``div.dpnn-interactive`` (its
    ``data-figure`` is ``name``) and the script that renders it; with ``prefix``, the
    tags loading Bokeh first (once per page is enough)."""
    from bokeh.embed import components

    script, div = components(layout)
    scripts = "" if prefix is None else script_tags(prefix) + "\n"
    return (
        f'{scripts}<div class="dpnn-interactive" data-figure="{html.escape(name)}">'
        f"{div}</div>\n{script}"
    )


def standalone_page(layout, name: str, prefix: str | None = None) -> str:
    """A whole HTML page of ``layout``: Bokeh from ``prefix`` or inline (None)."""
    from bokeh.embed import components

    script, div = components(layout)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(name)}</title>\n{script_tags(prefix)}\n</head>"
        f'<body style="margin:8px">\n<div class="dpnn-interactive" '
        f'data-figure="{html.escape(name)}">{div}</div>\n{script}\n</body></html>\n'
    )


def placeholder_bundle(name: str, settings: dict, caption: str) -> dict:
    """The MIME bundle a notebook stores for figure ``name``: no random ids, no
    script; the book puts the figure in its place."""
    return {
        MIME_TYPE: {"figure": name, "settings": json.loads(json.dumps(settings))},
        "text/plain": f"interactive figure {name!r} (its controls respond in "
        "JupyterLab and in the book): " + caption,
    }


def on_ready(layout, callback):
    """``layout``, put in a Bokeh document of its own that runs ``callback`` once the
    page has loaded (the figure's first drawing is the same code as its redraws)."""
    from bokeh.document import Document

    document = Document()
    document.add_root(layout)
    document.js_on_event("document_ready", callback)
    return layout
