"""Closed-form composition of pure-DP steps (thesis §2.1.3 and §5.2).

Basic (Thm 2.9), advanced (Thm 2.10, also for unequal steps), bounded-range (Thm 2.13)
and the thesis's printed §5.2 bound, and the optimal composition of Kairouz, Oh and
Viswanath (2015). Every bound here holds for *adaptive* composition under whatever
neighbouring relation the composed mechanisms share.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from dpnn._validation import (
    nonnegative_finite,
    positive_int,
    probability_open,
)

__all__ = [
    "MAX_EXPONENT",
    "check_epsilons",
    "basic_composition",
    "advanced_composition",
    "heterogeneous_advanced_composition",
    "br_composition",
    "thesis_s5_2_bound",
    "optimal_pure_composition_delta",
    "optimal_pure_composition_epsilon",
]


#: Largest per-step epsilon whose e^epsilon a float holds with room to spare.
MAX_EXPONENT = 700.0


def check_epsilons(epsilons, name: str = "epsilons") -> np.ndarray:
    """The per-step budgets ``epsilons`` as a 1-D float array (a number is one step).

    Raises ``ValueError``, naming the argument ``name``, unless they are a non-empty
    list of finite numbers >= 0.
    """
    values = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty list of finite numbers >= 0")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(
            f"{name} must contain only finite numbers >= 0, got {epsilons!r}"
        )
    return values


def basic_composition(epsilons) -> float:
    """Basic composition (thesis Thm 2.9): the composition is ``sum(epsilons)``-DP.

    Holds for any mechanisms that are epsilon_i-DP, adaptively composed.
    """
    return float(np.sum(check_epsilons(epsilons)))


def advanced_composition(epsilon, k, delta_prime) -> float:
    """Advanced composition (thesis Thm 2.10; Dwork and Roth Thm 3.20).

    k-fold adaptive composition of epsilon-DP mechanisms is
    ``(epsilon', delta_prime)``-DP with
    ``epsilon' = sqrt(2 k ln(1/delta_prime)) epsilon + k epsilon (e^epsilon - 1)``.
    (For (epsilon, delta)-DP steps the total delta is ``k delta + delta_prime``.)
    The formula as stated, not its minimum with ``k epsilon``: it is the bound
    notebook 02 compares. Raises ``ValueError`` when it exceeds the float range
    (epsilon above about 700), where basic composition is far tighter anyway.
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    k = positive_int(k, "k")
    delta_prime = probability_open(delta_prime, "delta_prime")
    if epsilon > MAX_EXPONENT:
        raise ValueError(
            f"epsilon must be at most {MAX_EXPONENT} "
            "for advanced composition (its term "
            "k epsilon (e^epsilon - 1) overflows a "
            f"float); got {epsilon!r}: use basic composition"
        )
    bound = math.sqrt(
        2 * k * math.log(1 / delta_prime)
    ) * epsilon + k * epsilon * math.expm1(epsilon)
    if not math.isfinite(bound):
        raise ValueError(
            "k * epsilon * (e^epsilon - 1) overflows "
            f"a float for epsilon={epsilon!r}, k={k}; "
            "use basic composition"
        )
    return bound


def heterogeneous_advanced_composition(epsilons, delta_prime) -> float:
    """Advanced composition for unequal steps: the adaptive composition of
    epsilon_i-DP mechanisms is ``(epsilon', delta_prime)``-DP with
    ``epsilon' = sqrt(2 ln(1/delta') sum e_i^2) + sum e_i (e^e_i - 1)``.

    The proof of Thm 2.10 (Azuma on the privacy-loss martingale, step i bounded
    by e_i with mean at most e_i (e^e_i - 1)) gives this; equal steps recover Thm 2.10.
    """
    e = check_epsilons(epsilons)
    delta_prime = probability_open(delta_prime, "delta_prime")
    return float(
        _root_of_scaled_squares(2 * math.log(1 / delta_prime), e)
        + np.sum(e * np.expm1(e))
    )


def _root_of_scaled_squares(scale: float, e: np.ndarray) -> float:
    """``sqrt(scale * sum e_i^2)``, by math.hypot where the squares underflow."""
    squares = float(np.sum(e**2))
    if squares > 1e-290 or not np.any(e):
        return math.sqrt(scale * squares)
    return math.sqrt(scale) * math.hypot(*e)


def _br_term(epsilon: np.ndarray) -> np.ndarray:
    """``e/(1 - e^{-e}) - 1 - ln(e/(1 - e^{-e}))`` per step, with its limit 0 at
    e = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(
            epsilon > 0, epsilon / -np.expm1(-np.where(epsilon > 0, epsilon, 1.0)), 1.0
        )
    return ratio - 1 - np.log(ratio)


def br_composition(epsilons, delta) -> float:
    """Bounded-range composition (thesis Thm 2.13; Dong, Durfee, Rogers 2020, Prop. 4).

    If mechanism i is epsilon_i-range-bounded (Def. 2.11; the exponential
    mechanism of Def. 2.6 is epsilon-BR, Lemma 2.12), their adaptive composition
    is (epsilon, delta)-DP with::

        epsilon = min{ sum e_i,
                       sum (e_i/(1-e^{-e_i}) - 1 - ln(e_i/(1-e^{-e_i})))
                       + sqrt(1/2 sum e_i^2 ln(1/delta)) }
    """
    e = check_epsilons(epsilons)
    delta = probability_open(delta, "delta")
    spread = _root_of_scaled_squares(0.5 * math.log(1 / delta), e)
    bounded_range = np.sum(_br_term(e)) + spread
    return float(min(np.sum(e), bounded_range))


def thesis_s5_2_bound(epsilon, c, delta) -> float:
    """The bound as printed in thesis §5.2, with ``c * epsilon`` inside the first term.

    ::

        min{ c e, (c e/(1-e^{-c e}) - 1 - ln(c e/(1-e^{-c e})))
                  + sqrt(1/2 c e^2 ln(1/delta)) }

    This is NOT what Thm 2.13 gives for c equal steps (that is
    ``br_composition([epsilon] * c, delta)``, with c times the per-step term); it is
    kept only so notebook 02 can show the difference. Do not use it to account for
    privacy.
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    c = positive_int(c, "c")
    delta = probability_open(delta, "delta")
    total = c * epsilon
    if epsilon**2 > 1e-290 or epsilon == 0:
        spread = math.sqrt(0.5 * c * epsilon**2 * math.log(1 / delta))
    else:  # epsilon^2 underflows
        spread = math.sqrt(0.5 * c * math.log(1 / delta)) * epsilon
    return float(min(total, _br_term(np.array([total]))[0] + spread))


def optimal_pure_composition_delta(epsilon0, k, epsilon) -> float:
    """Exact delta(epsilon) of k-fold composition of epsilon0-DP mechanisms.

    Kairouz, Oh and Viswanath (2015, Thm 3.3): the worst case is binary
    randomized response with keep probability p = e^e0/(1+e^e0), whose privacy
    loss after k steps is e0 (k - 2i) with probability C(k, i) p^(k-i) (1-p)^i;
    then ``delta(epsilon) = E[(1 - e^(epsilon - L))_+]``.
    """
    epsilon0 = nonnegative_finite(epsilon0, "epsilon0")
    k = positive_int(k, "k")
    epsilon = nonnegative_finite(epsilon, "epsilon")
    i = np.arange(k + 1)
    loss = epsilon0 * (k - 2 * i)
    log_p = -np.logaddexp(0.0, -epsilon0)  # log of e^e0 / (1 + e^e0)
    log_q = -np.logaddexp(0.0, epsilon0)
    # no overflow for large k
    log_binomial = gammaln(k + 1) - gammaln(i + 1) - gammaln(k - i + 1)
    log_mass = log_binomial + (k - i) * log_p + i * log_q
    positive = loss > epsilon
    return float(
        np.sum(np.exp(log_mass[positive]) * -np.expm1(epsilon - loss[positive]))
    )


def optimal_pure_composition_epsilon(epsilon0, k, delta) -> float:
    """Smallest epsilon with
    ``optimal_pure_composition_delta(epsilon0, k, epsilon) <= delta`` (bisection)."""
    delta = probability_open(delta, "delta")
    low, high = 0.0, positive_int(k, "k") * nonnegative_finite(epsilon0, "epsilon0")
    if optimal_pure_composition_delta(epsilon0, k, low) <= delta:
        return 0.0
    while high - low > 1e-12 * max(high, 1e-300):  # about 40 halvings
        middle = (low + high) / 2
        if optimal_pure_composition_delta(epsilon0, k, middle) <= delta:
            high = middle
        else:
            low = middle
    return high
