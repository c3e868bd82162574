"""``make lab``: JupyterLab on copies of the notebooks; it never changes the checkout.

    python -m companion.lab [--dir DIR] [--port PORT] [--no-browser]

The notebooks a reader opens live in ``build/lab/`` (git-ignored): each numbered
notebook and ``profiles.yml`` is copied there from ``notebooks/`` the first time, and a
copy that exists is never overwritten: a reader's edits survive the next ``make lab``.
JupyterLab is started with that folder as its root, so neither autosave nor "Save as"
can reach
``notebooks/``; figures that a session saves go to ``build/interactive/figures``
(:func:`companion.plots.figures_dir`). ``make lab-reset`` (or deleting ``build/lab``)
starts
over from the stored notebooks.

The server listens on 127.0.0.1 only; as root (a container, CI) it is started with
``--allow-root``, which JupyterLab otherwise refuses.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

from companion.catalog import notebook_paths, repository_root

__all__ = ["lab_dir", "prepare", "command", "main"]


def lab_dir(root: Path | None = None) -> Path:
    """Where the reader's copies live: ``$DPNN_LAB_DIR`` if set, else ``build/lab``."""
    root = root or repository_root()
    return Path(os.environ.get("DPNN_LAB_DIR") or root / "build" / "lab")


def prepare(
    root: Path | None = None, target: Path | None = None
) -> tuple[list[Path], list[str]]:
    """Copy the notebooks ``target`` lacks; return (copies made, names that differ).

    A copy that exists is left as it is, edited or not; the second list names the copies
    that no longer equal ``notebooks/`` (the reader's edits, or a newer stored one).
    """
    root = root or repository_root()
    target = target or lab_dir(root)
    if target.resolve() == (root / "notebooks").resolve():
        raise ValueError(
            f"target must not be the tracked notebooks/ folder, got {target}"
        )
    target.mkdir(parents=True, exist_ok=True)
    sources = [*notebook_paths(root), root / "notebooks" / "profiles.yml"]
    copied, differing = [], []
    for source in sources:
        copy = target / source.name
        if copy.exists():
            if not filecmp.cmp(source, copy, shallow=False):
                differing.append(source.name)
            continue
        shutil.copyfile(source, copy)
        copied.append(copy)
    return copied, differing


def command(target: Path, port: int | None = None, browser: bool = True) -> list[str]:
    """``jupyter lab`` serving ``target`` on 127.0.0.1 (``--allow-root`` as root)."""
    line = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={target}",
        "--ip=127.0.0.1",
    ]
    if port is not None:
        line += [f"--port={port}", "--ServerApp.port_retries=0"]
    if not browser:
        line.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        line.append("--allow-root")
    return line


def main(argv=None) -> int:
    """The command line ``python -m companion.lab`` (see the module's
    docstring); returns its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.lab", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--dir", type=Path, help="where the copies live (default build/lab)"
    )
    parser.add_argument(
        "--port", type=int, help="the server's port (default: JupyterLab's, 8888)"
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="do not open a web browser"
    )
    args = parser.parse_args(argv)
    root = repository_root()
    target = args.dir or lab_dir(root)
    copied, differing = prepare(root, target)
    print(
        f"JupyterLab on copies in {target} ({len(copied)} copied now); "
        "notebooks/ is never written"
    )
    if differing:
        print(
            f"{len(differing)} copies differ from notebooks/ (your edits or newer "
            f"stored notebooks): {', '.join(differing)}; `make lab-reset` starts over "
            "from the stored notebooks"
        )
    try:
        return subprocess.call(command(target, args.port, not args.no_browser))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
