"""The :class:`Accountant`: a ledger of spends that answers the composed epsilon."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from dpnn._validation import (
    nonnegative_finite,
    positive_finite,
    positive_int,
    probability_open,
)

from .composition import (
    basic_composition,
    br_composition,
    heterogeneous_advanced_composition,
)
from .loss_distributions import EVENT_KINDS, pld_epsilon
from .zcdp import dp_from_zcdp, zcdp_from_bounded_range, zcdp_from_pure

__all__ = ["Accountant", "SPEND_KINDS"]

#: Kinds an :class:`Accountant` accepts: the PLD kinds plus the exponential mechanism.
SPEND_KINDS = ("exponential",) + EVENT_KINDS


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
        parameter = (
            positive_finite(epsilon, "sigma")
            if kind == "gaussian"
            else nonnegative_finite(epsilon, "epsilon")
        )
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
        return np.repeat(
            [per_step(kind, p) for kind, p in self._spends], list(self._spends.values())
        )

    def _dp_epsilons(self) -> np.ndarray:
        """The pure-DP parameter of every step, repeated by count."""
        if self._has_gaussian():
            raise ValueError(
                "method must be 'pld' or 'zcdp' when Gaussian spends are present"
            )
        return self._repeat(lambda kind, p: p)

    def _br_epsilons(self) -> np.ndarray:
        """Range-bounded parameter per step: epsilon for the exponential mechanism, 2
        epsilon otherwise.

        Any epsilon-DP mechanism is 2 epsilon-BR (Durfee and Rogers 2019, Lemma 3.2);
        randomized response at epsilon is exactly 2 epsilon-BR (its losses are
        +-epsilon).
        """
        self._dp_epsilons()
        return self._repeat(lambda kind, p: p if kind == "exponential" else 2 * p)

    def _rho(self) -> float:
        """zCDP parameter of the ledger: epsilon^2/8 per exponential step, epsilon^2/2
        per other pure step."""
        per_kind = {
            "gaussian": lambda p: 1 / (2 * p**2),
            "exponential": zcdp_from_bounded_range,
        }
        return float(
            sum(
                count * per_kind.get(kind, zcdp_from_pure)(p)
                for (kind, p), count in self._spends.items()
            )
        )

    def _thesis_epsilons(self) -> np.ndarray:
        """The per-step budget as the thesis's code charges it (a CMP step at its
        EMQUERY epsilon)."""
        other = {kind for kind, _ in self._spends} - {
            "exponential",
            "randomized_response",
        }
        if other:
            raise ValueError(
                "method 'thesis' applies to DP-TT ledgers (exponential and "
                "randomized_response "
                f"steps); this ledger also holds {sorted(other)}"
            )
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
            return (
                converted
                if self._has_gaussian()
                else min(basic_composition(self._dp_epsilons()), converted)
            )
        basic = (
            basic_composition(self._dp_epsilons())
            if not self._has_gaussian()
            else math.inf
        )
        if method == "advanced":
            return min(
                basic, heterogeneous_advanced_composition(self._dp_epsilons(), delta)
            )
        if method == "br":
            return min(basic, br_composition(self._br_epsilons(), delta))
        events = [
            ("pure" if kind == "exponential" else kind, p)
            for (kind, p), count in self._spends.items()
            for _ in range(count)
        ]
        exact = pld_epsilon(events, delta)
        if any(kind == "exponential" for kind, _ in self._spends):
            bounds = [exact, self.epsilon(delta, "zcdp")]
            if not self._has_gaussian():  # Thm 2.13 covers pure steps only
                bounds.append(self.epsilon(delta, "br"))
            return min(bounds)
        return exact
