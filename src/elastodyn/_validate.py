"""Validation helpers used at layer boundaries (always on, never ``assert``)."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .exceptions import DimensionError, InputError


def positive(name: str, value: float) -> float:
    """Return ``value`` as float if it is finite and > 0, else raise InputError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number > 0") from None
    if not math.isfinite(v) or v <= 0.0:
        raise InputError(name, value, "a finite number > 0")
    return v


def non_negative(name: str, value: float) -> float:
    """Return ``value`` as float if it is finite and >= 0, else raise InputError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number >= 0") from None
    if not math.isfinite(v) or v < 0.0:
        raise InputError(name, value, "a finite number >= 0")
    return v


def finite(name: str, value: float) -> float:
    """Return ``value`` as float if it is finite, else raise InputError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number") from None
    if not math.isfinite(v):
        raise InputError(name, value, "a finite number")
    return v


def positive_int(name: str, value: int, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an integer >= ``minimum``, else raise InputError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(name, value, f"an integer >= {minimum}")
    if value < minimum:
        raise InputError(name, value, f"an integer >= {minimum}")
    return int(value)


def choice(name: str, value: str, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise InputError."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise InputError(name, value, "one of " + ", ".join(allowed))
    return value


def vector(name: str, value, size: int) -> np.ndarray:
    """Return ``value`` as a finite float array of shape (size,), else raise."""
    arr = np.asarray(value, dtype=float)
    if arr.shape != (size,):
        raise DimensionError(f"invalid {name}: expected shape ({size},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, value, "finite values")
    return arr
