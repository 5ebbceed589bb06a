"""Exact sensitivities of the natural frequencies at a pose to description entries.

For the first ``count`` natural frequencies of a robot at a pose, actuators locked (the
linearization of :func:`~elastodyn.analysis.modes.modes`: K phi = lambda M phi,
lambda = omega^2), and description entries p_j named by their dotted keys (the keys of
``elastodyn describe ROBOT --set KEY=VALUE``: ``links.lower.section.width``,
``bodies.a1.beam.material.E`` ...), :func:`frequency_sensitivities` gives

* ``d_omega_d_p`` (count, n_keys): d omega_k / d p_j [rad/s per SI unit of p_j];
* ``d_f_d_p``: d f_k / d p_j = d omega_k / d p_j / (2 pi) [Hz per SI unit];
* ``relative_sensitivity_hz``: p_j d f_k / d p_j [Hz] (the change of f_k for a 100 %
  change of p_j, first order), which compares entries of different units;
* ``log_sensitivity``: (p_j / f_k) d f_k / d p_j [-] (d ln f / d ln p: 1/2 for Young's
  modulus when nothing but the stiffness depends on it, since f ~ sqrt(E)).

Eigenvalue derivatives
----------------------
For a simple eigenvalue with a mass-normalized eigenvector (phi^T M phi = 1),

    d lambda / d p = phi^T (K' - lambda M') phi                       (Fox & Kapoor 1968,
                                                                       AIAA J. 6(12), eq. 8)

and d omega / d p = (d lambda / d p) / (2 omega). For a repeated (or nearly repeated)
eigenvalue the eigenvectors are not unique and the derivatives are the eigenvalues of
the small symmetric matrix

    D = Phi_G^T (K' - lambda_G M') Phi_G,

Phi_G the mass-normalized eigenvectors of the cluster G, lambda_G its mean eigenvalue
(Mills-Curran 1988, AIAA J. 26(7); Seyranian, Lund & Olhoff 1994, Struct. Optim. 8):
the directional derivatives of the cluster's eigenvalues, in ascending order (for a
parameter increase; the derivative of an exactly repeated eigenvalue is one-sided). The
symmetric Delta has such pairs (its modes come in pairs at poses on the axis).

Cluster tolerance: eigenvalues lambda_k <= lambda_l are one cluster when
``lambda_l - lambda_k <= CLUSTER_RTOL * lambda_l`` (chained). Round-off splits an exactly
repeated eigenvalue by about eps lambda_max (:func:`~elastodyn.fem.modal.modal_analysis`),
1e-10 of the low eigenvalues of these models and far below 1e-6; a physical splitting
delta below 1e-6 lambda makes the simple-eigenvalue derivative valid only for relative
parameter changes below about delta / lambda (the eigenvectors turn within the pair as
soon as the change of K - lambda M is comparable to delta), which no design change is:
the cluster derivative describes every change above it. Clustered modes are flagged
(``cluster``: the index of each mode's cluster; a warning names them).

Exact dK/dp and dM/dp (complex step)
------------------------------------
The entry takes the value ``p + i h`` (h = :data:`~elastodyn.analysis.sensitivity.
COMPLEX_STEP` |p|, 1e-30 relative; h = 1e-30 for p = 0) and the model is built and
linearized in complex arithmetic: K' = Im K / h, M' = Im M / h to round-off, without
subtractive cancellation (Squire & Trapp 1998, SIAM Rev. 40(1); Martins, Sturdza &
Alonso 2003, ACM TOMS 29(3)), through the whole build (section properties, beam
matrices, invariants, the deflected reference and its tangent where the model has
one). The value is set after validation (the description's checks see its real part,
:func:`elastodyn._validate.complex_step`). The pose is held: for the Delta (KED) its
platform position X, the actuated angles following from the inverse kinematics of the
changed geometry (carried complex by the complex-safe atan2, hypot, norm, clip and wrap
of :mod:`elastodyn._validate`); for the tree robots (FFRF) the actuated coordinates,
the passive joints closing the loops of the changed geometry.

An entry is differentiated only where the build is known to carry the imaginary part:
:data:`DIFFERENTIABLE` lists, per formulation, the key patterns verified against finite
differences (tests/analysis/test_frequency_sensitivity.py); any other key is refused with an
InputError naming it and the allowed patterns. At run time a dropped imaginary part is
an error too: numpy's ComplexWarning is raised as an error, a float() of a complex value
raises, and when Im K and Im M come out zero the model is rebuilt with a real change of
the entry (relative 1e-6): if K or M changes, the imaginary part was dropped on the way
and the key is refused; if nothing changes, the entry does not enter the linearization
(e.g. a beam's density when its mass properties are given) and its derivatives are zero
(said in a warning). Never a silently wrong derivative.

Formulations: ``ffrf`` (3prr-rosyid2020, slider-crank-simeon) and ``ked`` (delta-kuo2016)
about either reference carry the materials, sections and masses listed in
:data:`DIFFERENTIABLE`; the KED also its geometry (link lengths, base and platform radii,
leg angles, the platform disc's thickness) and gravity. The KED's undeformed reference
(``options={"reference": "undeformed"}``) includes the preload of Kuo's linear
structure; its deflected reference (the default with preload,
:mod:`~elastodyn.formulations.ked.deflected`) is carried whole: the corotational
potential's gradient and Hessian are exact second-order jets
(:mod:`elastodyn.fem.jets`) whose components may be complex, so the complex step goes
through the potential, Newton's equilibrium (in complex arithmetic it converges to the
analytic continuation of the deflection, its imaginary part h d delta_s / dp; it
iterates until that part has converged too, :data:`~elastodyn.formulations.
ked_deflected.IMAG_RTOL`), the tangent K_T (which thus carries the derivative of the
deflection: dK_T/dp = d2V/ddelta dp + d3V/ddelta3 . d delta_s/dp), the mass about the
deflected links and the complex leg-block solves. With mechanism
freedoms (spherical joints) the KED's quasi-static link forces are a minimum-norm
least-squares solution, differentiated through the pseudo-inverse (Golub & Pereyra
1973; ``ked_delta._complex_step_min_norm``). The FFRF also carries the beams' lengths
(the joints on a beam stay where they are: a beam whose joint sits at its tip grows
past it, and the description refuses a shorter one, so that derivative is the one for
an increase) and the joints' offsets ``joints.*.d`` (MDH d; on a closed loop the
derivative is the one with the loop closed again at the held actuated coordinates: a
change made with ``--set`` also needs the matching assembled ``home``). The joints'
angles (gamma, alpha, theta) and the z offsets (b, r) of the FFRF, and the joints
(masses' places) of ``nepvp``/``amm`` are refused. ``nepvp`` and ``amm`` bake the description's
numbers into a generated symbolic program (Briot & Khalil 2013; Yu & Chen 2019),
normally compiled in double precision and cached by a hash of the description. Inside
the complex step they enter the program as complex sympy numbers, Float(re) + I
Float(im) (:func:`~elastodyn.symbolic.complex_eval.number`: the beams' inertia
integrals and stiffness, the rigid bodies, the platform, gravity, the arm's link
parameters), and the model evaluates its programs in Python complex arithmetic
(:class:`~elastodyn.symbolic.complex_eval.ComplexProgram`): never compiled, never looked
up in or written to the cache (``NEPVPEngine.complex``, ``AMMEngine.complex``; tested).
Non-analytic operations of the programs take their analytic continuations (Abs, sign
and the pivot comparisons of the closure's elimination by the real parts). A key costs
the generation of the program (no C compilation): about 0.6 s for prrrp-briot2013 and
0.2 s for arm-yu2019. ``nepvp`` carries the beams' materials, sections, given mass
properties and lengths (the joints stay at their abscissae: a joint at the tip is then
inside a longer beam, and the description refuses a shorter one, so that derivative is
the one for an increase; refused for an assumed-mode beam), the rigid bodies' and the
platform's mass, centre of mass and inertia, and gravity; the pose is the nominal state
(actuated and passive joints: none of these keys moves the loop closure; the joints'
offsets would, and are refused). ``amm`` carries the links' length, mass, E, I, hub
inertia, the lumped masses' mass and rotary inertia, the payload and gravity (the
positions ``mu``/``position`` are refused: they enter the mode values as a real
abscissa). Both also with the gravity preload: the static deflection's Newton iterates
in complex arithmetic until the imaginary part converged on its own scale too
(:meth:`~elastodyn.formulations.base.NonlinearModel.static_deflection`), and the
tangent by central differences (``NEPVPModel._tangent``) is differentiated exactly
as computed.
"""
from __future__ import annotations

import fnmatch
import math
import time
import warnings as _warnings

import numpy as np

from .._validate import complex_step
from ..exceptions import InputError
from ..model import require
from .modes import eigen_frequencies, rest_linearization
from .results import Result
from .sensitivity import COMPLEX_STEP

__all__ = ["DIFFERENTIABLE", "CLUSTER_RTOL", "FrequencySensitivityResult",
           "frequency_sensitivities", "sensitivity_point", "eigenvalue_derivatives",
           "differentiable_keys"]

CLUSTER_RTOL = 1e-6
"""Relative gap below which eigenvalues form one cluster (module docstring)."""

ZERO_CHECK_STEP = 1e-6
"""Relative real change of an entry whose complex step left K and M real: tells an
entry that does not enter the linearization from a dropped imaginary part."""

class _Differentiable(dict):
    """Formulation -> its registry entry's ``differentiable`` key patterns (read on
    access, so that a registered plugin's are there)."""

    def get(self, name, default=()):
        if dict.__contains__(self, name):          # set here (tests widen a list)
            return dict.__getitem__(self, name)
        from ..formulations.registry import lookup
        entry = lookup(name)
        return default if entry is None else tuple(entry.differentiable) or default

    def __getitem__(self, name):
        out = self.get(name, None)
        if out is None:
            raise KeyError(name)
        return out


DIFFERENTIABLE = _Differentiable()
"""Formulation -> the key patterns (``*``: one name) whose derivatives the complex step
carries exactly through the model's build: each formulation's
:attr:`~elastodyn.formulations.registry.Formulation.differentiable`, verified against
finite differences (the KED's for both references; nepvp and amm:
tests/analysis/test_frequency_sensitivity_symbolic.py)."""


def differentiable_keys(formulation: str) -> tuple:
    """The key patterns of :data:`DIFFERENTIABLE` for ``formulation`` (empty for a
    formulation that carries none)."""
    return DIFFERENTIABLE.get(formulation, ())


# ------------------------------------------------------------------ eigenvalue derivatives
def eigenvalue_derivatives(lam, Phi, dK, dM, *, rtol: float = CLUSTER_RTOL):
    """Derivatives of the eigenvalues lambda = omega^2 of K phi = lambda M phi.

    Parameters
    ----------
    lam : array (m,)
        Eigenvalues, ascending [rad^2/s^2].
    Phi : array (n, m)
        Their mass-normalized eigenvectors (Phi^T M Phi = I).
    dK, dM : array (n, n) or (n_p, n, n)
        dK/dp and dM/dp (symmetric), one pair per parameter.
    rtol : float
        Cluster tolerance (module docstring).

    Returns
    -------
    dlam : array (m, n_p)
        d lambda_k / d p_j (Fox & Kapoor for simple eigenvalues, the eigenvalues of
        Phi_G^T (K' - lambda_G M') Phi_G in ascending order over each cluster G).
    cluster : array (m,) of int
        The cluster of each eigenvalue (0, 1, ...; equal numbers: one cluster).
    """
    lam = np.asarray(lam, dtype=float)
    Phi = np.asarray(Phi, dtype=float)
    dK = np.asarray(dK, dtype=float)
    dM = np.asarray(dM, dtype=float)
    if dK.ndim == 2:
        dK, dM = dK[None], dM[None]
    m = len(lam)
    cluster = np.zeros(m, dtype=int)
    for k in range(1, m):
        same = lam[k] - lam[k - 1] <= rtol * abs(lam[k])
        cluster[k] = cluster[k - 1] + (0 if same else 1)
    out = np.zeros((m, dK.shape[0]))
    for c in np.unique(cluster):
        idx = np.flatnonzero(cluster == c)
        P = Phi[:, idx]
        lg = float(np.mean(lam[idx]))
        for j in range(dK.shape[0]):
            D = P.T @ (dK[j] - lg * dM[j]) @ P
            D = 0.5 * (D + D.T)
            # the cluster's derivative matrix (a small standard symmetric problem)
            out[idx, j] = np.linalg.eigvalsh(D) if len(idx) > 1 else D[0, 0]
    return out, cluster


# ------------------------------------------------------------------ keys and specs
def _parts(key: str) -> list:
    if not isinstance(key, str) or not key.strip():
        raise InputError("keys", key, "dotted keys of description entries, e.g. "
                         "links.lower.section.width")
    parts = []
    for p in key.strip().split("."):
        if not p:
            raise InputError("keys", key, "a dotted key such as links.lower.section.width")
        parts.append(int(p) if p.isdigit() else p)
    return parts


def _get(node, parts, key):
    for p in parts:
        try:
            if isinstance(node, (tuple, list)):
                node = node[p]
            elif isinstance(node, dict):
                node = node[p]
            else:
                if isinstance(p, int) or p not in getattr(type(node), "model_fields", {}):
                    raise KeyError(p)
                node = getattr(node, p)
        except (KeyError, IndexError, TypeError):
            raise InputError("keys", key, "the key of an entry of this description "
                             "(elastodyn describe ROBOT lists them; an absent entry, "
                             "e.g. a payload, is added first with apply_sets, "
                             "payload.mass=0)") from None
        if node is None:
            raise InputError("keys", key, "an entry present in this description (add it "
                             "first with apply_sets, e.g. payload.mass=0)")
    return node


def _with_value(node, parts, value):
    """A copy of ``node`` (a spec, tuple or dict) with the entry at ``parts`` replaced by
    ``value``, without validation (a complex value passes)."""
    p = parts[0]
    if isinstance(node, tuple):
        items = list(node)
        items[p] = value if len(parts) == 1 else _with_value(node[p], parts[1:], value)
        return tuple(items)
    if isinstance(node, dict):
        out = dict(node)
        out[p] = value if len(parts) == 1 else _with_value(node[p], parts[1:], value)
        return out
    new = value if len(parts) == 1 else _with_value(getattr(node, p), parts[1:], value)
    return node.model_copy(update={p: new})


def _load(spec):
    from ..description.convert import family_of
    from ..description.files import load_description
    if isinstance(spec, str):
        return load_description(spec)
    family_of(spec)                    # an InputError for what is not a description
    if not hasattr(spec, "model_copy"):
        from ..description.convert import to_spec
        return to_spec(spec)
    return spec


def _allowed_text(formulation):
    pats = differentiable_keys(formulation)
    if not pats:
        return f"none for the {formulation} formulation"
    return f"for {formulation}: " + ", ".join(pats)


# ------------------------------------------------------------------ the analysis
class FrequencySensitivityResult(Result):
    """Frequency sensitivities at a pose (:func:`frequency_sensitivities`)."""

    def figures(self) -> dict:
        from ..plot.figure import finish, new_figure
        q = self.quantities
        S = np.asarray(q["log_sensitivity"], dtype=float)
        keys = q["keys"]
        fig, axes = new_figure(1, height=1.0 + 0.35 * len(keys) * S.shape[0] / 4)
        ax = axes[0]
        m, nk = S.shape
        width = 0.8 / m
        y = np.arange(nk)
        for k in range(m):
            ax.barh(y + (k - (m - 1) / 2) * width, S[k], height=width,
                    label=f"mode {k + 1} ({q['frequencies_hz'][k]:.4g} Hz)")
        ax.set_yticks(y)
        ax.set_yticklabels(keys, fontsize=7)
        ax.invert_yaxis()           # the entries in the given order, mode 1 on top
        ax.axvline(0.0, color="k", lw=0.6)
        ax.set_title(self.title, fontsize=9)
        return {"frequency_sensitivity": finish(fig, axes, xlabel="(p / f) df/dp [-]",
                                                ncol=1)}


def _resolve_state(model, state):
    if state is None:
        try:
            return model.state()
        except InputError:
            raise InputError("state", None, "a pose for this robot: a State, or "
                             "{'pose': (X, Y, Z)} / {'actuated': (q1, ...)}") from None
    if isinstance(state, dict):
        if set(state) - {"pose", "actuated"} or len(state) != 1:
            raise InputError("state", state, "{'pose': (...)} or {'actuated': (...)}")
        return model.state(**{k: np.asarray(v, dtype=float) for k, v in state.items()})
    return state


def frequency_sensitivities(spec, keys, *, formulation: str | None = None,
                            options: dict | None = None, state=None,
                            count: int | None = None,
                            preload: bool | None = None, rtol: float = CLUSTER_RTOL,
                            robot: str | None = None) -> FrequencySensitivityResult:
    """Exact derivatives of the first ``count`` natural frequencies at a pose with respect
    to description entries (module docstring).

    Parameters
    ----------
    spec : spec, description dataclass, or str
        The robot: a validated spec (``load_description``), a description dataclass, or
        a preset name / YAML path.
    keys : sequence of str
        Dotted keys of numeric entries (``elastodyn describe ROBOT``), among the
        patterns :data:`DIFFERENTIABLE` gives for the formulation.
    formulation : str, optional
        The formulation (default: the robot's).
    options : dict, optional
        Model options (``elements``, ``reference`` ...: ``build_model``'s).
    state : State or dict, optional
        The pose: a State of the nominal model, ``{"pose": (X, Y, Z)}`` or
        ``{"actuated": (...)}`` (default: the model's home; a Delta needs one). Held
        fixed for every parameter.
    count : int, optional
        Number of modes, 1 <= count <= elastic dof (default 8, or all when fewer).
    preload : bool, optional
        As :func:`~elastodyn.analysis.modes.modes` (default: the formulation's).
    rtol : float
        Cluster tolerance of (nearly) repeated eigenvalues, in [0, 1e-2].

    Returns
    -------
    FrequencySensitivityResult
        ``mode`` (count,), ``omega_rad_s``, ``frequencies_hz`` (count,), ``keys``
        (n_keys,), ``nominal_values`` (n_keys,) [SI], ``d_omega_d_p``, ``d_f_d_p``,
        ``relative_sensitivity_hz``, ``log_sensitivity`` (count, n_keys) (module
        docstring; NaN for a zero-frequency mode), ``cluster`` (count,) int.

    Raises
    ------
    InputError
        A key that is not an entry, not numeric, or not carried exactly by the
        formulation (:data:`DIFFERENTIABLE`); a rigid formulation; a bad count.
    """
    from ..formulations.registry import build_model, formulation_for
    t0 = time.perf_counter()
    spec = _load(spec)
    form = formulation_for(spec, formulation)
    if form.rigid:
        raise InputError("--formulation", form.name, "a formulation with flexible links "
                         "(natural frequencies)")
    opts = dict(options or {})
    if isinstance(keys, str):
        keys = [keys]
    keys = [str(k).strip() for k in keys]
    if not keys or len(set(keys)) != len(keys):
        raise InputError("keys", keys, "one or more distinct dotted keys")
    if not (isinstance(rtol, (int, float)) and 0 <= rtol <= 1e-2):
        raise InputError("rtol", rtol, "a cluster tolerance in [0, 0.01]")
    values = []
    for key in keys:
        parts = _parts(key)
        v = _get(spec, parts, key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError("keys", key, "a numeric entry (a number; not a name, type, "
                             f"switch or list: got {v!r})")
        if not any(fnmatch.fnmatchcase(key, p) for p in differentiable_keys(form.name)):
            raise InputError("keys", key, "an entry differentiated exactly: "
                             + _allowed_text(form.name))
        values.append(float(v))

    model = build_model(spec, form.name, **opts)
    require(model, "linearize", what="frequency sensitivities")
    st = _resolve_state(model, state)
    ref, lin0, use_preload = rest_linearization(model, st, preload)
    n = lin0.n
    if n == 0:
        raise InputError("--formulation", form.name, "a model with elastic coordinates")
    count = min(n, 8) if count is None else count
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or \
            not 1 <= count <= n:
        raise InputError("count", count, f"an integer in [1, {n}]")
    om, _, Phi = eigen_frequencies(lin0, count, moving=False)   # as modes(): Phi^T M Phi = I
    om = np.asarray(om, dtype=float)
    lam = om ** 2
    Phi = np.asarray(Phi, dtype=float)

    def linearized(p_spec):
        m = build_model(p_spec, form.name, **opts)
        # the pose held: KED, the platform position of st (its linearization takes the
        # actuated angles from the inverse kinematics of m); FFRF, the actuated
        # coordinates of st, the loops closed again by m (a changed beam length moves
        # its markers)
        s_p = m.at(st)
        return rest_linearization(m, s_p, use_preload)[1]

    dKs, dMs, notes = [], [], []
    for key, v in zip(keys, values):
        parts = _parts(key)
        h = COMPLEX_STEP * abs(v) if v != 0.0 else COMPLEX_STEP
        try:
            with _warnings.catch_warnings():
                _warnings.simplefilter("error", np.exceptions.ComplexWarning)
                with complex_step():
                    lin = linearized(_with_value(spec, parts, complex(v, h)))
        except (TypeError, np.exceptions.ComplexWarning) as exc:
            raise InputError("keys", key, "an entry the complex step carries through the "
                             f"{form.name} build (here: {type(exc).__name__}: {exc}); "
                             + _allowed_text(form.name)) from None
        dK = np.imag(lin.K) / h
        dM = np.imag(lin.M) / h
        dK = 0.5 * (dK + dK.T)
        dM = 0.5 * (dM + dM.T)
        sK = np.abs(lin0.K).max()
        sM = np.abs(lin0.M).max()
        scale = abs(v) if v != 0.0 else 1.0
        if np.abs(dK).max() * scale <= 1e-13 * sK and np.abs(dM).max() * scale <= 1e-13 * sM:
            d = ZERO_CHECK_STEP * scale
            try:
                lr = linearized(_with_value(spec, parts, v + d))
            except InputError as exc:   # e.g. a joint offset that disassembles the home
                raise InputError("keys", key, "an entry whose zero derivative can be "
                                 "confirmed (its complex step left K and M real, and the "
                                 f"model with a real change of it is refused: {exc}); "
                                 "try another pose") from None
            if (np.abs(lr.K - lin0.K).max() > 1e-10 * sK
                    or np.abs(lr.M - lin0.M).max() > 1e-10 * sM):
                raise InputError("keys", key, f"an entry the complex step carries through "
                                 f"the {form.name} build (its imaginary part was dropped: "
                                 "K or M change with it but came out real); "
                                 + _allowed_text(form.name))
            dK = np.zeros_like(dK)
            dM = np.zeros_like(dM)
            notes.append(key)
        dKs.append(dK)
        dMs.append(dM)
    dlam, cluster = eigenvalue_derivatives(lam, Phi, np.array(dKs), np.array(dMs),
                                           rtol=rtol)
    with np.errstate(divide="ignore", invalid="ignore"):
        dom = np.where(om[:, None] > 0, dlam / (2.0 * om[:, None]), np.nan)
    df = dom / (2 * math.pi)
    f = om / (2 * math.pi)
    p = np.asarray(values)
    rel = df * p[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(f[:, None] > 0, rel / f[:, None], np.nan)

    q = {"mode": np.arange(1, count + 1), "omega_rad_s": om, "frequencies_hz": f,
         "keys": list(keys), "nominal_values": p, "d_omega_d_p": dom, "d_f_d_p": df,
         "relative_sensitivity_hz": rel, "log_sensitivity": logs,
         "cluster": cluster, "dof": int(n)}
    cols = {name: [f"{prefix}_{k}{suffix}" for k in keys] for name, prefix, suffix in (
        ("d_omega_d_p", "domega_d", "_rad_s_per_si"), ("d_f_d_p", "df_d", "_hz_per_si"),
        ("relative_sensitivity_hz", "p_df_d", "_hz"), ("log_sensitivity", "dlnf_dln",
                                                       ""))}
    warns = []
    groups = [np.flatnonzero(cluster == c) + 1 for c in np.unique(cluster)]
    rep = [g for g in groups if len(g) > 1]
    if rep:
        warns.append("repeated frequencies (relative gap <= %g): modes " % rtol
                     + "; ".join(", ".join(map(str, g)) for g in rep)
                     + ": their derivatives are the eigenvalues of Phi_G^T (K' - lambda "
                       "M') Phi_G over each cluster, ascending (one-sided, for an "
                       "increase of the entry)")
    if np.any(om == 0.0):
        warns.append("zero-frequency modes (mechanisms): " + ", ".join(
            str(k + 1) for k in np.flatnonzero(om == 0.0)) + ": derivatives NaN")
    if notes:
        warns.append("do not enter the linearization (zero derivatives): "
                     + ", ".join(notes))
    name = robot or getattr(spec, "name", "robot")
    where = (f"at {np.round(ref.pose, 6).tolist()} m" if ref.pose is not None
             else f"at actuated {np.round(np.real(ref.actuated), 6).tolist()}")
    title = (f"{name}: frequency sensitivities ({form.name}, actuators locked, {where}"
             + (", preload" if use_preload else "") + f"; {n} dof)")
    inputs = {"keys": list(keys), "count": count, "preload": use_preload,
              "cluster_rtol": rtol, "complex_step": COMPLEX_STEP}
    if st.pose is not None:
        inputs["position_m"] = np.asarray(st.pose, dtype=float).tolist()
    inputs["actuated"] = np.asarray(st.actuated, dtype=float).tolist()
    summary = {"frequencies_hz": f.tolist(),
               "log_sensitivity": {k: logs[:, j].tolist() for j, k in enumerate(keys)}}
    return FrequencySensitivityResult(command="frequency-sensitivity", robot=name,
                                      formulation=form.name, model=dict(model.options),
                                      inputs=inputs, quantities=q, summary=summary,
                                      warnings=tuple(warns),
                                      run={"wall_time_s": time.perf_counter() - t0},
                                      columns=cols, index="mode", stem="frequency_sensitivity",
                                      title=title)


def sensitivity_point(spec, keys, **kwargs) -> dict:
    """The sensitivities of one design point as plain arrays (for ``sweep``).

    Parameters
    ----------
    spec, keys, **kwargs
        As :func:`frequency_sensitivities` (``formulation``, ``options``, ``state``,
        ``count``, ``preload``, ``rtol``).

    Returns
    -------
    dict
        ``keys`` (tuple of str, n_keys), ``frequencies_hz`` (count,) [Hz],
        ``omega_rad_s`` (count,) [rad/s], ``d_f_d_p`` (count, n_keys) [Hz per SI unit],
        ``d_omega_d_p`` (count, n_keys) [rad/s per SI unit], ``relative_sensitivity_hz``
        (count, n_keys) [Hz], ``log_sensitivity`` (count, n_keys) [-], ``cluster``
        (count,) int, ``warnings`` (tuple of str). Float arrays, NaN for a zero-frequency
        mode.
    """
    r = frequency_sensitivities(spec, keys, **kwargs)
    q = r.quantities
    out = {"keys": tuple(q["keys"]), "warnings": tuple(r.warnings)}
    for k in ("frequencies_hz", "omega_rad_s", "d_f_d_p", "d_omega_d_p",
              "relative_sensitivity_hz", "log_sensitivity"):
        out[k] = np.asarray(q[k], dtype=float)
    out["cluster"] = np.asarray(q["cluster"], dtype=int)
    return out
