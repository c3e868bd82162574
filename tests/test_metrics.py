"""companion.metrics on hand-made answers."""

import numpy as np
import pytest

from companion import metrics
from companion.metrics import (
    precision_recall,
    raw_accuracy,
    standard_error,
    topk_accuracy,
)


def test_raw_and_topk_accuracy_and_precision_recall():
    released = [
        np.array([3, 7]),
        np.array([1]),
        np.array([], dtype=int),
        np.array([9, 2, 4]),
    ]
    true_nn = np.array([7, 2, 0, 4])
    true_knn = np.array([[7, 1], [2, 5], [0, 3], [4, 9]])
    np.testing.assert_array_equal(metrics.raw_accuracy(released, true_nn), [1, 0, 0, 1])
    np.testing.assert_array_equal(
        metrics.topk_accuracy(released, true_knn), [1, 0, 0, 1]
    )
    precision, recall = metrics.precision_recall(released, true_knn)
    np.testing.assert_allclose(precision, [0.5, 0.0, 0.0, 2 / 3])
    np.testing.assert_allclose(recall, [0.5, 0.0, 0.0, 1.0])


def test_array_and_csr_forms_agree():
    answers = np.array([[1, 2], [3, 4]])
    indices, offsets = metrics.as_released(answers)
    np.testing.assert_array_equal(offsets, [0, 2, 4])
    np.testing.assert_array_equal(metrics.raw_accuracy(answers, [2, 0]), [1, 0])


def test_fraction_sent_and_standard_error():
    np.testing.assert_allclose(metrics.fraction_sent([21, 42], 1000), [0.021, 0.042])
    assert metrics.standard_error([0, 1, 0, 1]) == pytest.approx(
        np.std([0, 1, 0, 1], ddof=1) / 2
    )


def test_wrong_number_of_rows_is_an_error():
    with pytest.raises(ValueError, match="targets must have one row per query"):
        metrics.raw_accuracy([np.array([1])], [1, 2])


def test_an_empty_release_finds_nothing():
    # Old code: IndexError when no query received any value.
    nothing = [np.array([], dtype=int)] * 3
    np.testing.assert_array_equal(raw_accuracy(nothing, [1, 2, 3]), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        topk_accuracy(nothing, [[1, 2], [3, 4], [5, 6]]), [0.0, 0.0, 0.0]
    )
    precision, recall = precision_recall(nothing, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(precision, 0.0)
    np.testing.assert_array_equal(recall, 0.0)
    assert raw_accuracy([], []).shape == (0,)


def test_standard_error_of_one_score_is_infinite_and_of_none_an_error():
    # Old code: NaN for one score.
    assert standard_error([0.5]) == float("inf")
    with pytest.raises(ValueError, match="per_query must hold at least one score"):
        standard_error([])
    # std 0.7071 (ddof 1) / sqrt(2)
    assert standard_error([0.0, 1.0]) == pytest.approx(0.5)


def test_accuracy_summary_by_hand():
    # raw hits 1, 0, 0, 1 and top-2 hits 1, 1, 0, 1 (query 1 gets its 2nd neighbour)
    released = [np.array([3, 7]), np.array([5]), np.array([], dtype=int), np.array([4])]
    true_knn = np.array([[7, 1], [2, 5], [0, 3], [4, 9]])
    summary = metrics.accuracy_summary(released, true_knn)
    assert list(summary) == ["raw", "raw s.e.", "top-2", "top-2 s.e."]
    assert summary["raw"] == 0.5 and summary["top-2"] == 0.75
    # s.e. = sqrt(var(ddof=1) / n): raw var = 1/3, top-2 var = 1/4
    assert summary["raw s.e."] == pytest.approx(np.sqrt(1 / 3 / 4))
    assert summary["top-2 s.e."] == pytest.approx(np.sqrt(1 / 4 / 4))
    with pytest.raises(ValueError, match="true_knn must be \\(n, k\\)"):
        metrics.accuracy_summary(released, np.array([7, 2, 0, 4]))
