"""Build the companion's offline HTML book from the notebooks' stored outputs.

    python -m companion.book [--out DIR]

Copies ``book/`` (Sphinx configuration, front and back matter, BibTeX) and every
numbered notebook into ``build/book-src`` and runs Sphinx with myst-nb, which renders
the stored outputs without executing anything. The HTML lands in ``build/book/html`` (or
``DIR``); open ``index.html``. Nothing is fetched from the network, at build time or
when reading.

Exercise solutions (cells tagged ``solution``, see :mod:`companion.student`) are
collapsed
behind a toggle: code cells get myst-nb's ``hide-cell`` tag ("Show the solution"), the
``### Solution`` markdown becomes a closed ``<details>`` element. Check cells are
collapsed too (:func:`collapse_checks`): the numbers stay, the ``# NBVAL_CHECK_OUTPUT``
code and the assertions are behind a toggle. Every page of ``docs/`` (the seminar
guide, the notation page, the notebooks in detail, running, performance, the cluster,
the design notes) is copied in as a page of the book. Each chapter's download button
gives its notebook as stored in ``notebooks/``. Opened from disk, search lists the
matching pages; ``--serve`` (``make book-serve``) serves the book on 127.0.0.1, where
search also shows snippets.
Search lists first the sections whose heading holds the whole query; its snippets are
the chapter's text (not the theme's buttons or contents) with formulas as plain TeX
(``book/search-scorer.js``).
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
from pathlib import Path

import nbformat

from companion.catalog import notebook_paths, repository_root

__all__ = [
    "SOLUTION_SUMMARY",
    "RATE_CLAIMS",
    "collapse_solutions",
    "collapse_checks",
    "embed_interactive",
    "build",
    "make_server",
    "serve",
    "main",
]

SOLUTION_SUMMARY = "Solution (click to show)"


#: Simulated claims per cell of the rules' error-rate table on the ledger page.
RATE_CLAIMS = 200


def _ledger_page(root: Path, source: Path) -> str:
    """The claims ledger of the stored default run (the ``ledger_*.csv`` beside the
    committed figures) as a page: the verdict counts per source, then every claim;
    with a thesis run's ledgers in ``figures/thesis/``, their counts and the
    verdicts that differ at the sources' sizes; the rules' error rates by
    simulation; the whole ledger as ``ledger.csv`` in ``source`` for download."""
    from companion import claims
    from companion.claims import calibration

    chapters = {}
    for path in notebook_paths(root):
        first = nbformat.read(path, as_version=4).cells[0].source.splitlines()[0]
        chapters[path.stem] = (first.removeprefix("# "), f"notebooks/{path.name}")
    whole = claims.gather(root / "figures")
    whole.to_csv(source / "ledger.csv", index=False, lineterminator="\n")
    return claims.page(
        whole,
        sources_sizes=claims.gather(root / "figures" / "thesis"),
        chapters=chapters,
        rates=calibration.error_rates(reps=RATE_CLAIMS, seed=0),
        download="ledger.csv",
    )


def collapse_solutions(nb):
    """A copy of ``nb`` whose ``solution`` cells the book shows collapsed behind a
    toggle."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "solution" not in tags:
            continue
        if cell.cell_type == "code":
            cell.metadata["tags"] = [*tags, "hide-cell"]
            cell.metadata["mystnb"] = {
                "code_prompt_show": "Show the solution's code and output",
                "code_prompt_hide": "Hide the solution's code",
            }
        else:
            body = re.sub(r"\A### Solution[^\n]*\n*", "", cell.source)
            cell.source = (
                '<details class="dpnn-solution">\n'
                f"<summary>{SOLUTION_SUMMARY}</summary>\n\n"
                f"{body}\n\n</details>"
            )
    return nb


def _is_assert_cell(source: str) -> bool:
    """A code cell at least half of whose simple statements (inside loops too) are
    ``assert``s, however many lines each takes."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    compound = (
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.If,
        ast.With,
        ast.AsyncWith,
        ast.Try,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Match,
    )
    simple = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt) and not isinstance(node, compound)
    ]
    asserts = sum(isinstance(node, ast.Assert) for node in simple)
    return bool(simple) and 2 * asserts >= len(simple)


def collapse_checks(nb):
    """A copy of ``nb`` whose check cells the book shows collapsed: nbval still runs
    them.

    The ``# NBVAL_CHECK_OUTPUT`` cell keeps its printed numbers in view and hides its
    code (myst-nb's ``hide-input``); a cell of assertions is collapsed whole
    (``hide-cell``). The notebooks themselves are not changed.
    """
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or "solution" in tags:
            continue
        if cell.source.lstrip().startswith("# NBVAL_CHECK_OUTPUT"):
            cell.metadata["tags"] = [*tags, "hide-input"]
        elif _is_assert_cell(cell.source):
            cell.metadata["tags"] = [*tags, "hide-cell"]
            cell.metadata["mystnb"] = {
                "code_prompt_show": "Show the checks (assertions)",
                "code_prompt_hide": "Hide the checks",
            }
    return nb


def embed_interactive(nb, prefix: str = "../_static/bokeh/"):
    """A copy of ``nb`` whose stored interactive-figure placeholders
    (:func:`companion.interactive.show_interactive`) are the figures themselves, as
    HTML that loads Bokeh from ``prefix`` (once per chapter)."""
    from companion import interactive
    from companion.interactive.render import MIME_TYPE

    nb = copy.deepcopy(nb)
    first = True
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            spec = output.get("data", {}).get(MIME_TYPE)
            if spec is None:
                continue
            output["data"] = {
                "text/html": interactive.book_fragment(
                    spec["figure"], spec.get("settings", {}), prefix if first else None
                )
            }
            output.pop("metadata", None)
            first = False
    return nb


def _docs_page(text: str) -> str:
    """A page of ``docs/`` as a page at the book's root: links to notebooks point to
    their chapters."""
    return text.replace("](../notebooks/", "](notebooks/")


def build(
    out: Path | None = None, source: Path | None = None, builder: str = "html"
) -> Path:
    """Build the book with Sphinx's ``builder`` (``html``; ``singlehtml`` for the
    PDF, :mod:`companion.pdf`); return the folder holding ``index.html``."""
    from sphinx.cmd.build import build_main

    root = repository_root()
    source = source or root / "build" / "book-src"
    out = out or root / "build" / "book" / "html"
    shutil.rmtree(source, ignore_errors=True)
    (source / "notebooks").mkdir(parents=True)
    for path in (root / "book").iterdir():
        if path.is_file():
            shutil.copy2(path, source / path.name)
        elif path.is_dir() and not path.name.startswith((".", "_build")):
            shutil.copytree(path, source / path.name)
    for path in notebook_paths(root):
        nb = collapse_checks(collapse_solutions(nbformat.read(path, as_version=4)))
        # a chapter's page is notebooks/NN.html; the single page is index.html
        nb = embed_interactive(
            nb, "../_static/bokeh/" if builder == "html" else "_static/bokeh/"
        )
        nbformat.write(nb, source / "notebooks" / path.name)
    from companion.interactive.render import bokeh_scripts

    (source / "_static" / "bokeh").mkdir(parents=True, exist_ok=True)
    for script in bokeh_scripts():
        shutil.copyfile(script, source / "_static" / "bokeh" / script.name)
    for page in sorted((root / "docs").glob("*.md")):
        (source / page.name).write_text(
            _docs_page(page.read_text(encoding="utf-8")), encoding="utf-8"
        )
    (source / "ledger.md").write_text(_ledger_page(root, source), encoding="utf-8")
    from companion.api_reference import write_pages

    write_pages(source)
    status = build_main(
        ["-q", "-b", builder, "-W", "--keep-going", str(source), str(out)]
    )
    if status:
        raise RuntimeError(
            f"sphinx-build failed with status {status} (warnings are errors)"
        )
    if builder != "html":
        return out
    # the download button gives the notebook as stored
    for path in notebook_paths(root):
        shutil.copyfile(path, out / "_sources" / "notebooks" / path.name)
    return out


def make_server(folder: Path, port: int = 8000):
    """An HTTP server of ``folder`` bound to 127.0.0.1 only (``port`` 0: any free
    port)."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(folder: Path, port: int = 8000) -> None:
    """Serve the built book on http://127.0.0.1:``port`` (search then shows
    snippets)."""
    with make_server(folder, port) as server:
        print(
            f"book: http://127.0.0.1:{server.server_address[1]}/index.html "
            "(Ctrl-C stops)"
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


def main(argv=None) -> int:
    """Build the book (``--out``), then serve it if ``--serve``; return 0."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.book", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, help="where the HTML goes (default build/book/html)"
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="after building, serve it on 127.0.0.1 (search with snippets)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="the port of --serve (8000)"
    )
    args = parser.parse_args(argv)
    out = build(args.out)
    print(f"book: open {out / 'index.html'}")
    if args.serve:
        serve(out, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
