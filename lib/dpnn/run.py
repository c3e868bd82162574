"""Execute the notebooks through papermill under a parameter profile.

    python -m dpnn.run --profile NAME [NOTEBOOK ...] [-p key value ...]

Profiles live in ``notebooks/profiles.yml``: ``ci`` (seconds), ``default``
(the seminar size; the stored outputs and committed figures come from it) and
``thesis`` (the sizes of the thesis). Executed copies go to
``build/<profile>/``; figures to ``figures/`` (``default``),
``figures/thesis/`` (``thesis``) or ``build/<profile>/figures/`` (any other).
``--store`` (default profile only) writes the executed notebooks back to
``notebooks/`` as their stored outputs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
import papermill
import yaml
from papermill.exceptions import PapermillExecutionError
from tqdm import tqdm

KERNEL_NAME = "dpnn"


class RunError(Exception):
    """A profile, notebook or parameter the runner cannot use; the message says why."""


def repository_root() -> Path:
    """The checkout holding ``notebooks/`` (``$DPNN_ROOT`` if set)."""
    root = Path(os.environ.get("DPNN_ROOT", Path(__file__).resolve().parents[2]))
    if not (root / "notebooks").is_dir():
        raise RunError(f"no notebooks/ folder under {root}; run from a source checkout or set DPNN_ROOT")
    return root


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
    """A parameter value given on the command line: YAML (``0.5``, ``[1, 2]``, ``true``), numbers as numbers."""
    return _numbers(yaml.safe_load(text))


def load_profiles(root: Path) -> dict:
    """``{profile: {notebook stem: {parameter: value}}}`` from ``notebooks/profiles.yml``."""
    with open(root / "notebooks" / "profiles.yml") as handle:
        profiles = yaml.safe_load(handle) or {}
    return {name: {nb: {k: _numbers(v) for k, v in (params or {}).items()} for nb, params in (nbs or {}).items()}
            for name, nbs in profiles.items()}


def notebook_paths(root: Path) -> list[Path]:
    """Every numbered notebook, in reading order."""
    return sorted(p for p in (root / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


def notebook_defaults(path: Path) -> dict:
    """The parameters a notebook declares in its ``parameters`` cell, with their defaults."""
    declared = papermill.inspect_notebook(str(path))
    return {name: parse_value(info["default"]) for name, info in declared.items()}


def catalog(root: Path | None = None) -> list[dict]:
    """One row per notebook: its name, title, parameters and the figures it saves.

    Figures are read from the ``plots.save(fig, "name")`` calls in the notebook's code.
    """
    import re

    root = root or repository_root()
    rows = []
    for path in notebook_paths(root):
        nb = nbformat.read(path, as_version=4)
        title = nb.cells[0].source.splitlines()[0].lstrip("# ").strip() if nb.cells else ""
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        rows.append({
            "notebook": path.name,
            "title": title,
            "parameters": sorted(notebook_defaults(path)),
            "figures": re.findall(r"plots\.save\(\s*\w+\s*,\s*[\"']([\w\-]+)[\"']", code),
        })
    return rows


def figures_dir_for(root: Path, profile: str) -> Path:
    if profile == "default":
        return root / "figures"
    if profile == "thesis":
        return root / "figures" / "thesis"
    return root / "build" / profile / "figures"


def resolve_parameters(profile_params: dict, overrides: dict, defaults: dict, notebook: str) -> dict:
    """Merge profile values and ``-p`` overrides; keep only values that differ from the defaults.

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
    return {k: v for k, v in merged.items() if defaults[k] != v}


def ensure_kernel() -> None:
    """Register this interpreter as the Jupyter kernel ``dpnn`` inside its own prefix."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
        if Path(spec.resource_dir).resolve().is_relative_to(Path(sys.prefix).resolve()):
            return
    except NoSuchKernel:
        pass
    from ipykernel.kernelspec import install

    install(kernel_name=KERNEL_NAME, display_name="Python (dpnn .venv)", prefix=sys.prefix)


def strip_run_metadata(path: Path) -> None:
    """Drop papermill's timing metadata so a stored notebook changes only when its content does."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("papermill", None)
    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)


def run(profile: str, selected: list[str], overrides: dict, store: bool = False,
        output_dir: Path | None = None, figures_dir: Path | None = None) -> list[Path]:
    """Execute the selected notebooks (all if none) under ``profile``; return the executed copies."""
    root = repository_root()
    profiles = load_profiles(root)
    if profile not in profiles:
        raise RunError(f"unknown profile {profile!r}; valid profiles: {sorted(profiles)}")
    if store and profile != "default":
        raise RunError("--store writes stored outputs, which come only from the default profile")
    available = {p.stem: p for p in notebook_paths(root)}
    names = [Path(s).stem for s in selected] or list(available)
    missing = [n for n in names if n not in available]
    if missing:
        raise RunError(f"unknown notebook(s) {missing}; valid notebooks: {sorted(available)}")

    defaults = {n: notebook_defaults(available[n]) for n in names}
    unknown = sorted(k for k in overrides if not any(k in defaults[n] for n in names))
    if unknown:
        valid = {n: sorted(d) for n, d in defaults.items()}
        raise RunError(f"unknown parameter(s) {unknown}; valid parameters per notebook: {valid}")
    plans = {n: resolve_parameters(profiles[profile].get(n, {}), overrides, defaults[n], n)
             for n in names}
    if store and any(plans.values()):
        raise RunError("--store needs each notebook's own defaults; drop -p or fix profiles.yml")

    output_dir = output_dir or root / "build" / profile
    output_dir.mkdir(parents=True, exist_ok=True)
    os.environ["DPNN_FIGURES_DIR"] = str(figures_dir or figures_dir_for(root, profile))
    ensure_kernel()
    executed = []
    for name in (bar := tqdm(names, desc=f"notebooks ({profile})", unit="nb")):
        bar.set_postfix_str(name)
        target = output_dir / f"{name}.ipynb"
        started = time.perf_counter()
        try:
            papermill.execute_notebook(
                str(available[name]), str(target), parameters=plans[name],
                kernel_name=KERNEL_NAME, cwd=str(available[name].parent), progress_bar=False,
            )
        except PapermillExecutionError as error:
            raise RunError(
                f"notebook {name}.ipynb failed in cell {error.cell_index} "
                f"(execution count {error.exec_count}): {error.ename}: {error.evalue}\n"
                f"executed copy with the traceback: {target}"
            ) from None
        strip_run_metadata(target)
        bar.write(f"{name}: {time.perf_counter() - started:.0f} s")
        if store:
            available[name].write_bytes(target.read_bytes())
        executed.append(target)
    return executed


def _parse_overrides(pairs) -> dict:
    return {key: parse_value(value) for key, value in (pairs or [])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpnn.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="default", help="ci, default or thesis (notebooks/profiles.yml)")
    parser.add_argument("notebooks", nargs="*", help="notebook names or paths (default: all)")
    parser.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("KEY", "VALUE"),
                        help="override a parameter (value parsed as YAML: 0.5, [1, 2], true)")
    parser.add_argument("--store", action="store_true", help="write outputs back to notebooks/ (default profile)")
    parser.add_argument("--output-dir", type=Path, help="where executed copies go (default build/PROFILE)")
    args = parser.parse_args(argv)
    try:
        run(args.profile, args.notebooks, _parse_overrides(args.parameter), args.store, args.output_dir)
    except RunError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
