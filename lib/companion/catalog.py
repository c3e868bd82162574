"""The notebooks of a checkout: where the repository is, which notebooks it holds,
which figures each one saves, and where a run's figures go.

Read by the runner (:mod:`companion.run`), the book, the lab and the student edition;
nothing
here executes a notebook.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat

from companion.parameters import RunError, notebook_defaults

__all__ = ["repository_root", "notebook_paths", "select", "catalog", "figures_dir_for"]


def repository_root() -> Path:
    """The checkout holding ``notebooks/`` (``$DPNN_ROOT`` if set)."""
    root = Path(os.environ.get("DPNN_ROOT", Path(__file__).resolve().parents[2]))
    if not (root / "notebooks").is_dir():
        raise RunError(
            f"no notebooks/ folder under {root}; run "
            "from a source checkout or set DPNN_ROOT"
        )
    return root


def notebook_paths(root: Path) -> list[Path]:
    """Every numbered notebook, in reading order."""
    return sorted(p for p in (root / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


def _figure_names(code: list[str], min_prefix: int = 4) -> tuple[set, list]:
    """String literals and f-string patterns (as regular expressions) in a notebook's
    code; an f-string counts when its fixed prefix has ``min_prefix`` characters or
    more."""
    import ast
    import re

    literals, patterns = set(), []
    for cell in code:
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif (
                isinstance(node, ast.JoinedStr)
                and node.values
                and isinstance(node.values[0], ast.Constant)
                and len(node.values[0].value) >= min_prefix
            ):  # a figure name starts with a fixed prefix
                parts = [
                    re.escape(v.value) if isinstance(v, ast.Constant) else ".+"
                    for v in node.values
                ]
                patterns.append(re.compile("".join(parts)))
    return literals, patterns


def _plot_sources(code: list[str]) -> list[str]:
    """The source of every :mod:`companion.plots` function a notebook's code calls
    (``plots.name(...)``): figure names built there from a spec count as the
    notebook's."""
    import inspect
    import re

    from companion import plots

    called = set(re.findall(r"\bplots\.(\w+)\(", "\n".join(code)))
    return [
        inspect.getsource(getattr(plots, name))
        for name in sorted(called & set(plots.__all__))
    ]


def select(names: list[str], available: dict) -> list[str]:
    """The notebooks meant by ``names``: numbers (``05``), unique prefixes, names or
    paths."""
    chosen = []
    for given in names:
        stem = Path(given).stem
        matches = [n for n in available if n == stem] or [
            n for n in available if n.startswith(stem) and (len(stem) > 1 or "_" in n)
        ]
        if len(matches) != 1:
            why = (
                f"ambiguous notebook {given!r} (it matches {matches})"
                if matches
                else f"unknown notebook {given!r} (it matches none)"
            )
            raise RunError(
                f"{why}; give a number (05), a unique "
                f"prefix or a name; valid notebooks: {sorted(available)}"
            )
        chosen.append(matches[0])
    return chosen


def catalog(root: Path | None = None) -> list[dict]:
    """One row per notebook: its name, title, parameters and the figures it writes.

    A notebook's figures are the ``plots.save`` names in its code, plus every PNG of the
    committed ``figures/`` whose name is a string in the code, or in a
    :mod:`companion.plots` function it calls, or matches one of their f-strings
    (``f"thesis_fig{number}_basic_dis_geo_{d}d"``), so names built at run time are
    listed too.
    """
    import re

    root = root or repository_root()
    committed = sorted(p.stem for p in (root / "figures").glob("*.png"))
    rows = []
    for path in notebook_paths(root):
        nb = nbformat.read(path, as_version=4)
        title = (
            nb.cells[0].source.splitlines()[0].lstrip("# ").strip() if nb.cells else ""
        )
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        saved = re.findall(
            r"plots\.save\(\s*\w+\s*,\s*[\"']([\w\-]+)[\"']", "\n".join(code)
        )
        literals, patterns = _figure_names(code)
        # in the library, only names with a long fixed prefix (``thesis_fig6_``): its
        # short f-strings are column names (``geo_{metric}``)
        from_plots, plot_patterns = _figure_names(_plot_sources(code), min_prefix=10)
        literals |= from_plots
        patterns += plot_patterns
        found = {
            name
            for name in committed
            if name in literals or any(p.fullmatch(name) for p in patterns)
        }
        rows.append(
            {
                "notebook": path.name,
                "title": title,
                "parameters": sorted(notebook_defaults(path)),
                "figures": sorted(found | set(saved)),
            }
        )
    return rows


def figures_dir_for(root: Path, profile: str, overridden: bool = False) -> Path:
    """Where a run's figures go: the committed ``figures/`` only for a plain default
    run."""
    if overridden:
        return root / "build" / profile / "figures"
    if profile == "default":
        return root / "figures"
    if profile == "thesis":
        return root / "figures" / "thesis"
    return root / "build" / profile / "figures"
