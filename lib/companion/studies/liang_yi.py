"""The experiments of Liang and Yi (§5, Figs. 2-5): identity, k-NN and hull errors.

Each experiment runs one case per (setting, trajectory) from its own seed over
``n_jobs`` processes (:func:`companion.cached_loops.run_cases`, cached), so its table
does not
depend on ``n_jobs``. These drivers sit above the algorithms: nothing in the package
imports them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import accounting
from dpnn._validation import finite_array, generator, positive_int, probability_open
from dpnn.cgp import basic, hull, svt, taxi_walks
from dpnn.cgp.hull import convex_hull, polygon_jaccard

__all__ = [
    "identity_experiment",
    "knn_experiment",
    "hull_experiment",
    "median_interval",
]


def _gp_epsilon(rho, delta, epsilon_distance):
    return accounting.gp_epsilon_for_cgp(rho, delta, epsilon_distance)


def _case_root(rng) -> int:
    """One draw of ``rng``: the root of the seeds of an experiment's cases (see
    :func:`identity_experiment`)."""
    return int(generator(rng).integers(2**63))


def _run(case, cases, n_jobs, cache_dir, desc):
    from companion.cached_loops import run_cases

    return pd.DataFrame(
        [
            row
            for rows in run_cases(
                case, cases, n_jobs=n_jobs, cache_dir=cache_dir, desc=desc
            )
            for row in rows
        ]
    )


def _identity_case(path, rho, n, epsilon, t, repetitions, seed):
    """The rows of one (setting, trajectory) of :func:`identity_experiment`, drawn from
    ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repetitions):
        x = taxi_walks.sample_tuple(path, n, rng)
        for method, released in (
            ("GP Basic", basic.gp_basic(x, epsilon, rng)),
            ("CGP Basic", basic.cgp_basic(x, rho, rng)),
        ):
            worst, l2 = basic.identity_errors(x, released)
            rows.append(
                {
                    "rho": rho,
                    "n": n,
                    "n_actual": len(x),
                    "epsilon": epsilon,
                    "trajectory": t,
                    "repetition": r,
                    "method": method,
                    "max error": worst,
                    "l2 error": l2,
                }
            )
    return rows


def identity_experiment(
    trajectories,
    settings,
    repetitions,
    rng,
    *,
    delta=1e-10,
    epsilon_distance=10.0,
    n_jobs=1,
    cache_dir=None,
):
    """Fig. 2: max and l2 error of GP Basic and CGP Basic for each (rho, n) in
    ``settings``.

    GP gets the epsilon of :func:`dpnn.accounting.gp_epsilon_for_cgp`. One row
    per (setting, trajectory, repetition, method). ``n`` is the requested tuple size,
    ``n_actual`` the size of the sampled tuple (smaller when the trajectory is
    shorter than n: :func:`sample_tuple` then takes all of it).

    Seeds: one draw of ``rng`` gives a root; setting i on trajectory t draws from
    ``default_rng([root, i, t])``. The table is therefore the same for any
    ``n_jobs``
    (processes, :func:`companion.cached_loops.run_cases`), and with ``cache_dir`` a
    finished
    (setting, trajectory) is read back when an interrupted run is repeated.
    """
    root = _case_root(rng)
    cases = [
        (
            path,
            rho,
            n,
            _gp_epsilon(rho, delta, epsilon_distance),
            t,
            repetitions,
            [root, i, t],
        )
        for i, (rho, n) in enumerate(settings)
        for t, path in enumerate(trajectories)
    ]
    return _run(_identity_case, cases, n_jobs, cache_dir, "identity (Fig. 2)")


def _knn_case(path, queries, rho, k, n, epsilon, t, seed, gamma0_per_epsilon):
    """The rows of one (setting, trajectory) of :func:`knn_experiment`: one run per
    query point."""
    rng = np.random.default_rng(seed)
    rows = []
    for r, p in enumerate(queries):
        x = taxi_walks.sample_tuple(path, n, rng)
        found = {
            "GP PNN": svt.k_pnn(
                x, p, k, rng, epsilon=epsilon, gamma0_per_epsilon=gamma0_per_epsilon
            ),
            "CGP PNN": svt.k_pnn(
                x, p, k, rng, rho=rho, gamma0_per_epsilon=gamma0_per_epsilon
            ),
            "GP Basic": svt.basic_knn(x, p, k, rng, epsilon=epsilon),
            "CGP Basic": svt.basic_knn(x, p, k, rng, rho=rho),
        }
        distances = svt.query_distances(x, p)
        errors = svt.knn_errors(distances, list(found.values()))  # knn_error of each
        for method, error in zip(found, errors):
            rows.append(
                {
                    "rho": rho,
                    "k": k,
                    "n": n,
                    "n_actual": len(x),
                    "trajectory": t,
                    "repetition": r,
                    "method": method,
                    "error": error,
                }
            )
    return rows


def knn_experiment(
    trajectories,
    settings,
    repetitions,
    rng,
    *,
    delta=1e-10,
    epsilon_distance=10.0,
    gamma0_per_epsilon=0.0,
    n_jobs=1,
    cache_dir=None,
):
    """Fig. 3-4: normalized kNN error of the four methods for each (rho, k, n) in
    ``settings``.

    Each repetition samples n points of a trajectory and one query point
    (:func:`query_points` over all trajectories). One row per run and method; ``n`` is
    the requested tuple size, ``n_actual`` the sampled one (see
    :func:`identity_experiment`). ``gamma0_per_epsilon`` is passed to :func:`k_pnn` (the
    authors' scripts: -6). Seeds, ``n_jobs`` and ``cache_dir`` as in
    :func:`identity_experiment`; the query points of setting i on trajectory t come from
    ``default_rng([root, i, t, 1])``.
    """
    root = _case_root(rng)
    cases = []
    for i, (rho, k, n) in enumerate(settings):
        epsilon = _gp_epsilon(rho, delta, epsilon_distance)
        for t, path in enumerate(trajectories):
            queries = taxi_walks.query_points(
                trajectories, repetitions, np.random.default_rng([root, i, t, 1])
            )
            cases.append(
                (path, queries, rho, k, n, epsilon, t, [root, i, t], gamma0_per_epsilon)
            )
    return _run(_knn_case, cases, n_jobs, cache_dir, "kNN (Figs. 3-4)")


def _hull_case(path, rho, n, epsilon, t, repetitions, seed, beta, k_range, pch_options):
    """The rows of one (setting, trajectory) of :func:`hull_experiment`."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repetitions):
        x = taxi_walks.sample_tuple(path, n, rng)
        gp_hull = hull.pch(
            x, rng, epsilon=epsilon, beta=beta, k_range=k_range, **pch_options
        )
        cgp_hull = hull.pch(x, rng, rho=rho, beta=beta, k_range=k_range, **pch_options)
        released = {
            "GP PCH": gp_hull.released,
            "CGP PCH": cgp_hull.released,
            "GP Basic": basic.gp_basic(x, epsilon, rng),
            "CGP Basic": basic.cgp_basic(x, rho, rng),
        }
        # once per tuple: hull_jaccard(x, points) for each method, the same values
        true_hull = convex_hull(x)
        for method, points in released.items():
            k = {"GP PCH": gp_hull.k, "CGP PCH": cgp_hull.k}.get(method, len(x))
            rows.append(
                {
                    "rho": rho,
                    "n": n,
                    "n_actual": len(x),
                    "trajectory": t,
                    "repetition": r,
                    "method": method,
                    "k": k,
                    "jaccard": polygon_jaccard(true_hull, convex_hull(points)),
                }
            )
    return rows


def hull_experiment(
    trajectories,
    settings,
    repetitions,
    rng,
    *,
    beta=0.1,
    delta=1e-10,
    epsilon_distance=10.0,
    k_range=(16, 128),
    pch_options=None,
    n_jobs=1,
    cache_dir=None,
):
    """Fig. 5: Jaccard index of the private hulls (GP/CGP PCH, GP/CGP Basic) for each
    (rho, n).

    One row per run and method; ``n`` is the requested tuple size, ``n_actual`` the
    sampled one (see :func:`identity_experiment`), ``k`` the number of probes (PCH)
    or of released points (Basic, = n_actual). ``pch_options``: extra keywords of
    :func:`pch` (``split``, ``centre_share``, ``remove_anchors``, ``radius_floor``).
    Seeds, ``n_jobs`` and ``cache_dir`` as in :func:`identity_experiment`.
    """
    pch_options = dict(pch_options or {})
    root = _case_root(rng)
    cases = [
        (
            path,
            rho,
            n,
            _gp_epsilon(rho, delta, epsilon_distance),
            t,
            repetitions,
            [root, i, t],
            beta,
            tuple(k_range),
            pch_options,
        )
        for i, (rho, n) in enumerate(settings)
        for t, path in enumerate(trajectories)
    ]
    return _run(_hull_case, cases, n_jobs, cache_dir, "convex hull (Fig. 5)")


def median_interval(values, rng, *, n_boot=2000, level=0.95):
    """The median of ``values`` and a percentile-bootstrap interval for it: (median,
    low, high).

    For the heavy-tailed normalized errors of §5, where two medians that look equal
    (4.20 vs 4.24) need an uncertainty before they are called a tie. ``rng`` draws the
    resamples.
    """
    values = finite_array(values, "values", ndim=(1,))
    if values.size < 2:
        raise ValueError(f"values must hold at least 2 numbers, got {values.size}")
    n_boot = positive_int(n_boot, "n_boot")
    level = probability_open(level, "level")
    rng = generator(rng)
    medians = np.median(
        values[rng.integers(values.size, size=(n_boot, values.size))], axis=1
    )
    low, high = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return float(np.median(values)), float(low), float(high)
