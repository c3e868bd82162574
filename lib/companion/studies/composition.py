"""The composition theorems side by side (thesis §2.1.3, notebook 02): the total ε of
``k`` steps of ε by each bound, and where two bounds cross."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpnn import accounting

__all__ = ["composition_curves", "first_crossing"]


def composition_curves(epsilon, ks, delta) -> pd.DataFrame:
    """The total ε at ``delta`` of ``k`` steps of per-step ``epsilon``, for each ``k``
    of ``ks`` (the index), by basic, advanced, zCDP (ε-DP and ε-BR steps), bounded
    range (Thm 2.13) and optimal (Kairouz-Oh-Viswanath) composition."""
    e = epsilon
    return pd.DataFrame(
        {
            "k": ks,
            "basic (Thm 2.9)": [accounting.basic_composition([e] * k) for k in ks],
            "advanced (Thm 2.10)": [
                accounting.advanced_composition(e, k, delta) for k in ks
            ],
            "zCDP (ρ = kε²/2)": [
                accounting.dp_from_zcdp(k * accounting.zcdp_from_pure(e), delta)
                for k in ks
            ],
            "zCDP, ε-BR steps (ρ = kε²/8)": [
                accounting.dp_from_zcdp(
                    k * accounting.zcdp_from_bounded_range(e), delta
                )
                for k in ks
            ],
            "bounded range (Thm 2.13), ε-BR steps": [
                accounting.br_composition([e] * k, delta) for k in ks
            ],
            "optimal for ε-DP (KOV)": [
                accounting.optimal_pure_composition_epsilon(e, k, delta) for k in ks
            ],
        }
    ).set_index("k")


def first_crossing(ks, condition):
    """The first ``k`` of ``ks`` where ``condition`` (one boolean per ``k``) holds, or
    None if it never does."""
    hits = np.flatnonzero(condition)
    return int(ks[hits[0]]) if hits.size else None
