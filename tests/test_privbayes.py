"""Tests of dpnn.privbayes: the PrivBayes comparator of Gursoy et al. (Figs. 7-14), through DataSynthesizer.

What the wrapper promises: the caller's rng decides the output, the global random state is
neither read nor changed, the domains are the public ones (not the data's), DataSynthesizer
prints nothing, and bad input is refused. Fixed seeds; where a property is statistical the
false-failure probability is stated.
"""

import random

import numpy as np
import pytest

from dpnn import classification as c
from dpnn import privbayes


def _small(rng, n=300):
    points = rng.random((n, 2))
    return points, (points[:, 0] > 0.5).astype(int)


def test_same_rng_same_output_and_global_state_untouched(capsys):
    points, labels = _small(np.random.default_rng(0))
    np.random.seed(123)
    random.seed(123)
    expected_numpy, expected_python = np.random.rand(), random.random()
    np.random.seed(123)
    random.seed(123)
    first = privbayes.privbayes_synthetic(points, labels, 2, 1.0, np.random.default_rng(5))
    # the global generators continue exactly where they were: not reseeded, not consumed
    assert np.random.rand() == expected_numpy and random.random() == expected_python
    second = privbayes.privbayes_synthetic(points, labels, 2, 1.0, np.random.default_rng(5))
    other = privbayes.privbayes_synthetic(points, labels, 2, 1.0, np.random.default_rng(6))
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], other[0])
    assert capsys.readouterr().out == ""  # DataSynthesizer's progress prints are silenced


def test_shapes_domains_and_the_public_label_set():
    rng = np.random.default_rng(1)
    points = 0.4 + 0.2 * rng.random((100, 3))  # the data fill only [0.4, 0.6]^3 ...
    labels = np.zeros(100, dtype=int)          # ... and use one label of three
    fake_points, fake_labels = privbayes.privbayes_synthetic(points, labels, 3, 0.05, rng, n_samples=500)
    assert fake_points.shape == (500, 3) and fake_labels.shape == (500,)
    assert np.all((fake_points >= 0) & (fake_points <= 1))
    # The domains are the public box [0, 1] and the label set {0, 1, 2}, not the data's range:
    # at epsilon = 0.05 the Laplace noise (scale (4 - 2) / 0.025 = 80 per cell against 100 records)
    # puts mass outside the data's bins and on the absent labels. For a correct wrapper the
    # chance that 500 draws miss [0, 0.4) in every coordinate or miss a label is far below 1e-6;
    # a wrapper reading min/max from the data could never produce them.
    assert np.any(fake_points < 0.4) and np.any(fake_points > 0.6)
    assert set(np.unique(fake_labels)) == {0, 1, 2}


def test_high_epsilon_copy_keeps_the_classes_apart():
    # At epsilon = 100 the copy is close to the data's histogram: 1-NN on the copy labels fresh
    # points of the two halves well. Fixed seed; the noise scale is 0.02 counts per cell.
    rng = np.random.default_rng(2)
    points, labels = _small(rng, 2000)
    fake = privbayes.privbayes_synthetic(points, labels, 2, 100.0, rng)
    test_points, test_labels = _small(rng, 400)
    predicted = c.knn_classify_nonprivate(*fake, test_points, 5, rng, n_labels=2)
    assert np.mean(predicted == test_labels) > 0.9


@pytest.mark.parametrize("kwargs, word", [
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=np.inf), "epsilon"), (dict(n_labels=1), "n_labels"),
    (dict(degree=0), "degree"), (dict(bins=1), "bins"), (dict(n_samples=-1), "n_samples"),
    (dict(bounds=(1.0, 0.0)), "bounds"), (dict(points=np.full((10, 2), 2.0)), "bounds"),
    (dict(labels=np.full(10, 5)), "labels"), (dict(points=np.zeros(10)), "points"),
])
def test_bad_input_raises(kwargs, word):
    arguments = dict(points=np.full((10, 2), 0.5), labels=np.zeros(10, dtype=int), n_labels=2, epsilon=1.0,
                     rng=np.random.default_rng(0))
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=word):
        privbayes.privbayes_synthetic(**arguments)


def test_empty_private_data_answers():
    # the size of a private dataset is private: no exception on empty data
    fake_points, fake_labels = privbayes.privbayes_synthetic(np.zeros((0, 2)), np.zeros(0, dtype=int), 2, 1.0,
                                                             np.random.default_rng(0), n_samples=7)
    assert fake_points.shape == (7, 2) and fake_labels.shape == (7,)


def test_studies_add_the_privbayes_method():
    rng = np.random.default_rng(3)
    points, labels = _small(rng, 400)
    rn = c.rn_study(points, labels, 2, [1.0], [10], 2, 1, rng, privbayes={})
    knn = c.knn_study(points, labels, 2, [1.0], [5], 20, 2, 1, rng, privbayes={})
    assert "PrivBayes" in set(rn.method) and "PrivBayes" in set(knn.method)
    assert len(rn[rn.method == "PrivBayes"]) == 2 and len(knn[knn.method == "PrivBayes"]) == 2
    without = c.rn_study(points, labels, 2, [1.0], [10], 2, 1, rng)
    assert "PrivBayes" not in set(without.method)


def test_paired_difference_matches_an_independent_paired_t_test():
    import pandas as pd
    from scipy import stats

    a = np.array([0.9, 0.8, 0.85, 0.95, 0.7])
    b = np.array([0.6, 0.7, 0.9, 0.5, 0.65])
    rows = [dict(dataset="x", fold=f, repeat=0, method=m, accuracy=v)
            for m, values in (("A", a), ("B", b)) for f, v in enumerate(values)]
    table = pd.DataFrame(rows).sample(frac=1.0, random_state=0)  # order must not matter: rows are matched
    result = c.paired_difference(table, "A", "B", "dataset").iloc[0]
    d = a - b
    assert result["difference"] == pytest.approx(d.mean())
    assert result["ci95"] == pytest.approx(stats.t.ppf(0.975, 4) * d.std(ddof=1) / np.sqrt(5))
    assert result["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert result["pairs"] == 5 and result["wins"] == 4
    with pytest.raises(ValueError, match="pair"):
        c.paired_difference(table[table.fold == 0], "A", "B", "dataset")  # one pair only


@pytest.mark.parametrize("size", [0, 1, 2])
def test_privbayes_answers_on_empty_and_tiny_data(size):
    # |D| is private: an exception on D = {} that D + one record does not raise would tell them apart.
    points, labels = np.full((size, 2), 0.5), np.zeros(size, dtype=int)
    synthetic, synthetic_labels = privbayes.privbayes_synthetic(points, labels, 2, 1.0, np.random.default_rng(7))
    assert synthetic.shape == (size, 2) and synthetic_labels.shape == (size,)
    assert np.all((0 <= synthetic) & (synthetic <= 1)) and np.all((0 <= synthetic_labels) & (synthetic_labels < 2))
    # an explicit public output size is honoured whatever |D| is
    fixed, fixed_labels = privbayes.privbayes_synthetic(points, labels, 2, 1.0, np.random.default_rng(7), n_samples=5)
    assert fixed.shape == (5, 2) and fixed_labels.shape == (5,)


def test_each_mutual_information_once_gives_the_same_synthetic_data(monkeypatch):
    # The remembered mutual information (one computation per child and ordered parents) against
    # DataSynthesizer's own recomputation at every step: the same network, noise and data, bit for bit.
    rng = np.random.default_rng(11)
    points = rng.random((200, 5))
    labels = (points[:, 0] + points[:, 1] > 1).astype(int)
    fast = privbayes.privbayes_synthetic(points, labels, 2, 2.0, np.random.default_rng(4), degree=2, bins=5)
    monkeypatch.setattr(privbayes, "_remembered", lambda function: function)
    plain = privbayes.privbayes_synthetic(points, labels, 2, 2.0, np.random.default_rng(4), degree=2, bins=5)
    np.testing.assert_array_equal(fast[0], plain[0])
    np.testing.assert_array_equal(fast[1], plain[1])


def test_remembered_computes_once_per_child_and_ordered_parents():
    import pandas as pd

    frame = pd.DataFrame({"a": list("xyxy"), "b": list("xxyy"), "c": list("xyyx")})
    calls = []
    remembered = privbayes._remembered(lambda x, y: calls.append((x.name, tuple(y.columns))) or len(calls))
    assert remembered(frame["a"], frame[["b", "c"]]) == 1
    assert remembered(frame["a"], frame[["b", "c"]]) == 1      # read back, not recomputed
    assert remembered(frame["a"], frame[["c", "b"]]) == 2      # another order is another float
    assert remembered(frame["b"], frame[["c"]]) == 3
    assert calls == [("a", ("b", "c")), ("a", ("c", "b")), ("b", ("c",))]


def test_copies_in_parallel_are_the_sequential_copies():
    # privbayes_copies draws the seeds in the order of the sequential calls and fits in two processes.
    rng_points = np.random.default_rng(12)
    points = rng_points.random((150, 3))
    labels = (points[:, 0] > 0.5).astype(int)
    sequential_rng, parallel_rng = np.random.default_rng(21), np.random.default_rng(21)
    sequential = [privbayes.privbayes_synthetic(points, labels, 2, e, sequential_rng, degree=1, bins=4)
                  for e in (0.5, 2.0, 8.0)]
    parallel = privbayes.privbayes_copies(points, labels, 2, (0.5, 2.0, 8.0), parallel_rng, degree=1, bins=4,
                                          n_jobs=2)
    for (a_points, a_labels), (b_points, b_labels) in zip(sequential, parallel):
        np.testing.assert_array_equal(a_points, b_points)
        np.testing.assert_array_equal(a_labels, b_labels)
    assert sequential_rng.random() == parallel_rng.random()  # the caller's stream continues at the same place
    # empty data: the data-free answer, drawn from rng as privbayes_synthetic draws it
    empty = privbayes.privbayes_copies(np.zeros((0, 3)), np.zeros(0, dtype=int), 2, (1.0,), np.random.default_rng(3))
    assert empty[0][0].shape == (0, 3)
