"""Composition bounds and a privacy ledger (thesis §2.1.3 and §5.2).

Closed-form bounds (basic, advanced, bounded-range), the zCDP route, and the
tight numerical composition through privacy loss distributions (PLD) from
Google's ``dp_accounting``. An :class:`Accountant` collects what mechanisms
spend and answers the composed epsilon by any of these methods.

Neighbouring relation: whatever the composed mechanisms share (the thesis's:
one record replaced, or for DP-TT the client's query changed). Every bound
here holds for *adaptive* composition.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import reduce

import numpy as np
from scipy.special import gammaln

from dpnn._validation import (
    nonnegative_finite,
    positive_finite,
    positive_int,
    probability_open,
)

__all__ = [
    "basic_composition",
    "advanced_composition",
    "br_composition",
    "thesis_s5_2_bound",
    "zcdp_from_pure",
    "dp_from_zcdp",
    "optimal_pure_composition_delta",
    "optimal_pure_composition_epsilon",
    "pld_epsilon",
    "pld_delta",
    "Accountant",
    "EVENT_KINDS",
    "SPEND_KINDS",
]

#: Event kinds understood by :func:`pld_epsilon` and :func:`pld_delta`.
EVENT_KINDS = ("randomized_response", "laplace", "gaussian", "pure")
#: Kinds an :class:`Accountant` accepts: the PLD kinds plus the exponential mechanism.
SPEND_KINDS = ("exponential",) + EVENT_KINDS


def _epsilons(epsilons, name: str = "epsilons") -> np.ndarray:
    values = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty list of finite numbers >= 0")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"{name} must contain only finite numbers >= 0, got {epsilons!r}")
    return values


def basic_composition(epsilons) -> float:
    """Basic composition (thesis Thm 2.9): the composition is ``sum(epsilons)``-DP.

    Holds for any mechanisms that are epsilon_i-DP, adaptively composed.
    """
    return float(np.sum(_epsilons(epsilons)))


def advanced_composition(epsilon, k, delta_prime) -> float:
    """Advanced composition (thesis Thm 2.10; Dwork and Roth Thm 3.20).

    k-fold adaptive composition of epsilon-DP mechanisms is
    ``(epsilon', delta_prime)``-DP with
    ``epsilon' = sqrt(2 k ln(1/delta_prime)) epsilon + k epsilon (e^epsilon - 1)``.
    (For (epsilon, delta)-DP steps the total delta is ``k delta + delta_prime``.)
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    k = positive_int(k, "k")
    delta_prime = probability_open(delta_prime, "delta_prime")
    return math.sqrt(2 * k * math.log(1 / delta_prime)) * epsilon + k * epsilon * math.expm1(epsilon)


def _heterogeneous_advanced(epsilons, delta_prime) -> float:
    """Advanced composition for unequal steps: sqrt(2 ln(1/delta') sum e_i^2) + sum e_i (e^e_i - 1).

    The proof of Thm 2.10 (Azuma on the privacy-loss martingale, step i bounded
    by e_i with mean at most e_i (e^e_i - 1)) gives this; equal steps recover Thm 2.10.
    """
    e = _epsilons(epsilons)
    return float(math.sqrt(2 * math.log(1 / delta_prime) * np.sum(e**2)) + np.sum(e * np.expm1(e)))


def _br_term(epsilon: np.ndarray) -> np.ndarray:
    """``e/(1 - e^{-e}) - 1 - ln(e/(1 - e^{-e}))`` per step, with its limit 0 at e = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(epsilon > 0, epsilon / -np.expm1(-np.where(epsilon > 0, epsilon, 1.0)), 1.0)
    return ratio - 1 - np.log(ratio)


def br_composition(epsilons, delta) -> float:
    """Bounded-range composition (thesis Thm 2.13; Dong, Durfee, Rogers 2020, Prop. 4).

    If mechanism i is epsilon_i-range-bounded (Def. 2.11; the exponential
    mechanism of Def. 2.6 is epsilon-BR, Lemma 2.12), their adaptive composition
    is (epsilon, delta)-DP with

    ``epsilon = min{ sum e_i, sum (e_i/(1-e^{-e_i}) - 1 - ln(e_i/(1-e^{-e_i}))) + sqrt(1/2 sum e_i^2 ln(1/delta)) }``.
    """
    e = _epsilons(epsilons)
    delta = probability_open(delta, "delta")
    bounded_range = np.sum(_br_term(e)) + math.sqrt(0.5 * np.sum(e**2) * math.log(1 / delta))
    return float(min(np.sum(e), bounded_range))


def thesis_s5_2_bound(epsilon, c, delta) -> float:
    """The bound as printed in thesis §5.2, with ``c * epsilon`` inside the first term.

    ``min{ c e, (c e/(1-e^{-c e}) - 1 - ln(c e/(1-e^{-c e}))) + sqrt(1/2 c e^2 ln(1/delta)) }``.
    This is NOT what Thm 2.13 gives for c equal steps (that is
    ``br_composition([epsilon] * c, delta)``, with c times the per-step term);
    it is kept only so notebook 02 can show the difference. Do not use it to
    account for privacy.
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    c = positive_int(c, "c")
    delta = probability_open(delta, "delta")
    total = c * epsilon
    return float(min(total, _br_term(np.array([total]))[0]
                     + math.sqrt(0.5 * c * epsilon**2 * math.log(1 / delta))))


def zcdp_from_pure(epsilon) -> float:
    """An epsilon-DP mechanism is (epsilon^2 / 2)-zCDP (Bun and Steinke 2016, Prop. 1.4)."""
    epsilon = nonnegative_finite(epsilon, "epsilon")
    return epsilon**2 / 2


def dp_from_zcdp(rho, delta) -> float:
    """rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Bun and Steinke 2016, Prop. 1.3)."""
    rho = nonnegative_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


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
    log_binomial = gammaln(k + 1) - gammaln(i + 1) - gammaln(k - i + 1)  # no overflow for large k
    log_mass = log_binomial + (k - i) * log_p + i * log_q
    positive = loss > epsilon
    return float(np.sum(np.exp(log_mass[positive]) * -np.expm1(epsilon - loss[positive])))


def optimal_pure_composition_epsilon(epsilon0, k, delta) -> float:
    """Smallest epsilon with ``optimal_pure_composition_delta(epsilon0, k, epsilon) <= delta`` (bisection)."""
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


def _check_events(events) -> Counter:
    """Validate ``(kind, parameter)`` events and count equal ones."""
    if isinstance(events, tuple) and len(events) == 2 and isinstance(events[0], str):
        events = [events]
    counted = Counter()
    for event in events:
        if not (isinstance(event, (tuple, list)) and len(event) == 2):
            raise ValueError(f"events must be (kind, parameter) pairs, got {event!r}")
        kind, parameter = event
        if kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {kind!r}")
        if kind == "gaussian":
            parameter = positive_finite(parameter, "sigma")
        else:
            parameter = nonnegative_finite(parameter, "epsilon")
        counted[(kind, parameter)] += 1
    if not counted:
        raise ValueError("events must not be empty")
    return counted


def _pld(events):
    """The composed privacy loss distribution of ``events`` (None if every event is free)."""
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    counted = _check_events(events)
    paid = {key: n for key, n in counted.items() if key[0] == "gaussian" or key[1] > 0}
    if not paid:
        return None
    # A grid fine relative to the smallest per-step loss keeps the pessimistic
    # rounding error (at most one grid step per composed step) under 0.01% per step.
    smallest = min([p for (kind, p) in paid if kind != "gaussian"] + [1.0])
    interval = min(1e-4, smallest * 1e-4)
    parts = []
    for (kind, parameter), count in paid.items():
        if kind == "randomized_response":
            # dp_accounting's noise parameter is the chance of a uniform bucket out of 2:
            # keep = 1 - noise/2 = e^eps/(1+e^eps), so noise = 2/(1+e^eps).
            one = pld.from_randomized_response(2 / (1 + math.exp(parameter)), 2,
                                               value_discretization_interval=interval)
        elif kind == "laplace":
            one = pld.from_laplace_mechanism(1 / parameter, sensitivity=1,
                                             value_discretization_interval=interval)
        elif kind == "gaussian":
            one = pld.from_gaussian_mechanism(parameter, sensitivity=1,
                                              value_discretization_interval=interval)
        else:
            one = pld.from_privacy_parameters(DifferentialPrivacyParameters(parameter, 0.0),
                                              value_discretization_interval=interval)
        parts.append(one.self_compose(count) if count > 1 else one)
    return reduce(lambda a, b: a.compose(b), parts)


def _homogeneous_pure(events):
    """(epsilon0, k) if every event is randomized response or pure DP with one epsilon0 > 0, else None."""
    counted = _check_events(events)
    kinds = {kind for kind, _ in counted}
    parameters = {p for _, p in counted}
    if kinds <= {"randomized_response", "pure"} and len(parameters) == 1 and next(iter(parameters)) > 0:
        return next(iter(parameters)), sum(counted.values())
    return None


def pld_epsilon(events, delta, numerical: bool = False) -> float:
    """Tight epsilon at ``delta`` of the composition of ``events``, by privacy loss distributions.

    ``events`` is a list of ``(kind, parameter)``: ``("randomized_response", eps)``
    (keep the bit with probability e^eps/(1+e^eps)), ``("laplace", eps)``
    (Laplace with scale sensitivity/eps), ``("gaussian", sigma)`` (noise
    multiplier sigma, sensitivity 1) or ``("pure", eps)`` (any eps-DP mechanism,
    through its worst case). Computed with ``dp_accounting`` (Koskela et al.;
    Doroshenko et al. 2022) with pessimistic rounding: an upper bound within
    discretization error of the exact value.

    k randomized-response or pure steps with one epsilon are computed exactly by
    :func:`optimal_pure_composition_epsilon` instead (the same value, without
    discretization, and without ``dp_accounting``'s overflow once the composed
    loss passes about 709); ``numerical=True`` forces ``dp_accounting``. If
    ``dp_accounting`` overflows on another mix, the basic-composition sum is
    returned, which is then within the discretization error of exact.
    """
    delta = probability_open(delta, "delta")
    homogeneous = None if numerical else _homogeneous_pure(events)
    if homogeneous:
        return optimal_pure_composition_epsilon(homogeneous[0], homogeneous[1], delta)
    distribution = _pld(events)
    if distribution is None:
        return 0.0
    with np.errstate(over="ignore"):
        epsilon = float(distribution.get_epsilon_for_delta(delta))
    if not math.isfinite(epsilon):
        counted = _check_events(events)
        if any(kind == "gaussian" for kind, _ in counted):
            raise ValueError("events compose beyond what dp_accounting can represent (epsilon overflow)")
        return float(sum(p * n for (_, p), n in counted.items()))
    return epsilon


def pld_delta(events, epsilon, numerical: bool = False) -> float:
    """Tight delta at ``epsilon`` of the composition of ``events`` (see :func:`pld_epsilon`)."""
    epsilon = nonnegative_finite(epsilon, "epsilon")
    homogeneous = None if numerical else _homogeneous_pure(events)
    if homogeneous:
        return optimal_pure_composition_delta(homogeneous[0], homogeneous[1], epsilon)
    distribution = _pld(events)
    return 0.0 if distribution is None else float(distribution.get_delta_for_epsilon(epsilon))


class Accountant:
    """A ledger of privacy spends that answers the composed epsilon by several methods.

    ``spend(kind, epsilon, count=1)`` records ``count`` mechanisms of one kind:
    ``"exponential"`` (Def. 2.6 with budget epsilon: epsilon-DP and
    epsilon-range-bounded), ``"randomized_response"``, ``"laplace"``,
    ``"pure"`` (epsilon-DP, nothing more known) or ``"gaussian"`` (then the
    parameter is the noise multiplier sigma). The order of spends never matters.
    """

    METHODS = ("basic", "advanced", "br", "pld", "zcdp")

    def __init__(self):
        self._spends: Counter = Counter()

    def spend(self, kind: str, epsilon, count: int = 1) -> "Accountant":
        if kind not in SPEND_KINDS:
            raise ValueError(f"kind must be one of {SPEND_KINDS}, got {kind!r}")
        parameter = (positive_finite(epsilon, "sigma") if kind == "gaussian"
                     else nonnegative_finite(epsilon, "epsilon"))
        count = positive_int(count, "count")
        self._spends[(kind, parameter)] += count
        return self

    @property
    def spends(self) -> dict:
        """``{(kind, parameter): count}`` of everything spent so far."""
        return dict(self._spends)

    @property
    def compositions(self) -> int:
        """How many mechanisms have been charged."""
        return sum(self._spends.values())

    def _dp_epsilons(self) -> np.ndarray:
        """The pure-DP parameter of every step, repeated by count."""
        if any(kind == "gaussian" for kind, _ in self._spends):
            raise ValueError("method must be 'pld' or 'zcdp' when Gaussian spends are present")
        return np.repeat([p for _, p in self._spends], list(self._spends.values()))

    def _br_epsilons(self) -> np.ndarray:
        """Range-bounded parameter per step: epsilon for the exponential mechanism, 2 epsilon otherwise.

        Any epsilon-DP mechanism is 2 epsilon-BR (Durfee and Rogers 2019, Lemma 3.2).
        """
        self._dp_epsilons()
        return np.repeat([p if kind == "exponential" else 2 * p for kind, p in self._spends],
                         list(self._spends.values()))

    def epsilon(self, delta=None, method: str = "br") -> float:
        """Composed epsilon of everything spent, at ``delta`` (unused by ``basic``)."""
        if method not in self.METHODS:
            raise ValueError(f"method must be one of {self.METHODS}, got {method!r}")
        if not self._spends:
            return 0.0
        if method == "basic":
            return basic_composition(self._dp_epsilons())
        delta = probability_open(delta, "delta")
        if method == "advanced":
            return min(basic_composition(self._dp_epsilons()),
                       _heterogeneous_advanced(self._dp_epsilons(), delta))
        if method == "br":
            return br_composition(self._br_epsilons(), delta)
        if method == "zcdp":
            rho = sum(count * (1 / (2 * p**2) if kind == "gaussian" else zcdp_from_pure(p))
                      for (kind, p), count in self._spends.items())
            return dp_from_zcdp(rho, delta)
        events = [("pure" if kind == "exponential" else kind, p)
                  for (kind, p), count in self._spends.items() for _ in range(count)]
        return pld_epsilon(events, delta)


# --- issue 8: concentrated geo-privacy (Liang and Yi, CCS 2023) ------------------------------
# Distances are Euclidean (dist_inf for n-tuples of points); epsilon is per unit of distance
# and rho per squared unit (per metre and per square metre for data in metres).

def cgp_composition(rhos) -> float:
    """CGP composition (Liang and Yi, Thm 3.2): adaptively composing rho_i-CGP mechanisms is ``sum(rho_i)``-CGP."""
    return float(np.sum(_epsilons(rhos, "rhos")))


def cgp_from_gp(epsilon) -> float:
    """An (epsilon, 0)-GP mechanism is (epsilon^2 / 2)-CGP (Liang and Yi, Lemma 3.6).

    The printed constant is unreadable in the seed; its proof (the density ratio
    lies in [e^{-e0}, e^{e0}] with e0 = epsilon dist, hence by Bun and Steinke
    D_alpha <= alpha e0^2 / 2) gives rho = epsilon^2 / 2, the analogue of zCDP.
    """
    return zcdp_from_pure(epsilon)


def gp_from_cgp(rho, delta, distance_bound) -> float:
    """Smallest epsilon with rho-CGP => (epsilon, delta, A)-GP (Liang and Yi, Lemma 3.7).

    ``epsilon = rho A + 2 sqrt(rho ln(1/delta))`` with ``A = distance_bound``: at
    distance d <= A the pair is (rho d^2)-zCDP, hence (rho d^2 + 2 d sqrt(rho ln(1/delta)), delta)-DP
    (Bun and Steinke Prop. 1.3), which is at most epsilon d when d <= A.
    """
    rho = positive_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    distance_bound = positive_finite(distance_bound, "distance_bound")
    return rho * distance_bound + 2 * math.sqrt(rho * math.log(1 / delta))


def gp_epsilon_for_cgp(rho, delta, epsilon_distance=10.0) -> float:
    """The epsilon the paper's experiments give GP for a rho-CGP competitor (Liang and Yi, §5).

    §5 uses Lemma 3.7 with ``delta`` (1e-10) and ``epsilon A = epsilon_distance`` (10):
    epsilon solves ``epsilon = rho * epsilon_distance / epsilon + 2 sqrt(rho ln(1/delta))``, i.e.
    ``epsilon = sqrt(rho L) + sqrt(rho L + rho * epsilon_distance)`` with ``L = ln(1/delta)``.
    For rho from 5e-8 to 5e-4 this gives 0.0024 to 0.24 per metre, the paper's "0.002 to 0.2".
    """
    rho = positive_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    epsilon_distance = positive_finite(epsilon_distance, "epsilon_distance")
    root = math.sqrt(rho * math.log(1 / delta))
    return root + math.sqrt(root**2 + rho * epsilon_distance)


__all__ += ["cgp_composition", "cgp_from_gp", "gp_from_cgp", "gp_epsilon_for_cgp"]
