"""The compiled NE-PVP driver's generalized-alpha method and the cache of the compiled
model (:mod:`elastodyn.formulations.nepvp.driver`).

Independent checks: the driver's explicit RK4 (fourth order, a different scheme on the
same generated model), the Python path (scipy's DOP853 on the generated inverse
problem, adaptive), and a step-halving study against a converged RK4 reference.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from elastodyn.formulations.nepvp.simulation import simulate_motion
from elastodyn.description.tree import prrrp_briot2013, slider_crank_simeon
from elastodyn.exceptions import InputError
from elastodyn.formulations.nepvp import symbolic as nepvp_symbolic
from elastodyn.formulations.nepvp.driver import MotionDriver, driver_key
from elastodyn.formulations.nepvp.engine import NEPVPEngine
from elastodyn.trajectories.bangbang import BangBang


@pytest.fixture(scope="module")
def five_bar(tmp_path_factory):
    return NEPVPEngine(prrrp_briot2013(1))


def _bang_bang():
    return BangBang.briot2013()


def test_galpha_equals_rk4_and_dop853_on_the_bang_bang(five_bar):
    """Briot's bang-bang to 0.5 s (one switch at 0.375 s inside), 1 element per beam.
    generalized-alpha at 2.5e-5 s against the compiled RK4 (default step 1e-4 s, its
    error ~1e-5 of the peaks) and DOP853 (rtol 1e-9): measured differences 3.4e-4 of
    the peak elastic coordinate and 3.6e-3 of the peak platform deviation (flexible -
    rigid, 2.3e-5 m) on the full second, the second-order error of the implicit scheme
    at that step (next test); asserted 1e-3 and 1e-2. The actuator efforts differ by
    less than 1e-4 of their peak (asserted 1e-3)."""
    traj = _bang_bang()
    kw = dict(end=0.5, step=1e-3)
    g = simulate_motion(five_bar, traj, method="generalized-alpha", max_step=2.5e-5, **kw)
    assert g.method == "generalized-alpha"
    for ref in (simulate_motion(five_bar, traj, method="rk4", **kw),
                simulate_motion(five_bar, traj, method="dop853", **kw)):
        np.testing.assert_array_equal(g.time, ref.time)
        emax = np.abs(ref.e).max()
        assert np.abs(g.e - ref.e).max() < 1e-3 * emax
        dev = np.abs(ref.ee_position - ref.rigid_ee_position).max()
        assert dev > 1e-6
        assert np.abs(g.ee_position - ref.ee_position).max() < 1e-2 * dev
        assert np.abs(g.tau - ref.tau).max() < 1e-3 * np.abs(ref.tau).max()
        np.testing.assert_allclose(g.rigid_tau, ref.rigid_tau, rtol=0,
                                   atol=1e-12 * np.abs(ref.rigid_tau).max())


def test_galpha_converges_at_second_order(five_bar):
    """Halving the step from 1e-4 s: the error of the elastic coordinates against RK4 at
    5e-6 s (fourth order, its own error ~1e-9 of the peak, negligible) drops by 4
    (measured 4.0 and 4.0: the restarts at the switch times keep the order); asserted
    ratios in [3.3, 4.8]."""
    traj = _bang_bang()
    kw = dict(end=1.0, step=1e-3)
    ref = simulate_motion(five_bar, traj, method="rk4", max_step=5e-6, **kw)
    errs = [np.abs(simulate_motion(five_bar, traj, method="generalized-alpha", max_step=h,
                                   **kw).e - ref.e).max() for h in (1e-4, 5e-5, 2.5e-5)]
    ratios = [errs[0] / errs[1], errs[1] / errs[2]]
    assert all(3.3 < r < 4.8 for r in ratios), (errs, ratios)


def test_auto_picks_rk4_on_coarse_meshes_and_galpha_on_fine(five_bar):
    """auto: rk4 where its stable step 1 / omega_max (1.1e-3 s at 1 element) is not
    below the generalized-alpha step, generalized-alpha otherwise (2 elements:
    omega_max 4.3e4 rad/s, 2.3e-5 s)."""
    traj = _bang_bang()
    assert simulate_motion(five_bar, traj, end=0.01).method == "rk4"
    fine = NEPVPEngine(prrrp_briot2013(2))
    assert simulate_motion(fine, traj, end=0.01).method == "generalized-alpha"


def test_galpha_slider_crank_equals_rk4():
    """Another tree robot (one loop, a revolute actuator, one elastic beam whose axial
    mode, omega 1.8e4 rad/s, the bang-bang excites): the crank turns by 0.5 rad in 0.2 s,
    0.25 s simulated. Against RK4 at 2e-6 s (converged), generalized-alpha differs by
    5.3e-2, 1.4e-2 and 3.7e-3 of the peak elastic coordinate at 4e-5, 2e-5 and 1e-5 s
    (measured; second order); asserted 1e-2 at 1e-5 s and a drop of at least 3x per
    halving. (auto picks rk4 here: its stable step 5.4e-5 s is not below 5e-5 s.)"""
    m = NEPVPEngine(slider_crank_simeon())
    traj = BangBang(np.zeros(m.na), np.full(m.na, 0.5), t0=0.0, tf=0.2)
    kw = dict(end=0.25, step=1e-3)
    r = simulate_motion(m, traj, method="rk4", max_step=2e-6, **kw)
    peak = np.abs(r.e).max()
    errs = [np.abs(simulate_motion(m, traj, method="generalized-alpha", max_step=h,
                                   **kw).e - r.e).max() / peak for h in (2e-5, 1e-5)]
    assert errs[1] < 1e-2 and errs[0] > 3 * errs[1], errs
    assert simulate_motion(m, traj, **kw).method == "rk4"


def test_bad_rho_inf_is_refused(five_bar):
    with pytest.raises(InputError):
        simulate_motion(five_bar, _bang_bang(), end=0.01, method="generalized-alpha",
                        rho_inf=1.5)


def _records(folder):
    return sorted(folder.glob("elastodyn_nepvp_*.json"))


def test_cache_hit_generates_nothing_and_gives_identical_results(tmp_path, monkeypatch):
    """A second model of the same robot (as a second process would) loads the cached
    library with its metadata: the symbolic generator, the model's symbols and the
    printer are never made (replaced by functions that fail; the engine imports them
    where it generates), and the results are bit-identical."""
    monkeypatch.setenv("ELASTODYN_CACHE", str(tmp_path))
    traj = _bang_bang()
    first = NEPVPEngine(prrrp_briot2013(1))
    a = simulate_motion(first, traj, end=0.2, method="generalized-alpha")
    assert not first.driver().cache_hit
    assert len(_records(tmp_path)) == 1

    def fail(*args, **kwargs):
        raise AssertionError("the model was generated again")
    monkeypatch.setattr(nepvp_symbolic, "generate_nepvp", fail)
    monkeypatch.setattr(nepvp_symbolic, "NEPVPSymbols", fail)
    monkeypatch.setattr(MotionDriver, "_generate", staticmethod(fail))
    second = NEPVPEngine(prrrp_briot2013(1))
    b = simulate_motion(second, traj, end=0.2, method="generalized-alpha")
    assert second.driver().cache_hit
    assert second._full is None
    for k in ("e", "ed", "tau", "ee_position", "rigid_tau", "q"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
    # another mesh is another entry
    assert driver_key(prrrp_briot2013(2)) != driver_key(prrrp_briot2013(1))


@pytest.mark.parametrize("damage", ["library", "record-key", "record-json"])
def test_a_corrupted_or_mismatched_entry_is_rebuilt(tmp_path, monkeypatch, damage):
    """A library whose bytes no longer match the recorded SHA-256, a record naming
    another key, or a record that is not JSON: the entry is regenerated and rebuilt (the
    generator runs again), never loaded, and the results equal the first run's."""
    monkeypatch.setenv("ELASTODYN_CACHE", str(tmp_path))
    traj = _bang_bang()
    a = simulate_motion(NEPVPEngine(prrrp_briot2013(1)), traj, end=0.05, method="rk4")
    rec, = _records(tmp_path)
    lib = rec.with_suffix(".so")
    if damage == "library":
        # a new file (renamed over the entry), as a damaged copy would arrive: the
        # library this process has loaded stays mapped, untouched
        data = bytearray(lib.read_bytes())
        data[len(data) // 2] ^= 0xFF
        tmp = tmp_path / "damaged.tmp"
        tmp.write_bytes(bytes(data))
        os.replace(tmp, lib)
    elif damage == "record-key":
        doc = json.loads(rec.read_text())
        doc["key"] = "0" * 64
        rec.write_text(json.dumps(doc))
    else:
        rec.write_text("{not json")
    calls = []
    real = MotionDriver._generate

    def counted(model):
        calls.append(1)
        return real(model)
    monkeypatch.setattr(MotionDriver, "_generate", staticmethod(counted))
    m = NEPVPEngine(prrrp_briot2013(1))
    b = simulate_motion(m, traj, end=0.05, method="rk4")
    assert calls == [1] and not m.driver().cache_hit
    np.testing.assert_array_equal(a.e, b.e)
    doc = json.loads(rec.read_text())
    assert doc["key"] == driver_key(prrrp_briot2013(1))


def test_cache_folder_is_private(tmp_path, monkeypatch):
    """The cache folder is created with mode 0700 (a library loaded from it runs as the
    user's code)."""
    folder = tmp_path / "new" / "cache"
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    NEPVPEngine(prrrp_briot2013(1)).driver()
    assert folder.stat().st_mode & 0o777 == 0o700
    assert math.isfinite(len(_records(folder)))


def test_cli_method_and_integrator_step(capsys):
    """``simulate --method generalized-alpha --integrator-step H`` reaches the compiled
    driver with that step: the CLI's elastic coordinates equal the library's at the same
    step (same code path, 1e-14), the step is honoured (a different step gives a
    different answer) and the method is echoed in the inputs; ``--integrator-step`` is
    refused by an engine without a step bound (KED, exit 2)."""
    from elastodyn.cli import main
    argv = ["simulate", "prrrp-briot2013", "--trajectory", "bang-bang", "--motion-time",
            "0.1", "--to", "0.01", "0.02", "--duration", "0.12", "--json",
            "--method", "generalized-alpha", "--integrator-step", "2e-4"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"]["method"] == "generalized-alpha"
    model = NEPVPEngine(prrrp_briot2013(1))
    traj = BangBang([0, 0], [0.01, 0.02], t0=0.0, tf=0.1)
    sim = simulate_motion(model, traj, end=0.12, method="generalized-alpha", max_step=2e-4)
    np.testing.assert_allclose(doc["elastic"], sim.e, rtol=0, atol=1e-14)
    other = simulate_motion(model, traj, end=0.12, method="generalized-alpha",
                            max_step=1e-4)
    assert np.abs(other.e - sim.e).max() > 1e-9
    # an engine without a step bound refuses it (KED: its Newmark step is --step)
    assert main(["simulate", "delta-kuo2016", "--duration", "0.01",
                 "--integrator-step", "1e-4"]) == 2
    assert "--integrator-step" in capsys.readouterr().err


@pytest.fixture(scope="module")
def five_bar_2():
    return NEPVPEngine(prrrp_briot2013(2))


def test_galpha_equals_the_python_scheme_converged_tightly(five_bar_2):
    """The compiled generalized-alpha (modified Newton, iteration matrix by an envelope
    Cholesky in a reordering, residual by the structural nonzeros of M_ee) against the
    Python scheme of :func:`~elastodyn.integrators.nonlinear.generalized_alpha_nonlinear`
    on the same residual written here from the model (M, c of the compiled ``model``
    program, dense products) with the same step, converged to atol 1e-14, rtol 1e-12: the
    two differ by the compiled run's Newton tolerance only (atol 1e-9 per step on
    beta' |de_dd|). 2 elements per beam (the envelope has a band and a border), the
    first 0.1 s of the bang-bang (constant acceleration: no restart), 4000 steps.
    Measured: 1.7e-11 on e (peak 2.2e-3), asserted 5e-7 (the driver with the dense LU
    and the constant predictor z_n gave 5.8e-8: the envelope Cholesky changes
    round-off only, the extrapolating predictor lets the iterations end nearer the
    solution); 1.0 iterations per step (1.47 with the constant predictor; asserted
    <= 1.2), one factorization per step (no stall).
    Decision recorded here: keeping S across steps (refreshed on stall only) took this
    difference to 3.3e-5 (the last-correction test stops early when the contraction
    is slow), so S is refreshed at every step."""
    from elastodyn.integrators.nonlinear import NonlinearProblem, generalized_alpha_nonlinear
    m = five_bar_2
    traj = _bang_bang()
    na, ne = m.na, m.ne
    K = np.asarray(m.stiffness)
    qa0 = traj.evaluate(np.array([0.0])).position[0]
    q0 = m.closure(qa0)
    state = {"q": q0}

    def mc(t, e, ed):
        s = traj.evaluate(np.array([t]))
        q = m.closure(s.position[0], e, guess=state["q"])
        state["q"] = q
        M, c = m.dynamics(q, e, s.velocity[0], ed)
        return M, c, s.acceleration[0]

    class Problem(NonlinearProblem):
        n = ne

        def residual(self, t, x, v, z):
            M, c, qdda = mc(t, x, v)
            return M[na:, na:] @ z + M[na:, :na] @ qdda + c[na:]

        def matrix(self, t, x, v, z, beta_p, gamma_p):
            M, _, _ = mc(t, x, v)
            return M[na:, na:] + beta_p * K

    t_end, nst = 0.1, 4000
    M, c, qdda = mc(0.0, np.zeros(ne), np.zeros(ne))
    z0 = -np.linalg.solve(M[na:, na:], M[na:, :na] @ qdda + c[na:])
    py = generalized_alpha_nonlinear(Problem(), np.zeros(ne), np.zeros(ne), z0,
                                     t_end=t_end, dt=t_end / nst, atol=1e-14, rtol=1e-12)
    drv = m.driver()
    X, _, its = drv.galpha(np.linspace(0.0, t_end, nst + 1), traj, np.zeros(2 * ne), q0)
    e_py = np.asarray(py.x)[-1]
    assert np.abs(X[-1, :ne]).max() > 1e-5
    assert np.abs(X[-1, :ne] - e_py).max() < 5e-7
    assert its.mean() <= 1.2
    assert nst <= drv.factorizations < 1.05 * nst


def test_residual_pattern_holds_every_nonzero_of_m_ee(five_bar_2):
    """The residual's product M_ee e_dd runs over the entries of the generated M_ee that
    are not the constant 0 (``MotionDriver.patterns``): at pseudo-random arguments of the
    compiled model every entry outside the pattern is exactly 0, so the sparse product
    equals the dense one to round-off (checked: relative 1e-15)."""
    m = five_bar_2
    drv = m.driver()
    rows, cols, perm, first = drv.patterns()
    na, ne = m.na, m.ne
    rng = np.random.default_rng(3)
    mask = np.zeros((ne, ne), dtype=bool)
    for i in range(ne):
        mask[i, cols[rows[i]:rows[i + 1]]] = True
    assert mask.sum() < 0.8 * ne * ne          # a real saving, not the dense product
    for _ in range(3):
        M = m.compiled("model")(rng.uniform(-1, 1, m.n_joints), rng.uniform(-1e-2, 1e-2, ne),
                                rng.uniform(-1, 1, na), rng.uniform(-1, 1, ne))["M"]
        Mee = np.asarray(M)[na:, na:]
        assert np.all(Mee[~mask] == 0.0)
        z = rng.normal(size=ne)
        sparse = np.array([Mee[i, cols[rows[i]:rows[i + 1]]] @ z[cols[rows[i]:rows[i + 1]]]
                           for i in range(ne)])
        np.testing.assert_allclose(sparse, Mee @ z, rtol=0,
                                   atol=1e-13 * np.abs(Mee).sum(axis=1).max() * np.abs(z).max())
    # the envelope order is a permutation; row i's envelope starts at or before i
    assert sorted(perm) == list(range(ne))
    assert np.all(first <= np.arange(ne))
