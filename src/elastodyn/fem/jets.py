"""Exact first- and second-order forward-mode differentiation ("jets").

Why. The corotational potentials (:mod:`elastodyn.fem.corotational`) need their
gradient and Hessian with respect to a few local variables z (nv = 6..15 per element),
exactly: the Hessian is the tangent stiffness, and a description parameter p carried by
a complex step (:mod:`elastodyn.analysis.frequency_sensitivity`, p + i h) must pass
through it. A complex step inside would mix with that outer one, and differences of
gradients are not exact. A jet carries, through every operation,

    x = (v, g, H),  v = x(z0) (...),  g = dx/dz (..., nv),  H = d2x/dz2 (..., nv, nv)

(H omitted: a first-order jet). Its arithmetic is the chain and product rules (e.g.
(a b)'' = a'' b + a b'' + a' b'^T + b' a'^T; f(a)'' = f'(a) a'' + f''(a) a' a'^T):
polynomial in the components, so the components may themselves be complex and an outer
complex step passes through exactly (the jet of the analytic continuation), and the
derivatives are exact to round-off (no step). Textbook: A. Griewank, A. Walther,
"Evaluating derivatives", 2nd ed., SIAM 2008, ch. 13 (univariate Taylor / forward mode
of higher order; here the multivariate second-order form, "hyper-dual" numbers of J. A.
Fike, J. J. Alonso, AIAA 2011-886 with all nv directions at once).

How. :class:`Jet` implements numpy's ``__array_ufunc__`` (add, subtract, multiply,
divide, negative, power, sqrt, sin, cos, matmul) and ``__array_function__`` (einsum, cross,
stack, concatenate, swapaxes, broadcast_to, sum, shape, ndim) for jets mixed with plain
(real or complex) arrays, so that element code written for arrays runs on jets
unchanged (:mod:`elastodyn.fem.corotational`: the same functions evaluate the values and,
given jets, their exact derivatives). Indexing acts on the value's axes (the derivative
axes are trailing and hidden). Scalar functions with known derivatives enter by
:func:`compose`.

Storage of H. Every operation is linear in the operands' H with coefficients that do
not mix the two derivative axes, so a jet may carry any matrix whose *symmetric part* is
the Hessian: the product rule's a' b'^T + b' a'^T is stored as 2 a' b'^T (one array
pass less, no transposed copy), and :func:`hessian` returns the symmetric part.

Shapes: v (...), g (..., nv), H (..., nv, nv); every operation broadcasts as numpy does
over the value's axes.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Jet", "variables", "compose", "quadratic_form", "value", "gradient",
           "hessian"]


class Jet:
    """A value with its gradient and (optionally) Hessian with respect to nv variables
    (module docstring: ``H`` is stored up to an antisymmetric part; :func:`hessian`
    gives the Hessian). Build the independent variables with :func:`variables`."""

    __slots__ = ("v", "g", "H")
    __array_priority__ = 1000

    def __init__(self, v, g, H=None):
        self.v = v
        self.g = g
        self.H = H

    # ------------------------------------------------------------------ array-likes
    @property
    def shape(self):
        return self.v.shape

    @property
    def ndim(self):
        return self.v.ndim

    @property
    def dtype(self):
        return np.result_type(self.v, self.g)

    @property
    def nv(self):
        return self.g.shape[-1]

    def __len__(self):
        return len(self.v)

    def __repr__(self):
        return f"Jet(shape={self.shape}, nv={self.nv}, order={1 if self.H is None else 2})"

    def __getitem__(self, key):
        v = self.v[key]
        k = _expand(key, self.v.ndim)
        return Jet(v, self.g[k], None if self.H is None else self.H[k])

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
        v = self.v.reshape(shape)
        n = self.nv
        return Jet(v, self.g.reshape(v.shape + (n,)),
                   None if self.H is None else self.H.reshape(v.shape + (n, n)))

    # ------------------------------------------------------------------ operators
    def __add__(self, o):
        return add(self, o)

    __radd__ = __add__

    def __sub__(self, o):
        return add(self, negative(o))

    def __rsub__(self, o):
        return add(o, negative(self))

    def __mul__(self, o):
        return multiply(self, o)

    __rmul__ = __mul__

    def __truediv__(self, o):
        return divide(self, o)

    def __rtruediv__(self, o):
        return divide(o, self)

    def __neg__(self):
        return negative(self)

    def __pow__(self, p):
        return power(self, p)

    def __pos__(self):
        return self

    def __matmul__(self, o):
        return matmul(self, o)

    def __rmatmul__(self, o):
        return matmul(o, self)

    # ------------------------------------------------------------------ numpy protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        f = _UFUNCS.get(ufunc)
        if method != "__call__" or kwargs or f is None:
            return NotImplemented
        return f(*inputs)

    def __array_function__(self, func, types, args, kwargs):
        f = _FUNCTIONS.get(func)
        if f is None:
            return NotImplemented
        return f(*args, **kwargs)


# ---------------------------------------------------------------------- construction
def variables(z0, order: int = 2) -> Jet:
    """The independent variables z0 (..., nv) (real or complex) as jets: g = identity,
    H = 0 (``order`` 2) or no H (``order`` 1)."""
    if order not in (1, 2):
        raise ValueError(f"jets: order {order}, expected 1 or 2")
    z0 = np.asarray(z0)
    z0 = z0.astype(np.result_type(z0, float), copy=False)
    nv = z0.shape[-1]
    g = np.broadcast_to(np.eye(nv, dtype=z0.dtype), z0.shape + (nv,))
    H = np.zeros(z0.shape + (nv, nv), dtype=z0.dtype) if order == 2 else None
    return Jet(z0, g, H)


def value(x):
    """The value of a jet (an array as is)."""
    return x.v if isinstance(x, Jet) else np.asarray(x)


def gradient(x, nv: int):
    """The gradient (..., nv) of a jet (zeros for an array: a constant)."""
    if isinstance(x, Jet):
        return np.broadcast_to(x.g, x.shape + (nv,))
    x = np.asarray(x)
    return np.zeros(x.shape + (nv,), dtype=np.result_type(x, float))


def hessian(x, nv: int):
    """The Hessian (..., nv, nv) of a second-order jet, symmetric (zeros for an
    array)."""
    if isinstance(x, Jet):
        if x.H is None:
            raise ValueError("jets: a first-order jet has no Hessian")
        H = np.broadcast_to(x.H, x.shape + (nv, nv))
        return 0.5 * (H + np.swapaxes(H, -1, -2))
    x = np.asarray(x)
    return np.zeros(x.shape + (nv, nv), dtype=np.result_type(x, float))


def _expand(key, ndim):
    """An index of the value's ndim axes, made explicit (Ellipsis expanded) so that it
    leaves the trailing derivative axes alone."""
    if not isinstance(key, tuple):
        key = (key,)
    used = 0
    for k in key:
        if k is None or k is Ellipsis:
            continue
        used += np.ndim(k) if isinstance(k, np.ndarray) and k.dtype == bool else 1
    out = []
    seen = False
    for k in key:
        if k is Ellipsis and not seen:
            out.extend([slice(None)] * (ndim - used))
            seen = True
        else:
            out.append(k)
    if not seen:
        out.extend([slice(None)] * (ndim - used))
    return tuple(out)


def _order(*xs):
    """2 when every jet among xs carries a Hessian, else 1."""
    return 1 if any(isinstance(x, Jet) and x.H is None for x in xs) else 2


def _const(x, like: Jet) -> Jet:
    """An array as a jet of zero derivatives with like's nv and order."""
    x = np.asarray(x)
    n = like.nv
    dt = np.result_type(x, like.g, float)
    return Jet(x, np.zeros(x.shape + (n,), dtype=dt),
               None if like.H is None else np.zeros(x.shape + (n, n), dtype=dt))


# ---------------------------------------------------------------------- elementwise
def add(a, b):
    """a + b."""
    ja, jb = isinstance(a, Jet), isinstance(b, Jet)
    if not ja and not jb:
        return np.add(a, b)
    v = value(a) + value(b)
    s = v.shape
    if ja and jb:
        g = a.g + b.g
        H = None if _order(a, b) == 1 else a.H + b.H
        if g.shape[:-1] != s:
            g = np.broadcast_to(g, s + g.shape[-1:])
        if H is not None and H.shape[:-2] != s:
            H = np.broadcast_to(H, s + H.shape[-2:])
        return Jet(v, g, H)
    j = a if ja else b
    g = j.g if j.g.shape[:-1] == s else np.broadcast_to(j.g, s + j.g.shape[-1:])
    H = j.H
    if H is not None and H.shape[:-2] != s:
        H = np.broadcast_to(H, s + H.shape[-2:])
    return Jet(v, g, H)


def negative(a):
    """-a."""
    if not isinstance(a, Jet):
        return np.negative(a)
    return Jet(-a.v, -a.g, None if a.H is None else -a.H)


def subtract(a, b):
    """a - b."""
    return add(a, negative(b))


def _scale(j: Jet, c):
    """Jet j times an array c (broadcast over the value's axes)."""
    c = np.asarray(c)
    v = j.v * c
    g = j.g * c[..., None]
    H = None if j.H is None else j.H * c[..., None, None]
    return Jet(v, g, H)


def _outer2(ga, gb):
    """2 ga gb^T (..., nv, nv): the product rule's ga gb^T + gb ga^T up to an
    antisymmetric part (module docstring)."""
    return (2.0 * ga)[..., :, None] * gb[..., None, :]


def multiply(a, b):
    """a * b (product rule)."""
    ja, jb = isinstance(a, Jet), isinstance(b, Jet)
    if not ja and not jb:
        return np.multiply(a, b)
    if not jb:
        return _scale(a, b)
    if not ja:
        return _scale(b, a)
    av, bv = a.v, b.v
    v = av * bv
    g = a.g * bv[..., None] + av[..., None] * b.g
    H = None
    if _order(a, b) == 2:
        H = (a.H * bv[..., None, None] + av[..., None, None] * b.H
             + _outer2(a.g, b.g))
    return Jet(v, g, H)


def compose(x, f0, f1, f2=None):
    """f(x) for a jet x given f's value f0, first and second derivatives f1, f2 at x's
    value (arrays of x's shape): g = f1 g_x, H = f1 H_x + f2 g_x g_x^T (chain rule). An
    array x: f0."""
    if not isinstance(x, Jet):
        return f0
    g = f1[..., None] * x.g
    H = None
    if x.H is not None:
        H = f1[..., None, None] * x.H + f2[..., None, None] * (x.g[..., :, None]
                                                               * x.g[..., None, :])
    return Jet(f0, g, H)


def reciprocal(x):
    """1 / x."""
    if not isinstance(x, Jet):
        return 1.0 / np.asarray(x)
    r = 1.0 / x.v
    return compose(x, r, -r * r, 2.0 * r * r * r)


def divide(a, b):
    """a / b."""
    if isinstance(b, Jet):
        return multiply(a, reciprocal(b))
    if isinstance(a, Jet):
        return _scale(a, 1.0 / np.asarray(b))
    return np.true_divide(a, b)


def power(x, p):
    """x ** p for a real constant exponent p (integers >= 0 exact at x = 0)."""
    if not isinstance(x, Jet):
        return np.power(x, p)
    if isinstance(p, Jet) or np.ndim(p) != 0:
        raise ValueError("jets.power: a scalar constant exponent only")
    v = x.v
    if float(p) == int(p) and p >= 0:
        p = int(p)
        f1 = p * v ** (p - 1) if p >= 1 else np.zeros_like(v)
        f2 = p * (p - 1) * v ** (p - 2) if p >= 2 else np.zeros_like(v)
        return compose(x, v ** p, f1, f2)
    return compose(x, v ** p, p * v ** (p - 1), p * (p - 1) * v ** (p - 2))


def sqrt(x):
    """sqrt(x) (principal branch)."""
    if not isinstance(x, Jet):
        return np.sqrt(x)
    s = np.sqrt(x.v)
    d1 = 0.5 / s
    return compose(x, s, d1, -0.5 * d1 / x.v)


def sin(x):
    """sin(x)."""
    if not isinstance(x, Jet):
        return np.sin(x)
    s = np.sin(x.v)
    return compose(x, s, np.cos(x.v), -s)


def cos(x):
    """cos(x)."""
    if not isinstance(x, Jet):
        return np.cos(x)
    c = np.cos(x.v)
    return compose(x, c, -np.sin(x.v), -c)


# ---------------------------------------------------------------------- contractions
_LETTERS = "YZ"


def einsum(subscripts, *operands, **kwargs):
    """numpy.einsum with explicit output (``'...ij,...j->...i'``) on arrays and up to two
    jets (product rule: each term is one einsum with the derivative axes appended)."""
    jets = [k for k, x in enumerate(operands) if isinstance(x, Jet)]
    if not jets:
        return np.einsum(subscripts, *operands, **kwargs)
    if "->" not in subscripts or any(c in subscripts for c in _LETTERS):
        raise ValueError(f"jets.einsum: explicit subscripts without {_LETTERS} needed, "
                         f"got {subscripts!r}")
    ins, out = subscripts.replace(" ", "").split("->")
    ins = ins.split(",")
    vals = [value(x) for x in operands]
    order = _order(*operands)

    def term(parts):
        """einsum with operand k replaced by parts[k] = (array, letters)."""
        subs, arrs, extra = [], [], ""
        for k, s in enumerate(ins):
            arr, lt = parts.get(k, (vals[k], ""))
            subs.append(s + lt)
            arrs.append(arr)
            extra += lt
        return np.einsum(",".join(subs) + "->" + out + extra, *arrs, **kwargs)

    v = term({})
    if len(jets) == 1:
        k = jets[0]
        x = operands[k]
        g = term({k: (x.g, "Y")})
        H = None if order == 1 else term({k: (x.H, "YZ")})
        return Jet(v, g, H)
    if len(jets) > 2:
        raise ValueError("jets.einsum: at most two jet operands")
    p, q = jets
    a, b = operands[p], operands[q]
    g = term({p: (a.g, "Y")}) + term({q: (b.g, "Y")})
    H = None
    if order == 2:
        H = (term({p: (a.H, "YZ")}) + term({q: (b.H, "YZ")})
             + term({p: (2.0 * a.g, "Y"), q: (b.g, "Z")}))
    return Jet(v, g, H)


def matmul(a, b):
    """a @ b (numpy's matmul semantics for operands of ndim >= 1)."""
    if not isinstance(a, Jet) and not isinstance(b, Jet):
        return np.matmul(a, b)
    na, nb = np.ndim(value(a)), np.ndim(value(b))
    if na >= 2 and nb >= 2:
        return einsum("...ij,...jk->...ik", a, b)
    if nb == 1:
        return einsum("...ij,j->...i", a, b)
    if na == 1:
        return einsum("j,...jk->...k", a, b)
    raise ValueError("jets.matmul: scalar operands")


def _cross(x, y, k):
    """x x y over the axis -1 - k (components by basic indexing: np.cross's axis moves
    cost more than the products at these sizes)."""
    t = (slice(None),) * k

    def at(z, i):
        return z[(Ellipsis, i) + t]

    x0, x1, x2 = at(x, 0), at(x, 1), at(x, 2)
    y0, y1, y2 = at(y, 0), at(y, 1), at(y, 2)
    return np.stack([x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0],
                    axis=-1 - k)


def cross(a, b, axis=-1):
    """Cross product along the last axis of the values (3-vectors)."""
    if axis != -1:
        raise ValueError("jets.cross: vectors along the last axis only")
    ja, jb = isinstance(a, Jet), isinstance(b, Jet)
    if not ja and not jb:
        return _cross(np.asarray(a), np.asarray(b), 0)
    av, bv = value(a), value(b)
    v = _cross(av, bv, 0)
    order = _order(a, b)

    def c(x, y, k):
        return _cross(x, y, k)

    g = 0.0
    H = 0.0
    if ja:
        g = g + c(a.g, bv[..., None], 1)
        if order == 2:
            H = H + c(a.H, bv[..., None, None], 2)
    if jb:
        g = g + c(av[..., None], b.g, 1)
        if order == 2:
            H = H + c(av[..., None, None], b.H, 2)
    if ja and jb and order == 2:
        H = H + c((2.0 * a.g)[..., :, None], b.g[..., None, :], 2)
    n = (a if ja else b).nv
    g = np.broadcast_to(g, v.shape + (n,))
    return Jet(v, g, None if order == 1 else np.broadcast_to(H, v.shape + (n, n)))


def quadratic_form(x, K):
    """1/2 x^T K x over the last axis of x (..., m) with a constant symmetric K (m, m):
    value 1/2 x.Kx, gradient g_x^T K x, Hessian g_x^T K g_x + sum_i (K x)_i H_x,i (one
    contraction per term, cheaper than the product rule of its factors)."""
    if not isinstance(x, Jet):
        x = np.asarray(x)
        return 0.5 * np.sum((x @ K) * x, axis=-1)
    Kx = x.v @ K                                                   # (..., m)
    v = 0.5 * np.sum(Kx * x.v, axis=-1)
    g = np.einsum("...iY,...i->...Y", x.g, Kx)
    H = None
    if x.H is not None:
        KG = np.einsum("ij,...jZ->...iZ", K, x.g)
        H = np.einsum("...iY,...iZ->...YZ", x.g, KG) + np.einsum("...i,...iYZ->...YZ", Kx,
                                                                  x.H)
    return Jet(v, g, H)


# ---------------------------------------------------------------------- structure
def _norm_axis(axis, ndim):
    if axis < 0:
        axis += ndim
    if not 0 <= axis < ndim:
        raise ValueError(f"jets: axis {axis} out of range for {ndim} axes")
    return axis


def _as_jets(seq):
    seq = list(seq)
    like = next(x for x in seq if isinstance(x, Jet))
    order = _order(*seq)
    out = []
    for x in seq:
        j = x if isinstance(x, Jet) else _const(x, like)
        if order == 1 and j.H is not None:
            j = Jet(j.v, j.g)
        out.append(j)
    return out, order


def stack(arrays, axis=0, **kwargs):
    """numpy.stack of jets and arrays of one shape."""
    arrays = list(arrays)
    if not any(isinstance(x, Jet) for x in arrays):
        return np.stack(arrays, axis=axis, **kwargs)
    js, order = _as_jets(arrays)
    v = np.stack([j.v for j in js], axis=axis)
    ax = _norm_axis(axis, v.ndim)
    g = np.stack([np.broadcast_to(j.g, j.v.shape + j.g.shape[-1:]) for j in js], axis=ax)
    H = None if order == 1 else np.stack(
        [np.broadcast_to(j.H, j.v.shape + j.H.shape[-2:]) for j in js], axis=ax)
    return Jet(v, g, H)


def concatenate(arrays, axis=0, **kwargs):
    """numpy.concatenate of jets and arrays."""
    arrays = list(arrays)
    if not any(isinstance(x, Jet) for x in arrays):
        return np.concatenate(arrays, axis=axis, **kwargs)
    js, order = _as_jets(arrays)
    v = np.concatenate([j.v for j in js], axis=axis)
    ax = _norm_axis(axis, v.ndim)
    g = np.concatenate([np.broadcast_to(j.g, j.v.shape + j.g.shape[-1:]) for j in js],
                       axis=ax)
    H = None if order == 1 else np.concatenate(
        [np.broadcast_to(j.H, j.v.shape + j.H.shape[-2:]) for j in js], axis=ax)
    return Jet(v, g, H)


def swapaxes(x, axis1, axis2):
    """numpy.swapaxes over the value's axes."""
    if not isinstance(x, Jet):
        return np.swapaxes(x, axis1, axis2)
    a1, a2 = _norm_axis(axis1, x.ndim), _norm_axis(axis2, x.ndim)
    return Jet(np.swapaxes(x.v, a1, a2), np.swapaxes(x.g, a1, a2),
               None if x.H is None else np.swapaxes(x.H, a1, a2))


def broadcast_to(x, shape, **kwargs):
    """numpy.broadcast_to of the value's axes."""
    if not isinstance(x, Jet):
        return np.broadcast_to(x, shape, **kwargs)
    shape = tuple(shape)
    n = x.nv
    return Jet(np.broadcast_to(x.v, shape), np.broadcast_to(x.g, shape + (n,)),
               None if x.H is None else np.broadcast_to(x.H, shape + (n, n)))


def sum(x, axis=None, **kwargs):  # noqa: A001 - numpy's name, dispatched
    """numpy.sum over the value's axes (an int axis or None)."""
    if not isinstance(x, Jet):
        return np.sum(x, axis=axis, **kwargs)
    if kwargs:
        raise ValueError(f"jets.sum: unsupported arguments {sorted(kwargs)}")
    axes = tuple(range(x.ndim)) if axis is None else (
        tuple(_norm_axis(a, x.ndim) for a in axis) if isinstance(axis, tuple)
        else (_norm_axis(axis, x.ndim),))
    return Jet(np.sum(x.v, axis=axes), np.sum(x.g, axis=axes),
               None if x.H is None else np.sum(x.H, axis=axes))


_UFUNCS = {np.add: add, np.subtract: subtract, np.multiply: multiply,
           np.true_divide: divide, np.negative: negative, np.sqrt: sqrt, np.sin: sin,
           np.cos: cos, np.matmul: matmul, np.power: power, np.reciprocal: reciprocal}
_FUNCTIONS = {np.einsum: einsum, np.cross: cross, np.stack: stack,
              np.concatenate: concatenate, np.swapaxes: swapaxes,
              np.broadcast_to: broadcast_to, np.sum: sum,
              np.shape: lambda x: x.shape, np.ndim: lambda x: x.ndim}
