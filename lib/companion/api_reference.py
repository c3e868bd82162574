"""The book's API reference: one page per package of :mod:`dpnn`, generated from the
docstrings by Sphinx's autodoc.

A package's page shows the package's own docstring, then every module of the package
with each public name of its ``__all__`` (the name's home: re-exports are not
repeated), its signature and its docstring, which states what it computes, its
privacy guarantee and its source section. The plain modules of ``dpnn`` itself
(``mechanisms``, ``trees``, ...) share the page of ``dpnn``.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

__all__ = ["packages", "page", "write_pages"]


def packages(top: str = "dpnn") -> dict[str, list[str]]:
    """``{package: [its public modules]}`` of ``top`` and its subpackages (modules
    whose name starts with ``_`` are left out)."""
    root = importlib.import_module(top)
    found = {top: []}
    for info in pkgutil.walk_packages(root.__path__, top + "."):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts):
            continue
        if info.ispkg:
            found.setdefault(info.name, [])
        elif len(parts) == 2:
            found[top].append(info.name)
        else:
            found.setdefault(".".join(parts[:2]), []).append(info.name)
    return {name: sorted(modules) for name, modules in found.items()}


def page(package: str, modules: list[str]) -> str:
    """The MyST page of ``package``: its docstring, then each module's public names."""
    lines = [
        f"# `{package}`",
        "",
        "```{eval-rst}",
        f".. automodule:: {package}",
        "   :no-members:",
        "",
    ]
    for module in modules:
        lines += [
            f".. rubric:: ``{module}``",
            "",
            f".. automodule:: {module}",
            "   :members:",
            "",
        ]
    return "\n".join([*lines, "```", ""])


def write_pages(folder: Path, top: str = "dpnn") -> list[str]:
    """Write ``api/index.md`` and one page per package of ``top`` into ``folder``;
    return the pages' names (without ``.md``)."""
    api = Path(folder) / "api"
    api.mkdir(parents=True, exist_ok=True)
    found = packages(top)
    for package, modules in found.items():
        (api / f"{package}.md").write_text(page(package, modules), encoding="utf-8")
    names = list(found)
    index = [
        "# API reference",
        "",
        f"One page per package of `{top}`: every public function and class with its",
        "signature and docstring (what it computes, its privacy guarantee, its source",
        "section).",
        "",
        "```{toctree}",
        ":maxdepth: 1",
        "",
        *names,
        "```",
        "",
    ]
    (api / "index.md").write_text("\n".join(index), encoding="utf-8")
    return ["api/index", *(f"api/{name}" for name in names)]
