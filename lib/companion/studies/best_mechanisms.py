"""Against the best location mechanisms (notebook 15): the optimal geo-indistinguishable
mechanism and Bayesian remapping beside GEO, SM, L-SRR and DP-TT.

A *setting* (:func:`setting`) holds the database ``points`` (the server's, for the
nearest-neighbour query), its k-d ``tree``, the ``domain``, the ``grid`` of the
discretised problem (clients sit at its cell centres, drawn from the ``prior``; the
adversary's posterior and the remapping are computed on it, so both are exact for
this problem), the coarser ``lp_grid`` whose cells are the optimal mechanism's
inputs and outputs (a client is in one of them; ``lp_prior`` is the prior summed
over them) and the ``delta`` of DP-TT's accounting.

**Footings.** *Equal accounted privacy*: at a composed budget eps*, every mechanism
makes any two locations of the domain eps*-indistinguishable by its own ledger:
GEO and the optimal mechanism at eps* / D per unit of distance (D the diameter;
for the optimal mechanism between cell centres), SM and L-SRR at eps*-LDP, DP-TT
with the constant schedule whose PLD composition at delta is eps*
(:func:`dpnn.adversary.mechanisms_at`). *Equal actual privacy*: every mechanism's
worst pair of locations in the domain loses exactly eps* at delta
(:func:`dpnn.adversary.actual_mechanisms_at`; DP-TT-DIS by its certified bound, so at
most eps*), and the optimal mechanism's worst pair of cells by the exact epsilon at
delta of its matrix (:func:`optimal_actual`). Remapping is post-processing: the same
eps* on either footing.

Measured per client (``n_queries`` of them, the same truths for every mechanism):
the *quality loss* (distance from the true location to the location the server acts
on: the release, the remapped release, DP-TT's released data point), whether the
nearest neighbour found is the true one (*accuracy*) and the distance from the
point found to the true nearest neighbour; and the optimal adversary's expected
error (:func:`dpnn.adversary.adversary_error`, ``n_releases`` clients). Against a
remapped mechanism the optimal adversary's error equals its error against the
mechanism itself (:mod:`dpnn.remapping`: the remapped release is that adversary's
guess), so it is not simulated again. Distances are in domain diameters.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from dpnn import adversary, remapping
from dpnn.optimal_geo import warm
from dpnn.trees import build_tree

__all__ = [
    "FOOTINGS",
    "setting",
    "optimal_at",
    "worst_pair_epsilon",
    "optimal_actual",
    "mechanisms",
    "measure",
    "compare",
]

#: The two footings of the comparison.
FOOTINGS = ("accounted", "actual")
#: :func:`optimal_actual` starts the simplex method from an earlier solve at a rate
#: within this factor of the new one; farther, the program is solved from scratch.
_WARM = 1.03


def setting(points, domain, cells, lp_cells, prior_kind) -> dict:
    """The setting of a database ``points`` on ``domain``: clients, the adversary and
    remapping on a ``cells`` x ``cells`` grid, the optimal mechanism on a coarser
    ``lp_cells`` x ``lp_cells`` grid (``cells`` a multiple of ``lp_cells``, so its
    cells nest), each with a ``"uniform"`` prior or the ``"empirical"`` prior of the
    points."""
    if cells % lp_cells:
        raise ValueError(
            f"cells must be a multiple of lp_cells, got {cells} and {lp_cells}"
        )

    def on(grid):
        if prior_kind == "uniform":
            return adversary.uniform_prior(grid)
        return adversary.empirical_prior(grid, points)

    grid = adversary.domain_grid(domain, cells)
    lp_grid = adversary.domain_grid(domain, lp_cells)
    return {
        "points": points,
        "domain": np.asarray(domain, dtype=float),
        "tree": build_tree(points),
        "grid": grid,
        "prior": on(grid),
        "lp_grid": lp_grid,
        "lp_prior": on(lp_grid),
        "delta": 1 / len(points),
        "nearest": cKDTree(points),
        "programs": {},  # the optimal mechanism's program per dilation
        "solved": {},  # its solves at eps* / D, shared by both footings
    }


def _program(s, dilation):
    """The setting's linear program with this ``dilation``, built once
    (:class:`dpnn.optimal_geo.warm.OptimalProgram`)."""
    if dilation not in s["programs"]:
        s["programs"][dilation] = warm.OptimalProgram(
            s["lp_grid"].points, s["lp_prior"], dilation=dilation
        )
    return s["programs"][dilation]


def _accounted(s, eps_star, dilation):
    """The solve at eps* / D from scratch (interior point: the matrix of
    :func:`dpnn.optimal_geo.optimal_mechanism`), kept in the setting, so both
    footings share it."""
    key = (float(eps_star), dilation)
    if key not in s["solved"]:
        rate = eps_star / s["lp_grid"].diameter
        s["solved"][key] = _program(s, dilation).solve(rate)
    return s["solved"][key]


def optimal_at(s, eps_star, dilation) -> tuple:
    """The optimal mechanism at eps* / D per unit on the setting's grid and prior, as
    an adversary-interface mechanism, with its solve's wall seconds, its result and
    the number of linear programs solved for it (1)."""
    found = _accounted(s, eps_star, dilation)
    grid = s["lp_grid"]
    mechanism = remapping.GridMechanism(found.mechanism.matrix, grid, name="OPT")
    return mechanism, found.seconds, found.mechanism, 1


def worst_pair_epsilon(matrix, delta) -> float:
    """The largest epsilon at ``delta`` over the pairs of rows of a mechanism matrix:
    the exact privacy of its worst pair of inputs
    (:func:`dpnn.adversary.exact_epsilons` of every pair; infinite if an output one
    input can give is impossible for another)."""
    matrix = np.asarray(matrix, dtype=float)
    used = matrix.max(axis=0) > 0
    rows = matrix[:, used]
    if np.any(rows <= 0):
        return np.inf
    logs = np.log(rows)
    i, j = np.triu_indices(len(logs), 1)
    if not len(i):
        return 0.0
    return float(np.max(adversary.exact_epsilons(logs[i], logs[j], delta)))


def optimal_actual(s, eps_star, dilation, tolerance=5e-3, solves=8) -> tuple:
    """:func:`optimal_at` with a rate whose matrix's worst pair of cells loses at
    most eps* at the setting's delta (:func:`worst_pair_epsilon`) and at least
    ``1 - tolerance`` times eps*, or the closest below eps* of ``solves`` solves:
    from eps* / D (the solve of :func:`optimal_at`; its cells are within D, so it
    loses at most eps*), each next rate the last one times eps* (1 - tolerance / 2)
    / its loss (the loss grows about like the rate), or the geometric middle of the
    bracket when that leaves it. A rate within 3% (``_WARM``) of one already
    solved starts the simplex method from that solve's basis, others are solved
    from scratch (:class:`dpnn.optimal_geo.warm.OptimalProgram`); either way each
    matrix is an optimum of the program at its rate. The worst pair's loss is not
    a continuous function of the rate (the optimum moves from vertex to vertex of
    the program, and where it is not unique the solver's path picks one), so the
    band of ``tolerance`` can fall in a jump: then the closest solve below eps* is
    returned, and its loss is what the solves table states. Returns the
    mechanism, the wall seconds and number of the linear programs solved (the
    first included) and the chosen result.
    """
    grid, program = s["lp_grid"], _program(s, dilation)
    first = _accounted(s, eps_star, dilation)
    target, rate = eps_star * (1 - tolerance / 2), first.mechanism.epsilon
    low, high = (None, -np.inf), np.inf  # (result, loss) below eps*; a rate above
    low_rate, tried = rate, []
    for _ in range(solves):
        if tried:
            near = min(tried, key=lambda t: abs(np.log(t.mechanism.epsilon / rate)))
            nearby = abs(np.log(near.mechanism.epsilon / rate)) <= np.log(_WARM)
            found = program.solve(rate, near if nearby else None)
        else:
            found = first
        tried.append(found)
        loss = worst_pair_epsilon(found.mechanism.matrix, s["delta"])
        if loss <= eps_star:
            if loss > low[1]:
                low, low_rate = (found.mechanism, loss), rate
            if loss >= eps_star * (1 - tolerance):
                break
        else:
            high = min(high, rate)
        guess = rate * target / loss
        middle = float(np.sqrt(low_rate * high)) if np.isfinite(high) else guess
        rate = guess if low_rate < guess < high else middle
    seconds = sum(t.seconds for t in tried)
    mechanism = remapping.GridMechanism(low[0].matrix, grid, name="OPT")
    return mechanism, seconds, low[0], len(tried)


def mechanisms(
    s, eps_star, *, dilation, lsrr_levels, e_splits, footing="accounted"
) -> tuple:
    """``(base, remapped, solve)``: the mechanisms at eps* on the ``footing``
    (:data:`FOOTINGS`; GEO, SM, L-SRR, DP-TT-CMP basic and E, DP-TT-DIS basic, and
    the optimal mechanism OPT), the remapped ones (GEO, SM, L-SRR, OPT, DP-TT-CMP
    basic), and the LP's seconds, result and number of solves."""
    if footing not in FOOTINGS:
        raise ValueError(f"footing must be one of {FOOTINGS}, got {footing!r}")
    at = (
        adversary.mechanisms_at
        if footing == "accounted"
        else (adversary.actual_mechanisms_at)
    )
    base = at(
        eps_star,
        s["tree"],
        s["grid"],
        s["domain"],
        s["delta"],
        lsrr_levels=lsrr_levels,
        e_splits=e_splits,
    )
    find = optimal_at if footing == "accounted" else optimal_actual
    optimal, seconds, result, lp_solves = find(s, eps_star, dilation)
    base.insert(1, optimal)
    wanted = ("GEO", "OPT", "SM", "L-SRR", "DP-TT-CMP basic")
    remapped = [
        remapping.Remapped(m, s["grid"], s["prior"]) for m in base if m.name in wanted
    ]
    return base, remapped, (seconds, result, lp_solves)


def _answers(mechanism, s, truth, rng):
    """What the server acts on and the database index the client ends with."""
    inner = getattr(mechanism, "mechanism", mechanism)
    if isinstance(mechanism, adversary.DPTT):
        tree = mechanism.tree
        ends = mechanism.sample(truth, rng)
        index = np.empty(len(truth), dtype=np.intp)
        for i, end in enumerate(ends):  # the client keeps the nearest point released
            members = tree.order[tree.lo[end] : tree.hi[end]]
            index[i] = members[
                np.argmin(np.linalg.norm(s["points"][members] - truth[i], axis=1))
            ]
        return s["points"][index], index
    if isinstance(mechanism, remapping.Remapped) and isinstance(inner, adversary.DPTT):
        acted = mechanism.remap(inner.sample(truth, rng))
    else:
        acted = mechanism.sample(truth, rng)
    _, index = s["nearest"].query(acted)
    return acted, index


def measure(mechanism, s, truth, rng) -> dict:
    """Per-client quality loss, accuracy and distance to the true nearest neighbour
    (means and standard errors, in diameters)."""
    diameter = s["grid"].diameter
    acted, index = _answers(mechanism, s, truth, rng)
    _, true_index = s["nearest"].query(truth)
    values = {
        "quality_loss": np.linalg.norm(acted - truth, axis=1) / diameter,
        "accuracy": (index == true_index).astype(float),
        "nn_distance": np.linalg.norm(
            s["points"][index] - s["points"][true_index], axis=1
        )
        / diameter,
    }
    out = {}
    for name, v in values.items():
        out[name] = float(v.mean())
        out[f"{name}_se"] = float(v.std(ddof=1) / np.sqrt(len(v)))
    return out


def compare(
    settings: dict,
    eps_stars,
    n_queries,
    n_releases,
    rng,
    *,
    dilation,
    lsrr_levels,
    e_splits,
    footing="accounted",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The comparison table (one row per setting, eps*, mechanism) and the LP table
    (one row per setting and eps*: wall seconds and number of the linear programs
    solved, constraints, loss, actual rate, worst pair's epsilon) on
    the ``footing`` (:data:`FOOTINGS`)."""
    rows, solves = [], []
    for name, s in settings.items():
        grid, diameter = s["grid"], s["grid"].diameter
        for eps_star in eps_stars:
            base, remapped, (seconds, result, lp_solves) = mechanisms(
                s,
                eps_star,
                dilation=dilation,
                lsrr_levels=lsrr_levels,
                e_splits=e_splits,
                footing=footing,
            )
            solves.append(
                {
                    "setting": name,
                    "eps_star": eps_star,
                    "seconds": seconds,
                    "lp_solves": lp_solves,
                    "constraints": result.constraints,
                    "expected_loss": result.loss / diameter,
                    "actual_eps_star": result.actual * diameter,
                    "worst_pair_eps": worst_pair_epsilon(result.matrix, s["delta"]),
                }
            )
            truth = grid.points[rng.choice(grid.size, size=n_queries, p=s["prior"])]
            errors = {}
            for mechanism in base:
                found = adversary.adversary_error(
                    mechanism, grid, s["prior"], n_releases, rng
                )
                errors[mechanism.name] = (
                    found.error / diameter,
                    found.standard_error / diameter,
                    found.prior_only / diameter,
                )
            for mechanism in base + remapped:
                inner = getattr(mechanism, "mechanism", mechanism).name
                error, se, prior_only = errors[inner]
                rows.append(
                    {
                        "setting": name,
                        "eps_star": eps_star,
                        "mechanism": mechanism.name,
                        "remapped": mechanism
                        is not getattr(mechanism, "mechanism", mechanism),
                        **measure(mechanism, s, truth, rng),
                        "adversary_error": error,
                        "adversary_error_se": se,
                        "prior_only": prior_only,
                        "grid_error": grid.error / diameter,
                    }
                )
    return pd.DataFrame(rows), pd.DataFrame(solves)
