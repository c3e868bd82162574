"""Execute the notebooks through papermill under a parameter profile.

    python -m dpnn.run --profile NAME [NOTEBOOK ...] [-p key value ...]

Profiles live in ``notebooks/profiles.yml``: ``ci`` (seconds), ``default``
(the seminar size; the stored outputs and committed figures come from it) and
``thesis`` (the sizes of the thesis). Executed copies go to
``build/<profile>/``. Figures go to the committed ``figures/`` only from a plain
default run (no ``-p``), to ``figures/thesis/`` (git-ignored) from a plain thesis
run, and to ``build/<profile>/figures/`` from any other run; ``$DPNN_FIGURES_DIR``,
if set, wins. ``--store`` (default profile only) writes the executed notebooks back
to ``notebooks/`` as their stored outputs.

While a notebook runs, the bar shows its long loops' progress (:mod:`dpnn.progress`).

Nothing is half-written: each notebook runs into a temporary file and its figures
into a staging folder; only when it succeeds are both moved into place, so a failed
or interrupted run keeps the last good copies.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import threading
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


def notebook_types(path: Path) -> dict:
    """The annotated type of each parameter (``name: type = value``): ``"int"``, ``"float"``, ..."""
    return {name: info["inferred_type_name"] for name, info in papermill.inspect_notebook(str(path)).items()}


def coerce(value, type_name: str, parameter: str, notebook: str):
    """``value`` as the parameter's annotated type, or a RunError naming the parameter and its type.

    ``1e4`` is the int 10000 for an int parameter (YAML reads it as a float); an int is
    a float where a float is asked; anything else that does not fit is refused before
    any kernel starts.
    """
    def refuse():
        return RunError(f"parameter {parameter!r} of {notebook} is a {type_name}; got {value!r}")

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


def _figure_names(code: str) -> tuple[set, list]:
    """String literals and f-string patterns (as regular expressions) in a notebook's code."""
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
            elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant) \
                    and len(node.values[0].value) >= 4:  # a figure name starts with a fixed prefix
                parts = [re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in node.values]
                patterns.append(re.compile("".join(parts)))
    return literals, patterns


def catalog(root: Path | None = None) -> list[dict]:
    """One row per notebook: its name, title, parameters and the figures it writes.

    A notebook's figures are the ``plots.save`` names in its code, plus every PNG of the
    committed ``figures/`` whose name is a string in the code or matches one of its
    f-strings (``f"thesis_fig{number}_basic_dis_geo_{d}d"``), so names built at run time
    are listed too.
    """
    import re

    root = root or repository_root()
    committed = sorted(p.stem for p in (root / "figures").glob("*.png"))
    rows = []
    for path in notebook_paths(root):
        nb = nbformat.read(path, as_version=4)
        title = nb.cells[0].source.splitlines()[0].lstrip("# ").strip() if nb.cells else ""
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        saved = re.findall(r"plots\.save\(\s*\w+\s*,\s*[\"']([\w\-]+)[\"']", "\n".join(code))
        literals, patterns = _figure_names(code)
        found = {name for name in committed if name in literals or any(p.fullmatch(name) for p in patterns)}
        rows.append({
            "notebook": path.name,
            "title": title,
            "parameters": sorted(notebook_defaults(path)),
            "figures": sorted(found | set(saved)),
        })
    return rows


def figures_dir_for(root: Path, profile: str, overridden: bool = False) -> Path:
    """Where a run's figures go: the committed ``figures/`` only for a plain default run."""
    if overridden:
        return root / "build" / profile / "figures"
    if profile == "default":
        return root / "figures"
    if profile == "thesis":
        return root / "figures" / "thesis"
    return root / "build" / profile / "figures"


def resolve_parameters(profile_params: dict, overrides: dict, defaults: dict, notebook: str,
                       types: dict | None = None) -> dict:
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
    if types:
        merged = {k: coerce(v, types.get(k, "None"), k, notebook) for k, v in merged.items()}
    return {k: v for k, v in merged.items() if defaults[k] != v}


def ensure_kernel() -> None:
    """Register this interpreter as the Jupyter kernel ``dpnn`` inside its own prefix."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
        if Path(spec.resource_dir).resolve().is_relative_to(Path(sys.prefix).resolve()) \
                and "--IPKernelApp.log_level=ERROR" in spec.argv:
            return
    except NoSuchKernel:
        pass
    from ipykernel.kernelspec import install

    path = Path(install(kernel_name=KERNEL_NAME, display_name="Python (dpnn .venv)", prefix=sys.prefix))
    # The kernel's start-up warning about unencrypted local TCP would print once per notebook.
    spec = json.loads((path / "kernel.json").read_text())
    spec["argv"] = [a for a in spec["argv"] if not a.startswith("--IPKernelApp.log_level")]
    spec["argv"].append("--IPKernelApp.log_level=ERROR")
    (path / "kernel.json").write_text(json.dumps(spec, indent=1))


def strip_run_metadata(path: Path) -> None:
    """Drop papermill's timing metadata so a stored notebook changes only when its content does."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("papermill", None)
    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)


def _replace_figures(staging: Path, destination: Path) -> list[Path]:
    """Move every figure a notebook staged into ``destination`` (one rename each)."""
    destination.mkdir(parents=True, exist_ok=True)
    moved = []
    for figure in sorted(staging.glob("*")):
        os.replace(figure, destination / figure.name)
        moved.append(destination / figure.name)
    return moved


@contextlib.contextmanager
def _following(bar, name: str, path: Path):
    """Show the latest line the notebook's :func:`dpnn.progress.progress` bars write to ``path`` on ``bar``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    stop = threading.Event()

    def poll():
        while not stop.wait(1.0):
            try:
                tail = path.read_text(errors="replace")[-2000:]
            except OSError:
                continue
            lines = [line.strip() for line in re.split(r"[\r\n]", tail) if line.strip()]
            if lines:
                bar.set_postfix_str(f"{name} | {lines[-1]}")

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        path.unlink(missing_ok=True)
        bar.set_postfix_str(name)


def _execute(source: Path, target: Path, parameters: dict, figures: Path, staging_root: Path,
             inline_figures: bool = True, progress_file: Path | None = None) -> None:
    """Run ``source`` into ``target`` and its figures into ``figures``, both only on success.

    ``inline_figures=False`` (the ``ci`` smoke profile) gives the kernel matplotlib's Agg
    backend and draft resolution: figures are still drawn and saved (at 50 dpi), but not
    rendered a second time inline.
    """
    staging = staging_root / source.stem
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    partial = target.with_name(f".{target.stem}.partial.ipynb")
    previous = {key: os.environ.get(key)
                for key in ("DPNN_FIGURES_DIR", "MPLBACKEND", "DPNN_DRAFT_FIGURES", "DPNN_PROGRESS_FILE")}
    os.environ["DPNN_FIGURES_DIR"] = str(staging)  # the kernel inherits it
    if progress_file is not None:
        os.environ["DPNN_PROGRESS_FILE"] = str(progress_file)
    if not inline_figures:
        os.environ["MPLBACKEND"] = "agg"
        os.environ["DPNN_DRAFT_FIGURES"] = "1"
    try:
        papermill.execute_notebook(str(source), str(partial), parameters=parameters,
                                   kernel_name=KERNEL_NAME, cwd=str(source.parent), progress_bar=False)
        strip_run_metadata(partial)
        os.replace(partial, target)
        _replace_figures(staging, figures)
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        partial.unlink(missing_ok=True)
        shutil.rmtree(staging, ignore_errors=True)


def run(profile: str, selected: list[str], overrides: dict, store: bool = False,
        output_dir: Path | None = None, figures_dir: Path | None = None) -> list[Path]:
    """Execute the selected notebooks (all if none) under ``profile``; return the executed copies.

    Figures go to ``figures_dir`` if given, else ``$DPNN_FIGURES_DIR`` if set, else
    :func:`figures_dir_for` (the committed ``figures/`` only for a plain default run).
    """
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
    types = {n: notebook_types(available[n]) for n in names}
    unknown = sorted(k for k in overrides if not any(k in defaults[n] for n in names))
    if unknown:
        valid = {n: sorted(d) for n, d in defaults.items()}
        raise RunError(f"unknown parameter(s) {unknown} for notebook(s) {names}; "
                       f"valid parameters per notebook: {valid}")
    plans = {n: resolve_parameters(profiles[profile].get(n, {}), overrides, defaults[n], n, types[n])
             for n in names}
    if store and any(plans.values()):
        raise RunError("--store needs each notebook's own defaults; drop -p or fix profiles.yml")

    output_dir = output_dir or root / "build" / profile
    output_dir.mkdir(parents=True, exist_ok=True)
    figures = Path(figures_dir or os.environ.get("DPNN_FIGURES_DIR")
                   or figures_dir_for(root, profile, overridden=bool(overrides)))
    staging_root = output_dir / ".staging"
    ensure_kernel()
    executed = []
    for name in (bar := tqdm(names, desc=f"notebooks ({profile})", unit="nb")):
        bar.set_postfix_str(name)
        target = output_dir / f"{name}.ipynb"
        started = time.perf_counter()
        try:
            with _following(bar, name, staging_root / "progress.txt"):
                _execute(available[name], target, plans[name], figures, staging_root,
                         inline_figures=profile != "ci", progress_file=staging_root / "progress.txt")
        except PapermillExecutionError as error:
            raise RunError(
                f"notebook {name}.ipynb failed in cell {error.cell_index} "
                f"(execution count {error.exec_count}): {error.ename}: {error.evalue}\n"
                f"nothing of this run of {name} was kept; the last good copy is still {target}"
            ) from None
        bar.write(f"{name}: {time.perf_counter() - started:.0f} s")
        if store:
            stored = available[name].with_name(f".{available[name].name}.partial")
            stored.write_bytes(target.read_bytes())
            os.replace(stored, available[name])
        executed.append(target)
    where = f"executed notebooks in {output_dir}" + (f" (and stored in {root / 'notebooks'})" if store else "")
    print(f"done: {where}; figures in {figures}")
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
    parser.add_argument("--install-kernel", action="store_true",
                        help="only register this environment's Jupyter kernel 'dpnn' (e.g. after conda env create)")
    args = parser.parse_args(argv)
    if args.install_kernel:
        ensure_kernel()
        print(f"kernel {KERNEL_NAME!r} registered in {sys.prefix}")
        return 0
    try:
        run(args.profile, args.notebooks, _parse_overrides(args.parameter), args.store, args.output_dir)
    except RunError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the notebook that was running was not kept; earlier copies and figures are intact",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
