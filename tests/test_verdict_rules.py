"""The verdict rules' error rates, measured by simulation with known truth
(:mod:`companion.claims.calibration`), and the soundness of leaving the claims out
of the cache key."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


def test_the_verdict_table_is_compact_with_badges_and_numbers_behind_a_toggle():
    import pandas as pd

    from companion import claims
    from companion.claims import display

    ledger = pd.DataFrame(
        {
            "id": ["6.15", "6.16"],
            "claim": ["'" + "word " * 60 + "'", "short"],
            "verdict": [claims.INCONCLUSIVE, claims.DIFFERS],
            "why": ["level at x 1 " * 30, "opposite at x 2"],
            "numbers": ["at x 1: +0.010 ± 0.020", "at x 2: -0.300 ± 0.010"],
        }
    )
    table = claims.verdict_table(ledger)
    text = repr(table).splitlines()
    assert text[1] == "6.16: differs — opposite at x 2"
    assert len(text[0]) <= len("6.15: inconclusive — ") + 110
    page = table._repr_html_()
    assert page.count("<details>") == 2 and "+0.010 ± 0.020" in page
    assert display.BADGES[claims.DIFFERS][0] in page
    assert display.shorten("a b c d e f", 10) == "a b c d…"
    with pytest.raises(ValueError, match="width"):
        display.shorten("x", 3)
    with pytest.raises(ValueError, match="columns"):
        claims.verdict_table(ledger.drop(columns="why"))


def test_badge_colours_are_legible():
    # WCAG relative luminance contrast of text on each badge: at least 4.5
    from companion.claims import display

    def luminance(colour):
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    for background, text in display.BADGES.values():
        high, low = sorted((luminance(background), luminance(text)), reverse=True)
        assert (high + 0.05) / (low + 0.05) >= 4.5, background


def test_a_chance_hold_beside_a_contradiction_does_not_make_partly():
    from companion.claims import rules

    # one point at p = 0.03 (alone it would hold), two clearly against the claim:
    # with opposites present the holds are Holm-adjusted (0.03 x 3 = 0.09): differs
    found = rules.outcomes([0.03, 0.6, 0.6], [0.9, 0.001, 0.001])
    assert list(found) == ["level", "opposite", "opposite"]
    assert rules.tally(found) == "differs"
    # a hold that survives Holm (0.001 x 3) beside an opposite is partly
    found = rules.outcomes([0.001, 0.6, 0.6], [0.9, 0.001, 0.001])
    assert rules.tally(found) == "partly"
    # without any opposite, every point is tested alone (intersection-union)
    assert list(rules.outcomes([0.03, 0.04], [0.9, 0.9])) == ["holds", "holds"]
