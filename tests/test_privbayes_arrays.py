"""dpnn.privbayes.arrays gives what DataSynthesizer's own functions give, bit for bit.

The array paths replace three of DataSynthesizer's steps during a PrivBayes call (the
network search's scores, the split of the noisy tables into conditionals, the
sampling). Each is compared here with the function it replaces, on the same inputs with
the same global seed (DataSynthesizer's own code is the reference), and the whole
synthetic copy with the copy made by DataSynthesizer's functions
(``_synthesize(..., arrays=False)``); tests/test_gursoy_studies_fast.py does the same
for the studies of notebook 09.
"""

from itertools import product

import numpy as np
import pandas as pd
import pytest

from dpnn import data
from dpnn.privbayes import arrays, patching, synthetic


def _copy(points, labels, n_labels, epsilon, seed, degree, fast):
    pts, lab, low, high, size = synthetic._checked(
        points, labels, n_labels, epsilon, (0.0, 1.0), degree, 20, None
    )
    return synthetic._synthesize(
        pts, lab, n_labels, epsilon, seed, low, high, degree, 20, size, arrays=fast
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, degree, n, epsilon, seed",
    [
        ("iris", 2, None, 0.5, 11),
        ("iris", 2, None, 2.0, 12),
        ("moons", 2, 400, 1.0, 13),
        ("breast_cancer", 1, 150, 0.5, 14),
        ("wine", 1, None, 1.0, 15),
    ],
)
def test_synthetic_copy_equals_datasynthesizers_own_functions(
    name, degree, n, epsilon, seed
):
    points, labels = data.classification_dataset(name, seed=7)
    points, labels = points[:n], labels[:n]
    n_labels = int(labels.max() + 1)
    fast = _copy(points, labels, n_labels, epsilon, seed, degree, True)
    reference = _copy(points, labels, n_labels, epsilon, seed, degree, False)
    assert fast[0].tobytes() == reference[0].tobytes()
    np.testing.assert_array_equal(fast[1], reference[1])


def _string_frame(rng, n=200, columns=5, space=False):
    """Encoded values as the network search sees them: bins 0..19 as strings."""
    frame = pd.DataFrame(
        {f"x{j}": rng.integers(0, 20, n).astype(str) for j in range(columns)}
    )
    names = np.array(["label0000", "label0001", "label0002"])
    frame["label"] = names[rng.integers(0, 3, n)]
    if space:  # a value with a space: joined strings no longer sort like tuples
        frame["x0"] = np.where(frame["x0"] == "3", "3 a", frame["x0"])
    return frame


@pytest.mark.parametrize("space", [False, True])
@pytest.mark.parametrize("num_parents", [1, 2, 3])
def test_network_scores_equal_datasynthesizers_worker(num_parents, space):
    from DataSynthesizer.lib import PrivBayes as module

    frame = _string_frame(np.random.default_rng(num_parents), space=space)
    attributes = list(frame.columns)
    worker = arrays.network_worker(module.mutual_information)
    for child in attributes[4:]:
        V = attributes[:4]
        for split in range(len(V) - num_parents + 1):
            task = (child, V, num_parents, split, frame)
            expected = module.worker(task)
            assert worker(task) == expected  # the same candidates and the same floats
            assert worker(task) == expected  # and again from memory


def test_joined_strings_sort_like_tuples_only_without_spaces():
    values = ["1", "10", "2", "label0001", "9"]
    pairs = list(product(values, repeat=2))
    assert arrays._joins_in_order(values)
    assert sorted(pairs) == sorted(pairs, key=" ".join)
    assert not arrays._joins_in_order(["3 a", "3"])
    assert not arrays._joins_in_order(["", "1"])


@pytest.mark.parametrize("public", [False, True])
@pytest.mark.parametrize("degree", [1, 2, 3])
def test_conditionals_equal_datasynthesizers_construction(degree, public):
    from DataSynthesizer.lib import PrivBayes as module

    rng = np.random.default_rng(degree)
    encoded = pd.DataFrame({f"x{j}": rng.integers(0, 5, 300) for j in range(5)})
    encoded["x4"] = np.minimum(encoded["x4"], 3)  # a public value absent from the data
    network = [("x1", ["x0"]), ("x2", ["x1", "x0"])][: min(degree, 2)]
    names = ["x0", "x1", "x2", "x3", "x4"]
    for child in names[len(network) + 1 :]:
        chosen = rng.choice(names.index(child), degree, replace=False)
        network.append((child, [names[i] for i in chosen]))
    saved = module.get_noisy_distribution_of_attributes
    try:
        if public:
            module.get_noisy_distribution_of_attributes = patching._public_marginals(
                {n: 5 for n in names}
            )
        np.random.seed(3)
        expected = module.construct_noisy_conditional_distributions(
            network, encoded, 0.7
        )
        np.random.seed(3)
        found = arrays.construct_noisy_conditional_distributions(network, encoded, 0.7)
    finally:
        module.get_noisy_distribution_of_attributes = saved
    assert found == expected  # every key and every float
    assert all(
        list(found[name]) == list(expected[name])  # and the keys' order
        for name in found
        if isinstance(found[name], dict)
    )


def test_conditionals_split_on_arrays_for_the_public_tables():
    marginal = patching._public_marginals({"a": 3, "b": 2, "c": 4})
    stats = marginal(
        ["a", "b", "c"], pd.DataFrame({"a": [0, 2], "b": [1, 1], "c": [3, 0]}), 0.0
    )
    table = arrays._conditionals(
        stats, ["a", "b"], "c", lambda counts: counts / max(counts.sum(), 1)
    )
    assert list(table) == [str([a, b]) for a in range(3) for b in range(2)]
    assert table["[0, 1]"] == [0, 0, 0, 1] and table["[2, 1]"] == [1, 0, 0, 0]


def test_sampling_equals_datasynthesizers_generator():
    from DataSynthesizer.DataGenerator import DataGenerator

    sizes = {"a": 3, "b": 4, "c": 2}
    uniform = {name: list(np.full(size, 1 / size)) for name, size in sizes.items()}
    rng = np.random.default_rng(0)

    def dist(size):
        weights = rng.random(size)
        return list(weights / weights.sum())

    description = {
        "bayesian_network": [["b", ["a"]], ["c", ["b", "a"]]],
        "conditional_probabilities": {
            "a": dist(3),
            "b": {str([a]): dist(4) for a in range(3)},
            # one parents' value left out: its records take the child's one-way marginal
            "c": {
                str([b, a]): dist(2)
                for b in range(4)
                for a in range(3)
                if (a, b) != (1, 2)
            },
        },
        "attribute_description": {
            name: {"distribution_probabilities": p} for name, p in uniform.items()
        },
    }
    np.random.seed(5)
    expected = DataGenerator.generate_encoded_dataset(500, description)
    after_expected = np.random.random()
    np.random.seed(5)
    found = arrays.generate_encoded_dataset(500, description)
    assert np.random.random() == after_expected  # the same draws, no more, no fewer
    pd.testing.assert_frame_equal(found, expected)
