"""The studies of notebook 09 give the same tables with their fast paths as without.

The r-N and k-NN studies with the PrivBayes comparator run DataSynthesizer on arrays
(:mod:`dpnn.privbayes.arrays`). Each study is run at a small size with fixed seeds,
once as the library runs it and once with the fast path switched off
(DataSynthesizer's own functions), and the tables must be equal value for value.
"""

import functools

import numpy as np
import pandas as pd

from companion.studies import gursoy
from dpnn import data
from dpnn.privbayes import synthetic


def test_studies_with_privbayes_equal_datasynthesizers_own_functions(monkeypatch):
    points, labels = data.classification_dataset("moons", seed=7)
    points, labels = points[:250], labels[:250]
    arguments = dict(privbayes={"degree": 2}, n_jobs=1)

    def run():
        return (
            gursoy.rn_study(
                points,
                labels,
                2,
                [1.0],
                [10, 25],
                2,
                1,
                np.random.default_rng(1),
                **arguments,
            ),
            gursoy.knn_study(
                points,
                labels,
                2,
                [1.0],
                [1, 5],
                20,
                2,
                1,
                np.random.default_rng(2),
                **arguments,
            ),
        )

    fast = run()
    monkeypatch.setattr(
        synthetic, "_synthesize", functools.partial(synthetic._synthesize, arrays=False)
    )
    reference = run()
    for found, expected in zip(fast, reference):
        assert "PrivBayes" in set(found.method)
        pd.testing.assert_frame_equal(found, expected, check_exact=True)
