"""Trajectories for the experiments: taxi walks, tuples and query points (§5).

The paper's real traces (cabspotting) are read by
:func:`dpnn.cabspotting.load_cabspotting`
from files the reader supplies; the synthetic walks here stand in for them offline.
"""

from __future__ import annotations

import numpy as np

from dpnn._validation import generator, positive_finite, positive_int

from .basic import check_tuple

__all__ = ["taxi_trajectories", "sample_tuple", "query_points"]


def _run_lengths(total, mean_move, mean_stop, rng):
    """Boolean mask ``moving`` of length ``total``: alternating geometric runs of moves
    and stops."""
    runs = rng.geometric(np.tile([1 / mean_move, 1 / mean_stop], total // 2 + 1))
    states = np.tile([True, False], total // 2 + 1)
    moving = np.repeat(states, runs)[:total]
    return moving if moving.size == total else np.resize(moving, total)


def taxi_trajectories(
    n_trajectories,
    rng,
    *,
    min_length=5000,
    max_length=30000,
    extent=20000.0,
    speed=150.0,
    turn=0.35,
    mean_move=40,
    mean_stop=15,
    gps_noise=5.0,
):
    """Embedded stand-in for the cabspotting taxis: correlated random walks with stops,
    in metres.

    Each trajectory has a length uniform in [min_length, max_length] (the paper's
    taxis: 5000-30000 points), starts uniformly in the square [0, extent]^2, moves
    with step lengths Gamma(2, speed/2) (mean ``speed`` metres per sample) and
    heading increments N(0, turn^2), alternates geometric runs of moving (mean
    ``mean_move`` samples) and standing (mean ``mean_stop``), reflects at the
    square's edges, and carries N(0, gps_noise^2) jitter on every fix.
    Returns a list of (n_i, 2) arrays.
    """
    n_trajectories = positive_int(n_trajectories, "n_trajectories")
    min_length = positive_int(min_length, "min_length", 2)
    max_length = positive_int(max_length, "max_length", min_length)
    extent = positive_finite(extent, "extent")
    rng = generator(rng)
    out = []
    for _ in range(n_trajectories):
        n = int(rng.integers(min_length, max_length + 1))
        heading = rng.uniform(0, 2 * np.pi) + np.cumsum(rng.normal(0.0, turn, n))
        length = rng.gamma(2.0, speed / 2, n) * _run_lengths(
            n, mean_move, mean_stop, rng
        )
        steps = length[:, None] * np.column_stack([np.cos(heading), np.sin(heading)])
        walk = rng.uniform(0, extent, 2) + np.cumsum(steps, axis=0)
        # reflect into [0, extent]
        folded = extent - np.abs(extent - np.mod(walk, 2 * extent))
        out.append(folded + rng.normal(0.0, gps_noise, folded.shape))
    return out


def sample_tuple(trajectory, n, rng):
    """n points sampled without replacement from a trajectory (all of them if it has
    fewer; §5), in time order."""
    trajectory = check_tuple(trajectory, "trajectory")
    n = positive_int(n, "n")
    if len(trajectory) <= n:
        return trajectory
    chosen = np.zeros(len(trajectory), dtype=bool)  # the sorted sample, without a sort
    chosen[generator(rng).choice(len(trajectory), n, replace=False)] = True
    return trajectory[chosen]


def query_points(trajectories, n_queries, rng):
    """Query points as in §5: centres of 1 m x 1 m cells crossed by some trajectory.

    A random trajectory, a random segment of it, a uniform point on the segment,
    snapped to the centre of its 1 m cell.
    """
    n_queries = positive_int(n_queries, "n_queries")
    rng = generator(rng)
    trajectories = [check_tuple(path, "trajectories") for path in trajectories]
    if not trajectories or min(len(path) for path in trajectories) < 2:
        raise ValueError(
            "trajectories must be a non-empty list of (n_i, 2) arrays with n_i >= 2"
        )
    out = np.empty((n_queries, 2))
    for q in range(n_queries):
        path = trajectories[int(rng.integers(len(trajectories)))]
        i = int(rng.integers(len(path) - 1))
        point = path[i] + rng.random() * (path[i + 1] - path[i])
        out[q] = np.floor(point) + 0.5
    return out
