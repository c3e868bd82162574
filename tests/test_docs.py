"""The repository's documents: markdown tables that GitHub and nbconvert render whole,
the licence, the citation."""

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
DOCUMENTS = ["README.md", "data/README.md", *DOCS]
TABLELESS = {"docs/cluster.md"}  # prose only


def table_blocks(text):
    """Consecutive lines starting with '|', as (first line number, lines)."""
    blocks, current = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("|"):
            current.append((number, line))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def cells(line):
    """GitHub's cell split: every unescaped '|' separates cells, also inside `code`
    spans."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_markdown_table_has_a_header_and_rows_of_its_width(name):
    text = (ROOT / name).read_text()
    blocks = table_blocks(text)
    assert blocks or name in TABLELESS, f"{name} has no table"
    for block in blocks:
        (first, header), (_, delimiter) = (
            block[0],
            block[1] if len(block) > 1 else (0, ""),
        )
        assert re.fullmatch(r"\|( *:?-{3,}:? *\|)+", delimiter.strip()), (
            f"{name}:{first}: a table needs a header and a |---| row (rows without one "
            "render as raw text)"
        )
        width = cells(header)
        for number, line in block:
            assert cells(line) == width, (
                f"{name}:{number}: {cells(line)} cells where the header has {width}"
            )


def test_the_table_checker_catches_an_unescaped_pipe_and_an_orphan_row():
    bad = "| a | b |\n| --- | --- |\n| x | the set |X| |\n"
    assert cells(bad.splitlines()[2]) != cells(bad.splitlines()[0])
    orphan = table_blocks("text\n\n| x | y |\n")[0]
    assert len(orphan) == 1  # no delimiter row: the test above rejects it


def test_licence_and_citation_are_present_and_consistent():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"].startswith("1.2") and citation["license"] == "MIT"
    cited = " ".join(ref["title"] for ref in citation["references"])
    for work in (
        "Differential Privacy for Nearest Neighbor Queries",
        "nearest neighbor classification",
        "Spatial Decompositions",
        "Concentrated Geo-Privacy",
        "Similarity Search",
    ):
        assert work in cited, work
    assert "How to cite" in (ROOT / "README.md").read_text()


# --- Reader-facing text: no maintainer history, commands that work as written ---------

ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)


def reader_texts() -> dict[str, str]:
    """Every reader-facing text: README, docs, the book's sources, each notebook's
    markdown, and the library's and benchmarks' sources (their docstrings are the
    reference)."""
    import nbformat

    texts = {
        name: (ROOT / name).read_text()
        for name in ["README.md", *DOCS, "data/README.md"]
    }
    texts |= {
        f"book/{p.name}": p.read_text() for p in sorted((ROOT / "book").glob("*.md"))
    }
    for folder in ("lib/dpnn", "benchmarks"):
        texts |= {
            str(p.relative_to(ROOT)): p.read_text()
            for p in sorted((ROOT / folder).rglob("*.py"))
        }
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        texts[f"notebooks/{path.name}"] = "\n\n".join(
            c.source for c in nb.cells if c.cell_type == "markdown"
        )
    return texts


def test_no_issue_numbers_in_reader_facing_text():
    # Old notebooks: "(issue 17 of this companion)" in 11, "when issue 22 gave each fold
    # ..." in 09.
    found = {name: ISSUE_NUMBER.findall(text) for name, text in reader_texts().items()}
    assert not {k: v for k, v in found.items() if v}
    assert ISSUE_NUMBER.findall(
        "as Issue #17 and issues 3 showed; an issue of scale"
    ) == ["Issue #17", "issues 3"]


COMMAND = re.compile(
    r"^(?:\.venv/bin/python -m companion\.|python -m companion\.|make )"
)


def documented_commands(text: str) -> list[tuple[str, str]]:
    """(command, its paragraph) for every command in a code block or `code span` of
    ``text``."""
    found = set()
    for paragraph in re.split(r"\n\s*\n", re.sub(r"```.*?```", "", text, flags=re.S)):
        for span in re.findall(r"`([^`\n]+)`", paragraph):
            if COMMAND.match(span.strip()):
                found.add((span.strip(), paragraph))
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command = line.split(" #")[0].strip()
            if COMMAND.match(command):
                found.add((command, block))
    return sorted(found)


def test_the_command_finder_reads_spans_and_blocks():
    text = (
        "Run `.venv/bin/python -m companion.run 05` "
        "now.\n\n```bash\nmake run NB=05  # one\n```\n\n"
        "In conda: `conda activate dpnn`, then `python -m companion.lab`."
    )
    commands = [c for c, _ in documented_commands(text)]
    assert commands == [
        ".venv/bin/python -m companion.run 05",
        "make run NB=05",
        "python -m companion.lab",
    ]


def _run_documented(command: str) -> subprocess.CompletedProcess:
    """Run one documented command cheaply: the runner with --dry-run, make targets with
    -n."""
    words = shlex.split(command)
    # in this process: no start-up
    if words[:3] == [".venv/bin/python", "-m", "companion.run"]:
        from companion import run

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run.main(
                words[3:] + ([] if "--install-kernel" in words else ["--dry-run"])
            )
        return subprocess.CompletedProcess(words, code, out.getvalue(), err.getvalue())
    if words[0] == ".venv/bin/python":
        line = [sys.executable, "-m", words[2], "--help"]
    elif words[:2] == ["make", "run"]:
        settings = dict(w.split("=", 1) for w in words[2:])
        settings["ARGS"] = settings.get("ARGS", "") + " --dry-run"
        line = [
            "make",
            "-s",
            "-o",
            ".venv/.installed",
            "run",
            f"PY={sys.executable}",
            *[f"{k}={v}" for k, v in settings.items()],
        ]
    else:  # another make target: it must exist (make -n prints, runs nothing)
        line = ["make", "-n", "-o", ".venv/.installed", *words[1:]]
    return subprocess.run(line, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_every_documented_command_works_as_written():
    # Old docs: bare `python -m companion.run` (no module 'dpnn' without an activated
    # venv)
    # and `... NN` forms the runner refused (`unknown notebook(s) ['05']`).
    problems, ran = [], 0
    for name, text in reader_texts().items():
        for command, paragraph in documented_commands(text):
            if command.startswith("python -m") and "conda activate" not in paragraph:
                problems.append(
                    f"{name}: `{command}` needs an activated environment; "
                    f"write .venv/bin/python"
                )
                continue
            if command.startswith("python -m"):
                continue  # the form for an activated conda environment
            if re.search(r"\b(NN|NAME|VALUE)\b", command):
                problems.append(f"{name}: `{command}` has a placeholder")
                continue
            result = _run_documented(command)
            ran += 1
            if result.returncode:
                problems.append(
                    f"{name}: `{command}` failed: {result.stderr.strip()[-300:]}"
                )
    assert not problems, problems
    assert ran >= 10


def test_the_seminar_guide_lists_every_exercise_with_its_title_and_kind():
    import nbformat

    headings = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("## Exercise "):
                first = cell.source.splitlines()[0]
                number, title, kind = re.fullmatch(
                    r"## Exercise (\d\d\.\d): (.*) \(([^()]*)\)", first
                ).groups()
                headings.append((number, title, kind))
    guide = (ROOT / "docs" / "seminar.md").read_text()
    listed = [
        tuple(c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:4])
        for line in guide.splitlines()
        if re.match(r"\| \d\d\.\d \|", line)
    ]
    assert listed == headings
    assert len(headings) >= 45


# --- Counts, times and sessions that agree with each other ----------------------------

NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NUMBER = r"(\d+|" + "|".join(NUMBER_WORDS) + r")"
NOTEBOOK_COUNT = re.compile(
    rf"\b{_NUMBER}\s+(?:numbered\s+|Jupyter\s+)?(?:notebooks|chapters)\b"
    rf"|\ball\s+{_NUMBER}\b(?=\s+(?:in|on|for|at)\b|[,;.)]|\s*$)",
    re.IGNORECASE | re.MULTILINE,
)


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def notebook_counts(text: str) -> list[int]:
    """Every count of the whole set of notebooks in ``text``: "15 notebooks", "all
    fifteen", "all 14 in one sitting". Smaller counts name a part of the set ("two
    notebooks at a time", 13's synthesis of "the twelve notebooks" 01-12)."""
    counts = []
    for match in NOTEBOOK_COUNT.finditer(text):
        value = _number(match.group(1) or match.group(2))
        if value >= 13:
            counts.append(value)
    return counts


def test_the_count_finder_reads_digits_and_words():
    text = (
        "all 14 in one sitting; fifteen notebooks, 2 notebooks at a time, all 15. "
        "The twelve notebooks 01-12; all fourteen."
    )
    assert notebook_counts(text) == [14, 15, 15, 14]


def test_every_count_of_the_notebooks_is_their_number():
    # Before: the README said "14", "15" and "fourteen".
    number = len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    found = {
        name: counts
        for name, text in reader_texts().items()
        if (counts := [c for c in notebook_counts(text) if c != number])
    }
    assert not found, f"{number} notebooks, but: {found}"


def _seconds(cell: str) -> float:
    """The first duration of a cell ("52 s", "10.1 min", "17-22 s": the larger)."""
    match = re.search(r"(\d+(?:\.\d+)?)(?:[–-](\d+(?:\.\d+)?))?\s*(s|min)\b", cell)
    value = float(match.group(2) or match.group(1))
    return value * 60 if match.group(3) == "min" else value


def _rows(text: str, header: str) -> list[list[str]]:
    """The body rows of the markdown table whose header row starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def test_the_seminar_guides_counts_times_and_sessions_agree():
    guide = (ROOT / "docs" / "seminar.md").read_text()
    sessions = _rows(guide, "| session | notebooks |")
    per_session = _rows(guide, "| session | in class |")
    stated = re.search(rf"\b{_NUMBER} sessions\b", guide)
    assert _number(stated.group(1)) == len(sessions) == len(per_session)
    assert [r[0].split(".")[0] for r in sessions] == [
        str(i) for i in range(1, len(sessions) + 1)
    ]
    assert [r[0].split(".")[0] for r in per_session] == [
        r[0].split(".")[0] for r in sessions
    ]
    times = {
        row[0][:2]: [_seconds(cell) for cell in row[1:4]]
        for row in _rows(guide, "| notebooks | `ci` |")
    }
    notebooks = sorted(
        p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
    )
    assert sorted(times) == [n for n in notebooks if n != "00"]
    slower = {n: t for n, t in times.items() if not t[0] <= t[1] <= t[2]}
    assert not slower, f"ci <= default <= thesis fails for {slower}"
    for session, home in zip(sessions, per_session):
        numbers = re.findall(r"\[(\d\d)\]", session[1])
        total = sum(times[n][1] for n in numbers)
        assert abs(_seconds(home[3]) - total) <= 1, (home[0], home[3], total)
