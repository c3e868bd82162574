"""The faster experiments of notebook 11 (Liang and Yi) give what the code before gave.

The reference below is the code before the change, kept verbatim where it changed: the
sorted sample of a tuple,
the row norms of ``np.linalg.norm``, ``knn_error`` once per method, and the three
experiment cases built on them. The tests run both at small sizes with fixed seeds and
compare the float bits (same seed, same floats).
"""

import numpy as np
import pandas as pd
import pytest

from companion.studies import liang_yi as studies
from dpnn import cgp
from dpnn.cgp import basic, hull, svt, taxi_walks
from dpnn.cgp.hull import convex_hull, polygon_jaccard


def _same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


# --- the reference: the code before the change --------------------------------------


def _reference_sample_tuple(trajectory, n, rng):
    trajectory = np.asarray(trajectory, dtype=float)
    if len(trajectory) <= n:
        return trajectory
    return trajectory[np.sort(rng.choice(len(trajectory), n, replace=False))]


def _reference_identity_errors(points, released):
    norms = np.linalg.norm(points - released, axis=1)
    return float(norms.max()), float(np.sqrt(np.sum(norms**2)))


def _reference_knn_error(points, query, indices):
    distances = np.linalg.norm(points - query, axis=1)
    best = np.sum(np.partition(distances, indices.size - 1)[: indices.size])
    return float(np.sum(distances[indices]) / best)


def _reference_identity_case(path, rho, n, epsilon, t, repetitions, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repetitions):
        x = _reference_sample_tuple(path, n, rng)
        for method, released in (
            ("GP Basic", basic.gp_basic(x, epsilon, rng)),
            ("CGP Basic", basic.cgp_basic(x, rho, rng)),
        ):
            worst, l2 = _reference_identity_errors(x, released)
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


def _reference_knn_case(path, queries, rho, k, n, epsilon, t, seed, gamma0_per_epsilon):
    rng = np.random.default_rng(seed)
    rows = []
    for r, p in enumerate(queries):
        x = _reference_sample_tuple(path, n, rng)
        offset = {"gamma0_per_epsilon": gamma0_per_epsilon}
        found = {
            "GP PNN": svt.k_pnn(x, p, k, rng, epsilon=epsilon, **offset),
            "CGP PNN": svt.k_pnn(x, p, k, rng, rho=rho, **offset),
            "GP Basic": svt.basic_knn(x, p, k, rng, epsilon=epsilon),
            "CGP Basic": svt.basic_knn(x, p, k, rng, rho=rho),
        }
        for method, indices in found.items():
            rows.append(
                {
                    "rho": rho,
                    "k": k,
                    "n": n,
                    "n_actual": len(x),
                    "trajectory": t,
                    "repetition": r,
                    "method": method,
                    "error": _reference_knn_error(x, p, indices),
                }
            )
    return rows


def _reference_hull_case(
    path, rho, n, epsilon, t, repetitions, seed, beta, k_range, pch_options
):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(repetitions):
        x = _reference_sample_tuple(path, n, rng)
        options = {"beta": beta, "k_range": k_range, **pch_options}
        gp_hull = hull.pch(x, rng, epsilon=epsilon, **options)
        cgp_hull = hull.pch(x, rng, rho=rho, **options)
        released = {
            "GP PCH": gp_hull.released,
            "CGP PCH": cgp_hull.released,
            "GP Basic": basic.gp_basic(x, epsilon, rng),
            "CGP Basic": basic.cgp_basic(x, rho, rng),
        }
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


def _frames_identical(new_rows, old_rows):
    new, old = pd.DataFrame(new_rows), pd.DataFrame(old_rows)
    assert list(new.columns) == list(old.columns) and len(new) == len(old) > 0
    for column in new.columns:
        if new[column].dtype.kind == "f":
            assert _same_bits(new[column].to_numpy(), old[column].to_numpy()), column
        else:
            assert new[column].tolist() == old[column].tolist(), column


PATHS = cgp.taxi_trajectories(
    2, np.random.default_rng(11), min_length=700, max_length=1500
)


def _epsilon(rho):
    return studies._gp_epsilon(rho, 1e-10, 10.0)


# --- the experiment cases -------------------------------------------------------------


def _compare(monkeypatch, new_call, old_call):
    """Rows of the new code, then of the reference, from the same seeds."""
    _frames_identical(new_call(), old_call())


@pytest.mark.parametrize(
    "rho, n", [(5e-8, 300), (5e-6, 600), (5e-4, 400), (5e-4, 5000)]
)
def test_identity_case_is_the_reference(rho, n, monkeypatch):
    for t, path in enumerate(PATHS):
        args = (path, rho, n, _epsilon(rho), t, 3, [7, n, t])
        _compare(
            monkeypatch,
            lambda: studies._identity_case(*args),
            lambda: _reference_identity_case(*args),
        )


@pytest.mark.parametrize(
    "rho, k, n, offset",
    [
        (5e-8, 4, 300, 0.0),
        (5e-4, 1, 600, 0.0),
        (5e-4, 16, 400, -6.0),
        (5e-5, 64, 5000, 0.0),
    ],
)
def test_knn_case_is_the_reference(rho, k, n, offset, monkeypatch):
    for t, path in enumerate(PATHS):
        queries = cgp.query_points(PATHS, 3, np.random.default_rng([t, 1]))
        args = (path, queries, rho, k, n, _epsilon(rho), t, [8, k, t], offset)
        _compare(
            monkeypatch,
            lambda: studies._knn_case(*args),
            lambda: _reference_knn_case(*args),
        )


ALL_FOUR = {
    "split": cgp.PCH_SCRIPTS_SPLIT,
    "centre_share": 2 / 3,
    "remove_anchors": True,
    "radius_floor": 10.0,
}  # PCH as the authors' scripts


@pytest.mark.parametrize(
    "rho, n, options",
    [(5e-8, 300, {}), (5e-4, 600, {}), (5e-4, 5000, {}), (5e-4, 400, ALL_FOUR)],
)
def test_hull_case_is_the_reference(rho, n, options, monkeypatch):
    for t, path in enumerate(PATHS):
        args = (path, rho, n, _epsilon(rho), t, 2, [9, n, t], 0.1, (16, 128), options)
        _compare(
            monkeypatch,
            lambda: studies._hull_case(*args),
            lambda: _reference_hull_case(*args),
        )


# --- the pieces -----------------------------------------------------------------------


def test_row_norms_are_linalg_norm():
    rng = np.random.default_rng(5)
    scales = 10.0 ** rng.integers(-150, 150, (10000, 1))
    special = [[0.0, 0.0], [-0.0, 3.0], [1e-320, 1e-320], [1e154, 1e154], [3.0, -4.0]]
    vectors = np.concatenate([rng.normal(0, 1, (10000, 2)) * scales, special])
    with np.errstate(over="ignore"):  # 1e154 squared: both give inf
        assert _same_bits(basic._row_norms(vectors), np.linalg.norm(vectors, axis=1))
        assert _same_bits(
            svt.query_distances(vectors, np.array([0.5, -2.0])),
            np.linalg.norm(vectors - [0.5, -2.0], axis=1),
        )
    three = rng.normal(0, 1, (50, 3))
    assert _same_bits(basic._row_norms(three), np.linalg.norm(three, axis=1))


def test_sample_tuple_is_the_sorted_sample():
    path = PATHS[0]
    for n in (1, 10, 699, len(path) - 1, len(path), 10**6):
        assert _same_bits(
            taxi_walks.sample_tuple(path, n, np.random.default_rng(n)),
            _reference_sample_tuple(path, n, np.random.default_rng(n)),
        )


def test_knn_errors_share_the_distances_and_are_knn_error():
    rng = np.random.default_rng(3)
    points, query = rng.normal(0, 100, (500, 2)), np.array([1.5, -2.5])
    found = [rng.choice(500, 7, replace=False) for _ in range(4)]
    shared = svt.knn_errors(svt.query_distances(points, query), found)
    assert shared == [_reference_knn_error(points, query, f) for f in found]
    assert shared == [cgp.knn_error(points, query, f) for f in found]
    with pytest.raises(ValueError, match="coincides"):
        svt.knn_errors(np.zeros(5), [np.array([0, 1])])
