"""The studies of notebook 09 give the same tables with their fast paths as without.

The r-N and k-NN studies with the PrivBayes comparator run DataSynthesizer on arrays
(:mod:`dpnn.privbayes_arrays`); the comparison with diffprivlib evaluates its bounded
Laplace scale search once per step. Each study is run at a small size with fixed
seeds, once as the library runs it and once with the fast path switched off
(DataSynthesizer's own functions; diffprivlib's own scale search), and the tables must
be equal value for value.
"""

import contextlib
import functools

import numpy as np
import pandas as pd

from dpnn import classification as c
from dpnn import data, privbayes
from dpnn.classification import studies


def test_studies_with_privbayes_equal_datasynthesizers_own_functions(monkeypatch):
    points, labels = data.classification_dataset("moons", seed=7)
    points, labels = points[:250], labels[:250]
    arguments = dict(privbayes={"degree": 2}, n_jobs=1)
    def run():
        return (c.rn_study(points, labels, 2, [1.0], [10, 25], 2, 1,
                           np.random.default_rng(1), **arguments),
                c.knn_study(points, labels, 2, [1.0], [1, 5], 20, 2, 1,
                            np.random.default_rng(2), **arguments))

    fast = run()
    monkeypatch.setattr(privbayes, "_synthesize",
                        functools.partial(privbayes._synthesize, arrays=False))
    reference = run()
    for found, expected in zip(fast, reference):
        assert "PrivBayes" in set(found.method)
        pd.testing.assert_frame_equal(found, expected, check_exact=True)


def test_bounded_laplace_scale_equals_diffprivlibs_search():
    from diffprivlib.mechanisms import LaplaceBoundedDomain

    rng = np.random.default_rng(0)
    for _ in range(300):
        sensitivity = float(rng.uniform(0.01, 1.0)) ** 2
        n = int(rng.integers(1, 2000))
        mechanism = LaplaceBoundedDomain(
            epsilon=float(10 ** rng.uniform(-3, 1)),
            delta=float(rng.choice([0.0, 1e-5])),
            sensitivity=sensitivity, lower=0, upper=sensitivity * n)
        assert studies._bounded_laplace_scale(mechanism) == mechanism._find_scale()


def test_other_classifiers_study_equals_diffprivlibs_scale_search(monkeypatch):
    for name in ("iris", "wine"):
        points, labels = data.classification_dataset(name, seed=7)
        n_labels = int(labels.max() + 1)

        def run():
            return c.other_classifiers_study(points, labels, n_labels, [0.5, 2.0], 5,
                                             20, 2, 3, np.random.default_rng(4),
                                             n_jobs=1)

        fast = run()
        with monkeypatch.context() as patch:
            patch.setattr(studies, "_bounded_laplace_scales_found_once",
                          contextlib.nullcontext)
            reference = run()
        pd.testing.assert_frame_equal(fast, reference, check_exact=True)
