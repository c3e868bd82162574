"""The numbers notebook 14's summary quotes, read from its tables (nothing is
recomputed); errors and RMSE in domain diameters D."""

from __future__ import annotations

__all__ = ["quoted_numbers"]


def _errors(inference) -> list[str]:
    lines = []
    for (name, footing), part in inference.groupby(["setting", "footing"], sort=False):
        lines += [
            f"{name}, equal {footing} eps: optimal error ± 1 SE",
            f"  prior only {part.prior_only.iloc[0]:.3f}",
        ]
        for eps_star, row in part.groupby("eps_star", sort=False):
            lines.append(
                f"  eps {eps_star:g}: "
                + ", ".join(
                    f"{m} {e:.3f}±{se:.3f}"
                    for m, e, se in zip(row.mechanism, row.error, row.se)
                )
            )
    return lines


def _transcripts(pairs, worst, corners, accounted) -> list[str]:
    lines = []
    for utility in ("cmp", "dis"):
        median = pairs[pairs.utility == utility].groupby("distance").epsilon.median()
        found = worst[worst.utility == utility]
        lines += [
            f"  {utility.upper()} median over random pairs, by distance (D): "
            + ", ".join(f"{r:g}: {v:.3f}" for r, v in median.items()),
            "    worst found: "
            + ", ".join(f"{r:g}: {v:.4f}" for r, v in zip(found.distance, found.search))
            + f"; corners {corners[utility]:.4f}",
            f"    certified bound {found.certified.iloc[0]:.4f}, above the worst found "
            "by " + ", ".join(f"{v:.3f}" for v in found.gap),
            "    ledger "
            + ", ".join(f"{m} {v:.3f}" for m, v in accounted[utility].items()),
        ]
    return lines


def quoted_numbers(
    inference, rmse, pairs, worst, corners, accounted, ledger, *, setting,
    grid_error, smallest, eps_pairs,
) -> str:  # fmt: skip
    """Lines of text: the grid error, the optimal error by setting, footing and
    budget, the naive guesses and perturbation RMSE of ``setting`` at the
    ``smallest`` accounted budget, the transcripts' actual ε by distance (random
    pairs, worst found, corners, certified bound, ledger), and the ledger's numbers
    of claims 14 §2a and §2j."""
    first = inference[
        (inference.setting == setting)
        & (inference.footing == "accounted")
        & (inference.eps_star == smallest)
    ]
    first_rmse = rmse[(rmse.footing == "accounted") & (rmse.eps_star == smallest)]
    lines = [f"grid error {grid_error:.4f} D", *_errors(inference)]
    lines += [
        f"{setting}, accounted eps {smallest:g}: naive guess "
        + ", ".join(f"{m} {v:.3f}" for m, v in zip(first.mechanism, first.naive)),
        "  perturbation RMSE "
        + ", ".join(
            f"{m} {v:.3f}" for m, v in zip(first_rmse.mechanism, first_rmse.rmse)
        ),
        f"DP-TT transcripts at eps* {eps_pairs:g} on the uniform tree, actual eps at "
        "1/N",
        *_transcripts(pairs, worst, corners, accounted),
    ]
    lines += [
        f"{row.id}, its numbers: {row.numbers}"
        for row in ledger[ledger.id.isin(["14 §2a", "14 §2j"])].itertuples()
    ]
    return "\n".join(lines)
