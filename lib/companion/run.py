"""Execute the notebooks through papermill under a parameter profile.

    .venv/bin/python -m companion.run --profile NAME [NOTEBOOK ...] [-p key value ...]

A notebook is named by its number (``05``), a unique prefix of its name (``05_dptt``),
its name or its path. ``-p`` needs at least one notebook, or ``--all`` to give the value
to every notebook that has the parameter. ``--dry-run`` checks everything and says what
would run, without starting a kernel.

Values are checked before any kernel starts: against the parameter's annotated type, and
for the ranges the runner knows from a parameter's name: a name containing ``epsilon``
or starting with ``rho`` is a privacy budget, finite and > 0 (each element, for a
list); a name equal to ``delta`` or ending in ``_delta`` is in (0, 1).

Profiles live in ``notebooks/profiles.yml``: ``ci`` (seconds), ``default``
(the seminar size; the stored outputs and committed figures come from it) and
``thesis`` (the sizes of the thesis). Executed copies go to
``build/<profile>/``. Figures go to the committed ``figures/`` only from a plain
default run (no ``-p``), to ``figures/thesis/`` (git-ignored) from a plain thesis
run, and to ``build/<profile>/figures/`` from any other run; ``$DPNN_FIGURES_DIR``,
if set, wins. ``--store`` (default profile only) writes the executed notebooks back
to ``notebooks/`` as their stored outputs.

While a notebook runs, the bar shows its long loops' progress
(:mod:`companion.progress`).
``--jobs N`` runs N notebooks at once, each in a process of its own (two by default
on two cores or more; :mod:`companion.run_together`); the results are the same.

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
from papermill.exceptions import PapermillExecutionError
from tqdm import tqdm

from companion.catalog import (
    figures_dir_for,
    notebook_paths,
    repository_root,
    select,
)
from companion.parameters import (
    RunError,
    load_profiles,
    notebook_defaults,
    notebook_types,
    parse_value,
    resolve_parameters,
)
from companion.run_together import default_jobs, record_times, run_together

__all__ = ["KERNEL_NAME", "ensure_kernel", "strip_run_metadata", "run", "main"]

KERNEL_NAME = "dpnn"


def ensure_kernel() -> None:
    """Register this interpreter as the Jupyter kernel ``dpnn`` inside its own
    prefix."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
        if (
            Path(spec.resource_dir).resolve().is_relative_to(Path(sys.prefix).resolve())
            and "--IPKernelApp.log_level=ERROR" in spec.argv
        ):
            return
    except NoSuchKernel:
        pass
    from ipykernel.kernelspec import install

    path = Path(
        install(
            kernel_name=KERNEL_NAME,
            display_name="Python (dpnn .venv)",
            prefix=sys.prefix,
        )
    )
    # The kernel's start-up warning about unencrypted local TCP would print once per
    # notebook.
    spec = json.loads((path / "kernel.json").read_text())
    spec["argv"] = [
        a for a in spec["argv"] if not a.startswith("--IPKernelApp.log_level")
    ]
    spec["argv"].append("--IPKernelApp.log_level=ERROR")
    (path / "kernel.json").write_text(json.dumps(spec, indent=1))


def strip_run_metadata(path: Path) -> None:
    """Drop papermill's timing metadata so a stored notebook changes only when its
    content does."""
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
    """Show the latest line the notebook's :func:`companion.progress.progress` bars
    write to
    ``path`` on ``bar``."""
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


def _execute(
    source: Path,
    target: Path,
    parameters: dict,
    figures: Path,
    staging_root: Path,
    inline_figures: bool = True,
    progress_file: Path | None = None,
) -> None:
    """Run ``source`` into ``target`` and its figures into ``figures``, both only on
    success.

    ``inline_figures=False`` (the ``ci`` smoke profile) gives the kernel matplotlib's
    Agg backend and draft resolution: figures are still drawn and saved (at 50 dpi), but
    not rendered a second time inline.
    """
    staging = staging_root / source.stem
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    partial = target.with_name(f".{target.stem}.partial.ipynb")
    previous = {
        key: os.environ.get(key)
        for key in (
            "DPNN_FIGURES_DIR",
            "MPLBACKEND",
            "DPNN_DRAFT_FIGURES",
            "DPNN_PROGRESS_FILE",
        )
    }
    os.environ["DPNN_FIGURES_DIR"] = str(staging)  # the kernel inherits it
    if progress_file is not None:
        os.environ["DPNN_PROGRESS_FILE"] = str(progress_file)
    if not inline_figures:
        os.environ["MPLBACKEND"] = "agg"
        os.environ["DPNN_DRAFT_FIGURES"] = "1"
    try:
        papermill.execute_notebook(
            str(source),
            str(partial),
            parameters=parameters,
            kernel_name=KERNEL_NAME,
            cwd=str(source.parent),
            progress_bar=False,
        )
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


def _run_one(
    name, source, output_dir, parameters, figures, staging_root, profile, bar, done
) -> None:
    """One notebook in this process, its long loops' progress on ``bar``."""
    bar.set_postfix_str(name)
    target = output_dir / f"{name}.ipynb"
    started = time.perf_counter()
    try:
        with _following(bar, name, staging_root / "progress.txt"):
            _execute(
                source,
                target,
                parameters,
                figures,
                staging_root,
                inline_figures=profile != "ci",
                progress_file=staging_root / "progress.txt",
            )
    except PapermillExecutionError as error:
        raise RunError(
            f"notebook {name}.ipynb failed in cell {error.cell_index} "
            f"(execution count {error.exec_count}): {error.ename}: {error.evalue}\n"
            f"nothing of this run of {name} was kept; "
            f"the last good copy is still {target}"
        ) from None
    seconds = time.perf_counter() - started
    record_times(output_dir / "timings.json", {name: seconds})
    done(name, seconds)


def run(
    profile: str,
    selected: list[str],
    overrides: dict,
    store: bool = False,
    output_dir: Path | None = None,
    figures_dir: Path | None = None,
    every: bool = False,
    dry_run: bool = False,
    jobs: int = 1,
) -> list[Path]:
    """Execute the selected notebooks (all if none) under ``profile``; return the
    executed copies.

    Overrides need a selected notebook or ``every=True`` (``--all``). Figures go to
    ``figures_dir`` if given, else ``$DPNN_FIGURES_DIR`` if set, else
    :func:`figures_dir_for` (the committed ``figures/`` only for a plain default run).
    ``dry_run`` checks everything, prints the plan and starts no kernel. ``jobs``
    notebooks run at once, each in a process of its own (:mod:`companion.run_together`).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RunError(f"jobs must be an integer >= 1, got {jobs!r}")
    if overrides and not selected and not every:
        raise RunError(
            "-p without a notebook would change every notebook that has the "
            "parameter; name the notebook(s) (e.g. 05) or add --all"
        )
    if every and selected:
        raise RunError("--all runs every notebook; drop it or the notebook names")
    root = repository_root()
    profiles = load_profiles(root)
    if profile not in profiles:
        raise RunError(
            f"unknown profile {profile!r}; valid profiles: {sorted(profiles)}"
        )
    if store and profile != "default":
        raise RunError(
            "--store writes stored outputs, which come only from the default profile"
        )
    available = {p.stem: p for p in notebook_paths(root)}
    names = select(selected, available) or list(available)

    defaults = {n: notebook_defaults(available[n]) for n in names}
    types = {n: notebook_types(available[n]) for n in names}
    unknown = sorted(k for k in overrides if not any(k in defaults[n] for n in names))
    if unknown:
        valid = {n: sorted(d) for n, d in defaults.items()}
        raise RunError(
            f"unknown parameter(s) {unknown} for notebook(s) {names}; "
            f"valid parameters per notebook: {valid}"
        )
    plans = {
        n: resolve_parameters(
            profiles[profile].get(n, {}), overrides, defaults[n], n, types[n]
        )
        for n in names
    }
    if store and any(plans.values()):
        raise RunError(
            "--store needs each notebook's own defaults; drop -p or fix profiles.yml"
        )

    output_dir = output_dir or root / "build" / profile
    figures = Path(
        figures_dir
        or os.environ.get("DPNN_FIGURES_DIR")
        or figures_dir_for(root, profile, overridden=bool(overrides))
    )
    if dry_run:
        for name in names:
            print(
                f"would run {name} under {profile}"
                + (f" with {plans[name]}" if plans[name] else "")
            )
        print(
            f"would write executed notebooks to {output_dir} and figures to {figures}"
        )
        return []
    output_dir.mkdir(parents=True, exist_ok=True)
    staging_root = output_dir / ".staging"
    ensure_kernel()
    executed = {}

    def done(name, seconds):
        bar.update(1)
        bar.write(f"{name}: {seconds:.0f} s")
        if store:
            stored = available[name].with_name(f".{available[name].name}.partial")
            stored.write_bytes((output_dir / f"{name}.ipynb").read_bytes())
            os.replace(stored, available[name])
        executed[name] = output_dir / f"{name}.ipynb"

    bar = tqdm(total=len(names), desc=f"notebooks ({profile})", unit="nb")
    with bar:
        if min(jobs, len(names)) > 1:
            run_together(
                _execute,
                min(jobs, len(names)),
                {n: plans[n] for n in names},
                available,
                output_dir,
                figures,
                staging_root,
                profile != "ci",
                bar,
                done,
            )
        else:
            for name in names:
                _run_one(
                    name,
                    available[name],
                    output_dir,
                    plans[name],
                    figures,
                    staging_root,
                    profile,
                    bar,
                    done,
                )
    executed = [executed[name] for name in names]
    where = f"executed notebooks in {output_dir}" + (
        f" (and stored in {root / 'notebooks'})" if store else ""
    )
    print(f"done: {where}; figures in {figures}")
    return executed


def _parse_overrides(pairs) -> dict:
    return {key: parse_value(value) for key, value in (pairs or [])}


def main(argv=None) -> int:
    """The command line ``python -m companion.run``; returns its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.run", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--profile",
        default="default",
        help="ci, default or thesis (notebooks/profiles.yml)",
    )
    parser.add_argument(
        "notebooks",
        nargs="*",
        help="numbers (05), unique prefixes, names or paths (default: all)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        dest="every",
        help="run every notebook (needed with -p and no notebook named)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check the profile, notebooks and values; print the plan, run nothing",
    )
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        metavar=("KEY", "VALUE"),
        help="override a parameter (value parsed as YAML: 0.5, [1, 2], true)",
    )
    parser.add_argument(
        "--store",
        action="store_true",
        help="write outputs back to notebooks/ (default profile)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=default_jobs(),
        help="notebooks run at once, one process each (default: %(default)s)",
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        help="where executed copies go (default build/PROFILE)",
    )
    parser.add_argument(
        "--install-kernel",
        action="store_true",
        help="only register this environment's Jupyter kernel 'dpnn' "
        "(e.g. after conda env create)",
    )
    args = parser.parse_args(argv)
    if args.install_kernel:
        ensure_kernel()
        print(f"kernel {KERNEL_NAME!r} registered in {sys.prefix}")
        return 0
    try:
        run(
            args.profile,
            args.notebooks,
            _parse_overrides(args.parameter),
            args.store,
            args.output_dir,
            every=args.every,
            dry_run=args.dry_run,
            jobs=args.jobs,
        )
    except RunError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted: the notebook that was running was not kept; earlier copies "
            "and figures are intact",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
