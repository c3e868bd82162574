"""The private-median study of Cormode et al. (§VIII-B, Fig. 4)."""

from __future__ import annotations

import math

import numpy as np

from dpnn import mechanisms
from dpnn._validation import generator, positive_finite, positive_int
from dpnn.psd import (
    kdtree,
    medians,
    quadtree,
)

__all__ = ["median_study"]


def _ss_segments(values, segment, lo, hi, epsilon, delta, rng):
    """Smooth-sensitivity medians, one segment at a time (Def. 4 has no vectorized form
    here)."""
    n = np.bincount(segment, minlength=len(lo))
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    out = np.empty(len(lo))
    for s in range(len(lo)):
        chunk = values[start[s] : start[s] + n[s]]
        out[s] = (
            medians.ss_median(chunk, lo[s], hi[s], epsilon, delta, rng)
            if n[s]
            else (lo[s] + hi[s]) / 2
        )
    return out


def _cell_segments(prefix, cell, lo, hi):
    """Cell-based medians of many ranges from one cumulative noisy grid of cells of
    width ``cell`` (post-processing).

    ``lo``, ``hi`` are offsets from the grid's start; the output is the centre of the
    first cell of the range at which its noisy mass reaches half, clipped to the range.
    """
    cells = len(prefix) - 1
    a = np.clip(np.floor(lo / cell), 0, cells - 1).astype(int)
    b = np.clip(np.ceil(hi / cell), a + 1, cells).astype(int)
    target = prefix[a] + (prefix[b] - prefix[a]) / 2
    k = np.minimum(np.searchsorted(prefix, target, side="left"), b)
    return np.clip((np.maximum(k, a + 1) - 0.5) * cell, lo, hi)


def median_study(
    values,
    lo,
    hi,
    depth,
    epsilon,
    method,
    rng,
    sample=None,
    delta=1e-4,
    cell_length=1024.0,
):
    """Normalized rank error and time of private medians by depth of a binary tree (Fig.
    4).

    The 1-D ``values`` in [lo, hi] are split recursively at the private median of every
    node, ``depth`` levels deep, each level spending ``epsilon`` (so the whole tree is
    ``depth * epsilon``-DP, or ``(depth epsilon, depth delta)`` for SS). ``method``:
    ``"em"``, ``"ss"``, ``"noisymean"``, ``"cell"`` (a grid of
    ``ceil((hi - lo) / cell_length)`` equal cells released once with ``epsilon``, see
    :func:`cell_median`); ``sample`` is the Poisson rate of Thm 7 (SS and EM only). The
    rank error of a node's median ``m`` is ``|rank(m) - n/2| / (n/2)``, 1 (100%) when
    ``m`` leaves ``[x_1, x_n]``; the study reports its mean over the non-empty nodes of
    each depth (0 when no node holds a record, e.g. on empty data, which the private
    medians answer on like any other) and the seconds spent. Returns a DataFrame with
    columns depth, rank_error, seconds.
    """
    import time

    import pandas as pd

    lo, hi = medians.check_interval(lo, hi)
    x = np.sort(medians.check_values_in(values, lo, hi))
    rng = generator(rng)
    sample = kdtree.check_sample_rate(sample)
    node = np.zeros(len(x), dtype=np.int64)
    ranges = np.array([[lo, hi]])
    if method == "cell":
        cells = max(
            1, int(math.ceil((hi - lo) / positive_finite(cell_length, "cell_length")))
        )
        # the grid's actual cell width (<= cell_length)
        width = (hi - lo) / cells
        grid = np.bincount(
            quadtree.cell_index(x, lo, hi, cells), minlength=cells
        ).astype(float)
        noisy = np.maximum(mechanisms.laplace(grid, 1.0, epsilon, rng), 0)
        prefix = np.concatenate([[0.0], np.cumsum(noisy)])
    rows = []
    for d in range(positive_int(depth, "depth")):
        start = time.perf_counter()
        # x is sorted, so this sorts by (node, x)
        order = np.argsort(node, kind="stable")
        v, seg = x[order] - lo, node[order]
        l, h = ranges[:, 0] - lo, ranges[:, 1] - lo
        if method == "ss":
            keep = (
                np.ones(len(v), bool) if sample is None else rng.random(len(v)) < sample
            )
            eps = (
                epsilon if sample is None else kdtree.amplified_epsilon(epsilon, sample)
            )
            m = _ss_segments(v[keep], seg[keep], l, h, eps, delta, rng)
        elif method == "cell":
            m = _cell_segments(prefix, width, l, h)
        elif method in ("em", "noisymean"):
            keep = (
                np.ones(len(v), bool) if sample is None else rng.random(len(v)) < sample
            )
            eps = (
                epsilon if sample is None else kdtree.amplified_epsilon(epsilon, sample)
            )
            m = medians.segment_medians_unchecked(
                v[keep], seg[keep], l, h, method, eps, rng
            )
        else:
            raise ValueError(
                f"method must be one of 'em', 'ss', 'noisymean', 'cell', got {method!r}"
            )
        seconds = time.perf_counter() - start
        m = m + lo
        rows.append(
            {
                "depth": d,
                "rank_error": _rank_error(x[order], node[order], m),
                "seconds": seconds,
            }
        )
        node = 2 * node + (x >= m[node])
        ranges = np.column_stack([ranges[:, 0], m, m, ranges[:, 1]]).reshape(-1, 2)
    return pd.DataFrame(rows)


def _rank_error(values, segment, m):
    """Mean over non-empty segments of ``|rank(m) - n/2| / (n/2)``, 1 when m is outside
    the data range."""
    s = len(m)
    n = np.bincount(segment, minlength=s)
    below = np.bincount(segment, weights=values < m[segment], minlength=s)
    first = np.full(s, np.inf)
    last = np.full(s, -np.inf)
    np.minimum.at(first, segment, values)
    np.maximum.at(last, segment, values)
    error = np.abs(below - n / 2) / np.maximum(n / 2, 0.5)
    error = np.where((m < first) | (m > last), 1.0, np.minimum(error, 1.0))
    # With no records no node has a rank to miss: the mean over no nodes is reported as
    # 0.
    return float(error[n > 0].mean()) if np.any(n > 0) else 0.0
