"""Every public function and class (a name in its module's ``__all__``, defined there)
has a docstring, in ``dpnn`` and in ``companion``: the API reference is generated from
them. Constants cannot carry a docstring and are not checked here."""

import importlib
import inspect
import pkgutil
import types

import pytest

from companion.api_reference import packages, page


def modules(top: str):
    root = importlib.import_module(top)
    yield root
    for info in pkgutil.walk_packages(root.__path__, top + "."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def undocumented(module) -> list[str]:
    """The functions and classes of ``module.__all__`` defined in ``module`` that have
    no docstring."""
    missing = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if obj.__module__ == module.__name__ and not (obj.__doc__ or "").strip():
            missing.append(f"{module.__name__}.{name}")
    return missing


@pytest.mark.parametrize("top", ["dpnn", "companion"])
def test_every_public_function_and_class_has_a_docstring(top):
    missing = [name for module in modules(top) for name in undocumented(module)]
    assert not missing, f"public names without a docstring: {missing}"


def test_the_check_catches_a_public_function_without_a_docstring():
    module = types.ModuleType("fake_module")
    exec(
        "__all__ = ['told', 'untold', 'Bare', 'LIMIT']\n"
        "def told():\n    'What it computes.'\n"
        "def untold():\n    pass\n"
        "class Bare:\n    pass\n"
        "LIMIT = 3\n",
        module.__dict__,
    )
    for obj in (module.told, module.untold, module.Bare):
        obj.__module__ = "fake_module"
    assert undocumented(module) == ["fake_module.untold", "fake_module.Bare"]


def test_the_api_reference_has_a_page_per_package_with_each_of_its_modules():
    found = packages("dpnn")
    assert {"dpnn", "dpnn.accounting", "dpnn.traversal", "dpnn.adversary"} <= set(found)
    assert "dpnn.mechanisms" in found["dpnn"]
    assert "dpnn.traversal.walk" in found["dpnn.traversal"]
    assert not any("._" in m for modules in found.values() for m in modules)
    text = page("dpnn.traversal", found["dpnn.traversal"])
    for module in found["dpnn.traversal"]:
        assert f".. automodule:: {module}\n   :members:" in text
