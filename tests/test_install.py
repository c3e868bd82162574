"""`make install` and `make doctor` driven with fake Pythons: the real Makefile and
scripts/venv.sh, with interpreters that are small shell scripts reporting a version,
creating a venv folder and logging what pip would have installed (nothing is
downloaded, and the test takes about a second)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("sh") is None,
    reason="needs make and a POSIX shell",
)

#: A venv's interpreter: reports its version, logs every other call.
VENV_PYTHON = """#!/bin/sh
case "$*" in
*version_info*) echo {version} ;;
*) echo "$*" >>"$(dirname "$0")/../calls.log" ;;
esac
"""

#: A system interpreter: reports its version and creates venvs of the same version.
SYSTEM_PYTHON = """#!/bin/sh
if [ "$1" = -m ] && [ "$2" = venv ]; then
    mkdir -p "$3/bin"
    echo "version = {version}" >"$3/pyvenv.cfg"
    cp "{venv_python}" "$3/bin/python"
    exit 0
fi
case "$*" in
*version_info*) echo {version} ;;
esac
"""


def fake_python(folder: Path, name: str, version: str) -> Path:
    """``folder/name``: a fake interpreter of ``version`` (3.12.1)."""
    folder.mkdir(parents=True, exist_ok=True)
    venv_python = folder / f".venv-python-{version}"
    venv_python.write_text(VENV_PYTHON.format(version=version))
    venv_python.chmod(0o755)
    path = folder / name
    path.write_text(SYSTEM_PYTHON.format(version=version, venv_python=venv_python))
    path.chmod(0o755)
    return path


def make(target: str, tmp_path: Path, *settings: str, path_first: Path | None = None):
    env = {
        k: v
        for k, v in os.environ.items()
        # a make of its own, not a sub-make of `make test` (MAKELEVEL: "make[1]:")
        if k not in {"PYTHON", "VENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    }
    if path_first is not None:  # PYTHON unset: make picks the first that runs on PATH
        env["PATH"] = f"{path_first}:/usr/bin:/bin"
    return subprocess.run(
        ["make", "--no-print-directory", "-s", target, f"VENV={tmp_path / 'venv'}"]
        + list(settings),
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def venv_version(tmp_path: Path) -> str:
    python = tmp_path / "venv" / "bin" / "python"
    return subprocess.run(
        [python, "-c", "import sys; sys.version_info"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


def pip_calls(tmp_path: Path) -> int:
    log = tmp_path / "venv" / "calls.log"
    return log.read_text().count("-m pip install") if log.exists() else 0


def test_an_old_python_is_refused_in_one_line_before_anything_is_created(tmp_path):
    old = fake_python(tmp_path / "bin", "python3.10", "3.10.13")
    result = make("install", tmp_path, f"PYTHON={old}")
    assert result.returncode != 0
    assert result.stderr.splitlines()[0] == (
        f"make: Python 3.10.13 ({old}) is not supported; the companion needs "
        "Python 3.11, 3.12 or 3.13: install one, then run make install "
        "PYTHON=python3.12"
    )
    assert "make: ***" in result.stderr.splitlines()[-1]  # make's own last line only
    assert len(result.stderr.splitlines()) == 2
    assert not (tmp_path / "venv").exists()
    missing = make("install", tmp_path, f"PYTHON={tmp_path / 'bin' / 'python9'}")
    assert "python9 does not run" in missing.stderr


def test_a_failed_install_on_an_old_python_is_recreated_on_the_second_try(tmp_path):
    # What an older Makefile left: a 3.10 venv whose pip install failed (no stamp).
    old = fake_python(tmp_path / "bin", "python3.10", "3.10.13")
    subprocess.run([old, "-m", "venv", tmp_path / "venv"], check=True)
    assert venv_version(tmp_path) == "3.10.13"
    good = fake_python(tmp_path / "bin", "python3.12", "3.12.1")
    result = make("install", tmp_path, f"PYTHON={good}")
    assert result.returncode == 0, result.stderr
    assert (
        f"make: recreating {tmp_path / 'venv'}: its install did not complete"
        in result.stdout
    )
    assert venv_version(tmp_path) == "3.12.1"
    assert pip_calls(tmp_path) == 1 and (tmp_path / "venv" / ".installed").exists()
    assert (tmp_path / "venv" / ".gitignore").read_text() == "*\n"
    # the same again: nothing to do
    again = make("install", tmp_path, f"PYTHON={good}")
    assert again.returncode == 0 and again.stdout == "" and pip_calls(tmp_path) == 1


def test_a_venv_on_another_python_than_the_one_asked_for_is_recreated(tmp_path):
    first = fake_python(tmp_path / "bin", "python3.12", "3.12.1")
    assert make("install", tmp_path, f"PYTHON={first}").returncode == 0
    other = fake_python(tmp_path / "bin", "python3.13", "3.13.0")
    result = make("install", tmp_path, f"PYTHON={other}")
    assert result.returncode == 0, result.stderr
    assert "it holds Python 3.12.1 and Python 3.13.0" in result.stdout
    assert venv_version(tmp_path) == "3.13.0" and pip_calls(tmp_path) == 1


def test_an_interrupted_install_starts_again_from_a_new_venv(tmp_path):
    good = fake_python(tmp_path / "bin", "python3.12", "3.12.1")
    assert make("install", tmp_path, f"PYTHON={good}").returncode == 0
    (tmp_path / "venv" / ".installed").unlink()  # as if pip had been interrupted
    (tmp_path / "venv" / "half-installed").touch()
    result = make("install", tmp_path, f"PYTHON={good}")
    assert "its install did not complete" in result.stdout
    assert not (tmp_path / "venv" / "half-installed").exists()
    assert (tmp_path / "venv" / ".installed").exists()


def test_without_python_given_a_supported_venv_is_kept(tmp_path):
    made = fake_python(tmp_path / "bin", "python3.12", "3.12.1")
    assert make("install", tmp_path, f"PYTHON={made}").returncode == 0
    # make's own choice is python3.11 now, but nobody asked for it: keep the 3.12 venv
    fake_python(tmp_path / "path", "python3.11", "3.11.7")
    result = make("install", tmp_path, path_first=tmp_path / "path")
    assert result.returncode == 0 and result.stdout == "", result.stdout
    assert venv_version(tmp_path) == "3.12.1"
    # and the choice itself: the first of python3.11 ... python3 that runs
    broken = tmp_path / "path" / "python3.11"
    broken.write_text("#!/bin/sh\nexit 127\n")  # a pyenv shim without its version
    fake_python(tmp_path / "path", "python3.12", "3.12.1")
    other = make("install", tmp_path / "other", path_first=tmp_path / "path")
    assert "with Python 3.12.1" in other.stdout, other.stdout + other.stderr
    assert venv_version(tmp_path / "other") == "3.12.1"


def test_something_else_in_the_venv_folder_is_never_deleted(tmp_path):
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "notes.txt").write_text("mine")
    good = fake_python(tmp_path / "bin", "python3.12", "3.12.1")
    result = make("install", tmp_path, f"PYTHON={good}")
    assert result.returncode != 0 and "is not a virtual environment" in result.stderr
    assert (tmp_path / "venv" / "notes.txt").read_text() == "mine"


def test_doctor_reports_each_item_with_what_to_do(tmp_path):
    old = fake_python(tmp_path / "bin", "python3.10", "3.10.13")
    result = make("doctor", tmp_path, f"PYTHON={old}")
    assert result.returncode == 0, result.stderr  # a report, not a failure of make
    assert "problem(s): each PROBLEM line says what to do" in result.stdout
    lines = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert {"python", "venv", "kernel", "chromium", "disk"} <= set(lines)
    assert (
        "Python 3.10.13" in lines["python"] and "PYTHON=python3.12" in lines["python"]
    )
    assert "PROBLEM" in lines["venv"] and "make install" in lines["venv"]
    assert "PROBLEM" in lines["kernel"] and "make install" in lines["kernel"]
    good = fake_python(tmp_path / "bin", "python3.12", "3.12.1")
    assert make("install", tmp_path, f"PYTHON={good}").returncode == 0
    healthy = make("doctor", tmp_path, f"PYTHON={good}").stdout
    assert "ok: Python 3.12.1" in healthy
    assert "ok: " + str(tmp_path / "venv") + ", Python 3.12.1" in healthy


def test_gitignore_covers_every_venv_name_the_makefile_and_ci_use():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert ".venv*/" in ignored  # .venv, .venv312, .venv313, ...
