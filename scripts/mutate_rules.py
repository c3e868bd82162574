"""Each mutation of the verdict rules must fail a test: run on a copy of lib/ and
tests/ (python scripts/mutate_rules.py; about a minute per mutation)."""

import shutil
import subprocess
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1]
MUTATIONS = {
    "band judged by the estimate alone (interval ignored)": (
        "lib/companion/claims/rules.py",
        "    hold = np.maximum(below, over)\n",
        "    hold = np.where((q >= lo) & (q <= hi), 0.0, 1.0)\n",
    ),
    "a claim agrees when it holds at a quarter of the budgets": (
        "lib/companion/claims/rules.py",
        "    if held == len(found):\n        return AGREES\n",
        "    if 4 * held >= len(found):\n        return AGREES\n",
    ),
    "critical value halved": (
        "lib/companion/claims/rules.py",
        (
            "    return float(stats.norm.isf(alpha) if df is None else "
            "stats.t.isf(alpha, df))"
        ),
        (
            "    return 0.5 * float(stats.norm.isf(alpha) if df is None else "
            "stats.t.isf(alpha, df))"
        ),
    ),
    "never opposite": (
        "lib/companion/claims/rules.py",
        '    return np.where(held, "holds", np.where(against, "opposite", "level"))',
        '    return np.where(held, "holds", "level")',
    ),
    "holds Holm-adjusted for every claim": (
        "lib/companion/claims/rules.py",
        "        held = p_hold < alpha\n",
        "        held = holm(p_hold) < alpha\n",
    ),
    "inconclusive reported as differs": (
        "lib/companion/claims/rules.py",
        "        return PARTLY if held else DIFFERS\n    return INCONCLUSIVE",
        "        return PARTLY if held else DIFFERS\n    return DIFFERS",
    ),
    "t quantiles replaced by the normal": (
        "lib/companion/claims/rules.py",
        "stats.t.isf(alpha, df))",
        "stats.norm.isf(alpha))",
    ),
    "interpolated points judged": (
        "lib/companion/claims/rules.py",
        "        match = np.flatnonzero(np.isclose(b.x, x, rtol=1e-9, atol=0))",
        "        match = np.flatnonzero(np.isclose(b.x, x, rtol=10.0, atol=0))",
    ),
}
TESTS = [
    "tests/test_claims.py",
    "tests/test_verdict_rules.py",
    "tests/test_equal_privacy_claims.py",
    "tests/test_plots.py",
]
for name, (path, old, new) in MUTATIONS.items():
    work = Path(tempfile.gettempdir()) / "dpnn-mutants"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(SRC / "lib", work / "lib")
    shutil.copytree(SRC / "tests", work / "tests")
    shutil.copytree(SRC / "notebooks", work / "notebooks")
    shutil.copy(SRC / "pyproject.toml", work / "pyproject.toml")
    target = work / path
    text = target.read_text()
    assert old in text, name
    target.write_text(text.replace(old, new, 1))
    run = subprocess.run(
        [
            str(SRC / ".venv/bin/python"),
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            *TESTS,
        ],
        cwd=work,
        capture_output=True,
        check=False,
        text=True,
        env={
            "PYTHONPATH": str(work / "lib"),
            "PATH": "/usr/bin:/bin",
            "HOME": "/root",
            "MPLBACKEND": "Agg",
        },
    )
    failed = [l for l in run.stdout.splitlines() if l.startswith("FAILED")]
    print(
        f"{name}: {'caught by ' + failed[0].split(' ')[1] if failed else 'NOT CAUGHT'}",
        flush=True,
    )
