"""The runner (python -m companion.run): safe re-runs, typed parameters, atomic
outputs."""

import os

import nbformat
import pytest

from companion import catalog, parameters
from companion import run as runner

SAVE_FIGURE = (
    "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
    "from companion import plots\nfig, ax = plt.subplots()\nax.plot([0, "
    "x])\nplots.save(fig, 'probe')"
)


def project(
    root, monkeypatch, *code, name="50_probe", parameters="x: int = 1  # a parameter"
):
    """A one-notebook project at ``root``; DPNN_FIGURES_DIR unset, as for a reader's own
    run."""
    (root / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": runner.KERNEL_NAME,
        "display_name": "dpnn",
        "language": "python",
    }
    cell = nbformat.v4.new_code_cell(parameters)
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# t"),
        cell,
        *map(nbformat.v4.new_code_cell, code),
    ]
    nbformat.write(nb, root / "notebooks" / f"{name}.ipynb")
    (root / "notebooks" / "profiles.yml").write_text("ci: {}\ndefault: {}\n")
    monkeypatch.setenv("DPNN_ROOT", str(root))
    monkeypatch.delenv("DPNN_FIGURES_DIR", raising=False)
    return root / "notebooks" / f"{name}.ipynb"


def test_a_run_with_parameters_never_writes_the_committed_figures(
    tmp_path, monkeypatch
):
    # Old runner: `-p` runs of the default profile wrote figures/ (the README's own
    # example did).
    project(tmp_path, monkeypatch, SAVE_FIGURE)
    runner.run("default", ["50"], {"x": 2})
    assert not (tmp_path / "figures").exists()
    assert (tmp_path / "build" / "default" / "figures" / "probe.png").exists()
    runner.run("ci", [], {})
    assert (
        not (tmp_path / "figures").exists()
        and (tmp_path / "build" / "ci" / "figures" / "probe.png").exists()
    )
    # only the plain default run reproduces the committed figures
    runner.run("default", [], {})
    assert (tmp_path / "figures" / "probe.png").exists()


def test_figures_dir_from_the_environment_is_honoured(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch, SAVE_FIGURE)
    monkeypatch.setenv("DPNN_FIGURES_DIR", str(tmp_path / "mine"))
    runner.run("default", [], {})
    assert (tmp_path / "mine" / "probe.png").exists() and not (
        tmp_path / "figures"
    ).exists()


def test_an_interactive_session_writes_outside_the_committed_figures(monkeypatch):
    from companion import plots

    monkeypatch.delenv("DPNN_FIGURES_DIR", raising=False)
    assert plots.figures_dir().parts[-3:] == ("build", "interactive", "figures")


def test_a_failed_run_keeps_the_last_good_copy_and_moves_no_figure(
    tmp_path, monkeypatch
):
    path = project(tmp_path, monkeypatch, SAVE_FIGURE, "assert x < 5, 'too large'")
    out, figures = tmp_path / "out", tmp_path / "figs"
    runner.run("ci", [], {}, output_dir=out, figures_dir=figures)
    good, good_figure = (
        (out / path.name).read_bytes(),
        (figures / "probe.png").read_bytes(),
    )
    with pytest.raises(parameters.RunError, match="last good copy"):
        runner.run("ci", ["50"], {"x": 9}, output_dir=out, figures_dir=figures)
    assert (out / path.name).read_bytes() == good  # not overwritten by the failed run
    # the failed run's figure was not moved in
    assert (figures / "probe.png").read_bytes() == good_figure
    leftovers = [
        p for p in tmp_path.rglob("*") if ".partial" in p.name or ".staging" in p.parts
    ]
    assert not [p for p in leftovers if p.is_file()]


def test_values_are_checked_against_the_annotated_types_before_any_kernel_starts(
    tmp_path, monkeypatch
):
    project(
        tmp_path,
        monkeypatch,
        "y = x",
        parameters="x: int = 1  # count\ne: float = 0.5  # budget",
    )
    monkeypatch.setattr(
        runner.papermill,
        "execute_notebook",
        lambda *a, **k: pytest.fail("a kernel was started for a bad value"),
    )
    with pytest.raises(
        parameters.RunError, match=r"parameter 'e' of 50_probe is a float; got 'abc'"
    ):
        runner.run("ci", ["50"], {"e": parameters.parse_value("abc")})
    with pytest.raises(
        parameters.RunError, match=r"parameter 'x' of 50_probe is an int; got 10.5"
    ):
        runner.run("ci", ["50"], {"x": 10.5})
    with pytest.raises(
        parameters.RunError,
        match=r"unknown parameter\(s\) \['n'\] for notebook\(s\) \['50_probe'\]",
    ):
        runner.run("ci", ["50"], {"n": 1})


def test_an_int_parameter_given_as_1e4_is_the_int_10000(tmp_path, monkeypatch):
    # Old runner: passed the float 10000.0, which failed inside the notebook (e.g. as an
    # array size).
    project(
        tmp_path,
        monkeypatch,
        "import numpy as np\nassert isinstance(x, int)\nz = np.zeros(x)",
    )
    executed = runner.run(
        "ci", ["50"], {"x": parameters.parse_value("1e4")}, output_dir=tmp_path / "out"
    )
    injected = [
        c
        for c in nbformat.read(executed[0], as_version=4).cells
        if "injected-parameters" in c.metadata.get("tags", [])
    ]
    assert "x = 10000\n" in injected[0].source + "\n"


def test_the_runner_says_where_everything_went(tmp_path, monkeypatch, capsys):
    project(tmp_path, monkeypatch, SAVE_FIGURE)
    runner.run("ci", [], {}, output_dir=tmp_path / "out")
    said = capsys.readouterr().out
    assert (
        f"executed notebooks in {tmp_path / 'out'}" in said
        and str(tmp_path / "build" / "ci" / "figures") in said
    )


def test_ctrl_c_is_one_line(tmp_path, monkeypatch, capsys):
    project(tmp_path, monkeypatch, "y = x")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run", interrupted)
    assert runner.main(["--profile", "ci"]) == 130
    assert capsys.readouterr().err.strip().count("\n") == 0


def test_the_kernel_is_registered_quiet_and_on_demand(capsys):
    from jupyter_client.kernelspec import KernelSpecManager

    assert runner.main(["--install-kernel"]) == 0
    spec = KernelSpecManager().get_kernel_spec(runner.KERNEL_NAME)
    assert "--IPKernelApp.log_level=ERROR" in spec.argv
    assert "registered" in capsys.readouterr().out


def test_save_leaves_no_partial_file(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from companion import plots

    monkeypatch.setenv("DPNN_FIGURES_DIR", str(tmp_path))
    fig, _ = plt.subplots()
    plots.save(fig, "whole")
    plt.close(fig)
    assert sorted(os.listdir(tmp_path)) == ["whole.png"]


def test_the_ci_profile_draws_drafts_without_inline_figures(tmp_path, monkeypatch):
    project(
        tmp_path,
        monkeypatch,
        "import os\nprint(os.environ.get('MPLBACKEND'), "
        "os.environ.get('DPNN_DRAFT_FIGURES'))",
        SAVE_FIGURE,
    )
    ci = nbformat.read(
        runner.run("ci", [], {}, output_dir=tmp_path / "ci")[0], as_version=4
    )
    assert ci.cells[2].outputs[0]["text"].strip() == "agg 1"
    assert not any(
        o.get("output_type") == "display_data"
        for c in ci.cells
        for o in c.get("outputs", [])
    )
    assert (tmp_path / "build" / "ci" / "figures" / "probe.png").exists()
    default = nbformat.read(
        runner.run("default", ["50"], {"x": 2}, output_dir=tmp_path / "d")[0],
        as_version=4,
    )
    backend, draft = (
        default.cells[
            3
            if "injected-parameters" in default.cells[2].metadata.get("tags", [])
            else 2
        ]
        .outputs[0]["text"]
        .split()
    )
    # other profiles draw full figures, shown inline
    assert backend != "agg" and draft == "None"


def test_a_notebook_is_named_by_its_number_or_a_unique_prefix(
    tmp_path, monkeypatch, capsys
):
    # Old runner: `05` was refused ("unknown notebook(s) ['05']"), as the seminar guide
    # wrote it.
    project(tmp_path, monkeypatch, "y = x")
    nbformat.write(
        nbformat.read(tmp_path / "notebooks" / "50_probe.ipynb", as_version=4),
        tmp_path / "notebooks" / "51_other.ipynb",
    )
    monkeypatch.setattr(
        runner.papermill,
        "execute_notebook",
        lambda *a, **k: pytest.fail("a dry run started a kernel"),
    )
    for given in ("50", "50_pr", "50_probe", "notebooks/50_probe.ipynb"):
        runner.run("ci", [given], {"x": 3}, dry_run=True)
        assert "would run 50_probe under ci with {'x': 3}" in capsys.readouterr().out
    with pytest.raises(
        parameters.RunError,
        match=r"ambiguous notebook '5' \(it matches \['50_probe', '51_other'\]\)",
    ):
        runner.run("ci", ["5"], {}, dry_run=True)
    with pytest.raises(
        parameters.RunError, match=r"unknown notebook '52' \(it matches none\)"
    ):
        runner.run("ci", ["52"], {}, dry_run=True)


def test_a_parameter_without_a_notebook_needs_all(tmp_path, monkeypatch, capsys):
    # Old runner: `-p x 3` with no notebook silently ran every notebook.
    project(tmp_path, monkeypatch, "y = x")
    with pytest.raises(parameters.RunError, match="name the notebook"):
        runner.run("ci", [], {"x": 3}, dry_run=True)
    assert runner.main(["--profile", "ci", "-p", "x", "3", "--dry-run"]) == 2
    assert "--all" in capsys.readouterr().err
    assert runner.main(["--profile", "ci", "--all", "-p", "x", "3", "--dry-run"]) == 0
    assert "would run 50_probe under ci with {'x': 3}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "name, value, allowed",
    [
        ("epsilon", "0", "finite and > 0"),
        ("epsilon", "-1", "finite and > 0"),
        ("epsilon", "inf", "finite and > 0"),
        ("epsilon", "nan", "finite and > 0"),
        ("step_epsilons", "[1, -2]", "finite and > 0"),
        ("rho_fixed", "0", "finite and > 0"),
        ("delta", "1", r"in \(0, 1\)"),
        ("median_delta", "0", r"in \(0, 1\)"),
    ],
)
def test_budgets_out_of_range_are_refused_before_any_kernel_starts(
    tmp_path, monkeypatch, name, value, allowed
):
    # Old runner: `-p epsilon 0` passed the type check and failed 11-16 s later in the
    # kernel.
    kind = "list" if value.startswith("[") else "float"
    project(
        tmp_path,
        monkeypatch,
        "y = 1",
        parameters=f"{name}: {kind} = {'[1.0]' if kind == 'list' else 0.5}",
    )
    monkeypatch.setattr(
        runner.papermill,
        "execute_notebook",
        lambda *a, **k: pytest.fail("a kernel was started for a bad value"),
    )
    with pytest.raises(
        parameters.RunError, match=rf"parameter '{name}' of 50_probe must be {allowed}"
    ):
        runner.run("ci", ["50"], {name: parameters.parse_value(value)})


def test_every_notebook_default_and_profile_value_is_in_range():
    root = catalog.repository_root()
    profiles = parameters.load_profiles(root)
    for path in catalog.notebook_paths(root):
        values = [parameters.notebook_defaults(path)] + [
            p.get(path.stem, {}) for p in profiles.values()
        ]
        for given in values:
            for name, value in given.items():
                # raises on a value out of range
                parameters.check_range(value, name, path.stem)


def test_notebooks_run_together_give_what_they_give_one_at_a_time(
    tmp_path, monkeypatch
):
    """--jobs 2: the same outputs as one at a time, timings recorded, a failure reported
    after the others finish, and the failed notebook's last good copy kept."""
    code = "import numpy as np\nprint(np.random.default_rng(x).integers(10**9))"
    project(tmp_path, monkeypatch, code, name="50_probe")
    project_two = tmp_path / "notebooks" / "51_other.ipynb"
    nb = nbformat.read(tmp_path / "notebooks" / "50_probe.ipynb", as_version=4)
    nbformat.write(nb, project_two)
    one = runner.run("ci", [], {}, output_dir=tmp_path / "one", jobs=1)
    two = runner.run("ci", [], {}, output_dir=tmp_path / "two", jobs=2)
    assert [p.name for p in two] == ["50_probe.ipynb", "51_other.ipynb"]
    for a, b in zip(one, two):
        outputs = [
            nbformat.read(p, as_version=4).cells[2].outputs[0]["text"] for p in (a, b)
        ]
        assert outputs[0] == outputs[1]
    timings = (tmp_path / "two" / "timings.json").read_text()
    assert "50_probe" in timings and "51_other" in timings
    good = (tmp_path / "two" / "51_other.ipynb").read_bytes()
    nb.cells.append(nbformat.v4.new_code_cell("assert x < 5, 'too large'"))
    nbformat.write(nb, project_two)
    with pytest.raises(parameters.RunError, match="51_other.ipynb failed.*too large"):
        runner.run("ci", [], {"x": 9}, output_dir=tmp_path / "two", jobs=2, every=True)
    assert (tmp_path / "two" / "51_other.ipynb").read_bytes() == good
    with pytest.raises(parameters.RunError, match="jobs must be an integer >= 1"):
        runner.run("ci", [], {}, jobs=0)


def test_a_key_given_twice_in_profiles_is_refused(tmp_path, monkeypatch):
    # Old loader: YAML kept the later of two `14_what_the_server_learns:` blocks under
    # ci without a word, so the smoke run used sizes nobody meant for it.
    project(tmp_path, monkeypatch, "y = x")
    (tmp_path / "notebooks" / "profiles.yml").write_text(
        "ci:\n  50_probe: {x: 1}\n  50_probe: {x: 2}\ndefault: {}\n"
    )
    with pytest.raises(parameters.RunError, match="'50_probe' twice.*line 3"):
        runner.run("ci", [], {}, dry_run=True)


@pytest.mark.parametrize(
    ("name", "kind", "value", "allowed"),
    [
        ("n_points", "int", "0", r"at least 1 \(a size\)"),
        ("n_queries", "int", "-3", r"at least 1 \(a size\)"),
        ("n_grid", "list", "[100, 0]", r"at least 1 \(a size\)"),
        ("n_jobs", "int", "0", r"at least 1, or -1 for all cores"),
        ("n_jobs", "int", "-2", r"at least 1, or -1 for all cores"),
    ],
)
def test_sizes_below_1_are_refused_before_any_kernel_starts(
    tmp_path, monkeypatch, name, kind, value, allowed
):
    # Old runner: `-p n_points 0` passed and failed later inside a cell.
    project(
        tmp_path,
        monkeypatch,
        "y = 1",
        parameters=f"{name}: {kind} = {'[10]' if kind == 'list' else 10}",
    )
    monkeypatch.setattr(
        runner.papermill,
        "execute_notebook",
        lambda *a, **k: pytest.fail("a kernel was started for a bad size"),
    )
    with pytest.raises(
        parameters.RunError,
        match=rf"parameter '{name}' of 50_probe must be {allowed}; got -?\d+",
    ):
        runner.run("ci", ["50"], {name: parameters.parse_value(value)})


def test_sizes_of_1_and_all_cores_are_accepted():
    assert parameters.check_range(1, "n_points", "05") == 1
    assert parameters.check_range([1, 5], "n_grid", "11") == [1, 5]
    assert parameters.check_range(-1, "n_jobs", "07") == -1
    assert parameters.check_range(0, "seed", "07") == 0  # not a size
