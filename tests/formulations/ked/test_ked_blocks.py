"""The leg-block solver of the KED Delta (issue 16): banded LU in the reverse
Cuthill-McKee order of the structural pattern against a dense LU of the assembled
global matrix (numpy, independent of the leg blocks), the pattern against the actual
nonzeros, the run-time check of the band, a simulation against the dense kernel, and
the BLAS thread limit."""
import os
import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from elastodyn.formulations.ked.simulation import simulate_ked
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.exceptions import ModelError
from elastodyn.formulations.ked.blocks import LegBlockSolver, dense_leg_blocks
from elastodyn.formulations.ked.engine import KEDEngine
from elastodyn.formulations.ked.batch import KEDBatch
from elastodyn.integrators.threads import THREAD_ENV_VARS, small_problem_threads
from elastodyn.trajectories import Circle

ROBOT = flexible_delta_kuo2016()
EPS = np.finfo(float).eps


class _Track:
    """A deflected reference solved exactly at the batch's samples (ReferenceTrack's
    interface for KEDBatch)."""

    def __init__(self, st):
        self.st = st

    def at(self, k0, k1):
        s = self.st
        return s.F[k0:k1], s.K[k0:k1], s.M[k0:k1], s.D if s.D is None else s.D[k0:k1]


def _blocks(model, deflected_tangent=False):
    """Leg blocks M, C, K, K_el, F at four samples of Kuo's circle at full speed, and
    (deflected) the reference's tangent stiffness K_T."""
    smp = Circle.kuo2016().evaluate(np.array([0.3, 0.31, 0.32, 0.33]))
    mo = model.motion(smp.position, smp.velocity, smp.acceleration)
    st = model.deflected_along(mo) if model.reference == "deflected" else None
    b = KEDBatch(model, mo, reference=None if st is None else _Track(st))
    M, C, K, Kel, F = b.chunk_blocks(0, len(smp.position))
    mats = {"newmark": M + 5e-4 * C + 2.5e-7 * K, "K": K, "K_el": Kel, "M": M}
    if st is not None:
        mats["K_T"] = st.K
    return b, mats, F


CASES = [(n, "cubic", "undeformed") for n in (1, 4, 8)] + \
        [(n, "cubic", "deflected") for n in (1, 4, 8)] + \
        [(n, "quintic", "undeformed") for n in (1, 4, 8)]


@pytest.mark.parametrize("n,order,reference", CASES)
def test_banded_solve_equals_dense_solve(n, order, reference):
    """Every nonzero of the blocks (Newmark's M + h C + h^2 K, K, K_el, M, the deflected
    tangent) lies in the structural pattern; the solve equals numpy's dense LU of the
    global matrix. Both are backward stable: their difference is bounded by
    ~ eps cond(A) |x| (times a modest growth factor); 10 eps cond(A) is asserted (the
    measured differences are 1e-3..1e-1 of eps cond). Both kernels are checked whatever
    the default (dense at 1 element, where the band fills the block)."""
    m = KEDEngine(ROBOT, elements=n, order=order, reference=reference)
    assert m.reference == reference
    b, mats, F = _blocks(m)
    default = m.leg_solver
    assert default.kernel == ("banded" if 2 * default.ldab <= default.m else "dense")
    # the band is set by one element's chain of nodes, not by the mesh
    assert default.bandwidth <= (15 if order == "cubic" else 29)
    solvers = [default] + [LegBlockSolver(m.leg_pattern, m.leg_blocks, m.dof, kernel=k)
                           for k in ("banded", "dense") if k != default.kernel]
    rng = np.random.default_rng(n)
    with small_problem_threads():  # (the SVDs of cond: 10 s with two threads on 2 cores)
        _check_solves(b, m, mats, F, solvers, rng)


def _check_solves(b, m, mats, F, solvers, rng):
    for name, A in mats.items():
        nz = np.any(A != 0, axis=(0, 1))
        assert not np.any(nz & ~m.leg_pattern), name
        Ad = b.dense(A)
        cond = np.max(np.linalg.cond(Ad))
        for r in (F, rng.normal(size=F.shape)):
            ref = np.linalg.solve(Ad, b.dense(r)[..., None])[..., 0]
            for s in solvers:
                got = s.solve(A, r)
                err = np.abs(got - ref).max() / np.abs(ref).max()
                assert err <= 10 * EPS * cond, (name, s.kernel, err, EPS * cond)


def test_entry_outside_the_band_is_a_model_error():
    """A leg block with an entry outside the structural pattern's band is refused (a
    wrong pattern must not give a silently wrong solve); inside the band, even off the
    pattern, it is solved exactly."""
    m = KEDEngine(ROBOT, elements=4, reference="undeformed")
    b, mats, F = _blocks(m)
    s = LegBlockSolver(m.leg_pattern, m.leg_blocks, m.dof, kernel="banded")
    A = mats["K"].copy()
    i, j = s.perm[0], s.perm[-1]          # first and last in band order: far apart
    A[2, 1, i, j] = 1.0
    with pytest.raises(ModelError, match="outside the band"):
        s.solve(A, F)
    with pytest.raises(ModelError, match="outside the band"):
        s.prepare(A)
    A = mats["K"].copy()
    off = [(p, q) for p in range(s.m) for q in range(s.m)
           if abs(p - q) <= s.bandwidth and not m.leg_pattern[s.perm[p], s.perm[q]]]
    p, q = off[0]
    A[0, 2, s.perm[p], s.perm[q]] = 1e3
    ref = np.linalg.solve(b.dense(A), b.dense(F)[..., None])[..., 0]
    got = s.solve(A, F)
    assert np.abs(got - ref).max() <= 1e-6 * np.abs(ref).max()


@pytest.mark.parametrize("reference", ["undeformed", "deflected"])
def test_simulation_unchanged_against_the_dense_kernel(reference):
    """0.1 s of Kuo's circle at full speed, 2 elements: the Newmark run (prepared
    chunks, quasi-static path, static start or the deflected reference's Newton and
    rest start) with the banded solver equals the same run with the dense kernel. The
    difference is round-off amplified by the solves (eps cond ~ 1e-8 for K) and carried
    by the undamped integration; 1e-7 of the peak response is asserted (measured
    ~1e-10)."""
    runs = []
    for kernel in ("banded", "dense"):
        m = KEDEngine(ROBOT, elements=2, reference=reference)
        m.leg_solver = LegBlockSolver(m.leg_pattern, m.leg_blocks, m.dof, kernel=kernel)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs.append(simulate_ked(m, Circle.kuo2016(), duration=0.1))
    a, d = runs
    scale = np.abs(d.delta).max()
    assert np.abs(a.delta - d.delta).max() <= 1e-7 * scale
    np.testing.assert_allclose(a.torque, d.torque, rtol=0, atol=1e-7 * np.abs(d.torque).max())


def _blas_threads():
    return {i["filepath"]: i["num_threads"] for i in threadpool_info()
            if i["user_api"] == "blas"}


def test_small_problem_threads_limits_and_respects_the_user(monkeypatch):
    """One BLAS thread inside, restored outside; a user's explicit thread count in the
    environment is left alone."""
    for v in THREAD_ENV_VARS:
        monkeypatch.delenv(v, raising=False)
    before = _blas_threads()
    with small_problem_threads():
        assert all(n == 1 for n in _blas_threads().values())
    assert _blas_threads() == before
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", str(os.cpu_count() or 2))
    with small_problem_threads():
        assert _blas_threads() == before


def test_deflected_newton_per_sample_equals_single_sample_solves():
    """The deflected reference's Newton drops each sample from the batch once its update
    is below the tolerance (issue 16: the Hessians are the cost). The samples are
    independent, so the batch must equal solving each sample alone (where nothing is
    dropped) to the Newton tolerance in delta_s, and in K_T (exact, by jets, at each
    sample's last iterate) to its change over that tolerance (~ tol V^(3), ~1e-9 of
    the stiffest entries); the mass is evaluated at the same delta_s. The gradient
    vanishes at the result (to 1e-9 of the gradient at the undeformed pose, the
    loads)."""
    from elastodyn.formulations.ked.deflected import NEWTON_TOL, DeflectedReference
    m = KEDEngine(ROBOT, elements=2)
    smp = Circle.kuo2016().evaluate(np.array([0.0, 0.13, 0.27, 0.41]))
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    ref = DeflectedReference(m)
    with small_problem_threads():
        batch = ref.solve(mo)
        single = [ref.solve(mo, [k]) for k in range(len(mo))]
        ks = np.arange(len(mo))

        def grad(d):  # global gradient: the legs' platform rows summed
            return dense_leg_blocks(ref.gradient(mo, ks, d), m.leg_blocks, m.dof,
                                    matrix=False)

        g0 = np.abs(grad(np.zeros((len(mo), m.dof)))).max()
        g = np.abs(grad(batch.delta)).max()
    assert g <= 1e-9 * g0
    for k, s in enumerate(single):
        assert np.abs(batch.delta[k] - s.delta[0]).max() <= NEWTON_TOL
        assert np.abs(batch.K[k] - s.K[0]).max() <= 1e-8 * np.abs(s.K[0]).max()
        assert np.abs(batch.M[k] - s.M[0]).max() <= 1e-12 * np.abs(s.M[0]).max()


def test_unknown_kernel_is_an_input_error():
    from elastodyn.exceptions import InputError
    m = KEDEngine(ROBOT, elements=1, reference="undeformed")
    with pytest.raises(InputError, match="kernel"):
        LegBlockSolver(m.leg_pattern, m.leg_blocks, m.dof, kernel="sparse")


@pytest.mark.parametrize("kernel", ["banded", "dense"])
def test_complex_blocks_solve_as_dense(kernel):
    """Complex leg blocks (a complex-step sensitivity of the deflected reference,
    analysis.frequency_sensitivity): a genuinely complex system equals numpy's dense
    complex LU (to 10 eps cond, as above), and a complex step A = K + i h dK,
    r = F + i h dF gives Re x = x0 and Im x / h = K^-1 (dF - dK x0) (the derivative of
    the solve, dense), both to 10 eps cond(K)."""
    m = KEDEngine(ROBOT, elements=4)
    mo = m.motion(np.array([[0.1, 0.05, 0.45]]))
    K = m.deflected_reference(mo).K                          # (1, 3, nb, nb)
    rng = np.random.default_rng(7)
    B = rng.normal(size=K.shape) * m.leg_pattern
    B = B + np.swapaxes(B, -1, -2)
    N, blocks = m.dof, m.leg_blocks
    r = rng.normal(size=K.shape[:-1]) + 1j * rng.normal(size=K.shape[:-1])
    s = LegBlockSolver(m.leg_pattern, blocks, N, kernel=kernel)
    A = K + 1e-3j * np.abs(K).max() * B
    Ad = dense_leg_blocks(A, blocks, N)
    ref = np.linalg.solve(Ad, dense_leg_blocks(r, blocks, N, matrix=False)[..., None])[..., 0]
    got = s.solve(A, r)
    assert got.dtype == complex
    cond = np.max(np.linalg.cond(Ad))
    assert np.abs(got - ref).max() / np.abs(ref).max() <= 10 * EPS * cond
    h = 1e-30
    F = r.real
    dF = r.imag
    x0 = s.solve(K, F)
    x = s.solve(K + 1j * h * B, F + 1j * h * dF)
    Kd = dense_leg_blocks(K, blocks, N)
    rhs = (dense_leg_blocks(dF, blocks, N, matrix=False)
           - (dense_leg_blocks(B, blocks, N) @ x0[..., None])[..., 0])
    dx = np.linalg.solve(Kd, rhs[..., None])
    tol = 10 * EPS * np.max(np.linalg.cond(Kd))   # both solves backward stable
    np.testing.assert_allclose(x.real, x0, rtol=0, atol=tol * np.abs(x0).max())
    np.testing.assert_allclose(x.imag / h, dx[..., 0], rtol=0, atol=tol * np.abs(dx).max())
