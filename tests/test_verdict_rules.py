"""The verdict rules' error rates, measured by simulation with known truth
(:mod:`companion.claims.calibration`), and the soundness of leaving the claims out
of the cache key."""

from __future__ import annotations

import ast
from pathlib import Path

from companion import cached_loops
from companion.claims import calibration

LIB = Path(__file__).resolve().parents[1] / "lib"


def test_every_rule_meets_its_error_rate_targets():
    # pinned seed: the same table every run; 200 claims per cell
    table = calibration.error_rates(reps=200, seed=0)
    assert not calibration.violations(table, reps=200)
    # the claims the truth contradicts are never called "agrees" in this table,
    # and those it satisfies with margin agree at small errors
    bad = table[table["truth"].str.startswith(("outside", "reversed"))]
    assert bad["agrees"].max() <= calibration.ALPHA
    good = table[table["truth"].str.startswith("inside")]
    assert good.loc[good["se / margin"] == 0.25, "agrees"].min() >= 0.8


def test_violations_catch_a_rule_that_agrees_with_a_contradicted_claim():
    table = calibration.error_rates(reps=20, seed=1, points=(1,), errors=(0.25,))
    broken = table.copy()
    broken.loc[broken["truth"].str.startswith("outside"), "agrees"] = 0.5
    assert any("agrees 0.500" in v for v in calibration.violations(broken, 20))


def test_the_cache_key_leaves_out_only_code_no_study_calls():
    # studies (and everything but the readers) may import companion.claims
    # .inference only: an edit to the other readers cannot change a cached result
    for path in (LIB / "companion").rglob("*.py"):
        name = path.relative_to(LIB).as_posix()
        if name.startswith(cached_loops.READERS):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module
                if module.startswith(("companion.claims", "companion.plots")):
                    assert module == "companion.claims.inference" or (
                        name.startswith("companion/") and "studies" not in name
                    ), f"{name} imports {module}"
