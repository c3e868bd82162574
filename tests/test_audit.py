"""companion.audit against hand-computed values."""

import numpy as np
import pytest
from scipy.stats import norm

from companion.audit import binned_loss, gaussian_privacy_loss


def test_binned_loss_exact_values():
    a, b = np.array([600, 300, 100]), np.array([300, 300, 400])
    loss = binned_loss(a, b, false_alarm=0.01, min_count=100)
    np.testing.assert_allclose(loss.log_ratio, np.log([2.0, 1.0, 0.25]))
    expected_se = np.sqrt(1 / a - 1 / 1000 + 1 / b - 1 / 1000)
    np.testing.assert_allclose(loss.standard_error, expected_se)
    assert loss.z == pytest.approx(norm.isf(0.01 / 3))
    assert loss.estimate == pytest.approx(np.log(4.0))
    assert loss.lower_bound == pytest.approx(
        np.max(np.abs(np.log([2, 1, 0.25])) - loss.z * expected_se)
    )


def test_sparse_bins_are_dropped():
    loss = binned_loss([500, 50, 450], [450, 5, 545], min_count=100)
    np.testing.assert_array_equal(loss.bins, [0, 2])


def test_binned_loss_rejects_bad_input():
    with pytest.raises(ValueError, match="equal shape"):
        binned_loss([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="counts >= 0"):
        binned_loss([-1, 2], [1, 2])
    with pytest.raises(
        ValueError, match=r"false_alarm must be a real number in \(0, 1\)"
    ):
        binned_loss([100, 200], [100, 200], false_alarm=1.0)
    with pytest.raises(ValueError, match="no bin has min_count"):
        binned_loss([1, 2], [1, 2], min_count=100)


def test_gaussian_privacy_loss_formula():
    y = np.array([[0.5, -1.0]])
    mean_a, mean_b, sigma = np.array([0.0, 0.0]), np.array([1.0, 1.0]), 0.7
    density = lambda mu: np.exp(-np.sum((y - mu) ** 2) / (2 * sigma**2))  # noqa: E731
    assert gaussian_privacy_loss(y, mean_a, mean_b, sigma)[0] == pytest.approx(
        np.log(density(mean_a) / density(mean_b))
    )
