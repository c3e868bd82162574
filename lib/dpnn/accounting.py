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
    "zcdp_from_bounded_range",
    "dp_from_zcdp",
    "dp_from_zcdp_bun_steinke",
    "optimal_pure_composition_delta",
    "optimal_pure_composition_epsilon",
    "pld_epsilon",
    "pld_delta",
    "pld_discretisation",
    "Accountant",
    "EVENT_KINDS",
    "SPEND_KINDS",
]

#: Event kinds understood by :func:`pld_epsilon` and :func:`pld_delta`.
EVENT_KINDS = ("randomized_response", "laplace", "gaussian", "pure")
#: Kinds an :class:`Accountant` accepts: the PLD kinds plus the exponential mechanism.
SPEND_KINDS = ("exponential",) + EVENT_KINDS


#: Largest per-step epsilon whose e^epsilon a float holds with room to spare.
_MAX_EXPONENT = 700.0


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
    The formula as stated, not its minimum with ``k epsilon``: it is the bound
    notebook 02 compares. Raises ``ValueError`` when it exceeds the float range
    (epsilon above about 700), where basic composition is far tighter anyway.
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    k = positive_int(k, "k")
    delta_prime = probability_open(delta_prime, "delta_prime")
    if epsilon > _MAX_EXPONENT:
        raise ValueError(f"epsilon must be at most {_MAX_EXPONENT} for advanced composition (its term "
                         f"k epsilon (e^epsilon - 1) overflows a float); got {epsilon!r}: use basic composition")
    bound = math.sqrt(2 * k * math.log(1 / delta_prime)) * epsilon + k * epsilon * math.expm1(epsilon)
    if not math.isfinite(bound):
        raise ValueError(f"k * epsilon * (e^epsilon - 1) overflows a float for epsilon={epsilon!r}, k={k}; "
                         "use basic composition")
    return bound


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


def zcdp_from_bounded_range(epsilon) -> float:
    """An epsilon-range-bounded mechanism is (epsilon^2 / 8)-zCDP (Cesar and Rogers 2021, Lemma 3.2).

    The exponential mechanism of Def. 2.6 with budget epsilon is epsilon-BR
    (thesis Lemma 2.12), so it is four times cheaper in zCDP than a generic
    epsilon-DP step (:func:`zcdp_from_pure`).
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    return epsilon**2 / 8


def dp_from_zcdp_bun_steinke(rho, delta) -> float:
    """rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Bun and Steinke 2016, Prop. 1.3).

    Simple but loose; :func:`dp_from_zcdp` is the tight conversion.
    """
    rho = nonnegative_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def dp_from_zcdp(rho, delta) -> float:
    """The smallest epsilon such that rho-zCDP implies (epsilon, delta)-DP by the Rényi route.

    rho-zCDP is (alpha, rho alpha)-RDP for every alpha > 1, and (alpha, tau)-RDP
    implies (epsilon, delta)-DP with
    ``epsilon = tau + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln(alpha)) / (alpha - 1)``
    (Canonne, Kamath and Steinke 2020, Prop. 12; the conversion ``dp_accounting``'s RDP
    accountant uses). We minimise over alpha (bounded Brent on log(alpha - 1)) and
    return the smaller of that and Bun and Steinke's Prop. 1.3, both valid.
    Example: rho = 0.005, delta = 1e-5 gives 0.3753 (Prop. 1.3: 0.4849).
    """
    rho = nonnegative_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    if rho == 0:
        return 0.0
    from scipy.optimize import minimize_scalar

    log_inverse_delta = math.log(1 / delta)

    def epsilon_at(x):  # x = ln(alpha - 1)
        alpha = 1.0 + math.exp(x)
        return rho * alpha + (log_inverse_delta + (alpha - 1) * math.log1p(-1 / alpha) - math.log(alpha)) / (alpha - 1)

    # The optimum sits near alpha = 1 + sqrt(ln(1/delta) / rho); search 30 e-folds around it.
    centre = 0.5 * math.log(max(log_inverse_delta, 1e-300) / rho)
    best = minimize_scalar(epsilon_at, bounds=(centre - 30, centre + 30), method="bounded",
                           options={"xatol": 1e-10})
    return float(min(best.fun, dp_from_zcdp_bun_steinke(rho, delta)))


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


#: Relative accuracy the PLD grid aims at, and the most grid points one composed PLD may span.
_PLD_RELATIVE_ERROR = 1e-3
_PLD_MAX_POINTS = 2_000_000


def _loss_width(kind: str, parameter: float) -> float:
    """Width of one step's privacy-loss support (Gaussian: to its 1e-30 tails)."""
    if kind == "gaussian":
        return 2 * (1 / (2 * parameter**2) + 12 / parameter)
    return 2 * parameter


def pld_discretisation(events) -> tuple[float, float]:
    """``(interval, error)`` of the grid :func:`pld_epsilon` uses for ``events``.

    Privacy losses are rounded *up* to multiples of ``interval`` (pessimistic
    rounding, so the result is still an upper bound), which moves each step's
    loss by less than ``interval``; over k steps the returned epsilon exceeds
    the exact PLD value by at most ``error = k * interval``. The interval is
    ``1e-3`` of the mean loss width per step (at most 1e-4), and never so fine
    that the composed support spans more than two million points, which bounds
    memory and time whatever the schedule.
    """
    counted = _check_events(events)
    paid = {key: n for key, n in counted.items() if key[0] == "gaussian" or key[1] > 0}
    steps = sum(paid.values())
    if not steps:
        return 1e-4, 0.0
    width = sum(_loss_width(kind, p) * n for (kind, p), n in paid.items())
    interval = max(min(1e-4, _PLD_RELATIVE_ERROR * width / (2 * steps)), width / _PLD_MAX_POINTS)
    return interval, steps * interval


def _pld(events):
    """The composed privacy loss distribution of ``events`` (None if every event is free)."""
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    counted = _check_events(events)
    paid = {key: n for key, n in counted.items() if key[0] == "gaussian" or key[1] > 0}
    if not paid:
        return None
    too_large = sorted(p for (kind, p) in paid if kind != "gaussian" and p > _MAX_EXPONENT)
    if too_large:
        raise ValueError(f"epsilon of every non-Gaussian event must be at most {_MAX_EXPONENT} for the PLD "
                         f"accountant (e^epsilon overflows a float), got {too_large[-1]!r}; such a step "
                         "reveals its input: compose it with basic composition")
    interval, _ = pld_discretisation(events)
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
    Doroshenko et al. 2022) with pessimistic rounding: an upper bound on the
    exact composition of these events that exceeds it by at most the error
    :func:`pld_discretisation` states (k grid steps for k events). For the
    ``"pure"`` kind the result is a worst-case bound over all epsilon-DP
    mechanisms (Kairouz, Oh and Viswanath), not the exact loss of a particular one.

    k randomized-response or pure steps with one epsilon are computed exactly by
    :func:`optimal_pure_composition_epsilon` instead (the same value, without
    discretization, and without ``dp_accounting``'s overflow once the composed
    loss passes about 709); ``numerical=True`` forces ``dp_accounting``. If
    ``dp_accounting`` overflows on another mix, the basic-composition sum is
    returned, which is then within the discretization error of exact. A
    non-Gaussian step with epsilon above 700 raises ``ValueError`` (its
    e^epsilon overflows; such a step reveals its input).
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
    counted = _check_events(events)
    if any(kind == "gaussian" for kind, _ in counted):
        if not math.isfinite(epsilon):
            raise ValueError("events compose beyond what dp_accounting can represent (epsilon overflow)")
        return epsilon
    # Pure steps: basic composition is valid too, and beats the grid's rounding once it binds.
    return min(epsilon, float(sum(p * n for (_, p), n in counted.items())))


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

    Methods of :meth:`epsilon`, every one a valid (epsilon, delta)-DP bound for
    adaptive composition, each never above ``basic`` where ``basic`` applies:

    - ``"basic"``: the sum of the steps' DP parameters (Thm 2.9).
    - ``"advanced"``: min(basic, Thm 2.10 for unequal steps).
    - ``"br"``: min(basic, Thm 2.13 over each step's range-bound parameter:
      epsilon for the exponential mechanism, 2 epsilon for an epsilon-DP step).
    - ``"zcdp"``: min(basic, zCDP composed and converted tightly): exponential
      steps at epsilon^2/8 (range-bounded), other pure steps at epsilon^2/2,
      Gaussian at 1/(2 sigma^2).
    - ``"pld"``: the privacy-loss-distribution composition of randomized
      response, Laplace and Gaussian steps (exact up to a stated grid error) with
      every exponential step at its pure-DP worst case, then min with ``br``
      and ``zcdp`` when exponential steps are present (the PLD of a generic
      epsilon-DP step does not use range-boundedness). A worst-case bound, not
      the exact loss of the mechanism, whenever exponential or pure steps occur.
    - ``"thesis"``: what the thesis's code computes for DP-TT: min(sum, Thm 2.13)
      over the *full* per-step budget of every exponential-mechanism call, a
      CMP step (recorded as randomized response at epsilon/2) counted at its
      EMQUERY budget epsilon. Valid but loose; kept because the thesis's
      figures are plotted against it. Only for ledgers of exponential and
      randomized-response steps.
    """

    METHODS = ("basic", "advanced", "br", "pld", "zcdp", "thesis")

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

    def _has_gaussian(self) -> bool:
        return any(kind == "gaussian" for kind, _ in self._spends)

    def _repeat(self, per_step) -> np.ndarray:
        """``per_step(kind, parameter)`` for every step, repeated by count."""
        return np.repeat([per_step(kind, p) for kind, p in self._spends], list(self._spends.values()))

    def _dp_epsilons(self) -> np.ndarray:
        """The pure-DP parameter of every step, repeated by count."""
        if self._has_gaussian():
            raise ValueError("method must be 'pld' or 'zcdp' when Gaussian spends are present")
        return self._repeat(lambda kind, p: p)

    def _br_epsilons(self) -> np.ndarray:
        """Range-bounded parameter per step: epsilon for the exponential mechanism, 2 epsilon otherwise.

        Any epsilon-DP mechanism is 2 epsilon-BR (Durfee and Rogers 2019, Lemma 3.2);
        randomized response at epsilon is exactly 2 epsilon-BR (its losses are +-epsilon).
        """
        self._dp_epsilons()
        return self._repeat(lambda kind, p: p if kind == "exponential" else 2 * p)

    def _rho(self) -> float:
        """zCDP parameter of the ledger: epsilon^2/8 per exponential step, epsilon^2/2 per other pure step."""
        per_kind = {"gaussian": lambda p: 1 / (2 * p**2), "exponential": zcdp_from_bounded_range}
        return float(sum(count * per_kind.get(kind, zcdp_from_pure)(p) for (kind, p), count in self._spends.items()))

    def _thesis_epsilons(self) -> np.ndarray:
        """The per-step budget as the thesis's code charges it (a CMP step at its EMQUERY epsilon)."""
        other = {kind for kind, _ in self._spends} - {"exponential", "randomized_response"}
        if other:
            raise ValueError(f"method 'thesis' applies to DP-TT ledgers (exponential and randomized_response "
                             f"steps); this ledger also holds {sorted(other)}")
        return self._repeat(lambda kind, p: p if kind == "exponential" else 2 * p)

    def epsilon(self, delta=None, method: str = "br") -> float:
        """Composed epsilon of everything spent, at ``delta`` (unused by ``basic``)."""
        if method not in self.METHODS:
            raise ValueError(f"method must be one of {self.METHODS}, got {method!r}")
        if not self._spends:
            return 0.0
        if method == "basic":
            return basic_composition(self._dp_epsilons())
        delta = probability_open(delta, "delta")
        if method == "thesis":
            return br_composition(self._thesis_epsilons(), delta)
        if method == "zcdp":
            converted = dp_from_zcdp(self._rho(), delta)
            return converted if self._has_gaussian() else min(basic_composition(self._dp_epsilons()), converted)
        basic = basic_composition(self._dp_epsilons()) if not self._has_gaussian() else math.inf
        if method == "advanced":
            return min(basic, _heterogeneous_advanced(self._dp_epsilons(), delta))
        if method == "br":
            return min(basic, br_composition(self._br_epsilons(), delta))
        events = [("pure" if kind == "exponential" else kind, p)
                  for (kind, p), count in self._spends.items() for _ in range(count)]
        exact = pld_epsilon(events, delta)
        if any(kind == "exponential" for kind, _ in self._spends):
            bounds = [exact, self.epsilon(delta, "zcdp")]
            if not self._has_gaussian():  # Thm 2.13 covers pure steps only
                bounds.append(self.epsilon(delta, "br"))
            return min(bounds)
        return exact


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
