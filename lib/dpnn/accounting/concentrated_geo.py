"""Concentrated geo-privacy relations (Liang and Yi, CCS 2023).

Distances are Euclidean (dist_inf for n-tuples of points); epsilon is per unit of
distance and rho per squared unit (per metre and per square metre for data in metres).
"""

from __future__ import annotations

import math

import numpy as np

from dpnn._validation import positive_finite, probability_open

from .composition import check_epsilons
from .zcdp import zcdp_from_pure

__all__ = ["cgp_composition", "cgp_from_gp", "gp_from_cgp", "gp_epsilon_for_cgp"]


def cgp_composition(rhos) -> float:
    """CGP composition (Liang and Yi, Thm 3.2): adaptively composing rho_i-CGP
    mechanisms is ``sum(rho_i)``-CGP."""
    return float(np.sum(check_epsilons(rhos, "rhos")))


def cgp_from_gp(epsilon) -> float:
    """An (epsilon, 0)-GP mechanism is (epsilon^2 / 2)-CGP (Liang and Yi, Lemma 3.6).

    The printed constant is unreadable in the seed; its proof (the density ratio
    lies in [e^{-e0}, e^{e0}] with e0 = epsilon dist, hence by Bun and Steinke
    D_alpha <= alpha e0^2 / 2) gives rho = epsilon^2 / 2, the analogue of zCDP.
    """
    return zcdp_from_pure(epsilon)


def gp_from_cgp(rho, delta, distance_bound) -> float:
    """Smallest epsilon with rho-CGP => (epsilon, delta, A)-GP (Liang and Yi, Lemma
    3.7).

    ``epsilon = rho A + 2 sqrt(rho ln(1/delta))`` with ``A = distance_bound``: at
    distance d <= A the pair is (rho d^2)-zCDP, hence (rho d^2 + 2 d sqrt(rho
    ln(1/delta)), delta)-DP (Bun and Steinke Prop. 1.3), which is at most epsilon d when
    d <= A.
    """
    rho = positive_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    distance_bound = positive_finite(distance_bound, "distance_bound")
    return rho * distance_bound + 2 * math.sqrt(rho * math.log(1 / delta))


def gp_epsilon_for_cgp(rho, delta, epsilon_distance=10.0) -> float:
    """The epsilon the paper's experiments give GP for a rho-CGP competitor (Liang and
    Yi, §5).

    §5 uses Lemma 3.7 with ``delta`` (1e-10) and ``epsilon A = epsilon_distance`` (10):
    epsilon solves
    ``epsilon = rho * epsilon_distance / epsilon + 2 sqrt(rho ln(1/delta))``, i.e.
    ``epsilon = sqrt(rho L) + sqrt(rho L + rho * epsilon_distance)`` with
    ``L = ln(1/delta)``. For rho from 5e-8 to 5e-4 this gives 0.0024 to 0.24 per metre,
    the paper's "0.002 to 0.2".
    """
    rho = positive_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    epsilon_distance = positive_finite(epsilon_distance, "epsilon_distance")
    root = math.sqrt(rho * math.log(1 / delta))
    return root + math.sqrt(root**2 + rho * epsilon_distance)
