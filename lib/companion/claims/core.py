"""A claim of a source and the verdict a stated rule gives it.

A :class:`Claim` records where a statement is (source, section, figure), the
source's own words (a short quotation), what is measured and the rule that
decides it, in words a reader can check; its ``judge`` computes the
:class:`Verdict` from a notebook's result tables. Nothing here is private data:
the claims read aggregate accuracy tables, so no privacy is spent.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

__all__ = [
    "NOT_COMPARABLE",
    "VERDICTS",
    "Point",
    "Verdict",
    "Claim",
    "not_comparable",
    "combine",
    "AGREES",
    "PARTLY",
    "DIFFERS",
    "INCONCLUSIVE",
]

AGREES, PARTLY, DIFFERS = "agrees", "partly", "differs"
INCONCLUSIVE, NOT_COMPARABLE = "inconclusive", "not comparable"
#: The five verdicts, in the ledger's order: the data support the claim at the
#: stated level; named parts agree and others differ; the data contradict it; the
#: data cannot tell at this size; no run can test it here.
VERDICTS = (AGREES, PARTLY, DIFFERS, INCONCLUSIVE, NOT_COMPARABLE)


@dataclass(frozen=True)
class Point:
    """One measured point a verdict rests on: the claim's ``part``, the setting ``x``,
    the estimate ``value`` with its interval ``low`` to ``high`` (the interval its
    tests use), the band ``lo`` to ``hi`` the claim gives it (``0`` to ``inf`` for an
    effect that must exist) and the point's ``outcome`` (holds, opposite, level)."""

    part: str
    x: float
    value: float
    low: float
    high: float
    lo: float
    hi: float
    outcome: str


@dataclass(frozen=True)
class Verdict:
    """A computed verdict: one of :data:`VERDICTS`, why (the part that holds, or
    why no comparison is possible), the numbers that decided it and the measured
    points (:class:`Point`) they come from, for a figure of the evidence."""

    word: str
    why: str = ""
    numbers: str = ""
    evidence: tuple = field(default=(), compare=False, repr=False)

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

    A claim holds when every part holds, so: parts that cannot be compared are left
    out (all of them not comparable gives not comparable); all the rest agreeing
    gives agrees; some part agreeing (or partly) while another differs (or partly)
    gives partly; a part differing and none agreeing gives differs; otherwise
    (agreeing parts beside inconclusive ones, or all inconclusive) inconclusive.
    The why names each part's verdict (past six parts, the counts and the parts
    that do not agree).
    """
    if not parts:
        raise ValueError("parts must hold at least one part")
    words = [v.word for v in parts.values() if v.word != NOT_COMPARABLE] or [
        NOT_COMPARABLE
    ]
    numbers = "; ".join(
        f"{name}: {v.numbers}" for name, v in parts.items() if v.numbers
    )
    word = _combined_word(set(words))
    evidence = tuple(
        replace(point, part=f"{name} · {point.part}" if point.part else name)
        for name, v in parts.items()
        for point in v.evidence
    )
    if len({v.word for v in parts.values()}) == 1:
        if len(parts) > 6:
            return Verdict(word, f"all {len(parts)} parts alike", numbers, evidence)
        why = "; ".join(f"{name}: {v.why}" for name, v in parts.items() if v.why)
        return Verdict(word, why, numbers, evidence)
    if len(parts) > 6:  # many scenarios: count them, name those that do not agree
        tally = [v.word for v in parts.values()]
        counts = ", ".join(f"{tally.count(w)} {w}" for w in VERDICTS if w in tally)
        others = ", ".join(
            f"{name} {v.word}" for name, v in parts.items() if v.word != AGREES
        )
        return Verdict(
            word, f"{counts} of {len(parts)} parts; {others}", numbers, evidence
        )
    why = "; ".join(
        f"{name} {v.word}" + (f" ({v.why})" if v.why else "")
        for name, v in parts.items()
    )
    return Verdict(word, why, numbers, evidence)


def _combined_word(words: set) -> str:
    """The verdict of a claim whose comparable parts have the verdicts ``words``."""
    if words == {AGREES} or words == {NOT_COMPARABLE}:
        return words.pop()
    supported = bool(words & {AGREES, PARTLY})
    contradicted = bool(words & {DIFFERS, PARTLY})
    if supported and contradicted:
        return PARTLY
    if contradicted:
        return DIFFERS
    return INCONCLUSIVE
