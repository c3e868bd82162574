"""environment.yml states the same pins as constraints.txt, which make installs."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_pins_match_constraints():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    stated = {}
    for entry in environment["dependencies"]:
        if isinstance(entry, dict):
            for spec in entry["pip"]:
                if "==" in spec:
                    name, version = spec.split("==")
                    stated[name.lower()] = version
        elif "=" in entry and not entry.startswith("python"):
            name, version = entry.split("=")
            stated[name.lower()] = version
    assert stated, "environment.yml pins nothing"
    mismatched = {k: (v, pins.get(k)) for k, v in stated.items() if pins.get(k) != v}
    assert not mismatched, f"environment.yml differs from constraints.txt: {mismatched}"


def test_only_the_official_diffprivlib_is_pinned_and_installed():
    """IBM's own diffprivlib, never the unofficial ``diffprivlib-fix`` re-upload
    (another publisher, no licence file, metadata claiming IBM's authorship)."""
    import importlib.metadata as metadata

    import pytest

    names = {
        line.split("==")[0].strip().lower()
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    assert "diffprivlib" in names and "diffprivlib-fix" not in names
    for text in (
        (ROOT / "pyproject.toml").read_text(),
        (ROOT / "environment.yml").read_text(),
    ):
        assert "diffprivlib-fix" not in text
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.distribution("diffprivlib-fix")
    official = metadata.distribution("diffprivlib")
    assert (
        "ibm.com" in official.metadata["Author-email"] and official.version == "0.6.6"
    )


def test_python_3_11_to_3_13_are_supported_and_ci_runs_3_13():
    """pyproject, environment.yml and CI agree: 3.11, 3.12 and 3.13 (make picks 3.11
    first)."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11,<3.14"
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "python>=3.11,<3.14" in environment["dependencies"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        r"^PYTHON \?= .*for p in python3\.11 python3\.12 python3\.13 python3;",
        makefile,
        re.M,
    )
    assert 'SUPPORTED="3.11 3.12 3.13"' in (ROOT / "scripts" / "venv.sh").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test\n" in ci and 'make unit PYTHON="$python313" VENV=.venv313' in ci
    assert ".venv*/" in (ROOT / ".gitignore").read_text().split()
