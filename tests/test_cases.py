"""Tests of the parallel, cached, resumable experiment loops
(companion.cached_loops.run_cases) and
of companion.progress.

The promises: the tables of notebook 11's experiments do not depend on the number of
processes; a cached case is read back instead of recomputed, unless the library's code
changed; a progress bar is written only where the runner asks for one.
"""

import os

import numpy as np
import pandas as pd
import pytest

from companion import cached_loops, progress
from companion.studies import gursoy, liang_yi
from dpnn import cgp


@pytest.fixture(scope="module")
def paths():
    return cgp.taxi_trajectories(
        3, np.random.default_rng(0), min_length=300, max_length=400
    )


@pytest.mark.parametrize(
    "experiment, settings",
    [
        (liang_yi.identity_experiment, [(5e-4, 200), (5e-6, 100)]),
        (liang_yi.knn_experiment, [(5e-4, 2, 200), (5e-6, 4, 100)]),
        (liang_yi.hull_experiment, [(5e-4, 200)]),
    ],
)
def test_cgp_experiments_are_the_same_for_any_number_of_processes(
    paths, experiment, settings
):
    one = experiment(paths, settings, 2, np.random.default_rng(9), n_jobs=1)
    two = experiment(paths, settings, 2, np.random.default_rng(9), n_jobs=2)
    pd.testing.assert_frame_equal(one, two)
    other = experiment(paths, settings, 2, np.random.default_rng(10), n_jobs=1)
    assert not one.equals(other)  # the seed matters


def _logged_square(value, log):
    """value ** 2, appending a line to ``log`` each time it is computed (a module-level
    case function)."""
    with open(log, "a") as handle:
        handle.write(f"{value}\n")
    return value**2


def test_run_cases_reads_finished_cases_back_and_recomputes_after_a_code_change(
    tmp_path, monkeypatch
):
    log = tmp_path / "computed.txt"
    cache = tmp_path / "cache"
    assert cached_loops.run_cases(
        _logged_square, [(2, log), (3, log)], cache_dir=cache
    ) == [
        4,
        9,
    ]
    # an interrupted run repeated with one more case: only the new case is computed
    assert cached_loops.run_cases(
        _logged_square, [(2, log), (3, log), (4, log)], cache_dir=cache
    ) == [4, 9, 16]
    assert log.read_text().split() == ["2", "3", "4"]
    # other library code: nothing computed before is read back
    monkeypatch.setattr(cached_loops, "code_version", lambda: "another version")
    assert cached_loops.run_cases(_logged_square, [(2, log)], cache_dir=cache) == [4]
    assert log.read_text().split() == ["2", "3", "4", "2"]


def test_code_version_is_a_digest_of_the_package_sources():
    version = cached_loops.code_version()
    assert len(version) == 16 and int(version, 16) >= 0
    assert cached_loops.code_version() == version


def test_run_cases_rejects_a_bad_number_of_processes():
    with pytest.raises(ValueError, match="n_jobs"):
        cached_loops.run_cases(_logged_square, [], n_jobs=0)


def test_progress_writes_a_bar_only_where_the_runner_asks(tmp_path, monkeypatch):
    items = [1, 2, 3]
    monkeypatch.delenv(progress.PROGRESS_FILE, raising=False)
    # no bar, nothing printed
    assert progress.progress(items, total=3, desc="x") is items
    bar_file = tmp_path / "progress.txt"
    monkeypatch.setenv(progress.PROGRESS_FILE, str(bar_file))
    assert list(progress.progress(items, total=3, desc="sweep")) == items
    text = bar_file.read_text()
    assert "sweep" in text and "3/3" in text
    assert os.environ[progress.PROGRESS_FILE] == str(bar_file)


def _noisy_sum(values, rng, scale=1.0):
    """sum(values) + N(0, scale): a study that draws from the caller's generator."""
    return float(np.sum(values) + rng.normal(0, scale))


def test_resumable_call_gives_the_same_result_and_leaves_the_generator_as_the_call(
    tmp_path,
):
    plain_rng, first_rng, second_rng = (np.random.default_rng(5) for _ in range(3))
    expected = [
        _noisy_sum([1, 2], plain_rng),
        _noisy_sum([3], plain_rng, scale=2.0),
        plain_rng.random(),
    ]
    study = cached_loops.resumable(_noisy_sum, tmp_path)
    computed = [
        study([1, 2], first_rng),
        study([3], first_rng, scale=2.0),
        first_rng.random(),
    ]
    assert computed == expected
    files = sorted((tmp_path / "resumable").glob("*.pkl"))
    assert len(files) == 2
    # a second run reads both calls back (the files are not rewritten) and ends in the
    # same state
    stamps = [f.stat().st_mtime_ns for f in files]
    replayed = [
        study([1, 2], second_rng),
        study([3], second_rng, scale=2.0),
        second_rng.random(),
    ]
    assert replayed == expected and [f.stat().st_mtime_ns for f in files] == stamps
    # other arguments or another generator state: computed afresh
    assert study([1, 2], np.random.default_rng(6)) != expected[0]
    assert len(list((tmp_path / "resumable").glob("*.pkl"))) == 3
    assert cached_loops.resumable(_noisy_sum, None) is _noisy_sum
    with pytest.raises(ValueError, match="exactly one numpy Generator"):
        study([1], 5)


def test_classification_studies_are_the_same_for_any_number_of_processes():

    rng = np.random.default_rng(3)
    points = rng.random((120, 2))
    labels = (points[:, 0] + 0.1 * rng.standard_normal(120) > 0.5).astype(int)
    calls = [
        lambda g, n: gursoy.rn_study(points, labels, 2, [1.0], [10], 3, 2, g, n_jobs=n),
        lambda g, n: gursoy.conversion_study(points, [1.0], 5, 10, 3, 1, g, n_jobs=n),
        lambda g, n: gursoy.knn_study(
            points, labels, 2, [1.0], [3], 10, 3, 1, g, n_jobs=n
        ),
        lambda g, n: gursoy.other_classifiers_study(
            points, labels, 2, [1.0], 3, 10, 3, 1, g, n_jobs=n
        ),
    ]
    for call in calls:
        one = call(np.random.default_rng(8), 1)
        two = call(np.random.default_rng(8), 2)
        pd.testing.assert_frame_equal(one, two)
        assert sorted(one.fold.unique()) == [0, 1, 2]


def test_run_cases_on_a_local_dask_cluster_equals_a_local_run(
    paths, tmp_path, monkeypatch
):
    """Notebook 11's and 09's studies under DPNN_DASK_SCHEDULER give the local run's
    tables."""
    distributed = pytest.importorskip("distributed")

    rng = np.random.default_rng(3)
    points = rng.random((120, 2))
    labels = (points[:, 0] + 0.1 * rng.standard_normal(120) > 0.5).astype(int)
    studies = [
        lambda g: liang_yi.identity_experiment(paths, [(5e-4, 200), (5e-6, 100)], 2, g),
        lambda g: liang_yi.knn_experiment(
            paths, [(5e-4, 2, 200)], 2, g, cache_dir=tmp_path
        ),
        lambda g: gursoy.rn_study(points, labels, 2, [1.0], [10], 3, 2, g),
    ]
    monkeypatch.delenv("DPNN_DASK_SCHEDULER", raising=False)
    local = [study(np.random.default_rng(8)) for study in studies]
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        monkeypatch.setenv("DPNN_DASK_SCHEDULER", cluster.scheduler_address)
        submitted = []
        monkeypatch.setattr(
            cached_loops,
            "_run_on_dask",
            lambda *a, on_dask=cached_loops._run_on_dask: (
                submitted.append(a) or on_dask(*a)
            ),
        )
        remote = [study(np.random.default_rng(8)) for study in studies]
        assert len(submitted) == len(studies), (
            "with DPNN_DASK_SCHEDULER set, the cases go to Dask"
        )
        with distributed.Client(cluster) as client:
            log = tmp_path / "log"
            squares = cached_loops.run_cases(
                _logged_square, [(2, log), (3, log)], backend="dask", scheduler=client
            )
            assert client.status == "running"  # a client we were given is left open
    assert squares == [4, 9]
    assert any(tmp_path.rglob("*.pkl")), "the workers write the cache"
    for one, other in zip(local, remote):
        pd.testing.assert_frame_equal(one, other)


def test_run_cases_checks_its_backend(monkeypatch):
    monkeypatch.delenv("DPNN_DASK_SCHEDULER", raising=False)
    with pytest.raises(ValueError, match="backend must be"):
        cached_loops.run_cases(_logged_square, [(2, "unused")], backend="spark")
    with pytest.raises(ValueError, match="scheduler must be"):
        cached_loops.run_cases(_logged_square, [(2, "unused")], backend="dask")
