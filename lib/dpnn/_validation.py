"""Argument checks shared by every module.

Each check raises ``ValueError`` whose message names the argument and the
allowed range, so a reader who passes ``epsilon=0`` learns what went wrong
instead of receiving a NaN or a silently clipped value.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = [
    "positive_finite",
    "nonnegative_finite",
    "probability_open",
    "positive_int",
    "finite_array",
    "generator",
]


def positive_finite(value, name: str) -> float:
    """Return ``value`` as a float if it is a finite real number > 0."""
    if isinstance(value, bool) or not isinstance(
        value, (Real, np.floating, np.integer)
    ):
        raise ValueError(f"{name} must be a finite real number > 0, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite real number > 0, got {value!r}")
    return value


def nonnegative_finite(value, name: str) -> float:
    """Return ``value`` as a float if it is a finite real number >= 0."""
    if isinstance(value, bool) or not isinstance(
        value, (Real, np.floating, np.integer)
    ):
        raise ValueError(f"{name} must be a finite real number >= 0, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite real number >= 0, got {value!r}")
    return value


def probability_open(value, name: str) -> float:
    """Return ``value`` as a float if it lies in the open interval (0, 1)."""
    if isinstance(value, bool) or not isinstance(
        value, (Real, np.floating, np.integer)
    ):
        raise ValueError(f"{name} must be a real number in (0, 1), got {value!r}")
    value = float(value)
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must be a real number in (0, 1), got {value!r}")
    return value


def positive_int(value, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def finite_array(
    values, name: str, ndim: tuple[int, ...] | None = None, allow_empty: bool = False
) -> np.ndarray:
    """Return ``values`` as a float array with no NaN or infinity, non-empty unless
    ``allow_empty``.

    ``ndim`` lists the accepted numbers of dimensions (``None`` accepts any).
    ``allow_empty=True`` is for a private dataset: its size is private, so a
    private function must answer on zero records rather than raise (a raise that
    one record more or less turns on or off would itself reveal the data). Its
    dimension, dtype and domain are public and are still checked.
    """
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{name} must be an array of finite real numbers ({error})"
        ) from None
    if ndim is not None and array.ndim not in ndim:
        allowed = " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(f"{name} must be a {allowed} array, got shape {array.shape}")
    if array.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(
            f"{name} must contain only finite numbers (no NaN or infinity)"
        )
    return array


def generator(rng, name: str = "rng") -> np.random.Generator:
    """Return ``rng`` if it is a ``numpy.random.Generator``; an int seed makes one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if (
        isinstance(rng, (Integral, np.integer))
        and not isinstance(rng, bool)
        and rng >= 0
    ):
        return np.random.default_rng(int(rng))
    raise ValueError(
        f"{name} must be a numpy.random.Generator "
        f"or a non-negative integer seed, got {rng!r}"
    )
