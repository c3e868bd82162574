"""Time the Bayes-optimal adversary and the exact transcript privacy at the thesis's
sizes.

Writes benchmarks/results/adversary.json: the wall time of the grid posterior
(likelihoods, normalisation) for 1e4 GEO and DP-TT-CMP releases on a 256 x 256
grid, of the whole optimal adversary (sampling, posterior, geometric median) for
1e3 releases, and of the
exact privacy curve of one pair of queries for basic DP-TT (CMP and DIS) on a
tree of N = 1e5 points (2^17 leaves), with the answers beside them; the certified
bound on DP-TT-DIS's loss for every pair and its calibration, the worst-pair search
at each distance of notebook 14 (0.01, 0.05, 0.2 and 0.6 D) for CMP and DIS, and
the calibration of every mechanism to an actual eps* (notebook 14's actual footing).
"""

from __future__ import annotations

import platform
import time

import numpy as np
from _results import report

from dpnn import adversary, traversal, trees


def timed(call):
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


def timed_cpu(call):
    """``(value, wall seconds, CPU seconds of this process)``: on a shared machine the
    CPU time is what the call costs, the wall time what it took."""
    start, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, time.perf_counter() - start, time.process_time() - cpu


def posterior_blocks(mechanism, releases, grid, prior, block=32):
    """The posterior of every release, block by block (only the last block is kept).

    Blocks of 32 releases keep each array below 32 MB at 256 x 256 cells, where
    the allocator reuses memory instead of mapping fresh pages for every block.
    """
    for start in range(0, len(releases), block):
        weights = adversary.posterior(
            mechanism.log_likelihood(releases[start : start + block], grid), prior
        )
    return weights


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    rng = np.random.default_rng(0)
    domain = np.array([[0.0, 1e9], [0.0, 1e9]])
    points = rng.uniform(0, 1e9, (100_000, 2))
    tree = trees.build_tree(points)
    grid = adversary.domain_grid(domain, 256)
    prior = adversary.uniform_prior(grid)
    truth = grid.points[rng.choice(grid.size, 10_000)]
    for name, mechanism in {
        "GEO": adversary.Geo(4.0 / grid.diameter, domain),
        "DP-TT-CMP": adversary.DPTT(tree, 0.5, "cmp", domain),
    }.items():
        releases = mechanism.sample(truth, rng)
        _, seconds = timed(lambda: posterior_blocks(mechanism, releases, grid, prior))
        results[f"{name}: posterior of 1e4 releases on 256 x 256, seconds"] = seconds
        result, seconds = timed(
            lambda: adversary.adversary_error(mechanism, grid, prior, 1000, rng)
        )
        results |= {
            f"{name}: optimal adversary, 1e3 releases on 256 x 256, seconds": seconds,
            f"{name}: optimal adversary's error (D)": result.error / grid.diameter,
            f"{name}: prior-only error (D)": result.prior_only / grid.diameter,
        }

    x, x_prime = adversary.corner_pair(domain)
    # DIS with sensitivity the diameter: the ledger then covers the corner pair
    for utility, sensitivity in (("cmp", None), ("dis", grid.diameter)):
        curve, seconds = timed(
            lambda: adversary.pair_laws(tree, x, x_prime, 1.0, utility, sensitivity)
        )
        _, log_p, log_q = curve
        epsilon, solve = timed(lambda: adversary.exact_epsilon(log_p, log_q, 1e-5))
        results |= {
            f"{utility.upper()} N=1e5 corner pair: path laws, seconds": seconds,
            f"{utility.upper()} N=1e5 corner pair: epsilon at 1e-5, seconds": solve,
            f"{utility.upper()} N=1e5 corner pair eps=1: actual eps at 1e-5": epsilon,
        }
        charged = adversary.accounted_epsilon(tree, 1.0, utility, 1e-5)
        for method, value in charged.items():
            results[f"{utility.upper()} N=1e5 eps=1: accounted {method}"] = value
    results |= certified_and_search(tree, domain, grid.diameter)
    return report("adversary", results)


def certified_and_search(tree, domain, diameter) -> dict:
    """The certified DIS bound of the N = 1e5 tree, the per-step budget it calibrates
    to an actual 8, and the worst-pair search at each distance of notebook 14 for
    CMP and DIS (sensitivity the diameter) at eps* = 8."""
    out = {}
    schedules = {
        u: traversal.epsilon_schedule(
            "constant", tree.tree_height, 8.0, utility=u, method="pld", delta=1e-5
        )
        for u in ("cmp", "dis")
    }
    bound, seconds = timed(
        lambda: adversary.certified_epsilon(
            tree, schedules["dis"], "dis", 1e-5, diameter
        )
    )
    corners = adversary.pair_epsilon(
        tree, *adversary.corner_pair(domain), schedules["dis"], "dis", 1e-5, diameter
    )
    per_step, calibrate = timed(
        lambda: adversary.calibrated_epsilon(tree, 8.0, "dis", 1e-5, diameter)
    )
    out |= {
        "DIS N=1e5 eps*=8: certified epsilon at 1e-5": bound,
        "DIS N=1e5 eps*=8: corners' actual epsilon at 1e-5": corners,
        "DIS N=1e5: certified bound, seconds": seconds,
        "DIS N=1e5: per-step eps certified to lose 8 at 1e-5": per_step,
        "DIS N=1e5: calibration to an actual 8, seconds": calibrate,
    }
    for utility, sensitivity in (("cmp", None), ("dis", diameter)):
        for r in (0.01, 0.05, 0.2, 0.6):
            found, search, cpu = timed_cpu(
                lambda: adversary.worst_pair_at_distance(
                    tree,
                    domain,
                    r * diameter,
                    schedules[utility],
                    utility,
                    1e-5,
                    np.random.default_rng(0),
                    sensitivity,
                    candidates=8,
                )
            )
            key = f"{utility.upper()} N=1e5 eps*=8: worst pair at {r} D"
            out[f"{key}, actual eps at 1e-5"] = found[2]
            out[f"{key}, search seconds"] = search
            out[f"{key}, search CPU seconds"] = cpu
    grid = adversary.domain_grid(domain, 96)
    _, seconds, cpu = timed_cpu(
        lambda: adversary.actual_mechanisms_at(
            8.0, tree, grid, domain, 1e-5, lsrr_levels=6, e_splits=3
        )
    )
    out["actual_mechanisms_at eps*=8 (six calibrations), seconds"] = seconds
    out["actual_mechanisms_at eps*=8 (six calibrations), CPU seconds"] = cpu
    return out


if __name__ == "__main__":
    main()
