"""The registry of claims by notebook, their judging, and the ledger files.

:func:`judge` runs every claim of a notebook on its result tables and returns the
notebook's slice of the ledger, one row per claim; :func:`write_ledger` writes it
as CSV beside the figures the run writes (``$DPNN_FIGURES_DIR``, which the runner
points at the committed ``figures/`` only for a plain default run, at
``figures/thesis/`` for a plain thesis run and at ``build/`` otherwise; without
it, an interactive session writes to the git-ignored ``build/interactive/``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from . import (
    best_mechanisms,
    cormode,
    cormode_findings,
    cormode_kd,
    equal_privacy,
    followup,
    footings,
    gursoy,
    gursoy_figures,
    gursoy_knn,
    leakage,
    liang_yi,
    liang_yi_figures,
    similarity,
    similarity_post,
    thesis_comparison,
    thesis_distance,
)
from .core import AGREES, VERDICTS, Claim

__all__ = [
    "REGISTRY",
    "COLUMNS",
    "claims_of",
    "judge",
    "view",
    "summary",
    "departures",
    "page",
    "ledger_dir",
    "gather",
    "write_ledger",
    "counts",
    "changed",
]

#: Every judged claim, by notebook.
REGISTRY: dict[str, tuple[Claim, ...]] = {
    thesis_distance.NOTEBOOK: thesis_distance.CLAIMS + footings.CLAIMS_07,
    thesis_comparison.NOTEBOOK: thesis_comparison.CLAIMS + footings.CLAIMS_08,
    gursoy.NOTEBOOK: gursoy.CLAIMS + gursoy_knn.CLAIMS + gursoy_figures.CLAIMS,
    cormode.NOTEBOOK: cormode.CLAIMS + cormode_findings.CLAIMS + cormode_kd.CLAIMS,
    liang_yi.NOTEBOOK: liang_yi.CLAIMS + liang_yi_figures.CLAIMS,
    similarity.NOTEBOOK: similarity.CLAIMS + similarity_post.CLAIMS,
    followup.NOTEBOOK: followup.CLAIMS + leakage.CLAIMS_13 + equal_privacy.CLAIMS,
    leakage.NOTEBOOK: leakage.CLAIMS + footings.CLAIMS,
    best_mechanisms.NOTEBOOK: best_mechanisms.CLAIMS,
}
COLUMNS = [
    "id",
    "source",
    "section",
    "figure",
    "claim",
    "measured",
    "rule",
    "verdict",
    "why",
    "numbers",
]


def claims_of(notebook: str) -> tuple[Claim, ...]:
    """The registered claims of ``notebook`` (its file stem)."""
    if notebook not in REGISTRY:
        raise ValueError(
            f"notebook must be one of {sorted(REGISTRY)}, got {notebook!r}"
        )
    return REGISTRY[notebook]


def judge(notebook: str, *, figure: str | None = None, **tables) -> pd.DataFrame:
    """Every claim of ``notebook`` judged on its result ``tables``: its ledger slice
    (the columns of :data:`COLUMNS`, and ``evidence``, each verdict's measured points
    for a figure); with ``figure``, only the claims of that figure (a section judged
    before the tables of the others exist), with the same ids as in the whole
    slice."""
    rows = []
    registered = claims_of(notebook)
    figures = [claim.figure for claim in registered]
    if figure is not None and figure not in figures:
        raise ValueError(
            f"figure must be one of {sorted(set(figures))}, got {figure!r}"
        )
    for claim, key in zip(registered, _ids(figures)):
        if figure is not None and claim.figure != figure:
            continue
        verdict = claim.judge(tables)
        rows.append(
            {
                "id": key,
                "source": claim.source,
                "section": claim.section,
                "figure": claim.figure,
                "claim": claim.quote,
                "measured": claim.measured,
                "rule": claim.rule,
                "verdict": verdict.word,
                "why": verdict.why,
                "numbers": verdict.numbers,
                "evidence": verdict.evidence,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS + ["evidence"])


def _ids(figures: list[str]) -> list[str]:
    """A claim's id: its figure, with a, b, ... where one figure has several claims."""
    out, seen = [], {}
    for figure in figures:
        seen[figure] = seen.get(figure, -1) + 1
        out.append(
            figure + ("abcdefghij"[seen[figure]] if figures.count(figure) > 1 else "")
        )
    return out


def view(ledger: pd.DataFrame, width: int = 300) -> pd.DataFrame:
    """The ledger for reading: id, the source's words, verdict, why and the deciding
    numbers, texts cut at ``width`` characters (the CSV keeps them whole)."""
    if width < 20:
        raise ValueError(f"width must be at least 20 characters, got {width}")

    def cut(text):
        return text if len(text) <= width else text[: width - 1] + "…"

    shown = ledger[["id", "section", "claim", "verdict", "why", "numbers"]].copy()
    for column in ("claim", "why", "numbers"):
        shown[column] = shown[column].map(cut)
    return shown.set_index("id")


def summary(ledger: pd.DataFrame) -> pd.DataFrame:
    """How many claims of each source agree, partly agree, differ, can't compare."""
    counts = pd.crosstab(ledger["source"], ledger["verdict"])
    return counts.reindex(columns=list(VERDICTS), fill_value=0)


def departures(ledger: pd.DataFrame) -> str:
    """Markdown listing every claim of ``ledger`` that does not fully agree: its
    verdict and the reason its rule computed, each from the ledger (nothing typed);
    a cause beyond the numbers is not established by the run."""
    others = ledger[ledger["verdict"] != AGREES]
    lines = [
        f"- **{row.id}** ({row.verdict}): {row.why or 'no reason recorded'}"
        for row in others.itertuples()
    ]
    return (
        "**Where the source and this run part.** Each reason below is computed "
        "from the numbers; a cause beyond them is not established by the run.\n\n"
        + "\n".join(lines)
    )


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("*", "\\*").replace("\n", " ")


def _counts_table(whole: pd.DataFrame) -> list[str]:
    lines = [
        "| source | " + " | ".join(VERDICTS) + " |",
        "| --- |" + " --- |" * len(VERDICTS),
    ]
    counts = summary(whole) if len(whole) else pd.DataFrame(columns=list(VERDICTS))
    return lines + [
        f"| {_cell(source)} | " + " | ".join(str(int(n)) for n in row) + " |"
        for source, row in counts.iterrows()
    ]


def _rates_table(rates: pd.DataFrame) -> list[str]:
    """The rules' error rates as Markdown lines (a caption, then the table)."""
    words = [w for w in VERDICTS if w in rates.columns]
    lines = [
        "Each rule run on synthetic curves whose truth is known (module "
        "`companion.claims.calibration`): the share of claims given each verdict, "
        "by truth, number of measured points and standard error (in units of the "
        "claim's margin). A claim the truth contradicts by twice its margin is "
        "called agrees at most 5% of the time; one the truth satisfies with margin "
        "is called differs at most 5% of the time.",
        "",
        "| rule | truth | points | se / margin | " + " | ".join(words) + " |",
        "| --- | --- | --- | --- |" + " --- |" * len(words),
    ]
    for row in rates.to_dict("records"):
        shares = " | ".join(f"{row[w]:.3f}" for w in words)
        lines.append(
            f"| {_cell(row['rule'])} | {_cell(row['truth'])} | {row['points']} | "
            f"{row['se / margin']:g} | {shares} |"
        )
    return lines


def page(
    whole: pd.DataFrame,
    title: str = "The claims ledger",
    sources_sizes: pd.DataFrame | None = None,
    chapters: dict | None = None,
    rates: pd.DataFrame | None = None,
    download: str | None = None,
) -> str:
    """The ledger as a Markdown page: the counts per source, then every claim by
    notebook (its words, verdict and why; the deciding numbers stay in the CSVs).

    ``sources_sizes``, the whole ledger of a run at the sources' sizes (the thesis
    profile's ``figures/thesis/``), adds its counts and the claims whose verdict
    differs from ``whole``'s. ``chapters`` maps a notebook's name to its title and
    the link of its chapter: each notebook's section is then headed by its title
    and points to the chapter, whose results section shows the same slice.
    ``rates`` (:func:`companion.claims.calibration.error_rates`) adds the rules'
    measured error rates; ``download`` names the whole ledger's CSV file beside the
    page, for a download link."""
    cell = _cell
    lines = [
        f"# {title}",
        "",
        "Every verdict on a source's claim, computed by "
        "`companion.claims` from the run that wrote the ledger.",
        "",
    ]
    if download:
        lines += [f"The whole ledger as CSV: {{download}}`{download}`.", ""]
    lines += _counts_table(whole)
    if rates is not None and len(rates):
        lines += ["", "## How often each rule errs", ""] + _rates_table(rates)
    if sources_sizes is not None and len(sources_sizes):
        moved = changed(whole, sources_sizes)
        lines += ["", "At the sources' sizes (the thesis profile):", ""]
        lines += _counts_table(sources_sizes)
        lines += ["", f"{len(moved)} verdicts differ at the sources' sizes."]
        if len(moved):
            lines += [
                "",
                "| notebook | id | verdict | at the sources' sizes |",
                "| --- | --- | --- | --- |",
            ]
            lines += [
                f"| {cell(r[0])} | {cell(r[1])} | {r[2]} | {r[3]} |"
                for r in moved.itertuples(index=False)
            ]
    for notebook, part in whole.groupby("notebook", sort=False):
        heading, link = (chapters or {}).get(notebook, (notebook, None))
        lines += ["", f"## {heading}", ""]
        if link:
            number = heading.split(" · ")[0]
            lines += [
                f"The deciding numbers and the rules: [chapter {number}]({link}).",
                "",
            ]
        lines += ["| id | claim | verdict | why |", "| --- | --- | --- | --- |"]
        lines += [
            f"| {cell(r.id)} | {cell(r.claim)} | {r.verdict} | {cell(r.why)} |"
            for r in part.itertuples()
        ]
    return "\n".join(lines) + "\n"


def ledger_dir() -> Path:
    """Where ledgers are written: the run's figures folder (see module docstring)."""
    configured = os.environ.get("DPNN_FIGURES_DIR")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / "build" / "interactive" / "figures"


def gather(directory: Path | str | None = None) -> pd.DataFrame:
    """Every notebook's ledger slice in ``directory`` (default :func:`ledger_dir`), in
    reading order, with a ``notebook`` column: the whole ledger of a run."""
    directory = Path(directory) if directory is not None else ledger_dir()
    parts = [
        pd.read_csv(path, keep_default_na=False).assign(
            notebook=path.stem.removeprefix("ledger_")
        )
        for path in sorted(directory.glob("ledger_*.csv"))
    ]
    if not parts:
        return pd.DataFrame(columns=["notebook"] + COLUMNS)
    return pd.concat(parts, ignore_index=True)[["notebook"] + COLUMNS]


def write_ledger(ledger: pd.DataFrame, notebook: str) -> Path:
    """Write a notebook's ledger slice to ``ledger_<notebook>.csv``; return the path."""
    claims_of(notebook)
    directory = ledger_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"ledger_{notebook}.csv"
    partial = directory / f".ledger_{notebook}.csv.partial"
    ledger[COLUMNS].to_csv(partial, index=False, lineterminator="\n")
    os.replace(partial, path)
    return path


def counts(directory: Path | str) -> pd.DataFrame:
    """The verdict counts per source of the run whose ledger CSVs are in ``directory``
    (``figures/`` for the default profile, ``figures/thesis/`` for the thesis's), with
    a total row; ``ValueError`` if the folder holds no ledger."""
    whole = gather(directory)
    if whole.empty:
        raise ValueError(f"directory must hold ledger_*.csv files, none in {directory}")
    table = summary(whole)
    table.loc["all sources"] = table.sum()
    return table


def changed(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdict differs between two whole ledgers (:func:`gather`),
    matched by notebook and id: their ids, both verdicts and both deciding numbers."""
    keys = ["notebook", "id"]
    both = before.merge(after, on=keys, suffixes=(" before", " after"))
    moved = both[both["verdict before"] != both["verdict after"]]
    return moved[
        keys + ["verdict before", "verdict after", "numbers before", "numbers after"]
    ].reset_index(drop=True)
