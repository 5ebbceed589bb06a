"""Validation helpers used at layer boundaries (always on, never ``assert``)."""
from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterable

import numpy as np

from .exceptions import DimensionError, InputError


_COMPLEX_STEP = contextvars.ContextVar("complex_step", default=False)


@contextlib.contextmanager
def complex_step():
    """Within this context the scalar checks (:func:`positive`, :func:`non_negative`,
    :func:`finite`) let a complex value through unchanged, checked on its real part: the
    complex-step derivative (Squire & Trapp 1998) carries a parameter ``p + i h`` through
    a model's build (:mod:`elastodyn.analysis.frequency_sensitivity`). Outside it a
    complex value is refused as before."""
    token = _COMPLEX_STEP.set(True)
    try:
        yield
    finally:
        _COMPLEX_STEP.reset(token)


def _real(value):
    """(the float checked, the value returned): a complex value inside
    :func:`complex_step` is checked on its real part and returned as is."""
    if _COMPLEX_STEP.get() and isinstance(value, (complex, np.complexfloating)):
        return float(value.real), complex(value)
    v = float(value)
    return v, v


def scalar(value):
    """``float(value)``; inside :func:`complex_step` a complex value is kept complex
    (the casts of a description's numbers, made complex-step safe)."""
    if _COMPLEX_STEP.get() and isinstance(value, (complex, np.complexfloating)):
        return complex(value)
    return float(value)


def real_array(value) -> np.ndarray:
    """``np.asarray(value, dtype=float)``; inside :func:`complex_step` an array holding
    a complex value is kept complex."""
    if _COMPLEX_STEP.get():
        a = np.asarray(value)
        if a.dtype.kind == "c":
            return a.astype(complex)
    return np.asarray(value, dtype=float)


def positive(name: str, value: float) -> float:
    """Return ``value`` as float if it is finite and > 0, else raise InputError (a
    complex value inside :func:`complex_step`: returned as is, its real part checked)."""
    try:
        v, out = _real(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number > 0") from None
    if not math.isfinite(v) or v <= 0.0:
        raise InputError(name, value, "a finite number > 0")
    return out


def non_negative(name: str, value: float) -> float:
    """Return ``value`` as float if it is finite and >= 0, else raise InputError (complex
    inside :func:`complex_step`, as :func:`positive`)."""
    try:
        v, out = _real(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number >= 0") from None
    if not math.isfinite(v) or v < 0.0:
        raise InputError(name, value, "a finite number >= 0")
    return out


def finite(name: str, value: float) -> float:
    """Return ``value`` as float if it is finite, else raise InputError (complex inside
    :func:`complex_step`, as :func:`positive`)."""
    try:
        v, out = _real(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number") from None
    if not math.isfinite(v):
        raise InputError(name, value, "a finite number")
    return out


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
    """Return ``value`` as a finite float array of shape (size,), else raise (complex
    inside :func:`complex_step`, checked on its real part)."""
    arr = real_array(value)
    if arr.shape != (size,):
        raise DimensionError(f"invalid {name}: expected shape ({size},), got {arr.shape}")
    if not np.all(np.isfinite(arr.real)):
        raise InputError(name, value, "finite values")
    return arr
