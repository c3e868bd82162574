"""What the server learns (notebook 14): how far each mechanism's release lies from
the query, and the exact privacy of DP-TT transcripts for pairs of queries a given
distance apart, beside what the ledgers charge.

A *setting* is a dict with the ``tree`` of the database, its ``domain`` (a
``(d, 2)`` box), the adversary's ``grid`` and the ``delta`` of the accounting.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import adversary
from dpnn.traversal import epsilon_schedule

__all__ = [
    "released_locations",
    "perturbation_rmse",
    "random_pair_at_distance",
    "pair_epsilons",
]


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
    setting, eps_stars, n_releases, rng, *, lsrr_levels, e_splits
) -> pd.DataFrame:
    """Root-mean-square distance, in units of the grid's diameter, between
    ``n_releases`` uniform queries and what each mechanism of
    :func:`dpnn.adversary.mechanisms_at` releases, at each composed budget."""
    domain, diameter = setting["domain"], setting["grid"].diameter
    rows = []
    for eps_star in eps_stars:
        queries = rng.uniform(domain[:, 0], domain[:, 1], size=(n_releases, 2))
        for mechanism in adversary.mechanisms_at(
            eps_star,
            setting["tree"],
            setting["grid"],
            domain,
            setting["delta"],
            lsrr_levels=lsrr_levels,
            e_splits=e_splits,
        ):
            released = released_locations(mechanism, queries, rng)
            squared = np.sum((released - queries) ** 2, 1)
            rows.append(
                {
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


def pair_epsilons(setting, eps_star, distances, n_pairs, rng):
    """The actual ε at ``delta`` of basic DP-TT-CMP and DP-TT-DIS (sensitivity: the
    grid's diameter) at composed budget ``eps_star``, for pairs of queries.

    Returns ``(pairs, accounted, worst)``: one row per random pair (``n_pairs`` at
    each distance, in units of the diameter); per utility, what each ledger of
    :func:`dpnn.adversary.accounted_epsilon` charges; and the actual ε of the
    domain's opposite corners and of the worst pair a search finds at the largest
    distance.
    """
    tree, domain, delta = setting["tree"], setting["domain"], setting["delta"]
    diameter = setting["grid"].diameter
    rows, accounted, worst = [], {}, {}
    for utility in ("cmp", "dis"):
        sensitivity = diameter if utility == "dis" else None
        schedule = epsilon_schedule(
            "constant",
            tree.tree_height,
            eps_star,
            utility=utility,
            method="pld",
            delta=delta,
        )
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
        corner = adversary.corner_pair(domain)
        found = adversary.worst_pair_at_distance(
            tree,
            domain,
            max(distances) * diameter,
            schedule,
            utility,
            delta,
            rng,
            sensitivity,
            candidates=8,
        )
        worst[utility] = {
            "corners": adversary.pair_epsilon(
                tree, *corner, schedule, utility, delta, sensitivity
            ),
            "search": found[2],
        }
    return pd.DataFrame(rows), accounted, worst
