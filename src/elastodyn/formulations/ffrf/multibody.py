"""Planar flexible multibody systems by the floating frame of reference (FFRF).

Rosyid & El-Khasawneh (2020), "Multibody dynamics of nonsymmetric planar 3PRR parallel
manipulator with fully flexible links", Appl. Sci. 10, 4816 (sections 2-7), after
Shabana, *Dynamics of Multibody Systems* (3rd ed., 2005).

Each body i has the reference coordinates ``(R_x, R_y, theta)`` of its frame and, when
flexible, elastic coordinates ``q_f`` (eq. (9)); a material point is at
``r = R + A(theta) (u_o + S q_f)`` (eqs. (1)-(8)). The body terms (mass matrix eqs.
(16)-(28), quadratic-velocity vector eq. (30), gravity eq. (33), stiffness eqs.
(37)-(38)) come from :mod:`elastodyn.fem.ffrf`; a rigid body is a body without elastic
coordinates whose invariants are its mass, first moment and inertia about the frame
origin. Joints are constraint equations ``C(q) = 0`` between *markers* (a point of a body
and a direction there: on a flexible body, a point of the beam axis that follows the
elastic displacement ``S(x) q_f`` and the slope ``v'(x)``): revolute (2 equations),
prismatic (2), rigid (3). Their Jacobians ``C_q`` and the acceleration right-hand sides
``gamma = -(C_q q_dot)_q q_dot`` are analytic (eqs. (43)-(44), (60)-(87)).

The equations of motion are the DAEs (eqs. (43)-(44))

    M q_dd + C_q^T lambda = Q_v + Q_g + Q_e - K q,     C(q) = 0,

solved two ways (:mod:`elastodyn.analysis.ffrf`):

* **coordinate partitioning** (eqs. (91)-(106)), as the paper: the independent
  coordinates are the actuated joint coordinates (the sliders of the 3-PRR) and the
  elastic coordinates; the dependent reference coordinates follow from ``C = 0`` by
  Newton, their rates and accelerations from ``C_q``. This is :meth:`MultibodySystem.
  reduced` (``M_r = N^T M N``, the model of the contract);
* **index reduction with projection**: all coordinates, accelerations and multipliers
  from the augmented system ``[[M, C_q^T], [C_q, 0]]``, positions and velocities
  projected back onto ``C = 0``, ``C_q q_dot = 0`` (:meth:`MultibodySystem.project`).

Units SI; angles in rad.
"""
from __future__ import annotations

import ctypes
import warnings
from dataclasses import dataclass, field, replace
from importlib import resources

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from ..._validate import real_array, scalar
from ...exceptions import InputError, ModelError
from ...kinematics.closure import ClosureError, close_loops
from ...symbolic.compiled import have_compiler, load_source
from ...fem.ffrf import (BeamShape, FFRFInvariants, ffrf_invariants, planar_mass_blocks,
                        planar_stiffness, planar_velocity_gravity_blocks, scale_invariants,
                        stack_invariants)

__all__ = ["Body", "rigid_body", "flexible_body", "scaled_body", "Marker", "Joint", "MultibodySystem",
           "SingularConfiguration"]


class SingularConfiguration(ModelError):
    """The dependent coordinates cannot be solved for: the Jacobian of the constraints
    (and actuated coordinates) with respect to them lost rank."""

    def __init__(self, message: str, t: float | None = None):
        super().__init__(message)
        self.t = t


def _rot(theta: float):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]]), np.array([[-s, -c], [c, -s]])


@dataclass(frozen=True)
class Body:
    """One body: its shape integrals, stiffness and (flexible) shape.

    Attributes
    ----------
    name : str
    inv : FFRFInvariants
        Mass, first moment ``I1`` (2,) [kg m], ``J_oo`` (inertia about the frame origin)
        and the elastic integrals (empty for a rigid body).
    K : (n_f, n_f) [N/m, N, N m]
    shape : BeamShape or None
        The flexible body's shape (None: rigid).
    K_axial, K_bending : (n_f, n_f) or None
        The EA and EI parts of K (K = K_axial + K_bending; flexible bodies), kept so that
        :func:`scaled_body` can change the stiffnesses separately.
    """

    name: str
    inv: FFRFInvariants
    K: np.ndarray
    shape: BeamShape | None = None
    K_axial: np.ndarray | None = None
    K_bending: np.ndarray | None = None

    @property
    def n_f(self) -> int:
        return 0 if self.shape is None else self.shape.n_f

    @property
    def n(self) -> int:
        return 3 + self.n_f

    @property
    def length(self) -> float:
        return 0.0 if self.shape is None else self.shape.length


def rigid_body(name: str, mass: float, com=(0.0, 0.0), inertia_com: float = 0.0) -> Body:
    """A rigid body: mass [kg], centre of mass in the body frame [m] and rotary inertia
    about the centre of mass [kg m^2] (>= 0; zero mass makes a massless frame)."""
    m = scalar(mass)                     # scalar, real_array: complex-step safe
    c = real_array(com).reshape(2)
    if (not np.isfinite(m.real) or m.real < 0 or not np.all(np.isfinite(c.real))
            or np.real(inertia_com) < 0):
        raise InputError(f"body {name}", {"mass": mass, "com": list(c), "inertia": inertia_com},
                         "mass >= 0, a finite centre of mass and inertia >= 0")
    z2, z0 = np.zeros((2, 0)), np.zeros((0, 0))
    I1 = m * c
    inv = FFRFInvariants(length=0.0, mass_per_length=0.0, mass=m, I1=I1, S_bar=z2,
                         S11=z0, S12=z0, S21=z0, S22=z0, S_ff=z0, S_tilde=z0,
                         I_bar=np.zeros((2, 2, 0)), I_o=np.zeros(0),
                         J_oo=scalar(inertia_com + m * c @ c), J_of=np.zeros(0))
    return Body(name, inv, np.zeros((0, 0)), None)


def flexible_body(name: str, shape: BeamShape, mass_per_length, *, EA: float,
                  EI: float) -> Body:
    """A straight flexible beam along x of its frame, ``0 <= x <= L``: its shape (Rayleigh-
    Ritz or finite elements with the boundary conditions of the frame), mass per length
    [kg/m] (constant or a callable of xi) and stiffnesses EA [N], EI [N m^2]."""
    inv = ffrf_invariants(shape, length=shape.length, mass_per_length=mass_per_length,
                          breaks=shape.breaks)
    Ka = planar_stiffness(shape, length=shape.length, axial_stiffness=EA,
                          bending_stiffness=0.0, breaks=shape.breaks)
    Kb = planar_stiffness(shape, length=shape.length, axial_stiffness=0.0,
                          bending_stiffness=EI, breaks=shape.breaks)
    return Body(name, inv, Ka + Kb, shape, Ka, Kb)


def scaled_body(body: Body, *, mass=1.0, axial=1.0, bending=1.0) -> Body:
    """The body with its mass per length (every inertia integral), EA and EI multiplied by
    ``mass``, ``axial`` and ``bending`` (rigid bodies: only ``mass``, which also scales
    their inertia). The factors may be complex (complex-step sensitivities)."""
    inv = scale_invariants(body.inv, mass)
    if body.shape is None:
        return replace(body, inv=inv)
    Ka, Kb = body.K_axial * axial, body.K_bending * bending
    return replace(body, inv=inv, K=Ka + Kb, K_axial=Ka, K_bending=Kb)


@dataclass(frozen=True)
class Marker:
    """A point of a body and a direction there.

    ``body`` is the index of the body (-1: the ground); ``point`` (2,) its position in the
    body frame, undeformed [m] (on a flexible body a point of the axis: ``point[1]`` must be
    0 and ``0 <= point[0] <= L``); ``angle`` the marker's direction in the body frame
    [rad]. On a flexible body the point moves by ``S(x) q_f`` and the direction turns by
    the slope ``v'(x)`` (linear elastic rotations, as the FFRF's small deformations).
    """

    body: int
    point: tuple = (0.0, 0.0)
    angle: float = 0.0


@dataclass(frozen=True)
class Joint:
    """A joint between marker ``a`` (parent) and marker ``b`` (child).

    kind : "revolute" (points coincide), "prismatic" (b's point slides along a's
    direction, the directions keep their relative angle), "rigid" (points coincide, the
    directions keep their relative angle). ``name`` names the joint coordinate
    (revolute: the angle of b's direction from a's [rad]; prismatic: the travel of b's
    point along a's direction [m], each less its value at assembly ``offset``).
    """

    name: str
    kind: str
    a: Marker
    b: Marker
    angle0: float = 0.0      # relative angle phi_b - phi_a kept by prismatic and rigid
    offset: float = 0.0      # coordinate value subtracted (joint coordinate 0 at assembly)

    @property
    def n_equations(self) -> int:
        return {"revolute": 2, "prismatic": 2, "rigid": 3}[self.kind]


@dataclass
class _MarkerState:
    r: np.ndarray            # (2,) position
    phi: float               # direction angle
    Jr: np.ndarray           # (2, n) position Jacobian over the system coordinates
    Jphi: np.ndarray         # (n,) angle Jacobian
    ar: np.ndarray           # (2,) quadratic part of r_dd (r_dd = Jr q_dd + ar)
    rd: np.ndarray = field(default_factory=lambda: np.zeros(2))
    phid: float = 0.0


def _ext(q):
    """q with a trailing zero: the coordinate that ground markers and padding read."""
    q = np.asarray(q)
    return np.concatenate([q, np.zeros(1, dtype=q.dtype)])


@dataclass
class _Kin:
    r: np.ndarray            # (k, 2)
    phi: np.ndarray          # (k,)
    Jr: np.ndarray           # (k, 2, 3 + F) over the marker's columns
    Jphi: np.ndarray         # (k, 3 + F)
    rd: np.ndarray = None    # (k, 2)
    phid: np.ndarray = None  # (k,)
    ar: np.ndarray = None    # (k, 2) quadratic part of r_dd


class _MarkerTable:
    """Markers evaluated together (vectorized over markers). Each marker reads the
    coordinates ``cols`` (k, 3 + F): its body's R_x, R_y, theta and elastic
    coordinates, padded with the index n (the zero appended by :func:`_ext`; ground
    markers read only it, so their body is the identity at the origin)."""

    def __init__(self, system, markers):
        n = system.n
        F = max([1] + [system.bodies[m.body].n_f for m in markers if m.body >= 0])
        k = len(markers)
        # complex when a beam's length or a joint offset carries a complex step
        # (frequency_sensitivity)
        dt = np.result_type(float, *(system.bodies[m.body].length for m in markers
                                     if m.body >= 0 and system.bodies[m.body].shape
                                     is not None), *(np.asarray(m.point) for m in markers),
                            *(np.asarray(m.angle) for m in markers))
        self.u0 = np.zeros((k, 2), dt)
        self.ang = np.zeros(k, dt)
        self.S = np.zeros((k, 2, F), dt)
        self.slope = np.zeros((k, F), dt)
        self.cols = np.full((k, 3 + F), n, dtype=int)
        for i, m in enumerate(markers):
            self.u0[i] = real_array(m.point)
            self.ang[i] = scalar(m.angle)
            if m.body < 0:
                continue
            b, o = system.bodies[m.body], system.offsets[m.body]
            self.cols[i, :3 + b.n_f] = np.arange(o, o + 3 + b.n_f)
            if b.shape is not None:
                xi = scalar(m.point[0]) / b.length     # complex under a complex step
                xi = 0.0 if xi.real < 0.0 else 1.0 if xi.real > 1.0 else xi
                self.S[i, :, :b.n_f] = b.shape(xi)
                self.slope[i, :b.n_f] = b.shape(xi, derivative=1)[1] / b.length

    def evaluate(self, qe, qde=None) -> _Kin:
        """Marker kinematics at the extended coordinates (:func:`_ext`): r = R + A(th)
        (u0 + S q_f), phi = th + angle + v'(x) q_f and their derivatives."""
        g = qe[self.cols]
        th, qf = g[:, 2], g[:, 3:]
        k, F = self.slope.shape
        rot = np.empty((k, 2, 2), dtype=g.dtype)      # A(theta) per marker
        rot[:, 0, 0] = rot[:, 1, 1] = np.cos(th)
        rot[:, 1, 0] = np.sin(th)
        rot[:, 0, 1] = -rot[:, 1, 0]
        u = self.u0 + np.einsum("kij,kj->ki", self.S, qf)
        Au = np.einsum("kij,kj->ki", rot, u)
        r = g[:, :2] + Au
        phi = th + self.ang + np.einsum("kj,kj->k", self.slope, qf)
        dt = np.result_type(g, self.S)                 # complex: a q or a length
        Jr = np.zeros((k, 2, 3 + F), dtype=dt)
        Jr[:, 0, 0] = 1.0
        Jr[:, 1, 1] = 1.0
        Jr[:, 0, 2] = -Au[:, 1]                        # A_theta u = (-(A u)_y, (A u)_x)
        Jr[:, 1, 2] = Au[:, 0]
        Jr[:, :, 3:] = np.einsum("kij,kjf->kif", rot, self.S)
        Jphi = np.zeros((k, 3 + F), dtype=dt)
        Jphi[:, 2] = 1.0
        Jphi[:, 3:] = self.slope
        out = _Kin(r, phi, Jr, Jphi)
        if qde is not None:
            gd = qde[self.cols]
            w = gd[:, 2]
            out.rd = np.einsum("kij,kj->ki", Jr, gd)
            out.phid = np.einsum("kj,kj->k", Jphi, gd)
            ASv = np.einsum("kif,kf->ki", Jr[:, :, 3:], gd[:, 3:])
            # r_dd = R_dd + A_theta u th_dd + A S qf_dd - A u w^2 + 2 A_theta S qf_d w
            ar = -Au * (w * w)[:, None]
            ar[:, 0] -= 2.0 * w * ASv[:, 1]
            ar[:, 1] += 2.0 * w * ASv[:, 0]
            out.ar = ar
        return out


# joint row kinds: the x and y of b's point less a's (revolute, rigid), an angle
# (phi_b - phi_a - c0: rigid, prismatic, revolute coordinate), b's point across a's line
# (prismatic), b's point along it (prismatic coordinate)
_RX, _RY, _ANG, _ACROSS, _ALONG = range(5)


def _constraint_rows(j: Joint) -> list:
    if j.kind == "prismatic":
        return [(_ANG, j.a, j.b, j.angle0), (_ACROSS, j.a, j.b, 0.0)]
    rows = [(_RX, j.a, j.b, 0.0), (_RY, j.a, j.b, 0.0)]
    return rows + ([(_ANG, j.a, j.b, j.angle0)] if j.kind == "rigid" else [])


def _coordinate_row(j: Joint):
    """The joint coordinate: revolute, the angle of b's direction from a's; prismatic,
    the travel of b's point along a's direction (each less ``offset``)."""
    return (_ANG if j.kind == "revolute" else _ALONG, j.a, j.b, j.offset)


class _RowSet:
    """Joint rows (constraint equations or joint coordinates) evaluated together:
    values, Jacobians (eqs. (60)-(87) for revolute and prismatic joints) and gamma =
    -(quadratic part of the second derivative)."""

    def __init__(self, system, rows):
        self.n = system.n
        markers = list(dict.fromkeys([r[1] for r in rows] + [r[2] for r in rows]))
        self.table = system._table(markers) if markers else None
        pos = {m: i for i, m in enumerate(markers)}
        self.kind = np.array([r[0] for r in rows], dtype=int)
        self.ia = np.array([pos[r[1]] for r in rows], dtype=int)
        self.ib = np.array([pos[r[2]] for r in rows], dtype=int)
        self.c0 = np.array([r[3] for r in rows], dtype=float)
        k = len(rows)
        if k:
            w = self.n + 1
            ra = np.arange(k)[:, None] * w
            self.flat = np.concatenate([(ra + self.table.cols[self.ia]).ravel(),
                                        (ra + self.table.cols[self.ib]).ravel()])
        self.k = k
        kind = self.kind
        self.groups = {c: np.flatnonzero(kind == c) for c in range(5)}
        self.coef = (np.where(kind == _RX, -1.0, 0.0), np.where(kind == _RY, -1.0, 0.0),
                     np.where(kind == _ANG, -1.0, 0.0))
        self.angle_b = np.where(kind == _ANG, 1.0, 0.0)

    def evaluate(self, q, qd=None):
        n, k = self.n, self.k
        if k == 0:
            z = np.zeros(0)
            return (z, np.zeros((0, n))) if qd is None else (z, np.zeros((0, n)), z)
        K = self.table.evaluate(_ext(q), None if qd is None else _ext(qd))
        a, b = self.ia, self.ib
        d = K.r[b] - K.r[a]
        pa = K.phi[a]
        t = np.empty((k, 2), dtype=pa.dtype)
        t[:, 0], t[:, 1] = np.cos(pa), np.sin(pa)
        nv = t[:, ::-1] * np.array([-1.0, 1.0])
        td = np.einsum("ki,ki->k", t, d)
        nd = np.einsum("ki,ki->k", nv, d)
        ang = K.phi[b] - pa
        g = self.groups
        val = np.empty(k, dtype=d.dtype)
        val[g[_RX]] = d[g[_RX], 0]
        val[g[_RY]] = d[g[_RY], 1]
        val[g[_ANG]] = ang[g[_ANG]]
        val[g[_ACROSS]] = nd[g[_ACROSS]]
        val[g[_ALONG]] = td[g[_ALONG]]
        val -= self.c0
        # each row = sum over its markers of cx Jr_x + cy Jr_y + cp Jphi (b: -cx, -cy
        # and +1 on Jphi for the angle rows)
        cxa, cya, cpa = (np.array(c, dtype=d.dtype) for c in self.coef)
        for grp, sign in ((g[_ACROSS], nv), (g[_ALONG], t)):
            cxa[grp] = -sign[grp, 0]
            cya[grp] = -sign[grp, 1]
        cpa[g[_ACROSS]] = -td[g[_ACROSS]]
        cpa[g[_ALONG]] = nd[g[_ALONG]]
        ja = (cxa[:, None] * K.Jr[a, 0] + cya[:, None] * K.Jr[a, 1]
              + cpa[:, None] * K.Jphi[a])
        jb = (-cxa[:, None] * K.Jr[b, 0] - cya[:, None] * K.Jr[b, 1]
              + self.angle_b[:, None] * K.Jphi[b])
        vals = np.concatenate([ja.ravel(), jb.ravel()])
        size = k * (n + 1)
        if np.iscomplexobj(vals):
            J = (np.bincount(self.flat, vals.real, size)
                 + 1j * np.bincount(self.flat, vals.imag, size))
        else:
            J = np.bincount(self.flat, vals, size)
        J = J.reshape(k, n + 1)[:, :n]
        if qd is None:
            return val, J
        dd = K.rd[b] - K.rd[a]
        dar = K.ar[b] - K.ar[a]
        w = K.phid[a]
        tdd = np.einsum("ki,ki->k", t, dd)
        ndd = np.einsum("ki,ki->k", nv, dd)
        ndar = np.einsum("ki,ki->k", nv, dar)
        tdar = np.einsum("ki,ki->k", t, dar)
        quad = np.zeros(k, dtype=dar.dtype)
        quad[g[_RX]] = dar[g[_RX], 0]
        quad[g[_RY]] = dar[g[_RY], 1]
        i, j = g[_ACROSS], g[_ALONG]
        quad[i] = (-nd * w * w - 2.0 * tdd * w + ndar)[i]
        quad[j] = (tdar + 2.0 * ndd * w - td * w * w)[j]
        return val, J, -quad


_KERNEL_LIB = {}
_UNBUILT = object()


def _kernel_library():
    """The compiled kernel (ffrf/kernel.c, built once into the cache of compiled code),
    or None without a C compiler."""
    if "lib" not in _KERNEL_LIB:
        source = resources.files(__package__).joinpath("kernel.c").read_text()
        lib = load_source(source)
        if lib is None and not have_compiler():   # (no folder at all: warned there)
            # simulate 3prr-rosyid2020 --formulation ffrf --duration 0.05: 0.68 s of
            # integration with the kernel, 8.9 s in NumPy (notes of issue 18)
            warnings.warn("no C compiler found ($CC, cc, gcc, clang, ziglang): the FFRF "
                          "closure and equations run in NumPy, a simulation about 13 "
                          "times slower (install a C compiler, set CC, or pip install "
                          "ziglang)")
        if lib is not None:
            ptr = ctypes.c_void_p
            lib.ffrf_reduced_packed.restype = ctypes.c_int
            lib.ffrf_reduced_packed.argtypes = [ptr, ctypes.c_double, ctypes.c_int]
            lib.ffrf_work_size.restype = ctypes.c_int
            lib.ffrf_work_size.argtypes = [ptr]
        _KERNEL_LIB["lib"] = lib
    return _KERNEL_LIB["lib"]


class _Kernel:
    """The closure and the partitioned equations of a system in one compiled call
    (``ffrf/kernel.c``: the same formulas as :meth:`MultibodySystem.close` and
    :meth:`MultibodySystem.reduced`, about 20x faster on the 3-PRR). The model is packed
    into an int array and a double array (layout: the header enum of the C file)."""

    def __init__(self, system, lib):
        rs = system._row_sets["phi"]
        tab = rs.table
        n, na, ne = system.n, system.n_actuated, system.n_elastic
        nr = rs.k
        groups = [i for i, b in enumerate(system.bodies)
                  if not (b.n_f == 0 and b.inv.mass == 0 and b.inv.J_oo == 0)]
        F = tab.slope.shape[1]
        body_iw, body_rw = [], []
        first_el = {int(c): k for k, c in enumerate(system.el_index)}
        for i in groups:
            inv = system.bodies[i].inv
            e0 = first_el.get(system.offsets[i] + 3, 0)   # its first elastic coordinate
            body_iw += [system.offsets[i], system.bodies[i].n_f, len(body_rw), e0]
            body_rw += [inv.mass, *np.ravel(inv.I1), *np.ravel(inv.S_bar), inv.J_oo,
                        *np.ravel(inv.I_o), *np.ravel(inv.J_of), *np.ravel(inv.S_ff),
                        *np.ravel(inv.S_tilde)]
        mark_rw = np.concatenate([tab.u0, tab.ang[:, None],
                                  tab.S.reshape(len(tab.ang), -1), tab.slope], axis=1)
        sec_r = [system.elastic_stiffness(), system.gravity, body_rw, mark_rw, rs.c0]
        starts_r = np.cumsum([0] + [np.size(a) for a in sec_r])[:-1]
        body_iw = np.reshape(body_iw, (-1, 4))
        body_iw[:, 2] += starts_r[2]          # offsets of the body data in rw
        sec_i = [system.ref_index, system.el_index, body_iw, tab.cols,
                 np.stack([rs.kind, rs.ia, rs.ib], axis=1)]
        head = [n, nr, na, ne, system.n_c, len(groups), tab.slope.shape[0], F, nr]
        size = len(head) + 2 * len(sec_i)     # the header: counts, then section offsets
        starts_i = size + np.cumsum([0] + [np.size(a) for a in sec_i])[:-1]
        self.iw = np.concatenate([head, starts_i, starts_r]
                                 + [np.ravel(a) for a in sec_i]).astype(np.intc)
        self.rw = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in sec_r])
        nv = na + ne
        self.work = np.zeros(lib.ffrf_work_size(self.iw.ctypes.data))
        self.iwork = np.zeros(nr, dtype=np.intc)
        self.Mr = np.zeros((nv, nv))
        self.cr = np.zeros(nv)
        self.qd = np.zeros(n)
        self.J = np.zeros((nr, n))
        self.resid = np.zeros(1)
        self.det = np.zeros(3)
        self.q, self.s = np.zeros(n), np.zeros(na)
        self.qf, self.v = np.zeros(ne), np.zeros(nv)
        arrays = (self.iw, self.rw, self.q, self.s, self.qf, self.v, self.work, self.iwork,
                  self.Mr, self.cr, self.qd, self.J, self.resid, self.det)
        self.table = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
        self.fn = lib.ffrf_reduced_packed

    def __call__(self, q, s, qf, v, tol, max_iter):
        """Close from ``q`` (n,) and return (iterations or -1 not converged or -2
        singular, the closed q, M_r, c_r, q_dot, Jacobian of Phi, max |C|, (sign, scaled
        |det|, reciprocal condition) of the dependent Jacobian); the arrays are the
        kernel's buffers, overwritten by the next call."""
        self.q[:] = q
        self.s[:] = s
        self.qf[:] = qf
        self.v[:] = v
        it = self.fn(self.table, tol, max_iter)
        return it, self.q, self.Mr, self.cr, self.qd, self.J, float(self.resid[0]), self.det


class MultibodySystem:
    """Bodies, joints, gravity and the actuated joints of a planar FFRF system.

    Parameters
    ----------
    bodies : sequence of Body
    joints : sequence of Joint
    gravity : (2,) [m/s^2]
    actuated : sequence of str
        Names of the joints whose coordinates are actuated (efforts act along them; in
        the partitioned model they are the independent reference coordinates).
    """

    def __init__(self, bodies, joints, gravity=(0.0, 0.0), actuated=()):
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        self.gravity = np.asarray(gravity, dtype=float).reshape(2)
        # complex when a joint offset carries a complex step (frequency_sensitivity)
        self._marker_dtype = np.result_type(float, *(np.asarray(x) for j in self.joints
                                                     for m in (j.a, j.b)
                                                     for x in (m.point, m.angle)))
        names = [j.name for j in self.joints]
        self.actuated = tuple(actuated)
        for a in self.actuated:
            if a not in names:
                raise InputError("actuated", a, "a joint name: " + ", ".join(names))
        self._act = [names.index(a) for a in self.actuated]
        for a in self._act:
            if self.joints[a].kind == "rigid":
                raise InputError("actuated", self.joints[a].name, "a revolute or prismatic joint")
        offs, o = [], 0
        for b in self.bodies:
            offs.append(o)
            o += b.n
        self.offsets = tuple(offs)
        self.n = o
        self.ref_index = np.array([self.offsets[i] + k for i in range(len(self.bodies))
                                   for k in range(3)], dtype=int)
        self.el_index = np.array([self.offsets[i] + 3 + k for i, b in enumerate(self.bodies)
                                  for k in range(b.n_f)], dtype=int)
        self.n_c = sum(j.n_equations for j in self.joints)
        if self.n_c + len(self._act) != self.ref_index.size:
            raise InputError("joints", f"{self.n_c} constraint equations and "
                             f"{len(self._act)} actuated coordinates",
                             f"as many as the {self.ref_index.size} reference coordinates "
                             "of the bodies (an isostatic mechanism whose actuated "
                             "coordinates fix its rigid motion)")
        K = np.zeros((self.n, self.n),
                     dtype=np.result_type(float, *(b.K for b in self.bodies)))
        for i, b in enumerate(self.bodies):
            s = slice(self.offsets[i] + 3, self.offsets[i] + b.n)
            K[s, s] = b.K
        self.K = K
        self._Kel = K[np.ix_(self.el_index, self.el_index)]
        self._tables = {}
        self._groups = self._body_groups()
        self._closed = None      # (q, Jacobian of Phi) of the last converged closure
        self._closed_det = None  # (q, dependent_determinant) of the last compiled closure
        self._kernel_obj = _UNBUILT  # the compiled kernel, built on first use (or None)
        rows = {"constraints": [], "actuated": [], "coordinates": []}
        for j in self.joints:
            rows["constraints"] += _constraint_rows(j)
            if j.kind != "rigid":
                rows["coordinates"].append(_coordinate_row(j))
        rows["actuated"] = [_coordinate_row(self.joints[a]) for a in self._act]
        rows["phi"] = rows["constraints"] + rows["actuated"]
        self._row_sets = {k: _RowSet(self, v) for k, v in rows.items()}

    def with_bodies(self, bodies) -> "MultibodySystem":
        """The same joints, gravity and actuation with other bodies (equal coordinate
        counts: for example :func:`scaled_body` of each)."""
        bodies = tuple(bodies)
        if [b.n for b in bodies] != [b.n for b in self.bodies]:
            raise InputError("bodies", [b.n for b in bodies],
                             f"bodies with the coordinate counts {[b.n for b in self.bodies]}")
        return MultibodySystem(bodies, self.joints, self.gravity, self.actuated)

    # ------------------------------------------------------------------ coordinates
    def body_slice(self, i: int) -> slice:
        return slice(self.offsets[i], self.offsets[i] + self.bodies[i].n)

    @property
    def n_actuated(self) -> int:
        return len(self._act)

    @property
    def n_elastic(self) -> int:
        return int(self.el_index.size)

    def elastic_names(self) -> tuple:
        return tuple(f"{b.name}.{n}" for b in self.bodies if b.shape is not None
                     for n in b.shape.names)

    def elastic_units(self) -> tuple:
        return tuple(u for b in self.bodies if b.shape is not None for u in b.shape.units)

    def elastic_stiffness(self) -> np.ndarray:
        return self._Kel

    # ------------------------------------------------------------------ body terms
    def _body_groups(self):
        """Bodies with mass grouped by n_f: (stacked invariants, (g, 3 + F) coordinate
        indices, flat indices of their (3 + F)^2 mass blocks in the n x n matrix). Bodies
        without mass, first moment or inertia (massless frames) are left out: they add
        nothing to M or Q."""
        groups = {}
        for i, b in enumerate(self.bodies):
            if b.n_f == 0 and b.inv.mass == 0 and b.inv.J_oo == 0:
                continue
            groups.setdefault(b.n_f, []).append(i)
        out = []
        for F, idx in sorted(groups.items()):
            cols = np.array([np.arange(self.offsets[i], self.offsets[i] + 3 + F)
                             for i in idx], dtype=int)
            flat = (cols[:, :, None] * self.n + cols[:, None, :]).reshape(len(idx), -1)
            out.append((stack_invariants([self.bodies[i].inv for i in idx]), cols, flat))
        return out

    def mass_matrix(self, q) -> np.ndarray:
        """Block-diagonal M(q) (n, n), eqs. (16)-(28) and (134)."""
        q = np.asarray(q)
        M = np.zeros(self.n * self.n, dtype=self._dtype(q))
        for st, cols, flat in self._groups:
            g = q[cols]
            M[flat.ravel()] = planar_mass_blocks(st, g[:, 2], g[:, 3:]).ravel()
        return M.reshape(self.n, self.n)

    def _dtype(self, *arrays):
        """Float, or complex for complex coordinates or a complex-step system."""
        return np.result_type(float, self.K, *(st.mass for st, _, _ in self._groups),
                              self._marker_dtype, *arrays)

    def forces(self, q, qd) -> np.ndarray:
        """Q_v + Q_g - K q (n,): quadratic velocity (eq. (30)), gravity (eq. (33)) and
        elastic forces (eqs. (36)-(38))."""
        q, qd = np.asarray(q), np.asarray(qd)
        Q = -(self.K @ q).astype(self._dtype(q, qd), copy=False)
        for st, cols, _ in self._groups:
            g, gd = q[cols], qd[cols]
            Q[cols] += planar_velocity_gravity_blocks(st, g[:, 2], gd[:, 2], g[:, 3:],
                                                      gd[:, 3:], self.gravity)
        return Q

    # ------------------------------------------------------------------ markers
    def _table(self, markers) -> "_MarkerTable":
        key = tuple(markers)
        tab = self._tables.get(key)
        if tab is None:
            tab = self._tables[key] = _MarkerTable(self, markers)
        return tab

    def marker(self, m: Marker, q, qd=None) -> _MarkerState:
        """Position, direction, their Jacobians (over all n coordinates) and, with
        velocities, their rates and the quadratic part of the acceleration of a marker."""
        tab = self._table([m])
        k = tab.evaluate(_ext(q), None if qd is None else _ext(qd))
        cols = tab.cols[0]
        n = self.n
        Jr = np.zeros((2, n + 1), dtype=k.r.dtype)
        Jphi = np.zeros(n + 1, dtype=k.r.dtype)
        np.add.at(Jr, (slice(None), cols), k.Jr[0])
        np.add.at(Jphi, cols, k.Jphi[0])
        st = _MarkerState(k.r[0], k.phi[0], Jr[:, :n], Jphi[:n], np.zeros(2))
        if qd is not None:
            st.rd, st.phid, st.ar = k.rd[0], k.phid[0], k.ar[0]
        return st

    def marker_positions(self, markers, q) -> np.ndarray:
        """Positions (k, 2) [m] of k markers at q (vectorized :meth:`marker`)."""
        return self._table(list(markers)).evaluate(_ext(q)).r

    # ------------------------------------------------------------------ joints
    def _rows(self, which: str, q, qd=None):
        """Values (k,), Jacobian (k, n) and, with velocities, gamma (k,) of a set of
        joint rows: ``which`` = "constraints" (the n_c constraint equations),
        "actuated" (the actuated joint coordinates), "phi" (both) or "coordinates"
        (every revolute and prismatic joint's coordinate)."""
        return self._row_sets[which].evaluate(q, qd)

    def constraints(self, q, qd=None):
        """C (n_c,), C_q (n_c, n) and, with velocities, gamma = -quadratic part of C_dd."""
        return self._rows("constraints", q, qd)

    def actuated_coordinates(self, q, qd=None):
        """Actuated joint coordinates (n_a,), their Jacobian (n_a, n) and, with
        velocities, gamma (n_a,)."""
        return self._rows("actuated", q, qd)

    def joint_coordinates(self, q) -> dict:
        """Every joint coordinate (revolute and prismatic) at q, by name."""
        vals = self._rows("coordinates", q)[0]
        names = [j.name for j in self.joints if j.kind != "rigid"]
        return {k: float(np.real(v)) for k, v in zip(names, vals)}

    # ------------------------------------------------------------------ closure
    def _phi(self, q, s):
        P, J = self._rows("phi", q)
        return np.concatenate([P[:self.n_c], P[self.n_c:] - s]), J

    def _phi_jacobian(self, q) -> np.ndarray:
        """Jacobian of [C; actuated coordinates] over all coordinates (n_c + n_a, n),
        reused from the last converged closure when q is the same."""
        hit = self._closed
        if hit is not None and hit[0].shape == np.shape(q) and np.array_equal(hit[0], q):
            return hit[1]
        return self._rows("phi", q)[1]

    def dependent_jacobian(self, q) -> np.ndarray:
        """Jacobian of [C; actuated coordinates] over the reference coordinates (square):
        singular where the actuated coordinates no longer fix the rigid motion
        (a direct-kinematics singularity of the mechanism)."""
        return self._phi_jacobian(q)[:, self.ref_index]

    def dependent_determinant(self, q) -> tuple[float, float, float]:
        """(sign of det, |det| / max(1, max |J|)^k, reciprocal condition number in the
        1-norm) of the dependent Jacobian J (k, k) at q (:meth:`dependent_jacobian`; real
        parts for complex coordinates): singular where the determinant changes sign or
        the condition number grows without bound. From the compiled kernel's last
        closure when q is its result (exact condition number), else from one LU
        factorization (LAPACK getrf, gecon's estimate)."""
        hit = self._closed_det
        if hit is not None and hit[0].shape == np.shape(q) and np.array_equal(hit[0], q):
            return hit[1]
        J = np.real(self.dependent_jacobian(q))
        lu, piv = scipy.linalg.lu_factor(J, check_finite=False)
        diag = np.diag(lu)
        sign = float(np.prod(np.sign(diag)) * (-1) ** int(np.sum(piv != np.arange(piv.size))))
        scale = max(1.0, float(np.abs(J).max())) ** J.shape[0]
        rcond = scipy.linalg.lapack.dgecon(lu, float(np.abs(J).sum(0).max()), norm="1")[0]
        return sign, float(np.prod(np.abs(diag))) / scale, float(rcond)

    def close(self, q_guess, s, qf=None, *, tol: float = 1e-12, max_iter: int = 30):
        """Positions: the reference coordinates that satisfy C = 0 with actuated
        coordinates ``s`` and elastic coordinates ``qf`` (default: those of q_guess), by
        Newton from ``q_guess`` (the shared loop-closure Newton,
        :func:`~elastodyn.kinematics.closure.close_loops`; the compiled kernel writes the
        same iteration in C). Converged when |Phi| < tol (m or rad; real parts for
        complex coordinates).

        Raises
        ------
        SingularConfiguration
            Newton does not converge (a singular configuration or no assembly).
        """
        dtype = np.result_type(float, np.asarray(q_guess), np.asarray(s),
                               np.asarray(0.0 if qf is None else qf),
                               self._dtype())     # a complex-step system (a length)
        q = np.array(q_guess, dtype=dtype)
        if qf is not None:
            q[self.el_index] = qf
        s = np.asarray(s)
        last = {}

        def residual(x):
            q[self.ref_index] = x
            r, J = self._phi(q, s)
            last["J"] = J
            return r, J[:, self.ref_index]
        try:
            # the shared loop-closure Newton (complex steps: the real part tested, and
            # one Newton step at least when the imaginary part is not zero)
            close_loops(residual, q[self.ref_index], tol=tol, max_iter=max_iter,
                        what="the dependent coordinates of the FFRF system",
                        hint="a singular configuration or no assembly")
        except ClosureError as exc:
            raise SingularConfiguration(str(exc)) from None
        self._closed = (q.copy(), last["J"])
        return q

    def _map(self, q):
        """(N, LU of the dependent Jacobian) at q."""
        J = self._phi_jacobian(q)
        lu = scipy.linalg.lu_factor(J[:, self.ref_index], check_finite=False)
        na, ne = self.n_actuated, self.n_elastic
        rhs = np.zeros((J.shape[0], na + ne), dtype=J.dtype)
        rhs[self.n_c:, :na] = np.eye(na)
        rhs[:, na:] = -J[:, self.el_index]
        N = np.zeros((self.n, na + ne), dtype=J.dtype)
        N[self.ref_index] = scipy.linalg.lu_solve(lu, rhs, check_finite=False)
        N[self.el_index, na:] = np.eye(ne)
        return N, lu

    def velocity_map(self, q):
        """N (n, n_a + n_e): q_dot = N [s_dot; qf_dot] on the constraints (eqs. (95)-(99))."""
        return self._map(q)[0]

    def _convective(self, q, qd, lu) -> np.ndarray:
        gam = self._rows("phi", q, qd)[2]
        nu = np.zeros(self.n, dtype=np.result_type(gam, float))
        nu[self.ref_index] = scipy.linalg.lu_solve(lu, gam, check_finite=False)
        return nu

    def convective(self, q, qd) -> np.ndarray:
        """nu (n,): q_dd = N v_dd + nu on the constraints (eqs. (100)-(104))."""
        return self._convective(q, qd, self._map(q)[1])

    def reduced(self, q, v):
        """The partitioned equations in the independent coordinates (eqs. (105)-(106)):
        ``M_r v_dd + c_r = [tau; 0]`` with M_r = N^T M N, c_r = N^T (M nu - Q), at the
        independent rates ``v = [s_dot; qf_dot]``. Returns (M_r, c_r, N, q_dot)."""
        N, lu = self._map(q)
        qd = N @ np.asarray(v)
        M = self.mass_matrix(q)
        nu = self._convective(q, qd, lu)
        Q = self.forces(q, qd)
        return N.T @ M @ N, N.T @ (M @ nu - Q), N, qd

    def closed_reduced(self, q_guess, s, qf, v, *, tol: float = 1e-12, max_iter: int = 30,
                       compiled: bool | None = None):
        """:meth:`close` then :meth:`reduced`: (q (n,), M_r, c_r, q_dot (n,)) at the
        actuated coordinates ``s``, elastic coordinates ``qf`` and independent rates
        ``v``, closing from ``q_guess`` (max |C| at q is left in
        ``closure_residual``, m or rad). Real inputs go through the compiled kernel
        (``ffrf/kernel.c``, the same formulas in one C call) when a C compiler exists;
        complex inputs (complex-step runs) and ``compiled=False`` through NumPy. The
        returned arrays may be reused by the next call: copy what you keep.

        Raises
        ------
        SingularConfiguration
            As :meth:`close`.
        """
        kernel = None
        if compiled is not False and not (np.iscomplexobj(q_guess) or np.iscomplexobj(s)
                                          or np.iscomplexobj(qf) or np.iscomplexobj(v)):
            kernel = self._kernel()
        if kernel is None:
            if compiled:
                raise ModelError("the compiled FFRF kernel is not available (no C "
                                 "compiler, or complex coordinates)")
            q = self.close(q_guess, s, qf, tol=tol, max_iter=max_iter)
            Mr, cr, _, qd = self.reduced(q, v)
            self.closure_residual = float(np.abs(self.constraints(q)[0]).max(initial=0.0))
            return q, Mr, cr, qd
        it, q, Mr, cr, qd, J, resid, det = kernel(q_guess, s, qf, v, tol, max_iter)
        q = q.copy()
        self.closure_residual = resid
        if it == -2:
            raise SingularConfiguration("the constraint Jacobian of the dependent "
                                        "coordinates is singular")
        if it < 0:
            raise SingularConfiguration(f"loop closure did not converge in {max_iter} "
                                        f"Newton steps (residual {resid:.3g}): a singular "
                                        "configuration or no assembly")
        self._closed = (q.copy(), J.copy())
        self._closed_det = (self._closed[0], tuple(float(d) for d in det))
        return q, Mr, cr, qd

    def _kernel(self):
        """The compiled kernel of this system (built on first use), or None."""
        if self._kernel_obj is _UNBUILT:          # complex systems: NumPy only
            lib = _kernel_library() if self._dtype() == np.float64 else None
            self._kernel_obj = None if lib is None else _Kernel(self, lib)
        return self._kernel_obj

    # ------------------------------------------------------------------ augmented
    def accelerations(self, q, qd, tau=None, *, driven: bool = False):
        """Accelerations (n,) and multipliers from the augmented system (eqs. (43)-(44)):
        ``[[M, Phi_q^T], [Phi_q, 0]] [q_dd; lambda] = [Q + J_a^T tau; gamma]``. Force
        driven (``driven`` False): Phi = C and the efforts ``tau`` act along the actuated
        coordinates; motion driven: Phi also holds the actuated coordinates, whose
        accelerations are then ``tau`` (the prescribed ones)."""
        M = self.mass_matrix(q)
        Q = self.forces(q, qd)
        _, Cq, gc = self.constraints(q, qd)
        _, Ja, ga = self.actuated_coordinates(q, qd)
        na = self.n_actuated
        tau = np.zeros(na) if tau is None else np.asarray(tau, dtype=float)
        if driven:
            P, g = np.vstack([Cq, Ja]), np.concatenate([gc, ga + tau])
        else:
            P, g = Cq, gc
            Q = Q + Ja.T @ tau
        k = P.shape[0]
        A = np.zeros((self.n + k, self.n + k))
        A[:self.n, :self.n] = M
        A[:self.n, self.n:] = P.T
        A[self.n:, :self.n] = P
        try:
            x = np.linalg.solve(A, np.concatenate([Q, g]))
        except np.linalg.LinAlgError:
            raise SingularConfiguration("the augmented matrix is singular (redundant "
                                        "constraints or a mass-less motion)") from None
        return x[:self.n], x[self.n:]

    def project(self, q, qd, *, driven_s=None, tol: float = 1e-12, max_iter: int = 20):
        """Positions and velocities projected onto the constraint manifold: the
        minimum-norm corrections ``dq = -P^T (P P^T)^-1 Phi`` (the shared loop-closure
        Newton with minimum-norm steps, :func:`~elastodyn.kinematics.closure.close_loops`,
        until |Phi| < tol) and ``qd -= P^T (P P^T)^-1 P qd`` (with ``driven_s`` =
        (s, s_dot), the actuated coordinates are held on them too).

        Raises
        ------
        SingularConfiguration
            The projection does not converge (or P P^T is singular)."""
        q = np.array(q, dtype=float)

        def residual(x):
            C, P = self.constraints(x)
            if driven_s is not None:
                a, Ja = self.actuated_coordinates(x)
                C, P = np.concatenate([C, a - driven_s[0]]), np.vstack([P, Ja])
            return C, P
        try:
            q = close_loops(residual, q, tol=tol, max_iter=max_iter, minimum_norm=True,
                            what="the FFRF positions (projection onto the constraints)"
                            ).x
        except ClosureError as exc:
            raise SingularConfiguration(str(exc)) from None
        C, P = self.constraints(q)
        rhs = np.zeros(P.shape[0])
        if driven_s is not None:
            _, Ja = self.actuated_coordinates(q)
            P = np.vstack([P, Ja])
            rhs = np.concatenate([rhs, np.asarray(driven_s[1], dtype=float)])
        qd = np.asarray(qd, dtype=float)
        qd = qd - P.T @ np.linalg.solve(P @ P.T, P @ qd - rhs)
        return q, qd

    # ------------------------------------------------------------------ energy
    def energy(self, q, qd) -> tuple[float, float, float]:
        """Kinetic, elastic and gravity potential energy [J]."""
        T = 0.5 * qd @ self.mass_matrix(q) @ qd
        qf = q[self.el_index]
        U = 0.5 * qf @ self._Kel @ qf
        V = 0.0
        for i, b in enumerate(self.bodies):
            s = self.body_slice(i)
            A, _ = _rot(q[s][2])
            first = b.inv.I1 + b.inv.S_bar @ q[s][3:]
            V -= self.gravity @ (b.inv.mass * q[s][0:2] + A @ first)
        return float(T), float(U), float(V)
