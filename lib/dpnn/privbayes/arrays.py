"""DataSynthesizer's PrivBayes search and sampling on arrays: the same values and draws.

:mod:`dpnn.privbayes` runs DataSynthesizer's correlated attribute mode. Three of its
steps spend nearly all their time in pandas bookkeeping, not in PrivBayes; inside
:func:`dpnn.privbayes.patching.datasynthesizer_patched` these functions replace them:

* the greedy network search scores every (child, parents) candidate by the mutual
  information of the child's column and the parents' joint column (PrivBayes §4).
  The parents' joint value is a string per record (``' '.join``), and scikit-learn
  sorts those strings to number the values. :func:`network_worker` numbers them
  from integer codes instead, in the same order, so scikit-learn's
  ``mutual_info_score`` sees the same contingency table and returns the same float;
  each value is computed once per call.
* the noisy conditionals (PrivBayes's Algorithm 1) split each noisy table into one
  distribution per parents' value with a pandas group and sort per value;
  :func:`construct_noisy_conditional_distributions` orders the table once.
* the sampling of the synthetic records filters the whole frame by evaluating a
  pandas expression per parents' value. :func:`generate_encoded_dataset` takes the
  same records by a boolean mask and draws from ``numpy.random`` with the same
  calls, in the same order.

No privacy is spent here: the functions compute what DataSynthesizer computes
(tests/test_privbayes_arrays.py compares each, and the synthetic copies, with
DataSynthesizer's own functions, bit for bit).
"""

from __future__ import annotations

import ast
from itertools import combinations

import numpy as np

__all__ = [
    "network_worker",
    "generate_encoded_dataset",
    "construct_noisy_conditional_distributions",
]


def _joins_in_order(values) -> bool:
    """Whether ``' '.join`` keeps tuple order here: no character at or below a space.

    Then a joined string is smaller than another exactly when its tuple of parts is
    smaller part by part (a part that is a prefix of the other is followed by a space
    or the end, both below any character of the longer part).
    """
    return all(isinstance(v, str) and v and min(v) > " " for v in values)


class _Codes:
    """Each column of a string frame as integer codes, in its sorted values' order."""

    def __init__(self, frame):
        self.frame = frame
        self.columns = {}

    def __call__(self, name):
        if name not in self.columns:
            column = self.frame[name].to_numpy()
            values, codes = np.unique(column, return_inverse=True)
            self.columns[name] = (
                codes.astype(np.int64),
                len(values),
                _joins_in_order(values),
            )
        return self.columns[name]

    def joint(self, names):
        """Codes of the joint values of ``names``, in joined-string order; or None."""
        codes, _, ordered = self(names[0])
        for name in names[1:]:
            more, size, also = self(name)
            codes, ordered = codes * size + more, ordered and also
        return codes if ordered else None


def network_worker(mutual_information):
    """DataSynthesizer's ``PrivBayes.worker``, scoring from codes, each score once.

    ``mutual_information`` is DataSynthesizer's function, used when the values could
    join out of order. Returns the same (candidates, scores) lists as the original.
    """
    from sklearn.metrics import mutual_info_score

    memory, coded = {}, {}

    def score(child, parents, dataset):
        key = (child, tuple(parents))
        if key not in memory:
            codes = coded.setdefault(id(dataset), (dataset, _Codes(dataset)))[1]
            joint = codes.joint(parents)
            if joint is None:
                memory[key] = mutual_information(dataset[child], dataset[parents])
            else:
                memory[key] = mutual_info_score(codes(child)[0], joint)
        return memory[key]

    def worker(paras):
        child, V, num_parents, split, dataset = paras
        pairs, scores = [], []
        if split + num_parents - 1 < len(V):
            for other_parents in combinations(V[split + 1 :], num_parents - 1):
                parents = [*other_parents, V[split]]
                pairs.append((child, parents))
                scores.append(score(child, parents, dataset))
        return pairs, scores

    return worker


def generate_encoded_dataset(n, description):
    """DataSynthesizer's ``generate_encoded_dataset`` on arrays, with the same draws.

    Samples the root from its noisy marginal, then each child, in the network's order,
    from its noisy conditional given each parents' value (the records holding that
    value, in record order), and fills any record left without a value from the child's
    one-way marginal: the same ``numpy.random.choice`` calls as the original.
    """
    import pandas as pd
    from numpy import random

    network = description["bayesian_network"]
    root = network[0][1][0]
    root_distribution = description["conditional_probabilities"][root]
    first = random.choice(len(root_distribution), size=n, p=root_distribution)
    columns = {root: first.astype(float)}
    for child, parents in network:
        values = columns.setdefault(child, np.full(n, np.nan))
        table = description["conditional_probabilities"][child]
        for instance, distribution in table.items():
            chosen = np.ones(n, dtype=bool)
            for parent, value in zip(parents, ast.literal_eval(instance)):
                chosen &= columns[parent] == value
            size = int(chosen.sum())
            if size:
                values[chosen] = random.choice(
                    len(distribution), size=size, p=distribution
                )
        attribute = description["attribute_description"][child]
        marginal = attribute["distribution_probabilities"]
        missing = np.isnan(values)
        values[missing] = random.choice(
            len(marginal), size=int(missing.sum()), p=marginal
        )
    order = [root] + [child for child, _ in network]
    return pd.DataFrame(
        {name: columns[name].astype(int) for name in order}, columns=order
    )


def _conditionals(stats, parents, child, normalize):
    """``{str(parents' value): distribution of the child}`` from counts, or None.

    DataSynthesizer groups ``stats`` by the parents (sorted keys), sorts each group by
    the child and normalises its counts; here one lexsort orders the rows the same way.
    None when a (parents, child) value repeats (the order within a group would then be
    pandas' to choose) or a value is not an integer.
    """
    table = stats[parents + [child]]
    if not all(np.issubdtype(dtype, np.integer) for dtype in table.dtypes):
        return None
    values = table.to_numpy(dtype=np.int64)
    counts = stats["count"].to_numpy(dtype=float)
    order = np.lexsort(values.T[::-1])
    values, counts = values[order], counts[order]
    if len(values) > 1 and not np.any(np.diff(values, axis=0), axis=1).all():
        return None
    new_parents = np.any(np.diff(values[:, :-1], axis=0), axis=1)
    starts = np.flatnonzero(np.r_[True, new_parents])
    ends = np.r_[starts[1:], len(values)]
    return {
        str(values[start, :-1].tolist()): normalize(counts[start:end]).tolist()
        for start, end in zip(starts, ends)
    }


def construct_noisy_conditional_distributions(
    bayesian_network, encoded_dataset, epsilon=0.1
):
    """DataSynthesizer's ``construct_noisy_conditional_distributions``, on arrays.

    The noisy marginals (PrivBayes's Algorithm 1) come from the same calls, in the same
    order, as in DataSynthesizer (its ``get_noisy_distribution_of_attributes``, which
    :mod:`dpnn.privbayes.patching` replaces by the public-domain version); only the
    split of each table into one normalised distribution per parents' value is done by
    :func:`_conditionals`, with the same floats and keys.
    """
    from DataSynthesizer.lib import PrivBayes as module
    from DataSynthesizer.lib.utils import normalize_given_distribution as normalize

    k = len(bayesian_network[-1][1])
    root = bayesian_network[0][1][0]
    first = [root] + [child for child, _ in bayesian_network[:k]]
    noisy = module.get_noisy_distribution_of_attributes
    noisy_first = noisy(first, encoded_dataset, epsilon)
    root_stats = noisy_first.loc[:, [root, "count"]].groupby(root).sum()["count"]
    conditionals = {root: normalize(root_stats).tolist()}
    for index, (child, parents) in enumerate(bayesian_network):
        if index <= k - 2:
            stats = noisy_first.copy().loc[:, parents + [child, "count"]]
            stats = stats.groupby(parents + [child], as_index=False).sum()
        elif index == k - 1:
            stats = noisy_first.loc[:, parents + [child, "count"]]
        else:
            stats = noisy(parents + [child], encoded_dataset, epsilon)
            stats = stats.loc[:, parents + [child, "count"]]
        table = _conditionals(stats, parents, child, normalize)
        if table is None:  # DataSynthesizer's own grouping
            table = {}
            single = len(parents) == 1
            for instance, part in stats.groupby(parents[0] if single else parents):
                key = str([instance]) if single else str(list(instance))
                table[key] = normalize(part.sort_values(by=child)["count"]).tolist()
        conditionals[child] = table
    return conditionals
