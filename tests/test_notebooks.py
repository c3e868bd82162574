"""The notebooks as documents: clean stored outputs, conventions, profiles, re-runs."""

import ast
import json
import re
from pathlib import Path

import nbformat
import pytest

from companion import catalog, parameters
from companion import run as runner

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = catalog.notebook_paths(ROOT)
IDS = [p.stem for p in NOTEBOOKS]


def test_there_are_notebooks():
    assert {"00_index", "01_dp_primer", "03_geo_indistinguishability"} <= set(IDS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_stored_outputs_come_from_a_clean_run(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert "widgets" not in nb.metadata
    for cell in code:
        assert not any(o.get("output_type") == "error" for o in cell.outputs), (
            cell.source[:80]
        )
        assert all("papermill" not in cell.metadata for _ in [0])
    assert nb.metadata.kernelspec.name == runner.KERNEL_NAME


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_follows_the_fixed_opening(path):
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", []), (
        "first code cell must be tagged parameters"
    )
    assert "use_style()" in code[1].source, (
        "second code cell imports and applies the style"
    )
    assert any("NBVAL_CHECK_OUTPUT" in c.source for c in code), (
        "needs a Results and checks cell"
    )
    # Parameters are annotated and never reassigned later (papermill injects after that
    # cell).
    tree = ast.parse(code[0].source)
    names = [node.target.id for node in tree.body if isinstance(node, ast.AnnAssign)]
    assert names and len(names) == len(tree.body), (
        "parameters are written `name: type = value`"
    )
    for cell in code[1:]:
        for node in ast.walk(ast.parse(cell.source)):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else (
                    [node.target]
                    if isinstance(node, (ast.AugAssign, ast.AnnAssign))
                    else []
                )
            )
            for target in targets:
                assert not (isinstance(target, ast.Name) and target.id in names), (
                    f"parameter {target.id} reassigned after the parameters cell"
                )


def test_profiles_name_only_declared_parameters_and_default_matches_the_cells():
    profiles = parameters.load_profiles(ROOT)
    assert {"ci", "default", "thesis"} <= set(profiles)
    for path in NOTEBOOKS:
        defaults = parameters.notebook_defaults(path)
        for profile, notebooks in profiles.items():
            unknown = set(notebooks.get(path.stem, {})) - set(defaults)
            assert not unknown, f"{profile}/{path.stem} sets undeclared {unknown}"
        for key, value in profiles["default"].get(path.stem, {}).items():
            assert defaults[key] == value, (
                f"default profile {path.stem}.{key} differs from the cell"
            )


def test_unknown_profile_is_a_clear_error():
    with pytest.raises(
        parameters.RunError,
        match=r"unknown profile 'nope'; valid profiles: \['ci', 'default'",
    ):
        runner.run("nope", [], {})


def test_unknown_notebook_is_a_clear_error():
    with pytest.raises(
        parameters.RunError,
        match=r"unknown notebook '99_missing' \(it matches none\); .* valid notebooks",
    ):
        runner.run("ci", ["99_missing"], {})


def test_unknown_parameter_is_a_clear_error():
    with pytest.raises(
        parameters.RunError,
        match=r"unknown parameter\(s\) \['no_such'\] for notebook\(s\) "
        r"\['01_dp_primer'\]; valid parameters",
    ):
        runner.run("ci", ["01_dp_primer"], {"no_such": 1})


def test_cli_reports_errors_with_exit_status_2(capsys):
    assert runner.main(["--profile", "nope"]) == 2
    assert "valid profiles" in capsys.readouterr().err


def _one_notebook_project(root, monkeypatch, name, *code):
    """A project at ``root`` whose only notebook ``name`` has a parameters cell and the
    given code cells."""
    (root / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": runner.KERNEL_NAME,
        "display_name": "dpnn",
        "language": "python",
    }
    params = nbformat.v4.new_code_cell("x: int = 1  # a parameter")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# t"),
        params,
        *map(nbformat.v4.new_code_cell, code),
    ]
    nbformat.write(nb, root / "notebooks" / f"{name}.ipynb")
    (root / "notebooks" / "profiles.yml").write_text("ci: {}\n")
    monkeypatch.setenv("DPNN_ROOT", str(root))


def test_failing_notebook_names_notebook_and_cell(tmp_path, monkeypatch):
    _one_notebook_project(tmp_path, monkeypatch, "50_broken", "y = x + 1", "1 / 0")
    with pytest.raises(
        parameters.RunError,
        match=r"50_broken.ipynb failed in cell 3 .*ZeroDivisionError",
    ):
        runner.run("ci", [], {}, figures_dir=tmp_path / "figures")


def test_runner_prints_each_notebooks_time(tmp_path, monkeypatch, capsys):
    _one_notebook_project(tmp_path, monkeypatch, "50_fine", "y = x + 1")
    runner.run(
        "ci", [], {}, output_dir=tmp_path / "out", figures_dir=tmp_path / "figures"
    )
    assert re.search(r"^50_fine: \d+ s$", capsys.readouterr().out, re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_reruns_under_the_ci_profile(path, tmp_path):
    """Papermill smoke test: every notebook re-runs with other parameters."""
    executed = runner.run(
        "ci", [path.stem], {}, output_dir=tmp_path, figures_dir=tmp_path / "figures"
    )
    nb = json.loads(executed[0].read_text())
    ci_params = parameters.load_profiles(ROOT)["ci"].get(path.stem, {})
    defaults = parameters.notebook_defaults(path)
    if any(defaults[k] != v for k, v in ci_params.items()):
        assert any(
            "injected-parameters" in c["metadata"].get("tags", []) for c in nb["cells"]
        )


def test_command_line_values_are_read_as_numbers():
    assert parameters.parse_value("1e3") == 1000.0
    assert parameters.parse_value("[1e9, 1e3]") == [1e9, 1000.0]
    assert (
        parameters.parse_value("0.5") == 0.5 and parameters.parse_value("cmp") == "cmp"
    )
    assert parameters.parse_value("true") is True


# [tool.ruff] line-length; `make format` formats the code cells
MAX_COLUMNS = 88


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_code_lines_fit_in_88_columns(path):
    """Every code line of every notebook is at most 88 columns, so a code cell reads
    without sideways scrolling in JupyterLab and in the book at 1366 px."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    long = [
        (i, line)
        for i, cell in enumerate(code, 1)
        for line in cell.source.splitlines()
        if len(line) > MAX_COLUMNS
    ]
    assert not long, (
        f"{len(long)} code line(s) over {MAX_COLUMNS} columns (`make format`,"
        f" then shorten strings and comments by hand); first: code cell {long[0][0]}: "
        f"{long[0][1][:100]!r}"
    )


def test_the_line_check_counts_columns_not_bytes(tmp_path):
    # Negative control: an 89-column line fails, 88 columns of multi-byte text do not.
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1  # " + "ε" * 79),
        nbformat.v4.new_code_cell("y = 2  # " + "a" * 80),
    ]
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, path)
    message = r"1 code line\(s\) over 88 columns.*code cell 2"
    with pytest.raises(AssertionError, match=message):
        test_code_lines_fit_in_88_columns(path)


# --- numbers in prose come from the run ----------------------------------------------

#: A reference, not a measured number: "§6.2.1", "Figs. 6.14–6.16", "Thm 2.13",
#: "lines 100–109", "arXiv:1901.09858" (and later members of such a list or range).
REFERENCE = re.compile(
    r"(§|\bFigs?\.|\bFigures?|\bTables?|\bThm\.?|\bTheorems?|\bLemmas?|\bDef\.?|"
    r"\bDefinitions?|\bEqs?\.|\bAlgs?\.|\bAlgorithms?|\bSections?|\bExercises?|"
    r"\bCorollary|\bProp\.|\bclaims?|\brows?|\blines?|\bl\.|\barXiv:?|\bchapters?|"
    r"\bnotebooks?|\bv)"
    r"(\s*[\d.]+[a-z]?\s*(,|–|-|and|to|or)\s*(§|Figs?\.\s*)?)*\s*$",
    re.IGNORECASE,
)
DECIMAL = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\w.]*\d)")
#: Text whose numbers are not the run's: math, code, quotations, link targets.
QUOTED = [
    re.compile(p, re.S)
    for p in (
        r"\$\$.*?\$\$",
        r"\$[^$]*\$",
        r"`[^`]*`",
        r"\"[^\"]*\"",
        r"“[^”]*”",
        r"(?<!\w)'[^']*'(?!\w)",
        r"\]\([^)]*\)",
        r"https?://\S+",
    )
]
ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
#: Numbers in prose that no run computes, each with its reason. Keep it short.
NOT_FROM_THE_RUN = {
    "08_experiments_comparison": {
        "2.5": "the machine's load during the timings of the running-time note"
    },
    "09_dp_knn_classification": {
        "1.8": "the scikit-learn release that removed an argument diffprivlib passes"
    },
    "10_private_spatial_decompositions": {
        "1.63": "the paper's data size (1.63 million road intersections)",
        "0.25": "a benchmark's build time (benchmarks/bench_psd.py), not this run",
    },
    "11_concentrated_geo_privacy": {
        "47.5": "the text's PCH budget split (2.5%, 47.5%, 50%), a source's setting",
        "87.4": "the authors' scripts' PCH split (cgp.PCH_SCRIPTS_SPLIT)",
        "7.6": "the authors' scripts' PCH split (cgp.PCH_SCRIPTS_SPLIT)",
    },
    "13_after_the_thesis": {
        "13.65": "the sum of the follow-up's linear schedule at height 14, its code"
    },
}


def prose_numbers(text: str) -> list[str]:
    """The decimal numbers of 2+ significant digits in ``text`` that are neither
    quoted (math, code, quotation marks, links) nor references (sections, figures)."""
    for pattern in QUOTED:
        text = pattern.sub(lambda m: " " * len(m.group()), text)
    found = []
    for match in DECIMAL.finditer(text):
        digits = match.group(1).replace(".", "").lstrip("0")
        if len(digits) >= 2 and not REFERENCE.search(text[: match.start()][-80:]):
            found.append(match.group(1))
    return found


def run_numbers(notebook) -> set[float]:
    """Every number the stored outputs print (text, Markdown, HTML) and every
    literal of the code cells (the parameters)."""
    texts = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        texts.append(cell.source)
        for output in cell.get("outputs", []):
            texts.append(output.get("text", ""))
            data = output.get("data", {})
            texts += [
                v if isinstance(v, str) else "".join(v)
                for k, v in data.items()
                if k.startswith("text/")
            ]
    return {float(n) for text in texts for n in ANY_NUMBER.findall(text)}


#: A heading that opens a section: the prose of a section quotes the outputs of its
#: own code cells.
SECTION = re.compile(r"^#{1,2} ")


def sections(notebook) -> list[int]:
    """The section of each cell: a markdown cell opening with a heading of level 1 or
    2 starts the next one."""
    number, found = 0, []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and SECTION.match(cell.source):
            number += 1
        found.append(number)
    return found


def contradicted(path: Path) -> list[tuple[int, str]]:
    """(cell, number) for every prose number that no code cell of its own section
    prints."""
    notebook = nbformat.read(path, as_version=4)
    section = sections(notebook)
    printed = {
        s: run_numbers(
            nbformat.v4.new_notebook(
                cells=[c for c, t in zip(notebook.cells, section) if t == s]
            )
        )
        for s in set(section)
    }
    allowed = NOT_FROM_THE_RUN.get(path.stem, {})
    bad = []
    for index, cell in enumerate(notebook.cells):
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "markdown" or {"exercise", "solution"} & set(tags):
            continue
        for number in prose_numbers(cell.source):
            half = 0.5 * 10.0 ** -len(number.split(".")[1])
            if number not in allowed and not any(
                abs(p - float(number)) <= half + 1e-12 for p in printed[section[index]]
            ):
                bad.append((index, number))
    return bad


def test_prose_numbers_are_found_by_the_rule():
    text = (
        "at 0.113 ± 0.004 (§6.2.1, Figs. 6.14–6.16, lines 100–109, "
        "arXiv:1901.09858) $0.25$ `0.75` \"0.33\" 'a 0.44' and 5.9–12.0x, 0.5"
    )
    # 0.004 and 0.5 have one significant digit
    assert prose_numbers(text) == ["0.113", "5.9", "12.0"]


def test_a_prose_number_counts_only_where_its_own_section_prints_it(tmp_path):
    def printing(value):
        cell = nbformat.v4.new_code_cell("print(x)")
        cell.outputs = [nbformat.v4.new_output("stream", text=f"{value}\n")]
        return cell

    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("## 1. One\n\nWe find 0.25 and 0.75."),
            printing(0.25),
            nbformat.v4.new_markdown_cell("## 2. Two"),
            printing(0.75),
        ]
    )
    path = tmp_path / "two_sections.ipynb"
    nbformat.write(notebook, path)
    # 0.75 is printed, but in the next section
    assert contradicted(path) == [(0, "0.75")]


@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if "05" <= p.stem[:2] <= "15"], ids=lambda p: p.stem
)
def test_no_number_in_prose_contradicts_the_stored_outputs(path):
    """Every decimal number with two or more significant digits in a markdown cell
    (exercises and their solutions aside) must be printed by the stored outputs of a
    code cell of its own section (the cells between two headings of level 1 or 2),
    up to the prose's rounding: some output number, rounded to as many decimals as
    the prose gives, equals it. Numbers inside math, code, quotation marks or links
    (quotations of a source, parameters) and references (§, Fig., Thm, lines, arXiv)
    are exempt, and so are the few numbers of ``NOT_FROM_THE_RUN``, each with its
    reason. A number the prose computes by hand (a ratio of two printed values) must
    be printed by the run too: print the paragraph from a code cell as Markdown."""
    assert not contradicted(path), (
        f"prose numbers not printed in their own section of {path.name}"
    )
