"""Build the companion's offline HTML book from the notebooks' stored outputs.

    python -m dpnn.book [--out DIR]

Copies ``book/`` (Sphinx configuration, front and back matter, BibTeX) and every numbered
notebook into ``build/book-src`` and runs Sphinx with myst-nb, which renders the stored
outputs without executing anything. The HTML lands in ``build/book/html`` (or ``DIR``);
open ``index.html``. Nothing is fetched from the network, at build time or when reading.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from dpnn.run import notebook_paths, repository_root


def build(out: Path | None = None, source: Path | None = None) -> Path:
    """Build the book; return the folder holding ``index.html``."""
    from sphinx.cmd.build import build_main

    root = repository_root()
    source = source or root / "build" / "book-src"
    out = out or root / "build" / "book" / "html"
    shutil.rmtree(source, ignore_errors=True)
    (source / "notebooks").mkdir(parents=True)
    for path in (root / "book").iterdir():
        if path.is_file():
            shutil.copy2(path, source / path.name)
    for path in notebook_paths(root):
        shutil.copy2(path, source / "notebooks" / path.name)
    status = build_main(["-q", "-b", "html", "-W", "--keep-going", str(source), str(out)])
    if status:
        raise RuntimeError(f"sphinx-build failed with status {status} (warnings are errors)")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpnn.book", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="where the HTML goes (default build/book/html)")
    args = parser.parse_args(argv)
    out = build(args.out)
    print(f"book: open {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
