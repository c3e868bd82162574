"""Time the PLD accountant on the two cases that exhausted memory before its grid was
bounded.

Writes benchmarks/results/accounting.json: the answer, its stated grid error and the
wall time of ``pld_epsilon([("laplace", 0.01), ("gaussian", 1.0)], 1e-6)`` and of the
PLD of a DP-TT-CMP run with the per-level schedule ``np.geomspace(1e-3, 1, 12)``
(the issue's target: under 10 s each), plus every method of a 17-level CMP and DIS
ledger for reference.
"""

from __future__ import annotations

import platform
import time

import numpy as np
from _results import report

from dpnn import accounting, traversal, trees


def timed(call):
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    mixed = [("laplace", 0.01), ("gaussian", 1.0)]
    value, seconds = timed(lambda: accounting.pld_epsilon(mixed, 1e-6))
    results |= {
        "laplace(0.01)+gaussian(1): epsilon at 1e-6": value,
        "laplace(0.01)+gaussian(1): grid error": accounting.pld_discretisation(mixed)[
            1
        ],
        "laplace(0.01)+gaussian(1): seconds": seconds,
    }

    tree = trees.build_tree(
        np.random.default_rng(0).uniform(0, 1e9, 4096), leaf_only=True
    )
    schedule = np.geomspace(1e-3, 1, tree.tree_height)
    ledger = traversal.dptt(
        tree, tree.points[:5], schedule, "cmp", rng=np.random.default_rng(1)
    ).accountant
    value, seconds = timed(lambda: ledger.epsilon(1 / 4096, "pld"))
    results |= {
        "CMP geomspace(1e-3, 1, 12): pld epsilon": value,
        "CMP geomspace(1e-3, 1, 12): seconds": seconds,
    }

    for utility in ("cmp", "dis"):
        tree = trees.build_tree(
            np.random.default_rng(0).uniform(0, 1e9, 2**17), leaf_only=True
        )
        ledger = traversal.dptt(
            tree,
            tree.points[:5],
            1.0,
            utility,
            1e9 if utility == "dis" else None,
            rng=np.random.default_rng(1),
        ).accountant
        for method in accounting.Accountant.METHODS:
            results[f"{utility.upper()} h=17 eps=1 delta=1e-5: {method}"] = (
                ledger.epsilon(1e-5, method)
            )
    return report("accounting", results)


if __name__ == "__main__":
    main()
