"""Straight-line symbolic programs with intermediate variables (Briot & Khalil 2013, IV-E).

A model is computed once, symbolically, by the same code that describes it (recursions on
SymPy matrices). Every matrix or vector entry that contains at least one operation is
replaced by an *intermediate variable* (IV) ``t<k>`` whose definition is recorded; entries
without operation (symbols, numbers, a negated symbol) stay as they are. The recorded
definitions propagate into the next equations, so every expression stays small. At the
end, the IVs that do not reach the requested outputs are removed by one backward scan
(Briot IV-E), and the remaining ones are counted and printed.

Operator counts (:func:`count_ops`), per expression tree as printed:

* ``additions``: n - 1 for a sum of n terms (a term with a negative coefficient is a
  subtraction, not a multiplication by -1); a lone negation ``-x`` counts as one, and so
  does the leading sign of a sum whose terms are all negative (``-x - y``: a negation
  and a subtraction), unless that term is a number (``-2.0 - x``: a constant).
* ``multiplications``: n - 1 for a product of n factors (a coefficient -1 is a sign, not
  a factor), one per division, and k - 1 for an integer power x**k (printed as a
  product, the operators of a base that is not a symbol or number once per copy);
  x**-k is one division after the product.
* ``functions``: calls of sin, cos, sqrt, abs, ... (a non-integer power is a call of
  pow).
* ``comparisons``: one per :class:`IsGreater` node, a flag (1.0 if x > y else 0.0)
  recorded once as its own intermediate variable;
* ``selects``: one per :class:`Select` node, ``a if flag else b`` (a conditional move:
  no arithmetic, printed as a ternary in C, a conditional expression in Python, a masked
  expression in Octave and cases in LaTeX).

Programs without comparisons and selects (every model that needs no pivoting) have the
same three counts as before these two were introduced; the two new counts are zero.
Comparisons and selects are counted apart from the arithmetic: each is one machine
instruction (a compare, a conditional move), neither an addition nor a multiplication.

The printers (:mod:`~elastodyn.symbolic.printers`) print every expression exactly as
counted (a test counts the operators of the printed C). The recorder removes the factors
and exponents ``Float(1.0)`` and ``Float(-1.0)`` that numeric parameters leave (a shape
function value 1, a sign): ``1.0*x`` is ``x`` (:func:`tidy`).

Identical right-hand sides are recorded once (common subexpressions found by hashing),
which also removes the work that the recursions repeat.
"""
from __future__ import annotations

import keyword
import re
import time
from dataclasses import dataclass, field

import sympy as sp

from ..exceptions import InputError

__all__ = ["Recorder", "Program", "OpCount", "count_ops", "IsGreater", "Select",
           "identifier", "is_identifier", "tidy", "Closure", "mul_parts"]


# ---------------------------------------------------------------------- select nodes
def _is_num(x) -> bool:
    return isinstance(x, sp.Basic) and x.is_Number


class IsGreater(sp.Function):
    """Comparison flag ``IsGreater(x, y)`` = 1 if x > y else 0 (a real number).

    Evaluates to ``S.One``/``S.Zero`` when both arguments are numbers (so that
    :meth:`Program.evaluate` and ``xreplace`` with numbers give the value). Printed as
    ``(x > y)`` in C (an int promoted to double 1.0/0.0), Python (a bool) and Octave (a
    logical), and as an Iverson bracket in LaTeX. Counted as one comparison."""

    nargs = 2
    is_real = True

    @classmethod
    def eval(cls, x, y):
        if _is_num(x) and _is_num(y):
            return sp.S.One if x > y else sp.S.Zero
        if x == y:
            return sp.S.Zero
        return None

    def _ccode(self, printer):
        x, y = self.args
        return f"({printer._print(x)} > {printer._print(y)})"

    _pythoncode = _ccode

    def _octave(self, printer):
        x, y = self.args
        return f"({printer._print(x)} > {printer._print(y)})"

    def _latex(self, printer):
        x, y = self.args
        return rf"\left[{printer._print(x)} > {printer._print(y)}\right]"


class Select(sp.Function):
    """Branch-free choice ``Select(flag, a, b)`` = a if flag != 0 else b, for a flag
    from :class:`IsGreater` (0 or 1).

    Evaluates when the flag is a number, or when a == b; ``Select(f, -a, -b)`` is kept
    as ``-Select(f, a, b)`` (the sign folds into the next sum). Printed as ``(f ? a :
    b)`` in C, ``(a if f else b)`` in Python, the masked expression ``((f).*(a) +
    (~(f)).*(b))`` in Octave/MATLAB (exact for finite a and b: one term is a times 1,
    the other b times 0) and ``cases`` in LaTeX. Counted as one select."""

    nargs = 3
    is_real = True

    @classmethod
    def eval(cls, f, a, b):
        if _is_num(f):                   # Float(0.0) != 0 in sympy >= 1.13: use is_zero
            return b if f.is_zero else a
        if a == b:
            return a
        if (_is_neg_atom(a) or (a.is_Number and a.is_negative)) and \
                (_is_neg_atom(b) or (b.is_Number and b.is_negative)):
            return -cls(f, -a, -b)
        return None

    def _ccode(self, printer):
        f, a, b = (printer._print(x) for x in self.args)
        return f"({f} ? {a} : {b})"

    def _pythoncode(self, printer):
        f, a, b = (printer._print(x) for x in self.args)
        return f"({a} if {f} else {b})"

    def _octave(self, printer):
        f, a, b = (printer._print(x) for x in self.args)
        return f"(({f}).*({a}) + (~({f})).*({b}))"

    def _latex(self, printer):
        f, a, b = (printer._print(x) for x in self.args)
        return (rf"\begin{{cases}} {a} & \text{{if }} {f} = 1 \\ {b} & "
                rf"\text{{otherwise}} \end{{cases}}")


def _is_neg_atom(e) -> bool:
    return e.is_Mul and len(e.args) == 2 and e.args[0] == -1 and e.args[1].is_Atom


# ---------------------------------------------------------------------- identifiers
_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum
extern float for goto if inline int long register restrict return short signed sizeof
static struct switch typedef union unsigned void volatile while _Bool _Complex
_Imaginary""".split())
_OCTAVE_KEYWORDS = frozenset("""end endfunction function if else elseif endif for endfor
while endwhile do until switch case otherwise endswitch try catch end_try_catch
unwind_protect unwind_protect_cleanup end_unwind_protect break continue return global
persistent parfor endparfor classdef methods properties events enumeration""".split())
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def is_identifier(name) -> bool:
    """True if ``name`` is a valid function name in every printed language: ASCII
    letters, digits and underscores, starting with a letter (Octave/MATLAB function names
    cannot start with an underscore; C reserves file-scope names that do), and not a
    keyword of C, Python or Octave."""
    return (isinstance(name, str) and bool(_IDENT.match(name))
            and name not in _C_KEYWORDS and name not in _OCTAVE_KEYWORDS
            and not keyword.iskeyword(name))


def identifier(text: str, prefix: str = "m") -> str:
    """A valid identifier (:func:`is_identifier`) made from ``text``: every character
    outside ``[A-Za-z0-9_]`` becomes ``_``; ``prefix + "_"`` is prepended if the result does
    not start with a letter (e.g. "3prr-rosyid2020" -> "m_3prr_rosyid2020") or is a
    keyword. An identifier is returned unchanged ("prrrp_briot2013")."""
    if not isinstance(text, str):
        raise InputError("name", text, "a string")
    if not is_identifier(prefix):
        raise InputError("prefix", prefix, "an identifier starting with a letter")
    out = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not is_identifier(out):
        out = f"{prefix}_{out}"
    return out


@dataclass(frozen=True)
class OpCount:
    """Operator counts of a program or expression."""

    additions: int = 0
    multiplications: int = 0
    functions: int = 0
    comparisons: int = 0
    selects: int = 0

    def __add__(self, other: "OpCount") -> "OpCount":
        return OpCount(self.additions + other.additions,
                       self.multiplications + other.multiplications,
                       self.functions + other.functions,
                       self.comparisons + other.comparisons,
                       self.selects + other.selects)

    def to_dict(self) -> dict:
        return {"additions": self.additions, "multiplications": self.multiplications,
                "functions": self.functions, "comparisons": self.comparisons,
                "selects": self.selects}


def mul_parts(e) -> tuple:
    """A product as printed: (negative, coefficient, factors) with the product of its
    number factors split into a sign and a coefficient (None if it is 1 in magnitude):
    ``-2*x*y`` -> (True, 2, [x, y]), ``-x`` -> (True, None, [x]) (sympy may keep
    ``Mul(-1, 2, x)`` unfolded: it is ``-2*x`` here)."""
    c = sp.Integer(1)
    rest = []
    for t in e.args:
        if t.is_Number:
            c = c * t
        else:
            rest.append(t)
    neg = bool(c.is_negative)
    c = -c if neg else c
    return neg, (None if c == 1 else c), rest


def _is_neg(e) -> bool:
    return e.is_Mul and mul_parts(e)[0]


def _leads_with_number(t) -> bool:
    """A sum's negative term that prints as a negative literal first (``-2.0*x``)."""
    return t.is_Number or (t.is_Mul and mul_parts(t)[1] is not None)


def count_ops(expr) -> OpCount:
    """Operators of one expression (module docstring for the rules)."""
    a = m = f = cmp = sel = 0
    stack = [(sp.sympify(expr), False)]
    while stack:
        e, in_sum = stack.pop()
        if e.is_Atom:
            if e.is_Number and e.is_negative and not in_sum:
                pass  # a negative literal is a constant, not an operation
            continue
        if e.is_Add:
            a += len(e.args) - 1
            if all(_is_neg(t) or (t.is_Number and t.is_negative) for t in e.args) and \
                    not _leads_with_number(e.args[0]):
                a += 1  # -x - y: the leading sign is a negation
            for t in e.args:
                stack.append((t, True))
            continue
        if e.is_Mul:
            neg, coef, args = mul_parts(e)
            if neg and coef is None and not in_sum:
                a += 1  # a lone negation (other signs fold into the constant)
            if coef is not None:
                args = [coef] + args
            num = [t for t in args if not (t.is_Pow and t.exp.is_Integer and t.exp < 0)]
            den = [t for t in args if t.is_Pow and t.exp.is_Integer and t.exp < 0]
            m += max(len(num) - 1, 0) + len(den)
            for t in num:
                stack.append((t, False))
            for t in den:
                stack.append((t.base ** (-t.exp), False))
            continue
        if e.is_Pow:
            copies = 1
            if e.exp.is_Integer:
                k = int(e.exp)
                m += abs(k) - 1 + (1 if k < 0 else 0)
                if not e.base.is_Atom:
                    copies = abs(k)     # printed (a + b)*(a + b): the base's operators twice
            elif e.exp == sp.Rational(1, 2) or e.exp == sp.Rational(-1, 2):
                f += 1
                m += 1 if e.exp < 0 else 0
            else:
                f += 1
            stack.extend([(e.base, False)] * copies)
            continue
        if isinstance(e, (IsGreater, Select)):
            if isinstance(e, IsGreater):
                cmp += 1
            else:
                sel += 1
            for t in e.args:
                stack.append((t, False))
            continue
        if isinstance(e, sp.Function):
            f += 1
            for t in e.args:
                stack.append((t, False))
            continue
        raise InputError("expression", type(e).__name__,
                         "sums, products, powers, functions, IsGreater, Select")
    return OpCount(a, m, f, cmp, sel)


def tidy(expr):
    """``expr`` with every ``Float(1.0)`` and ``Float(-1.0)`` made the integer 1 or -1
    (exact: the same double), so that ``1.0*x`` becomes ``x`` and ``-1.0*x`` ``-x``."""
    e = sp.sympify(expr) if not isinstance(expr, sp.Basic) else expr
    ones = {f: sp.Integer(int(f)) for f in e.atoms(sp.Float) if float(f) in (1.0, -1.0)}
    return e.xreplace(ones) if ones else e


def _is_trivial(e) -> bool:
    """No operation: an atom, or a negated atom (the sign folds into the next sum)."""
    if e.is_Atom:
        return True
    return e.is_Mul and len(e.args) == 2 and e.args[0] == -1 and e.args[1].is_Atom


class Recorder:
    """Collects intermediate variables.

    ``rec(expr)`` returns ``expr`` itself if it has no operation, else a new symbol
    ``<prefix><k>`` defined as ``expr`` (or the symbol already defined by the same
    expression). ``rec.matrix(M)`` does it entry by entry.
    """

    def __init__(self, prefix: str = "t"):
        self.prefix = prefix
        self.assignments: list[tuple[sp.Symbol, sp.Expr]] = []
        self._by_expr: dict = {}

    def __call__(self, expr):
        e = tidy(expr)
        if _is_trivial(e):
            return e
        s = self._by_expr.get(e)
        if s is not None:
            return s
        s = self._by_expr.get(-e)
        if s is not None:
            return -s
        s = sp.Symbol(f"{self.prefix}{len(self.assignments)}", real=True)
        self.assignments.append((s, e))
        self._by_expr[e] = s
        return s

    def matrix(self, M) -> sp.Matrix:
        M = sp.Matrix(M)
        return M.applyfunc(self)


@dataclass
class Program:
    """A straight-line program: named input groups, assignments, named output matrices.

    Parameters
    ----------
    name : str
        Identifier of the generated function (:func:`is_identifier`: ASCII letters,
        digits and underscores, starting with a letter, not a keyword; make one with
        :func:`identifier`).
    inputs : dict[str, list[sympy.Symbol]]
        Ordered input groups (each becomes one array argument).
    assignments : list of (Symbol, Expr)
        Intermediate variables in evaluation order.
    outputs : dict[str, sympy.Matrix]
        Ordered output matrices (each becomes one array argument, row-major).
    doc : dict
        Texts for the header: ``{"title": ..., "inputs": {group: text}, "outputs":
        {group: text}}`` (units and ordering).
    """

    name: str
    inputs: dict
    assignments: list
    outputs: dict
    doc: dict = field(default_factory=dict)
    generation_time_s: float = 0.0

    def __post_init__(self):
        if not is_identifier(self.name):
            raise InputError("name", self.name,
                             "ASCII letters, digits and underscores starting with a letter, "
                             "not a C, Python or Octave keyword (see symbolic.identifier)")
        known = {s for g in self.inputs.values() for s in g}
        defined = set()
        for s, e in self.assignments:
            free = e.free_symbols - known - defined
            if free:
                raise InputError("assignments", sorted(map(str, free))[:5],
                                 "expressions of the inputs and earlier variables")
            defined.add(s)
        for k, M in self.outputs.items():
            free = set().union(*(sp.sympify(x).free_symbols for x in M)) - known - defined
            if free:
                raise InputError(f"outputs[{k}]", sorted(map(str, free))[:5],
                                 "expressions of the inputs and variables")

    # ------------------------------------------------------------------ transforms
    def pruned(self) -> "Program":
        """Copy without the variables that do not reach the outputs (one backward scan,
        Briot IV-E)."""
        need = set()
        for M in self.outputs.values():
            for x in M:
                need |= sp.sympify(x).free_symbols
        keep = []
        for s, e in reversed(self.assignments):
            if s in need:
                keep.append((s, e))
                need |= e.free_symbols
        keep.reverse()
        return Program(self.name, self.inputs, keep, self.outputs, self.doc,
                       self.generation_time_s)

    def with_outputs(self, outputs: dict, name: str | None = None, doc=None) -> "Program":
        """Same assignments, other outputs (then :meth:`pruned` drops the dead ones)."""
        return Program(name or self.name, self.inputs, list(self.assignments), outputs,
                       doc if doc is not None else self.doc, self.generation_time_s)

    def ops(self) -> OpCount:
        """Operators of all assignments and output expressions."""
        total = OpCount()
        for _, e in self.assignments:
            total = total + count_ops(e)
        for M in self.outputs.values():
            for x in M:
                total = total + count_ops(x)
        return total

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, **inputs) -> dict:
        """Evaluate with Python floats, one assignment at a time (slow reference path):
        inputs as arrays by group name; returns {output name: ndarray}."""
        import numpy as np
        env = {}
        for g, syms in self.inputs.items():
            vals = np.asarray(inputs[g], dtype=float).ravel()
            if vals.size != len(syms):
                raise InputError(g, vals.size, f"{len(syms)} values")
            env.update({s: float(v) for s, v in zip(syms, vals)})
        for s, e in self.assignments:
            env[s] = float(e.xreplace(env))
        out = {}
        for k, M in self.outputs.items():
            out[k] = np.array([[float(sp.sympify(x).xreplace(env)) for x in row]
                               for row in M.tolist()]).reshape(M.shape)
        return out


class Timer:
    """Context manager measuring generation time [s]."""

    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0


@dataclass(frozen=True)
class Closure:
    """The loop closure of a closed-loop robot, for the printers: the passive joints from
    the actuated ones, so that an exported program taking every joint (input group
    ``q``) can be called with the actuated joints only.

    The printed solve is the library's (:meth:`~elastodyn.formulations.nepvp.engine.
    NEPVPEngine.closure`, Briot & Khalil 2013 eq. 31): Newton on the residual h(q, e) = 0
    of ``program`` (inputs ``q`` (every joint, joint order) and ``e``; outputs ``h``
    (n_p) and ``D`` = dh/dq_p (n_p x n_p)) for the passive joints, from ``home``
    reached by continuation along q_a (and e) in ``steps = max(1, ceil(max|q_a -
    home_a| / step))`` equal steps, each Newton run stopping at max|h| < ``tol`` (m,
    rad) within ``max_iter`` iterations.

    Parameters
    ----------
    program : Program
    actuated, passive : tuple of int
        Indices of the actuated and passive joints in ``q`` (together: every joint).
    home : tuple of float
        The joint vector the continuation starts from [m or rad].
    """

    program: Program
    actuated: tuple
    passive: tuple
    home: tuple
    step: float = 0.05
    tol: float = 1e-12
    max_iter: int = 50

    def __post_init__(self):
        ins = list(self.program.inputs)
        if ins[:1] != ["q"] or not set(ins) <= {"q", "e"}:
            raise InputError("closure.program inputs", ins, "q (every joint) and e")
        if list(self.program.outputs) != ["h", "D"]:
            raise InputError("closure.program outputs", list(self.program.outputs),
                             "h and D")
        nj = len(self.program.inputs["q"])
        if sorted(tuple(self.actuated) + tuple(self.passive)) != list(range(nj)) or \
                len(self.home) != nj or not self.passive:
            raise InputError("closure joints", (self.actuated, self.passive),
                             f"a partition of the {nj} joints with passive ones, and "
                             f"{nj} home values")
