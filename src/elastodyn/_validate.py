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


def complex_step_active() -> bool:
    """True inside :func:`complex_step`: a model built there may carry complex numbers
    (the generated programs then evaluate in complex arithmetic, never compiled or
    cached, :mod:`elastodyn.symbolic.complex_eval`)."""
    return _COMPLEX_STEP.get()


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


# ---------------------------------------------------------------- complex-step-safe math
# numpy's arctan2, hypot and clip refuse or misread complex arguments, np.linalg.norm and
# np.abs take the modulus (not analytic), np.angle(np.exp(1j x)) drops the imaginary
# part. The functions below are the analytic continuations used where a geometry entry
# carries a complex step (Squire & Trapp 1998; Martins, Sturdza & Alonso 2003, sec. 3.2:
# replace non-analytic functions by analytic ones that agree on the reals): for real
# arguments each calls the numpy function it replaces, so real results are bitwise
# unchanged; for complex arguments each is analytic near the real axis, the branch (the
# quadrant, the clip, the wrap) fixed by the real parts.

def _is_complex(*xs) -> bool:
    return any(np.iscomplexobj(x) for x in xs)


def hypot(a, b):
    """sqrt(a^2 + b^2), elementwise (``np.hypot`` for real arguments; the principal
    square root, analytic for Re(a^2 + b^2) > 0, for complex ones)."""
    if _is_complex(a, b):
        a, b = np.asarray(a), np.asarray(b)
        return np.sqrt(a * a + b * b)
    return np.hypot(a, b)


def norm(x, axis=-1, keepdims: bool = False):
    """Euclidean norm along ``axis`` (``np.linalg.norm`` for real arrays; sqrt(sum x^2),
    analytic, for complex ones: |x| = sqrt(sum x conj(x)) is not)."""
    if _is_complex(x):
        x = np.asarray(x)
        return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))
    return np.linalg.norm(x, axis=axis, keepdims=keepdims)


def arctan2(y, x):
    """atan2(y, x), elementwise (``np.arctan2`` for real arguments). For complex ones,
    theta0 + arctan((x0 y - y0 x) / (x0 x + y0 y)) with (x0, y0) the real parts and
    theta0 = atan2(y0, x0): the ratio is 0 at the real point, so the real part is
    theta0 (the quadrant of the real parts) and the expression is analytic wherever
    x0^2 + y0^2 > 0 (the derivative (x0 dy - y0 dx) / (x0^2 + y0^2) of atan2)."""
    if _is_complex(y, x):
        y, x = np.asarray(y), np.asarray(x)
        x0, y0 = x.real, y.real
        return np.arctan2(y0, x0) + np.arctan((x0 * y - y0 * x) / (x0 * x + y0 * y))
    return np.arctan2(y, x)


def clip(x, lo: float, hi: float):
    """``np.clip(x, lo, hi)`` for real arrays; for complex ones the bounds apply to the
    real part (a clipped entry becomes the real bound, an unclipped one is kept as is)."""
    if _is_complex(x):
        x = np.asarray(x)
        return np.where(x.real < lo, lo, np.where(x.real > hi, hi, x))
    return np.clip(x, lo, hi)


def wrap_angle(x):
    """Angles wrapped to [-pi, pi]: ``np.angle(np.exp(1j x))`` for real arrays (pi and
    -pi are both possible, as numpy rounds); for complex ones the same wrap of the real
    part with the imaginary part kept (a shift by a multiple of 2 pi: derivative 1)."""
    if _is_complex(x):
        x = np.asarray(x)
        return np.angle(np.exp(1j * x.real)) + 1j * x.imag
    return np.angle(np.exp(1j * np.asarray(x)))


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


# ---------------------------------------------------------------- physical ranges
PHYSICAL_RANGES = {
    "modulus": (1e3, 1e18, "Pa", "from soft gels (~1 kPa) to a million times steel, the "
                "stiff limit of a model (the rigid-limit checks scale steel by 1e6)"),
    "density": (1.0, 1e5, "kg/m^3", "from aerogels (~1 kg/m^3) to osmium (2.3e4 kg/m^3)"),
    "length": (1e-6, 1e3, "m", "a micrometre to a kilometre"),
    "mass": (0.0, 1e6, "kg", "up to a thousand tonnes"),
    "area": (1e-12, 1e6, "m^2", "a section of a micrometre to a kilometre"),
    "second moment": (1e-24, 1e12, "m^4", "a section of a micrometre to a kilometre"),
    "magnitude": (-1e12, 1e12, "(SI)", "no entry of a robot description is larger"),
    "time": (1e-6, 1e6, "s", "a microsecond to eleven days: a motion's own time scale"),
}
"""Physical ranges of the inputs of a structure (SI), with a decade of margin beyond the
extreme real materials and sizes. Outside them a model is not physics any more and its
floating-point evaluation breaks down (a length of 1e300 m overflows the element
matrices (L^k), 1e-300 m underflows them; a modulus of 1e300 Pa with an ordinary shear
modulus puts the torsion frequencies below round-off)."""


def physical(name: str, value: float, kind: str) -> float:
    """``value`` as float if it lies in the physical range ``kind`` of
    :data:`PHYSICAL_RANGES` (``modulus``, ``density``, ``length``, ``mass``, ``area``,
    ``second moment``, ``magnitude``), else InputError naming ``name`` with the range."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not in_physical_range(v, kind):
        raise InputError(name, value, physical_range_text(kind))
    return v


def in_physical_range(v: float, kind: str) -> bool:
    """Whether the float ``v`` lies in the physical range ``kind``."""
    lo, hi = PHYSICAL_RANGES[kind][:2]
    return math.isfinite(v) and lo <= v <= hi


def physical_range_text(kind: str) -> str:
    """The range ``kind`` in words (``a length in [1e-06, 1000] m (...)``)."""
    lo, hi, unit, why = PHYSICAL_RANGES[kind]
    what = "a number" if kind == "magnitude" else f"a {kind}"
    return f"{what} in [{lo:g}, {hi:g}] {unit} ({why})"
