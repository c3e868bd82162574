"""Sphinx configuration of the companion's offline HTML book (``make book``).

The book is built from the notebooks' stored outputs (no re-execution) with myst-nb and
sphinx-book-theme; math is typeset by a MathJax copy shipped inside the PyPI package
sphinx-mathjax-offline, so nothing is fetched from a CDN. ``make book`` copies the
notebooks next to these files in ``build/book-src`` and builds into ``build/book/html``.
"""

from __future__ import annotations

import re

project = "dpnn: Differential Privacy for Nearest Neighbor Queries, executable companion"
author = "The dpnn companion authors"
copyright = "2026, the dpnn companion authors (MIT licence)"

extensions = ["myst_nb", "sphinx-mathjax-offline", "sphinxcontrib.bibtex"]
nb_execution_mode = "off"  # the stored outputs of a clean default run are the book
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True  # the notebooks write $$...$$ inside paragraphs, as Jupyter allows
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conf.py"]
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header", "misc.highlighting_failure"]

html_theme = "sphinx_book_theme"
html_title = "dpnn companion"
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "home_page_in_toc": True,
}
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False


def _caption(node) -> str:
    """The text of the paragraph that follows (or else precedes) the figure output, as alt text."""
    from docutils import nodes

    section = node
    while section is not None and not isinstance(section, nodes.section):
        section = section.parent
    if section is None:
        return ""
    paragraphs = list(section.findall(nodes.paragraph))
    images = list(section.findall(nodes.image))
    # the first paragraph whose text starts like a caption ("Figure ...") after this image
    seen = False
    for element in section.findall(lambda n: isinstance(n, (nodes.image, nodes.paragraph))):
        if element is node:
            seen = True
        elif seen and isinstance(element, nodes.paragraph):
            text = element.astext().strip()
            if text:
                return text
    return paragraphs[0].astext().strip() if paragraphs and images else ""


def add_alt_text(app, doctree, docname):
    """Every notebook figure gets alt text: its caption paragraph, else a description of where it is."""
    from docutils import nodes

    for number, image in enumerate(doctree.findall(nodes.image), 1):
        if image.get("alt"):
            continue
        caption = re.sub(r"\s+", " ", _caption(image))[:300]
        title = doctree.next_node(nodes.title)
        where = title.astext() if title else docname
        image["alt"] = caption or f"Figure {number} of {where}"


def link_chapters(app, doctree, docname):
    """Links to a notebook file (``01_dp_primer.ipynb``, as 00_index writes them) point to its chapter."""
    from docutils import nodes

    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        match = re.fullmatch(r"(\d\d\w*_[\w]+)\.ipynb(#.*)?", uri)
        if match and f"notebooks/{match.group(1)}" in app.env.all_docs:
            reference["refuri"] = f"{match.group(1)}.html{match.group(2) or ''}"


def setup(app):
    app.connect("doctree-resolved", add_alt_text)
    app.connect("doctree-resolved", link_chapters)

# pydata-sphinx-theme reads the colour mode from the page; without a default it logs a console error
# ("Got invalid theme mode") on pages opened from disk.
html_context = {"default_mode": "light"}
