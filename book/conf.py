"""Sphinx configuration of the companion's offline HTML book (``make book``).

The book is built from the notebooks' stored outputs (no re-execution) with myst-nb and
sphinx-book-theme; math is typeset by a MathJax copy shipped inside the PyPI package
sphinx-mathjax-offline, so nothing is fetched from a CDN. ``make book`` copies the
notebooks next to these files in ``build/book-src`` and builds into ``build/book/html``.
"""

from __future__ import annotations

import re
from pathlib import Path

project = "dpnn: Differential Privacy for Nearest Neighbor Queries, executable companion"
author = "The dpnn companion authors"
copyright = "2026, the dpnn companion authors (MIT licence)"

extensions = [
    "myst_nb", "sphinx-mathjax-offline", "sphinxcontrib.bibtex", "sphinx.ext.autodoc"
]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
nb_execution_mode = "off"  # the stored outputs of a clean default run are the book
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True  # the notebooks write $$...$$ inside paragraphs, as Jupyter allows
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_cite_id = "cite-{key}"  # each entry's anchor on the references page
exclude_patterns = ["_build", "**.ipynb_checkpoints", "conf.py"]
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header", "misc.highlighting_failure"]

html_theme = "sphinx_book_theme"
html_title = "dpnn companion"
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": True,  # each chapter's notebook as .ipynb (companion.book copies the originals)
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "home_page_in_toc": True,
}
html_last_updated_fmt = None
html_copy_source = True  # the download button's files, in _sources/
html_sourcelink_suffix = ""  # ... under their own names (05_dptt_basic.ipynb)
html_show_sourcelink = False
html_static_path = ["_static"]
html_js_files = ["search-from-disk.js", "dpnn-tables.js"]
html_css_files = ["dpnn.css"]
html_favicon = "_static/favicon.svg"  # else a served book asks for /favicon.ico (a 404)
# Search: headings holding the whole query first; snippets of the chapter's text only,
# formulas without their TeX delimiters (Sphinx reads the file from the working folder).
html_search_scorer = str(Path(__file__).with_name("search-scorer.js"))


#: How a caption starts: the notebooks write "*Figure (source).* ..." after a figure and
#: "**Explorer.** ..." before an explorer's starting state.
CAPTION = re.compile(r"(Figures?|Explorer)\b")


def _caption(node) -> str:
    """The figure's caption: the first paragraph starting "Figure" between this image
    (or the row of images it is in) and the next one, else the nearest such (or
    "Explorer.") paragraph before it and after the previous image; "" when none."""
    from docutils import nodes

    document = node
    while document.parent is not None:
        document = document.parent
    elements = list(
        document.findall(lambda n: isinstance(n, (nodes.image, nodes.paragraph)))
    )
    here = elements.index(node)

    def text(element):
        return re.sub(r"\s+", " ", element.astext()).strip()

    seen_text = False  # images in a row (one per dimension, dataset) share a caption
    for element in elements[here + 1 :]:
        if isinstance(element, nodes.image):
            if seen_text:
                break
            continue
        seen_text = True
        if CAPTION.match(text(element)):
            return text(element)
    for element in reversed(elements[:here]):
        if isinstance(element, nodes.image):
            break
        if CAPTION.match(text(element)):
            return text(element)
    return ""


def add_alt_text(app, doctree, docname):
    """Every notebook figure gets its caption as alt text (whole), else a description of
    where it is."""
    from docutils import nodes

    for number, image in enumerate(doctree.findall(nodes.image), 1):
        if image.get("alt"):
            continue
        title = doctree.next_node(nodes.title)
        where = title.astext() if title else docname
        image["alt"] = _caption(image) or f"Figure {number} of {where}"


def link_chapters(app, doctree, docname):
    """Links to a notebook file (``01_dp_primer.ipynb``, as 00_index writes them) point to its chapter."""
    from docutils import nodes

    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        match = re.fullmatch(r"(\d\d\w*_[\w]+)\.ipynb(#.*)?", uri)
        if match and f"notebooks/{match.group(1)}" in app.env.all_docs:
            reference["refuri"] = f"{match.group(1)}.html{match.group(2) or ''}"


#: How the chapters name the works of references.bib, longest names first.
CITATIONS = {
    "Dong, Durfee and Rogers": "dong2020", "Dong–Durfee–Rogers": "dong2020",
    "Dong et al.": "dong2020", "Durfee and Rogers": "durfee2019",
    "Dwork and Roth": "dwork2014", "Dwork–Roth": "dwork2014",
    "Andrés, Bordenabe, Chatzikokolakis and Palamidessi": "andres2013",
    "Andrés et al.": "andres2013", "Mironov": "mironov2012",
    "Kairouz, Oh and Viswanath": "kairouz2015", "Kairouz–Oh–Viswanath": "kairouz2015",
    "Charikar": "charikar2002", "Balle and Wang": "balle2018gaussian",
    "Balle et al.": "balle2018subsampling", "Bun and Steinke": "bun2016",
    "Bun–Steinke": "bun2016", "Canonne, Kamath and Steinke": "canonne2020",
    "Cesar and Rogers": "cesar2021", "Goemans and Williamson": "goemans1995",
    "Hoeffding 1963": "hoeffding1963", "Warner 1965": "warner1965",
    "McSherry and Talwar": "mcsherry2007", "Bentley and Finkel": "friedman1977",
    "Zhang et al.": "zhang2014", "Qardaji et al.": "qardaji2013", "Su et al.": "su2016",
    "Xiao et al.": "xiao2010", "Li, Qardaji and Su": "li2012",
    "Dhaliwal et al.": "dhaliwal2019", "Kenthapadi et al.": "kenthapadi2013",
    "Wang et al.": "wang2022", "Gursoy et al.": "gursoy2017", "Cormode et al.": "cormode2012",
    "Liang and Yi": "liang2023", "Lepert": "lepert2022", "Shokri et al.": "shokri2011",
    "Chaudhuri et al.": "chaudhuri2011", "Vaidya et al.": "vaidya2013",
    "Inan et al.": "inan2010", "Nadeau and Bengio": "nadeau2003", "Holm": "holm1979",
    "Bordenabe et al.": "bordenabe2014", "Chatzikokolakis et al.": "chatzikokolakis2017",
}
_CITED = re.compile("|".join(re.escape(n) for n in sorted(CITATIONS, key=len, reverse=True)))


def link_citations(app, doctree, docname):
    """In a chapter, each name of a cited work links to its entry on the references page."""
    from docutils import nodes

    if not docname.startswith("notebooks/"):
        return
    skip = (nodes.reference, nodes.literal, nodes.literal_block, nodes.math, nodes.title,
            nodes.raw, nodes.FixedTextElement)
    for text in list(doctree.findall(nodes.Text)):
        parent = text.parent
        if parent is None or isinstance(parent, skip) or not _CITED.search(text.astext()):
            continue
        pieces, last, source = [], 0, text.astext()
        for match in _CITED.finditer(source):
            pieces.append(nodes.Text(source[last:match.start()]))
            pieces.append(nodes.reference(
                match.group(0), match.group(0), internal=True, classes=["dpnn-citation"],
                refuri=f"../references.html#cite-{CITATIONS[match.group(0)]}"))
            last = match.end()
        pieces.append(nodes.Text(source[last:]))
        parent.replace(text, [p for p in pieces if not isinstance(p, nodes.Text) or p.astext()])


_LITERAL = re.compile(r"(``.*?``)")


def escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |D| for a size; outside ``literals`` the bar is escaped, since
    reStructuredText reads |D| as a substitution."""
    for i, line in enumerate(lines):
        parts = _LITERAL.split(line)
        lines[i] = "".join(
            p if p.startswith("``") else re.sub(r"(?<!\\)\|", r"\\|", p) for p in parts
        )


_CALL = re.compile(r"([A-Za-z_][\w.]*\.[A-Za-z_]\w*)(\(.*\))?")


def _api_aliases(env) -> dict:
    """Each documented dpnn name under the names a chapter may write it by:
    ``dpnn.traversal.walk.dptt`` also as ``traversal.walk.dptt``,
    ``dpnn.traversal.dptt`` and ``traversal.dptt`` (the package re-exports it); names
    two objects share are left out."""
    found = {}
    for full, entry in env.domaindata["py"]["objects"].items():
        parts = full.split(".")
        if parts[0] != "dpnn" or entry.objtype not in ("function", "class"):
            continue
        names = {full, ".".join(parts[1:])}
        if len(parts) == 4:
            names |= {".".join([*parts[:2], parts[3]]), ".".join([parts[1], parts[3]])}
            names.add(".".join(parts[2:]))
        for name in names:
            found.setdefault(name, set()).add((entry.docname, entry.node_id))
    return {name: next(iter(t)) for name, t in found.items() if len(t) == 1}


def link_api(app, doctree, docname):
    """In a chapter, the first code literal naming a documented dpnn function or class
    (``traversal.dptt``, ``dpnn.mechanisms.laplace(...)``) links to its entry in the API
    reference."""
    from docutils import nodes

    if not docname.startswith("notebooks/"):
        return
    aliases = _api_aliases(app.env)
    seen = set()
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, (nodes.reference, nodes.literal_block)):
            continue
        match = _CALL.fullmatch(literal.astext().strip())
        target = aliases.get(match.group(1)) if match else None
        if target is None or target in seen:
            continue
        seen.add(target)
        uri = app.builder.get_relative_uri(docname, target[0]) + "#" + target[1]
        link = nodes.reference("", "", internal=True, refuri=uri, classes=["dpnn-api"])
        literal.replace_self(link)
        link.append(literal)


def setup(app):
    app.connect("autodoc-process-docstring", escape_bars)
    app.connect("doctree-resolved", link_api)
    app.connect("doctree-resolved", add_alt_text)
    app.connect("doctree-resolved", link_chapters)
    app.connect("doctree-resolved", link_citations)

# pydata-sphinx-theme reads the colour mode from the page; without a default it logs a console error
# ("Got invalid theme mode") on pages opened from disk.
html_context = {"default_mode": "light"}
