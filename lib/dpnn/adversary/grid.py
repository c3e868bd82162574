"""The domain as a regular grid of cells, and priors on it.

The server's uncertainty about a client's location is a law on the domain. We
discretise the domain (a box, rows (low, high) per dimension) into ``cells``
equal cells per axis and put the location at a cell's centre: a prior is a
weight per cell. Snapping a location to its cell's centre moves it by at most
half a cell's diagonal, :attr:`Grid.error`; every error computed on the grid is
that of the discretised problem, and the tests show it converging as the grid
refines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpnn._validation import finite_array, positive_int

__all__ = ["Grid", "domain_grid", "uniform_prior", "empirical_prior", "check_prior"]


@dataclass(frozen=True)
class Grid:
    """A regular grid on a box: ``axes[a]`` holds the cell centres along axis a.

    Cell ``i`` of the flattened grid (C order over the axes) has centre
    ``points[i]``; ``index(i_0, .., i_{d-1}) = ravel_multi_index``.
    """

    domain: np.ndarray  # (d, 2) rows (low, high)
    axes: tuple  # d arrays of cell centres

    @property
    def dimension(self) -> int:
        return len(self.axes)

    @property
    def shape(self) -> tuple:
        return tuple(len(a) for a in self.axes)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def widths(self) -> np.ndarray:
        """The side of a cell along each axis."""
        return (self.domain[:, 1] - self.domain[:, 0]) / np.array(self.shape)

    @property
    def error(self) -> float:
        """Half a cell's diagonal: how far a location moves when snapped to its cell's
        centre."""
        return float(np.linalg.norm(self.widths) / 2)

    @property
    def diameter(self) -> float:
        """The domain's diameter D, the unit errors are reported in."""
        return float(np.linalg.norm(self.domain[:, 1] - self.domain[:, 0]))

    @property
    def points(self) -> np.ndarray:
        """Every cell centre, shape (size, d), in C order."""
        mesh = np.meshgrid(*self.axes, indexing="ij")
        return np.stack([m.ravel() for m in mesh], axis=1)

    def distances(self, points) -> np.ndarray:
        """``||x - p||`` from each of ``points`` (n, d) to every cell centre x: shape
        (n, size).

        Summed axis by axis on the grid's product structure, never forming (n, size, d).
        """
        p = np.asarray(points, dtype=float)
        squared = (p[:, [0]] - self.axes[0][None, :]) ** 2
        for a in range(1, self.dimension):
            squared = (
                squared[:, :, None]
                + (p[:, [a]] - self.axes[a][None, :])[:, None, :] ** 2
            ).reshape(len(p), -1)
        return np.sqrt(squared, out=squared)

    def cell_of(self, locations) -> np.ndarray:
        """The flat index of the cell holding each location (shape (n, d)); the domain's
        edges included."""
        x = finite_array(locations, "locations", ndim=(2,))
        if x.shape[1] != self.dimension:
            raise ValueError(
                f"locations must have shape (n, {self.dimension}), got {x.shape}"
            )
        low, high = self.domain[:, 0], self.domain[:, 1]
        if np.any(x < low) or np.any(x > high):
            raise ValueError("locations must lie inside the grid's domain")
        index = np.minimum(
            ((x - low) / self.widths).astype(np.int64), np.array(self.shape) - 1
        )
        return np.ravel_multi_index(tuple(index.T), self.shape)


def domain_grid(domain, cells) -> Grid:
    """The grid of ``cells`` equal cells per axis (an int, or one per axis) on
    ``domain``."""
    box = finite_array(domain, "domain", ndim=(1, 2))
    box = box.reshape(1, 2) if box.ndim == 1 and box.size == 2 else box
    if box.ndim != 2 or box.shape[1] != 2 or np.any(box[:, 0] >= box[:, 1]):
        raise ValueError(
            f"domain must be (low, high) per dimension, shape (d, 2) with low < high, "
            f"got {np.asarray(domain).tolist()!r}"
        )
    counts = [cells] * len(box) if np.ndim(cells) == 0 else list(cells)
    if len(counts) != len(box):
        raise ValueError(
            f"cells must be one integer or one per axis ({len(box)}), got {cells!r}"
        )
    counts = [positive_int(c, "cells") for c in counts]
    axes = tuple(
        lo + (hi - lo) * (np.arange(c) + 0.5) / c for (lo, hi), c in zip(box, counts)
    )
    return Grid(box, axes)


def uniform_prior(grid: Grid) -> np.ndarray:
    """The uniform law on the domain, discretised: weight 1 / size per cell."""
    return np.full(grid.size, 1.0 / grid.size)


def empirical_prior(grid: Grid, points) -> np.ndarray:
    """The law of the data's own points (shape (n, d)), each counted in its cell.

    The server knows its points; a client drawn like them has this prior. The
    points are the server's, not the client's, so their number is not private.
    """
    x = finite_array(points, "points", ndim=(1, 2))
    x = x.reshape(-1, 1) if x.ndim == 1 else x
    if len(x) == 0:
        raise ValueError("points must hold at least one point to make a prior")
    counts = np.bincount(grid.cell_of(x), minlength=grid.size).astype(float)
    return counts / counts.sum()


def check_prior(prior, grid: Grid) -> np.ndarray:
    """``prior`` as ``grid.size`` float weights >= 0 summing to 1 (to 1e-9)."""
    weights = finite_array(prior, "prior", ndim=(1,))
    if (
        weights.shape != (grid.size,)
        or np.any(weights < 0)
        or abs(weights.sum() - 1) > 1e-9
    ):
        raise ValueError(
            f"prior must hold {grid.size} weights >= 0 summing to 1, "
            f"got shape {weights.shape} and sum {weights.sum():.6g}"
        )
    return weights
