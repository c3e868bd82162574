"""Print a run's verdict counts per source:
``.venv/bin/python -m companion.claims figures figures/thesis`` (one table per folder of
ledger CSVs), and with ``--changed`` the claims whose verdict differs between the first
two folders."""

from __future__ import annotations

import argparse

import pandas as pd

from .ledger import changed, counts, gather


def main(argv: list[str] | None = None) -> int:
    """Print the counts per source of each folder; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.claims", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "folders",
        nargs="+",
        help="folders holding ledger_*.csv (figures, figures/thesis)",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="list the claims whose verdict differs between the first two folders",
    )
    args = parser.parse_args(argv)
    for folder in args.folders:
        print(f"verdicts per source in {folder}:")
        print(counts(folder).to_string(), end="\n\n")
    if args.changed:
        if len(args.folders) < 2:
            parser.error("--changed needs two folders")
        moved = changed(gather(args.folders[0]), gather(args.folders[1]))
        print(
            f"{len(moved)} verdicts differ between {args.folders[0]} and "
            f"{args.folders[1]}:"
        )
        with pd.option_context("display.max_colwidth", 120, "display.width", 200):
            print(moved.to_string(index=False) if len(moved) else "(none)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
