"""companion.studies.thesis and the real-data loaders: determinism, caching, fairness
rules."""

import numpy as np
import pandas as pd
import pytest

from companion import cached_loops
from companion.studies import thesis
from dpnn import data
from dpnn.traversal import parse_variant

SMALL = {"dataset": "uniform", "n": 600, "n_queries": 60}


def small_grid():
    return thesis.grid(
        **SMALL,
        d=[1, 2],
        utility=["dis", "cmp"],
        variant=["basic", "E2", "GS-N3"],
        epsilon=[1.0, 5.0],
        sensitivity=1e7,
    )


def test_results_do_not_depend_on_n_jobs_or_order():
    points = small_grid()
    one = thesis.run_grid(points, seed=3, n_jobs=1, progress=False)
    two = thesis.run_grid(points[::-1], seed=3, n_jobs=2, progress=False)[
        ::-1
    ].reset_index(drop=True)
    pd.testing.assert_frame_equal(one, two)


def test_cached_and_fresh_results_are_identical(tmp_path):
    points = small_grid()[:6]
    fresh = thesis.run_grid(points, seed=4, n_jobs=1, progress=False)
    first = thesis.run_grid(
        points, seed=4, n_jobs=1, cache_dir=tmp_path, progress=False
    )
    cached = thesis.run_grid(
        points, seed=4, n_jobs=1, cache_dir=tmp_path, progress=False
    )
    assert any(tmp_path.rglob("*.pkl")), "the cache must be written"
    pd.testing.assert_frame_equal(fresh, first)
    pd.testing.assert_frame_equal(first, cached)


def test_a_different_seed_gives_different_queries():
    a = thesis.evaluate(
        {**SMALL, "variant": "basic", "utility": "cmp", "epsilon": 3.0}, seed=1
    )
    b = thesis.evaluate(
        {**SMALL, "variant": "basic", "utility": "cmp", "epsilon": 3.0}, seed=2
    )
    assert a["raw"] != b["raw"] or a["top5"] != b["top5"]


@pytest.mark.parametrize("variant", ["basic", "P2", "E3", "GS", "N4", "GS-N4"])
def test_geo_releases_as_many_values_as_dp_tt(variant):
    # Fairness rules of §6.2 on a complete tree (2^7 points), where DP-TT's counts are
    # exact.
    row = thesis.evaluate(
        {
            "dataset": "uniform",
            "n": 128,
            "d": 2,
            "utility": "dis",
            "variant": variant,
            "epsilon": 1e6,
            "sensitivity": 1.0,
            "n_queries": 40,
        },
        seed=0,
    )
    spec = parse_variant(variant)
    if spec["neighborhood"] and spec["variant"] == "greedy":
        assert (
            row["geo_released"]
            == (row["tree_height"] + 1) * spec["neighborhood"]
            >= row["released"]
        )
    else:
        assert row["geo_released"] == row["released"]
    runs, per_run = thesis.geo_plan(variant, row["tree_height"])
    assert runs * per_run == row["geo_released"]


def test_geo_budget_is_split_over_its_runs():
    row = thesis.evaluate(
        {
            "dataset": "uniform",
            "n": 128,
            "d": 2,
            "utility": "dis",
            "variant": "P2",
            "epsilon": 0.5,
            "sensitivity": 100.0,
            "n_queries": 10,
        },
        seed=0,
    )
    assert row["geo_epsilon"] == pytest.approx(row["epsilon_br"] / 4 / 100.0)


def test_bad_dataset_is_named():
    with pytest.raises(ValueError, match="dataset must be uniform, gaussian"):
        thesis.evaluate({"dataset": "mars", "n": 10}, seed=0)


def test_load_checkins_cuts_the_box_and_quantizes(tmp_path):
    path = tmp_path / "checkins.txt"
    rng = np.random.default_rng(0)
    lines = []
    for i in range(300):
        lat, lon = rng.uniform(37.55, 37.78), rng.uniform(-122.51, -122.38)
        lines.append(f"{i % 7}\t2010-10-19T23:55:27Z\t{lat}\t{lon}\t{i}")
    # Austin: outside the SF box
    lines.append("1\t2010-10-19T23:55:27Z\t30.3\t-97.7\t999")
    path.write_text("\n".join(lines) + "\n")
    points = data.load_checkins(path, "sf")
    assert points.shape[1] == 2 and 250 <= len(points) <= 300
    # metres
    assert (
        points.min() >= 0
        and points[:, 0].max() < 13_000
        and points[:, 1].max() < 26_000
    )
    austin = data.load_checkins(path, "austin")
    assert len(austin) == 1


def test_load_checkins_rejects_malformed_lines(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1\t2010\t37.6\n")
    with pytest.raises(ValueError, match="line 1: expected 5 tab-separated fields"):
        data.load_checkins(path, "sf")
    with pytest.raises(ValueError, match="box must be one of"):
        data.load_checkins(path, "paris")


def test_quantize_keeps_cell_centres():
    points = np.array([[0.0, 0.0], [0.1, 0.1], [10.0, 2.0]])
    centres = data.quantize_to_grid(points, cells=(10, 2))
    np.testing.assert_allclose(centres, [[0.5, 0.5], [9.5, 1.5]])


def test_real_regions_are_offline_and_in_metres():
    points = data.real_dataset("switzerland")
    assert 1000 < len(points) < 2000
    assert 200_000 < points[:, 0].max() < 400_000  # Switzerland is about 350 km wide
    with pytest.raises(ValueError, match="name must be one of"):
        data.geonames_region("atlantis")


def test_dask_backend_on_a_local_cluster_equals_a_local_run(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    points = small_grid()[:8]
    local = thesis.run_grid(points, seed=5, n_jobs=1, progress=False)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        by_address = thesis.run_grid(
            points,
            seed=5,
            backend="dask",
            scheduler=cluster.scheduler_address,
            progress=False,
        )
        monkeypatch.setenv("DPNN_DASK_SCHEDULER", cluster.scheduler_address)
        calls = []
        on_dask = cached_loops._run_on_dask
        monkeypatch.setattr(
            cached_loops, "_run_on_dask", lambda *a: calls.append(a) or on_dask(*a)
        )
        # backend from the env
        by_env = thesis.run_grid(points, seed=5, cache_dir=tmp_path, progress=True)
        assert len(calls) == 1, (
            "with DPNN_DASK_SCHEDULER set, the default backend is dask"
        )
        with distributed.Client(cluster) as client:
            cached = thesis.run_grid(
                points,
                seed=5,
                backend="dask",
                scheduler=client,
                cache_dir=tmp_path,
                progress=False,
            )
            assert client.status == "running"  # a client we were given is left open
    assert any(tmp_path.rglob("*.pkl")), "the cache must be written by the workers"
    for table in (by_address, by_env, cached):
        pd.testing.assert_frame_equal(local, table)


def test_dask_backend_needs_a_scheduler_and_backend_is_checked(monkeypatch):
    monkeypatch.delenv("DPNN_DASK_SCHEDULER", raising=False)
    with pytest.raises(ValueError, match="scheduler"):
        thesis.run_grid(small_grid()[:1], backend="dask", progress=False)
    with pytest.raises(ValueError, match="backend"):
        thesis.run_grid(small_grid()[:1], backend="ray", progress=False)


def test_delta_exponent_moves_only_the_accounting():
    """delta = N^-1.1 (the archived code) instead of 1/N: same draws, Thm 2.13 at the
    other delta."""
    from dpnn.accounting import br_composition

    point = {
        "n": 2000,
        "d": 1,
        "utility": "cmp",
        "variant": "E1",
        "epsilon": 1.0,
        "n_queries": 50,
    }
    text, code = (
        thesis.evaluate(point, seed=5),
        thesis.evaluate(point, seed=5, delta_exponent=1.1),
    )
    assert text["top5"] == code["top5"] and text["raw"] == code["raw"]
    # E1 on a tree of height h: h - 1 steps, each charged eps (thesis)
    calls = text["tree_height"] - 1
    assert text["delta"] == 1 / 2000 and code["delta"] == pytest.approx(
        2000**-1.1, rel=1e-12
    )
    assert text["epsilon_thesis"] == pytest.approx(
        br_composition([1.0] * calls, 1 / 2000), rel=1e-12
    )
    assert code["epsilon_thesis"] == pytest.approx(
        br_composition([1.0] * calls, 2000**-1.1), rel=1e-12
    )
    assert code["epsilon_thesis"] > text["epsilon_thesis"]
    with pytest.raises(ValueError, match="delta_exponent"):
        thesis.evaluate(point, delta_exponent=0)


def test_at_level_interpolates_in_log_x_and_never_extrapolates():
    curve = pd.DataFrame({"x": [1e-4, 1e-2, 1e-3], "y": [0.1, 0.5, 0.3]})
    assert thesis.at_level(curve, "x", "y", 1e-3) == pytest.approx(0.3)
    # halfway in log10
    assert thesis.at_level(curve, "x", "y", 10**-3.5) == pytest.approx(0.2)
    assert np.isnan(thesis.at_level(curve, "x", "y", 1e-1))
    with pytest.raises(ValueError, match="level"):
        thesis.at_level(curve, "x", "y", -1)


def test_geo_sweep_with_neighbours_finds_at_least_as_often():
    one = thesis.geo_sweep("uniform", 2000, 2, 1.0, [1e4], 200, seed=3)
    many = thesis.geo_sweep("uniform", 2000, 2, 1.0, [1e4], 200, seed=3, k=16)
    assert (
        many["k"].iloc[0] == 16
        and many["geo_top5"].iloc[0] >= one["geo_top5"].iloc[0] - 0.1
    )
    with pytest.raises(ValueError, match="k"):
        thesis.geo_sweep("uniform", 2000, 2, 1.0, [1e4], 10, k=0)


def test_levels_table_interpolates_each_variant_in_log_x():
    table = pd.DataFrame(
        {
            "variant": ["a", "a", "b", "b", "b"],
            "ε*/Δ": [1e-4, 1e-2, 1e-5, 1e-3, 1e-1],
            "top5": [0.2, 0.6, 0.1, 0.5, 0.9],
        }
    )
    levels = thesis.levels_table(table, ["b", "a"], [1e-3, 1e-5])
    assert list(levels.index) == ["b", "a"]
    assert list(levels.columns) == ["ε*/Δ = 0.001", "ε*/Δ = 1e-05"]
    # a at 1e-3: halfway in log10 between 1e-4 (0.2) and 1e-2 (0.6); 1e-5 is off its
    # curve
    np.testing.assert_allclose(levels.to_numpy(), [[0.5, 0.1], [0.4, np.nan]])


def test_value_at_names_one_row_or_none():
    table = pd.DataFrame(
        {
            "d": [1, 1, 2],
            "variant": ["P8", "E8", "P8"],
            "Δ": [1e5] * 3,
            "top5": [0.3, 0.4, 0.7],
        }
    )
    assert thesis.value_at(table, "top5", d=2, variant="P8", Δ=1e5) == 0.7
    assert np.isnan(thesis.value_at(table, "top5", d=3, variant="P8"))
    with pytest.raises(ValueError, match="at most one row, 2 match"):
        thesis.value_at(table, "top5", variant="P8")
