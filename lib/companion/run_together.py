"""Several notebooks at once: the runner's ``--jobs N`` (processes, one kernel each).

Each notebook runs in a process of its own, through the same
:func:`companion.run._execute`
as a one-at-a-time run: into a temporary file and a staging folder of its own, moved
into place only when it succeeds. The results do not depend on how many run at once:
every notebook draws from its own seeded generators, and the caches in ``build/cache``
are keyed by what they hold. Notebooks start longest first, by the times of the last
run of the same profile kept in ``timings.json`` beside the executed copies (a first
run keeps the numbered order). When one fails, no further notebook starts, the ones
running finish, and the first failure is reported.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

__all__ = ["run_together", "longest_first", "record_times", "default_jobs"]


def longest_first(names: list[str], timings: Path) -> list[str]:
    """``names`` by the seconds in ``timings``, longest first; unknown ones first."""
    try:
        seconds = json.loads(timings.read_text())
    except (OSError, ValueError):
        return list(names)
    return sorted(names, key=lambda name: -seconds.get(name, float("inf")))


def record_times(timings: Path, spent: dict) -> None:
    """Merge ``spent`` (name: seconds) into ``timings``."""
    try:
        seconds = json.loads(timings.read_text())
    except (OSError, ValueError):
        seconds = {}
    seconds.update({name: round(value, 1) for name, value in spent.items()})
    timings.parent.mkdir(parents=True, exist_ok=True)
    timings.write_text(json.dumps(dict(sorted(seconds.items())), indent=1) + "\n")


def _one(
    execute, name, source, target, parameters, figures, staging_root, inline, progress
):
    """``execute`` one notebook here: ``(seconds, None)`` or ``(None, message)``."""
    from papermill.exceptions import PapermillExecutionError

    started = time.perf_counter()
    try:
        execute(
            source,
            target,
            parameters,
            figures,
            staging_root,
            inline_figures=inline,
            progress_file=progress,
        )
    except PapermillExecutionError as error:
        return None, (
            f"notebook {name}.ipynb failed in cell {error.cell_index} "
            f"(execution count {error.exec_count}): {error.ename}: {error.evalue}"
        )
    return time.perf_counter() - started, None


def _show_progress(bar, running: dict, stop: threading.Event) -> None:
    """Put each running notebook's latest progress line on ``bar`` until ``stop``."""
    while not stop.wait(1.0):
        shown = []
        for name, path in list(running.items()):
            try:
                tail = path.read_text(errors="replace")[-500:]
            except OSError:
                tail = ""
            lines = [line.strip() for line in re.split(r"[\r\n]", tail) if line.strip()]
            shown.append(f"{name} {lines[-1][:40]}" if lines else name)
        bar.set_postfix_str(" | ".join(shown))


def run_together(
    execute,
    jobs: int,
    plans: dict,
    sources: dict,
    output_dir: Path,
    figures: Path,
    staging_root: Path,
    inline: bool,
    bar,
    done,
) -> dict:
    """Run every notebook of ``plans`` over ``jobs`` processes; return name: seconds.

    ``execute`` is the runner's own one-notebook function (a module-level function,
    so each process imports it by name).
    ``done(name, seconds)`` is called in this process as each one succeeds (the
    runner stores it there); the first failure's message is raised as RunError after
    the running notebooks finish.
    """
    from companion.parameters import RunError

    timings = output_dir / "timings.json"
    queue = longest_first(list(plans), timings)
    running, spent, failure = {}, {}, None
    stop = threading.Event()
    watcher = threading.Thread(
        target=_show_progress, args=(bar, running, stop), daemon=True
    )
    watcher.start()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending = {}
        try:
            while queue or pending:
                while queue and failure is None and len(pending) < jobs:
                    name = queue.pop(0)
                    progress = staging_root / f"progress-{name}.txt"
                    progress.parent.mkdir(parents=True, exist_ok=True)
                    progress.write_text("")
                    running[name] = progress
                    pending[
                        pool.submit(
                            _one,
                            execute,
                            name,
                            sources[name],
                            output_dir / f"{name}.ipynb",
                            plans[name],
                            figures,
                            staging_root,
                            inline,
                            progress,
                        )
                    ] = name
                if not pending:
                    break
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    name = pending.pop(future)
                    running.pop(name).unlink(missing_ok=True)
                    seconds, message = future.result()
                    if message is not None:
                        failure = failure or (name, message)
                        continue
                    spent[name] = seconds
                    done(name, seconds)
        finally:
            stop.set()
            watcher.join()
            record_times(timings, spent)
    if failure is not None:
        name, message = failure
        raise RunError(
            f"{message}\nnothing of this run of {name} was kept; the last good "
            f"copy is still {output_dir / f'{name}.ipynb'}"
        )
    return spent


def default_jobs() -> int:
    """Two notebooks at once where there are two cores or more, else one."""
    return 2 if (os.cpu_count() or 1) >= 2 else 1
