"""The book as one PDF, printed by Chromium from the book's single-page edition.

    python -m companion.pdf [--out FILE]        (make pdf)

Sphinx's ``singlehtml`` builder writes every page of the book (:mod:`companion.book`:
the chapters with their stored outputs, the docs pages, the ledger, the API
reference, the references) into one HTML page; Debian's chromium, driven by
playwright as in the book's tests, opens it from disk, waits until MathJax has
typeset every formula and every interactive figure has drawn its starting state, and
prints it to A4 with page numbers and the headings as the PDF's outline. Code wraps
instead of overflowing (``book/_static/dpnn-print.css``). Nothing is fetched from
the network. The PDF lands in ``build/book/dpnn-companion.pdf``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from companion.book import build
from companion.catalog import repository_root

__all__ = ["PRINT_CSS", "build_pdf", "main"]

#: The print rules added to the single page: no sidebars or buttons, code and wide
#: outputs wrapped, figures kept whole on a page, a chapter starting a new page.
PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 16mm 14mm; }
.bd-sidebar-primary, .bd-sidebar-secondary, .bd-header, .bd-header-article,
.header-article-items, .prev-next-area, .bd-footer, .bd-footer-content,
.bd-footer-article, .search-button-field, .theme-switch-button,
.cell_input .copybtn, button { display: none !important; }
.bd-main .bd-content .bd-article-container { max-width: 100% !important; }
.bd-page-width { max-width: 100% !important; }
body { font-size: 10.5pt; }
pre, pre code, .output pre, .highlight pre {
  white-space: pre-wrap !important; word-break: break-word;
  overflow: visible !important;
  font-size: 8pt !important;
}
img { max-width: 100% !important; break-inside: avoid; }
.cell_output img { max-height: 230mm; }
table { font-size: 8pt; }
.dpnn-interactive { break-inside: avoid; }
details { display: block; }
/* Chromium breaks pages only outside flex and grid boxes: the theme's are blocks */
.bd-container, .bd-container__inner, .bd-main, .bd-content, .bd-article-container,
.bd-article, .bd-page-width, .bd-main .bd-content { display: block !important; }
/* the single page nests every document under the front page: their titles are h2 */
h2 { break-before: page; }
.bk-Canvas, canvas { max-width: 100% !important; }
"""


def build_pdf(out: Path | None = None, html: Path | None = None) -> Path:
    """Build the single-page book into ``html`` (default ``build/book/single``) and
    print it to ``out`` (default ``build/book/dpnn-companion.pdf``); return ``out``."""
    from playwright.sync_api import sync_playwright

    root = repository_root()
    html = html or root / "build" / "book" / "single"
    out = out or root / "build" / "book" / "dpnn-companion.pdf"
    shutil.rmtree(html, ignore_errors=True)
    folder = build(
        html, source=root / "build" / "book-src-single", builder="singlehtml"
    )
    page_file = folder / "index.html"
    text = page_file.read_text(encoding="utf-8")
    page_file.write_text(
        text.replace("</head>", f"<style>{PRINT_CSS}</style></head>", 1),
        encoding="utf-8",
    )
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox"], headless=True
        )
        page = browser.new_page(viewport={"width": 1100, "height": 1400})

        def offline_only(route):
            if route.request.url.startswith(("file://", "data:", "blob:")):
                route.continue_()
            else:
                route.abort()

        page.route("**/*", offline_only)
        page.goto(page_file.as_uri(), wait_until="load", timeout=120_000)
        page.evaluate("() => window.MathJax && MathJax.startup.promise")
        page.wait_for_function(
            "() => window.Bokeh && Bokeh.documents.length === "
            "document.querySelectorAll('.dpnn-interactive').length && "
            "Bokeh.documents.every(d => d.get_model_by_name('readout').text)",
            timeout=60_000,
        )
        page.evaluate(
            "() => document.querySelectorAll('details').forEach(d => d.open = false)"
        )
        page.emulate_media(media="print")
        time.sleep(0.5)  # the last redraws after the media change
        out.parent.mkdir(parents=True, exist_ok=True)
        page.pdf(
            path=str(out),
            format="A4",
            print_background=True,
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=(
                '<div style="font-size:8px; width:100%; text-align:center">'
                '<span class="pageNumber"></span> / <span class="totalPages"></span>'
                "</div>"
            ),
            margin={"top": "14mm", "bottom": "16mm", "left": "12mm", "right": "12mm"},
            outline=True,
            tagged=True,
        )
        browser.close()
    return out


def main(argv=None) -> int:
    """The command line ``python -m companion.pdf``; returns its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.pdf", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", type=Path, help="the PDF's path")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = build_pdf(args.out)
    print(f"pdf: {out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
