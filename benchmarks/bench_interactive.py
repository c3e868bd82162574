"""Redraw and load times of the book's interactive figures, in Chromium.

Runs the browser tests that move every control of every interactive figure and
load each chapter that holds one (tests/test_interactive_browser.py and the load
test of tests/test_book.py); they record the fastest of three times into a
JSON-lines file, which this script summarises. Targets: a redraw under 100 ms at
1366 x 768, a chapter under 2 s from disk. Results in
benchmarks/results/interactive.json. Needs chromium (``make browser``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        timings = Path(folder) / "timings.jsonl"
        env = {**os.environ, "DPNN_TIMINGS": str(timings)}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "tests/test_interactive_browser.py",
                "tests/test_book.py",
                "-k",
                (
                    "interactive or reads_the_sweeps or loads_from_disk or "
                    "privacy_loss or composition or planar or traversal or posterior"
                ),
            ],
            cwd=ROOT,
            env=env,
            check=True,
        )
        rows = [json.loads(line) for line in timings.read_text().splitlines()]
    summary = {
        kind: {
            "largest": max(r["value"] for r in rows if r["kind"] == kind),
            "each": {
                r["what"]: round(r["value"], 1 if kind == "redraw_ms" else 2)
                for r in rows
                if r["kind"] == kind
            },
        }
        for kind in sorted({r["kind"] for r in rows})
    }
    out = ROOT / "benchmarks" / "results" / "interactive.json"
    out.write_text(json.dumps(summary, indent=1) + "\n")
    for kind, part in summary.items():
        print(f"{kind}: largest {part['largest']:.3g} over {len(part['each'])}")


if __name__ == "__main__":
    main()
