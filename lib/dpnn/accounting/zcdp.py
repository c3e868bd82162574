"""Zero-concentrated DP (Bun and Steinke 2016): from pure DP, and on to (epsilon,
delta)-DP."""

from __future__ import annotations

import math

from dpnn._validation import nonnegative_finite, probability_open

#: Largest ln(alpha - 1) the conversion searches (alpha stays a float).
_MAX_LOG_ALPHA = 700.0

__all__ = [
    "zcdp_from_pure",
    "zcdp_from_bounded_range",
    "dp_from_zcdp",
    "dp_from_zcdp_bun_steinke",
]


def zcdp_from_pure(epsilon) -> float:
    """An epsilon-DP mechanism is (epsilon^2 / 2)-zCDP (Bun and Steinke 2016, Prop.
    1.4)."""
    epsilon = nonnegative_finite(epsilon, "epsilon")
    return epsilon**2 / 2


def zcdp_from_bounded_range(epsilon) -> float:
    """An epsilon-range-bounded mechanism is (epsilon^2 / 8)-zCDP (Cesar and Rogers
    2021, Lemma 3.2).

    The exponential mechanism of Def. 2.6 with budget epsilon is epsilon-BR
    (thesis Lemma 2.12), so it is four times cheaper in zCDP than a generic
    epsilon-DP step (:func:`zcdp_from_pure`).
    """
    epsilon = nonnegative_finite(epsilon, "epsilon")
    return epsilon**2 / 8


def dp_from_zcdp_bun_steinke(rho, delta) -> float:
    """rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Bun and Steinke 2016,
    Prop. 1.3).

    Simple but loose; :func:`dp_from_zcdp` is the tight conversion.
    """
    rho = nonnegative_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def dp_from_zcdp(rho, delta) -> float:
    """The smallest epsilon such that rho-zCDP implies (epsilon, delta)-DP by the Rényi
    route.

    rho-zCDP is (alpha, rho alpha)-RDP for every alpha > 1, and (alpha, tau)-RDP implies
    (epsilon, delta)-DP with
    ``epsilon = tau + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln(alpha))
    / (alpha - 1)``
    (Canonne, Kamath and Steinke 2020, Prop. 12; the conversion ``dp_accounting``'s RDP
    accountant uses). We minimise over alpha (bounded Brent on log(alpha - 1)) and
    return the smaller of that and Bun and Steinke's Prop. 1.3, both valid. Example:
    rho = 0.005, delta = 1e-5 gives 0.3753 (Prop. 1.3: 0.4849). Never negative: where
    the Rényi formula dips below 0 (tiny rho or large delta) the answer is 0.
    """
    rho = nonnegative_finite(rho, "rho")
    delta = probability_open(delta, "delta")
    if rho == 0:
        return 0.0
    from scipy.optimize import minimize_scalar

    log_inverse_delta = math.log(1 / delta)

    def epsilon_at(x):  # x = ln(alpha - 1)
        alpha = 1.0 + math.exp(x)
        return rho * alpha + (
            log_inverse_delta + (alpha - 1) * math.log1p(-1 / alpha) - math.log(alpha)
        ) / (alpha - 1)

    # The optimum sits near alpha = 1 + sqrt(ln(1/delta) / rho); search 30 e-folds
    # around it, the centre taken in logarithms (rho may be as small as 1e-320) and
    # alpha kept below e^700 so that it stays a float.
    ratio = max(log_inverse_delta, 1e-300) / rho
    centre = 0.5 * (
        math.log(ratio)
        if math.isfinite(ratio)
        else math.log(max(log_inverse_delta, 1e-300)) - math.log(rho)
    )
    low, high = centre - 30, centre + 30
    if high > _MAX_LOG_ALPHA:
        low, high = _MAX_LOG_ALPHA - 60, _MAX_LOG_ALPHA
    best = minimize_scalar(
        epsilon_at, bounds=(low, high), method="bounded", options={"xatol": 1e-10}
    )
    # (epsilon, delta)-DP only weakens as epsilon grows, and the conversion's delta
    # decreases in epsilon: a value below 0 means (0, delta)-DP already holds.
    return max(0.0, float(min(best.fun, dp_from_zcdp_bun_steinke(rho, delta))))
