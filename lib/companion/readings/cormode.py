"""Notebook 10's findings 2-3 and 7-8 (Cormode et al.), written from its tables."""

from __future__ import annotations

__all__ = ["medians_findings", "trees_findings"]


def _em_beaten(ranks):
    """Where a method beats EM above the first depth at which the cell median does,
    and the cell median's depths below EM."""
    deepest = int(ranks.index[-1])
    rivals = [m for m in ranks.columns if m != "EM"]
    cell_below = [
        int(d) for d in ranks.index if ranks.loc[d, "cell"] < ranks.loc[d, "EM"]
    ]
    early = ranks.loc[: min(cell_below, default=deepest + 1) - 1]
    beaten = ", ".join(
        f"{m} at depth {d}: {early.loc[d, m]:.3f} vs {early.loc[d, 'EM']:.3f}"
        for d in early.index
        for m in rivals
        if early.loc[d, m] < early.loc[d, "EM"]
    )
    above_cell = "" if early.empty else f", and down to depth {early.index[-1]} "
    if above_cell:
        gap = (early["EM"] - early[rivals].min(axis=1)).max()
        above_cell += (
            f"no method beats it by more than {gap:.3f} ({beaten})"
            if beaten
            else "no method beats it"
        )
    pairs = ", ".join(
        f"{ranks.loc[d, 'cell']:.3f} vs {ranks.loc[d, 'EM']:.3f}" for d in cell_below
    )
    cell_text = (
        f"At depths {' and '.join(map(str, cell_below))}, however, the cell-based "
        f"median has the lower error ({pairs})"
        if cell_below
        else "The cell-based median is at no depth below EM"
    )
    return above_cell, cell_text


def medians_findings(
    rank_errors, skewed_errors, *, closed_gap, budget_ratio, quad_height, epsilon,
    points_per_cell,
) -> str:  # fmt: skip
    """Findings 2 (Fig. 2, the budgets' worst-case errors) and 3 (Fig. 4, the
    private medians), as Markdown: ``rank_errors`` by depth and method (rounded to
    3 decimals as §6 prints them), ``skewed_errors`` on the places' halves."""
    ranks = rank_errors.round(3)
    mean = rank_errors.mean()
    deepest = int(ranks.index[-1])
    above_cell, cell_text = _em_beaten(ranks)
    upper, lower = skewed_errors["upper"], skewed_errors["lower"]
    return (
        '2. **"worst case error for a uniform budget … grows much faster than the '
        'geometric budget error" (Fig. 2).** Eq. (1) matches both closed forms to a '
        f"relative {closed_gap:.0e}, and the ratio of the uniform to the geometric "
        f"error is {budget_ratio:.1f} at h = {quad_height}.\n"
        '3. **"The exponential mechanism (EM) is always the most accurate … almost '
        "true medians for large data sizes (2²⁰ points at depth 0) and medians with "
        'moderate error for smaller data sizes (around 2¹¹ points at depth 9)" '
        f"(Fig. 4).** EM's rank error is {ranks.loc[0, 'EM']:.3f} at depth 0 and "
        f"{ranks.loc[deepest, 'EM']:.3f} at depth {deepest}, against "
        f"{ranks.loc[deepest, 'SS']:.3f} for SS and "
        f"{ranks.loc[deepest, 'NM']:.3f} for NM at depth {deepest} (means over "
        f"depths: EM {mean['EM']:.2f}, NM {mean['NM']:.2f}, SS "
        f"{mean['SS']:.2f}){above_cell}. {cell_text}, and a mean over depths of "
        f"{mean['cell']:.2f} (EM {mean['EM']:.2f}), an artefact of "
        f"uniform data: at ε = {epsilon:g} the grid noise, "
        f"Lap({1 / epsilon:g}) per cell, swamps the ~{points_per_cell:.0f} points "
        "per cell, the zeroed noisy grid is nearly flat, and the median of a flat "
        "grid is the middle of the range, which for uniform data *is* the median. "
        "On the skewed x-coordinates of the GeoNames places the picture changes: in "
        f"the upper half of the tree EM {upper['EM']:.3f}, NM {upper['NM']:.3f}, "
        f"cell {upper['cell']:.3f}; in the lower half the cell method "
        f"({lower['cell']:.3f}) is below EM ({lower['EM']:.3f}), because its grid is "
        f"paid for once while EM spends {epsilon:g} per level on ever fewer points."
    )


def _listed(values) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def _not_every_shape(at_low_h, low_h) -> str:
    """The shapes on which quad-opt is not ahead at the lowest height, if run."""
    if not {"(15,0.2)", "(10,10)"} <= set(at_low_h.index):
        return ""
    return (
        f"Not for every shape: at height {low_h} on the skinny (15, 0.2) queries "
        f"kd-cell ({at_low_h.loc['(15,0.2)', 'kd-cell']:.3f}) beats quad-opt "
        f"({at_low_h.loc['(15,0.2)', 'quad-opt']:.3f}), and on (10,10) the three "
        f"are level ({at_low_h.loc['(10,10)', 'quad-opt']:.3f}). "
    )


def trees_findings(
    switch_errors, switch_mean, best_switch, compare_errors, kd_errors, *,
    kd_trees, quad_height, kd_height, epsilon,
) -> str:  # fmt: skip
    """Findings 7 (hybrid trees' switch level) and 8 (Fig. 6, heights), as
    Markdown, from §7's tables: means over query shapes per switch level and tree,
    per height, and Fig. 5's kd-trees at the smallest ``epsilon``."""
    by_level = switch_errors.mean(axis=1)
    rest, rest_trees = by_level.drop(best_switch), switch_mean.drop(best_switch)
    quadtree = (
        " (a pruned quadtree that spends the whole budget on counts)"
        if best_switch == 0
        else ""
    )
    by_height = compare_errors.groupby(level="height").mean()
    low_h = int(by_height.index.min())
    kd_private = ["kd-standard", "kd-hybrid", "kd-cell", "kd-noisymean"]
    low = kd_errors.loc[epsilon].mean()
    return (
        '7. **"Switching about half-way down the tree (height 3 or 4) gives the best '
        'result" (hybrid trees).** Judged in the table below. On our data, switch '
        f"level {best_switch}{quadtree} is best (mean over shapes "
        f"{by_level[best_switch]:.3f}; its "
        f"{kd_trees} trees range over {switch_mean.loc[best_switch].min():.3f}–"
        f"{switch_mean.loc[best_switch].max():.3f}), below every tree of every other "
        f"level; levels {rest.index.min()}–{rest.index.max()} differ little (means "
        f"{rest.min():.3f}–{rest.max():.3f}, with tree ranges that overlap, "
        f"{rest_trees.min().min():.3f}–{rest_trees.max().max():.3f}), so no level "
        f"between {rest.index.min()} and {rest.index.max()} is better than another.\n"
        '8. **"At depth 10 the optimized quadtree is able to provide the best '
        'accuracy of all" (Fig. 6, ε = 0.5).** Judged in the table below at the '
        "largest height. Means over the query shapes at every height we tried: "
        f"quad-opt {_listed(by_height['quad-opt'])} at heights "
        f"{', '.join(map(str, by_height.index))} against "
        f"{_listed(by_height['kd-hybrid'])} for kd-hybrid ({kd_trees} trees each). "
        f"{_not_every_shape(compare_errors.loc[low_h], low_h)}Error grows with "
        "height here: with 18 times fewer points the noise of the extra levels "
        "outweighs the finer leaves, which is also why the "
        f"height-{quad_height} quad-opt of Fig. 5 loses to the height-{kd_height} "
        f"kd-trees at ε = {epsilon:g} "
        f"({low['quad-opt']:.3f} against {low[kd_private].min():.3f}–"
        f"{low[kd_private].max():.3f})."
    )
