"""One name, one home: every public name of ``dpnn`` and ``companion`` is defined in one
module, listed in that module's ``__all__`` and, optionally, in the ``__all__`` of the
packages above it; nothing else re-exports it, and no module reaches into another's
private names.

A module's public API is what it defines at its top level without a leading
underscore (functions, classes, constants); a package's is what its ``__init__``
imports from its own submodules. Every module states it in ``__all__``. The library,
the benchmarks and the notebooks import each name from its home or from a package
above the home that lists it; the tests may read private names (they test them).
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest
from test_architecture import LIB, modules

ROOT = LIB.parent


def _defined(path: Path) -> list[str]:
    """The public names a module defines at its top level, in order."""
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                names += [t.id for t in elements if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in dict.fromkeys(names) if not n.startswith("_")]


def _imported_from_own_submodules(name: str, path: Path) -> list[str]:
    """The names a package's ``__init__`` imports from modules inside the package."""
    names = []
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.ImportFrom):
            continue
        inside = (
            node.level == 1
            and node.module
            or (not node.level and (node.module or "").startswith(name + "."))
        )
        if inside:
            names += [alias.asname or alias.name for alias in node.names]
    return names


def public_api(name: str, path: Path) -> list[str]:
    if path.name == "__init__.py":
        return list(
            dict.fromkeys(_defined(path) + _imported_from_own_submodules(name, path))
        )
    return _defined(path)


def homes() -> dict[tuple[str, str], str]:
    """``(module, name) -> home`` for every name in every ``__all__``: the module that
    defines it."""
    found = {}
    for name, path in modules().items():
        if path.name == "__init__.py":
            continue
        for public in _defined(path):
            found[(name, public)] = name
    table = {}
    for name in modules():
        module = importlib.import_module(name)
        for public in getattr(module, "__all__", []):
            if (name, public) in found:
                table[(name, public)] = name
                continue
            target = getattr(module, public)
            candidates = [
                home
                for (home, other), _ in found.items()
                if other == public
                and home.startswith(name + ".")
                and getattr(importlib.import_module(home), public, None) is target
            ]
            table[(name, public)] = candidates[0] if candidates else None
    return table


def test_every_module_states_its_public_api_in_all():
    wrong = {}
    for name, path in modules().items():
        if path.name == "__main__.py":
            continue
        module = importlib.import_module(name)
        declared = getattr(module, "__all__", None)
        expected = public_api(name, path)
        if declared is None or sorted(declared) != sorted(expected):
            wrong[name] = {
                "missing from __all__": sorted(set(expected) - set(declared or [])),
                "in __all__, not its own": sorted(set(declared or []) - set(expected)),
            }
    assert not wrong, wrong


def test_every_public_name_has_one_home():
    """A name in a module's ``__all__`` is defined there, or (for a package) in one of
    its submodules: no module re-exports a name from beside or above it."""
    strays = sorted(key for key, home in homes().items() if home is None)
    assert not strays, f"(module, name) listed away from their home: {strays}"


# --- canonical import paths
# -------------------------------------------------------------


def _sources():
    """``(label, code)`` of every module of lib/, benchmarks/ and the notebooks'
    code."""
    for folder in ("lib", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield str(path.relative_to(ROOT)), path.read_text(), path
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "code"
        )
        code = "\n".join(
            line
            for line in code.splitlines()
            if not line.lstrip().startswith(("%", "!"))
        )
        yield path.name, code, None


def _own_module(path: Path | None) -> str | None:
    if path is None or LIB not in path.parents:
        return None
    parts = path.relative_to(LIB).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(node: ast.ImportFrom, own: str | None, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    anchor = own.split(".") if own else []
    anchor = anchor[: len(anchor) - (node.level - (1 if is_package else 0))]
    return ".".join(anchor + ([node.module] if node.module else []))


def references(code: str, path: Path | None):
    """``(module, name)`` for every ``from module import name`` and every
    ``alias.name`` where ``alias`` is a module of ours, outside ``path``'s own
    module."""
    known = set(modules())
    own = _own_module(path)
    is_package = path is not None and path.name == "__init__.py"
    aliases = {}
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _resolve(node, own, is_package)
            if base not in known:
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    aliases[alias.asname or alias.name] = full
                elif base != own:
                    yield base, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and aliases[node.value.id] != own
        ):
            module = aliases[node.value.id]
            if f"{module}.{node.attr}" not in known:
                yield module, node.attr


def test_no_module_reads_another_modules_private_names():
    found = sorted(
        f"{label}: {module}.{name}"
        for label, code, path in _sources()
        for module, name in references(code, path)
        if name.startswith("_") and not name.startswith("__")
    )
    assert not found, f"{len(found)} private names read across modules: {found[:40]}"


def test_every_import_uses_the_names_home_or_a_package_above_it():
    table = homes()
    found = sorted(
        f"{label}: {module}.{name}"
        for label, code, path in _sources()
        for module, name in references(code, path)
        if not name.startswith("_")
        and (module, name) not in table
        and name not in {"__version__"}
    )
    assert not found, f"names imported away from their home: {found[:40]}"


@pytest.mark.parametrize(
    "code, expected",
    [
        (
            "from dpnn.mechanisms import _finite_scale\n",
            [("dpnn.mechanisms", "_finite_scale")],
        ),
        (
            "from dpnn import mechanisms\nmechanisms._points(1)\n",
            [("dpnn.mechanisms", "_points")],
        ),
        ("import dpnn.trees as t\nt._ranges\n", [("dpnn.trees", "_ranges")]),
        (
            "from dpnn.baselines import square_mechanism\n",
            [("dpnn.baselines", "square_mechanism")],
        ),
    ],
)
def test_the_reference_reader_finds_private_and_stray_names(code, expected):
    """Negative controls: a private read and a name imported away from its home."""
    found = list(references(code, None))
    assert found == expected
    if not expected[0][1].startswith("_"):
        assert expected[0] not in homes()
