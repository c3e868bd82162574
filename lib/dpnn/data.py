"""Datasets of the companion. Every loader works offline on a fresh machine."""

from __future__ import annotations

import numpy as np

from dpnn._validation import finite_array, generator, positive_int

__all__ = ["uniform_points"]

#: The thesis's synthetic domain: coordinates "from 0 to 1 billion" (§6.1).
THESIS_DOMAIN = (0.0, 1e9)


def uniform_points(n, dimension, rng, low=THESIS_DOMAIN[0], high=THESIS_DOMAIN[1]):
    """``n`` points uniform on ``[low, high]^dimension`` (thesis §6.1 synthetic data).

    Returns shape ``(n,)`` for ``dimension == 1`` (the BST setting) and
    ``(n, dimension)`` otherwise.
    """
    n = positive_int(n, "n")
    dimension = positive_int(dimension, "dimension")
    bounds = finite_array([low, high], "low, high")
    if not bounds[0] < bounds[1]:
        raise ValueError(f"low must be < high, got low={low!r}, high={high!r}")
    rng = generator(rng)
    points = rng.uniform(bounds[0], bounds[1], size=(n, dimension))
    return points[:, 0] if dimension == 1 else points
