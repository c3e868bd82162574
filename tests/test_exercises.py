"""The seminar's exercises: every notebook with exercises follows the pattern, and the
student edition (``make student``) keeps statements and stubs, drops every solution with
its outputs, and still executes."""

import json

import nbformat
import papermill
import pytest

from companion import catalog, parameters, student
from companion import run as runner

ROOT = catalog.repository_root()
NOTEBOOKS = catalog.notebook_paths(ROOT)
WITH_EXERCISES = [
    p for p in NOTEBOOKS if student.exercises(nbformat.read(p, as_version=4))
]


def _read(path):
    return nbformat.read(path, as_version=4)


def test_the_seminar_notebooks_have_three_to_five_exercises():
    # every chapter; the index has none
    seminar = [p for p in NOTEBOOKS if p.stem[:2] != "00"]
    assert len(seminar) >= 13
    for path in seminar:
        name = path.stem
        blocks = student.exercises(_read(path))
        assert 3 <= len(blocks) <= 5, name
        assert [b.number for b in blocks] == [
            f"{name[:2]}.{k}" for k in range(1, len(blocks) + 1)
        ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_follows_the_exercise_pattern(path):
    assert student.pattern_problems(_read(path), path.stem) == []


def _exercise_notebook(*cells):
    nb = nbformat.v4.new_notebook()
    for kind, source, tags in cells:
        cell = (
            nbformat.v4.new_markdown_cell(source)
            if kind == "md"
            else nbformat.v4.new_code_cell(source)
        )
        cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return nb


GOOD = [
    ("md", "## Exercise 50.1: a title\n\ntext", ["exercise"]),
    ("code", "# Exercise 50.1: stub\nx = None", []),
    ("md", "### Solution\n\nproof", ["solution"]),
    ("code", "print(1)", ["solution"]),
]


def test_the_pattern_check_accepts_a_good_block_and_catches_each_fault():
    assert student.pattern_problems(_exercise_notebook(*GOOD * 1), "50_x") == [
        "50_x: has 1 exercises; a notebook with exercises has 3 to 5"
    ]
    renumbered = (
        [GOOD[0], GOOD[1], GOOD[2], GOOD[3]]
        + [(k, s.replace("50.1", "50.2"), t) for k, s, t in GOOD]
        + [(k, s.replace("50.1", "50.3"), t) for k, s, t in GOOD]
    )
    assert student.pattern_problems(_exercise_notebook(*renumbered), "50_x") == []
    faults = {
        "must start with '## Exercise 50.3": renumbered[:8]
        + [("md", "## Exercise 50.4: skipped", ["exercise"])]
        + renumbered[9:],
        "untagged code stub": renumbered[:9]
        + [("md", "no stub", [])]
        + renumbered[10:],
        "open with a markdown cell '### Solution'": renumbered[:10]
        + [("md", "Solution", ["solution"])]
        + renumbered[11:],
        "no code cell": renumbered[:11] + [("md", "only prose", ["solution"])],
        "outside an exercise block": renumbered
        + [("md", "more prose", []), ("code", "print(2)", ["solution"])],
        "algorithms belong in dpnn": renumbered[:11]
        + [
            (
                "code",
                "def mechanism(x):\n" + "    x += 1\n" * 11 + "    return x",
                ["solution"],
            )
        ],
    }
    for fault, cells in faults.items():
        problems = student.pattern_problems(_exercise_notebook(*cells), "50_x")
        assert any(fault in p for p in problems), (fault, problems)


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    assert student.main(["--out", str(out)]) == 0
    return out


def test_the_student_edition_has_every_notebook_and_no_solution(edition):
    assert sorted(p.name for p in edition.glob("*.ipynb")) == [
        p.name for p in NOTEBOOKS
    ]
    for path in WITH_EXERCISES:
        original, handout = _read(path), _read(edition / path.name)
        solutions = [
            original.cells[i]
            for block in student.exercises(original)
            for i in block.solution
        ]
        assert solutions
        text = json.dumps(handout)
        assert "### Solution" not in text and '"solution"' not in text
        # a line whose text a cell outside the solutions also has (a formatted call's
        # first line, say) proves nothing; every other line of a solution must be gone
        shared = json.dumps(
            [cell.source for cell in original.cells if cell not in solutions]
        )
        # neither a solution's code nor its stored outputs survive
        for cell in solutions:
            for line in cell.source.splitlines():
                if len(line.strip()) > 30 and line.strip() not in shared:
                    assert line.strip() not in text, (path.stem, line)
            for output in cell.get("outputs", []):
                for value in output.get("data", {}).values():
                    assert json.dumps(value) not in text
        kept = student.exercises(handout)
        assert [b.number for b in kept] == [
            b.number for b in student.exercises(original)
        ]
        assert all(
            handout.cells[b.stub].cell_type == "code"
            and not handout.cells[b.stub].outputs
            for b in kept
        )


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=[p.stem for p in WITH_EXERCISES])
def test_the_student_edition_executes_under_the_ci_profile(edition, path, tmp_path):
    values = parameters.resolve_parameters(
        parameters.load_profiles(ROOT)["ci"].get(path.stem, {}),
        {},
        parameters.notebook_defaults(path),
        path.stem,
        parameters.notebook_types(path),
    )
    runner.ensure_kernel()
    executed = tmp_path / path.name
    papermill.execute_notebook(
        str(edition / path.name),
        str(executed),
        parameters=values,
        kernel_name=runner.KERNEL_NAME,
        cwd=str(tmp_path),
        progress_bar=False,
    )
    nb = _read(executed)
    assert not any(
        o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", [])
    )
    assert len(student.exercises(nb)) == len(student.exercises(_read(path)))
