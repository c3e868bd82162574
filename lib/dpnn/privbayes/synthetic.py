"""PrivBayes synthetic copies of a labelled dataset, by DataSynthesizer's correlated
attribute mode on public domains.

:func:`privbayes_synthetic` checks the inputs, writes the data and the public domains
for DataSynthesizer and runs it inside
:func:`dpnn.privbayes.patching.datasynthesizer_patched`; :func:`privbayes_copies` makes
one copy per budget over several processes. Each copy is epsilon-DP under replacing one
record (see :func:`privbayes_synthetic`).
"""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from .._validation import finite_array, generator, positive_finite
from .patching import datasynthesizer_patched

__all__ = ["privbayes_synthetic", "privbayes_copies"]


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

    Parameters
    ----------
    points : (n, d) array
        Features, inside the public box ``bounds``.
    labels : (n,) array of int
        Labels in ``0..n_labels-1``.
    n_labels : int
        The public number of labels, >= 2.
    epsilon : float
        Total budget, > 0, split as described in the Notes.
    rng : numpy.random.Generator or seed
        Decides the output: one seed is drawn from it for DataSynthesizer, whose use of
        the global random generators is isolated (see
        :func:`~dpnn.privbayes.patching.datasynthesizer_patched`).
    bounds : (low, high), default (0.0, 1.0)
        The public range of every feature: a pair of scalars or of length-d arrays.
    degree : int, default 2
        Maximum number of parents in the Bayesian network (PrivBayes's k), >= 1.
    bins : int, default 20
        Histogram bins per feature, >= 2.
    n_samples : int, optional
        Synthetic records to draw, >= 0 and public. Default: the number of input
        records (as DataSynthesizer and the paper do; this size is then released, like
        PrivBayes's own output size).

    Returns
    -------
    synthetic_points : (n_samples, d) array
        Features drawn uniformly inside their bin, within ``bounds``.
    synthetic_labels : (n_samples,) array of int
        Labels in ``0..n_labels-1``.

    Raises
    ------
    ValueError
        If an argument is malformed: points not finite, not 2-D or outside ``bounds``,
        labels not integers in ``0..n_labels-1``, or a budget, degree, bin count or
        size out of range. Never because of the number of records: empty and
        one-record datasets answer, with uniform synthetic data.

    Notes
    -----
    Privacy: epsilon-DP under *replacing* one record (|D| public), PrivBayes's own
    setting, not under adding or removing one. DataSynthesizer's correlated mode spends
    epsilon/2 on the network (the exponential mechanism over the d - 1 choices, with
    PrivBayes's Lemma 1 sensitivities and "binary" read from the public domain:
    ``bins == 2``, ``n_labels == 2``) and epsilon/2 on the noisy conditionals: the
    d - k count tables get Laplace noise of scale ``2 (d - k) / (epsilon/2)``
    (:func:`~dpnn.privbayes.patching.count_noise_scale`), PrivBayes's Algorithm 1,
    Lap(4 (d - k) / (n epsilon)) on probabilities. It also computes noisy one-way
    marginals at a further epsilon, read only for a child value that conditional
    sampling leaves undefined; the conditionals cover the whole product of the public
    domains, so they are never read and the copy depends only on the first two parts.

    Nothing about the domains is read from the data: the features' domain is the box
    ``bounds``, the labels' the set ``0..n_labels-1``, and every attribute's type is
    declared. A classifier trained on the copy is post-processing, as private.
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
        # released, as PrivBayes releases its output size (see privbayes_synthetic)
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

    See :func:`privbayes_synthetic`. The data go to DataSynthesizer as a CSV file, with
    the public domains (``low``, ``high``, the label set) and every attribute's type
    declared; it runs inside
    :func:`~dpnn.privbayes.patching.datasynthesizer_patched`. ``arrays``: run the
    network scores, the noisy conditionals' split and the sampling on arrays
    (:mod:`dpnn.privbayes.arrays`, the same values and draws); False runs
    DataSynthesizer's own functions.
    """
    import pandas as pd
    from DataSynthesizer.DataDescriber import DataDescriber
    from DataSynthesizer.DataGenerator import DataGenerator

    features = [f"x{i}" for i in range(points.shape[1])]
    frame = pd.DataFrame(points, columns=features)
    frame["label"] = [_label_name(int(v)) for v in labels]
    sizes = {**{name: int(bins) for name in features}, "label": int(n_labels)}
    with (
        datasynthesizer_patched(seed, sizes, arrays=arrays),
        tempfile.TemporaryDirectory() as folder,
    ):
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
                name: [float(low[i]), float(high[i])] for i, name in enumerate(features)
            },
            seed=seed,
        )
        describer.save_dataset_description_to_file(description)
        synthesizer = DataGenerator()
        synthesizer.generate_dataset_in_correlated_attribute_mode(
            int(n_samples), description, seed=seed
        )
        synthetic = synthesizer.synthetic_dataset
    label_of = {_label_name(v): v for v in range(n_labels)}
    synthetic_points = np.clip(synthetic[features].to_numpy(dtype=float), low, high)
    synthetic_labels = np.array([label_of[v] for v in synthetic["label"]], dtype=int)
    return synthetic_points, synthetic_labels
