#!/bin/sh
# The companion's environment: `make install` (and every target that needs .venv) and
# `make doctor` run this script; it needs nothing but a POSIX shell.
#
#   sh scripts/venv.sh install   check the Python first, then create, recreate or
#                                update the venv and register the Jupyter kernel
#   sh scripts/venv.sh doctor    report Python, venv, kernel, chromium and disk, with
#                                what to do about each problem
#
# Read from the environment (the Makefile sets them):
#   PYTHON           the interpreter asked for (empty when none was found)
#   PYTHON_EXPLICIT  1 when PYTHON was given (make PYTHON=...): a venv on another
#                    Python is then recreated; else any supported venv is kept
#   VENV             the venv's folder (.venv)
# An install that did not complete (no $VENV/.installed) is started again from a new
# venv, so a failed first try never sticks.
set -u

SUPPORTED="3.11 3.12 3.13"
SUPPORTED_TEXT="Python 3.11, 3.12 or 3.13"
PYTHON=${PYTHON:-}
PYTHON_EXPLICIT=${PYTHON_EXPLICIT:-0}
VENV=${VENV:-.venv}
STAMP="$VENV/.installed"
VERSION_CODE='import sys; print("%d.%d.%d" % sys.version_info[:3])'

# The full version of interpreter $1 (3.12.1), or nothing if it does not run.
version_of() {
    [ -n "$1" ] && "$1" -c "$VERSION_CODE" 2>/dev/null | head -n 1
}

# Major.minor of a full version (3.12.1 -> 3.12).
minor_of() {
    echo "$1" | cut -d. -f1,2
}

supported() {
    case " $SUPPORTED " in *" $(minor_of "$1") "*) return 0 ;; esac
    return 1
}

# One line, then exit 1: the Python asked for cannot build the environment.
refuse_python() {
    if [ -z "$PYTHON" ]; then
        echo "make: no Python found (tried python3.11, python3.12, python3.13," \
            "python3); the companion needs $SUPPORTED_TEXT:" \
            "install one, then run make install PYTHON=python3.12" >&2
    elif [ -z "$1" ]; then
        echo "make: $PYTHON does not run; the companion needs $SUPPORTED_TEXT:" \
            "run make install PYTHON=python3.12 (or another supported one)" >&2
    else
        echo "make: Python $1 ($PYTHON) is not supported; the companion needs" \
            "$SUPPORTED_TEXT: install one, then run make install PYTHON=python3.12" >&2
    fi
    exit 1
}

install() {
    asked=$(version_of "$PYTHON")
    if [ -z "$asked" ] || ! supported "$asked"; then
        refuse_python "$asked"
    fi
    reason=""
    if [ -e "$VENV" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
        echo "make: $VENV exists but is not a virtual environment (no pyvenv.cfg);" \
            "move it away or choose another folder with VENV=..." >&2
        exit 1
    elif [ -f "$VENV/pyvenv.cfg" ]; then
        found=$(version_of "$VENV/bin/python")
        if [ -z "$found" ]; then
            reason="its Python does not run any more"
        elif [ ! -f "$STAMP" ]; then
            reason="its install did not complete"
        elif ! supported "$found"; then
            reason="it holds Python $found"
        elif [ "$PYTHON_EXPLICIT" = 1 ] &&
            [ "$(minor_of "$found")" != "$(minor_of "$asked")" ]; then
            reason="it holds Python $found and Python $asked ($PYTHON) was asked for"
        fi
    fi
    if [ -n "$reason" ]; then
        echo "make: recreating $VENV: $reason"
        rm -rf "$VENV"
    fi
    if [ -f "$STAMP" ] && [ ! pyproject.toml -nt "$STAMP" ] &&
        [ ! constraints.txt -nt "$STAMP" ]; then
        return 0
    fi
    if [ ! -f "$VENV/pyvenv.cfg" ]; then
        echo "make: creating $VENV with Python $asked ($PYTHON)"
        "$PYTHON" -m venv "$VENV" || exit 1
        echo "*" >"$VENV/.gitignore" # git ignores the venv whatever its name
    fi
    rm -f "$STAMP"
    echo "make: installing the pinned environment into $VENV" \
        "(about 3 minutes the first time)"
    "$VENV/bin/python" -m pip install --quiet -c constraints.txt -e ".[dev]" || {
        echo "make: the install into $VENV failed (above); run make doctor," \
            "then make install again (it starts from a new $VENV)" >&2
        exit 1
    }
    "$VENV/bin/python" -c \
        "from companion.run import ensure_kernel; ensure_kernel()" || exit 1
    touch "$STAMP"
}

# doctor: one line per item, "ok" or "PROBLEM" with what to do.
problems=0
report() {
    item=$1
    shift
    printf '%-9s %s\n' "$item" "$*"
}
problem() {
    item=$1
    shift
    report "$item" "PROBLEM: $*"
    problems=$((problems + 1))
}

doctor() {
    asked=$(version_of "$PYTHON")
    if [ -z "$PYTHON" ]; then
        problem python "none found (tried python3.11, python3.12, python3.13," \
            "python3): install $SUPPORTED_TEXT"
    elif [ -z "$asked" ]; then
        problem python "$PYTHON does not run: choose another," \
            "e.g. make install PYTHON=python3.12"
    elif ! supported "$asked"; then
        problem python "$PYTHON is Python $asked; install $SUPPORTED_TEXT" \
            "and run make install PYTHON=python3.12"
    else
        report python "ok: Python $asked ($(command -v "$PYTHON" || echo "$PYTHON"))"
    fi
    found=""
    if [ ! -e "$VENV" ]; then
        problem venv "$VENV does not exist: run make install"
    elif [ ! -f "$VENV/pyvenv.cfg" ]; then
        problem venv "$VENV is not a virtual environment:" \
            "move it away or use VENV=..."
    else
        found=$(version_of "$VENV/bin/python")
        if [ -z "$found" ]; then
            problem venv "$VENV's Python does not run:" \
                "run make install (it recreates $VENV)"
        elif ! supported "$found"; then
            problem venv "$VENV holds Python $found:" \
                "run make install PYTHON=python3.12 (it recreates $VENV)"
        elif [ ! -f "$STAMP" ]; then
            problem venv "$VENV (Python $found): its install did not complete:" \
                "run make install (it recreates $VENV)"
        elif [ pyproject.toml -nt "$STAMP" ] || [ constraints.txt -nt "$STAMP" ]; then
            problem venv "$VENV (Python $found) is older than pyproject.toml" \
                "or constraints.txt: run make install"
        else
            report venv "ok: $VENV, Python $found, pinned environment installed"
        fi
    fi
    kernel="$VENV/share/jupyter/kernels/dpnn/kernel.json"
    if [ -f "$kernel" ]; then
        report kernel "ok: \"Python (dpnn .venv)\" in" \
            "$VENV/share/jupyter/kernels/dpnn"
    else
        problem kernel "the Jupyter kernel dpnn is not registered:" \
            "run make install"
    fi
    browser=$(command -v chromium || command -v chromium-browser || true)
    if [ -n "$browser" ]; then
        report chromium "ok: $browser (the book's browser tests)"
    else
        problem chromium "not found; only make test needs it:" \
            "sudo apt-get install chromium"
    fi
    free_kb=$(df -Pk . 2>/dev/null | awk 'NR == 2 { print $4 }')
    if [ -z "$free_kb" ]; then
        report disk "unknown: df did not answer"
    elif [ -f "$STAMP" ] && [ "$free_kb" -ge 1048576 ]; then
        report disk "ok: $((free_kb / 1048576)) GB free (build/ needs under 1 GB)"
    elif [ ! -f "$STAMP" ] && [ "$free_kb" -ge 2621440 ]; then
        report disk "ok: $((free_kb / 1048576)) GB free" \
            "($VENV needs 1.3 GB, build/ under 1 GB)"
    else
        problem disk "$((free_kb / 1024)) MB free; the venv needs 1.3 GB" \
            "and build/ up to 1 GB: free some space"
    fi
    if [ "$problems" -gt 0 ]; then
        echo "$problems problem(s): each PROBLEM line says what to do"
    else
        echo "all ok"
    fi
}

case "${1:-}" in
install) install ;;
doctor) doctor ;;
*)
    echo "usage: sh scripts/venv.sh install|doctor" >&2
    exit 2
    ;;
esac
