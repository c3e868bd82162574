"""The seminar's exercises and the student edition of the notebooks (no solutions).

    python -m companion.student [--out DIR]        (or: make student)

An exercise in a notebook is one block of consecutive cells:

1. a markdown cell tagged ``exercise`` whose first line is ``## Exercise NN.k: title``
   (``NN`` the notebook's number, ``k`` = 1, 2, ... in order);
2. a code *stub* cell, not tagged ``solution``, that runs as it stands (a placeholder
   such as ``my_prediction = None``), so a student's half-finished answer never breaks a
   re-run;
3. a markdown cell tagged ``solution`` whose first line is ``### Solution``;
4. one or more further cells tagged ``solution``, at least one of them code, which run
   under nbval like every other cell, so the solutions stay correct as the library
   changes.

:func:`pattern_problems` lists every departure from this pattern (empty if none);
:func:`student_notebook` drops every ``solution`` cell (source and stored outputs) and
keeps everything else; :func:`write_student_edition` writes ``build/student/`` from
``notebooks/``.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from companion.catalog import notebook_paths, repository_root

__all__ = [
    "Exercise",
    "exercises",
    "pattern_problems",
    "student_notebook",
    "write_student_edition",
    "HEADING",
    "MAX_DEF_LINES",
    "main",
]

HEADING = re.compile(r"## Exercise (\d\d)\.(\d+): \S.*")
# a solution may show a short flawed or variant function, never a whole algorithm
MAX_DEF_LINES = 12


@dataclass(frozen=True)
class Exercise:
    """One exercise: its number, title and cell indices in the notebook."""

    number: str  # "01.2"
    title: str
    statement: int  # index of the ``exercise`` markdown cell
    stub: int  # index of the stub code cell
    # indices of the ``solution`` cells, the ``### Solution`` markdown first
    solution: tuple


def _tags(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def exercises(nb) -> list[Exercise]:
    """The exercises of a notebook, as far as they follow the pattern (see
    :func:`pattern_problems`)."""
    found = []
    cells = nb.cells
    for index, cell in enumerate(cells):
        if "exercise" not in _tags(cell):
            continue
        match = (
            HEADING.fullmatch(cell.source.splitlines()[0].strip())
            if cell.source
            else None
        )
        number = f"{match.group(1)}.{match.group(2)}" if match else "?"
        title = (
            cell.source.splitlines()[0].split(":", 1)[-1].strip() if cell.source else ""
        )
        solution = []
        for later in range(index + 2, len(cells)):
            if "solution" not in _tags(cells[later]):
                break
            solution.append(later)
        found.append(Exercise(number, title, index, index + 1, tuple(solution)))
    return found


def _long_definitions(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.end_lineno - node.lineno + 1 >= MAX_DEF_LINES
    ]


def pattern_problems(nb, stem: str) -> list[str]:
    """Every way notebook ``stem`` (``"01_dp_primer"``) departs from the exercise
    pattern, as sentences."""
    problems = []
    cells = nb.cells
    blocks = exercises(nb)
    owned = set()
    prefix = stem[:2]
    for k, block in enumerate(blocks, 1):
        where = f"{stem} exercise at cell {block.statement}"
        head = cells[block.statement]
        if head.cell_type != "markdown":
            problems.append(f"{where}: the cell tagged 'exercise' must be markdown")
        if block.number != f"{prefix}.{k}":
            problems.append(
                f"{where}: must start with '## Exercise {prefix}.{k}: <title>', "
                f"found {head.source.splitlines()[0] if head.source else ''!r}"
            )
        if (
            block.stub >= len(cells)
            or cells[block.stub].cell_type != "code"
            or {"solution", "exercise"} & set(_tags(cells[block.stub]))
        ):
            problems.append(f"{where}: the next cell must be an untagged code stub")
            continue
        if not block.solution:
            problems.append(f"{where}: no cells tagged 'solution' after the stub")
            continue
        first = cells[block.solution[0]]
        if first.cell_type != "markdown" or not first.source.startswith("### Solution"):
            problems.append(
                f"{where}: the solution must open with a markdown cell '### Solution'"
            )
        if not any(cells[i].cell_type == "code" for i in block.solution):
            problems.append(
                f"{where}: the solution has no code "
                "cell (solutions must run under nbval)"
            )
        for i in block.solution:
            for name in (
                _long_definitions(cells[i].source)
                if cells[i].cell_type == "code"
                else []
            ):
                problems.append(
                    f"{where}: solution defines {name!r} "
                    f"in {MAX_DEF_LINES} or more lines; "
                    "algorithms belong in dpnn"
                )
        owned.update((block.statement, block.stub, *block.solution))
    for index, cell in enumerate(cells):
        if "solution" in _tags(cell) and index not in owned:
            problems.append(
                f"{stem} cell {index}: tagged 'solution' outside an exercise block"
            )
    if blocks and not 3 <= len(blocks) <= 5:
        problems.append(
            f"{stem}: has {len(blocks)} exercises; a notebook with exercises has 3 to 5"
        )
    results = [
        i
        for i, c in enumerate(cells)
        if c.cell_type == "code" and "NBVAL_CHECK_OUTPUT" in c.source
    ]
    if blocks and results and blocks[0].statement < results[-1]:
        problems.append(f"{stem}: exercises come after 'Results and checks'")
    return problems


def student_notebook(nb):
    """A copy of ``nb`` without its ``solution`` cells (their sources and stored
    outputs)."""
    copy = nbformat.from_dict(nb)
    copy.cells = [cell for cell in copy.cells if "solution" not in _tags(cell)]
    for cell in copy.cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith("# Exercise"):
            cell.outputs, cell.execution_count = [], None  # a stub starts empty
    copy.metadata.pop("widgets", None)
    return copy


def write_student_edition(
    out: Path | None = None, root: Path | None = None
) -> list[Path]:
    """Write the student edition of every numbered notebook into ``out`` (default
    ``build/student``)."""
    root = root or repository_root()
    out = out or root / "build" / "student"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebook_paths(root):
        nb = nbformat.read(path, as_version=4)
        problems = pattern_problems(nb, path.stem)
        if problems:
            raise ValueError(
                f"{path.name} does not follow the exercise pattern: {problems}"
            )
        target = out / path.name
        nbformat.write(student_notebook(nb), target)
        written.append(target)
    (out / "profiles.yml").write_bytes(
        (root / "notebooks" / "profiles.yml").read_bytes()
    )
    return written


def main(argv=None) -> int:
    """The command line ``python -m companion.student`` (see the module's
    docstring); returns its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.student", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="where the student notebooks go (default build/student)",
    )
    args = parser.parse_args(argv)
    written = write_student_edition(args.out)
    count = sum(len(exercises(nbformat.read(p, as_version=4))) for p in written)
    print(
        f"student edition: {len(written)} notebooks, {count} exercises without "
        f"solutions, in {written[0].parent}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
