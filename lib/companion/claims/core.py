"""A claim of a source and the verdict a stated rule gives it.

A :class:`Claim` records where a statement is (source, section, figure), the
source's own words (a short quotation), what is measured and the rule that
decides it, in words a reader can check; its ``judge`` computes the
:class:`Verdict` from a notebook's result tables. Nothing here is private data:
the claims read aggregate accuracy tables, so no privacy is spent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

__all__ = [
    "NOT_COMPARABLE",
    "VERDICTS",
    "Verdict",
    "Claim",
    "not_comparable",
    "combine",
    "AGREES",
    "PARTLY",
    "DIFFERS",
]

AGREES, PARTLY, DIFFERS = "agrees", "partly", "differs"
NOT_COMPARABLE = "not comparable"
#: The four verdicts, in the ledger's order.
VERDICTS = (AGREES, PARTLY, DIFFERS, NOT_COMPARABLE)


@dataclass(frozen=True)
class Verdict:
    """A computed verdict: one of :data:`VERDICTS`, why (the part that holds, or
    why no comparison is possible) and the numbers that decided it."""

    word: str
    why: str = ""
    numbers: str = ""

    def __post_init__(self):
        if self.word not in VERDICTS:
            raise ValueError(f"word must be one of {VERDICTS}, got {self.word!r}")


@dataclass(frozen=True)
class Claim:
    """One statement of a source, with what is measured and the rule that judges it.

    ``judge(tables)`` takes the notebook's result tables (a mapping of names to
    DataFrames or values) and returns a :class:`Verdict`.
    """

    notebook: str
    source: str
    section: str
    figure: str
    quote: str
    measured: str
    rule: str
    judge: Callable[[Mapping], Verdict] = field(repr=False, compare=False)


def not_comparable(why: str, numbers: str = "") -> Verdict:
    """The verdict for a claim no run can test: ``why`` says what is missing."""
    return Verdict(NOT_COMPARABLE, why, numbers)


def combine(parts: Mapping[str, Verdict]) -> Verdict:
    """One verdict from the verdicts of a claim's parts (its statements or metrics).

    All parts alike give that verdict (so all not comparable gives not comparable);
    anything else is ``partly``, naming each part's verdict (past six parts, the
    counts and the parts that do not agree).
    """
    if not parts:
        raise ValueError("parts must hold at least one part")
    words = {v.word for v in parts.values()}
    numbers = "; ".join(
        f"{name}: {v.numbers}" for name, v in parts.items() if v.numbers
    )
    if len(parts) > 6 and len(words) == 1:
        return Verdict(words.pop(), f"all {len(parts)} parts alike", numbers)
    if len(words) == 1:
        word = words.pop()
        why = "; ".join(f"{name}: {v.why}" for name, v in parts.items() if v.why)
        return Verdict(word, why, numbers)
    if len(parts) > 6:  # many scenarios: count them, name those that do not agree
        tally = [v.word for v in parts.values()]
        counts = ", ".join(f"{tally.count(w)} {w}" for w in VERDICTS if w in tally)
        others = ", ".join(
            f"{name} {v.word}" for name, v in parts.items() if v.word != AGREES
        )
        return Verdict(PARTLY, f"{counts} of {len(parts)} parts; {others}", numbers)
    why = "; ".join(
        f"{name} {v.word}" + (f" ({v.why})" if v.why else "")
        for name, v in parts.items()
    )
    return Verdict(PARTLY, why, numbers)
