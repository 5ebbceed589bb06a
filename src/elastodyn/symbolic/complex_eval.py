"""Complex-arithmetic evaluation of a :class:`~elastodyn.symbolic.core.Program`, for the
complex-step derivative carried through a generated model.

The compiled programs (:mod:`~elastodyn.symbolic.compiled`) compute in double precision
and are cached by a hash of the robot's description: a model built with a description
entry ``p + i h`` (:func:`elastodyn._validate.complex_step`, the numbers of the program
then hold ``Float(re) + I Float(im)``, :func:`number`) must neither compile nor look up a
library. :class:`ComplexProgram` evaluates the program in Python complex arithmetic
instead: the printed Python of the program (one statement per intermediate variable,
as :func:`~elastodyn.symbolic.printers.print_program` ``"python"``) with

* the functions of ``math`` replaced by their analytic continuations (``cmath``), and
  the non-analytic ones by the analytic functions that agree with them on the reals,
  the branch fixed by the real part (Martins, Sturdza & Alonso 2003, ACM TOMS 29(3),
  sec. 3.2): ``Abs(x)`` -> ``x`` or ``-x`` by the sign of Re x, ``sign(x)`` -> the sign of
  Re x (constant near the real axis), comparisons (:class:`~elastodyn.symbolic.core.
  IsGreater`, the pivot choices of :class:`~elastodyn.symbolic.linalg.PivotedLU`) on
  the real parts, ``atan2`` by :func:`elastodyn._validate.arctan2`;
* the numbers printed as the shortest repr of the double (exact round trip, not the 15
  digits of sympy's printer).

For real inputs and real constants it gives the compiled program's values to round-off
(the same operations in another order); the complex-step derivative is the imaginary
part divided by h. No file is written, nothing is cached beyond the instance.
"""
from __future__ import annotations

import cmath
import math
import types

import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from .._validate import arctan2 as _cs_arctan2
from ..exceptions import InputError, ModelError
from .core import Program
from .printers import python_lines

__all__ = ["ComplexProgram", "number"]


def number(x) -> sp.Expr:
    """A description's number as a sympy number: ``Float(x)`` for a real value, ``Float(re)
    + I Float(im)`` for a complex one (a complex-step entry), ``Integer(0)`` for zero."""
    if isinstance(x, (complex, np.complexfloating)):
        z = complex(x)
        if z.imag == 0.0:
            x = z.real
        else:
            re = sp.Float(z.real) if z.real != 0.0 else sp.Integer(0)
            return re + sp.I * sp.Float(z.imag)
    x = float(x)
    return sp.Integer(0) if x == 0.0 else sp.Float(x)


def _abs(x):
    return -x if x.real < 0 else x


def _sign(x):
    r = x.real
    return 0.0 if r == 0 else math.copysign(1.0, r)


def _gt(x, y):
    return complex(x).real > complex(y).real


def _atan2(y, x):
    return complex(_cs_arctan2(np.complex128(y), np.complex128(x)))


def _copysign(a, b):
    return math.copysign(1.0, complex(b).real) * _abs(complex(a))


_MATH = types.SimpleNamespace(
    sin=cmath.sin, cos=cmath.cos, tan=cmath.tan, exp=cmath.exp, log=cmath.log,
    sqrt=cmath.sqrt, asin=cmath.asin, acos=cmath.acos, atan=cmath.atan,
    sinh=cmath.sinh, cosh=cmath.cosh, tanh=cmath.tanh, atan2=_atan2, fabs=_abs,
    copysign=_copysign, pi=math.pi, e=math.e)


class _ComplexPrinter(PythonCodePrinter):
    printmethod = "_complex_code"         # not the classes' _pythoncode: ours below

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_IsGreater(self, expr):
        x, y = (self._print(a) for a in expr.args)
        return f"_gt({x}, {y})"

    def _print_Select(self, expr):
        f, a, b = (self._print(x) for x in expr.args)
        return f"({a} if {f} else {b})"

    def _print_Abs(self, expr):
        return f"_abs({self._print(expr.args[0])})"

    def _print_sign(self, expr):
        return f"_sign({self._print(expr.args[0])})"

    def _print_ImaginaryUnit(self, expr):
        return "1j"


class ComplexProgram:
    """Callable evaluating ``program`` in complex arithmetic (module docstring):
    ``f(*inputs)`` or ``f(**inputs)`` (arrays, one per input group) returns
    {output name: complex ndarray (rows, cols)}, as
    :class:`~elastodyn.symbolic.compiled.CompiledProgram` does in double precision."""

    backend = "python-complex"

    def __init__(self, program: Program):
        if not isinstance(program, Program):
            raise InputError("program", type(program).__name__, "a symbolic Program")
        self.program = program
        self.in_sizes = {g: len(s) for g, s in program.inputs.items()}
        self.out_shapes = {g: (M.rows, M.cols) for g, M in program.outputs.items()}
        pr = _ComplexPrinter({"fully_qualified_modules": True, "strict": False})
        lines = python_lines(program, "_f", pr.doprint, lambda g: g, ", dtype=complex")
        lines.append(f"    return ({', '.join(program.outputs)},)")
        ns = {"math": _MATH, "np": np, "_gt": _gt, "_abs": _abs, "_sign": _sign}
        # the text is printed from the program's sympy expressions (identifiers of
        # is_identifier, numbers), never taken from a user
        exec(compile("\n".join(lines) + "\n", f"<complex {program.name}>", "exec"), ns)
        self._fn = ns["_f"]

    def __call__(self, *args, **kwargs) -> dict:
        vals = list(args) + [kwargs[g] for g in list(self.in_sizes)[len(args):]]
        ins = []
        for (g, n), v in zip(self.in_sizes.items(), vals):
            a = np.asarray(v).ravel()
            if a.size != n:
                raise ModelError(f"input {g}: expected {n} values, got {a.size}")
            ins.append([complex(x) for x in a])
        res = self._fn(*ins)
        return dict(zip(self.out_shapes, res))
