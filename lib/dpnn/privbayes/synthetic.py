"""PrivBayes synthetic data (Zhang, Cormode, Procopiuc, Srivastava and Xiao, SIGMOD
2014), through DataSynthesizer.

Gursoy et al. (§5, Figs. 7-14) compare their private nearest-neighbour classifiers with
PrivBayes: release an epsilon-DP synthetic copy of the training data, then train the
*non-private* classifier on it (post-processing). We do not re-implement PrivBayes: the
maintained ``DataSynthesizer`` package (Ping, Stoyanovich and Howe 2017) implements it
as its "correlated attribute mode". This module only wraps it so that it obeys the
companion's rules:

* **public domains.** Left alone, DataSynthesizer reads each attribute's min and max
  (and a categorical attribute's values) from the data, which is not private. We pass
  the public feature box (``bounds``) and the label set ``0..n_labels-1`` as its
  domains, and declare every attribute's type, so nothing about the domain is read from
  the data.
* **binary from the domain.** PrivBayes's Lemma 1 gives the mutual-information score a
  smaller sensitivity when the child or its single parent is binary. DataSynthesizer
  decides "binary" from the data (``unique().size <= 2``), so one record moving into a
  third value changes the sensitivity, and the network's law can move far more than
  e^epsilon between neighbours. During the call :func:`_public_sensitivity` replaces its
  sensitivity with one that reads "binary" from the public domain: a feature with
  ``bins == 2``, the label with ``n_labels == 2``.
* **no global random state.** DataSynthesizer seeds and draws from ``numpy.random``'s
  and ``random``'s global generators. :func:`privbayes_synthetic` saves both states,
  seeds them from the caller's ``rng``, and restores them afterwards: the caller's other
  draws are unaffected and the same ``rng`` gives the same synthetic data.
* **silence.** Its progress prints and scikit-learn's warnings are swallowed.
* **the whole public domain in every marginal.** DataSynthesizer's noisy marginals
  enumerate only the bins from 0 to the largest one present in the data (a leak of the
  data's range); during the call they are computed by :func:`_public_marginals`, which
  enumerates the public domain.
* **serial.** It builds the network with a ``multiprocessing.Pool`` per added attribute;
  on a shared two-core machine that costs more than it saves, so during the call its
  ``Pool`` is replaced by a serial map that returns the same list (the work is
  deterministic).
* **arrays.** The network scores, the split of the noisy tables into conditionals and
  the sampling run on numpy arrays (:mod:`dpnn.privbayes.arrays`): the same floats
  and draws.
* **each mutual information once.** Its greedy search recomputes the mutual information
  of every (child, parents) candidate at every step, although the data do not change
  within a call; during the call each value is computed once and then read back
  (:func:`_remembered`), the same float, so the network, the noise and the synthetic
  data are unchanged (5 times faster with 30 attributes).

Privacy accounting of DataSynthesizer's correlated mode at ``epsilon``: epsilon/2 for
the network (exponential mechanism, PrivBayes Lemma 1 sensitivities, over the d - 1
choices), epsilon/2 for the noisy conditional distributions: the d - k count tables get
Laplace noise of scale ``2 (d - k) / (epsilon/2)`` (:func:`count_noise_scale`), since
replacing one record moves one count down and another up (L1 change 2); this is
PrivBayes's Algorithm 1, Lap(4 (d - k) / (n epsilon)) on probabilities.
(DataSynthesizer's own scale, ``(d - k) / (epsilon/2)``, covers an L1 change of 1 and
would make the tables cost epsilon, not epsilon/2.) It also computes noisy one-way
marginals at a further ``epsilon`` in total, which the generator reads only for a child
value left undefined after conditional sampling; the conditionals cover the full product
of the (public) domains, so that fallback is never used and the synthetic data depend
only on the first two parts. Like PrivBayes itself, the sensitivities use the number of
records, and by default the synthetic copy has as many records as the input: the
guarantee is therefore epsilon-DP under *replacing* one record (|D| public), PrivBayes's
own setting, not under adding or removing one. Pass a public ``n_samples`` to fix the
output size. Empty and one-record datasets answer (with uniform synthetic data), so no
exception depends on |D|. Research and teaching code, not for protecting real users.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import random
import tempfile
import warnings

import numpy as np

from .._validation import finite_array, generator, positive_finite

__all__ = ["privbayes_synthetic", "privbayes_copies", "count_noise_scale"]


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

    For one call of :func:`privbayes_synthetic` only, where every column comes from the
    same encoded dataset: the key is the column names (the parents' order kept, since a
    different order gives a different float). The values are the ones DataSynthesizer
    computes.
    """
    memory = {}

    def remembered(labels_x, labels_y):
        key = (labels_x.name, tuple(labels_y.columns))
        if key not in memory:
            memory[key] = mutual_information(labels_x, labels_y)
        return memory[key]

    return remembered


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


def _public_sensitivity(binary):
    """DataSynthesizer's ``calculate_sensitivity`` with "binary" read from ``binary``.

    ``binary`` maps each attribute to whether its *public* domain has two values. The
    formulas are PrivBayes's Lemma 1 as DataSynthesizer computes them (its own function
    is called); only its data-derived ``attr_to_is_binary`` argument is ignored.
    """
    from DataSynthesizer.lib.PrivBayes import calculate_sensitivity

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
    the counts (twice DataSynthesizer's: see the module docstring) for a marginal of k +
    1 of the d attributes, and the same clipping at 0.
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


def _label_name(value: int) -> str:
    return f"label{value:04d}"  # a string DataSynthesizer cannot mistake for a number


def privbayes_synthetic(
    points,
    labels,
    n_labels,
    epsilon,
    rng,
    *,
    bounds=(0.0, 1.0),
    degree=2,
    bins=20,
    n_samples=None,
):
    """An epsilon-DP synthetic copy ``(points, labels)`` of a labelled dataset, by
    PrivBayes.

    Parameters ---------- points : (n, d) array of features inside the public box
    ``bounds``. labels : (n,) integers in ``0..n_labels-1``. n_labels : public number of
    labels. epsilon : total budget (> 0), split as described in the module docstring.
    rng : numpy Generator (or seed); seeds DataSynthesizer, whose global-state use is
    isolated. bounds : public (low, high) of every feature; a pair of scalars or of
    length-d arrays. degree : maximum number of parents in the Bayesian network
    (PrivBayes's k), >= 1. bins : histogram bins per numeric attribute, >= 2. n_samples
    : synthetic records to draw (>= 0, public); default the number of input records (as
        DataSynthesizer and the paper do; this size is then released, like PrivBayes's
        own output size).

    Returns ``(synthetic_points, synthetic_labels)``. Features are drawn uniformly
    inside their bin.
    """
    rng = generator(rng)
    points, labels, low, high, n_samples = _checked(
        points, labels, n_labels, epsilon, bounds, degree, bins, n_samples
    )
    # DataSynthesizer needs records; a private size answers anyway
    if n_samples == 0 or len(labels) < 2:
        synthetic = rng.uniform(low, high, size=(n_samples, points.shape[1]))
        return synthetic, rng.integers(n_labels, size=n_samples)
    seed = int(rng.integers(2**32 - 1))
    return _synthesize(
        points, labels, n_labels, epsilon, seed, low, high, degree, bins, n_samples
    )


def privbayes_copies(
    points,
    labels,
    n_labels,
    epsilons,
    rng,
    *,
    bounds=(0.0, 1.0),
    degree=2,
    bins=20,
    n_samples=None,
    n_jobs=1,
):
    """:func:`privbayes_synthetic` at each budget of ``epsilons``, over ``n_jobs``
    processes.

    The same copies as the sequential calls, bit for bit: each call's only draw from
    ``rng`` is DataSynthesizer's seed, so the seeds are drawn here in the same order,
    and the fits, which depend on nothing else, run in parallel (joblib). Each copy is
    epsilon-DP as in :func:`privbayes_synthetic`.
    """
    rng = generator(rng)
    options = {"bounds": bounds, "degree": degree, "bins": bins, "n_samples": n_samples}
    checked = [_checked(points, labels, n_labels, e, **options) for e in epsilons]
    # the data-free answer, drawn from rng
    if not checked or checked[0][4] == 0 or len(checked[0][1]) < 2:
        return [
            privbayes_synthetic(points, labels, n_labels, e, rng, **options)
            for e in epsilons
        ]
    from joblib import Parallel, delayed

    seeds = [int(rng.integers(2**32 - 1)) for _ in checked]
    return Parallel(n_jobs=n_jobs)(
        delayed(_synthesize)(
            data, classes, n_labels, e, seed, low, high, degree, bins, size
        )
        for e, seed, (data, classes, low, high, size) in zip(epsilons, seeds, checked)
    )


def _integer_labels(labels, n):
    """``labels`` as ints, shape (n,); a non-integer is refused, not truncated."""
    raw = np.asarray(labels)
    if raw.shape != (n,):
        raise ValueError(f"labels must have shape ({n},), got {raw.shape}")
    if raw.dtype.kind in "iu":
        return raw.astype(np.int64)
    if raw.dtype.kind == "b" or (raw.size and raw.dtype.kind != "f"):
        raise ValueError(f"labels must be integers, got dtype {raw.dtype}")
    if raw.size and not np.all(np.isfinite(raw) & (raw == np.round(raw))):
        raise ValueError(
            "labels must be integers in 0..n_labels-1 "
            "(a label such as 0.5 or NaN is refused, not truncated)"
        )
    return raw.astype(np.int64)


def _checked(points, labels, n_labels, epsilon, bounds, degree, bins, n_samples):
    """The checked inputs of :func:`privbayes_synthetic`: (points, labels, low, high,
    n_samples)."""
    points = finite_array(points, "points", allow_empty=True)
    if points.ndim != 2 or points.shape[1] < 1:
        raise ValueError(
            f"points must be a 2-D array (n, d) with d >= 1, got shape {points.shape}"
        )
    labels = _integer_labels(labels, points.shape[0])
    if not isinstance(n_labels, (int, np.integer)) or n_labels < 2:
        raise ValueError(f"n_labels must be an integer >= 2, got {n_labels!r}")
    epsilon = positive_finite(epsilon, "epsilon")
    if not isinstance(degree, (int, np.integer)) or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    if not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")
    dimension = points.shape[1]
    low = np.broadcast_to(np.asarray(bounds[0], dtype=float), (dimension,))
    high = np.broadcast_to(np.asarray(bounds[1], dtype=float), (dimension,))
    if not np.all(low < high):
        raise ValueError(
            f"bounds must satisfy low < high in every coordinate, got {bounds!r}"
        )
    if np.any(points < low) or np.any(points > high):
        raise ValueError(
            "points must lie inside the public box bounds (clip them first)"
        )
    if len(labels) and (labels.min() < 0 or labels.max() >= n_labels):
        raise ValueError(f"labels must lie in 0..{n_labels - 1}")
    if n_samples is None:
        # released, as PrivBayes releases its output size (see the module docstring)
        n_samples = len(labels)
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
        raise ValueError(f"n_samples must be an integer >= 0, got {n_samples!r}")
    return points, labels, low, high, n_samples


def _synthesize(
    points,
    labels,
    n_labels,
    epsilon,
    seed,
    low,
    high,
    degree,
    bins,
    n_samples,
    arrays=True,
):
    """DataSynthesizer's correlated mode on checked inputs, seeded with ``seed``.

    See :func:`privbayes_synthetic`. ``arrays``: run the network scores, the noisy
    conditionals' split and the sampling on arrays (:mod:`dpnn.privbayes.arrays`, the
    same values and draws); False runs DataSynthesizer's own functions.
    """
    describer_module = importlib.import_module("DataSynthesizer.DataDescriber")
    import pandas as pd
    from DataSynthesizer.DataDescriber import DataDescriber
    from DataSynthesizer.DataGenerator import DataGenerator
    from DataSynthesizer.lib import PrivBayes as privbayes_module

    from . import arrays as array_paths

    features = [f"x{i}" for i in range(points.shape[1])]
    frame = pd.DataFrame(points, columns=features)
    frame["label"] = [_label_name(int(v)) for v in labels]
    numpy_state, python_state = np.random.get_state(), random.getstate()
    saved = (
        privbayes_module.Pool,
        privbayes_module.get_noisy_distribution_of_attributes,
        privbayes_module.mutual_information,
        privbayes_module.calculate_sensitivity,
        privbayes_module.worker,
        DataGenerator.__dict__["generate_encoded_dataset"],
        describer_module.construct_noisy_conditional_distributions,
    )
    # "binary" from the public domain, never from the data
    binary = {**{name: bins == 2 for name in features}, "label": n_labels == 2}
    try:
        privbayes_module.calculate_sensitivity = _public_sensitivity(binary)
        privbayes_module.Pool = _SerialPool
        privbayes_module.mutual_information = _remembered(
            privbayes_module.mutual_information
        )
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
        privbayes_module.get_noisy_distribution_of_attributes = _public_marginals(
            {**{name: int(bins) for name in features}, "label": int(n_labels)}
        )
        with (
            tempfile.TemporaryDirectory() as folder,
            contextlib.redirect_stdout(io.StringIO()),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            source = os.path.join(folder, "data.csv")
            domain_file = os.path.join(folder, "domains.json")
            description = os.path.join(folder, "description.json")
            frame.to_csv(source, index=False)
            with open(domain_file, "w") as handle:
                json.dump({"label": [_label_name(v) for v in range(n_labels)]}, handle)
            describer = DataDescriber(histogram_bins=bins, category_threshold=0)
            describer.describe_dataset_in_correlated_attribute_mode(
                source,
                k=int(degree),
                epsilon=float(epsilon),
                attribute_to_datatype={
                    **{name: "Float" for name in features},
                    "label": "String",
                },
                attribute_to_is_categorical={
                    **{name: False for name in features},
                    "label": True,
                },
                attribute_to_is_candidate_key={
                    name: False for name in [*features, "label"]
                },
                categorical_attribute_domain_file=domain_file,
                numerical_attribute_ranges={
                    name: [float(low[i]), float(high[i])]
                    for i, name in enumerate(features)
                },
                seed=seed,
            )
            describer.save_dataset_description_to_file(description)
            synthesizer = DataGenerator()
            synthesizer.generate_dataset_in_correlated_attribute_mode(
                int(n_samples), description, seed=seed
            )
            synthetic = synthesizer.synthetic_dataset
    finally:
        (
            privbayes_module.Pool,
            privbayes_module.get_noisy_distribution_of_attributes,
            privbayes_module.mutual_information,
            privbayes_module.calculate_sensitivity,
            privbayes_module.worker,
            DataGenerator.generate_encoded_dataset,
            describer_module.construct_noisy_conditional_distributions,
        ) = saved
        np.random.set_state(numpy_state)
        random.setstate(python_state)
    label_of = {_label_name(v): v for v in range(n_labels)}
    synthetic_points = np.clip(synthetic[features].to_numpy(dtype=float), low, high)
    synthetic_labels = np.array([label_of[v] for v in synthetic["label"]], dtype=int)
    return synthetic_points, synthetic_labels
