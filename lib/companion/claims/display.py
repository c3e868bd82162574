"""A notebook's verdicts at a glance: one short row per claim, the verdict as a
coloured badge, the deciding numbers behind a toggle.

:func:`verdict_table` turns a ledger slice (:func:`companion.claims.judge`) into an
object Jupyter and the book show as HTML (a table that fits a 1366-pixel screen,
with a ``<details>`` toggle per row for the full numbers) and a terminal or nbval
as plain text (id, verdict, reason). Nothing private is read.
"""

from __future__ import annotations

import html

import pandas as pd

from .core import AGREES, DIFFERS, INCONCLUSIVE, NOT_COMPARABLE, PARTLY

__all__ = ["BADGES", "VerdictTable", "verdict_table", "verdict_html", "shorten"]

#: Badge colours (background, text) per verdict; contrast at least 4.5:1 (WCAG AA).
BADGES = {
    AGREES: ("#1b7837", "#ffffff"),
    PARTLY: ("#b35806", "#ffffff"),
    DIFFERS: ("#b2182b", "#ffffff"),
    INCONCLUSIVE: ("#4d4d4d", "#ffffff"),
    NOT_COMPARABLE: ("#e0e0e0", "#1a1a1a"),
}


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``width`` characters
    (an ellipsis marks the cut)."""
    if width < 10:
        raise ValueError(f"width must be at least 10 characters, got {width}")
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0]
    return cut + "…"


class VerdictTable:
    """The compact table of a ledger slice: HTML for Jupyter and the book, plain
    text otherwise (see module)."""

    def __init__(self, ledger: pd.DataFrame, claim: int = 90, reason: int = 110):
        missing = {"id", "claim", "verdict", "why", "numbers"} - set(ledger.columns)
        if missing:
            raise ValueError(
                f"ledger must have the ledger's columns, missing {missing}"
            )
        self.ledger, self.claim, self.reason = ledger, claim, reason

    def __repr__(self) -> str:
        rows = [
            f"{r.id}: {r.verdict} — {shorten(r.why or '', self.reason)}"
            for r in self.ledger.itertuples()
        ]
        return "\n".join(rows)

    def _repr_html_(self) -> str:
        return verdict_html(self.ledger, self.claim, self.reason)


def _badge(word: str) -> str:
    background, colour = BADGES.get(word, ("#ffffff", "#000000"))
    return (
        f'<span class="dpnn-badge" style="background:{background};color:{colour};'
        'padding:1px 6px;border-radius:8px;font-size:85%;white-space:nowrap">'
        f"{html.escape(word)}</span>"
    )


def verdict_html(ledger: pd.DataFrame, claim: int = 90, reason: int = 110) -> str:
    """The HTML of :class:`VerdictTable`: claim id, the source's words (short),
    the verdict's badge, a one-line reason, and the numbers behind a toggle."""
    cell = "padding:3px 6px;vertical-align:top;text-align:left"
    head = "".join(
        f'<th style="{cell}">{name}</th>'
        for name in ("claim", "source's words", "verdict", "reason")
    )
    rows = []
    for r in ledger.itertuples():
        numbers = html.escape(str(r.numbers or "no numbers"))
        rows.append(
            "<tr>"
            f'<td style="{cell};white-space:nowrap">{html.escape(str(r.id))}</td>'
            f'<td style="{cell}">{html.escape(shorten(r.claim, claim))}</td>'
            f'<td style="{cell}">{_badge(r.verdict)}</td>'
            f'<td style="{cell}">{html.escape(shorten(r.why or "", reason))}'
            f'<details><summary style="cursor:pointer;font-size:85%">numbers'
            f'</summary><div style="font-size:85%">{numbers}</div></details></td>'
            "</tr>"
        )
    return (
        '<table class="dpnn-verdicts" style="border-collapse:collapse;'
        'max-width:1300px;font-size:90%">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def verdict_table(
    ledger: pd.DataFrame, claim: int = 90, reason: int = 110
) -> VerdictTable:
    """The compact table of ``ledger`` (claims' words cut at ``claim`` characters,
    reasons at ``reason``): display it in a notebook."""
    return VerdictTable(ledger, claim, reason)
