"""The evidence behind a notebook's verdicts (notebooks 07-15).

:func:`verdict_evidence` draws one small panel per claim whose verdict rests on
measured points (a ledger slice from :func:`companion.claims.judge`, its
``evidence`` column): each point's estimate with the interval its tests use, the
band the claim gives it shaded (for an effect that must exist, everything above
zero), a point that holds filled and one that is opposite crossed, and the panel
titled by the claim's id in its verdict's colour. A reader sees why: an interval
inside the band at every budget agrees, one across the band's edge is
inconclusive, one outside is opposite. Where a claim's parts give different bands,
each point's band is shaded under it; past ten named settings they are numbered,
not named; a claim whose parts lie on different scales can get one panel a part.
"""

from __future__ import annotations

import math
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from companion.claims.display import BADGES

__all__ = ["OUTCOME_MARKERS", "verdict_evidence"]

#: Marker per point outcome: held filled, opposite crossed, undecided hollow.
OUTCOME_MARKERS = {"holds": "o", "opposite": "X", "level": "o"}
#: Colour of a claim's band.
_BAND = "#1b7837"


#: Named settings (points without a budget) past which a panel numbers them
#: instead of naming each one under its column.
_NAMED = 10


def _panel(
    ax, claim_id, verdict, points, subtitle: str = "", named: int = _NAMED
) -> list[str] | None:
    parts = list(dict.fromkeys(p.part for p in points))
    names = None
    xs = np.array([p.x for p in points])
    if np.all(xs == 0):  # values at named settings: one column per part
        points = [
            type(p)(**{**p.__dict__, "x": float(parts.index(p.part))}) for p in points
        ]
        if len(parts) > named:  # too many to name: numbered, in the verdict's order
            ax.set_xlabel(f"{len(parts)} settings", fontsize=7, labelpad=1)
        else:
            ax.set_xticks(range(len(parts)), [_short(q) for q in parts], fontsize=6)
            names = parts
        ax.set_xlim(-0.6, len(parts) - 0.4)
        parts = [None]
    xs = np.array([p.x for p in points])
    logx = bool(np.all(xs > 0)) and xs.max() / max(xs.min(), 1e-300) > 20
    bands = {(p.lo, p.hi) for p in points}
    values = [v for p in points for v in (p.low, p.high)]
    values += [v for b in bands for v in b if np.isfinite(v)]
    bottom, top = min(values + [0.0]), max(values + [0.0])
    pad = 0.08 * (top - bottom or 1.0)
    if len(bands) == 1:
        lo, hi = bands.pop()
        ax.axhspan(
            max(lo, bottom - pad), min(hi, top + pad), color=_BAND, alpha=0.12, lw=0
        )
    else:  # each point's own band, under it
        _own_bands(ax, points, logx, bottom - pad, top + pad)
    ax.axhline(0.0, color="0.4", lw=0.6)
    shift = np.linspace(-0.15, 0.15, len(parts)) if len(parts) > 1 else [0.0]
    small = len(points) > 40
    for offset, part in zip(shift, parts):
        mine = [p for p in points if part is None or p.part == part]
        for p in mine:
            x = p.x * 10**offset if logx else p.x + offset
            hollow = p.outcome == "level"
            ax.errorbar(
                x,
                p.value,
                yerr=[[p.value - p.low], [p.high - p.value]],
                fmt=OUTCOME_MARKERS.get(p.outcome, "o"),
                ms=2.5 if small else 4,
                lw=0.6 if small else 0.9,
                color="0.15",
                mfc="white" if hollow else "0.15",
            )
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(bottom - pad, top + pad)
    colour = BADGES.get(verdict, ("#000000", ""))[0]
    ax.set_title(f"{claim_id}: {verdict}", color=colour, fontsize=9, loc="left")
    if subtitle:
        ax.set_xlabel(_short(subtitle, 36), fontsize=7, labelpad=1)
    ax.tick_params(labelsize=7)
    return names


def _own_bands(ax, points, logx: bool, bottom: float, top: float) -> None:
    """Each point's band as a shaded box around its x (a claim whose parts give
    different bands)."""
    xs = np.array(sorted({p.x for p in points}))
    scaled = np.log10(xs) if logx else xs
    gap = float(np.diff(scaled).min()) if len(xs) > 1 else 1.0
    for p in {(p.x, p.lo, p.hi): p for p in points}.values():  # each box once
        centre = np.log10(p.x) if logx else p.x
        left, right = centre - 0.5 * gap, centre + 0.5 * gap
        if logx:
            left, right = 10**left, 10**right
        ax.fill_between(
            [left, right],
            max(p.lo, bottom),
            min(p.hi, top),
            color=_BAND,
            alpha=0.12,
            lw=0,
        )


def _short(part: str, width: int = 11, hyphens: bool = False) -> str:
    """A part's name short enough for a tick label: its first level wrapped at
    ``width`` characters (at hyphens too if ``hyphens``), its last three lines if
    longer."""
    lines = textwrap.wrap(
        part.split(" · ")[0], width, break_long_words=False, break_on_hyphens=hyphens
    )
    return "\n".join(lines if len(lines) <= 3 else ["…" + lines[-3]] + lines[-2:])


def _split(points) -> dict:
    """``points`` grouped by their top-level part, that level taken off their names."""
    out = {}
    for p in points:
        top, _, rest = p.part.partition(" · ")
        out.setdefault(top, []).append(type(p)(**{**p.__dict__, "part": rest}))
    return out


def verdict_evidence(
    ledger: pd.DataFrame,
    columns: int = 6,
    *,
    split=(),
    interval: str = "90% interval",
    named: int = _NAMED,
):
    """Small multiples of the evidence of every claim of ``ledger`` that has
    measured points (see module), ``columns`` panels a row; a Figure (``None`` if
    no claim has points). A claim whose id is in ``split`` gets one panel per
    top-level part (parts on different scales), the part named under it;
    ``interval`` names the intervals drawn on the y-axis label; past ``named``
    settings without a budget a panel numbers them instead of naming them."""
    if columns < 1:
        raise ValueError(f"columns must be at least 1, got {columns}")
    if named < 0:
        raise ValueError(f"named must be at least 0, got {named}")
    if "evidence" not in ledger.columns:
        raise ValueError("ledger must come from claims.judge (an evidence column)")
    unknown = set(split) - set(ledger["id"])
    if unknown:
        raise ValueError(f"split must name claims of the ledger, got {sorted(unknown)}")
    panels = []
    for r in ledger.itertuples():
        if not len(r.evidence):
            continue
        if r.id in split:
            for part, mine in _split(r.evidence).items():
                panels.append((r.id, r.verdict, mine, part))
        else:
            panels.append((r.id, r.verdict, list(r.evidence), ""))
    if not panels:
        return None
    columns = min(columns, len(panels))
    lines = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(
        lines, columns, figsize=(2.2 * columns, 1.9 * lines), squeeze=False
    )
    fig.set_layout_engine("constrained")
    named_axes = {}
    for ax, panel in zip(axes.flat, panels):
        names = _panel(ax, *panel, named=named)
        if names:
            named_axes[ax] = names
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_axis_off()
    fig.supxlabel("measured budget or setting of each point", fontsize=9)
    fig.supylabel(f"estimate, {interval}", fontsize=9)
    _narrower_where_crowded(fig, named_axes)
    return fig


def _narrower_where_crowded(fig, named_axes) -> None:
    """Named tick labels wrapped narrower where, at the book's text size
    (:func:`companion.plots.style.legible`), neighbours would overlap: at 7
    characters, then at hyphens too, then turned by 30 degrees."""
    if not named_axes:
        return
    from .style import legible

    legible(fig)
    for width, hyphens in ((7, False), (7, True), (None, True)):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        crowded = {
            ax: names
            for ax, names in named_axes.items()
            if _overlap([t.get_window_extent(renderer) for t in ax.get_xticklabels()])
        }
        for ax, names in crowded.items():
            size = ax.get_xticklabels()[0].get_fontsize()
            if width is None:
                ax.tick_params(axis="x", labelrotation=30)
                continue
            labels = [_short(q, width, hyphens) for q in names]
            ax.set_xticks(range(len(names)), labels, fontsize=size)
        named_axes = crowded


def _overlap(boxes) -> bool:
    """Whether any two neighbouring tick labels' boxes overlap."""
    return any(a.x1 > b.x0 for a, b in zip(boxes, boxes[1:]))
