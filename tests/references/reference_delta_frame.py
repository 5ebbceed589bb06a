"""Independent reference model of the flexible Delta robot frozen at one pose (test oracle).

This module assembles, from scratch, the linear finite-element model of the Delta robot of
Kuo 2016 (Table 1) in a *fixed* configuration, to validate the library's
kineto-elasto-dynamic (KED) model at rest.  It is deliberately independent of the library's
kinematics, formulations and assembly: from ``elastodyn`` it only uses the element
matrices (``elastodyn.fem.elements``) and the material / section data
(``elastodyn.description.materials``).  Everything else (inverse kinematics, link frames,
coordinate transformation, joints, platform, preload) is written here.

Structure and conventions (SI units)
------------------------------------
* World frame: Z points DOWN; gravity ``G_VEC = (0, 0, 9.81)`` m/s^2.
* Leg i (theta_i = 0, 120, 240 deg): ``e_i = (cos th, sin th, 0)``, motor axis
  ``y_i = (-sin th, cos th, 0)``, base joint ``A_i = R_A e_i``, elbow
  ``B_i = A_i + L1 (cos q_i e_i - sin q_i ez)``, platform joint ``D_i = X + R_B e_i``.
* Upper link A_i -> B_i, frame ``x_u = (B-A)/L1, y_u = y_i, z_u = x_u x y_u``.
  Lower link B_i -> D_i, frame ``x_l = (D-B)/L2, z_l = unit(x_l x y_i), y_l = z_l x x_l``.
* Links: steel, 5 mm x 5 mm square section by default; the upper and the lower links can
  each be given their own section and material (``upper``, ``lower``); each link meshed
  with ``n`` equal two-node spatial Euler-Bernoulli elements (``order`` "cubic" or
  "quintic").
* Platform: 6 dofs at its centre P = X: translation dP and small rotation gP (world
  components). By default a rigid disc (mass 0.5 kg, radius R_B, thickness 0.05 m, axis
  Z) whose mass and inertia sit on these dofs. Any other rigid bodies (``bodies``: the
  platform of another shape, a payload) are modelled each as a separate node at its own
  centre of mass G, 6 world dofs with the diagonal mass m and the inertia tensor about G,
  its weight at G, tied to P by the rigid-body constraints ``t_G = dP + gP x (G - P)``,
  ``r_G = gP`` (no parallel-axis theorem, no moment of an offset weight written by hand:
  the constraints produce them).

Degrees of freedom (the "full" vector z)
----------------------------------------
Every link node has its own block: 6 WORLD dofs (3 translations, 3 small rotations), plus,
for the quintic element, the 4 derivative dofs (du, drx, dry, drz) which are per-link
quantities in the link (element) frame and are not transformed.  The two links meeting at
an elbow have *separate* nodes there.  The platform's 6 dofs come last.  Element matrices
are brought to world components with the block-diagonal rotation
``T_e = diag(R^T, R^T, [I_4], R^T, R^T, [I_4])`` (``delta_local = T_e z_e``), i.e.
``K_world = T_e^T K_e T_e``, ``f_world = T_e^T f_e``.

Joints as linear constraints ``C z = 0``
----------------------------------------
No hand-built transformation: the joints are rows of ``C`` and the model lives in the
orthonormal null-space basis ``Z = null_space(C)``, ``z = Z y``:

* A_i: upper link's first node clamped (its 6 world dofs zero; quintic derivative dofs free).
* B_i (upper last node "u", lower first node "l"): translations equal; rotations
  ``"clamped"``: equal; ``"universal"``: ``(r_l - r_u) . (y_i x z_l) = 0`` (relative rotation
  only about y_i and z_l); ``"spherical"``: free.
* D_i (lower last node "d", platform): ``t_d = dP + gP x (D_i - P)``; rotations
  ``"clamped"``: ``r_d = gP``; ``"universal"``: ``(r_d - gP) . (z_l x y_i) = 0``;
  ``"spherical"``: free.

Loads and preload
-----------------
Consistent element gravity loads (gravity ``gravity``, default ``G_VEC``, in element
components) plus the platform weight at P (or each body's weight at its centre of mass).  With ``preload=True`` the stiffness is ``K = K_el + K_g``; K_g comes from the axial
forces of the *linear elastic* static solution ``K_el u = f`` (see :func:`frame_delta`).

API
---
``inverse_kinematics(X) -> q (3,)``
``leg_geometry(X) -> list of 3 dicts``
``assemble(X, n_elements, order, joint_b, joint_d, *, upper, lower, bodies, gravity) -> dict``
(matrices, constraints, ...)
``frame_delta(X, ...) -> dict`` (frequencies, static platform displacement, forces, ...)
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from elastodyn.description.materials import STEEL, Material, Section
from elastodyn.fem.elements import (BeamElement, geometric_stiffness, gravity_load,
                                    mass_matrix, stiffness_matrix)

__all__ = ["R_A", "R_B", "L1", "L2", "G_VEC", "M_PLATFORM", "H_PLATFORM", "THETAS",
           "MATERIAL", "SECTION", "JOINTS", "ZERO_TOL", "platform_inertia",
           "inverse_kinematics", "leg_geometry", "assemble", "frame_delta"]

# ---------------------------------------------------------------------------------------
# Kuo 2016, Table 1
# ---------------------------------------------------------------------------------------
R_A = 0.1            # base radius [m]
R_B = 0.05           # platform radius [m]
L1 = 0.5             # upper link length A_i -> B_i [m]
L2 = 0.6             # lower link length B_i -> D_i [m]
G_VEC = np.array([0.0, 0.0, 9.81])   # gravitational acceleration, world (Z down) [m/s^2]
M_PLATFORM = 0.5     # platform mass [kg]
H_PLATFORM = 0.05    # platform (disc) thickness [m]
THETAS = np.deg2rad([0.0, 120.0, 240.0])
MATERIAL: Material = STEEL
SECTION: Section = Section.rectangle(5e-3, 5e-3)
JOINTS = ("clamped", "universal", "spherical")

EZ = np.array([0.0, 0.0, 1.0])


def platform_inertia() -> np.ndarray:
    """Rotational inertia of the platform disc about its centre P, world axes [kg m^2]."""
    m, r, h = M_PLATFORM, R_B, H_PLATFORM
    ixx = m * (3.0 * r**2 + h**2) / 12.0
    return np.diag([ixx, ixx, m * r**2 / 2.0])


# ---------------------------------------------------------------------------------------
# Kinematics
# ---------------------------------------------------------------------------------------
def _leg_axes(theta: float):
    e = np.array([np.cos(theta), np.sin(theta), 0.0])
    y = np.array([-np.sin(theta), np.cos(theta), 0.0])
    return e, y


def _elbow_angle(X: np.ndarray, theta: float) -> float:
    """Elbows-out solution q of |X + R_B e - B(q)| = L2 for one leg.

    In the leg plane (coordinates rho along e, zeta along ez) with P' = X - (R_A - R_B) e:
    |P' - L1 (cos q, -sin q)|^2 = L2^2 (the out-of-plane component of P' is unaffected by
    q) reads a cos q + b sin q = c with a = 2 L1 rho, b = -2 L1 zeta,
    c = |P'|^2 + L1^2 - L2^2.  With a = s cos(phi), b = s sin(phi): q = phi +/- acos(c/s).
    Both roots are computed and the elbows-out one, rho_B zeta - zeta_B rho > 0 with
    (rho_B, zeta_B) = (cos q, -sin q), is kept.
    """
    e, _ = _leg_axes(theta)
    Pp = X - (R_A - R_B) * e
    rho, zeta = Pp @ e, Pp @ EZ
    a, b = 2.0 * L1 * rho, -2.0 * L1 * zeta
    c = Pp @ Pp + L1**2 - L2**2
    s, phi = np.hypot(a, b), np.arctan2(b, a)
    if not abs(c) <= s:
        raise ValueError(f"pose X = {X} is out of reach for the leg at {np.rad2deg(theta)} deg")
    roots = phi + np.array([1.0, -1.0]) * np.arccos(c / s)
    out = [q for q in roots if np.cos(q) * zeta - (-np.sin(q)) * rho > 0.0]
    if len(out) != 1:
        raise ValueError(f"no unique elbows-out solution at X = {X} (singular pose)")
    q = out[0]
    return float(np.arctan2(np.sin(q), np.cos(q)))  # wrap to (-pi, pi]


def inverse_kinematics(X) -> np.ndarray:
    """Elbows-out elbow angles q_i [rad] of the three legs for the platform centre X [m]."""
    X = np.asarray(X, dtype=float)
    return np.array([_elbow_angle(X, th) for th in THETAS])


def leg_geometry(X) -> list[dict]:
    """Points and link frames of the three legs at pose X.

    Returns a list of dicts with keys ``theta, q, e, y`` (motor axis), ``A, B, D`` (points),
    ``R_u, R_l`` (3x3, columns = link frame axes x, y, z in world components).
    """
    X = np.asarray(X, dtype=float)
    legs = []
    for th, q in zip(THETAS, inverse_kinematics(X)):
        e, y = _leg_axes(th)
        A = R_A * e
        B = A + L1 * (np.cos(q) * e - np.sin(q) * EZ)
        D = X + R_B * e
        xu = (B - A) / L1
        R_u = np.column_stack([xu, y, np.cross(xu, y)])
        xl = (D - B) / np.linalg.norm(D - B)
        zl = np.cross(xl, y)
        zl /= np.linalg.norm(zl)
        R_l = np.column_stack([xl, np.cross(zl, xl), zl])
        legs.append(dict(theta=th, q=q, e=e, y=y, A=A, B=B, D=D, R_u=R_u, R_l=R_l))
    return legs


# ---------------------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------------------
def _skew(a) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _element_transform(R: np.ndarray, nd: int) -> np.ndarray:
    """T_e with delta_local = T_e z_e: R^T on each translation / rotation triple, identity
    on the quintic derivative dofs (per-link, already in the link frame)."""
    Tn = np.eye(nd)
    Tn[0:3, 0:3] = R.T
    Tn[3:6, 3:6] = R.T
    return sla.block_diag(Tn, Tn)


def assemble(X, n_elements: int = 1, order: str = "cubic", joint_b: str = "universal",
             joint_d: str = "universal", *, upper=None, lower=None, bodies=None,
             gravity=None) -> dict:
    """Full (unconstrained) world-component matrices, constraints and bookkeeping.

    ``upper``, ``lower``: (Section, Material) of the upper and lower links (default
    (SECTION, MATERIAL)). ``bodies``: None (the default disc platform on the P dofs) or a
    sequence of rigid bodies (mass [kg], centre of mass offset from P (3,) [m], inertia
    about the centre of mass (3, 3) [kg m^2], world axes), each on its own node tied to P.
    ``gravity``: (3,) [m/s^2], default G_VEC.

    Returns a dict with
      ``K_el, M`` (N, N), ``f`` (N,) gravity loads, ``C`` (n_c, N) constraint rows,
      ``row_labels`` (n_c,) the joint of each row, ("A" | "B" | "D", leg),
      ``Z`` (N, dof) orthonormal null-space basis of C, ``elements``: list of dicts
      (leg, link, dofs (global indices), T, K_e, f_e (local gravity load), g_x, length),
      ``node``: function (leg, link, j) -> first global index of that node's block,
      ``platform``: first global index of the platform dofs, ``legs`` (leg_geometry),
      ``nd`` (dofs per node), ``n`` (elements per link), ``bodies``: first global index
      of each body node, ``gravity`` (3,).
    """
    if joint_b not in JOINTS or joint_d not in JOINTS:
        raise ValueError(f"joint types must be in {JOINTS}, got {joint_b!r}, {joint_d!r}")
    n = int(n_elements)
    if n < 1:
        raise ValueError("n_elements must be >= 1")
    el = BeamElement(spatial=True, order=order)
    nd = el.n_node_dofs                      # 6 (cubic) or 10 (quintic)
    legs = leg_geometry(X)
    n_nodes = n + 1                          # per link
    p0 = 3 * 2 * n_nodes * nd                # first platform dof
    links = ((SECTION, MATERIAL) if upper is None else tuple(upper),
             (SECTION, MATERIAL) if lower is None else tuple(lower))
    g_vec = G_VEC if gravity is None else np.asarray(gravity, dtype=float)
    body_list = [] if bodies is None else [
        (float(m), np.asarray(c, dtype=float), np.asarray(I, dtype=float))
        for m, c, I in bodies]
    body_nodes = [p0 + 6 * (1 + b) for b in range(len(body_list))]
    N = p0 + 6 * (1 + len(body_list))

    def node(i: int, k: int, j: int) -> int:
        """First global dof of node j (0..n) of link k (0 upper, 1 lower) of leg i."""
        return ((2 * i + k) * n_nodes + j) * nd

    K_el = np.zeros((N, N))
    M = np.zeros((N, N))
    f = np.zeros(N)
    elements = []
    for i, leg in enumerate(legs):
        for k, (R, Lk) in enumerate(((leg["R_u"], L1), (leg["R_l"], L2))):
            le = Lk / n
            T = _element_transform(R, nd)
            sec, mat = links[k]
            Ke = stiffness_matrix(el, le, sec, mat)
            Me = mass_matrix(el, le, sec, mat)
            g_loc = R.T @ g_vec
            fe = gravity_load(el, le, sec, mat, g_loc)
            for j in range(n):
                dofs = np.r_[node(i, k, j):node(i, k, j) + nd,
                             node(i, k, j + 1):node(i, k, j + 1) + nd]
                K_el[np.ix_(dofs, dofs)] += T.T @ Ke @ T
                M[np.ix_(dofs, dofs)] += T.T @ Me @ T
                f[dofs] += T.T @ fe
                elements.append(dict(leg=i, link=k, index=j, dofs=dofs, T=T, K_e=Ke,
                                     f_e=fe, g_x=float(g_loc[0]), length=le, R=R,
                                     rho_a=mat.rho * sec.area))
    if bodies is None:
        # Rigid disc platform at P = X (P is its centre of mass: weight without moment).
        M[p0:p0 + 3, p0:p0 + 3] += M_PLATFORM * np.eye(3)
        M[p0 + 3:p0 + 6, p0 + 3:p0 + 6] += platform_inertia()
        f[p0:p0 + 3] += M_PLATFORM * g_vec
    for b0, (mb, _, Ib) in zip(body_nodes, body_list):
        # Each body on its own node at its centre of mass: mass, inertia about it, weight.
        M[b0:b0 + 3, b0:b0 + 3] += mb * np.eye(3)
        M[b0 + 3:b0 + 6, b0 + 3:b0 + 6] += Ib
        f[b0:b0 + 3] += mb * g_vec

    # Constraint rows C z = 0.  Each row is given as {global dof: coefficient} and labelled
    # with the joint it belongs to: ("A" | "B" | "D", leg).
    rows, row_labels = [], []
    label = None

    def add_row(coefficients: dict):
        r = np.zeros(N)
        for idx, val in coefficients.items():
            r[idx] += val
        rows.append(r)
        row_labels.append(label)

    def add_rotation_rows(dofs_1: int, dofs_2: int, kind: str, axis_n: np.ndarray):
        """Rotation part of a joint between rotation triples at dofs_1 and dofs_2:
        clamped -> r_1 = r_2; universal -> (r_1 - r_2) . n = 0; spherical -> nothing."""
        if kind == "clamped":
            for c in range(3):
                add_row({dofs_1 + c: 1.0, dofs_2 + c: -1.0})
        elif kind == "universal":
            coefficients = {dofs_1 + c: axis_n[c] for c in range(3)}
            coefficients.update({dofs_2 + c: -axis_n[c] for c in range(3)})
            add_row(coefficients)

    P = np.asarray(X, dtype=float)
    for i, leg in enumerate(legs):
        a = node(i, 0, 0)       # upper link at A
        ub = node(i, 0, n)      # upper link at B
        lb = node(i, 1, 0)      # lower link at B
        d = node(i, 1, n)       # lower link at D
        y, zl = leg["y"], leg["R_l"][:, 2]
        # A_i: clamp the 6 world dofs of the upper link's first node.
        label = ("A", i)
        for c in range(6):
            add_row({a + c: 1.0})
        # B_i: equal translations; rotations by joint_b, universal axes y_i and z_l.
        label = ("B", i)
        for c in range(3):
            add_row({lb + c: 1.0, ub + c: -1.0})
        add_rotation_rows(lb + 3, ub + 3, joint_b, np.cross(y, zl))
        # D_i: t_d - dP - gP x r = 0, r = D_i - P, written with gP x r = -[r]x gP.
        label = ("D", i)
        S = _skew(leg["D"] - P)
        for c in range(3):
            coefficients = {d + c: 1.0, p0 + c: -1.0}
            coefficients.update({p0 + 3 + m: S[c, m] for m in range(3)})
            add_row(coefficients)
        # D_i: rotations by joint_d, universal axes z_l and y_i (fixed to the platform).
        add_rotation_rows(d + 3, p0 + 3, joint_d, np.cross(zl, y))
    # Bodies rigidly fixed to the platform: t_G = dP + gP x c = dP - [c]x gP, r_G = gP.
    label = ("P", None)
    for b0, (_, c, _) in zip(body_nodes, body_list):
        S = _skew(c)
        for k in range(3):
            coefficients = {b0 + k: 1.0, p0 + k: -1.0}
            coefficients.update({p0 + 3 + m: S[k, m] for m in range(3)})
            add_row(coefficients)
        for k in range(3):
            add_row({b0 + 3 + k: 1.0, p0 + 3 + k: -1.0})
    C = np.array(rows)
    Z = sla.null_space(C)
    return dict(K_el=K_el, M=M, f=f, C=C, row_labels=row_labels, Z=Z, elements=elements,
                node=node, platform=p0, legs=legs, nd=nd, n=n, element=el, N=N,
                bodies=body_nodes, gravity=g_vec)


# ---------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------
ZERO_TOL = 1e-9
"""Default threshold: an eigenvalue of (K_r, M_r) counts as zero below ZERO_TOL * max|lambda|.

Round-off puts the mechanism eigenvalues at <= ~4e-12 max|lambda| (spherical joints,
n = 1), while the lowest genuine eigenvalue is 1.4e-6 max|lambda| for n = 1 cubic but
2.5e-8 (n = 4 cubic), 3.3e-9 (n = 4 quintic) and below 1e-9 for n = 8 quintic, because
max|lambda| grows with the mesh.  Pass a smaller ``zero_tol`` for very fine meshes.
"""


def _element_end_forces(model: dict, u: np.ndarray) -> list[np.ndarray]:
    """Local nodal forces f = K_e u_e - f_grav,e of every element: the generalized forces
    the rest of the structure exerts on the element (element components)."""
    return [e["K_e"] @ (e["T"] @ u[e["dofs"]]) - e["f_e"] for e in model["elements"]]


def frame_delta(X, *, n_elements: int = 1, order: str = "cubic", joint_b: str = "universal",
                joint_d: str = "universal", preload: bool = True, count: int = 8,
                zero_tol: float = ZERO_TOL, upper=None, lower=None, bodies=None,
                gravity=None) -> dict:
    """Free vibration and gravity statics of the Delta robot frozen at pose X.

    ``upper``, ``lower``, ``bodies``, ``gravity``: see :func:`assemble`.

    Steps
    -----
    1. Assemble K_el, M, f (world components) and the joint constraints C; reduce to the
       null space Z of C: ``K_r = Z^T K Z``, ``M_r = Z^T M Z``, ``f_r = Z^T f``.
    2. Linear elastic statics ``K_el,r y = f_r``, ``u = Z y``.  If K_el,r is singular
       (mechanisms, e.g. spherical joints), the least-squares minimum-norm solution of
       ``scipy.linalg.lstsq`` is used instead: it is then NOT an equilibrium for the load
       component that does work on the mechanisms, and the forces below are only indicative.
    3. Element end forces ``f_e = K_e u_e - f_grav,e`` (local).  Axial force at the right
       node N_r = the u-component at node 2 (tension > 0); inside the element
       ``N(x) = N_r + rho A g_x (l - x)`` (x from the left node, g_x = gravity along the
       element axis), from the axial equilibrium of the segment [x, l].
    4. ``preload=True``: ``K = K_el + sum K_g`` with ``K_g = geometric_stiffness(el, l,
       {"poly": (N_r + rho A g_x l, -rho A g_x, 0)})``; otherwise ``K = K_el``.
    5. Frequencies from ``eigh(K_r, M_r)``; eigenvalues with |lambda| < 1e-9 max|lambda|
       (``zero_tol``, default 1e-9, see ZERO_TOL) are set to 0; a genuinely negative
       eigenvalue (instability under compression) gives NaN.  ``platform_static`` solves
       ``K_r y = f_r`` with that same K (NaN if K_r is singular by the same criterion).
       ``mechanisms`` counts the zero eigenvalues of (K_el,r, M_r) by the same criterion.

    Returns
    -------
    dict with
      ``omega_rad_s`` (count,), ``frequency_hz`` (count,), ``eigenvalues`` (dof,) of (K_r, M_r),
      ``dof`` (int), ``mechanisms`` (int, nullity of K_el,r),
      ``platform_static`` (6,) = (dP, gP) [m, rad] under gravity with K,
      ``axial_end_force`` (3, 2) [N]: N_r of the last element of the upper link (at B) and
      of the lower link (at D), from step 3 (always computed),
      ``end_wrench`` (3, 2, 6) [N, N m]: force and moment (world components) exerted on the
      far end (B for the upper, D for the lower link) of each link by the rest, step 3,
      ``reaction_A`` (3, 6) [N, N m]: force and moment exerted by the ground on each upper
      link at A (world), from step 2,
      ``elbow_angles_rad`` (3,), ``u_elastic`` (N,) the step-2 solution,
      ``K_g_links`` (2, N, N): world geometric stiffness of the upper links [0] and of the
      lower links [1] (zeros if ``preload=False``), ``model`` (the assemble() dict).
    """
    model = assemble(X, n_elements, order, joint_b, joint_d, upper=upper, lower=lower,
                     bodies=bodies, gravity=gravity)
    Z, K_el, M, f = model["Z"], model["K_el"], model["M"], model["f"]
    Kr_el, Mr, fr = Z.T @ K_el @ Z, Z.T @ M @ Z, Z.T @ f
    Kr_el, Mr = 0.5 * (Kr_el + Kr_el.T), 0.5 * (Mr + Mr.T)

    # Mechanisms: zero eigenvalues of the elastic pencil.
    lam_el = sla.eigh(Kr_el, Mr, eigvals_only=True)
    mechanisms = int(np.sum(np.abs(lam_el) < zero_tol * np.max(np.abs(lam_el))))

    # Step 2: elastic statics (minimum-norm least squares on a mechanism).
    if mechanisms == 0:
        y = sla.solve(Kr_el, fr, assume_a="sym")
    else:
        y = sla.lstsq(Kr_el, fr)[0]
    u = Z @ y

    # Step 3: element end forces, axial force polynomials.
    forces = _element_end_forces(model, u)
    nd, n = model["nd"], model["n"]
    axial_end = np.zeros((3, 2))
    end_wrench = np.zeros((3, 2, 6))
    reaction_A = np.zeros((3, 6))
    K_g_links = np.zeros((2,) + K_el.shape)
    for e, fe in zip(model["elements"], forces):
        N_r = fe[nd]                         # u-component of node 2 (tension > 0)
        if e["index"] == n - 1:              # last element of its link: the far end
            axial_end[e["leg"], e["link"]] = N_r
            end_wrench[e["leg"], e["link"]] = np.r_[e["R"] @ fe[nd:nd + 3],
                                                    e["R"] @ fe[nd + 3:nd + 6]]
        if e["index"] == 0 and e["link"] == 0:   # first upper element: the clamp at A
            reaction_A[e["leg"]] = np.r_[e["R"] @ fe[0:3], e["R"] @ fe[3:6]]
        if preload:
            l, gx, rA = e["length"], e["g_x"], e["rho_a"]
            Kg = geometric_stiffness(model["element"], l,
                                     {"poly": (N_r + rA * gx * l, -rA * gx, 0.0)})
            K_g_links[e["link"]][np.ix_(e["dofs"], e["dofs"])] += e["T"].T @ Kg @ e["T"]

    # Step 5: modal analysis and statics with K.
    K = K_el + K_g_links[0] + K_g_links[1]
    Kr = Z.T @ K @ Z
    Kr = 0.5 * (Kr + Kr.T)
    lam = sla.eigh(Kr, Mr, eigvals_only=True)
    scale = np.max(np.abs(lam))
    lam = np.where(np.abs(lam) < zero_tol * scale, 0.0, lam)
    with np.errstate(invalid="ignore"):
        omega = np.sqrt(np.where(lam >= 0.0, lam, np.nan))
    p0 = model["platform"]
    if np.any(lam == 0.0):
        platform_static = np.full(6, np.nan)
    else:
        platform_static = (Z @ sla.solve(Kr, fr, assume_a="sym"))[p0:p0 + 6]

    return {
        "omega_rad_s": omega[:count],
        "frequency_hz": omega[:count] / (2.0 * np.pi),
        "eigenvalues": lam,
        "dof": int(Z.shape[1]),
        "mechanisms": mechanisms,
        "platform_static": platform_static,
        "axial_end_force": axial_end,
        "end_wrench": end_wrench,
        "reaction_A": reaction_A,
        "elbow_angles_rad": np.array([leg["q"] for leg in model["legs"]]),
        "u_elastic": u,
        "K_g_links": K_g_links,
        "model": model,
    }


if __name__ == "__main__":  # pragma: no cover - quick look
    np.set_printoptions(precision=6, suppress=False, linewidth=120)
    for jd in ("universal", "clamped"):
        r = frame_delta((0.1, 0.0, 0.5), joint_d=jd)
        print(f"joint_d={jd}: dof={r['dof']} mechanisms={r['mechanisms']}")
        print("  f [Hz] =", r["frequency_hz"])
        print("  platform_static =", r["platform_static"])
        print("  axial_end_force =\n", r["axial_end_force"])
