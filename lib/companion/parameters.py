"""The notebooks' parameters: profiles, values given on the command line, and their
checks.

Everything here runs before any kernel starts, so a bad value is refused at once with a
sentence naming the parameter, its notebook and what is allowed (:class:`RunError`).
Types come from the parameters cell's annotations (``n_points: int = 1000``); ranges
from the parameter's name: a name containing ``epsilon`` or starting with ``rho`` is a
privacy budget, finite and > 0 (each element, for a list), a name equal to ``delta``
or ending in ``_delta`` is a probability in (0, 1), and a name starting with ``n_`` is a
size (of points, queries, samples, ...), at least 1; ``n_jobs`` is at least 1 or -1 (all
cores).
"""

from __future__ import annotations

import math
from pathlib import Path

import papermill
import yaml

__all__ = [
    "RunError",
    "parse_value",
    "load_profiles",
    "notebook_defaults",
    "notebook_types",
    "coerce",
    "check_range",
    "resolve_parameters",
]


class RunError(Exception):
    """A profile, notebook or parameter the runner cannot use; the message says why."""


def _numbers(value):
    """YAML 1.1 reads ``1e3`` as a string; read such strings as the numbers they are."""
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def parse_value(text: str):
    """A parameter value given on the command line: YAML (``0.5``, ``[1, 2]``,
    ``true``), numbers as numbers."""
    return _numbers(yaml.safe_load(text))


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML would keep
    the later one silently)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise RunError(
                    f"profiles.yml gives {key!r} twice in one section "
                    f"(line {key_node.start_mark.line + 1}); keep one"
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_profiles(root: Path) -> dict:
    """``{profile: {notebook stem: {parameter: value}}}`` from
    ``notebooks/profiles.yml``."""
    with open(root / "notebooks" / "profiles.yml") as handle:
        profiles = yaml.load(handle, Loader=_UniqueKeys) or {}
    return {
        name: {
            nb: {k: _numbers(v) for k, v in (params or {}).items()}
            for nb, params in (nbs or {}).items()
        }
        for name, nbs in profiles.items()
    }


def notebook_defaults(path: Path) -> dict:
    """The parameters a notebook declares in its ``parameters`` cell, with their
    defaults."""
    declared = papermill.inspect_notebook(str(path))
    return {name: parse_value(info["default"]) for name, info in declared.items()}


def notebook_types(path: Path) -> dict:
    """The annotated type of each parameter (``name: type = value``): ``"int"``,
    ``"float"``, ..."""
    return {
        name: info["inferred_type_name"]
        for name, info in papermill.inspect_notebook(str(path)).items()
    }


def coerce(value, type_name: str, parameter: str, notebook: str):
    """``value`` as the parameter's annotated type, or a RunError naming the parameter
    and its type.

    ``1e4`` is the int 10000 for an int parameter (YAML reads it as a float); an int is
    a float where a float is asked; anything else that does not fit is refused before
    any kernel starts.
    """

    def refuse():
        article = "an" if type_name[:1] in "aeiou" else "a"
        return RunError(
            f"parameter {parameter!r} of {notebook} "
            f"is {article} {type_name}; got {value!r}"
        )

    if type_name == "int":
        if isinstance(value, bool):
            raise refuse()
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if not isinstance(value, int):
            raise refuse()
    elif type_name == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise refuse()
        return float(value)
    elif type_name == "bool" and not isinstance(value, bool):
        raise refuse()
    elif type_name == "str" and not isinstance(value, str):
        raise refuse()
    elif type_name == "list" and not isinstance(value, list):
        raise refuse()
    return value


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_range(value, parameter: str, notebook: str):
    """``value`` if it lies in the range the parameter's name implies, else a RunError.

    A name containing ``epsilon`` or starting with ``rho`` is a privacy budget: finite
    and > 0. A name equal to ``delta`` or ending in ``_delta`` is a probability in (0,
    1). A name starting with ``n_`` is a size: at least 1 (``n_jobs``: at least 1, or
    -1 for all cores). Lists are checked element by element; other parameters are
    checked by the notebook.
    """
    if "epsilon" in parameter or parameter.startswith("rho"):
        allowed, inside = "finite and > 0", lambda v: math.isfinite(v) and v > 0
    elif parameter == "delta" or parameter.endswith("_delta"):
        allowed, inside = "in (0, 1)", lambda v: 0 < v < 1
    elif parameter == "n_jobs":
        allowed, inside = "at least 1, or -1 for all cores", lambda v: v >= 1 or v == -1
    elif parameter.startswith("n_"):
        allowed, inside = "at least 1 (a size)", lambda v: v >= 1
    else:
        return value
    for item in value if isinstance(value, list) else [value]:
        if _is_number(item) and not inside(item):
            raise RunError(
                f"parameter {parameter!r} of {notebook} must be {allowed}; got {item!r}"
            )
    return value


def resolve_parameters(
    profile_params: dict,
    overrides: dict,
    defaults: dict,
    notebook: str,
    types: dict | None = None,
) -> dict:
    """Merge profile values and ``-p`` overrides; keep only values that differ from the
    defaults.

    A notebook run with its own defaults gets no injected cell, so its executed
    copy is a clean record of the notebook as written.
    """
    unknown = sorted(set(profile_params) - set(defaults))
    if unknown:
        raise RunError(
            f"profiles.yml sets unknown parameter(s) {unknown} for {notebook}; "
            f"valid: {sorted(defaults)}"
        )
    merged = {**profile_params, **{k: v for k, v in overrides.items() if k in defaults}}
    if types:
        merged = {
            k: coerce(v, types.get(k, "None"), k, notebook) for k, v in merged.items()
        }
    merged = {k: check_range(v, k, notebook) for k, v in merged.items()}
    return {k: v for k, v in merged.items() if defaults[k] != v}
