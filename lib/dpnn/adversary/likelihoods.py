"""What the server sees, and its likelihood at every cell of a grid, for each location
mechanism.

Each mechanism is an object with

- ``sample(locations, rng)``: the releases of clients at ``locations`` (n, d),
  drawn by the library's own sampler (``dpnn.baselines``,
  ``dpnn.local_mechanisms``, ``dpnn.traversal``);
- ``log_likelihood(releases, grid)``: ``log f(release | x)`` up to a constant
  per release, shape (n releases, grid.size), for x each cell centre;
- ``naive_guess(releases)``: a simple guess of the location read straight off
  the release (the released point clipped to the domain, or the centre of the
  released k-d cell), the rules an optimal adversary must never do worse than.

The laws are those of the samplers: GEO's density ``e^{-eps ||y - x||}``
(planar Laplace, Laplace on the line), the square mechanism's ``p`` on the
square S(x) and ``q`` elsewhere, L-SRR's staircase over groups of cells, and for
DP-TT the product of the turn probabilities along the transcript
(:mod:`dpnn.adversary.turns`). Where the likelihood is a product or a sum of
one function per axis (CMP's turns, the square, L-SRR's groups) it is computed
per axis and combined on the grid, never per cell.

Ideal or sampled law: these are the ideal laws. The square mechanism, L-SRR and
DP-TT's turns sample them to within a factor e^(1e-9) per draw (each draws
exactly where its float law would differ more: ``local_mechanisms.
square_sampled_loss``, ``lsrr.lsrr_sampled_loss``, ``exact_sampling.
turns_beyond_floor``), so a likelihood here is within that factor (e^(h 1e-9)
over h turns) of the sampled one. GEO samples planar Laplace on a lattice of
step lam <= 2^-30 / eps (``mechanisms.planar_laplace``): its probability at a
lattice point is ``e^{-eps ||z - x_lam||}`` times a constant, with x_lam the true
location rounded to the lattice (at most ``lam / sqrt(2)`` from x), so, up to a
constant that cancels in every posterior, the density used here is within a factor
``e^{eps lam / sqrt(2)} <= e^(1e-9)`` of the sampled law's, at every release.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit

from dpnn import baselines, local_mechanisms, lsrr, traversal
from dpnn._validation import finite_array, positive_finite
from dpnn.adversary.grid import Grid
from dpnn.adversary.turns import (
    parents,
    path_nodes,
    schedule_of,
    stop_height_of,
    turn_log_probabilities,
)
from dpnn.trees import KDTree, cell_boxes

__all__ = ["Geo", "SquareMechanism", "LSRR", "DPTT", "mechanisms_at"]


def _outer(per_axis, combine) -> np.ndarray:
    """Combine (n, n_a) arrays, one per axis, into (n, prod n_a) (C order)."""
    out = per_axis[0]
    for nxt in per_axis[1:]:
        out = combine(out[:, :, None], nxt[:, None, :]).reshape(len(out), -1)
    return out


def _check_grid(grid: Grid, dimension: int) -> Grid:
    if not isinstance(grid, Grid) or grid.dimension != dimension:
        raise ValueError(f"grid must be a dpnn.adversary.Grid of dimension {dimension}")
    return grid


class Geo:
    """GEO: the location plus noise of density prop. to ``e^{-epsilon ||z||}`` (epsilon
    per unit).

    ``epsilon``-geo-indistinguishable; on a domain of diameter D, epsilon = eps*/D
    makes any two locations eps*-indistinguishable.
    """

    name = "GEO"

    def __init__(self, epsilon, domain):
        self.epsilon = positive_finite(epsilon, "epsilon")
        self.domain = local_mechanisms.check_domain(domain)

    def sample(self, locations, rng):
        return baselines.perturb_location(locations, self.epsilon, rng)

    def log_likelihood(self, releases, grid: Grid):
        grid = _check_grid(grid, len(self.domain))
        y = finite_array(releases, "releases", ndim=(2,))
        distance = grid.distances(y)
        distance *= -self.epsilon  # in place: the array is block x grid.size floats
        return distance

    def naive_guess(self, releases):
        return np.clip(releases, self.domain[:, 0], self.domain[:, 1])


class SquareMechanism:
    """The square mechanism (``dpnn.local_mechanisms.square_mechanism``): epsilon-LDP
    on the domain."""

    name = "SM"

    def __init__(self, epsilon, domain, side=None):
        self.epsilon = positive_finite(epsilon, "epsilon")
        self.domain = local_mechanisms.check_domain(domain)
        self.side = (
            local_mechanisms.square_side(self.epsilon, self.domain)
            if side is None
            else side
        )

    def sample(self, locations, rng):
        return local_mechanisms.square_mechanism(
            locations, self.epsilon, self.domain, rng, side=self.side
        )

    def log_likelihood(self, releases, grid: Grid):
        """``epsilon`` where the release lies in the square S(x), 0 elsewhere (densities
        p = e^eps q, q)."""
        grid = _check_grid(grid, len(self.domain))
        y = finite_array(releases, "releases", ndim=(2,))
        low, high, half = self.domain[:, 0], self.domain[:, 1], self.side / 2
        inside = [
            np.abs(y[:, [a]] - np.clip(axis, low[a] + half, high[a] - half)[None, :])
            <= half
            for a, axis in enumerate(grid.axes)
        ]
        return self.epsilon * _outer(inside, np.logical_and)

    def naive_guess(self, releases):
        return np.clip(releases, self.domain[:, 0], self.domain[:, 1])


class LSRR:
    """L-SRR (``dpnn.lsrr.lsrr``): staircase randomized response over a
    hierarchy of cells."""

    name = "L-SRR"

    def __init__(self, epsilon, domain, levels=4):
        self.epsilon = positive_finite(epsilon, "epsilon")
        self.domain = local_mechanisms.check_domain(domain)
        self.levels = int(levels)
        # a_g read off the library's exact law: from the corner cell 0, cell 2^(g-1) on
        # axis 0 is in group g
        corner = lsrr.lsrr_probabilities(
            self.domain[:, 0], self.epsilon, self.domain, self.levels
        )
        first_row = corner.reshape(corner.shape[0], -1)[:, 0]
        self.log_a = np.log(
            [first_row[0]] + [first_row[2 ** (g - 1)] for g in range(1, self.levels)]
        )

    def _cells(self, x, a):
        per_side = 2 ** (self.levels - 1)
        low, high = self.domain[a]
        return np.minimum(
            ((x - low) / (high - low) * per_side).astype(np.int64), per_side - 1
        )

    def sample(self, locations, rng):
        return lsrr.lsrr(locations, self.epsilon, self.domain, rng, levels=self.levels)

    def log_likelihood(self, releases, grid: Grid):
        """``log a_g``, g the group of the released cell seen from x: max over axes of
        bit_length(c_x ^ c_y)."""
        grid = _check_grid(grid, len(self.domain))
        y = finite_array(releases, "releases", ndim=(2,))
        group = []
        for a, axis in enumerate(grid.axes):
            differ = self._cells(y[:, [a]], a) ^ self._cells(axis, a)[None, :]
            group.append(
                np.where(
                    differ > 0,
                    np.floor(np.log2(np.maximum(differ, 1))).astype(int) + 1,
                    0,
                )
            )
        return self.log_a[_outer(group, np.maximum)]

    def naive_guess(self, releases):
        return np.clip(releases, self.domain[:, 0], self.domain[:, 1])


class DPTT:
    """DP-TT (basic, E<s> or N<B>) as the server sees it: the transcript of turns on its
    own tree.

    A release is the node the transcript ends at (a leaf, or E's subtree root);
    it determines every turn. ``epsilon`` is the per-step EMQUERY budget (or one
    per level), as for :func:`dpnn.traversal.dptt`.
    """

    def __init__(
        self,
        tree: KDTree,
        epsilon,
        utility: str,
        domain,
        sensitivity=None,
        variant: str = "basic",
    ):
        if not isinstance(tree, KDTree) or not tree.leaf_only:
            raise ValueError("tree must be a leaf-only KDTree (dpnn.trees.build_tree)")
        self.tree, self.utility, self.variant = tree, utility, variant
        self.schedule = schedule_of(tree, epsilon)
        self.sensitivity = sensitivity
        self.stop_height = stop_height_of(variant)
        self.domain = local_mechanisms.check_domain(domain, tree.dimension)
        self.name = f"DP-TT-{utility.upper()} {variant}"
        self._parent = parents(tree)
        self._leaf = tree.leaf_of_point()
        self._cells = None

    def sample(self, locations, rng):
        """The end node of each client's transcript, drawn by
        :func:`dpnn.traversal.dptt`."""
        keywords = traversal.parse_variant(
            "basic" if self.variant.startswith("N") else self.variant
        )
        keywords.pop("neighborhood")
        result = traversal.dptt(
            self.tree,
            locations,
            self.schedule,
            self.utility,
            self.sensitivity,
            rng=rng,
            **keywords,
        )
        end = self._leaf[
            result.indices[result.offsets[:-1]]
        ]  # one released point per query
        while True:  # E: climb to the first node of height <= s on the path
            up = self._parent[end]
            climb = (up >= 0) & (
                self.tree.height[np.maximum(up, 0)] <= self.stop_height
            )
            if not climb.any():
                return end
            end = np.where(climb, up, end)

    def log_likelihood(self, releases, grid: Grid):
        grid = _check_grid(grid, self.tree.dimension)
        nodes, right = path_nodes(
            self.tree, np.asarray(releases, dtype=np.intp), self._parent
        )
        cmp = self.utility == "cmp"
        total = (
            [np.zeros((len(nodes), len(axis))) for axis in grid.axes]
            if cmp
            else np.zeros((len(nodes), grid.size))
        )
        scale = self.schedule / (2 * (self.sensitivity or 1.0))
        for level in range(nodes.shape[1]):
            live = nodes[:, level] >= 0
            unique, where = np.unique(nodes[live, level], return_inverse=True)
            if (
                cmp
            ):  # a CMP turn depends on one coordinate: compute it along that axis only
                for a, axis in enumerate(grid.axes):
                    on_axis = self.tree.axis[unique] == a
                    if not on_axis.any():
                        continue
                    column = np.broadcast_to(
                        axis[:, None], (len(axis), self.tree.dimension)
                    ).copy()
                    left, go_right = turn_log_probabilities(
                        self.tree, unique[on_axis], column, self.schedule[level], "cmp"
                    )
                    pick = np.full(len(unique), -1)
                    pick[on_axis] = np.arange(on_axis.sum())
                    rows = np.flatnonzero(live)
                    mine = pick[where] >= 0
                    turned = right[rows[mine], level]
                    chosen = np.where(
                        turned[:, None],
                        go_right[pick[where][mine]],
                        left[pick[where][mine]],
                    )
                    total[a][rows[mine]] += chosen
            else:
                # Alg. 13: u_R - u_L = distance to the left child's value - distance to
                # the right's
                children = self.tree.points[
                    self.tree.point[
                        np.concatenate(
                            [self.tree.left[unique], self.tree.right[unique]]
                        )
                    ]
                ]
                distance = grid.distances(children)
                z = scale[level] * (distance[: len(unique)] - distance[len(unique) :])
                turned = right[live, level]
                total[live] += log_expit(
                    np.where(turned[:, None], 1.0, -1.0) * z[where]
                )
        return _outer(total, np.add) if cmp else total

    def naive_guess(self, releases):
        """The centre of the released node's k-d cell (``dpnn.trees.cell_boxes`` on the
        domain)."""
        if self._cells is None:
            self._cells = cell_boxes(self.tree, self.domain)
        low, high = self._cells
        node = np.asarray(releases, dtype=np.intp)
        return (low[node] + high[node]) / 2


def mechanisms_at(
    eps_star,
    tree: KDTree,
    grid: Grid,
    domain,
    delta,
    *,
    lsrr_levels: int,
    e_splits: int,
) -> list:
    """Every location mechanism of the comparison at one *accounted* budget
    ``eps_star``: what each ledger charges.

    GEO at ``eps_star / D`` per unit of distance (D the domain's diameter, so any two
    locations are ``eps_star``-indistinguishable), the square mechanism and L-SRR at
    ``eps_star``-LDP (pure), and DP-TT-CMP (basic and E with ``e_splits``) and
    DP-TT-DIS basic (sensitivity D) with the constant schedule whose PLD composition
    at ``delta`` is ``eps_star``. The charge is the actual worst case for GEO, SM,
    L-SRR (pure) and DP-TT-CMP (its PLD is exact), but far above it for DP-TT-DIS
    (:func:`dpnn.adversary.certified_epsilon`); for equal actual privacy see
    :func:`dpnn.adversary.actual_mechanisms_at`.
    """
    diameter, height = grid.diameter, tree.tree_height

    def schedule(utility, **variant):
        return traversal.epsilon_schedule(
            "constant",
            height,
            eps_star,
            utility=utility,
            method="pld",
            delta=delta,
            **variant,
        )

    early = schedule("cmp", variant="early", splits=e_splits)
    return [
        Geo(eps_star / diameter, domain),
        SquareMechanism(eps_star, domain),
        LSRR(eps_star, domain, lsrr_levels),
        DPTT(tree, schedule("cmp"), "cmp", domain),
        DPTT(tree, early, "cmp", domain, variant=f"E{e_splits}"),
        DPTT(tree, schedule("dis"), "dis", domain, sensitivity=diameter),
    ]
