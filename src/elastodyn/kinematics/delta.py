"""Kinematics of the Delta robot, in Kuo's and Asadi's conventions from one implementation.

Conventions (world frame Z down, leg angles, signs of the actuated angles): see
:mod:`elastodyn.description.delta`. Every function takes positions of shape (3,) or
(n, 3) and returns arrays with the same leading shape (vectorised over samples).

Per leg i, with the radial unit vector e_i, ez = (0, 0, 1) and s = +1 (``kuo2016``) or
-1 (``asadi2020``):

* elbow            B_i(q) = A_i + L1 (cos q e_i - s sin q ez),  A_i = r_A e_i
* its q-derivative T_i = dB_i/dq = L1 (-sin q e_i - s cos q ez)     (Asadi's T_i, eq. 7)
* platform joint   D_i = X + r_B e_i
* lower link       U_i = D_i - B_i, |U_i| = L2                    (Asadi's U_i, eq. 4)

Kuo's printed eqs. (3), (4) and (8) carry misprints (../shared/papers/kuo2016-errata.md);
the inverse kinematics below is derived from |U_i|^2 = L2^2 directly and tested by
FK(IK(X)) = X.

Inverse kinematics. With P' = X - (r_A - r_B) e_i, rho = P'.e_i, zeta = P'.ez,
|U_i|^2 = L2^2 reads a cos q + b sin q = k with a = rho, b = -s zeta and
k = (|P'|^2 + L1^2 - L2^2) / (2 L1) (Kuo eq. 7 re-derived). Its two solutions are
q = psi +/- acos(k / R), R = hypot(a, b), psi = atan2(b, a); a point is reachable by
leg i iff |k| <= R. **Branch rule (elbows out):** in the leg's plane, with the elbow at
(rho_B, zeta_B) = L1 (cos q, -s sin q) relative to A_i, the "out" solution is the one
with rho_B zeta - zeta_B rho > 0, i.e. the elbow lies on the outer side of the line from
A_i to P'; "in" is the other one. At P = (0.1, 0, 0.5) m on Kuo's robot this gives
phi_1 = -10.76, -29.30, -29.30 deg (errata).

Forward kinematics intersects the three spheres of radius L2 centred at B_i - r_B e_i;
of the two mirror solutions, ``branch="below"`` is the one with the larger Z (the
platform hangs below the plane of the sphere centres: the working mode of both papers),
``"above"`` the other.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._validate import arctan2, choice, clip, hypot, wrap_angle
from ..description.delta import DeltaGeometry
from ..exceptions import DimensionError, InputError

__all__ = ["DeltaKinematics", "KinematicState", "UnreachableError",
           "SingularConfigurationError", "SingularityWarning"]

_EZ = np.array([0.0, 0.0, 1.0])


class UnreachableError(InputError):
    """A point is outside the workspace (names the point and the leg that misses it)."""

    def __init__(self, message: str, point, leg: int):
        self.point = point
        self.leg = leg
        ValueError.__init__(self, message)
        self.name, self.value, self.allowed = "X", point, "a reachable point"


class SingularConfigurationError(InputError):
    """A configuration at a singularity: the condition number of J exceeds the limit."""

    def __init__(self, message: str, condition: float):
        self.condition = condition
        ValueError.__init__(self, message)
        self.name, self.value, self.allowed = "X", None, "a non-singular configuration"


class SingularityWarning(UserWarning):
    """A configuration near a singularity (condition number of J above the warning level)."""


def as_points(name: str, value) -> tuple[np.ndarray, bool]:
    """Validate one point or a stack of points of R^3 (positions, angles, torques...).

    Parameters
    ----------
    name : str
        Name of the argument, for the error messages.
    value : array_like, shape (3,) or (n, 3)
        Finite values.

    Returns
    -------
    (numpy.ndarray, bool)
        The values as a float array of shape (n, 3) (n = 1 for a single point) and
        whether ``value`` was a single point (shape (3,)), so that a caller can give
        back the shape it was given.

    Raises
    ------
    DimensionError
        If the shape is neither (3,) nor (n, 3).
    InputError
        If a value is not finite.
    """
    arr = np.asarray(value, dtype=float)
    single = arr.ndim == 1
    if arr.shape[-1:] != (3,) or arr.ndim not in (1, 2):
        raise DimensionError(f"invalid {name}: expected shape (3,) or (n, 3), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, value, "finite values")
    return np.atleast_2d(arr), single


def _fmt(x) -> str:
    return "(" + ", ".join(f"{v:.6g}" for v in np.asarray(x).ravel()) + ")"


@dataclass(frozen=True, eq=False)
class KinematicState:
    """Positions, velocities and accelerations of every body of the Delta at n samples.

    All arrays have a leading sample axis n. Legs are the second axis where present.

    Attributes
    ----------
    X, Xd, Xdd : (n, 3)
        Platform centre position [m], velocity [m/s], acceleration [m/s^2].
    q, qd, qdd : (n, 3)
        Actuated angles [rad] and their rates [rad/s, rad/s^2] (robot's convention).
    B, D : (n, 3, 3)
        Elbow and platform-joint positions [m], leg-major.
    U : (n, 3, 3)
        Lower-link vectors D_i - B_i [m] (Asadi's U_i).
    T : (n, 3, 3)
        dB_i/dq_i [m/rad] (Asadi's T_i).
    J, Jd : (n, 3, 3)
        qd = J Xd [rad/m] and its time derivative [rad/(m s)] (Asadi eqs. 9, 12).
    """

    X: np.ndarray
    Xd: np.ndarray
    Xdd: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    B: np.ndarray
    D: np.ndarray
    U: np.ndarray
    T: np.ndarray
    J: np.ndarray
    Jd: np.ndarray


class DeltaKinematics:
    """Inverse and forward kinematics, Jacobians and singularity measure of a Delta.

    Parameters
    ----------
    geometry : DeltaGeometry
    warn_condition : float
        Singularity measure kappa (:meth:`condition_number`) above which the checks warn; > 1.
    max_condition : float
        kappa above which they raise :class:`SingularConfigurationError`.
    """

    def __init__(self, geometry: DeltaGeometry, *, warn_condition: float = 1e3,
                 max_condition: float = 1e8):
        if not isinstance(geometry, DeltaGeometry):
            raise InputError("geometry", geometry, "a DeltaGeometry")
        if not (1.0 < warn_condition <= max_condition):
            raise InputError("warn_condition", warn_condition, "1 < warn_condition <= max_condition")
        self.geometry = geometry
        self.warn_condition = float(warn_condition)
        self.max_condition = float(max_condition)
        self._e = geometry.radial                      # (3 legs, 3)
        self._s = geometry.sign
        self._A = geometry.base_radius * self._e       # (3, 3)
        self._A.setflags(write=False)

    # ---------------------------------------------------------------- leg geometry

    @property
    def base_joints(self) -> np.ndarray:
        """Actuated (base) joint positions A_i = r_A e_i [m], shape (3 legs, 3), read-only."""
        return self._A

    def elbows(self, q) -> np.ndarray:
        """Elbow positions B_i [m], shape (n, 3 legs, 3) (or (3, 3) for q of shape (3,))."""
        q, single = as_points("q", q)
        B, _ = self._elbow_terms(q)
        return B[0] if single else B

    def _elbow_terms(self, q):
        L1 = self.geometry.upper_length
        c, s = np.cos(q)[..., None], np.sin(q)[..., None]
        B = self._A + L1 * (c * self._e - self._s * s * _EZ)
        T = L1 * (-s * self._e - self._s * c * _EZ)
        return B, T

    def platform_joints(self, X) -> np.ndarray:
        """Platform joint positions D_i = X + r_B e_i [m], shape (n, 3 legs, 3)."""
        X, single = as_points("X", X)
        D = X[:, None, :] + self.geometry.platform_radius * self._e
        return D[0] if single else D

    # ---------------------------------------------------------------- inverse kinematics

    def _ik_terms(self, X):
        g = self.geometry
        P = X[:, None, :] - g.offset * self._e             # (n, 3, 3)
        rho = np.einsum("nij,ij->ni", P, self._e)
        zeta = P[..., 2]
        k = (np.einsum("nij,nij->ni", P, P) + g.upper_length**2 - g.lower_length**2) / (
            2.0 * g.upper_length)
        a, b = rho, -self._s * zeta
        R = hypot(a, b)
        return rho, zeta, k, a, b, R, P

    def inverse_kinematics_all(self, X) -> np.ndarray:
        """Both solutions of every leg, NaN where a leg cannot reach X.

        Parameters
        ----------
        X : array_like, shape (3,) or (n, 3)
            Platform centre [m].

        Returns
        -------
        numpy.ndarray, shape (n, 3 legs, 2) (or (3, 2))
            ``[..., 0]`` the elbow-out angle, ``[..., 1]`` the elbow-in angle [rad],
            wrapped to (-pi, pi]. The 8 assembly modes are the combinations over legs.
        """
        X, single = as_points("X", X)
        rho, zeta, k, a, b, R, _ = self._ik_terms(X)
        # complex-safe (a geometry entry may carry a complex step, the branch decisions
        # on the real parts; :func:`elastodyn._validate.arctan2`): identical for reals
        psi = arctan2(b, a)
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = np.arccos(clip(k / R, -1.0, 1.0))
        delta = np.where(np.abs(k.real) <= R.real * (1 + 1e-12), delta, np.nan)
        sols = np.stack([psi + delta, psi - delta], axis=-1)
        # elbow-out test: rho_B zeta - zeta_B rho > 0, (rho_B, zeta_B) = L1 (cos q, -s sin q)
        side = (np.cos(sols) * zeta[..., None] + self._s * np.sin(sols) * rho[..., None]).real
        swap = side[..., 0] < side[..., 1]
        out = np.where(swap[..., None], sols[..., ::-1], sols)
        out = wrap_angle(out)  # wrap to (-pi, pi]
        return out[0] if single else out

    def inverse_kinematics(self, X, branch="out") -> np.ndarray:
        """Actuated angles q [rad] for platform position(s) X.

        Parameters
        ----------
        X : array_like, shape (3,) or (n, 3)
            Platform centre [m].
        branch : {"out", "in"} or sequence of 3 of them
            Elbow branch per leg (see the module docstring); "out" (default) is the
            usual working mode.

        Returns
        -------
        numpy.ndarray, shape (3,) or (n, 3)

        Raises
        ------
        UnreachableError
            A point is outside the workspace; the message names the point, the leg and
            by how much the leg's lower link misses it.
        """
        Xa, single = as_points("X", X)
        branches = (branch,) * 3 if isinstance(branch, str) else tuple(branch)
        if len(branches) != 3:
            raise InputError("branch", branch, '"out", "in" or a sequence of 3 of them')
        for b_ in branches:
            choice("branch", b_, ("out", "in"))
        self.check_reachable(Xa)
        sols = self.inverse_kinematics_all(Xa)
        idx = np.array([0 if b_ == "out" else 1 for b_ in branches])
        q = np.take_along_axis(sols, idx[None, :, None].repeat(len(Xa), 0), axis=-1)[..., 0]
        return q[0] if single else q

    def reachability_margin(self, X) -> np.ndarray:
        """Signed distance [m] by which each leg's lower link can reach X.

        For leg i, the distance from the sphere centre P' to the points of the elbow
        circle (radius L1 about A_i in the leg's plane) spans [d_min, d_max]; the margin
        is min(L2 - d_min, d_max - L2): >= 0 iff leg i reaches X.

        Returns
        -------
        numpy.ndarray, shape (3,) or (n, 3)
            Real (a check: for a geometry carrying a complex step, the margins of its
            real part).
        """
        Xa, single = as_points("X", X)
        g = self.geometry
        _, _, _, _, _, R, P = self._ik_terms(Xa)
        R, P = np.real(R), np.real(P)
        pp = np.einsum("nij,nij->ni", P, P)
        L1, L2 = np.real(g.upper_length), np.real(g.lower_length)
        dmin = np.sqrt(np.maximum(pp + L1**2 - 2 * L1 * R, 0.0))
        dmax = np.sqrt(pp + L1**2 + 2 * L1 * R)
        m = np.minimum(L2 - dmin, dmax - L2)
        return m[0] if single else m

    def is_reachable(self, X) -> np.ndarray:
        """True where every leg reaches X; shape () or (n,)."""
        return np.all(self.reachability_margin(X) >= -1e-12, axis=-1)

    def check_reachable(self, X) -> None:
        """Raise :class:`UnreachableError` for the first unreachable point and leg."""
        Xa, _ = as_points("X", X)
        above = np.flatnonzero(Xa[:, 2] <= 0.0)
        if above.size:   # the mirror assembly mode above the base is not the working mode
            n = int(above[0])
            raise UnreachableError(
                f"invalid X: point {_fmt(Xa[n])} m is above the base plane (Z points down; "
                "the platform hangs at Z > 0); allowed: a point inside the workspace",
                Xa[n].copy(), 0)
        margin = np.atleast_2d(self.reachability_margin(Xa))
        bad = np.argwhere(margin < -1e-12)
        if bad.size:
            n, leg = bad[0]
            g = self.geometry
            _, _, _, _, _, R, P = self._ik_terms(Xa[n:n + 1])
            R, P = np.real(R), np.real(P)
            L1, L2 = np.real(g.upper_length), np.real(g.lower_length)
            pp = float(np.dot(P[0, leg], P[0, leg]))
            dmin = np.sqrt(max(pp + L1**2 - 2 * L1 * R[0, leg], 0.0))
            how = ("too far: its nearest elbow position is {:.6g} m away".format(dmin)
                   if L2 < dmin else "too close to its base joint")
            raise UnreachableError(
                f"invalid X: point {_fmt(Xa[n])} m is unreachable; leg {leg + 1} "
                f"(lower link L2 = {L2:.6g} m) misses it by "
                f"{-margin[n, leg]:.6g} m ({how}); allowed: a point inside the workspace",
                Xa[n].copy(), int(leg) + 1)

    # ---------------------------------------------------------------- forward kinematics

    def forward_kinematics(self, q, branch: str = "below") -> np.ndarray:
        """Platform centre X [m] for actuated angles q [rad] (three-sphere intersection).

        Parameters
        ----------
        q : array_like, shape (3,) or (n, 3)
        branch : {"below", "above"}
            "below": the solution with the larger Z (Z down), the working mode.

        Raises
        ------
        InputError
            The three spheres do not meet (the angles cannot be assembled), or their
            centres are collinear.
        """
        qa, single = as_points("q", q)
        choice("branch", branch, ("below", "above"))
        g = self.geometry
        c = self.elbows(qa) - g.platform_radius * self._e       # (n, 3, 3) sphere centres
        a, b = c[:, 1] - c[:, 0], c[:, 2] - c[:, 0]
        n_ = np.cross(a, b)
        nn = np.einsum("ni,ni->n", n_, n_)
        if np.any(nn < 1e-24):
            raise InputError("q", q, "angles whose three sphere centres are not collinear")
        # circumcentre of the triangle of centres (the foot of the solution line)
        aa, bb = np.einsum("ni,ni->n", a, a), np.einsum("ni,ni->n", b, b)
        foot = c[:, 0] + (np.cross(aa[:, None] * b - bb[:, None] * a, n_)) / (2.0 * nn[:, None])
        r2 = g.lower_length**2 - np.einsum("ni,ni->n", foot - c[:, 0], foot - c[:, 0])
        if np.any(r2 < -1e-12):
            i = int(np.argmax(r2 < -1e-12))
            raise InputError("q", _fmt(qa[i]) + " rad",
                             "angles for which the three lower links can meet (the spheres "
                             f"of radius L2 = {g.lower_length} m about the elbows miss each "
                             "other)")
        unit = n_ / np.sqrt(nn)[:, None]
        unit = unit * np.where(unit[:, 2] < 0, -1.0, 1.0)[:, None]   # towards +Z
        h = np.sqrt(np.maximum(r2, 0.0))[:, None]
        X = foot + (h if branch == "below" else -h) * unit
        return X[0] if single else X

    # ---------------------------------------------------------------- passive angles

    def passive_angles(self, X, q) -> tuple[np.ndarray, np.ndarray]:
        """Kuo's passive angles (phi_2i, phi_3i) [rad], each shape (3,) or (n, 3).

        From the corrected chain of Kuo eq. (3) (errata), the lower link's direction in
        the chain frame (e_i, ez x e_i, ez) is (cos phi12 cos phi3, sin phi3,
        -sin phi12 cos phi3), phi12 = phi_1 + phi_2, with phi_1 = s q (Kuo's angle).
        phi_3 in [-pi/2, pi/2].
        """
        Xa, single = as_points("X", X)
        qa, _ = as_points("q", q)
        U = self.platform_joints(Xa).reshape(-1, 3, 3) - self.elbows(qa).reshape(-1, 3, 3)
        d = U / self.geometry.lower_length
        y = np.stack([-self._e[:, 1], self._e[:, 0], np.zeros(3)], axis=1)
        dx = np.einsum("nij,ij->ni", d, self._e)
        dy = np.einsum("nij,ij->ni", d, y)
        dz = d[..., 2]
        phi3 = np.arcsin(np.clip(dy, -1.0, 1.0))
        phi12 = np.arctan2(-dz, dx)
        phi2 = np.angle(np.exp(1j * (phi12 - self._s * qa)))
        return (phi2[0], phi3[0]) if single else (phi2, phi3)

    # ---------------------------------------------------------------- Jacobians

    def state(self, X, Xd=None, Xdd=None, q=None, *, branch="out") -> KinematicState:
        """Every kinematic quantity at n samples (Asadi eqs. 4-12).

        Parameters
        ----------
        X, Xd, Xdd : array_like, shape (3,) or (n, 3)
            Platform position [m], velocity [m/s] and acceleration [m/s^2]; the
            derivatives default to zero.
        q : array_like, optional
            Actuated angles if already known (skips the inverse kinematics).
        branch : see :meth:`inverse_kinematics`.

        Returns
        -------
        KinematicState (always with a leading sample axis)

        Raises
        ------
        UnreachableError, SingularConfigurationError
        """
        Xa, _ = as_points("X", X)
        n = len(Xa)
        Xd = np.zeros_like(Xa) if Xd is None else as_points("Xd", Xd)[0]
        Xdd = np.zeros_like(Xa) if Xdd is None else as_points("Xdd", Xdd)[0]
        if Xd.shape != Xa.shape or Xdd.shape != Xa.shape:
            raise DimensionError(f"invalid Xd/Xdd: expected shape {Xa.shape}, "
                                 f"got {Xd.shape} and {Xdd.shape}")
        qa = self.inverse_kinematics(Xa, branch) if q is None else as_points("q", q)[0]
        if qa.shape != Xa.shape:
            raise DimensionError(f"invalid q: expected shape {Xa.shape}, got {qa.shape}")
        qa = qa.reshape(n, 3)
        B, T = self._elbow_terms(qa)
        D = Xa[:, None, :] + self.geometry.platform_radius * self._e
        U = D - B
        UT = np.einsum("nij,nij->ni", U, T)                    # U_i^T T_i
        self._check_condition(U, UT, Xa)
        J = U / UT[..., None]                                  # eq. (9): rows U_i^T / U_i^T T_i
        qd = np.einsum("nij,nj->ni", J, Xd)
        Ud = Xd[:, None, :] - T * qd[..., None]                # eq. (7)
        Td = -(B - self._A) * qd[..., None]                    # dT/dt = d2B/dq2 qd
        # eq. (12): Jd_i = (Ud_i^T - (Ud_i^T T_i + U_i^T Td_i) J_i) / (U_i^T T_i)
        coef = np.einsum("nij,nij->ni", Ud, T) + np.einsum("nij,nij->ni", U, Td)
        Jd = (Ud - coef[..., None] * J) / UT[..., None]
        qdd = np.einsum("nij,nj->ni", J, Xdd) + np.einsum("nij,nj->ni", Jd, Xd)  # eq. (11)
        return KinematicState(Xa, Xd, Xdd, qa, qd, qdd, B, D, U, T, J, Jd)

    def jacobian(self, X, q=None) -> np.ndarray:
        """J = dq/dX [rad/m] (Asadi eq. 9), shape (3, 3) or (n, 3, 3)."""
        single = np.asarray(X).ndim == 1
        J = self.state(X, q=q).J
        return J[0] if single else J

    def jacobian_derivative(self, X, Xd, q=None) -> np.ndarray:
        """dJ/dt [rad/(m s)] along the velocity Xd (Asadi eq. 12)."""
        single = np.asarray(X).ndim == 1
        Jd = self.state(X, Xd, q=q).Jd
        return Jd[0] if single else Jd

    def condition_number(self, X, q=None) -> np.ndarray:
        """Singularity measure kappa >= 1 (infinite at a singularity), shape () or (n,).

        kappa = max(cond(J), 1 / min_i |cos gamma_i|), with cond the 2-norm condition
        number of J (Asadi eq. 9) and cos gamma_i = U_i . T_i / (L1 L2) the cosine of the
        angle between lower link i and the path of its elbow. cond(J) detects the parallel
        (type-2) singularities, where the lower links cannot hold the platform (U
        rank-deficient), and one leg stretched or folded in line with its lower link; but
        it is blind to a common scale, so when all three legs stretch at once (bottom of
        the workspace on the axis, J unbounded) only the second term sees the serial
        (type-1) singularity. Both terms are dimensionless.
        """
        Xa, single = as_points("X", X)
        c = self._condition(*self._lower_links(Xa, q))
        return c[0] if single else c

    def _lower_links(self, Xa, q):
        """U_i = D_i - B_i and U_i . T_i at points Xa (n, 3), IK unless q is given."""
        qa = self.inverse_kinematics(Xa) if q is None else as_points("q", q)[0]
        B, T = self._elbow_terms(qa.reshape(-1, 3))
        U = Xa[:, None, :] + self.geometry.platform_radius * self._e - B
        return U, np.einsum("nij,nij->ni", U, T)

    def _condition(self, U, UT):
        # a check: the real parts for a geometry carrying a complex step
        U, UT = np.real(U), np.real(UT)
        scale = np.real(self.geometry.upper_length * self.geometry.lower_length)
        cos_min = np.abs(UT).min(axis=-1) / scale
        ok = cos_min > 0.0
        c = np.full(len(U), np.inf)
        if np.any(ok):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                sv = np.linalg.svd(U[ok] / UT[ok][..., None], compute_uv=False)
                cj = sv[..., 0] / sv[..., -1]
                c[ok] = np.maximum(np.where(np.isfinite(cj), cj, np.inf), 1.0 / cos_min[ok])
        return c

    def _check_condition(self, U, UT, X):
        c = self._condition(U, UT)
        worst = int(np.argmax(c))
        if c[worst] > self.max_condition:
            raise SingularConfigurationError(
                f"invalid X: point {_fmt(X[worst])} m is at a singularity (condition "
                f"number kappa = {c[worst]:.3g} > {self.max_condition:.3g}); allowed: a "
                "non-singular configuration", float(c[worst]))
        if c[worst] > self.warn_condition:
            warnings.warn(f"point {_fmt(X[worst])} m is near a singularity (condition number "
                          f"kappa = {c[worst]:.3g})", SingularityWarning, stacklevel=3)
        return c

    def check_singularity(self, X, q=None) -> np.ndarray:
        """Condition numbers at X; warns above ``warn_condition``, raises above
        ``max_condition`` (:class:`SingularConfigurationError`)."""
        Xa, _ = as_points("X", X)
        U, UT = self._lower_links(Xa, q)
        return self._check_condition(U, UT, Xa)
