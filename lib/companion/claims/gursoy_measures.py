"""The cross-validated tables of notebook 09 read fold by fold: each method's value per
fold, the fold sizes' ratio, the corrected standard error of a mean over folds and the
per-fold differences of two methods, shared by the claims of :mod:`.gursoy` and
:mod:`.gursoy_knn`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .rules import CEILING, FLOOR

__all__ = ["per_fold", "ratio", "corrected_se", "fold_differences", "estimates"]


def per_fold(table: pd.DataFrame, keys, value: str = "accuracy") -> pd.DataFrame:
    """Each method's ``value`` per setting ``keys`` and fold, averaged over repeats:
    one column per method."""
    keys = list(keys)
    means = table.groupby(keys + ["method", "fold"])[value].mean()
    return means.unstack("method")


def ratio(table: pd.DataFrame) -> tuple[int, int]:
    """(n_train, n_test) in the proportion of ``k``-fold cross-validation."""
    return max(int(table["fold"].nunique()) - 1, 1), 1


def corrected_se(values) -> float:
    """Standard error of a mean over ``J`` folds, Nadeau and Bengio's correction:
    sqrt((1 / J + 1 / (J - 1)) s^2)."""
    v = np.asarray(values, dtype=float)
    j = len(v)
    return float(np.sqrt((1 / j + 1 / (j - 1)) * v.var(ddof=1)))


def fold_differences(
    folds: pd.DataFrame, a: str, b: str, prefix: str = "", higher: bool = True
) -> dict:
    """``{setting: per-fold a - b}`` (``b - a`` when lower is better) of methods ``a``
    and ``b`` of the per-fold table ``folds`` (:func:`per_fold`), at every setting
    where both ran on two folds or more and, when higher is better, the two are not
    both at the floor or both at the ceiling; a setting's name is ``prefix`` and its
    keys."""
    out = {}
    if a not in folds or b not in folds:
        return out
    levels = list(range(folds.index.nlevels - 1))  # keys are tuples
    for key, part in folds[[a, b]].dropna().groupby(level=levels):
        if len(part) < 2:
            continue
        ma, mb = part[a].mean(), part[b].mean()
        if higher and (
            (ma <= FLOOR and mb <= FLOOR) or (ma >= CEILING and mb >= CEILING)
        ):
            continue
        d = part[a] - part[b] if higher else part[b] - part[a]
        out[prefix + " ".join(map(str, key))] = d.to_numpy(float)
    return out


def estimates(family: dict) -> tuple[list, np.ndarray, np.ndarray, int]:
    """The settings of ``family`` (:func:`fold_differences`), each one's mean over
    the folds, its corrected standard error (:func:`corrected_se`) and the fewest
    folds' degrees of freedom (folds - 1), for the rules' one-sided t-tests."""
    names = list(family)
    means = np.array([np.mean(family[k]) for k in names])
    errors = np.array([corrected_se(family[k]) for k in names])
    df = min(len(family[k]) for k in names) - 1 if names else 1
    return names, means, errors, df
