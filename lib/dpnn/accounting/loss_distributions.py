"""Tight numerical composition by privacy loss distributions (PLD), with
``dp_accounting``."""

from __future__ import annotations

import math
from collections import Counter
from functools import reduce

import numpy as np

from dpnn._validation import nonnegative_finite, positive_finite, probability_open

from .composition import (
    MAX_EXPONENT,
    optimal_pure_composition_delta,
    optimal_pure_composition_epsilon,
)
from .two_point import two_point_delta, two_point_epsilon, two_point_grid

__all__ = ["pld_epsilon", "pld_delta", "pld_discretisation", "EVENT_KINDS"]

#: Event kinds understood by :func:`pld_epsilon` and :func:`pld_delta`.
EVENT_KINDS = ("randomized_response", "laplace", "gaussian", "pure")


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


#: Relative accuracy the PLD grid aims at, and the most grid points one composed PLD may
#: span.
_PLD_RELATIVE_ERROR = 1e-3
_PLD_MAX_POINTS = 2_000_000


def _loss_width(kind: str, parameter: float) -> float:
    """Width of one step's privacy-loss support (Gaussian: to its 1e-30 tails)."""
    if kind == "gaussian":
        return 2 * (1 / (2 * parameter**2) + 12 / parameter)
    return 2 * parameter


def pld_discretisation(events, numerical: bool = False) -> tuple[float, float]:
    """``(interval, error)`` of the grid :func:`pld_epsilon` uses for ``events``.

    Privacy losses are rounded *up* to multiples of ``interval`` (pessimistic
    rounding, so the result is still an upper bound), which moves each step's
    loss by less than ``interval``; over k steps the returned epsilon exceeds
    the exact PLD value by at most ``error = k * interval``. The interval is
    ``1e-3`` of the mean loss width per step (at most 1e-4), and never so fine
    that the composed support spans more than two million points, which bounds
    memory and time whatever the schedule. When every event is randomized
    response or pure DP (and ``numerical`` is false, as in :func:`pld_epsilon`)
    the grid is :func:`dpnn.accounting.two_point.two_point_grid` instead (20,000
    points per step across the composed support, at most a million): it scales
    with the epsilons, so the composition is continuous in a common factor of
    them.
    """
    counted = _check_events(events)
    paid = {key: n for key, n in counted.items() if key[0] == "gaussian" or key[1] > 0}
    steps = sum(paid.values())
    if not steps:
        return 1e-4, 0.0
    levels = None if numerical else _two_point_levels(paid)
    if levels is not None:
        return two_point_grid(levels)
    width = sum(_loss_width(kind, p) * n for (kind, p), n in paid.items())
    interval = max(
        min(1e-4, _PLD_RELATIVE_ERROR * width / (2 * steps)), width / _PLD_MAX_POINTS
    )
    return interval, steps * interval


def _pld(events):
    """The composed privacy loss distribution of ``events`` (None if every event is
    free)."""
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    counted = _check_events(events)
    paid = {key: n for key, n in counted.items() if key[0] == "gaussian" or key[1] > 0}
    if not paid:
        return None
    too_large = sorted(
        p for (kind, p) in paid if kind != "gaussian" and p > MAX_EXPONENT
    )
    if too_large:
        raise ValueError(
            "epsilon of every non-Gaussian event must "
            f"be at most {MAX_EXPONENT} for the PLD "
            "accountant (e^epsilon overflows a float), "
            f"got {too_large[-1]!r}; such a step "
            "reveals its input: compose it with basic composition"
        )
    interval, _ = pld_discretisation(events, numerical=True)
    parts = []
    for (kind, parameter), count in paid.items():
        if kind == "randomized_response":
            # dp_accounting's noise parameter is the chance of a uniform bucket out of
            # 2: keep = 1 - noise/2 = e^eps/(1+e^eps), so noise = 2/(1+e^eps).
            one = pld.from_randomized_response(
                2 / (1 + math.exp(parameter)), 2, value_discretization_interval=interval
            )
        elif kind == "laplace":
            one = pld.from_laplace_mechanism(
                1 / parameter, sensitivity=1, value_discretization_interval=interval
            )
        elif kind == "gaussian":
            one = pld.from_gaussian_mechanism(
                parameter, sensitivity=1, value_discretization_interval=interval
            )
        else:
            one = pld.from_privacy_parameters(
                DifferentialPrivacyParameters(parameter, 0.0),
                value_discretization_interval=interval,
            )
        parts.append(one.self_compose(count) if count > 1 else one)
    return reduce(lambda a, b: a.compose(b), parts)


def _two_point_levels(paid):
    """``[(epsilon, count)]`` if every paid event is randomized response or pure DP
    (the same worst-case law), else None."""
    if any(kind not in ("randomized_response", "pure") for kind, _ in paid):
        return None
    levels = {}
    for (_, epsilon), count in paid.items():
        levels[epsilon] = levels.get(epsilon, 0) + count
    return sorted(levels.items())


def _paid_two_point(events):
    """The levels of :func:`_two_point_levels` for the events that cost something
    (None unless all are two-point; [] if none costs anything), after the checks
    of :func:`_pld` (an epsilon above 700 is refused)."""
    counted = _check_events(events)
    paid = {key: n for key, n in counted.items() if key[0] == "gaussian" or key[1] > 0}
    levels = _two_point_levels(paid)
    if levels and levels[-1][0] > MAX_EXPONENT:
        _pld(events)  # raises the error naming the limit
    return levels


def _homogeneous_pure(events):
    """(epsilon0, k) if every event is randomized response or pure DP with one
    epsilon0 > 0, else None."""
    counted = _check_events(events)
    kinds = {kind for kind, _ in counted}
    parameters = {p for _, p in counted}
    if (
        kinds <= {"randomized_response", "pure"}
        and len(parameters) == 1
        and next(iter(parameters)) > 0
    ):
        return next(iter(parameters)), sum(counted.values())
    return None


def pld_epsilon(events, delta, numerical: bool = False) -> float:
    """Tight epsilon at ``delta`` of the composition of ``events``, by privacy loss
    distributions.

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
    loss passes about 709); randomized-response and pure steps of unequal epsilons
    by :func:`dpnn.accounting.two_point.two_point_epsilon` (the same pessimistic
    grid law, summed without cancellation and on a grid that scales with the
    steps); ``numerical=True`` forces ``dp_accounting``. If
    ``dp_accounting`` overflows on another mix, the basic-composition sum is
    returned, which is then within the discretization error of exact. A
    non-Gaussian step with epsilon above 700 raises ``ValueError`` (its
    e^epsilon overflows; such a step reveals its input).
    """
    delta = probability_open(delta, "delta")
    homogeneous = None if numerical else _homogeneous_pure(events)
    if homogeneous:
        return optimal_pure_composition_epsilon(homogeneous[0], homogeneous[1], delta)
    levels = None if numerical else _paid_two_point(events)
    if levels:
        return min(two_point_epsilon(levels, delta), sum(e * n for e, n in levels))
    distribution = _pld(events)
    if distribution is None:
        return 0.0
    with np.errstate(over="ignore"):
        epsilon = float(distribution.get_epsilon_for_delta(delta))
    counted = _check_events(events)
    if any(kind == "gaussian" for kind, _ in counted):
        if not math.isfinite(epsilon):
            raise ValueError(
                "events compose beyond what dp_accounting "
                "can represent (epsilon overflow)"
            )
        return epsilon
    # Pure steps: basic composition is valid too, and beats the grid's rounding once it
    # binds.
    return min(epsilon, float(sum(p * n for (_, p), n in counted.items())))


def pld_delta(events, epsilon, numerical: bool = False) -> float:
    """Tight delta at ``epsilon`` of the composition of ``events`` (see
    :func:`pld_epsilon`)."""
    epsilon = nonnegative_finite(epsilon, "epsilon")
    homogeneous = None if numerical else _homogeneous_pure(events)
    if homogeneous:
        return optimal_pure_composition_delta(homogeneous[0], homogeneous[1], epsilon)
    levels = None if numerical else _paid_two_point(events)
    if levels:
        return two_point_delta(levels, epsilon)
    distribution = _pld(events)
    return (
        0.0
        if distribution is None
        else float(distribution.get_delta_for_epsilon(epsilon))
    )
