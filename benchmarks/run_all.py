#!/usr/bin/env python3
"""Benchmarks of the foundations (issue 2). Prints a Markdown table for BENCHMARKS.md.

    python3 dev.py bench        (or: .venv/bin/python benchmarks/run_all.py)

Each figure is the median of several repeats (time.perf_counter). Ratios compare with a
baseline measured in the same run on the same machine:

- modes of a 200-element spatial clamped-free beam (1206 free dofs): assembly (sparse,
  vectorized) + the first 10 eigenpairs by sparse shift-invert (elastodyn's path), against
  the dense LAPACK eigh of the same matrices (subset of 10) as the baseline;
- element-matrix build rate (mass + stiffness of one element, cubic and quintic), with the
  cached reference shape tables, against a baseline that re-evaluates the shape
  polynomials at the Gauss points for every element (no cache);
- rigid Delta (issue 3), Asadi's preset at random workspace points: one evaluation of the
  explicit model (M, C Xd, G, J) by the scalar fast path, the torques from it, and Kuo's
  implicit multiplier procedure (lambda then tau) for the same torques, with their ratio
  (Asadi & Heydari measured their explicit model 105% slower than an implicit one); and
  the vectorised paths per sample over a 1000-sample batch;
- flexible Delta by KED (issue 4): a 360-point frequency map (n = 1), the five-period
  circle (n = 1 and n = 8 elements per link) and the inverted-U path by the fast batched
  Newmark, each against the reference path measured in the same run on a shorter window
  and scaled per step (one dense KEDEngine.system() per step with exact end forces,
  integrated by the library's generic newmark(); Kuo's eq. (44) evaluated as printed).
"""
from __future__ import annotations

import platform
import statistics
import time

import numpy as np
import scipy.linalg as sla

from elastodyn.analysis.modal import modal_analysis
from elastodyn.description import STEEL, Section
from elastodyn.fem import BeamElement, Link, mass_matrix, stiffness_matrix
from elastodyn.fem import elements as E
from elastodyn.fem.shapes import gauss_legendre_01, reference_basis


def call_times(f, ins, k=20000):
    """Seconds per evaluation of a compiled program ``f`` on inputs ``ins``: as a bound
    zero-allocation call (k calls) and as a plain call returning a dict (k / 10 calls)."""
    outs = [np.empty(sh) for sh in f.out_shapes.values()]
    call = f.bind(ins, outs)

    def bound():
        for _ in range(k):
            call()

    return (median_time(bound, 5) / k,
            median_time(lambda: [f(*ins) for _ in range(k // 10)], 5) / (k // 10))


def median_time(fn, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_modes():
    sec = Section.rectangle(5e-3, 5e-3)
    link = Link(BeamElement(True, "cubic"), 1.0, 200, sec, STEEL, ends="clamped-free")
    free = link.free_dofs()
    out = {}

    def assemble():
        return link.mass(), link.stiffness()

    out["assembly"] = median_time(assemble)
    M, K = assemble()
    out["eig_sparse"] = median_time(lambda: modal_analysis(M, K, count=10, free_dofs=free))
    Md, Kd = M.toarray()[np.ix_(free, free)], K.toarray()[np.ix_(free, free)]
    out["eig_dense"] = median_time(lambda: sla.eigh(Kd, Md, subset_by_index=[0, 9]), repeats=3)
    a = modal_analysis(M, K, count=10, free_dofs=free).omega_rad_s
    b = np.sqrt(sla.eigh(Kd, Md, eigvals_only=True, subset_by_index=[0, 9]))
    out["max_rel_diff"] = float(np.max(np.abs(a / b - 1)))
    out["dof"] = free.size
    return out


def _uncached_mass_stiffness(el, l, sec, mat):
    """Baseline: evaluate the shape polynomials afresh at the Gauss points."""
    x, w = gauss_legendre_01(E.N_GAUSS)
    w = w * l

    def shapes(name, deriv):
        idx, sgn, dord = el._placement[name]
        out = np.zeros((x.size, el.n_dofs))
        out[:, idx] = reference_basis(el.field_order(name), x, deriv) * sgn * l**dord / l**deriv
        return out

    M = sum(mat.rho * sec.area * (shapes(f, 0).T * w) @ shapes(f, 0) for f in ("u", "v", "w"))
    M = M + mat.rho * sec.ip * (shapes("phi", 0).T * w) @ shapes("phi", 0)
    K = (mat.E * sec.area * (shapes("u", 1).T * w) @ shapes("u", 1)
         + mat.E * sec.iz * (shapes("v", 2).T * w) @ shapes("v", 2)
         + mat.E * sec.iy * (shapes("w", 2).T * w) @ shapes("w", 2)
         + mat.G * sec.j * (shapes("phi", 1).T * w) @ shapes("phi", 1))
    return M, K


def bench_elements(n=2000):
    sec = Section.rectangle(5e-3, 5e-3)
    res = {}
    for order in ("cubic", "quintic"):
        el = BeamElement(True, order)
        lengths = np.linspace(0.01, 0.1, n)
        mass_matrix(el, 0.05, sec, STEEL)  # warm the cache
        t = median_time(lambda: [(mass_matrix(el, l, sec, STEEL), stiffness_matrix(el, l, sec, STEEL))
                                 for l in lengths], repeats=3)
        tb = median_time(lambda: [_uncached_mass_stiffness(el, l, sec, STEEL) for l in lengths],
                         repeats=3)
        Mb, Kb = _uncached_mass_stiffness(el, 0.05, sec, STEEL)
        assert np.allclose(Mb, mass_matrix(el, 0.05, sec, STEEL), rtol=1e-12, atol=0)
        assert np.allclose(Kb, stiffness_matrix(el, 0.05, sec, STEEL), rtol=1e-12, atol=1e-3)
        res[order] = (n / t, n / tb)
    return res


def bench_delta(n_points=200, repeats=5):
    from elastodyn.description.delta import delta_asadi2020
    from elastodyn.formulations import ExplicitDeltaEngine, MultiplierDeltaEngine

    robot = delta_asadi2020()
    ex, mu = ExplicitDeltaEngine(robot), MultiplierDeltaEngine(robot)
    rng = np.random.default_rng(1)
    pts = []
    while len(pts) < n_points:   # random reachable, well-conditioned points around z = 0.45 m
        X = rng.uniform([-0.25, -0.25, 0.35], [0.25, 0.25, 0.6])
        if ex.kinematics.is_reachable(X) and ex.kinematics.condition_number(X) < 50:
            pts.append((X.tolist(), rng.normal(size=3).tolist(), rng.normal(size=3).tolist()))
    for X, Xd, Xdd in pts:   # same torques from both procedures
        assert np.allclose(ex.torque_point(X, Xd, Xdd), mu.torque_point(X, Xd, Xdd), atol=1e-9)

    def per_call(fn):
        return median_time(lambda: [fn(*p) for p in pts], repeats) / len(pts)

    out = {"mcgj": per_call(lambda X, Xd, Xdd: ex._point.mhgj(X, Xd)),
           "mcgj_numpy": per_call(lambda X, Xd, Xdd: ex.point(X, Xd)),
           "tau_explicit": per_call(ex.torque_point),
           "tau_implicit": per_call(mu.torque_point)}
    Xs, Xds, Xdds = (np.array([p[k] for p in pts] * 5) for k in range(3))
    n = len(Xs)
    out["batch_explicit"] = median_time(lambda: ex.inverse_dynamics(Xs, Xds, Xdds), repeats) / n
    out["batch_implicit"] = median_time(lambda: mu.inverse_dynamics(Xs, Xds, Xdds), repeats) / n
    out["batch_mcgj"] = median_time(lambda: ex.matrices(Xs, Xds), repeats) / n
    out["batch_n"] = n
    return out


def bench_ked():
    import warnings

    from elastodyn.analysis.modes import frequency_map
    from elastodyn.description.files import load_description
    from elastodyn.formulations.ked.simulation import simulate_ked
    from elastodyn.formulations.registry import build_model
    from elastodyn.description.flexible_delta import flexible_delta_kuo2016
    from elastodyn.formulations.ked.engine import KEDEngine
    from elastodyn.integrators import newmark
    from elastodyn.trajectories import Circle, InvertedU

    warnings.simplefilter("ignore")
    robot = flexible_delta_kuo2016()
    out = {}
    # Kuo's KED (about the undeformed pose): the rows with targets (issue 4)
    m1 = KEDEngine(robot, elements=1, reference="undeformed")
    simulate_ked(m1, InvertedU.kuo2016(), duration=0.05)          # warm-up (imports)
    # the map verb's frequency map (every formulation's; KED's batched rest matrices)
    # over 360 poses of Kuo's circle
    spec = load_description("delta-kuo2016")
    circle = Circle.kuo2016()
    pts = circle.evaluate(circle.t_start + np.arange(360) / 360 * circle.period).position

    def circle_map(**opts):
        model = build_model(spec, "ked", elements=1, **opts)
        states = [model.state(pose=p) for p in pts]
        return lambda: frequency_map(model, states, count=8)
    out["map"] = median_time(circle_map(reference="undeformed"), 3)
    # about the deflected equilibrium (issue 15, the default): no target yet (issue 16)
    md = KEDEngine(robot, elements=1)
    out["map_deflected"] = median_time(circle_map(), 1)
    out["circle1_deflected"] = median_time(
        lambda: simulate_ked(md, Circle.kuo2016(), step=1e-3), 1)

    def reference_per_step(model, traj, steps=100, dt=1e-3):
        def system(t):
            smp = traj.evaluate(np.array([t]))
            s = model.system(model.motion(smp.position, smp.velocity, smp.acceleration), 0)
            return s.M, s.C, s.K, s.F
        q0 = model.static_deflection(traj.evaluate(0.0).position[0])
        t0 = time.perf_counter()
        newmark(system, q0, np.zeros(model.dof), t_end=steps * dt, dt=dt)
        return (time.perf_counter() - t0) / steps

    for name, n, traj in (("circle1", 1, Circle.kuo2016()), ("circle8", 8, Circle.kuo2016()),
                          ("invu1", 1, InvertedU.kuo2016())):
        m = m1 if n == 1 else KEDEngine(robot, elements=n, reference="undeformed")
        steps = 5000 if name.startswith("circle") else 800
        repeats = 3 if n == 1 else 1
        out[name] = median_time(lambda: simulate_ked(m, traj, step=1e-3), repeats)
        out[name + "_ref"] = reference_per_step(m, traj) * steps
        out[name + "_dof"] = m.dof
    return out


def bench_nepvp():
    """Five-bar PRRRP by NE-PVP (issue 5): symbolic generation, operator counts, one
    evaluation of the compiled model from Python, the bang-bang simulation."""
    import os
    import tempfile
    import warnings

    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.description.tree import prrrp_briot2013
    from elastodyn.formulations.nepvp.engine import NEPVPEngine
    from elastodyn.trajectories.bangbang import BangBang

    warnings.simplefilter("ignore")
    os.environ.setdefault("ELASTODYN_CACHE", tempfile.mkdtemp(prefix="elastodyn-bench-"))
    out = {}
    NEPVPEngine(prrrp_briot2013())                                  # warm-up (imports)
    for label, robot in (("linear", prrrp_briot2013().with_geometric_stiffening(False)),
                         ("stiffening", prrrp_briot2013())):
        t0 = time.perf_counter()
        m = NEPVPEngine(robot)
        progs = {p: m.program(p) for p in ("inverse", "direct", "model")}
        out[label + "_gen"] = time.perf_counter() - t0
        out[label + "_ops"] = {p: prog.ops() for p, prog in progs.items()}
    for n in (2, 4, 8):
        t0 = time.perf_counter()
        NEPVPEngine(prrrp_briot2013(elements=n)).program("inverse")
        out[f"gen{n}"] = time.perf_counter() - t0
    # one evaluation of the compiled inverse model from Python
    rng = np.random.default_rng(0)
    e = rng.normal(scale=1e-4, size=m.ne)
    q = m.closure([0.05, 0.1], e)
    ins = [np.ascontiguousarray(v, dtype=float) for v in
           (q, e, rng.normal(size=2), rng.normal(scale=1e-2, size=m.ne), rng.normal(size=2))]
    out["eval_bound"], out["eval_dict"] = call_times(m.compiled("inverse"), ins)
    # bang-bang of Briot section V, 0.75 s, one element per beam, static start
    traj = BangBang(np.zeros(2), np.array([0.1, 0.2]), t0=0.0, tf=0.75)
    simulate_motion(m, traj, end=0.01)                             # compile the driver
    out["sim"] = median_time(lambda: simulate_motion(m, traj), 5)
    out["sim_rhs"] = simulate_motion(m, traj).evaluations
    t0 = time.perf_counter()
    ref = simulate_motion(m, traj, method="dop853")
    out["sim_ref"] = time.perf_counter() - t0
    out["sim_ref_rhs"] = ref.evaluations
    for n in (2, 4):
        mn = NEPVPEngine(prrrp_briot2013(elements=n))
        simulate_motion(mn, traj, end=0.01)
        out[f"sim{n}"] = median_time(lambda: simulate_motion(mn, traj), 1)
    return out


def bench_amm():
    """Assumed-modes arm generator (issue 6): generation time and operator counts for N =
    1..10 links (2 sine modes, symbolic parameters, as Yu's tool), and one evaluation of
    the compiled 2-DOF model (arm-yu2019) from Python."""
    import os
    import tempfile
    from dataclasses import replace

    from elastodyn.description.arm import arm_yu2019
    from elastodyn.formulations.amm.generator import generate_amm
    from elastodyn.formulations.amm.engine import AMMEngine

    os.environ.setdefault("ELASTODYN_CACHE", tempfile.mkdtemp(prefix="elastodyn-bench-"))
    base = arm_yu2019()
    generate_amm(base)                                              # warm-up (imports)
    out = {"gen": {}}
    for n in range(1, 11):
        arm = replace(base, links=(base.links[0],) * n)
        t = median_time(lambda: generate_amm(arm, symbolic=True), 3 if n <= 5 else 1)
        prog, _ = generate_amm(arm, symbolic=True)
        out["gen"][n] = (t, prog.ops(), len(prog.assignments))
    m = AMMEngine(base)
    rng = np.random.default_rng(0)
    ins = [np.ascontiguousarray(v) for v in (rng.normal(scale=1e-2, size=6),
                                             rng.normal(size=6), rng.normal(size=2))]
    out["eval"], out["eval_dict"] = call_times(m.compiled, ins)
    out["ops2"] = m.program.ops()
    return out


def main():
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, numpy {np.__version__}")
    m = bench_modes()
    print("\n| 200-element spatial clamped-free beam | time | ratio to baseline |")
    print("|---|---|---|")
    print(f"| assembly of M and K ({m['dof']} free dofs) | {m['assembly'] * 1e3:.2f} ms | |")
    print(f"| first 10 eigenpairs, sparse shift-invert (elastodyn) | {m['eig_sparse'] * 1e3:.1f} ms "
          f"| {m['eig_dense'] / m['eig_sparse']:.1f}x faster |")
    print(f"| first 10 eigenpairs, dense LAPACK eigh (baseline) | {m['eig_dense'] * 1e3:.1f} ms | 1 |")
    print(f"| assembly + 10 eigenpairs (elastodyn) | {(m['assembly'] + m['eig_sparse']) * 1e3:.1f} ms | |")
    print(f"\nmax relative difference of the 10 frequencies, sparse vs dense: {m['max_rel_diff']:.1e}")
    e = bench_elements()
    print("\n| element mass + stiffness build rate | elastodyn | baseline (no shape cache) | ratio |")
    print("|---|---|---|---|")
    for order, (r, rb) in e.items():
        print(f"| spatial {order} | {r:,.0f} elements/s | {rb:,.0f} elements/s | {r / rb:.1f}x |")
    d = bench_delta()
    us = 1e6
    print("\n| rigid Delta (delta-asadi2020), per evaluation | time | ratio |")
    print("|---|---|---|")
    print(f"| explicit model M, C Xd, G, J (scalar fast path) | {d['mcgj'] * us:.1f} us | target < 20 us |")
    print(f"| same, returned as numpy arrays (`ExplicitDeltaEngine.point`) | {d['mcgj_numpy'] * us:.1f} us | |")
    print(f"| torques from the explicit model (M Xdd + C Xd + G, solve J^T) | {d['tau_explicit'] * us:.1f} us "
          f"| {d['tau_explicit'] / d['tau_implicit']:.2f} x implicit |")
    print(f"| torques by Kuo's implicit procedure (lambda, then tau; baseline) | {d['tau_implicit'] * us:.1f} us | 1 |")
    print(f"| explicit M, C, G, J, vectorised, per sample of {d['batch_n']} | {d['batch_mcgj'] * us:.2f} us | |")
    print(f"| explicit torques, vectorised, per sample | {d['batch_explicit'] * us:.2f} us "
          f"| {d['batch_explicit'] / d['batch_implicit']:.2f} x implicit |")
    print(f"| implicit (multiplier) torques, vectorised, per sample | {d['batch_implicit'] * us:.2f} us | 1 |")
    k = bench_ked()
    print("\n| flexible Delta (delta-kuo2016), KED | elastodyn | reference path (baseline) | ratio | target |")
    print("|---|---|---|---|---|")
    print(f"| frequency map, 360 poses, n = 1 ({k['circle1_dof']} dof) | {k['map']:.2f} s | | | < 1 s |")
    for name, label, target in (("circle1", "circle, 5 periods, n = 1, dt = 1 ms", "< 1 s"),
                                ("circle8", "circle, 5 periods, n = 8, dt = 1 ms", "< 10 s"),
                                ("invu1", "inverted-U 0.8 s, n = 1, dt = 1 ms", "")):
        print(f"| {label} ({k[name + '_dof']} dof) | {k[name]:.2f} s | {k[name + '_ref']:.1f} s "
              f"| {k[name + '_ref'] / k[name]:.0f}x faster | {target} |")
    print(f"| about the deflected equilibrium (the default): frequency map, 360 poses, n = 1 "
          f"| {k['map_deflected']:.1f} s | {k['map']:.2f} s (undeformed) "
          f"| {k['map_deflected'] / k['map']:.0f}x slower | |")
    print(f"| about the deflected equilibrium: circle, 5 periods, n = 1 "
          f"| {k['circle1_deflected']:.1f} s | {k['circle1']:.2f} s (undeformed) "
          f"| {k['circle1_deflected'] / k['circle1']:.0f}x slower | |")
    b = bench_nepvp()
    print("\n| five-bar PRRRP (prrrp-briot2013), NE-PVP, 1 element per beam | + and - "
          "| * and / | functions | Briot 2013 |")
    print("|---|---|---|---|---|")
    for label, name in (("linear", "linear strain (Briot's model)"),
                        ("stiffening", "with von Karman stiffening (default)")):
        for p, ops in b[label + "_ops"].items():
            ref = "521 / 611" if (label, p) == ("linear", "inverse") else ""
            print(f"| {p} problem, {name} | {ops.additions} | {ops.multiplications} "
                  f"| {ops.functions} | {ref} |")
    print("\n| five-bar PRRRP, NE-PVP | elastodyn | baseline / paper | ratio | target |")
    print("|---|---|---|---|---|")
    print(f"| symbolic generation, 1 element per beam, all problems | {b['stiffening_gen']:.2f} s "
          "| | | |")
    print(f"| symbolic generation, inverse, 2 / 4 / 8 elements per beam | {b['gen2']:.2f} / "
          f"{b['gen4']:.2f} / {b['gen8']:.2f} s | | | |")
    print(f"| one evaluation of the compiled inverse model, bound call | {b['eval_bound'] * us:.2f} us "
          f"| | | < 5 us |")
    print(f"| same, arrays in, dict of arrays out | {b['eval_dict'] * us:.1f} us | | | |")
    print(f"| bang-bang 0.75 s, compiled RK4 ({b['sim_rhs']} evaluations) | {b['sim'] * 1e3:.1f} ms "
          f"| {b['sim_ref']:.1f} s (Python DOP853, {b['sim_ref_rhs']} evaluations); Briot ~100 s "
          f"| {b['sim_ref'] / b['sim']:.0f}x faster; {100 / b['sim']:.0f}x Briot | < 0.1 s |")
    print(f"| same, 2 / 4 elements per beam | {b['sim2']:.2f} / {b['sim4']:.2f} s | | | |")
    a = bench_amm()
    yu = {1: 0.36, 2: 0.92, 3: 4.21, 4: 21.3, 5: 114.6}
    print("\n| assumed-modes arm, N links, 2 sine modes, symbolic parameters | generation "
          "| Yu 2019 (Mathematica) | ratio | + and - | * and / | functions | IVs |")
    print("|---|---|---|---|---|---|---|---|")
    for n, (t, ops, nv) in a["gen"].items():
        ref = f"{yu[n]} s" if n in yu else ""
        ratio = f"{yu[n] / t:.0f}x faster" if n in yu else ""
        print(f"| N = {n} | {t * 1e3:.0f} ms | {ref} | {ratio} | {ops.additions} "
              f"| {ops.multiplications} | {ops.functions} | {nv} |")
    o = a["ops2"]
    print(f"\narm-yu2019 (numeric parameters): {o.additions} +/-, {o.multiplications} */÷, "
          f"{o.functions} functions; one evaluation of the compiled model (M, H, N, F, B, c) "
          f"from Python: {a['eval'] * us:.2f} us bound, {a['eval_dict'] * us:.1f} us with "
          f"arrays in and a dict out")


if __name__ == "__main__":
    main()
