"""DataSynthesizer on public domains, silent, leaving the global random state as it was.

DataSynthesizer's correlated attribute mode (its PrivBayes) reads from the data what
PrivBayes takes as public, seeds and draws from the global random generators, prints its
progress and starts a process pool per step of its network search.
:func:`datasynthesizer_patched` is the one place that changes this, for the length of a
``with`` block; the replacements it installs are defined here. No privacy is spent in
this module: the replacements are what makes the accounting of
:func:`dpnn.privbayes.synthetic.privbayes_synthetic` hold.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import random
import warnings

import numpy as np

__all__ = ["datasynthesizer_patched", "count_noise_scale"]


def count_noise_scale(
    n_attributes: int, n_parents: int, epsilon_tables: float
) -> float:
    """Laplace scale on PrivBayes's count tables: ``2 (d - k) / epsilon_tables``.

    ``d = n_attributes``, ``k = n_parents`` (the network's degree), ``epsilon_tables``
    the budget of all d - k tables together. Replacing one record moves one count of a
    table down by 1 and another up by 1 (L1 sensitivity 2), so each table is
    ``epsilon_tables / (d - k)``-DP and the d - k tables compose to ``epsilon_tables``.
    """
    return 2.0 * (n_attributes - n_parents) / epsilon_tables


class _SerialPool:
    """Stand-in for ``multiprocessing.Pool`` with the same ``map`` result, run in this
    process."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, function, iterable):
        return [function(item) for item in iterable]


def _remembered(mutual_information):
    """``mutual_information(child_column, parents_frame)`` computed once per (child,
    ordered parents) and remembered.

    For one ``with`` block of :func:`datasynthesizer_patched` only, where every column
    comes from the same encoded dataset: the key is the column names (the parents' order
    kept, since a different order gives a different float). The values are the ones
    DataSynthesizer computes.
    """
    memory = {}

    def remembered(labels_x, labels_y):
        key = (labels_x.name, tuple(labels_y.columns))
        if key not in memory:
            memory[key] = mutual_information(labels_x, labels_y)
        return memory[key]

    return remembered


def _public_sensitivity(calculate_sensitivity, binary):
    """DataSynthesizer's ``calculate_sensitivity`` with "binary" read from ``binary``.

    ``binary`` maps each attribute to whether its *public* domain has two values. The
    formulas are PrivBayes's Lemma 1 as DataSynthesizer computes them (its own function
    ``calculate_sensitivity`` is called); only its data-derived ``attr_to_is_binary``
    argument is ignored.
    """

    def sensitivity(num_tuples, child, parents, attr_to_is_binary):
        return calculate_sensitivity(num_tuples, child, parents, binary)

    return sensitivity


def _public_marginals(sizes):
    """A replacement for DataSynthesizer's ``get_noisy_distribution_of_attributes`` over
    the public domain.

    DataSynthesizer enumerates the cells of a marginal as ``0..max`` of the encoded
    values *seen in the data* (PrivBayes.py, ``get_noisy_distribution_of_attributes``):
    bins above the data's largest one, and labels above the largest present, get no cell
    and hence probability 0, which reveals the data's range. This version enumerates
    every cell of the public domain (``sizes``: cells per attribute), in the same order
    (``itertools.product``), with Laplace noise of scale :func:`count_noise_scale` on
    the counts (twice DataSynthesizer's, which covers an L1 change of 1 only) for a
    marginal of k + 1 of the d attributes, and the same clipping at 0. The noise is
    drawn from ``numpy.random``'s global generator, as DataSynthesizer draws it.
    """
    import pandas as pd

    def noisy_marginal(attributes, encoded_dataset, epsilon=0.1):
        shape = tuple(sizes[name] for name in attributes)
        codes = [encoded_dataset[name].to_numpy(dtype=np.intp) for name in attributes]
        counts = np.bincount(
            np.ravel_multi_index(codes, shape), minlength=int(np.prod(shape))
        ).astype(float)
        if epsilon:
            scale = count_noise_scale(
                encoded_dataset.shape[1], len(attributes) - 1, epsilon
            )
            counts = np.maximum(
                counts + np.random.laplace(0.0, scale, size=counts.size), 0.0
            )
        cells = pd.DataFrame(
            np.indices(shape).reshape(len(shape), -1).T, columns=list(attributes)
        )
        cells["count"] = counts
        return cells

    return noisy_marginal


@contextlib.contextmanager
def datasynthesizer_patched(seed: int, sizes: dict, *, arrays: bool = True):
    """Run DataSynthesizer inside the block on the public domains ``sizes``, with the
    global random generators seeded by ``seed``, silently; everything replaced is put
    back on leaving, also when the block raises.

    ``sizes`` maps each attribute (column) to the number of cells of its public domain:
    a feature's histogram bins, the label's number of labels. ``seed`` seeds the global
    generators on entry; pass the same ``seed`` to DataSynthesizer's calls, which
    reseed them from it. Replaced for the length of the block, and why:

    In ``DataSynthesizer.lib.PrivBayes``:

    - ``calculate_sensitivity``: PrivBayes's Lemma 1 gives the mutual-information score
      a smaller sensitivity when the child or its single parent is binary, and
      DataSynthesizer decides "binary" from the data (``unique().size <= 2``), so one
      record moving into a third value changes the sensitivity and the network's law
      can move far more than e^epsilon between neighbours. The replacement reads
      "binary" from ``sizes`` (two cells).
    - ``get_noisy_distribution_of_attributes``: DataSynthesizer's noisy marginals have
      cells only up to the largest value present in the data (a leak of the data's
      range), and Laplace noise for an L1 change of 1; the replacement
      (:func:`_public_marginals`) has every cell of the public domain and the noise of
      :func:`count_noise_scale` (L1 change 2 under replacing one record).
    - ``mutual_information``: the greedy network search recomputes the score of every
      (child, parents) candidate at every step although the data do not change within
      a block; the replacement computes each once (:func:`_remembered`, the same float).
    - ``Pool``: DataSynthesizer starts a ``multiprocessing.Pool`` per added attribute,
      which costs more than it saves on a small shared machine; the replacement maps
      serially in this process (the same list; the work is deterministic).
    - ``worker``, if ``arrays``: the network scores from integer codes
      (:func:`dpnn.privbayes.arrays.network_worker`).

    If ``arrays``, also ``DataSynthesizer.DataGenerator.DataGenerator``'s static method
    ``generate_encoded_dataset`` (the sampling) and
    ``DataSynthesizer.DataDescriber.construct_noisy_conditional_distributions`` (the
    split of the noisy tables into conditionals), by their array versions in
    :mod:`dpnn.privbayes.arrays`. The array paths give the same floats and draws as
    DataSynthesizer's pandas code, only faster; ``arrays=False`` keeps the latter.

    Global state: the states of ``random`` and of ``numpy.random``'s legacy global
    generator, which DataSynthesizer seeds and draws from, are saved and then seeded;
    ``sys.stdout`` goes to a buffer (DataSynthesizer's progress prints) and warnings
    are ignored (scikit-learn's and pandas'). So the caller's own global draws continue
    where they were, and the same ``seed`` gives the same result.

    The seven attributes (all saved, whether or not ``arrays``) and both generator
    states are restored in a ``finally`` block, stdout and the warning filters by their
    own context managers inside it. The block spends no privacy itself; what it
    replaces makes the accounting of
    :func:`dpnn.privbayes.synthetic.privbayes_synthetic` hold. Module attributes and
    global generators belong to the whole process: not for use from several threads at
    once.
    """
    from DataSynthesizer.DataGenerator import DataGenerator
    from DataSynthesizer.lib import PrivBayes as privbayes_module

    from . import arrays as array_paths

    describer_module = importlib.import_module("DataSynthesizer.DataDescriber")
    replaced = [
        (privbayes_module, "calculate_sensitivity"),
        (privbayes_module, "get_noisy_distribution_of_attributes"),
        (privbayes_module, "mutual_information"),
        (privbayes_module, "Pool"),
        (privbayes_module, "worker"),
        (DataGenerator, "generate_encoded_dataset"),
        (describer_module, "construct_noisy_conditional_distributions"),
    ]
    saved = [(owner, name, vars(owner)[name]) for owner, name in replaced]
    numpy_state, python_state = np.random.get_state(), random.getstate()
    try:
        binary = {name: size == 2 for name, size in sizes.items()}
        privbayes_module.calculate_sensitivity = _public_sensitivity(
            privbayes_module.calculate_sensitivity, binary
        )
        privbayes_module.get_noisy_distribution_of_attributes = _public_marginals(
            {name: int(size) for name, size in sizes.items()}
        )
        privbayes_module.mutual_information = _remembered(
            privbayes_module.mutual_information
        )
        privbayes_module.Pool = _SerialPool
        if arrays:
            privbayes_module.worker = array_paths.network_worker(
                privbayes_module.mutual_information
            )
            DataGenerator.generate_encoded_dataset = staticmethod(
                array_paths.generate_encoded_dataset
            )
            describer_module.construct_noisy_conditional_distributions = (
                array_paths.construct_noisy_conditional_distributions
            )
        random.seed(seed)
        np.random.seed(seed)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
        np.random.set_state(numpy_state)
        random.setstate(python_state)
