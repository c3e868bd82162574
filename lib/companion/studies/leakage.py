"""What the server learns (notebook 14): the optimal adversary's error and how far
each mechanism's release lies from the query, on two footings, and the exact privacy
of DP-TT transcripts for pairs of queries a given distance apart, beside what the
ledgers charge and the certified bound.

A *setting* is a dict with the ``tree`` of the database, its ``domain`` (a
``(d, 2)`` box), the adversary's ``grid`` and the ``delta`` of the accounting.

**Footings.** ``"accounted"``: every mechanism at the composed budget its ledger
charges (:func:`dpnn.adversary.mechanisms_at`: DP-TT's PLD composition at ``delta``,
GEO, SM and L-SRR at pure eps*), the thesis's footing. ``"actual"``: every
mechanism calibrated so that its worst pair of inputs in the domain loses exactly
eps* at ``delta`` (:func:`dpnn.adversary.actual_mechanisms_at`; DP-TT-DIS by its
certified bound, so its worst pair loses at most eps*).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import adversary
from dpnn.traversal import epsilon_schedule

__all__ = [
    "FOOTINGS",
    "FOOTING_LABELS",
    "adversary_table",
    "mechanisms_on",
    "pair_epsilons",
    "perturbation_rmse",
    "random_pair_at_distance",
    "released_locations",
    "worst_pairs",
]

#: The two footings of a comparison (module docstring).
FOOTINGS = ("accounted", "actual")
#: How an axis or a claim names each footing's privacy.
FOOTING_LABELS = {
    "accounted": "accounted ε* (ledger)",
    "actual": "actual worst-case ε (δ = 1/N)",
}


def mechanisms_on(footing, eps_star, setting, *, lsrr_levels, e_splits) -> list:
    """The location mechanisms at ``eps_star`` on ``footing`` (module docstring)."""
    if footing not in FOOTINGS:
        raise ValueError(f"footing must be one of {FOOTINGS}, got {footing!r}")
    build = (
        adversary.mechanisms_at
        if footing == "accounted"
        else adversary.actual_mechanisms_at
    )
    return build(
        eps_star,
        setting["tree"],
        setting["grid"],
        setting["domain"],
        setting["delta"],
        lsrr_levels=lsrr_levels,
        e_splits=e_splits,
    )


def adversary_table(
    setups, eps_stars, n_releases, rng, *, lsrr_levels, e_splits, footings=FOOTINGS
) -> pd.DataFrame:
    """The Bayes-optimal adversary's expected error for every setting, footing,
    budget and mechanism, in domain diameters D: one row each with its standard
    error ``se``, the naive guess's error, whether the optimal guess beat the naive
    one on every release, the prior-only and the grid error. A setting of
    ``setups`` also holds its ``prior``."""
    rows = []
    for name, s in setups.items():
        diameter = s["grid"].diameter
        for footing in footings:
            for eps_star in eps_stars:
                for mechanism in mechanisms_on(
                    footing, eps_star, s, lsrr_levels=lsrr_levels, e_splits=e_splits
                ):
                    result = adversary.adversary_error(
                        mechanism, s["grid"], s["prior"], n_releases, rng
                    )
                    naive = result.naive
                    rows.append(
                        {
                            "setting": name,
                            "footing": footing,
                            "eps_star": eps_star,
                            "mechanism": mechanism.name,
                            "error": result.error / diameter,
                            "se": result.standard_error / diameter,
                            "naive": naive.mean() / diameter,
                            "naive_se": naive.std(ddof=1)
                            / np.sqrt(n_releases)
                            / diameter,
                            "optimal_beats_naive": bool(
                                np.all(
                                    result.per_release
                                    <= result.naive_per_release + 1e-9 * diameter
                                )
                            ),
                            "prior_only": result.prior_only / diameter,
                            "grid_error": result.grid_error / diameter,
                        }
                    )
    return pd.DataFrame(rows)


def released_locations(mechanism, queries, rng) -> np.ndarray:
    """Where each query's release lies: the mechanism's sample, and for DP-TT the
    centroid of the data points it releases (those under the transcript's end node,
    summed in index order, the order :func:`dpnn.traversal.dptt` releases them)."""
    released = mechanism.sample(queries, rng)
    if not isinstance(mechanism, adversary.DPTT):
        return released
    tree = mechanism.tree
    members = [np.sort(tree.order[tree.lo[end] : tree.hi[end]]) for end in released]
    counts = np.array([len(m) for m in members])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sums = np.add.reduceat(tree.points[np.concatenate(members)], starts, axis=0)
    return sums / counts[:, None]


def perturbation_rmse(
    setting, eps_stars, n_releases, rng, *, lsrr_levels, e_splits, footings=FOOTINGS
) -> pd.DataFrame:
    """Root-mean-square distance, in units of the grid's diameter, between
    ``n_releases`` uniform queries and what each mechanism releases, at each budget
    on each footing. Every release is post-processed into the domain (GEO's point
    clipped to the box, free post-processing; the others release inside it), so
    the utilities stand on one footing."""
    domain, diameter = setting["domain"], setting["grid"].diameter
    rows = []
    for footing in footings:
        for eps_star in eps_stars:
            queries = rng.uniform(domain[:, 0], domain[:, 1], size=(n_releases, 2))
            for mechanism in mechanisms_on(
                footing, eps_star, setting, lsrr_levels=lsrr_levels, e_splits=e_splits
            ):
                released = np.clip(
                    released_locations(mechanism, queries, rng),
                    domain[:, 0],
                    domain[:, 1],
                )
                squared = np.sum((released - queries) ** 2, 1)
                rows.append(
                    {
                        "footing": footing,
                        "eps_star": eps_star,
                        "mechanism": mechanism.name,
                        "rmse": np.sqrt(np.mean(squared)) / diameter,
                    }
                )
    return pd.DataFrame(rows)


def random_pair_at_distance(
    domain, distance, rng, unit=1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Two points ``distance`` apart (in units of ``unit``) inside ``domain``: a
    uniform direction among those whose step fits in the box, then a uniform start
    among those that keep both points inside."""
    widths = domain[:, 1] - domain[:, 0]
    step = np.full(domain.shape[0], np.inf)
    while np.any(np.abs(step) > widths):
        direction = rng.standard_normal(domain.shape[0])
        step = direction / np.linalg.norm(direction) * distance * unit
    start = rng.uniform(
        domain[:, 0] + np.maximum(-step, 0), domain[:, 1] - np.maximum(step, 0)
    )
    return start, start + step


def _schedule(setting, eps_star, utility):
    return epsilon_schedule(
        "constant",
        setting["tree"].tree_height,
        eps_star,
        utility=utility,
        method="pld",
        delta=setting["delta"],
    )


def pair_epsilons(setting, eps_star, distances, n_pairs, rng):
    """The actual ε at ``delta`` of basic DP-TT-CMP and DP-TT-DIS (sensitivity: the
    grid's diameter) at composed budget ``eps_star``, for random pairs of queries.

    Returns ``(pairs, accounted, corners)``: one row per random pair (``n_pairs`` at
    each distance, in units of the diameter); per utility, what each ledger of
    :func:`dpnn.adversary.accounted_epsilon` charges; and the actual ε of the
    domain's opposite corners.
    """
    tree, domain, delta = setting["tree"], setting["domain"], setting["delta"]
    diameter = setting["grid"].diameter
    rows, accounted, corners = [], {}, {}
    for utility in ("cmp", "dis"):
        sensitivity = diameter if utility == "dis" else None
        schedule = _schedule(setting, eps_star, utility)
        accounted[utility] = adversary.accounted_epsilon(tree, schedule, utility, delta)
        for r in distances:
            for _ in range(n_pairs):
                start, end = random_pair_at_distance(domain, r, rng, diameter)
                rows.append(
                    {
                        "utility": utility,
                        "distance": r,
                        "epsilon": adversary.pair_epsilon(
                            tree, start, end, schedule, utility, delta, sensitivity
                        ),
                    }
                )
        corners[utility] = adversary.pair_epsilon(
            tree, *adversary.corner_pair(domain), schedule, utility, delta, sensitivity
        )
    return pd.DataFrame(rows), accounted, corners


def worst_pairs(setting, eps_star, distances, rng, candidates=8) -> pd.DataFrame:
    """The worst pair the search finds at each of ``distances`` (domain diameters) for
    basic DP-TT-CMP and DP-TT-DIS at composed budget ``eps_star``, beside the
    certified bound that no pair exceeds: one row per utility and distance with the
    pair's actual ε at ``delta`` (``search``), the ``certified`` bound, their
    ``gap`` (certified − search) and the search's wall time in seconds."""
    import time

    tree, domain, delta = setting["tree"], setting["domain"], setting["delta"]
    diameter = setting["grid"].diameter
    rows = []
    for utility in ("cmp", "dis"):
        sensitivity = diameter if utility == "dis" else None
        schedule = _schedule(setting, eps_star, utility)
        bound = adversary.certified_epsilon(tree, schedule, utility, delta, sensitivity)
        for r in distances:
            start = time.perf_counter()
            *_, found = adversary.worst_pair_at_distance(
                tree,
                domain,
                r * diameter,
                schedule,
                utility,
                delta,
                rng,
                sensitivity,
                candidates=candidates,
            )
            rows.append(
                {
                    "utility": utility,
                    "distance": r,
                    "search": found,
                    "certified": bound,
                    "gap": bound - found,
                    "seconds": time.perf_counter() - start,
                }
            )
    return pd.DataFrame(rows)
